//! Mind Up! (`mind-up`): everyone plays a card at once, the lowest card takes the lowest prize;
//! gained cards fill a row of colour columns under the score cards 1–5. Highest total wins.
//! Rules: `shared/rules/mind-up.md`.
//!
//! - `catalogue.rs` — the 60 cards (colour, bubble) and the `cards` override.
//! - `objectives.rs` — the fourteen objective faces.
//! - `events.rs` — the event data, parsed (`round_started`, `cards_played`,
//!   `last_cards_placed`, `rows_recorded`).
//! - `rules.rs` — the [`crate::ruleset::Ruleset`] impl: each event folded into the state.
//! - `state.rs` — the table: rounds, hands, rows and prizes, and where each card is.
//! - `round_started.rs` — a round's hands, prizes and objectives, checked against the table.
//! - `turns.rs` — `cards_played` and `last_cards_placed`: turns resolved by the engine.
//! - `rows_recorded.rs` — a round recorded by its end rows.
//! - `scoring.rs` — round scores, totals, the round-3 tie-break.
//!
//! How the engine reads points the rules leave open:
//! - Hands: a hand not given is known as far as the table knows it — empty in round 1, last
//!   round's row in rounds 2–3 — plus unknown cards (7 in round 1, the one drawn card later).
//!   A played card must be in the hand, or be an unknown card that is nowhere else at the table.
//!   A given round-2/3 hand must hold the owner's previous row plus one card not at the table.
//! - Prizes after `rows_recorded`: when every hand and the prizes were known at the round's
//!   start, the cards the rows did not take are the carried-over prizes. Otherwise they are
//!   unknown: the next `round_started` may give them (checked against the known hands) or leave
//!   them out, and then that round can only be recorded with `rows_recorded` (a turn cannot be
//!   worked out without prizes).
//! - Objectives with 4–5 cards are round 1's for the game: rounds 2–3 list them again, in any
//!   order (games stored before schema version 4 could leave them out). With 1–3 every round
//!   lists its own (new ones are revealed each round, so there is nothing to keep); any
//!   letters, even all of last round's, as long as they are distinct within the round.
//! - `rows_recorded` rows may end in empty columns; an empty column before a full one is refused
//!   (a new colour goes into the leftmost empty column).
//! - A round in progress scores its rows so far (columns and bubbles); objectives are judged
//!   at round end only.

mod catalogue;
mod events;
mod insights;
mod objectives;
mod round_started;
mod rows_recorded;
mod rules;
mod scoring;
mod state;
#[cfg(test)]
mod tests;
mod turns;

use serde::{Deserialize, Serialize};

pub use catalogue::{Card, CardOverride, Catalogue, Colour};
pub use objectives::Face;
pub use rules::MindUp;
pub use state::State;

/// The game's options with the defaults of the rules spec. `[H]` marks a house-rule point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Objectives variant: how many objective cards are active (0–5). 1–3 are revealed anew each
    /// round (letters may come back); 4–5 are drawn once for the game.
    pub objectives: u32,
    /// Another printing: entries replacing the printed colour/bubble of their numbers.
    pub cards: Option<Vec<CardOverride>>,
    /// [H] Players still tied on total and on round 3: the rules publish no further rule.
    pub still_tied: StillTied,
    /// [H] Objective D1 in a row without green: the rules do not say.
    pub d1_without_green: D1WithoutGreen,
    /// Games stored before schema version [`THREE_OBJECTIVES_RENEWED_SINCE`] kept round 1's
    /// three objectives for the game, as 4–5 are kept (a round 2–3 without them meant round 1's).
    /// Set only by the upcaster on replay: never stored, shown or accepted at creation.
    #[serde(skip_serializing)]
    pub three_objectives_kept: bool,
    /// Games stored before schema version [`KEPT_OBJECTIVES_LISTED_SINCE`] could leave round 1's
    /// kept objectives out of a round 2–3 `round_started` (they meant round 1's). Set only by
    /// the upcaster on replay: never stored, shown or accepted at creation.
    #[serde(skip_serializing)]
    pub kept_objectives_left_out: bool,
}

/// The schema version from which kept objectives (4–5) are listed again in rounds 2–3 (rules:
/// "`objectives` lists the active faces: exactly `objectives` many").
pub const KEPT_OBJECTIVES_LISTED_SINCE: u32 = 4;

/// The schema version from which three objectives are renewed each round (rulebook: only
/// "more than 3" are kept).
pub const THREE_OBJECTIVES_RENEWED_SINCE: u32 = 2;

impl Default for Options {
    fn default() -> Self {
        Self {
            objectives: 0,
            cards: None,
            still_tied: StillTied::SharedWin,
            d1_without_green: D1WithoutGreen::Nothing,
            three_objectives_kept: false,
            kept_objectives_left_out: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StillTied {
    /// They share the win.
    SharedWin,
    /// More points in round 2 wins (equal totals, round 3 and round 2 mean round 1 is equal too,
    /// so a tie after this is shared).
    #[serde(rename = "more_in_round_2")]
    MoreInRound2,
}

/// D1 ("green present and no card to the right of the green column") judged on a row that
/// has no green.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum D1WithoutGreen {
    /// Not met: there are no green cards to satisfy it.
    #[default]
    Nothing,
    /// Met (+2): nothing lies to the right of green cards that are not there.
    Bonus,
}

/// The most objective cards a game may use (rules: 0–5).
pub const MAX_OBJECTIVES: u32 = 5;
