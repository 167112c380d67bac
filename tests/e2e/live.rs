//! The live table over HTTP: a game's stream, resuming it, the lobby, the club's log in global
//! order, and on PostgreSQL streams fed by another server.

use std::time::Duration;

use serde_json::{Value, json};
use sqlx::Connection;

use crate::helpers::{Backend, TestApp, TestClub, event, expect_totals, spawn_app_with, totals};
use crate::mint_condition::{new_game, round_1, round_2, round_3};
use crate::on_both_backends;

/// How long a test waits for an event before it fails (a hang guard, not a speed target).
const PATIENCE: Duration = Duration::from_secs(30);

/// One server-sent event.
#[derive(Debug)]
pub struct Sse {
    pub event: String,
    pub id: Option<i64>,
    pub data: Value,
}

/// An open event stream, read block by block.
pub struct EventStream {
    response: reqwest::Response,
    buffer: String,
    /// Bytes of a character a chunk ended inside of (French and Persian words).
    partial: Vec<u8>,
    /// Comment lines (heartbeats) seen so far.
    pub comments: usize,
    /// The answer's `Content-Language`.
    pub language: String,
}

impl EventStream {
    pub async fn open(app: &TestApp, path: &str, token: &str, last_event_id: Option<i64>) -> Self {
        let mut request = app.client.get(app.url(path)).bearer_auth(token);
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id.to_string());
        }
        let response = request.send().await.expect("the server answers");
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(
            response.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        let language = response
            .headers()
            .get("content-language")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        Self {
            response,
            buffer: String::new(),
            partial: Vec::new(),
            comments: 0,
            language,
        }
    }

    /// A chunk's text, a character cut at its end kept for the next chunk.
    fn text_of(&mut self, chunk: &[u8]) -> String {
        self.partial.extend_from_slice(chunk);
        let valid = match std::str::from_utf8(&self.partial) {
            Ok(_) => self.partial.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(e) => panic!("the stream is not UTF-8: {e}"),
        };
        let rest = self.partial.split_off(valid);
        String::from_utf8(std::mem::replace(&mut self.partial, rest)).expect("checked UTF-8")
    }

    /// The next event (comments counted and skipped); `None` when the server closed the stream.
    pub async fn next(&mut self) -> Option<Sse> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut sse = Sse {
                    event: "message".into(),
                    id: None,
                    data: Value::Null,
                };
                let mut data = String::new();
                for line in block.lines() {
                    if line.starts_with(':') {
                        self.comments += 1;
                    } else if let Some(v) = line.strip_prefix("event: ") {
                        sse.event = v.to_owned();
                    } else if let Some(v) = line.strip_prefix("id: ") {
                        sse.id = Some(v.parse().expect("a numeric id"));
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        data.push_str(v);
                    }
                }
                if data.is_empty() {
                    continue; // a comment only
                }
                sse.data = serde_json::from_str(&data).expect("JSON data");
                return Some(sse);
            }
            let chunk = tokio::time::timeout(PATIENCE, self.response.chunk())
                .await
                .expect("an event within the patience")
                .expect("the stream reads");
            match chunk {
                Some(bytes) => {
                    let text = self.text_of(&bytes);
                    self.buffer.push_str(&text);
                }
                None => return None,
            }
        }
    }

    /// The next event, which must exist.
    pub async fn expect(&mut self) -> Sse {
        self.next().await.expect("the stream is still open")
    }

    /// Waits for a heartbeat comment.
    pub async fn heartbeat(&mut self) {
        let before = self.comments;
        while self.comments == before {
            let chunk = tokio::time::timeout(PATIENCE, self.response.chunk())
                .await
                .expect("a heartbeat within the patience")
                .expect("the stream reads")
                .expect("the stream is open");
            let text = self.text_of(&chunk);
            self.comments += text.lines().filter(|l| l.starts_with(':')).count();
            self.buffer.push_str(&text);
        }
    }
}

on_both_backends!(
    a_follower_sees_every_append_in_order_with_the_new_scoreboard,
    a_resume_from_any_version_delivers_the_rest_of_the_log_exactly_once,
    a_dropped_connection_resumes_with_what_it_missed_then_live_appends,
    the_lobby_reports_games_created_finished_abandoned_and_resumed,
    the_clubs_log_in_global_order_catches_up_then_the_lobby_follows,
    a_stalled_follower_does_not_hold_up_appends_or_other_followers,
    an_idle_stream_sends_heartbeats,
    a_stream_busy_with_appends_sends_no_heartbeat_until_it_goes_quiet,
    a_stream_refuses_another_clubs_game_and_a_bad_last_event_id,
    a_last_event_id_beyond_the_games_version_starts_again_with_a_snapshot,
    streams_over_the_clubs_limit_are_refused_with_429,
    a_share_links_streams_never_lock_the_club_out_and_a_closed_stream_frees_its_place_at_once,
    a_lobby_resumed_beyond_the_clubs_log_starts_again_from_its_beginning,
    streams_over_the_servers_limit_are_refused_with_503,
    a_follower_on_one_server_sees_appends_made_on_another,
    a_lost_listening_connection_misses_nothing,
    one_clubs_appends_commit_side_by_side_and_its_log_waits_for_those_in_flight,
    an_append_waits_for_a_reader_settling_its_clubs_positions_but_not_another_clubs,
    an_append_whose_phone_hangs_up_midway_still_reaches_the_followers,
);

/// The scripted game: created (v1), round 1 (v2), round 2 (v3), round 2 retracted (v4), then
/// round 2 again and round 3 in one request (v5–v6, finished). Totals (mint_condition.rs):
/// round 1 → Ann 23, Bo 12, Cy 14; + round 2 → 34 / 34 / 26; + round 3 → 51 / 41 / 38.
async fn play_scripted(app: &TestApp, club: &TestClub, game: &str) {
    let requests = [
        (1, vec![event("round_collected", round_1())]),
        (2, vec![event("round_collected", round_2())]),
        (
            3,
            vec![event("retract", json!({"seq": 3, "reason": "wrong round"}))],
        ),
        (
            4,
            vec![
                event("round_collected", round_2()),
                event("round_collected", round_3()),
            ],
        ),
    ];
    for (version, events) in requests {
        let reply = app.append(club, game, Some(version), events).await;
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
}

/// The totals after each version of the scripted game.
fn scripted_totals(version: i64) -> Vec<(String, i64)> {
    match version {
        1 => expect_totals(&[("Ann", 0), ("Bo", 0), ("Cy", 0)]),
        2 | 4 => expect_totals(&[("Ann", 23), ("Bo", 12), ("Cy", 14)]),
        3 | 5 => expect_totals(&[("Ann", 34), ("Bo", 34), ("Cy", 26)]),
        6 => expect_totals(&[("Ann", 51), ("Bo", 41), ("Cy", 38)]),
        other => panic!("the scripted game has no version {other}"),
    }
}

fn seqs(frame: &Sse) -> Vec<i64> {
    frame.data["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["seq"].as_i64().unwrap())
        .collect()
}

async fn a_follower_sees_every_append_in_order_with_the_new_scoreboard(app: TestApp) {
    // Arrange
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let mut stream =
        EventStream::open(&app, &format!("/v1/games/{game}/stream"), &club.token, None).await;

    // Act
    play_scripted(&app, &club, &game).await;

    // Assert
    let snapshot = stream.expect().await;
    assert_eq!(snapshot.event, "snapshot");
    assert_eq!(snapshot.id, Some(1));
    assert_eq!(snapshot.data["game"]["id"], game.as_str());
    assert_eq!(snapshot.data["game"]["version"], 1);
    assert_eq!(totals(&snapshot.data["score"]), scripted_totals(1));
    let mut seen = Vec::new();
    for (version, expected_seqs, types) in [
        (2, vec![2], vec!["round_collected"]),
        (3, vec![3], vec!["round_collected"]),
        (4, vec![4], vec!["retract"]),
        (6, vec![5, 6], vec!["round_collected", "round_collected"]),
    ] {
        let frame = stream.expect().await;
        assert_eq!(frame.event, "appended");
        assert_eq!(frame.id, Some(version));
        assert_eq!(frame.data["version"], version);
        assert_eq!(seqs(&frame), expected_seqs);
        let got: Vec<&str> = frame.data["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["type"].as_str().unwrap())
            .collect();
        assert_eq!(got, types);
        assert_eq!(totals(&frame.data["score"]), scripted_totals(version));
        seen.push(frame);
    }
    let last = &seen[3].data["score"];
    assert_eq!(last["status"], "finished");
    assert_eq!(last["final"], true);
    // Mint Condition: the least damage wins.
    assert_eq!(last["winners"], json!(["Cy"]));
    // The stream's events are the stored ones.
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(seen[3].data["events"][1]["id"], log.body["events"][5]["id"]);
    assert_eq!(
        seen[3].data["events"][1]["position"],
        log.body["events"][5]["position"]
    );
}

async fn a_resume_from_any_version_delivers_the_rest_of_the_log_exactly_once(app: TestApp) {
    // Arrange
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    play_scripted(&app, &club, &game).await;

    for last_seen in 0..6 {
        // Act: a client that last received version `last_seen` comes back.
        let mut stream = EventStream::open(
            &app,
            &format!("/v1/games/{game}/stream"),
            &club.token,
            Some(last_seen),
        )
        .await;
        let mut delivered = Vec::new();
        while delivered.last() != Some(&6) {
            let frame = stream.expect().await;
            // Assert: appends only (no snapshot), each with the scoreboard of its version.
            assert_eq!(frame.event, "appended", "after {last_seen}");
            let version = frame.id.expect("an id");
            assert_eq!(totals(&frame.data["score"]), scripted_totals(version));
            delivered.extend(seqs(&frame));
        }

        // Assert: the rest of the log, in order, none twice, none missing.
        assert_eq!(
            delivered,
            ((last_seen + 1)..=6).collect::<Vec<_>>(),
            "after {last_seen}"
        );
    }
}

async fn a_dropped_connection_resumes_with_what_it_missed_then_live_appends(app: TestApp) {
    // Arrange: a follower receives the snapshot and round 1, then loses its connection.
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let path = format!("/v1/games/{game}/stream");
    let mut stream = EventStream::open(&app, &path, &club.token, None).await;
    let reply = app
        .append(
            &club,
            &game,
            Some(1),
            vec![event("round_collected", round_1())],
        )
        .await;
    assert_eq!(reply.status, 201);
    assert_eq!(stream.expect().await.event, "snapshot");
    let last = stream.expect().await.id.expect("an id");
    drop(stream);
    // Round 2 while it is away.
    let reply = app
        .append(
            &club,
            &game,
            Some(2),
            vec![event("round_collected", round_2())],
        )
        .await;
    assert_eq!(reply.status, 201);

    // Act
    let mut stream = EventStream::open(&app, &path, &club.token, Some(last)).await;
    let missed = stream.expect().await;
    let reply = app
        .append(
            &club,
            &game,
            Some(3),
            vec![event("round_collected", round_3())],
        )
        .await;
    assert_eq!(reply.status, 201);
    let live = stream.expect().await;

    // Assert
    assert_eq!(last, 2);
    assert_eq!((missed.id, seqs(&missed)), (Some(3), vec![3]));
    assert_eq!(totals(&missed.data["score"]), scripted_totals(3));
    assert_eq!((live.id, seqs(&live)), (Some(4), vec![4]));
    assert_eq!(
        totals(&live.data["score"]),
        expect_totals(&[("Ann", 51), ("Bo", 41), ("Cy", 38)])
    );
    // `?last_event_id=` is the same resume, for clients that cannot set headers.
    let mut by_query =
        EventStream::open(&app, &format!("{path}?last_event_id=3"), &club.token, None).await;
    assert_eq!(seqs(&by_query.expect().await), vec![4]);
}

async fn the_lobby_reports_games_created_finished_abandoned_and_resumed(app: TestApp) {
    // Arrange
    let club = app.new_club().await;
    let mut lobby = EventStream::open(&app, "/v1/stream", &club.token, None).await;

    // Act: one game played to its end, another abandoned and resumed.
    let played = app.new_game(&club, new_game(json!({}))).await;
    for (version, round) in [(1, round_1()), (2, round_2()), (3, round_3())] {
        let reply = app
            .append(
                &club,
                &played,
                Some(version),
                vec![event("round_collected", round)],
            )
            .await;
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
    let left = app.new_game(&club, new_game(json!({}))).await;
    let abandon = app
        .append(
            &club,
            &left,
            Some(1),
            vec![event("abandon", json!({"reason": "pizza"}))],
        )
        .await;
    assert_eq!(abandon.status, 201, "{}", abandon.body);
    let resume = app
        .append(
            &club,
            &left,
            Some(2),
            vec![event("retract", json!({"seq": 2, "reason": "back"}))],
        )
        .await;
    assert_eq!(resume.status, 201, "{}", resume.body);

    // Assert: four changes, rounds 1 and 2 are not lobby news.
    let mut changes = Vec::new();
    for _ in 0..5 {
        let change = lobby.expect().await;
        changes.push((
            change.event.clone(),
            change.data["id"].as_str().unwrap().to_owned(),
            change.data["status"].as_str().unwrap().to_owned(),
            change.data["version"].as_i64().unwrap(),
            change.id.expect("a position"),
        ));
    }
    let kinds: Vec<(&str, &str, &str, i64)> = changes
        .iter()
        .map(|(e, g, s, v, _)| (e.as_str(), g.as_str(), s.as_str(), *v))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("game_created", played.as_str(), "in_progress", 1),
            ("game_finished", played.as_str(), "finished", 4),
            ("game_created", left.as_str(), "in_progress", 1),
            ("game_abandoned", left.as_str(), "abandoned", 2),
            ("game_resumed", left.as_str(), "in_progress", 3),
        ]
    );
    // Each id is the position of the commit's last event.
    assert_eq!(changes[1].4, event_position(&app, &club, &played, 3).await);
    assert_eq!(
        changes[4].4,
        resume.body["events"][0]["position"].as_i64().unwrap()
    );

    // A lobby resumed from the finish gets the three changes after it, in order.
    let mut resumed = EventStream::open(&app, "/v1/stream", &club.token, Some(changes[1].4)).await;
    for expected in &changes[2..] {
        let change = resumed.expect().await;
        assert_eq!(
            (change.event.as_str(), change.id),
            (expected.0.as_str(), Some(expected.4))
        );
    }
}

/// The position of a game's event `index` (0-based) in its log.
async fn event_position(app: &TestApp, club: &TestClub, game: &str, index: usize) -> i64 {
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    log.body["events"][index]["position"].as_i64().unwrap()
}

async fn the_clubs_log_in_global_order_catches_up_then_the_lobby_follows(app: TestApp) {
    // Arrange: two games whose appends interleave, and another club's game.
    let club = app.new_club().await;
    let other = app.new_club().await;
    let first = app.new_game(&club, new_game(json!({}))).await;
    let _theirs = app.new_game(&other, new_game(json!({}))).await;
    let second = app.new_game(&club, new_game(json!({}))).await;
    for (game, version, round) in [
        (&first, 1, round_1()),
        (&second, 1, round_1()),
        (&first, 2, round_2()),
    ] {
        let reply = app
            .append(
                &club,
                game,
                Some(version),
                vec![event("round_collected", round)],
            )
            .await;
        assert_eq!(reply.status, 201, "{}", reply.body);
    }

    // Act: an offline phone syncs in pages of 2.
    let mut after = 0;
    let mut synced = Vec::new();
    loop {
        let page = app
            .get(
                &format!("/v1/events?after={after}&limit=2"),
                Some(&club.token),
            )
            .await;
        assert_eq!(page.status, 200, "{}", page.body);
        let events = page.body["events"].as_array().unwrap().clone();
        after = page.body["next_after"].as_i64().unwrap();
        if events.is_empty() {
            break;
        }
        synced.extend(events);
    }

    // Assert: the club's 5 events in the order they were stored, none of the other club's.
    let order: Vec<(&str, i64, &str)> = synced
        .iter()
        .map(|e| {
            (
                e["game_id"].as_str().unwrap(),
                e["seq"].as_i64().unwrap(),
                e["type"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        order,
        vec![
            (first.as_str(), 1, "game_started"),
            (second.as_str(), 1, "game_started"),
            (first.as_str(), 2, "round_collected"),
            (second.as_str(), 2, "round_collected"),
            (first.as_str(), 3, "round_collected"),
        ]
    );
    let positions: Vec<i64> = synced
        .iter()
        .map(|e| e["position"].as_i64().unwrap())
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    assert_eq!(after, positions[4]);

    // The lobby followed from there reports only what comes next.
    let mut lobby = EventStream::open(&app, "/v1/stream", &club.token, Some(after)).await;
    let third = app.new_game(&club, new_game(json!({}))).await;
    let change = lobby.expect().await;
    assert_eq!(change.event, "game_created");
    assert_eq!(change.data["id"], third.as_str());
}

async fn a_stalled_follower_does_not_hold_up_appends_or_other_followers(app: TestApp) {
    // Arrange: one follower that never reads, one that does.
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let path = format!("/v1/games/{game}/stream");
    let mut stalled = EventStream::open(&app, &path, &club.token, None).await;
    let mut reader = EventStream::open(&app, &path, &club.token, None).await;
    assert_eq!(reader.expect().await.event, "snapshot");

    // Act: 100 appends (abandon and resume, 50 times) while the stalled one reads nothing.
    let mut version = 1;
    for _ in 0..50 {
        for e in [
            event("abandon", json!({"reason": "break"})),
            event("retract", json!({"seq": version + 1, "reason": "back"})),
        ] {
            let reply = app.append(&club, &game, Some(version), vec![e]).await;
            assert_eq!(reply.status, 201, "{}", reply.body);
            version += 1;
        }
    }

    // Assert: every append was accepted (above); the reader got all 100, in order.
    for expected in 2..=101 {
        let frame = reader.expect().await;
        assert_eq!(frame.id, Some(expected));
    }
    // The stalled one gets a gapless prefix: everything up to where it may have been closed
    // for falling behind (then its client resumes with Last-Event-ID).
    let mut next = 1;
    while let Some(frame) = stalled.next().await {
        assert_eq!(frame.id, Some(next), "a gap in the stalled stream");
        if next == 101 {
            break;
        }
        next += 1;
    }
}

/// A server whose streams' heartbeat comes every `period`, a club's new game on it, and that
/// game's stream, opened.
async fn a_followed_game(
    app: TestApp,
    period: Duration,
) -> (TestApp, TestClub, String, EventStream) {
    let app = spawn_app_with(app.backend, |config| {
        config.streams.heartbeat = period;
    })
    .await
    .expect("the backend is configured");
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let stream =
        EventStream::open(&app, &format!("/v1/games/{game}/stream"), &club.token, None).await;
    (app, club, game, stream)
}

async fn an_idle_stream_sends_heartbeats(app: TestApp) {
    // Arrange + Act: a heartbeat every 100 ms instead of 10 s, two of them waited for.
    let (_app, _club, _game, mut stream) = a_followed_game(app, Duration::from_millis(100)).await;
    stream.heartbeat().await;
    stream.heartbeat().await;

    // Assert: the heartbeats are comments, the stream still carries the snapshot and appends.
    assert!(stream.comments >= 2);
    assert_eq!(stream.expect().await.event, "snapshot");
}

async fn a_stream_busy_with_appends_sends_no_heartbeat_until_it_goes_quiet(app: TestApp) {
    // Arrange: a heartbeat a second, and a stream past its snapshot.
    let (app, club, game, mut stream) = a_followed_game(app, Duration::from_millis(1_000)).await;
    assert_eq!(stream.expect().await.event, "snapshot");

    // Act: appends 150 ms apart for about two heartbeat periods, each followed to the stream.
    for version in 1..=12 {
        // Abandoned, then resumed: the abandon (seq `version`) retracted.
        let (kind, data) = if version % 2 == 1 {
            ("abandon", json!({"reason": "pizza"}))
        } else {
            ("retract", json!({"seq": version, "reason": "back"}))
        };
        let reply = app
            .append(&club, &game, Some(version), vec![event(kind, data)])
            .await;
        assert_eq!(reply.status, 201, "{}", reply.body);
        assert_eq!(stream.expect().await.id, Some(version + 1));
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    let while_busy = stream.comments;
    stream.heartbeat().await;

    // Assert: no heartbeat while frames came, one once they stopped.
    assert_eq!(while_busy, 0);
    assert_eq!(stream.comments, 1);
}

async fn a_stream_refuses_another_clubs_game_and_a_bad_last_event_id(app: TestApp) {
    let club = app.new_club().await;
    let other = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let path = format!("/v1/games/{game}/stream");

    let theirs = app.get(&path, Some(&other.token)).await;
    let garbage = app
        .client
        .get(app.url(&path))
        .bearer_auth(&club.token)
        .header("last-event-id", "soon")
        .send()
        .await
        .expect("an answer");
    let no_token = app.get(&path, None).await;

    theirs.problem(404);
    assert_eq!(garbage.status(), 400);
    let problem: Value = garbage.json().await.unwrap();
    assert_eq!(problem["parameter"], "Last-Event-ID");
    no_token.problem(401);
}

async fn a_last_event_id_beyond_the_games_version_starts_again_with_a_snapshot(app: TestApp) {
    // Given a game at version 2 (a phone held version 9 of a copy restored elsewhere)
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let round = event("round_collected", round_1());
    assert_eq!(
        app.append(&club, &game, Some(1), vec![round]).await.status,
        201
    );
    let path = format!("/v1/games/{game}/stream");

    // When it reconnects with Last-Event-ID 9, by header and by query
    let mut by_header = EventStream::open(&app, &path, &club.token, Some(9)).await;
    let mut by_query =
        EventStream::open(&app, &format!("{path}?last_event_id=9"), &club.token, None).await;

    // Then each stream starts again from a snapshot of version 2 (200, never a refusal that
    // would make a browser stop reconnecting)
    for stream in [&mut by_header, &mut by_query] {
        let first = stream.expect().await;
        assert_eq!(first.event, "snapshot");
        assert_eq!(first.id, Some(2));
        assert_eq!(first.data["game"]["version"], 2);
    }
}

async fn streams_over_the_clubs_limit_are_refused_with_429(app: TestApp) {
    // Arrange: two streams per club at most; heartbeats often, so a closed one is noticed soon.
    let app = spawn_app_with(app.backend, |config| {
        config.streams.per_club = 2;
        config.streams.heartbeat = Duration::from_millis(100);
    })
    .await
    .expect("the backend is configured");
    let club = app.new_club().await;
    let other = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let path = format!("/v1/games/{game}/stream");
    let first = EventStream::open(&app, &path, &club.token, None).await;
    let _second = EventStream::open(&app, "/v1/stream", &club.token, None).await;

    // Act
    let third = app.get("/v1/stream", Some(&club.token)).await;
    let others = EventStream::open(&app, "/v1/stream", &other.token, None).await;
    drop(first);
    drop(others);

    // Assert: the third is refused until one closes; another club is not affected.
    let refused = third.problem(429);
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("2 open streams")
    );
    assert_eq!(third.headers["retry-after"], "5");
    let mut reopened = None;
    for _ in 0..100 {
        // The server notices the closed connection when it next writes; give it a moment.
        let reply = app
            .client
            .get(app.url(&path))
            .bearer_auth(&club.token)
            .send()
            .await
            .unwrap();
        if reply.status() == 200 {
            reopened = Some(reply);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        reopened.is_some(),
        "a stream is admitted again once one closes"
    );
}

async fn streams_over_the_servers_limit_are_refused_with_503(app: TestApp) {
    // Arrange: one stream per server.
    let app = spawn_app_with(app.backend, |config| config.streams.per_server = 1)
        .await
        .expect("the backend is configured");
    let club = app.new_club().await;
    let other = app.new_club().await;
    let _open = EventStream::open(&app, "/v1/stream", &club.token, None).await;

    // Act
    let refused = app.get("/v1/stream", Some(&other.token)).await;

    // Assert: another club is refused too; the server, not the club, is full.
    let problem = refused.problem(503);
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("this server has 1 open streams")
    );
    assert_eq!(refused.headers["retry-after"], "5");
}

/// PostgreSQL only: a second server on the same database.
async fn a_follower_on_one_server_sees_appends_made_on_another(app: TestApp) {
    if app.backend == Backend::Sqlite {
        return; // one SQLite file is served by one process
    }
    // Arrange
    let other_server = app.second_server().await;
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let mut stream =
        EventStream::open(&app, &format!("/v1/games/{game}/stream"), &club.token, None).await;
    let mut lobby = EventStream::open(&app, "/v1/stream", &club.token, None).await;
    assert_eq!(stream.expect().await.event, "snapshot");

    // Act: the whole scripted game on the other server.
    play_scripted(&other_server, &club, &game).await;

    // Assert
    let mut delivered = Vec::new();
    while delivered.last() != Some(&6) {
        let frame = stream.expect().await;
        assert_eq!(
            totals(&frame.data["score"]),
            scripted_totals(frame.id.unwrap())
        );
        delivered.extend(seqs(&frame));
    }
    assert_eq!(delivered, vec![2, 3, 4, 5, 6]);
    let finished = lobby.expect().await;
    assert_eq!(finished.event, "game_finished");
    assert_eq!(finished.data["id"], game.as_str());
}

/// PostgreSQL only: the listening connection is killed in the middle of a game.
async fn a_lost_listening_connection_misses_nothing(app: TestApp) {
    if app.backend == Backend::Sqlite {
        return;
    }
    // Arrange: follower on this server, appends on another; round 1 arrives.
    let other_server = app.second_server().await;
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let mut stream =
        EventStream::open(&app, &format!("/v1/games/{game}/stream"), &club.token, None).await;
    assert_eq!(stream.expect().await.event, "snapshot");
    let reply = other_server
        .append(
            &club,
            &game,
            Some(1),
            vec![event("round_collected", round_1())],
        )
        .await;
    assert_eq!(reply.status, 201);
    assert_eq!(stream.expect().await.id, Some(2));

    // Act: kill every listening connection of the database, then play on at once.
    let mut admin = sqlx::PgConnection::connect(&app.database_url)
        .await
        .expect("connect");
    let killed: Vec<(bool,)> = sqlx::query_as(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE application_name = 'tabletally-listen' AND datname = current_database()",
    )
    .fetch_all(&mut admin)
    .await
    .expect("terminate");
    for (version, round) in [(2, round_2()), (3, round_3())] {
        let reply = other_server
            .append(
                &club,
                &game,
                Some(version),
                vec![event("round_collected", round)],
            )
            .await;
        assert_eq!(reply.status, 201, "{}", reply.body);
    }

    // Assert: both listeners were killed, and rounds 2 and 3 still arrive, once each.
    assert_eq!(killed, vec![(true,), (true,)]);
    let mut delivered = Vec::new();
    while delivered.last() != Some(&4) {
        delivered.extend(seqs(&stream.expect().await));
    }
    assert_eq!(delivered, vec![3, 4]);
    let score = app.score(&club, &game).await;
    assert_eq!(
        totals(&score),
        expect_totals(&[("Ann", 51), ("Bo", 41), ("Cy", 38)])
    );
}

async fn one_clubs_appends_commit_side_by_side_and_its_log_waits_for_those_in_flight(app: TestApp) {
    if app.backend == Backend::Sqlite {
        return; // one writer: its commits are in position order anyway
    }
    // Arrange: a club with two games; the first has an append between its event's insert and
    // its commit (the club's positions lock taken shared, as the store takes it, then its
    // position drawn).
    let club = app.new_club().await;
    let first = app.new_game(&club, new_game(json!({}))).await;
    let second = app.new_game(&club, new_game(json!({}))).await;
    let synced = app.get("/v1/events?after=0", Some(&club.token)).await;
    let synced_to = synced.body["next_after"].as_i64().unwrap();
    let mut in_flight = holding_positions_lock(&app, &club, "pg_advisory_xact_lock_shared").await;
    let pending: i64 = sqlx::query_scalar(
        "INSERT INTO events (game_id, seq, event_id, type, schema_version, data, recorded_at) \
         VALUES ($1, 2, $2, 'round_collected', 1, $3, now()) RETURNING position",
    )
    .bind(&first)
    .bind(uuid::Uuid::new_v4().to_string())
    .bind(round_1().to_string())
    .fetch_one(&mut in_flight)
    .await
    .expect("the pending event");
    sqlx::query("UPDATE games SET version = 2 WHERE id = $1")
        .bind(&first)
        .execute(&mut in_flight)
        .await
        .expect("the pending version");

    // Act: a phone that has synced everything asks again; an append to the other game; then a
    // phone catching up on the club's log while the first append is still in flight, which
    // then commits.
    let nothing_new = tokio::time::timeout(
        PATIENCE / 6,
        app.get(&format!("/v1/events?after={synced_to}"), Some(&club.token)),
    )
    .await
    .expect("nothing new is answered at once, with nothing to wait for");
    let appended = tokio::time::timeout(
        PATIENCE,
        app.append(
            &club,
            &second,
            Some(1),
            vec![event("round_collected", round_1())],
        ),
    )
    .await;
    let catch_up = app.get("/v1/events?after=0", Some(&club.token));
    tokio::pin!(catch_up);
    let waited = tokio::time::timeout(Duration::from_millis(500), &mut catch_up).await;
    sqlx::query("COMMIT")
        .execute(&mut in_flight)
        .await
        .expect("commit");
    let read_in_flight = waited.is_ok();
    let caught_up = match waited {
        Ok(reply) => reply,
        Err(_) => tokio::time::timeout(PATIENCE, catch_up)
            .await
            .expect("the catch-up answered after the commit"),
    };

    // Assert: nothing new for the synced phone; the append committed beside the one in
    // flight, at a later position; the log answered only once the earlier position had
    // committed, and holds both, in order.
    assert_eq!(nothing_new.status, 200, "{}", nothing_new.body);
    assert_eq!(nothing_new.body["events"], json!([]));
    let appended = appended.expect("the append waited for another append's commit");
    assert_eq!(appended.status, 201, "{}", appended.body);
    let later = appended.body["events"][0]["position"].as_i64().unwrap();
    assert!(later > pending, "{later} after {pending}");
    assert!(
        !read_in_flight,
        "the log was read past an append still in flight"
    );
    assert_eq!(caught_up.status, 200, "{}", caught_up.body);
    let positions: Vec<i64> = caught_up.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["position"].as_i64().unwrap())
        .collect();
    assert_eq!(positions.len(), 4, "{positions:?}"); // two creations, then the two rounds
    assert_eq!(positions[2..], [pending, later]);
}

async fn an_append_waits_for_a_reader_settling_its_clubs_positions_but_not_another_clubs(
    app: TestApp,
) {
    if app.backend == Backend::Sqlite {
        return; // one writer: every commit is in order anyway
    }
    // Arrange: two clubs at play; club A's positions lock is held alone, as a reader of A's
    // log holds it while it settles A's positions (the store's appends take it shared).
    let (a, b) = (app.new_club().await, app.new_club().await);
    let (game_a, game_b) = (
        app.new_game(&a, new_game(json!({}))).await,
        app.new_game(&b, new_game(json!({}))).await,
    );
    let mut in_flight = holding_positions_lock(&app, &a, "pg_advisory_xact_lock").await;

    // Act: an append in each club.
    let round = || vec![event("round_collected", round_1())];
    let other_club =
        tokio::time::timeout(PATIENCE, app.append(&b, &game_b, Some(1), round())).await;
    let same_club = app.append(&a, &game_a, Some(1), round());
    tokio::pin!(same_club);
    let waited = tokio::time::timeout(Duration::from_millis(500), &mut same_club).await;
    sqlx::query("COMMIT")
        .execute(&mut in_flight)
        .await
        .expect("commit");
    let after_commit = tokio::time::timeout(PATIENCE, same_club).await;

    // Assert: club B's went through while A's lock was held; A's waited for it (its position
    // must not be drawn while a reader settles), then went through.
    assert_eq!(other_club.expect("club B did not wait").status, 201);
    assert!(
        waited.is_err(),
        "club A's append did not wait for a reader settling its club's positions"
    );
    assert_eq!(
        after_commit
            .expect("club A went on once the lock was released")
            .status,
        201
    );
}

async fn an_append_whose_phone_hangs_up_midway_still_reaches_the_followers(app: TestApp) {
    // Arrange: a game followed by a phone; the writes held up in the database (PostgreSQL: the
    // club's positions lock held alone; SQLite: its write lock), so that an append waits there.
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let mut stream =
        EventStream::open(&app, &format!("/v1/games/{game}/stream"), &club.token, None).await;
    assert_eq!(stream.expect().await.event, "snapshot");
    let mut held = HeldWrites::take(&app, &club).await;

    // Act: a phone sends round 1 and loses its network while its append waits; then the
    // writes go on.
    let body = json!({"expected_version": 1, "events": [event("round_collected", round_1())]});
    let body = body.to_string();
    let mut phone = tokio::net::TcpStream::connect(app.address.trim_start_matches("http://"))
        .await
        .expect("connect");
    let request = format!(
        "POST /v1/games/{game}/events HTTP/1.1\r\nHost: tabletally\r\n\
         Authorization: Bearer {}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        club.token,
        body.len()
    );
    tokio::io::AsyncWriteExt::write_all(&mut phone, request.as_bytes())
        .await
        .expect("the request is sent");
    held.wait_for_a_write().await;
    // A reset, as a lost network gives (a plain close still had the answer awaited). With no
    // lingering, the drop does not block.
    #[allow(deprecated)]
    phone.set_linger(Some(Duration::ZERO)).expect("linger");
    drop(phone);
    tokio::time::sleep(Duration::from_millis(200)).await;
    held.release().await;

    // Assert: round 1 is stored, and the follower hears of it.
    let frame = tokio::time::timeout(Duration::from_secs(10), stream.expect())
        .await
        .expect("the follower hears of the append whose phone hung up");
    assert_eq!(frame.event, "appended");
    assert_eq!(frame.data["version"], 2);
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(
        log.body["events"].as_array().map(Vec::len),
        Some(2),
        "{}",
        log.body
    );
}

/// A transaction that holds up the server's writes until released.
enum HeldWrites {
    Postgres(sqlx::PgConnection),
    Sqlite(sqlx::SqliteConnection),
}

impl HeldWrites {
    async fn take(app: &TestApp, club: &TestClub) -> Self {
        match app.backend {
            Backend::Postgres => {
                Self::Postgres(holding_positions_lock(app, club, "pg_advisory_xact_lock").await)
            }
            Backend::Sqlite => {
                let mut conn = sqlx::SqliteConnection::connect(&app.database_url)
                    .await
                    .expect("connect");
                sqlx::query("BEGIN IMMEDIATE")
                    .execute(&mut conn)
                    .await
                    .expect("the write lock");
                Self::Sqlite(conn)
            }
        }
    }

    /// Returns once a write waits behind the held one (SQLite shows none: a while).
    async fn wait_for_a_write(&mut self) {
        match self {
            Self::Postgres(conn) => {
                for _ in 0..200 {
                    let waiting: i64 = sqlx::query_scalar(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted \
                         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
                    )
                    .fetch_one(&mut *conn)
                    .await
                    .expect("the locks");
                    if waiting > 0 {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                panic!("no write came to wait behind the held lock within 10 s");
            }
            Self::Sqlite(_) => tokio::time::sleep(Duration::from_secs(1)).await,
        }
    }

    async fn release(self) {
        match self {
            Self::Postgres(mut conn) => {
                sqlx::query("COMMIT")
                    .execute(&mut conn)
                    .await
                    .expect("commit");
            }
            Self::Sqlite(mut conn) => {
                sqlx::query("COMMIT")
                    .execute(&mut conn)
                    .await
                    .expect("commit");
            }
        }
    }
}

/// A transaction holding the club's positions lock (PostgreSQL) as the store takes it: `lock`
/// is `pg_advisory_xact_lock_shared` (an append) or `pg_advisory_xact_lock` (a reader settling).
async fn holding_positions_lock(app: &TestApp, club: &TestClub, lock: &str) -> sqlx::PgConnection {
    let mut conn = sqlx::PgConnection::connect(&app.database_url)
        .await
        .expect("connect");
    sqlx::query("BEGIN")
        .execute(&mut conn)
        .await
        .expect("begin");
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {lock}(7461626, hashtext($1))"
    )))
    .bind(&club.id)
    .execute(&mut conn)
    .await
    .expect("the club's positions lock");
    conn
}

async fn a_share_links_streams_never_lock_the_club_out_and_a_closed_stream_frees_its_place_at_once(
    app: TestApp,
) {
    // Given at most two streams for the club's own phones and two per share link, heartbeats
    // at their usual 10 s (a closed stream must not wait for one to be noticed)
    let app = spawn_app_with(app.backend, |config| {
        config.streams.per_club = 2;
        config.streams.per_share = 2;
    })
    .await
    .expect("the backend is configured");
    let club = app.new_club().await;
    let game = app.new_game(&club, new_game(json!({}))).await;
    let path = format!("/v1/games/{game}/stream");
    let share = app
        .post(
            &format!("/v1/games/{game}/shares"),
            Some(&club.token),
            &json!({}),
        )
        .await;
    assert_eq!(share.status, 201, "{}", share.body);
    let link = share.body["token"].as_str().unwrap().to_owned();

    // When the link opens its two streams and asks for a third
    let _guests = [
        EventStream::open(&app, &path, &link, None).await,
        EventStream::open(&app, &path, &link, None).await,
    ];
    let third_guest = app.get(&path, Some(&link)).await;

    // Then the link is refused, and the club's own phones still open theirs
    let refused = third_guest.problem(429);
    assert_eq!(
        refused["detail"],
        "this share link has 2 open streams, the most allowed; close one or retry later"
    );
    let first = EventStream::open(&app, &path, &club.token, None).await;
    let _second = EventStream::open(&app, "/v1/stream", &club.token, None).await;
    app.get("/v1/stream", Some(&club.token)).await.problem(429);

    // And a phone that closes its stream gives its place back within two seconds
    drop(first);
    let started = std::time::Instant::now();
    loop {
        let reply = app
            .client
            .get(app.url(&path))
            .bearer_auth(&club.token)
            .send()
            .await
            .unwrap();
        if reply.status() == 200 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "the closed stream's place was still taken after 2 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn a_lobby_resumed_beyond_the_clubs_log_starts_again_from_its_beginning(app: TestApp) {
    // Given a club with two games (a phone held position 2^63 − 1 of a copy restored elsewhere)
    let club = app.new_club().await;
    let first = app.new_game(&club, new_game(json!({}))).await;
    let second = app.new_game(&club, new_game(json!({}))).await;

    // When its lobby is resumed from there
    let mut lobby = EventStream::open(&app, "/v1/stream", &club.token, Some(i64::MAX)).await;

    // Then it tells every game's news again, from the start, and then what comes next
    let a = lobby.expect().await;
    let b = lobby.expect().await;
    assert_eq!(
        (a.event.as_str(), &a.data["id"]),
        ("game_created", &json!(first))
    );
    assert_eq!(
        (b.event.as_str(), &b.data["id"]),
        ("game_created", &json!(second))
    );
    let third = app.new_game(&club, new_game(json!({}))).await;
    let c = lobby.expect().await;
    assert_eq!(c.data["id"], json!(third));
    assert!(c.id > b.id, "{:?} then {:?}", b.id, c.id);
}
