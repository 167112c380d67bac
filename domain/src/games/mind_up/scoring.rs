//! Mind Up! scores: per round, every row card is worth the score card above its column plus
//! its bubble, plus the active objectives; highest total wins, tie → more in round 3.

use serde_json::{Value, json};

use super::catalogue::signed;
use super::objectives::{Face, RowFacts, verdict};
use super::state::{Round, State, turns_in};
use super::{Options, StillTied};
use crate::score::{
    self, Fact, HouseRule, Line, PlayerScore, RoundScore, Scoreboard, Tiebreak, list_names,
};

pub fn score(state: &State) -> Scoreboard {
    let mut players: Vec<PlayerScore> = state
        .players
        .iter()
        .enumerate()
        .map(|(seat, player)| {
            let rounds = state
                .rounds
                .iter()
                .map(|round| RoundScore::new(round.number, round_lines(state, round, seat)))
                .collect();
            PlayerScore::new(&player.name, player.seat, rounds, Vec::new())
        })
        .collect();
    let tiebreak = rank_players(&mut players, state.options.still_tied);
    Scoreboard {
        lower_wins: false,
        winners: score::winners(&players),
        players,
        tiebreak,
        house_rules: house_rules(&state.options),
        details: Some(details(state)),
    }
}

/// rules: highest total; tie → more points in round 3; still tied → [H] `still_tied`.
/// Returns how a tie for first was settled.
pub fn rank_players(players: &mut Vec<PlayerScore>, still_tied: StillTied) -> Option<Tiebreak> {
    score::rank(players, |p| {
        let second = match still_tied {
            StillTied::SharedWin => 0,
            StillTied::MoreInRound2 => round_points(p, 2),
        };
        (p.total, round_points(p, 3), second)
    });
    explain_tiebreak(players, still_tied)
}

fn round_points(player: &PlayerScore, round: u32) -> i64 {
    player
        .rounds
        .iter()
        .find(|r| r.round == round)
        .map_or(0, |r| r.points)
}

/// The lines of one player's round: a line per column, the bubbles, then each objective once
/// the round is over (rules: objectives count the row at round end).
pub fn round_lines(state: &State, round: &Round, seat: usize) -> Vec<Line> {
    let catalogue = &state.catalogue;
    let row = &round.rows[seat];
    let mut lines = Vec::new();
    for (k, column) in row.iter().enumerate() {
        let Some(&first) = column.first() else {
            continue;
        };
        let colour = catalogue.colour(first).name();
        let n = column.len() as i64;
        let value = i64::from(round.columns[k]);
        lines.push(Line::new(
            format!("{colour} ×{n} under the {value}"),
            n * value,
            format!("{n} × {value} = {}", n * value),
        ));
    }
    let cards: Vec<u8> = row.iter().flatten().copied().collect();
    if !cards.is_empty() {
        let bubbles: i64 = cards.iter().map(|&c| catalogue.bubble(c)).sum();
        let each: Vec<String> = cards
            .iter()
            .map(|&c| format!("{c} {}", signed(catalogue.bubble(c))))
            .collect();
        lines.push(Line::new(
            "bubbles",
            bubbles,
            format!("{} = {}", each.join(", "), signed(bubbles)),
        ));
    }
    if round.over {
        for (face, points, detail) in objective_verdicts(state, round, seat) {
            lines.push(Line::new(
                format!("{}: {}", face.code(), face.condition()),
                points,
                detail,
            ));
        }
    }
    lines
}

/// Every active objective of a round judged for one player: (face, points, detail).
fn objective_verdicts(state: &State, round: &Round, seat: usize) -> Vec<(Face, i64, String)> {
    let everyone: Vec<RowFacts> = round
        .rows
        .iter()
        .map(|r| RowFacts::of(r, &state.catalogue))
        .collect();
    round
        .objectives
        .iter()
        .map(|face| {
            let (met, facts) = face.judge(&everyone[seat], &everyone, &round.columns);
            let (points, detail) = verdict(*face, met, &facts);
            (*face, points, detail)
        })
        .collect()
}

/// Statistics, per player: points and cards under each score card value over the game
/// (`column:<v>:points`, `column:<v>:cards`, card values only), the bubble sum (`bubbles`),
/// and per round per active objective `objective:<face>:seen` = 1 and
/// `objective:<face>:hit` = 1 when it scored, else 0.
pub fn facts(state: &State) -> Vec<Fact> {
    let mut facts = Vec::new();
    for (seat, player) in state.players.iter().enumerate() {
        let mut points = [0i64; 5];
        let mut cards = [0i64; 5];
        let mut bubbles = 0i64;
        for round in &state.rounds {
            for (k, column) in round.rows[seat].iter().enumerate() {
                let value = round.columns[k];
                let n = column.len() as i64;
                // Score cards are a permutation of 1–5 (checked at round_started).
                if let Some(at) = usize::from(value).checked_sub(1).filter(|&i| i < 5) {
                    points[at] += n * i64::from(value);
                    cards[at] += n;
                }
                bubbles += column
                    .iter()
                    .map(|&c| state.catalogue.bubble(c))
                    .sum::<i64>();
            }
        }
        for v in 1..=5 {
            facts.push(Fact::player(
                &player.name,
                format!("column:{v}:points"),
                points[v - 1],
            ));
            facts.push(Fact::player(
                &player.name,
                format!("column:{v}:cards"),
                cards[v - 1],
            ));
        }
        facts.push(Fact::player(&player.name, "bubbles", bubbles));
        for round in state.rounds.iter().filter(|r| r.over) {
            for (face, points, _) in objective_verdicts(state, round, seat) {
                let code = face.code();
                facts.push(Fact::player(
                    &player.name,
                    format!("objective:{code}:seen"),
                    1,
                ));
                facts.push(Fact::player(
                    &player.name,
                    format!("objective:{code}:hit"),
                    i64::from(points != 0),
                ));
            }
        }
    }
    facts
}

fn explain_tiebreak(players: &[PlayerScore], still_tied: StillTied) -> Option<Tiebreak> {
    let best = players.first()?.total;
    let tied: Vec<&PlayerScore> = players.iter().filter(|p| p.total == best).collect();
    if tied.len() < 2 {
        return None;
    }
    let names: Vec<&str> = tied.iter().map(|p| p.name.as_str()).collect();
    let in_round = |n: u32| {
        tied.iter()
            .map(|p| format!("{} {}", p.name, round_points(p, n)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let winners: Vec<&str> = tied
        .iter()
        .filter(|p| p.rank == 1)
        .map(|p| p.name.as_str())
        .collect();
    let outcome = if winners.len() == 1 {
        format!("{} wins", winners[0])
    } else {
        format!("still tied: {} share the win", list_names(&winners))
    };
    let (rule, compared) = match still_tied {
        StillTied::SharedWin => (
            "more points in round 3; still tied → shared win (house rule still_tied: shared_win)",
            format!("round 3: {}", in_round(3)),
        ),
        StillTied::MoreInRound2 => (
            "more points in round 3, then in round 2 (house rule still_tied: more_in_round_2)",
            format!("round 3: {}; round 2: {}", in_round(3), in_round(2)),
        ),
    };
    Some(Tiebreak {
        rule: rule.into(),
        detail: format!(
            "{} tied on {best}; {compared} → {outcome}",
            list_names(&names)
        ),
    })
}

fn house_rules(options: &Options) -> Vec<HouseRule> {
    let mut rules = vec![HouseRule {
        option: "still_tied".into(),
        value: json!(options.still_tied),
        default: options.still_tied == Options::default().still_tied,
        note: "players tied on total and on round 3: the rules publish no further tie-break".into(),
    }];
    if let Some(cards) = options.cards.as_ref().filter(|c| !c.is_empty()) {
        rules.push(HouseRule {
            option: "cards".into(),
            value: json!(cards),
            default: false,
            note: format!(
                "another printing: {} card(s) differ from the rules' table",
                cards.len()
            ),
        });
    }
    rules
}

/// The table a phone may draw: the current round, its prizes, rows and last turn.
fn details(state: &State) -> Value {
    let Some(round) = state.rounds.last() else {
        return json!({"round": null});
    };
    let by_name = |f: &dyn Fn(usize) -> Value| -> Value {
        state
            .players
            .iter()
            .enumerate()
            .map(|(seat, p)| (p.name.clone(), f(seat)))
            .collect::<serde_json::Map<String, Value>>()
            .into()
    };
    let last_turn = round.turns.last().map(|turn| {
        let mut takes: Vec<Value> = state
            .players
            .iter()
            .enumerate()
            .map(|(seat, p)| json!({"player": p.name, "played": turn.played[seat], "took": turn.took[seat]}))
            .collect();
        takes.sort_by_key(|t| t["played"].as_u64());
        takes
    });
    json!({
        "round": round.number,
        "over": round.over,
        "recorded_by": if round.rows_recorded { "rows_recorded" } else { "turns" },
        "turns_played": round.turns.len(),
        "turns_in_round": turns_in(round.number),
        "columns": round.columns,
        "objectives": round.objectives.iter().map(|f| f.code()).collect::<Vec<_>>(),
        "prizes": round.prizes,
        "rows": by_name(&|seat| json!(round.rows[seat])),
        "last_turn": last_turn,
    })
}
