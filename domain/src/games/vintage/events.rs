//! Vintage's events, read from their JSON data. This file checks their shape (fields, lists,
//! player names); `table.rs` checks them against the game so far.

use serde_json::{Map, Value};

use super::catalogue::CardRef;
use crate::data::fields;
use crate::error::RuleError;
use crate::message::Message;
use crate::pointer::pointer;
use crate::setup::{Player, keys_by_seated_name};

pub const SHOWCASES_DEALT: &str = "showcases_dealt";
pub const TURN_TAKEN: &str = "turn_taken";
pub const FINAL_BANKED: &str = "final_banked";
pub const COLLECTIONS_RECORDED: &str = "collections_recorded";

/// One player's list of cards in a per-player object, with the pointer of that list.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerCards {
    pub at: String,
    pub cards: Vec<CardRef>,
}

/// `turn_taken`: bank, then steal or dig, then draw two and keep one (rules: A turn).
#[derive(Debug, Clone, PartialEq)]
pub struct TurnTaken {
    pub player: String,
    pub banked: CardRef,
    pub take: Take,
    pub drawn: Vec<CardRef>,
    pub kept: Option<CardRef>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Take {
    Steal { from: String, card: CardRef },
    Dig(CardRef),
}

/// A card at `at` (a field of the event), with errors pointing inside it.
fn card_at(value: Option<&Value>, at: &str, what: Message) -> Result<CardRef, RuleError> {
    match value {
        None | Some(Value::Null) => Err(RuleError::said(
            at,
            crate::said!("server.vintage.refusal.required", what = what),
        )),
        Some(raw) => CardRef::parse(raw).map_err(|e| e.within(at)),
    }
}

fn cards_at(value: &Value, at: &str, what: Message) -> Result<Vec<CardRef>, RuleError> {
    let list = value.as_array().ok_or_else(|| {
        RuleError::said(
            at,
            crate::said!("server.vintage.refusal.must_list_cards", what = what),
        )
    })?;
    list.iter()
        .enumerate()
        .map(|(i, raw)| CardRef::parse(raw).map_err(|e| e.within(&format!("{at}/{i}"))))
        .collect()
}

/// An object from player name to a list of cards, every player exactly once; returned in seat
/// order. `whose` names one entry in messages ("Ann's showcase").
fn per_player(
    object: &Map<String, Value>,
    field: &str,
    whose: fn(&str) -> Message,
    players: &[Player],
) -> Result<Vec<PlayerCards>, RuleError> {
    let given = object
        .get(field)
        .and_then(Value::as_object)
        .ok_or_else(|| {
            RuleError::said(
                pointer([field]),
                crate::said!(
                    "server.vintage.refusal.must_object_from_player_name",
                    field = field
                ),
            )
        })?;
    let given = &keys_by_seated_name(given, field, players)?;
    players
        .iter()
        .map(|player| {
            let at = pointer([field, player.name.as_str()]);
            let raw = given.get(player.name.as_str()).ok_or_else(|| {
                RuleError::said(
                    pointer([field]),
                    crate::said!(
                        "server.vintage.refusal.missing_every_player_appears_once",
                        whose = whose(&player.name)
                    ),
                )
            })?;
            let cards = cards_at(raw, &at, whose(&player.name))?;
            Ok(PlayerCards { at, cards })
        })
        .collect()
}

/// `showcases_dealt`: `{"showcases": {"Ann": [card], "Bo": [card, card], …}}`.
pub fn parse_showcases_dealt(
    data: &Value,
    players: &[Player],
) -> Result<Vec<PlayerCards>, RuleError> {
    let object = fields(data, SHOWCASES_DEALT, &["showcases"])?;
    per_player(
        object,
        "showcases",
        |name| crate::said!("server.vintage.whose.showcase", name = name),
        players,
    )
}

/// `final_banked`: `{"banked": {"Ann": ["c30"], "Bo": ["c12", "c14"], …}}`.
pub fn parse_final_banked(data: &Value, players: &[Player]) -> Result<Vec<PlayerCards>, RuleError> {
    let object = fields(data, FINAL_BANKED, &["banked"])?;
    per_player(
        object,
        "banked",
        |name| crate::said!("server.vintage.whose.final_bank", name = name),
        players,
    )
}

/// `collections_recorded`: `{"collections": {"Ann": [card, …], …}}`.
pub fn parse_collections_recorded(
    data: &Value,
    players: &[Player],
) -> Result<Vec<PlayerCards>, RuleError> {
    let object = fields(data, COLLECTIONS_RECORDED, &["collections"])?;
    per_player(
        object,
        "collections",
        |name| crate::said!("server.vintage.whose.collection", name = name),
        players,
    )
}

/// `turn_taken`: `{"player", "banked", "steal": {"from", "card"} | null, "dig": card | null,
/// "drawn": [card, card], "kept"}`.
pub fn parse_turn_taken(data: &Value) -> Result<TurnTaken, RuleError> {
    let object = fields(
        data,
        TURN_TAKEN,
        &["player", "banked", "steal", "dig", "drawn", "kept"],
    )?;
    let player = match object.get("player") {
        Some(Value::String(name)) => name.clone(),
        _ => {
            return Err(RuleError::said(
                "/player",
                crate::said!("server.vintage.refusal.player_must_name_player_taking"),
            ));
        }
    };
    let banked = card_at(
        object.get("banked"),
        "/banked",
        crate::said!("server.vintage.refusal.banked_meaning"),
    )?;
    let steal = match object.get("steal") {
        None | Some(Value::Null) => None,
        Some(raw) => {
            let steal = fields(raw, "steal", &["from", "card"]).map_err(|e| e.within("/steal"))?;
            let from = match steal.get("from") {
                Some(Value::String(name)) => name.clone(),
                _ => {
                    return Err(RuleError::said(
                        "/steal/from",
                        crate::said!("server.vintage.refusal.steal_from_must_name_player"),
                    ));
                }
            };
            let card = card_at(
                steal.get("card"),
                "/steal/card",
                Message::data("steal.card"),
            )?;
            Some(Take::Steal { from, card })
        }
    };
    let dig = match object.get("dig") {
        None | Some(Value::Null) => None,
        Some(raw) => Some(Take::Dig(
            CardRef::parse(raw).map_err(|e| e.within("/dig"))?,
        )),
    };
    // rules: "Take one" — either steal or dig, never both, never neither.
    let take = match (steal, dig) {
        (Some(take), None) | (None, Some(take)) => take,
        (None, None) => {
            return Err(RuleError::said(
                "",
                crate::said!(
                    "server.vintage.refusal.must_take_one_card_after",
                    player = player
                ),
            ));
        }
        (Some(_), Some(_)) => {
            return Err(RuleError::said(
                "/dig",
                crate::said!(
                    "server.vintage.refusal.takes_one_card_per_turn",
                    player = player
                ),
            ));
        }
    };
    let drawn = match object.get("drawn") {
        Some(raw) => cards_at(raw, "/drawn", Message::data("drawn"))?,
        None => {
            return Err(RuleError::said(
                "/drawn",
                crate::said!("server.vintage.refusal.drawn_required_two_cards_drawn"),
            ));
        }
    };
    let kept = match object.get("kept") {
        None | Some(Value::Null) => None,
        Some(raw) => Some(CardRef::parse(raw).map_err(|e| e.within("/kept"))?),
    };
    Ok(TurnTaken {
        player,
        banked,
        take,
        drawn,
        kept,
    })
}
