//! Access: tokens with scopes, share links, the token in a stream's URL, CORS, 405, and the
//! club-creation limit across servers.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Backend, TestApp, TestClub, event, spawn_app_with};
use crate::live::EventStream;
use crate::mint_condition::{new_game, round_1};
use crate::on_both_backends;

on_both_backends!(
    a_read_token_reads_everything_and_changes_nothing,
    a_write_token_plays_but_does_not_manage_tokens,
    an_issued_admin_token_manages_tokens_and_is_revoked_at_once,
    a_new_first_token_ends_the_old_one_and_its_streams_on_every_server,
    a_revoked_token_answers_401_at_once_and_its_stream_ends,
    a_share_link_reads_its_game_only_until_revoked,
    an_expired_share_link_answers_401,
    a_token_in_the_url_is_accepted_by_the_streams_only,
    a_wrong_method_answers_405_with_allow,
    cors_preflight_is_answered_for_allowed_origins_only,
    the_club_creation_limit_holds_across_servers,
    each_event_names_the_token_that_recorded_it,
    every_token_names_its_own_club_and_a_share_link_none,
);

/// Issues a token with this scope using the club's admin token; `(id, token)`.
async fn issue(app: &TestApp, club: &TestClub, scope: &str) -> (String, String) {
    let reply = app
        .post(
            "/v1/tokens",
            Some(&club.token),
            &json!({"name": format!("{scope} phone"), "scope": scope}),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    assert_eq!(reply.body["scope"], scope);
    (
        reply.body["id"].as_str().unwrap().to_owned(),
        reply.body["token"].as_str().unwrap().to_owned(),
    )
}

async fn send(
    app: &TestApp,
    method: Method,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> crate::helpers::Reply {
    let mut request = app.client.request(method, app.url(path)).bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    crate::helpers::Reply::read(request.send().await.expect("an answer")).await
}

async fn a_read_token_reads_everything_and_changes_nothing(app: TestApp) {
    // Arrange
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let (_, read) = issue(&app, &club, "read").await;

    // Act
    let summary = app.get(&format!("/v1/games/{game}"), Some(&read)).await;
    let players = app.get("/v1/players", Some(&read)).await;
    let append = send(
        &app,
        Method::POST,
        &format!("/v1/games/{game}/events"),
        &read,
        Some(json!({"events": [event("round_collected", round_1())]})),
    )
    .await;
    let create = send(
        &app,
        Method::POST,
        "/v1/games",
        &read,
        Some(new_game(json!({}))),
    )
    .await;
    let share = send(
        &app,
        Method::POST,
        &format!("/v1/games/{game}/shares"),
        &read,
        Some(json!({})),
    )
    .await;
    let tokens = app.get("/v1/tokens", Some(&read)).await;

    // Assert
    assert_eq!(summary.status, 200);
    assert_eq!(players.status, 200);
    append.problem(403);
    create.problem(403);
    share.problem(403);
    tokens.problem(403);
    assert_eq!(app.version(&club, &game).await, 1);
}

async fn a_write_token_plays_but_does_not_manage_tokens(app: TestApp) {
    let club = app.new_club().await;
    let (_, write) = issue(&app, &club, "write").await;
    let writer = TestClub {
        id: club.id.clone(),
        token: write.clone(),
    };

    let game = app.new_game(&writer, new_game(json!({}))).await;
    let round = app
        .append(
            &writer,
            &game,
            Some(1),
            vec![event("round_collected", round_1())],
        )
        .await;
    let issue_more = app
        .post(
            "/v1/tokens",
            Some(&write),
            &json!({"name": "x", "scope": "read"}),
        )
        .await;
    let bad_scope = app
        .post(
            "/v1/tokens",
            Some(&club.token),
            &json!({"name": "x", "scope": "owner"}),
        )
        .await;

    assert_eq!(round.status, 201, "{}", round.body);
    issue_more.problem(403);
    let refused = bad_scope.problem(422);
    assert_eq!(refused["pointer"], "/scope");
    assert_eq!(
        refused["detail"],
        "scope must be admin, write or read, got \"owner\""
    );
}

/// A second organiser gets an admin token of their own: it does what the club's first token
/// does, and unlike that one it can be taken back.
async fn an_issued_admin_token_manages_tokens_and_is_revoked_at_once(app: TestApp) {
    // Arrange
    let club = app.new_club().await;
    let (admin_id, admin) = issue(&app, &club, "admin").await;

    // Act
    let phone = send(
        &app,
        Method::POST,
        "/v1/tokens",
        &admin,
        Some(json!({"name": "Bo's phone", "scope": "write"})),
    )
    .await;
    let listed = app.get("/v1/tokens", Some(&admin)).await;
    let phone_id = phone.body["id"].as_str().expect("id").to_owned();
    let taken_back = send(
        &app,
        Method::DELETE,
        &format!("/v1/tokens/{phone_id}"),
        &admin,
        None,
    )
    .await;
    let phone_after = app.get("/v1/games", phone.body["token"].as_str()).await;
    let revoked = send(
        &app,
        Method::DELETE,
        &format!("/v1/tokens/{admin_id}"),
        &club.token,
        None,
    )
    .await;
    let admin_after = app.get("/v1/tokens", Some(&admin)).await;

    // Assert
    assert_eq!(phone.status, 201, "{}", phone.body);
    let scopes: Vec<(&str, &str)> = listed.body["tokens"]
        .as_array()
        .expect("tokens")
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["scope"].as_str().unwrap()))
        .collect();
    assert_eq!(scopes, [("admin phone", "admin"), ("Bo's phone", "write")]);
    assert_eq!(taken_back.status, 204, "{}", taken_back.body);
    phone_after.problem(401);
    assert_eq!(revoked.status, 204, "{}", revoked.body);
    admin_after.problem(401);
}

async fn a_revoked_token_answers_401_at_once_and_its_stream_ends(app: TestApp) {
    // Arrange: streams with the default heartbeat (10 s), so ending within a few seconds is
    // the revocation's doing; on PostgreSQL, one more stream on a second server.
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let (id, read) = issue(&app, &club, "read").await;
    let (kept_id, _) = issue(&app, &club, "write").await;
    let mut stream =
        EventStream::open(&app, &format!("/v1/games/{game}/stream"), &read, None).await;
    assert_eq!(stream.expect().await.event, "snapshot");
    let mut lobby = EventStream::open(&app, "/v1/stream", &read, None).await;
    let other_server = match app.backend {
        Backend::Postgres => Some(app.second_server().await),
        Backend::Sqlite => None, // one SQLite file is served by one process
    };
    let mut elsewhere = match &other_server {
        Some(other) => {
            let mut stream =
                EventStream::open(other, &format!("/v1/games/{game}/stream"), &read, None).await;
            assert_eq!(stream.expect().await.event, "snapshot");
            Some(stream)
        }
        None => None,
    };
    assert_eq!(app.get("/v1/games", Some(&read)).await.status, 200);

    // Act
    let revoked = send(
        &app,
        Method::DELETE,
        &format!("/v1/tokens/{id}"),
        &club.token,
        None,
    )
    .await;
    let again = send(
        &app,
        Method::DELETE,
        &format!("/v1/tokens/{id}"),
        &club.token,
        None,
    )
    .await;

    // Assert: 401 from the next request on, the list no longer has it, the stream ends.
    assert_eq!(revoked.status, 204);
    again.problem(404);
    app.get("/v1/games", Some(&read)).await.problem(401);
    let list = app.get("/v1/tokens", Some(&club.token)).await;
    let ids: Vec<&str> = list.body["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec![kept_id.as_str()]);
    assert!(
        !list.body.to_string().contains(&read[10..]),
        "a listed secret"
    );
    let at_once = Duration::from_secs(5);
    for (stream, which) in [
        (Some(&mut stream), "game"),
        (Some(&mut lobby), "lobby"),
        (elsewhere.as_mut(), "other server's game"),
    ] {
        if let Some(stream) = stream {
            let ended = tokio::time::timeout(at_once, stream.next()).await;
            assert!(
                matches!(ended, Ok(None)),
                "the revoked token's {which} stream ended at once"
            );
        }
    }
    if let Some(other_server) = other_server {
        other_server
            .get("/v1/games", Some(&read))
            .await
            .problem(401);
    }
}

/// The club's first token leaked: an admin replaces it. The old one stops working everywhere
/// and its streams end; the new one and the issued tokens work.
async fn a_new_first_token_ends_the_old_one_and_its_streams_on_every_server(app: TestApp) {
    // Arrange: a stream with the old first token here and, on PostgreSQL, on a second server
    // that has checked the old token (and kept the club's row).
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let (_, admin) = issue(&app, &club, "admin").await;
    let (_, write) = issue(&app, &club, "write").await;
    let mut stream =
        EventStream::open(&app, &format!("/v1/games/{game}/stream"), &club.token, None).await;
    assert_eq!(stream.expect().await.event, "snapshot");
    let other_server = match app.backend {
        Backend::Postgres => Some(app.second_server().await),
        Backend::Sqlite => None, // one SQLite file is served by one process
    };
    let mut elsewhere = match &other_server {
        Some(other) => {
            assert_eq!(other.get("/v1/games", Some(&club.token)).await.status, 200);
            let mut lobby = EventStream::open(other, "/v1/stream", &club.token, None).await;
            lobby.heartbeat().await;
            Some(lobby)
        }
        None => None,
    };

    // Act: replaced with an issued admin token, then again with the new first token itself.
    let replaced = send(&app, Method::POST, "/v1/club/token", &admin, None).await;
    let new_token = replaced.body["token"].as_str().expect("token").to_owned();
    let old_after = app.get("/v1/games", Some(&club.token)).await;
    let new_after = app.get("/v1/games", Some(&new_token)).await;
    let write_after = app.get("/v1/games", Some(&write)).await;
    let with_old = send(&app, Method::POST, "/v1/club/token", &club.token, None).await;
    let again = send(&app, Method::POST, "/v1/club/token", &new_token, None).await;
    let by_write = send(&app, Method::POST, "/v1/club/token", &write, None).await;

    // Assert
    assert_eq!(replaced.status, 200, "{}", replaced.body);
    assert_eq!(replaced.body["id"], club.id.as_str());
    assert!(
        new_token.starts_with(&format!("tt.{}.", club.id)),
        "{new_token}"
    );
    old_after.problem(401);
    assert_eq!(new_after.status, 200, "{}", new_after.body);
    assert_eq!(
        write_after.status, 200,
        "the issued tokens are left as they are"
    );
    with_old.problem(401);
    assert_eq!(again.status, 200, "{}", again.body);
    let newest = again.body["token"].as_str().expect("token");
    assert_ne!(newest, new_token);
    app.get("/v1/games", Some(&new_token)).await.problem(401);
    assert_eq!(app.get("/v1/games", Some(newest)).await.status, 200);
    by_write.problem(403);
    let at_once = Duration::from_secs(5);
    let ended = tokio::time::timeout(at_once, stream.next()).await;
    assert!(
        matches!(ended, Ok(None)),
        "the old first token's stream ended"
    );
    if let (Some(other_server), Some(lobby)) = (other_server, elsewhere.as_mut()) {
        let ended = tokio::time::timeout(at_once, lobby.next()).await;
        assert!(
            matches!(ended, Ok(None)),
            "the old first token's stream on the other server ended"
        );
        // The other server heard of it (NOTIFY, as it committed) before its stream ended, so
        // it has forgotten the club's row it kept.
        other_server
            .get("/v1/games", Some(&club.token))
            .await
            .problem(401);
        assert_eq!(
            other_server.get("/v1/games", Some(newest)).await.status,
            200
        );
    }
}

async fn a_share_link_reads_its_game_only_until_revoked(app: TestApp) {
    // Arrange
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let other_game = app.new_game(&club, new_game(json!({}))).await;
    let reply = app
        .post(
            &format!("/v1/games/{game}/shares"),
            Some(&club.token),
            &json!({"expires_in_hours": 24}),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    let share_id = reply.body["id"].as_str().unwrap().to_owned();
    let share = reply.body["token"].as_str().unwrap().to_owned();
    let expires: chrono::DateTime<chrono::Utc> =
        reply.body["expires_at"].as_str().unwrap().parse().unwrap();
    let hours = (expires - chrono::Utc::now()).num_minutes();
    assert!((23 * 60..=24 * 60).contains(&hours), "{hours} minutes");
    // The game's share links are listed (never their tokens); the other game has none.
    let listed = app
        .get(&format!("/v1/games/{game}/shares"), Some(&club.token))
        .await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert_eq!(
        listed.body["shares"],
        json!([{"id": share_id, "created_at": listed.body["shares"][0]["created_at"],
                "expires_at": reply.body["expires_at"]}])
    );
    assert!(!listed.body.to_string().contains(&share));
    let none = app
        .get(&format!("/v1/games/{other_game}/shares"), Some(&club.token))
        .await;
    assert_eq!(none.body, json!({"shares": []}));

    // Act / Assert: its game's summary, events, score and stream…
    for path in ["", "/events", "/score"] {
        let r = app
            .get(&format!("/v1/games/{game}{path}"), Some(&share))
            .await;
        assert_eq!(r.status, 200, "{path}: {}", r.body);
    }
    let mut stream =
        EventStream::open(&app, &format!("/v1/games/{game}/stream"), &share, None).await;
    assert_eq!(stream.expect().await.data["game"]["id"], game.as_str());
    // …and nothing else: not another game, not the lists, not a write.
    for path in [
        format!("/v1/games/{other_game}"),
        format!("/v1/games/{other_game}/stream"),
        "/v1/games".to_owned(),
        "/v1/players".to_owned(),
        "/v1/events".to_owned(),
        "/v1/stream".to_owned(),
        "/v1/stats/leaderboard".to_owned(),
    ] {
        app.get(&path, Some(&share)).await.problem(404);
    }
    let write = app
        .append(
            &TestClub {
                id: club.id.clone(),
                token: share.clone(),
            },
            &game,
            Some(1),
            vec![event("round_collected", round_1())],
        )
        .await;
    write.problem(404);
    // Revoked: 401, and a share id only revokes through its own game.
    let wrong_game = send(
        &app,
        Method::DELETE,
        &format!("/v1/games/{other_game}/shares/{share_id}"),
        &club.token,
        None,
    )
    .await;
    wrong_game.problem(404);
    let revoked = send(
        &app,
        Method::DELETE,
        &format!("/v1/games/{game}/shares/{share_id}"),
        &club.token,
        None,
    )
    .await;
    assert_eq!(revoked.status, 204);
    app.get(&format!("/v1/games/{game}"), Some(&share))
        .await
        .problem(401);
    let listed = app
        .get(&format!("/v1/games/{game}/shares"), Some(&club.token))
        .await;
    assert_eq!(listed.body, json!({"shares": []}));
    // The open stream ends at once, long before its next heartbeat (10 s).
    let ended = tokio::time::timeout(Duration::from_secs(5), stream.next()).await;
    assert!(matches!(ended, Ok(None)), "the share link's stream ended");
}

async fn an_expired_share_link_answers_401(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let reply = app
        .post(
            &format!("/v1/games/{game}/shares"),
            Some(&club.token),
            &json!({"expires_in_hours": 1}),
        )
        .await;
    let share = reply.body["token"].as_str().unwrap().to_owned();
    let too_long = app
        .post(
            &format!("/v1/games/{game}/shares"),
            Some(&club.token),
            &json!({"expires_in_hours": 721}),
        )
        .await;
    assert_eq!(
        app.get(&format!("/v1/games/{game}"), Some(&share))
            .await
            .status,
        200
    );

    // The hour passes (in the database).
    let sql = match app.backend {
        Backend::Sqlite => "UPDATE access_tokens SET expires_at = '2020-01-01T00:00:00+00:00'",
        Backend::Postgres => "UPDATE access_tokens SET expires_at = '2020-01-01T00:00:00Z'",
    };
    crate::mint_condition::execute(&app, sql, &[]).await;

    app.get(&format!("/v1/games/{game}"), Some(&share))
        .await
        .problem(401);
    too_long.problem(422);
}

async fn a_token_in_the_url_is_accepted_by_the_streams_only(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let token = urlencode(&club.token);

    let stream = app
        .client
        .get(app.url(&format!("/v1/games/{game}/stream?access_token={token}")))
        .send()
        .await
        .unwrap();
    let lobby = app
        .client
        .get(app.url(&format!("/v1/stream?access_token={token}")))
        .send()
        .await
        .unwrap();
    let elsewhere = app
        .get(&format!("/v1/games/{game}?access_token={token}"), None)
        .await;

    assert_eq!(stream.status(), 200);
    assert_eq!(lobby.status(), 200);
    elsewhere.problem(401);
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

async fn a_wrong_method_answers_405_with_allow(app: TestApp) {
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;

    let put_games = send(&app, Method::PUT, "/v1/games", &club.token, None).await;
    let delete_game = send(
        &app,
        Method::DELETE,
        &format!("/v1/games/{game}"),
        &club.token,
        None,
    )
    .await;
    let get_clubs = app.get("/v1/clubs", None).await;
    let unknown = send(&app, Method::PUT, "/v1/nothing-here", &club.token, None).await;

    put_games.problem(405);
    assert_eq!(put_games.headers["allow"], "GET, HEAD, POST");
    delete_game.problem(405);
    assert_eq!(delete_game.headers["allow"], "GET, HEAD");
    get_clubs.problem(405);
    assert_eq!(get_clubs.headers["allow"], "POST");
    unknown.problem(404);
}

async fn cors_preflight_is_answered_for_allowed_origins_only(app: TestApp) {
    // Arrange: one allowed origin (none by default).
    let app = spawn_app_with(app.backend, |config| {
        config.cors_origins = vec!["https://pad.example".into()];
    })
    .await
    .expect("the backend is configured");
    let club = app.new_club().await;
    let preflight = |origin: &'static str| {
        app.client
            .request(Method::OPTIONS, app.url("/v1/stream"))
            .header("origin", origin)
            .header("access-control-request-method", "GET")
            .header(
                "access-control-request-headers",
                "authorization, last-event-id",
            )
            .send()
    };

    // Act
    let allowed = preflight("https://pad.example").await.unwrap();
    let refused = preflight("https://evil.example").await.unwrap();
    let actual = app
        .client
        .get(app.url("/v1/games"))
        .bearer_auth(&club.token)
        .header("origin", "https://pad.example")
        .send()
        .await
        .unwrap();

    // Assert
    assert_eq!(allowed.status(), 204);
    let h = allowed.headers();
    assert_eq!(h["access-control-allow-origin"], "https://pad.example");
    assert_eq!(h["access-control-allow-methods"], "GET, HEAD");
    let allowed_headers = h["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_lowercase();
    assert!(allowed_headers.contains("authorization") && allowed_headers.contains("last-event-id"));
    assert!(
        refused
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );
    assert_eq!(actual.status(), 200);
    assert_eq!(
        actual.headers()["access-control-allow-origin"],
        "https://pad.example"
    );
}

async fn the_club_creation_limit_holds_across_servers(app: TestApp) {
    if app.backend == Backend::Sqlite {
        return; // one process: the in-memory limit (problems.rs)
    }
    // Arrange: 20 clubs a minute per address, created half on each server.
    let other_server = app.second_server().await;
    for i in 0..20 {
        let server = if i % 2 == 0 { &app } else { &other_server };
        server.new_club().await;
    }

    // Act
    let on_a = app
        .post("/v1/clubs", None, &json!({"name": "one too many"}))
        .await;
    let on_b = other_server
        .post("/v1/clubs", None, &json!({"name": "one too many"}))
        .await;

    // Assert
    on_a.problem(429);
    on_b.problem(429);
}

/// A `write` token with this name, as a club member's phone holds it.
async fn phone(app: &TestApp, club: &TestClub, name: &str) -> TestClub {
    let reply = app
        .post(
            "/v1/tokens",
            Some(&club.token),
            &json!({"name": name, "scope": "write"}),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    TestClub {
        id: club.id.clone(),
        token: reply.body["token"].as_str().unwrap().to_owned(),
    }
}

/// `(type, recorded_by)` of each event in a list of events.
fn who(events: &Value) -> Vec<(String, Value)> {
    events
        .as_array()
        .expect("events")
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_owned(),
                e["recorded_by"].clone(),
            )
        })
        .collect()
}

fn by(pairs: &[(&str, &str)]) -> Vec<(String, Value)> {
    pairs
        .iter()
        .map(|(t, name)| (t.to_string(), json!(name)))
        .collect()
}

async fn each_event_names_the_token_that_recorded_it(app: TestApp) {
    // Arrange: the club's own token starts the game; Ann and Bo record from their phones.
    let club = app.new_club().await;
    let ann = phone(&app, &club, "Ann's phone").await;
    let bo = phone(&app, &club, "Bo's phone").await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let mut stream =
        EventStream::open(&app, &format!("/v1/games/{game}/stream"), &club.token, None).await;

    // Act
    let round = app
        .append(
            &ann,
            &game,
            Some(1),
            vec![event("round_collected", round_1())],
        )
        .await;
    let retract = app
        .append(
            &bo,
            &game,
            Some(2),
            vec![event("retract", json!({"seq": 2, "reason": "wrong game"}))],
        )
        .await;

    // Assert: the answers, the log, the stream and the export all say who.
    assert_eq!(round.status, 201, "{}", round.body);
    assert_eq!(round.body["events"][0]["recorded_by"], "Ann's phone");
    assert_eq!(retract.body["events"][0]["recorded_by"], "Bo's phone");
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    let expected = by(&[
        ("game_started", "club token"),
        ("round_collected", "Ann's phone"),
        ("retract", "Bo's phone"),
    ]);
    assert_eq!(who(&log.body["events"]), expected);
    assert_eq!(stream.expect().await.event, "snapshot");
    let mut streamed = Vec::new();
    for _ in 0..2 {
        let frame = stream.expect().await;
        assert_eq!(frame.event, "appended");
        streamed.extend(who(&frame.data["events"]));
    }
    assert_eq!(streamed, expected[1..]);
    let club_log = app.get("/v1/events", Some(&club.token)).await;
    assert_eq!(who(&club_log.body["events"]), expected);
    let (status, _, file) = app.get_text("/v1/export", &club.token).await;
    assert_eq!(status, 200, "{file}");
    // The club's players come first, then its one game.
    let line: Value =
        serde_json::from_str(file.lines().last().unwrap_or_default()).expect("one game, one line");
    assert_eq!(who(&line["events"]), expected);
    // No other token may take the club token's name in the log.
    let taken = app
        .post(
            "/v1/tokens",
            Some(&club.token),
            &json!({"name": " Club Token ", "scope": "write"}),
        )
        .await;
    assert_eq!(taken.problem(422)["pointer"], "/name");
}

async fn every_token_names_its_own_club_and_a_share_link_none(app: TestApp) {
    // Arrange: Friday's first token and the tokens it issued; another club; a share link.
    let created = app
        .post("/v1/clubs", None, &json!({"name": "Tuesday Club"}))
        .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let tuesday = created.body["token"].as_str().unwrap().to_owned();
    let friday = app.new_club().await;
    let (_, admin) = issue(&app, &friday, "admin").await;
    let (_, write) = issue(&app, &friday, "write").await;
    let (_, read) = issue(&app, &friday, "read").await;
    let game = app.new_game(&friday, new_game(json!({}))).await;
    let share = app
        .post(
            &format!("/v1/games/{game}/shares"),
            Some(&friday.token),
            &json!({"expires_in_hours": 1}),
        )
        .await;
    assert_eq!(share.status, 201, "{}", share.body);
    let share = share.body["token"].as_str().unwrap().to_owned();

    // Act + Assert: each token's own club, its id and name and nothing else.
    for token in [&friday.token, &admin, &write, &read] {
        let reply = app.get("/v1/club", Some(token)).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(reply.body, json!({"id": friday.id, "name": "Friday games"}));
    }
    let other = app.get("/v1/club", Some(&tuesday)).await;
    assert_eq!(other.body["name"], "Tuesday Club", "{}", other.body);
    assert_ne!(other.body["id"], json!(friday.id));
    // A share link reads its game only; no token, or a wrong one, is 401.
    let shared = app.get("/v1/club", Some(&share)).await;
    assert!(!shared.body.to_string().contains(&friday.id));
    shared.problem(404);
    app.get("/v1/club", None).await.problem(401);
    let forged = format!("tt.{}.{}", friday.id, "0".repeat(64));
    app.get("/v1/club", Some(&forged)).await.problem(401);
}
