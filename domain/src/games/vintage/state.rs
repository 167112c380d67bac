//! What the events of a Vintage game established, and the [`Ruleset`] impl.

use serde_json::{Map, Value};

use super::catalogue::{CARDS, Catalogue, Naming};
use super::events::{
    self, COLLECTIONS_RECORDED, FINAL_BANKED, PlayerCards, SHOWCASES_DEALT, TURN_TAKEN,
};
use super::table::Table;
use super::{Attribute, Card, MAX_PRIZES, Options, insights, scoring};
use crate::error::RuleError;
use crate::insights::{FactSums, Insight};
use crate::pointer::pointer;
use crate::ruleset::Ruleset;
use crate::score::{Fact, Scoreboard};
use crate::setup::Player;

/// The rule engine of Vintage.
pub struct Vintage;

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub players: Vec<Player>,
    pub options: Options,
    /// Every card described so far.
    pub catalogue: Catalogue,
    pub record: Record,
}

/// How the table records its game: turn by turn, or only the collections at the end.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// Nothing recorded yet.
    Waiting,
    TurnByTurn(Table),
    /// `collections_recorded`: per seat, the collected card ids.
    EndOnly(Vec<Vec<String>>),
}

impl State {
    /// The collected card ids per seat, so far.
    pub fn collections(&self) -> Vec<&[String]> {
        match &self.record {
            Record::Waiting => vec![&[]; self.players.len()],
            Record::TurnByTurn(table) => table.collections.iter().map(Vec::as_slice).collect(),
            Record::EndOnly(collections) => collections.iter().map(Vec::as_slice).collect(),
        }
    }
}

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

const NOT_DEALT: &str = "the showcases have not been dealt yet; record showcases_dealt first (or, to record only the \
     end of the game, collections_recorded)";
const END_ONLY: &str = "this game was recorded by its collections only";

fn deal(state: &mut State, data: &Value) -> Result<(), RuleError> {
    if !matches!(state.record, Record::Waiting) {
        return Err(RuleError::new(
            "",
            "the showcases were already dealt; they are dealt once, at the start of the game",
        ));
    }
    let dealt = events::parse_showcases_dealt(data, &state.players)?;
    let mut naming = Naming::new(&state.catalogue);
    let table = Table::deal(&dealt, &state.players, &mut naming)?;
    let learned = naming.learned();
    state.catalogue.learn(learned);
    state.record = Record::TurnByTurn(table);
    Ok(())
}

fn take_turn(state: &mut State, data: &Value) -> Result<(), RuleError> {
    let turn = events::parse_turn_taken(data)?;
    let table = match &mut state.record {
        Record::TurnByTurn(table) => table,
        Record::Waiting => return Err(RuleError::new("", NOT_DEALT)),
        Record::EndOnly(_) => return Err(RuleError::new("", END_ONLY)),
    };
    let mut naming = Naming::new(&state.catalogue);
    let plan = table.plan_turn(&turn, &state.players, &mut naming)?;
    let learned = naming.learned();
    state.catalogue.learn(learned);
    table.apply_turn(plan);
    Ok(())
}

fn final_bank(state: &mut State, data: &Value) -> Result<(), RuleError> {
    let table = match &mut state.record {
        Record::TurnByTurn(table) => table,
        Record::Waiting => return Err(RuleError::new("", NOT_DEALT)),
        Record::EndOnly(_) => return Err(RuleError::new("", END_ONLY)),
    };
    let banked = events::parse_final_banked(data, &state.players)?;
    let mut naming = Naming::new(&state.catalogue);
    let plan = table.plan_final_bank(&banked, &state.players, &mut naming)?;
    let learned = naming.learned();
    state.catalogue.learn(learned);
    table.apply_final_bank(plan);
    Ok(())
}

/// The end-only shortcut: every player's collection at once; ends the game.
fn record_collections(state: &mut State, data: &Value) -> Result<(), RuleError> {
    if !matches!(state.record, Record::Waiting) {
        return Err(RuleError::new(
            "",
            "this game is recorded turn by turn, so its collections come from the turns; \
             collections_recorded is for a table that records only the end",
        ));
    }
    let given = events::parse_collections_recorded(data, &state.players)?;
    let mut naming = Naming::new(&state.catalogue);
    let collections = resolve_collections(&given, state, &mut naming)?;
    let learned = naming.learned();
    state.catalogue.learn(learned);
    state.record = Record::EndOnly(collections);
    Ok(())
}

fn resolve_collections(
    given: &[PlayerCards],
    state: &State,
    naming: &mut Naming,
) -> Result<Vec<Vec<String>>, RuleError> {
    let mut collections: Vec<Vec<String>> = Vec::with_capacity(given.len());
    for entry in given {
        let mut collection = Vec::with_capacity(entry.cards.len());
        for (i, card) in entry.cards.iter().enumerate() {
            let at = format!("{}/{i}", entry.at);
            let id = naming.resolve(card).map_err(|e| e.within(&at))?;
            if let Some(holder) = collections
                .iter()
                .chain(std::iter::once(&collection))
                .position(|c| c.contains(&id))
            {
                return Err(RuleError::new(
                    at,
                    format!(
                        "card {id} is already in {}'s collection; a card can be in one place only",
                        state.players[holder].name
                    ),
                ));
            }
            collection.push(id);
        }
        collections.push(collection);
    }
    let total: usize = collections.iter().map(Vec::len).sum();
    if total > CARDS {
        return Err(RuleError::new(
            "/collections",
            format!("{total} cards are collected, but the game has only {CARDS} antique cards"),
        ));
    }
    Ok(collections)
}
