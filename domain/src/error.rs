//! The rule error: the only error the domain returns to a player.

/// One broken rule: where in the submitted JSON (`pointer`, RFC 6901, relative to the object
/// being checked) and what the rule says, in words a player at the table understands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{rule} (at {pointer:?})")]
pub struct RuleError {
    pub pointer: String,
    pub rule: String,
}

impl RuleError {
    pub fn new(pointer: impl Into<String>, rule: impl Into<String>) -> Self {
        Self {
            pointer: pointer.into(),
            rule: rule.into(),
        }
    }

    /// The same error seen from one level up: `/round` inside `data` becomes `/data/round`.
    pub fn within(mut self, prefix: &str) -> Self {
        self.pointer = format!("{prefix}{}", self.pointer);
        self
    }
}

/// Deserialises a JSON value into `T`, turning serde's message into a rule error at `pointer`.
pub fn parse_json<T: serde::de::DeserializeOwned>(
    value: &serde_json::Value,
    pointer: &str,
    what: &str,
) -> Result<T, RuleError> {
    T::deserialize(value).map_err(|e| RuleError::new(pointer, format!("{what}: {e}")))
}
