//! Every error is application/problem+json that names what was wrong.

use std::io::{Read, Write};

use serde_json::json;

use crate::helpers::{TestApp, spawn_app_with};
use crate::on_both_backends;

on_both_backends!(
    malformed_json_is_a_bad_request,
    a_body_of_the_wrong_shape_names_the_field,
    a_body_that_is_not_json_is_unsupported,
    an_oversized_body_is_too_large,
    an_unknown_route_is_not_found,
    an_unknown_game_is_unprocessable,
    a_bad_player_count_is_unprocessable,
    a_bad_option_names_the_option,
    a_bad_query_parameter_is_a_bad_request,
    too_many_events_in_one_request_are_refused,
    too_many_clubs_from_one_address_are_throttled,
    a_forwarded_address_counts_only_from_a_trusted_proxy,
    names_that_show_nothing_or_read_as_another_are_refused_everywhere,
    a_body_sent_a_byte_at_a_time_is_cut_off_with_408,
    one_address_holds_at_most_its_share_of_requests_and_health_checks_still_answer,
    a_database_that_does_not_answer_is_answered_503_in_seconds,
    a_client_that_never_finishes_its_request_is_timed_out,
    a_url_or_headers_too_long_to_read_are_answered_with_a_problem,
    an_id_that_is_not_a_uuid_is_a_bad_request,
    text_with_a_nul_character_is_a_bad_request_not_a_server_error,
    a_refusal_before_the_body_is_read_keeps_the_connection_open,
);

async fn malformed_json_is_a_bad_request(app: TestApp) {
    let reply = app
        .post_raw(
            "/v1/clubs",
            None,
            "application/json",
            b"{\"name\":".to_vec(),
        )
        .await;

    reply.problem(400);
}

async fn a_body_of_the_wrong_shape_names_the_field(app: TestApp) {
    let reply = app.post("/v1/clubs", None, &json!({"nam": "x"})).await;

    let problem = reply.problem(422);
    assert!(
        problem["detail"].as_str().unwrap().contains("nam"),
        "{problem}"
    );
}

async fn a_body_that_is_not_json_is_unsupported(app: TestApp) {
    let reply = app
        .post_raw("/v1/clubs", None, "text/plain", b"name=x".to_vec())
        .await;

    reply.problem(415);
}

async fn an_oversized_body_is_too_large(app: TestApp) {
    let club = app.new_club().await;
    let name = "x".repeat(300 * 1024);
    let body = serde_json::to_vec(&json!({"game": "mint-condition", "players": [{"name": name}]}))
        .unwrap();

    let reply = app
        .post_raw("/v1/games", Some(&club.token), "application/json", body)
        .await;

    reply.problem(413);
}

async fn an_unknown_route_is_not_found(app: TestApp) {
    let reply = app.get("/v1/nothing-here", None).await;

    let problem = reply.problem(404);
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("/v1/nothing-here")
    );
}

async fn an_unknown_game_is_unprocessable(app: TestApp) {
    let club = app.new_club().await;

    let reply = app
        .post(
            "/v1/games",
            Some(&club.token),
            &json!({"game": "monopoly", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;

    let problem = reply.problem(422);
    assert_eq!(problem["pointer"], "/game");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("mint-condition"),
        "{problem}"
    );
}

async fn a_bad_player_count_is_unprocessable(app: TestApp) {
    let club = app.new_club().await;
    let six: Vec<_> = ["A", "B", "C", "D", "E", "F"]
        .iter()
        .map(|n| json!({"name": n}))
        .collect();

    let reply = app
        .post(
            "/v1/games",
            Some(&club.token),
            &json!({"game": "mint-condition", "players": six}),
        )
        .await;

    let problem = reply.problem(422);
    assert_eq!(problem["pointer"], "/players");
    assert_eq!(
        problem["detail"],
        "Mint Condition is played by 2 to 5 players, not 6"
    );
    // Nothing was stored.
    assert_eq!(
        app.get("/v1/games", Some(&club.token)).await.body["games"],
        json!([])
    );
}

async fn a_bad_option_names_the_option(app: TestApp) {
    let club = app.new_club().await;
    let body = json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}], "options": {"be_careful_when_none": "seven"}});

    let reply = app.post("/v1/games", Some(&club.token), &body).await;

    let problem = reply.problem(422);
    assert_eq!(problem["pointer"], "/options/be_careful_when_none");
}

async fn a_bad_query_parameter_is_a_bad_request(app: TestApp) {
    let club = app.new_club().await;

    app.get("/v1/games?limit=lots", Some(&club.token))
        .await
        .problem(400);
    app.get("/v1/games?limit=0", Some(&club.token))
        .await
        .problem(400);
    app.get("/v1/games?status=paused", Some(&club.token))
        .await
        .problem(400);
    // A parameter sent twice, a required one left out, a time cut short: each is named.
    let twice = app
        .get("/v1/games?limit=1&limit=2", Some(&club.token))
        .await;
    let twice = twice.problem(400);
    assert_eq!(
        (&twice["parameter"], &twice["detail"]),
        (
            &json!("limit"),
            &json!("\"limit\" is given more than once; send it once")
        )
    );
    let missing = app.get("/v1/stats/head-to-head", Some(&club.token)).await;
    let missing = missing.problem(400);
    assert_eq!(
        (&missing["parameter"], &missing["detail"]),
        (
            &json!("players"),
            &json!("the query parameter \"players\" is required")
        )
    );
    let cut = app
        .get("/v1/games?from=2026-12-01T20:00:00", Some(&club.token))
        .await;
    let cut = cut.problem(400);
    assert_eq!(
        (&cut["parameter"], &cut["detail"]),
        (
            &json!("from"),
            &json!(
                "\"from\" must be a date and time, like 2026-11-30T19:00:00Z; got \"2026-12-01T20:00:00\""
            )
        )
    );
    let started = app
        .post(
            "/v1/games",
            Some(&club.token),
            &json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}],
                   "started_at": "yesterday"}),
        )
        .await;
    let started = started.problem(422);
    assert_eq!(
        (&started["pointer"], &started["detail"]),
        (
            &json!("/started_at"),
            &json!("\"started_at\" must be a date and time, like 2026-11-30T19:00:00Z")
        )
    );
}

async fn too_many_events_in_one_request_are_refused(app: TestApp) {
    let club = app.new_club().await;
    let game = app
        .new_game(
            &club,
            json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;
    let events: Vec<_> = (0..201)
        .map(|_| crate::helpers::event("abandon", json!({})))
        .collect();

    let reply = app.append(&club, &game, None, events).await;

    let problem = reply.problem(422);
    assert_eq!(problem["pointer"], "/events");
    assert_eq!(problem["detail"], "at most 200 events per request");
}

async fn too_many_clubs_from_one_address_are_throttled(app: TestApp) {
    // The default limit is 20 a minute per client address.
    for _ in 0..20 {
        app.new_club().await;
    }

    let reply = app
        .post("/v1/clubs", None, &json!({"name": "one too many"}))
        .await;

    reply.problem(429);
    let retry_after: u64 = reply
        .headers
        .get("retry-after")
        .unwrap()
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");
}

async fn a_client_that_never_finishes_its_request_is_timed_out(app: TestApp) {
    let address = app.address.trim_start_matches("http://").to_owned();
    // Half a request head, then silence: the server answers 408 after 5 s and closes.
    let answer = tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(15)))
            .unwrap();
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            .unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    })
    .await
    .unwrap();

    assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
    assert!(
        answer.contains("content-type: application/problem+json"),
        "{answer:?}"
    );
    assert!(
        answer.ends_with(
            r#""detail":"the request line and headers did not arrive within 5 s; send it again"}"#
        ),
        "{answer:?}"
    );
}

/// Sends `request` as it is and reads the answer to its end (the server closes).
async fn raw_answer(app: &TestApp, request: Vec<u8>) -> String {
    let address = app.address.trim_start_matches("http://").to_owned();
    tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(15)))
            .unwrap();
        // The server may answer and close before it has read it all.
        let _ = stream.write_all(&request);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer).into_owned()
    })
    .await
    .unwrap()
}

/// The problem in an answer read from a socket.
fn problem_of(answer: &str) -> serde_json::Value {
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
    assert!(
        head.contains("content-type: application/problem+json"),
        "{head}"
    );
    serde_json::from_str(body).expect("a problem")
}

async fn a_url_or_headers_too_long_to_read_are_answered_with_a_problem(app: TestApp) {
    let long_url = format!(
        "GET /v1/games?x={} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(100_000)
    );
    let long_header = format!(
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: {}\r\n\r\n",
        "a".repeat(140_000)
    );
    let many_headers = format!(
        "GET /healthz HTTP/1.1\r\nHost: x\r\n{}\r\n",
        (0..100)
            .map(|i| format!("X-{i}: y\r\n"))
            .collect::<String>()
    );

    let url = raw_answer(&app, long_url.into_bytes()).await;
    let header = raw_answer(&app, long_header.into_bytes()).await;
    let headers = raw_answer(&app, many_headers.into_bytes()).await;

    assert!(
        url.starts_with("HTTP/1.1 400 Bad Request\r\n"),
        "{url:.300}"
    );
    assert_eq!(
        problem_of(&url)["detail"],
        "the request line or a header could not be read: a URL may hold at most 65,534 bytes, \
         and each line must be well-formed HTTP/1.1"
    );
    for answer in [&header, &headers] {
        assert!(
            answer.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"),
            "{answer:.300}"
        );
        let problem = problem_of(answer);
        assert_eq!(problem["status"], 431);
        assert_eq!(problem["type"], "/problems/request-head-too-large");
    }
    // And the server goes on answering.
    assert_eq!(app.get("/healthz", None).await.status, 200);
}

async fn an_id_that_is_not_a_uuid_is_a_bad_request(app: TestApp) {
    let club = app.new_club().await;

    app.get("/v1/games/not-a-uuid", Some(&club.token))
        .await
        .problem(400);
    app.get("/v1/games/not-a-uuid/score", Some(&club.token))
        .await
        .problem(400);
    app.get("/v1/players/not-a-uuid/stats", Some(&club.token))
        .await
        .problem(400);
    // Head-to-head takes names too: "a" and "b" are names nobody in the club has.
    app.get("/v1/stats/head-to-head?players=a,b", Some(&club.token))
        .await
        .problem(404);
    // A well-formed id that does not exist is simply not found.
    app.get(
        &format!("/v1/games/{}", uuid::Uuid::new_v4()),
        Some(&club.token),
    )
    .await
    .problem(404);
}

/// PostgreSQL cannot store or compare text with a NUL byte: such input must be refused, not
/// passed to the database (it once answered 500 there).
async fn text_with_a_nul_character_is_a_bad_request_not_a_server_error(app: TestApp) {
    let club = app.new_club().await;

    app.get("/v1/games?player=A%00B", Some(&club.token))
        .await
        .problem(400);
    app.get("/v1/players?search=A%00B", Some(&club.token))
        .await
        .problem(400);
    app.get(
        &format!("/v1/games/{}%00", uuid::Uuid::new_v4()),
        Some(&club.token),
    )
    .await
    .problem(400);
    let reply = app
        .post(
            "/v1/games",
            Some(&club.token),
            &json!({"game": "mint-condition", "players": [{"name": "Ann", "color": "r\u{0}d"}, {"name": "Bo"}]}),
        )
        .await;
    assert_eq!(reply.problem(422)["pointer"], "/players/0/color");
}

/// Sends `first` and then a `GET /healthz` on one connection: `(first's answer head, whether the
/// second was answered on the same connection)`.
fn two_requests_on_one_connection(address: &str, first: &str) -> (String, bool) {
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    stream.write_all(first.as_bytes()).unwrap();
    let head = read_answer(&mut stream);
    let second = stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    let answered = second.is_ok() && read_answer(&mut stream).starts_with("http/1.1 200");
    (head, answered)
}

/// One answer's head and its body of a stated length.
fn read_answer(stream: &mut std::net::TcpStream) -> String {
    let mut bytes = Vec::new();
    let mut byte = [0u8; 1];
    while !bytes.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => bytes.push(byte[0]),
            _ => return String::from_utf8_lossy(&bytes).into_owned(),
        }
    }
    let head = String::from_utf8_lossy(&bytes).to_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    let _ = stream.read_exact(&mut body);
    head
}

async fn a_refusal_before_the_body_is_read_keeps_the_connection_open(app: TestApp) {
    let club = app.new_club().await;
    let address = app.address.trim_start_matches("http://").to_owned();
    let body = r#"{"events": [{"type": "abandon", "data": {"reason": "x"}}]}"#;
    let requests = [
        // A bad id in the path: 400 before the body is read.
        format!(
            "POST /v1/games/not-a-uuid/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            club.token,
            body.len()
        ),
        // A body that is not JSON: 415.
        "POST /v1/clubs HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n\
         Content-Length: 6\r\n\r\nname=x"
            .to_owned(),
    ];

    let answers = tokio::task::spawn_blocking(move || {
        requests
            .iter()
            .map(|r| two_requests_on_one_connection(&address, r))
            .collect::<Vec<_>>()
    })
    .await
    .unwrap();

    for ((head, answered), status) in answers.iter().zip(["400", "415"]) {
        assert!(head.starts_with(&format!("http/1.1 {status}")), "{head}");
        assert!(!head.contains("connection: close"), "{head}");
        assert!(
            answered,
            "the next request is answered on the same connection"
        );
    }
}

/// Creates a club saying it comes from `forwarded`; the answer's status.
async fn club_from(app: &TestApp, forwarded: &str) -> u16 {
    app.client
        .post(app.url("/v1/clubs"))
        .header("x-forwarded-for", forwarded)
        .json(&json!({"name": "Friday games"}))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn a_forwarded_address_counts_only_from_a_trusted_proxy(app: TestApp) {
    // Given a server that trusts no proxy: a client naming a new address each time is still
    // one client (20 clubs a minute)
    for i in 0..20 {
        assert_eq!(club_from(&app, &format!("198.51.100.{i}")).await, 201);
    }
    assert_eq!(club_from(&app, "198.51.100.99").await, 429);

    // Given a server behind a proxy it trusts (this test's own address)
    let proxied = spawn_app_with(app.backend, |config| {
        config.trusted_proxies = "127.0.0.0/8, ::1".into();
        config.clubs_per_minute = 2;
    })
    .await
    .expect("the backend is configured");

    // Then each client the proxy names has its own count, and the proxy's own last hop counts
    // (not an address the client wrote before it)
    assert_eq!(club_from(&proxied, "203.0.113.1").await, 201);
    assert_eq!(club_from(&proxied, "6.6.6.6, 203.0.113.1").await, 201);
    assert_eq!(club_from(&proxied, "7.7.7.7, 203.0.113.1").await, 429);
    assert_eq!(club_from(&proxied, "203.0.113.2").await, 201);
}

async fn names_that_show_nothing_or_read_as_another_are_refused_everywhere(app: TestApp) {
    let club = app.new_club().await;
    let invisible = "\u{200b}\u{200c}\u{200d}";
    let reordered = "Ann\u{202e}gnp.exe";
    let nothing = "a name must show at least one visible character (spaces and zero-width \
                   characters alone show nothing)";
    let bidi = "a name cannot hold bidirectional control characters (U+202A–U+202E, \
                U+2066–U+2069): they can make a name read as another";
    for (name, detail) in [(invisible, nothing), (reordered, bidi)] {
        // A club's, a token's, a preset's, a player's at a table
        let replies = [
            app.post("/v1/clubs", None, &json!({"name": name})).await,
            app.post(
                "/v1/tokens",
                Some(&club.token),
                &json!({"name": name, "scope": "write"}),
            )
            .await,
            app.post(
                "/v1/presets",
                Some(&club.token),
                &json!({"name": name, "game": "mint-julep", "options": {}}),
            )
            .await,
            app.post(
                "/v1/games",
                Some(&club.token),
                &json!({"game": "mint-julep", "players": [{"name": "Bo"}, {"name": name}]}),
            )
            .await,
        ];
        for reply in &replies {
            let problem = reply.problem(422);
            assert_eq!(problem["detail"], detail, "{name:?}: {problem}");
        }
    }
    assert_eq!(
        app.get("/v1/games", Some(&club.token)).await.body["games"],
        json!([])
    );
}

/// A raw connection that sends `head` and then, every `pause`, one byte of its body; what the
/// server answered (read until it closes, or `give_up`).
fn trickle(
    address: String,
    head: String,
    pause: std::time::Duration,
    give_up: std::time::Duration,
) -> (String, std::time::Duration) {
    let started = std::time::Instant::now();
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(pause)).unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    let mut answer = Vec::new();
    while started.elapsed() < give_up {
        let mut buffer = [0u8; 4096];
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buffer[..n]),
            // Nothing yet: one more byte, as a slow or hostile client would.
            Err(_) => {
                if stream.write_all(b" ").is_err() {
                    break;
                }
            }
        }
    }
    (
        String::from_utf8_lossy(&answer).into_owned(),
        started.elapsed(),
    )
}

fn slow_club_head(length: usize) -> String {
    format!(
        "POST /v1/clubs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {length}\r\n\r\n"
    )
}

async fn a_body_sent_a_byte_at_a_time_is_cut_off_with_408(app: TestApp) {
    // Given a client that states a body of 200,000 bytes and sends a byte every 2 s
    let address = app.address.trim_start_matches("http://").to_owned();

    let (answer, took) = tokio::task::spawn_blocking(move || {
        trickle(
            address,
            slow_club_head(200_000),
            std::time::Duration::from_secs(2),
            std::time::Duration::from_secs(30),
        )
    })
    .await
    .unwrap();

    // Then the server answers 408 after 10 s, in words, and closes the connection
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
    assert!(
        answer.to_ascii_lowercase().contains("connection: close"),
        "{answer:?}"
    );
    assert!(
        answer.contains("the request's body did not arrive within 10 s; send it again"),
        "{answer:?}"
    );
    assert!(took < std::time::Duration::from_secs(15), "{took:?}");
}

async fn one_address_holds_at_most_its_share_of_requests_and_health_checks_still_answer(
    app: TestApp,
) {
    // Given a server that lets an address hold two requests, and two slow bodies holding them
    let app = spawn_app_with(app.backend, |config| config.requests_per_address = 2)
        .await
        .expect("the backend is configured");
    let address = app.address.trim_start_matches("http://").to_owned();
    let held: Vec<_> = (0..2)
        .map(|_| {
            let address = address.clone();
            std::thread::spawn(move || {
                trickle(
                    address,
                    slow_club_head(1_000),
                    std::time::Duration::from_millis(500),
                    std::time::Duration::from_secs(15),
                )
            })
        })
        .collect();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;

    // When the same address sends a third request, and a health check
    let third = app
        .post("/v1/clubs", None, &json!({"name": "Friday"}))
        .await;
    let health = app.get("/healthz", None).await;

    // Then the third is refused at once, the health check answered
    let problem = third.problem(429);
    assert_eq!(
        problem["detail"],
        "this address has 2 requests in flight, the most allowed; send this one again in a moment"
    );
    assert_eq!(third.headers["retry-after"], "1");
    assert_eq!(health.status, 200);
    // And once the slow ones are cut off (408), the address has its places back.
    for handle in held {
        let (answer, _) = handle.join().unwrap();
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
    }
    let after = app
        .post("/v1/clubs", None, &json!({"name": "Friday"}))
        .await;
    assert_eq!(after.status, 201, "{}", after.body);
}

async fn a_database_that_does_not_answer_is_answered_503_in_seconds(app: TestApp) {
    // Given the database held by another session: SQLite's file locked for writing, or
    // PostgreSQL's clubs table locked
    use sqlx::Connection;
    let started = std::time::Instant::now();
    let reply = match app.backend {
        crate::helpers::Backend::Sqlite => {
            let other = sqlx::SqliteConnection::connect(&app.database_url)
                .await
                .unwrap();
            club_while_held(&app, other, "BEGIN EXCLUSIVE").await
        }
        crate::helpers::Backend::Postgres => {
            let other = sqlx::PgConnection::connect(&app.database_url)
                .await
                .unwrap();
            club_while_held(
                &app,
                other,
                "BEGIN; LOCK TABLE clubs IN ACCESS EXCLUSIVE MODE",
            )
            .await
        }
    };

    // Then the request is answered 503 with Retry-After within 10 s, not held until the
    // client gives up, and the server is fine once the database answers again
    let took = started.elapsed();
    let problem = reply.problem(503);
    assert_eq!(reply.headers["retry-after"], "2", "{problem}");
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    let again = app
        .post("/v1/clubs", None, &json!({"name": "Friday"}))
        .await;
    assert_eq!(again.status, 201, "{}", again.body);
}

/// Creates a club while `other` holds the database as `hold` says; the answer.
async fn club_while_held<C>(app: &TestApp, mut other: C, hold: &str) -> crate::helpers::Reply
where
    C: sqlx::Connection,
    for<'c> &'c mut C: sqlx::Executor<'c, Database = C::Database>,
{
    sqlx::raw_sql(sqlx::AssertSqlSafe(hold.to_owned()))
        .execute(&mut other)
        .await
        .unwrap();
    let reply = app
        .post("/v1/clubs", None, &json!({"name": "Friday"}))
        .await;
    sqlx::raw_sql("ROLLBACK").execute(&mut other).await.unwrap();
    reply
}
