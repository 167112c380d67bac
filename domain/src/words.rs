//! serde's refusals (`invalid type: string "1", expected i64`) read once, so the HTTP layer and
//! the rule engines can say them in players' words: which field, what it must be, what came.

use crate::message::Message;
use crate::said;

/// What a serde message says went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SerdeFault<'a> {
    /// `missing field `data``
    Missing(&'a str),
    /// `unknown field `why`, expected `seq` or `reason``: the field and the known ones.
    Unknown { field: &'a str, known: Vec<&'a str> },
    /// `unknown variant `best`, expected `wins` or `average_score``
    Variant { sent: &'a str, known: Vec<&'a str> },
    /// `invalid type: string "1", expected i64`: what came and serde's name of what is wanted.
    Value { got: &'a str, expected: &'a str },
    /// Anything else, said as it is.
    Other(&'a str),
}

/// Sorts serde's message into what it says.
pub fn read(message: &str) -> SerdeFault<'_> {
    if let Some(field) = between(message, "missing field `", "`") {
        SerdeFault::Missing(field)
    } else if let Some(field) = between(message, "unknown field `", "`") {
        SerdeFault::Unknown {
            field,
            known: quoted_names(message),
        }
    } else if let Some(sent) = between(message, "unknown variant `", "`") {
        SerdeFault::Variant {
            sent,
            known: quoted_names(message),
        }
    } else if let Some((got, expected)) = invalid_value(message) {
        SerdeFault::Value { got, expected }
    } else {
        SerdeFault::Other(message)
    }
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let len = text[from..].find(end)?;
    Some(&text[from..from + len])
}

/// serde's "expected `a`" / "expected one of `a`, `b`" as the names a, b.
fn quoted_names(message: &str) -> Vec<&str> {
    let Some(at) = message.find("`, expected") else {
        return Vec::new();
    };
    message[at + 1..].split('`').skip(1).step_by(2).collect()
}

/// `invalid type: string "1", expected i64` → (`string "1"`, `i64`).
fn invalid_value(message: &str) -> Option<(&str, &str)> {
    let rest = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))?;
    let at = rest.rfind(", expected ")?;
    Some((&rest[..at], &rest[at + ", expected ".len()..]))
}

/// Names in quotes: `"seq", "reason"`.
pub fn quoted(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| format!("{n:?}")).collect()
}

/// `"a"`, `one of "a" or "b"`, `one of "a", "b" or "c"`.
pub fn one_of(names: &[&str]) -> String {
    one_of_said(names).english()
}

/// [`one_of`] in the catalogues' words.
pub fn one_of_said(names: &[&str]) -> Message {
    match quoted(names).as_slice() {
        [] => said!("server.words.something_else"),
        [one] => Message::data(one.clone()),
        [init @ .., last] => said!("server.words.one_of", first = init.join(", "), last = last),
    }
}

/// `"seq" and "reason"`; `no fields` when there are none.
pub fn and_list(names: &[&str]) -> String {
    and_list_said(names).english()
}

/// [`and_list`] in the catalogues' words.
pub fn and_list_said(names: &[&str]) -> Message {
    match quoted(names).as_slice() {
        [] => said!("server.words.no_fields"),
        [one] => Message::data(one.clone()),
        [init @ .., last] => said!("server.list.and", first = init.join(", "), last = last),
    }
}

/// What a Rust type name in serde's "expected …" means to a person.
pub fn expected_words(expected: &str) -> String {
    expected_said(expected).english()
}

/// [`expected_words`] in the catalogues' words.
pub fn expected_said(expected: &str) -> Message {
    let signed = ["i8", "i16", "i32", "i64", "isize", "integer"];
    let unsigned = ["u8", "u16", "u32", "u64", "usize"];
    if signed.contains(&expected) {
        said!("server.words.expected.whole_number")
    } else if unsigned.contains(&expected) {
        said!("server.words.expected.count")
    } else if ["f32", "f64"].contains(&expected) {
        said!("server.words.expected.number")
    } else if expected == "a string" {
        said!("server.words.expected.text")
    } else if expected == "a boolean" {
        said!("server.words.expected.boolean")
    } else if expected.starts_with("a sequence") || expected.starts_with("a tuple") {
        said!("server.words.expected.list")
    } else if expected.starts_with("struct ") || expected.starts_with("a map") {
        said!("server.words.expected.object")
    } else if expected.contains("UUID") {
        said!("server.words.expected.uuid")
    } else if expected.contains("RFC 3339") || expected.contains("datetime") {
        said!("server.words.expected.date_time")
    } else if let Some(variants) = expected
        .strip_prefix("unit variant ")
        .or_else(|| expected.strip_prefix("one of "))
    {
        // Names of values: the same in every language.
        Message::data(variants.to_owned())
    } else {
        // serde's name of a type none of the above covers (said as serde says it).
        Message::data(expected.to_owned())
    }
}

/// serde's `Unexpected` (`string "two"`, `integer `-1``) as a person would say it.
pub fn got_words(got: &str) -> String {
    got_said(got).english()
}

/// [`got_words`] in the catalogues' words.
pub fn got_said(got: &str) -> Message {
    if let Some(text) = got.strip_prefix("string ") {
        said!("server.words.got.text", text = text)
    } else if let Some(n) = got
        .strip_prefix("integer `")
        .or_else(|| got.strip_prefix("floating point `"))
    {
        said!("server.words.got.number", n = n.trim_end_matches('`'))
    } else if let Some(b) = got.strip_prefix("boolean `") {
        Message::data(b.trim_end_matches('`').to_owned())
    } else if got == "sequence" {
        said!("server.words.got.list")
    } else if got == "map" {
        said!("server.words.got.object")
    } else if got == "unit value" || got == "null" {
        Message::data("null")
    } else {
        Message::data(got.to_owned())
    }
}

/// serde's message about one value, said of `subject` (`option "lucky"`, `"seq" of a retract
/// event`). `nested`: the value holds others (a list, an object) and serde may be speaking of
/// one of them rather than of the whole. (English only, for tests: a subject given as text would
/// be said untranslated.)
#[cfg(test)]
pub fn refusal(subject: &str, message: &str, nested: bool) -> String {
    refusal_said(Message::data(subject.to_owned()), message, nested).english()
}

/// [`refusal`] in the catalogues' words, of a subject in them too.
pub fn refusal_said(subject: Message, message: &str, nested: bool) -> Message {
    match read(message) {
        SerdeFault::Missing(field) => said!(
            "server.words.refusal.needs",
            subject = subject,
            field = format!("{field:?}")
        ),
        SerdeFault::Unknown { field, known } => said!(
            "server.words.refusal.takes",
            subject = subject,
            fields = and_list_said(&known),
            field = format!("{field:?}")
        ),
        SerdeFault::Variant { sent, known } if nested => said!(
            "server.words.refusal.has_value_must_be",
            subject = subject,
            expected = one_of_said(&known),
            got = format!("{sent:?}")
        ),
        SerdeFault::Variant { sent, known } => said!(
            "server.words.refusal.must_be",
            subject = subject,
            expected = one_of_said(&known),
            got = format!("{sent:?}")
        ),
        SerdeFault::Value { got, expected } => {
            // A list sent where an object belongs is about the whole; a text inside it is not.
            let whole = matches!(got, "map" | "sequence");
            let (expected, got) = (expected_said(expected), got_said(got));
            if nested && !whole {
                said!(
                    "server.words.refusal.has_value_must_be",
                    subject = subject,
                    expected = expected,
                    got = got
                )
            } else {
                said!(
                    "server.words.refusal.must_be",
                    subject = subject,
                    expected = expected,
                    got = got
                )
            }
        }
        SerdeFault::Other(message) => said!(
            "server.words.refusal.unreadable",
            subject = subject,
            why = message
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_where_a_count_belongs_says_what_a_count_is() {
        assert_eq!(
            refusal(
                "option \"sleeve_protects\"",
                "invalid type: string \"two\", expected u32",
                false
            ),
            "option \"sleeve_protects\" must be a whole number, 0 or more; got the text \"two\""
        );
    }

    #[test]
    fn an_unknown_field_lists_the_fields_taken() {
        assert_eq!(
            refusal(
                "a retract event",
                "unknown field `why`, expected `seq` or `reason`",
                true
            ),
            "a retract event takes \"seq\" and \"reason\"; \"why\" is not one of its fields"
        );
    }

    #[test]
    fn a_value_inside_a_list_is_not_said_of_the_whole_list() {
        assert_eq!(
            refusal(
                "option \"prizes\"",
                "invalid type: string \"four\", expected i64",
                true
            ),
            "option \"prizes\" has a value that must be a whole number, like 3; got the text \"four\""
        );
    }

    #[test]
    fn an_unknown_variant_lists_the_known_ones() {
        assert_eq!(
            read("unknown variant `best`, expected one of `wins`, `average_score`, `games`"),
            SerdeFault::Variant {
                sent: "best",
                known: vec!["wins", "average_score", "games"]
            }
        );
    }
}
