//! Random tables: for each game, many games of plausible but random events — legal, illegal and
//! everything between — sent one at a time through `Game::check_append`, as the server does.
//! Whatever arrives, the engine never panics, an accepted event's evaluation is exactly what a
//! replay of the whole log from the start gives, and a refusal names an event of the batch and
//! a field of it. The scores themselves are pinned by each game's given/when/then tests; this
//! one looks for the inputs nobody thought of. The generator is seeded: a failure repeats.

use serde_json::{Value, json};
use tabletally_domain::setup::PlayerEntry;
use tabletally_domain::{Game, LogEvent, NewEvent, Status};

mod support;
use support::Dice;

/// Games per game kind, and events tried per game.
const GAMES: u64 = 150;
const TRIES: usize = 50;

const NAMES: [&str; 6] = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"];
const COLOURS: [&str; 6] = ["red", "blue", "green", "yellow", "purple", "black"];

/// One random event for a game of `players` at this point of its log.
type Draw = fn(&mut Dice, &[&str], &[LogEvent]) -> (&'static str, Value);

/// Plays `GAMES` random games of `game`: options and players from `setup`, events from `draw`
/// (and now and then a retract, a correct or an abandon).
fn play(game: Game, seed: u64, setup: fn(&mut Dice) -> (usize, Value), draw: Draw) {
    // Another seed to look further: RANDOM_GAMES_SEED=7 cargo test --test random_games.
    let seed = std::env::var("RANDOM_GAMES_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map_or(seed, |s| s.wrapping_mul(1_000).wrapping_add(seed));
    let mut dice = Dice(seed);
    let (mut accepted, mut finished) = (0, 0);
    for _ in 0..GAMES {
        let (count, options) = setup(&mut dice);
        let names = &NAMES[..count];
        let entries: Vec<PlayerEntry> = names
            .iter()
            .zip(COLOURS)
            .map(|(name, colour)| PlayerEntry {
                name: (*name).into(),
                color: Some(colour.into()),
            })
            .collect();
        let Ok(started) = game.start(&entries, &options) else {
            continue;
        };
        let mut log = vec![LogEvent::new(
            1,
            "game_started",
            json!({"players": started.players, "options": started.options}),
        )];
        let mut status = None;
        for _ in 0..TRIES {
            let seq = log.len() as u64 + 1;
            let (event_type, data) = match dice.below(20) {
                0 if log.len() > 1 => ("retract", json!({"seq": dice.range(1, log.len())})),
                1 if log.len() > 1 => {
                    let target = dice.range(2, log.len());
                    let (_, data) = draw(&mut dice, names, &log);
                    ("correct", json!({"seq": target, "data": data}))
                }
                2 if dice.one_in(25) => ("abandon", json!({})),
                _ => draw(&mut dice, names, &log),
            };
            let batch = [NewEvent {
                event_type: event_type.into(),
                data: data.clone(),
            }];
            match game.check_append(&log, &batch) {
                Ok(evaluation) => {
                    log.push(LogEvent::new(seq, event_type, data));
                    let replayed = game.evaluate_with_facts(&log).unwrap_or_else(|e| {
                        panic!("an accepted log does not replay: {e}\n{log:#?}")
                    });
                    assert!(
                        evaluation == replayed,
                        "the append's evaluation differs from the replay ({}) of {log:#?}",
                        first_difference(&format!("{evaluation:?}"), &format!("{replayed:?}"))
                    );
                    assert_eq!(evaluation.version, seq);
                    accepted += 1;
                    status = Some(evaluation.status);
                }
                Err(rejection) => {
                    assert_eq!(rejection.event_index, 0, "{rejection}");
                    assert!(
                        rejection.pointer.is_empty() || rejection.pointer.starts_with('/'),
                        "{rejection}"
                    );
                    assert!(!rejection.rule.is_empty(), "{rejection}");
                }
            }
        }
        if status == Some(Status::Finished) {
            finished += 1;
        }
    }
    eprintln!("{game:?}: {accepted} random events accepted in {GAMES} games, {finished} finished");
    // The generator reaches past the first event: the games are played, not only refused.
    assert!(
        accepted >= GAMES as usize / 2,
        "only {accepted} random events were accepted"
    );
}

/// Where two renderings part: a little of each from the first differing character.
fn first_difference(a: &str, b: &str) -> String {
    let at = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let around = |s: &str| {
        s.chars()
            .skip(at.saturating_sub(80))
            .take(240)
            .collect::<String>()
    };
    format!("appended: …{}… replayed: …{}…", around(a), around(b))
}

/// The round the log is in, roughly: one more than the rounds ended or collected so far.
fn rounds_so_far(log: &[LogEvent], ends_a_round: &[&str]) -> usize {
    standing(log)
        .filter(|e| ends_a_round.contains(&e.event_type.as_str()))
        .count()
}

// ---------------------------------------------------------------------------------------------
// Mint Condition

const MC_CARDS: [&str; 11] = [
    "animal-kingdom",
    "autographed",
    "be-careful",
    "fine-wine",
    "heavy-rotation",
    "legacy-edition",
    "lost-pieces",
    "memories",
    "snack-fingers",
    "sleeve-me-up",
    "smoking-kills",
];

fn mint_condition_setup(dice: &mut Dice) -> (usize, Value) {
    let expert = dice.one_in(3);
    let options = json!({
        "lucky": dice.one_in(2),
        "heavily_used": dice.one_in(3),
        "expert_cards": expert,
        "strict_counts": !dice.one_in(4),
        "be_careful_when_none": *dice.pick(&["five", "zero"]),
        "memories_over_three": *dice.pick(&["free", "multiples_of_three"]),
        "sleeve_protects": dice.range(1, 2),
        "smoking_kills": if expert && dice.one_in(2) { json!({"holder": 3, "others": 1}) } else { Value::Null },
        "tiebreak_scope": *dice.pick(&["game", "last_round"]),
        "protected_be_careful": *dice.pick(&["counts", "ignored"]),
    });
    (dice.range(2, 5), options)
}

fn mint_condition_event(
    dice: &mut Dice,
    names: &[&str],
    log: &[LogEvent],
) -> (&'static str, Value) {
    let next = rounds_so_far(log, &["round_collected"]) + 1;
    let round = if dice.one_in(6) {
        dice.range(0, 4)
    } else {
        next
    };
    let size = [0, 0, 7, 9, 8, 6][names.len()];
    let mut collections = serde_json::Map::new();
    for name in names {
        if dice.one_in(30) {
            continue;
        }
        let count = if dice.one_in(12) {
            dice.range(size - 1, size + 1)
        } else {
            size
        };
        let cards: Vec<Value> = (0..count)
            .map(|_| {
                // Smoking Kills (the last) now and then: it needs expert cards and a rule.
                let kinds = if dice.one_in(8) { 11 } else { 10 };
                let card = *dice.pick(&MC_CARDS[..kinds]);
                match dice.below(30) {
                    0 => json!({"card": card, "protected": true}),
                    1..=4 => json!({"card": card, "symbol": *dice.pick(&["red", "blue", "rainbow", "green"])}),
                    _ => json!(card),
                }
            })
            .collect();
        let key = if dice.one_in(40) { "Zed" } else { name };
        collections.insert(key.into(), json!(cards));
    }
    (
        "round_collected",
        json!({"round": round, "collections": collections}),
    )
}

#[test]
fn random_mint_condition_games_never_break_the_engine() {
    play(
        Game::MintCondition,
        1,
        mint_condition_setup,
        mint_condition_event,
    );
}

// ---------------------------------------------------------------------------------------------
// Mint Julep

const HORSES: [&str; 5] = [
    "alaskan-justice",
    "maple-splendor",
    "newtons-apple",
    "whiskey-princess",
    "you-got-me",
];

fn mint_julep_setup(dice: &mut Dice) -> (usize, Value) {
    let split = *dice.pick(&["before_penalty", "after_penalty"]);
    (dice.range(2, 4), json!({"split": split}))
}

fn mint_julep_event(dice: &mut Dice, names: &[&str], log: &[LogEvent]) -> (&'static str, Value) {
    let next = rounds_so_far(log, &["round_ended"]) + 1;
    let round = if dice.one_in(10) {
        dice.range(0, 4)
    } else {
        next.min(3)
    };
    let player = *dice.pick(names);
    match dice.below(10) {
        0..=2 => {
            let replaces = if dice.one_in(3) {
                json!(*dice.pick(&HORSES))
            } else {
                Value::Null
            };
            let mut bet = json!({"round": round, "player": player, "horse": *dice.pick(&HORSES), "replaces": replaces});
            if dice.one_in(2) {
                bet["initiative"] = json!(*dice.pick(&["A", "B", "C"]));
            }
            ("bet_placed", bet)
        }
        3..=6 => {
            let moves: Vec<Value> = (0..dice.range(1, 3))
                .map(|_| {
                    json!({"horse": *dice.pick(&HORSES),
                           "direction": *dice.pick(&["forward", "back"]),
                           "kind": *dice.pick(&["top", "named"])})
                })
                .collect();
            let mint_julep = if dice.one_in(8) {
                json!({"horse": *dice.pick(&HORSES)})
            } else {
                Value::Null
            };
            (
                "card_played",
                json!({"round": round, "player": player, "moves": moves, "mint_julep": mint_julep}),
            )
        }
        7 => (
            "race_recorded",
            json!({"round": round, "order": dice.shuffled(&HORSES)}),
        ),
        _ => ("round_ended", json!({"round": round})),
    }
}

#[test]
fn random_mint_julep_games_never_break_the_engine() {
    play(Game::MintJulep, 2, mint_julep_setup, mint_julep_event);
}

// ---------------------------------------------------------------------------------------------
// Mind Up!

fn mind_up_setup(dice: &mut Dice) -> (usize, Value) {
    let objectives = *dice.pick(&[0, 0, 1, 2, 3, 4, 5]);
    (dice.range(3, 6), json!({"objectives": objectives}))
}

const FACES: [&str; 14] = [
    "A1", "A2", "B1", "B2", "C1", "C2", "D1", "D2", "E1", "E2", "F1", "F2", "G1", "G2",
];

/// Where a Mind Up! log stands, followed by the rules' turn: the player of the k-th lowest card
/// takes the k-th lowest prize into their row, and the cards played become the next prizes.
#[derive(Default)]
struct MindUpTable {
    round: usize,
    /// Turns of this round so far (the last placement counts as one).
    turns: usize,
    /// Every number seen at the table.
    seen: Vec<u64>,
    prizes: Vec<u64>,
    /// Per player: this round's row, the last round's (their hand now, with one drawn card), and
    /// the cards they played this round.
    rows: std::collections::HashMap<String, Vec<u64>>,
    last_rows: std::collections::HashMap<String, Vec<u64>>,
    played: std::collections::HashMap<String, Vec<u64>>,
}

impl MindUpTable {
    fn of(log: &[LogEvent]) -> Self {
        let mut table = Self::default();
        for event in standing(log) {
            let numbers = |field: &str| -> Vec<u64> {
                match event.data.get(field) {
                    Some(Value::Array(items)) => items.iter().filter_map(Value::as_u64).collect(),
                    Some(Value::Object(items)) => {
                        items.values().filter_map(Value::as_u64).collect()
                    }
                    _ => Vec::new(),
                }
            };
            let by_player = |field: &str| -> Vec<(String, u64)> {
                match event.data.get(field) {
                    Some(Value::Object(items)) => items
                        .iter()
                        .filter_map(|(k, v)| v.as_u64().map(|n| (k.clone(), n)))
                        .collect(),
                    _ => Vec::new(),
                }
            };
            match event.event_type.as_str() {
                "round_started" => {
                    table.round += 1;
                    table.turns = 0;
                    let given = numbers("prizes");
                    if !given.is_empty() {
                        table.prizes = given.clone();
                    }
                    table.seen.extend(given);
                    table.last_rows = std::mem::take(&mut table.rows);
                    table.played.clear();
                }
                "cards_played" => {
                    table.turns += 1;
                    let mut cards = by_player("cards");
                    cards.sort_by_key(|(_, n)| *n);
                    let mut prizes = table.prizes.clone();
                    prizes.sort_unstable();
                    for ((player, card), prize) in cards.iter().zip(prizes) {
                        table.rows.entry(player.clone()).or_default().push(prize);
                        table.played.entry(player.clone()).or_default().push(*card);
                    }
                    table.prizes = cards.iter().map(|(_, n)| *n).collect();
                    table.seen.extend(numbers("cards"));
                }
                "last_cards_placed" => {
                    table.turns += 1;
                    for (player, card) in by_player("cards") {
                        table.rows.entry(player.clone()).or_default().push(card);
                        table.played.entry(player).or_default().push(card);
                    }
                    table.seen.extend(numbers("cards"));
                }
                _ => {}
            }
        }
        table
    }

    /// What is left of `player`'s hand from their last row (the drawn card is unknown).
    fn hand_left(&self, player: &str) -> Vec<u64> {
        let played = self.played.get(player).cloned().unwrap_or_default();
        self.last_rows
            .get(player)
            .map(|row| {
                row.iter()
                    .copied()
                    .filter(|c| !played.contains(c))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The game events that stand: neither retracted nor a retract (corrections are not followed).
fn standing(log: &[LogEvent]) -> impl Iterator<Item = &LogEvent> {
    let retracted: Vec<u64> = log
        .iter()
        .filter(|e| e.event_type == "retract")
        .filter_map(|e| e.data["seq"].as_u64())
        .collect();
    log.iter()
        .filter(move |e| e.event_type != "retract" && !retracted.contains(&e.seq))
}

fn mind_up_event(dice: &mut Dice, names: &[&str], log: &[LogEvent]) -> (&'static str, Value) {
    let table = MindUpTable::of(log);
    let (started, turns) = (table.round, table.turns);
    let round = if dice.one_in(12) {
        dice.range(0, 4)
    } else {
        started.max(1)
    };
    // Mostly numbers nobody has seen yet (unknown cards are allowed without hands).
    let fresh = |dice: &mut Dice, taken: &mut Vec<u64>| -> u64 {
        loop {
            let n = dice.range(1, 60) as u64;
            if dice.one_in(10) || !taken.contains(&n) {
                taken.push(n);
                return n;
            }
        }
    };
    let mut taken = table.seen.clone();
    let round_over = started == 0 || turns > 5 + started;
    match dice.below(10) {
        _ if round_over && !dice.one_in(5) || dice.one_in(15) => {
            let round = if dice.one_in(6) { round } else { started + 1 };
            let mut data = json!({"round": round, "columns": dice.shuffled(&[1, 2, 3, 4, 5])});
            if round <= 1 || dice.one_in(4) {
                let prizes: Vec<u64> = (0..names.len()).map(|_| fresh(dice, &mut taken)).collect();
                data["prizes"] = json!(prizes);
            }
            // Mostly as many faces as the game plays with (round 1's again when kept).
            let wanted = log[0].data["options"]["objectives"].as_u64().unwrap_or(0) as usize;
            let first = log
                .iter()
                .find(|e| e.event_type == "round_started")
                .map(|e| e.data["objectives"].clone());
            let objectives = match first {
                Some(kept) if wanted > 3 && !dice.one_in(5) => kept,
                _ if dice.one_in(6) => json!(dice.shuffled(&FACES)[..dice.range(0, 5)].to_vec()),
                _ => {
                    let mut letters = dice.shuffled(&["A", "B", "C", "D", "E", "F", "G"]);
                    letters.truncate(wanted);
                    let faces: Vec<String> = letters
                        .iter()
                        .map(|l| format!("{l}{}", dice.range(1, 2)))
                        .collect();
                    json!(faces)
                }
            };
            if wanted > 0 || dice.one_in(6) {
                data["objectives"] = objectives;
            }
            ("round_started", data)
        }
        0 => {
            let rows: serde_json::Map<String, Value> = names
                .iter()
                .map(|n| {
                    let columns: Vec<Vec<u64>> = (0..dice.range(1, 5))
                        .map(|_| {
                            (0..dice.range(1, 3))
                                .map(|_| fresh(dice, &mut taken))
                                .collect()
                        })
                        .collect();
                    ((*n).to_owned(), json!(columns))
                })
                .collect();
            ("rows_recorded", json!({"round": round, "rows": rows}))
        }
        _ => {
            // From round 2 a hand is the last round's row and one drawn card: mostly play
            // what is left of it, else a fresh number (the drawn card).
            let cards: serde_json::Map<String, Value> = names
                .iter()
                .map(|n| {
                    let left = table.hand_left(n);
                    let card = if !left.is_empty() && !dice.one_in(8) {
                        *dice.pick(&left)
                    } else {
                        fresh(dice, &mut taken)
                    };
                    ((*n).to_owned(), json!(card))
                })
                .collect();
            let last = turns == 5 + started && !dice.one_in(6);
            let event_type = if last {
                "last_cards_placed"
            } else {
                "cards_played"
            };
            (event_type, json!({"round": round, "cards": cards}))
        }
    }
}

#[test]
fn random_mind_up_games_never_break_the_engine() {
    play(Game::MindUp, 3, mind_up_setup, mind_up_event);
}

// ---------------------------------------------------------------------------------------------
// Vintage

fn vintage_setup(dice: &mut Dice) -> (usize, Value) {
    let prizes = json!([
        {"id": "blue", "name": "Most blue", "attribute": "colour", "value": "blue", "points": 4},
        {"id": "sixties", "name": "Most 60s", "attribute": "period", "value": "60s", "points": 3},
        {"id": "wood", "name": "Most wood", "attribute": "material", "value": "wood", "points": 2},
    ]);
    let options = json!({
        "prizes": prizes,
        "prize_tie": *dice.pick(&["nobody", "all", "split"]),
        "winner_tie": *dice.pick(&["shared", "most_prize_points"]),
    });
    (dice.range(3, 6), options)
}

/// A card: often one described before (by id), else a new description.
fn vintage_card(dice: &mut Dice) -> Value {
    let id = format!("c{}", dice.range(1, 70));
    if dice.one_in(3) {
        return json!(id);
    }
    let mut card = json!({
        "id": id,
        "type": *dice.pick(&["lamp", "radio", "chair"]),
        "colour": *dice.pick(&["blue", "red"]),
        "period": *dice.pick(&["50s", "60s", "70s"]),
        "value": dice.range(0, 4),
    });
    if dice.one_in(4) {
        card["material"] = json!(*dice.pick(&["wood", "glass"]));
    }
    card
}

fn vintage_event(dice: &mut Dice, names: &[&str], _log: &[LogEvent]) -> (&'static str, Value) {
    let by_player = |dice: &mut Dice, sizes: &dyn Fn(usize) -> usize| -> Value {
        let map: serde_json::Map<String, Value> = names
            .iter()
            .enumerate()
            .map(|(seat, n)| {
                let cards: Vec<Value> = (0..sizes(seat)).map(|_| vintage_card(dice)).collect();
                ((*n).to_owned(), json!(cards))
            })
            .collect();
        Value::Object(map)
    };
    match dice.below(10) {
        0 => (
            "showcases_dealt",
            json!({"showcases": by_player(dice, &|seat| (seat + 1).min(3))}),
        ),
        1..=7 => {
            let (steal, dig) = if dice.one_in(3) {
                (Value::Null, json!(format!("c{}", dice.range(1, 70))))
            } else {
                (
                    json!({"from": *dice.pick(names), "card": format!("c{}", dice.range(1, 70))}),
                    Value::Null,
                )
            };
            let drawn = vec![vintage_card(dice), vintage_card(dice)];
            let kept = drawn[dice.below(2)]
                .get("id")
                .cloned()
                .unwrap_or_else(|| drawn[0].clone());
            (
                "turn_taken",
                json!({"player": *dice.pick(names), "banked": format!("c{}", dice.range(1, 70)),
                       "steal": steal, "dig": dig, "drawn": drawn, "kept": kept}),
            )
        }
        8 => {
            let banked: serde_json::Map<String, Value> = names
                .iter()
                .map(|n| ((*n).to_owned(), json!([format!("c{}", dice.range(1, 70))])))
                .collect();
            ("final_banked", json!({"banked": banked}))
        }
        _ => {
            // Mostly new, distinct cards: the whole end of a game at once.
            let mut next_id = 100;
            let collections: serde_json::Map<String, Value> = names
                .iter()
                .map(|n| {
                    let cards: Vec<Value> = (0..dice.range(0, 4))
                        .map(|_| {
                            next_id += 1;
                            let mut card = vintage_card(dice);
                            if card.is_object() && !dice.one_in(10) {
                                card["id"] = json!(format!("k{next_id}"));
                            }
                            card
                        })
                        .collect();
                    ((*n).to_owned(), json!(cards))
                })
                .collect();
            ("collections_recorded", json!({"collections": collections}))
        }
    }
}

#[test]
fn random_vintage_games_never_break_the_engine() {
    play(Game::Vintage, 4, vintage_setup, vintage_event);
}
