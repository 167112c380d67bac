//! Mint Condition (`mint-condition`): draft Danger cards, take damage; lowest damage wins.
//! Rules: `shared/rules/mint-condition.md`.

mod cards;
mod events;
mod insights;
mod rules;
mod scoring;
mod state;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::ruleset::Variant;

pub use cards::{Card, Kind};
pub use rules::MintCondition;
pub use state::State;

/// The game's options with the defaults of the rules spec. `[H]` marks a house-rule point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Variant "Lucky": deduct 1 per collected card showing your colour or rainbow.
    pub lucky: bool,
    /// Variant "Heavily Used": the highest total wins; tie → fewest Be Careful!.
    pub heavily_used: bool,
    /// Accept expert cards (Smoking Kills) in collections.
    pub expert_cards: bool,
    /// Round collections must have the size the player count gives (7/9/8/6).
    pub strict_counts: bool,
    /// [H] Be Careful! damage when nobody holds one.
    pub be_careful_when_none: BeCarefulWhenNone,
    /// [H] Memories damage for 4 or more.
    pub memories_over_three: MemoriesOverThree,
    /// [H] How many other cards one Sleeve Me Up! protects.
    pub sleeve_protects: u32,
    /// [H] Smoking Kills damage per copy; `None` refuses the card.
    pub smoking_kills: Option<SmokingKills>,
    /// [H] Which Be Careful! cards break a tie.
    pub tiebreak_scope: TiebreakScope,
    /// [H] Whether a protected Be Careful! counts toward the majority.
    pub protected_be_careful: ProtectedBeCareful,
}

/// Damage: by the published rules the lowest total wins.
const LOWER_WINS: bool = true;

/// Variant "Heavily Used": the highest total wins, so its figures are counted apart.
const HEAVILY_USED: Variant = Variant {
    id: "heavily-used",
    title: "Heavily Used",
    option: "heavily_used",
    lower_wins: false,
};

impl Options {
    /// The variant these options play, if any (the rules' `variant`, and the scoreboard's).
    fn variant(&self) -> Option<&'static Variant> {
        self.heavily_used.then_some(&HEAVILY_USED)
    }

    /// Whether the lowest total wins with these options.
    fn lower_wins(&self) -> bool {
        self.variant().map_or(LOWER_WINS, |v| v.lower_wins)
    }
}

impl Default for Options {
    fn default() -> Self {
        Self {
            lucky: false,
            heavily_used: false,
            expert_cards: false,
            strict_counts: true,
            be_careful_when_none: BeCarefulWhenNone::Five,
            memories_over_three: MemoriesOverThree::Free,
            sleeve_protects: 1,
            smoking_kills: None,
            tiebreak_scope: TiebreakScope::Game,
            protected_be_careful: ProtectedBeCareful::Counts,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BeCarefulWhenNone {
    /// Everyone takes 5, as if each player held fewer than the most.
    Five,
    Zero,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoriesOverThree {
    /// 4 or more Memories deal no damage.
    Free,
    /// No damage only for a multiple of 3, otherwise 7.
    MultiplesOfThree,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TiebreakScope {
    Game,
    LastRound,
}

/// Whether a Be Careful! protected by Sleeve Me Up! counts toward the majority. The tie-break
/// counts every Be Careful! collected either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProtectedBeCareful {
    /// Like any other: Sleeve Me Up! only affects its owner's cards, the majority decides the
    /// other players' damage.
    Counts,
    /// Left out of the majority, as if not held (games stored before schema version 2).
    Ignored,
}

/// The schema version that brought `protected_be_careful`; games started before it played
/// `"ignored"`.
pub const PROTECTED_BE_CAREFUL_SINCE: u32 = 2;

/// A house rule for the unpublished Smoking Kills card: damage per copy held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmokingKills {
    /// Damage its holder takes per copy.
    pub holder: u32,
    /// Damage every other player takes per copy.
    pub others: u32,
}
