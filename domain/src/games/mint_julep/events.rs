//! The Mint Julep events, parsed and checked on their own (the state checks come in
//! `state.rs`). Every error points at the field that broke the rule.

use serde_json::{Map, Value};

use super::horses::{self, Horse};
use super::race::{Direction, Move, MoveKind};
use crate::data::fields;
use crate::error::RuleError;
use crate::message::Arg;
use crate::pointer::pointer;
use crate::score::said_names;
use crate::setup::Player;

pub const BET_PLACED: &str = "bet_placed";
pub const CARD_PLAYED: &str = "card_played";
pub const RACE_RECORDED: &str = "race_recorded";
pub const ROUND_ENDED: &str = "round_ended";
pub const ROUNDS: u32 = 3;

/// `bet_placed`: a player bets on a horse; in round 2 or 3 the bet replaces an active one (with
/// 2 players it may instead be added as a player's second).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BetPlaced {
    pub round: u32,
    /// Seat index (0-based) of the player.
    pub player: usize,
    pub horse: Horse,
    /// The horse of the bet being replaced (needed once a player holds two bets).
    pub replaces: Option<Horse>,
    /// The bet card's initiative letter, when the table records it.
    pub initiative: Option<char>,
}

/// `card_played`: one card's action in the race.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardPlayed {
    pub round: u32,
    pub player: usize,
    pub moves: Vec<Move>,
    /// The horse a Mint Julep card is played on.
    pub mint_julep: Option<Horse>,
}

/// `race_recorded`: only the placement at the end of a round's race, 1st first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaceRecorded {
    pub round: u32,
    pub order: Vec<Horse>,
}

/// A field that may be left out or null.
fn optional<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|v| !v.is_null())
}

fn required<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    event: impl Into<Arg>,
) -> Result<&'a Value, RuleError> {
    let event: Arg = event.into();
    optional(object, key).ok_or_else(|| {
        RuleError::said(
            pointer([key]),
            crate::said!(
                "server.mint_julep.refusal.needs",
                event = event,
                key = format!("{:?}", key)
            ),
        )
    })
}

fn round(object: &Map<String, Value>, event: &str) -> Result<u32, RuleError> {
    match required(object, "round", event)?.as_u64() {
        Some(r) if (1..=u64::from(ROUNDS)).contains(&r) => Ok(r as u32),
        _ => Err(RuleError::said(
            "/round",
            crate::said!(
                "server.mint_julep.refusal.round_must_whole_number_from",
                rounds = ROUNDS
            ),
        )),
    }
}

fn player(
    object: &Map<String, Value>,
    event: &str,
    players: &[Player],
) -> Result<usize, RuleError> {
    let value = required(object, "player", event)?;
    let name = value.as_str().ok_or_else(|| {
        RuleError::said(
            "/player",
            crate::said!("server.mint_julep.refusal.player_must_player_name"),
        )
    })?;
    crate::setup::seat_named(players, name).ok_or_else(|| {
        let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
        RuleError::said(
            "/player",
            crate::said!(
                "server.mint_julep.refusal.does_not_play_this_game",
                name = format!("{:?}", name),
                players = said_names(&names)
            ),
        )
    })
}

/// A horse id at `at`.
pub fn horse(value: &Value, at: &str) -> Result<Horse, RuleError> {
    let id = value.as_str().ok_or_else(|| {
        RuleError::said(
            at,
            crate::said!("server.mint_julep.refusal.horse_given_id_e_g"),
        )
    })?;
    Horse::parse(id).ok_or_else(|| {
        RuleError::said(
            at,
            crate::said!(
                "server.mint_julep.refusal.unknown_horse_horses_are",
                id = format!("{:?}", id),
                known_ids = horses::known_ids()
            ),
        )
    })
}

pub fn parse_bet_placed(data: &Value, players: &[Player]) -> Result<BetPlaced, RuleError> {
    let event = BET_PLACED;
    let object = fields(
        data,
        event,
        &["round", "player", "horse", "replaces", "initiative"],
    )?;
    let round = round(object, event)?;
    let player = player(object, event, players)?;
    let horse = horse(required(object, "horse", event)?, "/horse")?;
    let replaces = optional(object, "replaces")
        .map(|v| self::horse(v, "/replaces"))
        .transpose()?;
    let initiative = optional(object, "initiative")
        .map(initiative_letter)
        .transpose()?;
    Ok(BetPlaced {
        round,
        player,
        horse,
        replaces,
        initiative,
    })
}

/// rules: a bet card's initiative letter, A first.
fn initiative_letter(value: &Value) -> Result<char, RuleError> {
    let refuse = || {
        RuleError::said(
            "/initiative",
            crate::said!("server.mint_julep.refusal.initiative_bet_card_letter_one"),
        )
    };
    let text = value.as_str().ok_or_else(refuse)?;
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_uppercase() => Ok(c),
        _ => Err(refuse()),
    }
}

pub fn parse_card_played(data: &Value, players: &[Player]) -> Result<CardPlayed, RuleError> {
    let event = CARD_PLAYED;
    let object = fields(data, event, &["round", "player", "moves", "mint_julep"])?;
    let round = round(object, event)?;
    let player = player(object, event, players)?;
    let raw_moves = required(object, "moves", event)?
        .as_array()
        .ok_or_else(|| {
            RuleError::said(
                "/moves",
                crate::said!("server.mint_julep.refusal.moves_must_list_moves"),
            )
        })?;
    let mut moves = Vec::with_capacity(raw_moves.len());
    for (i, raw) in raw_moves.iter().enumerate() {
        let at = pointer(["moves".to_owned(), i.to_string()]);
        moves.push(parse_move(raw).map_err(|e| e.within(&at))?);
    }
    let mint_julep = match optional(object, "mint_julep") {
        None => None,
        Some(raw) => {
            let what = || crate::said!("server.mint_julep.subject.mint_julep_card");
            let card = fields(raw, what(), &["horse"]).map_err(|e| e.within("/mint_julep"))?;
            let value = required(card, "horse", what()).map_err(|e| e.within("/mint_julep"))?;
            Some(horse(value, "/mint_julep/horse")?)
        }
    };
    if moves.is_empty() && mint_julep.is_none() {
        return Err(RuleError::said(
            "/moves",
            crate::said!("server.mint_julep.refusal.card_played_race_moves_least"),
        ));
    }
    Ok(CardPlayed {
        round,
        player,
        moves,
        mint_julep,
    })
}

fn parse_move(raw: &Value) -> Result<Move, RuleError> {
    let what = || crate::said!("server.mint_julep.subject.move");
    let object = fields(raw, what(), &["horse", "direction", "kind"])?;
    let horse = horse(required(object, "horse", what())?, "/horse")?;
    let direction = match required(object, "direction", what())?.as_str() {
        Some("forward") => Direction::Forward,
        Some("back") => Direction::Back,
        _ => {
            return Err(RuleError::said(
                "/direction",
                crate::said!("server.mint_julep.refusal.direction_forward_back"),
            ));
        }
    };
    let kind = match required(object, "kind", what())?.as_str() {
        Some("top") => MoveKind::Top,
        Some("named") => MoveKind::Named,
        _ => {
            return Err(RuleError::said(
                "/kind",
                crate::said!("server.mint_julep.refusal.kind_top_top_horse_group"),
            ));
        }
    };
    Ok(Move {
        horse,
        direction,
        kind,
    })
}

pub fn parse_race_recorded(data: &Value) -> Result<RaceRecorded, RuleError> {
    let event = RACE_RECORDED;
    let object = fields(data, event, &["round", "order"])?;
    let round = round(object, event)?;
    let raw = required(object, "order", event)?
        .as_array()
        .filter(|list| list.len() == Horse::ALL.len())
        .ok_or_else(|| {
            RuleError::said(
                "/order",
                crate::said!("server.mint_julep.refusal.order_lists_all_five_horses"),
            )
        })?;
    let mut order: Vec<Horse> = Vec::with_capacity(raw.len());
    for (i, value) in raw.iter().enumerate() {
        let at = pointer(["order".to_owned(), i.to_string()]);
        let horse = horse(value, &at)?;
        if order.contains(&horse) {
            return Err(RuleError::said(
                at,
                crate::said!(
                    "server.mint_julep.refusal.listed_twice_order_lists_all",
                    horse = horse.name()
                ),
            ));
        }
        order.push(horse);
    }
    Ok(RaceRecorded { round, order })
}

pub fn parse_round_ended(data: &Value) -> Result<u32, RuleError> {
    let object = fields(data, ROUND_ENDED, &["round"])?;
    round(object, ROUND_ENDED)
}
