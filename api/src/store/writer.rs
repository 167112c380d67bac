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

use std::sync::Arc;

use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};
use tokio::sync::{mpsc, oneshot};

use super::commit::{AfterCommit, Shared, Written};
use super::direct::Direct;
use super::writes::{Mark, Writes, settled_position};
use super::{Appended, GameRecord, NewGame, StoreError};
use crate::append::AppendRequest;

/// Requests taken into one transaction at most: bounds a batch's latency and its memory.
const MAX_BATCH: usize = 256;
/// Requests waiting at most; past it, callers wait to queue (back-pressure, not memory).
const QUEUE: usize = 4096;

enum Job {
    Append {
        club: String,
        id: String,
        request: AppendRequest,
        reply: oneshot::Sender<Result<Appended, StoreError>>,
    },
    Create {
        club: String,
        game: NewGame,
        reply: oneshot::Sender<Result<Option<GameRecord>, StoreError>>,
    },
}

/// What a batch does with each request, inside the request's savepoint: the store's decision
/// and writes (`SqliteStore::append_in`, `create_in`), given to the writer when it starts.
pub(super) trait Work: Send + 'static {
    async fn append(
        &self,
        shared: &Shared,
        w: &mut Writes<'_, sqlx::Sqlite>,
        club: &str,
        id: &str,
        request: &AppendRequest,
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
}

impl Writer {
    /// Starts the writer on a thread of its own, with its own connection (`options`).
    ///
    /// sqlx runs a SQLite connection on a worker thread of its own; the writer borrows it from
    /// that thread for its whole life (`lock_handle`), and runs every statement itself. The
    /// writer's thread keeps to one CPU, which the connection's idle worker inherits: before
    /// the writer owned its connection, the two handed every statement to each other, and on
    /// different CPUs each hand-off woke a sleeping one (BENCHMARKS.md, "Fewer hand-offs, and
    /// one CPU for the writer"). `TABLETALLY_SQLITE_WRITER_CPU=any` lets it run anywhere.
    pub(super) async fn start(
        options: SqliteConnectOptions,
        shared: Arc<Shared>,
        work: impl Work,
    ) -> Result<Self, StoreError> {
        let (jobs, queue) = mpsc::channel(QUEUE);
        let (ready, started) = oneshot::channel();
        let pin = std::env::var("TABLETALLY_SQLITE_WRITER_CPU").map_or(true, |v| v != "any");
        std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || {
                if pin {
                    keep_to_one_cpu();
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
                            run(direct, shared, &work, queue).await;
                        })
                        .await;
                    }
                    // Handed back to sqlx's worker, which closes it.
                    let _ = conn.close().await;
                });
            })
            .map_err(|e| StoreError::Database(sqlx::Error::Io(e)))?;
        started.await.unwrap_or_else(|_| Err(stopped()))?;
        Ok(Self { jobs })
    }

    pub(super) async fn append(
        &self,
        club: &str,
        id: &str,
        request: AppendRequest,
    ) -> Result<Appended, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.submit(Job::Append {
            club: club.to_owned(),
            id: id.to_owned(),
            request,
            reply,
        })
        .await?;
        answer.await.unwrap_or_else(|_| Err(stopped()))
    }

    pub(super) async fn create(
        &self,
        club: &str,
        game: NewGame,
    ) -> Result<Option<GameRecord>, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.submit(Job::Create {
            club: club.to_owned(),
            game,
            reply,
        })
        .await?;
        answer.await.unwrap_or_else(|_| Err(stopped()))
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
) {
    let mut jobs = Vec::with_capacity(MAX_BATCH);
    // Wait for one request, then take every other one already waiting.
    while queue.recv_many(&mut jobs, MAX_BATCH).await > 0 {
        batch(direct, &shared, work, std::mem::take(&mut jobs)).await;
    }
}

/// Keeps the calling thread, and the threads it starts, to the last CPU it may run on. Nothing
/// to do with one CPU.
fn keep_to_one_cpu() {
    let Some(cpus) = core_affinity::get_core_ids() else {
        return;
    };
    if cpus.len() < 2 {
        return;
    }
    if let Some(last) = cpus.last() {
        core_affinity::set_for_current(*last);
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

async fn batch(direct: &mut Direct, shared: &Shared, work: &impl Work, jobs: Vec<Job>) {
    let requests = jobs.len();
    let mut w = match Writes::begin_on(direct).await {
        Ok(w) => w,
        Err(e) => {
            let why = format!("the writer's transaction could not begin: {e}");
            for job in jobs {
                answer_unwritten(job, &why).send();
            }
            return;
        }
    };
    // Every game a job of this batch touched: forgotten by the cache if the commit fails.
    let mut touched = Vec::with_capacity(requests);
    let mut done: Vec<(Answer, Option<AfterCommit>)> = Vec::with_capacity(requests);
    // Each request runs in its own savepoint; the writer closes one and opens the next.
    // A savepoint that cannot be opened or rolled back breaks the batch: it is rolled back
    // whole.
    let mut broken: Option<String> = match w.run(&[SAVEPOINT]).await {
        Ok(()) => None,
        Err(e) => Some(format!("a savepoint could not be opened: {e}")),
    };
    let last = jobs.len().saturating_sub(1);
    // The last request's savepoint is closed by the commit (`end`), with its mark.
    let mut end: Option<(&[&str], Mark)> = None;
    for (index, job) in jobs.into_iter().enumerate() {
        if let Some(why) = &broken {
            done.push((answer_unwritten(job, why), None));
            continue;
        }
        let mark = w.mark();
        let (mut answer, mut after, ok) = match job {
            Job::Append {
                club,
                id,
                request,
                reply,
            } => {
                shared.cache.begin_write(&id);
                let written = unpanicked(work.append(shared, &mut w, &club, &id, &request)).await;
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
        if index == last {
            if !ok {
                w.discard(mark);
            }
            end = Some((if ok { RELEASE } else { ROLL_BACK }, mark));
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
    }
    let committed = match (broken, end) {
        (None, Some((end, mark))) => match w.commit_batch(end).await {
            Ok(first) => Ok(first),
            // The last request's savepoint may be what failed: without it the others commit,
            // and it is refused alone (if the commit itself failed, this fails too).
            Err(e) if end == RELEASE => {
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
