//! Given/when/then tests for Mind Up!, through the real entry points (`check_append`,
//! `evaluate`, `Game::start`). Expected numbers are worked out by hand in the comments.
//!
//! Most tests build on one 3-player round 1 (hands given), designed so that Ann's row is the
//! rules' worked example 2:
//!
//! | turn | prizes       | Ann | Bo | Cy | Ann takes | Bo takes | Cy takes |
//! |------|--------------|-----|----|----|-----------|----------|----------|
//! | 1    | 23, 40, 45   | 1   | 9  | 20 | 23        | 40       | 45       |
//! | 2    | 1, 9, 20     | 4   | 31 | 3  | 9         | 20       | 1        |
//! | 3    | 3, 4, 31     | 58  | 13 | 14 | 31        | 3        | 4        |
//! | 4    | 13, 14, 58   | 2   | 50 | 51 | 13        | 14       | 58       |
//! | 5    | 2, 50, 51    | 52  | 60 | 6  | 50        | 51       | 2        |
//! | 6    | 6, 52, 60    | 57  | 7  | 8  | 60        | 6        | 52       |
//! | last |              | 39  | 10 | 11 |           |          |          |
//!
//! Prizes left for round 2: 7, 8, 57. Columns [3, 5, 1, 4, 2]. Rows at round end:
//! - Ann: orange 23 31 60 | purple 9 50 39 | blue 13
//! - Bo:  blue 40 3 | purple 20 | green 14 | pink 51 6 10
//! - Cy:  orange 45 1 | green 4 | blue 58 | pink 2 | purple 52 11

use serde_json::{Value, json};

use super::scoring::rank_players;
use super::{MindUp, StillTied};
use crate::games::Game;
use crate::insights::{names, summed};
use crate::log::{LogEvent, NewEvent, Status, check_append, evaluate};
use crate::ruleset::Ruleset;
use crate::score::{Fact, Line, PlayerScore, RoundScore, Scoreboard};
use crate::setup::PlayerEntry;

const COLUMNS: [u8; 5] = [3, 5, 1, 4, 2];
const TURNS: [[u8; 3]; 6] = [
    [1, 9, 20],
    [4, 31, 3],
    [58, 13, 14],
    [2, 50, 51],
    [52, 60, 6],
    [57, 7, 8],
];
const LAST: [u8; 3] = [39, 10, 11];

fn game_of(names: &[&str], options: Value) -> Vec<LogEvent> {
    let players: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"name": n, "seat": i + 1}))
        .collect();
    vec![LogEvent {
        seq: 1,
        event_type: "game_started".into(),
        data: json!({"game": "mind-up", "players": players, "options": options}),
        schema_version: crate::log::SCHEMA_VERSION,
    }]
}

fn game(options: Value) -> Vec<LogEvent> {
    game_of(&["Ann", "Bo", "Cy"], options)
}

/// Appends events that must be accepted.
fn with(log: &[LogEvent], events: &[(&str, Value)]) -> Vec<LogEvent> {
    let batch: Vec<NewEvent> = events
        .iter()
        .map(|(t, d)| NewEvent {
            event_type: (*t).into(),
            data: d.clone(),
        })
        .collect();
    if let Err(rejection) = check_append::<MindUp>(log, &batch) {
        panic!("refused: {rejection}");
    }
    let mut out = log.to_vec();
    for event in batch {
        out.push(LogEvent {
            seq: out.len() as u64 + 1,
            event_type: event.event_type,
            data: event.data,
            schema_version: crate::log::SCHEMA_VERSION,
        });
    }
    out
}

/// Appends one event that must be refused; returns (pointer, rule).
fn refused(log: &[LogEvent], event_type: &str, data: Value) -> (String, String) {
    let batch = [NewEvent {
        event_type: event_type.into(),
        data,
    }];
    match check_append::<MindUp>(log, &batch) {
        Ok(_) => panic!("{event_type} was accepted"),
        Err(r) => {
            assert_eq!(r.event_index, 0);
            (r.pointer, r.rule)
        }
    }
}

fn board(log: &[LogEvent]) -> Scoreboard {
    evaluate::<MindUp>(log).expect("log replays").scoreboard
}

fn player<'a>(board: &'a Scoreboard, name: &str) -> &'a PlayerScore {
    board
        .players
        .iter()
        .find(|p| p.name == name)
        .expect("player")
}

fn round_of(board: &Scoreboard, name: &str, round: u32) -> RoundScore {
    player(board, name)
        .rounds
        .iter()
        .find(|r| r.round == round)
        .cloned()
        .expect("round")
}

fn points(board: &Scoreboard, name: &str, round: u32) -> i64 {
    round_of(board, name, round).points
}

fn totals(board: &Scoreboard) -> Vec<(String, i64)> {
    let mut all: Vec<(u32, String, i64)> = board
        .players
        .iter()
        .map(|p| (p.seat, p.name.clone(), p.total))
        .collect();
    all.sort();
    all.into_iter().map(|(_, n, t)| (n, t)).collect()
}

fn hands_1() -> Value {
    json!({
        "Ann": [1, 4, 58, 2, 52, 57, 39],
        "Bo": [9, 31, 13, 50, 60, 7, 10],
        "Cy": [20, 3, 14, 51, 6, 8, 11],
    })
}

fn start_1(extra: Value) -> Value {
    let mut data =
        json!({"round": 1, "columns": COLUMNS, "prizes": [23, 40, 45], "hands": hands_1()});
    if let (Some(data), Some(extra)) = (data.as_object_mut(), extra.as_object()) {
        for (k, v) in extra {
            if v.is_null() {
                data.remove(k);
            } else {
                data.insert(k.clone(), v.clone());
            }
        }
    }
    data
}

fn cards(round: u32, [ann, bo, cy]: [u8; 3]) -> Value {
    json!({"round": round, "cards": {"Ann": ann, "Bo": bo, "Cy": cy}})
}

/// Round 1 of the table above: started and the first `turns` turns played.
fn round_1_after(options: Value, start: Value, turns: usize) -> Vec<LogEvent> {
    round_1_after_from(game(options), start, turns)
}

fn round_1_after_from(started: Vec<LogEvent>, start: Value, turns: usize) -> Vec<LogEvent> {
    let mut events = vec![("round_started", start)];
    for turn in &TURNS[..turns] {
        events.push(("cards_played", cards(1, *turn)));
    }
    with(&started, &events)
}

/// Round 1 of the table above, finished.
fn round_1_done(options: Value, start: Value) -> Vec<LogEvent> {
    round_1_done_from(game(options), start)
}

/// Round 1 of the table above, finished, after `started` (a game_started as stored).
fn round_1_done_from(started: Vec<LogEvent>, start: Value) -> Vec<LogEvent> {
    let log = round_1_after_from(started, start, 6);
    with(&log, &[("last_cards_placed", cards(1, LAST))])
}

fn hands_2() -> Value {
    // rules: each row becomes its owner's next hand, plus one drawn card (15, 16, 17).
    json!({
        "Ann": [23, 31, 60, 9, 50, 39, 13, 15],
        "Bo": [40, 3, 20, 14, 51, 6, 10, 16],
        "Cy": [45, 1, 4, 58, 2, 52, 11, 17],
    })
}

fn details(log: &[LogEvent]) -> Value {
    board(log).details.expect("details")
}

// ---------------------------------------------------------------------------------------------
// Setup and options

#[test]
fn mind_up_is_a_known_game() {
    assert_eq!(Game::from_id("mind-up"), Some(Game::MindUp));
    assert_eq!(Game::MindUp.title(), "Mind Up!");
}

#[test]
fn a_game_needs_three_to_six_players() {
    let entries = |n: usize| -> Vec<PlayerEntry> {
        (0..n)
            .map(|i| PlayerEntry {
                name: format!("P{i}"),
                color: None,
            })
            .collect()
    };
    for bad in [2, 7] {
        let err = Game::MindUp.start(&entries(bad), &json!({})).unwrap_err();
        assert_eq!(err.pointer, "/players");
        assert_eq!(
            err.rule,
            format!("Mind Up! is played by 3 to 6 players, not {bad}")
        );
    }
    for good in [3, 6] {
        assert!(Game::MindUp.start(&entries(good), &json!({})).is_ok());
    }
}

#[test]
fn the_default_options_are_no_objectives_the_printed_cards_a_shared_win_and_no_d1_without_green() {
    assert_eq!(
        Game::MindUp.default_options(),
        json!({"objectives": 0, "cards": null, "still_tied": "shared_win",
               "d1_without_green": "nothing"})
    );
}

fn start_error(options: Value) -> (String, String) {
    let entries: Vec<PlayerEntry> = ["Ann", "Bo", "Cy"]
        .iter()
        .map(|n| PlayerEntry {
            name: (*n).into(),
            color: None,
        })
        .collect();
    let err = Game::MindUp.start(&entries, &options).unwrap_err();
    (err.pointer, err.rule)
}

#[test]
fn more_than_five_objectives_are_refused() {
    assert_eq!(
        start_error(json!({"objectives": 6})),
        (
            "/options/objectives".into(),
            "a game uses 0 to 5 objective cards, not 6".into()
        )
    );
}

#[test]
fn a_d1_without_green_value_other_than_nothing_or_bonus_is_refused() {
    assert_eq!(
        start_error(json!({"d1_without_green": "half"})),
        (
            "/options/d1_without_green".into(),
            "option \"d1_without_green\" must be one of \"nothing\" or \"bonus\"; got \"half\""
                .into()
        )
    );
}

#[test]
fn the_d1_without_green_house_rule_is_stored_in_the_effective_options() {
    let entries: Vec<PlayerEntry> = ["Ann", "Bo", "Cy"]
        .iter()
        .map(|n| PlayerEntry {
            name: (*n).into(),
            color: None,
        })
        .collect();
    let setup = Game::MindUp
        .start(
            &entries,
            &json!({"objectives": 1, "d1_without_green": "bonus"}),
        )
        .expect("a valid setup");
    assert_eq!(setup.options["d1_without_green"], json!("bonus"));
    let setup = Game::MindUp
        .start(&entries, &json!({"objectives": 1}))
        .expect("a valid setup");
    assert_eq!(setup.options["d1_without_green"], json!("nothing"));
}

#[test]
fn a_card_override_outside_1_to_60_is_refused() {
    assert_eq!(
        start_error(json!({"cards": [{"number": 61, "colour": "pink", "bubble": 0}]})),
        (
            "/options/cards/0/number".into(),
            "card 61 does not exist; Mind Up! cards are numbered 1 to 60".into()
        )
    );
}

#[test]
fn a_card_override_with_an_unknown_colour_is_refused() {
    assert_eq!(
        start_error(json!({"cards": [{"number": 12, "colour": "red", "bubble": 0}]})),
        (
            "/options/cards/0/colour".into(),
            "card 12 cannot be \"red\"; the colours are orange, pink, blue, green, purple".into()
        )
    );
}

#[test]
fn a_card_override_with_a_bubble_outside_minus_1_to_2_is_refused() {
    assert_eq!(
        start_error(json!({"cards": [{"number": 12, "colour": "green", "bubble": 3}]})),
        (
            "/options/cards/0/bubble".into(),
            "card 12 cannot have bubble 3; a bubble is −1, 0, +1 or +2".into()
        )
    );
}

#[test]
fn a_card_overridden_twice_is_refused() {
    assert_eq!(
        start_error(json!({"cards": [
            {"number": 12, "colour": "green", "bubble": 1},
            {"number": 12, "colour": "pink", "bubble": 0},
        ]})),
        (
            "/options/cards/1/number".into(),
            "card 12 is overridden twice (entries 0 and 1); give each number once".into()
        )
    );
}

#[test]
fn an_overridden_card_scores_with_its_new_colour_and_bubble() {
    // Another printing where 13 is orange with +2: Ann's 13 joins the orange column
    // (under the 3) instead of opening a blue one.
    // orange 23 31 60 13 → 4 × 3 = 12; purple 9 50 39 → 3 × 5 = 15;
    // bubbles +1 +1 0 −1 +1 −1 +2 with 13 now +2 (was −1) → +6. Round 12 + 15 + 6 = 33.
    let options = json!({"cards": [{"number": 13, "colour": "orange", "bubble": 2}]});
    let log = round_1_done(options, start_1(json!({})));
    let b = board(&log);
    assert_eq!(points(&b, "Ann", 1), 33);
    let lines = round_of(&b, "Ann", 1).breakdown;
    assert_eq!(lines[0].label, "orange ×4 under the 3");
    let cards = b.house_rules.iter().find(|h| h.option == "cards").unwrap();
    assert!(!cards.default);
}

// ---------------------------------------------------------------------------------------------
// Turns: the engine works out who takes which prize

#[test]
fn worked_example_1_the_lowest_card_takes_the_lowest_prize() {
    // rules example 1: prizes 12, 30, 47; Ann 41, Bo 5, Cy 33 → Bo 12, Cy 30, Ann 47;
    // next prizes 5, 33, 41.
    let log = with(
        &game(json!({})),
        &[
            (
                "round_started",
                json!({"round": 1, "columns": [1, 2, 3, 4, 5], "prizes": [12, 30, 47]}),
            ),
            ("cards_played", cards(1, [41, 5, 33])),
        ],
    );
    let d = details(&log);
    assert_eq!(
        d["rows"],
        json!({"Ann": [[47]], "Bo": [[12]], "Cy": [[30]]})
    );
    assert_eq!(d["prizes"], json!([5, 33, 41]));
    assert_eq!(
        d["last_turn"],
        json!([
            {"player": "Bo", "played": 5, "took": 12},
            {"player": "Cy", "played": 33, "took": 30},
            {"player": "Ann", "played": 41, "took": 47},
        ])
    );
}

#[test]
fn a_round_in_progress_scores_the_cards_gained_so_far() {
    // After example 1 with columns [1, 2, 3, 4, 5]: Bo's 12 (green, no bubble) sits in
    // column 1 under the 1 → 1 × 1 = 1; Ann's 47 (green, 0) → 1; Cy's 30 (orange, 0) → 1.
    let log = with(
        &game(json!({"objectives": 1})),
        &[
            (
                "round_started",
                json!({"round": 1, "columns": [1, 2, 3, 4, 5], "prizes": [12, 30, 47], "objectives": ["A1"]}),
            ),
            ("cards_played", cards(1, [41, 5, 33])),
        ],
    );
    let b = board(&log);
    assert_eq!(
        round_of(&b, "Bo", 1).breakdown,
        vec![
            Line::new("green ×1 under the 1", 1, "1 × 1 = 1"),
            Line::new("bubbles", 0, "12 0 = 0"),
        ]
    );
    // Objectives count the row at round end only: no A1 line yet (Cy's 1 orange would qualify).
    assert_eq!(points(&b, "Cy", 1), 1);
    assert_eq!(evaluate::<MindUp>(&log).unwrap().status, Status::InProgress);
}

#[test]
fn gained_cards_go_onto_their_colours_column_or_the_leftmost_empty_one() {
    // Bo takes 40 (blue), 20 (purple), 3 (blue, onto the blue column), 14 (green),
    // 51 (pink), 6 (pink), and places 10 (pink) last.
    let log = round_1_done(json!({}), start_1(json!({})));
    let d = details(&log);
    assert_eq!(d["rows"]["Bo"], json!([[40, 3], [20], [14], [51, 6, 10]]));
    assert_eq!(d["rows"]["Cy"], json!([[45, 1], [4], [58], [2], [52, 11]]));
    assert_eq!(d["over"], json!(true));
}

#[test]
fn worked_example_2_ann_scores_28_with_lines_she_can_check() {
    // rules example 2: orange ×3 under the 3 → 9, purple ×3 under the 5 → 15, blue ×1 under
    // the 1 → 1, bubbles +3; 9 + 15 + 1 + 3 = 28.
    let log = round_1_done(json!({}), start_1(json!({})));
    let b = board(&log);
    assert_eq!(
        round_of(&b, "Ann", 1).breakdown,
        vec![
            Line::new("orange ×3 under the 3", 9, "3 × 3 = 9"),
            Line::new("purple ×3 under the 5", 15, "3 × 5 = 15"),
            Line::new("blue ×1 under the 1", 1, "1 × 1 = 1"),
            Line::new(
                "bubbles",
                3,
                "23 +1, 31 0, 60 −1, 9 +1, 50 +1, 39 +2, 13 −1 = +3"
            ),
        ]
    );
    assert_eq!(points(&b, "Ann", 1), 28);
}

#[test]
fn every_row_of_round_1_scores_its_columns_and_bubbles() {
    // Bo: blue 2 × 3 = 6, purple 1 × 5 = 5, green 1 × 1 = 1, pink 3 × 4 = 12 → 24;
    //     bubbles 40 +1, 3 +1, 20 0, 14 0, 51 +2, 6 0, 10 +2 = +6 → 30.
    // Cy: orange 2 × 3 = 6, green 1 × 5 = 5, blue 1 × 1 = 1, pink 1 × 4 = 4,
    //     purple 2 × 2 = 4 → 20; bubbles 45 +2, 1 −1, 4 +2, 58 +1, 2 0, 52 +1, 11 +1 = +6 → 26.
    let log = round_1_done(json!({}), start_1(json!({})));
    let b = board(&log);
    assert_eq!(
        totals(&b),
        vec![("Ann".into(), 28), ("Bo".into(), 30), ("Cy".into(), 26)]
    );
    // Round 1 of 3: Bo leads, nobody has won yet.
    assert_eq!(b.leaders, vec!["Bo"]);
    assert!(b.winners.is_empty());
    assert_eq!(b.tiebreak, None);
}

#[test]
fn the_played_cards_become_the_next_prizes_and_carry_into_round_2() {
    let log = round_1_done(json!({}), start_1(json!({})));
    assert_eq!(details(&log)["prizes"], json!([7, 8, 57]));
    // Round 2 without prizes uses 7, 8, 57: the drawn cards 15 < 16 < 17 take 7, 8, 57.
    let log = with(
        &log,
        &[
            (
                "round_started",
                json!({"round": 2, "columns": [1, 2, 3, 4, 5], "hands": hands_2()}),
            ),
            ("cards_played", cards(2, [15, 16, 17])),
        ],
    );
    let d = details(&log);
    assert_eq!(d["rows"], json!({"Ann": [[7]], "Bo": [[8]], "Cy": [[57]]}));
    assert_eq!(d["prizes"], json!([15, 16, 17]));
}

#[test]
fn round_2_may_repeat_the_carried_over_prizes_in_any_order() {
    let log = round_1_done(json!({}), start_1(json!({})));
    with(
        &log,
        &[(
            "round_started",
            json!({"round": 2, "columns": COLUMNS, "prizes": [8, 57, 7]}),
        )],
    );
}

#[test]
fn round_2_with_other_prizes_than_the_carried_over_ones_is_refused() {
    let log = round_1_done(json!({}), start_1(json!({})));
    let (pointer, rule) = refused(
        &log,
        "round_started",
        json!({"round": 2, "columns": COLUMNS, "prizes": [7, 8, 56]}),
    );
    assert_eq!(pointer, "/data/prizes");
    assert_eq!(
        rule,
        "the prizes carried over from round 1 are 7, 8 and 57; round 2 starts with them \
         (leave prizes out to use them), not with 7, 8 and 56"
    );
}

#[test]
fn round_1_without_prizes_is_refused() {
    let (pointer, rule) = refused(
        &game(json!({})),
        "round_started",
        json!({"round": 1, "columns": COLUMNS}),
    );
    assert_eq!(pointer, "/data/prizes");
    assert_eq!(
        rule,
        "round 1 starts with 3 prizes on the table, one per player; list them in prizes"
    );
}

#[test]
fn prizes_of_the_wrong_count_are_refused() {
    let (pointer, rule) = refused(
        &game(json!({})),
        "round_started",
        json!({"round": 1, "columns": COLUMNS, "prizes": [12, 30, 47, 50]}),
    );
    assert_eq!(pointer, "/data/prizes");
    assert_eq!(rule, "with 3 players, 3 prizes lie on the table, not 4");
}

#[test]
fn a_prize_listed_twice_is_refused() {
    let (pointer, rule) = refused(
        &game(json!({})),
        "round_started",
        json!({"round": 1, "columns": COLUMNS, "prizes": [12, 30, 12]}),
    );
    assert_eq!(pointer, "/data/prizes/2");
    assert_eq!(
        rule,
        "12 is listed twice among the prizes; every card exists once"
    );
}

#[test]
fn a_prize_that_is_in_a_hand_is_refused() {
    let (pointer, rule) = refused(
        &game(json!({})),
        "round_started",
        start_1(json!({"prizes": [23, 40, 39]})),
    );
    assert_eq!(pointer, "/data/prizes/2");
    assert_eq!(rule, "39 is in Ann's hand, so it cannot also be a prize");
}

// ---------------------------------------------------------------------------------------------
// Cards that cannot be played

#[test]
fn a_card_played_twice_is_refused() {
    // No hands given: Bo played 9 in turn 1 and tries it again in turn 2.
    let log = round_1_after(json!({}), start_1(json!({"hands": null})), 1);
    let (pointer, rule) = refused(&log, "cards_played", cards(1, [4, 9, 3]));
    assert_eq!(pointer, "/data/cards/Bo");
    assert_eq!(
        rule,
        "Bo played 9, but 9 was already played in turn 1 of this round by Bo"
    );
}

#[test]
fn a_card_not_in_the_players_hand_is_refused() {
    let log = round_1_after(json!({}), start_1(json!({})), 0);
    let (pointer, rule) = refused(&log, "cards_played", cards(1, [1, 41, 20]));
    assert_eq!(pointer, "/data/cards/Bo");
    assert_eq!(
        rule,
        "Bo played 41 but 41 is not in Bo's hand: Bo's hand holds 7, 9, 10, 13, 31, 50 and 60"
    );
}

#[test]
fn a_card_in_another_players_hand_is_refused() {
    let log = round_1_after(json!({}), start_1(json!({})), 0);
    let (pointer, rule) = refused(&log, "cards_played", cards(1, [1, 9, 39]));
    assert_eq!(pointer, "/data/cards/Cy");
    assert_eq!(
        rule,
        "Cy played 39 but 39 is not in Cy's hand: it is in Ann's hand"
    );
}

#[test]
fn a_prize_cannot_be_played() {
    let log = round_1_after(json!({}), start_1(json!({"hands": null})), 0);
    let (pointer, rule) = refused(&log, "cards_played", cards(1, [23, 9, 20]));
    assert_eq!(pointer, "/data/cards/Ann");
    assert_eq!(
        rule,
        "Ann played 23 but 23 is not in Ann's hand: it is a prize on the table"
    );
}

#[test]
fn a_card_already_in_a_row_cannot_be_played() {
    // After turn 1 Bo's row holds 40.
    let log = round_1_after(json!({}), start_1(json!({"hands": null})), 1);
    let (pointer, rule) = refused(&log, "cards_played", cards(1, [4, 40, 3]));
    assert_eq!(pointer, "/data/cards/Bo");
    assert_eq!(
        rule,
        "Bo played 40 but 40 is not in Bo's hand: it is in Bo's own row"
    );
}

#[test]
fn two_players_playing_the_same_number_are_refused() {
    let log = round_1_after(json!({}), start_1(json!({"hands": null})), 0);
    let (pointer, rule) = refused(&log, "cards_played", cards(1, [5, 5, 20]));
    assert_eq!(pointer, "/data/cards/Bo");
    assert_eq!(rule, "Ann and Bo both played 5; every card exists once");
}

#[test]
fn a_number_outside_1_to_60_is_refused() {
    let log = round_1_after(json!({}), start_1(json!({"hands": null})), 0);
    for bad in [0, 61] {
        let (pointer, rule) = refused(
            &log,
            "cards_played",
            json!({"round": 1, "cards": {"Ann": 1, "Bo": bad, "Cy": 20}}),
        );
        assert_eq!(pointer, "/data/cards/Bo");
        assert_eq!(
            rule,
            format!("there is no card {bad}; Mind Up! cards are numbered 1 to 60")
        );
    }
}

#[test]
fn every_player_must_play_in_a_turn() {
    let log = round_1_after(json!({}), start_1(json!({})), 0);
    let (pointer, rule) = refused(
        &log,
        "cards_played",
        json!({"round": 1, "cards": {"Ann": 1, "Bo": 9}}),
    );
    assert_eq!(pointer, "/data/cards");
    assert_eq!(rule, "Cy is missing: every player appears exactly once");
}

#[test]
fn a_stranger_cannot_play() {
    let log = round_1_after(json!({}), start_1(json!({})), 0);
    let (pointer, rule) = refused(
        &log,
        "cards_played",
        json!({"round": 1, "cards": {"Ann": 1, "Bo": 9, "Cy": 20, "Dan": 5}}),
    );
    assert_eq!(pointer, "/data/cards/Dan");
    assert_eq!(
        rule,
        "\"Dan\" does not play in this game; the players are Ann, Bo and Cy"
    );
}

#[test]
fn an_unknown_field_is_refused() {
    let log = round_1_after(json!({}), start_1(json!({})), 0);
    let (pointer, rule) = refused(
        &log,
        "cards_played",
        json!({"round": 1, "cards": {"Ann": 1, "Bo": 9, "Cy": 20}, "turn": 1}),
    );
    assert_eq!(pointer, "/data/turn");
    assert_eq!(
        rule,
        "unknown field \"turn\"; cards_played has \"round\" and \"cards\""
    );
}

// ---------------------------------------------------------------------------------------------
// Round order and the end of a round

#[test]
fn a_turn_before_round_started_is_refused() {
    let (pointer, rule) = refused(&game(json!({})), "cards_played", cards(1, [1, 9, 20]));
    assert_eq!(pointer, "/data/round");
    assert_eq!(
        rule,
        "no round has started; record round_started for round 1 before its turns"
    );
}

#[test]
fn a_turn_of_another_round_is_refused() {
    let log = round_1_after(json!({}), start_1(json!({})), 2);
    let (pointer, rule) = refused(&log, "cards_played", cards(2, [58, 13, 14]));
    assert_eq!(pointer, "/data/round");
    assert_eq!(
        rule,
        "this is round 1, not round 2; events are recorded in round order"
    );
}

#[test]
fn a_round_cannot_start_before_the_last_one_is_over() {
    let log = round_1_after(json!({}), start_1(json!({})), 4);
    let (pointer, rule) = refused(
        &log,
        "round_started",
        json!({"round": 2, "columns": COLUMNS}),
    );
    assert_eq!(pointer, "/data/round");
    assert_eq!(
        rule,
        "round 1 is not over: 4 of its 6 turns are recorded and its last cards are not placed"
    );
}

#[test]
fn rounds_start_in_order() {
    let log = round_1_done(json!({}), start_1(json!({})));
    let (pointer, rule) = refused(
        &log,
        "round_started",
        json!({"round": 3, "columns": COLUMNS}),
    );
    assert_eq!(pointer, "/data/round");
    assert_eq!(
        rule,
        "round 2 comes next; rounds are played in order, got round 3"
    );
}

#[test]
fn a_round_ended_early_is_refused() {
    // rules: round 1 hands hold 7 cards: 6 turns, then the last card.
    let log = round_1_after(json!({}), start_1(json!({})), 5);
    let (pointer, rule) = refused(&log, "last_cards_placed", cards(1, [57, 7, 8]));
    assert_eq!(pointer, "/data");
    assert_eq!(
        rule,
        "round 1 is not over: 5 of its 6 turns are played; the last cards are placed when \
         every player is down to one card"
    );
}

#[test]
fn the_last_card_is_placed_not_played() {
    let log = round_1_after(json!({}), start_1(json!({})), 6);
    let (pointer, rule) = refused(&log, "cards_played", cards(1, LAST));
    assert_eq!(pointer, "/data");
    assert_eq!(
        rule,
        "round 1 has 6 turns and all were played: every player is down to one card, which is \
         not played; record it with last_cards_placed"
    );
}

#[test]
fn the_last_card_must_be_the_one_left_in_hand() {
    let log = round_1_after(json!({}), start_1(json!({})), 6);
    let (pointer, rule) = refused(&log, "last_cards_placed", cards(1, [38, 10, 11]));
    assert_eq!(pointer, "/data/cards/Ann");
    assert_eq!(
        rule,
        "Ann placed 38 but 38 is not in Ann's hand: Ann's hand holds 39"
    );
}

#[test]
fn a_turn_after_the_round_is_over_needs_the_next_round_started() {
    let log = round_1_done(json!({}), start_1(json!({})));
    let (pointer, rule) = refused(&log, "cards_played", cards(1, [1, 9, 20]));
    assert_eq!(pointer, "/data/round");
    assert_eq!(
        rule,
        "round 1 is over; record round_started for round 2 before its turns"
    );
}

#[test]
fn the_game_is_finished_after_round_3() {
    let log = with(&game(json!({})), &rows_round(1, rows_1()));
    let log = with(&log, &rows_round(2, rows_2()));
    let log = with(&log, &rows_round(3, rows_3()));
    assert_eq!(evaluate::<MindUp>(&log).unwrap().status, Status::Finished);
    let (pointer, rule) = refused(
        &log,
        "round_started",
        json!({"round": 4, "columns": COLUMNS}),
    );
    assert_eq!(pointer, "");
    assert_eq!(
        rule,
        "the game is already finished; to change it, correct or retract an earlier event"
    );
}

// ---------------------------------------------------------------------------------------------
// round_started: columns and hands

#[test]
fn columns_must_be_a_permutation_of_1_to_5() {
    for bad in [
        json!([3, 5, 1, 4, 4]),
        json!([1, 2, 3, 4]),
        json!([0, 1, 2, 3, 4]),
    ] {
        let (pointer, rule) = refused(
            &game(json!({})),
            "round_started",
            start_1(json!({"columns": bad.clone()})),
        );
        assert_eq!(pointer, "/data/columns");
        assert_eq!(
            rule,
            format!("columns must list the score cards 1 to 5 once each, left to right; got {bad}")
        );
    }
}

#[test]
fn a_round_1_hand_holds_7_cards() {
    let (pointer, rule) = refused(
        &game(json!({})),
        "round_started",
        start_1(json!({"hands": {"Bo": [9, 31, 13, 50, 60, 7]}})),
    );
    assert_eq!(pointer, "/data/hands/Bo");
    assert_eq!(rule, "a round-1 hand holds 7 cards; Bo's has 6");
}

#[test]
fn a_round_2_hand_holds_8_cards() {
    let log = round_1_done(json!({}), start_1(json!({})));
    let (pointer, rule) = refused(
        &log,
        "round_started",
        json!({"round": 2, "columns": COLUMNS, "hands": {"Ann": [23, 31, 60, 9, 50, 39, 13]}}),
    );
    assert_eq!(pointer, "/data/hands/Ann");
    assert_eq!(
        rule,
        "a round-2 hand holds 8 cards (the round-1 row of 7 plus one drawn card); Ann's has 7"
    );
}

#[test]
fn a_round_2_hand_is_the_round_1_row_plus_a_drawn_card() {
    let log = round_1_done(json!({}), start_1(json!({})));
    let (pointer, rule) = refused(
        &log,
        "round_started",
        json!({"round": 2, "columns": COLUMNS, "hands": {"Ann": [23, 32, 60, 9, 50, 39, 13, 15]}}),
    );
    assert_eq!(pointer, "/data/hands/Ann");
    assert_eq!(
        rule,
        "Ann's round-2 hand is Ann's round-1 row plus one drawn card, but 31 of that row is missing"
    );
}

#[test]
fn a_card_in_two_hands_is_refused() {
    let (pointer, rule) = refused(
        &game(json!({})),
        "round_started",
        start_1(
            json!({"hands": {"Ann": [1, 4, 58, 2, 52, 57, 39], "Bo": [9, 31, 13, 50, 60, 7, 39]}}),
        ),
    );
    assert_eq!(pointer, "/data/hands/Bo/6");
    assert_eq!(
        rule,
        "39 is in Ann's hand, so it cannot also be in Bo's hand"
    );
}

#[test]
fn a_drawn_card_cannot_be_a_carried_over_prize_or_another_players_row() {
    let log = round_1_done(json!({}), start_1(json!({})));
    let hand = |drawn: u8| json!({"round": 2, "columns": COLUMNS, "hands": {"Ann": [23, 31, 60, 9, 50, 39, 13, drawn]}});
    let (pointer, rule) = refused(&log, "round_started", hand(57));
    assert_eq!(pointer, "/data/hands/Ann/7");
    assert_eq!(
        rule,
        "57 is a prize carried over on the table, so it cannot also be in Ann's hand"
    );
    // 40 is in Bo's round-1 row, so it is in Bo's round-2 hand.
    let (pointer, rule) = refused(&log, "round_started", hand(40));
    assert_eq!(pointer, "/data/hands/Ann/7");
    assert_eq!(
        rule,
        "40 is in Bo's hand, so it cannot also be in Ann's hand"
    );
}

#[test]
fn without_a_given_hand_the_row_is_known_and_one_drawn_card_is_not() {
    // Round 2 without hands: Ann's hand is her round-1 row plus one unknown card. She may
    // play an unknown card once (15); a second unknown card (16) is refused.
    let log = round_1_done(json!({}), start_1(json!({})));
    let log = with(
        &log,
        &[
            ("round_started", json!({"round": 2, "columns": COLUMNS})),
            ("cards_played", cards(2, [15, 40, 45])),
        ],
    );
    let (pointer, rule) = refused(&log, "cards_played", cards(2, [16, 3, 1]));
    assert_eq!(pointer, "/data/cards/Ann");
    assert_eq!(
        rule,
        "Ann played 16 but 16 is not in Ann's hand: Ann's hand holds 9, 13, 23, 31, 39, 50 and 60"
    );
}

// ---------------------------------------------------------------------------------------------
// rows_recorded: the end-of-round shortcut

fn rows_1() -> Value {
    json!({
        "Ann": [[23, 31, 60], [9, 50, 39], [13]],
        "Bo": [[40, 3], [20], [14], [51, 6, 10]],
        "Cy": [[45, 1], [4], [58], [2], [52, 11]],
    })
}

fn rows_2() -> Value {
    // 8 cards each: round 1's rows (now the hands) plus six unknown cards, as many as the
    // three drawn cards and the three unknown prizes can explain (15, 41, 18, 24, 8, 7).
    json!({
        "Ann": [[23, 31, 60, 15], [9, 50, 39, 41]],
        "Bo": [[40, 3, 18, 24], [20], [14], [51, 6]],
        "Cy": [[45, 1, 8], [4], [58], [2], [52, 7]],
    })
}

fn rows_3() -> Value {
    // 9 cards each: round 2's rows plus 30, 12 and 16.
    json!({
        "Ann": [[23, 31, 60, 15, 30], [9, 50, 39, 41]],
        "Bo": [[40, 3, 18, 24], [20], [14, 12], [51, 6]],
        "Cy": [[45, 1, 8, 16], [4], [58], [2], [52, 7]],
    })
}

fn rows_round(round: u32, rows: Value) -> Vec<(&'static str, Value)> {
    let prizes = if round == 1 {
        json!([12, 30, 47])
    } else {
        Value::Null
    };
    vec![
        (
            "round_started",
            json!({"round": round, "columns": COLUMNS, "prizes": prizes}),
        ),
        ("rows_recorded", json!({"round": round, "rows": rows})),
    ]
}

#[test]
fn recorded_rows_score_like_rows_built_turn_by_turn() {
    // Same rows as the turn-by-turn round 1: Ann 28, Bo 30, Cy 26.
    let log = with(&game(json!({})), &rows_round(1, rows_1()));
    let b = board(&log);
    assert_eq!(
        totals(&b),
        vec![("Ann".into(), 28), ("Bo".into(), 30), ("Cy".into(), 26)]
    );
    assert_eq!(details(&log)["recorded_by"], json!("rows_recorded"));
}

fn rows_error(rows: Value) -> (String, String) {
    let log = with(
        &game(json!({})),
        &[(
            "round_started",
            json!({"round": 1, "columns": COLUMNS, "prizes": [12, 30, 47]}),
        )],
    );
    refused(&log, "rows_recorded", json!({"round": 1, "rows": rows}))
}

#[test]
fn a_recorded_column_holds_one_colour() {
    let mut rows = rows_1();
    rows["Ann"] = json!([[23, 31, 60], [9, 50, 13], [39]]);
    assert_eq!(
        rows_error(rows),
        (
            "/data/rows/Ann/1/2".into(),
            "column 2 of Ann's row mixes purple (9) and blue (13); a column holds one colour"
                .into()
        )
    );
}

#[test]
fn a_recorded_colour_has_one_column() {
    let mut rows = rows_1();
    rows["Ann"] = json!([[23, 31], [9, 50, 39], [13], [60]]);
    assert_eq!(
        rows_error(rows),
        (
            "/data/rows/Ann/3".into(),
            "orange is in columns 1 and 4 of Ann's row; a colour has one column".into()
        )
    );
}

#[test]
fn a_recorded_round_1_row_holds_7_cards() {
    let mut rows = rows_1();
    rows["Bo"] = json!([[40, 3], [20], [14], [51, 6]]);
    assert_eq!(
        rows_error(rows),
        (
            "/data/rows/Bo".into(),
            "a round-1 row holds 7 cards (6 gained and the last card); Bo's has 6".into()
        )
    );
}

#[test]
fn a_number_in_two_recorded_rows_is_refused() {
    let mut rows = rows_1();
    rows["Cy"] = json!([[45, 1], [4], [58], [2], [52, 9]]);
    assert_eq!(
        rows_error(rows),
        (
            "/data/rows/Cy/4/1".into(),
            "9 is in Ann's row and in Cy's row; every card exists once".into()
        )
    );
}

#[test]
fn a_recorded_row_fills_its_columns_from_the_left() {
    let mut rows = rows_1();
    rows["Ann"] = json!([[23, 31, 60], [], [9, 50, 39], [13]]);
    assert_eq!(
        rows_error(rows),
        (
            "/data/rows/Ann/1".into(),
            "column 2 of Ann's row is empty but a column to its right holds cards; a new colour \
             goes into the leftmost empty column"
                .into()
        )
    );
}

#[test]
fn recorded_rows_must_come_from_the_hands_and_prizes_when_all_are_known() {
    let log = with(&game(json!({})), &[("round_started", start_1(json!({})))]);
    // 12 was in no hand and not a prize.
    let mut rows = rows_1();
    rows["Ann"] = json!([[23, 31, 60], [9, 50, 39], [12]]);
    let (pointer, rule) = refused(&log, "rows_recorded", json!({"round": 1, "rows": rows}));
    assert_eq!(pointer, "/data/rows/Ann/2/0");
    assert_eq!(
        rule,
        "12 was not at the table when round 1 started: it is in no player's hand and not among \
         the prizes"
    );
}

#[test]
fn rows_recorded_cannot_follow_turns_of_the_same_round() {
    let log = round_1_after(json!({}), start_1(json!({})), 2);
    let (pointer, rule) = refused(&log, "rows_recorded", json!({"round": 1, "rows": rows_1()}));
    assert_eq!(pointer, "/data");
    assert_eq!(
        rule,
        "round 1 is being recorded turn by turn (2 turn(s) so far); rows_recorded replaces the \
         turn events and cannot be mixed with them — keep recording turns, or retract them first"
    );
}

#[test]
fn turns_cannot_follow_rows_recorded_in_the_same_round() {
    let log = with(&game(json!({})), &rows_round(1, rows_1()));
    let (pointer, rule) = refused(&log, "cards_played", cards(1, [1, 9, 20]));
    assert_eq!(pointer, "/data/round");
    assert_eq!(
        rule,
        "round 1 was recorded with rows_recorded, which replaces its turns; its turns cannot be \
         added to it"
    );
}

#[test]
fn after_recorded_rows_with_a_fully_known_table_the_left_over_cards_are_the_prizes() {
    // Hands and prizes known at the start: 21 + 3 cards; the rows take 21, so the prizes left
    // are the rest: 57, 7, 8 (what turn-by-turn play leaves too).
    let log = with(
        &game(json!({})),
        &[
            ("round_started", start_1(json!({}))),
            ("rows_recorded", json!({"round": 1, "rows": rows_1()})),
        ],
    );
    let mut prizes: Vec<u64> = details(&log)["prizes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    prizes.sort_unstable();
    assert_eq!(prizes, vec![7, 8, 57]);
    // Round 2 can then be played turn by turn with the carried-over prizes.
    with(
        &log,
        &[
            (
                "round_started",
                json!({"round": 2, "columns": COLUMNS, "hands": hands_2()}),
            ),
            ("cards_played", cards(2, [15, 16, 17])),
        ],
    );
}

#[test]
fn after_recorded_rows_with_unknown_hands_turns_need_the_prizes_given() {
    let log = with(&game(json!({})), &rows_round(1, rows_1()));
    assert_eq!(details(&log)["prizes"], Value::Null);
    // Prizes left out: the turn cannot be worked out.
    let without = with(
        &log,
        &[("round_started", json!({"round": 2, "columns": COLUMNS}))],
    );
    let (pointer, rule) = refused(&without, "cards_played", cards(2, [15, 16, 17]));
    assert_eq!(pointer, "/data");
    assert_eq!(
        rule,
        "the prizes on the table are unknown because round 1 was recorded with rows_recorded, so \
         this turn cannot be worked out; give prizes in round 2's round_started, or record round \
         2 with rows_recorded as well"
    );
    // …but recording round 2 by rows works.
    with(
        &without,
        &[("rows_recorded", json!({"round": 2, "rows": rows_2()}))],
    );
    // Prizes given: the turn is worked out with them.
    let given = with(
        &log,
        &[
            (
                "round_started",
                json!({"round": 2, "columns": COLUMNS, "prizes": [7, 8, 57]}),
            ),
            ("cards_played", cards(2, [15, 16, 17])),
        ],
    );
    assert_eq!(
        details(&given)["rows"],
        json!({"Ann": [[7]], "Bo": [[8]], "Cy": [[57]]})
    );
}

#[test]
fn given_prizes_after_recorded_rows_cannot_be_in_a_hand() {
    // 40 is in Bo's round-1 row, so in his round-2 hand.
    let log = with(&game(json!({})), &rows_round(1, rows_1()));
    let (pointer, rule) = refused(
        &log,
        "round_started",
        json!({"round": 2, "columns": COLUMNS, "prizes": [7, 8, 40]}),
    );
    assert_eq!(pointer, "/data/prizes/2");
    assert_eq!(rule, "40 is in Bo's hand, so it cannot also be a prize");
}

// ---------------------------------------------------------------------------------------------
// Objectives

fn objectives_round_1(count: u32, faces: Value) -> Scoreboard {
    let options = json!({"objectives": count});
    board(&round_1_done(
        options,
        start_1(json!({"objectives": faces})),
    ))
}

fn line<'a>(round: &'a RoundScore, code: &str) -> &'a Line {
    round
        .breakdown
        .iter()
        .find(|l| l.label.to_string().starts_with(code))
        .expect("objective line")
}

#[test]
fn the_first_faces_score_on_round_1s_rows() {
    // Counts — Ann: orange 3, purple 3, blue 1. Bo: blue 2, pink 3, purple 1, green 1.
    // Cy: orange 2, purple 2, green 1, blue 1, pink 1. Pink 0 / 3 / 1.
    // A1 (1 or 3 orange +2): Ann. B1 (2 or 4 blue +2): Bo. C1 (fewest pink −2): Ann.
    // D2 (green under 4 or 5 +2): Cy's green is in column 2, under the 5; Bo's under the 1.
    // E1 (purple ≥ orange +2): all three (3 ≥ 3, 1 ≥ 0, 2 ≥ 2).
    // Ann 28 + 2 − 2 + 2 = 30; Bo 30 + 2 + 2 = 34; Cy 26 + 2 + 2 = 30.
    let b = objectives_round_1(5, json!(["A1", "B1", "C1", "D2", "E1"]));
    assert_eq!(
        totals(&b),
        vec![("Ann".into(), 30), ("Bo".into(), 34), ("Cy".into(), 30)]
    );
    let ann = round_of(&b, "Ann", 1);
    assert_eq!(
        line(&ann, "A1"),
        &Line::new("A1: exactly 1 or 3 orange", 2, "3 orange → +2")
    );
    assert_eq!(
        line(&ann, "C1"),
        &Line::new(
            "C1: no player has fewer pink than you",
            -2,
            "0 pink, the fewest (ties count); the table has 0, 3, 1 → −2"
        )
    );
    let bo = round_of(&b, "Bo", 1);
    assert_eq!(
        line(&bo, "D2"),
        &Line::new(
            "D2: green present and its column's score card is 4 or 5",
            0,
            "green under the 1 → not met"
        )
    );
}

#[test]
fn the_second_faces_score_on_round_1s_rows() {
    // A2 (orange under 1 or 2 −2): Ann's and Cy's orange are under the 3 → nobody.
    // B2 (no colour beats blue +2): nobody (Ann 1 vs 3, Bo 2 vs 3, Cy 1 vs 2).
    // C2 (most pink +2): Bo. D1 (nothing right of green +2): Bo has pink right of green,
    // Cy too, Ann no green → nobody. E2 (most purple −2): Ann with 3.
    // Ann 28 − 2 = 26; Bo 30 + 2 = 32; Cy 26.
    let b = objectives_round_1(5, json!(["A2", "B2", "C2", "D1", "E2"]));
    assert_eq!(
        totals(&b),
        vec![("Ann".into(), 26), ("Bo".into(), 32), ("Cy".into(), 26)]
    );
    let bo = round_of(&b, "Bo", 1);
    assert_eq!(
        line(&bo, "D1"),
        &Line::new(
            "D1: green present and no card to the right of the green column",
            0,
            "green in column 3, 1 column(s) to its right → not met"
        )
    );
    assert_eq!(
        line(&round_of(&b, "Ann", 1), "D1").detail,
        "no green (house rule d1_without_green: nothing) → not met"
    );
}

#[test]
fn the_colour_count_faces_score_on_round_1s_rows() {
    // F1 (five colours +2): Cy. G1 (a colour with exactly 3 −2): Ann (orange, purple), Bo (pink).
    // Ann 28 − 2 = 26; Bo 30 − 2 = 28; Cy 26 + 2 = 28.
    let b = objectives_round_1(2, json!(["F1", "G1"]));
    assert_eq!(
        totals(&b),
        vec![("Ann".into(), 26), ("Bo".into(), 28), ("Cy".into(), 28)]
    );
    assert_eq!(
        line(&round_of(&b, "Ann", 1), "G1").detail,
        "orange, purple ×3 → −2"
    );
    // F2 (exactly three colours +2): Ann. G2 (a colour with exactly 4): nobody.
    // Ann 28 + 2 = 30; Bo 30; Cy 26.
    let b = objectives_round_1(2, json!(["F2", "G2"]));
    assert_eq!(
        totals(&b),
        vec![("Ann".into(), 30), ("Bo".into(), 30), ("Cy".into(), 26)]
    );
}

#[test]
fn objectives_of_the_wrong_count_are_refused() {
    let (pointer, rule) = refused(
        &game(json!({"objectives": 2})),
        "round_started",
        start_1(json!({"objectives": ["A1"]})),
    );
    assert_eq!(pointer, "/data/objectives");
    assert_eq!(rule, "this game plays with 2 objective(s), not 1");
    let (pointer, rule) = refused(
        &game(json!({"objectives": 2})),
        "round_started",
        start_1(json!({})),
    );
    assert_eq!(pointer, "/data/objectives");
    assert_eq!(
        rule,
        "this game plays with 2 objective(s); list the faces active in round 1"
    );
}

#[test]
fn objectives_in_a_game_without_them_are_refused() {
    let (pointer, rule) = refused(
        &game(json!({})),
        "round_started",
        start_1(json!({"objectives": ["A1"]})),
    );
    assert_eq!(pointer, "/data/objectives");
    assert_eq!(
        rule,
        "this game is played without objectives (option objectives is 0)"
    );
}

#[test]
fn an_objective_listed_twice_is_refused() {
    let (pointer, rule) = refused(
        &game(json!({"objectives": 2})),
        "round_started",
        start_1(json!({"objectives": ["A1", "A1"]})),
    );
    assert_eq!(pointer, "/data/objectives/1");
    assert_eq!(rule, "A1 is listed twice");
}

#[test]
fn both_faces_of_one_objective_card_are_refused() {
    let (pointer, rule) = refused(
        &game(json!({"objectives": 2})),
        "round_started",
        start_1(json!({"objectives": ["C2", "C1"]})),
    );
    assert_eq!(pointer, "/data/objectives/1");
    assert_eq!(
        rule,
        "C2 and C1 are the two faces of card C; a card shows one face"
    );
}

#[test]
fn an_unknown_objective_face_is_refused() {
    let (pointer, rule) = refused(
        &game(json!({"objectives": 1})),
        "round_started",
        start_1(json!({"objectives": ["H1"]})),
    );
    assert_eq!(pointer, "/data/objectives/0");
    assert_eq!(
        rule,
        "\"H1\" is not an objective face; the faces are A1, A2, B1, … G1, G2"
    );
}

/// A round recorded by rows (see [`rows_round`]) with the objectives its round_started reveals.
fn rows_round_with(round: u32, objectives: Value, rows: Value) -> Vec<(&'static str, Value)> {
    let mut events = rows_round(round, rows);
    events[0].1["objectives"] = objectives;
    events
}

#[test]
fn with_three_objectives_new_ones_are_revealed_each_round_and_a_card_may_come_back() {
    // rulebook: only "more than 3" objectives stay between rounds, so round 2 may show others.
    // Rows rows_1, rows_2, rows_3; score cards [3, 5, 1, 4, 2].
    // Round 1, A1 B1 C1 — orange 3 / 0 / 2, blue 1 / 2 / 1, pink 0 / 3 / 1:
    //   A1 (1 or 3 orange +2) Ann; B1 (2 or 4 blue +2) Bo; C1 (fewest pink −2) Ann.
    //   Ann 28 + 2 − 2 = 28; Bo 30 + 2 = 32; Cy 26.
    // Round 2, D2 G2 A1 — card A comes back, even with the same face:
    //   D2 (green under the 4 or 5 +2): Ann has no green, Bo's is in column 3 (the 1), Cy's in
    //   column 2 (the 5) → Cy. G2 (a colour ×4 +2): Ann (orange 4, purple 4), Bo (blue 4);
    //   Cy's largest is orange 3. A1: orange 4 / 0 / 3 → Cy.
    //   Ann 37 + 2 = 39; Bo 30 + 2 = 32; Cy 27 + 2 + 2 = 31.
    // Round 3, C2 E1 F1 — card C comes back with its other face:
    //   C2 (most pink +2): pink 0 / 2 / 1 → Bo. E1 (purple ≥ orange +2): Ann 4 < 5, Bo 1 ≥ 0,
    //   Cy 2 < 4 → Bo. F1 (five colours +2): Ann 2, Bo 4, Cy 5 → Cy.
    //   Ann 40; Bo 31 + 2 + 2 = 35; Cy 32 + 2 = 34.
    // Totals: Ann 28 + 39 + 40 = 107; Bo 32 + 32 + 35 = 99; Cy 26 + 31 + 34 = 91.
    let log = game(json!({"objectives": 3}));
    let log = with(
        &log,
        &rows_round_with(1, json!(["A1", "B1", "C1"]), rows_1()),
    );
    let log = with(
        &log,
        &rows_round_with(2, json!(["D2", "G2", "A1"]), rows_2()),
    );
    let log = with(
        &log,
        &rows_round_with(3, json!(["C2", "E1", "F1"]), rows_3()),
    );
    let b = board(&log);
    for (name, rounds) in [
        ("Ann", [28, 39, 40]),
        ("Bo", [32, 32, 35]),
        ("Cy", [26, 31, 34]),
    ] {
        assert_eq!(
            [1, 2, 3].map(|r| points(&b, name, r)),
            rounds,
            "{name}'s rounds"
        );
    }
    assert_eq!(
        totals(&b),
        vec![("Ann".into(), 107), ("Bo".into(), 99), ("Cy".into(), 91)]
    );
    assert_eq!(b.winners, vec!["Ann"]);
    assert_eq!(
        line(&round_of(&b, "Cy", 2), "A1"),
        &Line::new("A1: exactly 1 or 3 orange", 2, "3 orange → +2")
    );
    assert_eq!(line(&round_of(&b, "Bo", 3), "C2").points, 2);
    assert_eq!(details(&log)["objectives"], json!(["C2", "E1", "F1"]));
}

#[test]
fn with_three_objectives_a_round_may_show_round_1s_again() {
    // "Any" set is allowed, round 1's included (the cards are shuffled back between rounds).
    let log = round_1_done(
        json!({"objectives": 3}),
        start_1(json!({"objectives": ["A1", "B1", "C1"]})),
    );
    let again = with(
        &log,
        &[(
            "round_started",
            json!({"round": 2, "columns": COLUMNS, "objectives": ["B1", "C1", "A1"]}),
        )],
    );
    assert_eq!(details(&again)["objectives"], json!(["B1", "C1", "A1"]));
}

#[test]
fn with_one_or_two_objectives_a_card_of_an_earlier_round_may_come_back() {
    // Round 1 showed A1 and F2; round 2 shows card A again, on its other face.
    let log = round_1_done(
        json!({"objectives": 2}),
        start_1(json!({"objectives": ["A1", "F2"]})),
    );
    let log = with(
        &log,
        &[(
            "round_started",
            json!({"round": 2, "columns": COLUMNS, "objectives": ["B1", "A2"]}),
        )],
    );
    assert_eq!(details(&log)["objectives"], json!(["B1", "A2"]));
}

#[test]
fn with_one_to_three_objectives_each_round_must_list_its_own() {
    let log = round_1_done(
        json!({"objectives": 3}),
        start_1(json!({"objectives": ["A1", "B1", "C1"]})),
    );
    let (pointer, rule) = refused(
        &log,
        "round_started",
        json!({"round": 2, "columns": COLUMNS}),
    );
    assert_eq!(pointer, "/data/objectives");
    assert_eq!(
        rule,
        "this game plays with 3 objective(s), and with 1 to 3 new ones are revealed each round; \
         list the faces active in round 2"
    );
}

#[test]
fn a_returning_card_still_shows_one_face_and_is_listed_once_in_its_round() {
    // rules: letters within one round are distinct, also when a card comes back.
    let log = round_1_done(
        json!({"objectives": 3}),
        start_1(json!({"objectives": ["A1", "B1", "C1"]})),
    );
    let round_2 = |faces: Value| json!({"round": 2, "columns": COLUMNS, "objectives": faces});
    let (pointer, rule) = refused(&log, "round_started", round_2(json!(["A2", "D1", "A1"])));
    assert_eq!(pointer, "/data/objectives/2");
    assert_eq!(
        rule,
        "A2 and A1 are the two faces of card A; a card shows one face"
    );
    let (pointer, rule) = refused(&log, "round_started", round_2(json!(["B1", "E2", "B1"])));
    assert_eq!(pointer, "/data/objectives/2");
    assert_eq!(rule, "B1 is listed twice");
}

#[test]
fn with_four_or_five_objectives_round_1s_stay_for_the_game() {
    // rulebook: "with more than 3 objective cards, they are not changed between rounds".
    for (count, faces, changed, rule) in [
        (
            4,
            json!(["A1", "B1", "C1", "D2"]),
            json!(["A1", "B1", "C1", "E1"]),
            "with more than 3 objectives the cards are not changed between rounds: round 1's \
             A1, B1, C1 and D2 stay active in round 2",
        ),
        (
            5,
            json!(["A1", "B1", "C1", "D2", "E1"]),
            json!(["A1", "B1", "C1", "D2", "E2"]),
            "with more than 3 objectives the cards are not changed between rounds: round 1's \
             A1, B1, C1, D2 and E1 stay active in round 2",
        ),
    ] {
        let log = round_1_done(
            json!({"objectives": count}),
            start_1(json!({"objectives": faces})),
        );
        let (pointer, got) = refused(
            &log,
            "round_started",
            json!({"round": 2, "columns": COLUMNS, "objectives": changed}),
        );
        assert_eq!(pointer, "/data/objectives");
        assert_eq!(got, rule);
        // Repeated in another order: the same cards, shown as round 2 lists them.
        let mut reordered = faces.as_array().cloned().unwrap_or_default();
        reordered.reverse();
        let kept = with(
            &log,
            &[(
                "round_started",
                json!({"round": 2, "columns": COLUMNS, "objectives": reordered.clone()}),
            )],
        );
        assert_eq!(details(&kept)["objectives"], json!(reordered));
    }
}

#[test]
fn with_four_objectives_a_later_round_that_leaves_them_out_is_refused() {
    // rules: "objectives lists the active faces: exactly objectives many".
    let log = round_1_done(
        json!({"objectives": 4}),
        start_1(json!({"objectives": ["A1", "B1", "C1", "D2"]})),
    );
    assert_eq!(
        refused(
            &log,
            "round_started",
            json!({"round": 2, "columns": COLUMNS})
        ),
        (
            "/data/objectives".into(),
            "this game plays with 4 objectives, round 1's for the whole game; list them again in \
             round 2: A1, B1, C1 and D2"
                .into()
        )
    );
}

#[test]
fn a_four_objective_game_stored_before_schema_4_keeps_round_1s_objectives_when_left_out() {
    // Given a game stored at schema version 3, whose round 2 left round 1's four out
    let mut started = game(json!({"objectives": 4}));
    started[0].schema_version = 3;
    let log = round_1_done_from(
        started,
        start_1(json!({"objectives": ["A1", "B1", "C1", "D2"]})),
    );
    // When round 2 starts without them, then round 1's stay active
    let kept = with(
        &log,
        &[("round_started", json!({"round": 2, "columns": COLUMNS}))],
    );
    assert_eq!(
        details(&kept)["objectives"],
        json!(["A1", "B1", "C1", "D2"])
    );
}

#[test]
fn d1_in_a_row_without_green_scores_nothing_by_default() {
    // D1 (+2: green present, nothing right of its column): Ann has no green; Bo's green
    // (column 3) has pink to its right; Cy's (column 2) has blue, pink, purple → nobody.
    // Ann 28, Bo 30, Cy 26.
    let b = objectives_round_1(1, json!(["D1"]));
    assert_eq!(
        totals(&b),
        vec![("Ann".into(), 28), ("Bo".into(), 30), ("Cy".into(), 26)]
    );
    assert_eq!(
        line(&round_of(&b, "Ann", 1), "D1"),
        &Line::new(
            "D1: green present and no card to the right of the green column",
            0,
            "no green (house rule d1_without_green: nothing) → not met"
        )
    );
}

#[test]
fn d1_in_a_row_without_green_scores_2_with_the_house_rule_bonus() {
    // [H] bonus: nothing lies right of green cards that are not there → Ann +2; Bo and Cy have
    // green with cards to its right, so nothing changes for them. Ann 28 + 2 = 30, Bo 30, Cy 26.
    let b = board(&round_1_done(
        json!({"objectives": 1, "d1_without_green": "bonus"}),
        start_1(json!({"objectives": ["D1"]})),
    ));
    assert_eq!(
        totals(&b),
        vec![("Ann".into(), 30), ("Bo".into(), 30), ("Cy".into(), 26)]
    );
    assert_eq!(
        line(&round_of(&b, "Ann", 1), "D1"),
        &Line::new(
            "D1: green present and no card to the right of the green column",
            2,
            "no green, so nothing to its right (house rule d1_without_green: bonus) → +2"
        )
    );
    assert_eq!(
        line(&round_of(&b, "Bo", 1), "D1").detail,
        "green in column 3, 1 column(s) to its right → not met"
    );
}

// ---------------------------------------------------------------------------------------------
// Totals and the tie-break

fn scored(name: &str, seat: u32, rounds: [i64; 3]) -> PlayerScore {
    let rounds = rounds
        .iter()
        .enumerate()
        .map(|(i, &p)| RoundScore::new(i as u32 + 1, vec![Line::new("row", p, "")]))
        .collect();
    PlayerScore::new(name, seat, rounds, Vec::new())
}

#[test]
fn worked_example_3_a_tie_goes_to_more_points_in_round_3() {
    // rules example 3: totals 83 each (28 + 25 + 30, 30 + 28 + 25); round 3 30 vs 25.
    let mut players = vec![
        scored("Bo", 1, [30, 28, 25]),
        scored("Ann", 2, [28, 25, 30]),
    ];
    let tiebreak = rank_players(&mut players, StillTied::SharedWin).unwrap();
    assert_eq!(players[0].name, "Ann");
    assert_eq!((players[0].rank, players[1].rank), (1, 2));
    assert_eq!(
        tiebreak.detail,
        "Ann and Bo tied on 83; round 3: Ann 30, Bo 25 → Ann wins"
    );
}

#[test]
fn still_tied_after_round_3_the_win_is_shared() {
    // 83 each, 30 in round 3 each.
    let mut players = vec![
        scored("Ann", 1, [28, 25, 30]),
        scored("Bo", 2, [25, 28, 30]),
        scored("Cy", 3, [20, 20, 20]),
    ];
    let tiebreak = rank_players(&mut players, StillTied::SharedWin).unwrap();
    assert_eq!(
        (players[0].rank, players[1].rank, players[2].rank),
        (1, 1, 3)
    );
    assert_eq!(
        tiebreak.rule,
        "more points in round 3; still tied → shared win (house rule still_tied: shared_win)"
    );
    assert_eq!(
        tiebreak.detail,
        "Ann and Bo tied on 83; round 3: Ann 30, Bo 30 → still tied: Ann and Bo share the win"
    );
}

#[test]
fn the_house_rule_more_in_round_2_settles_what_round_3_does_not() {
    // 83 each, 30 in round 3 each; round 2: Bo 28 beats Ann 25.
    let mut players = vec![
        scored("Ann", 1, [28, 25, 30]),
        scored("Bo", 2, [25, 28, 30]),
    ];
    let tiebreak = rank_players(&mut players, StillTied::MoreInRound2).unwrap();
    assert_eq!(players[0].name, "Bo");
    assert_eq!(
        tiebreak.detail,
        "Bo and Ann tied on 83; round 3: Bo 30, Ann 30; round 2: Bo 28, Ann 25 → Bo wins"
    );
}

#[test]
fn a_tie_for_first_in_a_real_game_is_shared_by_default() {
    // Objectives F2 and G2 leave Ann and Bo on 30 each after round 1; no round 3 yet (0 each).
    // The game goes on: they share the lead, and nobody has won yet.
    let b = objectives_round_1(2, json!(["F2", "G2"]));
    assert_eq!(b.leaders, vec!["Ann", "Bo"]);
    assert!(b.winners.is_empty());
    assert_eq!(
        b.tiebreak.unwrap().detail,
        "Ann and Bo tied on 30; round 3: Ann 0, Bo 0 → still tied: Ann and Bo share the win"
    );
}

#[test]
fn the_still_tied_and_d1_without_green_house_rules_are_always_listed() {
    let b = board(&game(json!({})));
    let listed: Vec<(&str, &Value, bool)> = b
        .house_rules
        .iter()
        .map(|h| (h.option.as_str(), &h.value, h.default))
        .collect();
    assert_eq!(
        listed,
        vec![
            ("still_tied", &json!("shared_win"), true),
            ("d1_without_green", &json!("nothing"), true),
        ]
    );
    let b = board(&game(
        json!({"still_tied": "more_in_round_2", "d1_without_green": "bonus"}),
    ));
    let listed: Vec<(&str, &Value, bool)> = b
        .house_rules
        .iter()
        .map(|h| (h.option.as_str(), &h.value, h.default))
        .collect();
    assert_eq!(
        listed,
        vec![
            ("still_tied", &json!("more_in_round_2"), false),
            ("d1_without_green", &json!("bonus"), false),
        ]
    );
}

#[test]
fn totals_add_up_the_three_rounds() {
    // Round 1 (rows_1): Ann 28, Bo 30, Cy 26 — as worked out above.
    // Round 2 (rows_2), columns [3, 5, 1, 4, 2]:
    //   Ann orange 23 31 60 15 → 4 × 3 = 12, purple 9 50 39 41 → 4 × 5 = 20;
    //       bubbles +1 0 −1 +1 +1 +1 +2 0 = +5 → 37.
    //   Bo  blue 40 3 18 24 → 4 × 3 = 12, purple 20 → 5, green 14 → 1, pink 51 6 → 2 × 4 = 8;
    //       bubbles +1 +1 0 0 0 0 +2 0 = +4 → 30.
    //   Cy  orange 45 1 8 → 3 × 3 = 9, green 4 → 5, blue 58 → 1, pink 2 → 4,
    //       purple 52 7 → 2 × 2 = 4; bubbles +2 −1 0 +2 +1 0 +1 −1 = +4 → 27.
    // Round 3 (rows_3): round 2's rows plus Ann's 30 (orange, 0), Bo's 12 (green, 0) and
    //   Cy's 16 (orange, +2): Ann 37 + 3 = 40; Bo 30 + 1 = 31; Cy 27 + 3 + 2 = 32.
    // Totals: Ann 28 + 37 + 40 = 105; Bo 30 + 30 + 31 = 91; Cy 26 + 27 + 32 = 85.
    let log = with(&game(json!({})), &rows_round(1, rows_1()));
    let log = with(&log, &rows_round(2, rows_2()));
    let log = with(&log, &rows_round(3, rows_3()));
    let b = board(&log);
    assert_eq!(
        [
            points(&b, "Ann", 2),
            points(&b, "Bo", 2),
            points(&b, "Cy", 2)
        ],
        [37, 30, 27]
    );
    assert_eq!(
        totals(&b),
        vec![("Ann".into(), 105), ("Bo".into(), 91), ("Cy".into(), 85)]
    );
    assert_eq!(b.winners, vec!["Ann"]);
    assert_eq!(b.tiebreak, None);
}

// ---------------------------------------------------------------------------------------------
// Corrections go through the engine again

#[test]
fn correcting_an_early_turn_replays_every_later_turn() {
    // Correct turn 1 (event 3) so that Bo plays 10 instead of 9: turn 2 then has prizes
    // 1, 10, 20 and Bo's later 9... is still legal, but his last card 10 was already played.
    let log = round_1_done(json!({}), start_1(json!({})));
    let (pointer, rule) = refused(
        &log,
        "correct",
        json!({"seq": 3, "data": cards(1, [1, 10, 20])}),
    );
    assert_eq!(pointer, "/data/seq");
    assert_eq!(
        rule,
        "after this correction, event 9 (last_cards_placed) would break a rule: Bo placed 10, \
         but 10 was already played in turn 1 of this round by Bo"
    );
}

// ---------------------------------------------------------------------------------------------
// The bench fixture

#[test]
fn the_bench_fixture_replays_to_the_cross_checked_totals() {
    let raw = include_str!("../../../benches/fixtures/mind-up.json");
    let events: Vec<Value> = serde_json::from_str(raw).expect("fixture is JSON");
    let log: Vec<LogEvent> = events
        .iter()
        .map(|e| LogEvent {
            seq: e["seq"].as_u64().unwrap(),
            event_type: e["type"].as_str().unwrap().into(),
            data: e["data"].clone(),
            schema_version: crate::log::SCHEMA_VERSION,
        })
        .collect();
    assert_eq!(log.len(), 1 + 3 + (6 + 7 + 8) + 3);
    let evaluation = Game::MindUp.evaluate(&log).expect("fixture replays");
    assert_eq!(evaluation.status, Status::Finished);
    let b = evaluation.scoreboard;
    // Cross-checked with an independent scorer written from the rules file
    // (rounds: Ann 21/19/28, Bo 25/34/26, Cy 31/36/25, Di 26/31/28, Eve 30/31/29, Flo 33/22/24).
    assert_eq!(
        totals(&b),
        vec![
            ("Ann".into(), 68),
            ("Bo".into(), 85),
            ("Cy".into(), 92),
            ("Di".into(), 85),
            ("Eve".into(), 90),
            ("Flo".into(), 79),
        ]
    );
    assert_eq!(
        [
            points(&b, "Cy", 1),
            points(&b, "Cy", 2),
            points(&b, "Cy", 3)
        ],
        [31, 36, 25]
    );
    assert_eq!(b.winners, vec!["Cy"]);
}

// ---------------------------------------------------------------------------------------------
// Facts for the club statistics

/// A player's expected facts: points and cards under the score cards 1–5, the bubbles, then
/// per round the (face, hit) of each active objective.
fn expected_facts(
    name: &str,
    columns: [(i64, i64); 5],
    bubbles: i64,
    objectives: &[(&str, bool)],
) -> Vec<Fact> {
    let mut facts = Vec::new();
    for (v, (points, cards)) in (1..=5).zip(columns) {
        facts.push(Fact::stored_player(
            name,
            format!("column:{v}:points"),
            points,
        ));
        facts.push(Fact::stored_player(
            name,
            format!("column:{v}:cards"),
            cards,
        ));
    }
    facts.push(Fact::stored_player(name, "bubbles", bubbles));
    for (face, hit) in objectives {
        facts.push(Fact::stored_player(
            name,
            format!("objective:{face}:seen"),
            1,
        ));
        facts.push(Fact::stored_player(
            name,
            format!("objective:{face}:hit"),
            i64::from(*hit),
        ));
    }
    facts
}

/// The three recorded rounds of `totals_add_up_the_three_rounds` (columns [3, 5, 1, 4, 2]
/// each round) with objectives A1, B1 and E1 revealed in every round (with 3 objectives each
/// round reveals its own; the same three may come again).
fn three_rounds_with_objectives() -> Vec<LogEvent> {
    let faces = || json!(["A1", "B1", "E1"]);
    let log = game(json!({"objectives": 3}));
    let log = with(&log, &rows_round_with(1, faces(), rows_1()));
    let log = with(&log, &rows_round_with(2, faces(), rows_2()));
    with(&log, &rows_round_with(3, faces(), rows_3()))
}

#[test]
fn a_finished_game_gives_column_bubble_and_objective_facts() {
    // Given `three_rounds_with_objectives`.
    let log = three_rounds_with_objectives();
    // When the game is evaluated.
    let evaluation = crate::log::evaluate_with_facts::<MindUp>(&log).expect("log replays");
    assert_eq!(evaluation.status, Status::Finished);
    // Then, by hand. Columns (score card: cards over rounds 1 + 2 + 3):
    //   Ann: under 3: 3 + 4 + 5 = 12 → 36; under 5: 3 + 4 + 4 = 11 → 55; under 1: 1 → 1.
    //        Bubbles 3 + 5 + 5 = 13 (round scores 28, 37, 40 minus their columns 25, 32, 35).
    //   Bo:  under 3: 2 + 4 + 4 = 10 → 30; under 5: 1 + 1 + 1 = 3 → 15;
    //        under 1: 1 + 1 + 2 = 4 → 4; under 4: 3 + 2 + 2 = 7 → 28. Bubbles 6 + 4 + 4 = 14.
    //   Cy:  under 3: 2 + 3 + 4 = 9 → 27; under 5: 3 → 15; under 1: 3 → 3; under 4: 3 → 12;
    //        under 2: 2 + 2 + 2 = 6 → 12. Bubbles 6 + 4 + 6 = 16.
    //   (Ann 36 + 55 + 1 + 13 = 105, Bo 30 + 15 + 4 + 28 + 14 = 91, Cy 27 + 15 + 3 + 12 + 12
    //   + 16 = 85: the totals without objectives.)
    // Objectives (orange / blue / purple counts per round):
    //   Ann 3/1/3, 4/0/4, 5/0/4: A1 hit in round 1; B1 never; E1 (purple ≥ orange) rounds 1–2.
    //   Bo  0/2/1, 0/4/1, 0/4/1: A1 never; B1 and E1 every round.
    //   Cy  2/1/2, 3/1/2, 4/1/2: A1 in round 2; B1 never; E1 in round 1.
    let ann = expected_facts(
        "Ann",
        [(1, 1), (0, 0), (36, 12), (0, 0), (55, 11)],
        13,
        &[
            ("A1", true),
            ("B1", false),
            ("E1", true),
            ("A1", false),
            ("B1", false),
            ("E1", true),
            ("A1", false),
            ("B1", false),
            ("E1", false),
        ],
    );
    let bo = expected_facts(
        "Bo",
        [(4, 4), (0, 0), (30, 10), (28, 7), (15, 3)],
        14,
        &[
            ("A1", false),
            ("B1", true),
            ("E1", true),
            ("A1", false),
            ("B1", true),
            ("E1", true),
            ("A1", false),
            ("B1", true),
            ("E1", true),
        ],
    );
    let cy = expected_facts(
        "Cy",
        [(3, 3), (12, 6), (27, 9), (12, 3), (15, 3)],
        16,
        &[
            ("A1", false),
            ("B1", false),
            ("E1", true),
            ("A1", true),
            ("B1", false),
            ("E1", false),
            ("A1", false),
            ("B1", false),
            ("E1", false),
        ],
    );
    assert_eq!(evaluation.facts, [ann, bo, cy].concat());
    // Each hit is +2: Ann 105 + 6 = 111, Bo 91 + 12 = 103, Cy 85 + 4 = 89.
    assert_eq!(
        totals(&evaluation.scoreboard),
        vec![("Ann".into(), 111), ("Bo".into(), 103), ("Cy".into(), 89)]
    );
}

#[test]
fn a_three_objective_game_stored_before_schema_2_keeps_round_1s_objectives_when_left_out() {
    // Given `three_rounds_with_objectives` as a server before schema version 2 stored it: with
    // 3 objectives the cards were kept for the game, so rounds 2 and 3 left them out.
    let mut log = game(json!({"objectives": 3}));
    log[0].schema_version = 1;
    let log = with(
        &log,
        &rows_round_with(1, json!(["A1", "B1", "E1"]), rows_1()),
    );
    let log = with(&log, &rows_round(2, rows_2()));
    let log = with(&log, &rows_round(3, rows_3()));
    // When it is replayed, then it scores as before: round 1's A1, B1 and E1 in every round
    // (the totals of `a_finished_game_gives_column_bubble_and_objective_facts`).
    let board = evaluate::<MindUp>(&log).expect("log replays").scoreboard;
    assert_eq!(
        totals(&board),
        vec![("Ann".into(), 111), ("Bo".into(), 103), ("Cy".into(), 89)]
    );
    // And a game started today must list round 2's own objectives.
    let today = with(
        &game(json!({"objectives": 3})),
        &rows_round_with(1, json!(["A1", "B1", "E1"]), rows_1()),
    );
    let round_2 = rows_round(2, rows_2()).remove(0).1;
    assert_eq!(
        refused(&today, "round_started", round_2),
        (
            "/data/objectives".into(),
            "this game plays with 3 objective(s), and with 1 to 3 new ones are revealed each \
             round; list the faces active in round 2"
                .into()
        )
    );
}

#[test]
fn the_upcasters_marks_of_old_games_cannot_be_set_on_a_new_game() {
    let players = ["Ann", "Bo", "Cy"].map(|name| PlayerEntry {
        name: name.into(),
        color: None,
    });
    for (objectives, mark) in [
        (3, "three_objectives_kept"),
        (4, "kept_objectives_left_out"),
    ] {
        let error = Game::MindUp
            .start(&players, &json!({"objectives": objectives, mark: true}))
            .unwrap_err();
        assert_eq!(error.pointer, format!("/options/{mark}"));
    }
}

#[test]
fn the_declared_insights_come_from_the_facts_of_finished_games() {
    // Given the facts of `three_rounds_with_objectives` (above): 1 game, 3 seats.
    let evaluation = crate::log::evaluate_with_facts::<MindUp>(&three_rounds_with_objectives())
        .expect("log replays");
    let sums = summed(&[evaluation]);
    // When the club's insights are drawn from them.
    let insights = MindUp::insights(&sums);
    // Then every declared insight, per seat: under 1: 1 + 4 + 3 = 8 points, 8 cards; under 2:
    // 12 points, 6 cards; under 3: 36 + 30 + 27 = 93, 12 + 10 + 9 = 31 cards; under 4: 28 + 12
    // = 40, 7 + 3 = 10 cards; under 5: 55 + 15 + 15 = 85, 11 + 3 + 3 = 17 cards (72 cards =
    // 3 × (7 + 8 + 9) ✓); bubbles 13 + 14 + 16 = 43. Objectives seen 9 times each: A1 met 2
    // times, B1 3, E1 2 + 3 + 1 = 6.
    assert_eq!(
        insights.keys().map(String::as_str).collect::<Vec<_>>(),
        names(MindUp::INSIGHTS)
    );
    let column = |points: f64, cards: f64| json!({"average_points_per_game": points, "average_cards_per_game": cards});
    let rate = |hits: i64, rate: f64| json!({"hit_rate": rate, "hits": hits, "chances": 9});
    assert_eq!(
        Value::Object(insights),
        json!({
            "column_values": {
                "1": column(2.667, 2.667), "2": column(4.0, 2.0), "3": column(31.0, 10.333),
                "4": column(13.333, 3.333), "5": column(28.333, 5.667)},
            "average_bubbles_per_game": 14.333,
            "objective_hit_rates": {"A1": rate(2, 0.222), "B1": rate(3, 0.333), "E1": rate(6, 0.667)}
        })
    );
}

#[test]
fn a_game_in_progress_gives_no_facts() {
    let log = with(&game(json!({})), &rows_round(1, rows_1()));
    assert_eq!(evaluate::<MindUp>(&log).unwrap().facts, vec![]);
}

#[test]
fn nobody_leads_after_only_the_round_is_started_and_the_first_turn_names_the_leader() {
    // Given a game whose round 1 is started: the hands are dealt, nobody has played
    let started = with(&game(json!({})), &[("round_started", start_1(json!({})))]);
    // When the first turn is played: Ann's 1 takes 23, Bo's 9 takes 40, Cy's 20 takes 45, each
    // in column 1 (score card 3): Ann 3 + 1 bubble = 4, Bo 3 + 1 = 4, Cy 3 + 2 = 5
    let one_turn = round_1_after(json!({}), start_1(json!({})), 1);
    // Then nobody leads before it, and Cy alone after it
    let before = board(&started);
    assert!(before.leaders.is_empty(), "{:?}", before.leaders);
    assert!(before.winners.is_empty());
    assert_eq!(
        totals(&board(&one_turn)),
        vec![("Ann".into(), 4), ("Bo".into(), 4), ("Cy".into(), 5)]
    );
    assert_eq!(board(&one_turn).leaders, vec!["Cy"]);
}

// ---------------------------------------------------------------------------------------------
// A row as held: one list of cards, column after column
// ---------------------------------------------------------------------------------------------

#[test]
fn a_card_gained_onto_a_middle_column_lands_at_its_bottom_and_leaves_the_others_as_they_were() {
    use super::catalogue::{Catalogue, Colour};
    use super::state::{Row, place};
    let catalogue = Catalogue::printed();
    // Given three columns of three colours, from the printed cards
    let of = |colour: Colour, n: usize| -> Vec<u8> {
        (1..=110u8)
            .filter(|&card| catalogue.colour(card) == colour)
            .take(n)
            .collect()
    };
    let (a, b, c) = (
        of(Colour::ALL[0], 2),
        of(Colour::ALL[1], 3),
        of(Colour::ALL[2], 1),
    );
    let mut row = Row::default();
    for &card in [a[0], b[0], c[0], b[1]].iter() {
        place(&mut row, card, &catalogue);
    }
    // When the middle colour gains another card, and the first colour one too
    place(&mut row, b[2], &catalogue);
    place(&mut row, a[1], &catalogue);
    // Then each goes to the bottom of its own column
    let columns: Vec<Vec<u8>> = row.iter().map(<[u8]>::to_vec).collect();
    assert_eq!(
        columns,
        [vec![a[0], a[1]], vec![b[0], b[1], b[2]], vec![c[0]]]
    );
    assert_eq!(row.len(), 3);
    assert_eq!(row, Row::of(&columns));
}

#[test]
fn a_hand_gives_up_a_known_card_in_place_and_an_unknown_one_from_its_count() {
    use super::state::Hand;
    // Given a round-2 hand: last round's row known, one card drawn unseen
    let mut hand = Hand::new(&[3, 17, 40, 52, 61, 77, 90], 1);
    // When a known card and then a card nobody saw are played
    hand.take(40);
    hand.take(105);
    // Then the others stay in order and the unseen card is gone from the count
    assert_eq!(hand.known(), [3, 17, 52, 61, 77, 90]);
    assert_eq!(hand.unknown, 0);
    assert!(!hand.known().contains(&40));
    assert_eq!(hand, Hand::new(&[3, 17, 52, 61, 77, 90], 0));
    // And once the rows are recorded the hand holds nothing
    hand.empty();
    assert_eq!(hand.known(), [] as [u8; 0]);
}
