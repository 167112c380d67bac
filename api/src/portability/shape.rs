//! What a line of an export must be, said in the file's words when it is not. The JSON
//! parser's own messages name our Rust types ("expected struct ImportSummary") and parser
//! states ("expected ident"); a person mending a file needs the field and what belongs there.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use tabletally_domain::{Message, said};

use crate::extract::json_with_unique_keys;

/// A line read as one JSON object, or why not, in words.
pub(super) fn object(line: &str) -> Result<Map<String, Value>, Message> {
    match json_with_unique_keys(line) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(said!(
            "server.api.import.line.not_an_object",
            found = describe(&other)
        )),
        Err(e) => Err(match e.classify() {
            serde_json::error::Category::Eof => {
                said!("server.api.import.line.ends_early", column = e.column())
            }
            // A key named twice: the key as the reader quotes it.
            _ => match e.to_string().split_once(" appears twice") {
                Some((key, _)) if e.classify() == serde_json::error::Category::Data => said!(
                    "server.api.import.line.key_twice",
                    key = key,
                    column = e.column()
                ),
                _ => said!("server.api.import.line.not_json", column = e.column()),
            },
        }),
    }
}

/// A value as a person reading the file would call it.
pub(super) fn describe(value: &Value) -> Message {
    match value {
        Value::Null => Message::data("null"),
        Value::Bool(b) => Message::data(b.to_string()),
        Value::Number(n) => said!("server.api.import.value.number", number = n.to_string()),
        Value::String(s) if s.chars().count() > 40 => said!(
            "server.api.import.value.text_cut",
            text = format!("{:?}", s.chars().take(40).collect::<String>())
        ),
        Value::String(s) => said!("server.api.import.value.text", text = format!("{s:?}")),
        Value::Array(_) => said!("server.api.import.value.list"),
        Value::Object(_) => said!("server.api.import.value.object"),
    }
}

/// One object of a line, read field by field; `whose` names it in messages ("the line",
/// "event 3"), `what` says what belongs in a field.
pub(super) struct Fields<'a> {
    map: &'a Map<String, Value>,
    whose: Message,
}

impl<'a> Fields<'a> {
    pub(super) fn new(map: &'a Map<String, Value>, whose: Message) -> Self {
        Self { map, whose }
    }

    /// The value as given, `null` when absent.
    pub(super) fn map_get(&self, key: &str) -> Value {
        self.map.get(key).cloned().unwrap_or(Value::Null)
    }

    /// Absent and `null` alike: not given.
    fn given(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn missing(&self, key: &str, what: Message) -> Message {
        said!(
            "server.api.import.field.missing",
            whose = self.whose.clone(),
            key = format!("{key:?}"),
            what = what
        )
    }

    fn wrong(&self, key: &str, what: Message, found: &Value) -> Message {
        said!(
            "server.api.import.field.wrong",
            whose = self.whose.clone(),
            key = format!("{key:?}"),
            what = what,
            found = describe(found)
        )
    }

    fn required(&self, key: &str, what: &Message) -> Result<&'a Value, Message> {
        self.given(key)
            .ok_or_else(|| self.missing(key, what.clone()))
    }

    pub(super) fn object(
        &self,
        key: &str,
        what: Message,
        whose: Message,
    ) -> Result<Fields<'a>, Message> {
        match self.required(key, &what)? {
            Value::Object(map) => Ok(Fields::new(map, whose)),
            other => Err(self.wrong(key, what, other)),
        }
    }

    /// An object, as it is.
    pub(super) fn object_value(&self, key: &str, what: Message) -> Result<&'a Value, Message> {
        match self.required(key, &what)? {
            object @ Value::Object(_) => Ok(object),
            other => Err(self.wrong(key, what, other)),
        }
    }

    pub(super) fn list(&self, key: &str, what: Message) -> Result<&'a [Value], Message> {
        match self.required(key, &what)? {
            Value::Array(items) => Ok(items),
            other => Err(self.wrong(key, what, other)),
        }
    }

    pub(super) fn optional_list(&self, key: &str, what: Message) -> Result<&'a [Value], Message> {
        match self.given(key) {
            None => Ok(&[]),
            Some(_) => self.list(key, what),
        }
    }

    pub(super) fn text(&self, key: &str, what: Message) -> Result<&'a str, Message> {
        match self.required(key, &what)? {
            Value::String(s) => Ok(s),
            other => Err(self.wrong(key, what, other)),
        }
    }

    pub(super) fn optional_text(
        &self,
        key: &str,
        what: Message,
    ) -> Result<Option<&'a str>, Message> {
        self.given(key).map(|_| self.text(key, what)).transpose()
    }

    pub(super) fn integer(&self, key: &str, what: Message) -> Result<i64, Message> {
        let value = self.required(key, &what)?;
        value.as_i64().ok_or_else(|| self.wrong(key, what, value))
    }

    pub(super) fn optional_integer(
        &self,
        key: &str,
        what: Message,
    ) -> Result<Option<i64>, Message> {
        self.given(key).map(|_| self.integer(key, what)).transpose()
    }

    pub(super) fn time(&self, key: &str, what: Message) -> Result<DateTime<Utc>, Message> {
        let what = said!("server.api.import.what.a_time", what = what);
        let value = self.required(key, &what)?;
        value
            .as_str()
            .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
            .map(|t| t.with_timezone(&Utc))
            .ok_or_else(|| self.wrong(key, what, value))
    }

    pub(super) fn optional_time(
        &self,
        key: &str,
        what: Message,
    ) -> Result<Option<DateTime<Utc>>, Message> {
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
                .english()
                .starts_with("the line ends before its JSON does (at column 11): ")
        );
    }

    #[test]
    fn a_time_that_is_not_one_names_the_field() {
        let map = serde_json::json!({"recorded_at": "yesterday"});
        let event = Fields::new(
            map.as_object().unwrap(),
            said!("server.api.import.whose.event", n = 3),
        );
        assert_eq!(
            event
                .time("recorded_at", said!("server.api.import.what.recorded_at"))
                .unwrap_err(),
            "event 3's \"recorded_at\" must be when it was recorded, a time such as \
             \"2026-12-01T20:00:00Z\", not the text \"yesterday\""
        );
    }
}
