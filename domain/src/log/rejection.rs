//! Refusals: a rule broken in a log, said as the rejection of the batch event that caused it.

use serde_json::Value;

use super::{CORRECT, LogEvent};
use crate::error::RuleError;
use crate::message::Message;

/// Why a submitted batch was refused: which event of the batch, which field of it (a JSON
/// pointer relative to that event object, e.g. `/data/round`) and which rule: `rule` in English,
/// `said` in any language the catalogues speak.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event {event_index}: {rule} (at {pointer})")]
pub struct Rejection {
    pub event_index: usize,
    pub pointer: String,
    pub rule: String,
    pub said: Message,
}

impl Rejection {
    pub(super) fn new(event_index: usize, pointer: impl Into<String>, said: Message) -> Self {
        Self {
            event_index,
            pointer: pointer.into(),
            rule: said.english(),
            said,
        }
    }
}

/// A rule broken somewhere in a log.
#[derive(Debug)]
pub(super) enum Fault {
    NoStart,
    /// Event `seq` breaks a rule; `corrected_by` is the correction whose data it was replayed
    /// with. The error's pointer is relative to the event object (`/data/…`, `/type`).
    At {
        seq: u64,
        corrected_by: Option<u64>,
        error: RuleError,
    },
}

impl Fault {
    pub(super) fn at(seq: u64, error: RuleError) -> Self {
        Fault::At {
            seq,
            corrected_by: None,
            error,
        }
    }

    /// Attributes a fault found after appending `new` to the batch event that caused it.
    pub(super) fn into_rejection(
        self,
        event_index: usize,
        new: &LogEvent,
        log: &[LogEvent],
    ) -> Rejection {
        match self {
            Fault::NoStart => {
                Rejection::new(event_index, "", crate::said!("server.log.refusal.no_start"))
            }
            Fault::At { seq, error, .. } if seq == new.seq => Rejection {
                event_index,
                pointer: error.pointer,
                rule: error.rule,
                said: error.said,
            },
            // The new correction's own data breaks the corrected event's rules: say so as a
            // correction, since the player is editing event `seq`, not recording a new one.
            Fault::At {
                seq,
                corrected_by: Some(by),
                error,
            } if by == new.seq => Rejection::new(
                event_index,
                error.pointer.replacen("/data", "/data/data", 1),
                correction_breaks(seq, &new.data["data"], log, error.said),
            ),
            // An older event no longer obeys the rules once this retract/correction counts.
            Fault::At { seq, error, .. } => {
                let kind = log
                    .get(seq as usize - 1)
                    .map_or("?", |e| e.event_type.as_str());
                let said = if new.event_type == CORRECT {
                    crate::said!(
                        "server.log.refusal.after_correction",
                        seq = seq,
                        kind = kind,
                        rule = error.said
                    )
                } else {
                    crate::said!(
                        "server.log.refusal.after_change",
                        seq = seq,
                        kind = kind,
                        rule = error.said
                    )
                };
                Rejection::new(event_index, "/data/seq", said)
            }
        }
    }
}

/// The words for a correction whose data breaks a rule: which event it replaces, with what,
/// and — when the new data names another round that has its own event — which one was probably
/// meant (correcting seq 2 with round 2's record is usually a correction aimed one event early).
fn correction_breaks(seq: u64, new_data: &Value, log: &[LogEvent], rule: Message) -> Message {
    let round = |data: &Value| data.get("round").and_then(Value::as_u64);
    let Some(target) = log.get(seq as usize - 1) else {
        return crate::said!(
            "server.log.refusal.correction_breaks",
            seq = seq,
            rule = rule
        );
    };
    let kind = target.event_type.as_str();
    let (old_round, new_round) = (round(&target.data), round(new_data));
    let replaced = match old_round {
        Some(round) => crate::said!(
            "server.log.words.event_of_round",
            seq = seq,
            kind = kind,
            round = round
        ),
        None => crate::said!("server.log.words.event_of_kind", seq = seq, kind = kind),
    };
    match new_round.filter(|r| old_round.is_some_and(|old| old != *r)) {
        Some(new_round) => {
            let meant = log.iter().find(|e| {
                e.seq != seq && e.event_type == kind && round(&e.data) == Some(new_round)
            });
            match meant {
                Some(meant) => crate::said!(
                    "server.log.refusal.correction_other_round_meant",
                    replaced = replaced,
                    round = new_round,
                    rule = rule,
                    meant = meant.seq,
                    kind = kind
                ),
                None => crate::said!(
                    "server.log.refusal.correction_other_round",
                    replaced = replaced,
                    round = new_round,
                    rule = rule
                ),
            }
        }
        None => crate::said!(
            "server.log.refusal.correction_replaces",
            replaced = replaced,
            rule = rule
        ),
    }
}
