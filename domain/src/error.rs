//! The rule error: the only error the domain returns to a player.

use crate::message::{Arg, Message};
use crate::said;
use crate::words::{self, SerdeFault};

/// One broken rule: where in the submitted JSON (`pointer`, RFC 6901, relative to the object
/// being checked) and what the rule says, in words a player at the table understands: `rule` in
/// English (for logs and tests), `said` in any language the catalogues speak.
#[derive(Debug, Clone, Eq, thiserror::Error)]
#[error("{rule} (at {pointer:?})")]
pub struct RuleError {
    pub pointer: String,
    pub rule: String,
    pub said: Message,
}

/// Two refusals are the same when they point at the same field and read the same in English.
impl PartialEq for RuleError {
    fn eq(&self, other: &Self) -> bool {
        self.pointer == other.pointer && self.rule == other.rule
    }
}

impl RuleError {
    /// A refusal said from the catalogues (see [`crate::said!`]).
    pub fn said(pointer: impl Into<String>, said: Message) -> Self {
        // Every refusal a test produces is one a player can see: it must be said in French and
        // Persian with no English left (names, numbers and identifiers are data).
        #[cfg(test)]
        crate::untranslated::assert_said_in_french_and_persian(&said);
        Self {
            pointer: pointer.into(),
            rule: said.english(),
            said,
        }
    }

    /// The same error seen from one level up: `/round` inside `data` becomes `/data/round`.
    pub fn within(mut self, prefix: &str) -> Self {
        self.pointer = format!("{prefix}{}", self.pointer);
        self
    }
}

/// What a field of an event holds, said when it is missing (see [`parse_json`]).
pub type Meaning = (&'static str, fn() -> Message);

/// Deserialises the data of a `what` event (`correct`, `retract`, …) into `T`; a refusal says,
/// in players' words, which field is wrong and points at it. `meanings` say what a field holds,
/// for the refusal of a missing one: `("data", || said!("server.log.meaning.correct_data"))`.
pub fn parse_json<T: serde::de::DeserializeOwned>(
    value: &serde_json::Value,
    pointer: &str,
    what: &'static str,
    meanings: &[Meaning],
) -> Result<T, RuleError> {
    let message = match T::deserialize(value) {
        Ok(parsed) => return Ok(parsed),
        Err(e) => e.to_string(),
    };
    let event = an_event(what);
    let at = |field: &str| format!("{pointer}{}", crate::pointer::pointer([field]));
    match words::read(&message) {
        SerdeFault::Missing(field) => {
            let said = match meanings.iter().find(|(name, _)| *name == field) {
                Some((_, meaning)) => said!(
                    "server.words.refusal.needs_meaning",
                    subject = event,
                    field = format!("{field:?}"),
                    meaning = meaning()
                ),
                None => said!(
                    "server.words.refusal.needs",
                    subject = event,
                    field = format!("{field:?}")
                ),
            };
            Err(RuleError::said(at(field), said))
        }
        SerdeFault::Unknown { field, .. } => Err(RuleError::said(
            at(field),
            words::refusal_said(event, &message, false),
        )),
        _ => match refused_field::<T>(value, &message) {
            Some((field, sent)) => Err(RuleError::said(
                at(field),
                words::refusal_said(
                    said!(
                        "server.words.subject.field_of",
                        field = format!("{field:?}"),
                        subject = event
                    ),
                    &message,
                    sent.is_object() || sent.is_array(),
                ),
            )),
            None => Err(RuleError::said(
                pointer,
                words::refusal_said(
                    said!("server.words.subject.data_of", subject = event),
                    &message,
                    false,
                ),
            )),
        },
    }
}

/// Which field of an object serde refused: serde stops at the first field it cannot read, so
/// leaving that field out (and only that one) changes what it says.
fn refused_field<'a, T: serde::de::DeserializeOwned>(
    value: &'a serde_json::Value,
    message: &str,
) -> Option<(&'a str, &'a serde_json::Value)> {
    let object = value.as_object()?;
    object.iter().find_map(|(key, sent)| {
        let mut without = object.clone();
        without.remove(key);
        let changed = T::deserialize(&serde_json::Value::Object(without))
            .err()
            .is_none_or(|e| e.to_string() != message);
        changed.then_some((key.as_str(), sent))
    })
}

/// `a correct event`, `an abandon event` (English's article depends on the type's first
/// letter; other languages say both alike).
fn an_event(event_type: &'static str) -> Message {
    if event_type.starts_with(['a', 'e', 'i', 'o', 'u']) {
        said!(
            "server.words.subject.an_event",
            event_type = Arg::word(event_type)
        )
    } else {
        said!(
            "server.words.subject.a_event",
            event_type = Arg::word(event_type)
        )
    }
}
