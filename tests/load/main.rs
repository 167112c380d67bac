//! `tabletally-load`: seeds a big club history and measures the HTTP API under load, for
//! BENCHMARKS.md. Driven by `scripts/load.sh`; every loop is bounded and talks to loopback only.
//!
//! - `seed <database-url> <games> <players>` — creates one club and that many finished
//!   Mint Condition games (2–5 of the players each, random but legal collections), through the
//!   event store's real append path (read models included). Prints the club token.
//! - `query <base-url> <token> [requests] [seconds]` — latency of every statistics and history
//!   read, all time and over periods (each `requests` times, or for `seconds` once 5 are done).
//! - `appends <base-url> <token> <games>` — latency of appends: games played over HTTP.
//! - `compare <base-url-a> <base-url-b> <token> <games>` — the same, on two servers over one
//!   database in turn (A B B A …): e.g. with read models (A) against without (B).
//! - `answers <base-url-a> <base-url-b> <token> [paths]` — the same reads asked of two servers
//!   over equal data (before and after a change): every answer must be the same.
//! - `streams <base-url> <token> <games> <streams> <appends> [server-pid] [gap-ms]` — live
//!   streams (`streams.rs`): tables append (abandon / resume) in rounds that alternate within
//!   the run, `streams` open over the `games`, then none (on games of their own at the same
//!   versions), three times each (`appends` per game over them all); delivery latency from each
//!   append's answer to the event at every subscriber, the append rate and p99 both ways, and
//!   (with the pid) the server's CPU per delivered frame against the kernel's floor in the same
//!   run, and memory per open stream. With `gap-ms`, each table waits that long after each
//!   answer before its next append (paced, as real tables are, so the CPUs are not saturated);
//!   without, back to back.
//! - `tables <base-url> <token[,token…]> <tables> <seconds> <database-url> [server-pid]` — issue
//!   14's write path: `tables` tables at once (several tokens: the tables take turns among those
//!   clubs), each looping create (Mint Condition, 2–4 players) →
//!   three appends (one round each, `expected_version`) → score read, for `seconds`; then
//!   appends only, each table on a connection of its own (`phone.rs`); and in the
//!   same run its denominators: the raw commit rate of the same database (one ~2 KB event row a
//!   transaction), the cycle's own floor (one of its games' rows written again by hand, a
//!   transaction a request: `floor.rs`), a bare actix-web handler (`hello`, 32 connections), one finished game's
//!   score and `GET /healthz` at 32 connections, and the ratios.
//! - `held <base-url> <token> <game-id> <games> <server-pid>` — issue 55: `games` games of one
//!   kind brought to a mid-game point (`held.rs` says which) and their scores read; the server's
//!   RSS growth per 1,000 of them and the state cache's own estimate against it.
//! - `held-loop <base-url> <token> <games> <seconds> <server-pid> [tables] [every-seconds]` —
//!   `games` Mint Condition games in progress, then `tables` tables (100) appending over them for
//!   `seconds`, each returning to each of its games every `every-seconds` (5): an undo of the last
//!   round, then the round again. The cache's hit rate over the loop and the server's RSS.
//! - `hello` — the bare actix-web server `tables` measures (prints its address).
//! - `frames [followers] [appends] [gap-µs] [bytes]` — the kernel's own cost of sending each
//!   append to its followers over loopback, with no server at all (the floor under `streams`).

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tabletally_api::append::AppendRequest;
use tabletally_api::store::{self, NewEvent, NewGame, NewSeat};

mod floor;
mod frames;
mod held;
mod phone;
mod ratings;
mod streams;
mod tables;

/// A small deterministic generator (no randomness crate in the tree): numbers repeat per seed.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The 96 Danger cards (Snack Fingers and Sleeve Me Up! split 8 / 7), so dealing from a
/// shuffled deck always respects the box limits.
fn deck() -> Vec<&'static str> {
    let kinds = [
        ("animal-kingdom", 12),
        ("autographed", 10),
        ("be-careful", 15),
        ("fine-wine", 6),
        ("heavy-rotation", 15),
        ("legacy-edition", 6),
        ("lost-pieces", 5),
        ("memories", 12),
        ("snack-fingers", 8),
        ("sleeve-me-up", 7),
    ];
    kinds
        .iter()
        .flat_map(|(id, n)| std::iter::repeat_n(*id, *n))
        .collect()
}

/// Three rounds of a legal game for `names`: cards dealt from one shuffled deck.
fn rounds(names: &[String], rng: &mut Lcg) -> Vec<Value> {
    let mut cards = deck();
    for i in (1..cards.len()).rev() {
        cards.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let per_round = match names.len() {
        2 => 7,
        3 => 9,
        4 => 8,
        _ => 6,
    };
    let mut dealt = cards.into_iter();
    (1..=3)
        .map(|round| {
            let collections: serde_json::Map<String, Value> = names
                .iter()
                .map(|n| {
                    (
                        n.clone(),
                        json!(dealt.by_ref().take(per_round).collect::<Vec<_>>()),
                    )
                })
                .collect();
            json!({"round": round, "collections": collections})
        })
        .collect()
}

fn pick_players(players: usize, rng: &mut Lcg) -> Vec<String> {
    let count = 2 + rng.below(4) as usize;
    let mut chosen: Vec<usize> = Vec::with_capacity(count);
    while chosen.len() < count {
        let p = rng.below(players as u64) as usize;
        if !chosen.contains(&p) {
            chosen.push(p);
        }
    }
    chosen.iter().map(|p| format!("Player {p:04}")).collect()
}

async fn seed(database_url: &str, games: usize, players: usize) -> Result<(), String> {
    let store = store::connect(database_url)
        .await
        .map_err(|e| e.to_string())?;
    let club = uuid::Uuid::new_v4().to_string();
    let (token, hash) = tabletally_api::auth::new_token(&club).map_err(|e| e.to_string())?;
    store
        .create_club(&club, "Load club", &hash)
        .await
        .map_err(|e| e.to_string())?;
    let store: std::sync::Arc<dyn store::Store> = std::sync::Arc::from(store);
    // PostgreSQL takes concurrent writers; SQLite has one writer at a time anyway.
    let tasks = if database_url.starts_with("postgres") {
        8
    } else {
        1
    };
    let started = Instant::now();
    let mut handles = Vec::new();
    for task in 0..tasks {
        let (store, club) = (store.clone(), club.clone());
        handles.push(tokio::spawn(async move {
            let mut rng = Lcg(0x5eed + task as u64);
            let day0 = chrono::DateTime::parse_from_rfc3339("2020-01-01T19:00:00Z")
                .unwrap()
                .with_timezone(&chrono::Utc);
            for i in (task..games).step_by(tasks) {
                let names = pick_players(players, &mut rng);
                let id = uuid::Uuid::new_v4().to_string();
                let new_game = NewGame {
                    id: id.clone(),
                    game: "mint-condition".into(),
                    players: names
                        .iter()
                        .map(|n| NewSeat {
                            name: n.clone(),
                            player_id: None,
                            color: None,
                        })
                        .collect(),
                    options: tabletally_api::examples::mint_condition_defaults(),
                    started_at: day0 + chrono::Duration::minutes(30 * i as i64),
                    recorded_by: Some("load seeder".into()),
                };
                store
                    .create_game(&club, &new_game)
                    .await
                    .map_err(|e| e.to_string())?;
                let events = rounds(&names, &mut rng)
                    .into_iter()
                    .map(|data| NewEvent {
                        id: uuid::Uuid::new_v4().to_string(),
                        event_type: "round_collected".into(),
                        data,
                        recorded_by: Some("load seeder".into()),
                    })
                    .collect();
                let request = AppendRequest {
                    expected_version: Some(1),
                    events,
                    read_models: true,
                };
                store
                    .append(&club, &id, request)
                    .await
                    .map_err(|e| e.to_string())?;
                if task == 0 && (i / tasks) % 5000 == 0 {
                    eprintln!("seeded {i} of {games} games in {:.0?}", started.elapsed());
                }
            }
            Ok::<(), String>(())
        }));
    }
    for handle in handles {
        handle.await.map_err(|e| e.to_string())??;
    }
    eprintln!(
        "seeded {games} games for {players} players in {:.1?}",
        started.elapsed()
    );
    println!("{token}");
    Ok(())
}

/// p50, p95, p99 and max of some durations, in milliseconds.
fn percentiles(mut times: Vec<Duration>) -> String {
    times.sort();
    let at =
        |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize].as_secs_f64() * 1000.0;
    let mean = times.iter().map(Duration::as_secs_f64).sum::<f64>() / times.len() as f64 * 1000.0;
    format!(
        "n={} mean={mean:.2}ms p50={:.2}ms p95={:.2}ms p99={:.2}ms max={:.2}ms",
        times.len(),
        at(0.5),
        at(0.95),
        at(0.99),
        at(1.0)
    )
}

async fn timed_get(
    client: &reqwest::Client,
    url: &str,
    token: &str,
) -> Result<(Duration, Value), String> {
    let started = Instant::now();
    let response = client
        .get(url)
        .bearer_auth(token)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status();
    let body: Value = response.json().await.map_err(|e| e.to_string())?;
    if !status.is_success() {
        return Err(format!("{url}: {status} {body}"));
    }
    Ok((started.elapsed(), body))
}

/// The seeded games' span (`seed`: 30 minutes apart from 2020-01-01 19:00 UTC; 100,000 games
/// end in September 2025): random periods fall inside it.
const SEEDED_FROM: i64 = 1_577_905_200;
const SEEDED_TO: i64 = 1_756_684_800;

/// A random period of one day to three years at any second: `from=…&to=…`.
fn random_period(rng: &mut Lcg) -> String {
    let length = 86_400 + rng.below(3 * 365 * 86_400) as i64;
    let from = SEEDED_FROM + rng.below((SEEDED_TO - SEEDED_FROM - length) as u64) as i64;
    let at = |t: i64| {
        chrono::DateTime::from_timestamp(t, 0)
            .unwrap()
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    };
    format!("from={}&to={}", at(from), at(from + length))
}

/// The club's players, `(id, name)`.
type Players = [(String, String)];

/// Makes a read's next path from the club's players.
type PathOf = dyn Fn(&mut Lcg, &Players) -> String;

/// One kind of read.
struct Read {
    label: &'static str,
    path: Box<PathOf>,
}

fn read(label: &'static str, path: impl Fn(&mut Lcg, &Players) -> String + 'static) -> Read {
    Read {
        label,
        path: Box::new(path),
    }
}

/// Every statistics and history read, all time and over periods: fixed ones (the one-year
/// leaderboard of earlier runs) and random ones, whose edges cut through days and months.
fn reads(cursor: String) -> Vec<Read> {
    let one = |rng: &mut Lcg, players: &Players| {
        players[rng.below(players.len() as u64) as usize].clone()
    };
    // Two different players, by id.
    let two = move |rng: &mut Lcg, players: &Players| loop {
        let (a, b) = (one(rng, players), one(rng, players));
        if a.0 != b.0 {
            break format!("{},{}", a.0, b.0);
        }
    };
    let boards = [
        "/v1/stats/leaderboard",
        "/v1/stats/leaderboard?sort=wins",
        "/v1/stats/leaderboard?game=mint-condition&sort=average_score&min_games=10",
    ];
    let year = "from=2022-01-01T00:00:00Z&to=2023-01-01T00:00:00Z";
    vec![
        read("leaderboard (all time)", move |rng, _| {
            boards[rng.below(3) as usize].into()
        }),
        read("leaderboard (one year)", move |_, _| {
            format!("/v1/stats/leaderboard?{year}")
        }),
        read("leaderboard (random period)", |rng, _| {
            format!("/v1/stats/leaderboard?sort=wins&{}", random_period(rng))
        }),
        read("leaderboard, game (random period)", |rng, _| {
            format!(
                "/v1/stats/leaderboard?game=mint-condition&sort=average_score&min_games=3&{}",
                random_period(rng)
            )
        }),
        read("player stats", move |rng, p| {
            format!("/v1/players/{}/stats", one(rng, p).0)
        }),
        read("player stats (random period)", move |rng, p| {
            format!(
                "/v1/players/{}/stats?game=mint-condition&{}",
                one(rng, p).0,
                random_period(rng)
            )
        }),
        read("player", move |rng, p| {
            format!("/v1/players/{}", one(rng, p).0)
        }),
        read("player's games", move |rng, p| {
            format!("/v1/players/{}/games?limit=50", one(rng, p).0)
        }),
        read("players", |rng, _| {
            format!("/v1/players?limit=50&search={}", rng.below(100))
        }),
        read("head-to-head", move |rng, p| {
            format!("/v1/stats/head-to-head?players={}", two(rng, p))
        }),
        read("head-to-head (random period)", move |rng, p| {
            let players = two(rng, p);
            format!(
                "/v1/stats/head-to-head?players={players}&{}",
                random_period(rng)
            )
        }),
        read("game stats (all time)", |_, _| {
            "/v1/stats/games/mint-condition".into()
        }),
        read("game stats (one year)", move |_, _| {
            format!("/v1/stats/games/mint-condition?{year}")
        }),
        read("game stats (random period)", |rng, _| {
            format!("/v1/stats/games/mint-condition?{}", random_period(rng))
        }),
        read("games, finished", |_, _| {
            "/v1/games?status=finished&limit=50".into()
        }),
        read("games, finished, a later page", move |_, _| {
            format!("/v1/games?status=finished&limit=50&cursor={cursor}")
        }),
        read("games, in progress (none)", |_, _| {
            "/v1/games?status=in_progress&limit=50".into()
        }),
        read("games, one game (none)", |_, _| {
            "/v1/games?game=vintage&limit=50".into()
        }),
        read("games, a player's", move |rng, p| {
            format!(
                "/v1/games?player={}&limit=50",
                one(rng, p).1.replace(' ', "%20")
            )
        }),
        read("ratings", |_, _| {
            "/v1/stats/ratings?game=mint-condition&limit=200".into()
        }),
        read("ratings (a year back)", move |_, _| {
            "/v1/stats/ratings?game=mint-condition&limit=200&to=2021-01-01T00:00:00Z".into()
        }),
        read("player's ratings", move |rng, p| {
            format!(
                "/v1/players/{}/ratings?game=mint-condition&limit=50",
                one(rng, p).0
            )
        }),
        read("games (random period)", |rng, _| {
            format!("/v1/games?limit=50&{}", random_period(rng))
        }),
    ]
}

/// Each read `requests` times one at a time (or for `seconds`, at least 5 times, whichever
/// ends first: reads of seconds each would otherwise take hours), after one warm-up request.
async fn query(base: &str, token: &str, requests: usize, seconds: u64) -> Result<(), String> {
    let client = reqwest::Client::new();
    let (_, board) = timed_get(
        &client,
        &format!("{base}/v1/stats/leaderboard?limit=200"),
        token,
    )
    .await?;
    let players: Vec<(String, String)> = board["players"]
        .as_array()
        .ok_or("no leaderboard")?
        .iter()
        .filter_map(|p| {
            Some((
                p["player_id"].as_str()?.to_owned(),
                p["name"].as_str()?.to_owned(),
            ))
        })
        .collect();
    if players.is_empty() {
        return Err("the club has no players; seed it first".into());
    }
    // A page from the middle of the history, for the list's cursor.
    let (_, page) = timed_get(
        &client,
        &format!("{base}/v1/games?status=finished&limit=1&to=2023-01-01T00:00:00Z"),
        token,
    )
    .await?;
    let cursor = page["next_cursor"]
        .as_str()
        .ok_or("no cursor in the middle of the history")?
        .to_owned();
    let mut rng = Lcg(7);
    for read in reads(cursor) {
        timed_get(
            &client,
            &format!("{base}{}", (read.path)(&mut rng, &players)),
            token,
        )
        .await?;
        let started = Instant::now();
        let mut times = Vec::with_capacity(requests);
        while times.len() < requests
            && (times.len() < 5 || started.elapsed() < Duration::from_secs(seconds))
        {
            let path = (read.path)(&mut rng, &players);
            times.push(timed_get(&client, &format!("{base}{path}"), token).await?.0);
        }
        println!("{:<36} {}", read.label, percentiles(times));
    }
    Ok(())
}

/// Asks two servers over equal data (e.g. one before a change, one after it, each on its copy
/// of a seeded database) the same `requests` paths of every read, and counts the answers that
/// differ; prints the first few.
async fn answers(base_a: &str, base_b: &str, token: &str, requests: usize) -> Result<(), String> {
    let client = reqwest::Client::new();
    let (_, board) = timed_get(
        &client,
        &format!("{base_a}/v1/stats/leaderboard?limit=200"),
        token,
    )
    .await?;
    let players: Vec<(String, String)> = board["players"]
        .as_array()
        .ok_or("no leaderboard")?
        .iter()
        .filter_map(|p| {
            Some((
                p["player_id"].as_str()?.to_owned(),
                p["name"].as_str()?.to_owned(),
            ))
        })
        .collect();
    let (_, page) = timed_get(
        &client,
        &format!("{base_a}/v1/games?status=finished&limit=1&to=2023-01-01T00:00:00Z"),
        token,
    )
    .await?;
    let cursor = page["next_cursor"].as_str().ok_or("no cursor")?.to_owned();
    let mut rng = Lcg(17);
    let (mut asked, mut differing) = (0usize, 0usize);
    for read in reads(cursor) {
        for _ in 0..requests {
            let path = (read.path)(&mut rng, &players);
            let (_, a) = timed_get(&client, &format!("{base_a}{path}"), token).await?;
            let (_, b) = timed_get(&client, &format!("{base_b}{path}"), token).await?;
            asked += 1;
            if a != b {
                differing += 1;
                if differing <= 3 {
                    println!("{path} differs:\n  A {a}\n  B {b}");
                }
            }
        }
    }
    println!("{asked} paths asked of both servers, {differing} answers differ");
    if differing > 0 {
        return Err(format!("{differing} answers differ"));
    }
    Ok(())
}

/// Creates a game (`POST /v1/games` with `body`) and returns its id.
async fn create_game(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    body: &Value,
) -> Result<String, String> {
    let created: Value = client
        .post(format!("{base}/v1/games"))
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .map_err(|e| e.to_string())?
        .json()
        .await
        .map_err(|e| e.to_string())?;
    created["id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("no game: {created}"))
}

/// Plays one game over HTTP (creation, then its three rounds one request each, with
/// `expected_version`) and returns the time of each round's append.
async fn play_game(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    rng: &mut Lcg,
) -> Result<[Duration; 3], String> {
    let names = pick_players(2000, rng);
    let body = json!({"game": "mint-condition", "players": names.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()});
    let id = create_game(client, base, token, &body).await?;
    let mut times = [Duration::ZERO; 3];
    for (i, round) in rounds(&names, rng).into_iter().enumerate() {
        let body = json!({"expected_version": i + 1, "events": [{"id": uuid::Uuid::new_v4().to_string(), "type": "round_collected", "data": round}]});
        let started = Instant::now();
        let response = client
            .post(format!("{base}/v1/games/{id}/events"))
            .bearer_auth(token)
            .json(&body)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        times[i] = started.elapsed();
        if response.status() != 201 {
            return Err(format!(
                "append: {}",
                response.text().await.unwrap_or_default()
            ));
        }
    }
    Ok(times)
}

/// Append times of one server, split by round (the third finishes the game).
#[derive(Default)]
struct AppendTimes {
    rounds: Vec<Duration>,
    finishing: Vec<Duration>,
}

impl AppendTimes {
    fn add(&mut self, times: [Duration; 3]) {
        self.rounds.extend(&times[..2]);
        self.finishing.push(times[2]);
    }

    fn all(&self) -> Vec<Duration> {
        self.rounds.iter().chain(&self.finishing).copied().collect()
    }

    fn print(&self, label: &str) {
        println!(
            "{label}: append, rounds 1-2          {}",
            percentiles(self.rounds.clone())
        );
        println!(
            "{label}: append, round 3 (finishes)  {}",
            percentiles(self.finishing.clone())
        );
        println!(
            "{label}: append, all                 {}",
            percentiles(self.all())
        );
    }
}

fn mean_and_median(mut times: Vec<Duration>) -> (f64, f64) {
    times.sort();
    let mean = times.iter().map(Duration::as_secs_f64).sum::<f64>() / times.len() as f64;
    (mean, times[times.len() / 2].as_secs_f64())
}

async fn appends(base: &str, token: &str, games: usize) -> Result<(), String> {
    let client = reqwest::Client::new();
    let mut rng = Lcg(11);
    let mut times = AppendTimes::default();
    for _ in 0..games {
        times.add(play_game(&client, base, token, &mut rng).await?);
    }
    times.print("server");
    Ok(())
}

/// Appends on two servers over the same database (on SQLite, one server per database: the
/// same history in two copies), one game each in turn (A B B A …), so both see the same data,
/// the same moment and the same machine: a drift favours neither.
async fn compare(base_a: &str, base_b: &str, token: &str, games: usize) -> Result<(), String> {
    if games == 0 {
        return Err("compare needs at least one game on each server".into());
    }
    let client = reqwest::Client::new();
    let mut rng = Lcg(11);
    let (mut a, mut b) = (AppendTimes::default(), AppendTimes::default());
    for i in 0..games * 2 {
        let on_a = matches!(i % 4, 0 | 3);
        let times = play_game(&client, if on_a { base_a } else { base_b }, token, &mut rng).await?;
        if on_a { a.add(times) } else { b.add(times) }
    }
    a.print("A");
    b.print("B");
    let ((mean_a, median_a), (mean_b, median_b)) =
        (mean_and_median(a.all()), mean_and_median(b.all()));
    println!(
        "A against B: mean {:+.1} %, median {:+.1} %",
        (mean_a / mean_b - 1.0) * 100.0,
        (median_a / median_b - 1.0) * 100.0
    );
    Ok(())
}

/// The server's resident memory (KiB), from `/proc/<pid>/status`.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The CPU time the process has used so far (user + system), from `/proc/<pid>/stat`.
fn cpu_time(pid: u32) -> Option<Duration> {
    cpu_ticks(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// User + system time from a `/proc/…/stat` line.
fn cpu_ticks(stat: &str) -> Option<Duration> {
    // Fields after the command name (which may hold spaces) : state is the 3rd, utime the 14th.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // The kernel's USER_HZ is 100 on every Linux this runs on.
    Some(Duration::from_millis(ticks * 10))
}

/// What [`tables_append`] saw: the elapsed time, each answer's instant by (table, version),
/// and every append's latency.
struct Appended {
    elapsed: Duration,
    answers: Vec<Vec<(i64, Instant)>>,
    latencies: Vec<Duration>,
}

impl Appended {
    /// Two rounds of the same tables as one.
    fn then(mut self, next: Appended) -> Appended {
        self.elapsed += next.elapsed;
        for (table, more) in self.answers.iter_mut().zip(next.answers) {
            table.extend(more);
        }
        self.latencies.extend(next.latencies);
        self
    }
}

/// Every table appends `appends` events, one request each, all tables at once; with a `gap`,
/// each table waits that long after each answer (the tables' starts spread over one gap). The
/// games are at `from_version`, which is odd while they are in progress and even while they
/// are abandoned.
async fn tables_append(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    games: &[String],
    from_version: i64,
    appends: usize,
    gap: Duration,
) -> Result<Appended, String> {
    let started = Instant::now();
    let tables = games.iter().enumerate().map(|(table, game)| {
        let (client, base, token, game) = (client.clone(), base.to_owned(), token.to_owned(), game.clone());
        let offset = gap * table as u32 / games.len() as u32;
        tokio::spawn(async move {
            let mut answered = Vec::with_capacity(appends);
            let mut version = from_version;
            tokio::time::sleep(offset).await;
            for i in 0..appends {
                if i > 0 {
                    tokio::time::sleep(gap).await;
                }
                // Abandon and resume, again and again: a valid append whatever the game.
                let event = if version % 2 == 1 {
                    json!({"id": uuid::Uuid::new_v4().to_string(), "type": "abandon", "data": {"reason": "break"}})
                } else {
                    json!({"id": uuid::Uuid::new_v4().to_string(), "type": "retract", "data": {"seq": version, "reason": "back"}})
                };
                let sent = Instant::now();
                let response = client
                    .post(format!("{base}/v1/games/{game}/events"))
                    .bearer_auth(&token)
                    .json(&json!({"expected_version": version, "events": [event]}))
                    .send()
                    .await
                    .map_err(|e| e.to_string())?;
                let at = Instant::now();
                if response.status() != 201 {
                    return Err(format!("append: {}", response.text().await.unwrap_or_default()));
                }
                version += 1;
                answered.push((version, at, at - sent));
            }
            Ok::<_, String>(answered)
        })
    });
    let mut answers = Vec::with_capacity(games.len());
    let mut latencies = Vec::new();
    for table in futures_join(tables).await {
        let table = table.map_err(|e| e.to_string())??;
        latencies.extend(table.iter().map(|(_, _, latency)| *latency));
        answers.push(table.into_iter().map(|(v, at, _)| (v, at)).collect());
    }
    Ok(Appended {
        elapsed: started.elapsed(),
        answers,
        latencies,
    })
}

async fn futures_join<T>(
    handles: impl Iterator<Item = tokio::task::JoinHandle<T>>,
) -> Vec<Result<T, tokio::task::JoinError>> {
    let mut results = Vec::new();
    for handle in handles.collect::<Vec<_>>() {
        results.push(handle.await);
    }
    results
}

fn main() {
    // The bare handler `tables` compares with runs on actix-web's own runtime, in its own process.
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("frames") {
        let number =
            |i: usize, default: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
        let gap = Duration::from_micros(number(4, 200) as u64);
        if let Err(e) = frames::frames(number(2, 10), number(3, 20_000), gap, number(5, 1_500)) {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        return;
    }
    if args.get(1).map(String::as_str) == Some("hello") {
        if let Err(e) = tables::hello() {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(run());
}

async fn run() {
    let args: Vec<String> = std::env::args().collect();
    let number = |i: usize| args.get(i).and_then(|a| a.parse::<usize>().ok());
    let result = match (args.get(1).map(String::as_str), args.get(2), args.get(3)) {
        (Some("seed"), Some(url), _) => seed(url, number(3).unwrap_or(100_000), number(4).unwrap_or(2_000)).await,
        (Some("ratings"), Some(url), _) => ratings::ratings(url).await,
        (Some("query"), Some(base), Some(token)) => query(base, token, number(4).unwrap_or(300), number(5).unwrap_or(30) as u64).await,
        (Some("appends"), Some(base), Some(token)) => appends(base, token, number(4).unwrap_or(200)).await,
        (Some("streams"), Some(base), Some(token)) => streams::streams(base, token, number(4).unwrap_or(50), number(5).unwrap_or(500), number(6).unwrap_or(20), number(7).map(|p| p as u32), Duration::from_millis(number(8).unwrap_or(0) as u64)).await,
        (Some("answers"), Some(base_a), Some(base_b)) => match args.get(4) {
            Some(token) => answers(base_a, base_b, token, number(5).unwrap_or(20)).await,
            None => Err("answers needs a token".into()),
        },
        (Some("compare"), Some(base_a), Some(base_b)) => match args.get(4) {
            Some(token) => compare(base_a, base_b, token, number(5).unwrap_or(200)).await,
            None => Err("compare needs a token".into()),
        },
        (Some("tables"), Some(base), Some(token)) => match (number(4), number(5), args.get(6)) {
            (Some(count), Some(seconds), Some(url)) => tables::tables(base, token, count, seconds as u64, url, number(7).map(|p| p as u32)).await,
            _ => Err("tables needs <tables> <seconds> <database-url>".into()),
        },
        (Some("held"), Some(base), Some(token)) => match (args.get(4), number(5)) {
            (Some(game), Some(games)) => held::held(base, token, game, games, number(6).map(|p| p as u32)).await,
            _ => Err("held needs <game-id> <games> <server-pid>".into()),
        },
        (Some("held-loop"), Some(base), Some(token)) => match (number(4), number(5)) {
            (Some(games), Some(seconds)) => held::held_loop(base, token, games, seconds as u64, number(6).map(|p| p as u32), number(7).unwrap_or(100), Duration::from_secs(number(8).unwrap_or(5) as u64)).await,
            _ => Err("held-loop needs <games> <seconds> <server-pid>".into()),
        },
        _ => Err("usage: tabletally-load seed <database-url> [games] [players] | query <base-url> <token> [requests] [seconds per read] | appends <base-url> <token> [games] | compare <base-url-a> <base-url-b> <token> [games each] | answers <base-url-a> <base-url-b> <token> [paths per read] | streams <base-url> <token> [games] [streams] [appends] [server-pid] [gap-ms] | ratings <database-url> | tables <base-url> <token[,token…]> <tables> <seconds> <database-url> [server-pid] | held <base-url> <token> <game-id> <games> <server-pid> | held-loop <base-url> <token> <games> <seconds> <server-pid> [tables] [every-seconds] | hello | frames [followers] [appends] [gap-µs] [bytes]".into()),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
