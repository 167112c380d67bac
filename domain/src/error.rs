//! The rule error: the only error the domain returns to a player.

use crate::message::Message;
use crate::words::{self, SerdeFault};

/// One broken rule: where in the submitted JSON (`pointer`, RFC 6901, relative to the object
/// being checked) and what the rule says, in words a player at the table understands: `rule` in
/// English, `said` in any language the catalogues speak.
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
    /// A refusal in words not in the catalogues yet: every language shows them in English.
    pub fn new(pointer: impl Into<String>, rule: impl Into<String>) -> Self {
        let rule = rule.into();
        Self {
            pointer: pointer.into(),
            said: Message::from(rule.clone()),
            rule,
        }
    }

    /// A refusal said from the catalogues (see [`crate::said!`]).
    pub fn said(pointer: impl Into<String>, said: Message) -> Self {
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

/// Deserialises the data of a `what` event (`correct`, `retract`, …) into `T`; a refusal says,
/// in players' words, which field is wrong and points at it. `meanings` say what a field holds,
/// for the refusal of a missing one: `("data", "the event that replaces the one at \"seq\"")`.
pub fn parse_json<T: serde::de::DeserializeOwned>(
    value: &serde_json::Value,
    pointer: &str,
    what: &str,
    meanings: &[(&str, &str)],
) -> Result<T, RuleError> {
    let message = match T::deserialize(value) {
        Ok(parsed) => return Ok(parsed),
        Err(e) => e.to_string(),
    };
    let event = format!("{} {what} event", article(what));
    let at = |field: &str| format!("{pointer}{}", crate::pointer::pointer([field]));
    match words::read(&message) {
        SerdeFault::Missing(field) => {
            let meaning = meanings
                .iter()
                .find(|(name, _)| *name == field)
                .map_or(String::new(), |(_, meaning)| format!(": {meaning}"));
            Err(RuleError::new(
                at(field),
                format!("{event} needs {field:?}{meaning}"),
            ))
        }
        SerdeFault::Unknown { field, .. } => Err(RuleError::new(
            at(field),
            words::refusal(&event, &message, false),
        )),
        _ => match refused_field::<T>(value, &message) {
            Some((field, sent)) => Err(RuleError::new(
                at(field),
                words::refusal(
                    &format!("{field:?} of {event}"),
                    &message,
                    sent.is_object() || sent.is_array(),
                ),
            )),
            None => Err(RuleError::new(
                pointer,
                words::refusal(&format!("the data of {event}"), &message, false),
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

/// `a correct event`, `an abandon event`.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}
