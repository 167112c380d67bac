//! The games tabletally keeps score for. Each game is one folder of the same shape:
//! `cards.rs` (the catalogue), `events.rs` (its event data, parsed and checked), `rules.rs`
//! (the [`Ruleset`] impl: each event folded into the state), `state.rs` (what the events
//! established), `scoring.rs`, `insights.rs` and `tests.rs`.

pub mod mind_up;
pub mod mint_condition;
pub mod mint_julep;
pub mod vintage;

use serde_json::Value;

use crate::error::RuleError;
use crate::insights::{FactSums, Insight};
use crate::log::{self, Evaluation, LogError, LogEvent, NewEvent, Rejection, Replayed, Setup};
use crate::ruleset::{Ruleset, Variant};
use crate::setup::PlayerEntry;

pub use mind_up::MindUp;
pub use mint_condition::MintCondition;
pub use mint_julep::MintJulep;
pub use vintage::Vintage;

/// A game by its API id; every call dispatches to that game's [`Ruleset`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Game {
    MintCondition,
    MindUp,
    MintJulep,
    Vintage,
}

/// Calls a generic function with the ruleset of `$game`.
macro_rules! with_ruleset {
    ($game:expr, $f:ident $(::<$($extra:ty),*>)? ($($arg:expr),*)) => {
        match $game {
            Game::MintCondition => $f::<MintCondition $($(, $extra)*)?>($($arg),*),
            Game::MindUp => $f::<MindUp $($(, $extra)*)?>($($arg),*),
            Game::MintJulep => $f::<MintJulep $($(, $extra)*)?>($($arg),*),
            Game::Vintage => $f::<Vintage $($(, $extra)*)?>($($arg),*),
        }
    };
}

impl Game {
    pub const ALL: [Game; 4] = [
        Game::MintCondition,
        Game::MindUp,
        Game::MintJulep,
        Game::Vintage,
    ];

    pub fn from_id(id: &str) -> Option<Game> {
        Self::ALL.into_iter().find(|g| g.id() == id)
    }

    pub fn id(self) -> &'static str {
        fn id<R: Ruleset>() -> &'static str {
            R::ID
        }
        with_ruleset!(self, id())
    }

    pub fn title(self) -> &'static str {
        fn title<R: Ruleset>() -> &'static str {
            R::TITLE
        }
        with_ruleset!(self, title())
    }

    /// The game's own event types, without the common ones.
    pub fn event_types(self) -> &'static [&'static str] {
        fn types<R: Ruleset>() -> &'static [&'static str] {
            R::EVENT_TYPES
        }
        with_ruleset!(self, types())
    }

    /// The options of the published rules and the house-rule defaults.
    pub fn default_options(self) -> Value {
        fn defaults<R: Ruleset>() -> Value {
            serde_json::to_value(R::Options::default()).unwrap_or(Value::Null)
        }
        with_ruleset!(self, defaults())
    }

    /// The variants the statistics count apart (see [`Ruleset::VARIANTS`]).
    pub fn variants(self) -> &'static [Variant] {
        fn variants<R: Ruleset>() -> &'static [Variant] {
            R::VARIANTS
        }
        with_ruleset!(self, variants())
    }

    /// The variant a game with these effective options plays (`None`: the published rules).
    /// Options that do not parse play no variant: they were checked when the game started.
    pub fn variant(self, options: &Value) -> Option<&'static Variant> {
        fn variant<R: Ruleset>(options: &Value) -> Option<&'static Variant> {
            let options: R::Options = crate::setup::parse_options(options).ok()?;
            R::variant(&options)
        }
        with_ruleset!(self, variant(options))
    }

    /// Whether the lowest total wins in a variant (`None`: the published rules).
    pub fn lower_wins(self, variant: Option<&Variant>) -> bool {
        fn published<R: Ruleset>() -> bool {
            R::LOWER_WINS
        }
        variant.map_or_else(|| with_ruleset!(self, published()), |v| v.lower_wins)
    }

    /// The variant with this id, if the game has it.
    pub fn variant_by_id(self, id: &str) -> Option<&'static Variant> {
        self.variants().iter().find(|v| v.id == id)
    }

    /// The insights the game's statistics answer.
    pub fn insight_list(self) -> &'static [Insight] {
        fn list<R: Ruleset>() -> &'static [Insight] {
            R::INSIGHTS
        }
        with_ruleset!(self, list())
    }

    /// The game's insights from its facts summed over a club's finished games.
    pub fn insights(self, facts: &FactSums) -> serde_json::Map<String, Value> {
        fn insights<R: Ruleset>(facts: &FactSums) -> serde_json::Map<String, Value> {
            R::insights(facts)
        }
        with_ruleset!(self, insights(facts))
    }

    /// Checks options on their own, before any game (a table's preset): every key known, each
    /// value of the right type, and the game's own checks of them (a Vintage deck's numbers, its
    /// prizes). What options and players must agree on is checked when a game starts.
    pub fn check_options(self, options: &Value) -> Result<(), RuleError> {
        fn check<R: Ruleset>(options: &Value) -> Result<(), RuleError> {
            let options = crate::setup::parse_options::<R::Options>(options)?;
            // No players yet: only the checks of the options themselves can fail.
            R::check_setup(&[], &options)
        }
        with_ruleset!(self, check(options))
    }

    /// Options a table must give when it starts a game (no published default), with why.
    pub fn required_options(self) -> &'static [crate::error::Meaning] {
        fn required<R: Ruleset>() -> &'static [crate::error::Meaning] {
            R::REQUIRED_OPTIONS
        }
        with_ruleset!(self, required())
    }

    /// How many players the game seats.
    pub fn players(self) -> std::ops::RangeInclusive<usize> {
        fn players<R: Ruleset>() -> std::ops::RangeInclusive<usize> {
            R::PLAYERS
        }
        with_ruleset!(self, players())
    }

    /// Seats the players as a new game would: their count, names and colours checked.
    pub fn seat(self, players: &[PlayerEntry]) -> Result<Vec<crate::setup::Player>, RuleError> {
        fn seat<R: Ruleset>(
            players: &[PlayerEntry],
        ) -> Result<Vec<crate::setup::Player>, RuleError> {
            crate::setup::seat_players(players, R::PLAYERS, R::TITLE)
        }
        with_ruleset!(self, seat(players))
    }

    /// Seats the players and fills in the effective options of a new game.
    pub fn start(self, players: &[PlayerEntry], options: &Value) -> Result<Setup, RuleError> {
        use log::start;
        with_ruleset!(self, start(players, options))
    }

    /// Replays a stored log (or a prefix of it).
    pub fn evaluate(self, log: &[LogEvent]) -> Result<Evaluation, LogError> {
        use log::evaluate;
        with_ruleset!(self, evaluate(log))
    }

    /// Replays a stored log and, when it is finished, the facts the statistics need.
    pub fn evaluate_with_facts(self, log: &[LogEvent]) -> Result<Evaluation, LogError> {
        use log::evaluate_with_facts;
        with_ruleset!(self, evaluate_with_facts(log))
    }

    /// Checks new events against a stored log; all of them pass or the first rejection returns.
    pub fn check_append(
        self,
        log: &[LogEvent],
        batch: &[NewEvent],
    ) -> Result<Evaluation, Rejection> {
        use log::check_append;
        with_ruleset!(self, check_append(log, batch))
    }
}

/// A game's log replayed to its last event, whatever the game: new events continue from it
/// (see [`log::Replayed`]).
#[derive(Clone)]
pub enum GameState {
    MintCondition(Box<Replayed<MintCondition>>),
    MindUp(Box<Replayed<MindUp>>),
    MintJulep(Box<Replayed<MintJulep>>),
    Vintage(Box<Replayed<Vintage>>),
}

/// Calls a method of the [`Replayed`] inside a [`GameState`].
macro_rules! on_state {
    ($state:expr, $s:ident => $call:expr) => {
        match $state {
            GameState::MintCondition($s) => $call,
            GameState::MindUp($s) => $call,
            GameState::MintJulep($s) => $call,
            GameState::Vintage($s) => $call,
        }
    };
}

impl Game {
    /// Replays a whole stored log into a state that new events can continue from.
    pub fn replay(self, log: Vec<LogEvent>) -> Result<GameState, LogError> {
        Ok(match self {
            Game::MintCondition => GameState::MintCondition(Box::new(Replayed::from_log(log)?)),
            Game::MindUp => GameState::MindUp(Box::new(Replayed::from_log(log)?)),
            Game::MintJulep => GameState::MintJulep(Box::new(Replayed::from_log(log)?)),
            Game::Vintage => GameState::Vintage(Box::new(Replayed::from_log(log)?)),
        })
    }
}

impl GameState {
    /// The seq of the last event held.
    pub fn version(&self) -> u64 {
        on_state!(self, s => s.version())
    }

    /// The game events in force (see [`log::Replayed::game_events`]).
    pub fn game_events(&self) -> usize {
        on_state!(self, s => s.game_events())
    }

    /// Every event, seq 1 first, while the log is held (see [`log::Replayed`]).
    pub fn log(&self) -> Option<&[LogEvent]> {
        on_state!(self, s => s.log())
    }

    /// The size of the game's own replay, held apart from the enum (its heap aside): the four
    /// differ, and a held game should cost its own game's, not the largest's.
    pub fn replay_size(&self) -> usize {
        on_state!(self, s => std::mem::size_of_val(&**s))
    }

    /// Lets the log go: what is left is what a plain game event and a score need.
    pub fn let_go_of_log(&mut self) {
        on_state!(self, s => s.let_go_of_log())
    }

    /// Lets the replay from before the last event go (see [`log::Replayed::let_go_of_undo`]).
    pub fn let_go_of_undo(&mut self) {
        on_state!(self, s => s.let_go_of_undo())
    }

    /// Whether the replay from before the last event is kept, for an undo.
    pub fn keeps_undo(&self) -> bool {
        on_state!(self, s => s.keeps_undo())
    }

    /// Whether appending `batch` needs the whole log, and it was let go.
    pub fn needs_log(&self, batch: &[NewEvent]) -> bool {
        on_state!(self, s => s.needs_log(batch))
    }

    /// What the log amounts to (with a finished game's facts when `with_facts`).
    pub fn evaluation(&self, with_facts: bool) -> Evaluation {
        on_state!(self, s => s.evaluation(with_facts))
    }

    /// Checks new events as if appended one by one and holds them when all pass; on a
    /// rejection the state is unchanged.
    pub fn append(&mut self, batch: &[NewEvent]) -> Result<Evaluation, Rejection> {
        on_state!(self, s => s.append(batch))
    }
}

/// Lists the game ids, for error messages.
pub fn known_ids() -> String {
    Game::ALL
        .iter()
        .map(|g| g.id())
        .collect::<Vec<_>>()
        .join(", ")
}
