//! `result_recorded`: a game's final scores typed in, checked against the seats, not the rules.

use serde::Deserialize;
use serde_json::Value;

use crate::error::{Meaning, RuleError, parse_json};
use crate::pointer::pointer;
use crate::score::{self, Adjustment, PlayerScore, Scoreboard, said_names};
use crate::setup::{Player, same_name};

/// A game's final scores typed in; replayed in the game events' place (it can be corrected).
pub const RESULT_RECORDED: &str = "result_recorded";

const RESULT_FIELDS: &[Meaning] = &[
    ("totals", || {
        crate::said!("server.log.meaning.result_totals")
    }),
    ("winners", || {
        crate::said!("server.log.meaning.result_winners")
    }),
    ("in_statistics", || {
        crate::said!("server.log.meaning.result_in_statistics")
    }),
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResultRecordedData {
    totals: serde_json::Map<String, Value>,
    winners: Vec<String>,
    #[serde(default)]
    source: Option<String>,
    #[serde(default = "counted")]
    in_statistics: bool,
}

fn counted() -> bool {
    true
}

/// A `result_recorded` in force: the typed-in totals in seat order.
#[derive(Debug, Clone)]
pub(super) struct RecordedResult {
    pub(super) seq: u64,
    pub(super) totals: Vec<(Player, i64)>,
    winners: Vec<String>,
    source: Option<String>,
    pub(super) in_statistics: bool,
}

impl RecordedResult {
    /// Checks the typed-in result against the seated players. Pointers are relative to `data`.
    pub(super) fn parse(seq: u64, data: &Value, players: &[Player]) -> Result<Self, RuleError> {
        let data: ResultRecordedData = parse_json(data, "", RESULT_RECORDED, RESULT_FIELDS)?;
        let names = || said_names(&players.iter().map(|p| p.name.as_str()).collect::<Vec<_>>());
        // Names follow the one rule (`same_name`): "Jay " and "jay" are the seated "Jay".
        let seated = |name: &str| players.iter().find(|p| same_name(&p.name, name));
        let mut given: Vec<(&Player, &str, &Value)> = Vec::with_capacity(data.totals.len());
        for (name, value) in &data.totals {
            let Some(player) = seated(name) else {
                return Err(RuleError::said(
                    pointer(["totals", name.as_str()]),
                    crate::said!(
                        "server.common.refusal.not_player_this_game_players",
                        stranger = name,
                        names = names()
                    ),
                ));
            };
            if given.iter().any(|(p, _, _)| p.seat == player.seat) {
                return Err(RuleError::said(
                    pointer(["totals", name.as_str()]),
                    crate::said!(
                        "server.common.refusal.total_given_twice",
                        name = &player.name
                    ),
                ));
            }
            given.push((player, name.as_str(), value));
        }
        let mut totals = Vec::with_capacity(players.len());
        for player in players {
            let Some((_, key, value)) = given.iter().find(|(p, _, _)| p.seat == player.seat) else {
                return Err(RuleError::said(
                    "/totals",
                    crate::said!(
                        "server.common.refusal.total_missing_every_player_needs",
                        name = &player.name
                    ),
                ));
            };
            let at = pointer(["totals", *key]);
            let total = value.as_i64().ok_or_else(|| {
                RuleError::said(
                    at.clone(),
                    crate::said!(
                        "server.common.refusal.total_must_whole_number",
                        name = &player.name
                    ),
                )
            })?;
            crate::score::within_limit(
                total,
                at,
                crate::said!("server.common.subject.total", name = player.name.as_str()),
            )?;
            totals.push((player.clone(), total));
        }
        if data.winners.is_empty() {
            return Err(RuleError::said(
                "/winners",
                crate::said!("server.common.refusal.name_least_one_winner_several"),
            ));
        }
        // The winners by their seated names, so the scoreboard finds them.
        let mut winners: Vec<String> = Vec::with_capacity(data.winners.len());
        for (i, winner) in data.winners.iter().enumerate() {
            let at = pointer(["winners", &i.to_string()]);
            let Some(player) = seated(winner) else {
                return Err(RuleError::said(
                    at,
                    crate::said!(
                        "server.common.refusal.not_player_this_game_players_2",
                        winner = winner,
                        names = names()
                    ),
                ));
            };
            if winners.contains(&player.name.to_string()) {
                return Err(RuleError::said(
                    at,
                    crate::said!("server.common.refusal.named_twice", winner = &player.name),
                ));
            }
            winners.push(player.name.to_string());
        }
        Ok(Self {
            seq,
            totals,
            winners,
            source: data.source,
            in_statistics: data.in_statistics,
        })
    }

    /// The scoreboard of the typed-in totals, in the direction the game's rules give: the
    /// winners first, as typed in; the others by their totals.
    pub(super) fn scoreboard(&self, empty: Scoreboard) -> Scoreboard {
        let source = self.source.as_deref();
        let is_winner = |p: &PlayerScore| self.winners.contains(&p.name);
        let mut players: Vec<PlayerScore> = self
            .totals
            .iter()
            .map(|(player, total)| {
                let typed_in = Adjustment {
                    label: crate::said!("server.log.line.total_typed_in"),
                    points: *total,
                    detail: match source {
                        None => crate::said!("server.log.detail.total_typed_in", seq = self.seq),
                        Some(from) => crate::said!(
                            "server.log.detail.total_typed_in_from",
                            seq = self.seq,
                            source = from
                        ),
                    },
                };
                PlayerScore::new(&player.name, player.seat, Vec::new(), vec![typed_in])
            })
            .collect();
        let lower_wins = empty.lower_wins;
        let better = |a: &PlayerScore| if lower_wins { -a.total } else { a.total };
        // Every winner ranks first, whatever their totals; the others follow by their totals.
        score::rank(&mut players, |p| {
            if is_winner(p) {
                (true, 0)
            } else {
                (false, better(p))
            }
        });
        let mut recorded = serde_json::json!({
            "event": self.seq,
            "source": self.source,
            "checked_against_rules": false,
            "note": "the totals were typed in and not checked against the rules",
        });
        // Said only of a result kept out of the statistics.
        if !self.in_statistics {
            recorded["in_statistics"] = Value::Bool(false);
        }
        let mut details = serde_json::Map::new();
        details.insert(RESULT_RECORDED.into(), recorded);
        Scoreboard {
            winners: score::winners(&players),
            players,
            tiebreak: None,
            details: Some(Value::Object(details)),
            ..empty
        }
    }
}
