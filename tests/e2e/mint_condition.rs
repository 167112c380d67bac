//! A whole Mint Condition game over HTTP, per variant, with totals computed by hand from the
//! rules (shared/rules/mint-condition.md).

use serde_json::{Value, json};
use sqlx::Connection;
use tabletally_api::store::SCHEMA_VERSION;

use crate::helpers::{
    Backend, TestApp, TestClub, assert_every_point_is_explained, event, expect_totals,
    round_points, totals,
};
use crate::on_both_backends;

/// Ann, Bo and Cy; 3 players → 9 cards each per round.
pub(crate) fn new_game(options: Value) -> Value {
    json!({
        "game": "mint-condition",
        "players": [{"name": "Ann", "color": "red"}, {"name": "Bo", "color": "blue"}, {"name": "Cy", "color": "green"}],
        "options": options,
        "started_at": "2026-11-30T19:00:00Z"
    })
}

/// Round 1. Be Careful! 2 / 3 / 0 → Ann 3, Bo 0, Cy 5.
/// Ann: Animal Kingdom ×3 → 6, Autographed ×2 → 5, Fine Wine ×1 → 2, Memories ×1 → 7 = 20 (+3 = 23)
/// Bo: Heavy Rotation ×3 → 5, Legacy Edition → 4, Lost Pieces → 3, Snack Fingers ×1 → 0 = 12 (+0 = 12)
/// Cy: Memories ×3 → 0, Fine Wine ×2 → 4, Autographed ×3 → 5, Animal Kingdom ×1 → 0 = 9 (+5 = 14)
/// Lucky symbols: Ann's Fine Wine red, Ann's Memories rainbow, Bo's Legacy Edition red (not his),
/// Cy's Animal Kingdom green.
pub(crate) fn round_1() -> Value {
    json!({"round": 1, "collections": {
        "Ann": ["animal-kingdom", "animal-kingdom", "animal-kingdom", "autographed", "autographed",
                "be-careful", "be-careful", {"card": "fine-wine", "symbol": "red"}, {"card": "memories", "symbol": "rainbow"}],
        "Bo": ["be-careful", "be-careful", "be-careful", "heavy-rotation", "heavy-rotation", "heavy-rotation",
               {"card": "legacy-edition", "symbol": "red"}, "lost-pieces", "snack-fingers"],
        "Cy": ["memories", "memories", "memories", "fine-wine", "fine-wine", "autographed", "autographed",
               "autographed", {"card": "animal-kingdom", "symbol": "green"}]
    }})
}

/// Round 2. Be Careful! 1 / 1 / 4 → Ann 3, Bo 3, Cy 0.
/// Ann: Heavy Rotation ×5 → 1, Legacy Edition → 4, Snack Fingers ×2 → 3 = 8 (+3 = 11)
/// Bo: Animal Kingdom ×6 → 12, Memories ×2 → 7 = 19 (+3 = 22)
/// Cy: Autographed ×4 → 10, Fine Wine → 2 = 12 (+0 = 12)
/// Lucky symbols: Cy's Fine Wine green, Bo's Be Careful! blue.
pub(crate) fn round_2() -> Value {
    json!({"round": 2, "collections": {
        "Ann": ["heavy-rotation", "heavy-rotation", "heavy-rotation", "heavy-rotation", "heavy-rotation",
                "be-careful", "legacy-edition", "snack-fingers", "snack-fingers"],
        "Bo": ["animal-kingdom", "animal-kingdom", "animal-kingdom", "animal-kingdom", "animal-kingdom",
               "animal-kingdom", "memories", "memories", {"card": "be-careful", "symbol": "blue"}],
        "Cy": ["be-careful", "be-careful", "be-careful", "be-careful", "autographed", "autographed",
               "autographed", "autographed", {"card": "fine-wine", "symbol": "green"}]
    }})
}

/// Round 3. Be Careful! 1 / 1 / 2 → Ann 3, Bo 3, Cy 0.
/// Ann: Legacy Edition ×2 → 8, Lost Pieces ×2 → 6, Memories ×4 → 0 (memories_over_three free) = 14 (+3 = 17)
/// Bo: Heavy Rotation ×4 → 0, Fine Wine ×2 → 4, Sleeve Me Up! → 0, protected Legacy Edition → 0 = 4 (+3 = 7)
/// Cy: Animal Kingdom ×2 → 0, Heavy Rotation ×3 → 5, Snack Fingers ×1 → 0, Memories ×1 → 7 = 12 (+0 = 12)
/// Lucky symbols: Bo's protected Legacy Edition blue, one of Ann's Memories red.
pub(crate) fn round_3() -> Value {
    json!({"round": 3, "collections": {
        "Ann": ["legacy-edition", "legacy-edition", "lost-pieces", "lost-pieces", "memories", "memories",
                "memories", {"card": "memories", "symbol": "red"}, "be-careful"],
        "Bo": ["heavy-rotation", "heavy-rotation", "heavy-rotation", "heavy-rotation", "fine-wine", "fine-wine",
               "be-careful", "sleeve-me-up", {"card": "legacy-edition", "symbol": "blue", "protected": true}],
        "Cy": ["animal-kingdom", "animal-kingdom", "heavy-rotation", "heavy-rotation", "heavy-rotation",
               "snack-fingers", "be-careful", "be-careful", "memories"]
    }})
}

/// Round 3 with Bo's Sleeve Me Up! protecting his only Be Careful! instead of his Legacy
/// Edition. Bo: Heavy Rotation ×4 → 0, Fine Wine ×2 → 4, Legacy Edition → 4 = 8.
/// Be Careful! counted 1 / 1 / 2 → Ann 3, Bo 3, Cy 0, as in round 3: Bo 8 + 3 = 11.
/// With the protected one left out, 1 / 0 / 2 → Bo holds none → 5: Bo 8 + 5 = 13.
fn round_3_bo_protects_his_be_careful() -> Value {
    let mut round = round_3();
    round["collections"]["Bo"][6] = json!({"card": "be-careful", "protected": true});
    round["collections"]["Bo"][8] = json!({"card": "legacy-edition", "symbol": "blue"});
    round
}

/// Plays the three rounds one request each, checking versions; returns the game id.
async fn play(app: &TestApp, club: &TestClub, options: Value) -> String {
    let game = app.new_game(club, new_game(options)).await;
    play_rounds(app, club, &game, [round_1(), round_2(), round_3()]).await;
    game
}

/// Records `rounds` one request each in a new game, checking versions.
async fn play_rounds(app: &TestApp, club: &TestClub, game: &str, rounds: [Value; 3]) {
    for (i, round) in rounds.into_iter().enumerate() {
        let version = i as i64 + 1;
        let reply = app
            .append(
                club,
                game,
                Some(version),
                vec![event("round_collected", round)],
            )
            .await;
        assert_eq!(reply.status, 201, "{}", reply.body);
        assert_eq!(reply.body["version"], version + 1);
        assert_eq!(reply.body["events"][0]["seq"], version + 1);
    }
}

on_both_backends!(
    a_standard_game_is_won_by_the_lowest_damage,
    a_heavily_used_game_is_won_by_the_highest_damage,
    a_house_rule_changes_the_score_and_is_listed,
    a_lucky_game_deducts_cards_of_each_players_colour,
    lucky_and_heavily_used_combine,
    a_retracted_round_stops_counting_and_can_be_recorded_again,
    round_one_corrected_after_round_three_changes_the_score,
    a_correction_that_breaks_a_deck_limit_is_refused,
    the_score_at_an_earlier_seq_replays_only_that_far,
    a_protected_be_careful_counts_toward_the_majority_by_default,
    with_protected_be_careful_ignored_a_protected_one_is_left_out_of_the_majority,
    a_game_stored_before_protected_be_careful_keeps_its_old_score,
);

async fn a_standard_game_is_won_by_the_lowest_damage(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({})).await;

    let score = app.score(&club, &game).await;

    // Ann 23 + 11 + 17 = 51, Bo 12 + 22 + 7 = 41, Cy 14 + 12 + 12 = 38.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 51), ("Bo", 41), ("Cy", 38)])
    );
    assert_eq!(round_points(&score, "Ann"), vec![23, 11, 17]);
    assert_eq!(round_points(&score, "Bo"), vec![12, 22, 7]);
    assert_eq!(round_points(&score, "Cy"), vec![14, 12, 12]);
    assert_eq!(score["winners"], json!(["Cy"]));
    assert_eq!(score["final"], true);
    assert_eq!(score["status"], "finished");
    assert_eq!(score["lower_wins"], true);
    assert_eq!(score["version"], 4);
    assert_eq!(score["tiebreak"], Value::Null);
    let ranks: Vec<(&str, i64)> = score["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["rank"].as_i64().unwrap()))
        .collect();
    assert_eq!(ranks, vec![("Cy", 1), ("Bo", 2), ("Ann", 3)]);
    assert_every_point_is_explained(&score);
    // Played by the book: no house rule differs, but every house-rule point is shown.
    assert_eq!(score["house_rules"], json!([]));
    let points: Vec<&str> = score["house_rule_points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["option"].as_str().unwrap())
        .collect();
    assert_eq!(
        points,
        vec![
            "be_careful_when_none",
            "memories_over_three",
            "sleeve_protects",
            "protected_be_careful",
            "smoking_kills",
            "tiebreak_scope"
        ]
    );
    // The summary agrees.
    let summary = app
        .get(&format!("/v1/games/{game}"), Some(&club.token))
        .await;
    assert_eq!(summary.body["status"], "finished");
    assert_eq!(summary.body["version"], 4);
}

async fn a_heavily_used_game_is_won_by_the_highest_damage(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({"heavily_used": true})).await;

    let score = app.score(&club, &game).await;

    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 51), ("Bo", 41), ("Cy", 38)])
    );
    assert_eq!(score["winners"], json!(["Ann"]));
    assert_eq!(score["lower_wins"], false);
    assert_every_point_is_explained(&score);
}

async fn a_lucky_game_deducts_cards_of_each_players_colour(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({"lucky": true})).await;

    let score = app.score(&club, &game).await;

    // Ann (red): Fine Wine red, Memories rainbow, Memories red → −3: 51 − 3 = 48.
    // Bo (blue): Be Careful! blue, protected Legacy Edition blue → −2: 41 − 2 = 39.
    // Cy (green): Animal Kingdom green, Fine Wine green → −2: 38 − 2 = 36.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 48), ("Bo", 39), ("Cy", 36)])
    );
    assert_eq!(score["winners"], json!(["Cy"]));
    let ann = score["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Ann")
        .unwrap();
    assert_eq!(ann["adjustments"][0]["label"], "Lucky");
    assert_eq!(ann["adjustments"][0]["points"], -3);
    assert_every_point_is_explained(&score);
}

async fn lucky_and_heavily_used_combine(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({"lucky": true, "heavily_used": true})).await;

    let score = app.score(&club, &game).await;

    // The deduction still applies, and now hurts: Ann 48 is still the highest.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 48), ("Bo", 39), ("Cy", 36)])
    );
    assert_eq!(score["winners"], json!(["Ann"]));
    assert_eq!(score["lower_wins"], false);
}

async fn a_retracted_round_stops_counting_and_can_be_recorded_again(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({})).await;

    let reply = app
        .append(
            &club,
            &game,
            Some(4),
            vec![event("retract", json!({"seq": 4, "reason": "typo"}))],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);

    // Rounds 1 and 2 only: Ann 23 + 11 = 34, Bo 12 + 22 = 34, Cy 14 + 12 = 26.
    let score = app.score(&club, &game).await;
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 34), ("Bo", 34), ("Cy", 26)])
    );
    assert_eq!(score["status"], "in_progress");
    assert_eq!(score["final"], false);
    let events = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(events.body["events"][3]["retracted_by"], 5);

    // Round 3 again, as event 6: the game is finished with the same totals as before.
    let reply = app
        .append(
            &club,
            &game,
            Some(5),
            vec![event("round_collected", round_3())],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    let score = app.score(&club, &game).await;
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 51), ("Bo", 41), ("Cy", 38)])
    );
    assert_eq!(score["final"], true);
}

async fn round_one_corrected_after_round_three_changes_the_score(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({})).await;
    // Ann's round-1 Memories was really a Snack Fingers: Memories ×0 → 0, Snack Fingers ×1 → 0,
    // so round 1 drops by 7 to 16 and her total to 44.
    let mut corrected = round_1();
    corrected["collections"]["Ann"][8] = json!("snack-fingers");

    let reply = app
        .append(
            &club,
            &game,
            Some(4),
            vec![event(
                "correct",
                json!({"seq": 2, "data": corrected, "reason": "it was Snack Fingers"}),
            )],
        )
        .await;

    assert_eq!(reply.status, 201, "{}", reply.body);
    let score = app.score(&club, &game).await;
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 44), ("Bo", 41), ("Cy", 38)])
    );
    assert_eq!(round_points(&score, "Ann"), vec![16, 11, 17]);
    assert_eq!(score["final"], true);
    let events = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(events.body["events"][1]["corrected_by"], 5);
}

async fn a_correction_that_breaks_a_deck_limit_is_refused(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({})).await;
    // A seventh Fine Wine in round 1: the box holds only 6.
    let mut corrected = round_1();
    corrected["collections"]["Ann"][8] = json!("fine-wine");

    let reply = app
        .append(
            &club,
            &game,
            Some(4),
            vec![event("correct", json!({"seq": 2, "data": corrected}))],
        )
        .await;

    let problem = reply.problem(422);
    assert_eq!(problem["event_index"], 0);
    assert!(
        problem["detail"].as_str().unwrap().contains("Fine Wine"),
        "{problem}"
    );
    let score = app.score(&club, &game).await;
    assert_eq!(score["version"], 4);
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 51), ("Bo", 41), ("Cy", 38)])
    );
}

async fn the_score_at_an_earlier_seq_replays_only_that_far(app: TestApp) {
    let club = app.new_club().await;
    let game = play(&app, &club, json!({})).await;

    let at_3 = app
        .get(&format!("/v1/games/{game}/score?at=3"), Some(&club.token))
        .await;
    let at_1 = app
        .get(&format!("/v1/games/{game}/score?at=1"), Some(&club.token))
        .await;
    let at_9 = app
        .get(&format!("/v1/games/{game}/score?at=9"), Some(&club.token))
        .await;

    assert_eq!(at_3.status, 200, "{}", at_3.body);
    assert_eq!(at_3.body["version"], 3);
    assert_eq!(at_3.body["final"], false);
    assert_eq!(
        totals(&at_3.body),
        expect_totals(&[("Ann", 34), ("Bo", 34), ("Cy", 26)])
    );
    assert_eq!(
        totals(&at_1.body),
        expect_totals(&[("Ann", 0), ("Bo", 0), ("Cy", 0)])
    );
    let beyond = at_9.problem(422);
    assert_eq!(beyond["parameter"], "at", "{beyond}");
    // Below 1 is not a seq at all, as the schema's minimum says: 400, naming the parameter.
    let at_0 = app
        .get(&format!("/v1/games/{game}/score?at=0"), Some(&club.token))
        .await;
    let unreadable = at_0.problem(400);
    assert_eq!(unreadable["parameter"], "at", "{unreadable}");
    assert_eq!(
        unreadable["detail"],
        "at must be a seq from 1 to 4 (the game's version), got 0"
    );
}

async fn a_house_rule_changes_the_score_and_is_listed(app: TestApp) {
    let club = app.new_club().await;
    let game = play(
        &app,
        &club,
        json!({"memories_over_three": "multiples_of_three"}),
    )
    .await;

    let score = app.score(&club, &game).await;

    // Ann's 4 Memories in round 3 are not a multiple of 3 → 7 instead of 0: 17 + 7 = 24,
    // total 51 + 7 = 58. Nobody else holds 4 or more.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 58), ("Bo", 41), ("Cy", 38)])
    );
    assert_eq!(round_points(&score, "Ann"), vec![23, 11, 24]);
    assert_eq!(score["house_rules"].as_array().unwrap().len(), 1);
    assert_eq!(score["house_rules"][0]["option"], "memories_over_three");
    assert_eq!(score["house_rules"][0]["value"], "multiples_of_three");
    assert_eq!(score["house_rules"][0]["default"], false);
    assert_every_point_is_explained(&score);
}

/// The house-rule point `option` of a score: its value and whether that is the default.
fn house_rule_point(score: &Value, option: &str) -> (Value, Value) {
    let point = score["house_rule_points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["option"] == option)
        .unwrap_or_else(|| panic!("{option} is not among the house-rule points: {score}"));
    (point["value"].clone(), point["default"].clone())
}

async fn a_protected_be_careful_counts_toward_the_majority_by_default(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    play_rounds(
        &app,
        &club,
        &game,
        [round_1(), round_2(), round_3_bo_protects_his_be_careful()],
    )
    .await;

    let score = app.score(&club, &game).await;

    // Bo's protected Be Careful! still counts: 12 + 22 + 11 = 45.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 51), ("Bo", 45), ("Cy", 38)])
    );
    assert_eq!(round_points(&score, "Bo"), vec![12, 22, 11]);
    assert_eq!(
        house_rule_point(&score, "protected_be_careful"),
        (json!("counts"), json!(true))
    );
    assert_eq!(score["house_rules"], json!([]));
    assert_every_point_is_explained(&score);
    // Every event is written at today's schema version, game_started with the option.
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    let events = log.body["events"].as_array().unwrap();
    assert_eq!(events.len(), 4);
    assert!(
        events.iter().all(|e| e["schema_version"] == SCHEMA_VERSION),
        "{events:?}"
    );
    assert_eq!(
        events[0]["data"]["options"]["protected_be_careful"],
        "counts"
    );
}

async fn with_protected_be_careful_ignored_a_protected_one_is_left_out_of_the_majority(
    app: TestApp,
) {
    let club = app.new_club().await;
    let game = app
        .new_game(&club, new_game(json!({"protected_be_careful": "ignored"})))
        .await;
    play_rounds(
        &app,
        &club,
        &game,
        [round_1(), round_2(), round_3_bo_protects_his_be_careful()],
    )
    .await;

    let score = app.score(&club, &game).await;

    // Bo is treated as holding none in round 3: 12 + 22 + 13 = 47.
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 51), ("Bo", 47), ("Cy", 38)])
    );
    assert_eq!(round_points(&score, "Bo"), vec![12, 22, 13]);
    assert_eq!(score["house_rules"].as_array().unwrap().len(), 1);
    assert_eq!(score["house_rules"][0]["option"], "protected_be_careful");
    assert_eq!(score["house_rules"][0]["value"], "ignored");
    assert_eq!(score["house_rules"][0]["default"], false);
    assert_every_point_is_explained(&score);
}

/// Runs one statement on the server's database (`$1`, `$2` … bound to `binds`).
pub(crate) async fn execute(app: &TestApp, sql: &'static str, binds: &[&str]) {
    match app.backend {
        Backend::Sqlite => {
            let mut conn = sqlx::SqliteConnection::connect(&app.database_url)
                .await
                .expect("a second connection to the server's database");
            let mut query = sqlx::query(sql);
            for bind in binds {
                query = query.bind(*bind);
            }
            query.execute(&mut conn).await.expect("the statement runs");
        }
        Backend::Postgres => {
            let mut conn = sqlx::PgConnection::connect(&app.database_url)
                .await
                .expect("a second connection to the server's database");
            let mut query = sqlx::query(sql);
            for bind in binds {
                query = query.bind(*bind);
            }
            query.execute(&mut conn).await.expect("the statement runs");
        }
    }
}

async fn a_game_stored_before_protected_be_careful_keeps_its_old_score(app: TestApp) {
    // Arrange: a game whose game_started is what the server stored at schema version 1 — the
    // effective options of that time, without protected_be_careful.
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    let mut started = log.body["events"][0]["data"].clone();
    started["options"]
        .as_object_mut()
        .unwrap()
        .remove("protected_be_careful");
    assert_eq!(
        started["options"],
        json!({"lucky": false, "heavily_used": false, "expert_cards": false,
               "strict_counts": true, "be_careful_when_none": "five",
               "memories_over_three": "free", "sleeve_protects": 1,
               "smoking_kills": null, "tiebreak_scope": "game"})
    );
    execute(
        &app,
        "UPDATE events SET schema_version = 1, data = $1 WHERE game_id = $2 AND seq = 1",
        &[&started.to_string(), &game],
    )
    .await;
    execute(
        &app,
        "UPDATE games SET options = $1 WHERE id = $2",
        &[&started["options"].to_string(), &game],
    )
    .await;

    // Act: its rounds are recorded by today's server — a process started on the upgraded
    // database, so nothing of the game is in its memory (its state cache starts empty).
    let app = app.second_server().await;
    play_rounds(
        &app,
        &club,
        &game,
        [round_1(), round_2(), round_3_bo_protects_his_be_careful()],
    )
    .await;
    let score = app.score(&club, &game).await;

    // Assert: scored as then, Bo's protected Be Careful! left out: 12 + 22 + 13 = 47.
    let old_totals = expect_totals(&[("Ann", 51), ("Bo", 47), ("Cy", 38)]);
    assert_eq!(totals(&score), old_totals);
    assert_eq!(
        house_rule_point(&score, "protected_be_careful"),
        (json!("ignored"), json!(false))
    );
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    let versions: Vec<&Value> = log.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["schema_version"])
        .collect();
    let today = json!(SCHEMA_VERSION);
    assert_eq!(versions, [&json!(1), &today, &today, &today]);

    // And a game stored whole before the change scores the same.
    execute(
        &app,
        "UPDATE events SET schema_version = 1 WHERE game_id = $1",
        &[&game],
    )
    .await;
    let score = app.second_server().await.score(&club, &game).await;
    assert_eq!(totals(&score), old_totals);
}
