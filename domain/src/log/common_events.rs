//! The common events (`retract`, `correct`, `abandon`): their data, targets and marks.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::LogEvent;
use crate::error::{Meaning, RuleError};
use crate::message::Message;

pub const RETRACT: &str = "retract";
pub const CORRECT: &str = "correct";
pub const ABANDON: &str = "abandon";
pub const COMMON_EVENT_TYPES: [&str; 3] = [RETRACT, CORRECT, ABANDON];

pub(super) const RETRACT_FIELDS: &[Meaning] =
    &[("seq", || crate::said!("server.log.meaning.retract_seq"))];
pub(super) const CORRECT_FIELDS: &[Meaning] = &[
    ("seq", || crate::said!("server.log.meaning.correct_seq")),
    ("data", || crate::said!("server.log.meaning.correct_data")),
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RetractData {
    pub(super) seq: u64,
    #[serde(default)]
    #[allow(dead_code)]
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CorrectData {
    pub(super) seq: u64,
    #[allow(dead_code)]
    data: Value,
    #[serde(default)]
    #[allow(dead_code)]
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AbandonData {
    #[serde(default)]
    #[allow(dead_code)]
    reason: Option<String>,
}

/// A retract or correct may only name an earlier event other than `game_started`.
pub(super) fn check_target(
    own_seq: u64,
    target: u64,
    verb: &str,
    not_the_start: fn() -> Message,
) -> Result<(), RuleError> {
    if target == 0 || target >= own_seq {
        return Err(RuleError::said(
            "/data/seq",
            crate::said!(
                "server.common.refusal.there_no_earlier_event_events",
                target = target,
                verb = verb,
                last = own_seq - 1
            ),
        ));
    }
    if target == 1 {
        return Err(RuleError::said("/data/seq", not_the_start()));
    }
    Ok(())
}

/// How later events changed an event: retracted by (seq), corrected by (seq; the latest
/// correction in force). Only retracts and corrections that themselves count are considered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Marks {
    pub retracted_by: Option<u64>,
    pub corrected_by: Option<u64>,
}

/// The marks of every event of a stored log that was changed by a later one.
pub fn marks(log: &[LogEvent]) -> HashMap<u64, Marks> {
    let target = |e: &LogEvent| e.data.get("seq").and_then(Value::as_u64);
    let mut marks: HashMap<u64, Marks> = HashMap::new();
    for event in log.iter().rev() {
        let retracted = marks
            .get(&event.seq)
            .is_some_and(|m| m.retracted_by.is_some());
        if event.event_type == RETRACT
            && !retracted
            && let Some(seq) = target(event)
        {
            marks
                .entry(seq)
                .or_default()
                .retracted_by
                .get_or_insert(event.seq);
        }
    }
    for event in log {
        let retracted = marks
            .get(&event.seq)
            .is_some_and(|m| m.retracted_by.is_some());
        if event.event_type == CORRECT
            && !retracted
            && let Some(seq) = target(event)
        {
            marks.entry(seq).or_default().corrected_by = Some(event.seq);
        }
    }
    marks
}
