//! Vintage (`vintage`): antique dealers bank cards from their showcase into a collection, steal
//! from each other and dig the discard pile; highest total wins. Rules: `shared/rules/vintage.md`.
//!
//! The card list is not published, so cards are described in the events the first time they
//! appear (`catalogue.rs`). A game is recorded either turn by turn (`table.rs` checks every
//! move; `piles.rs` holds the cards face up) or only at its end (`collections_recorded`).

mod catalogue;
mod events;
mod insights;
mod piles;
mod rules;
mod scoring;
mod state;
mod table;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use catalogue::{Attribute, Card};
pub use rules::Vintage;
pub use state::{Record, State};

/// The box holds 17 prize cards (rules: Components).
pub const MAX_PRIZES: usize = 17;

/// The game's options with the defaults of the rules spec. `[H]` marks a house-rule point.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// The prize cards in play; their list is not published, so the table gives them.
    pub prizes: Vec<Prize>,
    /// [H] Who scores a prize when players tie for the most matching cards.
    pub prize_tie: PrizeTie,
    /// [H] Players tied on the highest total: the rules say the win is shared.
    pub winner_tie: WinnerTie,
    /// The table's own deck, by card number (1–63): every card's printed attributes, so that
    /// events may name a card by its number (`17` or `"17"`) instead of describing it. Empty:
    /// cards are described the first time they appear.
    pub deck: BTreeMap<u32, DeckCard>,
    /// Games stored before schema version [`ATTRIBUTE_NAMES_IGNORE_CASE_SINCE`] compared a
    /// prize's attribute name letter for letter (a prize on `"Colour"` counted nothing). Set
    /// only by the upcaster on replay: never stored, shown or accepted at creation.
    #[serde(skip_serializing)]
    pub attribute_names_exact: bool,
}

/// The schema version since which a prize's attribute name is read ignoring case and
/// surrounding spaces, as attribute values always were.
pub const ATTRIBUTE_NAMES_IGNORE_CASE_SINCE: u32 = 6;

/// One card of a table's deck, as printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeckCard {
    #[serde(rename = "type")]
    pub object: String,
    pub colour: String,
    pub period: String,
    pub value: u32,
}

/// One prize card: "most blue objects: 4 points". Its texts are boxed, not strings: every held
/// game keeps its prizes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prize {
    pub id: Box<str>,
    pub name: Box<str>,
    /// `type`, `colour`, `period` or another attribute the cards record, in any case (checked
    /// by `check_setup`).
    pub attribute: Box<str>,
    pub value: Box<str>,
    pub points: i64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrizeTie {
    /// Nobody scores a tied prize.
    #[default]
    Nobody,
    /// Every tied player scores it in full.
    All,
    /// The points are divided among the tied players; the remainder is lost.
    Split,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WinnerTie {
    /// They share the win (the rules' reading).
    #[default]
    Shared,
    /// The tied player with more prize points wins; still tied, they share it.
    MostPrizePoints,
}

impl WinnerTie {
    pub fn as_str(self) -> &'static str {
        match self {
            WinnerTie::Shared => "shared",
            WinnerTie::MostPrizePoints => "most_prize_points",
        }
    }
}

impl PrizeTie {
    pub fn as_str(self) -> &'static str {
        match self {
            PrizeTie::Nobody => "nobody",
            PrizeTie::All => "all",
            PrizeTie::Split => "split",
        }
    }
}
