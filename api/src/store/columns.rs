//! A row's columns read by name, whichever way it was read: from sqlx (the pools, PostgreSQL's
//! writes) or directly on SQLite's writer's thread ([`super::direct`]). The decoding of a game,
//! an event or a bucket is written once, against [`Columns`], for both.

use std::sync::Arc;

use chrono::{DateTime, FixedOffset, NaiveDateTime, Offset, TimeZone, Utc};
use sqlx::{Postgres, Sqlite};

/// A value as SQLite stored it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// A row read on SQLite's writer's thread: its values, owned, and its statement's column names.
#[derive(Debug, Clone)]
pub(super) struct DirectRow {
    names: Arc<[Box<str>]>,
    values: Vec<Value>,
}

impl DirectRow {
    pub(super) fn new(names: Arc<[Box<str>]>, values: Vec<Value>) -> Self {
        Self { names, values }
    }

    /// The value of column `name` as a `T`; the errors are sqlx's, as for a row of sqlx's.
    pub(super) fn try_get<T: Column, I: AsRef<str>>(&self, name: I) -> Result<T, sqlx::Error> {
        let name = name.as_ref();
        let index = self
            .names
            .iter()
            .position(|n| &**n == name)
            .ok_or_else(|| sqlx::Error::ColumnNotFound(name.to_owned()))?;
        let value = &self.values[index];
        T::from_value(value).ok_or_else(|| sqlx::Error::ColumnDecode {
            index: name.to_owned(),
            source: format!("{value:?} is not a {}", std::any::type_name::<T>()).into(),
        })
    }
}

/// A type a column is read as, on every backend.
pub(super) trait Column:
    Sized
    + for<'r> sqlx::Decode<'r, Sqlite>
    + sqlx::Type<Sqlite>
    + for<'r> sqlx::Decode<'r, Postgres>
    + sqlx::Type<Postgres>
{
    /// The value as this type; `None` when it holds another.
    fn from_value(value: &Value) -> Option<Self>;
}

impl Column for i64 {
    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }
}

impl Column for f64 {
    /// SQLite may hand a whole REAL back as an integer.
    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Real(v) => Some(*v),
            Value::Int(v) => Some(*v as f64),
            _ => None,
        }
    }
}

impl Column for String {
    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Text(v) => Some(v.clone()),
            _ => None,
        }
    }
}

impl Column for Vec<u8> {
    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Blob(v) => Some(v.clone()),
            _ => None,
        }
    }
}

impl Column for DateTime<Utc> {
    /// As sqlx reads SQLite's times: the text sqlx writes (RFC 3339), SQLite's own formats,
    /// Unix seconds or a Julian day.
    fn from_value(value: &Value) -> Option<Self> {
        let at = match value {
            Value::Text(text) => time_from_text(text),
            Value::Int(seconds) => Utc.fix().timestamp_opt(*seconds, 0).single(),
            Value::Real(day) => time_from_julian_day(*day),
            _ => None,
        };
        at.map(|at| at.with_timezone(&Utc))
    }
}

impl<T: Column> Column for Option<T> {
    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Null => Some(None),
            value => T::from_value(value).map(Some),
        }
    }
}

fn time_from_text(text: &str) -> Option<DateTime<FixedOffset>> {
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Some(at);
    }
    // sqlx-sqlite's list, in its order (its `decode_datetime_from_text`).
    const FORMATS: [&str; 12] = [
        "%F %T%.f",
        "%F %R",
        "%F %RZ",
        "%F %R%:z",
        "%F %T%.fZ",
        "%F %T%.f%:z",
        "%FT%R",
        "%FT%RZ",
        "%FT%R%:z",
        "%FT%T%.f",
        "%FT%T%.fZ",
        "%FT%T%.f%:z",
    ];
    FORMATS.iter().find_map(|format| {
        DateTime::parse_from_str(text, format).ok().or_else(|| {
            NaiveDateTime::parse_from_str(text, format)
                .ok()
                .map(|at| Utc.fix().from_utc_datetime(&at))
        })
    })
}

fn time_from_julian_day(day: f64) -> Option<DateTime<FixedOffset>> {
    let seconds = (day - 2_440_587.5) * 86_400.0;
    if !seconds.is_finite() {
        return None;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let (whole, nanos) = (seconds.trunc() as i64, (seconds.fract() * 1e9).abs() as u32);
    Utc.fix().timestamp_opt(whole, nanos).single()
}

/// A row whose columns are read by name. Decoders written against it serve every backend;
/// inside them `row.try_get` is this trait's (it is not imported where sqlx's `Row` is, so a
/// concrete sqlx row keeps sqlx's own).
pub(super) trait Columns {
    fn try_get<T: Column, I: AsRef<str>>(&self, name: I) -> Result<T, sqlx::Error>;
}

impl Columns for DirectRow {
    fn try_get<T: Column, I: AsRef<str>>(&self, name: I) -> Result<T, sqlx::Error> {
        DirectRow::try_get(self, name)
    }
}

impl Columns for sqlx::sqlite::SqliteRow {
    fn try_get<T: Column, I: AsRef<str>>(&self, name: I) -> Result<T, sqlx::Error> {
        sqlx::Row::try_get(self, name.as_ref())
    }
}

impl Columns for sqlx::postgres::PgRow {
    fn try_get<T: Column, I: AsRef<str>>(&self, name: I) -> Result<T, sqlx::Error> {
        sqlx::Row::try_get(self, name.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(values: Vec<(&str, Value)>) -> DirectRow {
        let names: Vec<Box<str>> = values.iter().map(|(n, _)| (*n).into()).collect();
        DirectRow::new(names.into(), values.into_iter().map(|(_, v)| v).collect())
    }

    #[test]
    fn a_direct_row_reads_its_columns_by_name_as_sqlx_would() {
        let event = row(vec![
            ("seq", Value::Int(3)),
            ("type", Value::Text("round_scored".into())),
            ("recorded_by", Value::Null),
            (
                "recorded_at",
                Value::Text("2026-12-04T03:20:00.250+00:00".into()),
            ),
            ("old_time", Value::Text("2026-12-04 03:20:00".into())),
        ]);

        assert_eq!(event.try_get::<i64, _>("seq").ok(), Some(3));
        assert_eq!(
            event.try_get::<String, _>("type").ok().as_deref(),
            Some("round_scored")
        );
        assert_eq!(
            event.try_get::<Option<String>, _>("recorded_by").ok(),
            Some(None)
        );
        let at: DateTime<Utc> = event.try_get("recorded_at").unwrap();
        assert_eq!(at.to_rfc3339(), "2026-12-04T03:20:00.250+00:00");
        let old: DateTime<Utc> = event.try_get("old_time").unwrap();
        assert_eq!(old.to_rfc3339(), "2026-12-04T03:20:00+00:00");
    }

    #[test]
    fn a_missing_column_or_a_value_of_another_type_is_sqlxs_error() {
        let game = row(vec![("version", Value::Text("two".into()))]);

        assert!(matches!(
            game.try_get::<i64, _>("status"),
            Err(sqlx::Error::ColumnNotFound(name)) if name == "status"
        ));
        assert!(matches!(
            game.try_get::<i64, _>("version"),
            Err(sqlx::Error::ColumnDecode { index, .. }) if index == "version"
        ));
    }
}
