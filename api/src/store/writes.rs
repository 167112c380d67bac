//! A write transaction that sends its statements as few times as the backend allows.
//!
//! On SQLite every statement is a hand-off to the thread that owns the connection and back, and
//! the one writer waits for each before sending the next (BENCHMARKS.md, "Why the SQLite writer
//! is far from the raw commit rate"). So on SQLite a statement whose answer the write does not
//! need is held, and sent with the next statement whose answer it does need, as one query of
//! several statements — a creation or an append then costs a few hand-offs, not a dozen. On
//! PostgreSQL each statement runs at once, in the order given (its locks depend on that order).
//!
//! Held statements are always sent before the transaction commits: the only way to commit is
//! [`Writes::commit`]. A held statement that fails fails the statement sent with it; the write it
//! belongs to is refused as a whole (its savepoint or transaction is rolled back).

use super::StoreError;
use super::lists::{Param, bind_params};

/// The values of one statement, in placeholder order: `args![a, b, c]`.
macro_rules! args {
    ($($value:expr),* $(,)?) => {
        vec![$($crate::store::lists::Param::from($value)),*]
    };
}
pub(super) use args;

/// Statements held back, joined into one text with their placeholders numbered on.
#[derive(Default)]
struct Held {
    sql: String,
    args: Vec<Param>,
    /// How many times what was held has been sent.
    sent: u64,
}

impl Held {
    fn push(&mut self, sql: &str, args: Vec<Param>) {
        self.sql.push_str(&renumber(sql, self.args.len()));
        self.sql.push_str(";\n");
        self.args.extend(args);
    }

    fn is_empty(&self) -> bool {
        self.sql.is_empty()
    }

    /// What is held, to be sent; nothing is held afterwards.
    fn take(&mut self) -> Held {
        let sent = self.sent + 1;
        std::mem::replace(
            self,
            Held {
                sent,
                ..Held::default()
            },
        )
    }

    fn mark(&self) -> HeldMark {
        HeldMark {
            sql: self.sql.len(),
            args: self.args.len(),
            sent: self.sent,
        }
    }

    /// Forgets what was held after `mark` (what was held before it stays, unless sent).
    fn truncate(&mut self, mark: HeldMark) {
        if mark.sent == self.sent {
            self.sql.truncate(mark.sql);
            self.args.truncate(mark.args);
        } else {
            // Sent since the mark: everything held now came after it.
            self.sql.clear();
            self.args.clear();
        }
    }
}

/// How much was held at a point, to forget what was held after it.
#[derive(Clone, Copy)]
struct HeldMark {
    sql: usize,
    args: usize,
    sent: u64,
}

/// A point in the writer's batch, to forget a refused request's writes and events after it
/// ([`Writes::discard`]).
#[derive(Clone, Copy)]
pub(super) struct Mark {
    held: HeldMark,
    /// Events inserted by the batch so far ([`Writes::provisional_position`]).
    events: i64,
}

/// `sql` with each placeholder `$n` outside quotes made `$(n + offset)`: the statements of one
/// joined query share one list of values.
fn renumber(sql: &str, offset: usize) -> String {
    if offset == 0 {
        return sql.to_owned();
    }
    let mut out = String::with_capacity(sql.len() + 16);
    let mut chars = sql.char_indices().peekable();
    let mut quote: Option<char> = None;
    while let Some((_, c)) = chars.next() {
        out.push(c);
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '$' => {
                let mut number = String::new();
                while let Some((_, d)) = chars.peek().filter(|(_, d)| d.is_ascii_digit()) {
                    number.push(*d);
                    chars.next();
                }
                if let Ok(n) = number.parse::<usize>() {
                    out.push_str(&(n + offset).to_string());
                } else {
                    out.push_str(&number);
                }
            }
            None => {}
        }
    }
    out
}

/// A write transaction (see the module's comment). Dropped without [`Writes::commit`], it is
/// rolled back with everything held.
pub(super) struct Writes<DB: sqlx::Database> {
    conn: Conn<DB>,
    held: Held,
    /// Events the writer's batch inserted so far (their positions are settled at its commit).
    events: i64,
}

/// What a write runs on: a transaction of sqlx's, or SQLite's writer's own connection, whose
/// transaction is begun and ended by statements of its own (sqlx's `BEGIN` and `COMMIT` each
/// wait for an acknowledgement from SQLite's thread: two hand-offs, where a held `BEGIN` costs
/// none).
enum Conn<DB: sqlx::Database> {
    Transaction(sqlx::Transaction<'static, DB>),
    Writer(sqlx::pool::PoolConnection<DB>),
}

impl<DB: sqlx::Database> Writes<DB> {
    pub(super) fn new(tx: sqlx::Transaction<'static, DB>) -> Self {
        Self {
            conn: Conn::Transaction(tx),
            held: Held::default(),
            events: 0,
        }
    }

    /// SQLite's one writer: its batch holds the database's write lock from its first statement
    /// to its commit, so the events it inserts get consecutive positions, known at the commit
    /// ([`Writes::provisional_position`]).
    pub(super) fn is_sole_writer(&self) -> bool {
        matches!(self.conn, Conn::Writer(_))
    }

    /// The position of the batch's next event, until its commit tells the real one: `-1` for
    /// the batch's first event, `-2` for the second… ([`settled_position`]). Only the sole
    /// writer's events have one; the others read theirs back (`RETURNING position`).
    pub(super) fn provisional_position(&mut self) -> i64 {
        self.events += 1;
        -self.events
    }

    fn connection(&mut self) -> &mut DB::Connection {
        match &mut self.conn {
            Conn::Transaction(tx) => tx,
            Conn::Writer(conn) => conn,
        }
    }
}

macro_rules! writes_impl {
    ($db:ty, join = $join:literal) => {
        impl Writes<$db> {
            fn query(
                sql: String,
                args: Vec<Param>,
            ) -> sqlx::query::Query<'static, $db, <$db as sqlx::Database>::Arguments> {
                bind_params!(sqlx::query(sqlx::AssertSqlSafe(sql)), args)
            }

            /// `sql` after the held statements, as one query; nothing is held afterwards.
            fn with_held(&mut self, sql: &str, args: Vec<Param>) -> (String, Vec<Param>) {
                if self.held.is_empty() {
                    return (sql.to_owned(), args);
                }
                let mut held = self.held.take();
                let joined = format!("{}{}", held.sql, renumber(sql, held.args.len()));
                held.args.extend(args);
                (joined, held.args)
            }

            /// A statement whose answer is not needed: held on SQLite, run now on PostgreSQL.
            /// It must return no rows (they would be taken for the next statement's).
            pub(super) async fn execute(
                &mut self,
                sql: &str,
                args: Vec<Param>,
            ) -> Result<(), StoreError> {
                if $join {
                    self.held.push(sql, args);
                    return Ok(());
                }
                Self::query(sql.to_owned(), args)
                    .execute(self.connection())
                    .await
                    .map_err(translate)?;
                Ok(())
            }

            /// Runs the held statements, then `sql`, and returns `sql`'s rows.
            pub(super) async fn fetch_all(
                &mut self,
                sql: &str,
                args: Vec<Param>,
            ) -> Result<Vec<<$db as sqlx::Database>::Row>, StoreError> {
                let (sql, args) = self.with_held(sql, args);
                Self::query(sql, args)
                    .fetch_all(self.connection())
                    .await
                    .map_err(translate)
            }

            pub(super) async fn fetch_optional(
                &mut self,
                sql: &str,
                args: Vec<Param>,
            ) -> Result<Option<<$db as sqlx::Database>::Row>, StoreError> {
                Ok(self.fetch_all(sql, args).await?.into_iter().next())
            }

            pub(super) async fn fetch_one(
                &mut self,
                sql: &str,
                args: Vec<Param>,
            ) -> Result<<$db as sqlx::Database>::Row, StoreError> {
                self.fetch_optional(sql, args)
                    .await?
                    .ok_or(StoreError::Database(sqlx::Error::RowNotFound))
            }

            /// The connection, for reads written against it directly, after the held
            /// statements have run (a read sees every write before it).
            pub(super) async fn flushed(
                &mut self,
            ) -> Result<&mut <$db as sqlx::Database>::Connection, StoreError> {
                if !self.held.is_empty() {
                    let held = self.held.take();
                    Self::query(held.sql, held.args)
                        .execute(self.connection())
                        .await
                        .map_err(translate)?;
                }
                Ok(self.connection())
            }

            /// Sends what is held, then commits.
            pub(super) async fn commit(mut self) -> Result<(), StoreError> {
                self.flushed().await?;
                match self.conn {
                    Conn::Transaction(tx) => tx.commit().await.map_err(translate),
                    // Its batches end with `commit_batch`, which reads their positions.
                    Conn::Writer(_) => Err(StoreError::Database(sqlx::Error::Protocol(
                        "the writer's batch commits with its positions (commit_batch)".into(),
                    ))),
                }
            }
        }
    };
}

writes_impl!(sqlx::Sqlite, join = true);
writes_impl!(sqlx::Postgres, join = false);

/// What only SQLite's writer does: a savepoint per request, in one batch.
impl Writes<sqlx::Sqlite> {
    /// A batch on the writer's connection: `BEGIN IMMEDIATE` is held, and sent with the first
    /// statement. [`Writes::commit_batch`] commits it; [`Writes::roll_back`] rolls it back.
    pub(super) fn begin_on(conn: sqlx::pool::PoolConnection<sqlx::Sqlite>) -> Self {
        let mut writes = Self {
            conn: Conn::Writer(conn),
            held: Held::default(),
            events: 0,
        };
        writes.hold("BEGIN IMMEDIATE");
        writes
    }

    /// Holds `sql` (statements without values, such as a savepoint) to go with the next
    /// statement sent.
    pub(super) fn hold(&mut self, sql: &str) {
        self.held.push(sql, Vec::new());
    }

    /// Rolls the batch back (dropping a sqlx transaction does the same).
    pub(super) async fn roll_back(self) {
        if let Conn::Writer(mut conn) = self.conn {
            // An error here means no transaction was open (its `BEGIN` was never sent or failed).
            let _ = sqlx::raw_sql("ROLLBACK").execute(&mut *conn).await;
        }
    }

    /// How much is held now.
    pub(super) fn mark(&self) -> Mark {
        Mark {
            held: self.held.mark(),
            events: self.events,
        }
    }

    /// Forgets the statements held since `mark` (a refused request's writes), and the events
    /// they inserted (rolled back with its savepoint, their positions go to the next ones).
    pub(super) fn discard(&mut self, mark: Mark) {
        self.held.truncate(mark.held);
        self.events = mark.events;
    }

    /// Sends what is held with `end` (statements without values, such as a savepoint's
    /// release), then commits, in one query: a batch whose requests held their writes costs
    /// one round trip to SQLite's thread. Returns the position of the batch's first event (see
    /// [`settled_position`]). On failure the transaction may still be open: the caller rolls
    /// back what it must ([`Writes::finish`], [`Writes::roll_back`]).
    pub(super) async fn commit_batch(&mut self, end: &str) -> Result<i64, StoreError> {
        // The log's last position, read under the batch's write lock: its events are the last
        // `events` ones (a savepoint rolled back also rolls back what AUTOINCREMENT counted).
        let (sql, args) = self.with_held(
            &format!("{end}; SELECT seq FROM sqlite_sequence WHERE name = 'events'; COMMIT"),
            Vec::new(),
        );
        let rows = Self::query(sql, args)
            .fetch_all(self.connection())
            .await
            .map_err(translate)?;
        // Committed: nothing after this may fail, or the writer would answer the batch as
        // unwritten (no row: the log had no event, nor has the batch).
        let last: i64 = rows
            .last()
            .and_then(|row| sqlx::Row::try_get_unchecked(row, 0).ok())
            .unwrap_or(0);
        Ok(last - self.events + 1)
    }

    /// Runs the held statements and then `end` (statements without values, such as a
    /// savepoint's release), as one query.
    pub(super) async fn finish(&mut self, end: &str) -> Result<(), StoreError> {
        let (sql, args) = self.with_held(end, Vec::new());
        Self::query(sql, args)
            .execute(self.connection())
            .await
            .map_err(translate)?;
        Ok(())
    }
}

/// A position [`Writes::provisional_position`] gave, once the batch's first event's position
/// is known (`first`); a position read from the database is left as it is.
pub(super) fn settled_position(position: i64, first: i64) -> i64 {
    if position < 0 {
        first - position - 1
    } else {
        position
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_on_past_the_values_before_them() {
        assert_eq!(
            renumber("UPDATE games SET version = $1 WHERE id = $2", 3),
            "UPDATE games SET version = $4 WHERE id = $5"
        );
        assert_eq!(
            renumber("VALUES ($9, $10, $11)", 0),
            "VALUES ($9, $10, $11)"
        );
        assert_eq!(
            renumber("VALUES ($9, $10, $11)", 91),
            "VALUES ($100, $101, $102)"
        );
    }

    #[test]
    fn provisional_positions_settle_in_insertion_order_from_the_batchs_first() {
        assert_eq!(settled_position(-1, 41), 41);
        assert_eq!(settled_position(-3, 41), 43);
        assert_eq!(settled_position(7, 41), 7);
    }

    #[test]
    fn dollars_inside_quotes_are_left_alone() {
        assert_eq!(
            renumber("SELECT json_extract(data, '$.a$1'), \"$2\", $1", 1),
            "SELECT json_extract(data, '$.a$1'), \"$2\", $2"
        );
    }

    #[test]
    fn held_statements_join_into_one_list_of_values() {
        let mut held = Held::default();
        held.push(
            "UPDATE games SET version = $1 WHERE id = $2",
            vec![Param::Int(2), Param::from("g")],
        );
        held.push("INSERT INTO t VALUES ($1)", vec![Param::from("x")]);
        assert_eq!(
            held.sql,
            "UPDATE games SET version = $1 WHERE id = $2;\nINSERT INTO t VALUES ($3);\n"
        );
        assert_eq!(held.args.len(), 3);
    }

    #[test]
    fn a_discarded_request_leaves_what_was_held_before_it() {
        let mut held = Held::default();
        held.push("SAVEPOINT request", Vec::new());
        let mark = held.mark();
        held.push("INSERT INTO t VALUES ($1)", vec![Param::from("x")]);
        held.truncate(mark);
        assert_eq!(held.sql, "SAVEPOINT request;\n");
        assert!(held.args.is_empty());
    }

    #[test]
    fn a_discarded_request_whose_first_writes_were_sent_leaves_nothing_held() {
        let mut held = Held::default();
        let mark = held.mark();
        held.push("INSERT INTO t VALUES ($1)", vec![Param::from("x")]);
        held.take();
        held.push(
            "UPDATE t SET a = $1, b = $2, c = $3",
            vec![Param::Int(1), Param::Int(2), Param::Int(3)],
        );
        held.truncate(mark);
        assert!(held.is_empty() && held.args.is_empty());
    }
}
