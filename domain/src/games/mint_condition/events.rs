//! `round_collected`, the one Mint Condition event: every player's collection at round end.

use serde_json::{Map, Value};

use super::Options;
use super::cards::{self, Card, Kind, LuckyFor, SNACK_AND_SLEEVE_COPIES};
use crate::error::RuleError;
use crate::message::Message;
use crate::pointer::pointer;
use crate::score::{said_commas, said_names};
use crate::setup::{Player, keys_by_seated_name};

pub const ROUND_COLLECTED: &str = "round_collected";
pub const ROUNDS: u32 = 3;

/// A checked `round_collected`: collections are in seat order.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundCollected {
    pub round: u32,
    pub collections: Vec<Vec<Card>>,
}

/// Cards each player collects per round [D]: 2 players → 7, 3 → 9, 4 → 8, 5 → 6.
pub fn cards_per_round(players: usize) -> usize {
    match players {
        2 => 7,
        3 => 9,
        4 => 8,
        _ => 6,
    }
}

/// Parses and checks one `round_collected` against the game so far. `earlier` holds the
/// collections of the rounds already recorded (for the deck limits).
pub fn parse_round_collected(
    data: &Value,
    players: &[Player],
    options: &Options,
    earlier: &[RoundCollected],
) -> Result<RoundCollected, RuleError> {
    let object = data.as_object().ok_or_else(|| {
        RuleError::said(
            "",
            crate::said!("server.mint_condition.refusal.round_collected_data_must_json"),
        )
    })?;
    if let Some(key) = object.keys().find(|k| *k != "round" && *k != "collections") {
        return Err(RuleError::said(
            pointer([key]),
            crate::said!(
                "server.mint_condition.refusal.unknown_field_round_collected_has",
                key = format!("{:?}", key)
            ),
        ));
    }
    let expected = earlier.len() as u32 + 1;
    let round = match object.get("round").and_then(Value::as_u64) {
        Some(r) if (1..=ROUNDS as u64).contains(&r) => r as u32,
        Some(r) => {
            return Err(RuleError::said(
                "/round",
                crate::said!(
                    "server.mint_condition.refusal.mint_condition_has_rounds_1",
                    rounds = ROUNDS,
                    round = r
                ),
            ));
        }
        None => {
            return Err(RuleError::said(
                "/round",
                crate::said!("server.mint_condition.refusal.round_must_whole_number_from"),
            ));
        }
    };
    if round != expected {
        return Err(RuleError::said(
            "/round",
            crate::said!(
                "server.mint_condition.refusal.round_comes_next_rounds_are",
                expected = expected,
                round = round
            ),
        ));
    }
    let given = object
        .get("collections")
        .and_then(Value::as_object)
        .ok_or_else(|| {
            RuleError::said(
                "/collections",
                crate::said!("server.mint_condition.refusal.collections_must_object_from_player"),
            )
        })?;
    let collections = parse_collections(given, players, options)?;
    check_deck_limits(&collections, earlier, players)?;
    Ok(RoundCollected { round, collections })
}

fn parse_collections(
    given: &Map<String, Value>,
    players: &[Player],
    options: &Options,
) -> Result<Vec<Vec<Card>>, RuleError> {
    let given = &keys_by_seated_name(given, "collections", players)?;
    let size = cards_per_round(players.len());
    let mut collections = Vec::with_capacity(players.len());
    for player in players {
        let at = |rest: &[&str]| pointer(["collections", player.name.as_str()].iter().chain(rest));
        let cards = given
            .get(player.name.as_str())
            .ok_or_else(|| {
                RuleError::said(
                    "/collections",
                    crate::said!(
                        "server.mint_condition.refusal.collection_missing_every_player_appears",
                        name = &player.name
                    ),
                )
            })?
            .as_array()
            .ok_or_else(|| {
                RuleError::said(
                    at(&[]),
                    crate::said!(
                        "server.mint_condition.refusal.collection_must_list_cards",
                        name = &player.name
                    ),
                )
            })?;
        if options.strict_counts && cards.len() != size {
            return Err(RuleError::said(
                at(&[]),
                crate::said!(
                    "server.mint_condition.refusal.collected_cards_but_players_everyone",
                    name = &player.name,
                    cards = cards.len(),
                    players = players.len(),
                    size = size
                ),
            ));
        }
        let mut collection = Vec::with_capacity(cards.len());
        for (i, raw) in cards.iter().enumerate() {
            // The pointer is built only on error: this runs for every card of every replay.
            collection.push(
                parse_card(raw, players, options).map_err(|e| e.within(&at(&[&i.to_string()])))?,
            );
        }
        check_protection(&collection, options, &player.name).map_err(|e| e.within(&at(&[])))?;
        collections.push(collection);
    }
    Ok(collections)
}

/// A card is its id, or `{"card": id, "symbol"?: colour, "protected"?: bool}`.
fn parse_card(raw: &Value, players: &[Player], options: &Options) -> Result<Card, RuleError> {
    let (id, symbol, protected) = match raw {
        Value::String(id) => (id.as_str(), None, false),
        Value::Object(fields) => {
            if let Some(key) = fields
                .keys()
                .find(|k| !["card", "symbol", "protected"].contains(&k.as_str()))
            {
                return Err(RuleError::said(
                    pointer([key]),
                    crate::said!(
                        "server.mint_condition.refusal.unknown_field_card_has_card",
                        key = format!("{:?}", key)
                    ),
                ));
            }
            let id = fields.get("card").and_then(Value::as_str).ok_or_else(|| {
                RuleError::said(
                    "/card",
                    crate::said!("server.mint_condition.refusal.card_object_needs_card_card"),
                )
            })?;
            let symbol = match fields.get("symbol") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim()),
                Some(_) => {
                    return Err(RuleError::said(
                        "/symbol",
                        crate::said!(
                            "server.mint_condition.refusal.symbol_must_colour_name_rainbow"
                        ),
                    ));
                }
            };
            let protected = match fields.get("protected") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    return Err(RuleError::said(
                        "/protected",
                        crate::said!("server.mint_condition.refusal.protected_must_true_false"),
                    ));
                }
            };
            (id, symbol, protected)
        }
        _ => {
            return Err(RuleError::said(
                "",
                crate::said!("server.mint_condition.refusal.card_id_fine_wine_object"),
            ));
        }
    };
    let kind = Kind::parse(id).ok_or_else(|| {
        RuleError::said(
            if raw.is_string() { "" } else { "/card" },
            crate::said!(
                "server.mint_condition.refusal.unknown_card_mint_condition_cards",
                id = format!("{:?}", id),
                known_ids = cards::known_ids()
            ),
        )
    })?;
    // Smoking Kills also needs its house rule: the refusal names every option it takes.
    let smoking_kills_rule = || {
        crate::said!(
            "server.mint_condition.refusal.smoking_kills_rule",
            shape = r#"{"holder": H, "others": O}"#
        )
    };
    let rule_unset = kind == Kind::SmokingKills && options.smoking_kills.is_none();
    if kind.is_expert() && !options.expert_cards {
        let said = if rule_unset {
            crate::said!(
                "server.mint_condition.refusal.expert_card_and_smoking_kills_rule",
                kind = kind.name(),
                smoking_kills_rule = smoking_kills_rule()
            )
        } else {
            crate::said!(
                "server.mint_condition.refusal.expert_card_set_option_expert",
                kind = kind.name()
            )
        };
        return Err(RuleError::said(
            if raw.is_string() { "" } else { "/card" },
            said,
        ));
    }
    if rule_unset {
        return Err(RuleError::said(
            if raw.is_string() { "" } else { "/card" },
            crate::said!(
                "server.mint_condition.refusal.smoking_kills_has_no_published",
                smoking_kills_rule = smoking_kills_rule()
            ),
        ));
    }
    let lucky_for = symbol.map_or_else(LuckyFor::default, |symbol| {
        LuckyFor::symbol(symbol, players)
    });
    Ok(Card {
        kind,
        lucky_for,
        protected,
    })
}

/// Each Sleeve Me Up! protects up to `sleeve_protects` other cards of the same collection [H].
fn check_protection(collection: &[Card], options: &Options, name: &str) -> Result<(), RuleError> {
    let sleeves = collection
        .iter()
        .filter(|c| c.kind == Kind::SleeveMeUp)
        .count() as u64;
    let allowed = sleeves * u64::from(options.sleeve_protects);
    let mut protected = 0u64;
    for (i, card) in collection.iter().enumerate() {
        if !card.protected {
            continue;
        }
        // A Sleeve protects *other* cards: a protected Sleeve needs a second one to protect it.
        if card.kind == Kind::SleeveMeUp && sleeves == 1 {
            return Err(RuleError::said(
                pointer([i.to_string(), "protected".into()]),
                crate::said!(
                    "server.mint_condition.refusal.only_sleeve_me_up_cannot",
                    name = name
                ),
            ));
        }
        protected += 1;
        if protected > allowed {
            return Err(RuleError::said(
                pointer([i.to_string(), "protected".into()]),
                crate::said!(
                    "server.mint_condition.refusal.has_sleeve_me_up_card",
                    name = name,
                    sleeves = sleeves,
                    allowed = allowed,
                    sleeve_protects = options.sleeve_protects
                ),
            ));
        }
    }
    Ok(())
}

/// Across the whole game a kind never appears more often than the box holds.
fn check_deck_limits(
    round: &[Vec<Card>],
    earlier: &[RoundCollected],
    players: &[Player],
) -> Result<(), RuleError> {
    let of_kinds = |cards: &[Card], kinds: &[Kind]| {
        cards.iter().filter(|c| kinds.contains(&c.kind)).count() as u32
    };
    let over_the_box = |kinds: &[Kind], copies: u32, what: Message, of_both: bool| {
        let before: u32 = earlier
            .iter()
            .flat_map(|r| r.collections.iter())
            .map(|cards| of_kinds(cards, kinds))
            .sum();
        let now: Vec<(&Player, u32)> = players
            .iter()
            .zip(round)
            .map(|(p, cards)| (p, of_kinds(cards, kinds)))
            .filter(|(_, n)| *n > 0)
            .collect();
        let total = before + now.iter().map(|(_, n)| n).sum::<u32>();
        if total <= copies {
            return Ok(());
        }
        // The player whose count alone is more than the box has left made the round
        // impossible; when no single count does, the round as a whole did.
        let left = copies.saturating_sub(before);
        let culprit = now
            .iter()
            .filter(|(_, n)| *n > left)
            .max_by_key(|(_, n)| *n)
            .map(|(p, _)| pointer(["collections", p.name.as_str()]));
        let this_round = now.iter().map(|(p, n)| {
            crate::said!(
                "server.mint_condition.refusal.player_count",
                name = p.name.as_str(),
                n = n
            )
        });
        let mut whose = Vec::new();
        if !now.is_empty() {
            whose.push(crate::said!(
                "server.mint_condition.refusal.in_this_round",
                counts = said_commas(this_round)
            ));
        }
        if before > 0 {
            whose.push(crate::said!(
                "server.mint_condition.refusal.in_earlier_rounds",
                n = before
            ));
        }
        let whose = said_commas(whose);
        Err(RuleError::said(
            culprit.unwrap_or_else(|| "/collections".to_owned()),
            if of_both {
                crate::said!(
                    "server.mint_condition.refusal.this_makes_cards_of_the_two_collected_game",
                    total = total,
                    what = what,
                    whose = whose,
                    copies = copies
                )
            } else {
                crate::said!(
                    "server.mint_condition.refusal.this_makes_cards_collected_game",
                    total = total,
                    what = what,
                    whose = whose,
                    copies = copies
                )
            },
        ))
    };
    for kind in Kind::ALL {
        if let Some(copies) = kind.copies() {
            over_the_box(&[kind], copies, Message::data(kind.name()), false)?;
        }
    }
    over_the_box(
        &[Kind::SnackFingers, Kind::SleeveMeUp],
        SNACK_AND_SLEEVE_COPIES,
        said_names(&[Kind::SnackFingers.name(), Kind::SleeveMeUp.name()]),
        true,
    )
}
