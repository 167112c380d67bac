//! What the OpenAPI document promises, the server keeps: values the document calls valid are
//! accepted, and values it calls invalid are refused with problem+json naming the parameter
//! (found by `scripts/fuzz.sh --strict`, which sends both kinds).

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::helpers::{TestApp, event};
use crate::live::EventStream;
use crate::mint_condition::{new_game, round_1};
use crate::on_both_backends;

on_both_backends!(
    a_share_link_lives_a_whole_number_of_hours_written_either_way,
    a_last_event_id_is_digits_by_header_and_by_query,
    an_if_match_version_past_64_bits_is_stale_not_malformed,
    a_cursor_is_hexadecimal_digits_only,
);

async fn a_share_link_lives_a_whole_number_of_hours_written_either_way(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let path = format!("/v1/games/{game}/shares");
    let share = async |hours: serde_json::Value| {
        app.post(
            &path,
            Some(&club.token),
            &json!({ "expires_in_hours": hours }),
        )
        .await
    };

    // 25.0 is an integer to JSON Schema, so to the document.
    let whole = share(json!(25.0)).await;
    let half = share(json!(24.5)).await;
    let text = share(json!("25")).await;

    assert_eq!(whole.status, 201, "{}", whole.body);
    let expires: DateTime<Utc> = whole.body["expires_at"].as_str().unwrap().parse().unwrap();
    let hours = (expires - Utc::now()).num_minutes() as f64 / 60.0;
    assert!((24.9..=25.0).contains(&hours), "{hours} hours");
    let problem = half.problem(422);
    assert_eq!(problem["pointer"], "/expires_in_hours");
    assert_eq!(
        problem["detail"],
        "\"expires_in_hours\" must be a whole number, like 3; got the number 24.5"
    );
    assert_eq!(
        text.problem(422)["detail"],
        "\"expires_in_hours\" must be a whole number, like 3; got the text \"25\""
    );
}

async fn a_last_event_id_is_digits_by_header_and_by_query(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let path = format!("/v1/games/{game}/stream");
    let with_header = |value: &'static str| {
        app.client
            .get(app.url(&path))
            .bearer_auth(&club.token)
            .header("last-event-id", value)
            .send()
    };

    // A sign is no digit (Rust's own number parser would have read "+1" as 1).
    let signed = with_header("+1").await.unwrap();
    let by_query = app
        .get(&format!("{path}?last_event_id=-1"), Some(&club.token))
        .await;
    // Digits past what 64 bits hold are simply ahead of the game: a snapshot, as for 9.
    let mut far_ahead = EventStream::open(
        &app,
        &format!("{path}?last_event_id=99999999999999999999"),
        &club.token,
        None,
    )
    .await;

    assert_eq!(signed.status(), 400);
    let problem: serde_json::Value = signed.json().await.unwrap();
    assert_eq!(problem["parameter"], "Last-Event-ID");
    assert_eq!(
        problem["detail"],
        "Last-Event-ID must be a whole number, like 3; got \"+1\""
    );
    assert_eq!(by_query.problem(400)["parameter"], "last_event_id");
    let first = far_ahead.expect().await;
    assert_eq!(first.event, "snapshot");
    assert_eq!(first.id, Some(1));
}

async fn an_if_match_version_past_64_bits_is_stale_not_malformed(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;

    let reply = app
        .client
        .post(app.url(&format!("/v1/games/{game}/events")))
        .bearer_auth(&club.token)
        .header("If-Match", "453847147932719018620111074-08b")
        .json(&json!({"events": [event("round_collected", round_1())]}))
        .send()
        .await
        .unwrap();

    assert_eq!(reply.status(), 409);
    assert_eq!(app.version(&club, &game).await, 1);
}

async fn a_cursor_is_hexadecimal_digits_only(app: TestApp) {
    let club = app.new_club().await;
    app.new_game(&club, new_game(json!({}))).await;

    // "+f" reads as 15 to a number parser, and "2b66" is the same bytes ("+f") spelt right.
    let signed = app.get("/v1/players?cursor=%2Bf", Some(&club.token)).await;
    let spelt_right = app.get("/v1/players?cursor=2b66", Some(&club.token)).await;

    assert_eq!(signed.problem(400)["parameter"], "cursor");
    assert_eq!(spelt_right.status, 200, "{}", spelt_right.body);
}
