//! Reading a request's body, query and path, with refusals in players' words: which field
//! (`pointer` into the body, or the `parameter` of the query or path), what it must be, and
//! what was sent — never serde's or Rust's vocabulary (`expected i64 at line 1 column 24`).

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::error::PathError;
use actix_web::{FromRequest, HttpRequest, web};
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_path_to_error::{Path, Segment};
use tabletally_domain::words::{self, SerdeFault};
use tabletally_domain::{Message, said};

use crate::error::ApiError;

/// A JSON body. Bad JSON syntax → 400; the right syntax in the wrong shape → 422 naming the
/// field by its `pointer`. Size limit and content type as `web::Json` (its `JsonConfig`).
pub struct Json<T>(pub T);

impl<T> Json<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Json<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for Json<T> {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        // The syntax (and size, content type) first, as any JSON; then the shape, with a path.
        let value = web::Json::<UniqueKeys>::from_request(req, payload);
        Box::pin(async move {
            let UniqueKeys(value) = value.await?.into_inner();
            // Every body is an object; serde would also read a struct from an array (`[]`
            // as a share link with every default), which the document calls invalid.
            if !value.is_object() {
                return Err(ApiError::Unprocessable {
                    parameter: None,
                    detail: said!(
                        "server.problem.body_not_object",
                        got = match value {
                            Value::Array(_) => said!("server.words.got.list"),
                            Value::String(_) => said!("server.words.got.a_text"),
                            Value::Number(_) => said!("server.words.got.a_number"),
                            Value::Bool(_) => said!("server.words.expected.boolean"),
                            _ => Message::data("null"),
                        }
                    ),
                    pointer: Some(String::new()),
                    event_index: None,
                }
                .into());
            }
            serde_path_to_error::deserialize(value)
                .map(Json)
                .map_err(|e| body_error(&e.path().clone(), &e.into_inner().to_string()).into())
        })
    }
}

/// Reads JSON text as a body is read: refused when one object names a key twice.
pub fn json_with_unique_keys(text: &str) -> serde_json::Result<Value> {
    serde_json::from_str::<UniqueKeys>(text).map(|UniqueKeys(value)| value)
}

/// Any JSON value, refused when one object names a key twice. `serde_json` would silently keep
/// the last: `{"Ann": [..], "Ann": [..]}` would lose a collection and pass "every player once".
struct UniqueKeys(Value);

impl<'de> serde::Deserialize<'de> for UniqueKeys {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(UniqueKeysVisitor)
            .map(UniqueKeys)
    }
}

struct UniqueKeysVisitor;

impl<'de> serde::de::Visitor<'de> for UniqueKeysVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(UniqueKeys(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "{key:?} appears twice in one object; each key may appear once"
                )));
            }
            let UniqueKeys(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// A query string, read with the same words as a body.
pub struct Query<T>(pub T);

impl<T> Query<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Query<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned> FromRequest for Query<T> {
    type Error = actix_web::Error;
    type Future = std::future::Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let query = req.query_string();
        let pairs = form_urlencoded::parse(query.as_bytes());
        let read = serde_path_to_error::deserialize(serde_urlencoded::Deserializer::new(pairs))
            .map(Query)
            .map_err(|e| {
                let parameter = e.path().to_string();
                let sent = form_urlencoded::parse(query.as_bytes())
                    .find(|(k, _)| *k == parameter)
                    .map(|(_, v)| v.into_owned());
                query_error(&parameter, sent.as_deref(), &e.into_inner().to_string()).into()
            });
        std::future::ready(read)
    }
}

/// A body that does not have the expected shape: which field, what it must be, what came.
pub fn body_error(path: &Path, message: &str) -> ApiError {
    let mut pointer = pointer(path);
    let name = last_key(path);
    let subject = name.as_deref().map_or_else(
        || said!("server.words.the_body"),
        |n| Message::data(format!("{n:?}")),
    );
    let detail = match words::read(message) {
        SerdeFault::Missing(field) => {
            pointer = format!("{pointer}/{}", escape(field));
            said!("server.words.missing", field = format!("{field:?}"))
        }
        SerdeFault::Unknown { field, known } => {
            if name.as_deref() != Some(field) {
                pointer = format!("{pointer}/{}", escape(field));
            }
            said!(
                "server.words.not_a_field",
                field = format!("{field:?}"),
                known = known_names(&known)
            )
        }
        SerdeFault::Variant { sent, known } => said!(
            "server.words.refusal.must_be",
            subject = subject,
            expected = words::one_of_said(&known),
            got = format!("{sent:?}")
        ),
        SerdeFault::Value { got, expected } => said!(
            "server.words.refusal.must_be",
            subject = subject,
            expected = words::expected_said(expected),
            got = words::got_said(got)
        ),
        // A time, a number… that did not parse: what it must look like.
        SerdeFault::Other(message) => match parse_failure(message) {
            Some(expected) => said!(
                "server.words.must_be",
                subject = subject,
                expected = expected
            ),
            None => said!(
                "server.words.refusal.unreadable",
                subject = subject,
                why = message
            ),
        },
    };
    ApiError::Unprocessable {
        parameter: None,
        detail,
        pointer: Some(pointer),
        event_index: None,
    }
}

/// A query parameter that cannot be read, in the same words.
pub fn query_error(parameter: &str, sent: Option<&str>, message: &str) -> ApiError {
    // "; got …" after what it must be, when the value sent is known.
    let with_got = |detail: Message| match sent {
        Some(v) => said!(
            "server.words.with_got",
            detail = detail,
            got = format!("{v:?}")
        ),
        None => detail,
    };
    // A parameter missing or sent twice is named by the message, not by the path (".").
    let duplicate = message
        .strip_prefix("duplicate field `")
        .and_then(|rest| rest.split('`').next());
    if let Some(field) = duplicate {
        return ApiError::Unreadable {
            detail: said!("server.words.query.twice", field = format!("{field:?}")),
            pointer: None,
            parameter: Some(field.to_owned()),
        };
    }
    let subject = Message::data(format!("{parameter:?}"));
    let detail = match (words::read(message), parse_failure(message)) {
        (SerdeFault::Missing(field), _) => {
            return ApiError::Unreadable {
                detail: said!("server.words.query.required", field = format!("{field:?}")),
                pointer: None,
                parameter: Some(field.to_owned()),
            };
        }
        (SerdeFault::Unknown { field, known }, _) => said!(
            "server.words.query.not_a_parameter",
            field = format!("{field:?}"),
            known = known_parameters(&known)
        ),
        (SerdeFault::Variant { sent, known }, _) => said!(
            "server.words.refusal.must_be",
            subject = subject,
            expected = words::one_of_said(&known),
            got = format!("{sent:?}")
        ),
        (_, Some(expected)) => with_got(said!(
            "server.words.must_be",
            subject = subject,
            expected = expected
        )),
        (SerdeFault::Value { expected, .. }, None) => with_got(said!(
            "server.words.must_be",
            subject = subject,
            expected = words::expected_said(expected)
        )),
        _ => with_got(said!(
            "server.words.refusal.unreadable",
            subject = subject,
            why = message
        )),
    };
    ApiError::Unreadable {
        detail,
        pointer: None,
        parameter: Some(parameter.to_owned()),
    }
}

/// A path segment that is not an id (every typed path parameter is a UUID).
pub fn path_error(err: &PathError, req: &HttpRequest) -> ApiError {
    let pattern = req.match_pattern().unwrap_or_default();
    let bad = req
        .match_info()
        .iter()
        .find(|(_, value)| uuid::Uuid::parse_str(value).is_err());
    let Some((name, value)) = bad else {
        return ApiError::Unreadable {
            detail: tabletally_domain::said!(
                "server.api.request.path_unreadable",
                why = err.to_string()
            ),
            pointer: None,
            parameter: None,
        };
    };
    // `/v1/games/{id}` → a game id; `/v1/players/{id}` → a player id.
    let what = pattern
        .split('/')
        .take_while(|segment| *segment != format!("{{{name}}}"))
        .last()
        .map(|resource| resource.strip_suffix('s').unwrap_or(resource))
        .filter(|resource| !resource.is_empty())
        .map_or_else(
            || said!("server.words.path.an_id"),
            |resource| said!("server.words.path.a_resource_id", resource = resource),
        );
    ApiError::Unreadable {
        detail: said!(
            "server.words.path.not_uuid",
            name = format!("{name:?}"),
            what = what,
            got = format!("{value:?}")
        ),
        pointer: None,
        parameter: Some(name.to_owned()),
    }
}

/// RFC 6901: `/events/0/id`.
fn pointer(path: &Path) -> String {
    path.iter()
        .filter_map(|segment| match segment {
            Segment::Seq { index } => Some(format!("/{index}")),
            Segment::Map { key } => Some(format!("/{}", escape(key))),
            Segment::Enum { .. } | Segment::Unknown => None,
        })
        .collect()
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn last_key(path: &Path) -> Option<String> {
    path.iter().rev().find_map(|segment| match segment {
        Segment::Map { key } => Some(key.clone()),
        _ => None,
    })
}

fn known_names(known: &[&str]) -> Message {
    if known.is_empty() {
        said!("server.words.no_fields_here")
    } else {
        said!(
            "server.words.fields_are",
            fields = words::quoted(known).join(", ")
        )
    }
}

fn known_parameters(known: &[&str]) -> Message {
    if known.is_empty() {
        said!("server.words.no_parameters_here")
    } else {
        said!(
            "server.words.parameters_are",
            parameters = words::quoted(known).join(", ")
        )
    }
}

/// The parse errors of query values (numbers, booleans, times) name no type; say what is wanted.
fn parse_failure(message: &str) -> Option<Message> {
    let number = [
        "invalid digit found in string",
        "cannot parse integer from empty string",
        "number too large to fit in target type",
        "number too small to fit in target type",
    ];
    let time = [
        "input contains invalid characters",
        "premature end of input",
        "input is out of range",
        "trailing input",
        "input is not enough for unique date and time",
        "no possible date and time matching input",
        "bad or unsupported format string",
    ];
    if number.contains(&message) {
        Some(said!("server.words.expected.whole_number"))
    } else if message == "invalid float literal" {
        Some(said!("server.words.expected.number"))
    } else if message == "provided string was not `true` or `false`" {
        Some(said!("server.words.expected.boolean"))
    } else if time.contains(&message) {
        Some(said!("server.words.expected.date_time"))
    } else {
        None
    }
}

/// Why a body's bytes could not be read, in words (not the error's debug form).
pub fn payload_words(payload: &actix_web::error::PayloadError) -> Message {
    use actix_web::error::PayloadError;
    match payload {
        PayloadError::Incomplete(Some(e)) => {
            said!("server.problem.body_cut", why = e.to_string())
        }
        PayloadError::Incomplete(None) => said!("server.problem.body_ended_early"),
        PayloadError::EncodingCorrupted => said!("server.problem.body_encoding"),
        other => said!("server.problem.body_unreadable", why = other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Append {
        expected_version: Option<i64>,
        events: Vec<Event>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Event {
        id: Option<String>,
        #[serde(rename = "type")]
        event_type: String,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Page {
        limit: Option<usize>,
        sort: Option<Sort>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Sort {
        Wins,
        AverageScore,
    }

    fn refuse_body(body: Value) -> (String, Option<String>) {
        let e = serde_path_to_error::deserialize::<_, Append>(body).expect_err("refused");
        match body_error(&e.path().clone(), &e.into_inner().to_string()) {
            ApiError::Unprocessable {
                parameter: None,
                detail,
                pointer,
                ..
            } => (detail.to_string(), pointer),
            other => panic!("{other:?}"),
        }
    }

    fn refuse_query(query: &str) -> (String, Option<String>) {
        let pairs = form_urlencoded::parse(query.as_bytes());
        let e =
            serde_path_to_error::deserialize::<_, Page>(serde_urlencoded::Deserializer::new(pairs))
                .expect_err("refused");
        let parameter = e.path().to_string();
        let sent = form_urlencoded::parse(query.as_bytes())
            .find(|(k, _)| *k == parameter)
            .map(|(_, v)| v.into_owned());
        match query_error(&parameter, sent.as_deref(), &e.into_inner().to_string()) {
            ApiError::Unreadable {
                detail, parameter, ..
            } => (detail.to_string(), parameter),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_version_sent_as_text_must_be_a_whole_number() {
        // Given / when
        let refused = refuse_body(serde_json::json!({"expected_version": "1", "events": []}));
        // Then
        assert_eq!(
            refused,
            (
                "\"expected_version\" must be a whole number, like 3; got the text \"1\"".into(),
                Some("/expected_version".into())
            )
        );
    }

    #[test]
    fn a_missing_field_is_named_with_its_pointer() {
        let refused = refuse_body(serde_json::json!({"events": [{"id": null}]}));
        assert_eq!(
            refused,
            ("\"type\" is missing".into(), Some("/events/0/type".into()))
        );
    }

    #[test]
    fn an_unknown_field_lists_the_known_ones() {
        let refused = refuse_body(serde_json::json!({"events": [], "expected": 3}));
        assert_eq!(
            refused,
            (
                "\"expected\" is not a field here; the fields are \"expected_version\", \"events\""
                    .into(),
                Some("/expected".into())
            )
        );
    }

    #[test]
    fn an_object_where_a_list_belongs_says_so() {
        let refused = refuse_body(serde_json::json!({"events": {"type": "abandon"}}));
        assert_eq!(
            refused,
            (
                "\"events\" must be a list in square brackets, like [ … ]; got an object".into(),
                Some("/events".into())
            )
        );
    }

    #[test]
    fn a_limit_that_is_not_a_number_is_named() {
        assert_eq!(
            refuse_query("limit=abc"),
            (
                "\"limit\" must be a whole number, like 3; got \"abc\"".into(),
                Some("limit".into())
            )
        );
    }

    #[test]
    fn an_unknown_sort_lists_the_sorts() {
        assert_eq!(
            refuse_query("sort=best"),
            (
                "\"sort\" must be one of \"wins\" or \"average_score\"; got \"best\"".into(),
                Some("sort".into())
            )
        );
    }

    #[test]
    fn an_unknown_query_parameter_lists_the_known_ones() {
        assert_eq!(
            refuse_query("limt=3"),
            (
                "\"limt\" is not a query parameter here; the parameters are \"limit\", \"sort\""
                    .into(),
                Some("limt".into())
            )
        );
    }

    #[test]
    fn a_parameter_sent_twice_is_named() {
        assert_eq!(
            refuse_query("limit=1&limit=2"),
            (
                "\"limit\" is given more than once; send it once".into(),
                Some("limit".into())
            )
        );
    }

    #[test]
    fn a_missing_required_parameter_is_named() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Pair {
            players: String,
        }
        let pairs = form_urlencoded::parse(b"game=vintage");
        let e =
            serde_path_to_error::deserialize::<_, Pair>(serde_urlencoded::Deserializer::new(pairs))
                .expect_err("refused");
        match query_error(&e.path().to_string(), None, &e.into_inner().to_string()) {
            ApiError::Unreadable {
                detail, parameter, ..
            } => assert_eq!(
                (detail.to_string().as_str(), parameter.as_deref()),
                (
                    "the query parameter \"players\" is required",
                    Some("players")
                )
            ),
            other => panic!("{other:?}"),
        }
    }
}
