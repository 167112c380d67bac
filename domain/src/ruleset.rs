//! The trait every game implements. The common events and the replay live in [`crate::log`];
//! a game only says what its own events mean and how its state scores.

use std::fmt::Debug;
use std::ops::RangeInclusive;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::RuleError;
use crate::insights::{FactSums, Insight};
use crate::score::{Fact, Scoreboard};
use crate::setup::{Player, Players};

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

    /// Options a table must give explicitly, even as an empty value, with what to say when
    /// one is left out: the rules leave them to the table (Vintage's unpublished prizes).
    const REQUIRED_OPTIONS: &'static [crate::error::Meaning] = &[];

    /// Checks what options and players must agree on (e.g. a colour per player with Lucky).
    /// Pointers are relative to the creation request: `/options/…`, `/players/…`.
    fn check_setup(players: &[Player], options: &Self::Options) -> Result<(), RuleError>;

    /// The state before any game event.
    fn new_game(players: Players, options: Self::Options) -> Self::State;

    /// Validates one event against the state so far and applies it. On error the state must be
    /// left as it was. Pointers are relative to the event's `data`.
    fn apply(state: &mut Self::State, event_type: &str, data: &Value) -> Result<(), RuleError>;

    /// True when the rules say the game is over (no further game event is accepted, but for
    /// those [`Ruleset::accepts_when_finished`] lets in).
    fn is_finished(state: &Self::State) -> bool;

    /// An event the rules still expect after the game is over, which changes no score (Mint
    /// Julep: the `round_ended` of the round whose recorded finish ended the game).
    fn accepts_when_finished(_state: &Self::State, _event_type: &str) -> bool {
        false
    }

    /// True once a round or a move has been scored: before, nobody leads. A setup event (Mind
    /// Up!'s `round_started`, Vintage's `showcases_dealt`) scores nothing; most games have none.
    fn anything_scored(_state: &Self::State) -> bool {
        true
    }

    /// The scoreboard of the state, finished or not.
    fn score(state: &Self::State) -> Scoreboard;

    /// Numbers the club statistics are built from (damage per card kind, objective hits …).
    fn facts(_state: &Self::State) -> Vec<Fact> {
        Vec::new()
    }

    /// Upcasts the effective options of a `game_started` stored at an older `schema_version`
    /// (below [`crate::log::SCHEMA_VERSION`]): an option added since gets the value that game
    /// was played with, never today's default. Stored events are not rewritten.
    fn upcast_options(_schema_version: u32, _options: &mut Map<String, Value>) {}

    /// True when the lowest total wins under the published rules (Mint Condition's damage).
    const LOWER_WINS: bool = false;

    /// The variants whose totals the statistics count apart: those that change what a total
    /// means (Mint Condition's Heavily Used, where the highest total wins).
    const VARIANTS: &'static [Variant] = &[];

    /// Which of [`Ruleset::VARIANTS`] a game with these options plays; `None`: the published rules.
    fn variant(_options: &Self::Options) -> Option<&'static Variant> {
        None
    }

    /// Whether the lowest total wins a game with these options: what its scoreboard says.
    fn lower_wins(options: &Self::Options) -> bool {
        Self::variant(options).map_or(Self::LOWER_WINS, |v| v.lower_wins)
    }

    /// The insights [`Ruleset::insights`] answers, with what each means.
    const INSIGHTS: &'static [Insight] = &[];

    /// The game's insights from its facts summed over a club's finished games.
    fn insights(_facts: &FactSums) -> serde_json::Map<String, Value> {
        serde_json::Map::new()
    }
}

/// A variant the statistics count apart, by its id in the API (`"heavily-used"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variant {
    pub id: &'static str,
    /// Its name in words (`"Heavily Used"`), as other apps' files may carry it.
    pub title: &'static str,
    /// The boolean option that plays it (`"heavily_used"`).
    pub option: &'static str,
    pub lower_wins: bool,
}
