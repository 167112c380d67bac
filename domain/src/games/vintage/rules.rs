//! The rule engine of Vintage: the [`Ruleset`] that folds its events into a [`State`]
//! and hands the state to `scoring` and `insights`.

use super::catalogue::{CARDS, Catalogue};
use super::events::{COLLECTIONS_RECORDED, FINAL_BANKED, SHOWCASES_DEALT, TURN_TAKEN};
use super::state::{Record, State, deal, final_bank, record_collections, take_turn};
use super::{Attribute, Card, MAX_PRIZES, Options, insights, scoring};
use crate::error::RuleError;
use crate::insights::{FactSums, Insight};
use crate::pointer::pointer;
use crate::ruleset::Ruleset;
use crate::score::{Fact, Scoreboard, within_limit};
use crate::setup::Player;
use serde_json::{Map, Value};

/// The rule engine of Vintage.
pub struct Vintage;

impl Ruleset for Vintage {
    const ID: &'static str = "vintage";
    const TITLE: &'static str = "Vintage";
    const PLAYERS: std::ops::RangeInclusive<usize> = 3..=6;
    const EVENT_TYPES: &'static [&'static str] = &[
        SHOWCASES_DEALT,
        TURN_TAKEN,
        FINAL_BANKED,
        COLLECTIONS_RECORDED,
    ];

    type Options = Options;
    type State = State;

    // rules: the prize list is not published, so a game without prizes must say so.
    const REQUIRED_OPTIONS: &'static [(&'static str, &'static str)] = &[(
        "prizes",
        "which prize cards are in play? Vintage's prizes are not published, so the table lists \
         them in options.prizes, e.g. [{\"id\": \"blue\", \"name\": \"Most blue objects\", \
         \"attribute\": \"colour\", \"value\": \"blue\", \"points\": 4}]; to play without \
         prizes, say \"prizes\": []",
    )];

    fn check_setup(_players: &[Player], options: &Options) -> Result<(), RuleError> {
        if options.prizes.len() > MAX_PRIZES {
            return Err(RuleError::new(
                "/options/prizes",
                format!(
                    "Vintage has {MAX_PRIZES} prize cards, so at most {MAX_PRIZES} prizes; {} were given",
                    options.prizes.len()
                ),
            ));
        }
        for (number, card) in &options.deck {
            let at = |field: &str| pointer(["options", "deck", &number.to_string(), field]);
            if !(1..=CARDS as u32).contains(number) {
                return Err(RuleError::new(
                    pointer(["options", "deck", &number.to_string()]),
                    format!("the deck's cards are numbered 1 to {CARDS}, not {number}"),
                ));
            }
            within_limit(i64::from(card.value), at("value"), "a card's value")?;
            for (field, text) in [
                ("type", &card.object),
                ("colour", &card.colour),
                ("period", &card.period),
            ] {
                if text.trim().is_empty() {
                    return Err(RuleError::new(
                        at(field),
                        format!("card {number} of the deck needs its {field}"),
                    ));
                }
            }
        }
        for (i, prize) in options.prizes.iter().enumerate() {
            let at = |field: &str| pointer(["options", "prizes", &i.to_string(), field]);
            if prize.id.trim().is_empty() {
                return Err(RuleError::new(at("id"), "a prize needs an id"));
            }
            within_limit(prize.points, at("points"), "a prize's points")?;
            if options.prizes[..i].iter().any(|p| p.id == prize.id) {
                return Err(RuleError::new(
                    at("id"),
                    format!(
                        "two prizes have the id {:?}; prize ids must differ",
                        prize.id
                    ),
                ));
            }
            if prize.name.trim().is_empty() {
                return Err(RuleError::new(
                    at("name"),
                    format!(
                        "prize {:?} needs a name, e.g. \"Most blue objects\"",
                        prize.id
                    ),
                ));
            }
            if Attribute::parse(&prize.attribute).is_none() {
                return Err(RuleError::new(
                    at("attribute"),
                    format!(
                        "prize {:?} counts attribute {:?}, but a prize counts a card's printed text: \
                         \"type\", \"colour\", \"period\" or another attribute the cards record \
                         (not \"id\" or \"value\")",
                        prize.id, prize.attribute
                    ),
                ));
            }
            if prize.value.trim().is_empty() {
                return Err(RuleError::new(
                    at("value"),
                    format!(
                        "prize {:?} needs the {} it counts, e.g. \"blue\"",
                        prize.id, prize.attribute
                    ),
                ));
            }
            if prize.points < 0 {
                return Err(RuleError::new(
                    at("points"),
                    format!(
                        "prize {:?} is worth {} points, but points are 0 or more",
                        prize.id, prize.points
                    ),
                ));
            }
        }
        Ok(())
    }

    fn new_game(players: Vec<Player>, options: Options) -> State {
        // The table's deck is known from the start: its cards are named by number.
        let mut catalogue = Catalogue::default();
        catalogue.learn(
            options
                .deck
                .iter()
                .map(|(number, card)| Card {
                    id: number.to_string(),
                    object: card.object.trim().to_owned(),
                    colour: card.colour.trim().to_owned(),
                    period: card.period.trim().to_owned(),
                    value: card.value,
                    other: Default::default(),
                })
                .collect(),
        );
        State {
            players,
            options,
            catalogue,
            record: Record::Waiting,
        }
    }

    fn apply(state: &mut State, event_type: &str, data: &Value) -> Result<(), RuleError> {
        match event_type {
            SHOWCASES_DEALT => deal(state, data),
            TURN_TAKEN => take_turn(state, data),
            FINAL_BANKED => final_bank(state, data),
            COLLECTIONS_RECORDED => record_collections(state, data),
            other => Err(RuleError::new(
                "",
                format!("Vintage has no event {other:?}"),
            )),
        }
    }

    fn is_finished(state: &State) -> bool {
        match &state.record {
            Record::Waiting => false,
            Record::TurnByTurn(table) => table.final_banked,
            Record::EndOnly(_) => true,
        }
    }

    fn anything_scored(state: &State) -> bool {
        match &state.record {
            Record::Waiting => false,
            Record::TurnByTurn(table) => !table.turns.is_empty() || table.final_banked,
            Record::EndOnly(_) => true,
        }
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
