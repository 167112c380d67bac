//! The rule engine of Mint Julep: the [`Ruleset`] that folds its events into a [`State`]
//! and hands the state to `scoring` and `insights`.

use super::events::{self, BET_PLACED, CARD_PLAYED, RACE_RECORDED, ROUND_ENDED};
use super::state::{State, end_round, place_bet, play_card, record_race};
use super::{LAST_RACE_ENDS_GAME_SINCE, NAMED_REPLACEMENT_SINCE, Options};
use super::{insights, scoring};
use crate::error::RuleError;
use crate::insights::{FactSums, Insight};
use crate::ruleset::Ruleset;
use crate::score::{Fact, Scoreboard};
use crate::setup::{Player, Players};
use serde_json::{Map, Value};

/// The rule engine of Mint Julep.
pub struct MintJulep;

impl Ruleset for MintJulep {
    const ID: &'static str = "mint-julep";
    const TITLE: &'static str = "Mint Julep";
    const PLAYERS: std::ops::RangeInclusive<usize> = 2..=4;
    const EVENT_TYPES: &'static [&'static str] =
        &[BET_PLACED, CARD_PLAYED, RACE_RECORDED, ROUND_ENDED];

    type Options = Options;
    type State = State;

    fn check_setup(_players: &[Player], _options: &Options) -> Result<(), RuleError> {
        Ok(())
    }

    fn upcast_options(schema_version: u32, options: &mut Map<String, Value>) {
        // Games stored before round 3's finish ended the game ended with round_ended.
        if schema_version < LAST_RACE_ENDS_GAME_SINCE {
            options
                .entry("last_race_ends_game")
                .or_insert(Value::Bool(false));
        }
        // Games stored before a named replacement was one in every game read `replaces` only
        // with 2 players holding two bets.
        if schema_version < NAMED_REPLACEMENT_SINCE {
            options
                .entry("replaces_only_between_two_bets")
                .or_insert(Value::Bool(true));
        }
    }

    fn new_game(players: Players, options: Options) -> State {
        State::new(players, options)
    }

    fn apply(state: &mut State, event_type: &str, data: &Value) -> Result<(), RuleError> {
        match event_type {
            BET_PLACED => {
                let bet = events::parse_bet_placed(data, &state.players)?;
                place_bet(state, bet)
            }
            CARD_PLAYED => {
                let card = events::parse_card_played(data, &state.players)?;
                play_card(state, card)
            }
            RACE_RECORDED => {
                let race = events::parse_race_recorded(data)?;
                record_race(state, race)
            }
            ROUND_ENDED => {
                let round = events::parse_round_ended(data)?;
                end_round(state, round)
            }
            other => Err(RuleError::said(
                "",
                crate::said!(
                    "server.mint_julep.refusal.mint_julep_has_no_event",
                    other = format!("{:?}", other)
                ),
            )),
        }
    }

    fn is_finished(state: &State) -> bool {
        state.finished
    }

    /// rules: "After round 3 the game is finished" with its `round_ended`; a table that sends
    /// it after round 3's recorded finish (which already ended the game) is not refused.
    fn accepts_when_finished(state: &State, event_type: &str) -> bool {
        state.last_round_end_due && event_type == ROUND_ENDED
    }

    fn score(state: &State) -> Scoreboard {
        scoring::score(state)
    }

    fn facts(state: &State) -> Vec<Fact> {
        scoring::facts(state)
    }

    const INSIGHTS: &'static [Insight] = insights::INSIGHTS;

    fn insights(facts: &FactSums) -> Map<String, Value> {
        insights::insights(facts)
    }
}
