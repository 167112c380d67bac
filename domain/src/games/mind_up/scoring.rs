//! Mind Up! scores: per round, every row card is worth the score card above its column plus
//! its bubble, plus the active objectives; highest total wins, tie → more in round 3.

use serde_json::{Map, Value, json};

use super::catalogue::{push_int, push_signed};
use super::insights::Key;
use super::objectives::{Face, RowFacts, verdict};
use super::state::{Round, State, turns_in};
use super::{Options, StillTied};
use crate::message::{Arg, Message};
use crate::said;
use crate::score::{
    self, Fact, HouseRule, Line, PlayerScore, RoundScore, Scoreboard, Tiebreak, said_names,
};

pub fn score(state: &State) -> Scoreboard {
    let everyone: Vec<Vec<RowFacts>> = state
        .rounds
        .iter()
        .map(|round| judged_rows(state, round))
        .collect();
    let mut players: Vec<PlayerScore> = state
        .players
        .iter()
        .enumerate()
        .map(|(seat, player)| {
            let rounds = state
                .rounds
                .iter()
                .zip(&everyone)
                .map(|(round, everyone)| {
                    RoundScore::new(round.number, round_lines(state, round, seat, everyone))
                })
                .collect();
            PlayerScore::new(&player.name, player.seat, rounds, Vec::new())
        })
        .collect();
    let tiebreak = rank_players(&mut players, state.options.still_tied);
    Scoreboard {
        lower_wins: false,
        winners: score::winners(&players),
        leaders: Vec::new(),
        players,
        tiebreak,
        house_rules: house_rules(&state.options),
        details: Some(details(state)),
    }
}

/// rules: highest total; tie → more points in round 3; still tied → [H] `still_tied`.
/// Returns how a tie for first was settled.
pub fn rank_players(players: &mut [PlayerScore], still_tied: StillTied) -> Option<Tiebreak> {
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

/// The facts of every row of a round, for its objectives; none when nothing is judged.
fn judged_rows(state: &State, round: &Round) -> Vec<RowFacts> {
    if !round.over || round.objectives.is_empty() {
        return Vec::new();
    }
    round
        .rows
        .iter()
        .map(|r| RowFacts::of(r.iter(), &state.catalogue))
        .collect()
}

/// The lines of one player's round: a line per column, the bubbles, then each objective once
/// the round is over (rules: objectives count the row at round end). `everyone` is
/// [`judged_rows`] of the round.
fn round_lines(state: &State, round: &Round, seat: usize, everyone: &[RowFacts]) -> Vec<Line> {
    let catalogue = &state.catalogue;
    let row = &round.rows[seat];
    let objectives = if round.over {
        round.objectives.len()
    } else {
        0
    };
    let mut lines = Vec::with_capacity(row.len() + 1 + objectives);
    let mut cards = 0;
    for (k, column) in row.iter().enumerate() {
        let Some(&first) = column.first() else {
            continue;
        };
        cards += column.len();
        let colour = catalogue.colour(first).said();
        let n = column.len() as i64;
        let value = i64::from(round.columns[k]);
        lines.push(Line {
            label: said!(
                "server.mind_up.line.column",
                colour = colour,
                n = n,
                value = value
            ),
            points: n * value,
            detail: said!(
                "server.mind_up.line.column_detail",
                n = n,
                value = value,
                points = n * value
            ),
        });
    }
    if cards > 0 {
        // "{card} {bubble}, {card} {bubble} = {sum}"
        let mut bubbles = 0;
        let mut detail = String::with_capacity(cards * 8 + 8);
        for (i, &c) in row.iter().flatten().enumerate() {
            if i > 0 {
                detail.push_str(", ");
            }
            let bubble = catalogue.bubble(c);
            bubbles += bubble;
            push_int(&mut detail, i64::from(c));
            detail.push(' ');
            push_signed(&mut detail, bubble);
        }
        detail.push_str(" = ");
        push_signed(&mut detail, bubbles);
        lines.push(Line {
            label: said!("server.mind_up.line.bubbles"),
            points: bubbles,
            // Numbers only: the same in every language.
            detail: Message::data(detail),
        });
    }
    if round.over {
        for (face, points, detail) in objective_verdicts(state, round, seat, everyone) {
            lines.push(Line {
                label: said!(
                    "server.mind_up.line.objective",
                    code = Arg::word(face.code()),
                    condition = face.condition_said()
                ),
                points,
                detail,
            });
        }
    }
    lines
}

/// Every active objective of a round judged for one player: (face, points, detail).
/// `everyone` is [`judged_rows`] of the round.
fn objective_verdicts<'a>(
    state: &State,
    round: &'a Round,
    seat: usize,
    everyone: &'a [RowFacts],
) -> impl Iterator<Item = (Face, i64, Message)> + 'a {
    let d1_without_green = state.options.d1_without_green;
    round.objectives.iter().map(move |face| {
        let (met, facts) = face.judge(&everyone[seat], everyone, &round.columns, d1_without_green);
        let (points, detail) = verdict(*face, met, facts);
        (*face, points, detail)
    })
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
                &Key::ColumnPoints(v as u8),
                points[v - 1],
            ));
            facts.push(Fact::player(
                &player.name,
                &Key::ColumnCards(v as u8),
                cards[v - 1],
            ));
        }
        facts.push(Fact::player(&player.name, &Key::Bubbles, bubbles));
        for round in state.rounds.iter().filter(|r| r.over) {
            let everyone = judged_rows(state, round);
            for (face, points, _) in objective_verdicts(state, round, seat, &everyone) {
                facts.push(Fact::player(&player.name, &Key::ObjectiveSeen(face), 1));
                facts.push(Fact::player(
                    &player.name,
                    &Key::ObjectiveHit(face),
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
        said!("server.tiebreak.wins", name = winners[0])
    } else {
        said!(
            "server.tiebreak.still_tied_share",
            names = said_names(&winners)
        )
    };
    let (rule, compared) = match still_tied {
        StillTied::SharedWin => (
            said!("server.mind_up.tiebreak.shared_win"),
            said!("server.mind_up.tiebreak.round_3", third = in_round(3)),
        ),
        StillTied::MoreInRound2 => (
            said!("server.mind_up.tiebreak.more_in_round_2"),
            said!(
                "server.mind_up.tiebreak.rounds_3_and_2",
                third = in_round(3),
                second = in_round(2)
            ),
        ),
    };
    Some(Tiebreak {
        rule,
        detail: said!(
            "server.mind_up.tiebreak.detail",
            names = said_names(&names),
            best = best,
            compared = compared,
            outcome = outcome
        ),
    })
}

/// The house-rule points in force (always listed), and `cards` when another printing is used.
fn house_rules(options: &Options) -> Vec<HouseRule> {
    let defaults = Options::default();
    let mut rules = vec![
        HouseRule {
            option: "still_tied".into(),
            value: json!(options.still_tied),
            default: options.still_tied == defaults.still_tied,
            note: said!("server.mind_up.house_rule.still_tied"),
        },
        HouseRule {
            option: "d1_without_green".into(),
            value: json!(options.d1_without_green),
            default: options.d1_without_green == defaults.d1_without_green,
            note: said!("server.mind_up.house_rule.d1_without_green"),
        },
    ];
    if let Some(cards) = options.cards.as_ref().filter(|c| !c.is_empty()) {
        rules.push(HouseRule {
            option: "cards".into(),
            value: json!(cards),
            default: false,
            note: said!("server.mind_up.house_rule.cards", cards = cards.len()),
        });
    }
    rules
}

/// The table a phone may draw: the current round, its prizes, rows and last turn.
fn details(state: &State) -> Value {
    let Some(round) = state.rounds.last() else {
        return json!({"round": null});
    };
    let cards = |cards: &[u8]| -> Value { cards.iter().map(|&c| Value::from(c)).collect() };
    let rows: Map<String, Value> = state
        .players
        .iter()
        .zip(&round.rows)
        .map(|(p, row)| {
            let columns: Value = row.iter().map(cards).collect();
            (p.name.to_string(), columns)
        })
        .collect();
    // Each player's take, lowest card played first.
    let last_turn = match round.turns.last() {
        None => Value::Null,
        Some(turn) => {
            let mut seats: Vec<usize> = (0..state.players.len()).collect();
            seats.sort_by_key(|&seat| turn.played[seat]);
            seats
                .into_iter()
                .map(|seat| {
                    let mut take = Map::new();
                    take.insert(
                        "player".to_owned(),
                        Value::from(state.players[seat].name.as_str()),
                    );
                    take.insert("played".to_owned(), Value::from(turn.played[seat]));
                    take.insert("took".to_owned(), Value::from(turn.took[seat]));
                    Value::Object(take)
                })
                .collect()
        }
    };
    let mut details = Map::new();
    details.insert("round".to_owned(), Value::from(round.number));
    details.insert("over".to_owned(), Value::from(round.over));
    details.insert(
        "recorded_by".to_owned(),
        Value::from(if round.rows_recorded {
            "rows_recorded"
        } else {
            "turns"
        }),
    );
    details.insert("turns_played".to_owned(), Value::from(round.turns.len()));
    details.insert(
        "turns_in_round".to_owned(),
        Value::from(turns_in(round.number)),
    );
    details.insert("columns".to_owned(), cards(&round.columns));
    details.insert(
        "objectives".to_owned(),
        round.objectives.iter().map(|f| f.code()).collect(),
    );
    details.insert(
        "prizes".to_owned(),
        round.prizes.as_deref().map_or(Value::Null, cards),
    );
    details.insert("rows".to_owned(), Value::Object(rows));
    details.insert("last_turn".to_owned(), last_turn);
    Value::Object(details)
}
