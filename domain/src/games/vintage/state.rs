//! What the events of a Vintage game established (`rules.rs` folds the events into it).

use serde_json::Value;

use super::Options;
use super::catalogue::{CARDS, CardNo, Catalogue, Naming};
use super::events::{self, PlayerCards};
use super::table::Table;
use crate::error::RuleError;
use crate::setup::Players;

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub players: Players,
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
    /// `collections_recorded`: per seat, the collected cards.
    EndOnly(Vec<Vec<CardNo>>),
}

impl State {
    /// The collected cards per seat, so far.
    pub fn collections(&self) -> Vec<&[CardNo]> {
        match &self.record {
            Record::Waiting => vec![&[]; self.players.len()],
            Record::TurnByTurn(table) => (0..table.seats()).map(|s| table.collection(s)).collect(),
            Record::EndOnly(collections) => collections.iter().map(Vec::as_slice).collect(),
        }
    }
}

fn not_dealt() -> RuleError {
    RuleError::said(
        "",
        crate::said!("server.vintage.refusal.showcases_not_dealt"),
    )
}

fn end_only() -> RuleError {
    RuleError::said(
        "",
        crate::said!("server.vintage.refusal.recorded_by_collections_only"),
    )
}

pub(super) fn deal(state: &mut State, data: &Value) -> Result<(), RuleError> {
    if !matches!(state.record, Record::Waiting) {
        return Err(RuleError::said(
            "",
            crate::said!("server.vintage.refusal.showcases_were_already_dealt_they"),
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

pub(super) fn take_turn(state: &mut State, data: &Value) -> Result<(), RuleError> {
    let turn = events::parse_turn_taken(data)?;
    let table = match &mut state.record {
        Record::TurnByTurn(table) => table,
        Record::Waiting => return Err(not_dealt()),
        Record::EndOnly(_) => return Err(end_only()),
    };
    let mut naming = Naming::new(&state.catalogue);
    let plan = table.plan_turn(&turn, &state.players, &mut naming)?;
    let learned = naming.learned();
    state.catalogue.learn(learned);
    table.apply_turn(plan);
    Ok(())
}

pub(super) fn final_bank(state: &mut State, data: &Value) -> Result<(), RuleError> {
    let table = match &mut state.record {
        Record::TurnByTurn(table) => table,
        Record::Waiting => return Err(not_dealt()),
        Record::EndOnly(_) => return Err(end_only()),
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
pub(super) fn record_collections(state: &mut State, data: &Value) -> Result<(), RuleError> {
    if !matches!(state.record, Record::Waiting) {
        return Err(RuleError::said(
            "",
            crate::said!("server.vintage.refusal.this_game_recorded_turn_turn"),
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
) -> Result<Vec<Vec<CardNo>>, RuleError> {
    let mut collections: Vec<Vec<CardNo>> = Vec::with_capacity(given.len());
    for entry in given {
        let mut collection = Vec::with_capacity(entry.cards.len());
        for (i, card) in entry.cards.iter().enumerate() {
            let at = format!("{}/{i}", entry.at);
            let no = naming.resolve(card).map_err(|e| e.within(&at))?;
            if let Some(holder) = collections
                .iter()
                .chain(std::iter::once(&collection))
                .position(|c| c.contains(&no))
            {
                return Err(RuleError::said(
                    at,
                    crate::said!(
                        "server.vintage.refusal.card_already_collection_card_can",
                        id = naming.id(no),
                        name = &state.players[holder].name
                    ),
                ));
            }
            collection.push(no);
        }
        collections.push(collection);
    }
    let total: usize = collections.iter().map(Vec::len).sum();
    if total > CARDS {
        return Err(RuleError::said(
            "/collections",
            crate::said!(
                "server.vintage.refusal.cards_are_collected_but_game",
                total = total,
                cards = CARDS
            ),
        ));
    }
    Ok(collections)
}
