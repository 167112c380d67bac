//! A write transaction, its statements run in the order given, on the connection each backend
//! writes with.
//!
//! On PostgreSQL, a transaction of sqlx's. On SQLite, statements are run directly on the
//! calling thread ([`Direct`]): SQLite's writer runs a whole batch on its own thread with no
//! hand-off per statement (BENCHMARKS.md, "SQLite's writer owns its connection"), and a pass
//! outside the writer (an import) borrows its transaction's connection for each statement.
//! Either way a statement's rows are read by name ([`Columns`]), so the write path is written
//! once for both.

use std::future::Future;

use super::backend::Backend;
use super::columns::{Columns, DirectRow};
use super::direct::Direct;
use super::error::StoreError;
use super::lists::{Param, bind_params};
use super::together::{Statement, together};

/// The values of one statement, in placeholder order: `args![a, b, c]`.
macro_rules! args {
    ($($value:expr),* $(,)?) => {
        vec![$($crate::store::lists::Param::from($value)),*]
    };
}
pub(super) use args;

/// A point in the writer's batch, to forget a refused request's events after it
/// ([`Writes::discard`]).
#[derive(Clone, Copy)]
pub(super) struct Mark {
    /// Events inserted by the batch so far ([`Writes::provisional_position`]).
    events: i64,
}

/// A backend as the write path writes on it.
pub(super) trait WriteOn: Backend {
    /// What a write transaction runs on.
    type Conn<'c>: Send;

    /// A transaction of sqlx's, to write on.
    fn on(tx: sqlx::Transaction<'static, Self>) -> Self::Conn<'static>;

    /// A transaction of sqlx's, as the write path writes on it.
    fn writes(tx: sqlx::Transaction<'static, Self>) -> impl Writing<Db = Self>;
}

impl WriteOn for sqlx::Postgres {
    type Conn<'c> = PgConn<'c>;

    fn on(tx: sqlx::Transaction<'static, Self>) -> Self::Conn<'static> {
        PgConn::Transaction(tx)
    }

    fn writes(tx: sqlx::Transaction<'static, Self>) -> impl Writing<Db = Self> {
        Writes::new(tx)
    }
}

impl WriteOn for sqlx::Sqlite {
    type Conn<'c> = SqliteConn<'c>;

    fn on(tx: sqlx::Transaction<'static, Self>) -> Self::Conn<'static> {
        SqliteConn::Transaction(tx)
    }

    fn writes(tx: sqlx::Transaction<'static, Self>) -> impl Writing<Db = Self> {
        Writes::new(tx)
    }
}

/// What a write runs on, on PostgreSQL.
pub(super) enum PgConn<'c> {
    /// A transaction of sqlx's.
    Transaction(sqlx::Transaction<'c, sqlx::Postgres>),
    /// A kept connection outside any transaction, each statement committed as it runs: for a
    /// write that is one statement after reads ([`super::events::create::create_known`]).
    Alone(&'c mut sqlx::PgConnection),
}

impl PgConn<'_> {
    fn connection(&mut self) -> &mut sqlx::PgConnection {
        match self {
            Self::Transaction(tx) => tx,
            Self::Alone(conn) => conn,
        }
    }
}

/// What a write runs on, on SQLite.
pub(super) enum SqliteConn<'c> {
    /// A transaction of sqlx's, whose connection is borrowed for each statement.
    Transaction(sqlx::Transaction<'static, sqlx::Sqlite>),
    /// SQLite's writer's own connection, lent for its life; its batches begin and end their
    /// transactions with statements of their own.
    Writer(&'c mut Direct),
}

/// A write transaction (see the module's comment). Dropped without [`Writes::commit`] (or,
/// for the writer, [`Writes::commit_batch`]), it is rolled back.
pub(super) struct Writes<'c, DB: WriteOn> {
    conn: DB::Conn<'c>,
    /// Events the writer's batch inserted so far (their positions are settled at its commit).
    events: i64,
    /// Whether PostgreSQL keeps the statements prepared on the connection (see
    /// [`Writing::keep_prepared`]).
    keep: bool,
}

impl<DB: WriteOn> Writes<'static, DB> {
    pub(super) fn new(tx: sqlx::Transaction<'static, DB>) -> Self {
        Self {
            conn: DB::on(tx),
            events: 0,
            keep: true,
        }
    }
}

impl<DB: WriteOn> Writes<'_, DB> {
    /// The position of the batch's next event, until its commit tells the real one: `-1` for
    /// the batch's first event, `-2` for the second… ([`settled_position`]). Only the sole
    /// writer's events have one; the others read theirs back (`RETURNING position`).
    pub(super) fn provisional_position(&mut self) -> i64 {
        self.events += 1;
        -self.events
    }
}

/// The statements of a write transaction, on either backend: what the write path is written
/// against (`events::append`, `stats::write`).
pub(super) trait Writing: Send {
    type Db: Backend;
    type Row: Columns + Send;

    /// Whether this is SQLite's one writer, whose events learn their positions at the commit
    /// ([`Writes::provisional_position`]); the others read theirs back (`RETURNING position`).
    fn is_sole_writer(&self) -> bool;

    /// See [`Writes::provisional_position`].
    fn provisional_position(&mut self) -> i64;

    /// Runs a statement whose rows are not needed.
    fn execute(
        &mut self,
        sql: &str,
        args: Vec<Param>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Runs a statement and returns its rows.
    fn fetch_all(
        &mut self,
        sql: &str,
        args: Vec<Param>,
    ) -> impl Future<Output = Result<Vec<Self::Row>, StoreError>> + Send;

    fn commit(self) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Whether the statements run from now on are kept prepared on PostgreSQL's connection
    /// (they are by default): a batch's statements, whose texts are written for its number of
    /// rows and seldom met again, would fill the connection's cache and push out the ones every
    /// request runs. SQLite's one writer keeps what it prepares anyway.
    fn keep_prepared(&mut self, _keep: bool) {}

    /// Runs statements that do not depend on each other ([`super::together`]): one round trip
    /// on PostgreSQL, one after the other on SQLite.
    fn execute_together(
        &mut self,
        statements: Vec<Statement>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        async move {
            if statements.is_empty() {
                return Ok(());
            }
            if Self::Db::WRITES_TOGETHER {
                let (sql, args) = together(statements);
                return self.execute(&sql, args).await;
            }
            for (sql, args) in statements {
                self.execute(&sql, args).await?;
            }
            Ok(())
        }
    }

    fn fetch_optional(
        &mut self,
        sql: &str,
        args: Vec<Param>,
    ) -> impl Future<Output = Result<Option<Self::Row>, StoreError>> + Send {
        async move { Ok(self.fetch_all(sql, args).await?.into_iter().next()) }
    }

    fn fetch_one(
        &mut self,
        sql: &str,
        args: Vec<Param>,
    ) -> impl Future<Output = Result<Self::Row, StoreError>> + Send {
        async move {
            self.fetch_optional(sql, args)
                .await?
                .ok_or(StoreError::Database(sqlx::Error::RowNotFound))
        }
    }
}

impl<'c> Writes<'c, sqlx::Postgres> {
    /// A transaction begun on a kept connection ([`super::lanes`]): given back after the
    /// commit, it spares the pool's ping on release, a round trip of each write request. One
    /// that wrote nothing is rolled back before its lane is kept ([`Writes::roll_back`]); one
    /// that failed drops its lane, whose return to the pool sends the rollback at once.
    pub(super) async fn on_lane(lane: &'c mut super::lanes::Lane) -> Result<Self, StoreError> {
        Ok(Self {
            conn: PgConn::Transaction(sqlx::Connection::begin(&mut ***lane).await?),
            events: 0,
            keep: true,
        })
    }

    /// Statements on a kept connection outside a transaction ([`PgConn::Alone`]).
    pub(super) fn alone_on_lane(lane: &'c mut super::lanes::Lane) -> Self {
        Self {
            conn: PgConn::Alone(lane),
            events: 0,
            keep: true,
        }
    }

    /// Ends a transaction that wrote nothing. Its lane may then be kept: a rollback only
    /// queued would be sent with the lane's next statement, and until then the transaction
    /// would hold its locks (the game's row).
    pub(super) async fn roll_back(self) -> Result<(), StoreError> {
        match self.conn {
            PgConn::Transaction(tx) => tx.rollback().await.map_err(translate),
            PgConn::Alone(_) => Ok(()),
        }
    }
}

impl Writing for Writes<'_, sqlx::Postgres> {
    type Db = sqlx::Postgres;
    type Row = sqlx::postgres::PgRow;

    /// PostgreSQL has many writers: its events read their positions back.
    fn is_sole_writer(&self) -> bool {
        false
    }

    fn provisional_position(&mut self) -> i64 {
        Writes::provisional_position(self)
    }

    fn keep_prepared(&mut self, keep: bool) {
        self.keep = keep;
    }

    async fn execute(&mut self, sql: &str, args: Vec<Param>) -> Result<(), StoreError> {
        pg_query(sql, args)
            .persistent(self.keep)
            .execute(self.conn.connection())
            .await
            .map_err(translate)?;
        Ok(())
    }

    async fn fetch_all(
        &mut self,
        sql: &str,
        args: Vec<Param>,
    ) -> Result<Vec<sqlx::postgres::PgRow>, StoreError> {
        pg_query(sql, args)
            .persistent(self.keep)
            .fetch_all(self.conn.connection())
            .await
            .map_err(translate)
    }

    /// [`PgConn::Alone`]: each statement was committed as it ran.
    async fn commit(self) -> Result<(), StoreError> {
        match self.conn {
            PgConn::Transaction(tx) => tx.commit().await.map_err(translate),
            PgConn::Alone(_) => Ok(()),
        }
    }
}

fn pg_query(
    sql: &str,
    args: Vec<Param>,
) -> sqlx::query::Query<'static, sqlx::Postgres, sqlx::postgres::PgArguments> {
    bind_params!(sqlx::query(sqlx::AssertSqlSafe(sql.to_owned())), args)
}

impl Writing for Writes<'_, sqlx::Sqlite> {
    type Db = sqlx::Sqlite;
    type Row = DirectRow;

    /// SQLite's one writer: its batch holds the database's write lock from its first statement
    /// to its commit, so the events it inserts get consecutive positions, known at the commit
    /// ([`Writes::provisional_position`]).
    fn is_sole_writer(&self) -> bool {
        matches!(self.conn, SqliteConn::Writer(_))
    }

    fn provisional_position(&mut self) -> i64 {
        Writes::provisional_position(self)
    }

    async fn execute(&mut self, sql: &str, args: Vec<Param>) -> Result<(), StoreError> {
        self.direct(|direct| direct.execute(sql, &args)).await
    }

    async fn fetch_all(
        &mut self,
        sql: &str,
        args: Vec<Param>,
    ) -> Result<Vec<DirectRow>, StoreError> {
        self.direct(|direct| direct.fetch_all(sql, &args)).await
    }

    async fn commit(self) -> Result<(), StoreError> {
        match self.conn {
            SqliteConn::Transaction(tx) => tx.commit().await.map_err(translate),
            // Its batches end with `commit_batch`, which reads their positions.
            SqliteConn::Writer(_) => Err(StoreError::Database(sqlx::Error::Protocol(
                "the writer's batch commits with its positions (commit_batch)".into(),
            ))),
        }
    }
}

impl<'c> Writes<'c, sqlx::Sqlite> {
    /// Runs `run` on the connection: the writer's, or the transaction's, borrowed for it.
    async fn direct<R>(
        &mut self,
        run: impl FnOnce(&mut Direct) -> Result<R, sqlx::Error>,
    ) -> Result<R, StoreError> {
        match &mut self.conn {
            SqliteConn::Writer(direct) => run(direct).map_err(translate),
            SqliteConn::Transaction(tx) => {
                let mut handle = tx.lock_handle().await?;
                Direct::lend(&mut handle, async move |direct| run(direct))
                    .await
                    .map_err(translate)
            }
        }
    }

    /// A batch on the writer's connection, begun (`BEGIN IMMEDIATE`: the write lock from the
    /// start). [`Writes::commit_batch`] commits it; [`Writes::roll_back`] rolls it back.
    pub(super) async fn begin_on(direct: &'c mut Direct) -> Result<Self, StoreError> {
        let mut writes = Self {
            conn: SqliteConn::Writer(direct),
            events: 0,
            keep: true,
        };
        writes.run(&["BEGIN IMMEDIATE"]).await?;
        Ok(writes)
    }

    /// Runs statements without values (a savepoint's, the transaction's), in order.
    pub(super) async fn run(&mut self, statements: &[&str]) -> Result<(), StoreError> {
        self.direct(|direct| {
            statements
                .iter()
                .try_for_each(|sql| direct.execute(sql, &[]))
        })
        .await
    }

    /// Rolls the batch back.
    pub(super) async fn roll_back(mut self) {
        // An error here means no transaction was open (its `BEGIN` failed, or a failed commit
        // ended it).
        let _ = self.run(&["ROLLBACK"]).await;
    }

    /// How far the batch has got.
    pub(super) fn mark(&self) -> Mark {
        Mark {
            events: self.events,
        }
    }

    /// Forgets the events inserted since `mark` (a refused request's, rolled back with its
    /// savepoint: their positions go to the next ones).
    pub(super) fn discard(&mut self, mark: Mark) {
        self.events = mark.events;
    }

    /// Runs `end` (statements without values, such as a savepoint's release), then commits.
    /// Returns the position of the batch's first event (see [`settled_position`]). On failure
    /// the transaction may still be open: the caller rolls back what it must
    /// ([`Writes::run`], [`Writes::roll_back`]).
    pub(super) async fn commit_batch(&mut self, end: &[&str]) -> Result<i64, StoreError> {
        let events = self.events;
        self.direct(|direct| {
            for sql in end {
                direct.execute(sql, &[])?;
            }
            // The log's last position, read under the batch's write lock: its events are the
            // last `events` ones (a savepoint rolled back also rolls back what AUTOINCREMENT
            // counted). No row: the log had no event, nor has the batch.
            let last: i64 = match direct
                .fetch_all("SELECT seq FROM sqlite_sequence WHERE name = 'events'", &[])?
                .first()
            {
                Some(row) => row.try_get("seq")?,
                None => 0,
            };
            direct.execute("COMMIT", &[])?;
            Ok(last - events + 1)
        })
        .await
    }
}

/// Constraint names from the migrations: a violation is a concurrent writer, not a bug.
const UNIQUE_SEQ: &str = "events_game_seq_key";
const UNIQUE_EVENT_ID: &str = "events_game_event_id_key";

/// A unique violation on the event log means another append won the race.
pub(super) fn translate(e: sqlx::Error) -> StoreError {
    if let sqlx::Error::Database(db) = &e
        && db.is_unique_violation()
    {
        let which = db
            .constraint()
            .map(str::to_owned)
            .unwrap_or_else(|| db.message().to_owned());
        if which.contains(UNIQUE_SEQ) || which.contains("events.game_id, events.seq") {
            return StoreError::Conflict(tabletally_domain::said!("server.api.append.raced"));
        }
        if which.contains(UNIQUE_EVENT_ID) || which.contains("events.game_id, events.event_id") {
            return StoreError::Conflict(tabletally_domain::said!("server.api.append.id_raced"));
        }
        return StoreError::Conflict(tabletally_domain::said!(
            "server.api.append.conflicted",
            which = which
        ));
    }
    StoreError::Database(e)
}
