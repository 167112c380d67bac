//! Isolation: every operation that needs the club token, walked from the server's own OpenAPI
//! document, answers a missing or wrong token with 401 and another club with 404 (for our
//! resources) or with its own data only, never ours; a `read` token reads everything and
//! changes nothing (403); a share link reads its game's summary, events, score and stream and
//! nothing else (404). An operation added later is walked too.

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{Reply, TestApp, TestClub, event};
use crate::on_both_backends;

on_both_backends!(
    every_secured_operation_refuses_a_missing_or_wrong_token,
    every_secured_operation_shows_another_club_nothing_of_ours,
    a_read_token_reads_every_operation_and_changes_nothing,
    a_share_link_reads_its_game_in_every_operation_and_nothing_else,
);

/// The `/v1` operations that exist today; the walk must cover at least these (so it cannot
/// pass by walking nothing). `POST /v1/clubs` is the one public `/v1` operation.
const SECURED_TODAY: [&str; 25] = [
    "GET /v1/games/{id}/stream",
    "GET /v1/stream",
    "GET /v1/events",
    "POST /v1/tokens",
    "GET /v1/tokens",
    "DELETE /v1/tokens/{id}",
    "POST /v1/games/{id}/shares",
    "GET /v1/games/{id}/shares",
    "DELETE /v1/games/{id}/shares/{share_id}",
    "GET /v1/games",
    "POST /v1/games",
    "GET /v1/games/{id}",
    "GET /v1/games/{id}/events",
    "POST /v1/games/{id}/events",
    "GET /v1/games/{id}/score",
    "GET /v1/games/{id}/ratings",
    "GET /v1/players",
    "GET /v1/players/{id}",
    "GET /v1/players/{id}/games",
    "GET /v1/players/{id}/stats",
    "GET /v1/players/{id}/ratings",
    "GET /v1/stats/games/{game}",
    "GET /v1/stats/head-to-head",
    "GET /v1/stats/leaderboard",
    "GET /v1/stats/ratings",
];

/// Club A and its finished game: what nobody else may see.
struct Seeded {
    club: TestClub,
    game_id: String,
    /// A's table preset.
    preset_id: String,
    player_ids: [String; 2],
    player_names: [&'static str; 2],
    /// A's `read` token and its id.
    read_token: String,
    read_token_id: String,
    /// A share link of A's game and its id.
    share_token: String,
    share_id: String,
}

impl Seeded {
    /// Every string that would betray A's data in someone else's answer.
    fn traces(&self) -> Vec<&str> {
        let mut traces = vec![
            self.club.id.as_str(),
            self.game_id.as_str(),
            self.preset_id.as_str(),
        ];
        traces.extend(self.player_ids.iter().map(String::as_str));
        traces.extend(self.player_names);
        traces
    }
}

/// One request built from the document, aimed at A's data.
struct Operation {
    /// `GET /v1/games/{id}`.
    key: String,
    method: Method,
    /// With the path parameters filled in.
    path: String,
    query: Vec<(String, String)>,
    /// Its content type and body, from the document's example.
    body: Option<(String, Value)>,
    /// A path or query parameter names one of A's resources (a game or a player).
    addresses_ours: bool,
    /// The 2xx status expected when the request succeeds (200, or 201 for a creation).
    success: u16,
}

/// An answer with its raw text, to search it for A's data.
struct Raw {
    reply: Reply,
    text: String,
}

/// Club A's one round of a 2-player Mint Condition game: 7 cards each, no symbols. Three such
/// rounds use 6 Animal Kingdom, 6 Autographed, 12 Be Careful!, 12 Heavy Rotation, 6 Memories,
/// all within the copies that exist.
fn a_round(round: i64, [first, second]: [&str; 2]) -> Value {
    json!({"round": round, "collections": {
        first: ["animal-kingdom", "animal-kingdom", "autographed", "be-careful", "be-careful",
                "heavy-rotation", "heavy-rotation"],
        second: ["memories", "memories", "autographed", "be-careful", "be-careful",
                 "heavy-rotation", "heavy-rotation"],
    }})
}

/// Club A with a finished 2-player Mint Condition game. The names appear nowhere in the
/// document's examples, so club B's own data can never contain them.
async fn seed_club_a(app: &TestApp) -> Seeded {
    let club = app.new_club().await;
    let player_names = ["Quintessa", "Bartholomew"];
    let game_id = app
        .new_game(
            &club,
            json!({"game": "mint-condition",
                   "players": [{"name": player_names[0]}, {"name": player_names[1]}],
                   "started_at": "2026-11-30T19:00:00Z"}),
        )
        .await;
    for round in 1..=3 {
        let reply = app
            .append(
                &club,
                &game_id,
                Some(round),
                vec![event("round_collected", a_round(round, player_names))],
            )
            .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    }
    let summary = app
        .get(&format!("/v1/games/{game_id}"), Some(&club.token))
        .await;
    assert_eq!(summary.status, StatusCode::OK, "{}", summary.body);
    assert_eq!(summary.body["status"], "finished", "{}", summary.body);
    let player_id = |seat: usize| {
        summary.body["players"][seat]["player_id"]
            .as_str()
            .expect("player_id")
            .to_owned()
    };
    let preset = app
        .post(
            "/v1/presets",
            Some(&club.token),
            &json!({"name": "Quintessa's table", "game": "mint-condition", "options": {"lucky": false}}),
        )
        .await;
    assert_eq!(preset.status, StatusCode::CREATED, "{}", preset.body);
    let read = app
        .post(
            "/v1/tokens",
            Some(&club.token),
            &json!({"name": "Quintessa's phone", "scope": "read"}),
        )
        .await;
    assert_eq!(read.status, StatusCode::CREATED, "{}", read.body);
    let share = app
        .post(
            &format!("/v1/games/{game_id}/shares"),
            Some(&club.token),
            &json!({"expires_in_hours": 24}),
        )
        .await;
    assert_eq!(share.status, StatusCode::CREATED, "{}", share.body);
    let text = |reply: &Reply, field: &str| reply.body[field].as_str().expect(field).to_owned();
    Seeded {
        preset_id: preset.body["id"].as_str().expect("id").to_owned(),
        player_ids: [player_id(0), player_id(1)],
        club,
        game_id,
        player_names,
        read_token: text(&read, "token"),
        read_token_id: text(&read, "id"),
        share_token: text(&share, "token"),
        share_id: text(&share, "id"),
    }
}

/// The server's own document.
async fn openapi(app: &TestApp) -> Value {
    let reply = app.get("/openapi.json", None).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.body["paths"].is_object(), "{}", reply.body);
    reply.body
}

/// Every operation that declares `security`, with requests aimed at A's resources.
fn secured_operations(doc: &Value, a: &Seeded) -> Vec<Operation> {
    let mut operations = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("a path item") {
            let Ok(method) = Method::from_bytes(method.to_uppercase().as_bytes()) else {
                continue; // `parameters`, `summary` … of the path item
            };
            if op["security"].as_array().is_none_or(|s| s.is_empty()) {
                continue;
            }
            operations.push(operation(path, method, op, a));
        }
    }
    // A new first token ends the one the walk holds: it goes last.
    operations.sort_by_key(|op| op.key == "POST /v1/club/token");
    operations
}

fn operation(template: &str, method: Method, op: &Value, a: &Seeded) -> Operation {
    let key = format!("{method} {template}");
    let mut path = template.to_owned();
    let mut query = Vec::new();
    let mut addresses_ours = false;
    for param in op["parameters"].as_array().into_iter().flatten() {
        let name = param["name"].as_str().expect("a parameter name");
        let required = param["required"].as_bool().unwrap_or(false);
        match param["in"].as_str() {
            Some("path") => {
                let value = match name {
                    "id" if template.starts_with("/v1/games/") => a.game_id.clone(),
                    "id" if template.starts_with("/v1/players/") => a.player_ids[0].clone(),
                    "id" if template.starts_with("/v1/presets/") => a.preset_id.clone(),
                    "id" if template.starts_with("/v1/tokens/") => a.read_token_id.clone(),
                    "share_id" => a.share_id.clone(),
                    "game" => "mint-condition".to_owned(),
                    _ => panic!("{key}: teach this test to fill the path parameter {{{name}}}"),
                };
                addresses_ours |= name == "id" || name == "share_id";
                path = path.replace(&format!("{{{name}}}"), &value);
            }
            Some("query") if required => {
                let value = match name {
                    "players" => {
                        addresses_ours = true;
                        a.player_ids.join(",")
                    }
                    "game" => "mint-condition".to_owned(),
                    _ => panic!("{key}: teach this test the required query parameter {name:?}"),
                };
                query.push((name.to_owned(), value));
            }
            Some("header") | Some("query") => {
                assert!(!required, "{key}: teach this test the header {name:?}")
            }
            other => panic!("{key}: a parameter {name:?} in {other:?}"),
        }
    }
    assert!(!path.contains('{'), "{key}: unfilled path {path}");
    // The body in the first content type declared (JSON when it is one), from its example.
    let body = op.get("requestBody").map(|body| {
        let (content_type, content) = body["content"]
            .as_object()
            .and_then(|all| {
                all.get_key_value("application/json")
                    .or_else(|| all.iter().next())
            })
            .map(|(kind, content)| (kind.clone(), content.clone()))
            .unwrap_or_else(|| ("application/json".into(), json!({})));
        let mut example = content["examples"]
            .as_object()
            .and_then(|examples| examples.values().next())
            .map(|example| example["value"].clone())
            .or_else(|| content.get("example").cloned())
            .unwrap_or_else(|| json!({}));
        // A creation example names its scenario's game id, and an id is one game on a server:
        // each club of the walk starts a game of its own.
        if key == "POST /v1/games" {
            example.as_object_mut().map(|fields| fields.remove("id"));
        }
        (content_type, example)
    });
    let declared: BTreeSet<u16> = op["responses"]
        .as_object()
        .expect("responses")
        .keys()
        .filter_map(|status| status.parse::<u16>().ok())
        .filter(|status| (200..300).contains(status))
        .collect();
    // A POST creates (201; its 200 is the answer to a retry), anything else reads (200).
    let success = if method == Method::POST && declared.contains(&201) {
        201
    } else {
        *declared
            .first()
            .unwrap_or_else(|| panic!("{key}: no 2xx response declared"))
    };
    Operation {
        key,
        method,
        path,
        query,
        body,
        addresses_ours,
        success,
    }
}

/// Sends the operation with this Authorization (none, a wrong one, B's).
async fn send(app: &TestApp, op: &Operation, token: Option<&str>) -> Raw {
    let mut request = app
        .client
        .request(op.method.clone(), app.url(&op.path))
        .query(&op.query);
    match &op.body {
        Some((kind, body)) if kind == "application/json" => request = request.json(body),
        Some((kind, body)) => {
            let text = body
                .as_str()
                .map_or_else(|| body.to_string(), str::to_owned);
            request = request.header("content-type", kind.as_str()).body(text);
        }
        None => {}
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status();
    let headers = response.headers().clone();
    let content_type = headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    // An event stream never ends: its first event is enough to search for A's data.
    let text = if content_type == "text/event-stream" {
        first_chunk(response).await
    } else {
        response.text().await.expect("a body")
    };
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    Raw {
        reply: Reply {
            status,
            content_type,
            headers,
            body,
        },
        text,
    }
}

async fn first_chunk(mut response: reqwest::Response) -> String {
    let chunk = tokio::time::timeout(std::time::Duration::from_secs(30), response.chunk())
        .await
        .expect("a stream's first event within 30 s")
        .expect("the stream reads")
        .unwrap_or_default();
    String::from_utf8_lossy(&chunk).into_owned()
}

/// None of A's ids or names anywhere in the answer.
fn assert_no_trace(op: &Operation, raw: &Raw, a: &Seeded) {
    for trace in a.traces() {
        assert!(
            !raw.text.contains(trace),
            "{} leaks {trace:?} of another club: {}",
            op.key,
            raw.text
        );
    }
}

/// The walk covers every `/v1` operation that exists today.
fn assert_the_walk_is_complete(doc: &Value, operations: &[Operation]) {
    let walked: BTreeSet<&str> = operations.iter().map(|op| op.key.as_str()).collect();
    assert!(!walked.is_empty(), "no secured operation in the document");
    for expected in SECURED_TODAY {
        assert!(
            walked.contains(expected),
            "{expected} was not walked; walked: {walked:?}"
        );
    }
    // With the one public `/v1` operation, the 22 that exist today.
    let v1 = doc["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .filter(|(path, _)| path.starts_with("/v1/"))
        .flat_map(|(_, item)| item.as_object().expect("a path item").keys())
        .filter(|method| Method::from_bytes(method.to_uppercase().as_bytes()).is_ok())
        .count();
    assert!(v1 >= 22, "only {v1} /v1 operations in the document");
    assert!(walked.len() >= v1 - 1, "walked {walked:?} of {v1}");
}

async fn every_secured_operation_refuses_a_missing_or_wrong_token(app: TestApp) {
    // Arrange
    let a = seed_club_a(&app).await;
    let doc = openapi(&app).await;
    let operations = secured_operations(&doc, &a);
    assert_the_walk_is_complete(&doc, &operations);
    // A's own club id with a wrong secret, A's issued token and share ids with wrong secrets,
    // and garbage.
    let forged = format!("tt.{}.{}", a.club.id, "0".repeat(64));
    let forged_token = format!("tk.{}.{}", a.read_token_id, "0".repeat(64));
    let forged_share = format!("ts.{}.{}", a.share_id, "0".repeat(64));
    let before = app
        .get(&format!("/v1/games/{}", a.game_id), Some(&a.club.token))
        .await
        .body;

    for op in &operations {
        // Act
        let missing = send(&app, op, None).await;
        let wrong = send(&app, op, Some(&forged)).await;
        let garbage = send(&app, op, Some("nonsense")).await;
        let wrong_token = send(&app, op, Some(&forged_token)).await;
        let wrong_share = send(&app, op, Some(&forged_share)).await;

        // Assert
        for (what, raw) in [
            ("no token", &missing),
            ("a forged token", &wrong),
            ("a garbage token", &garbage),
            ("a forged issued token", &wrong_token),
            ("a forged share link", &wrong_share),
        ] {
            assert_eq!(
                raw.reply.status,
                StatusCode::UNAUTHORIZED,
                "{} with {what}: {}",
                op.key,
                raw.text
            );
            raw.reply.problem(401);
            assert_no_trace(op, raw, &a);
        }
        assert_eq!(
            missing
                .reply
                .headers
                .get("www-authenticate")
                .map(|v| v.as_bytes()),
            Some(&b"Bearer"[..]),
            "{} without a token",
            op.key
        );
    }
    // Nothing was written on A's game.
    let after = app
        .get(&format!("/v1/games/{}", a.game_id), Some(&a.club.token))
        .await
        .body;
    assert_eq!(after, before);
}

async fn every_secured_operation_shows_another_club_nothing_of_ours(app: TestApp) {
    // Arrange
    let a = seed_club_a(&app).await;
    let b = app.new_club().await;
    // A third club walks with an admin token it issued (a token kind of its own).
    let c = app.new_club().await;
    let c_admin = app
        .post(
            "/v1/tokens",
            Some(&c.token),
            &json!({"name": "Cy's organiser phone", "scope": "admin"}),
        )
        .await;
    assert_eq!(c_admin.status, StatusCode::CREATED, "{}", c_admin.body);
    let c_admin = c_admin.body["token"].as_str().expect("token").to_owned();
    let doc = openapi(&app).await;
    let operations = secured_operations(&doc, &a);
    assert_the_walk_is_complete(&doc, &operations);
    let before = app
        .get(&format!("/v1/games/{}", a.game_id), Some(&a.club.token))
        .await
        .body;
    let events_before = app
        .get(
            &format!("/v1/games/{}/events", a.game_id),
            Some(&a.club.token),
        )
        .await
        .body;

    for (token, whose) in [
        (&b.token, "another club's token"),
        (&c_admin, "an admin token another club issued"),
    ] {
        for op in &operations {
            // Act
            let raw = send(&app, op, Some(token)).await;

            // Assert
            if op.addresses_ours {
                // A's game or player does not exist for B (or C).
                assert_eq!(
                    raw.reply.status,
                    StatusCode::NOT_FOUND,
                    "{} with {whose}: {}",
                    op.key,
                    raw.text
                );
                raw.reply.problem(404);
            } else {
                // A collection, a statistic or a creation: B's (or C's) own (empty) data.
                assert_eq!(
                    raw.reply.status.as_u16(),
                    op.success,
                    "{} with {whose}: {}",
                    op.key,
                    raw.text
                );
            }
            assert_no_trace(op, &raw, &a);
        }
    }

    // B's attempts on A's game (the POSTs among them) changed nothing: same version, same log.
    let after = app
        .get(&format!("/v1/games/{}", a.game_id), Some(&a.club.token))
        .await
        .body;
    let events_after = app
        .get(
            &format!("/v1/games/{}/events", a.game_id),
            Some(&a.club.token),
        )
        .await
        .body;
    assert_eq!(after["version"], 4, "game_started + 3 rounds");
    assert_eq!(after["version"], before["version"]);
    assert_eq!(after, before);
    assert_eq!(events_after, events_before);
    // Nor could B revoke A's token or share link.
    let still = app
        .get(&format!("/v1/games/{}", a.game_id), Some(&a.read_token))
        .await;
    assert_eq!(still.status, StatusCode::OK);
    let shared = app
        .get(&format!("/v1/games/{}", a.game_id), Some(&a.share_token))
        .await;
    assert_eq!(shared.status, StatusCode::OK);
}

/// A's game and log as A sees them, to compare before and after a walk.
async fn a_state(app: &TestApp, a: &Seeded) -> (Value, Value) {
    let game = app
        .get(&format!("/v1/games/{}", a.game_id), Some(&a.club.token))
        .await
        .body;
    let events = app
        .get(
            &format!("/v1/games/{}/events", a.game_id),
            Some(&a.club.token),
        )
        .await
        .body;
    (game, events)
}

async fn a_read_token_reads_every_operation_and_changes_nothing(app: TestApp) {
    // Arrange
    let a = seed_club_a(&app).await;
    let doc = openapi(&app).await;
    let operations = secured_operations(&doc, &a);
    assert_the_walk_is_complete(&doc, &operations);
    let before = a_state(&app, &a).await;

    for op in &operations {
        // Act
        let raw = send(&app, op, Some(&a.read_token)).await;

        // Assert: every read answers (token management is the admin's), every write is 403.
        let manages_tokens = op.path.starts_with("/v1/tokens");
        if op.method == Method::GET && !manages_tokens {
            assert_eq!(
                raw.reply.status.as_u16(),
                op.success,
                "{} with a read token: {}",
                op.key,
                raw.text
            );
        } else {
            assert_eq!(
                raw.reply.status,
                StatusCode::FORBIDDEN,
                "{} with a read token: {}",
                op.key,
                raw.text
            );
            raw.reply.problem(403);
        }
    }

    // Nothing changed, and the token was not revoked by its own DELETE.
    assert_eq!(a_state(&app, &a).await, before);
    let still = app.get("/v1/games", Some(&a.read_token)).await;
    assert_eq!(still.status, StatusCode::OK);
}

async fn a_share_link_reads_its_game_in_every_operation_and_nothing_else(app: TestApp) {
    // Arrange: a second game of A's, which the link does not share.
    let a = seed_club_a(&app).await;
    let doc = openapi(&app).await;
    let operations = secured_operations(&doc, &a);
    assert_the_walk_is_complete(&doc, &operations);
    let before = a_state(&app, &a).await;
    let shared: BTreeSet<&str> = [
        "GET /v1/games/{id}",
        "GET /v1/games/{id}/events",
        "GET /v1/games/{id}/score",
        "GET /v1/games/{id}/stream",
    ]
    .into();

    let mut read = BTreeSet::new();
    for op in &operations {
        // Act
        let raw = send(&app, op, Some(&a.share_token)).await;

        // Assert
        if shared.contains(op.key.as_str()) {
            assert_eq!(
                raw.reply.status,
                StatusCode::OK,
                "{} with a share link: {}",
                op.key,
                raw.text
            );
            read.insert(op.key.as_str());
        } else {
            assert_eq!(
                raw.reply.status,
                StatusCode::NOT_FOUND,
                "{} with a share link: {}",
                op.key,
                raw.text
            );
            raw.reply.problem(404);
            // Not even the club's or the players' ids.
            for trace in [a.club.id.as_str(), a.player_ids[0].as_str()] {
                assert!(!raw.text.contains(trace), "{} leaks {trace}", op.key);
            }
        }
    }

    assert_eq!(read, shared);
    assert_eq!(a_state(&app, &a).await, before);
}
