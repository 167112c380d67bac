//! A statement and its values, run on a pool or in a transaction of either backend:
//! `query(SQL).bind(a).bind(b).fetch_optional(store.pool())`, as with sqlx's own `query`, but
//! written once for both databases (the values are [`Param`]s, bound by the backend).

use std::borrow::Cow;
use std::future::Future;

use sqlx::Database;

use super::backend::Backend;
use super::lists::Param;

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
