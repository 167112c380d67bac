//! The rule engine of Vintage: the [`Ruleset`] that folds its events into a [`State`]
//! and hands the state to `scoring` and `insights`.

use super::catalogue::{CARDS, Catalogue};
use super::events::{COLLECTIONS_RECORDED, FINAL_BANKED, SHOWCASES_DEALT, TURN_TAKEN};
use super::state::{Record, State, deal, final_bank, record_collections, take_turn};
use super::{ATTRIBUTE_NAMES_IGNORE_CASE_SINCE, Attribute, MAX_PRIZES, Options, insights, scoring};
use crate::error::RuleError;
use crate::insights::{FactSums, Insight};
use crate::pointer::pointer;
use crate::ruleset::Ruleset;
use crate::score::{Fact, Scoreboard, within_limit};
use crate::setup::{Player, Players};
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
    const REQUIRED_OPTIONS: &'static [crate::error::Meaning] = &[("prizes", || {
        crate::said!("server.vintage.refusal.prizes_required")
    })];

    fn check_setup(_players: &[Player], options: &Options) -> Result<(), RuleError> {
        if options.prizes.len() > MAX_PRIZES {
            return Err(RuleError::said(
                "/options/prizes",
                crate::said!(
                    "server.vintage.refusal.vintage_has_prize_cards_so",
                    max_prizes = MAX_PRIZES,
                    prizes = options.prizes.len()
                ),
            ));
        }
        for (number, card) in &options.deck {
            let at = |field: &str| pointer(["options", "deck", &number.to_string(), field]);
            if !(1..=CARDS as u32).contains(number) {
                return Err(RuleError::said(
                    pointer(["options", "deck", &number.to_string()]),
                    crate::said!(
                        "server.vintage.refusal.deck_cards_are_numbered_1",
                        cards = CARDS,
                        number = number
                    ),
                ));
            }
            within_limit(
                i64::from(card.value),
                at("value"),
                crate::said!("server.vintage.subject.card_value"),
            )?;
            for (field, text) in [
                ("type", &card.object),
                ("colour", &card.colour),
                ("period", &card.period),
            ] {
                if text.trim().is_empty() {
                    return Err(RuleError::said(
                        at(field),
                        crate::said!(
                            "server.vintage.refusal.card_deck_needs",
                            number = number,
                            field = field
                        ),
                    ));
                }
            }
        }
        for (i, prize) in options.prizes.iter().enumerate() {
            let at = |field: &str| pointer(["options", "prizes", &i.to_string(), field]);
            if prize.id.trim().is_empty() {
                return Err(RuleError::said(
                    at("id"),
                    crate::said!("server.vintage.refusal.prize_needs_id"),
                ));
            }
            within_limit(
                prize.points,
                at("points"),
                crate::said!("server.vintage.subject.prize_points"),
            )?;
            if options.prizes[..i].iter().any(|p| p.id == prize.id) {
                return Err(RuleError::said(
                    at("id"),
                    crate::said!(
                        "server.vintage.refusal.two_prizes_have_id_prize",
                        id = format!("{:?}", prize.id)
                    ),
                ));
            }
            if prize.name.trim().is_empty() {
                return Err(RuleError::said(
                    at("name"),
                    crate::said!(
                        "server.vintage.refusal.prize_needs_name_e_g",
                        id = format!("{:?}", prize.id)
                    ),
                ));
            }
            if Attribute::parse(&prize.attribute, options.attribute_names_exact).is_none() {
                return Err(RuleError::said(
                    at("attribute"),
                    crate::said!(
                        "server.vintage.refusal.prize_counts_attribute_but_prize",
                        id = format!("{:?}", prize.id),
                        attribute = format!("{:?}", prize.attribute)
                    ),
                ));
            }
            if prize.value.trim().is_empty() {
                return Err(RuleError::said(
                    at("value"),
                    crate::said!(
                        "server.vintage.refusal.prize_needs_counts_e_g",
                        id = format!("{:?}", prize.id),
                        attribute = &*prize.attribute
                    ),
                ));
            }
            if prize.points < 0 {
                return Err(RuleError::said(
                    at("points"),
                    crate::said!(
                        "server.vintage.refusal.prize_worth_points_but_points",
                        id = format!("{:?}", prize.id),
                        points = &prize.points
                    ),
                ));
            }
        }
        Ok(())
    }

    fn upcast_options(schema_version: u32, options: &mut Map<String, Value>) {
        // Games stored before attribute names were read ignoring case read them letter for
        // letter: a prize on "Colour" counted nothing, and still counts nothing there.
        if schema_version < ATTRIBUTE_NAMES_IGNORE_CASE_SINCE {
            options
                .entry("attribute_names_exact")
                .or_insert(Value::Bool(true));
        }
    }

    fn new_game(players: Players, mut options: Options) -> State {
        // The table's deck is known from the start: its cards are named by number. The
        // catalogue keeps them; the options need not keep them twice.
        let deck = std::mem::take(&mut options.deck);
        let catalogue = Catalogue::of_deck(deck.iter().map(|(n, card)| (*n, card)));
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
            other => Err(RuleError::said(
                "",
                crate::said!(
                    "server.vintage.refusal.vintage_has_no_event",
                    other = format!("{:?}", other)
                ),
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
            Record::TurnByTurn(table) => table.turns > 0 || table.final_banked,
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
