//! A PostgreSQL pair with automatic failover (`scripts/ha-cluster.sh`: pg_auto_failover, a
//! monitor and two nodes) under two servers, eight tables appending with `expected_version`.
//! The primary's machine dies mid-load (SIGKILL to its keeper and its postmaster); the standby
//! is promoted; every append that was acknowledged is in the logs exactly once, the logs are
//! gapless, writes resume, both servers listen on the new primary, and a phone following a
//! game on the other server — its stream dropped and opened again with `Last-Event-ID` during
//! the failover — misses nothing. Meanwhile someone else makes games and reads scores: every
//! answer is a success or a 503 with `Retry-After`, never a 500, and every game made is there.
//! Then the old primary rejoins as the standby and a failover back works too.
//!
//! Runs when `pg_autoctl` is installed; with `CI=true` it must be. `TABLETALLY_FAILOVERS`
//! (default 2: there and back) sets how many failovers; `TABLETALLY_FAILOVER_COST=1` also
//! measures the synchronous standby's cost on appends (scripts/failover-bench.sh does both).

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sqlx::{Connection, Row};
use tabletally_api::config::Config;
use tabletally_api::startup::{Application, Stopper};

use crate::helpers::{Reply, metric};
use crate::mint_condition::{new_game, round_1, round_2, round_3};

const TABLES: usize = 8;
/// A hang guard, not a speed target: the targets are measured and printed.
const PATIENCE: Duration = Duration::from_secs(90);

/// The cluster of one test, in a directory of its own; stopped and removed when dropped.
struct Cluster {
    dir: PathBuf,
}

impl Cluster {
    /// `None` (the test prints `skipped`) when pg_autoctl is missing outside CI.
    fn start() -> Option<Cluster> {
        let installed = Command::new("pg_autoctl")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !installed {
            crate::helpers::skip_outside_ci(
                "pg_autoctl must be installed (Debian: postgresql-15-auto-failover)",
                "install pg_autoctl (postgresql-15-auto-failover) to run the failover test",
            );
            return None;
        }
        let cluster = Cluster {
            dir: std::env::temp_dir()
                .join(format!("tabletally-ha-{}", uuid::Uuid::new_v4().simple())),
        };
        cluster.run(&["start"]);
        Some(cluster)
    }

    fn run(&self, args: &[&str]) -> String {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/ha-cluster.sh");
        let out = Command::new(script)
            .args(args)
            .env("TABLETALLY_HA_DIR", &self.dir)
            .output()
            .expect("scripts/ha-cluster.sh runs");
        assert!(
            out.status.success(),
            "ha-cluster.sh {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    async fn run_async(&self, args: &[&'static str]) -> String {
        let dir = self.dir.clone();
        let args = args.to_vec();
        tokio::task::spawn_blocking(move || Cluster { dir }.run_detached(&args))
            .await
            .expect("the script's thread")
    }

    /// [`Cluster::run`] on a copy that does not stop the cluster when dropped.
    fn run_detached(self, args: &[&str]) -> String {
        let out = self.run(args);
        std::mem::forget(self);
        out
    }

    fn database_url(&self) -> String {
        self.run(&["urls"])
            .lines()
            .next()
            .expect("a URL")
            .to_owned()
    }

    /// One node alone (to ask it about replication).
    fn node_url(&self, node: &str) -> String {
        self.url_of(&[node])
    }

    /// The nodes' URL in libpq's multi-host form, in this order.
    fn url_of(&self, nodes: &[&str]) -> String {
        let hosts: Vec<String> = nodes
            .iter()
            .map(|node| {
                let port =
                    std::fs::read_to_string(self.dir.join(format!("{node}.port"))).expect("a port");
                format!("127.0.0.1:{}", port.trim())
            })
            .collect();
        format!("postgres://postgres@{}/tabletally", hosts.join(","))
    }

    /// Kills a node's machine; the instant it died.
    async fn kill(&self, node: &str) -> Instant {
        let printed = self
            .run_async(if node == "node1" {
                &["kill", "node1"]
            } else {
                &["kill", "node2"]
            })
            .await;
        let (now, wall) = (Instant::now(), std::time::SystemTime::now());
        let died: f64 = printed.trim().parse().expect("the time of death");
        let since = wall
            .duration_since(std::time::UNIX_EPOCH)
            .expect("a clock after 1970")
            .as_secs_f64()
            - died;
        now - Duration::from_secs_f64(since.max(0.0))
    }

    async fn primary(&self) -> String {
        self.run_async(&["primary"]).await
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/ha-cluster.sh"),
        )
        .arg("stop")
        .env("TABLETALLY_HA_DIR", &self.dir)
        .output();
    }
}

fn other(node: &str) -> &'static str {
    if node == "node1" { "node2" } else { "node1" }
}

struct Server {
    base: String,
    stopper: Stopper,
}

async fn start_server(database_url: &str) -> Server {
    start_server_reading(database_url, None).await
}

/// A server reading statistics and history lists from a standby of `read_url`, if given.
async fn start_server_reading(database_url: &str, read_url: Option<String>) -> Server {
    let config = Config {
        addr: "127.0.0.1:0".into(),
        database_url: database_url.to_owned(),
        read_database_url: read_url,
        workers: Some(2),
        ..Config::default()
    };
    let app = Application::build(&config)
        .await
        .expect("the server starts on the pair");
    let base = format!("http://127.0.0.1:{}", app.port());
    let stopper = app.stopper();
    tokio::spawn(app.run_until_stopped());
    Server { base, stopper }
}

/// One acknowledged append.
#[derive(Debug, Clone)]
struct Ack {
    game: usize,
    event_id: String,
    version: i64,
    sent: Instant,
    answered: Instant,
}

#[derive(Default)]
struct Load {
    acks: Mutex<Vec<Ack>>,
    /// 503s answered (each with Retry-After and problem+json), retried with the same body.
    retried: Mutex<u64>,
    stop: AtomicBool,
}

/// A table: appends one event at a time with `expected_version`, alternating servers, until
/// told to stop. Round 1 at an even version's successor, then its retraction: a log that may
/// grow as long as the test runs. A 503 is retried with the same body (same event id); any
/// other refusal, a 500 among them, fails the test.
async fn table(
    client: reqwest::Client,
    servers: Arc<Vec<String>>,
    token: String,
    index: usize,
    game: String,
    mut version: i64,
    load: Arc<Load>,
) -> i64 {
    let mut sent_count = 0usize;
    while !load.stop.load(Ordering::Relaxed) {
        let event = if version % 2 == 0 {
            json!({"id": uuid::Uuid::new_v4().to_string(), "type": "retract", "data": {"seq": version, "reason": "again"}})
        } else {
            json!({"id": uuid::Uuid::new_v4().to_string(), "type": "round_collected", "data": round_1()})
        };
        let body = json!({"expected_version": version, "events": [event.clone()]});
        let sent = Instant::now();
        loop {
            let server = &servers[(index + sent_count) % servers.len()];
            sent_count += 1;
            let reply = client
                .post(format!("{server}/v1/games/{game}/events"))
                .bearer_auth(&token)
                .json(&body)
                .send()
                .await;
            let (status, answer) = answer_of(reply, "a table's append").await;
            match status {
                200 | 201 => {
                    let now = answer["version"].as_i64().expect("a version");
                    assert_eq!(now, version + 1, "table {index}: one event, one version");
                    load.acks.lock().unwrap().push(Ack {
                        game: index,
                        event_id: event["id"].as_str().unwrap().to_owned(),
                        version: now,
                        sent,
                        answered: Instant::now(),
                    });
                    version = now;
                    break;
                }
                503 => {
                    *load.retried.lock().unwrap() += 1;
                    // Sooner than Retry-After: the test measures when writes come back.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                _ => panic!("table {index} at version {version}: {status} {answer}"),
            }
        }
    }
    version
}

/// Reads an answer through the suite's `Reply`; a 503 must be a problem that says when to
/// retry (`Retry-After`). Returns the status and the body.
async fn answer_of(reply: reqwest::Result<reqwest::Response>, what: &str) -> (u16, Value) {
    let reply =
        Reply::read(reply.expect("the tabletally server answers (it is the database that dies)"))
            .await;
    let status = reply.status.as_u16();
    if status == 503 {
        reply.problem(503);
        assert!(
            reply.headers.contains_key("retry-after"),
            "{what}: a 503 says when to retry: {}",
            reply.body
        );
    }
    (status, reply.body)
}

/// A phone following one game on one server, as the test sees it.
#[derive(Default)]
struct Phone {
    /// Every version an `appended` frame told of, in order.
    seen: Mutex<Vec<i64>>,
    opened: AtomicBool,
    /// Set by the test: drop the stream and open it again with `Last-Event-ID`.
    reopen: AtomicBool,
    /// Each attempt to open the stream: its status (0: no answer) and whether it said Retry-After.
    opens: Mutex<Vec<(u16, bool)>>,
    done: AtomicBool,
}

/// A phone following a game on one server: reads its stream, and when the stream ends, cannot
/// be opened, or the test asks, opens it again with `Last-Event-ID`.
async fn follow(
    client: reqwest::Client,
    server: String,
    token: String,
    game: String,
    phone: Arc<Phone>,
) {
    let mut last: Option<i64> = None;
    while !phone.done.load(Ordering::Relaxed) {
        let mut request = client
            .get(format!("{server}/v1/games/{game}/stream"))
            .bearer_auth(&token);
        if let Some(id) = last {
            request = request.header("last-event-id", id.to_string());
        }
        let answer = request.send().await;
        let (status, retry_after) = answer.as_ref().map_or((0, false), |r| {
            (r.status().as_u16(), r.headers().contains_key("retry-after"))
        });
        phone.opens.lock().unwrap().push((status, retry_after));
        let mut response = match answer {
            Ok(r) if status == 200 => r,
            _ => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let mut buffer = String::new();
        loop {
            let chunk = tokio::select! {
                chunk = response.chunk() => chunk,
                _ = tokio::time::sleep(Duration::from_millis(200)) => {
                    if phone.done.load(Ordering::Relaxed) { return; }
                    if phone.reopen.swap(false, Ordering::Relaxed) { break; }
                    continue;
                }
            };
            let Ok(Some(bytes)) = chunk else { break };
            buffer.push_str(&String::from_utf8_lossy(&bytes));
            while let Some(end) = buffer.find("\n\n") {
                let block: String = buffer.drain(..end + 2).collect();
                let kind = block.lines().find_map(|l| l.strip_prefix("event: "));
                let id = block
                    .lines()
                    .find_map(|l| l.strip_prefix("id: "))
                    .and_then(|v| v.parse::<i64>().ok());
                match (kind, id) {
                    (Some("appended"), Some(id)) => {
                        phone.seen.lock().unwrap().push(id);
                        last = Some(id);
                    }
                    (Some("snapshot"), Some(id)) if last.is_none() => {
                        last = Some(id);
                        phone.opened.store(true, Ordering::Relaxed);
                    }
                    _ => {}
                }
            }
        }
    }
}

/// Someone else at the club while the tables play: makes games and reads their scores through
/// both servers in turn. Every answer is a success or a 503 with Retry-After in problem+json,
/// never anything else. Returns the games whose creation was acknowledged and the 503s.
async fn visitor(
    client: reqwest::Client,
    servers: Arc<Vec<String>>,
    token: String,
    load: Arc<Load>,
) -> (Vec<String>, usize) {
    let (mut created, mut unavailable) = (Vec::new(), 0);
    let mut turn = 0usize;
    while !load.stop.load(Ordering::Relaxed) {
        turn += 1;
        let server = &servers[turn % servers.len()];
        let reply = if turn % 2 == 1 || created.is_empty() {
            client
                .post(format!("{server}/v1/games"))
                .bearer_auth(&token)
                .json(&new_game(json!({})))
                .send()
                .await
        } else {
            let game: &String = &created[created.len() - 1];
            client
                .get(format!("{server}/v1/games/{game}/score"))
                .bearer_auth(&token)
                .send()
                .await
        };
        let (status, answer) = answer_of(reply, "the visitor's request").await;
        match status {
            201 => created.push(
                answer["id"]
                    .as_str()
                    .expect("a created game's id")
                    .to_owned(),
            ),
            // A game just made: no round yet, three players at nought.
            200 => {
                assert_eq!(answer["version"], 1, "{answer}");
                assert_eq!(
                    answer["players"].as_array().map(Vec::len),
                    Some(3),
                    "{answer}"
                );
            }
            503 => unavailable += 1,
            _ => panic!("the visitor's request {turn}: {status} {answer}"),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (created, unavailable)
}

/// Every game's log read back: gapless (seq 1..=version), each acknowledged event exactly once.
async fn check_logs(
    client: &reqwest::Client,
    server: &str,
    token: &str,
    games: &[String],
    acks: &[Ack],
) -> Vec<i64> {
    let mut versions = Vec::new();
    for (index, game) in games.iter().enumerate() {
        let log: Value = client
            .get(format!("{server}/v1/games/{game}/events"))
            .bearer_auth(token)
            .send()
            .await
            .expect("the log")
            .json()
            .await
            .expect("JSON");
        let events = log["events"].as_array().expect("events");
        let version = log["version"].as_i64().expect("a version");
        let seqs: Vec<i64> = events.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
        assert_eq!(
            seqs,
            (1..=version).collect::<Vec<_>>(),
            "game {index}'s log is gapless"
        );
        let mut ids: BTreeMap<&str, usize> = BTreeMap::new();
        for e in events {
            *ids.entry(e["id"].as_str().unwrap()).or_default() += 1;
        }
        for ack in acks.iter().filter(|a| a.game == index) {
            assert_eq!(
                ids.get(ack.event_id.as_str()),
                Some(&1),
                "game {index}: acknowledged event {} (version {}) is stored exactly once",
                ack.event_id,
                ack.version
            );
            assert_eq!(
                events[(ack.version - 1) as usize]["id"],
                ack.event_id.as_str()
            );
        }
        versions.push(version);
    }
    versions
}

/// Replication is synchronous: pg_auto_failover names the standby in
/// `synchronous_standby_names`, commits wait for it (`synchronous_commit = on`), and the
/// primary's walsender to it is `sync` or `quorum`.
async fn assert_synchronous(cluster: &Cluster, primary: &str) {
    let mut conn = sqlx::PgConnection::connect(&cluster.node_url(primary))
        .await
        .expect("the primary");
    let names: String = sqlx::query("SHOW synchronous_standby_names")
        .fetch_one(&mut conn)
        .await
        .unwrap()
        .get(0);
    let commit: String = sqlx::query("SHOW synchronous_commit")
        .fetch_one(&mut conn)
        .await
        .unwrap()
        .get(0);
    let states: Vec<String> = sqlx::query("SELECT sync_state FROM pg_stat_replication")
        .fetch_all(&mut conn)
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(
        names.contains("pgautofailover_standby_"),
        "synchronous_standby_names = {names:?}"
    );
    assert_eq!(commit, "on");
    assert!(
        states.len() == 1 && (states[0] == "sync" || states[0] == "quorum"),
        "pg_stat_replication sync_state: {states:?}"
    );
}

/// Sets the primary's `synchronous_commit` (`None`: back to pg_auto_failover's `on`) for every
/// session, the servers' pooled ones included (a reload reaches them at their next statement).
async fn set_synchronous_commit(cluster: &Cluster, primary: &str, value: Option<&str>) {
    let url = cluster.node_url(primary);
    let mut conn = sqlx::PgConnection::connect(&url)
        .await
        .expect("the primary");
    let change = match value {
        Some(value) => format!("ALTER SYSTEM SET synchronous_commit = '{value}'"),
        None => "ALTER SYSTEM RESET synchronous_commit".to_owned(),
    };
    sqlx::raw_sql(sqlx::AssertSqlSafe(change))
        .execute(&mut conn)
        .await
        .expect("ALTER SYSTEM");
    sqlx::query("SELECT pg_reload_conf()")
        .execute(&mut conn)
        .await
        .expect("a reload");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut fresh = sqlx::PgConnection::connect(&url)
        .await
        .expect("the primary");
    let now: String = sqlx::query("SHOW synchronous_commit")
        .fetch_one(&mut fresh)
        .await
        .unwrap()
        .get(0);
    assert_eq!(now, value.unwrap_or("on"));
}

/// 100 one-row commits on one connection with this `synchronous_commit`; the time they took.
async fn commits(conn: &mut sqlx::PgConnection, synchronous_commit: &str) -> Duration {
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "SET synchronous_commit = '{synchronous_commit}'"
    )))
    .execute(&mut *conn)
    .await
    .expect("SET");
    let started = Instant::now();
    for n in 0..100 {
        sqlx::query("INSERT INTO commit_probe VALUES ($1)")
            .bind(n)
            .execute(&mut *conn)
            .await
            .expect("a commit");
    }
    started.elapsed()
}

/// Appends at eight tables for `seconds` on the cluster as it is; appends per second.
async fn rate(
    client: &reqwest::Client,
    servers: &Arc<Vec<String>>,
    token: &str,
    games: &[String],
    seconds: u64,
) -> f64 {
    let load = Arc::new(Load::default());
    let mut tasks = Vec::new();
    for (index, game) in games.iter().enumerate() {
        let version = current_version(client, &servers[0], token, game).await;
        tasks.push(tokio::spawn(table(
            client.clone(),
            servers.clone(),
            token.to_owned(),
            index,
            game.clone(),
            version,
            load.clone(),
        )));
    }
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    load.stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.await.expect("a table");
    }
    load.acks.lock().unwrap().len() as f64 / seconds as f64
}

async fn current_version(client: &reqwest::Client, server: &str, token: &str, game: &str) -> i64 {
    version_at(client, &format!("{server}/v1/games/{game}"), token).await
}

/// The version a game's score shows.
async fn score_version(client: &reqwest::Client, server: &str, token: &str, game: &str) -> i64 {
    version_at(client, &format!("{server}/v1/games/{game}/score"), token).await
}

/// The `version` of what `url` answers.
async fn version_at(client: &reqwest::Client, url: &str, token: &str) -> i64 {
    let answer: Value = client
        .get(url)
        .bearer_auth(token)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"))
        .json()
        .await
        .expect("JSON");
    answer["version"]
        .as_i64()
        .unwrap_or_else(|| panic!("{url}: no version in {answer}"))
}

/// A new club on `server`: its token.
async fn new_club(client: &reqwest::Client, server: &str, name: &str) -> String {
    let club: Value = client
        .post(format!("{server}/v1/clubs"))
        .json(&json!({ "name": name }))
        .send()
        .await
        .expect("a club")
        .json()
        .await
        .expect("JSON");
    club["token"].as_str().expect("a token").to_owned()
}

/// A new Mint Condition game of Ann, Bo and Cy: its id.
async fn new_mint_condition(client: &reqwest::Client, server: &str, token: &str) -> String {
    let created: Value = client
        .post(format!("{server}/v1/games"))
        .bearer_auth(token)
        .json(&new_game(json!({})))
        .send()
        .await
        .expect("a game")
        .json()
        .await
        .expect("JSON");
    created["id"].as_str().expect("an id").to_owned()
}

async fn new_games(client: &reqwest::Client, server: &str, token: &str) -> Vec<String> {
    let mut games = Vec::new();
    for _ in 0..TABLES {
        games.push(new_mint_condition(client, server, token).await);
    }
    games
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn when_the_primary_dies_mid_load_no_acknowledged_append_is_lost_and_writes_resume_on_the_standby()
 {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let failovers: usize = std::env::var("TABLETALLY_FAILOVERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let url = cluster.database_url();
    assert!(
        url.contains(',') && url.contains("target_session_attrs=read-write"),
        "{url}"
    );
    let first = start_server(&url).await;
    let second = start_server(&url).await;
    let servers = Arc::new(vec![first.base.clone(), second.base.clone()]);
    // Connections idle for less than the server's keep-alive (actix-web's 5 s): a pooled connection
    // the server is closing at the moment a table sends on it would fail that send
    // (`IncompleteMessage`, seen once while a table waited out a failover), which is the client's
    // pool, not the server, losing a request.
    let client = reqwest::Client::builder()
        .pool_idle_timeout(Duration::from_secs(3))
        .build()
        .expect("an HTTP client");
    let token = new_club(&client, &servers[0], "Failover club").await;

    let mut resumes = Vec::new();
    let mut total_acks = 0;

    for round in 1..=failovers {
        // Each failover's tables start fresh games (a log holds at most 2000 events).
        let games = new_games(&client, &servers[0], &token).await;
        let dying = cluster.primary().await;
        assert_synchronous(&cluster, &dying).await;

        // A phone follows table 0's game on the second server, while table 0 appends through
        // the first server only: every frame the phone gets comes of a wake-up heard on the
        // second server's LISTEN connection (or of its catching up after listening again).
        let phone = Arc::new(Phone::default());
        let phone_task = tokio::spawn(follow(
            client.clone(),
            servers[1].clone(),
            token.clone(),
            games[0].clone(),
            phone.clone(),
        ));
        while !phone.opened.load(Ordering::Relaxed) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }

        let load = Arc::new(Load::default());
        let mut tasks = Vec::new();
        for (index, game) in games.iter().enumerate() {
            let version = current_version(&client, &servers[0], &token, game).await;
            let through = match index {
                0 => Arc::new(vec![servers[0].clone()]),
                _ => servers.clone(),
            };
            tasks.push(tokio::spawn(table(
                client.clone(),
                through,
                token.clone(),
                index,
                game.clone(),
                version,
                load.clone(),
            )));
        }
        let visiting = tokio::spawn(visitor(
            client.clone(),
            servers.clone(),
            token.clone(),
            load.clone(),
        ));
        // Load before the kill, then the primary's machine dies.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let before = load.acks.lock().unwrap().len();
        let killed = cluster.kill(&dying).await;
        // The phone's connection drops while the database is gone: it opens the stream again
        // with the last id it saw, answered 503 until a primary is back (or at once from the
        // server's cache).
        phone.reopen.store(true, Ordering::Relaxed);

        // Every table gets appends through after the kill.
        let deadline = Instant::now() + PATIENCE;
        loop {
            let after: HashSet<usize> = load
                .acks
                .lock()
                .unwrap()
                .iter()
                .filter(|a| a.sent > killed)
                .map(|a| a.game)
                .collect();
            if after.len() == TABLES {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "writes did not resume at every table after the kill (round {round})"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        load.stop.store(true, Ordering::Relaxed);
        for task in tasks {
            task.await.expect("a table");
        }
        let (visited, visitor_503s) = visiting.await.expect("the visitor");
        let acks = load.acks.lock().unwrap().clone();
        let resumed = acks
            .iter()
            .filter(|a| a.sent > killed)
            .map(|a| a.answered.duration_since(killed))
            .min()
            .expect("an append after the kill");
        let promoted = cluster.primary().await;
        assert_eq!(promoted, other(&dying), "the standby was promoted");

        // Nothing acknowledged is lost or doubled, on the new primary, read through both servers.
        let versions = check_logs(&client, &servers[1], &token, &games, &acks).await;
        check_logs(&client, &servers[0], &token, &games, &acks).await;

        // The visitor's acknowledged games are all there, each as it was made.
        for game in &visited {
            assert_eq!(
                current_version(&client, &servers[0], &token, game).await,
                1,
                "{game}"
            );
        }

        // Both servers listen on the new primary.
        let mut promoted_db = sqlx::PgConnection::connect(&cluster.node_url(&promoted))
            .await
            .expect("the new primary");
        let deadline = Instant::now() + PATIENCE;
        loop {
            let listening: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1",
            )
            .bind(tabletally_api::wakeups::LISTENER)
            .fetch_one(&mut promoted_db)
            .await
            .expect("the listeners");
            if listening == 2 {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{listening} servers listen on the new primary, not 2 (round {round})"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }

        // The phone on the second server saw every append of table 0 (made through the first
        // server) exactly once, in order, across the failover and its own reconnection.
        let final_version = versions[0];
        let deadline = Instant::now() + PATIENCE;
        while phone.seen.lock().unwrap().last().copied() != Some(final_version) {
            assert!(
                Instant::now() < deadline,
                "the phone did not catch up: {:?} of {final_version} (round {round})",
                phone.seen.lock().unwrap().last()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        phone.done.store(true, Ordering::Relaxed);
        phone_task.await.expect("the phone");
        assert_eq!(
            *phone.seen.lock().unwrap(),
            (2..=final_version).collect::<Vec<_>>(),
            "the phone saw each version once, in order (round {round})"
        );
        let opens = phone.opens.lock().unwrap().clone();
        assert!(
            opens.len() >= 2,
            "the phone opened its stream again: {opens:?}"
        );
        assert!(
            opens
                .iter()
                .all(|&(status, retry_after)| status == 200 || (status == 503 && retry_after)),
            "a stream opens, or answers 503 with Retry-After: {opens:?}"
        );
        println!(
            "failover {round}: {dying} killed, {promoted} promoted; writes resumed {} ms after the kill; \
             {} appends acknowledged ({before} before the kill), {} answers 503 retried, versions {versions:?}; 0 lost, 0 duplicated; \
             the visitor made {} games ({visitor_503s} answers 503); the phone opened its stream {} times ({} answers 503) and saw versions 2..={final_version} once each",
            resumed.as_millis(),
            acks.len(),
            *load.retried.lock().unwrap(),
            visited.len(),
            opens.len(),
            opens.iter().filter(|o| o.0 == 503).count(),
        );
        resumes.push(resumed);
        total_acks += acks.len();

        // The old primary rejoins as the standby, in sync again.
        cluster
            .run_async(if dying == "node1" {
                &["revive", "node1"]
            } else {
                &["revive", "node2"]
            })
            .await;
        let rejoined = Instant::now();
        cluster.run_async(&["wait-sync", "120"]).await;
        assert_eq!(
            cluster.primary().await,
            promoted,
            "the old primary came back as the standby"
        );
        println!(
            "failover {round}: {dying} rejoined as the standby in {} ms",
            rejoined.elapsed().as_millis()
        );
    }

    if std::env::var("TABLETALLY_FAILOVER_COST").is_ok() {
        // The synchronous standby's cost: the same eight tables with commits waiting for the
        // standby, and with commits that do not (`synchronous_commit = local`: the primary's
        // own flush only, as a single node), in alternating windows so that the machine's
        // other load falls on both alike.
        let games = new_games(&client, &servers[0], &token).await;
        let primary = cluster.primary().await;
        let (mut synchronous, mut alone) = (0.0, 0.0);
        let (mut commit_synchronous, mut commit_alone) = (Duration::ZERO, Duration::ZERO);
        let mut conn = sqlx::PgConnection::connect(&cluster.node_url(&primary))
            .await
            .expect("the primary");
        sqlx::query("CREATE TABLE IF NOT EXISTS commit_probe (n int)")
            .execute(&mut conn)
            .await
            .expect("a table");
        for _ in 0..6 {
            synchronous += rate(&client, &servers, &token, &games, 5).await / 6.0;
            commit_synchronous += commits(&mut conn, "on").await;
            set_synchronous_commit(&cluster, &primary, Some("local")).await;
            alone += rate(&client, &servers, &token, &games, 5).await / 6.0;
            commit_alone += commits(&mut conn, "local").await;
            set_synchronous_commit(&cluster, &primary, None).await;
        }
        println!(
            "synchronous standby's cost at {TABLES} tables: {synchronous:.0} appends/s waiting for the standby, \
             {alone:.0} appends/s on the primary's own flush (a single node), ratio {:.2}; \
             one commit alone: {:.2} ms waiting for the standby, {:.2} ms on its own flush",
            synchronous / alone,
            commit_synchronous.as_secs_f64() * 1000.0 / 600.0,
            commit_alone.as_secs_f64() * 1000.0 / 600.0,
        );
    }
    // Each server counted the failovers it followed, says which host it follows now and how
    // long it was without one, and is ready again.
    for server in servers.iter() {
        let text = client
            .get(format!("{server}/metrics"))
            .send()
            .await
            .expect("metrics")
            .text()
            .await
            .expect("text");
        let counted: u64 = text
            .lines()
            .find_map(|l| l.strip_prefix("tabletally_database_failovers_total "))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no failovers counted:\n{text}"));
        assert!(
            counted >= failovers as u64,
            "{counted} failovers counted of {failovers}"
        );
        assert!(
            text.lines()
                .any(|l| l.starts_with("tabletally_database_primary_up{") && l.ends_with(" 1")),
            "{text}"
        );
        let without: f64 = text
            .lines()
            .find_map(|l| l.strip_prefix("tabletally_database_without_primary_seconds_total "))
            .and_then(|n| n.parse().ok())
            .expect("time without a primary");
        assert!(without > 0.0, "{text}");
        let ready = client
            .get(format!("{server}/readyz"))
            .send()
            .await
            .expect("readyz");
        assert_eq!(ready.status(), 200);
    }
    println!(
        "{failovers} failovers, {total_acks} appends acknowledged, 0 lost, 0 duplicated; writes resumed after {:?} ms (worst {} ms)",
        resumes.iter().map(Duration::as_millis).collect::<Vec<_>>(),
        resumes.iter().max().map_or(0, Duration::as_millis),
    );
    first.stopper.stop().await;
    second.stopper.stop().await;
}

/// Waits until the server says it is, or is not, the database's only writer.
async fn wait_sole(client: &reqwest::Client, server: &str, sole: bool) {
    let deadline = Instant::now() + PATIENCE;
    while metric(client, server, "tabletally_sole_server").await != u64::from(sole) {
        assert!(
            Instant::now() < deadline,
            "{server} did not become {}",
            if sole { "sole" } else { "one of two" }
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Appends `round` at `version` through `server`, retried on 503 (same body) while the pair
/// fails over; the version acknowledged.
async fn append_round(
    client: &reqwest::Client,
    server: &str,
    token: &str,
    game: &str,
    version: i64,
    round: Value,
) -> i64 {
    let body = json!({"expected_version": version, "events": [
        {"id": uuid::Uuid::new_v4().to_string(), "type": "round_collected", "data": round}
    ]});
    let deadline = Instant::now() + PATIENCE;
    loop {
        let reply = client
            .post(format!("{server}/v1/games/{game}/events"))
            .bearer_auth(token)
            .json(&body)
            .send()
            .await;
        match answer_of(reply, "an append").await {
            (200 | 201, answer) => return answer["version"].as_i64().expect("a version"),
            (503, _) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            (status, answer) => panic!("append to {game} at {version}: {status} {answer}"),
        }
    }
}

/// A server alone on the pair answers score reads from memory. Its primary dies: it becomes
/// the only server again on the new primary, and a second server started there, appending to
/// the games the first holds, is never missed by the first's reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_alone_before_the_failover_never_answers_from_memory_what_another_moved_on() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let first = start_server(&cluster.database_url()).await;
    let client = reqwest::Client::builder()
        .pool_idle_timeout(Duration::from_secs(3))
        .build()
        .expect("an HTTP client");
    let token = &new_club(&client, &first.base, "Alone, then not").await;
    wait_sole(&client, &first.base, true).await;
    let games = new_games(&client, &first.base, token).await;
    for game in &games {
        assert_eq!(
            append_round(&client, &first.base, token, game, 1, round_1()).await,
            2
        );
    }
    let before = metric(
        &client,
        &first.base,
        "tabletally_cache_answered_alone_total",
    )
    .await;
    for game in &games {
        assert_eq!(score_version(&client, &first.base, token, game).await, 2);
    }
    assert_eq!(
        metric(
            &client,
            &first.base,
            "tabletally_cache_answered_alone_total"
        )
        .await
            - before,
        TABLES as u64,
        "every score read answered from memory"
    );

    // The primary dies; the first server writes again on the new one, alone there too.
    let dying = cluster.primary().await;
    cluster.kill(&dying).await;
    assert_eq!(
        append_round(&client, &first.base, token, &games[0], 2, round_2()).await,
        3
    );
    wait_sole(&client, &first.base, true).await;
    assert_eq!(
        cluster.primary().await,
        other(&dying),
        "the standby was promoted"
    );

    // A second server on the new primary moves the other games on: the first shows each.
    let second = start_server(&cluster.database_url()).await;
    for game in &games[1..] {
        let acked = append_round(&client, &second.base, token, game, 2, round_2()).await;
        assert_eq!(acked, 3);
        assert_eq!(
            score_version(&client, &first.base, token, game).await,
            acked,
            "{game}: the first server does not show the second's append"
        );
    }
    assert_eq!(
        metric(&client, &first.base, "tabletally_sole_server").await,
        0
    );
    assert_eq!(
        score_version(&client, &second.base, token, &games[0]).await,
        3
    );
    second.stopper.stop().await;
    first.stopper.stop().await;
}

/// The leaderboard as one server answers it: status, `Read-From`, `Read-Position`, body.
async fn leaderboard(
    client: &reqwest::Client,
    server: &str,
    token: &str,
) -> (u16, String, i64, Value) {
    let reply = client
        .get(format!("{server}/v1/stats/leaderboard"))
        .bearer_auth(token)
        .send()
        .await
        .expect("the server answers");
    let status = reply.status().as_u16();
    let header = |name: &str| {
        reply
            .headers()
            .get(name)
            .map(|v| v.to_str().expect("ASCII").to_owned())
    };
    let from = header("read-from").unwrap_or_default();
    let position = header("read-position").map_or(-1, |p| p.parse().expect("a position"));
    if status == 503 {
        assert!(header("retry-after").is_some(), "a 503 says when to retry");
    }
    (status, from, position, reply.json().await.expect("JSON"))
}

/// Asks until the leaderboard comes from `from` having seen `position`; every answer on the
/// way is 200 or a retryable 503, never another status. The last answer's body.
async fn leaderboard_from(
    cluster: &Cluster,
    client: &reqwest::Client,
    server: &str,
    token: &str,
    from: &str,
    position: i64,
) -> Value {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let (status, seen_from, seen, body) = leaderboard(client, server, token).await;
        if !(status == 200 || status == 503) {
            panic!(
                "a leaderboard answered {status}: {body}\n{}",
                cluster.run_async(&["diagnose"]).await
            );
        }
        if status == 200 && seen_from == from && seen >= position {
            return body;
        }
        if Instant::now() > deadline {
            panic!(
                "no leaderboard from the {from} at position {position}: last {status} from \
                 {seen_from:?} at {seen}\n{}",
                cluster.run_async(&["diagnose"]).await
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Who won how often, by name, from a leaderboard.
fn wins(board: &Value) -> BTreeMap<String, (i64, i64)> {
    board["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| {
            (
                p["name"].as_str().expect("a name").to_owned(),
                (
                    p["games_played"].as_i64().expect("games played"),
                    p["wins"].as_i64().expect("wins"),
                ),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statistics_are_read_from_the_standby_and_from_the_primary_while_no_standby_answers() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let primary = cluster.primary().await;
    let standby = other(&primary);
    // The standby first, then the primary: the server reads from the first host in recovery.
    let read_url = cluster.url_of(&[standby, &primary]);
    let server = start_server_reading(&cluster.database_url(), Some(read_url)).await;
    let client = reqwest::Client::builder()
        .pool_idle_timeout(Duration::from_secs(3))
        .build()
        .expect("an HTTP client");
    let token = &new_club(&client, &server.base, "Standby readers").await;

    // A game finished on the primary: Ann 23 + 11 + 17 = 51, Bo 12 + 22 + 7 = 41,
    // Cy 14 + 12 + 12 = 38: Cy wins (lowest damage).
    let game = &new_mint_condition(&client, &server.base, token).await;
    for (version, round) in [(1, round_1()), (2, round_2()), (3, round_3())] {
        let reply = client
            .post(format!("{}/v1/games/{game}/events", server.base))
            .bearer_auth(token)
            .json(&json!({"expected_version": version, "events": [{"type": "round_collected", "data": round}]}))
            .send()
            .await
            .expect("an append");
        assert_eq!(
            reply.status(),
            201,
            "{}",
            reply.text().await.unwrap_or_default()
        );
    }
    let feed: Value = client
        .get(format!("{}/v1/events?after=0", server.base))
        .bearer_auth(token)
        .send()
        .await
        .expect("the feed")
        .json()
        .await
        .expect("JSON");
    let finish = feed["events"]
        .as_array()
        .expect("events")
        .last()
        .expect("an event")["position"]
        .as_i64()
        .expect("a position");
    let expected: BTreeMap<String, (i64, i64)> = [("Ann", (1, 0)), ("Bo", (1, 0)), ("Cy", (1, 1))]
        .into_iter()
        .map(|(n, w)| (n.to_owned(), w))
        .collect();

    // The standby answers once it has replayed the finish.
    let finished = Instant::now();
    let board = leaderboard_from(&cluster, &client, &server.base, token, "standby", finish).await;
    assert_eq!(wins(&board), expected);
    println!(
        "the standby's leaderboard counted the finished game {} ms after the finish was read back",
        finished.elapsed().as_millis()
    );
    // The game's own score is the primary's: its version never goes backwards.
    let score: Value = client
        .get(format!("{}/v1/games/{game}/score", server.base))
        .bearer_auth(token)
        .send()
        .await
        .expect("the score")
        .json()
        .await
        .expect("JSON");
    assert_eq!(score["version"], 4, "{score}");

    // The standby's machine dies: statistics come from the primary, with the same figures.
    // (Which node that is, is asked again: on a loaded machine the monitor may have swapped
    // them since, and killing the primary would test a failover, not a standby's death.)
    let standby = other(&cluster.primary().await);
    let killed = cluster.kill(standby).await;
    let board = leaderboard_from(&cluster, &client, &server.base, token, "primary", finish).await;
    assert_eq!(wins(&board), expected);
    println!(
        "standby {standby} killed: statistics read from the primary after {} ms",
        killed.elapsed().as_millis()
    );

    // It rejoins: statistics go back to it.
    cluster
        .run_async(if standby == "node1" {
            &["revive", "node1"]
        } else {
            &["revive", "node2"]
        })
        .await;
    cluster.run_async(&["wait-sync", "120"]).await;
    let board = leaderboard_from(&cluster, &client, &server.base, token, "standby", finish).await;
    assert_eq!(wins(&board), expected);
    server.stopper.stop().await;
}
