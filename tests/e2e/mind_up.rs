//! A whole 4-player Mind Up! game over HTTP, recorded turn by turn (with objectives) and with
//! the end-of-round shortcut `rows_recorded`, with totals computed by hand from the rules
//! (shared/rules/mind-up.md), plus the rule errors a score pad can run into.
//!
//! The game: Ann, Bo, Cy and Di, in that seat order. Turn by turn the engine hands out the
//! prizes: sort the played cards, the k-th lowest takes the k-th lowest prize; the played cards
//! are the next prizes. Round 1, turn 1: prizes 11 22 44 53; played Ann 46, Bo 25, Cy 13, Di 1
//! → Di takes 11, Cy 22, Bo 44, Ann 53; next prizes 1 13 25 46. The rows below are where the
//! turns lead (a new colour opens the leftmost empty column), each as its columns left to right.
//! Card colours and bubbles are the rules' table.

use serde_json::{Value, json};

use crate::helpers::{
    TestApp, TestClub, assert_every_point_is_explained, event, expect_totals, player, ranks,
    round_points, totals,
};
use crate::on_both_backends;

fn new_game(objectives: u32) -> Value {
    json!({
        "game": "mind-up",
        "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}, {"name": "Di"}],
        "options": {"objectives": objectives},
        "started_at": "2026-12-04T19:00:00Z"
    })
}

fn turn(round: u32, ann: u8, bo: u8, cy: u8, di: u8) -> Value {
    event(
        "cards_played",
        json!({"round": round, "cards": {"Ann": ann, "Bo": bo, "Cy": cy, "Di": di}}),
    )
}

fn last(round: u32, ann: u8, bo: u8, cy: u8, di: u8) -> Value {
    event(
        "last_cards_placed",
        json!({"round": round, "cards": {"Ann": ann, "Bo": bo, "Cy": cy, "Di": di}}),
    )
}

/// Round 1 data: score cards 1 3 4 2 5 over the columns; objectives A1 (+2 for exactly 1 or 3
/// orange) and C2 (+2 when no player has more pink).
fn round_1_started() -> Value {
    json!({"round": 1, "columns": [1, 3, 4, 2, 5], "prizes": [11, 22, 44, 53], "objectives": ["A1", "C2"],
        "hands": {"Ann": [12, 31, 37, 39, 46, 52, 54], "Bo": [2, 14, 25, 27, 33, 41, 50],
                  "Cy": [13, 28, 32, 35, 36, 56, 60], "Di": [1, 3, 4, 6, 9, 38, 58]}})
}

/// Round 1, 7 cards each: 6 turns and the last cards. Every row has exactly one pink → C2 for all.
/// Ann [[53 60 38] [13] [27] [14] [39]]: orange 3×1 + blue 1×3 + pink 1×4 + green 1×2 + purple 1×5
///   = 17; bubbles 0 −1 +1 −1 +1 0 +2 = +2; A1 (3 orange) +2; C2 +2 → 23
/// Bo [[44 25 12] [31] [37 33] [2]]: green 3×1 + orange 1×3 + blue 2×4 + pink 1×2 = 16;
///   bubbles +1 −1 0 0 0 +2 0 = +2; A1 (1 orange) +2; C2 +2 → 22
/// Cy [[22 35 9] [46] [56] [32] [28]]: purple 3×1 + orange 1×3 + green 1×4 + pink 1×2 + blue 1×5
///   = 17; bubbles +2 0 +1 +1 +1 +1 +2 = +8; A1 +2; C2 +2 → 29
/// Di [[11 50 54] [1] [3] [4] [6]]: purple 3×1 + orange 1×3 + blue 1×4 + green 1×2 + pink 1×5
///   = 17; bubbles +1 +1 −1 −1 +1 +2 0 = +3; A1 +2; C2 +2 → 24
fn round_1_events() -> Vec<Value> {
    vec![
        event("round_started", round_1_started()),
        turn(1, 46, 25, 13, 1),
        turn(1, 12, 27, 35, 3),
        turn(1, 31, 14, 56, 4),
        turn(1, 37, 50, 60, 9),
        turn(1, 54, 33, 32, 38),
        turn(1, 52, 41, 36, 58),
        last(1, 39, 2, 28, 6),
    ]
}

/// Round 2: each hand is the round-1 row plus one drawn card (7, 40, 45, 49); the prizes
/// carried over (36 41 52 58, the last turn's cards) are left out. Score cards 4 3 2 1 5;
/// objectives B2 (+2: no colour has more cards than blue) and E2 (−2: no player has more purple).
/// Purple: Ann 2, Bo 1, Cy 4, Di 3 → E2 hits Cy only.
/// Ann [[41 39] [53 46] [37 13] [25 12]]: purple 2×4 + orange 2×3 + blue 2×2 + green 2×1 = 20;
///   bubbles 0 +2 0 +1 0 −1 −1 0 = +1; B2 (2 blue, no colour has more) +2 → 23
/// Bo [[36 56] [7] [60 1 38] [32 2]]: green 2×4 + purple 1×3 + orange 3×2 + pink 2×1 = 19;
///   bubbles −1 +1 −1 −1 −1 +1 +1 0 = −1; B2 (0 blue) 0 → 18
/// Cy [[58] [54 22 35 9] [45] [49] [27]]: blue 1×4 + purple 4×3 + orange 1×2 + green 1×1 + pink 1×5
///   = 24; bubbles +1 −1 +2 0 +1 +2 0 +1 = +6; B2 0; E2 −2 → 28
/// Di [[52 11 50] [31] [6] [40 33 3]]: purple 3×4 + orange 1×3 + pink 1×2 + blue 3×1 = 20;
///   bubbles +1 +1 +1 0 0 +1 +2 +1 = +7; B2 (3 blue ties 3 purple) +2 → 29
fn round_2_events() -> Vec<Value> {
    vec![
        event(
            "round_started",
            json!({"round": 2, "columns": [4, 3, 2, 1, 5], "objectives": ["B2", "E2"],
            "hands": {"Ann": [7, 13, 14, 27, 38, 39, 53, 60], "Bo": [2, 12, 25, 31, 33, 37, 40, 44],
                      "Cy": [9, 22, 28, 32, 35, 45, 46, 56], "Di": [1, 3, 4, 6, 11, 49, 50, 54]}}),
        ),
        turn(2, 53, 31, 56, 54),
        turn(2, 7, 37, 22, 6),
        turn(2, 60, 25, 45, 11),
        turn(2, 13, 40, 35, 1),
        turn(2, 38, 33, 46, 49),
        turn(2, 27, 12, 32, 3),
        turn(2, 14, 44, 28, 4),
        last(2, 39, 2, 9, 50),
    ]
}

/// Round 3 data; this time the carried-over prizes 4 14 28 44 are given (they must match).
fn round_3_started(columns: [u8; 5]) -> Value {
    json!({"round": 3, "columns": columns, "prizes": [4, 14, 28, 44], "objectives": ["D1", "G1"],
        "hands": {"Ann": [12, 13, 25, 37, 39, 41, 42, 46, 53], "Bo": [1, 2, 7, 32, 34, 36, 38, 56, 60],
                  "Cy": [9, 16, 22, 27, 35, 45, 49, 54, 58], "Di": [3, 6, 11, 18, 31, 33, 40, 50, 52]}})
}

/// Round 3: score cards 2 3 5 1 4; objectives D1 (+2: green present, nothing to its right) and
/// G1 (−2: some colour has exactly 3 cards). Nobody meets D1 (Ann has no green; the others'
/// green is in column 1 with cards to its right); everyone has a colour ×3 → G1 −2 for all.
/// Ann [[28 40 37] [39 41 7 22] [46 31]]: blue 3×2 + purple 4×3 + orange 2×5 = 28;
///   bubbles +2 +1 0 +2 0 −1 +2 +1 0 = +7; G1 (blue ×3) −2 → 33
/// Bo [[4 12 56] [9 54] [6 32 42 2]]: green 3×2 + purple 2×3 + pink 4×5 = 32;
///   bubbles +2 0 +1 +1 −1 0 +1 −1 0 = +3; G1 (green ×3) −2 → 33
/// Cy [[14 49] [52 11] [45 53 16] [27 34]]: green 2×2 + purple 2×3 + orange 3×5 + pink 2×1 = 27;
///   bubbles 0 0 +1 +1 +2 0 +2 +1 +1 = +8; G1 (orange ×3) −2 → 33
/// Di [[44] [1 38 60] [58 13 18 3 33]]: green 1×2 + orange 3×3 + blue 5×5 = 36;
///   bubbles +1 −1 +1 −1 +1 −1 0 +1 +2 = +3; G1 (orange ×3) −2 → 37
fn round_3_events() -> Vec<Value> {
    vec![
        event("round_started", round_3_started([2, 3, 5, 1, 4])),
        turn(3, 39, 1, 9, 52),
        turn(3, 41, 38, 45, 6),
        turn(3, 12, 7, 58, 11),
        turn(3, 13, 32, 27, 40),
        turn(3, 42, 34, 22, 18),
        turn(3, 46, 56, 49, 3),
        turn(3, 53, 60, 54, 31),
        turn(3, 25, 36, 35, 50),
        last(3, 37, 2, 16, 33),
    ]
}

/// The same rows for the end-of-round shortcut.
fn rows(round: u32) -> Value {
    let rows = match round {
        1 => {
            json!({"Ann": [[53, 60, 38], [13], [27], [14], [39]], "Bo": [[44, 25, 12], [31], [37, 33], [2]],
                    "Cy": [[22, 35, 9], [46], [56], [32], [28]], "Di": [[11, 50, 54], [1], [3], [4], [6]]})
        }
        2 => {
            json!({"Ann": [[41, 39], [53, 46], [37, 13], [25, 12]], "Bo": [[36, 56], [7], [60, 1, 38], [32, 2]],
                    "Cy": [[58], [54, 22, 35, 9], [45], [49], [27]], "Di": [[52, 11, 50], [31], [6], [40, 33, 3]]})
        }
        _ => {
            json!({"Ann": [[28, 40, 37], [39, 41, 7, 22], [46, 31]], "Bo": [[4, 12, 56], [9, 54], [6, 32, 42, 2]],
                    "Cy": [[14, 49], [52, 11], [45, 53, 16], [27, 34]], "Di": [[44], [1, 38, 60], [58, 13, 18, 3, 33]]})
        }
    };
    json!({"round": round, "rows": rows})
}

/// A game without objectives recorded by rows: hands are not given, and the prizes only in round 1.
fn rows_round(round: u32) -> Vec<Value> {
    let started = match round {
        1 => json!({"round": 1, "columns": [1, 3, 4, 2, 5], "prizes": [11, 22, 44, 53]}),
        2 => json!({"round": 2, "columns": [4, 3, 2, 1, 5]}),
        _ => json!({"round": 3, "columns": [2, 3, 5, 1, 4]}),
    };
    vec![
        event("round_started", started),
        event("rows_recorded", rows(round)),
    ]
}

/// Records the game turn by turn in four requests (rounds 1 and 2 whole, round 3 in two
/// parts), each with `expected_version`; returns the game id. The log ends at version 28:
/// game_started 1, round 1 = 2..9, round 2 = 10..18, round 3 = 19..28.
pub(crate) async fn play_by_turns(app: &TestApp, club: &TestClub) -> String {
    let game = app.new_game(club, new_game(2)).await;
    let mut round_3 = round_3_events();
    let round_3_end = round_3.split_off(5);
    let mut version = 1;
    for batch in [round_1_events(), round_2_events(), round_3, round_3_end] {
        let n = batch.len() as i64;
        let reply = app.append(club, &game, Some(version), batch).await;
        assert_eq!(reply.status, 201, "{}", reply.body);
        assert_eq!(reply.body["version"], version + n);
        assert_eq!(reply.body["events"][0]["seq"], version + 1);
        version += n;
    }
    assert_eq!(version, 28);
    game
}

/// Records the game by rows, one request per round; versions 3, 5, 7.
async fn play_by_rows(app: &TestApp, club: &TestClub) -> String {
    let game = app.new_game(club, new_game(0)).await;
    for round in 1..=3 {
        let version = 2 * i64::from(round) - 1;
        let reply = app
            .append(club, &game, Some(version), rows_round(round))
            .await;
        assert_eq!(reply.status, 201, "round {round}: {}", reply.body);
        assert_eq!(reply.body["version"], version + 2);
    }
    game
}

/// The breakdown line of a player's round with this label.
fn line<'a>(score: &'a Value, name: &str, round: usize, label: &str) -> &'a Value {
    let lines = player(score, name)["rounds"][round - 1]["breakdown"]
        .as_array()
        .unwrap();
    lines
        .iter()
        .find(|l| l["label"] == label)
        .unwrap_or_else(|| panic!("no line {label:?} in {lines:?}"))
}

on_both_backends!(
    a_game_recorded_turn_by_turn_with_objectives_is_won_on_round_three,
    a_game_recorded_by_rows_without_objectives_scores_columns_and_bubbles,
    a_round_in_progress_scores_its_rows_so_far_and_earlier_seqs_replay_only_that_far,
    round_three_score_cards_corrected_after_the_end_change_the_winner,
    a_retracted_round_of_rows_stops_counting_and_can_be_recorded_again,
    a_correction_that_breaks_a_later_turn_is_refused,
    a_card_from_another_players_hand_is_refused_and_nothing_is_stored,
    a_rows_recorded_column_mixing_colours_is_refused,
    rows_recorded_cannot_be_mixed_with_turns_of_the_same_round,
    three_objectives_renewed_every_round_score_each_rounds_own_and_cards_come_back,
    with_four_objectives_round_two_must_show_round_ones_again,
    setup_errors_name_the_field,
);

async fn a_game_recorded_turn_by_turn_with_objectives_is_won_on_round_three(app: TestApp) {
    let club = app.new_club().await;
    let game = play_by_turns(&app, &club).await;

    let score = app.score(&club, &game).await;

    // Ann 23 + 23 + 33 = 79, Bo 22 + 18 + 33 = 73, Cy 29 + 28 + 33 = 90, Di 24 + 29 + 37 = 90.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 79), ("Bo", 73), ("Cy", 90), ("Di", 90)])
    );
    assert_eq!(round_points(&score, "Ann"), vec![23, 23, 33]);
    assert_eq!(round_points(&score, "Bo"), vec![22, 18, 33]);
    assert_eq!(round_points(&score, "Cy"), vec![29, 28, 33]);
    assert_eq!(round_points(&score, "Di"), vec![24, 29, 37]);
    // Cy and Di tie on 90; Di has more in round 3 (37 > 33) and wins alone.
    assert_eq!(score["winners"], json!(["Di"]));
    assert_eq!(
        ranks(&score),
        vec![("Di", 1), ("Cy", 2), ("Ann", 3), ("Bo", 4)]
    );
    assert!(
        score["tiebreak"]["rule"]
            .as_str()
            .unwrap()
            .contains("round 3"),
        "{}",
        score["tiebreak"]
    );
    assert!(
        score["tiebreak"]["detail"]
            .as_str()
            .unwrap()
            .contains("Di wins"),
        "{}",
        score["tiebreak"]
    );
    assert_eq!(score["final"], true);
    assert_eq!(score["status"], "finished");
    assert_eq!(score["lower_wins"], false);
    assert_eq!(score["version"], 28);
    assert_every_point_is_explained(&score);

    // A few lines: columns, bubbles, each objective face (met, missed, a malus).
    let orange = line(&score, "Ann", 1, "orange ×3 under the 1");
    assert_eq!(
        (orange["points"].as_i64(), orange["detail"].as_str()),
        (Some(3), Some("3 × 1 = 3"))
    );
    assert_eq!(line(&score, "Ann", 1, "bubbles")["points"], 2);
    let a1 = line(&score, "Ann", 1, "A1: exactly 1 or 3 orange");
    assert_eq!(a1["points"], 2);
    assert!(
        a1["detail"].as_str().unwrap().starts_with("3 orange"),
        "{a1}"
    );
    assert_eq!(
        line(&score, "Bo", 1, "C2: no player has more pink than you")["points"],
        2
    );
    assert_eq!(
        line(&score, "Bo", 2, "B2: no colour has more cards than blue")["points"],
        0
    );
    assert_eq!(
        line(&score, "Di", 2, "B2: no colour has more cards than blue")["points"],
        2
    );
    assert_eq!(line(&score, "Cy", 2, "purple ×4 under the 3")["points"], 12);
    assert_eq!(
        line(&score, "Cy", 2, "E2: no player has more purple than you")["points"],
        -2
    );
    assert_eq!(
        line(&score, "Di", 2, "E2: no player has more purple than you")["points"],
        0
    );
    assert_eq!(line(&score, "Di", 3, "blue ×5 under the 5")["points"], 25);
    let d1 = line(
        &score,
        "Ann",
        3,
        "D1: green present and no card to the right of the green column",
    );
    assert_eq!(
        (d1["points"].as_i64(), d1["detail"].as_str()),
        (
            Some(0),
            Some("no green (house rule d1_without_green: nothing) → not met")
        )
    );
    assert_eq!(
        line(&score, "Bo", 3, "G1: some colour has exactly 3 cards")["points"],
        -2
    );

    // The table as a phone draws it: round 3 over, the last turn's cards are the prizes left.
    let details = &score["details"];
    assert_eq!(details["round"], 3);
    assert_eq!(details["over"], true);
    assert_eq!(details["recorded_by"], "turns");
    assert_eq!(details["turns_played"], 8);
    assert_eq!(details["prizes"], json!([25, 35, 36, 50]));
    let summary = app
        .get(&format!("/v1/games/{game}"), Some(&club.token))
        .await;
    assert_eq!(summary.body["status"], "finished");
    assert_eq!(summary.body["options"]["objectives"], 2);
}

async fn a_game_recorded_by_rows_without_objectives_scores_columns_and_bubbles(app: TestApp) {
    let club = app.new_club().await;
    let game = play_by_rows(&app, &club).await;

    let score = app.score(&club, &game).await;

    // The same rows as the turn-by-turn game, without objective lines:
    // Ann 17+2 = 19, 20+1 = 21, 28+7 = 35 → 75; Bo 16+2 = 18, 19−1 = 18, 32+3 = 35 → 71;
    // Cy 17+8 = 25, 24+6 = 30, 27+8 = 35 → 90; Di 17+3 = 20, 20+7 = 27, 36+3 = 39 → 86.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 75), ("Bo", 71), ("Cy", 90), ("Di", 86)])
    );
    assert_eq!(round_points(&score, "Ann"), vec![19, 21, 35]);
    assert_eq!(round_points(&score, "Bo"), vec![18, 18, 35]);
    assert_eq!(round_points(&score, "Cy"), vec![25, 30, 35]);
    assert_eq!(round_points(&score, "Di"), vec![20, 27, 39]);
    assert_eq!(score["winners"], json!(["Cy"]));
    assert_eq!(
        ranks(&score),
        vec![("Cy", 1), ("Di", 2), ("Ann", 3), ("Bo", 4)]
    );
    assert_eq!(score["tiebreak"], Value::Null);
    assert_eq!(score["final"], true);
    assert_eq!(score["status"], "finished");
    assert_eq!(score["lower_wins"], false);
    assert_eq!(score["version"], 7);
    assert_every_point_is_explained(&score);
    // Cy round 1: purple 3×1, orange 1×3, green 1×4, pink 1×2, blue 1×5 and the bubbles — 6 lines.
    let cy_1 = player(&score, "Cy")["rounds"][0]["breakdown"]
        .as_array()
        .unwrap();
    let labels: Vec<&str> = cy_1.iter().map(|l| l["label"].as_str().unwrap()).collect();
    assert_eq!(
        labels,
        vec![
            "purple ×3 under the 1",
            "orange ×1 under the 3",
            "green ×1 under the 4",
            "pink ×1 under the 2",
            "blue ×1 under the 5",
            "bubbles"
        ]
    );
    assert_eq!(line(&score, "Cy", 1, "bubbles")["points"], 8);
    assert_eq!(line(&score, "Bo", 2, "bubbles")["points"], -1);
    assert_eq!(line(&score, "Bo", 3, "pink ×4 under the 5")["points"], 20);
    assert_eq!(score["details"]["recorded_by"], "rows_recorded");
}

async fn a_round_in_progress_scores_its_rows_so_far_and_earlier_seqs_replay_only_that_far(
    app: TestApp,
) {
    let club = app.new_club().await;
    let game = play_by_turns(&app, &club).await;

    let at_3 = app
        .get(&format!("/v1/games/{game}/score?at=3"), Some(&club.token))
        .await;
    let at_9 = app
        .get(&format!("/v1/games/{game}/score?at=9"), Some(&club.token))
        .await;
    let at_29 = app
        .get(&format!("/v1/games/{game}/score?at=29"), Some(&club.token))
        .await;

    // After round 1's first turn (seq 3), each row holds one card under the score card 1, and
    // no objective is judged yet: Ann 53 orange 1 + 0 = 1, Bo 44 green 1 + 1 = 2,
    // Cy 22 purple 1 + 2 = 3, Di 11 purple 1 + 1 = 2.
    assert_eq!(at_3.status, 200, "{}", at_3.body);
    assert_eq!(at_3.body["version"], 3);
    assert_eq!(at_3.body["final"], false);
    assert_eq!(at_3.body["status"], "in_progress");
    assert_eq!(
        totals(&at_3.body),
        expect_totals(&[("Ann", 1), ("Bo", 2), ("Cy", 3), ("Di", 2)])
    );
    assert_eq!(
        at_3.body["players"][0]["rounds"][0]["breakdown"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // The cards just played are the next prizes.
    assert_eq!(at_3.body["details"]["prizes"], json!([1, 13, 25, 46]));
    assert_eq!(at_3.body["details"]["turns_played"], 1);
    assert_eq!(at_3.body["details"]["turns_in_round"], 6);
    assert_every_point_is_explained(&at_3.body);
    // After round 1 (seq 9): its scores with objectives, 23 / 22 / 29 / 24; Cy leads.
    assert_eq!(at_9.status, 200, "{}", at_9.body);
    assert_eq!(at_9.body["final"], false);
    assert_eq!(
        totals(&at_9.body),
        expect_totals(&[("Ann", 23), ("Bo", 22), ("Cy", 29), ("Di", 24)])
    );
    // In progress at seq 9: Cy leads, nobody has won yet.
    assert_eq!(at_9.body["leaders"], json!(["Cy"]));
    assert_eq!(at_9.body["winners"], json!([]));
    at_29.problem(422);
}

async fn round_three_score_cards_corrected_after_the_end_change_the_winner(app: TestApp) {
    let club = app.new_club().await;
    let game = play_by_turns(&app, &club).await;
    // The round-3 score cards were 5 3 2 1 4, not 2 3 5 1 4 (the 2 and the 5 swapped):
    // Ann blue 3×5 + purple 4×3 + orange 2×2 = 31, +7 bubbles, G1 −2 → 36 (was 33);
    // Bo green 3×5 + purple 2×3 + pink 4×2 = 29, +3, −2 → 30 (was 33);
    // Cy green 2×5 + purple 2×3 + orange 3×2 + pink 2×1 = 24, +8, −2 → 30 (was 33);
    // Di green 1×5 + orange 3×3 + blue 5×2 = 24, +3, −2 → 25 (was 37).
    // Totals: Ann 79 + 3 = 82, Bo 73 − 3 = 70, Cy 90 − 3 = 87, Di 90 − 12 = 78.
    let fix = json!({"seq": 19, "data": round_3_started([5, 3, 2, 1, 4]), "reason": "misread the score cards"});

    let reply = app
        .append(&club, &game, Some(28), vec![event("correct", fix)])
        .await;

    assert_eq!(reply.status, 201, "{}", reply.body);
    let score = app.score(&club, &game).await;
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 82), ("Bo", 70), ("Cy", 87), ("Di", 78)])
    );
    assert_eq!(round_points(&score, "Di"), vec![24, 29, 25]);
    assert_eq!(score["winners"], json!(["Cy"]));
    assert_eq!(score["tiebreak"], Value::Null);
    assert_eq!(score["final"], true);
    assert_eq!(score["version"], 29);
    assert_eq!(line(&score, "Ann", 3, "blue ×3 under the 5")["points"], 15);
    assert_every_point_is_explained(&score);
    let events = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(events.body["events"][18]["corrected_by"], 29);
    // Before the correction the old score cards still count.
    let at_28 = app
        .get(&format!("/v1/games/{game}/score?at=28"), Some(&club.token))
        .await;
    assert_eq!(
        totals(&at_28.body),
        expect_totals(&[("Ann", 79), ("Bo", 73), ("Cy", 90), ("Di", 90)])
    );
}

async fn a_retracted_round_of_rows_stops_counting_and_can_be_recorded_again(app: TestApp) {
    let club = app.new_club().await;
    let game = play_by_rows(&app, &club).await;

    let reply = app
        .append(
            &club,
            &game,
            Some(7),
            vec![event("retract", json!({"seq": 7, "reason": "wrong sheet"}))],
        )
        .await;

    assert_eq!(reply.status, 201, "{}", reply.body);
    // Round 3 has started but has no rows: Ann 19 + 21 = 40, Bo 18 + 18 = 36, Cy 25 + 30 = 55,
    // Di 20 + 27 = 47.
    let score = app.score(&club, &game).await;
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 40), ("Bo", 36), ("Cy", 55), ("Di", 47)])
    );
    assert_eq!(score["final"], false);
    assert_eq!(score["status"], "in_progress");
    let events = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(events.body["events"][6]["retracted_by"], 8);

    // Round 3's rows again, as event 9: finished with the totals of before.
    let reply = app
        .append(&club, &game, Some(8), vec![event("rows_recorded", rows(3))])
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    let score = app.score(&club, &game).await;
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 75), ("Bo", 71), ("Cy", 90), ("Di", 86)])
    );
    assert_eq!(score["final"], true);
}

async fn a_correction_that_breaks_a_later_turn_is_refused(app: TestApp) {
    let club = app.new_club().await;
    let game = play_by_turns(&app, &club).await;
    // Ann's first card "was" 12, but turn 2 (event 4) has her play 12.
    let fix =
        json!({"seq": 3, "data": {"round": 1, "cards": {"Ann": 12, "Bo": 25, "Cy": 13, "Di": 1}}});

    let reply = app
        .append(&club, &game, Some(28), vec![event("correct", fix)])
        .await;

    let problem = reply.problem(422);
    assert_eq!(problem["event_index"], 0);
    assert_eq!(problem["pointer"], "/events/0/data/seq");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("event 4 (cards_played)")
            && detail.contains("12 was already played in turn 1"),
        "{detail}"
    );
    let score = app.score(&club, &game).await;
    assert_eq!(score["version"], 28);
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 79), ("Bo", 73), ("Cy", 90), ("Di", 90)])
    );
}

async fn a_card_from_another_players_hand_is_refused_and_nothing_is_stored(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(2)).await;
    // Bo plays 13, which was dealt to Cy.
    let events = vec![
        event("round_started", round_1_started()),
        turn(1, 46, 13, 25, 1),
    ];

    let reply = app.append(&club, &game, Some(1), events).await;

    let problem = reply.problem(422);
    assert_eq!(problem["event_index"], 1);
    assert_eq!(problem["pointer"], "/events/1/data/cards/Bo");
    assert_eq!(
        problem["detail"],
        "Bo played 13 but 13 is not in Bo's hand: it is in Cy's hand"
    );
    assert_eq!(app.version(&club, &game).await, 1);
    assert_eq!(app.score(&club, &game).await["version"], 1);
}

async fn a_rows_recorded_column_mixing_colours_is_refused(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(0)).await;
    let mut bad = rows(1);
    // Ann's blue 13 written into her orange column: [[53, 60, 13], [38], …].
    bad["rows"]["Ann"][0][2] = json!(13);
    bad["rows"]["Ann"][1][0] = json!(38);
    let events = vec![
        event(
            "round_started",
            json!({"round": 1, "columns": [1, 3, 4, 2, 5], "prizes": [11, 22, 44, 53]}),
        ),
        event("rows_recorded", bad),
    ];

    let reply = app.append(&club, &game, Some(1), events).await;

    let problem = reply.problem(422);
    assert_eq!(problem["event_index"], 1);
    assert_eq!(problem["pointer"], "/events/1/data/rows/Ann/0/2");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("mixes orange (53) and blue (13)")
            && detail.contains("a column holds one colour"),
        "{detail}"
    );
    assert_eq!(app.version(&club, &game).await, 1);
}

async fn rows_recorded_cannot_be_mixed_with_turns_of_the_same_round(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(2)).await;
    let mut events = round_1_events();
    events.truncate(3); // round_started and two turns
    assert_eq!(app.append(&club, &game, Some(1), events).await.status, 201);

    let reply = app
        .append(&club, &game, Some(4), vec![event("rows_recorded", rows(1))])
        .await;

    let problem = reply.problem(422);
    assert_eq!(problem["event_index"], 0);
    assert_eq!(problem["pointer"], "/events/0/data");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("round 1 is being recorded turn by turn (2 turn(s) so far)")
            && detail.contains("cannot be mixed"),
        "{detail}"
    );
    assert_eq!(app.version(&club, &game).await, 4);
}

/// A round's events with other objectives in its `round_started` (the first event).
fn with_objectives(mut events: Vec<Value>, faces: Value) -> Vec<Value> {
    events[0]["data"]["objectives"] = faces;
    events
}

async fn three_objectives_renewed_every_round_score_each_rounds_own_and_cards_come_back(
    app: TestApp,
) {
    // The turn-by-turn game with 3 objectives, new ones revealed every round (rulebook: only
    // "more than 3" stay between rounds), and the house rule d1_without_green: bonus.
    // Rows and column + bubble points as above (rounds 1–3: Ann 19 21 35, Bo 18 18 35,
    // Cy 25 30 35, Di 20 27 39).
    // Round 1, A1 C2 F1: A1 (1 or 3 orange) and C2 (one pink each) +2 for all; F1 (five
    //   colours +2) all but Bo (no purple) → Ann 19 + 6 = 25, Bo 18 + 4 = 22, Cy 25 + 6 = 31,
    //   Di 20 + 6 = 26.
    // Round 2, B2 E2 A2 (card A again, other face): B2 +2 Ann and Di; E2 −2 Cy (4 purple);
    //   A2 (−2: orange under the 1 or 2; score cards 4 3 2 1 5) Bo and Cy, whose orange is in
    //   column 3 → Ann 21 + 2 = 23, Bo 18 − 2 = 16, Cy 30 − 2 − 2 = 26, Di 27 + 2 = 29.
    // Round 3, D1 G1 A1 (card A again, round 1's face): D1 +2 Ann only — she has no green, and
    //   with the bonus nothing lies right of it; the others' green is in column 1 with cards to
    //   its right. G1 (a colour ×3) −2 for all. A1 +2 Cy and Di (3 orange; Ann 2, Bo 0)
    //   → Ann 35 + 2 − 2 = 35, Bo 35 − 2 = 33, Cy 35 − 2 + 2 = 35, Di 39 − 2 + 2 = 39.
    // Totals: Ann 25 + 23 + 35 = 83, Bo 22 + 16 + 33 = 71, Cy 31 + 26 + 35 = 92,
    //   Di 26 + 29 + 39 = 94.
    let club = app.new_club().await;
    let mut setup = new_game(3);
    setup["options"]["d1_without_green"] = json!("bonus");
    let game = app.new_game(&club, setup).await;
    let rounds = [
        with_objectives(round_1_events(), json!(["A1", "C2", "F1"])),
        with_objectives(round_2_events(), json!(["B2", "E2", "A2"])),
        with_objectives(round_3_events(), json!(["D1", "G1", "A1"])),
    ];
    let mut version = 1;
    for (round, events) in (1..).zip(rounds) {
        let n = events.len() as i64;
        let reply = app.append(&club, &game, Some(version), events).await;
        assert_eq!(reply.status, 201, "round {round}: {}", reply.body);
        version += n;
    }

    let score = app.score(&club, &game).await;

    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 83), ("Bo", 71), ("Cy", 92), ("Di", 94)])
    );
    assert_eq!(round_points(&score, "Ann"), vec![25, 23, 35]);
    assert_eq!(round_points(&score, "Bo"), vec![22, 16, 33]);
    assert_eq!(round_points(&score, "Cy"), vec![31, 26, 35]);
    assert_eq!(round_points(&score, "Di"), vec![26, 29, 39]);
    assert_eq!(score["winners"], json!(["Di"]));
    assert_eq!(score["tiebreak"], Value::Null);
    assert_eq!(score["final"], true);
    assert_eq!(score["version"], 28);
    assert_every_point_is_explained(&score);
    assert_eq!(
        line(&score, "Bo", 1, "F1: all five colours present")["points"],
        0
    );
    let a2 = line(
        &score,
        "Cy",
        2,
        "A2: orange present and its column's score card is 1 or 2",
    );
    assert_eq!(
        (a2["points"].as_i64(), a2["detail"].as_str()),
        (Some(-2), Some("orange under the 2 → −2"))
    );
    let d1 = line(
        &score,
        "Ann",
        3,
        "D1: green present and no card to the right of the green column",
    );
    assert_eq!(
        (d1["points"].as_i64(), d1["detail"].as_str()),
        (
            Some(2),
            Some("no green, so nothing to its right (house rule d1_without_green: bonus) → +2")
        )
    );
    assert_eq!(
        line(&score, "Di", 3, "A1: exactly 1 or 3 orange")["points"],
        2
    );
    assert_eq!(score["details"]["objectives"], json!(["D1", "G1", "A1"]));
    // The house rule is in the game's options and on the scoreboard's list.
    let house_rule = score["house_rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["option"] == "d1_without_green")
        .unwrap_or_else(|| panic!("no d1_without_green in {}", score["house_rules"]));
    assert_eq!(house_rule["value"], "bonus");
    assert_eq!(house_rule["default"], false);
    let summary = app
        .get(&format!("/v1/games/{game}"), Some(&club.token))
        .await;
    assert_eq!(summary.body["options"]["objectives"], 3);
    assert_eq!(summary.body["options"]["d1_without_green"], "bonus");
}

async fn with_four_objectives_round_two_must_show_round_ones_again(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(4)).await;
    let round_1 = with_objectives(round_1_events(), json!(["A1", "C2", "F1", "G2"]));
    assert_eq!(app.append(&club, &game, Some(1), round_1).await.status, 201);
    // Round 2 shows a new card B in place of G.
    let mut start = round_2_events().remove(0);
    start["data"]["objectives"] = json!(["A1", "C2", "F1", "B2"]);

    let reply = app.append(&club, &game, Some(9), vec![start]).await;

    let problem = reply.problem(422);
    assert_eq!(problem["event_index"], 0);
    assert_eq!(problem["pointer"], "/events/0/data/objectives");
    assert_eq!(
        problem["detail"],
        "with more than 3 objectives the cards are not changed between rounds: round 1's A1, \
         C2, F1 and G2 stay active in round 2"
    );
    assert_eq!(app.version(&club, &game).await, 9);
}

async fn setup_errors_name_the_field(app: TestApp) {
    let club = app.new_club().await;
    let mut two_players = new_game(0);
    two_players["players"] = json!([{"name": "Ann"}, {"name": "Bo"}]);
    let mut seven_players = new_game(0);
    seven_players["players"] =
        json!(["Ann", "Bo", "Cy", "Di", "Eve", "Flo", "Gus"].map(|n| json!({"name": n})));
    let mut teal = new_game(0);
    teal["options"]["cards"] = json!([{"number": 12, "colour": "teal", "bubble": 0}]);

    let two = app.post("/v1/games", Some(&club.token), &two_players).await;
    let seven = app
        .post("/v1/games", Some(&club.token), &seven_players)
        .await;
    let six_objectives = app.post("/v1/games", Some(&club.token), &new_game(6)).await;
    let teal = app.post("/v1/games", Some(&club.token), &teal).await;

    let problem = two.problem(422);
    assert_eq!(problem["pointer"], "/players");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("3 to 6 players"),
        "{problem}"
    );
    assert_eq!(seven.problem(422)["pointer"], "/players");
    let problem = six_objectives.problem(422);
    assert_eq!(problem["pointer"], "/options/objectives");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("0 to 5 objective cards, not 6"),
        "{problem}"
    );
    let problem = teal.problem(422);
    assert_eq!(problem["pointer"], "/options/cards/0/colour");
    assert!(
        problem["detail"].as_str().unwrap().contains("\"teal\""),
        "{problem}"
    );
    let games = app.get("/v1/games", Some(&club.token)).await;
    assert_eq!(games.body["games"].as_array().unwrap().len(), 0);
}
