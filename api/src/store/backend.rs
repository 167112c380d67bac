//! The two databases the store runs on: what their statements differ by ([`Backend`]: how a
//! write transaction begins, row and club locks, a JSON aggregate) and how a statement runs on
//! either ([`query`]: `query(SQL).bind(a).fetch_optional(pool)`, as with sqlx's own, written
//! once for both: the values are [`Param`]s, bound by the backend).

use std::borrow::Cow;
use std::future::Future;

use sqlx::Database;

use super::columns::Columns;
use super::lists::{Param, bind_params, placeholders};

/// An event's insert, outside the club's positions lock (`events::append::insert_row`).
pub(super) const INSERT_EVENT: &str = "INSERT INTO events \
    (game_id, seq, event_id, type, schema_version, data, recorded_at, recorded_by) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";

/// PostgreSQL: the club's statistics lock (`$1` the club), held by every writer of its
/// players' sums, runs and month snapshots and of its buckets to the commit: the settling of
/// noted finishes, a correction, a merge (`stats::settle`). Two of them at once would
/// otherwise miss each other: one making a month's snapshot from runs the other has not
/// committed, the other adding its games to the months it sees, not that one.
const STATISTICS_LOCK: &str = "SELECT pg_advisory_xact_lock(7461627, hashtext($1))";

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
    /// A commit's one event and the lobby's row it makes, as one statement (`$1`–`$8` the event
    /// as in [`INSERT_EVENT`], `$9`–`$14` the lobby's row after its position, the club first),
    /// answering the event's position; `None`: two statements (SQLite's are calls within the
    /// process).
    const EVENT_WITH_CHANGE: Option<&'static str>;
    /// The club's statistics lock (`$1` the club), taken before its sums are added to or
    /// rewritten; `None`: SQLite's one writer needs none.
    const STATISTICS_LOCK: Option<&'static str>;
    /// Taken first by the emptying of the read models (a rebuild beside running servers): it
    /// waits for the appends and creations under way and holds off new ones until its commit,
    /// so that none writes half before it and half after. `None`: SQLite's `BEGIN IMMEDIATE`
    /// already does.
    const WRITES_HELD: Option<&'static str>;
    /// The club's ratings of one game, alone for one transaction (`$1` the club, `$2` the
    /// game): they are recomputed in play order, so two writers of one club's ratings of one
    /// game take turns. `None`: SQLite's one writer needs none.
    const RATINGS_LOCK: Option<&'static str>;
    /// Rows each bucket of the statistics is split into, so that concurrent finishes seldom
    /// wait on one row; SQLite writes one transaction at a time.
    const BUCKET_SHARDS: u64;
    /// Whether statements that do not depend on each other are sent as one
    /// ([`super::together`]).
    const WRITES_TOGETHER: bool;
    /// Whether a first finish's shared sums are added later, in a batch with the club's other
    /// finishes (`stats::settle`); `false`: in the finish's own transaction. SQLite's one
    /// writer already commits the finishes waiting together, and a settling in a transaction of
    /// its own would hold the database's write lock beside the writer.
    const SETTLES_LATER: bool;
    /// The JSON aggregate of a leaderboard's rows, as text.
    const JSON_ROWS: &'static str;

    /// The placeholders of a many-row `VALUES` (all of a statement's placeholders): `$1, $2…`
    /// in rows. SQLite's override writes `?`: it finds a numbered placeholder's value by a
    /// search through all of them, so binding thousands (a recomputation's rows) is quadratic.
    fn values_placeholders(rows: usize, columns: usize) -> String {
        placeholders(rows, columns)
    }

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

/// PostgreSQL: a commit's one event and the lobby's row it makes, as one statement
/// ([`Backend::EVENT_WITH_CHANGE`]), the event inserted once a row of `$source` is there (a row
/// source that takes the club's positions lock).
macro_rules! event_with_change {
    ($source:literal) => {
        concat!(
            "WITH e AS ( \
               INSERT INTO events (game_id, seq, event_id, type, schema_version, data, recorded_at, recorded_by) \
               SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM ",
            $source,
            " RETURNING position \
             ) \
             INSERT INTO game_changes (position, club_id, game_id, kind, status, version, changed_at) \
             SELECT position, $9, $10, $11, $12, $13, $14 FROM e RETURNING position"
        )
    };
}
pub(super) use event_with_change;

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
    const EVENT_WITH_CHANGE: Option<&'static str> = None;
    const STATISTICS_LOCK: Option<&'static str> = None;
    const WRITES_HELD: Option<&'static str> = None;
    const RATINGS_LOCK: Option<&'static str> = None;
    // One writer at a time: nothing waits on a bucket's row.
    const BUCKET_SHARDS: u64 = 1;
    const WRITES_TOGETHER: bool = false;
    const SETTLES_LATER: bool = false;
    const JSON_ROWS: &'static str = "json_group_array(json_array(player_id, name, \
        json_array(played, wins, total_sum, rank_sum, lower_games)))";

    fn values_placeholders(rows: usize, columns: usize) -> String {
        let row = format!("({})", vec!["?"; columns].join(", "));
        vec![row; rows].join(", ")
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
    // The positions lock as in `INSERT_IN_ORDER`, keyed by the club given (`$9`): a new game's
    // row, written by the same statement, is not there yet for the row source to read.
    const EVENT_WITH_CHANGE: Option<&'static str> = Some(event_with_change!(
        "(SELECT pg_advisory_xact_lock_shared(7461626, hashtext($9))) AS in_flight"
    ));
    const STATISTICS_LOCK: Option<&'static str> = Some(STATISTICS_LOCK);
    // Every append and creation writes its game's row (ROW EXCLUSIVE), which SHARE waits for;
    // so does a settling, which takes its notes (`stats::settle`): one under way commits first,
    // and the rows it added are emptied with the rest, not left to count a game again.
    const WRITES_HELD: Option<&'static str> =
        Some("LOCK TABLE games, statistics_pending IN SHARE MODE");
    const RATINGS_LOCK: Option<&'static str> =
        Some("SELECT pg_advisory_xact_lock(7461629, hashtext($1 || '/' || $2))");
    const BUCKET_SHARDS: u64 = 8;
    const WRITES_TOGETHER: bool = true;
    const SETTLES_LATER: bool = true;
    const JSON_ROWS: &'static str = "CAST(json_agg(json_build_array(player_id, name, \
        json_build_array(played, wins, total_sum, rank_sum, lower_games))) AS TEXT)";

    runs_queries!();
}

/// A statement, written with `$1` placeholders, and its values in placeholder order.
pub(super) struct Query {
    pub(super) sql: Cow<'static, str>,
    pub(super) args: Vec<Param>,
}

/// A statement to run: a constant, or one written for the call (`format!`).
pub(super) fn query(sql: impl Into<Cow<'static, str>>) -> Query {
    Query {
        sql: sql.into(),
        args: Vec::new(),
    }
}

impl Query {
    /// Binds the next placeholder's value.
    pub(super) fn bind(mut self, value: impl Into<Param>) -> Self {
        self.args.push(value.into());
        self
    }

    /// Binds the next placeholders' values, in order.
    pub(super) fn with(mut self, values: Vec<Param>) -> Self {
        self.args.extend(values);
        self
    }

    pub(super) fn fetch_all<T: Target>(
        self,
        on: T,
    ) -> impl Future<Output = Result<Vec<Row<T>>, sqlx::Error>> + Send {
        on.fetch_all(self)
    }

    pub(super) async fn fetch_optional<T: Target>(
        self,
        on: T,
    ) -> Result<Option<Row<T>>, sqlx::Error> {
        Ok(on.fetch_all(self).await?.into_iter().next())
    }

    pub(super) async fn fetch_one<T: Target>(self, on: T) -> Result<Row<T>, sqlx::Error> {
        self.fetch_optional(on)
            .await?
            .ok_or(sqlx::Error::RowNotFound)
    }

    /// Runs the statement; returns the number of rows it changed.
    pub(super) fn execute<T: Target>(
        self,
        on: T,
    ) -> impl Future<Output = Result<u64, sqlx::Error>> + Send {
        on.execute(self)
    }
}

/// A row of the backend a statement runs on.
pub(super) type Row<T> = <<T as Target>::Db as Database>::Row;

/// Where a statement runs: the pool, or an open transaction's connection.
pub(super) enum On<'a, DB: Database> {
    Pool(&'a sqlx::Pool<DB>),
    Connection(&'a mut DB::Connection),
}

/// What a statement can run on: `&Pool`, or `&mut Transaction`.
pub(super) trait Target: Send + Sized {
    type Db: Backend;

    fn fetch_all(
        self,
        query: Query,
    ) -> impl Future<Output = Result<Vec<<Self::Db as Database>::Row>, sqlx::Error>> + Send;

    fn execute(self, query: Query) -> impl Future<Output = Result<u64, sqlx::Error>> + Send;
}

impl<DB: Backend> Target for &sqlx::Pool<DB> {
    type Db = DB;

    fn fetch_all(
        self,
        query: Query,
    ) -> impl Future<Output = Result<Vec<DB::Row>, sqlx::Error>> + Send {
        DB::fetch_all(On::Pool(self), query)
    }

    fn execute(self, query: Query) -> impl Future<Output = Result<u64, sqlx::Error>> + Send {
        DB::execute(On::Pool(self), query)
    }
}

impl<DB: Backend> Target for &mut sqlx::Transaction<'_, DB> {
    type Db = DB;

    fn fetch_all(
        self,
        query: Query,
    ) -> impl Future<Output = Result<Vec<DB::Row>, sqlx::Error>> + Send {
        DB::fetch_all(On::Connection(&mut **self), query)
    }

    fn execute(self, query: Query) -> impl Future<Output = Result<u64, sqlx::Error>> + Send {
        DB::execute(On::Connection(&mut **self), query)
    }
}
