//! Mint Julep (`mint-julep`): bet on five horses, race them with cards over three rounds;
//! highest total wins. Rules: `shared/rules/mint-julep.md`.
//!
//! - `horses.rs` — the five horses, their bonuses and the place points.
//! - `race.rs` — the groups of horses and every movement rule.
//! - `events.rs` — `bet_placed`, `card_played`, `race_recorded`, `round_ended`, parsed.
//! - `rules.rs` — the [`crate::ruleset::Ruleset`] impl: each event folded into the state.
//! - `state.rs` — the game so far, and each event checked against it.
//! - `scoring.rs` — bonus + place − late penalty per active bet, splits, the scoreboard.

mod events;
mod horses;
mod insights;
mod race;
mod rules;
mod scoring;
mod state;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

pub use horses::Horse;
pub use race::{Direction, Move, MoveKind, Race};
pub use rules::MintJulep;
pub use state::{Bet, State};

/// The game's options with the defaults of the rules spec. `[H]` marks a house-rule point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// [H] How several backers of one horse share its points (3–4 players).
    pub split: Split,
    /// Recording round 3's finish (`race_recorded`) ends the game (default). `false`: the game
    /// ends only with `round_ended` for round 3 — how games stored before schema version 3
    /// were recorded (see `docs/schema-versions.md`).
    pub last_race_ends_game: bool,
    /// Games stored before schema version [`NAMED_REPLACEMENT_SINCE`] read a bet's `replaces`
    /// only with 2 players holding two bets. Set only by the upcaster on replay: never stored,
    /// shown or accepted at creation.
    #[serde(skip_serializing)]
    pub replaces_only_between_two_bets: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            split: Split::default(),
            last_race_ends_game: true,
            replaces_only_between_two_bets: false,
        }
    }
}

/// The schema version since which round 3's `race_recorded` ends the game.
pub const LAST_RACE_ENDS_GAME_SINCE: u32 = 3;

/// The schema version from which a bet's `replaces` replaces the bet it names in any game
/// (rules: "`replaces`, when present, must name one of the player's active bets").
pub const NAMED_REPLACEMENT_SINCE: u32 = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// Split bonus + place points, then each backer subtracts their own late penalty.
    #[default]
    BeforePenalty,
    /// Each backer's bonus + place − own penalty, divided by the number of backers.
    AfterPenalty,
}
