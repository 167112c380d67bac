//! Vintage scoring (rules: Scoring): only collections count — the sum of their values, plus
//! each prize to the player with the most matching cards. Highest total wins; ties are shared.
//!
//! Vintage has no rounds: the whole game's lines are one `RoundScore` numbered 1.

use serde_json::{Map, Value, json};

use super::catalogue::{Attribute, Card, CardNo};
use super::insights::Key;
use super::state::{Record, State};
use super::{Options, Prize, PrizeTie, WinnerTie};
use crate::message::Message;
use crate::said;
use crate::score::{
    self, Fact, HouseRule, Line, PlayerScore, RoundScore, Scoreboard, Tiebreak, said_names,
};

/// The described cards of every collection, by seat.
fn collections(state: &State) -> Vec<Vec<Card<'_>>> {
    state
        .collections()
        .iter()
        .map(|cards| cards.iter().map(|no| state.catalogue.card(*no)).collect())
        .collect()
}

pub fn score(state: &State) -> Scoreboard {
    let collections = collections(state);
    let mut lines: Vec<Vec<Line>> = collections.iter().map(|c| vec![values_line(c)]).collect();
    for prize in &state.options.prizes {
        for (seat, line) in prize_lines(prize, state, &collections) {
            lines[seat].push(line);
        }
        if let Some(line) = matched_by_no_card(prize, state) {
            for player_lines in &mut lines {
                player_lines.push(line.clone());
            }
        }
    }
    let mut players: Vec<PlayerScore> = state
        .players
        .iter()
        .zip(lines)
        .map(|(player, lines)| {
            PlayerScore::new(
                &player.name,
                player.seat,
                vec![RoundScore::new(1, lines)],
                vec![],
            )
        })
        .collect();
    // rules: highest total wins; ties are shared [H] (`winner_tie`).
    let winner_tie = state.options.winner_tie;
    score::rank(&mut players, |p| match winner_tie {
        WinnerTie::Shared => (p.total, 0),
        WinnerTie::MostPrizePoints => (p.total, prize_points(p)),
    });
    Scoreboard {
        lower_wins: false,
        winners: score::winners(&players),
        leaders: Vec::new(),
        tiebreak: tiebreak(&players, winner_tie),
        players,
        house_rules: house_rules(&state.options),
        details: Some(details(state)),
    }
}

/// Statistics, per player: `collection_value` (sum of the card values), `collection_cards`,
/// and `prize:<id>` = the points scored from each prize, only when above 0.
pub fn facts(state: &State) -> Vec<Fact> {
    let collections = collections(state);
    let mut prizes: Vec<Vec<(&str, i64)>> = vec![Vec::new(); state.players.len()];
    for prize in &state.options.prizes {
        for (seat, line) in prize_lines(prize, state, &collections) {
            if line.points > 0 {
                prizes[seat].push((&*prize.id, line.points));
            }
        }
    }
    let mut facts = Vec::new();
    for ((player, cards), won) in state.players.iter().zip(&collections).zip(prizes) {
        let value: i64 = cards.iter().map(|c| i64::from(c.value())).sum();
        facts.push(Fact::player(&player.name, &Key::CollectionValue, value));
        facts.push(Fact::player(
            &player.name,
            &Key::CollectionCards,
            cards.len() as i64,
        ));
        for (id, points) in won {
            facts.push(Fact::player(
                &player.name,
                &Key::Prize(id.to_owned()),
                points,
            ));
        }
    }
    facts
}

/// "Collection ×3": the sum of the values, card by card.
fn values_line(cards: &[Card<'_>]) -> Line {
    let total: i64 = cards.iter().map(|c| i64::from(c.value())).sum();
    let detail = if cards.is_empty() {
        said!("server.vintage.detail.no_cards")
    } else {
        let terms: Vec<String> = cards
            .iter()
            .map(|c| format!("{} {}", c.id(), c.value()))
            .collect();
        // Card ids and values only: the same in every language.
        Message::data(format!("{} = {total}", terms.join(" + ")))
    };
    Line::new(
        said!("server.vintage.line.collection", n = cards.len()),
        total,
        detail,
    )
}

/// One line per player holding a card the prize counts. rules: the player with the most
/// matching cards takes its points; one card can count for several prizes.
fn prize_lines(prize: &Prize, state: &State, collections: &[Vec<Card<'_>>]) -> Vec<(usize, Line)> {
    let Some(attribute) = Attribute::parse(&prize.attribute, state.options.attribute_names_exact)
    else {
        return Vec::new();
    };
    let counts: Vec<i64> = collections
        .iter()
        .map(|cards| {
            cards
                .iter()
                .filter(|c| c.shows(&attribute, &prize.value))
                .count() as i64
        })
        .collect();
    let most = counts.iter().copied().max().unwrap_or(0);
    let leaders: Vec<usize> = (0..counts.len()).filter(|&s| counts[s] == most).collect();
    let tie = state.options.prize_tie;
    let mut lines = Vec::new();
    for (seat, &mine) in counts.iter().enumerate() {
        if mine == 0 {
            continue;
        }
        let (points, detail) = if mine < most {
            let names: Vec<&str> = leaders
                .iter()
                .map(|&s| state.players[s].name.as_str())
                .collect();
            (
                0,
                said!(
                    "server.vintage.detail.prize_fewer",
                    mine = mine,
                    most = most,
                    names = said_names(&names)
                ),
            )
        } else if leaders.len() == 1 {
            let second = counts
                .iter()
                .enumerate()
                .filter(|&(s, _)| s != seat)
                .map(|(_, &c)| c)
                .max()
                .unwrap_or(0);
            (
                prize.points,
                said!(
                    "server.vintage.detail.prize_most",
                    mine = mine,
                    second = second,
                    points = prize.points
                ),
            )
        } else {
            let others: Vec<&str> = leaders
                .iter()
                .filter(|&&s| s != seat)
                .map(|&s| state.players[s].name.as_str())
                .collect();
            let tied = said!(
                "server.vintage.detail.prize_tied",
                mine = mine,
                others = said_names(&others)
            );
            // rules: a tie for a prize follows option prize_tie [H].
            match tie {
                PrizeTie::Nobody => (
                    0,
                    said!("server.vintage.detail.prize_tie_nobody", tied = tied),
                ),
                PrizeTie::All => (
                    prize.points,
                    said!(
                        "server.vintage.detail.prize_tie_all",
                        tied = tied,
                        points = prize.points
                    ),
                ),
                PrizeTie::Split => {
                    let shares = leaders.len() as i64;
                    let share = prize.points / shares;
                    (
                        share,
                        said!(
                            "server.vintage.detail.prize_tie_split",
                            tied = tied,
                            points = prize.points,
                            shares = shares,
                            share = share,
                            lost = prize.points % shares
                        ),
                    )
                }
            }
        };
        // The prize's name as the table wrote it in the options: data.
        lines.push((
            seat,
            Line::new(Message::data(prize.name.to_string()), points, detail),
        ));
    }
    lines
}

/// A prize whose value no card of the game shows (typed "années 60" while the cards say
/// "60s"): a line saying so, for 0 points, rather than a silent zero.
fn matched_by_no_card(prize: &Prize, state: &State) -> Option<Line> {
    let attribute = Attribute::parse(&prize.attribute, state.options.attribute_names_exact)?;
    if state.catalogue.any_shows(&attribute, &prize.value) {
        return None;
    }
    Some(Line::new(
        Message::data(prize.name.to_string()),
        0,
        said!(
            "server.vintage.detail.prize_matched_by_no_card",
            attribute = attribute.said(),
            value = &*prize.value
        ),
    ))
}

/// A player's points from prizes: everything but the collection's values (its first line).
fn prize_points(player: &PlayerScore) -> i64 {
    player
        .rounds
        .iter()
        .flat_map(|r| r.breakdown.iter().skip(1))
        .map(|l| l.points)
        .sum()
}

/// How first place was decided among players tied on the highest total, if any were.
fn tiebreak(players: &[PlayerScore], winner_tie: WinnerTie) -> Option<Tiebreak> {
    let total = players.first().map_or(0, |p| p.total);
    let tied: Vec<&PlayerScore> = players.iter().filter(|p| p.total == total).collect();
    if tied.len() < 2 {
        return None;
    }
    let names = |players: &[&PlayerScore]| {
        said_names(&players.iter().map(|p| p.name.as_str()).collect::<Vec<_>>())
    };
    let first: Vec<&PlayerScore> = tied.iter().copied().filter(|p| p.rank == 1).collect();
    let (rule, detail) = match winner_tie {
        WinnerTie::Shared => (
            said!("server.vintage.tiebreak.shared"),
            said!(
                "server.tiebreak.tied_share",
                names = names(&tied),
                total = total
            ),
        ),
        WinnerTie::MostPrizePoints => {
            let compared: Vec<String> = tied
                .iter()
                .map(|p| format!("{} {}", p.name, prize_points(p)))
                .collect();
            let outcome = if first.len() == 1 {
                said!("server.tiebreak.wins", name = names(&first))
            } else {
                said!("server.vintage.tiebreak.share", names = names(&first))
            };
            (
                said!("server.vintage.tiebreak.most_prize_points"),
                said!(
                    "server.vintage.tiebreak.detail",
                    names = names(&tied),
                    total = total,
                    compared = compared.join(", "),
                    outcome = outcome
                ),
            )
        }
    };
    Some(Tiebreak { rule, detail })
}

fn house_rules(options: &Options) -> Vec<HouseRule> {
    vec![
        HouseRule {
            option: "prize_tie".into(),
            value: json!(options.prize_tie.as_str()),
            default: options.prize_tie == PrizeTie::default(),
            note: said!("server.vintage.house_rule.prize_tie"),
        },
        HouseRule {
            option: "winner_tie".into(),
            value: json!(options.winner_tie.as_str()),
            default: options.winner_tie == WinnerTie::default(),
            note: said!("server.vintage.house_rule.winner_tie"),
        },
    ]
}

/// What a phone may draw: the table as it stands.
fn details(state: &State) -> Value {
    let ids = |cards: &[CardNo]| -> Value {
        let ids: Vec<&str> = cards
            .iter()
            .map(|no| state.catalogue.card(*no).id())
            .collect();
        json!(ids)
    };
    let by_name = |piles: &mut dyn Iterator<Item = &[CardNo]>| -> Value {
        let map: Map<String, Value> = state
            .players
            .iter()
            .zip(piles)
            .map(|(p, cards)| (p.name.to_string(), ids(cards)))
            .collect();
        Value::Object(map)
    };
    match &state.record {
        Record::Waiting => json!({"recorded": "nothing yet"}),
        Record::EndOnly(collections) => json!({
            "recorded": "collections only",
            "collections": by_name(&mut collections.iter().map(Vec::as_slice)),
        }),
        Record::TurnByTurn(table) => {
            let next = table
                .next_seat()
                .filter(|_| !table.final_banked)
                .map(|s| state.players[s].name.clone());
            let final_bank_order: Vec<&str> = table
                .final_bank_order()
                .into_iter()
                .map(|s| state.players[s].name.as_str())
                .collect();
            json!({
                "recorded": "turn by turn",
                "turns": table.turns,
                "next_player": next,
                "deck": table.deck.left(),
                "reshuffled": matches!(table.deck, super::table::Deck::Reshuffled { .. }),
                "final_bank_due": table.must_end() && !table.final_banked,
                "final_bank_order": final_bank_order,
                "discard_pile": ids(table.discard()),
                "showcases": by_name(&mut (0..table.seats()).map(|s| table.showcase(s))),
                "collections": by_name(&mut (0..table.seats()).map(|s| table.collection(s))),
            })
        }
    }
}
