//! SQLite's one writer, with group commit.
//!
//! SQLite lets one connection write at a time; a pool of connections contending for that lock
//! waits in SQLite's busy handler (sleeps of up to 100 ms), and each append pays its own fsync.
//! Instead, appends and game creations queue here, and one thread with one connection takes
//! every request that is waiting, runs each in its own savepoint inside one transaction (a
//! refused or failing request is rolled back alone and does not affect the others), and
//! commits once: one fsync for the whole batch. A request is answered only after the commit
//! that holds it is durable (`synchronous=FULL`). Readers keep the pool (WAL: they never wait
//! for the writer). The writer's thread owns its connection: sqlx lends it once, and every
//! statement of every batch runs on the writer's thread, with no hand-off ([`Direct`]).
//!
//! Nothing else in the server waits on SQLite's busy handler: the few writes made on the
//! pool (clubs, tokens, presets, players, imports) take the database's turn first
//! ([`Writer::database_turn`]), which the writer also takes for each batch, first come, first
//! served.
//!
//! Between batches the writer looks at its queue before it sleeps, and a request alone in
//! flight looks for its answer before its task sleeps ([`super::lookout`]).
//!
//! Clubs take turns. A batch takes its requests one club after another (the first of each
//! club waiting, then the second…), and stops taking more once it has run [`BATCH_TIME`]: the
//! rest lead the next batch. So a request that arrives behind one club's burst waits for the
//! batch under way and runs early in the next, both short, however long the burst. Requests
//! are queued on their club's turn ([`super::turns`]): past [`IN_FLIGHT`], a club waits for
//! its own turn, not behind another club's queue.

use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};
use tokio::sync::{mpsc, oneshot};

use super::checkpoints::{Beside, checkpoint};
use super::commit::settled_position;
use super::commit::{AfterCommit, Shared, Written};
use super::direct::Direct;
use super::error::StoreError;
use super::lookout::{self, InFlight, Looked, Lookout};
use super::turns::{Turns, clubs_in_turn};
use super::types::{Appended, NewGame};
use super::writes::{Mark, Writes};
use crate::append::AppendRequest;
use crate::records::{GameRecord, HeldGame};

/// Requests queued or in a batch at most, taken by club in rotation; past it, callers wait
/// for their club's turn (back-pressure, and fairness between clubs). Also bounds a batch's
/// memory.
const IN_FLIGHT: usize = 256;
/// A batch takes no further request once it has run this long: what a request arriving
/// behind another club's burst waits for, twice at most (the batch under way, and its own).
const BATCH_TIME: Duration = Duration::from_millis(10);
/// The longest the writer looks for its next request before it sleeps ([`Lookout`]).
const LONGEST_LOOK: Duration = Duration::from_micros(1_000);

enum Job {
    Append {
        club: String,
        id: String,
        request: AppendRequest,
        /// The game as replayed before the batch, when no state of it was held: the batch uses
        /// it if the game's row is still at its version.
        prepared: Option<Box<HeldGame>>,
        reply: oneshot::Sender<Result<Appended, StoreError>>,
    },
    Create {
        club: String,
        game: NewGame,
        reply: oneshot::Sender<Result<Option<GameRecord>, StoreError>>,
    },
}

/// What a batch does with each request, inside the request's savepoint: the store's decision
/// and writes (`events::append::append_in`, `events::create::create_in`), given to the writer when it starts.
pub(super) trait Work: Send + 'static {
    async fn append(
        &self,
        shared: &Shared,
        w: &mut Writes<'_, sqlx::Sqlite>,
        club: &str,
        id: &str,
        request: &AppendRequest,
        prepared: Option<HeldGame>,
    ) -> Result<Written<Appended>, StoreError>;

    async fn create(
        &self,
        w: &mut Writes<'_, sqlx::Sqlite>,
        club: &str,
        game: &NewGame,
    ) -> Result<Written<Option<GameRecord>>, StoreError>;
}

/// The handle the store sends its writes through; the task ends when the store is dropped,
/// after the requests already queued.
pub(super) struct Writer {
    jobs: mpsc::Sender<Job>,
    turns: Arc<Turns>,
    database: Arc<tokio::sync::Mutex<()>>,
    in_flight: InFlight,
}

impl Writer {
    /// Starts the writer on a thread of its own, with its own connection (`options`).
    ///
    /// sqlx runs a SQLite connection on a worker thread of its own; the writer borrows it from
    /// that thread for its whole life (`lock_handle`), and runs every statement itself. The
    /// writer's thread keeps to one CPU, which the connection's idle worker inherits, so that no
    /// hand-off wakes a sleeping CPU (BENCHMARKS.md, "Fewer hand-offs, and one CPU for the
    /// writer"). `TABLETALLY_SQLITE_WRITER_CPU=any` lets it run anywhere.
    ///
    /// The writer's commits do not checkpoint the write-ahead log themselves (SQLite's
    /// default, inside the commit that crossed the threshold, before its callers hear):
    /// the writer asks for them after the batch ([`Beside`]).
    pub(super) async fn start(
        options: SqliteConnectOptions,
        shared: Arc<Shared>,
        work: impl Work,
        beside: Beside,
    ) -> Result<Self, StoreError> {
        let (jobs, queue) = mpsc::channel(IN_FLIGHT);
        let (ready, started) = oneshot::channel();
        let database = Arc::new(tokio::sync::Mutex::new(()));
        let batches = Arc::clone(&database);
        let pin = std::env::var("TABLETALLY_SQLITE_WRITER_CPU").map_or(true, |v| v != "any");
        let longest_look = std::env::var("TABLETALLY_SQLITE_WRITER_LOOK_US")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(LONGEST_LOOK, Duration::from_micros);
        std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || {
                if pin {
                    lookout::keep_to_one_cpu();
                }
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(e) => {
                        let _ = ready.send(Err(StoreError::Database(sqlx::Error::Io(e))));
                        return;
                    }
                };
                runtime.block_on(async move {
                    let mut conn = match options.connect().await {
                        Ok(conn) => conn,
                        Err(e) => {
                            let _ = ready.send(Err(e.into()));
                            return;
                        }
                    };
                    {
                        let mut handle = match conn.lock_handle().await {
                            Ok(handle) => handle,
                            Err(e) => {
                                let _ = ready.send(Err(e.into()));
                                return;
                            }
                        };
                        let _ = ready.send(Ok(()));
                        Direct::lend(&mut handle, async move |direct| {
                            direct.watch_wal();
                            run(
                                direct,
                                shared,
                                &work,
                                queue,
                                &batches,
                                &beside,
                                longest_look,
                            )
                            .await;
                        })
                        .await;
                    }
                    // Handed back to sqlx's worker, which closes it.
                    let _ = conn.close().await;
                });
            })
            .map_err(|e| StoreError::Database(sqlx::Error::Io(e)))?;
        started.await.unwrap_or_else(|_| Err(stopped()))?;
        Ok(Self {
            jobs,
            turns: Turns::new(IN_FLIGHT),
            database,
            in_flight: InFlight::new(longest_look),
        })
    }

    /// The database's write lock, taken in turn with the writer's batches: held by a write
    /// made on the pool from its `BEGIN` to its commit, it never waits in SQLite's busy handler.
    pub(super) async fn database_turn(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.database.lock().await
    }

    pub(super) async fn append(
        &self,
        club: &str,
        id: &str,
        request: AppendRequest,
        prepared: Option<HeldGame>,
    ) -> Result<Appended, StoreError> {
        let entered = self.in_flight.enter();
        let _turn = self.turns.take(club).await;
        let (reply, answer) = oneshot::channel();
        self.submit(Job::Append {
            club: club.to_owned(),
            id: id.to_owned(),
            request,
            prepared: prepared.map(Box::new),
            reply,
        })
        .await?;
        lookout::answer(answer, entered.look)
            .await
            .unwrap_or_else(|_| Err(stopped()))
    }

    pub(super) async fn create(
        &self,
        club: &str,
        game: NewGame,
    ) -> Result<Option<GameRecord>, StoreError> {
        let entered = self.in_flight.enter();
        let _turn = self.turns.take(club).await;
        let (reply, answer) = oneshot::channel();
        self.submit(Job::Create {
            club: club.to_owned(),
            game,
            reply,
        })
        .await?;
        lookout::answer(answer, entered.look)
            .await
            .unwrap_or_else(|_| Err(stopped()))
    }

    async fn submit(&self, job: Job) -> Result<(), StoreError> {
        self.jobs.send(job).await.map_err(|_| stopped())
    }
}

fn stopped() -> StoreError {
    StoreError::Database(sqlx::Error::PoolClosed)
}

async fn run(
    direct: &mut Direct,
    shared: Arc<Shared>,
    work: &impl Work,
    mut queue: mpsc::Receiver<Job>,
    database: &tokio::sync::Mutex<()>,
    beside: &Beside,
    longest_look: Duration,
) {
    let mut asked = None;
    let mut lookout = Lookout::new(longest_look);
    // Requests a batch left for the next (it ran out of time), then those received.
    let mut waiting: Vec<Job> = Vec::with_capacity(IN_FLIGHT);
    loop {
        // Wait for one request, then for the database's turn, then take every other request
        // waiting by then.
        if waiting.is_empty() {
            let idle = Instant::now();
            match lookout.look(&mut queue) {
                Looked::Came(job) => waiting.push(job),
                Looked::Closed => return,
                Looked::Nothing => {
                    if queue.recv_many(&mut waiting, IN_FLIGHT).await == 0 {
                        return;
                    }
                    lookout.slept(idle.elapsed());
                }
            }
        }
        let _turn = database.lock().await;
        while let Ok(job) = queue.try_recv() {
            waiting.push(job);
        }
        let jobs = clubs_in_turn(std::mem::take(&mut waiting), Job::club);
        waiting = batch(direct, &shared, work, jobs).await;
        checkpoint(direct, beside, &mut asked);
    }
}

impl Job {
    fn club(&self) -> &str {
        match self {
            Job::Append { club, .. } | Job::Create { club, .. } => club,
        }
    }
}

/// A job's answer, held until the batch's commit.
enum Answer {
    Append(
        oneshot::Sender<Result<Appended, StoreError>>,
        Result<Appended, StoreError>,
    ),
    Create(
        oneshot::Sender<Result<Option<GameRecord>, StoreError>>,
        Result<Option<GameRecord>, StoreError>,
    ),
}

impl Answer {
    fn send(self) {
        // A caller that went away (its request was cancelled) needs no answer.
        let _ = match self {
            Answer::Append(reply, answer) => reply.send(answer).map_err(drop),
            Answer::Create(reply, answer) => reply.send(answer).map_err(drop),
        };
    }

    /// Its events' positions, now that the batch's first one is known.
    fn settle(&mut self, first: i64) {
        if let Answer::Append(_, Ok(appended)) = self {
            for event in &mut appended.events {
                event.position = settled_position(event.position, first);
            }
        }
    }

    /// The request's own writes failed: it is answered with their error.
    fn refused(self, error: StoreError) -> Self {
        match self {
            Answer::Append(reply, _) => Answer::Append(reply, Err(error)),
            Answer::Create(reply, _) => Answer::Create(reply, Err(error)),
        }
    }

    /// The commit failed: a written answer becomes that failure; refusals stand.
    fn failed(self, written: bool, why: &str) -> Self {
        let error = || StoreError::Database(sqlx::Error::Protocol(why.to_owned()));
        match self {
            Answer::Append(reply, Ok(_)) if written => Answer::Append(reply, Err(error())),
            Answer::Create(reply, Ok(_)) if written => Answer::Create(reply, Err(error())),
            other => other,
        }
    }
}

/// Runs `jobs` in one transaction, in order, until [`BATCH_TIME`] has passed; returns the
/// requests it left for the next batch.
async fn batch(direct: &mut Direct, shared: &Shared, work: &impl Work, jobs: Vec<Job>) -> Vec<Job> {
    let started = Instant::now();
    let mut w = match Writes::begin_on(direct).await {
        Ok(w) => w,
        Err(e) => {
            let why = format!("the writer's transaction could not begin: {e}");
            for job in jobs {
                answer_unwritten(job, &why).send();
            }
            return Vec::new();
        }
    };
    // Every game a job of this batch touched: forgotten by the cache if the commit fails.
    let mut touched = Vec::with_capacity(jobs.len());
    let mut done: Vec<(Answer, Option<AfterCommit>)> = Vec::with_capacity(jobs.len());
    // Each request runs in its own savepoint; the writer closes one and opens the next.
    // A savepoint that cannot be opened or rolled back breaks the batch: it is rolled back
    // whole. A lone request (one table's append at a quiet moment) needs none: refused, its
    // transaction is rolled back. Inside a savepoint SQLite copies every page a statement
    // changes into the savepoint's journal first.
    let alone = jobs.len() == 1;
    let mut broken: Option<String> = if alone {
        None
    } else {
        w.run(&[SAVEPOINT])
            .await
            .err()
            .map(|e| format!("a savepoint could not be opened: {e}"))
    };
    // The last request's savepoint is closed by the commit (`end`), with its mark; when the
    // batch ran out of time, the savepoint opened for the next request is, empty (`left`).
    let mut end: Option<(&[&str], Mark)> = None;
    let mut left = Vec::new();
    let mut jobs = jobs.into_iter();
    while let Some(job) = jobs.next() {
        if let Some(why) = &broken {
            done.push((answer_unwritten(job, why), None));
            continue;
        }
        let last = jobs.len() == 0;
        let mark = w.mark();
        let (mut answer, mut after, ok) = match job {
            Job::Append {
                club,
                id,
                request,
                prepared,
                reply,
            } => {
                shared.cache.begin_write(&id);
                let written = unpanicked(work.append(
                    shared,
                    &mut w,
                    &club,
                    &id,
                    &request,
                    prepared.map(|p| *p),
                ))
                .await;
                touched.push(id);
                let (result, after) = split(written);
                let ok = result.is_ok();
                (Answer::Append(reply, result), after, ok)
            }
            Job::Create { club, game, reply } => {
                shared.cache.begin_write(&game.id);
                let written = unpanicked(work.create(&mut w, &club, &game)).await;
                touched.push(game.id.clone());
                let (result, after) = split(written);
                let ok = result.is_ok();
                (Answer::Create(reply, result), after, ok)
            }
        };
        if last {
            if !ok {
                w.discard(mark);
            }
            let closing = match (alone, ok) {
                (false, true) => RELEASE,
                (false, false) => ROLL_BACK,
                (true, true) => KEEP_ALONE,
                (true, false) => UNDO_ALONE,
            };
            end = Some((closing, mark));
            done.push((answer, after));
            break;
        }
        let mut refused = !ok;
        if ok && let Err(e) = w.run(&[RELEASE, &[SAVEPOINT]].concat()).await {
            answer = answer.refused(e);
            after = None;
            refused = true;
        }
        if refused {
            w.discard(mark);
            if let Err(e) = w.run(&[ROLL_BACK, &[SAVEPOINT]].concat()).await {
                tracing::error!(error = %e, "a savepoint could not be rolled back; the batch is rolled back");
                broken = Some(format!("a savepoint could not be rolled back: {e}"));
            }
        }
        done.push((answer, after));
        if broken.is_none() && started.elapsed() >= BATCH_TIME {
            left = jobs.collect();
            end = Some((RELEASE, w.mark()));
            break;
        }
    }
    let requests = done.len();
    let committed = match (broken, end) {
        (None, Some((end, mark))) => match w.commit_batch(end).await {
            Ok(first) => Ok(first),
            // The last request's savepoint may be what failed: without it the others commit,
            // and it is refused alone (if the commit itself failed, this fails too).
            Err(e) if end == RELEASE && left.is_empty() => {
                w.discard(mark);
                match w.commit_batch(ROLL_BACK).await {
                    Ok(first) => {
                        // Its state, advanced past writes that were undone, is dropped.
                        if let Some((answer, _after)) = done.pop() {
                            done.push((answer.refused(e), None));
                        }
                        Ok(first)
                    }
                    Err(again) => {
                        w.roll_back().await;
                        Err(format!("{e}; then {again}"))
                    }
                }
            }
            Err(e) => {
                w.roll_back().await;
                Err(e.to_string())
            }
        },
        (why, _) => {
            w.roll_back().await;
            Err(why.unwrap_or_else(|| "the batch was empty".into()))
        }
    };
    match committed {
        Ok(first) => {
            shared.count_batch(requests);
            // Each caller hears as soon as its commit is durable; the cache and the streams
            // catch up meanwhile. Until `end_writes`, the batch's games count as being
            // written, so a read that comes first asks the database, which has them.
            let mut afters = Vec::with_capacity(done.len());
            for (mut answer, after) in done {
                answer.settle(first);
                answer.send();
                if let Some(mut after) = after {
                    after.settle(first);
                    afters.push(after);
                }
            }
            for after in afters {
                shared.committed(after);
            }
            shared.cache.end_writes(&touched);
        }
        Err(e) => {
            tracing::error!(error = %e, requests, "a group commit failed; its writes are answered with the error");
            for id in &touched {
                shared.cache.forget(id);
            }
            shared.cache.end_writes(&touched);
            let why = format!("the commit failed: {e}");
            for (answer, after) in done {
                answer.failed(after.is_some(), &why).send();
            }
        }
    }
    left
}

/// A request's work, whose panic (a bug) fails that request alone: its savepoint is rolled
/// back like a refusal's, and the writer goes on with the others (a panic would end its thread,
/// and every later write with it).
async fn unpanicked<T>(
    work: impl std::future::Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    use futures_util::FutureExt;
    std::panic::AssertUnwindSafe(work)
        .catch_unwind()
        .await
        .unwrap_or_else(|panic| {
            let why = crate::telemetry::panic_message(panic.as_ref());
            tracing::error!(panic = %why, "a write panicked; it is refused and the writer goes on");
            Err(StoreError::Database(sqlx::Error::Protocol(format!(
                "the write failed on a bug: {why}"
            ))))
        })
}

/// Opens a request's savepoint.
const SAVEPOINT: &str = "SAVEPOINT request";
/// Ends a request's savepoint with its writes kept, or with them undone (it was refused).
const RELEASE: &[&str] = &["RELEASE request"];
const ROLL_BACK: &[&str] = &["ROLLBACK TO request", "RELEASE request"];
/// The same for a lone request, opened without a savepoint: nothing to close, or the whole
/// transaction undone (and an empty one begun, which the batch's commit then ends).
const KEEP_ALONE: &[&str] = &[];
const UNDO_ALONE: &[&str] = &["ROLLBACK", "BEGIN IMMEDIATE"];

fn split<T>(
    written: Result<Written<T>, StoreError>,
) -> (Result<T, StoreError>, Option<AfterCommit>) {
    match written {
        Ok(written) => (Ok(written.answer), written.after),
        Err(e) => (Err(e), None),
    }
}

/// The answer to a job that never ran.
fn answer_unwritten(job: Job, why: &str) -> Answer {
    let error = || StoreError::Database(sqlx::Error::Protocol(why.to_owned()));
    match job {
        Job::Append { reply, .. } => Answer::Append(reply, Err(error())),
        Job::Create { reply, .. } => Answer::Create(reply, Err(error())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::checkpoints::checkpoints;
    use crate::store::writes::args;

    /// Writes a note named after the game, then refuses the games whose id says so.
    struct Notes;

    impl Work for Notes {
        async fn append(
            &self,
            _: &Shared,
            _: &mut Writes<'_, sqlx::Sqlite>,
            _: &str,
            _: &str,
            _: &AppendRequest,
            _: Option<HeldGame>,
        ) -> Result<Written<Appended>, StoreError> {
            unreachable!("these tests only create")
        }

        async fn create(
            &self,
            w: &mut Writes<'_, sqlx::Sqlite>,
            _: &str,
            game: &NewGame,
        ) -> Result<Written<Option<GameRecord>>, StoreError> {
            use crate::store::writes::Writing;
            // A page of its own, about.
            w.execute(
                "INSERT INTO notes (id, body) VALUES ($1, randomblob(4000))",
                args![&game.id],
            )
            .await?;
            if game.id.starts_with("refused") {
                return Err(StoreError::NotFound);
            }
            Ok(Written {
                answer: None,
                after: None,
            })
        }
    }

    fn new_game(id: &str) -> NewGame {
        NewGame {
            id: id.into(),
            game: "mint-condition".into(),
            players: Vec::new(),
            options: serde_json::json!({}),
            started_at: chrono::DateTime::UNIX_EPOCH,
            recorded_by: None,
        }
    }

    /// A database file with a table of notes, its connect options, and a reader.
    async fn notes_database() -> (
        std::path::PathBuf,
        SqliteConnectOptions,
        sqlx::SqliteConnection,
    ) {
        let file =
            std::env::temp_dir().join(format!("tabletally-writer-{}.db", uuid::Uuid::new_v4()));
        let options = SqliteConnectOptions::new()
            .filename(&file)
            .create_if_missing(true)
            .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal);
        let mut reader = options.connect().await.unwrap();
        // `events` as the batch's commit reads its last position (`sqlite_sequence`).
        let tables = "CREATE TABLE notes (id TEXT PRIMARY KEY, body BLOB); \
                      CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT)";
        sqlx::raw_sql(tables).execute(&mut reader).await.unwrap();
        (file, options, reader)
    }

    fn remove(file: &std::path::Path) {
        for end in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{end}", file.display()));
        }
    }

    #[tokio::test]
    async fn a_lone_request_refused_after_it_wrote_leaves_nothing_and_the_next_is_stored() {
        // Arrange: the writer on a database of notes.
        let (file, options, mut reader) = notes_database().await;
        let writer = Writer::start(options, Shared::new(false), Notes, Beside::nobody())
            .await
            .unwrap();

        // Act: one request at a time, each a batch of its own.
        let refused = writer.create("club", new_game("refused-1")).await;
        let stored = writer.create("club", new_game("kept-1")).await;

        // Assert
        assert!(matches!(refused, Err(StoreError::NotFound)), "{refused:?}");
        assert!(matches!(stored, Ok(None)), "{stored:?}");
        let notes: Vec<String> = sqlx::query_scalar("SELECT id FROM notes ORDER BY id")
            .fetch_all(&mut reader)
            .await
            .unwrap();
        assert_eq!(notes, ["kept-1"]);
        drop(writer);
        remove(&file);
    }

    /// `count` lone requests, one after the other, each stored.
    async fn write_notes(writer: &Writer, count: usize) {
        for i in 0..count {
            let written = writer.create("club", new_game(&format!("kept-{i}"))).await;
            assert!(matches!(written, Ok(None)), "{written:?}");
        }
    }

    /// The write-ahead log's size in frames of 4 KiB pages (a frame's header is 24 bytes).
    fn wal_frames(file: &std::path::Path) -> u64 {
        let wal = std::fs::metadata(format!("{}-wal", file.display())).map_or(0, |m| m.len());
        wal.saturating_sub(32) / (4096 + 24)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn checkpoints_beside_the_writer_keep_its_log_short() {
        // Arrange: the writer, with checkpoints on a pool of the same file.
        let (file, options, _reader) = notes_database().await;
        let pool = sqlx::sqlite::SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone())
            .await
            .unwrap();
        let writer = Writer::start(options, Shared::new(false), Notes, checkpoints(pool))
            .await
            .unwrap();

        // Act: 3,000 lone requests, each writing two or three pages (9,000 frames at most).
        write_notes(&writer, 3_000).await;

        // Assert: the log never grew far past the threshold of 1,000 frames (the writer itself
        // would checkpoint only past 8,000).
        let frames = wal_frames(&file);
        assert!(frames < 4_000, "the log grew to {frames} frames");
        drop(writer);
        remove(&file);
    }

    #[tokio::test]
    async fn without_checkpoints_beside_it_the_writer_makes_its_own_past_eight_thousand_frames() {
        // Arrange: the writer, whose requests for checkpoints nobody answers.
        let (file, options, _reader) = notes_database().await;
        let writer = Writer::start(options, Shared::new(false), Notes, Beside::nobody())
            .await
            .unwrap();

        // Act: 4,500 lone requests, each writing two or three pages.
        write_notes(&writer, 4_500).await;

        // Assert: the log grew past SQLite's threshold, and stopped a batch after 8,000.
        let frames = wal_frames(&file);
        assert!(
            (8_000..8_010).contains(&frames),
            "the log grew to {frames} frames"
        );
        drop(writer);
        remove(&file);
    }

    #[tokio::test]
    async fn a_panicking_write_is_refused_and_a_sound_one_answered() {
        let sound = unpanicked(async { Ok::<_, StoreError>(7) }).await;
        let buggy = unpanicked(async {
            if std::hint::black_box(true) {
                panic!("attempt to add with overflow");
            }
            Ok::<i64, StoreError>(0)
        })
        .await;

        assert!(matches!(sound, Ok(7)));
        assert!(
            matches!(&buggy, Err(StoreError::Database(sqlx::Error::Protocol(why)))
                if why == "the write failed on a bug: attempt to add with overflow"),
            "{buggy:?}"
        );
    }
}
