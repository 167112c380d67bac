//! The rule engine of Mint Condition: the [`Ruleset`] that folds its events into a [`State`]
//! and hands the state to `scoring` and `insights`.

use super::events::{self, ROUND_COLLECTED, ROUNDS};
use super::state::State;
use super::{Options, PROTECTED_BE_CAREFUL_SINCE};
use super::{insights, scoring};
use crate::error::RuleError;
use crate::insights::{FactSums, Insight};
use crate::pointer::pointer;
use crate::ruleset::{Ruleset, Variant};
use crate::score::{Fact, Scoreboard, within_limit};
use crate::setup::{Player, Players};
use serde_json::{Map, Value, json};

/// The rule engine of Mint Condition.
pub struct MintCondition;

impl Ruleset for MintCondition {
    const ID: &'static str = "mint-condition";
    const TITLE: &'static str = "Mint Condition";
    const PLAYERS: std::ops::RangeInclusive<usize> = 2..=5;
    const EVENT_TYPES: &'static [&'static str] = &[ROUND_COLLECTED];

    type Options = Options;
    type State = State;

    fn check_setup(players: &[Player], options: &Options) -> Result<(), RuleError> {
        if options.lucky
            && let Some(p) = players.iter().find(|p| p.color.is_none())
        {
            return Err(RuleError::said(
                pointer(["players", &(p.seat - 1).to_string(), "color"]),
                crate::said!(
                    "server.mint_condition.refusal.lucky_variant_every_player_needs",
                    name = &p.name
                ),
            ));
        }
        if let Some(rule) = &options.smoking_kills {
            for (field, damage) in [("holder", rule.holder), ("others", rule.others)] {
                let at = pointer(["options", "smoking_kills", field]);
                within_limit(
                    i64::from(damage),
                    at,
                    crate::said!("server.mint_condition.subject.smoking_kills_damage"),
                )?;
            }
        }
        Ok(())
    }

    fn new_game(players: Players, options: Options) -> State {
        State {
            players,
            options,
            rounds: Vec::with_capacity(ROUNDS as usize),
        }
    }

    fn apply(state: &mut State, event_type: &str, data: &Value) -> Result<(), RuleError> {
        debug_assert_eq!(event_type, ROUND_COLLECTED);
        let round =
            events::parse_round_collected(data, &state.players, &state.options, &state.rounds)?;
        state.rounds.push(round);
        Ok(())
    }

    fn is_finished(state: &State) -> bool {
        state.rounds.len() == ROUNDS as usize
    }

    fn score(state: &State) -> Scoreboard {
        scoring::score(state)
    }

    fn facts(state: &State) -> Vec<Fact> {
        scoring::facts(state)
    }

    const LOWER_WINS: bool = super::LOWER_WINS;
    const VARIANTS: &'static [Variant] = &[super::HEAVILY_USED];

    fn variant(options: &Options) -> Option<&'static Variant> {
        options.variant()
    }

    const INSIGHTS: &'static [Insight] = insights::INSIGHTS;

    fn insights(facts: &FactSums) -> Map<String, Value> {
        insights::insights(facts)
    }

    fn upcast_options(schema_version: u32, options: &mut Map<String, Value>) {
        // Games started before the option existed left a protected Be Careful! out.
        if schema_version < PROTECTED_BE_CAREFUL_SINCE {
            options
                .entry("protected_be_careful")
                .or_insert_with(|| json!("ignored"));
        }
    }
}
