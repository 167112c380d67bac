//! The event data of Mind Up!, parsed into checked shapes. Everything that needs the game so
//! far (round order, hands, prizes, who holds which card) is checked in `state.rs`.

use serde_json::{Map, Value};

use super::catalogue::{HIGHEST, LOWEST, Number};
use super::objectives::Face;
use crate::data::fields;
use crate::error::RuleError;
use crate::message::Message;
use crate::pointer::pointer;
use crate::score::said_names;
use crate::setup::{Player, seats_of_keys};

pub const ROUND_STARTED: &str = "round_started";
pub const CARDS_PLAYED: &str = "cards_played";
pub const LAST_CARDS_PLACED: &str = "last_cards_placed";
pub const ROWS_RECORDED: &str = "rows_recorded";
pub const ROUNDS: u32 = 3;
/// The score cards 1–5 over the five columns.
pub const COLUMNS: usize = 5;

/// `round_started`: per-player fields are in seat order.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundStarted {
    pub round: u32,
    /// The score card above each column, left to right.
    pub columns: [u8; COLUMNS],
    pub prizes: Option<Vec<Number>>,
    pub objectives: Option<Vec<Face>>,
    pub hands: Vec<Option<Vec<Number>>>,
}

/// `cards_played` and `last_cards_placed`: one card per player, in seat order.
#[derive(Debug, Clone, PartialEq)]
pub struct CardsDown {
    pub round: u32,
    pub cards: Vec<Number>,
}

/// `rows_recorded`: every player's row as its columns left to right, in seat order.
#[derive(Debug, Clone, PartialEq)]
pub struct RowsRecorded {
    pub round: u32,
    pub rows: Vec<Vec<Vec<Number>>>,
}

pub fn parse_round_started(data: &Value, players: &[Player]) -> Result<RoundStarted, RuleError> {
    let object = fields(
        data,
        ROUND_STARTED,
        &["round", "columns", "prizes", "objectives", "hands"],
    )?;
    let round = round(object)?;
    let columns = columns(object.get("columns"))?;
    let prizes = match object.get("prizes") {
        None | Some(Value::Null) => None,
        Some(value) => Some(numbers(
            value,
            || "/prizes".to_owned(),
            || Message::data("prizes"),
        )?),
    };
    let objectives = match object.get("objectives") {
        None | Some(Value::Null) => None,
        Some(value) => Some(faces(value)?),
    };
    let hands = match object.get("hands") {
        None | Some(Value::Null) => vec![None; players.len()],
        Some(value) => by_player(value, "hands", players, false)?
            .into_iter()
            .zip(players)
            .map(|(hand, player)| {
                hand.map(|h| {
                    numbers(
                        h,
                        || pointer(["hands", player.name.as_str()]),
                        || crate::said!("server.mind_up.subject.hand", name = player.name.as_str()),
                    )
                })
                .transpose()
            })
            .collect::<Result<_, _>>()?,
    };
    Ok(RoundStarted {
        round,
        columns,
        prizes,
        objectives,
        hands,
    })
}

/// `cards_played` or `last_cards_placed`: every player exactly once.
pub fn parse_cards_down(
    data: &Value,
    event: &str,
    players: &[Player],
) -> Result<CardsDown, RuleError> {
    let object = fields(data, event, &["round", "cards"])?;
    let round = round(object)?;
    let given = object.get("cards").ok_or_else(|| {
        RuleError::said(
            "/cards",
            crate::said!("server.mind_up.refusal.cards_missing_one_card_per"),
        )
    })?;
    let cards = by_player(given, "cards", players, true)?
        .into_iter()
        .zip(players)
        .map(|(card, player)| {
            let at = || pointer(["cards", player.name.as_str()]);
            match card {
                Some(card) => number(card, at),
                None => Err(RuleError::said(
                    at(),
                    crate::said!("server.mind_up.refusal.has_no_card", name = &player.name),
                )),
            }
        })
        .collect::<Result<_, _>>()?;
    Ok(CardsDown { round, cards })
}

pub fn parse_rows_recorded(data: &Value, players: &[Player]) -> Result<RowsRecorded, RuleError> {
    let object = fields(data, ROWS_RECORDED, &["round", "rows"])?;
    let round = round(object)?;
    let given = object.get("rows").ok_or_else(|| {
        RuleError::said(
            "/rows",
            crate::said!("server.mind_up.refusal.rows_missing_one_row_per"),
        )
    })?;
    let mut rows = Vec::with_capacity(players.len());
    for (row, player) in by_player(given, "rows", players, true)?
        .into_iter()
        .zip(players)
    {
        let name = player.name.as_str();
        let at = || pointer(["rows", name]);
        let columns = row.and_then(Value::as_array).ok_or_else(|| {
            RuleError::said(
                at(),
                crate::said!(
                    "server.mind_up.refusal.row_must_list_columns_left",
                    name = name
                ),
            )
        })?;
        if columns.len() > COLUMNS {
            return Err(RuleError::said(
                at(),
                crate::said!(
                    "server.mind_up.refusal.row_has_columns_but_there",
                    name = name,
                    columns = columns.len(),
                    score_cards = COLUMNS
                ),
            ));
        }
        let mut parsed = Vec::with_capacity(columns.len());
        for (k, column) in columns.iter().enumerate() {
            parsed.push(numbers(
                column,
                || pointer(["rows", name, &k.to_string()]),
                || crate::said!("server.mind_up.subject.column", column = k + 1, name = name),
            )?);
        }
        rows.push(parsed);
    }
    Ok(RowsRecorded { round, rows })
}

fn round(object: &Map<String, Value>) -> Result<u32, RuleError> {
    match object.get("round").and_then(Value::as_u64) {
        Some(r) if (1..=u64::from(ROUNDS)).contains(&r) => Ok(r as u32),
        Some(r) => Err(RuleError::said(
            "/round",
            crate::said!(
                "server.mind_up.refusal.mind_up_has_rounds_1",
                rounds = ROUNDS,
                round = r
            ),
        )),
        None => Err(RuleError::said(
            "/round",
            crate::said!("server.mind_up.refusal.round_must_whole_number_from"),
        )),
    }
}

/// rules: `columns` is a permutation of the score cards 1..5, left to right.
fn columns(value: Option<&Value>) -> Result<[u8; COLUMNS], RuleError> {
    let rule = || crate::said!("server.mind_up.refusal.columns_rule");
    let value = value.ok_or_else(|| {
        RuleError::said(
            "/columns",
            crate::said!("server.mind_up.refusal.missing", rule = rule()),
        )
    })?;
    let cards: Option<Vec<u64>> = value
        .as_array()
        .and_then(|a| a.iter().map(Value::as_u64).collect());
    let mut columns = [0u8; COLUMNS];
    match cards {
        Some(cards) if cards.len() == COLUMNS => {
            for (k, &card) in cards.iter().enumerate() {
                columns[k] = u8::try_from(card).unwrap_or(0);
            }
            let mut sorted = columns;
            sorted.sort_unstable();
            if sorted == [1, 2, 3, 4, 5] {
                return Ok(columns);
            }
            Err(RuleError::said(
                "/columns",
                crate::said!("server.mind_up.refusal.got", rule = rule(), value = value),
            ))
        }
        _ => Err(RuleError::said(
            "/columns",
            crate::said!("server.mind_up.refusal.got", rule = rule(), value = value),
        )),
    }
}

fn faces(value: &Value) -> Result<Vec<Face>, RuleError> {
    let list = value.as_array().ok_or_else(|| {
        RuleError::said(
            "/objectives",
            crate::said!("server.mind_up.refusal.objectives_must_list_faces_such"),
        )
    })?;
    let mut faces: Vec<Face> = Vec::with_capacity(list.len());
    for (i, raw) in list.iter().enumerate() {
        let at = || pointer(["objectives", &i.to_string()]);
        let face = raw.as_str().and_then(Face::parse).ok_or_else(|| {
            RuleError::said(
                at(),
                crate::said!(
                    "server.mind_up.refusal.not_objective_face_faces_are",
                    raw = raw
                ),
            )
        })?;
        if faces.contains(&face) {
            return Err(RuleError::said(
                at(),
                crate::said!("server.mind_up.refusal.listed_twice", face = face.code()),
            ));
        }
        // rules: one face of each drawn letter is active.
        if let Some(other) = faces.iter().find(|f| f.letter() == face.letter()) {
            return Err(RuleError::said(
                at(),
                crate::said!(
                    "server.mind_up.refusal.are_two_faces_card_card",
                    other = other.code(),
                    face = face.code(),
                    letter = face.letter()
                ),
            ));
        }
        faces.push(face);
    }
    Ok(faces)
}

/// A map from player name to something, as a list in seat order. Unknown names are refused;
/// with `every_player`, a missing player too.
fn by_player<'a>(
    value: &'a Value,
    field: &str,
    players: &[Player],
    every_player: bool,
) -> Result<Vec<Option<&'a Value>>, RuleError> {
    let map = value.as_object().ok_or_else(|| {
        RuleError::said(
            pointer([field]),
            crate::said!(
                "server.mind_up.refusal.must_object_from_player_name",
                field = field
            ),
        )
    })?;
    // Keys match seated names by the one name rule; each key goes to its seat.
    let mut by_seat: Vec<Option<&'a Value>> = vec![None; players.len()];
    for (seat, entry) in seats_of_keys(map, field, players)? {
        by_seat[seat] = Some(entry);
    }
    if every_player && by_seat.contains(&None) {
        let missing: Vec<&str> = players
            .iter()
            .zip(&by_seat)
            .filter(|(_, entry)| entry.is_none())
            .map(|(p, _)| p.name.as_str())
            .collect();
        return Err(RuleError::said(
            pointer([field]),
            if missing.len() == 1 {
                crate::said!(
                    "server.mind_up.refusal.one_missing_every_player_appears_exactly",
                    missing = missing[0]
                )
            } else {
                crate::said!(
                    "server.mind_up.refusal.missing_every_player_appears_exactly",
                    missing = said_names(&missing)
                )
            },
        ));
    }
    Ok(by_seat)
}

/// A list of card numbers, each 1–60. `at` and `what` are only built for an error.
fn numbers(
    value: &Value,
    at: impl Fn() -> String,
    what: impl Fn() -> Message,
) -> Result<Vec<Number>, RuleError> {
    let list = value.as_array().ok_or_else(|| {
        RuleError::said(
            at(),
            crate::said!(
                "server.mind_up.refusal.must_list_card_numbers",
                what = what()
            ),
        )
    })?;
    let mut cards = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        cards.push(number(v, || format!("{}/{i}", at()))?);
    }
    Ok(cards)
}

/// rules: cards are numbered 1 to 60. `at` is only built for an error.
fn number(value: &Value, at: impl Fn() -> String) -> Result<Number, RuleError> {
    match value.as_i64() {
        Some(n) if (LOWEST..=HIGHEST).contains(&n) => Ok(n as Number),
        Some(n) => Err(RuleError::said(
            at(),
            crate::said!("server.mind_up.refusal.there_no_card_mind_up", n = n),
        )),
        None => Err(RuleError::said(
            at(),
            crate::said!(
                "server.mind_up.refusal.not_card_card_number_1",
                value = value
            ),
        )),
    }
}
