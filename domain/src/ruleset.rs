//! The trait every game implements. The common events and the replay live in [`crate::log`];
//! a game only says what its own events mean and how its state scores.

use std::fmt::Debug;
use std::ops::RangeInclusive;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::RuleError;
use crate::score::{Fact, Scoreboard};
use crate::setup::Player;

pub trait Ruleset {
    /// The game id used in the API (`"mint-condition"`).
    const ID: &'static str;
    /// The printed title, used in messages (`"Mint Condition"`).
    const TITLE: &'static str;
    /// How many players the game allows.
    const PLAYERS: RangeInclusive<usize>;
    /// The game's own event types (the common ones are handled by the log).
    const EVENT_TYPES: &'static [&'static str];

    /// Options with the defaults of the rules spec. Serialised, they are the effective options
    /// stored in `game_started`.
    type Options: Serialize + DeserializeOwned + Default + Clone + Debug;
    /// Everything the events established so far. Cloned only when a caller needs a copy.
    type State: Clone;

    /// Checks what options and players must agree on (e.g. a colour per player with Lucky).
    /// Pointers are relative to the creation request: `/options/…`, `/players/…`.
    fn check_setup(players: &[Player], options: &Self::Options) -> Result<(), RuleError>;

    /// The state before any game event.
    fn new_game(players: Vec<Player>, options: Self::Options) -> Self::State;

    /// Validates one event against the state so far and applies it. On error the state must be
    /// left as it was. Pointers are relative to the event's `data`.
    fn apply(state: &mut Self::State, event_type: &str, data: &Value) -> Result<(), RuleError>;

    /// True when the rules say the game is over (no further game event is accepted).
    fn is_finished(state: &Self::State) -> bool;

    /// The scoreboard of the state, finished or not.
    fn score(state: &Self::State) -> Scoreboard;

    /// Numbers the club statistics are built from (damage per card kind, objective hits …).
    fn facts(_state: &Self::State) -> Vec<Fact> {
        Vec::new()
    }
}
