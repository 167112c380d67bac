//! What differs between SQLite and PostgreSQL, in one place. The rest of the store is written
//! once, generic over these two traits:
//! - [`Backend`]: the database — the literals its statements differ by (how a write
//!   transaction begins, its row and club locks, its JSON aggregate) and how a [`Query`] runs
//!   on it;
//! - [`SqlStore`]: the store on it — its pool, and what each does its own way (SQLite's one
//!   writer, PostgreSQL's kept connections and standby).

use std::future::Future;

use sqlx::Database;
use tokio::sync::MutexGuard;

use super::columns::Columns;
use super::commit::Shared;
use super::events::append::INSERT_EVENT;
use super::lists::{Param, bind_params};
use super::primary::FollowerStatus;
use super::query::{On, Query};
use super::stats::sql::{SNAPSHOTS_LOCK, SNAPSHOTS_LOCK_TO_ADD};
use super::types::{Appended, NewGame, Reads};
use super::writes::{SqliteConn, Writes, Writing};
use super::{GameRecord, StoreError};
use crate::append::AppendRequest;

/// A database the store runs on: its statements' literals, and how a [`Query`] runs on it.
pub(super) trait Backend: Database<Row: Columns + Send + Sync> {
    /// Its name, for logs and `/readyz`.
    const NAME: &'static str;
    /// How a write transaction begins: SQLite takes the database's write lock up front
    /// (`BEGIN IMMEDIATE`), PostgreSQL locks the rows it writes.
    const BEGIN: &'static str;
    /// After a read of a row the transaction then writes (a game's, a player's): its lock.
    const LOCK_ROW: &'static str;
    /// After the read of a game's seats whose statistics a transaction rewrites: their lock,
    /// held so that no merge moves a seat before the commit.
    const LOCK_SEATS: &'static str;
    /// The statement that tells the other servers of a commit (`$1` the channel, `$2` the
    /// message); `None`: one server, nothing to tell.
    const NOTIFY: Option<&'static str>;
    /// The insert of a transaction's first event: PostgreSQL takes the club's positions lock
    /// with it (see `events::append::insert_row`).
    const INSERT_IN_ORDER: &'static str;
    /// The club's month snapshots' lock (`$1` the club), taken before they are rewritten;
    /// `None`: SQLite's one writer needs none.
    const SNAPSHOTS_LOCK: Option<&'static str>;
    /// The same lock, taken only when the game adds a month (see `stats::sql`).
    const SNAPSHOTS_LOCK_TO_ADD: Option<&'static str>;
    /// Rows each bucket of the statistics is split into, so that concurrent finishes seldom
    /// wait on one row; SQLite writes one transaction at a time.
    const BUCKET_SHARDS: u64;
    /// The JSON aggregate of a leaderboard's rows, as text.
    const JSON_ROWS: &'static str;

    /// What a write transaction runs on ([`super::writes::Writes`]).
    type Conn<'c>: Send;

    /// A transaction of sqlx's, to write on.
    fn on(tx: sqlx::Transaction<'static, Self>) -> Self::Conn<'static>;

    /// A transaction of sqlx's, as the write path writes on it.
    fn writes(tx: sqlx::Transaction<'static, Self>) -> impl Writing<Db = Self>;

    /// Runs `query` and returns its rows.
    fn fetch_all<'a>(
        on: On<'a, Self>,
        query: Query,
    ) -> impl Future<Output = Result<Vec<Self::Row>, sqlx::Error>> + Send + 'a;

    /// Runs `query`; returns the number of rows it changed.
    fn execute<'a>(
        on: On<'a, Self>,
        query: Query,
    ) -> impl Future<Output = Result<u64, sqlx::Error>> + Send + 'a;
}

/// A store on a [`Backend`]: its pool, and the parts each store does its own way. The rest of
/// the store's traits are implemented once for every `SqlStore` (`events`, `stats`,
/// `players`, `presets`).
pub(super) trait SqlStore: Send + Sync + 'static {
    type Db: Backend;

    /// The pool reads and the writes outside the append path run on.
    fn pool(&self) -> &sqlx::Pool<Self::Db>;

    /// What the write path shares with the reads: the state cache, the clubs' rows, the
    /// subscribers of commits.
    fn shared(&self) -> &Shared;

    /// On PostgreSQL, the pool whose database carries the other servers' commit notifications.
    fn notifications(&self) -> Option<sqlx::PgPool>;

    /// The database's write turn, held by a write outside the append path for its
    /// transaction (SQLite: taken in turn with the writer's batches); `None`: none to take.
    fn write_turn(&self) -> impl Future<Output = Option<MutexGuard<'_, ()>>> + Send;

    /// The last position a reader of the club's log or lobby may read up to; `None`: no bound.
    fn settled_position(
        &self,
        club: &str,
    ) -> impl Future<Output = Result<Option<i64>, StoreError>> + Send;

    /// The game's stored version (`None`: the club has no such game).
    fn stored_version(
        &self,
        club: &str,
        id: &str,
    ) -> impl Future<Output = Result<Option<i64>, StoreError>> + Send;

    /// Decides and writes one append (see `EventStore::append`).
    fn write_append(
        &self,
        club: &str,
        id: &str,
        request: AppendRequest,
    ) -> impl Future<Output = Result<Appended, StoreError>> + Send;

    /// Creates a game and its first event (see `EventStore::create_game`).
    fn write_create(
        &self,
        club: &str,
        game: &NewGame,
    ) -> impl Future<Output = Result<Option<GameRecord>, StoreError>> + Send;

    /// Told of a write that failed: PostgreSQL then looks for its primary at once.
    fn write_failed(&self, e: &StoreError);

    /// The primary this store follows among several hosts (`None`: nothing to follow).
    fn follower_status(&self) -> Option<FollowerStatus>;

    /// Where this request reads statistics and history lists.
    fn read_side(&self) -> Reads<'_>;
}

/// [`Backend::fetch_all`] and [`Backend::execute`]: the same sqlx calls, on each backend's
/// own types.
macro_rules! runs_queries {
    () => {
        fn fetch_all<'a>(
            on: On<'a, Self>,
            query: Query,
        ) -> impl Future<Output = Result<Vec<Self::Row>, sqlx::Error>> + Send + 'a {
            async move {
                let statement =
                    bind_params!(sqlx::query(sqlx::AssertSqlSafe(query.sql)), query.args);
                match on {
                    On::Pool(pool) => statement.fetch_all(pool).await,
                    On::Connection(conn) => statement.fetch_all(conn).await,
                }
            }
        }

        fn execute<'a>(
            on: On<'a, Self>,
            query: Query,
        ) -> impl Future<Output = Result<u64, sqlx::Error>> + Send + 'a {
            async move {
                let statement =
                    bind_params!(sqlx::query(sqlx::AssertSqlSafe(query.sql)), query.args);
                let done = match on {
                    On::Pool(pool) => statement.execute(pool).await?,
                    On::Connection(conn) => statement.execute(conn).await?,
                };
                Ok(done.rows_affected())
            }
        }
    };
}

impl Backend for sqlx::Sqlite {
    const NAME: &'static str = "sqlite";
    const BEGIN: &'static str = "BEGIN IMMEDIATE";
    const LOCK_ROW: &'static str = "";
    const LOCK_SEATS: &'static str = "";
    const NOTIFY: Option<&'static str> = None;
    // One writer: its positions are in commit order anyway.
    const INSERT_IN_ORDER: &'static str = INSERT_EVENT;
    const SNAPSHOTS_LOCK: Option<&'static str> = None;
    const SNAPSHOTS_LOCK_TO_ADD: Option<&'static str> = None;
    // One writer at a time: nothing waits on a bucket's row.
    const BUCKET_SHARDS: u64 = 1;
    const JSON_ROWS: &'static str = "json_group_array(json_array(player_id, name, \
        json_array(played, wins, total_sum, rank_sum, lower_games)))";

    type Conn<'c> = SqliteConn<'c>;

    fn on(tx: sqlx::Transaction<'static, Self>) -> Self::Conn<'static> {
        SqliteConn::Transaction(tx)
    }

    fn writes(tx: sqlx::Transaction<'static, Self>) -> impl Writing<Db = Self> {
        Writes::new(tx)
    }

    runs_queries!();
}

impl Backend for sqlx::Postgres {
    const NAME: &'static str = "postgres";
    const BEGIN: &'static str = "BEGIN";
    const LOCK_ROW: &'static str = " FOR UPDATE";
    const LOCK_SEATS: &'static str = "FOR NO KEY UPDATE";
    const NOTIFY: Option<&'static str> = Some("SELECT pg_notify($1, $2)");
    // The club's positions lock is taken, shared, by the row source, before the row's position
    // is drawn: appends never wait for each other on it, only for a reader settling the club's
    // positions (`settled_position` of the PostgreSQL store). Every reader of positions reads
    // one club (its log, its lobby), so clubs need no order between them. (Two clubs whose ids
    // hash alike share a lock: only slower, never wrong.)
    const INSERT_IN_ORDER: &'static str = "INSERT INTO events \
        (game_id, seq, event_id, type, schema_version, data, recorded_at, recorded_by) \
        SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM \
          (SELECT pg_advisory_xact_lock_shared(7461626, hashtext(club_id)) FROM games WHERE id = $1) AS in_flight";
    const SNAPSHOTS_LOCK: Option<&'static str> = Some(SNAPSHOTS_LOCK);
    const SNAPSHOTS_LOCK_TO_ADD: Option<&'static str> = Some(SNAPSHOTS_LOCK_TO_ADD);
    const BUCKET_SHARDS: u64 = 8;
    const JSON_ROWS: &'static str = "CAST(json_agg(json_build_array(player_id, name, \
        json_build_array(played, wins, total_sum, rank_sum, lower_games))) AS TEXT)";

    type Conn<'c> = sqlx::Transaction<'c, sqlx::Postgres>;

    fn on(tx: sqlx::Transaction<'static, Self>) -> Self::Conn<'static> {
        tx
    }

    fn writes(tx: sqlx::Transaction<'static, Self>) -> impl Writing<Db = Self> {
        Writes::new(tx)
    }

    runs_queries!();
}
