//! The log's types: events as stored and submitted, a game's status, what a replay amounts to.

use serde_json::Value;

use super::SCHEMA_VERSION;
use crate::error::RuleError;
use crate::score::{Fact, Scoreboard};

/// An event as stored: its number in the game's log, its type, its data and the schema version
/// that data was written with.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEvent {
    pub seq: u64,
    pub event_type: String,
    pub data: Value,
    pub schema_version: u32,
}

impl LogEvent {
    /// An event written today, at the current [`SCHEMA_VERSION`].
    pub fn new(seq: u64, event_type: impl Into<String>, data: Value) -> Self {
        Self {
            seq,
            event_type: event_type.into(),
            data,
            schema_version: SCHEMA_VERSION,
        }
    }
}

/// An event as submitted, before it has a number.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEvent {
    pub event_type: String,
    pub data: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    InProgress,
    Finished,
    Abandoned,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::InProgress => "in_progress",
            Status::Finished => "finished",
            Status::Abandoned => "abandoned",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "in_progress" => Some(Status::InProgress),
            "finished" => Some(Status::Finished),
            "abandoned" => Some(Status::Abandoned),
            _ => None,
        }
    }
}

/// What a replayed log amounts to.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub status: Status,
    /// The seq of the last event replayed.
    pub version: u64,
    pub scoreboard: Scoreboard,
    /// What the club statistics take from this game (see
    /// [`Ruleset::facts`](crate::ruleset::Ruleset::facts)).
    pub facts: Vec<Fact>,
    /// Whether the club's statistics count it: false for a typed-in result marked
    /// `in_statistics: false` (a BoardGameGeek play kept out of its win statistics).
    pub in_statistics: bool,
}

/// A stored log that does not replay. Stored logs were checked when appended, so this means
/// the store or the rules changed underneath them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    #[error("the log is empty or does not begin with game_started")]
    NoStart,
    #[error("stored event {seq} does not replay: {error}")]
    Broken { seq: u64, error: RuleError },
}
