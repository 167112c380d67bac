//! The game log: the common events every game shares, and the replay that folds a log into a
//! game's state.
//!
//! - `game_started` (event 1) carries the seated players and the effective options.
//! - `retract {seq}` — event `seq` no longer counts (a retracted `retract` counts again).
//! - `correct {seq, data}` — event `seq` counts with this data; the latest correction wins.
//! - `abandon {}` — the game stops counting; only a `retract` of it resumes play.
//! - `result_recorded {totals, winners, source}` — a game known only by its final scores
//!   (history from another app), right after `game_started`: the game is finished with those
//!   totals, typed in and not checked against the rules. No game event may follow it, and it
//!   may not follow one.
//!
//! Which events are in force is decided from the newest event backwards (a retract can only
//! name an earlier event), then the game events in force are folded through the ruleset in
//! order. After any retract, correction or abandon the whole log is replayed again; a plain game
//! event continues the replay held, which is all a game held between appends keeps.
//!
//! Stored events are never rewritten: each keeps the [`SCHEMA_VERSION`] it was written with,
//! and the replay upcasts older data on the way in (see [`upcast`] and `docs/schema-versions.md`).

mod append;
mod common_events;
mod rejection;
mod replay;
mod result_recorded;
mod schema;
mod started;
mod types;

pub use append::{Replayed, check_append};
pub use common_events::{ABANDON, COMMON_EVENT_TYPES, CORRECT, Marks, RETRACT, marks};
pub use rejection::Rejection;
pub use replay::{evaluate, evaluate_with_facts};
pub use result_recorded::RESULT_RECORDED;
pub use schema::{SCHEMA_VERSION, upcast};
pub use started::{GAME_STARTED, Setup, start};
pub use types::{Evaluation, LogError, LogEvent, NewEvent, Status};
