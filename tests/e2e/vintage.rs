//! Vintage over HTTP: a whole 3-player game recorded turn by turn, games recorded by their
//! collections under each `prize_tie` mode, and the rules the service refuses to see broken.
//! Totals are computed by hand from the rules (shared/rules/vintage.md).
//!
//! The scripted game. Cards: `cN` is a `TYPES[N % 4]` in `COLOURS[N % 3]`, from the 60s when
//! N is odd (else the 50s), worth N % 5. Dealt: Ann {c1}, Bo {c2, c3}, Cy {c4, c5, c6}; the deck
//! holds 63 − 6 = 57. Turn t draws c(2t+5) and c(2t+6), keeps the first and discards the second;
//! it digs the card the previous turn discarded, c(2t+4), except turn 1 (Ann steals c4 from Cy)
//! and turn 14 (Bo steals c4 back from Ann, leaving c32 in the pile). It banks the card kept
//! three turns earlier, c(2t−1) — on turns 1–3 a dealt card: c1, c2, c5.
//! After turn 28 the deck holds 57 − 28 × 2 = 1 < 2: the game ends; Ann (seat 1) had 10 turns,
//! Bo and Cy 9. Final bank: Bo {c57, c3}, Cy {c59, c6} (one turn fewer: each adds the optional
//! second card), Ann {c61}.
//!
//! Collections (11 cards each):
//! - Ann: N ≡ 1 (mod 6), c1…c61 — all red, all 60s; radios c1 c13 c25 c37 c49 c61 (6), vases
//!   c7 c19 c31 c43 c55 (5); values 1 2 3 4 0 1 2 3 4 0 1 = 21.
//! - Bo: c2 (green 50s chair) and N ≡ 3 (mod 6), c3…c57 — blue and 60s ×10; vases c3 c15 c27
//!   c39 c51 (5), radios c9 c21 c33 c45 c57 (5); values 2 + 3 4 0 1 2 3 4 0 1 2 = 22.
//! - Cy: c6 (blue 50s chair) and N ≡ 5 (mod 6), c5…c59 — green and 60s ×10; radios c5 c17 c29
//!   c41 c53 (5), vases c11 c23 c35 c47 c59 (5); values 0 1 2 3 4 0 1 2 3 4 + 1 = 21.

use serde_json::{Value, json};

use crate::helpers::{
    TestApp, TestClub, assert_every_point_is_explained, event, expect_totals, player, ranks, totals,
};
use crate::on_both_backends;

const PLAYERS: [&str; 3] = ["Ann", "Bo", "Cy"];
const TYPES: [&str; 4] = ["lamp", "radio", "chair", "vase"];
const COLOURS: [&str; 3] = ["blue", "red", "green"];

fn new_game(options: Value) -> Value {
    json!({
        "game": "vintage",
        "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}],
        "options": options,
        "started_at": "2026-11-30T19:00:00Z"
    })
}

fn prize(id: &str, name: &str, attribute: &str, value: &str, points: i64) -> Value {
    json!({"id": id, "name": name, "attribute": attribute, "value": value, "points": points})
}

/// The scripted game's prizes; `prize_tie` left to its default (`nobody`).
fn scripted_options() -> Value {
    json!({"prizes": [
        prize("blue", "Most blue objects", "colour", "blue", 4),
        prize("sixties", "Most 60s objects", "period", "60s", 3),
        prize("radios", "Most radios", "type", "radio", 3),
        prize("vases", "Most vases", "type", "vase", 2),
    ]})
}

/// The description of card `cN` (see the module comment).
fn card(n: u32) -> Value {
    let period = if n % 2 == 1 { "60s" } else { "50s" };
    json!({"id": format!("c{n}"), "type": TYPES[(n % 4) as usize], "colour": COLOURS[(n % 3) as usize],
           "period": period, "value": n % 5})
}

fn c(n: u32) -> Value {
    json!(format!("c{n}"))
}

fn deal() -> Value {
    json!({"showcases": {"Ann": [card(1)], "Bo": [card(2), card(3)], "Cy": [card(4), card(5), card(6)]}})
}

/// Turn `t` (1-based) of the scripted game.
fn turn(t: u32) -> Value {
    let player = PLAYERS[((t - 1) % 3) as usize];
    let banked = match t {
        1 => 1,
        2 => 2,
        3 => 5,
        _ => 2 * t - 1,
    };
    let (steal, dig) = match t {
        1 => (json!({"from": "Cy", "card": "c4"}), Value::Null),
        14 => (json!({"from": "Ann", "card": "c4"}), Value::Null),
        _ => (Value::Null, c(2 * t + 4)),
    };
    json!({"player": player, "banked": c(banked), "steal": steal, "dig": dig,
           "drawn": [card(2 * t + 5), card(2 * t + 6)], "kept": c(2 * t + 5)})
}

fn final_bank() -> Value {
    json!({"banked": {"Ann": ["c61"], "Bo": ["c57", "c3"], "Cy": ["c59", "c6"]}})
}

/// Creates the scripted game and records the deal and turns 1..=`last_turn` (deal + turns 1–9,
/// then ten turns a request), checking versions; returns the game id. Version = 2 + turns.
async fn play_turns(app: &TestApp, club: &TestClub, last_turn: u32) -> String {
    let game = app.new_game(club, new_game(scripted_options())).await;
    let mut events = vec![event("showcases_dealt", deal())];
    let mut version = 1;
    for t in 1..=last_turn + 1 {
        if t <= last_turn {
            events.push(event("turn_taken", turn(t)));
        }
        if (t % 10 == 9 || t > last_turn) && !events.is_empty() {
            let count = events.len() as i64;
            let reply = app
                .append(club, &game, Some(version), std::mem::take(&mut events))
                .await;
            assert_eq!(reply.status, 201, "turn {t}: {}", reply.body);
            version += count;
            assert_eq!(reply.body["version"], version);
        }
    }
    game
}

/// The whole scripted game: 28 turns and the final bank (version 31).
pub(crate) async fn play(app: &TestApp, club: &TestClub) -> String {
    let game = play_turns(app, club, 28).await;
    let reply = app
        .append(
            club,
            &game,
            Some(30),
            vec![event("final_banked", final_bank())],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    assert_eq!(reply.body["version"], 31);
    game
}

/// `(label, points, detail)` of a player's lines (Vintage has one "round": the whole game).
fn lines(score: &Value, name: &str) -> Vec<(String, i64, String)> {
    let rounds = player(score, name)["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 1, "{name}");
    rounds[0]["breakdown"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["label"].as_str().unwrap().to_owned(),
                l["points"].as_i64().unwrap(),
                l["detail"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// `(label, points)` of a player's lines.
fn line_points(score: &Value, name: &str) -> Vec<(String, i64)> {
    lines(score, name)
        .into_iter()
        .map(|(label, points, _)| (label, points))
        .collect()
}

fn expect_lines(pairs: &[(&str, i64)]) -> Vec<(String, i64)> {
    pairs.iter().map(|(l, p)| ((*l).to_owned(), *p)).collect()
}

async fn score_at(app: &TestApp, club: &TestClub, game: &str, at: i64) -> Value {
    let reply = app
        .get(
            &format!("/v1/games/{game}/score?at={at}"),
            Some(&club.token),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.body
}

on_both_backends!(
    a_three_player_game_ends_after_turn_28_and_the_highest_total_wins,
    the_game_ends_exactly_after_the_turn_that_leaves_one_card_in_the_deck,
    the_last_player_may_not_bank_the_card_stolen_on_the_final_turn,
    players_who_had_one_turn_fewer_may_decline_the_second_card,
    a_showcase_holding_one_card_cannot_be_stolen_from,
    seat_one_may_not_dig_on_the_first_turn_and_the_batch_is_not_stored,
    turns_go_in_seat_order,
    a_deal_of_the_wrong_size_is_refused,
    a_typo_in_the_deal_corrected_after_the_final_bank_changes_the_score,
    a_correction_that_breaks_a_later_turn_is_refused,
    a_retracted_final_bank_reopens_the_game,
    the_score_at_an_earlier_seq_replays_only_that_far,
    collections_with_a_tied_prize_score_it_for_nobody_by_default,
    collections_with_prize_tie_all_give_each_tied_player_the_prize,
    collections_with_prize_tie_split_divide_the_prize_and_lose_the_remainder,
    a_card_in_two_collections_is_refused,
    collections_cannot_be_recorded_after_the_deal,
    a_bad_player_count_is_refused,
    bad_prizes_and_prize_tie_modes_are_refused,
    a_prize_no_card_matches_says_so_in_the_score_in_french,
);

async fn a_three_player_game_ends_after_turn_28_and_the_highest_total_wins(app: TestApp) {
    let club = app.new_club().await;

    let game = play(&app, &club).await;
    let score = app.score(&club, &game).await;

    // Blue: Bo 10 vs Cy 1 → Bo +4. 60s: Ann 11 vs 10 → Ann +3. Radios: Ann 6 vs 5 → Ann +3.
    // Vases: 5 / 5 / 5 → tied, nobody scores (prize_tie default).
    // Ann 21 + 3 + 3 = 27, Bo 22 + 4 = 26, Cy 21.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 27), ("Bo", 26), ("Cy", 21)])
    );
    assert_eq!(ranks(&score), vec![("Ann", 1), ("Bo", 2), ("Cy", 3)]);
    assert_eq!(score["winners"], json!(["Ann"]));
    assert_eq!(score["tiebreak"], Value::Null);
    assert_eq!(score["final"], true);
    assert_eq!(score["status"], "finished");
    assert_eq!(score["lower_wins"], false);
    assert_eq!(score["version"], 31);
    assert_eq!(
        line_points(&score, "Ann"),
        expect_lines(&[
            ("Collection ×11", 21),
            ("Most 60s objects", 3),
            ("Most radios", 3),
            ("Most vases", 0)
        ])
    );
    assert_eq!(
        line_points(&score, "Bo"),
        expect_lines(&[
            ("Collection ×11", 22),
            ("Most blue objects", 4),
            ("Most 60s objects", 0),
            ("Most radios", 0),
            ("Most vases", 0)
        ])
    );
    assert_eq!(
        line_points(&score, "Cy"),
        expect_lines(&[
            ("Collection ×11", 21),
            ("Most blue objects", 0),
            ("Most 60s objects", 0),
            ("Most radios", 0),
            ("Most vases", 0)
        ])
    );
    let ann = lines(&score, "Ann");
    assert_eq!(
        ann[0].2,
        "c1 1 + c7 2 + c13 3 + c19 4 + c25 0 + c31 1 + c37 2 + c43 3 + c49 4 + c55 0 + c61 1 = 21"
    );
    assert!(
        ann[3].2.contains("tied") && ann[3].2.contains("nobody"),
        "{}",
        ann[3].2
    );
    assert_every_point_is_explained(&score);
    assert_eq!(score["house_rule_points"][0]["option"], "prize_tie");
    assert_eq!(score["house_rule_points"][0]["value"], "nobody");
    // The table as it ended: every collection of 11, the deck down to its last card.
    assert_eq!(score["details"]["turns"], 28);
    assert_eq!(score["details"]["deck"], 1);
    assert_eq!(
        score["details"]["collections"]["Bo"]
            .as_array()
            .unwrap()
            .len(),
        11
    );
    assert_eq!(score["details"]["discard_pile"], json!(["c32", "c62"]));
    let summary = app
        .get(&format!("/v1/games/{game}"), Some(&club.token))
        .await;
    assert_eq!(summary.body["status"], "finished");
    assert_eq!(summary.body["options"]["prize_tie"], "nobody");
}

async fn the_game_ends_exactly_after_the_turn_that_leaves_one_card_in_the_deck(app: TestApp) {
    let club = app.new_club().await;
    let game = play_turns(&app, &club, 27).await;

    // After turn 27 the deck holds 57 − 54 = 3: too early for the final bank.
    let early = app
        .append(
            &club,
            &game,
            Some(29),
            vec![event("final_banked", final_bank())],
        )
        .await;
    let turn_28 = app
        .append(&club, &game, Some(29), vec![event("turn_taken", turn(28))])
        .await;
    // After turn 28 it holds 1: no 29th turn (Bo would be next).
    let refused = app
        .append(&club, &game, Some(30), vec![event("turn_taken", turn(29))])
        .await;

    let problem = early.problem(422);
    assert_eq!(problem["event_index"], 0);
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("the game is not over: the deck still holds 3 card(s)"),
        "{problem}"
    );
    assert_eq!(turn_28.status, 201, "{}", turn_28.body);
    let problem = refused.problem(422);
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .starts_with("no more turns: turn 28 left 1 card(s) in the deck"),
        "{problem}"
    );
    let score = app.score(&club, &game).await;
    assert_eq!(score["version"], 30);
    assert_eq!(score["status"], "in_progress");
    assert_eq!(score["final"], false);
    assert_eq!(score["details"]["final_bank_due"], true);
    assert_eq!(score["details"]["next_player"], Value::Null);
    // Starting left of the last player (Ann): Bo, Cy, Ann.
    assert_eq!(
        score["details"]["final_bank_order"],
        json!(["Bo", "Cy", "Ann"])
    );
}

async fn the_last_player_may_not_bank_the_card_stolen_on_the_final_turn(app: TestApp) {
    let club = app.new_club().await;
    let game = play_turns(&app, &club, 27).await;
    // Ann's last turn steals c3 from Bo instead of digging c60.
    let mut last = turn(28);
    last["steal"] = json!({"from": "Bo", "card": "c3"});
    last["dig"] = Value::Null;
    assert_eq!(
        app.append(&club, &game, Some(29), vec![event("turn_taken", last)])
            .await
            .status,
        201
    );

    let banks_stolen = json!({"banked": {"Ann": ["c3"], "Bo": ["c57", "c8"], "Cy": ["c59", "c6"]}});
    let banks_stolen = app
        .append(
            &club,
            &game,
            Some(30),
            vec![event("final_banked", banks_stolen)],
        )
        .await;
    // Bo had 9 turns to Ann's 10, so he banks one card and may add a second; never three.
    let bo_three =
        json!({"banked": {"Ann": ["c61"], "Bo": ["c57", "c8", "c4"], "Cy": ["c59", "c6"]}});
    let bo_three = app
        .append(
            &club,
            &game,
            Some(30),
            vec![event("final_banked", bo_three)],
        )
        .await;
    let legal = json!({"banked": {"Ann": ["c61"], "Bo": ["c57", "c8"], "Cy": ["c59", "c6"]}});
    let legal = app
        .append(&club, &game, Some(30), vec![event("final_banked", legal)])
        .await;

    let problem = banks_stolen.problem(422);
    assert_eq!(problem["event_index"], 0);
    assert_eq!(problem["pointer"], "/events/0/data/banked/Ann/0");
    assert_eq!(
        problem["detail"],
        "Ann stole c3 on the last turn of the game and may not bank it"
    );
    let problem = bo_three.problem(422);
    assert_eq!(problem["pointer"], "/events/0/data/banked/Bo");
    assert_eq!(
        problem["detail"],
        "Bo had 9 turn(s), one fewer than others, and banks one more card and may add a second, \
         not 3"
    );
    assert_eq!(legal.status, 201, "{}", legal.body);
    let score = app.score(&club, &game).await;
    assert_eq!(score["final"], true);
    assert_eq!(score["version"], 31);
}

async fn players_who_had_one_turn_fewer_may_decline_the_second_card(app: TestApp) {
    let club = app.new_club().await;
    let game = play_turns(&app, &club, 28).await;
    // Bo and Cy had 9 turns to Ann's 10; the rulebook lets them add a second card, and both
    // decline it: Bo banks only c57 (keeping c3), Cy only c6 (keeping c59).
    let declined = json!({"banked": {"Ann": ["c61"], "Bo": ["c57"], "Cy": ["c6"]}});

    let reply = app
        .append(
            &club,
            &game,
            Some(30),
            vec![event("final_banked", declined)],
        )
        .await;

    assert_eq!(reply.status, 201, "{}", reply.body);
    assert_eq!(reply.body["version"], 31);
    let score = app.score(&club, &game).await;
    assert_eq!(score["status"], "finished");
    assert_eq!(score["final"], true);
    // Against the full final bank (module comment), Bo lacks c3 (blue 60s vase, 3) and Cy lacks
    // c59 (green 60s vase, 4); cards left in a showcase do not count.
    // Ann (11 cards): 21; 60s 11, radios 6, vases 5.
    // Bo (10): 22 − 3 = 19; blue 9, 60s 9, radios 5, vases 4.
    // Cy (10): 21 − 4 = 17; blue 1 (c6), 60s 9, radios 5, vases 4.
    // Blue 9 vs 1 → Bo +4. 60s 11 vs 9 → Ann +3. Radios 6 vs 5 → Ann +3. Vases 5 vs 4 → Ann +2
    // (with the second cards banked it was a three-way tie that nobody scored).
    // Ann 21 + 3 + 3 + 2 = 29, Bo 19 + 4 = 23, Cy 17.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 29), ("Bo", 23), ("Cy", 17)])
    );
    assert_eq!(ranks(&score), vec![("Ann", 1), ("Bo", 2), ("Cy", 3)]);
    assert_eq!(score["winners"], json!(["Ann"]));
    assert_eq!(
        line_points(&score, "Ann"),
        expect_lines(&[
            ("Collection ×11", 21),
            ("Most 60s objects", 3),
            ("Most radios", 3),
            ("Most vases", 2)
        ])
    );
    assert_eq!(
        line_points(&score, "Bo"),
        expect_lines(&[
            ("Collection ×10", 19),
            ("Most blue objects", 4),
            ("Most 60s objects", 0),
            ("Most radios", 0),
            ("Most vases", 0)
        ])
    );
    assert_eq!(
        line_points(&score, "Cy"),
        expect_lines(&[
            ("Collection ×10", 17),
            ("Most blue objects", 0),
            ("Most 60s objects", 0),
            ("Most radios", 0),
            ("Most vases", 0)
        ])
    );
    assert_eq!(lines(&score, "Ann")[3].2, "5 vs 4 → +2");
    assert_every_point_is_explained(&score);
    // The declined cards stay in the showcases.
    let showcase = |name: &str| {
        score["details"]["showcases"][name]
            .as_array()
            .unwrap()
            .clone()
    };
    assert!(showcase("Bo").contains(&c(3)), "{}", score["details"]);
    assert!(showcase("Cy").contains(&c(59)), "{}", score["details"]);
}

async fn a_showcase_holding_one_card_cannot_be_stolen_from(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({"prizes": []}))).await;
    // Turn 1: Ann {c4, c7}, Cy {c5, c6}. Turn 2: Bo steals c7, leaving Ann only c4.
    let turn_1 = json!({"player": "Ann", "banked": "c1", "steal": {"from": "Cy", "card": "c4"}, "dig": null,
                        "drawn": [card(7), card(8)], "kept": "c7"});
    let turn_2 = json!({"player": "Bo", "banked": "c2", "steal": {"from": "Ann", "card": "c7"}, "dig": null,
                        "drawn": [card(9), card(10)], "kept": "c9"});
    let setup = vec![
        event("showcases_dealt", deal()),
        event("turn_taken", turn_1),
        event("turn_taken", turn_2),
    ];
    assert_eq!(app.append(&club, &game, Some(1), setup).await.status, 201);
    let mut turn_3 = json!({"player": "Cy", "banked": "c5", "steal": {"from": "Ann", "card": "c4"}, "dig": null,
                            "drawn": [card(11), card(12)], "kept": "c11"});

    let refused = app
        .append(
            &club,
            &game,
            Some(4),
            vec![event("turn_taken", turn_3.clone())],
        )
        .await;

    let problem = refused.problem(422);
    assert_eq!(problem["event_index"], 0);
    assert_eq!(problem["pointer"], "/events/0/data/steal/card");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("only card in Ann's showcase")
            && detail.contains("exactly one card cannot be stolen from"),
        "{detail}"
    );
    assert_eq!(app.version(&club, &game).await, 4);
    // Bo's showcase {c3, c7, c9} may be stolen from.
    turn_3["steal"] = json!({"from": "Bo", "card": "c7"});
    let legal = app
        .append(&club, &game, Some(4), vec![event("turn_taken", turn_3)])
        .await;
    assert_eq!(legal.status, 201, "{}", legal.body);
    let score = app.score(&club, &game).await;
    assert_eq!(score["details"]["showcases"]["Ann"], json!(["c4"]));
    assert_eq!(
        score["details"]["showcases"]["Cy"],
        json!(["c6", "c7", "c11"])
    );
}

async fn seat_one_may_not_dig_on_the_first_turn_and_the_batch_is_not_stored(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(scripted_options())).await;
    let mut digs = turn(1);
    digs["steal"] = Value::Null;
    digs["dig"] = json!("c4");

    let reply = app
        .append(
            &club,
            &game,
            Some(1),
            vec![event("showcases_dealt", deal()), event("turn_taken", digs)],
        )
        .await;

    let problem = reply.problem(422);
    assert_eq!(problem["event_index"], 1);
    assert_eq!(problem["pointer"], "/events/1/data/dig");
    assert_eq!(
        problem["detail"],
        "Ann may not dig on the first turn of the game; steal a card instead"
    );
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(log.body["version"], 1);
    assert_eq!(log.body["events"].as_array().unwrap().len(), 1);
}

async fn turns_go_in_seat_order(app: TestApp) {
    let club = app.new_club().await;
    let game = play_turns(&app, &club, 2).await;
    // Turn 3 is Cy's; Ann tries it.
    let mut early = turn(3);
    early["player"] = json!("Ann");

    let reply = app
        .append(&club, &game, Some(4), vec![event("turn_taken", early)])
        .await;

    let problem = reply.problem(422);
    assert_eq!(problem["pointer"], "/events/0/data/player");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .starts_with("it is Cy's turn (turn 3), not Ann's"),
        "{problem}"
    );
}

async fn a_deal_of_the_wrong_size_is_refused(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({"prizes": []}))).await;
    // Seat 1 is dealt 1 card, not 2.
    let dealt = json!({"showcases": {"Ann": [card(1), card(7)], "Bo": [card(2), card(3)], "Cy": [card(4), card(5), card(6)]}});

    let reply = app
        .append(&club, &game, Some(1), vec![event("showcases_dealt", dealt)])
        .await;

    let problem = reply.problem(422);
    assert_eq!(problem["event_index"], 0);
    assert_eq!(problem["pointer"], "/events/0/data/showcases/Ann");
    assert_eq!(
        problem["detail"],
        "Ann sits in seat 1 and is dealt 1 card(s), not 2"
    );
    assert_eq!(app.version(&club, &game).await, 1);
}

async fn a_typo_in_the_deal_corrected_after_the_final_bank_changes_the_score(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club).await;
    // c1 (in Ann's collection) was worth 5, not 1: Ann 27 + 4 = 31; no prize changes hands.
    let mut dealt = deal();
    dealt["showcases"]["Ann"][0]["value"] = json!(5);

    let reply = app
        .append(
            &club,
            &game,
            Some(31),
            vec![event(
                "correct",
                json!({"seq": 2, "data": dealt, "reason": "c1 is worth 5"}),
            )],
        )
        .await;

    assert_eq!(reply.status, 201, "{}", reply.body);
    let score = app.score(&club, &game).await;
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 31), ("Bo", 26), ("Cy", 21)])
    );
    assert_eq!(
        line_points(&score, "Ann")[0],
        ("Collection ×11".to_owned(), 25)
    );
    assert_eq!(score["final"], true);
    assert_every_point_is_explained(&score);
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(log.body["events"][1]["corrected_by"], 32);
}

async fn a_correction_that_breaks_a_later_turn_is_refused(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club).await;
    // Turn 26 (seq 28) keeping c58 instead of c57 leaves c57 on the pile, so Cy's turn 27
    // (seq 29) could no longer dig c58.
    let mut changed = turn(26);
    changed["kept"] = json!("c58");

    let reply = app
        .append(
            &club,
            &game,
            Some(31),
            vec![event("correct", json!({"seq": 28, "data": changed}))],
        )
        .await;

    let problem = reply.problem(422);
    assert_eq!(problem["event_index"], 0);
    assert_eq!(problem["pointer"], "/events/0/data/seq");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("after this correction, event 29 (turn_taken) would break a rule"),
        "{detail}"
    );
    assert!(detail.contains("top card of the discard pile"), "{detail}");
    let score = app.score(&club, &game).await;
    assert_eq!(score["version"], 31);
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 27), ("Bo", 26), ("Cy", 21)])
    );
}

/// The collections before the final bank (after turn 28), by hand:
/// Ann without c61: values 21 − 1 = 20; 60s 10, radios 5, vases 5.
/// Bo without c57, c3: 22 − 2 − 3 = 17; blue 8, 60s 8, radios 4, vases 4.
/// Cy without c59, c6: 21 − 4 − 1 = 16; blue 0, 60s 9, radios 5, vases 4.
/// Blue → Bo +4; 60s 10 vs 9 → Ann +3; radios 5 / 4 / 5 → Ann and Cy tie, nobody; vases 5 vs 4
/// → Ann +2. Ann 20 + 3 + 2 = 25, Bo 17 + 4 = 21, Cy 16.
const BEFORE_FINAL_BANK: [(&str, i64); 3] = [("Ann", 25), ("Bo", 21), ("Cy", 16)];

async fn a_retracted_final_bank_reopens_the_game(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club).await;

    let reply = app
        .append(
            &club,
            &game,
            Some(31),
            vec![event(
                "retract",
                json!({"seq": 31, "reason": "banked too early"}),
            )],
        )
        .await;

    assert_eq!(reply.status, 201, "{}", reply.body);
    let score = app.score(&club, &game).await;
    assert_eq!(totals(&score), expect_totals(&BEFORE_FINAL_BANK));
    assert_eq!(score["status"], "in_progress");
    assert_eq!(score["final"], false);
    assert_eq!(score["details"]["final_bank_due"], true);
    assert_eq!(
        line_points(&score, "Cy"),
        expect_lines(&[
            ("Collection ×9", 16),
            ("Most 60s objects", 0),
            ("Most radios", 0),
            ("Most vases", 0)
        ])
    );
    assert_every_point_is_explained(&score);
    // The final bank recorded again finishes the game as before.
    let again = app
        .append(
            &club,
            &game,
            Some(32),
            vec![event("final_banked", final_bank())],
        )
        .await;
    assert_eq!(again.status, 201, "{}", again.body);
    let score = app.score(&club, &game).await;
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 27), ("Bo", 26), ("Cy", 21)])
    );
    assert_eq!(score["final"], true);
}

async fn the_score_at_an_earlier_seq_replays_only_that_far(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club).await;

    let at_2 = score_at(&app, &club, &game, 2).await;
    let at_5 = score_at(&app, &club, &game, 5).await;
    let at_30 = score_at(&app, &club, &game, 30).await;

    // Dealt only: nothing collected.
    assert_eq!(
        totals(&at_2),
        expect_totals(&[("Ann", 0), ("Bo", 0), ("Cy", 0)])
    );
    assert_eq!(at_2["version"], 2);
    // After turn 3: Ann {c1 red 60s radio 1}, Bo {c2 green 50s chair 2}, Cy {c5 green 60s radio 0}.
    // 60s and radios: Ann 1, Cy 1 → tied, nobody. Ann 1, Bo 2, Cy 0.
    assert_eq!(
        totals(&at_5),
        expect_totals(&[("Ann", 1), ("Bo", 2), ("Cy", 0)])
    );
    // In progress: Bo leads, nobody has won yet.
    assert_eq!(at_5["leaders"], json!(["Bo"]));
    assert_eq!(at_5["winners"], json!([]));
    assert_eq!(at_5["final"], false);
    assert_eq!(
        line_points(&at_5, "Bo"),
        expect_lines(&[("Collection ×1", 2)])
    );
    assert_eq!(at_5["details"]["next_player"], "Ann");
    assert_eq!(totals(&at_30), expect_totals(&BEFORE_FINAL_BANK));
    assert_eq!(at_30["status"], "in_progress");
    let beyond = app
        .get(&format!("/v1/games/{game}/score?at=32"), Some(&club.token))
        .await;
    beyond.problem(422);
}

/// A game recorded only at its end. Prizes: blue 4, lamps 3, 60s 5.
/// Ann: k1 blue 60s lamp 3, k2 blue 50s radio 4, k3 red 60s lamp 1 → 8; blue 2, lamps 2, 60s 2.
/// Bo: k4 blue 70s vase 4, k5 blue 50s lamp 0, k6 green 70s chair 2 → 6; blue 2, lamps 1, 60s 0.
/// Cy: k7 green 60s lamp 1, k8 red 60s lamp 5, k9 red 60s phone 1 → 7; blue 0, lamps 2, 60s 3.
/// Blue: Ann and Bo tie on 2. Lamps: Ann and Cy tie on 2. 60s: Cy 3 vs 2 → Cy +5.
async fn record_collections(app: &TestApp, club: &TestClub, prize_tie: &str) -> Value {
    let options = json!({"prizes": [
        prize("blue", "Most blue objects", "colour", "blue", 4),
        prize("lamps", "Most lamps", "type", "lamp", 3),
        prize("sixties", "Most 60s objects", "period", "60s", 5),
    ], "prize_tie": prize_tie});
    let game = app.new_game(club, new_game(options)).await;
    let k = |id: &str, object: &str, colour: &str, period: &str, value: u32| json!({"id": id, "type": object, "colour": colour, "period": period, "value": value});
    let collections = json!({"collections": {
        "Ann": [k("k1", "lamp", "blue", "60s", 3), k("k2", "radio", "blue", "50s", 4), k("k3", "lamp", "red", "60s", 1)],
        "Bo": [k("k4", "vase", "blue", "70s", 4), k("k5", "lamp", "blue", "50s", 0), k("k6", "chair", "green", "70s", 2)],
        "Cy": [k("k7", "lamp", "green", "60s", 1), k("k8", "lamp", "red", "60s", 5), k("k9", "phone", "red", "60s", 1)]
    }});
    let reply = app
        .append(
            club,
            &game,
            Some(1),
            vec![event("collections_recorded", collections)],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    let score = app.score(club, &game).await;
    assert_eq!(score["final"], true);
    assert_eq!(score["status"], "finished");
    assert_eq!(score["house_rule_points"][0]["option"], "prize_tie");
    assert_eq!(score["house_rule_points"][0]["value"], prize_tie);
    assert_every_point_is_explained(&score);
    score
}

async fn collections_with_a_tied_prize_score_it_for_nobody_by_default(app: TestApp) {
    let club = app.new_club().await;

    let score = record_collections(&app, &club, "nobody").await;

    // Ann 8, Bo 6, Cy 7 + 5 = 12.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 8), ("Bo", 6), ("Cy", 12)])
    );
    assert_eq!(ranks(&score), vec![("Cy", 1), ("Ann", 2), ("Bo", 3)]);
    assert_eq!(score["winners"], json!(["Cy"]));
    assert_eq!(
        line_points(&score, "Ann"),
        expect_lines(&[
            ("Collection ×3", 8),
            ("Most blue objects", 0),
            ("Most lamps", 0),
            ("Most 60s objects", 0)
        ])
    );
    assert_eq!(score["house_rule_points"][0]["default"], true);
}

async fn collections_with_prize_tie_all_give_each_tied_player_the_prize(app: TestApp) {
    let club = app.new_club().await;

    let score = record_collections(&app, &club, "all").await;

    // Ann 8 + 4 + 3 = 15, Bo 6 + 4 = 10, Cy 7 + 3 + 5 = 15: Ann and Cy share the win.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 15), ("Bo", 10), ("Cy", 15)])
    );
    assert_eq!(ranks(&score), vec![("Ann", 1), ("Cy", 1), ("Bo", 3)]);
    assert_eq!(score["winners"], json!(["Ann", "Cy"]));
    assert_eq!(score["tiebreak"]["rule"], "ties are shared");
    assert_eq!(
        line_points(&score, "Bo"),
        expect_lines(&[
            ("Collection ×3", 6),
            ("Most blue objects", 4),
            ("Most lamps", 0)
        ])
    );
    assert_eq!(score["house_rule_points"][0]["default"], false);
}

async fn collections_with_prize_tie_split_divide_the_prize_and_lose_the_remainder(app: TestApp) {
    let club = app.new_club().await;

    let score = record_collections(&app, &club, "split").await;

    // Blue 4 ÷ 2 = 2 each; lamps 3 ÷ 2 = 1 each, 1 lost.
    // Ann 8 + 2 + 1 = 11, Bo 6 + 2 = 8, Cy 7 + 1 + 5 = 13.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 11), ("Bo", 8), ("Cy", 13)])
    );
    assert_eq!(score["winners"], json!(["Cy"]));
    let cy = lines(&score, "Cy");
    assert_eq!(cy[1].0, "Most lamps");
    assert_eq!(cy[1].1, 1);
    assert!(cy[1].2.contains("remainder 1 lost"), "{}", cy[1].2);
    assert_eq!(
        line_points(&score, "Cy"),
        expect_lines(&[
            ("Collection ×3", 7),
            ("Most lamps", 1),
            ("Most 60s objects", 5)
        ])
    );
}

async fn a_card_in_two_collections_is_refused(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({"prizes": []}))).await;
    let collections =
        json!({"collections": {"Ann": [card(1), card(2)], "Bo": [card(3)], "Cy": ["c2"]}});

    let reply = app
        .append(
            &club,
            &game,
            Some(1),
            vec![event("collections_recorded", collections)],
        )
        .await;

    let problem = reply.problem(422);
    assert_eq!(problem["pointer"], "/events/0/data/collections/Cy/0");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .starts_with("card c2 is already in Ann's collection"),
        "{problem}"
    );
    assert_eq!(app.version(&club, &game).await, 1);
}

async fn collections_cannot_be_recorded_after_the_deal(app: TestApp) {
    let club = app.new_club().await;
    let game = play_turns(&app, &club, 0).await;
    let collections = json!({"collections": {"Ann": ["c1"], "Bo": ["c2"], "Cy": ["c4"]}});

    let reply = app
        .append(
            &club,
            &game,
            Some(2),
            vec![event("collections_recorded", collections)],
        )
        .await;

    let problem = reply.problem(422);
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("recorded turn by turn"),
        "{problem}"
    );
}

async fn a_bad_player_count_is_refused(app: TestApp) {
    let club = app.new_club().await;
    let two = json!({"game": "vintage", "players": [{"name": "Ann"}, {"name": "Bo"}]});
    let seven: Vec<Value> = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus"]
        .iter()
        .map(|n| json!({"name": n}))
        .collect();
    let seven = json!({"game": "vintage", "players": seven});

    let two = app.post("/v1/games", Some(&club.token), &two).await;
    let seven = app.post("/v1/games", Some(&club.token), &seven).await;

    let problem = two.problem(422);
    assert_eq!(problem["pointer"], "/players");
    assert_eq!(
        problem["detail"],
        "Vintage is played by 3 to 6 players, not 2"
    );
    assert_eq!(seven.problem(422)["pointer"], "/players");
    let list = app.get("/v1/games", Some(&club.token)).await;
    assert_eq!(list.body["games"], json!([]));
}

async fn create(app: &TestApp, club: &TestClub, options: Value) -> crate::helpers::Reply {
    app.post("/v1/games", Some(&club.token), &new_game(options))
        .await
}

async fn bad_prizes_and_prize_tie_modes_are_refused(app: TestApp) {
    let club = app.new_club().await;
    let blue = prize("blue", "Most blue", "colour", "blue", 4);
    let many: Vec<Value> = (0..18)
        .map(|i| prize(&format!("p{i}"), "Most blue", "colour", "blue", 1))
        .collect();

    let coin = create(&app, &club, json!({"prize_tie": "coin_flip"})).await;
    let era = create(
        &app,
        &club,
        json!({"prizes": [prize("era", "Most 60s", "value", "60s", 3)]}),
    )
    .await;
    let twins = create(&app, &club, json!({"prizes": [blue, blue]})).await;
    let unknown = create(&app, &club, json!({"jokers": true})).await;
    let many = create(&app, &club, json!({"prizes": many})).await;

    assert_eq!(coin.problem(422)["pointer"], "/options/prize_tie");
    let problem = era.problem(422);
    assert_eq!(problem["pointer"], "/options/prizes/0/attribute");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("\"type\", \"colour\", \"period\" or another attribute"),
        "{problem}"
    );
    assert_eq!(twins.problem(422)["pointer"], "/options/prizes/1/id");
    assert_eq!(unknown.problem(422)["pointer"], "/options/jokers");
    let problem = many.problem(422);
    assert_eq!(problem["pointer"], "/options/prizes");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("at most 17 prizes"),
        "{problem}"
    );
    // With only "prizes": [] the effective defaults are stored: ties score for nobody, a tie for
    // the win is shared, no deck.
    let game = app.new_game(&club, new_game(json!({"prizes": []}))).await;
    let summary = app
        .get(&format!("/v1/games/{game}"), Some(&club.token))
        .await;
    assert_eq!(
        summary.body["options"],
        json!({"prizes": [], "prize_tie": "nobody", "winner_tie": "shared", "deck": {}})
    );
}

async fn a_prize_no_card_matches_says_so_in_the_score_in_french(app: TestApp) {
    let club = app.new_club().await;
    // A prize typed as a French phone shows periods; the cards store "60s".
    let options =
        json!({"prizes": [prize("sixties", "Most 60s objects", "period", "années 60", 5)]});
    let game = app.new_game(&club, new_game(options)).await;
    let k = |id: &str, period: &str, value: u32| json!({"id": id, "type": "lamp", "colour": "blue", "period": period, "value": value});
    let collections = json!({"collections": {
        "Ann": [k("k1", "60s", 3), k("k2", "60s", 2)],
        "Bo": [k("k3", "50s", 1)],
        "Cy": [k("k4", "70s", 3)]
    }});
    let reply = app
        .append(
            &club,
            &game,
            Some(1),
            vec![event("collections_recorded", collections)],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);

    let response = app
        .client
        .get(app.url(&format!("/v1/games/{game}/score")))
        .header("accept-language", "fr")
        .bearer_auth(&club.token)
        .send()
        .await
        .expect("the server answers");
    let score: Value = response.json().await.expect("a score");

    // Ann 3 + 2 = 5, Bo 1, Cy 3: nobody takes the prize, and every breakdown says why.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 5), ("Bo", 1), ("Cy", 3)])
    );
    for name in PLAYERS {
        assert_eq!(
            lines(&score, name)[1],
            (
                "Most 60s objects".to_owned(),
                0,
                "aucune carte de cette partie n'a pour époque « années 60 »".to_owned()
            )
        );
    }
}
