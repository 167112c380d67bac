//! A whole 3-player Mint Julep game over HTTP — bets, card by card with Mint Julep cards, three
//! rounds — with totals and the race computed by hand from the rules (shared/rules/mint-julep.md).
//!
//! Horses: AJ Alaskan Justice (bonus 0), MS Maple Splendor (1), NA Newton's Apple (1),
//! WP Whiskey Princess (2), YGM You Got Me (2). Place points 1st 3, 2nd 2, 3rd 1, else 0; late
//! penalty 0 / 1 / 2 for a bet placed in round 1 / 2 / 3. Groups are written front to back,
//! each top first: `[YGM] [AJ MS NA WP]`.

use serde_json::{Value, json};
use tabletally_api::store::SCHEMA_VERSION;

use crate::helpers::{
    TestApp, TestClub, assert_every_point_is_explained, event, expect_totals, player, ranks, totals,
};
use crate::mint_condition::execute;
use crate::on_both_backends;

/// Ann, Bo and Cy (3 players: one active bet each, backers of one horse split its points).
fn new_game(options: Value) -> Value {
    json!({
        "game": "mint-julep",
        "players": [{"name": "Ann", "color": "red"}, {"name": "Bo", "color": "blue"}, {"name": "Cy", "color": "green"}],
        "options": options,
        "started_at": "2026-12-04T19:00:00Z"
    })
}

fn bet(round: u32, player: &str, horse: &str, replaces: Option<&str>) -> Value {
    event(
        "bet_placed",
        json!({"round": round, "player": player, "horse": horse, "replaces": replaces}),
    )
}

/// `(horse, "forward" | "back", "top" | "named")`.
fn step(horse: &str, direction: &str, kind: &str) -> Value {
    json!({"horse": horse, "direction": direction, "kind": kind})
}

fn card_data(round: u32, player: &str, moves: Vec<Value>, mint_julep: Option<&str>) -> Value {
    json!({"round": round, "player": player, "moves": moves, "mint_julep": mint_julep.map(|h| json!({"horse": h}))})
}

fn card(round: u32, player: &str, moves: Vec<Value>, mint_julep: Option<&str>) -> Value {
    event("card_played", card_data(round, player, moves, mint_julep))
}

fn round_ended(round: u32) -> Value {
    event("round_ended", json!({"round": round}))
}

/// Seq 2–4. Start: one group `[AJ MS NA WP YGM]`.
fn round_1_bets() -> Vec<Value> {
    vec![
        bet(1, "Ann", "you-got-me", None),
        bet(1, "Bo", "alaskan-justice", None),
        bet(1, "Cy", "newtons-apple", None),
    ]
}

/// Seq 5–9.
/// 5 Ann: YGM forward (named), no group ahead → new front group: `[YGM] [AJ MS NA WP]`.
/// 6 Bo: AJ forward (top) → on top of the front group: `[AJ YGM] [MS NA WP]`.
/// 7 Cy: NA forward (named) → `[NA AJ YGM] [MS WP]`; MS back (top), no group behind →
///   new last group: `[NA AJ YGM] [WP] [MS]`.
/// 8 Ann: Mint Julep on WP (top of `[WP]`, flipped), WP forward (top) → `[WP NA AJ YGM] [MS]`.
/// 9 round 1 ends.
fn round_1_race() -> Vec<Value> {
    vec![
        card(1, "Ann", vec![step("you-got-me", "forward", "named")], None),
        card(
            1,
            "Bo",
            vec![step("alaskan-justice", "forward", "top")],
            None,
        ),
        card(
            1,
            "Cy",
            vec![
                step("newtons-apple", "forward", "named"),
                step("maple-splendor", "back", "top"),
            ],
            None,
        ),
        card(
            1,
            "Ann",
            vec![step("whiskey-princess", "forward", "top")],
            Some("whiskey-princess"),
        ),
        round_ended(1),
    ]
}

/// Seq 10–12. Bo's new bet on YGM replaces his AJ bet (late penalty 1).
/// 11 Bo: YGM forward (named) from the front group → new front group: `[YGM] [WP NA AJ] [MS]`.
/// 12 Cy: NA forward (named) → `[NA YGM] [WP AJ] [MS]`.
fn round_2_start() -> Vec<Value> {
    vec![
        bet(2, "Bo", "you-got-me", Some("alaskan-justice")),
        card(2, "Bo", vec![step("you-got-me", "forward", "named")], None),
        card(
            2,
            "Cy",
            vec![step("newtons-apple", "forward", "named")],
            None,
        ),
    ]
}

/// Seq 13–14.
/// 13 Ann: MS forward (top) → onto the middle group, the last one empties: `[NA YGM] [MS WP AJ]`.
fn round_2_end() -> Vec<Value> {
    vec![
        card(
            2,
            "Ann",
            vec![step("maple-splendor", "forward", "top")],
            None,
        ),
        round_ended(2),
    ]
}

/// Seq 15–19. Cy's new bet on MS replaces his NA bet (late penalty 2).
/// 16 Ann: Mint Julep on NA (top of `[NA YGM]`, flipped); YGM forward (named) → new front group
///    `[YGM] [NA] [MS WP AJ]`; AJ forward (named) → `[YGM] [AJ NA] [MS WP]`.
/// 17 Cy: MS forward (top) → `[YGM] [MS AJ NA] [WP]`; MS forward (top) again → `[MS YGM] [AJ NA] [WP]`.
/// 18 Bo: YGM forward (named) → new front group: `[YGM] [MS] [AJ NA] [WP]`.
/// 19 round 3 ends: final placement YGM 1st, MS 2nd, AJ 3rd, NA 4th, WP 5th.
fn round_3() -> Vec<Value> {
    vec![
        bet(3, "Cy", "maple-splendor", Some("newtons-apple")),
        card(
            3,
            "Ann",
            vec![
                step("you-got-me", "forward", "named"),
                step("alaskan-justice", "forward", "named"),
            ],
            Some("newtons-apple"),
        ),
        card(
            3,
            "Cy",
            vec![
                step("maple-splendor", "forward", "top"),
                step("maple-splendor", "forward", "top"),
            ],
            None,
        ),
        card(3, "Bo", vec![step("you-got-me", "forward", "named")], None),
        round_ended(3),
    ]
}

/// Appends one request at `version` and checks the new version.
async fn send(app: &TestApp, club: &TestClub, game: &str, version: i64, events: Vec<Value>) -> i64 {
    let count = events.len() as i64;
    let reply = app.append(club, game, Some(version), events).await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    assert_eq!(reply.body["version"], version + count);
    assert_eq!(reply.body["events"][0]["seq"], version + 1);
    version + count
}

/// The whole game in five requests (versions 1 → 4 → 9 → 12 → 14 → 19); returns the game id.
async fn play(app: &TestApp, club: &TestClub, options: Value) -> String {
    let game = app.new_game(club, new_game(options)).await;
    let mut version = 1;
    for request in [
        round_1_bets(),
        round_1_race(),
        round_2_start(),
        round_2_end(),
        round_3(),
    ] {
        version = send(app, club, &game, version, request).await;
    }
    assert_eq!(version, 19);
    game
}

/// The race in `details`: horse ids per group, front group first, each top first.
fn groups(score: &Value) -> Vec<Vec<String>> {
    score["details"]["race"]["groups"]
        .as_array()
        .unwrap_or_else(|| panic!("details.race.groups: {}", score["details"]))
        .iter()
        .map(|g| {
            g.as_array()
                .unwrap()
                .iter()
                .map(|h| h["horse"].as_str().unwrap().to_owned())
                .collect()
        })
        .collect()
}

fn expect_groups(groups: &[&[&str]]) -> Vec<Vec<String>> {
    groups
        .iter()
        .map(|g| g.iter().map(|h| (*h).to_owned()).collect())
        .collect()
}

/// The horses flipped by a Mint Julep card, in race order.
fn flipped(score: &Value) -> Vec<String> {
    score["details"]["race"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g.as_array().unwrap().iter())
        .filter(|h| h["flipped"] == true)
        .map(|h| h["horse"].as_str().unwrap().to_owned())
        .collect()
}

on_both_backends!(
    a_three_player_game_splits_a_shared_horse_and_charges_late_bets,
    after_penalty_splitting_shares_the_win,
    the_score_of_a_game_in_progress_shows_the_race_to_draw,
    the_score_at_an_earlier_seq_replays_only_that_far,
    a_game_recorded_only_by_its_finishes_is_scored_from_the_last_one,
    a_two_player_game_scores_every_bet_on_its_own,
    a_two_player_game_with_one_bet_each_and_a_late_second_bet,
    every_illegal_move_is_refused_naming_the_move,
    a_race_move_before_every_round_one_bet_is_refused,
    a_corrected_bet_changes_the_split_and_can_go_negative,
    a_retracted_card_changes_the_finish,
    a_correction_that_flips_a_horse_twice_is_refused,
    a_correction_with_an_illegal_move_points_into_its_data,
    setup_errors_name_the_field,
    a_two_player_bet_naming_the_only_bet_replaces_it_but_not_in_a_game_stored_before,
);

async fn a_three_player_game_splits_a_shared_horse_and_charges_late_bets(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({})).await;

    let score = app.score(&club, &game).await;

    // Final YGM 1st, MS 2nd. Ann (YGM, round 1) and Bo (YGM, round 2) share YGM:
    // (2 + 3) / 2 = 2, remainder 1 lost → Ann 2 − 0 = 2, Bo 2 − 1 = 1.
    // Cy (MS, round 3) alone: 1 + 2 − 2 = 1.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 2), ("Bo", 1), ("Cy", 1)])
    );
    assert_eq!(ranks(&score), vec![("Ann", 1), ("Bo", 2), ("Cy", 2)]);
    assert_eq!(score["winners"], json!(["Ann"]));
    assert_eq!(score["tiebreak"], Value::Null);
    assert_eq!(score["final"], true);
    assert_eq!(score["status"], "finished");
    assert_eq!(score["lower_wins"], false);
    assert_eq!(score["version"], 19);
    assert_every_point_is_explained(&score);
    // Each bet's line sits under the round it was placed in; replaced bets are gone.
    let ann = player(&score, "Ann");
    assert_eq!(ann["rounds"].as_array().unwrap().len(), 1);
    assert_eq!(ann["rounds"][0]["round"], 1);
    assert_eq!(
        ann["rounds"][0]["breakdown"][0]["label"],
        "bet on You Got Me (round 1)"
    );
    assert_eq!(ann["rounds"][0]["breakdown"][0]["points"], 2);
    let ann_detail = ann["rounds"][0]["breakdown"][0]["detail"].as_str().unwrap();
    assert!(
        ann_detail.contains("5 / 2 = 2") && ann_detail.contains("remainder lost"),
        "{ann_detail}"
    );
    let bo = player(&score, "Bo");
    assert_eq!(bo["rounds"].as_array().unwrap().len(), 1);
    assert_eq!(bo["rounds"][0]["round"], 2);
    assert_eq!(
        bo["rounds"][0]["breakdown"][0]["label"],
        "bet on You Got Me (round 2)"
    );
    assert_eq!(bo["rounds"][0]["breakdown"][0]["points"], 1);
    assert!(
        bo["rounds"][0]["breakdown"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("late penalty 1"),
        "{bo}"
    );
    let cy = player(&score, "Cy");
    assert_eq!(cy["rounds"][0]["round"], 3);
    assert_eq!(
        cy["rounds"][0]["breakdown"][0]["label"],
        "bet on Maple Splendor (round 3)"
    );
    assert_eq!(cy["rounds"][0]["breakdown"][0]["points"], 1);
    let cy_detail = cy["rounds"][0]["breakdown"][0]["detail"].as_str().unwrap();
    assert!(
        cy_detail.contains("2nd") && cy_detail.contains("late penalty 2"),
        "{cy_detail}"
    );
    // The finished race: `[YGM] [MS] [AJ NA] [WP]`, WP and NA flipped.
    assert_eq!(
        groups(&score),
        expect_groups(&[
            &["you-got-me"],
            &["maple-splendor"],
            &["alaskan-justice", "newtons-apple"],
            &["whiskey-princess"]
        ])
    );
    assert_eq!(flipped(&score), vec!["newtons-apple", "whiskey-princess"]);
    assert_eq!(
        score["details"]["race"]["placement"],
        json!([
            "you-got-me",
            "maple-splendor",
            "alaskan-justice",
            "newtons-apple",
            "whiskey-princess"
        ])
    );
    // The default split is listed as a house-rule point.
    assert_eq!(score["house_rule_points"][0]["option"], "split");
    assert_eq!(score["house_rule_points"][0]["value"], "before_penalty");
    assert_eq!(score["house_rule_points"][0]["default"], true);
    let summary = app
        .get(&format!("/v1/games/{game}"), Some(&club.token))
        .await;
    assert_eq!(summary.body["status"], "finished");
    assert_eq!(
        summary.body["options"],
        json!({"split": "before_penalty", "last_race_ends_game": true})
    );
}

async fn after_penalty_splitting_shares_the_win(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({"split": "after_penalty"})).await;

    let score = app.score(&club, &game).await;

    // YGM: Ann (2 + 3 − 0) / 2 = 2 (remainder lost), Bo (2 + 3 − 1) / 2 = 2. Cy alone: 1 + 2 − 2 = 1.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 2), ("Bo", 2), ("Cy", 1)])
    );
    assert_eq!(ranks(&score), vec![("Ann", 1), ("Bo", 1), ("Cy", 3)]);
    assert_eq!(score["winners"], json!(["Ann", "Bo"]));
    // No tie-break exists: the win is shared, and the scoreboard says so.
    assert!(
        score["tiebreak"]["detail"]
            .as_str()
            .unwrap()
            .contains("share"),
        "{}",
        score["tiebreak"]
    );
    assert_eq!(score["house_rule_points"][0]["value"], "after_penalty");
    assert_eq!(score["house_rule_points"][0]["default"], false);
    assert!(
        player(&score, "Bo")["rounds"][0]["breakdown"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("4 / 2 = 2")
    );
    assert_every_point_is_explained(&score);
}

async fn the_score_of_a_game_in_progress_shows_the_race_to_draw(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let mut version = 1;
    for request in [round_1_bets(), round_1_race(), round_2_start()] {
        version = send(&app, &club, &game, version, request).await;
    }

    let score = app.score(&club, &game).await;

    // Mid round 2: `[NA YGM] [WP AJ] [MS]`, WP flipped in round 1.
    assert_eq!(score["final"], false);
    assert_eq!(score["status"], "in_progress");
    assert_eq!(score["version"], 12);
    assert_eq!(score["details"]["round"], 2);
    assert_eq!(score["details"]["race_started"], true);
    assert_eq!(score["details"]["race"]["recorded_finish_only"], false);
    assert_eq!(
        groups(&score),
        expect_groups(&[
            &["newtons-apple", "you-got-me"],
            &["whiskey-princess", "alaskan-justice"],
            &["maple-splendor"]
        ])
    );
    assert_eq!(flipped(&score), vec!["whiskey-princess"]);
    let first = &score["details"]["race"]["groups"][0][0];
    assert_eq!(first["name"], "Newton's Apple");
    assert_eq!(first["flipped"], false);
    // The active bets: Bo's AJ bet was replaced by his YGM bet.
    let mut bets: Vec<(String, String, i64)> = score["details"]["bets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["player"].as_str().unwrap().into(),
                b["horse"].as_str().unwrap().into(),
                b["round"].as_i64().unwrap(),
            )
        })
        .collect();
    bets.sort();
    assert_eq!(
        bets,
        vec![
            ("Ann".into(), "you-got-me".into(), 1),
            ("Bo".into(), "you-got-me".into(), 2),
            ("Cy".into(), "newtons-apple".into(), 1)
        ]
    );
    // The score as if the race ended now: NA 1st, YGM 2nd.
    // YGM shared: (2 + 2) / 2 = 2 → Ann 2, Bo 2 − 1 = 1. Cy NA: 1 + 3 = 4.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 2), ("Bo", 1), ("Cy", 4)])
    );
    // In progress: Cy leads, nobody has won yet.
    assert_eq!(score["leaders"], json!(["Cy"]));
    assert_eq!(score["winners"], json!([]));
    assert_every_point_is_explained(&score);
    let summary = app
        .get(&format!("/v1/games/{game}"), Some(&club.token))
        .await;
    assert_eq!(summary.body["status"], "in_progress");
}

async fn the_score_at_an_earlier_seq_replays_only_that_far(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({})).await;

    let at_4 = app
        .get(&format!("/v1/games/{game}/score?at=4"), Some(&club.token))
        .await;
    let at_9 = app
        .get(&format!("/v1/games/{game}/score?at=9"), Some(&club.token))
        .await;
    let at_20 = app
        .get(&format!("/v1/games/{game}/score?at=20"), Some(&club.token))
        .await;

    // At 4 (bets only): one group `[AJ MS NA WP YGM]` → Ann YGM 5th: 2 + 0 = 2,
    // Bo AJ 1st: 0 + 3 = 3, Cy NA 3rd: 1 + 1 = 2.
    assert_eq!(at_4.status, 200, "{}", at_4.body);
    assert_eq!(at_4.body["version"], 4);
    assert_eq!(at_4.body["final"], false);
    assert_eq!(at_4.body["details"]["round"], 1);
    assert_eq!(at_4.body["details"]["race_started"], false);
    assert_eq!(
        groups(&at_4.body),
        expect_groups(&[&[
            "alaskan-justice",
            "maple-splendor",
            "newtons-apple",
            "whiskey-princess",
            "you-got-me"
        ]])
    );
    assert_eq!(
        totals(&at_4.body),
        expect_totals(&[("Ann", 2), ("Bo", 3), ("Cy", 2)])
    );
    // At 9 (round 1 ended): `[WP NA AJ YGM] [MS]` → Ann YGM 4th: 2 + 0 = 2,
    // Bo AJ 3rd: 0 + 1 = 1, Cy NA 2nd: 1 + 2 = 3.
    assert_eq!(at_9.status, 200, "{}", at_9.body);
    assert_eq!(at_9.body["details"]["round"], 2);
    assert_eq!(at_9.body["details"]["race_started"], false);
    assert_eq!(
        groups(&at_9.body),
        expect_groups(&[
            &[
                "whiskey-princess",
                "newtons-apple",
                "alaskan-justice",
                "you-got-me"
            ],
            &["maple-splendor"]
        ])
    );
    assert_eq!(
        totals(&at_9.body),
        expect_totals(&[("Ann", 2), ("Bo", 1), ("Cy", 3)])
    );
    assert_eq!(at_9.body["leaders"], json!(["Cy"]));
    assert_eq!(at_9.body["winners"], json!([]));
    at_20.problem(422);
}

async fn a_game_recorded_only_by_its_finishes_is_scored_from_the_last_one(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let round_1 = vec![
        bet(1, "Ann", "you-got-me", None),
        bet(1, "Bo", "maple-splendor", None),
        bet(1, "Cy", "whiskey-princess", None),
        event(
            "race_recorded",
            json!({"round": 1, "order": ["alaskan-justice", "maple-splendor", "you-got-me", "newtons-apple", "whiskey-princess"]}),
        ),
        round_ended(1),
    ];
    let round_2 = vec![
        bet(2, "Bo", "alaskan-justice", Some("maple-splendor")),
        event(
            "race_recorded",
            json!({"round": 2, "order": ["you-got-me", "alaskan-justice", "maple-splendor", "whiskey-princess", "newtons-apple"]}),
        ),
        round_ended(2),
    ];
    let round_3 = vec![event(
        "race_recorded",
        json!({"round": 3, "order": ["you-got-me", "alaskan-justice", "newtons-apple", "whiskey-princess", "maple-splendor"]}),
    )];
    let version = send(&app, &club, &game, 1, round_1).await;
    let version = send(&app, &club, &game, version, round_2).await;
    // Once a finish was recorded the groups are unknown: a card cannot be checked any more.
    let card_now = app
        .append(
            &club,
            &game,
            Some(version),
            vec![card(
                3,
                "Ann",
                vec![step("you-got-me", "forward", "top")],
                None,
            )],
        )
        .await;
    let problem = card_now.problem(422);
    assert_eq!(problem["event_index"], 0);
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("race_recorded"),
        "{problem}"
    );
    let version = send(&app, &club, &game, version, round_3).await;
    // Round 3's finish ended the game; the round_ended the rules' event contract still sends
    // after it is accepted and changes nothing, and nothing may follow it.
    assert_eq!(version, 10);
    assert_eq!(app.score(&club, &game).await["status"], "finished");
    let version = send(&app, &club, &game, version, vec![round_ended(3)]).await;
    let late_end = app
        .append(&club, &game, Some(version), vec![round_ended(3)])
        .await;
    assert_eq!(
        late_end.problem(422)["detail"],
        "the game is already finished; to change it, correct or retract an earlier event"
    );

    let score = app.score(&club, &game).await;

    // Worked example 1: final YGM, AJ, NA, WP, MS.
    // Ann YGM (round 1) 1st: 2 + 3 − 0 = 5. Bo AJ (round 2) 2nd: 0 + 2 − 1 = 1.
    // Cy WP (round 1) 4th: 2 + 0 − 0 = 2.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 5), ("Bo", 1), ("Cy", 2)])
    );
    assert_eq!(ranks(&score), vec![("Ann", 1), ("Cy", 2), ("Bo", 3)]);
    assert_eq!(score["winners"], json!(["Ann"]));
    assert_eq!(score["final"], true);
    assert_eq!(score["details"]["race"]["recorded_finish_only"], true);
    assert_eq!(
        score["details"]["race"]["placement"],
        json!([
            "you-got-me",
            "alaskan-justice",
            "newtons-apple",
            "whiskey-princess",
            "maple-splendor"
        ])
    );
    assert_eq!(player(&score, "Bo")["rounds"][0]["round"], 2);
    assert_eq!(
        player(&score, "Bo")["rounds"][0]["breakdown"][0]["label"],
        "bet on Alaskan Justice (round 2)"
    );
    assert_every_point_is_explained(&score);
}

async fn a_two_player_game_scores_every_bet_on_its_own(app: TestApp) {
    let club = app.new_club().await;
    let game = app
        .new_game(
            &club,
            json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;
    let round_1 = vec![
        bet(1, "Ann", "you-got-me", None),
        bet(1, "Ann", "alaskan-justice", None),
        bet(1, "Bo", "you-got-me", None),
        bet(1, "Bo", "whiskey-princess", None),
        event(
            "race_recorded",
            json!({"round": 1, "order": ["you-got-me", "whiskey-princess", "newtons-apple", "alaskan-justice", "maple-splendor"]}),
        ),
        round_ended(1),
    ];
    let version = send(&app, &club, &game, 1, round_1).await;
    // With two bets each, a new bet must name the one it replaces.
    let unnamed = app
        .append(
            &club,
            &game,
            Some(version),
            vec![bet(2, "Bo", "maple-splendor", None)],
        )
        .await;
    let problem = unnamed.problem(422);
    assert_eq!(problem["pointer"], "/events/0/data/replaces");
    let rest = vec![
        bet(2, "Bo", "maple-splendor", Some("whiskey-princess")),
        event(
            "race_recorded",
            json!({"round": 2, "order": ["maple-splendor", "you-got-me", "alaskan-justice", "newtons-apple", "whiskey-princess"]}),
        ),
        round_ended(2),
        event(
            "race_recorded",
            json!({"round": 3, "order": ["maple-splendor", "you-got-me", "alaskan-justice", "newtons-apple", "whiskey-princess"]}),
        ),
    ];
    send(&app, &club, &game, version, rest).await;

    let score = app.score(&club, &game).await;

    // Final MS, YGM, AJ, NA, WP; no split with 2 players.
    // Ann: YGM 2nd 2 + 2 = 4, AJ 3rd 0 + 1 = 1 → 5.
    // Bo: YGM 2nd 2 + 2 = 4, MS (round 2) 1st 1 + 3 − 1 = 3 → 7.
    assert_eq!(totals(&score), expect_totals(&[("Ann", 5), ("Bo", 7)]));
    assert_eq!(score["winners"], json!(["Bo"]));
    let bo = player(&score, "Bo");
    let rounds: Vec<(i64, i64)> = bo["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["round"].as_i64().unwrap(), r["points"].as_i64().unwrap()))
        .collect();
    assert_eq!(rounds, vec![(1, 4), (2, 3)]);
    assert_every_point_is_explained(&score);
}

/// Ann and Bo: one bet each in round 1 — the second bet is allowed, not required — and each
/// adds a second later, paying that round's late penalty. One Mint Julep card a round.
async fn a_two_player_game_with_one_bet_each_and_a_late_second_bet(app: TestApp) {
    let club = app.new_club().await;
    let game = app
        .new_game(
            &club,
            json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;
    // Seq 2–5. 4 Ann: YGM forward (named) → `[YGM] [AJ MS NA WP]`.
    // 5 Bo: Mint Julep on AJ (top of `[AJ MS NA WP]`, flipped), AJ forward (top) → `[AJ YGM] [MS NA WP]`.
    let round_1_race = vec![
        bet(1, "Ann", "you-got-me", None),
        bet(1, "Bo", "alaskan-justice", None),
        card(1, "Ann", vec![step("you-got-me", "forward", "named")], None),
        card(
            1,
            "Bo",
            vec![step("alaskan-justice", "forward", "top")],
            Some("alaskan-justice"),
        ),
    ];
    let version = send(&app, &club, &game, 1, round_1_race).await;
    // MS is an unflipped top horse, but round 1's one Mint Julep card is out.
    let second_julep = app
        .append(
            &club,
            &game,
            Some(version),
            vec![card(
                1,
                "Ann",
                vec![step("maple-splendor", "forward", "top")],
                Some("maple-splendor"),
            )],
        )
        .await;
    let problem = second_julep.problem(422);
    assert_eq!(problem["pointer"], "/events/0/data/mint_julep");
    assert_eq!(
        problem["detail"],
        "Bo already played the Mint Julep card in round 1 (on Alaskan Justice); the deck holds \
         one Mint Julep card and it is shuffled back only at the end of the round"
    );
    // Round 1 under way with one bet each: AJ 1st, YGM 2nd → Ann 2 + 2 = 4, Bo 0 + 3 = 3.
    let mid = app.score(&club, &game).await;
    assert_eq!(mid["version"], 5);
    assert_eq!(totals(&mid), expect_totals(&[("Ann", 4), ("Bo", 3)]));
    // Seq 6.
    let version = send(&app, &club, &game, version, vec![round_ended(1)]).await;
    // Seq 7–10. 7 Ann adds NA (no "replaces": her second bet, late penalty 1).
    // 8 Ann: NA forward (named) → `[NA AJ YGM] [MS WP]`.
    // 9 Bo: Mint Julep again (shuffled back at round 1's end) on MS, MS forward (top) →
    //   `[MS NA AJ YGM] [WP]`.
    let round_2 = vec![
        bet(2, "Ann", "newtons-apple", None),
        card(
            2,
            "Ann",
            vec![step("newtons-apple", "forward", "named")],
            None,
        ),
        card(
            2,
            "Bo",
            vec![step("maple-splendor", "forward", "top")],
            Some("maple-splendor"),
        ),
        round_ended(2),
    ];
    let version = send(&app, &club, &game, version, round_2).await;
    // Seq 11. Bo adds WP (late penalty 2).
    let version = send(
        &app,
        &club,
        &game,
        version,
        vec![bet(3, "Bo", "whiskey-princess", None)],
    )
    .await;
    // Ann holds two bets now: a new one must name the one it replaces.
    let unnamed = app
        .append(
            &club,
            &game,
            Some(version),
            vec![bet(3, "Ann", "maple-splendor", None)],
        )
        .await;
    let problem = unnamed.problem(422);
    assert_eq!(problem["pointer"], "/events/0/data/replaces");
    assert_eq!(
        problem["detail"],
        "with 2 players Ann holds two bets (on You Got Me and Newton's Apple); \"replaces\" must \
         name the horse of the bet this one replaces"
    );
    // Seq 12–14. 12 Bo: WP forward (top) from the last group → `[WP MS NA AJ YGM]`.
    // 13 Ann: YGM forward (named), no group ahead → `[YGM] [WP MS NA AJ]`.
    let round_3 = vec![
        card(
            3,
            "Bo",
            vec![step("whiskey-princess", "forward", "top")],
            None,
        ),
        card(3, "Ann", vec![step("you-got-me", "forward", "named")], None),
        round_ended(3),
    ];
    assert_eq!(send(&app, &club, &game, version, round_3).await, 14);

    let score = app.score(&club, &game).await;

    // Final YGM, WP, MS, NA, AJ; with 2 players every bet on its own.
    // Ann: YGM (round 1) 1st 2 + 3 = 5; NA (round 2) 4th 1 + 0 − 1 = 0 → 5.
    // Bo: AJ (round 1) 5th 0 + 0 = 0; WP (round 3) 2nd 2 + 2 − 2 = 2 → 2.
    assert_eq!(totals(&score), expect_totals(&[("Ann", 5), ("Bo", 2)]));
    assert_eq!(score["winners"], json!(["Ann"]));
    assert_eq!(score["final"], true);
    assert_eq!(
        groups(&score),
        expect_groups(&[
            &["you-got-me"],
            &[
                "whiskey-princess",
                "maple-splendor",
                "newtons-apple",
                "alaskan-justice"
            ]
        ])
    );
    assert_eq!(flipped(&score), vec!["maple-splendor", "alaskan-justice"]);
    let rounds = |name: &str| -> Vec<(i64, i64)> {
        player(&score, name)["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["round"].as_i64().unwrap(), r["points"].as_i64().unwrap()))
            .collect()
    };
    assert_eq!(rounds("Ann"), vec![(1, 5), (2, 0)]);
    assert_eq!(rounds("Bo"), vec![(1, 0), (3, 2)]);
    let late = &player(&score, "Ann")["rounds"][1]["breakdown"][0];
    assert_eq!(late["label"], "bet on Newton's Apple (round 2)");
    assert_eq!(
        late["detail"],
        "start bonus 1 + 4th place 0 − late penalty 1 = 0"
    );
    assert_every_point_is_explained(&score);
}

/// Round 1 up to seq 8: `[WP NA AJ YGM] [MS]`, WP flipped; version 8.
async fn game_in_round_one(app: &TestApp, club: &TestClub) -> String {
    let game = app.new_game(club, new_game(json!({}))).await;
    let mut race = round_1_race();
    race.pop();
    let version = send(app, club, &game, 1, round_1_bets()).await;
    assert_eq!(send(app, club, &game, version, race).await, 8);
    game
}

async fn every_illegal_move_is_refused_naming_the_move(app: TestApp) {
    let club = app.new_club().await;
    let game = game_in_round_one(&app, &club).await;
    // (card, pointer, words the detail must contain)
    let cases: Vec<(Value, &str, Vec<&str>)> = vec![
        // MS is alone in the last group: moving back would leave a gap.
        (
            card_data(1, "Bo", vec![step("maple-splendor", "back", "top")], None),
            "/events/0/data/moves/0",
            vec!["Maple Splendor back", "alone in the last group", "gap"],
        ),
        // NA forward starts a new front group; moving it back in the same action is not allowed.
        (
            card_data(
                1,
                "Bo",
                vec![
                    step("newtons-apple", "forward", "named"),
                    step("newtons-apple", "back", "named"),
                ],
                None,
            ),
            "/events/0/data/moves/1",
            vec![
                "move 2",
                "Newton's Apple back",
                "moved back in the same action",
            ],
        ),
        // AJ is under WP and NA: not a top horse.
        (
            card_data(
                1,
                "Cy",
                vec![step("alaskan-justice", "forward", "top")],
                None,
            ),
            "/events/0/data/moves/0",
            vec![
                "Alaskan Justice forward (top move)",
                "Alaskan Justice is under Whiskey Princess",
            ],
        ),
        // Seq 8 played round 1's one Mint Julep card (MS is an unflipped top horse).
        (
            card_data(
                1,
                "Cy",
                vec![step("maple-splendor", "forward", "top")],
                Some("maple-splendor"),
            ),
            "/events/0/data/mint_julep",
            vec![
                "Ann already played the Mint Julep card in round 1 (on Whiskey Princess)",
                "shuffled back only at the end of the round",
            ],
        ),
        // A horse that does not run.
        (
            card_data(1, "Cy", vec![step("seabiscuit", "forward", "named")], None),
            "/events/0/data/moves/0/horse",
            vec!["unknown horse \"seabiscuit\"", "you-got-me"],
        ),
    ];

    for (data, pointer, words) in cases {
        let reply = app
            .append(&club, &game, Some(8), vec![event("card_played", data)])
            .await;

        let problem = reply.problem(422);
        assert_eq!(problem["event_index"], 0, "{problem}");
        assert_eq!(problem["pointer"], pointer, "{problem}");
        let detail = problem["detail"].as_str().unwrap();
        for word in words {
            assert!(detail.contains(word), "{word:?} not in {detail:?}");
        }
    }

    // In a batch, the bad second card is named and the good first one is not stored either.
    let batch = vec![
        card(
            1,
            "Bo",
            vec![step("maple-splendor", "forward", "top")],
            None,
        ),
        card(
            1,
            "Cy",
            vec![
                step("maple-splendor", "back", "top"),
                step("maple-splendor", "forward", "top"),
            ],
            None,
        ),
    ];
    let reply = app.append(&club, &game, Some(8), batch).await;
    let problem = reply.problem(422);
    assert_eq!(problem["event_index"], 1);
    assert_eq!(problem["pointer"], "/events/1/data/moves/1");
    assert_eq!(app.version(&club, &game).await, 8);
    let score = app.score(&club, &game).await;
    assert_eq!(
        groups(&score),
        expect_groups(&[
            &[
                "whiskey-princess",
                "newtons-apple",
                "alaskan-justice",
                "you-got-me"
            ],
            &["maple-splendor"]
        ])
    );

    // Round 2: the Mint Julep card is back in the deck, and its horse is checked.
    assert_eq!(send(&app, &club, &game, 8, vec![round_ended(1)]).await, 9);
    let cases: Vec<(Value, Vec<&str>)> = vec![
        // WP was flipped by seq 8's Mint Julep card.
        (
            card_data(
                2,
                "Cy",
                vec![step("whiskey-princess", "back", "top")],
                Some("whiskey-princess"),
            ),
            vec!["Whiskey Princess was already flipped"],
        ),
        // A Mint Julep card on a horse under others.
        (
            card_data(
                2,
                "Cy",
                vec![step("you-got-me", "forward", "named")],
                Some("you-got-me"),
            ),
            vec!["You Got Me is under Whiskey Princess"],
        ),
    ];
    for (data, words) in cases {
        let reply = app
            .append(&club, &game, Some(9), vec![event("card_played", data)])
            .await;

        let problem = reply.problem(422);
        assert_eq!(
            problem["pointer"], "/events/0/data/mint_julep/horse",
            "{problem}"
        );
        let detail = problem["detail"].as_str().unwrap();
        for word in words {
            assert!(detail.contains(word), "{word:?} not in {detail:?}");
        }
    }
}

async fn a_race_move_before_every_round_one_bet_is_refused(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let events = vec![
        bet(1, "Ann", "you-got-me", None),
        bet(1, "Bo", "alaskan-justice", None),
        card(1, "Ann", vec![step("you-got-me", "forward", "named")], None),
    ];

    let reply = app.append(&club, &game, Some(1), events).await;

    let problem = reply.problem(422);
    assert_eq!(problem["event_index"], 2);
    assert!(
        problem["pointer"]
            .as_str()
            .unwrap()
            .starts_with("/events/2"),
        "{problem}"
    );
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("every player must place a bet") && detail.contains("Cy"),
        "{detail}"
    );
    assert_eq!(app.version(&club, &game).await, 1);
}

async fn a_corrected_bet_changes_the_split_and_can_go_negative(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({})).await;
    // Bo's round-2 bet (seq 10) was really on MS, which Cy also backs from round 3.
    let data = json!({"round": 2, "player": "Bo", "horse": "maple-splendor", "replaces": "alaskan-justice"});

    let reply = app
        .append(
            &club,
            &game,
            Some(19),
            vec![event(
                "correct",
                json!({"seq": 10, "data": data, "reason": "it was Maple Splendor"}),
            )],
        )
        .await;

    assert_eq!(reply.status, 201, "{}", reply.body);
    let score = app.score(&club, &game).await;
    // Ann alone on YGM 1st: 2 + 3 − 0 = 5.
    // MS 2nd shared by Bo (round 2) and Cy (round 3): (1 + 2) / 2 = 1, remainder lost →
    // Bo 1 − 1 = 0, Cy 1 − 2 = −1.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 5), ("Bo", 0), ("Cy", -1)])
    );
    assert_eq!(ranks(&score), vec![("Ann", 1), ("Bo", 2), ("Cy", 3)]);
    assert_eq!(score["final"], true);
    assert_eq!(score["version"], 20);
    assert_every_point_is_explained(&score);
    let events = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(events.body["events"][9]["corrected_by"], 20);
    // Before the correction the score was the original one.
    let at_19 = app
        .get(&format!("/v1/games/{game}/score?at=19"), Some(&club.token))
        .await;
    assert_eq!(
        totals(&at_19.body),
        expect_totals(&[("Ann", 2), ("Bo", 1), ("Cy", 1)])
    );
}

async fn a_retracted_card_changes_the_finish(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({})).await;

    let reply = app
        .append(
            &club,
            &game,
            Some(19),
            vec![event(
                "retract",
                json!({"seq": 18, "reason": "Bo never played it"}),
            )],
        )
        .await;

    assert_eq!(reply.status, 201, "{}", reply.body);
    let score = app.score(&club, &game).await;
    // Without seq 18 the race ends `[MS YGM] [AJ NA] [WP]`: MS 1st, YGM 2nd.
    // YGM shared: (2 + 2) / 2 = 2 → Ann 2, Bo 2 − 1 = 1. Cy MS: 1 + 3 − 2 = 2.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 2), ("Bo", 1), ("Cy", 2)])
    );
    assert_eq!(score["winners"], json!(["Ann", "Cy"]));
    assert_eq!(ranks(&score), vec![("Ann", 1), ("Cy", 1), ("Bo", 3)]);
    assert!(score["tiebreak"].is_object(), "{score}");
    assert_eq!(score["final"], true);
    assert_eq!(
        groups(&score),
        expect_groups(&[
            &["maple-splendor", "you-got-me"],
            &["alaskan-justice", "newtons-apple"],
            &["whiskey-princess"]
        ])
    );
    assert_every_point_is_explained(&score);
    let events = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(events.body["events"][17]["retracted_by"], 20);
    // ?at=19 still shows the game as it was before the retraction.
    let at_19 = app
        .get(&format!("/v1/games/{game}/score?at=19"), Some(&club.token))
        .await;
    assert_eq!(
        totals(&at_19.body),
        expect_totals(&[("Ann", 2), ("Bo", 1), ("Cy", 1)])
    );
    assert_eq!(at_19.body["winners"], json!(["Ann"]));
}

async fn a_correction_that_flips_a_horse_twice_is_refused(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({})).await;
    // Seq 8's Mint Julep said to be on NA (top of `[NA AJ YGM]` then, so legal there): seq 16
    // would then play a second Mint Julep on the flipped NA.
    let data = card_data(
        1,
        "Ann",
        vec![step("whiskey-princess", "forward", "top")],
        Some("newtons-apple"),
    );

    let reply = app
        .append(
            &club,
            &game,
            Some(19),
            vec![event("correct", json!({"seq": 8, "data": data}))],
        )
        .await;

    let problem = reply.problem(422);
    assert_eq!(problem["event_index"], 0);
    assert_eq!(problem["pointer"], "/events/0/data/seq");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("event 16") && detail.contains("Newton's Apple was already flipped"),
        "{detail}"
    );
    assert_eq!(app.version(&club, &game).await, 19);
    assert_eq!(
        totals(&app.score(&club, &game).await),
        expect_totals(&[("Ann", 2), ("Bo", 1), ("Cy", 1)])
    );
}

async fn a_correction_with_an_illegal_move_points_into_its_data(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({})).await;
    // Seq 5 as a top move: at the start YGM is at the bottom of the only group.
    let data = card_data(1, "Ann", vec![step("you-got-me", "forward", "top")], None);

    let reply = app
        .append(
            &club,
            &game,
            Some(19),
            vec![event("correct", json!({"seq": 5, "data": data}))],
        )
        .await;

    let problem = reply.problem(422);
    assert_eq!(problem["event_index"], 0);
    assert_eq!(problem["pointer"], "/events/0/data/data/moves/0");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("You Got Me forward (top move)")
            && detail.contains("under Alaskan Justice"),
        "{detail}"
    );
    assert_eq!(app.version(&club, &game).await, 19);
}

async fn setup_errors_name_the_field(app: TestApp) {
    let club = app.new_club().await;
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"game": "mint-julep", "players": five_players()}),
            "/players",
        ),
        (
            json!({"game": "mint-julep", "players": [{"name": "Ann"}]}),
            "/players",
        ),
        (
            json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}], "options": {"split": "evenly"}}),
            "/options/split",
        ),
        (
            json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}], "options": {"splits": "after_penalty"}}),
            "/options/splits",
        ),
    ];

    for (body, pointer) in cases {
        let reply = app.post("/v1/games", Some(&club.token), &body).await;

        let problem = reply.problem(422);
        assert_eq!(problem["pointer"], pointer, "{problem}");
    }

    let five = app
        .post(
            "/v1/games",
            Some(&club.token),
            &json!({"game": "mint-julep", "players": five_players()}),
        )
        .await;
    assert_eq!(
        five.problem(422)["detail"],
        "Mint Julep is played by 2 to 4 players, not 5"
    );
    // Nothing was stored.
    assert_eq!(
        app.get("/v1/games", Some(&club.token)).await.body["games"],
        json!([])
    );
}

fn five_players() -> Vec<Value> {
    ["Ann", "Bo", "Cy", "Di", "Ed"]
        .iter()
        .map(|n| json!({"name": n}))
        .collect()
}

/// The start order, recorded as a round's finish.
fn start_order(round: u32) -> Value {
    event(
        "race_recorded",
        json!({"round": round, "order": ["alaskan-justice", "maple-splendor", "newtons-apple", "whiskey-princess", "you-got-me"]}),
    )
}

/// Rounds 2 and 3 of a 2-player game with one bet each: Bo's new bet on MS names his AJ bet,
/// then every round finishes in the start order (AJ, MS, NA, WP, YGM).
fn bo_names_his_only_bet() -> Vec<Value> {
    vec![
        bet(2, "Bo", "maple-splendor", Some("alaskan-justice")),
        start_order(2),
        round_ended(2),
        start_order(3),
    ]
}

async fn a_two_player_bet_naming_the_only_bet_replaces_it_but_not_in_a_game_stored_before(
    app: TestApp,
) {
    // Arrange: two 2-player games through round 1 (Ann YGM, Bo AJ); the first is made to look
    // as schema version 4 stored it (its effective options are the same as today's).
    let club = app.new_club().await;
    let two = json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}]});
    let round_1 = || {
        vec![
            bet(1, "Ann", "you-got-me", None),
            bet(1, "Bo", "alaskan-justice", None),
            start_order(1),
            round_ended(1),
        ]
    };
    let stored = app.new_game(&club, two.clone()).await;
    send(&app, &club, &stored, 1, round_1()).await;
    execute(
        &app,
        "UPDATE events SET schema_version = 4 WHERE game_id = $1",
        &[&stored],
    )
    .await;
    let today = app.new_game(&club, two).await;
    send(&app, &club, &today, 1, round_1()).await;

    // Act: a server with nothing in memory records Bo's named bet and the rest in both games.
    let app = app.second_server().await;
    send(&app, &club, &stored, 5, bo_names_his_only_bet()).await;
    send(&app, &club, &today, 5, bo_names_his_only_bet()).await;

    // Assert: today the named bet is replaced. Ann YGM 5th: 2 + 0 = 2; Bo MS 2nd, round 2:
    // 1 + 2 − 1 = 2.
    let score = app.score(&club, &today).await;
    assert_eq!(totals(&score), expect_totals(&[("Ann", 2), ("Bo", 2)]));
    assert_eq!(score["winners"], json!(["Ann", "Bo"]));
    // The stored game read "replaces" as version 4 did: Bo's MS bet was added beside AJ.
    // Bo: AJ 1st 0 + 3 = 3, MS 2 → 5.
    let score = app.score(&club, &stored).await;
    assert_eq!(totals(&score), expect_totals(&[("Ann", 2), ("Bo", 5)]));
    assert_eq!(score["winners"], json!(["Bo"]));
    assert_every_point_is_explained(&score);
    let log = app
        .get(&format!("/v1/games/{stored}/events"), Some(&club.token))
        .await;
    let versions: Vec<i64> = log.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["schema_version"].as_i64().unwrap())
        .collect();
    let today = SCHEMA_VERSION;
    assert_eq!(versions, [4, 4, 4, 4, 4, today, today, today, today]);
}
