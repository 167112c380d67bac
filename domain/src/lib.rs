//! The pure heart of tabletally: game setups, event logs, rule engines and scores.
//!
//! Nothing here touches a clock, a disk, a network or a random number generator: given the same
//! events, [`games::Game::evaluate`] always returns the same scoreboard. The HTTP server stores
//! the events; this crate decides what they mean.
//!
//! A reader's map:
//! - [`error`] — the one error a player sees: which field broke which rule.
//! - [`message`] — words for a person as a catalogue key and values, said in any language.
//! - [`words`] — serde's refusals (a wrong type, a missing field) said in players' words.
//! - [`setup`] — players and options, checked once when a game starts (`game_started`).
//! - [`ruleset`] — the trait every game implements (`apply` one event, `score` the state).
//! - [`log`] — the common events (`retract`, `correct`, `abandon`) and the replay fold.
//! - [`score`] — the scoreboard: every point with the breakdown line that explains it.
//! - [`insights`] — what a club's finished games add up to, from each game's typed facts.
//! - [`games`] — one folder per game, all of the same shape.

pub mod data;
pub mod error;
pub mod games;
pub mod insights;
pub mod log;
pub mod message;
pub mod pointer;
pub mod ruleset;
pub mod score;
pub mod setup;
#[cfg(any(test, feature = "untranslated"))]
pub mod untranslated;
pub mod words;

pub use error::RuleError;
pub use games::{Game, GameState};
pub use log::{Evaluation, LogEvent, NewEvent, Rejection, Status};
pub use message::Message;
pub use score::Scoreboard;
