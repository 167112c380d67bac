//! The SQL behind [`EventStore`], written once with `$1` placeholders and instantiated for
//! SQLite and PostgreSQL by `sql_store!`. The backends differ only in how an append takes its
//! locks: SQLite takes the database write lock up front (`BEGIN IMMEDIATE`), PostgreSQL locks
//! the game's row (`FOR UPDATE`) and, from its first event to its commit, the log's positions.
//! After a commit, both report it to the live streams ([`Subscribers`]); on PostgreSQL these
//! tell the other servers, outside any append's transaction (`crate::wakeups`).

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, SubsecRound, Utc};
use serde_json::{Value, json};
use sqlx::Row;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use tabletally_domain::Scoreboard;
use tabletally_domain::setup::name_key;

use super::commit::{AfterCommit, Shared, Written};
use super::lanes::Lanes;
use super::lists::{Param, bind_params, placeholders};
use super::plain::{PlainAppend, PlainAppends};
use super::primary::Follower;
use super::server_lock::ServerLock;
use super::versions::VersionReads;
use super::writer::{Work, Writer};
use super::writes::{Writes, args};
use super::{
    AccessTokenRecord, Appended, CacheCounters, ClubCopy, ClubRecord, EventMeta, EventStore,
    GameChange, GameFilter, GameRecord, HeldGame, ImportOutcome, ImportResult, ImportedGame,
    NewEvent, NewGame, NewSeat, PlayerCopy, SCHEMA_VERSION, SeatRecord, StoreError, StoredEvent,
    Subscribers, WriterCounters,
};
use crate::append::{self, AppendRequest, Decision};

/// SQLite: appends and game creations go to the one writer (group commit, see [`writer`]);
/// everything else reads and writes through the pool.
pub struct SqliteStore {
    pub(super) pool: SqlitePool,
    writer: Writer,
    shared: Arc<Shared>,
    /// Held while the store lives: this server is the database's only writer.
    _lock: Option<ServerLock>,
}

/// A game's row by its id, in its club (the club compared as in [`super::plain::PLAIN_APPEND`]).
macro_rules! game_row {
    () => {
        "SELECT id, game, status, version, options, started_at, updated_at FROM games \
         WHERE id = $1 AND club_id || '' = $2"
    };
}
/// `game_row!` as a constant, for the test that checks the plans.
pub const GAME_ROW: &str = game_row!();
/// A game's stored version by its id, in its club (the club compared as in [`super::plain::PLAIN_APPEND`]).
pub const STORED_VERSION: &str = "SELECT version FROM games WHERE id = $1 AND club_id || '' = $2";

/// The read of a new game's players: `$1` the club, then `names` name keys, each looked up by
/// the whole unique key, then `ids` known players' ids, by the primary key (the club compared
/// as in [`super::plain::PLAIN_APPEND`]). Written as `name_key IN (…)`, PostgreSQL read every player of the
/// club until it had the table's statistics (it took a club for a handful of rows): 0.5 ms a
/// creation in a club of 1,200 players.
pub fn seat_players_read(names: usize, ids: usize) -> String {
    let mut lookups: Vec<String> = (2..names + 2)
        .map(|key| {
            format!("SELECT id, name_key FROM players WHERE club_id = $1 AND name_key = ${key}")
        })
        .collect();
    if ids > 0 {
        let ids: Vec<String> = (names + 2..names + 2 + ids)
            .map(|n| format!("${n}"))
            .collect();
        lookups.push(format!(
            "SELECT id, name_key FROM players WHERE id IN ({}) AND club_id || '' = $1",
            ids.join(", ")
        ));
    }
    lookups.join(" UNION ALL ")
}

pub struct PostgresStore {
    pub(super) pool: PgPool,
    /// The hosts of a multi-host `DATABASE_URL`, the pool following their primary.
    primary: Option<Arc<Follower>>,
    shared: Arc<Shared>,
    /// Score reads' version checks, gathered into one statement (see [`versions`]).
    versions: VersionReads,
    /// Plain appends, gathered into one statement while one is in flight (see [`plain`]).
    plain: PlainAppends,
    /// Connections kept between requests (see [`lanes`]): appends and creations write on them.
    lanes: Arc<Lanes>,
    /// Statistics and history lists read from a standby (`TABLETALLY_READ_DATABASE_URL`).
    standby: Option<Box<Standby>>,
}

/// A store on a standby, for reads only, and the follower that says whether one is up.
pub(super) struct Standby {
    store: PostgresStore,
    follower: Arc<Follower>,
}

/// An append decided from a held game state before its row was locked (PostgreSQL,
/// [`PostgresStore::write_append`]): the state's version, the decision, and the state advanced
/// by it.
pub(super) struct Decided {
    version: i64,
    decision: Decision,
    held: HeldGame,
}

impl Decided {
    /// An append that changes neither the game's status nor the statistics: its writes are the
    /// game's row and the events alone.
    fn is_plain(&self) -> bool {
        matches!(
            &self.decision,
            Decision::Append { status, result: None, .. }
                if status.as_str() == self.held.game.status && self.held.game.status != "finished"
        )
    }
}

/// Whether an imported game's events are the stored ones: the same ids, types and data in the
/// same order (the players' ids in `game_started` are each club's own, so they are left out).
fn same_log(stored: &[StoredEvent], file: &[StoredEvent]) -> bool {
    fn without_player_ids(data: &Value) -> Value {
        let mut data = data.clone();
        if let Some(Value::Array(players)) = data.get_mut("players") {
            for player in players.iter_mut().filter_map(Value::as_object_mut) {
                player.remove("player_id");
            }
        }
        data
    }
    stored.len() == file.len()
        && stored.iter().zip(file).all(|(s, f)| {
            s.id == f.id
                && s.event_type == f.event_type
                && if s.seq == 1 {
                    without_player_ids(&s.data) == without_player_ids(&f.data)
                } else {
                    s.data == f.data
                }
        })
}

/// A game's seats, by game id.
const SEATS: &str =
    "SELECT seat, name, player_id, color FROM game_players WHERE game_id = $1 ORDER BY seat";

/// The game's events up to `version`, the one its row was read at: on PostgreSQL each
/// statement of a read sees the commits made before it, so events appended since the row was
/// read are left for the next read (the row and the log agree).
const EVENTS: &str = "SELECT position, seq, event_id, type, schema_version, data, recorded_at, recorded_by \
                      FROM events WHERE game_id = $1 AND seq <= $2 ORDER BY seq";

/// A new event as it is stored at `seq`, recorded `at` (its position is the database's).
fn to_store(new: NewEvent, seq: i64, at: DateTime<Utc>) -> StoredEvent {
    StoredEvent {
        position: 0,
        seq,
        id: new.id,
        event_type: new.event_type,
        schema_version: SCHEMA_VERSION,
        data: new.data,
        recorded_at: at,
        recorded_by: new.recorded_by,
    }
}

/// What an append answers and reports once committed: the held game moved on by the events
/// just written (`stored`, with their positions) to `status`.
fn appended(
    club: &str,
    mut held: HeldGame,
    stored: Vec<StoredEvent>,
    status: &str,
    at: DateTime<Utc>,
    scoreboard: Scoreboard,
) -> Written<Appended> {
    held.meta.extend(stored.iter().map(EventMeta::of));
    let version = held.game.version + stored.len() as i64;
    let previous_status = std::mem::replace(&mut held.game.status, status.to_owned());
    held.game.version = version;
    held.game.updated_at = at;
    Written {
        answer: Appended {
            version,
            events: stored.clone(),
            already_stored: false,
        },
        after: Some(AfterCommit {
            club: club.to_owned(),
            previous_status: Some(previous_status),
            events: stored,
            scoreboard: Some(scoreboard),
            held,
        }),
    }
}

/// The channel every PostgreSQL server `LISTEN`s on for the other servers' commits: a
/// coalesced wake-up (`crate::wakeups`), a hint only: listeners read the committed rows
/// themselves.
pub const NOTIFY_CHANNEL: &str = "tabletally_commits";

/// The channel a revoked token's id (or a replaced first token's [`first_token_revocation`]) is
/// sent on, so every server ends the streams it opened (and forgets the club's kept row).
pub const REVOCATIONS_CHANNEL: &str = "tabletally_revocations";

/// How a revocation names a club's first token once a new one replaced it (an issued token is
/// named by its id, a UUID: the two never meet).
pub fn first_token_revocation(club: &str) -> String {
    format!("club:{club}")
}

/// The club whose first token a revocation names, if it names one.
pub fn revoked_first_token(revocation: &str) -> Option<&str> {
    revocation.strip_prefix("club:")
}

/// SQLite's page cache per connection, MiB (`TABLETALLY_SQLITE_CACHE_MB`): a server's, and a
/// long pass's (export, import, migrate), whose memory then stays about 40 MB (BENCHMARKS.md).
const DEFAULT_SQLITE_CACHE_MB: u64 = 8;
const PASS_SQLITE_CACHE_MB: u64 = 2;
/// SQLite's memory map of the database file, MiB (`TABLETALLY_SQLITE_MMAP_MB`). None by
/// default: measured, it made appends no faster, and every connection maps the file on its own,
/// so a big club's file showed up to connections × the map in the process's memory.
const DEFAULT_SQLITE_MMAP_MB: u64 = 0;

fn sqlite_mb(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

impl SqliteStore {
    /// Opens (creating if missing) a SQLite file in WAL mode with foreign keys on.
    /// `synchronous = FULL`: an acknowledged append survives a power cut, not just a crash.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_for(url, super::Usage::Server).await
    }

    pub async fn connect_for(url: &str, usage: super::Usage) -> Result<Self, StoreError> {
        // A pass reads one thing at a time: two readers, each with a small page cache.
        let (readers, cache_mb) = match usage {
            super::Usage::Server => (8, DEFAULT_SQLITE_CACHE_MB),
            super::Usage::Pass => (2, PASS_SQLITE_CACHE_MB),
        };
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10))
            // Page cache per connection and memory map: what each costs in memory and gives in
            // speed is in BENCHMARKS.md, "Memory" and "SQLite's memory map (`mmap_size`)".
            .pragma(
                "cache_size",
                format!(
                    "-{}",
                    sqlite_mb("TABLETALLY_SQLITE_CACHE_MB", cache_mb) << 10
                ),
            )
            .pragma(
                "mmap_size",
                (sqlite_mb("TABLETALLY_SQLITE_MMAP_MB", DEFAULT_SQLITE_MMAP_MB) << 20).to_string(),
            );
        // A local file's connection cannot be cut: no ping (a hand-off to SQLite's thread)
        // before each read.
        let pool = SqlitePoolOptions::new()
            .max_connections(readers)
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await?;
        super::migrations::sqlite()
            .run(&pool)
            .await
            .map_err(|e| StoreError::Database(e.into()))?;
        // A server's writer is the database's only one (`server_lock`): its cache may answer
        // alone. A pass (export, import, migrate) locks nothing and its cache is not trusted.
        let lock = match usage {
            super::Usage::Server if !in_memory(url) => {
                Some(ServerLock::take(options.get_filename())?)
            }
            _ => None,
        };
        let shared = Shared::new(usage == super::Usage::Server);
        // The writer's own connection: appends and creations never queue in the pool.
        let writer = Writer::start(options, shared.clone(), SqliteWork).await?;
        Ok(Self {
            pool,
            writer,
            shared,
            _lock: lock,
        })
    }
}

/// What SQLite's writer runs for each request: the SQL both backends share.
struct SqliteWork;

impl Work for SqliteWork {
    async fn append(
        &self,
        shared: &Shared,
        w: &mut Writes<'_, sqlx::Sqlite>,
        club: &str,
        id: &str,
        request: &AppendRequest,
        prepared: Option<HeldGame>,
    ) -> Result<Written<Appended>, StoreError> {
        SqliteStore::append_in(shared, w, club, id, request, None, prepared).await
    }

    async fn create(
        &self,
        w: &mut Writes<'_, sqlx::Sqlite>,
        club: &str,
        game: &NewGame,
    ) -> Result<Written<Option<GameRecord>>, StoreError> {
        SqliteStore::create_in(w, club, game).await
    }
}

/// `sqlite::memory:` and `mode=memory` URLs: one process's database, nothing to lock.
fn in_memory(url: &str) -> bool {
    url.contains(":memory:") || url.contains("mode=memory")
}

impl PostgresStore {
    fn follower_status(&self) -> Option<super::primary::FollowerStatus> {
        self.primary.as_ref().map(|primary| primary.status())
    }

    /// The store on `url`'s primary, reading statistics and history lists from a standby among
    /// `read_url`'s hosts when one is given and up.
    pub async fn connect(
        url: &str,
        read_url: Option<&str>,
        usage: super::Usage,
    ) -> Result<Self, StoreError> {
        let primary = Follower::primary_of(url)?.map(Arc::new);
        let options = match &primary {
            Some(primary) => primary.find_at_start().await?,
            None => super::primary::bounded(PgConnectOptions::from_str(url)?),
        };
        let pool_options = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10));
        let pool_options = match &primary {
            Some(primary) => primary.guard(pool_options),
            None => {
                super::primary::checked_on_acquire(pool_options, None).after_connect(|conn, _| {
                    Box::pin(async move {
                        super::keepalive::turn_on(conn).await;
                        Ok(())
                    })
                })
            }
        };
        let pool = pool_options.connect_with(options).await?;
        if let Some(primary) = &primary {
            tokio::spawn(primary.clone().watch(pool.clone()));
        }
        super::migrations::postgres()
            .run(&pool)
            .await
            .map_err(|e| StoreError::Database(e.into()))?;
        let standby = read_url.map(Standby::connect).transpose()?.map(Box::new);
        let store = Self::on(pool, primary, standby);
        // A pass (export, import, migrate) only adds games; a server's cache may answer alone
        // while it is the database's only one.
        if usage == super::Usage::Server {
            tokio::spawn(super::sole::keep(
                Arc::downgrade(&store.shared),
                (*store.pool.connect_options()).clone(),
                store.primary.clone(),
                super::sole::wanted(),
            ));
        }
        Ok(store)
    }

    fn on(pool: PgPool, primary: Option<Arc<Follower>>, standby: Option<Box<Standby>>) -> Self {
        let lanes = Arc::new(Lanes::new(primary.clone()));
        let shared = Shared::new(false);
        Self {
            versions: VersionReads::start(pool.clone(), lanes.clone()),
            plain: PlainAppends::start(pool.clone(), lanes.clone(), shared.clone()),
            lanes,
            pool,
            primary,
            shared,
            standby,
        }
    }

    /// Where this request reads statistics and history lists: the standby while one is up.
    fn read_side(&self) -> super::Reads<'_> {
        match self.standby.as_deref() {
            Some(standby) if standby.follower.is_up() => super::Reads {
                store: &standby.store,
                from: super::ReadFrom::Standby,
            },
            _ => super::Reads {
                store: self,
                from: super::ReadFrom::Primary,
            },
        }
    }
}

impl Standby {
    /// Connects lazily: the server starts whether or not a standby answers, and reads from the
    /// primary until the follower finds one. A read waits at most 2 s for a connection.
    fn connect(url: &str) -> Result<Self, StoreError> {
        let follower = Arc::new(Follower::standby_of(url)?);
        let pool = follower
            .guard(
                PgPoolOptions::new()
                    .max_connections(8)
                    .acquire_timeout(Duration::from_secs(2)),
            )
            .connect_lazy_with(follower.options());
        tokio::spawn(follower.clone().watch(pool.clone()));
        Ok(Self {
            store: PostgresStore::on(pool, None, None),
            follower,
        })
    }
}

/// The clock, at the precision both databases keep (microseconds), so an answer given from
/// memory equals the same answer read back later.
fn now() -> DateTime<Utc> {
    Utc::now().trunc_subsecs(6)
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("{what}: {e}"))
}

/// An event row's values after its position, in the order of [`insert_event!`]'s columns.
fn event_values(game_id: &str, event: &StoredEvent) -> Vec<Param> {
    args![
        game_id,
        event.seq,
        &event.id,
        &event.event_type,
        event.schema_version,
        event.data.to_string(),
        event.recorded_at,
        &event.recorded_by,
    ]
}

/// An event's insert, outside the club's positions lock (`insert_in_order` takes it).
macro_rules! insert_event {
    () => {
        "INSERT INTO events (game_id, seq, event_id, type, schema_version, data, recorded_at, recorded_by) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
    };
}

macro_rules! sql_store {
    (
        $store:ident, $db:ty, backend = $backend:literal, begin = $begin:literal, lock = $lock:literal,
        notify = $notify:literal,
        insert_in_order = $insert_in_order:literal,
        notifications = $notifications:expr
    ) => {
        impl $store {
            /// A page of the club's positions: `$1` the club, `$2` after, `$3` the limit, `$4` up to.
            fn club_page<'q>(
                sql: &'static str,
                (club, after, limit, up_to): (&'q str, i64, i64, i64),
            ) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments> {
                sqlx::query(sql).bind(club).bind(after).bind(limit).bind(up_to)
            }

            /// The position up to which a page of the club's log or lobby that found `found` (read
            /// with no bound) must be read again, if any: the club's settled position (PostgreSQL:
            /// after the appends in flight). A page that found nothing waits for nothing: reading
            /// nothing is always safe, the reader's position does not move.
            async fn settled_bound<T>(&self, club: &str, found: &[T]) -> Result<Option<i64>, StoreError> {
                if found.is_empty() {
                    return Ok(None);
                }
                self.settled_position(club).await
            }

            /// The club's events after `after` and up to `up_to` (positions), with their game's id.
            async fn club_events_up_to(&self, club: &str, after: i64, limit: i64, up_to: i64) -> Result<Vec<(String, StoredEvent)>, StoreError> {
                let rows = Self::club_page(
                    "SELECT e.game_id, e.position, e.seq, e.event_id, e.type, e.schema_version, e.data, e.recorded_at, e.recorded_by \
                     FROM events e JOIN games g ON g.id = e.game_id \
                     WHERE g.club_id = $1 AND e.position > $2 AND e.position <= $4 ORDER BY e.position LIMIT $3",
                    (club, after, limit, up_to),
                )
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|row| Ok((row.try_get("game_id")?, Self::event_row(row)?)))
                    .collect()
            }

            /// The club's lobby changes after `after` and up to `up_to` (positions).
            async fn game_changes_up_to(&self, club: &str, after: i64, limit: i64, up_to: i64) -> Result<Vec<GameChange>, StoreError> {
                // One statement: the page of changes joined with their games' seats.
                let rows = Self::club_page(
                    "SELECT x.position, x.kind, x.id, x.game, x.status, x.version, x.options, x.started_at, x.updated_at, \
                            s.seat, s.name, s.player_id, s.color \
                     FROM (SELECT c.position, c.kind, g.id, g.game, c.status, c.version, g.options, g.started_at, \
                                  c.changed_at AS updated_at \
                           FROM game_changes c JOIN games g ON g.id = c.game_id \
                           WHERE c.club_id = $1 AND c.position > $2 AND c.position <= $4 ORDER BY c.position LIMIT $3) x \
                     LEFT JOIN game_players s ON s.game_id = x.id \
                     ORDER BY x.position, s.seat",
                    (club, after, limit, up_to),
                )
                .fetch_all(&self.pool)
                .await?;
                let mut changes: Vec<GameChange> = Vec::new();
                for row in &rows {
                    let position: i64 = row.try_get("position")?;
                    if changes.last().is_none_or(|c| c.position != position) {
                        changes.push(GameChange { position, kind: row.try_get("kind")?, game: Self::game_row(row)? });
                    }
                    if let (Some(seat), Some(change)) = (Self::joined_seat(row)?, changes.last_mut()) {
                        change.game.players.push(seat);
                    }
                }
                Ok(changes)
            }

            /// Tells the other servers (PostgreSQL `NOTIFY`, delivered at commit) of a revocation
            /// ([`super::REVOCATIONS_CHANNEL`]); SQLite's one server has told its streams itself.
            async fn announce_revocation(tx: &mut sqlx::Transaction<'static, $db>, revoked: &str) -> Result<(), StoreError> {
                if !$notify.is_empty() {
                    sqlx::query($notify)
                        .bind(super::sql::REVOCATIONS_CHANNEL)
                        .bind(revoked)
                        .execute(&mut **tx)
                        .await?;
                }
                Ok(())
            }

            /// Moves the game's row to its new version, and to its new status when it changed
            /// (`None`: the same). The status is in the games' list indexes: set even to the
            /// same value, SQLite rewrites its index entry, one more page for every append.
            async fn update_game(w: &mut Writes<'_, $db>, id: &str, version: i64, status: Option<&str>, at: DateTime<Utc>) -> Result<(), StoreError> {
                match status {
                    Some(status) => w.execute(
                        "UPDATE games SET version = $1, status = $2, updated_at = $3 WHERE id = $4",
                        args![version, status, at, id],
                    )
                    .await,
                    None => w.execute(
                        "UPDATE games SET version = $1, updated_at = $2 WHERE id = $3",
                        args![version, at, id],
                    )
                    .await,
                }
            }

            /// Records a lobby change with the commit that caused it.
            async fn record_change(
                w: &mut Writes<'_, $db>,
                club: &str,
                game: &GameRecord,
                previous_status: Option<&str>,
                last: &StoredEvent,
            ) -> Result<(), StoreError> {
                let Some(kind) = super::change_kind(previous_status, &game.status) else {
                    return Ok(());
                };
                let values = args![club, &game.id, kind, &game.status, game.version, last.recorded_at];
                if w.is_sole_writer() {
                    // `last` was the connection's last insert; its position is not known yet.
                    return w.execute(
                        "INSERT INTO game_changes (position, club_id, game_id, kind, status, version, changed_at) \
                         VALUES (last_insert_rowid(), $1, $2, $3, $4, $5, $6)",
                        values,
                    )
                    .await;
                }
                let mut with_position = args![last.position];
                with_position.extend(values);
                w.execute(
                    "INSERT INTO game_changes (position, club_id, game_id, kind, status, version, changed_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    with_position,
                )
                .await
            }

            fn access_token_row(row: &<$db as sqlx::Database>::Row) -> Result<AccessTokenRecord, StoreError> {
                Ok(AccessTokenRecord {
                    id: row.try_get("id")?,
                    club_id: row.try_get("club_id")?,
                    name: row.try_get("name")?,
                    scope: row.try_get("scope")?,
                    game_id: row.try_get("game_id")?,
                    secret_hash: row.try_get("secret_hash")?,
                    created_at: row.try_get("created_at")?,
                    expires_at: row.try_get("expires_at")?,
                })
            }

            async fn seats<'e, E>(executor: E, game_id: &str) -> Result<Vec<SeatRecord>, StoreError>
            where
                E: sqlx::Executor<'e, Database = $db>,
            {
                Self::seat_rows(&sqlx::query(SEATS).bind(game_id).fetch_all(executor).await?)
            }

            /// The seats of [`SEATS`]' rows.
            fn seat_rows(rows: &[impl super::columns::Columns]) -> Result<Vec<SeatRecord>, StoreError> {
                rows.iter()
                    .map(|row| {
                        Ok(SeatRecord {
                            seat: row.try_get("seat")?,
                            name: row.try_get("name")?,
                            player_id: row.try_get("player_id")?,
                            color: row.try_get("color")?,
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            /// The seat of a row that joined a game with its seats (none when it had none).
            fn joined_seat(row: &impl super::columns::Columns) -> Result<Option<SeatRecord>, StoreError> {
                let Some(seat) = row.try_get::<Option<i64>, _>("seat")? else { return Ok(None) };
                Ok(Some(SeatRecord {
                    seat,
                    name: row.try_get("name")?,
                    player_id: row.try_get("player_id")?,
                    color: row.try_get("color")?,
                }))
            }

            /// Finds or adds the club's players for a new game's seats, in seat order.
            async fn seat_players(
                w: &mut Writes<'_, $db>,
                club: &str,
                players: &[NewSeat],
                now: DateTime<Utc>,
            ) -> Result<Vec<SeatRecord>, StoreError> {
                // Add the new names first, in key order (the order every creation inserts them
                // in, so two creations adding the same names cannot deadlock); a concurrent
                // creation may add the same name.
                let mut new_keys: Vec<(String, &str)> = players
                    .iter()
                    .filter(|seat| seat.player_id.is_none())
                    .map(|seat| (name_key(&seat.name), seat.name.as_str()))
                    .collect();
                new_keys.sort_unstable();
                new_keys.dedup_by(|a, b| a.0 == b.0);
                if !new_keys.is_empty() {
                    let mut values = Vec::with_capacity(5 * new_keys.len());
                    for (key, name) in &new_keys {
                        values.extend(args![uuid::Uuid::new_v4().to_string(), club, *name, key, now]);
                    }
                    w.execute(
                        &format!(
                            "INSERT INTO players (id, club_id, name, name_key, created_at) VALUES {} \
                             ON CONFLICT (club_id, name_key) DO NOTHING",
                            placeholders(new_keys.len(), 5)
                        ),
                        values,
                    )
                    .await?;
                }
                // Every seat's player in one read ([`seat_players_read`]).
                let known: Vec<&String> = players.iter().filter_map(|seat| seat.player_id.as_ref()).collect();
                let mut params = vec![Param::from(club)];
                params.extend(new_keys.iter().map(|(key, _)| Param::from(key)));
                params.extend(known.iter().map(|id| Param::from(*id)));
                let mut by_key = std::collections::HashMap::new();
                let mut ids = std::collections::HashSet::new();
                if params.len() > 1 {
                    for row in w.fetch_all(&seat_players_read(new_keys.len(), known.len()), params).await? {
                        let id: String = row.try_get("id")?;
                        by_key.insert(row.try_get::<String, _>("name_key")?, id.clone());
                        ids.insert(id);
                    }
                }
                let mut seats = Vec::with_capacity(players.len());
                for (i, seat) in players.iter().enumerate() {
                    let player_id = match &seat.player_id {
                        Some(id) if ids.contains(id) => id.clone(),
                        Some(id) => return Err(StoreError::UnknownPlayer(id.clone())),
                        // Gone between the insert, which found the name taken, and the read: the
                        // player was merged into another meanwhile (PostgreSQL; SQLite's writer
                        // and merges take turns). Sent again, the creation adds the name anew.
                        None => by_key.get(&name_key(&seat.name)).cloned().ok_or_else(|| {
                            StoreError::Conflict(tabletally_domain::said!(
                                "server.api.games.player_merged_concurrently",
                                name = format!("{:?}", seat.name)
                            ))
                        })?,
                    };
                    seats.push(SeatRecord { seat: i as i64 + 1, name: seat.name.clone(), player_id, color: seat.color.clone() });
                }
                Ok(seats)
            }

            /// Inserts a game's row and seats (status and version as given).
            async fn insert_game(
                w: &mut Writes<'_, $db>,
                club: &str,
                game: &NewGame,
                status: &str,
                version: i64,
                seats: &[SeatRecord],
                (created, updated): (DateTime<Utc>, DateTime<Utc>),
            ) -> Result<(), StoreError> {
                w.execute(
                    "INSERT INTO games (id, club_id, game, status, version, options, started_at, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                    args![&game.id, club, &game.game, status, version, game.options.to_string(), game.started_at, created, updated],
                )
                .await?;
                if seats.is_empty() {
                    return Ok(());
                }
                let mut values = Vec::with_capacity(5 * seats.len());
                for seat in seats {
                    values.extend(args![&game.id, seat.seat, &seat.player_id, &seat.name, &seat.color]);
                }
                w.execute(
                    &format!(
                        "INSERT INTO game_players (game_id, seat, player_id, name, color) VALUES {}",
                        placeholders(seats.len(), 5)
                    ),
                    values,
                )
                .await
            }

            fn game_row(row: &impl super::columns::Columns) -> Result<GameRecord, StoreError> {
                let options: String = row.try_get("options")?;
                Ok(GameRecord {
                    id: row.try_get("id")?,
                    game: row.try_get("game")?,
                    status: row.try_get("status")?,
                    version: row.try_get("version")?,
                    options: serde_json::from_str(&options).map_err(|e| corrupt("game options", e))?,
                    players: Vec::new(),
                    started_at: row.try_get("started_at")?,
                    updated_at: row.try_get("updated_at")?,
                })
            }

            fn event_row(row: &impl super::columns::Columns) -> Result<StoredEvent, StoreError> {
                let data: String = row.try_get("data")?;
                Ok(StoredEvent {
                    position: row.try_get("position")?,
                    seq: row.try_get("seq")?,
                    id: row.try_get("event_id")?,
                    event_type: row.try_get("type")?,
                    schema_version: row.try_get("schema_version")?,
                    data: serde_json::from_str(&data).map_err(|e| corrupt("event data", e))?,
                    recorded_at: row.try_get("recorded_at")?,
                    recorded_by: row.try_get("recorded_by")?,
                })
            }

            /// The game's events up to `version` ([`EVENTS`]).
            async fn load_events<'e, E>(executor: E, game_id: &str, version: i64) -> Result<Vec<StoredEvent>, StoreError>
            where
                E: sqlx::Executor<'e, Database = $db>,
            {
                let rows = sqlx::query(EVENTS).bind(game_id).bind(version).fetch_all(executor).await?;
                rows.iter().map(Self::event_row).collect()
            }

            async fn insert_event(
                w: &mut Writes<'_, $db>,
                in_order: bool,
                game_id: &str,
                seq: i64,
                new: &NewEvent,
                at: DateTime<Utc>,
            ) -> Result<StoredEvent, StoreError> {
                Self::insert_row(w, in_order, game_id, to_store(new.clone(), seq, at)).await
            }

            /// Inserts an event as it is (an imported one keeps its schema version and time);
            /// `in_order` as for [`Self::insert_row`].
            async fn insert_stored(w: &mut Writes<'_, $db>, in_order: bool, game_id: &str, event: StoredEvent) -> Result<StoredEvent, StoreError> {
                Self::insert_row(w, in_order, game_id, event).await
            }

            /// Inserts one event row at the position it had in another database (`migrate`,
            /// into an empty one: no reader or writer is there to order against).
            async fn insert_at_position(w: &mut Writes<'_, $db>, game_id: &str, event: StoredEvent) -> Result<StoredEvent, StoreError> {
                let overriding = if $backend == "postgres" { " OVERRIDING SYSTEM VALUE" } else { "" };
                w.execute(
                    &format!(
                        "INSERT INTO events (position, game_id, seq, event_id, type, schema_version, data, recorded_at, recorded_by){overriding} \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
                    ),
                    [args![event.position], event_values(game_id, &event)].concat(),
                )
                .await?;
                Ok(event)
            }

            /// Inserts one event row. A reader of the club's log that has seen position `p`
            /// must never see a smaller one appear later (the catch-up and the lobby rely on
            /// it). SQLite has one writer, so its positions are in commit order anyway. On
            /// PostgreSQL a transaction's first event's insert (`in_order`) takes the club's
            /// positions lock *shared*, held to the commit: the club's appends commit side by
            /// side (PostgreSQL's group commit), and a reader waits for those in flight before
            /// it reads (`settled_position`).
            async fn insert_row(w: &mut Writes<'_, $db>, in_order: bool, game_id: &str, event: StoredEvent) -> Result<StoredEvent, StoreError> {
                // The insert, and the same insert reading the new row's position back.
                let (sql, returning) = if in_order {
                    ($insert_in_order, concat!($insert_in_order, " RETURNING position"))
                } else {
                    (insert_event!(), concat!(insert_event!(), " RETURNING position"))
                };
                let values = event_values(game_id, &event);
                if w.is_sole_writer() {
                    // Its position is the batch's next one, settled at the commit.
                    w.execute(sql, values).await?;
                    return Ok(StoredEvent { position: w.provisional_position(), ..event });
                }
                let row = w.fetch_one(returning, values).await?;
                Ok(StoredEvent { position: row.try_get("position")?, ..event })
            }

            /// Decides and writes one append inside an open transaction, the game's row locked:
            /// the game as held (from the state cache when it is at the row's version, else
            /// replayed from the log), the decision, the writes. Returns the answer and what to
            /// do once the transaction is durable; the caller commits.
            ///
            /// `decided`: the append as already decided from a held state; written as it is when
            /// the row is still at that state's version, else decided again. `prepared`: the
            /// game replayed before the transaction, used when the row is still at its version
            /// (a long log is not replayed while holding the database's write lock).
            pub(super) async fn append_in(
                shared: &Shared,
                w: &mut Writes<'_, $db>,
                club: &str,
                id: &str,
                request: &AppendRequest,
                decided: Option<Decided>,
                prepared: Option<HeldGame>,
            ) -> Result<Written<Appended>, StoreError> {
                // The sole writer's confirmed entry is the game as stored: nothing to read.
                if w.is_sole_writer() && let Some(held) = shared.cache.take_confirmed(club, id) {
                    return Self::decide_and_write(shared, w, club, id, request, held).await;
                }
                let row = w
                    .fetch_optional(
                        concat!(
                            game_row!(),
                            $lock
                        ),
                        args![id, club],
                    )
                    .await?;
                let Some(row) = row else { return Err(StoreError::NotFound) };
                let row = Self::game_row(&row)?;
                if let Some(decided) = decided.filter(|d| d.version == row.version) {
                    return Self::write_decided(shared, w, club, id, decided.decision, decided.held).await;
                }
                let prepared = prepared.filter(|p| p.game.version == row.version);
                let held = match shared.cache.take(id, row.version).or(prepared) {
                    Some(held) => held,
                    None => {
                        let mut game = row;
                        game.players = Self::seat_rows(&w.fetch_all(SEATS, args![id]).await?)?;
                        let log = w.fetch_all(EVENTS, args![id, game.version]).await?;
                        let log = log.iter().map(Self::event_row).collect::<Result<_, _>>()?;
                        HeldGame::replay(game, log).map_err(|e| corrupt("stored game", e))?
                    }
                };
                Self::decide_and_write(shared, w, club, id, request, held).await
            }

            /// The append's decision from the game as held, and its writes.
            async fn decide_and_write(
                shared: &Shared,
                w: &mut Writes<'_, $db>,
                club: &str,
                id: &str,
                request: &AppendRequest,
                mut held: HeldGame,
            ) -> Result<Written<Appended>, StoreError> {
                match append::decide(&mut held, request) {
                    Ok(decision) => Self::write_decided(shared, w, club, id, decision, held).await,
                    Err(refused) => {
                        // Unchanged by a refusal, and still at the row's version.
                        if refused.left_the_state() {
                            shared.cache.put_written(club, held);
                        }
                        Err(refused.into())
                    }
                }
            }

            /// The writes of an append decided from `held` (on `Append`, its state already
            /// advanced past the new events).
            async fn write_decided(
                shared: &Shared,
                w: &mut Writes<'_, $db>,
                club: &str,
                id: &str,
                decision: Decision,
                held: HeldGame,
            ) -> Result<Written<Appended>, StoreError> {
                match decision {
                    Decision::AlreadyStored { seqs } => {
                        let events = seqs.iter().filter_map(|seq| held.stored(*seq)).collect();
                        let version = held.game.version;
                        shared.cache.put_written(club, held);
                        Ok(Written { answer: Appended { version, events, already_stored: true }, after: None })
                    }
                    Decision::Append { events, status, result, read_models, scoreboard } => {
                        let now = now();
                        let version = held.game.version + events.len() as i64;
                        // Everything but the events first: on PostgreSQL the first event's insert
                        // takes the club's positions lock (shared), held to the commit, so the
                        // fewer statements after it, the sooner a reader of the club's log goes.
                        let changed = Some(status.as_str()).filter(|s| *s != held.game.status);
                        Self::update_game(w, id, version, changed, now).await?;
                        // The read models change only when the game was or is now finished. Their
                        // shared rows are locked in one order by every writer (`write_result`),
                        // and always before the positions lock: no two appends wait in a circle.
                        if read_models && (held.game.status == "finished" || result.is_some()) {
                            Self::write_result(w, club, &held.game, held.game.status == "finished", result.as_ref()).await?;
                        }
                        let mut stored = Vec::with_capacity(events.len());
                        for (i, event) in events.iter().enumerate() {
                            let seq = held.game.version + 1 + i as i64;
                            // The first insert takes the club's positions lock.
                            stored.push(Self::insert_event(w, i == 0, id, seq, event, now).await?);
                        }
                        let written = appended(club, held, stored, status.as_str(), now, *scoreboard);
                        if let (Some(after), Some(last)) = (&written.after, written.answer.events.last()) {
                            Self::record_change(w, club, &after.held.game, after.previous_status.as_deref(), last).await?;
                        }
                        Ok(written)
                    }
                }
            }

            /// Creates a game and its event 1 inside an open transaction (see
            /// [`EventStore::create_game`]); the caller commits.
            pub(super) async fn create_in(
                w: &mut Writes<'_, $db>,
                club: &str,
                game: &NewGame,
            ) -> Result<Written<Option<GameRecord>>, StoreError> {
                let taken = w.fetch_optional("SELECT 1 FROM games WHERE id = $1", args![&game.id]).await?;
                if taken.is_some() {
                    return Ok(Written { answer: None, after: None });
                }
                let now = now();
                let seats = Self::seat_players(w, club, &game.players, now).await?;
                Self::insert_game(w, club, game, "in_progress", 1, &seats, (now, now)).await?;
                let started = json!({
                    "game": game.game,
                    "players": seats.iter().map(|s| json!({
                        "name": s.name, "player_id": s.player_id, "seat": s.seat, "color": s.color,
                    })).collect::<Vec<_>>(),
                    "options": game.options,
                    "started_at": game.started_at,
                });
                // The game's own id doubles as the client id of its first event.
                let started = NewEvent { id: game.id.clone(), event_type: "game_started".into(), data: started, recorded_by: game.recorded_by.clone() };
                let first = Self::insert_event(w, true, &game.id, 1, &started, now).await?;
                let created = GameRecord {
                    id: game.id.clone(),
                    game: game.game.clone(),
                    status: "in_progress".into(),
                    version: 1,
                    options: game.options.clone(),
                    players: seats,
                    started_at: game.started_at,
                    updated_at: now,
                };
                Self::record_change(w, club, &created, None, &first).await?;
                let held = HeldGame::replay(created.clone(), vec![first.clone()])
                    .map_err(|e| corrupt("new game", e))?;
                Ok(Written {
                    answer: Some(created),
                    after: Some(AfterCommit {
                        club: club.to_owned(),
                        previous_status: None,
                        events: vec![first],
                        scoreboard: None,
                        held,
                    }),
                })
            }
        }

        #[async_trait]
        impl EventStore for $store {
            fn backend(&self) -> &'static str {
                $backend
            }

            fn report_commits_to(&self, subscribers: Arc<dyn Subscribers>) {
                // Set once at start-up; a second call keeps the first.
                let _ = self.shared.subscribers.set(subscribers);
            }

            fn notifications(&self) -> Option<PgPool> {
                let notifications = $notifications;
                notifications(&self.pool)
            }

            async fn ping(&self) -> Result<(), StoreError> {
                sqlx::query("SELECT 1").execute(&self.pool).await?;
                Ok(())
            }

            async fn create_club(&self, id: &str, name: &str, token_hash: &str) -> Result<ClubRecord, StoreError> {
                let _turn = self.write_turn().await;
                sqlx::query("INSERT INTO clubs (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4)")
                    .bind(id)
                    .bind(name)
                    .bind(token_hash)
                    .bind(now())
                    .execute(&self.pool)
                    .await?;
                Ok(ClubRecord { id: id.to_owned(), name: name.to_owned(), token_hash: token_hash.to_owned() })
            }

            async fn club(&self, id: &str) -> Result<Option<ClubRecord>, StoreError> {
                if let Some(club) = self.shared.clubs.get(id) {
                    return Ok(Some(club));
                }
                let ticket = self.shared.clubs.ticket();
                let row = sqlx::query("SELECT id, name, token_hash FROM clubs WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?;
                let club = row.map(|row| {
                    Ok::<_, StoreError>(ClubRecord {
                        id: row.try_get("id")?,
                        name: row.try_get("name")?,
                        token_hash: row.try_get("token_hash")?,
                    })
                })
                .transpose()?;
                if let Some(club) = &club {
                    self.shared.clubs.put(club.clone(), ticket);
                }
                Ok(club)
            }

            async fn replace_club_token(&self, club: &str, token_hash: &str) -> Result<bool, StoreError> {
                let _turn = self.write_turn().await;
                let mut tx = self.pool.begin_with($begin).await?;
                let done = sqlx::query("UPDATE clubs SET token_hash = $1 WHERE id = $2")
                    .bind(token_hash)
                    .bind(club)
                    .execute(&mut *tx)
                    .await?;
                let replaced = done.rows_affected() > 0;
                // Every server forgets the club's row and ends the old token's streams.
                if replaced {
                    Self::announce_revocation(&mut tx, &super::first_token_revocation(club)).await?;
                }
                tx.commit().await?;
                self.shared.clubs.forget(Some(club));
                Ok(replaced)
            }

            fn forget_clubs(&self, club: Option<&str>) {
                self.shared.clubs.forget(club);
            }

            async fn create_access_token(&self, token: &AccessTokenRecord) -> Result<(), StoreError> {
                let _turn = self.write_turn().await;
                sqlx::query(
                    "INSERT INTO access_tokens (id, club_id, name, scope, game_id, secret_hash, created_at, expires_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(&token.id)
                .bind(&token.club_id)
                .bind(&token.name)
                .bind(&token.scope)
                .bind(&token.game_id)
                .bind(&token.secret_hash)
                .bind(token.created_at)
                .bind(token.expires_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn access_token(&self, id: &str) -> Result<Option<AccessTokenRecord>, StoreError> {
                let row = sqlx::query(
                    "SELECT id, club_id, name, scope, game_id, secret_hash, created_at, expires_at \
                     FROM access_tokens WHERE id = $1",
                )
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                row.as_ref().map(Self::access_token_row).transpose()
            }

            async fn access_tokens(&self, club: &str) -> Result<Vec<AccessTokenRecord>, StoreError> {
                let rows = sqlx::query(
                    "SELECT id, club_id, name, scope, game_id, secret_hash, created_at, expires_at \
                     FROM access_tokens WHERE club_id = $1 AND scope <> 'share' ORDER BY created_at, id",
                )
                .bind(club)
                .fetch_all(&self.pool)
                .await?;
                rows.iter().map(Self::access_token_row).collect()
            }

            async fn game_shares(&self, club: &str, game: &str) -> Result<Vec<AccessTokenRecord>, StoreError> {
                let rows = sqlx::query(
                    "SELECT id, club_id, name, scope, game_id, secret_hash, created_at, expires_at \
                     FROM access_tokens WHERE club_id = $1 AND game_id = $2 AND scope = 'share' ORDER BY created_at, id",
                )
                .bind(club)
                .bind(game)
                .fetch_all(&self.pool)
                .await?;
                rows.iter().map(Self::access_token_row).collect()
            }

            async fn delete_access_token(&self, club: &str, id: &str, game: Option<&str>) -> Result<bool, StoreError> {
                let _turn = self.write_turn().await;
                let mut tx = self.pool.begin().await?;
                let done = sqlx::query(
                    "DELETE FROM access_tokens WHERE club_id = $1 AND id = $2 \
                     AND (($3 IS NULL AND scope <> 'share') OR (scope = 'share' AND game_id = $3))",
                )
                .bind(club)
                .bind(id)
                .bind(game)
                .execute(&mut *tx)
                .await?;
                let deleted = done.rows_affected() > 0;
                // Every server's streams opened with it end at once.
                if deleted {
                    Self::announce_revocation(&mut tx, id).await?;
                }
                tx.commit().await?;
                Ok(deleted)
            }

            async fn count_club_creation(
                &self,
                client: &str,
                now: DateTime<Utc>,
                per_window: u32,
            ) -> Result<Result<(), u64>, StoreError> {
                let window = chrono::Duration::seconds(crate::limits::WINDOW.as_secs() as i64);
                // One statement, so two servers counting the same client at once both count:
                // a finished window starts again at 1, a current one adds 1.
                let _turn = self.write_turn().await;
                let row = sqlx::query(
                    "INSERT INTO club_creation_windows (client, window_start, created) VALUES ($1, $2, 1) \
                     ON CONFLICT (client) DO UPDATE SET \
                       created = CASE WHEN club_creation_windows.window_start <= $3 THEN 1 \
                                      ELSE club_creation_windows.created + 1 END, \
                       window_start = CASE WHEN club_creation_windows.window_start <= $3 THEN $2 \
                                      ELSE club_creation_windows.window_start END \
                     RETURNING window_start, created",
                )
                .bind(client)
                .bind(now)
                .bind(now - window)
                .fetch_one(&self.pool)
                .await?;
                let start: DateTime<Utc> = row.try_get("window_start")?;
                let created: i64 = row.try_get("created")?;
                if created > i64::from(per_window) {
                    let wait = (start + window - now).num_seconds().max(1);
                    return Ok(Err(wait as u64));
                }
                Ok(Ok(()))
            }

            async fn players_by_id(&self, club: &str, ids: &[String]) -> Result<Vec<(String, String)>, StoreError> {
                let mut found = Vec::with_capacity(ids.len());
                for id in ids {
                    let row = sqlx::query("SELECT id, name FROM players WHERE club_id = $1 AND id = $2")
                        .bind(club)
                        .bind(id)
                        .fetch_optional(&self.pool)
                        .await?;
                    if let Some(row) = row {
                        found.push((row.try_get("id")?, row.try_get("name")?));
                    }
                }
                Ok(found)
            }

            async fn create_game(&self, club: &str, game: &NewGame) -> Result<Option<GameRecord>, StoreError> {
                self.write_create(club, game).await
            }

            async fn game(&self, club: &str, id: &str) -> Result<Option<GameRecord>, StoreError> {
                let row = sqlx::query(GAME_ROW)
                .bind(id)
                .bind(club)
                .fetch_optional(&self.pool)
                .await?;
                let Some(row) = row else { return Ok(None) };
                let mut game = Self::game_row(&row)?;
                game.players = Self::seats(&self.pool, id).await?;
                Ok(Some(game))
            }

            async fn list_games(&self, club: &str, filter: &GameFilter) -> Result<Vec<GameRecord>, StoreError> {
                // One statement: the page of games joined with their seats (a row per seat).
                let (sql, params) = super::lists::game_list(club, filter);
                let rows = bind_params!(sqlx::query(sqlx::AssertSqlSafe(sql)), params).fetch_all(&self.pool).await?;
                let mut games: Vec<GameRecord> = Vec::new();
                for row in &rows {
                    let id: String = row.try_get("id")?;
                    if games.last().is_none_or(|g| g.id != id) {
                        games.push(Self::game_row(row)?);
                    }
                    if let (Some(seat), Some(game)) = (Self::joined_seat(row)?, games.last_mut()) {
                        game.players.push(seat);
                    }
                }
                Ok(games)
            }

            async fn events(&self, club: &str, id: &str) -> Result<Option<(GameRecord, Vec<StoredEvent>)>, StoreError> {
                // The row first, then its log up to the row's version (`load_events`).
                let mut tx = self.pool.begin().await?;
                let row = sqlx::query(GAME_ROW)
                .bind(id)
                .bind(club)
                .fetch_optional(&mut *tx)
                .await?;
                let Some(row) = row else { return Ok(None) };
                let mut game = Self::game_row(&row)?;
                game.players = Self::seats(&mut *tx, id).await?;
                let events = Self::load_events(&mut *tx, id, game.version).await?;
                tx.commit().await?;
                Ok(Some((game, events)))
            }

            async fn clubs(&self) -> Result<Vec<ClubCopy>, StoreError> {
                let rows = sqlx::query("SELECT id, name, token_hash, created_at FROM clubs ORDER BY id")
                    .fetch_all(&self.pool)
                    .await?;
                let mut clubs = Vec::with_capacity(rows.len());
                for row in &rows {
                    let id: String = row.try_get("id")?;
                    let players = sqlx::query(
                        "SELECT id, name, name_key, created_at FROM players WHERE club_id = $1 ORDER BY id",
                    )
                    .bind(&id)
                    .fetch_all(&self.pool)
                    .await?
                    .iter()
                    .map(|p| {
                        Ok(PlayerCopy {
                            id: p.try_get("id")?,
                            name: p.try_get("name")?,
                            name_key: p.try_get("name_key")?,
                            created_at: p.try_get("created_at")?,
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()?;
                    clubs.push(ClubCopy {
                        id,
                        name: row.try_get("name")?,
                        token_hash: row.try_get("token_hash")?,
                        created_at: row.try_get("created_at")?,
                        players,
                    });
                }
                Ok(clubs)
            }

            async fn copy_club(&self, club: &ClubCopy) -> Result<(), StoreError> {
                let _turn = self.write_turn().await;
                let mut tx = self.pool.begin().await?;
                sqlx::query("INSERT INTO clubs (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4)")
                    .bind(&club.id)
                    .bind(&club.name)
                    .bind(&club.token_hash)
                    .bind(club.created_at)
                    .execute(&mut *tx)
                    .await?;
                for p in &club.players {
                    sqlx::query("INSERT INTO players (id, club_id, name, name_key, created_at) VALUES ($1, $2, $3, $4, $5)")
                        .bind(&p.id)
                        .bind(&club.id)
                        .bind(&p.name)
                        .bind(&p.name_key)
                        .bind(p.created_at)
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn club_game_ids(&self, club: &str, after: Option<&str>, limit: i64) -> Result<Vec<String>, StoreError> {
                // In play order: an import of the file then adds each game after its players'
                // earlier ones, so their runs need no rewriting (issue 15's PostgreSQL import).
                let rows = sqlx::query(
                    "SELECT id FROM games WHERE club_id = $1 AND ($2 IS NULL OR \
                       (started_at, id) > ((SELECT started_at FROM games WHERE id = $2), $2)) \
                     ORDER BY started_at, id LIMIT $3",
                )
                    .bind(club)
                    .bind(after)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(|row| row.try_get("id").map_err(StoreError::from)).collect()
            }

            async fn refresh_planner_statistics(&self) -> Result<(), StoreError> {
                if $backend == "postgres" {
                    sqlx::query("ANALYZE").execute(&self.pool).await?;
                }
                Ok(())
            }

            async fn import_game(&self, club: &str, game: &ImportedGame, result: &ImportResult<'_>) -> Result<ImportOutcome, StoreError> {
                let _turn = self.write_turn().await;
                let mut w = Writes::new(self.pool.begin_with($begin).await?);
                let owner = w.fetch_optional("SELECT club_id FROM games WHERE id = $1", args![&game.game.id]).await?;
                if let Some(owner) = owner {
                    let owner: String = owner.try_get("club_id")?;
                    return if owner == club {
                        // Present only if it is this game as stored; another copy is a conflict.
                        let stored = w.fetch_all(EVENTS, args![&game.game.id, i64::MAX]).await?;
                        let stored: Vec<StoredEvent> = stored.iter().map(Self::event_row).collect::<Result<_, _>>()?;
                        if same_log(&stored, &game.events) {
                            Ok(ImportOutcome::AlreadyPresent)
                        } else {
                            Err(StoreError::Conflict(tabletally_domain::said!(
                                "server.api.import.game_with_other_events",
                                id = game.game.id.as_str(),
                                stored = stored.len(),
                                file = game.events.len()
                            )))
                        }
                    } else {
                        Err(StoreError::Conflict(tabletally_domain::said!(
                            "server.api.import.game_id_elsewhere",
                            id = game.game.id.as_str()
                        )))
                    };
                }
                let now = now();
                let seats = Self::seat_players(&mut w, club, &game.game.players, now).await?;
                // A seat given by id and another by a name may be one player: one seat each.
                if let Some((a, b)) = seats.iter().enumerate().find_map(|(i, a)| {
                    seats[i + 1..].iter().find(|b| b.player_id == a.player_id).map(|b| (a, b))
                }) {
                    return Err(StoreError::Conflict(tabletally_domain::said!(
                        "server.api.games.seated_twice",
                        seat = a.seat,
                        name = format!("{:?}", a.name),
                        other_seat = b.seat,
                        other_name = format!("{:?}", b.name),
                        player_id = a.player_id.as_str()
                    )));
                }
                let version = game.events.len() as i64;
                let created = game.events.first().map_or(game.updated_at, |e| e.recorded_at);
                Self::insert_game(&mut w, club, &game.game, game.status.as_str(), version, &seats, (created, game.updated_at)).await?;
                let record = GameRecord {
                    id: game.game.id.clone(),
                    game: game.game.game.clone(),
                    status: game.status.as_str().to_owned(),
                    version,
                    options: game.game.options.clone(),
                    players: seats,
                    started_at: game.game.started_at,
                    updated_at: game.updated_at,
                };
                // The read models before the events, like an append: their shared rows are
                // locked before the club's positions lock.
                if let Some(result) = result(&record)? {
                    Self::write_result(&mut w, club, &record, false, Some(&result)).await?;
                }
                let mut stored = Vec::with_capacity(game.events.len());
                for (i, event) in game.events.iter().enumerate() {
                    let mut event = event.clone();
                    if event.seq == 1 {
                        // A seat matched by name gets this club's player id; a seat given by id
                        // keeps the id its log was written with (a merged-away player's, too).
                        if let Some(Value::Array(players)) = event.data.get_mut("players") {
                            for ((player, seat), given) in players.iter_mut().zip(&record.players).zip(&game.game.players) {
                                if given.player_id.is_none() || player.get("player_id").is_none_or(Value::is_null) {
                                    player["player_id"] = json!(seat.player_id);
                                }
                            }
                        }
                    }
                    // Under the club's positions lock, like an append: a client following the
                    // club's log meanwhile misses none of the imported events.
                    stored.push(if game.keep_positions && event.position > 0 {
                        Self::insert_at_position(&mut w, &game.game.id, event).await?
                    } else {
                        Self::insert_stored(&mut w, i == 0, &game.game.id, event).await?
                    });
                }
                if game.keep_positions && $backend == "postgres" {
                    // Positions given by hand leave the identity behind: later appends go after them.
                    w.execute(
                        "SELECT setval(pg_get_serial_sequence('events', 'position'), (SELECT MAX(position) FROM events))",
                        args![],
                    )
                    .await?;
                }
                // The lobby's news, as if it had been played here: created, then how it ended.
                let created = GameRecord { status: "in_progress".into(), version: 1, ..record.clone() };
                if let (Some(first), Some(last)) = (stored.first(), stored.last()) {
                    Self::record_change(&mut w, club, &created, None, first).await?;
                    Self::record_change(&mut w, club, &record, Some("in_progress"), last).await?;
                }
                w.commit().await?;
                if let Some(subscribers) = self.shared.subscribers.get() {
                    subscribers.committed(super::Committed {
                        club,
                        game: &record,
                        previous_status: None,
                        events: stored,
                        scoreboard: None,
                    });
                }
                Ok(ImportOutcome::Imported)
            }

            async fn club_events(&self, club: &str, after: i64, limit: i64) -> Result<Vec<(String, StoredEvent)>, StoreError> {
                let events = self.club_events_up_to(club, after, limit, i64::MAX).await?;
                match self.settled_bound(club, &events).await? {
                    Some(settled) => self.club_events_up_to(club, after, limit, settled).await,
                    None => Ok(events),
                }
            }

            async fn game_changes(&self, club: &str, after: i64, limit: i64) -> Result<Vec<GameChange>, StoreError> {
                let changes = self.game_changes_up_to(club, after, limit, i64::MAX).await?;
                match self.settled_bound(club, &changes).await? {
                    Some(settled) => self.game_changes_up_to(club, after, limit, settled).await,
                    None => Ok(changes),
                }
            }

            async fn last_position(&self) -> Result<i64, StoreError> {
                let row = sqlx::query("SELECT MAX(position) AS last FROM events")
                    .fetch_one(&self.pool)
                    .await?;
                Ok(row.try_get::<Option<i64>, _>("last")?.unwrap_or(0))
            }

            async fn head_position(&self, club: &str) -> Result<i64, StoreError> {
                let row = sqlx::query("SELECT MAX(position) AS last FROM game_changes WHERE club_id = $1 AND position <= $2")
                    .bind(club)
                    .bind(self.settled_position(club).await?.unwrap_or(i64::MAX))
                    .fetch_one(&self.pool)
                    .await?;
                Ok(row.try_get::<Option<i64>, _>("last")?.unwrap_or(0))
            }

            async fn club_of_game(&self, id: &str) -> Result<Option<String>, StoreError> {
                let row = sqlx::query("SELECT club_id FROM games WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(row.map(|row| row.try_get("club_id")).transpose()?)
            }

            async fn append(&self, club: &str, id: &str, request: AppendRequest) -> Result<Appended, StoreError> {
                self.write_append(club, id, request).await.inspect_err(|e| self.write_failed(e))
            }

            fn cache_counters(&self) -> CacheCounters {
                self.shared.cache.counters()
            }

            fn writer_counters(&self) -> WriterCounters {
                self.shared.writer_counters()
            }

            fn followed_primary(&self) -> Option<super::primary::FollowerStatus> {
                self.follower_status()
            }

            async fn held_game(&self, club: &str, id: &str) -> Result<Option<Arc<HeldGame>>, StoreError> {
                // Taken before the database is read: an entry is confirmed only if no write
                // to the game began since.
                let ticket = self.shared.cache.ticket(id);
                // Only the version: a cached state at that version is the answer.
                let Some(version) = self.stored_version(club, id).await? else { return Ok(None) };
                if let Some(held) = self.shared.cache.get_read(club, id, version, ticket) {
                    return Ok(Some(held));
                }
                // Missed: read the row and the log in one read transaction, so they agree.
                let Some((game, log)) = self.events(club, id).await? else { return Ok(None) };
                let held = Arc::new(HeldGame::replay(game, log).map_err(|e| corrupt("stored game", e))?);
                self.shared.cache.put_read(club, held.clone(), ticket);
                Ok(Some(held))
            }

            async fn game_version(&self, club: &str, id: &str) -> Result<Option<i64>, StoreError> {
                self.stored_version(club, id).await
            }

            fn current_game(&self, club: &str, id: &str) -> Option<Arc<HeldGame>> {
                self.shared.cache.current(club, id)
            }

            fn reads(&self) -> super::Reads<'_> {
                self.read_side()
            }

            async fn seen_position(&self, club: &str) -> Result<i64, StoreError> {
                let row = sqlx::query("SELECT MAX(position) AS last FROM game_changes WHERE club_id = $1")
                    .bind(club)
                    .fetch_one(&self.pool)
                    .await?;
                Ok(row.try_get::<Option<i64>, _>("last")?.unwrap_or(0))
            }
        }
    };
}

sql_store!(
    SqliteStore,
    sqlx::Sqlite,
    backend = "sqlite",
    begin = "BEGIN IMMEDIATE",
    lock = "",
    notify = "",
    insert_in_order = "INSERT INTO events (game_id, seq, event_id, type, schema_version, data, recorded_at, recorded_by) \
                       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    notifications = |_: &SqlitePool| None
);
sql_store!(
    PostgresStore,
    sqlx::Postgres,
    backend = "postgres",
    begin = "BEGIN",
    lock = " FOR UPDATE",
    notify = "SELECT pg_notify($1, $2)",
    // The club's positions lock is taken, shared, by the row source, before the row's position
    // is drawn: appends never wait for each other on it, only for a reader settling the club's
    // positions (`PostgresStore::settled_position`). Every reader of positions reads one club
    // (its log, its lobby), so clubs need no order between them. (Two clubs whose ids hash
    // alike share a lock: only slower, never wrong.)
    insert_in_order = "INSERT INTO events (game_id, seq, event_id, type, schema_version, data, recorded_at, recorded_by) \
                       SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM \
                         (SELECT pg_advisory_xact_lock_shared(7461626, hashtext(club_id)) FROM games WHERE id = $1) AS in_flight",
    notifications = |pool: &PgPool| Some(pool.clone())
);

impl SqliteStore {
    /// One file: no primary to follow.
    fn follower_status(&self) -> Option<super::primary::FollowerStatus> {
        None
    }

    /// SQLite has no standby: every read is the primary's.
    fn read_side(&self) -> super::Reads<'_> {
        super::Reads {
            store: self,
            from: super::ReadFrom::Primary,
        }
    }
}

impl SqliteStore {
    /// One process's file: there is no other host to move to.
    fn write_failed(&self, _: &StoreError) {}

    /// No bound: one writer commits positions in order, so what a reader of the club's log or
    /// lobby finds is all it may read.
    async fn settled_position(&self, _club: &str) -> Result<Option<i64>, StoreError> {
        Ok(None)
    }

    /// The game's stored version. Reads on SQLite never wait for the writer (WAL), and most
    /// are answered by the cache without asking (`current_game`).
    async fn stored_version(&self, club: &str, id: &str) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query(STORED_VERSION)
            .bind(id)
            .bind(club)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|row| row.try_get("version")).transpose()?)
    }

    /// A game this server holds no state of is replayed here, from a read snapshot, before
    /// the writer's batch: replayed inside it, a long log held the database's write lock, and
    /// every other club's writes waited on it.
    async fn write_append(
        &self,
        club: &str,
        id: &str,
        request: AppendRequest,
    ) -> Result<Appended, StoreError> {
        let prepared = if self.shared.cache.holds(id) {
            None
        } else {
            let Some((game, log)) = EventStore::events(self, club, id).await? else {
                return Err(StoreError::NotFound);
            };
            Some(HeldGame::replay(game, log).map_err(|e| corrupt("stored game", e))?)
        };
        self.writer.append(club, id, request, prepared).await
    }

    /// SQLite's write lock, taken in turn with the writer's batches (see [`Writer`]).
    pub(super) async fn write_turn(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        Some(self.writer.database_turn().await)
    }

    async fn write_create(
        &self,
        club: &str,
        game: &NewGame,
    ) -> Result<Option<GameRecord>, StoreError> {
        self.writer.create(club, game.clone()).await
    }
}

impl PostgresStore {
    /// A write that failed because the primary went away (or is a standby now) makes the
    /// server look for the primary at once, not at its next check.
    fn write_failed(&self, e: &StoreError) {
        if let (Some(primary), StoreError::Database(e)) = (&self.primary, e)
            && super::primary::lost_primary(e)
        {
            primary.check_now();
        }
    }

    /// The last position a reader of the club's log or lobby may read up to. Appends draw
    /// positions from one sequence and commit side by side, so a later position may commit
    /// before an earlier one. This waits for the club's appends in flight (each holds the
    /// club's positions lock shared, from its first event to its commit) by taking that lock
    /// alone for one statement, and reads the sequence's last position meanwhile: every
    /// position of the club up to it is then committed or rolled back, and any later append
    /// draws a greater one. One round trip; appends arriving meanwhile wait that long. (This
    /// relies on the sequence handing out values in the order they are drawn: its `CACHE` must
    /// stay 1, the default, as in the migration that created it.)
    async fn settled_position(&self, club: &str) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query(
            "SELECT pg_sequence_last_value('events_position_seq'::regclass) AS last \
             FROM (SELECT pg_advisory_xact_lock(7461626, hashtext($1))) AS after_appends_in_flight",
        )
        .bind(club)
        .fetch_one(&self.pool)
        .await?;
        Ok(Some(row.try_get::<Option<i64>, _>("last")?.unwrap_or(0)))
    }

    /// The game's stored version, read together with the other reads waiting for theirs.
    async fn stored_version(&self, club: &str, id: &str) -> Result<Option<i64>, StoreError> {
        self.versions.version(club, id).await
    }

    /// One transaction per append; PostgreSQL's own group commit batches concurrent ones. A
    /// game this server holds is decided from the held state first: a plain append is then
    /// written in one statement that applies only while the game's row is at that state's
    /// version ([`Self::write_at_version`]); anything else, or a row that moved on, takes the
    /// locked path, which reuses the decision while the row is still at its version. Refusals
    /// and retries are answered from the locked row alone (the held state may be behind it).
    async fn write_append(
        &self,
        club: &str,
        id: &str,
        request: AppendRequest,
    ) -> Result<Appended, StoreError> {
        // Open until the answer (the guard lives to the end of this function): a read meanwhile
        // asks the database; the term it began in says whether this server is the only one
        // writing (no writes lock to take).
        let writing = self.shared.cache.writing(id);
        let alone = writing.term().is_some();
        let mut decided = None;
        if let Some(mut held) = self.shared.cache.take_latest(club, id) {
            let version = held.game.version;
            match append::decide(&mut held, &request) {
                Ok(decision @ Decision::Append { .. }) => {
                    decided = Some(Decided {
                        version,
                        decision,
                        held,
                    });
                }
                // Unchanged; decided again under the row's lock.
                Err(refused) if !refused.left_the_state() => {}
                _ => self.shared.cache.put_written(club, held),
            }
        }
        if let Some(plain) = decided.take_if(|d| d.is_plain())
            && let Some(appended) = self.write_at_version(club, id, plain, alone).await?
        {
            return Ok(appended);
        }
        let mut lane = self.lanes.take(&self.pool, club).await?;
        let mut w = Writes::on_lane(&mut lane).await?;
        if !alone {
            w.execute(super::sole::WRITES_LOCK, args![]).await?;
        }
        let written =
            Self::append_in(&self.shared, &mut w, club, id, &request, decided, None).await?;
        let answer = self.commit(w, written).await?;
        self.lanes.give_back(lane);
        Ok(answer)
    }

    /// Writes a plain append ([`Decided::is_plain`]) in one statement, with the plain appends
    /// made while the one before was in flight ([`super::plain`]): the game's row moves on only
    /// if it is still at the decided version and in the club (the database decides the version,
    /// never the cache), and the events are inserted only if it did, after the club's positions
    /// lock (shared). `None`, with nothing written, when the
    /// row was not there at that version. `alone`: this server's term began before the append
    /// (no writes lock to take, [`super::sole`]).
    async fn write_at_version(
        &self,
        club: &str,
        id: &str,
        decided: Decided,
        alone: bool,
    ) -> Result<Option<Appended>, StoreError> {
        let Decided {
            version: at,
            decision:
                Decision::Append {
                    events,
                    status,
                    scoreboard,
                    ..
                },
            held,
        } = decided
        else {
            return Ok(None);
        };
        let now = now();
        let append = PlainAppend {
            club,
            id,
            at,
            now,
            events: &events,
            alone,
        };
        let Some(positions) = self.plain.write(append).await? else {
            // The row moved on (or is another club's): nothing was written.
            return Ok(None);
        };
        let stored = events
            .into_iter()
            .zip(positions)
            .map(|(event, (seq, position))| StoredEvent {
                position,
                ..to_store(event, seq, now)
            })
            .collect();
        let written = appended(club, held, stored, status.as_str(), now, *scoreboard);
        if let Some(after) = written.after {
            self.shared.committed(after);
        }
        Ok(Some(written.answer))
    }

    /// PostgreSQL's writers wait on row locks, bounded by `lock_timeout`: no turn to take.
    pub(super) async fn write_turn(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        None
    }

    async fn write_create(
        &self,
        club: &str,
        game: &NewGame,
    ) -> Result<Option<GameRecord>, StoreError> {
        // Open until the answer, as for an append: a new game is current from its creation.
        let _writing = self.shared.cache.writing(&game.id);
        let mut lane = self.lanes.take(&self.pool, club).await?;
        let mut w = Writes::on_lane(&mut lane).await?;
        let written = Self::create_in(&mut w, club, game).await?;
        let answer = self.commit(w, written).await?;
        self.lanes.give_back(lane);
        Ok(answer)
    }

    async fn commit<T>(
        &self,
        w: Writes<'_, sqlx::Postgres>,
        written: Written<T>,
    ) -> Result<T, StoreError> {
        if let Some(after) = written.after {
            let id = after.held.game.id.clone();
            if let Err(e) = w.commit().await {
                self.shared.cache.forget(&id);
                return Err(e);
            }
            self.shared.count_batch(1);
            self.shared.committed(after);
        } else {
            w.roll_back().await?;
        }
        Ok(written.answer)
    }
}
