//! Clubs see only their own data: no token → 401, another club's game → 404.

use serde_json::json;

use crate::helpers::{TestApp, event};
use crate::on_both_backends;

on_both_backends!(
    a_request_without_a_token_is_unauthorized,
    a_wrong_token_is_unauthorized,
    another_clubs_game_does_not_exist_for_you,
);

async fn a_request_without_a_token_is_unauthorized(app: TestApp) {
    let reply = app.get("/v1/games", None).await;

    reply.problem(401);
    assert_eq!(reply.headers.get("www-authenticate").unwrap(), "Bearer");
}

async fn a_wrong_token_is_unauthorized(app: TestApp) {
    let club = app.new_club().await;
    // The right club id with a wrong secret, and garbage.
    let forged = format!("tt.{}.{}", club.id, "0".repeat(64));

    app.get("/v1/games", Some(&forged)).await.problem(401);
    app.get("/v1/games", Some("nonsense")).await.problem(401);
}

async fn another_clubs_game_does_not_exist_for_you(app: TestApp) {
    let mine = app.new_club().await;
    let theirs = app.new_club().await;
    let game = app
        .new_game(
            &theirs,
            json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;

    let summary = app
        .get(&format!("/v1/games/{game}"), Some(&mine.token))
        .await;
    let events = app
        .get(&format!("/v1/games/{game}/events"), Some(&mine.token))
        .await;
    let score = app
        .get(&format!("/v1/games/{game}/score"), Some(&mine.token))
        .await;
    let append = app
        .append(&mine, &game, None, vec![event("abandon", json!({}))])
        .await;
    let list = app.get("/v1/games", Some(&mine.token)).await;

    summary.problem(404);
    events.problem(404);
    score.problem(404);
    append.problem(404);
    assert_eq!(list.body["games"], json!([]));
    // Their game is untouched.
    let theirs_view = app
        .get(&format!("/v1/games/{game}"), Some(&theirs.token))
        .await;
    assert_eq!(theirs_view.body["version"], 1);
}
