//! Reliability tests against the real `tabletally` binary (separate processes, real sockets):
//!
//! 1. `two_servers_on_one_postgres_database` — two server processes share one PostgreSQL
//!    database; many concurrent clients append (with and without `expected_version`, retrying
//!    some requests with the same event ids) through both. Every log must be gapless, hold
//!    exactly the acknowledged events, replay to the same score on both servers, and every
//!    refused append must be a 409 or 422, never a 5xx.
//! 2. `crash_safety::{on_sqlite,on_postgres}` — a sequential client appends while the server
//!    is SIGKILLed at pseudo-random moments and restarted on the same database. Every
//!    acknowledged event must survive exactly once, an append whose answer was lost is
//!    settled by retrying it (200: it was stored, 201: it was not), and every game must still
//!    replay.
//! 3. `tables_crash_safety::{on_sqlite,on_postgres}` — the same with 32 tables appending at
//!    once (SQLite: their requests share group commits), SIGKILLed in the middle of batches.
//! 4. `a_request_whose_writes_fail_in_a_shared_batch_is_refused_alone` — SQLite's writer sends
//!    a request's last writes with the statement closing its savepoint; when they fail there,
//!    that request alone is refused and the others of its batch are stored.
//! 5. A server alone on a PostgreSQL database answers score reads from memory
//!    (`a_server_alone_…`, `a_server_that_never_answers_alone_…`, `servers_of_two_databases_…`):
//!    never a version older than one another server acknowledged, and only while it is alone.
//!
//! Each test uses its own fresh database: a SQLite file in its own temp directory, or a
//! PostgreSQL database created from `TABLETALLY_TEST_POSTGRES_URL` (skipped with a notice when
//! unset, a failure when `CI` is set). `TABLETALLY_RELIABILITY_SEED` overrides the seed of the
//! pseudo-random choices; the seed in use is printed.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sqlx::Connection;

#[path = "support/test_database.rs"]
mod test_database;

use test_database::{Backend, TestDatabase};

const DEFAULT_SEED: u64 = 20_240_611;

// ---------------------------------------------------------------------------------------------
// Pseudo-random choices: a seeded 64-bit LCG (Knuth's MMIX constants), high bits only.

struct Lcg(u64);

impl Lcg {
    fn new(seed: u64) -> Self {
        let mut lcg = Lcg(seed ^ 0x9E37_79B9_7F4A_7C15);
        lcg.next();
        lcg
    }

    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

fn seed() -> u64 {
    std::env::var("TABLETALLY_RELIABILITY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEED)
}

// ---------------------------------------------------------------------------------------------
// A server process. The guard kills it (SIGKILL) and reaps it when dropped, also on panic.

struct ServerProcess {
    label: String,
    child: Arc<Mutex<Child>>,
    ready: Mutex<mpsc::Receiver<String>>,
    /// `http://127.0.0.1:PORT`, known once the server logged it.
    address: String,
    /// The last log lines of both streams, for failure messages.
    tail: Arc<Mutex<VecDeque<String>>>,
}

impl ServerProcess {
    /// Spawns the binary on port 0; [`ServerProcess::wait_ready`] reads the bound address.
    fn spawn(label: &str, database_url: &str) -> ServerProcess {
        ServerProcess::spawn_with(label, database_url, &[])
    }

    /// [`ServerProcess::spawn`] with more environment.
    fn spawn_with(label: &str, database_url: &str, env: &[(&str, &str)]) -> ServerProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tabletally"))
            .envs(env.iter().copied())
            .env("TABLETALLY_ADDR", "127.0.0.1:0")
            .env("DATABASE_URL", database_url)
            .env("RUST_LOG", "info")
            .env("TABLETALLY_WORKERS", "2")
            .env("NO_COLOR", "1")
            .env_remove("TABLETALLY_LOG_FORMAT")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the tabletally binary");
        let (tx, ready) = mpsc::channel();
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        // The fmt subscriber writes to stderr; stdout is read too (in case that changes).
        // Both are drained until the process ends so logging never blocks on a pipe.
        let stdout = child.stdout.take().expect("stdout piped");
        let stderr = child.stderr.take().expect("stderr piped");
        drain(label, stdout, tx.clone(), tail.clone());
        drain(label, stderr, tx, tail.clone());
        ServerProcess {
            label: label.to_owned(),
            child: Arc::new(Mutex::new(child)),
            ready: Mutex::new(ready),
            address: String::new(),
            tail,
        }
    }

    fn wait_ready(&mut self) {
        let ready = self.ready.lock().unwrap_or_else(|e| e.into_inner());
        let address = ready.recv_timeout(Duration::from_secs(30));
        drop(ready);
        match address {
            Ok(address) => self.address = address,
            Err(_) => panic!(
                "server {} did not log `listening on http://…` within 30 s; last lines:\n{}",
                self.label,
                self.log_tail()
            ),
        }
    }

    fn start(label: &str, database_url: &str) -> ServerProcess {
        let mut server = ServerProcess::spawn(label, database_url);
        server.wait_ready();
        server
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    fn log_tail(&self) -> String {
        let tail = self.tail.lock().unwrap_or_else(|e| e.into_inner());
        tail.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    /// SIGKILL (what `Child::kill` sends on Unix) and reap; the exit status.
    fn kill(&self) -> ExitStatus {
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        let _ = child.kill();
        child.wait().expect("reap the server process")
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Reads one output stream line by line: sends the listening address once, keeps a tail,
/// echoes errors and panics.
fn drain(
    label: &str,
    stream: impl Read + Send + 'static,
    ready: mpsc::Sender<String>,
    tail: Arc<Mutex<VecDeque<String>>>,
) {
    let label = label.to_owned();
    std::thread::spawn(move || {
        const MARK: &str = "listening on ";
        let mut echoed = 0;
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            let line = strip_ansi(&line);
            if let Some(at) = line.find(MARK) {
                let address: String = line[at + MARK.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || ":/.[]".contains(*c))
                    .collect();
                let _ = ready.send(address);
            }
            // The first few errors of each stream are echoed (the tail keeps the rest).
            if (line.contains("ERROR") || line.contains("panicked")) && echoed < 2 {
                echoed += 1;
                eprintln!("[server {label}] {line}");
            }
            let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
            if tail.len() >= 40 {
                tail.pop_front();
            }
            tail.push_back(line);
        }
    });
}

/// Removes ANSI escape sequences (`ESC [ … letter`), should the logs be coloured.
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// HTTP.

fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .connect_timeout(Duration::from_secs(5))
        .build()
        .expect("an HTTP client")
}

struct Reply {
    status: u16,
    content_type: String,
    body: Value,
}

async fn request(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> Result<Reply, reqwest::Error> {
    let mut req = client.request(method, url);
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    if let Some(body) = body {
        req = req.json(body);
    }
    let response = req.send().await?;
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let text = response.text().await?;
    Ok(Reply {
        status,
        content_type,
        body: serde_json::from_str(&text).unwrap_or(Value::Null),
    })
}

async fn get(client: &reqwest::Client, url: &str, token: &str) -> Result<Reply, reqwest::Error> {
    request(client, reqwest::Method::GET, url, Some(token), None).await
}

async fn post(
    client: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    body: &Value,
) -> Result<Reply, reqwest::Error> {
    request(client, reqwest::Method::POST, url, token, Some(body)).await
}

/// A club's token.
async fn new_club(client: &reqwest::Client, server: &ServerProcess) -> String {
    let reply = post(
        client,
        &server.url("/v1/clubs"),
        None,
        &json!({"name": "Reliability club"}),
    )
    .await
    .expect("the server answers");
    assert_eq!(reply.status, 201, "{}", reply.body);
    reply.body["token"].as_str().expect("token").to_owned()
}

/// The body creating a 2-player Mint Condition game with a client-chosen id (so a retry of a
/// creation whose answer was lost is recognised as the same game).
fn new_game_body(id: &str) -> Value {
    json!({"id": id, "game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]})
}

/// A valid 2-player Mint Condition round (7 cards each; three of them fit the deck limits).
/// `swap` exchanges the two collections, so different rounds score differently per player.
fn round(n: usize, swap: bool) -> Value {
    let a = json!([
        "fine-wine",
        "be-careful",
        "memories",
        "autographed",
        "autographed",
        "legacy-edition",
        "lost-pieces"
    ]);
    let b = json!([
        "be-careful",
        "be-careful",
        "heavy-rotation",
        "animal-kingdom",
        "animal-kingdom",
        "animal-kingdom",
        "snack-fingers"
    ]);
    let (ann, bo) = if swap { (b, a) } else { (a, b) };
    json!({"round": n, "collections": {"Ann": ann, "Bo": bo}})
}

fn new_event(event_type: &str, data: Value) -> Value {
    json!({"id": uuid::Uuid::new_v4().to_string(), "type": event_type, "data": data})
}

fn append_body(expected_version: Option<i64>, events: &[Value]) -> Value {
    let mut body = json!({"events": events});
    if let Some(v) = expected_version {
        body["expected_version"] = json!(v);
    }
    body
}

/// Seqs of the `round_collected` events in force (not retracted), in log order.
fn rounds_in_force(events: &[Value]) -> Vec<i64> {
    events
        .iter()
        .filter(|e| e["type"] == "round_collected" && e["retracted_by"].is_null())
        .map(|e| e["seq"].as_i64().expect("seq"))
        .collect()
}

/// Checks that a log is gapless (seq 1..n, version n) and starts with `game_started` whose id is
/// the game's; returns its events.
fn check_gapless(game: &str, log: &Value) -> Vec<Value> {
    let events = log["events"].as_array().expect("events").clone();
    for (i, e) in events.iter().enumerate() {
        assert_eq!(
            e["seq"].as_i64(),
            Some(i as i64 + 1),
            "game {game}: the log has a gap or is out of order at position {i}: {log}"
        );
    }
    assert_eq!(
        log["version"].as_i64(),
        Some(events.len() as i64),
        "game {game}: version differs from the number of events"
    );
    assert_eq!(events[0]["type"], "game_started", "game {game}");
    assert_eq!(events[0]["id"], game, "game {game}");
    events
}

// ---------------------------------------------------------------------------------------------
// 1. Two servers, one PostgreSQL database, many concurrent clients.

const CLIENTS: usize = 16;
const OPS_PER_CLIENT: usize = 20;
const SHARED_GAMES: usize = 4;

#[derive(Default)]
struct Ledger {
    /// Acknowledged event id → (game, seq) from the acknowledging answer.
    acked: HashMap<String, (String, i64)>,
    /// Answers to appends by status.
    statuses: BTreeMap<u16, usize>,
    appends: usize,
    retries: usize,
    reads: usize,
    created: usize,
    already_stored: usize,
    failures: Vec<String>,
}

impl Ledger {
    /// Records an append's outcome; `refused_before` when the same request was refused earlier
    /// (a later 200 would then mean a refused append was stored after all).
    fn record(
        &mut self,
        game: &str,
        what: &str,
        ids: &[String],
        reply: &Reply,
        refused_before: bool,
    ) -> bool {
        *self.statuses.entry(reply.status).or_default() += 1;
        match reply.status {
            201 | 200 => {
                let events = reply.body["events"].as_array().cloned().unwrap_or_default();
                let got: Vec<&str> = events.iter().filter_map(|e| e["id"].as_str()).collect();
                if got != ids.iter().map(String::as_str).collect::<Vec<_>>() {
                    self.failures.push(format!(
                        "{} answered other events than sent: {} for {ids:?}",
                        reply.status, reply.body
                    ));
                }
                for e in &events {
                    let id = e["id"].as_str().unwrap_or_default().to_owned();
                    let seq = e["seq"].as_i64().unwrap_or(-1);
                    let previous = self.acked.insert(id.clone(), (game.to_owned(), seq));
                    match (reply.status, previous) {
                        (201, Some(p)) => self.failures.push(format!(
                            "event {id} was created twice (201 at seq {} and at seq {seq})",
                            p.1
                        )),
                        (200, Some(p)) if p.1 != seq => self.failures.push(format!(
                            "retry of {id} answered seq {seq}, first answer said {}",
                            p.1
                        )),
                        (200, None) if refused_before => self.failures.push(format!(
                            "event {id} was refused, yet a retry says it is stored (seq {seq})"
                        )),
                        _ => {}
                    }
                }
                if reply.status == 201 {
                    self.created += 1;
                } else {
                    self.already_stored += 1;
                }
                true
            }
            409 | 422 => {
                if reply.content_type != "application/problem+json" {
                    self.failures.push(format!(
                        "{} without problem+json: {}",
                        reply.status, reply.content_type
                    ));
                }
                false
            }
            other => {
                self.failures.push(format!(
                    "append ({what}) to game {game} answered {other}: {}",
                    reply.body
                ));
                false
            }
        }
    }
}

/// Servers A and B on one database, started at once: their migrations race on a fresh one.
fn two_servers(url: &str) -> Arc<[ServerProcess; 2]> {
    let mut a = ServerProcess::spawn("A", url);
    let mut b = ServerProcess::spawn("B", url);
    a.wait_ready();
    b.wait_ready();
    Arc::new([a, b])
}

/// Score reads on PostgreSQL ask for their games' versions together (one statement for every
/// read waiting). Each table appends on one server and reads its score at once on the other,
/// while readers of another club keep the version reads busy: every score shows the version
/// the append just acknowledged, and a game read with another club's token is not found.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_score_read_on_one_server_shows_the_append_just_acknowledged_by_the_other() {
    let Some((_database, url)) = TestDatabase::fresh(Backend::Postgres, "tabletally_rel").await
    else {
        return;
    };
    let servers = two_servers(&url);
    let client = http_client();
    let token = Arc::new(new_club(&client, &servers[0]).await);
    let other_token = Arc::new(new_club(&client, &servers[1]).await);
    let other_game = uuid::Uuid::new_v4().to_string();
    let reply = post(
        &client,
        &servers[1].url("/v1/games"),
        Some(&other_token),
        &new_game_body(&other_game),
    )
    .await
    .expect("the server answers");
    assert_eq!(reply.status, 201, "{}", reply.body);

    // Readers of the other club: their asks share statements with the tables' asks.
    let stop = Arc::new(AtomicBool::new(false));
    let mut readers = Vec::new();
    for r in 0..8 {
        let (servers, client, token, game, stop) = (
            servers.clone(),
            client.clone(),
            other_token.clone(),
            other_game.clone(),
            stop.clone(),
        );
        readers.push(tokio::spawn(async move {
            let mut reads = 0;
            while !stop.load(Ordering::Relaxed) {
                let score = get(
                    &client,
                    &servers[r % 2].url(&format!("/v1/games/{game}/score")),
                    &token,
                )
                .await
                .expect("the server answers");
                assert_eq!(score.status, 200, "{}", score.body);
                assert_eq!(
                    score.body["version"], 1,
                    "the other club's game never moved"
                );
                reads += 1;
            }
            reads
        }));
    }

    let mut tables = Vec::new();
    for t in 0..8 {
        let (servers, client, token, other_token, other_game) = (
            servers.clone(),
            client.clone(),
            token.clone(),
            other_token.clone(),
            other_game.clone(),
        );
        tables.push(tokio::spawn(async move {
            for g in 0..4 {
                let game = uuid::Uuid::new_v4().to_string();
                let (writer, reader) = (&servers[(t + g) % 2], &servers[(t + g + 1) % 2]);
                let reply = post(&client, &writer.url("/v1/games"), Some(&token), &new_game_body(&game))
                    .await
                    .expect("the server answers");
                assert_eq!(reply.status, 201, "{}", reply.body);
                for n in 1..=3 {
                    let event = new_event("round_collected", round(n, n % 2 == 0));
                    let body = append_body(Some(n as i64), &[event]);
                    let path = format!("/v1/games/{game}/events");
                    let reply = post(&client, &writer.url(&path), Some(&token), &body)
                        .await
                        .expect("the server answers");
                    assert_eq!(reply.status, 201, "{}", reply.body);
                    let acked = reply.body["version"].as_i64().expect("version");
                    let score = get(&client, &reader.url(&format!("/v1/games/{game}/score")), &token)
                        .await
                        .expect("the server answers");
                    assert_eq!(score.status, 200, "{}", score.body);
                    assert_eq!(
                        score.body["version"], acked,
                        "game {game}: the other server's score does not show the acknowledged append"
                    );
                }
                // The game is this club's only: the other club's token finds nothing, and this
                // club's token does not find the other club's game.
                let foreign = get(&client, &reader.url(&format!("/v1/games/{game}/score")), &other_token)
                    .await
                    .expect("the server answers");
                assert_eq!(foreign.status, 404, "{}", foreign.body);
                let foreign = get(&client, &reader.url(&format!("/v1/games/{other_game}/score")), &token)
                    .await
                    .expect("the server answers");
                assert_eq!(foreign.status, 404, "{}", foreign.body);
            }
        }));
    }
    for table in tables {
        table.await.expect("a table");
    }
    stop.store(true, Ordering::Relaxed);
    let mut reads = 0;
    for reader in readers {
        reads += reader.await.expect("a reader");
    }
    assert!(reads > 0, "the other club's readers read nothing");
}

/// One figure of a server's `GET /metrics`.
async fn metric(client: &reqwest::Client, server: &ServerProcess, name: &str) -> u64 {
    let text = client
        .get(server.url("/metrics"))
        .send()
        .await
        .expect("the server answers")
        .text()
        .await
        .expect("a body");
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("/metrics has no {name}:\n{text}"))
}

/// Waits (at most 10 s) until the server says it is, or is not, the database's only writer.
/// Waits until `servers` servers hold the presence lock (`api/src/store/sole.rs`) of the
/// database at `url`.
async fn wait_present(url: &str, servers: i64) {
    let mut conn = sqlx::PgConnection::connect(url)
        .await
        .expect("a connection");
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let held: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = 7461627 \
             AND objid = 1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        )
        .fetch_one(&mut conn)
        .await
        .expect("the lock table");
        if held == servers {
            return;
        }
        assert!(
            Instant::now() < until,
            "{held} servers present, not {servers}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn wait_sole(client: &reqwest::Client, server: &ServerProcess, sole: bool) {
    let until = Instant::now() + Duration::from_secs(10);
    while metric(client, server, "tabletally_sole_server").await != u64::from(sole) {
        assert!(
            Instant::now() < until,
            "server {} did not become {} within 10 s; last lines:\n{}",
            server.label,
            if sole { "sole" } else { "one of two" },
            server.log_tail()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Appends round `n` to `game` on `server` (created at version 1, so expected at `n`); the
/// version acknowledged.
async fn append_round(
    client: &reqwest::Client,
    server: &ServerProcess,
    token: &str,
    game: &str,
    n: usize,
) -> i64 {
    let body = append_body(
        Some(n as i64),
        &[new_event("round_collected", round(n, n.is_multiple_of(2)))],
    );
    let reply = post(
        client,
        &server.url(&format!("/v1/games/{game}/events")),
        Some(token),
        &body,
    )
    .await
    .expect("the server answers");
    assert_eq!(reply.status, 201, "{}", reply.body);
    reply.body["version"].as_i64().expect("version")
}

/// A new game on `server`, its id.
async fn create_game(client: &reqwest::Client, server: &ServerProcess, token: &str) -> String {
    let game = uuid::Uuid::new_v4().to_string();
    let reply = post(
        client,
        &server.url("/v1/games"),
        Some(token),
        &new_game_body(&game),
    )
    .await
    .expect("the server answers");
    assert_eq!(reply.status, 201, "{}", reply.body);
    game
}

async fn score_version(
    client: &reqwest::Client,
    server: &ServerProcess,
    token: &str,
    game: &str,
) -> i64 {
    let score = get(
        client,
        &server.url(&format!("/v1/games/{game}/score")),
        token,
    )
    .await
    .expect("the server answers");
    assert_eq!(score.status, 200, "{}", score.body);
    score.body["version"].as_i64().expect("version")
}

/// A server alone on a PostgreSQL database answers score reads of the games it wrote from
/// memory; a second server started meanwhile writes only once the first has stopped doing so,
/// so the first never answers a version older than one the second acknowledged; and when the
/// second is gone the first answers from memory again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_alone_answers_from_memory_and_never_misses_a_second_servers_append() {
    let Some((_database, url)) = TestDatabase::fresh(Backend::Postgres, "tabletally_rel").await
    else {
        return;
    };
    let client = http_client();
    let a = ServerProcess::start("A", &url);
    let token = new_club(&client, &a).await;

    // Alone: A's reads of the games it wrote ask no database.
    wait_sole(&client, &a, true).await;
    let mut games = Vec::new();
    for _ in 0..4 {
        let game = create_game(&client, &a, &token).await;
        assert_eq!(append_round(&client, &a, &token, &game, 1).await, 2);
        games.push(game);
    }
    let before = metric(&client, &a, "tabletally_cache_answered_alone_total").await;
    for game in &games {
        assert_eq!(score_version(&client, &a, &token, game).await, 2);
    }
    let alone = metric(&client, &a, "tabletally_cache_answered_alone_total").await - before;
    assert_eq!(alone, 4, "A answered {alone} of 4 score reads from memory");

    // B starts while A answers from memory and appends at once: A shows every append B
    // acknowledged, and B every append of A's (the last round finishes the game).
    let b = ServerProcess::start("B", &url);
    for game in &games {
        for (n, writer, reader) in [(2, &b, &a), (3, &a, &b)] {
            let acked = append_round(&client, writer, &token, game, n).await;
            assert_eq!(acked, n as i64 + 1);
            assert_eq!(
                score_version(&client, reader, &token, game).await,
                acked,
                "round {n} of {game}: server {} does not show the append server {} acknowledged",
                reader.label,
                writer.label
            );
        }
    }
    // Neither stays sole beside the other. A may be sole again for a moment after B's first
    // append took its turn: B's presence is taken by a connection of its own, which on a loaded
    // machine may come after B's first appends.
    wait_sole(&client, &a, false).await;
    wait_sole(&client, &b, false).await;

    // B gone, A alone again: from memory, and current.
    drop(b);
    wait_sole(&client, &a, true).await;
    let game = create_game(&client, &a, &token).await;
    let acked = append_round(&client, &a, &token, &game, 1).await;
    let created = create_game(&client, &a, &token).await;
    let before = metric(&client, &a, "tabletally_cache_answered_alone_total").await;
    assert_eq!(score_version(&client, &a, &token, &game).await, acked);
    assert_eq!(score_version(&client, &a, &token, &created).await, 1);
    assert_eq!(score_version(&client, &a, &token, &games[0]).await, 4);
    assert_eq!(
        metric(&client, &a, "tabletally_cache_answered_alone_total").await - before,
        2,
        "only the games written in A's new term are known current without asking"
    );
}

/// A server told not to answer from memory (`TABLETALLY_SOLE_READS=off`) is still present:
/// while it runs, no other server on its database becomes the only one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_answers_alone_keeps_the_others_from_it() {
    let Some((_database, url)) = TestDatabase::fresh(Backend::Postgres, "tabletally_rel").await
    else {
        return;
    };
    let client = http_client();
    let mut quiet = ServerProcess::spawn_with("Q", &url, &[("TABLETALLY_SOLE_READS", "off")]);
    quiet.wait_ready();
    // Q takes its presence lock on a connection of its own, soon after it answers: A starts
    // once it holds it.
    wait_present(&url, 1).await;
    let a = ServerProcess::start("A", &url);

    // Ten looks of A's at the lock table: A never takes the term.
    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(metric(&client, &a, "tabletally_sole_server").await, 0);
    }
    assert_eq!(metric(&client, &quiet, "tabletally_sole_server").await, 0);

    drop(quiet);
    wait_sole(&client, &a, true).await;
}

/// Advisory locks are each database's own: servers of two databases on one PostgreSQL are each
/// the only one on theirs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_of_two_databases_on_one_host_are_each_alone() {
    let Some((_first, first_url)) = TestDatabase::fresh(Backend::Postgres, "tabletally_rel").await
    else {
        return;
    };
    let Some((_second, second_url)) =
        TestDatabase::fresh(Backend::Postgres, "tabletally_rel").await
    else {
        return;
    };
    let client = http_client();
    let a = ServerProcess::start("A", &first_url);
    let b = ServerProcess::start("B", &second_url);

    wait_sole(&client, &a, true).await;
    wait_sole(&client, &b, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_one_postgres_database() {
    let Some((_database, url)) = TestDatabase::fresh(Backend::Postgres, "tabletally_rel").await
    else {
        return;
    };
    let started = Instant::now();
    let seed = seed();
    let servers = two_servers(&url);
    let client = http_client();
    let token = Arc::new(new_club(&client, &servers[0]).await);

    let mut games = Vec::new();
    for i in 0..SHARED_GAMES {
        let id = uuid::Uuid::new_v4().to_string();
        let reply = post(
            &client,
            &servers[i % 2].url("/v1/games"),
            Some(&token),
            &new_game_body(&id),
        )
        .await
        .expect("the server answers");
        assert_eq!(reply.status, 201, "{}", reply.body);
        games.push(id);
    }
    let games = Arc::new(games);
    let ledger = Arc::new(Mutex::new(Ledger::default()));

    let mut tasks = Vec::new();
    for c in 0..CLIENTS {
        let (servers, games, token, ledger, client) = (
            servers.clone(),
            games.clone(),
            token.clone(),
            ledger.clone(),
            client.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let mut rng = Lcg::new(seed.wrapping_add(c as u64 * 7919));
            for _ in 0..OPS_PER_CLIENT {
                let game = &games[rng.below(games.len() as u64) as usize];
                let s = rng.below(2) as usize;
                let server = &servers[s];
                // Read the game as a phone would, then append what comes next.
                let log = match get(
                    &client,
                    &server.url(&format!("/v1/games/{game}/events")),
                    &token,
                )
                .await
                {
                    Ok(r) if r.status == 200 => r.body,
                    Ok(r) => {
                        ledger
                            .lock()
                            .unwrap()
                            .failures
                            .push(format!("read answered {}: {}", r.status, r.body));
                        continue;
                    }
                    Err(e) => {
                        ledger
                            .lock()
                            .unwrap()
                            .failures
                            .push(format!("read failed: {e}"));
                        continue;
                    }
                };
                ledger.lock().unwrap().reads += 1;
                let version = log["version"].as_i64().expect("version");
                let rounds = rounds_in_force(log["events"].as_array().expect("events"));
                let event = if rounds.len() < 3 && (rounds.is_empty() || rng.chance(80)) {
                    new_event("round_collected", round(rounds.len() + 1, rng.chance(50)))
                } else {
                    new_event(
                        "retract",
                        json!({"seq": rounds[rounds.len() - 1], "reason": "reliability test"}),
                    )
                };
                let what = match event["type"].as_str() {
                    Some("retract") => format!(
                        "retract of seq {} at version {version}",
                        event["data"]["seq"]
                    ),
                    _ => format!("round {} at version {version}", event["data"]["round"]),
                };
                let expected = rng.chance(50).then_some(version);
                let body = append_body(expected, std::slice::from_ref(&event));
                let ids = vec![event["id"].as_str().unwrap().to_owned()];
                let path = format!("/v1/games/{game}/events");
                let first = post(&client, &server.url(&path), Some(&token), &body).await;
                let acked = {
                    let mut ledger = ledger.lock().unwrap();
                    ledger.appends += 1;
                    match &first {
                        Ok(reply) => ledger.record(game, &what, &ids, reply, false),
                        Err(e) => {
                            ledger.failures.push(format!("append failed: {e}"));
                            continue;
                        }
                    }
                };
                // A phone that lost the answer sends the same request again, maybe elsewhere.
                if rng.chance(25) {
                    let other = &servers[(s + rng.below(2) as usize) % 2];
                    let retry = post(&client, &other.url(&path), Some(&token), &body).await;
                    let mut ledger = ledger.lock().unwrap();
                    ledger.appends += 1;
                    ledger.retries += 1;
                    match &retry {
                        Ok(reply) => {
                            if acked && reply.status != 200 {
                                ledger.failures.push(format!(
                                    "a retry of an acknowledged append answered {}: {}",
                                    reply.status, reply.body
                                ));
                            }
                            ledger.record(game, &what, &ids, reply, !acked);
                        }
                        Err(e) => ledger.failures.push(format!("retry failed: {e}")),
                    }
                }
            }
        }));
    }
    for task in tasks {
        task.await.expect("a client task");
    }
    let load_time = started.elapsed();

    // The logs, read through both servers.
    let ledger = Arc::try_unwrap(ledger)
        .ok()
        .expect("tasks done")
        .into_inner()
        .unwrap();
    let mut events_in_logs = 0;
    let mut in_force_rounds = 0;
    for game in games.iter() {
        let mut logs = Vec::new();
        let mut scores = Vec::new();
        for server in servers.iter() {
            let log = get(
                &client,
                &server.url(&format!("/v1/games/{game}/events")),
                &token,
            )
            .await
            .expect("the server answers");
            assert_eq!(log.status, 200, "{}", log.body);
            let score = get(
                &client,
                &server.url(&format!("/v1/games/{game}/score")),
                &token,
            )
            .await
            .expect("the server answers");
            assert_eq!(
                score.status, 200,
                "game {game} does not replay: {}",
                score.body
            );
            logs.push(log.body);
            scores.push(score.body);
        }
        assert_eq!(
            logs[0], logs[1],
            "game {game}: the servers disagree on the log"
        );
        assert_eq!(
            scores[0], scores[1],
            "game {game}: the servers disagree on the score"
        );
        let events = check_gapless(game, &logs[0]);
        let mut seen = HashSet::new();
        for e in &events[1..] {
            let id = e["id"].as_str().expect("id");
            let seq = e["seq"].as_i64().expect("seq");
            assert!(
                seen.insert(id.to_owned()),
                "game {game}: event {id} stored twice"
            );
            match ledger.acked.get(id) {
                Some((g, s)) => assert!(
                    g == game && *s == seq,
                    "game {game}: event {id} at seq {seq} was acknowledged as {g} seq {s}"
                ),
                None => panic!(
                    "game {game}: event {id} (seq {seq}) is stored but was never acknowledged"
                ),
            }
        }
        let acked_here = ledger.acked.values().filter(|(g, _)| g == game).count();
        assert_eq!(
            acked_here,
            events.len() - 1,
            "game {game}: acknowledged events are missing from the log"
        );
        events_in_logs += events.len() - 1;
        in_force_rounds += rounds_in_force(&events).len();
    }
    let conflicts_409 = ledger.statuses.get(&409).copied().unwrap_or(0);
    let server_errors: usize = ledger.statuses.range(500..).map(|(_, n)| n).sum();
    let refused_422 = ledger.statuses.get(&422).copied().unwrap_or(0);
    assert!(
        ledger.created > 0 && conflicts_409 > 0,
        "the load produced no contention"
    );
    println!(
        "two servers, one PostgreSQL database (seed {seed}): {CLIENTS} clients over 2 servers, \
         {SHARED_GAMES} games; {} append requests ({} of them retries of the same event ids) \
         + {} reads in {:.1} s; acknowledged: {} created (201) + {} retries answered 200; \
         refused: {conflicts_409} × 409 + {refused_422} × 422; 5xx: {server_errors}; \
         {events_in_logs} events in the logs ({in_force_rounds} rounds in force), \
         logs gapless and identical, scores equal on both servers; total {:.1} s",
        ledger.appends,
        ledger.retries,
        ledger.reads,
        load_time.as_secs_f64(),
        ledger.created,
        ledger.already_stored,
        started.elapsed().as_secs_f64(),
    );
    assert!(
        ledger.failures.is_empty(),
        "{} failures, e.g.:\n{}",
        ledger.failures.len(),
        ledger
            .failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// A request sent again and answered from the log (its events already stored) ends its
/// transaction before the server keeps the connection for its next write: left open, it would
/// hold the game's row, and the other server's next append to that game would wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_answered_again_from_the_log_leaves_no_lock_behind() {
    // Arrange: a game on server A with round 1 acknowledged.
    let Some((_database, url)) = TestDatabase::fresh(Backend::Postgres, "tabletally_rel").await
    else {
        return;
    };
    let servers = two_servers(&url);
    let client = http_client();
    let token = new_club(&client, &servers[0]).await;
    let game = create_game(&client, &servers[0], &token).await;
    let path = format!("/v1/games/{game}/events");
    let round_one = append_body(Some(1), &[new_event("round_collected", round(1, false))]);
    let first = post(&client, &servers[0].url(&path), Some(&token), &round_one)
        .await
        .expect("the server answers");
    assert_eq!(first.status, 201, "{}", first.body);

    // Act: round 1 sent again to A, then round 2 to B, which waits at most 5 s.
    let again = post(&client, &servers[0].url(&path), Some(&token), &round_one)
        .await
        .expect("the server answers");
    let impatient = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .expect("an HTTP client");
    let round_two = append_body(Some(2), &[new_event("round_collected", round(2, true))]);
    let next = post(&impatient, &servers[1].url(&path), Some(&token), &round_two).await;

    // Assert
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.body["version"], 2, "{}", again.body);
    let next = next.expect("B answers within 5 s: no transaction of A's holds the game");
    assert_eq!(next.status, 201, "{}", next.body);
    assert_eq!(next.body["version"], 3, "{}", next.body);
}

// ---------------------------------------------------------------------------------------------
// 2. Crash safety: SIGKILL at random moments, restart on the same database.

const KILLS: usize = 24;

/// What the client knows of one game.
struct Tracked {
    id: String,
    version: i64,
    /// The event ids acknowledged, in the order (= seq 2, 3, …) they were appended.
    acked: Vec<String>,
    /// Seqs of the rounds in force.
    rounds: Vec<i64>,
}

/// A request whose answer has not been received yet.
enum Pending {
    Create {
        id: String,
    },
    Append {
        game: usize,
        body: Value,
        event: Value,
    },
}

#[derive(Default)]
struct CrashFigures {
    appends_sent: usize,
    acked: usize,
    unknown_stored: usize,
    unknown_not_stored: usize,
    creates_unknown_stored: usize,
    creates_unknown_not_stored: usize,
    retracts: usize,
    kills: usize,
}

struct Crash {
    token: String,
    games: Vec<Tracked>,
    pending: Option<Pending>,
    rng: Lcg,
    figures: CrashFigures,
}

impl Crash {
    /// The next request for the current game: a new game once it is finished (sometimes a
    /// retract of its last round instead), else the next round.
    fn next_request(&mut self) -> Pending {
        let needs_game = match self.games.last() {
            None => true,
            Some(g) => g.rounds.len() == 3 && !self.rng.chance(20),
        };
        if needs_game {
            return Pending::Create {
                id: uuid::Uuid::new_v4().to_string(),
            };
        }
        let swap = self.rng.chance(50);
        let game = self.games.len() - 1;
        let g = &self.games[game];
        let retract = g.rounds.len() == 3 || (!g.rounds.is_empty() && self.rng.chance(10));
        let event = if retract {
            new_event(
                "retract",
                json!({"seq": g.rounds[g.rounds.len() - 1], "reason": "crash test"}),
            )
        } else {
            new_event("round_collected", round(g.rounds.len() + 1, swap))
        };
        let body = append_body(Some(g.version), std::slice::from_ref(&event));
        Pending::Append { game, body, event }
    }

    /// Sends `pending`; `Err` when the connection broke (outcome unknown). Anything but the
    /// expected success is a failure: this client is alone and always up to date.
    async fn send(
        &mut self,
        client: &reqwest::Client,
        server: &ServerProcess,
        pending: &Pending,
        after_restart: bool,
    ) -> Result<(), reqwest::Error> {
        match pending {
            Pending::Create { id } => {
                let reply = post(
                    client,
                    &server.url("/v1/games"),
                    Some(&self.token),
                    &new_game_body(id),
                )
                .await?;
                match (reply.status, after_restart) {
                    (201, false) => {}
                    (201, true) => self.figures.creates_unknown_not_stored += 1,
                    (200, true) => self.figures.creates_unknown_stored += 1,
                    _ => panic!(
                        "creating game {id} (retry after restart: {after_restart}) answered {}: {}",
                        reply.status, reply.body
                    ),
                }
                assert_eq!(reply.body["id"], id.as_str());
                assert_eq!(
                    reply.body["version"], 1,
                    "a new game is at version 1: {}",
                    reply.body
                );
                self.games.push(Tracked {
                    id: id.clone(),
                    version: 1,
                    acked: Vec::new(),
                    rounds: Vec::new(),
                });
            }
            Pending::Append { game, body, event } => {
                let id = self.games[*game].id.clone();
                self.figures.appends_sent += 1;
                let reply = post(
                    client,
                    &server.url(&format!("/v1/games/{id}/events")),
                    Some(&self.token),
                    body,
                )
                .await?;
                match (reply.status, after_restart) {
                    (201, false) => {}
                    (201, true) => self.figures.unknown_not_stored += 1,
                    (200, true) => self.figures.unknown_stored += 1,
                    _ => panic!(
                        "append to game {id} (retry after restart: {after_restart}) answered {}: {}\nserver log:\n{}",
                        reply.status,
                        reply.body,
                        server.log_tail()
                    ),
                }
                let g = &mut self.games[*game];
                let seq = g.version + 1;
                assert_eq!(reply.body["version"], seq, "{}", reply.body);
                assert_eq!(reply.body["events"][0]["id"], event["id"], "{}", reply.body);
                assert_eq!(reply.body["events"][0]["seq"], seq, "{}", reply.body);
                g.version = seq;
                g.acked.push(event["id"].as_str().unwrap().to_owned());
                if event["type"] == "retract" {
                    g.rounds.pop();
                    self.figures.retracts += 1;
                } else {
                    g.rounds.push(seq);
                }
                self.figures.acked += 1;
            }
        }
        Ok(())
    }

    /// Appends until the connection breaks (the server was killed); the request in flight
    /// stays in `pending`.
    async fn run_until_broken(&mut self, client: &reqwest::Client, server: &ServerProcess) {
        loop {
            let pending = self.next_request();
            match self.send(client, server, &pending, false).await {
                Ok(()) => {}
                Err(e) => {
                    assert!(!e.is_timeout(), "the server hung: {e}");
                    self.pending = Some(pending);
                    return;
                }
            }
        }
    }
}

async fn crash_safety(backend: Backend) {
    let Some((_database, url)) = TestDatabase::fresh(backend, "tabletally_rel").await else {
        return;
    };
    let started = Instant::now();
    let seed = seed() ^ (backend as u64 + 1);
    let client = http_client();
    let mut server = ServerProcess::start("crash-0", &url);
    let token = new_club(&client, &server).await;
    let mut crash = Crash {
        token,
        games: Vec::new(),
        pending: None,
        rng: Lcg::new(seed),
        figures: CrashFigures::default(),
    };
    let mut longest_restart = Duration::ZERO;

    for kill in 1..=KILLS {
        // The kill lands at a random moment of the stream of appends.
        let delay = Duration::from_millis(20 + crash.rng.below(380));
        let child = server.child.clone();
        let killed = Arc::new(AtomicBool::new(false));
        let killer = tokio::spawn({
            let killed = killed.clone();
            async move {
                tokio::time::sleep(delay).await;
                let mut child = child.lock().unwrap_or_else(|e| e.into_inner());
                killed.store(true, Ordering::SeqCst);
                let _ = child.kill();
            }
        });
        crash.run_until_broken(&client, &server).await;
        assert!(
            killed.load(Ordering::SeqCst),
            "the connection broke before the server was killed; log:\n{}",
            server.log_tail()
        );
        killer.await.expect("the killer task");
        let status = server.kill();
        assert_eq!(
            status.signal(),
            Some(9),
            "the server ended by itself ({status}) before it was killed; log:\n{}",
            server.log_tail()
        );
        crash.figures.kills += 1;

        // Restart on the same database, then settle the request whose answer was lost.
        let restart = Instant::now();
        server = ServerProcess::start(&format!("crash-{kill}"), &url);
        longest_restart = longest_restart.max(restart.elapsed());
        if let Some(pending) = crash.pending.take() {
            crash
                .send(&client, &server, &pending, true)
                .await
                .expect("the restarted server answers");
        }
    }

    let games: Vec<&Tracked> = crash.games.iter().collect();
    let events_total = verify_logs(&client, &server, &crash.token, &games).await;
    let ready = get(&client, &server.url("/readyz"), &crash.token)
        .await
        .expect("the server answers");
    assert_eq!(ready.status, 200);

    let f = &crash.figures;
    let finished = crash.games.iter().filter(|g| g.rounds.len() == 3).count();
    println!(
        "crash safety on {backend:?} (seed {seed}): 1 sequential client; {} SIGKILLs survived \
         (kill after 20–400 ms of load, longest restart {} ms); {} append requests \
         (+ {} game creations), {} appends acknowledged ({} retracts); \
         lost answers settled by retry: {} were stored (200), {} were not (201); \
         game creations with lost answers: {} stored, {} not; {} games ({finished} finished), \
         {events_total} events, all logs gapless and complete, every game replays; total {:.1} s",
        f.kills,
        longest_restart.as_millis(),
        f.appends_sent,
        crash.games.len(),
        f.acked,
        f.retracts,
        f.unknown_stored,
        f.unknown_not_stored,
        f.creates_unknown_stored,
        f.creates_unknown_not_stored,
        crash.games.len(),
        started.elapsed().as_secs_f64(),
    );
}

/// Every acknowledged event of `games` is stored exactly once, in order; every game the club
/// has is one of them (nothing half-created) and replays. Returns the number of events.
async fn verify_logs(
    client: &reqwest::Client,
    server: &ServerProcess,
    token: &str,
    games: &[&Tracked],
) -> usize {
    // Every acknowledged event is there exactly once, in order; every game replays.
    let mut events_total = 0;
    for g in games {
        let log = get(
            client,
            &server.url(&format!("/v1/games/{}/events", g.id)),
            token,
        )
        .await
        .expect("the server answers");
        assert_eq!(log.status, 200, "{}", log.body);
        let events = check_gapless(&g.id, &log.body);
        let ids: Vec<&str> = events[1..]
            .iter()
            .map(|e| e["id"].as_str().unwrap())
            .collect();
        assert_eq!(
            ids,
            g.acked.iter().map(String::as_str).collect::<Vec<_>>(),
            "game {}: the log differs from the acknowledged events",
            g.id
        );
        assert_eq!(log.body["version"], g.version);
        events_total += events.len();
    }
    // Also every game the server knows (nothing half-created that the client never saw).
    let mut listed = 0;
    let mut cursor: Option<String> = None;
    let known: HashSet<&str> = games.iter().map(|g| g.id.as_str()).collect();
    loop {
        let path = match &cursor {
            Some(c) => format!("/v1/games?limit=200&cursor={c}"),
            None => "/v1/games?limit=200".to_owned(),
        };
        let page = get(client, &server.url(&path), token)
            .await
            .expect("the server answers");
        assert_eq!(page.status, 200, "{}", page.body);
        for summary in page.body["games"].as_array().expect("games") {
            let id = summary["id"].as_str().expect("id");
            assert!(
                known.contains(id),
                "game {id} exists but was never acknowledged"
            );
            let score = get(client, &server.url(&format!("/v1/games/{id}/score")), token)
                .await
                .expect("the server answers");
            assert_eq!(
                score.status, 200,
                "game {id} does not replay: {}",
                score.body
            );
            listed += 1;
        }
        match page.body["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(
        listed,
        games.len(),
        "the server lists other games than acknowledged"
    );
    events_total
}

// 3. Group commit under a crash: many tables at once, SIGKILLed in the middle of batches.

const TABLES: usize = 32;
const TABLE_KILLS: usize = 4;

/// 32 tables append at once (each its own sequential client, as in 2), so the server commits
/// their requests in shared batches; it is SIGKILLed at random moments. Every acknowledged
/// event must survive exactly once; a request whose answer was lost is settled by retrying it.
async fn tables_crash_safety(backend: Backend) {
    let Some((_database, url)) = TestDatabase::fresh(backend, "tabletally_rel").await else {
        return;
    };
    let seed = seed() ^ 0x7ab1e5;
    let client = http_client();
    let mut server = ServerProcess::start("tables-0", &url);
    let token = new_club(&client, &server).await;
    let mut rng = Lcg::new(seed);
    let mut tables: Vec<Crash> = (0..TABLES as u64)
        .map(|t| Crash {
            token: token.clone(),
            games: Vec::new(),
            pending: None,
            rng: Lcg::new(seed.wrapping_add(t)),
            figures: CrashFigures::default(),
        })
        .collect();
    for kill in 1..=TABLE_KILLS {
        let delay = Duration::from_millis(100 + rng.below(400));
        let child = server.child.clone();
        let killer = tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let mut child = child.lock().unwrap_or_else(|e| e.into_inner());
            let _ = child.kill();
        });
        futures_util::future::join_all(
            tables
                .iter_mut()
                .map(|table| table.run_until_broken(&client, &server)),
        )
        .await;
        killer.await.expect("the killer task");
        let status = server.kill();
        assert_eq!(status.signal(), Some(9), "log:\n{}", server.log_tail());
        server = ServerProcess::start(&format!("tables-{kill}"), &url);
        for table in &mut tables {
            if let Some(pending) = table.pending.take() {
                table
                    .send(&client, &server, &pending, true)
                    .await
                    .expect("the restarted server answers");
            }
        }
    }
    // One more burst without a kill: the batches really held several requests.
    futures_util::future::join_all(tables.iter_mut().map(|table| async {
        for _ in 0..5 {
            let pending = table.next_request();
            table
                .send(&client, &server, &pending, false)
                .await
                .expect("the server answers");
        }
    }))
    .await;
    let metrics = reqwest::get(server.url("/metrics"))
        .await
        .expect("metrics")
        .text()
        .await
        .expect("metrics text");
    let largest = metrics
        .lines()
        .find_map(|l| l.strip_prefix("tabletally_write_largest_batch "))
        .and_then(|v| v.parse::<u64>().ok())
        .expect("the largest batch in /metrics");
    if backend == Backend::Sqlite {
        assert!(
            largest > 1,
            "32 tables at once never shared a commit:\n{metrics}"
        );
    }

    let games: Vec<&Tracked> = tables.iter().flat_map(|t| t.games.iter()).collect();
    let events = verify_logs(&client, &server, &token, &games).await;
    let acked: usize = tables.iter().map(|t| t.figures.acked).sum();
    let settled: usize = tables
        .iter()
        .map(|t| t.figures.unknown_stored + t.figures.unknown_not_stored)
        .sum();
    println!(
        "{TABLES} tables at once on {backend:?} (seed {seed}): {TABLE_KILLS} SIGKILLs; {} games, \
         {acked} appends acknowledged, {settled} lost answers settled by retry, {events} events, \
         all logs gapless and complete; largest batch after the last restart: {largest}",
        games.len()
    );
}

mod tables_crash_safety {
    use super::{Backend, tables_crash_safety};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn on_sqlite() {
        tables_crash_safety(Backend::Sqlite).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn on_postgres() {
        tables_crash_safety(Backend::Postgres).await;
    }
}

mod crash_safety {
    use super::{Backend, crash_safety};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn on_sqlite() {
        crash_safety(Backend::Sqlite).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn on_postgres() {
        crash_safety(Backend::Postgres).await;
    }
}

// 4. SQLite's group commit: a request whose own writes fail leaves its batch standing.

/// Eight games finish while eight others are created and eight more take a round, all at once,
/// so the SQLite writer takes them into shared batches; a trigger makes every finish fail in
/// the last of its writes (the lobby's change, which the writer sends with the statement that
/// closes the request's savepoint, or with the commit). Each finish is answered with an error
/// and stores nothing; every creation and round in the same batches is stored, each round at
/// the position it answered; once the trigger is gone, the same finish is taken at the same
/// version.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_whose_writes_fail_in_a_shared_batch_is_refused_alone() {
    let Some(table) = Table::on_fresh_sqlite("held-writes").await else {
        return;
    };
    let mut finishing = Vec::new();
    for _ in 0..8 {
        let id = uuid::Uuid::new_v4().to_string();
        let created = table.create(&id).await;
        assert_eq!(created.status, 201, "{}", created.body);
        for (version, n) in [(1, 1), (2, 2)] {
            let reply = table
                .append(
                    &id,
                    version,
                    &new_event("round_collected", round(n, n == 2)),
                )
                .await;
            assert_eq!(reply.status, 201, "{}", reply.body);
        }
        finishing.push(id);
    }
    // Games that take a round in the same batches: their answers' positions are the logged ones.
    let playing: Vec<String> = (0..8).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    for id in &playing {
        assert_eq!(table.create(id).await.status, 201);
    }
    let mut conn = sqlx::SqliteConnection::connect(&table.url)
        .await
        .expect("open the database");
    sqlx::raw_sql(
        "CREATE TRIGGER no_finish BEFORE INSERT ON game_changes WHEN NEW.kind = 'game_finished' \
         BEGIN SELECT RAISE(ABORT, 'no game may finish today'); END",
    )
    .execute(&mut conn)
    .await
    .expect("create the trigger");

    let last_rounds: Vec<Value> = finishing
        .iter()
        .map(|_| new_event("round_collected", round(3, false)))
        .collect();
    let new_ids: Vec<String> = (0..8).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    let first_round = new_event("round_collected", round(1, false));
    let (finished, created, playing_replies) = tokio::join!(
        futures_util::future::join_all(
            finishing
                .iter()
                .zip(&last_rounds)
                .map(|(id, event)| table.append(id, 3, event))
        ),
        futures_util::future::join_all(new_ids.iter().map(|id| table.create(id))),
        futures_util::future::join_all(playing.iter().map(|id| table.append(id, 1, &first_round)))
    );
    for reply in &finished {
        assert_eq!(reply.status, 500, "{}", reply.body);
        assert_eq!(reply.content_type, "application/problem+json");
    }
    for (id, reply) in new_ids.iter().zip(&created) {
        assert_eq!(reply.status, 201, "{}", reply.body);
        let game = table.get(&format!("/v1/games/{id}")).await;
        assert_eq!(
            (game.status, game.body["version"].as_i64()),
            (200, Some(1)),
            "{}",
            game.body
        );
    }
    let metrics = table
        .client
        .get(table.server.url("/metrics"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    let largest: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("tabletally_write_largest_batch "))
        .and_then(|v| v.trim().parse().ok())
        .expect("the largest batch in /metrics");
    assert!(
        largest >= 2,
        "the requests never shared a batch:\n{metrics}"
    );

    sqlx::raw_sql("DROP TRIGGER no_finish")
        .execute(&mut conn)
        .await
        .expect("drop the trigger");
    for (id, event) in finishing.iter().zip(&last_rounds) {
        let log = table.get(&format!("/v1/games/{id}/events")).await;
        assert_eq!(
            check_gapless(id, &log.body).len(),
            3,
            "game {id} kept nothing of its failed finish"
        );
        let score = table.get(&format!("/v1/games/{id}/score")).await;
        assert_eq!(score.body["status"], "in_progress", "{}", score.body);
        let reply = table.append(id, 3, event).await;
        assert_eq!(
            (reply.status, reply.body["version"].as_i64()),
            (201, Some(4)),
            "{}",
            reply.body
        );
        let score = table.get(&format!("/v1/games/{id}/score")).await;
        assert_eq!(score.body["status"], "finished", "{}", score.body);
    }
    // The refused finishes' events took no position: every game's log is the club's, and the
    // rounds taken beside them answered the positions they were stored at.
    let club_log = table.club_log().await;
    assert_eq!(
        club_log.len(),
        finishing.len() * 4 + new_ids.len() + playing.len() * 2
    );
    for (id, reply) in playing.iter().zip(&playing_replies) {
        assert_eq!(reply.status, 201, "{}", reply.body);
        let event = &reply.body["events"][0];
        let position = event["position"].as_i64().expect("position");
        assert_eq!(
            club_log.get(&position),
            Some(&(id.clone(), 2)),
            "{id}'s round at {position}"
        );
    }
    for id in finishing.iter().chain(&new_ids).chain(&playing) {
        let log = table.get(&format!("/v1/games/{id}/events")).await;
        for event in check_gapless(id, &log.body) {
            let position = event["position"].as_i64().expect("position");
            let seq = event["seq"].as_i64().expect("seq");
            assert_eq!(
                club_log.get(&position),
                Some(&(id.clone(), seq)),
                "{id} {seq} at {position}"
            );
        }
    }
}

/// Eight games, each sent two rounds at once at the same version (one is taken, the other
/// refused as a conflict) while new games are created, so the SQLite writer's shared batches
/// hold refused requests between accepted ones. The positions each accepted append answered
/// (read by the writer with its commit) are those the game's log and the club's log show, and
/// the club's log has every position once, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_positions_an_append_answers_are_those_the_clubs_log_shows() {
    let Some(table) = Table::on_fresh_sqlite("positions").await else {
        return;
    };
    let games: Vec<String> = (0..8).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    for id in &games {
        assert_eq!(table.create(id).await.status, 201);
    }
    // (game, seq) → the position its append answered.
    let mut answered = std::collections::BTreeMap::new();
    let mut created = 0;
    let table = &table;
    for (version, n) in [(1, 1), (2, 2)] {
        let rivals = [
            new_event("round_collected", round(n, false)),
            new_event("round_collected", round(n, true)),
        ];
        let new_ids: Vec<String> = (0..4).map(|_| uuid::Uuid::new_v4().to_string()).collect();
        let (appends, creations) = tokio::join!(
            futures_util::future::join_all(
                games
                    .iter()
                    .flat_map(|id| rivals.iter().map(move |event| (id, event)))
                    .map(|(id, event)| async move { (id, table.append(id, version, event).await) })
            ),
            futures_util::future::join_all(new_ids.iter().map(|id| table.create(id)))
        );
        for (id, reply) in appends {
            match reply.status {
                201 => {
                    for event in reply.body["events"].as_array().expect("events") {
                        let seq = event["seq"].as_i64().expect("seq");
                        let position = event["position"].as_i64().expect("position");
                        answered.insert((id.clone(), seq), position);
                    }
                }
                409 => assert_eq!(reply.content_type, "application/problem+json"),
                other => panic!("an append answered {other}: {}", reply.body),
            }
        }
        for reply in creations {
            assert_eq!(reply.status, 201, "{}", reply.body);
            created += 1;
        }
    }
    assert_eq!(
        answered.len(),
        16,
        "one of each game's two rivals per round: {answered:?}"
    );

    let mut logged = std::collections::BTreeMap::new();
    for id in &games {
        let log = table.get(&format!("/v1/games/{id}/events")).await;
        for event in check_gapless(id, &log.body) {
            let seq = event["seq"].as_i64().expect("seq");
            logged.insert(
                (id.clone(), seq),
                event["position"].as_i64().expect("position"),
            );
        }
    }
    for (key, position) in &answered {
        assert_eq!(
            logged.get(key),
            Some(position),
            "{key:?}: answered {position}, logged {:?}",
            logged.get(key)
        );
    }
    let club_log = table.club_log().await;
    assert_eq!(club_log.len(), games.len() * 3 + created);
    for (key, position) in &logged {
        assert_eq!(
            club_log.get(position),
            Some(key),
            "{key:?} at {position} in the club's log"
        );
    }
}

/// One club's requests to a server of its own, on a fresh SQLite database.
struct Table {
    client: reqwest::Client,
    server: ServerProcess,
    token: String,
    url: String,
    /// Dropped last, after the server.
    _database: TestDatabase,
}

impl Table {
    async fn on_fresh_sqlite(label: &str) -> Option<Self> {
        let (database, url) = TestDatabase::fresh(Backend::Sqlite, "tabletally_rel").await?;
        let client = http_client();
        let server = ServerProcess::start(label, &url);
        let token = new_club(&client, &server).await;
        Some(Self {
            client,
            server,
            token,
            url,
            _database: database,
        })
    }

    async fn create(&self, id: &str) -> Reply {
        post(
            &self.client,
            &self.server.url("/v1/games"),
            Some(&self.token),
            &new_game_body(id),
        )
        .await
        .expect("the server answers a creation")
    }

    /// Appends one event at `version`.
    async fn append(&self, id: &str, version: i64, event: &Value) -> Reply {
        let body = append_body(Some(version), std::slice::from_ref(event));
        post(
            &self.client,
            &self.server.url(&format!("/v1/games/{id}/events")),
            Some(&self.token),
            &body,
        )
        .await
        .expect("the server answers an append")
    }

    async fn get(&self, path: &str) -> Reply {
        get(&self.client, &self.server.url(path), &self.token)
            .await
            .expect("the server answers a read")
    }

    /// The club's log by position, checked to be in order with no position twice.
    async fn club_log(&self) -> std::collections::BTreeMap<i64, (String, i64)> {
        let reply = self.get("/v1/events?after=0&limit=1000").await;
        let events = reply.body["events"].as_array().expect("the club's events");
        let positions: Vec<i64> = events
            .iter()
            .map(|e| e["position"].as_i64().expect("position"))
            .collect();
        assert!(
            positions.windows(2).all(|w| w[0] < w[1]),
            "the club's log is out of order or repeats a position: {positions:?}"
        );
        events
            .iter()
            .map(|e| {
                let game = e["game_id"].as_str().expect("game id").to_owned();
                (
                    e["position"].as_i64().expect("position"),
                    (game, e["seq"].as_i64().expect("seq")),
                )
            })
            .collect()
    }
}

// 6. The commands: `tabletally export` piped into `tabletally import`, as the README shows.

/// A club made on a server of `url` (stopped afterwards): its id and token.
async fn club_on(url: &str, label: &str) -> (String, String) {
    let server = ServerProcess::start(label, url);
    let client = http_client();
    let reply = post(
        &client,
        &server.url("/v1/clubs"),
        None,
        &json!({"name": "Moving club"}),
    )
    .await
    .expect("the server answers");
    assert_eq!(reply.status, 201, "{}", reply.body);
    let id = reply.body["id"].as_str().expect("id").to_owned();
    let token = reply.body["token"].as_str().expect("token").to_owned();
    (id, token)
}

/// The binary running `args` on the database `url`, logging at `info` with colours forced on
/// (a terminal's setting): none of it may reach standard output.
fn command(url: &str, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tabletally"));
    command
        .args(args)
        .env("DATABASE_URL", url)
        .env("RUST_LOG", "info")
        .env("CLICOLOR_FORCE", "1")
        .env_remove("NO_COLOR")
        .env_remove("TABLETALLY_LOG_FORMAT");
    command
}

async fn the_export_command_pipes_into_the_import_command(backend: Backend) {
    let Some((source, source_url)) = TestDatabase::fresh(backend, "tabletally_rel").await else {
        return;
    };
    let Some((target, target_url)) = TestDatabase::fresh(backend, "tabletally_rel").await else {
        return;
    };
    // Given a club with a finished game of three rounds and a game whose totals were typed in
    let (club, token) = club_on(&source_url, "source").await;
    {
        let server = ServerProcess::start("source", &source_url);
        let client = http_client();
        let played = create_game(&client, &server, &token).await;
        for n in 1..=3 {
            append_round(&client, &server, &token, &played, n).await;
        }
        let typed = create_game(&client, &server, &token).await;
        let reply = post(
            &client,
            &server.url(&format!("/v1/games/{typed}/events")),
            Some(&token),
            &append_body(
                Some(1),
                &[new_event(
                    "result_recorded",
                    json!({"totals": {"Ann": 20, "Bo": 31}, "winners": ["Ann"]}),
                )],
            ),
        )
        .await
        .expect("the server answers");
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
    let (into, _) = club_on(&target_url, "target").await;

    // When the export's standard output is the import's standard input
    let mut export = command(&source_url, &["export", "--club", &club])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("export starts");
    let import = command(&target_url, &["import", "--club", &into])
        .stdin(Stdio::from(export.stdout.take().expect("piped")))
        .output()
        .expect("import runs");
    let exported = export.wait_with_output().expect("export ends");

    // Then both succeed, the import's standard output is its JSON report alone, and the logs
    // (colourless, since standard error is not a terminal) went to standard error.
    let report = String::from_utf8_lossy(&import.stdout);
    let logs = format!(
        "{}{}",
        String::from_utf8_lossy(&exported.stderr),
        String::from_utf8_lossy(&import.stderr)
    );
    assert!(exported.status.success(), "{logs}");
    assert!(import.status.success(), "{report}\n{logs}");
    let report: Value = serde_json::from_str(&report).unwrap_or_else(|e| panic!("{e}: {report}"));
    assert_eq!(report["imported"], 2, "{report}");
    assert_eq!(report["failed"], json!([]), "{report}");
    assert!(
        logs.contains("exported") && logs.contains("imported"),
        "{logs}"
    );
    assert!(
        !logs.contains('\u{1b}'),
        "colour codes in a log that is not a terminal: {logs}"
    );
    // And the export alone writes only its lines, each a JSON object.
    let alone = command(&source_url, &["export", "--club", &club])
        .output()
        .expect("export runs");
    let lines = String::from_utf8(alone.stdout).expect("UTF-8");
    assert_eq!(
        lines.lines().count(),
        2 + 2,
        "two players, two games:\n{lines}"
    );
    for line in lines.lines() {
        let value: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(
            value["format"]
                .as_str()
                .is_some_and(|f| f.starts_with("tabletally."))
        );
    }
    drop((source, target));
}

mod the_export_command_pipes_into_the_import_command {
    use super::{Backend, the_export_command_pipes_into_the_import_command};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn on_sqlite() {
        the_export_command_pipes_into_the_import_command(Backend::Sqlite).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn on_postgres() {
        the_export_command_pipes_into_the_import_command(Backend::Postgres).await;
    }
}
