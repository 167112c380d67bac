//! What a line of an export must be, said in the file's words when it is not. The JSON
//! parser's own messages name our Rust types ("expected struct ImportSummary") and parser
//! states ("expected ident"); a person mending a file needs the field and what belongs there.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::extract::json_with_unique_keys;

/// The line kinds an import reads, as a file names them.
pub(super) const KINDS: &str =
    "\"tabletally.player/1\", \"tabletally.preset/1\" or \"tabletally.game/1\"";

/// What a time in a file looks like.
const TIME: &str = "a time such as \"2026-12-01T20:00:00Z\"";

/// A line read as one JSON object, or why not, in words.
pub(super) fn object(line: &str) -> Result<Map<String, Value>, String> {
    let what = format!("each line must be one JSON object whose \"format\" is {KINDS}");
    match json_with_unique_keys(line) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(format!("{what}, not {}", describe(&other))),
        Err(e) => Err(match e.classify() {
            serde_json::error::Category::Eof => format!(
                "the line ends before its JSON does (at column {}): {what}, on one line",
                e.column()
            ),
            // A key named twice: the reader's own words, without its position.
            serde_json::error::Category::Data => {
                let message = e.to_string();
                let cut = message.rfind(" at line ").unwrap_or(message.len());
                format!("{} (at column {})", &message[..cut], e.column())
            }
            _ => format!(
                "the line is not JSON (it goes wrong at column {}): {what}",
                e.column()
            ),
        }),
    }
}

/// A value as a person reading the file would call it.
pub(super) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() > 40 => {
            format!("the text {:?}…", s.chars().take(40).collect::<String>())
        }
        Value::String(s) => format!("the text {s:?}"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// One object of a line, read field by field; `whose` names it in messages ("the line",
/// "event 3").
pub(super) struct Fields<'a> {
    map: &'a Map<String, Value>,
    whose: String,
}

impl<'a> Fields<'a> {
    pub(super) fn new(map: &'a Map<String, Value>, whose: impl Into<String>) -> Self {
        Self {
            map,
            whose: whose.into(),
        }
    }

    /// The value as given, `null` when absent.
    pub(super) fn map_get(&self, key: &str) -> Value {
        self.map.get(key).cloned().unwrap_or(Value::Null)
    }

    /// Absent and `null` alike: not given.
    fn given(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn missing(&self, key: &str, what: &str) -> String {
        format!("{} has no {key:?}: it must be {what}", self.whose)
    }

    fn wrong(&self, key: &str, what: &str, found: &Value) -> String {
        format!(
            "{}'s {key:?} must be {what}, not {}",
            self.whose,
            describe(found)
        )
    }

    fn required(&self, key: &str, what: &str) -> Result<&'a Value, String> {
        self.given(key).ok_or_else(|| self.missing(key, what))
    }

    pub(super) fn object(&self, key: &str, what: &str, whose: &str) -> Result<Fields<'a>, String> {
        match self.required(key, what)? {
            Value::Object(map) => Ok(Fields::new(map, whose)),
            other => Err(self.wrong(key, what, other)),
        }
    }

    /// An object, as it is.
    pub(super) fn object_value(&self, key: &str, what: &str) -> Result<&'a Value, String> {
        match self.required(key, what)? {
            object @ Value::Object(_) => Ok(object),
            other => Err(self.wrong(key, what, other)),
        }
    }

    pub(super) fn list(&self, key: &str, what: &str) -> Result<&'a [Value], String> {
        match self.required(key, what)? {
            Value::Array(items) => Ok(items),
            other => Err(self.wrong(key, what, other)),
        }
    }

    pub(super) fn optional_list(&self, key: &str, what: &str) -> Result<&'a [Value], String> {
        match self.given(key) {
            None => Ok(&[]),
            Some(_) => self.list(key, what),
        }
    }

    pub(super) fn text(&self, key: &str, what: &str) -> Result<&'a str, String> {
        match self.required(key, what)? {
            Value::String(s) => Ok(s),
            other => Err(self.wrong(key, what, other)),
        }
    }

    pub(super) fn optional_text(&self, key: &str, what: &str) -> Result<Option<&'a str>, String> {
        self.given(key).map(|_| self.text(key, what)).transpose()
    }

    pub(super) fn integer(&self, key: &str, what: &str) -> Result<i64, String> {
        let value = self.required(key, what)?;
        value.as_i64().ok_or_else(|| self.wrong(key, what, value))
    }

    pub(super) fn optional_integer(&self, key: &str, what: &str) -> Result<Option<i64>, String> {
        self.given(key).map(|_| self.integer(key, what)).transpose()
    }

    pub(super) fn time(&self, key: &str, what: &str) -> Result<DateTime<Utc>, String> {
        let what = format!("{what}, {TIME}");
        let value = self.required(key, &what)?;
        value
            .as_str()
            .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
            .map(|t| t.with_timezone(&Utc))
            .ok_or_else(|| self.wrong(key, &what, value))
    }

    pub(super) fn optional_time(
        &self,
        key: &str,
        what: &str,
    ) -> Result<Option<DateTime<Utc>>, String> {
        self.given(key).map(|_| self.time(key, what)).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_is_not_a_line() {
        assert_eq!(
            object("3").unwrap_err(),
            "each line must be one JSON object whose \"format\" is \"tabletally.player/1\", \
             \"tabletally.preset/1\" or \"tabletally.game/1\", not the number 3"
        );
    }

    #[test]
    fn a_line_cut_short_says_where_it_ends() {
        assert!(
            object("{\"format\": ")
                .unwrap_err()
                .starts_with("the line ends before its JSON does (at column 11): ")
        );
    }

    #[test]
    fn a_time_that_is_not_one_names_the_field() {
        let map = serde_json::json!({"recorded_at": "yesterday"});
        let event = Fields::new(map.as_object().unwrap(), "event 3");
        assert_eq!(
            event
                .time("recorded_at", "when it was recorded")
                .unwrap_err(),
            "event 3's \"recorded_at\" must be when it was recorded, a time such as \
             \"2026-12-01T20:00:00Z\", not the text \"yesterday\""
        );
    }
}
