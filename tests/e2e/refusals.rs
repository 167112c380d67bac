//! Refused requests in players' words: the field (`pointer` into the body, `parameter` of the
//! query or path), what it must be, and what was sent. Given a club and a game, when a request
//! is malformed, then this exact problem.

use serde_json::{Value, json};

use crate::helpers::{TestApp, TestClub};
use crate::on_both_backends;

on_both_backends!(
    a_version_sent_as_text_is_refused_as_a_whole_number_is_expected,
    an_event_without_a_type_names_the_missing_field,
    a_player_given_as_plain_text_is_refused_as_an_object_is_expected,
    an_unknown_field_lists_the_fields_there_are,
    a_game_id_in_the_path_that_is_not_an_id_is_named,
    a_score_at_a_seq_that_is_not_a_number_is_named,
    an_unknown_leaderboard_sort_lists_the_sorts,
    a_limit_out_of_range_says_the_range,
    a_made_up_cursor_is_refused_in_words,
    json_with_a_syntax_error_says_where,
    an_unknown_status_filter_lists_the_statuses,
    an_unknown_game_filter_is_a_typo_not_an_empty_list,
    an_if_match_that_is_not_a_version_is_named,
    the_club_feed_names_a_limit_or_after_out_of_range,
    a_stream_with_an_unknown_parameter_lists_the_parameters,
    a_game_stream_resuming_from_text_is_named,
    an_unknown_game_among_presets_is_named_as_the_parameter,
    a_body_that_is_not_an_object_is_refused_and_changes_nothing,
    a_body_naming_a_player_twice_is_refused_and_changes_nothing,
    totals_too_large_to_add_up_are_refused_and_the_server_writes_on,
);

async fn two_player_game(app: &TestApp, club: &TestClub) -> String {
    app.new_game(
        club,
        json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
    )
    .await
}

/// The problem's detail, pointer and parameter.
fn words(problem: &Value) -> (&str, &Value, &Value) {
    (
        problem["detail"].as_str().expect("a detail"),
        &problem["pointer"],
        &problem["parameter"],
    )
}

async fn a_version_sent_as_text_is_refused_as_a_whole_number_is_expected(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;

    let reply = app
        .post(
            &format!("/v1/games/{game}/events"),
            Some(&club.token),
            &json!({"expected_version": "1", "events": [{"type": "abandon"}]}),
        )
        .await;

    assert_eq!(
        words(reply.problem(422)),
        (
            "\"expected_version\" must be a whole number, like 3; got the text \"1\"",
            &json!("/expected_version"),
            &Value::Null
        )
    );
}

async fn an_event_without_a_type_names_the_missing_field(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;

    let reply = app
        .post(
            &format!("/v1/games/{game}/events"),
            Some(&club.token),
            &json!({"events": [{"type": "abandon"}, {"data": {}}]}),
        )
        .await;

    assert_eq!(
        words(reply.problem(422)),
        (
            "\"type\" is missing",
            &json!("/events/1/type"),
            &Value::Null
        )
    );
}

async fn a_player_given_as_plain_text_is_refused_as_an_object_is_expected(app: TestApp) {
    let club = app.new_club().await;

    let reply = app
        .post(
            "/v1/games",
            Some(&club.token),
            &json!({"game": "mint-condition", "players": ["Ann", {"name": "Bo"}]}),
        )
        .await;

    assert_eq!(
        words(reply.problem(422)),
        (
            "\"players\" must be an object in curly braces, like { … }; got the text \"Ann\"",
            &json!("/players/0"),
            &Value::Null
        )
    );
}

async fn an_unknown_field_lists_the_fields_there_are(app: TestApp) {
    let reply = app.post("/v1/clubs", None, &json!({"nam": "x"})).await;

    assert_eq!(
        words(reply.problem(422)),
        (
            "\"nam\" is not a field here; the fields are \"name\"",
            &json!("/nam"),
            &Value::Null
        )
    );
}

async fn a_game_id_in_the_path_that_is_not_an_id_is_named(app: TestApp) {
    let club = app.new_club().await;

    let reply = app.get("/v1/games/nope/score", Some(&club.token)).await;

    assert_eq!(
        words(reply.problem(400)),
        (
            "\"id\" in the path must be a game id, a UUID like \
             6f1c2a4e-3b5d-4c7e-9f10-2a3b4c5d6e7f; got \"nope\"",
            &Value::Null,
            &json!("id")
        )
    );
}

async fn a_score_at_a_seq_that_is_not_a_number_is_named(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;

    let reply = app
        .get(&format!("/v1/games/{game}/score?at=abc"), Some(&club.token))
        .await;

    assert_eq!(
        words(reply.problem(400)),
        (
            "\"at\" must be a whole number, like 3; got \"abc\"",
            &Value::Null,
            &json!("at")
        )
    );
}

async fn an_unknown_leaderboard_sort_lists_the_sorts(app: TestApp) {
    let club = app.new_club().await;

    let reply = app
        .get("/v1/stats/leaderboard?sort=best", Some(&club.token))
        .await;

    assert_eq!(
        words(reply.problem(400)),
        (
            "\"sort\" must be one of \"win_rate\", \"wins\" or \"average_score\"; got \"best\"",
            &Value::Null,
            &json!("sort")
        )
    );
}

async fn a_limit_out_of_range_says_the_range(app: TestApp) {
    let club = app.new_club().await;

    let zero = app.get("/v1/games?limit=0", Some(&club.token)).await;
    let lots = app.get("/v1/games?limit=lots", Some(&club.token)).await;

    assert_eq!(
        words(zero.problem(400)),
        (
            "\"limit\" must be a whole number from 1 to 200; got 0",
            &Value::Null,
            &json!("limit")
        )
    );
    assert_eq!(
        words(lots.problem(400)),
        (
            "\"limit\" must be a whole number, like 3; got \"lots\"",
            &Value::Null,
            &json!("limit")
        )
    );
}

async fn a_made_up_cursor_is_refused_in_words(app: TestApp) {
    let club = app.new_club().await;

    let reply = app.get("/v1/games?cursor=page2", Some(&club.token)).await;

    assert_eq!(
        words(reply.problem(400)),
        (
            "\"cursor\" must be the next_cursor of the previous page, exactly as this server \
             gave it out",
            &Value::Null,
            &json!("cursor")
        )
    );
}

async fn json_with_a_syntax_error_says_where(app: TestApp) {
    let reply = app
        .post_raw(
            "/v1/clubs",
            None,
            "application/json",
            b"{\"name\": \"Friday\",}".to_vec(),
        )
        .await;

    assert_eq!(
        words(reply.problem(400)),
        (
            "the body is not valid JSON: trailing comma (line 1, column 19)",
            &json!(""),
            &Value::Null
        )
    );
}

async fn an_unknown_status_filter_lists_the_statuses(app: TestApp) {
    let club = app.new_club().await;

    let reply = app.get("/v1/games?status=paused", Some(&club.token)).await;

    assert_eq!(
        words(reply.problem(400)),
        (
            "\"status\" must be one of \"in_progress\", \"finished\" or \"abandoned\"; got \"paused\"",
            &Value::Null,
            &json!("status")
        )
    );
}

async fn an_unknown_game_filter_is_a_typo_not_an_empty_list(app: TestApp) {
    let club = app.new_club().await;

    let reply = app
        .get("/v1/games?game=mint-conditon", Some(&club.token))
        .await;

    assert_eq!(
        words(reply.problem(400)),
        (
            "unknown game \"mint-conditon\"; games are mint-condition, mind-up, mint-julep, vintage",
            &Value::Null,
            &json!("game")
        )
    );
}

async fn an_if_match_that_is_not_a_version_is_named(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;

    let reply = app
        .client
        .post(app.url(&format!("/v1/games/{game}/events")))
        .bearer_auth(&club.token)
        .header("If-Match", "latest")
        .json(&json!({"events": [{"type": "abandon"}]}))
        .send()
        .await
        .unwrap();

    assert_eq!(reply.status(), 400);
    let problem: Value = reply.json().await.unwrap();
    assert_eq!(
        words(&problem),
        (
            "If-Match must be a game version such as \"3\", or the game's ETag, got \"latest\"",
            &Value::Null,
            &json!("If-Match")
        )
    );
}

async fn the_club_feed_names_a_limit_or_after_out_of_range(app: TestApp) {
    let club = app.new_club().await;

    let zero = app.get("/v1/events?limit=0", Some(&club.token)).await;
    let behind = app.get("/v1/events?after=-1", Some(&club.token)).await;
    let lots = app.get("/v1/events?limit=lots", Some(&club.token)).await;

    assert_eq!(
        words(zero.problem(400)),
        (
            "\"limit\" must be a whole number from 1 to 1000; got 0",
            &Value::Null,
            &json!("limit")
        )
    );
    assert_eq!(
        words(behind.problem(400)),
        (
            "\"after\" must be a whole number, 0 or more; got -1",
            &Value::Null,
            &json!("after")
        )
    );
    assert_eq!(
        words(lots.problem(400)),
        (
            "\"limit\" must be a whole number, like 3; got \"lots\"",
            &Value::Null,
            &json!("limit")
        )
    );
}

async fn a_stream_with_an_unknown_parameter_lists_the_parameters(app: TestApp) {
    let club = app.new_club().await;

    let reply = app.get("/v1/stream?last_id=3", Some(&club.token)).await;

    assert_eq!(
        words(reply.problem(400)),
        (
            "\"last_id\" is not a query parameter here; the parameters are \"last_event_id\", \
             \"access_token\", \"lang\"",
            &Value::Null,
            &json!("last_id")
        )
    );
}

async fn a_game_stream_resuming_from_text_is_named(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;

    let reply = app
        .get(
            &format!("/v1/games/{game}/stream?last_event_id=two"),
            Some(&club.token),
        )
        .await;

    assert_eq!(
        words(reply.problem(400)),
        (
            "\"last_event_id\" must be a whole number, like 3; got \"two\"",
            &Value::Null,
            &json!("last_event_id")
        )
    );
}

async fn an_unknown_game_among_presets_is_named_as_the_parameter(app: TestApp) {
    let club = app.new_club().await;

    let reply = app.get("/v1/presets?game=chess", Some(&club.token)).await;

    assert_eq!(
        words(reply.problem(400)),
        (
            "unknown game \"chess\"; tabletally keeps score for mint-condition, mind-up, \
             mint-julep, vintage",
            &Value::Null,
            &json!("game")
        )
    );
}

async fn a_body_that_is_not_an_object_is_refused_and_changes_nothing(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;

    // A share link's body has only optional fields: serde alone would read `[]` as "all
    // defaults" and create one.
    let share = app
        .post(
            &format!("/v1/games/{game}/shares"),
            Some(&club.token),
            &json!([]),
        )
        .await;
    let token = app
        .post("/v1/tokens", Some(&club.token), &json!("phone"))
        .await;

    assert_eq!(
        words(share.problem(422)),
        (
            "the body must be a JSON object ({…}); got a list",
            &json!(""),
            &Value::Null
        )
    );
    assert_eq!(
        words(token.problem(422)),
        (
            "the body must be a JSON object ({…}); got a text",
            &json!(""),
            &Value::Null
        )
    );
    let tokens = app.get("/v1/tokens", Some(&club.token)).await;
    assert_eq!(tokens.body["tokens"], json!([]), "no token was issued");
}

async fn a_body_naming_a_player_twice_is_refused_and_changes_nothing(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    // JSON readers keep only the last of two equal keys: Ann's first collection would vanish
    // and the round would pass "every player appears once".
    let body = r#"{"expected_version": 1, "events": [{"type": "round_collected", "data":
        {"round": 1, "collections": {"Ann": ["fine-wine"], "Ann": ["memories"], "Bo": []}}}]}"#;

    let reply = app
        .post_raw(
            &format!("/v1/games/{game}/events"),
            Some(&club.token),
            "application/json",
            body.as_bytes().to_vec(),
        )
        .await;

    let detail = reply.problem(422)["detail"].as_str().expect("a detail");
    assert!(
        detail.contains(r#""Ann" appears twice in one object; each key may appear once"#),
        "{detail}"
    );
    let events = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(events.body["version"], 1, "nothing was stored");
}

/// Totals near the integers' limit once stopped the SQLite writer (an overflow adding them up):
/// now they are refused like any bad value, and the next write goes through.
async fn totals_too_large_to_add_up_are_refused_and_the_server_writes_on(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    let huge = json!({"events": [{"type": "result_recorded", "data": {
        "totals": {"Ann": 4_611_686_018_427_387_904_i64, "Bo": 4_611_686_018_427_387_904_i64},
        "winners": ["Bo"], "source": "typed in"}}]});

    let refused = app
        .post(
            &format!("/v1/games/{game}/events"),
            Some(&club.token),
            &huge,
        )
        .await;

    let problem = refused.problem(422);
    assert_eq!(problem["pointer"], "/events/0/data/totals/Ann");
    let fine = json!({"events": [{"type": "result_recorded", "data": {
        "totals": {"Ann": 31, "Bo": 24}, "winners": ["Ann"], "source": "typed in"}}]});
    let after = app
        .post(
            &format!("/v1/games/{game}/events"),
            Some(&club.token),
            &fine,
        )
        .await;
    assert_eq!(after.status, 201, "{}", after.body);
}
