//! Table presets: saved per club, game and name; a game started with one stores the preset's
//! options (with the request's own keys on top) in its `game_started`, so it stays the same
//! when the preset is deleted. A Vintage preset's deck lets events name cards by number.

use serde_json::{Value, json};

use crate::helpers::{TestApp, TestClub, event, totals};
use crate::on_both_backends;

/// Cards 1–8 of Friday's deck.
fn deck() -> Value {
    json!({
        "1": {"type": "lamp", "colour": "blue", "period": "60s", "value": 3},
        "2": {"type": "radio", "colour": "red", "period": "50s", "value": 2},
        "3": {"type": "chair", "colour": "blue", "period": "70s", "value": 1},
        "4": {"type": "vase", "colour": "green", "period": "60s", "value": 4},
        "5": {"type": "phone", "colour": "red", "period": "70s", "value": 0},
        "6": {"type": "clock", "colour": "green", "period": "50s", "value": 1},
        "7": {"type": "bowl", "colour": "blue", "period": "60s", "value": 2},
        "8": {"type": "lamp", "colour": "red", "period": "70s", "value": 1},
    })
}

fn blue_prize() -> Value {
    json!([{"id": "blue", "name": "Most blue objects", "attribute": "colour", "value": "blue", "points": 4}])
}

async fn friday(app: &TestApp, club: &TestClub) -> Value {
    let reply = app
        .post(
            "/v1/presets",
            Some(&club.token),
            &json!({"name": "Friday", "game": "vintage",
                    "options": {"prizes": blue_prize(), "prize_tie": "nobody", "deck": deck()}}),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    reply.body
}

async fn vintage_with(app: &TestApp, club: &TestClub, extra: Value) -> String {
    let mut body = json!({"game": "vintage",
                          "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}]});
    for (key, value) in extra.as_object().unwrap() {
        body[key] = value.clone();
    }
    app.new_game(club, body).await
}

on_both_backends!(
    a_preset_is_saved_listed_and_refused_twice_or_with_a_bad_option,
    a_vintage_game_started_from_a_preset_names_its_cards_by_number,
    a_game_keeps_its_presets_options_after_the_preset_is_deleted,
    a_vintage_game_without_prizes_is_refused_unless_the_table_says_none,
    a_creation_resent_after_its_preset_changed_is_the_stored_game,
);

async fn a_preset_is_saved_listed_and_refused_twice_or_with_a_bad_option(app: TestApp) {
    let club = app.new_club().await;
    let token = Some(club.token.as_str());

    let saved = friday(&app, &club).await;
    let again = app
        .post(
            "/v1/presets",
            token,
            &json!({"name": " friday ", "game": "vintage", "options": {"prizes": []}}),
        )
        .await;
    let lucky = app
        .post(
            "/v1/presets",
            token,
            &json!({"name": "Friday", "game": "mint-condition", "options": {"lucky": true}}),
        )
        .await;
    let typo = app
        .post(
            "/v1/presets",
            token,
            &json!({"name": "Typo", "game": "mint-condition", "options": {"lucy": true}}),
        )
        .await;
    let bad_deck = app
        .post(
            "/v1/presets",
            token,
            &json!({"name": "Big", "game": "vintage", "options": {"deck": {
                "64": {"type": "lamp", "colour": "blue", "period": "60s", "value": 3}}}}),
        )
        .await;
    let chess = app
        .post(
            "/v1/presets",
            token,
            &json!({"name": "Chess", "game": "chess", "options": {}}),
        )
        .await;
    let null_options = app
        .post(
            "/v1/presets",
            token,
            &json!({"name": "Null", "game": "mint-condition", "options": null}),
        )
        .await;
    let no_options = app
        .post(
            "/v1/presets",
            token,
            &json!({"name": "Plain", "game": "mint-julep"}),
        )
        .await;
    let all = app.get("/v1/presets", token).await.body;
    let vintage = app.get("/v1/presets?game=vintage", token).await.body;

    assert_eq!(saved["name"], "Friday");
    assert_eq!(saved["options"]["deck"], deck());
    let taken = again.problem(409);
    assert_eq!(taken["type"], "/problems/name-taken");
    assert_eq!(taken["preset_id"], saved["id"]);
    assert_eq!(
        taken["detail"],
        "the club already has a Vintage preset called \"Friday\"; delete it first or choose \
         another name"
    );
    // One name per game: Friday at Mint Condition is another preset.
    assert_eq!(lucky.status, 201, "{}", lucky.body);
    let problem = typo.problem(422);
    assert_eq!(problem["pointer"], "/options/lucy");
    assert_eq!(
        problem["detail"],
        "unknown option \"lucy\"; this game's options are: be_careful_when_none, expert_cards, \
         heavily_used, lucky, memories_over_three, protected_be_careful, sleeve_protects, \
         smoking_kills, strict_counts, tiebreak_scope"
    );
    let problem = bad_deck.problem(422);
    assert_eq!(problem["pointer"], "/options/deck/64");
    assert_eq!(
        problem["detail"],
        "the deck's cards are numbered 1 to 63, not 64"
    );
    assert_eq!(chess.problem(422)["pointer"], "/game");
    // Left out, options are the game's defaults; `null` is not an object.
    let problem = null_options.problem(422);
    assert_eq!(problem["pointer"], "/options");
    assert_eq!(problem["detail"], "options must be a JSON object");
    assert_eq!(no_options.status, 201, "{}", no_options.body);
    assert_eq!(no_options.body["options"], json!({}));
    let games: Vec<&str> = all["presets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["game"].as_str().unwrap())
        .collect();
    assert_eq!(games, vec!["mint-condition", "mint-julep", "vintage"]);
    assert_eq!(vintage["presets"], json!([saved]));
}

async fn a_vintage_game_started_from_a_preset_names_its_cards_by_number(app: TestApp) {
    // Given Friday: the blue prize (4), ties score nobody, and a deck of 8 cards
    let club = app.new_club().await;
    friday(&app, &club).await;

    // When a game starts with it, ties scoring everyone instead
    let game = vintage_with(
        &app,
        &club,
        json!({"preset": "FRIDAY", "options": {"prize_tie": "all"}}),
    )
    .await;

    // Then game_started holds the effective options: the preset's, with prize_tie overridden
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    let options = &log.body["events"][0]["data"]["options"];
    assert_eq!(
        options,
        &json!({"prizes": blue_prize(), "prize_tie": "all", "winner_tie": "shared", "deck": deck()})
    );

    // And cards are named by number: dealt 1 | 2 3 | 4 5 6; Ann banks 1, steals 4 from Cy,
    // draws 7 and 8 and keeps 7.
    let reply = app
        .append(
            &club,
            &game,
            Some(1),
            vec![
                event(
                    "showcases_dealt",
                    json!({"showcases": {"Ann": [1], "Bo": [2, 3], "Cy": ["4", 5, 6]}}),
                ),
                event(
                    "turn_taken",
                    json!({"player": "Ann", "banked": 1, "steal": {"from": "Cy", "card": 4},
                           "drawn": [7, 8], "kept": 7}),
                ),
            ],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    // Ann's collection: card 1, a blue lamp worth 3, and the blue prize 4 → 7. Nobody else
    // has banked. The game goes on: Ann leads.
    let score = app.score(&club, &game).await;
    assert_eq!(
        totals(&score),
        vec![("Ann".into(), 7), ("Bo".into(), 0), ("Cy".into(), 0)]
    );
    assert_eq!(
        (&score["leaders"], &score["winners"]),
        (&json!(["Ann"]), &json!([]))
    );

    // A game recorded at its end by numbers: Ann 1 + 3 (3 + 1, two blue → the prize 4) = 8,
    // Bo 2 + 7 (2 + 2, one blue) = 4, Cy 4 → Ann wins.
    let ended = vintage_with(&app, &club, json!({"preset": "Friday"})).await;
    let reply = app
        .append(
            &club,
            &ended,
            Some(1),
            vec![event(
                "collections_recorded",
                json!({"collections": {"Ann": [1, 3], "Bo": [2, 7], "Cy": [4]}}),
            )],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    let score = app.score(&club, &ended).await;
    assert_eq!(
        totals(&score),
        vec![("Ann".into(), 8), ("Bo".into(), 4), ("Cy".into(), 4)]
    );
    assert_eq!(score["winners"], json!(["Ann"]));
}

async fn a_game_keeps_its_presets_options_after_the_preset_is_deleted(app: TestApp) {
    let club = app.new_club().await;
    let token = Some(club.token.as_str());
    let preset = friday(&app, &club).await;
    let game = vintage_with(&app, &club, json!({"preset": "Friday"})).await;

    let deleted = app
        .client
        .delete(app.url(&format!("/v1/presets/{}", preset["id"].as_str().unwrap())))
        .bearer_auth(&club.token)
        .send()
        .await
        .expect("the server answers");
    assert_eq!(deleted.status(), 204);
    let reply = app
        .append(
            &club,
            &game,
            Some(1),
            vec![event(
                "collections_recorded",
                json!({"collections": {"Ann": [1, 3], "Bo": [2, 7], "Cy": [4]}}),
            )],
        )
        .await;
    let unknown = app
        .post(
            "/v1/games",
            token,
            &json!({"game": "vintage", "preset": "Friday",
                    "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}]}),
        )
        .await;

    // The game still knows its deck and prize: Ann 8, Bo 4, Cy 4.
    assert_eq!(reply.status, 201, "{}", reply.body);
    assert_eq!(
        totals(&app.score(&club, &game).await),
        vec![("Ann".into(), 8), ("Bo".into(), 4), ("Cy".into(), 4)]
    );
    let problem = unknown.problem(422);
    assert_eq!(problem["pointer"], "/preset");
    assert_eq!(
        problem["detail"],
        "the club has no Vintage preset called \"Friday\", and no Vintage preset at all; save \
         one with POST /v1/presets"
    );
    assert_eq!(
        app.get("/v1/presets", token).await.body,
        json!({"presets": []})
    );
}

async fn a_vintage_game_without_prizes_is_refused_unless_the_table_says_none(app: TestApp) {
    let club = app.new_club().await;
    let players = json!([{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}]);

    let silent = app
        .post(
            "/v1/games",
            Some(&club.token),
            &json!({"game": "vintage", "players": players}),
        )
        .await;
    let explicit = app
        .post(
            "/v1/games",
            Some(&club.token),
            &json!({"game": "vintage", "players": players, "options": {"prizes": []}}),
        )
        .await;

    let problem = silent.problem(422);
    assert_eq!(problem["pointer"], "/options");
    assert_eq!(
        problem["detail"],
        "which prize cards are in play? Vintage's prizes are not published, so the table lists \
         them in options.prizes, e.g. [{\"id\": \"blue\", \"name\": \"Most blue objects\", \
         \"attribute\": \"colour\", \"value\": \"blue\", \"points\": 4}]; to play without \
         prizes, say \"prizes\": []"
    );
    assert_eq!(explicit.status, 201, "{}", explicit.body);
}

/// A phone that lost the answer to its creation sends it again: the same game answers, even
/// once the preset it named was deleted or saved again with other options.
async fn a_creation_resent_after_its_preset_changed_is_the_stored_game(app: TestApp) {
    let club = app.new_club().await;
    let preset = friday(&app, &club).await;
    let id = "0f2b7e2a-5c3d-4e6f-8a9b-1c2d3e4f5a6b";
    let creation = json!({"id": id, "game": "vintage", "preset": "Friday",
                          "options": {"winner_tie": "shared"},
                          "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}]});
    let created = app.post("/v1/games", Some(&club.token), &creation).await;
    assert_eq!(created.status, 201, "{}", created.body);

    let deleted = app
        .client
        .delete(app.url(&format!("/v1/presets/{}", preset["id"].as_str().unwrap())))
        .bearer_auth(&club.token)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    let after_delete = app.post("/v1/games", Some(&club.token), &creation).await;
    let saved_again = app
        .post(
            "/v1/presets",
            Some(&club.token),
            &json!({"name": "Friday", "game": "vintage", "options": {"prizes": []}}),
        )
        .await;
    assert_eq!(saved_again.status, 201, "{}", saved_again.body);
    let after_change = app.post("/v1/games", Some(&club.token), &creation).await;
    let mut other_table = creation.clone();
    other_table["players"] = json!([{"name": "Ann"}, {"name": "Bo"}, {"name": "Di"}]);
    let other = app.post("/v1/games", Some(&club.token), &other_table).await;

    assert_eq!(
        (after_delete.status.as_u16(), &after_delete.body),
        (200, &created.body)
    );
    assert_eq!(
        (after_change.status.as_u16(), &after_change.body),
        (200, &created.body)
    );
    other.problem(409);
}
