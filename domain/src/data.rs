//! Reading event data by hand, so every rule error can point at the exact field.

use serde_json::{Map, Value};

use crate::error::RuleError;
use crate::message::Arg;
use crate::pointer::pointer;
use crate::score::said_names;

/// The data of `event` as a JSON object holding only the `known` fields.
pub fn fields<'a>(
    data: &'a Value,
    event: impl Into<Arg>,
    known: &[&str],
) -> Result<&'a Map<String, Value>, RuleError> {
    // An event's type, or what the data is in words ("a move").
    let event: Arg = event.into();
    let object = data.as_object().ok_or_else(|| {
        RuleError::said(
            "",
            crate::said!(
                "server.common.refusal.data_must_json_object",
                event = event.clone()
            ),
        )
    })?;
    if let Some(key) = object.keys().find(|k| !known.contains(&k.as_str())) {
        let known: Vec<String> = known.iter().map(|k| format!("{k:?}")).collect();
        return Err(RuleError::said(
            pointer([key]),
            crate::said!(
                "server.common.refusal.unknown_field_has",
                field = format!("{:?}", key),
                event = event,
                fields = said_names(&known)
            ),
        ));
    }
    Ok(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_unknown_field_is_named_with_the_known_ones() {
        let err = fields(&json!({"round": 1, "rouns": 2}), "round_ended", &["round"]).unwrap_err();
        assert_eq!(err.pointer, "/rouns");
        assert_eq!(
            err.rule,
            "unknown field \"rouns\"; round_ended has \"round\""
        );
    }

    #[test]
    fn data_that_is_not_an_object_is_refused() {
        let err = fields(&json!([1]), "round_ended", &["round"]).unwrap_err();
        assert_eq!(err.rule, "round_ended data must be a JSON object");
    }
}
