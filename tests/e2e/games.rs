//! Creating, reading and listing games.

use serde_json::json;

use crate::helpers::{HeldWrite, TestApp, TestClub, event};
use crate::on_both_backends;

on_both_backends!(
    a_new_game_is_event_one_with_the_effective_options,
    resending_a_game_with_the_same_id_returns_the_same_game,
    a_game_of_known_players_sent_twice_at_once_is_stored_once,
    the_same_name_is_the_same_club_player_across_games,
    games_are_listed_newest_first_in_pages_and_filtered,
    a_game_and_its_score_answer_304_while_their_version_is_unchanged,
    head_answers_with_gets_headers_and_no_body,
    a_name_another_connection_adds_while_a_creation_waits_seats_that_player,
);

async fn a_new_game_is_event_one_with_the_effective_options(app: TestApp) {
    let club = app.new_club().await;
    let body = json!({"game": "mint-condition", "players": [{"name": "Ann", "color": "red"}, {"name": "Bo", "color": "blue"}],
                      "options": {"lucky": true}, "started_at": "2026-11-30T19:00:00Z"});

    let reply = app.post("/v1/games", Some(&club.token), &body).await;

    assert_eq!(reply.status, 201, "{}", reply.body);
    let id = reply.body["id"].as_str().unwrap();
    assert_eq!(
        reply.headers.get("location").unwrap().to_str().unwrap(),
        format!("/v1/games/{id}")
    );
    assert_eq!(reply.body["status"], "in_progress");
    assert_eq!(reply.body["version"], 1);
    assert_eq!(reply.body["options"]["lucky"], true);
    assert_eq!(reply.body["options"]["be_careful_when_none"], "five");
    assert_eq!(reply.body["players"][1]["seat"], 2);
    assert_eq!(reply.body["players"][1]["color"], "blue");
    let log = app
        .get(&format!("/v1/games/{id}/events"), Some(&club.token))
        .await;
    let started = &log.body["events"][0];
    assert_eq!(started["type"], "game_started");
    assert_eq!(started["seq"], 1);
    assert_eq!(started["data"]["options"]["sleeve_protects"], 1);
    assert_eq!(started["data"]["players"][0]["name"], "Ann");
}

async fn resending_a_game_with_the_same_id_returns_the_same_game(app: TestApp) {
    let club = app.new_club().await;
    let id = uuid::Uuid::new_v4().to_string();
    let body =
        json!({"id": id, "game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]});

    let first = app.post("/v1/games", Some(&club.token), &body).await;
    let again = app.post("/v1/games", Some(&club.token), &body).await;
    let different = app
        .post("/v1/games", Some(&club.token), &json!({"id": id, "game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Cy"}]}))
        .await;

    assert_eq!(first.status, 201);
    assert_eq!(again.status, 200);
    assert_eq!(again.body["id"], id);
    assert_eq!(again.body["players"], first.body["players"]);
    different.problem(409);
}

async fn a_game_of_known_players_sent_twice_at_once_is_stored_once(app: TestApp) {
    // Given Ann and Bo, players of the club already (PostgreSQL creates a game of known players
    // without a transaction)
    let club = app.new_club().await;
    let known = json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]});
    assert_eq!(
        app.post("/v1/games", Some(&club.token), &known)
            .await
            .status,
        201
    );
    for _ in 0..8 {
        // When a phone sends the same new game twice at once (a retry racing the first send)
        let id = uuid::Uuid::new_v4().to_string();
        let body = json!({"id": id, "game": "mint-condition",
                          "players": [{"name": "Ann"}, {"name": "Bo"}]});
        let (one, other) = tokio::join!(
            app.post("/v1/games", Some(&club.token), &body),
            app.post("/v1/games", Some(&club.token), &body),
        );

        // Then one is the creation and the other the game it stored: one game, at version 1
        let mut statuses = [one.status.as_u16(), other.status.as_u16()];
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 201], "{} / {}", one.body, other.body);
        assert_eq!(one.body["players"], other.body["players"]);
        assert_eq!(app.version(&club, &id).await, 1);
    }
}

async fn the_same_name_is_the_same_club_player_across_games(app: TestApp) {
    let club = app.new_club().await;
    let players = json!([{"name": "Ann"}, {"name": "Bo"}]);
    let a = app
        .post(
            "/v1/games",
            Some(&club.token),
            &json!({"game": "mint-condition", "players": players}),
        )
        .await;
    let ann_id = a.body["players"][0]["player_id"]
        .as_str()
        .unwrap()
        .to_owned();

    let b = app
        .post("/v1/games", Some(&club.token), &json!({"game": "mint-condition", "players": [{"name": "ann"}, {"player_id": ann_id.clone()}]}))
        .await;
    let c = app
        .post("/v1/games", Some(&club.token), &json!({"game": "mint-condition", "players": [{"name": "Bo"}, {"player_id": ann_id.clone()}]}))
        .await;
    let unknown = app
        .post("/v1/games", Some(&club.token), &json!({"game": "mint-condition", "players": [{"name": "Bo"}, {"player_id": uuid::Uuid::new_v4().to_string()}]}))
        .await;

    // "ann" and Ann are one person: the same player twice at one table is refused.
    let problem = b.problem(422);
    assert_eq!(problem["pointer"], "/players/1/name");
    assert_eq!(c.status, 201, "{}", c.body);
    assert_eq!(c.body["players"][1]["player_id"], ann_id.as_str());
    assert_eq!(c.body["players"][1]["name"], "Ann");
    assert_eq!(unknown.problem(422)["pointer"], "/players/1/player_id");
}

async fn games_are_listed_newest_first_in_pages_and_filtered(app: TestApp) {
    let club = app.new_club().await;
    let mut ids = Vec::new();
    for (day, players) in [(1, ["Ann", "Bo"]), (2, ["Ann", "Cy"]), (3, ["Bo", "Cy"])] {
        let body = json!({"game": "mint-condition", "started_at": format!("2026-11-0{day}T19:00:00Z"),
                          "players": players.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()});
        ids.push(app.new_game(&club, body).await);
    }

    let page_1 = app.get("/v1/games?limit=2", Some(&club.token)).await;
    let cursor = page_1.body["next_cursor"].as_str().unwrap().to_owned();
    let page_2 = app
        .get(
            &format!("/v1/games?limit=2&cursor={cursor}"),
            Some(&club.token),
        )
        .await;
    let with_ann = app.get("/v1/games?player=ann", Some(&club.token)).await;
    let from_day_2 = app
        .get("/v1/games?from=2026-11-02T00:00:00Z", Some(&club.token))
        .await;
    let finished = app
        .get("/v1/games?status=finished", Some(&club.token))
        .await;

    let listed = |r: &crate::helpers::Reply| -> Vec<String> {
        r.body["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(listed(&page_1), vec![ids[2].clone(), ids[1].clone()]);
    assert_eq!(listed(&page_2), vec![ids[0].clone()]);
    assert_eq!(page_2.body["next_cursor"], serde_json::Value::Null);
    assert_eq!(listed(&with_ann), vec![ids[1].clone(), ids[0].clone()]);
    assert_eq!(listed(&from_day_2), vec![ids[2].clone(), ids[1].clone()]);
    assert_eq!(listed(&finished), Vec::<String>::new());
}

/// `(status, ETag)` of a GET sent with `If-None-Match: tag`.
async fn conditional(app: &TestApp, club: &TestClub, path: &str, tag: &str) -> (u16, String) {
    let reply = app
        .client
        .get(app.url(path))
        .bearer_auth(&club.token)
        .header("if-none-match", tag)
        .send()
        .await
        .expect("the server answers");
    let etag = reply
        .headers()
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let status = reply.status().as_u16();
    let body = reply.bytes().await.expect("a body");
    if status == 304 {
        assert!(body.is_empty(), "a 304 has no body");
    }
    (status, etag)
}

async fn a_game_and_its_score_answer_304_while_their_version_is_unchanged(app: TestApp) {
    let club = app.new_club().await;
    let game = app
        .new_game(
            &club,
            json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;
    let (summary, score) = (
        format!("/v1/games/{game}"),
        format!("/v1/games/{game}/score"),
    );

    let first = app.get(&summary, Some(&club.token)).await;
    let tag = first.headers["etag"].to_str().unwrap().to_owned();
    // The summary's tag: the version, then a fingerprint of the body (16 hex digits).
    assert!(tag.starts_with("\"1-") && tag.len() == 20, "{tag}");
    assert_eq!(
        conditional(&app, &club, &summary, &tag).await,
        (304, tag.clone())
    );
    assert_eq!(
        conditional(&app, &club, &score, "\"1\"").await,
        (304, "\"1\"".into())
    );
    assert_eq!(
        conditional(&app, &club, &score, "\"0\"").await,
        (200, "\"1\"".into())
    );

    let bet = event(
        "bet_placed",
        json!({"round": 1, "player": "Ann", "horse": "you-got-me"}),
    );
    let reply = app.append(&club, &game, Some(1), vec![bet]).await;
    assert_eq!(reply.status, 201, "{}", reply.body);

    // The version moved: the old tag no longer matches.
    let (status, moved) = conditional(&app, &club, &summary, &tag).await;
    assert_eq!(status, 200);
    assert!(moved.starts_with("\"2-"), "{moved}");
    assert_eq!(
        conditional(&app, &club, &score, "\"1\"").await,
        (200, "\"2\"".into())
    );
    assert_eq!(
        conditional(&app, &club, &score, "W/\"2\", \"9\"").await,
        (304, "\"2\"".into())
    );
    // A past score has its own tag.
    let past = format!("{score}?at=1");
    assert_eq!(
        conditional(&app, &club, &past, "\"2\"").await,
        (200, "\"2-at-1\"".into())
    );
    assert_eq!(
        conditional(&app, &club, &past, "\"2-at-1\"").await,
        (304, "\"2-at-1\"".into())
    );
}

async fn head_answers_with_gets_headers_and_no_body(app: TestApp) {
    let club = app.new_club().await;
    let game = app
        .new_game(
            &club,
            json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;
    let summary = app.url(&format!("/v1/games/{game}"));
    let get = app
        .client
        .get(&summary)
        .bearer_auth(&club.token)
        .send()
        .await
        .unwrap();
    let (get_etag, get_body) = (get.headers()["etag"].clone(), get.bytes().await.unwrap());

    // The same connection carries a HEAD and then a GET: a body sent after the HEAD would
    // be read as the next answer.
    for _ in 0..2 {
        let head = app
            .client
            .head(&summary)
            .bearer_auth(&club.token)
            .send()
            .await
            .unwrap();
        assert_eq!(head.status(), 200);
        assert_eq!(head.headers()["etag"], get_etag);
        assert_eq!(
            head.headers()["content-length"].to_str().unwrap(),
            get_body.len().to_string()
        );
        assert!(head.bytes().await.unwrap().is_empty());
        let again = app
            .get(&format!("/v1/games/{game}"), Some(&club.token))
            .await;
        assert_eq!(again.status, 200, "{}", again.body);
        assert_eq!(again.body["id"], game.as_str());
    }
    let health = app.client.head(app.url("/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    // A stream's HEAD ends at once: its connection answers the next request, for each stream.
    for path in [format!("/v1/games/{game}/stream"), "/v1/stream".to_owned()] {
        let head = app
            .client
            .head(app.url(&path))
            .bearer_auth(&club.token)
            .send()
            .await
            .unwrap();
        assert_eq!(head.status(), 200, "{path}");
        assert_eq!(
            head.headers()["content-type"],
            "text/event-stream",
            "{path}"
        );
        let next = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            app.client.get(app.url("/healthz")).send(),
        )
        .await;
        assert!(
            matches!(next, Ok(Ok(_))),
            "{path}: the connection still streams"
        );
    }
}

async fn a_name_another_connection_adds_while_a_creation_waits_seats_that_player(app: TestApp) {
    // Given a player "Ann" added on another connection, not yet committed
    let club = app.new_club().await;
    let added = format!(
        "INSERT INTO players (id, club_id, name, name_key, created_at) \
         VALUES ('added-elsewhere', '{}', 'Ann', 'ann', CURRENT_TIMESTAMP)",
        club.id
    );
    let other = HeldWrite::begin(&app, &added).await;

    // When a game seating Ann is created meanwhile, and the other connection commits while the
    // creation waits for it (PostgreSQL: its insert of the name waits for the row; its read of
    // the seats' players began before the commit, and finds no Ann)
    let created = {
        let (base, token) = (app.address.clone(), club.token.clone());
        tokio::spawn(async move {
            reqwest::Client::new()
                .post(format!("{base}/v1/games"))
                .bearer_auth(token)
                .json(&json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]}))
                .send()
                .await
                .unwrap()
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    other.commit().await;
    let reply = created.await.unwrap();

    // Then the game is created, and Ann's seat is the player the other connection added
    assert_eq!(reply.status(), 201);
    let game: serde_json::Value = reply.json().await.unwrap();
    assert_eq!(game["players"][0]["name"], "Ann");
    assert_eq!(game["players"][0]["player_id"], "added-elsewhere");
    assert_ne!(game["players"][1]["player_id"], "added-elsewhere");
}
