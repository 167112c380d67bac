//! SQLite called directly on the calling thread, through the connection sqlx lends
//! (`SqliteConnection::lock_handle`): while the lent handle is held, sqlx's worker thread for
//! that connection waits on its lock and makes no call, so SQLite's writer runs every statement
//! of its batches on its own thread, with no hand-off per statement (BENCHMARKS.md, "SQLite's
//! writer owns its connection"). Statements are prepared once and kept, by text.
//!
//! This module is the store's only `unsafe`; each block says why it is sound. What they rely
//! on: a [`Direct`] exists only inside [`Direct::lend`], which holds the handle borrowed for
//! as long, so `db` is the lent connection and no other thread calls it; every statement was
//! prepared on it and is finalized before `lend` returns; and `Direct` is used by one thread at
//! a time (`&mut self`).

use std::collections::HashMap;
use std::ffi::{CStr, c_int};
use std::ptr::NonNull;
use std::sync::Arc;

use chrono::SecondsFormat;
use libsqlite3_sys as ffi;
use sqlx::error::{DatabaseError, ErrorKind};
use sqlx::sqlite::LockedSqliteHandle;

use super::columns::{DirectRow, Value};
use super::lists::Param;

/// Statements kept at most; past it the cache starts again (texts built for a number of seats
/// or players vary, but a few dozen shapes cover a server's life).
const KEPT: usize = 256;

/// A connection lent by sqlx, and the statements prepared on it.
pub(super) struct Direct {
    db: NonNull<ffi::sqlite3>,
    statements: HashMap<String, Statement>,
    /// The frames in the write-ahead log after the last commit, told by SQLite's WAL hook
    /// ([`Direct::watch_wal`]); boxed, so that the hook's pointer to it stays put.
    wal_frames: Option<Box<c_int>>,
}

// SAFETY: sqlx opens its connections in SQLite's multi-thread mode (`SQLITE_OPEN_NOMUTEX`,
// SQLite built thread-safe): a connection and its statements may be used from any thread, one
// thread at a time, which `&mut Direct` ensures (the same reasoning as sqlx's own handles).
unsafe impl Send for Direct {}

/// A prepared statement, and what its text says about its values and its rows.
struct Statement {
    raw: NonNull<ffi::sqlite3_stmt>,
    /// For each of SQLite's parameters, in its order, the index of its value: `$n` is value
    /// `n - 1` (a text may name `$2` before `$1`, or `$1` twice).
    values: Box<[usize]>,
    names: Arc<[Box<str>]>,
}

impl Drop for Statement {
    fn drop(&mut self) {
        // SAFETY: `raw` was prepared on the lent connection, which is still lent (statements
        // are dropped with their `Direct`, inside `lend`), and is finalized once, here.
        unsafe {
            ffi::sqlite3_finalize(self.raw.as_ptr());
        }
    }
}

impl Direct {
    /// Lends `handle`'s connection to `work` for as long as it runs. Everything prepared on it
    /// is finalized before this returns, while the handle is still held.
    pub(super) async fn lend<R>(
        handle: &mut LockedSqliteHandle<'_>,
        work: impl AsyncFnOnce(&mut Direct) -> R,
    ) -> R {
        let mut direct = Direct {
            db: handle.as_raw_handle(),
            statements: HashMap::new(),
            wal_frames: None,
        };
        let done = work(&mut direct).await;
        if direct.wal_frames.is_some() {
            // SAFETY: the lent connection, still lent; the hook goes before the count it
            // writes to (dropped with `direct`), and the connection's own checkpoints come
            // back for whoever uses it next.
            unsafe {
                ffi::sqlite3_wal_hook(direct.db.as_ptr(), None, std::ptr::null_mut());
                ffi::sqlite3_wal_autocheckpoint(direct.db.as_ptr(), 1000);
            }
        }
        done
    }

    /// From now on the connection counts the write-ahead log's frames at each commit
    /// ([`Direct::wal_frames`]) instead of checkpointing it itself: its owner decides when a
    /// checkpoint runs, and where.
    pub(super) fn watch_wal(&mut self) {
        let frames = self.wal_frames.insert(Box::new(0));
        let count: *mut c_int = &mut **frames;
        // SAFETY: the lent connection; `count` points into a box this `Direct` owns, which
        // stays put and alive until `lend` removes the hook (SQLite calls it only on this
        // thread, inside a commit made through `&mut self`). Setting a hook replaces the
        // automatic checkpoints.
        unsafe {
            ffi::sqlite3_wal_hook(self.db.as_ptr(), Some(count_frames), count.cast());
        }
    }

    /// The frames in the write-ahead log after the last commit (0 before [`Direct::watch_wal`]).
    pub(super) fn wal_frames(&self) -> c_int {
        self.wal_frames.as_deref().copied().unwrap_or(0)
    }

    /// Runs one statement with its values; its rows, if any, are dropped.
    pub(super) fn execute(&mut self, sql: &str, values: &[Param]) -> Result<(), sqlx::Error> {
        self.run(sql, values, |_| {})
    }

    /// Runs one statement with its values and returns its rows.
    pub(super) fn fetch_all(
        &mut self,
        sql: &str,
        values: &[Param],
    ) -> Result<Vec<DirectRow>, sqlx::Error> {
        let mut rows = Vec::new();
        self.run(sql, values, |row| rows.push(row))?;
        Ok(rows)
    }

    fn run(
        &mut self,
        sql: &str,
        values: &[Param],
        mut each: impl FnMut(DirectRow),
    ) -> Result<(), sqlx::Error> {
        if !self.statements.contains_key(sql) {
            let statement = self.prepare(sql)?;
            if self.statements.len() >= KEPT {
                self.statements.clear();
            }
            self.statements.insert(sql.to_owned(), statement);
        }
        let db = self.db;
        let statement = &self.statements[sql];
        // Reset and unbound however this ends, ready for the next run.
        let running = Running(statement);
        for (i, &index) in statement.values.iter().enumerate() {
            let value = values.get(index).ok_or_else(|| {
                sqlx::Error::Protocol(format!("statement {sql:?} wants value ${}", index + 1))
            })?;
            if running.bind(i as c_int + 1, value) != ffi::SQLITE_OK {
                return Err(last_error(db));
            }
        }
        loop {
            match running.step() {
                ffi::SQLITE_ROW => each(running.row()),
                ffi::SQLITE_DONE => return Ok(()),
                _ => return Err(last_error(db)),
            }
        }
    }

    fn prepare(&mut self, sql: &str) -> Result<Statement, sqlx::Error> {
        let length = c_int::try_from(sql.len())
            .map_err(|_| sqlx::Error::Protocol("a statement longer than 2 GB".into()))?;
        let mut raw = std::ptr::null_mut();
        let mut tail = std::ptr::null();
        // SAFETY: `db` is the lent connection (module comment); `sql` is valid for `length`
        // bytes during the call (SQLite copies what it keeps); `raw` and `tail` are out-pointers
        // to locals.
        let code = unsafe {
            ffi::sqlite3_prepare_v3(
                self.db.as_ptr(),
                sql.as_ptr().cast(),
                length,
                ffi::SQLITE_PREPARE_PERSISTENT,
                &mut raw,
                &mut tail,
            )
        };
        if code != ffi::SQLITE_OK {
            return Err(last_error(self.db));
        }
        let Some(raw) = NonNull::new(raw) else {
            return Err(sqlx::Error::Protocol(format!("{sql:?} holds no statement")));
        };
        // Owned from here: finalized on any early return.
        let mut statement = Statement {
            raw,
            values: Box::default(),
            names: Arc::from(Vec::new()),
        };
        // `tail` points into `sql`, past the first statement: one statement per text, so that
        // a statement's values and rows are never taken for another's.
        let used = (tail as usize).saturating_sub(sql.as_ptr() as usize);
        let rest = sql.get(used..).unwrap_or_default();
        if !rest
            .trim_matches(|c: char| c.is_whitespace() || c == ';')
            .is_empty()
        {
            return Err(sqlx::Error::Protocol(format!(
                "{sql:?} holds more than one statement"
            )));
        }
        let raw = statement.raw.as_ptr();
        // SAFETY (this block and the `unsafe` calls in the two loops below): `raw` is a live
        // statement of the lent connection; `i` is one of its parameters or columns; the names
        // SQLite returns are NUL-terminated, valid until the statement is finalized, and are
        // copied before then.
        let (parameters, columns) = unsafe {
            (
                ffi::sqlite3_bind_parameter_count(raw),
                ffi::sqlite3_column_count(raw),
            )
        };
        let mut values = Vec::with_capacity(parameters as usize);
        for i in 1..=parameters {
            let name = unsafe { ffi::sqlite3_bind_parameter_name(raw, i) };
            let index = if name.is_null() {
                // `?`: the next value.
                Some(i as usize)
            } else {
                let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
                name.strip_prefix(['$', '?'])
                    .and_then(|n| n.parse::<usize>().ok())
                    .filter(|n| *n > 0)
            };
            let index = index.ok_or_else(|| {
                sqlx::Error::Protocol(format!("{sql:?}: only $n and ? placeholders are bound"))
            })?;
            values.push(index - 1);
        }
        let mut names = Vec::with_capacity(columns as usize);
        for i in 0..columns {
            let name = unsafe { ffi::sqlite3_column_name(raw, i) };
            if name.is_null() {
                return Err(sqlx::Error::Protocol("SQLite is out of memory".into()));
            }
            names.push(unsafe { CStr::from_ptr(name) }.to_string_lossy().into());
        }
        statement.values = values.into();
        statement.names = names.into();
        Ok(statement)
    }
}

/// The lent connection's last error, as sqlx reports SQLite's errors.
fn last_error(db: NonNull<ffi::sqlite3>) -> sqlx::Error {
    // SAFETY: `db` is the lent connection; the message is NUL-terminated and valid until the
    // next call on the connection, and is copied before then.
    let (code, message) = unsafe {
        let code = ffi::sqlite3_extended_errcode(db.as_ptr());
        let message = ffi::sqlite3_errmsg(db.as_ptr());
        let message = if message.is_null() {
            String::from("(no message)")
        } else {
            CStr::from_ptr(message).to_string_lossy().into_owned()
        };
        (code, message)
    };
    sqlx::Error::Database(Box::new(SqliteFailure { code, message }))
}

/// An error SQLite returned, read as sqlx's own SQLite error reads (same text, code and kind),
/// so `writes::translate` and the API map it as they map sqlx's.
#[derive(Debug)]
pub(super) struct SqliteFailure {
    /// The extended result code.
    code: c_int,
    message: String,
}

impl std::fmt::Display for SqliteFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "(code: {}) {}", self.code, self.message)
    }
}

impl std::error::Error for SqliteFailure {}

impl DatabaseError for SqliteFailure {
    fn message(&self) -> &str {
        &self.message
    }

    fn code(&self) -> Option<std::borrow::Cow<'_, str>> {
        Some(self.code.to_string().into())
    }

    fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
        self
    }

    fn kind(&self) -> ErrorKind {
        match self.code {
            ffi::SQLITE_CONSTRAINT_UNIQUE | ffi::SQLITE_CONSTRAINT_PRIMARYKEY => {
                ErrorKind::UniqueViolation
            }
            ffi::SQLITE_CONSTRAINT_FOREIGNKEY => ErrorKind::ForeignKeyViolation,
            ffi::SQLITE_CONSTRAINT_NOTNULL => ErrorKind::NotNullViolation,
            ffi::SQLITE_CONSTRAINT_CHECK => ErrorKind::CheckViolation,
            _ => ErrorKind::Other,
        }
    }
}

/// A statement being run: reset, and its values unbound, when dropped.
struct Running<'s>(&'s Statement);

impl Running<'_> {
    fn raw(&self) -> *mut ffi::sqlite3_stmt {
        self.0.raw.as_ptr()
    }

    fn bind(&self, i: c_int, value: &Param) -> c_int {
        let text = |text: &str| {
            // SAFETY: a live statement of the lent connection; SQLITE_TRANSIENT makes SQLite
            // copy the text before returning, so `text` need only live for the call.
            unsafe {
                ffi::sqlite3_bind_text64(
                    self.raw(),
                    i,
                    text.as_ptr().cast(),
                    text.len() as u64,
                    ffi::SQLITE_TRANSIENT(),
                    ffi::SQLITE_UTF8 as u8,
                )
            }
        };
        // SAFETY: a live statement of the lent connection; `i` is one of its parameters.
        let int = |v: i64| unsafe { ffi::sqlite3_bind_int64(self.raw(), i, v) };
        let null = || unsafe { ffi::sqlite3_bind_null(self.raw(), i) };
        let real = |v: f64| unsafe { ffi::sqlite3_bind_double(self.raw(), i, v) };
        // As sqlx binds them: a time is its RFC 3339 text (sqlx-sqlite's `Encode`).
        let time = |at: &chrono::DateTime<chrono::Utc>| {
            text(&at.to_rfc3339_opts(SecondsFormat::AutoSi, false))
        };
        match value {
            Param::Text(v) => text(v),
            Param::Int(v) => int(*v),
            Param::Real(v) => real(*v),
            Param::Time(v) => time(v),
            Param::OptText(v) => v.as_deref().map_or_else(null, text),
            Param::OptInt(v) => v.map_or_else(null, int),
            Param::OptTime(v) => v.as_ref().map_or_else(null, time),
            // SAFETY: as for a text: SQLite copies the bytes before returning.
            Param::Bytes(v) => unsafe {
                ffi::sqlite3_bind_blob64(
                    self.raw(),
                    i,
                    v.as_ptr().cast(),
                    v.len() as u64,
                    ffi::SQLITE_TRANSIENT(),
                )
            },
        }
    }

    fn step(&self) -> c_int {
        // SAFETY: a live statement of the lent connection, its values bound.
        unsafe { ffi::sqlite3_step(self.raw()) }
    }

    /// The row the last step stopped at.
    fn row(&self) -> DirectRow {
        let raw = self.raw();
        let values = (0..self.0.names.len() as c_int)
            .map(|i| {
                // SAFETY: the statement stands on a row and `i` is one of its columns; a text
                // or blob is copied before the next step.
                unsafe {
                    match ffi::sqlite3_column_type(raw, i) {
                        ffi::SQLITE_INTEGER => Value::Int(ffi::sqlite3_column_int64(raw, i)),
                        ffi::SQLITE_FLOAT => Value::Real(ffi::sqlite3_column_double(raw, i)),
                        ffi::SQLITE_TEXT => {
                            let text = bytes(raw, i, ffi::sqlite3_column_text(raw, i));
                            Value::Text(String::from_utf8_lossy(text).into_owned())
                        }
                        ffi::SQLITE_BLOB => Value::Blob(
                            bytes(raw, i, ffi::sqlite3_column_blob(raw, i).cast()).to_vec(),
                        ),
                        _ => Value::Null,
                    }
                }
            })
            .collect();
        DirectRow::new(self.0.names.clone(), values)
    }
}

/// The bytes of column `i`'s text or blob, which start at `start`.
///
/// # Safety
/// `raw` stands on a row, `start` is what `sqlite3_column_text` or `_blob` just returned for
/// column `i`, and the bytes are used before the next step or reset of `raw`.
unsafe fn bytes<'r>(raw: *mut ffi::sqlite3_stmt, i: c_int, start: *const u8) -> &'r [u8] {
    // SAFETY: as the caller promises; the length is read after the pointer (SQLite's documented
    // order), and an empty value's pointer may be null.
    unsafe {
        let length = ffi::sqlite3_column_bytes(raw, i) as usize;
        if start.is_null() {
            &[]
        } else {
            std::slice::from_raw_parts(start, length)
        }
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        // SAFETY: a live statement of the lent connection. Reset returns the last step's
        // error again, which was read already.
        unsafe {
            ffi::sqlite3_reset(self.raw());
            ffi::sqlite3_clear_bindings(self.raw());
        }
    }
}

/// SQLite's WAL hook: keeps the log's frame count where [`Direct::watch_wal`] points it.
unsafe extern "C" fn count_frames(
    count: *mut std::ffi::c_void,
    _: *mut ffi::sqlite3,
    _: *const std::ffi::c_char,
    frames: c_int,
) -> c_int {
    // SAFETY: `count` is the box registered by `watch_wal`, alive while the hook is.
    unsafe { *count.cast::<c_int>() = frames };
    ffi::SQLITE_OK
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Utc};
    use sqlx::Connection;
    use sqlx::sqlite::SqliteConnection;

    use super::*;
    use crate::store::StoreError;
    use crate::store::writes::translate;

    async fn connection() -> SqliteConnection {
        let mut conn = SqliteConnection::connect("sqlite::memory:").await.unwrap();
        sqlx::raw_sql(
            "CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, game_id TEXT NOT NULL, \
             seq INTEGER NOT NULL, recorded_at TEXT NOT NULL, recorded_by TEXT, \
             CONSTRAINT events_game_seq_key UNIQUE (game_id, seq))",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        conn
    }

    #[tokio::test]
    async fn a_statements_rows_are_read_back_by_name_with_its_values_bound_by_number() {
        let mut conn = connection().await;
        let at = DateTime::parse_from_rfc3339("2026-12-04T03:30:00.5Z")
            .unwrap()
            .to_utc();
        let mut handle = conn.lock_handle().await.unwrap();

        let rows = Direct::lend(&mut handle, async |db| {
            // `$2` before `$1`, and `$1` twice: values go by number, not by order.
            db.execute(
                "INSERT INTO events (seq, game_id, recorded_at, recorded_by) VALUES ($2, $1, $3, $4)",
                &[Param::from("g1"), Param::Int(1), Param::Time(at), Param::OptText(None)],
            )?;
            db.fetch_all(
                "SELECT position, seq, recorded_at, recorded_by FROM events \
                 WHERE game_id = $1 AND game_id = $1 AND seq >= $2",
                &[Param::from("g1"), Param::Int(1)],
            )
        })
        .await
        .unwrap();
        drop(handle);

        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].try_get::<i64, _>("position").unwrap(), 1);
        assert_eq!(rows[0].try_get::<i64, _>("seq").unwrap(), 1);
        assert_eq!(
            rows[0].try_get::<DateTime<Utc>, _>("recorded_at").unwrap(),
            at
        );
        assert_eq!(
            rows[0].try_get::<Option<String>, _>("recorded_by").unwrap(),
            None
        );
        // What was written directly, sqlx reads as it reads its own writes.
        let (by_sqlx,): (DateTime<Utc>,) = sqlx::query_as("SELECT recorded_at FROM events")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(by_sqlx, at);
    }

    #[tokio::test]
    async fn a_unique_violation_is_translated_as_a_raced_append() {
        let mut conn = connection().await;
        let mut handle = conn.lock_handle().await.unwrap();
        let insert = "INSERT INTO events (game_id, seq, recorded_at) VALUES ($1, $2, $3)";
        let seq = |seq| [Param::from("g1"), Param::Int(seq), Param::Time(Utc::now())];

        let (again, after) = Direct::lend(&mut handle, async |db| {
            db.execute(insert, &seq(2)).unwrap();
            let again = db.execute(insert, &seq(2));
            // The statement was reset: it runs again with other values.
            (again, db.execute(insert, &seq(3)))
        })
        .await;

        let again = again.unwrap_err();
        assert!(
            matches!(&again, sqlx::Error::Database(e) if e.is_unique_violation()),
            "{again:?}"
        );
        let translated = translate(again);
        assert!(
            matches!(&translated, StoreError::Conflict(_))
                && format!("{translated:?}").contains("server.api.append.raced"),
            "{translated:?}"
        );
        assert!(after.is_ok());
    }

    #[tokio::test]
    async fn a_text_of_two_statements_is_refused() {
        let mut conn = connection().await;
        let mut handle = conn.lock_handle().await.unwrap();

        let (two, one) = Direct::lend(&mut handle, async |db| {
            (
                db.execute("SELECT 1; SELECT 2", &[]),
                db.execute("SELECT 1;", &[]),
            )
        })
        .await;

        assert!(matches!(two, Err(sqlx::Error::Protocol(why)) if why.contains("more than one")));
        assert!(one.is_ok());
    }
}
