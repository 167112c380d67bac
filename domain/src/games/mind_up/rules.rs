//! The rule engine of Mind Up!: the [`Ruleset`] that folds its events into a [`State`]
//! and hands the state to `scoring` and `insights`.

use super::catalogue::{self, Catalogue};
use super::events::{self, CARDS_PLAYED, LAST_CARDS_PLACED, ROUND_STARTED, ROUNDS, ROWS_RECORDED};
use super::round_started::start_round;
use super::rows_recorded::record_rows;
use super::state::State;
use super::turns::{place_last_cards, play_turn};
use super::{
    KEPT_OBJECTIVES_LISTED_SINCE, MAX_OBJECTIVES, Options, THREE_OBJECTIVES_RENEWED_SINCE,
    insights, scoring,
};
use crate::error::RuleError;
use crate::insights::{FactSums, Insight};
use crate::ruleset::Ruleset;
use crate::score::{Fact, Scoreboard};
use crate::setup::{Player, Players};
use serde_json::{Map, Value, json};

/// The rule engine of Mind Up!.
pub struct MindUp;

impl Ruleset for MindUp {
    const ID: &'static str = "mind-up";
    const TITLE: &'static str = "Mind Up!";
    const PLAYERS: std::ops::RangeInclusive<usize> = 3..=6;
    const EVENT_TYPES: &'static [&'static str] = &[
        ROUND_STARTED,
        CARDS_PLAYED,
        LAST_CARDS_PLACED,
        ROWS_RECORDED,
    ];

    type Options = Options;
    type State = State;

    fn check_setup(_players: &[Player], options: &Options) -> Result<(), RuleError> {
        if options.kept_objectives_left_out {
            return Err(RuleError::said(
                "/options/kept_objectives_left_out",
                crate::said!("server.mind_up.refusal.kept_objectives_left_out_only"),
            ));
        }
        if options.three_objectives_kept {
            return Err(RuleError::said(
                "/options/three_objectives_kept",
                crate::said!("server.mind_up.refusal.three_objectives_kept_only_describes"),
            ));
        }
        if options.objectives > MAX_OBJECTIVES {
            return Err(RuleError::said(
                "/options/objectives",
                crate::said!(
                    "server.mind_up.refusal.game_uses_0_objective_cards",
                    max_objectives = MAX_OBJECTIVES,
                    objectives = &options.objectives
                ),
            ));
        }
        catalogue::check_overrides(options.cards.as_deref().unwrap_or_default())
    }

    fn new_game(players: Players, options: Options) -> State {
        let catalogue = Catalogue::with_overrides(options.cards.as_deref().unwrap_or_default());
        State {
            players,
            options,
            catalogue,
            rounds: Vec::with_capacity(ROUNDS as usize),
        }
    }

    fn apply(state: &mut State, event_type: &str, data: &Value) -> Result<(), RuleError> {
        match event_type {
            ROUND_STARTED => {
                let event = events::parse_round_started(data, &state.players)?;
                let round = start_round(state, event)?;
                state.rounds.push(round);
            }
            CARDS_PLAYED => {
                let event = events::parse_cards_down(data, CARDS_PLAYED, &state.players)?;
                play_turn(state, event)?;
            }
            LAST_CARDS_PLACED => {
                let event = events::parse_cards_down(data, LAST_CARDS_PLACED, &state.players)?;
                place_last_cards(state, &event)?;
            }
            _ => {
                let event = events::parse_rows_recorded(data, &state.players)?;
                record_rows(state, event)?;
            }
        }
        Ok(())
    }

    fn is_finished(state: &State) -> bool {
        state.rounds.len() == ROUNDS as usize && state.rounds.iter().all(|r| r.over)
    }

    fn anything_scored(state: &State) -> bool {
        state
            .rounds
            .iter()
            .any(|r| !r.turns.is_empty() || r.rows_recorded || r.over)
    }

    fn score(state: &State) -> Scoreboard {
        scoring::score(state)
    }

    fn facts(state: &State) -> Vec<Fact> {
        scoring::facts(state)
    }

    fn upcast_options(schema_version: u32, options: &mut Map<String, Value>) {
        // Games stored before three objectives were renewed each round kept round 1's.
        if schema_version < THREE_OBJECTIVES_RENEWED_SINCE {
            options
                .entry("three_objectives_kept")
                .or_insert_with(|| json!(true));
        }
        // Games stored before kept objectives were listed in every round could leave them out.
        if schema_version < KEPT_OBJECTIVES_LISTED_SINCE {
            options
                .entry("kept_objectives_left_out")
                .or_insert_with(|| json!(true));
        }
    }

    const INSIGHTS: &'static [Insight] = insights::INSIGHTS;

    fn insights(facts: &FactSums) -> Map<String, Value> {
        insights::insights(facts)
    }
}
