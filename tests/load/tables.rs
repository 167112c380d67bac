//! `tables N`: many tables playing at once against one server, measured next to what this
//! machine and this database can do at best in the same run (issue 14). The ratios matter more
//! than the rates: this shared machine's speed drifts by 2× between runs.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sqlx::{ConnectOptions, Connection};

use super::phone::Phone;
use super::{Lcg, rounds};

/// Connections of the read measurements (score, `/healthz`, the bare handler).
const READERS: usize = 32;
/// Each rate is taken over this long, after a warm-up of a second.
const DENOMINATOR_TIME: Duration = Duration::from_secs(5);
const WARM_UP: Duration = Duration::from_secs(1);
/// The raw commits' row: about the size of a Mint Condition round for four players, with room.
const RAW_ROW_BYTES: usize = 2048;

/// What one request kind took, and how often it failed.
#[derive(Default)]
struct Timings {
    times: Vec<Duration>,
    failures: u64,
}

impl Timings {
    fn merge(&mut self, other: Timings) {
        self.times.extend(other.times);
        self.failures += other.failures;
    }

    /// The `q` quantile in milliseconds (NaN when nothing was timed).
    fn quantile_ms(&mut self, q: f64) -> f64 {
        if self.times.is_empty() {
            return f64::NAN;
        }
        self.times.sort_unstable();
        let i = ((self.times.len() as f64 - 1.0) * q).round() as usize;
        self.times[i].as_secs_f64() * 1000.0
    }

    fn line(&mut self, what: &str) -> String {
        format!(
            "{what:<8} n={:<7} p50={:.2}ms p99={:.2}ms max={:.2}ms failed={}",
            self.times.len(),
            self.quantile_ms(0.5),
            self.quantile_ms(0.99),
            self.quantile_ms(1.0),
            self.failures
        )
    }
}

/// One table's requests.
#[derive(Default)]
struct Table {
    create: Timings,
    append: Timings,
    /// The appends that finished their game (also in `append`): a finish writes the statistics.
    finish: Timings,
    score: Timings,
    finished_game: Option<String>,
}

/// A request's time to its whole answer (parsed when `parse`), or why it failed.
async fn timed(
    request: reqwest::RequestBuilder,
    expected: u16,
    parse: bool,
) -> Result<(Duration, Value), String> {
    let started = Instant::now();
    let response = request.send().await.map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let body = response.bytes().await.map_err(|e| e.to_string())?;
    let elapsed = started.elapsed();
    Ok((elapsed, answered(status, &body, expected, parse)?))
}

/// `timed`, for a table's own connection: POSTs `body` to `path`.
async fn timed_post(
    phone: &mut Phone,
    path: &str,
    body: &Value,
    expected: u16,
    parse: bool,
) -> Result<(Duration, Value), String> {
    let body = serde_json::to_vec(body).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let (status, answer) = phone.post(path, body).await?;
    let elapsed = started.elapsed();
    Ok((elapsed, answered(status, &answer, expected, parse)?))
}

/// How a table's phone calls the server: reqwest's pooled client, as a phone app's would be, or
/// one connection of its own kept open ([`Phone`]: the load tool's least client CPU). The cycle
/// is measured with both (issue 55).
enum Caller {
    Pooled {
        client: reqwest::Client,
        base: String,
        token: String,
    },
    Own(Phone),
}

impl Caller {
    /// POSTs the JSON `body` to `path`, or GETs `path` without one: the time to the whole
    /// answer, and the answer (parsed when `parse`).
    async fn call(
        &mut self,
        path: &str,
        body: Option<&Value>,
        expected: u16,
        parse: bool,
    ) -> Result<(Duration, Value), String> {
        match (self, body) {
            (
                Caller::Pooled {
                    client,
                    base,
                    token,
                },
                body,
            ) => {
                let url = format!("{base}{path}");
                let request = match body {
                    Some(body) => client.post(url).json(body),
                    None => client.get(url),
                };
                timed(request.bearer_auth(token), expected, parse).await
            }
            (Caller::Own(phone), Some(body)) => {
                timed_post(phone, path, body, expected, parse).await
            }
            (Caller::Own(phone), None) => {
                let started = Instant::now();
                let (status, answer) = phone.get(path).await?;
                let elapsed = started.elapsed();
                Ok((elapsed, answered(status, &answer, expected, parse)?))
            }
        }
    }
}

/// An answer's body (parsed when `parse`), or why it is not the one `expected`.
fn answered(status: u16, body: &[u8], expected: u16, parse: bool) -> Result<Value, String> {
    if status != expected {
        return Err(format!("{status}: {}", String::from_utf8_lossy(body)));
    }
    if parse {
        serde_json::from_slice(body).map_err(|e| e.to_string())
    } else {
        Ok(Value::Null)
    }
}

/// One table: games of Mint Condition for 2–4 players, one after another, until `until`.
/// A failed request is counted and its game given up (the next one starts).
async fn play_table(mut caller: Caller, seed: u64, until: Instant) -> Table {
    let mut rng = Lcg(0x7ab1e + seed);
    let mut table = Table::default();
    let mut failures = 0u32;
    while Instant::now() < until {
        let count = 2 + rng.below(3) as usize;
        let mut names: Vec<String> = Vec::with_capacity(count);
        while names.len() < count {
            let name = format!("Player {:04}", rng.below(2000));
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let body = json!({"game": "mint-condition", "players": names.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()});
        let id = match caller.call("/v1/games", Some(&body), 201, true).await {
            Ok((elapsed, created)) => {
                table.create.times.push(elapsed);
                created["id"].as_str().unwrap_or_default().to_owned()
            }
            Err(e) => {
                table.create.failures += 1;
                report_failure(&mut failures, "create", &e);
                continue;
            }
        };
        let mut whole = true;
        let rounds = rounds(&names, &mut rng);
        let last = rounds.len() - 1;
        for (i, round) in rounds.into_iter().enumerate() {
            if Instant::now() >= until {
                return table;
            }
            let body = json!({"expected_version": i + 1, "events": [{"id": uuid::Uuid::new_v4().to_string(), "type": "round_collected", "data": round}]});
            match caller
                .call(&format!("/v1/games/{id}/events"), Some(&body), 201, false)
                .await
            {
                Ok((elapsed, _)) => {
                    table.append.times.push(elapsed);
                    if i == last {
                        table.finish.times.push(elapsed);
                    }
                }
                Err(e) => {
                    table.append.failures += 1;
                    report_failure(&mut failures, "append", &e);
                    whole = false;
                    break;
                }
            }
        }
        if !whole || Instant::now() >= until {
            continue;
        }
        match caller
            .call(&format!("/v1/games/{id}/score"), None, 200, false)
            .await
        {
            Ok((elapsed, _)) => {
                table.score.times.push(elapsed);
                table.finished_game.get_or_insert(id);
            }
            Err(e) => {
                table.score.failures += 1;
                report_failure(&mut failures, "score", &e);
            }
        }
    }
    table
}

/// `tables` playing the cycle at once for `seconds`: their timings merged (a finished game's id
/// among them), and the seconds it took.
async fn cycle(callers: Vec<Caller>, seconds: u64) -> Result<(Table, f64), String> {
    let started = Instant::now();
    let until = started + Duration::from_secs(seconds);
    let handles: Vec<_> = callers
        .into_iter()
        .enumerate()
        .map(|(i, caller)| tokio::spawn(play_table(caller, i as u64, until)))
        .collect();
    let mut all = Table::default();
    for handle in handles {
        let table = handle.await.map_err(|e| e.to_string())?;
        all.create.merge(table.create);
        all.append.merge(table.append);
        all.finish.merge(table.finish);
        all.score.merge(table.score);
        all.finished_game = all.finished_game.or(table.finished_game);
    }
    Ok((all, started.elapsed().as_secs_f64()))
}

/// The events a game of the append-only loop takes before its table moves on to a new one: a
/// long game (our longest fixture, Mint Julep's, has 32). A table plays one game at a time, so
/// the games in progress the server holds are one a table, as at a real club night. (Until
/// 2026-12-04 each table went round 4 to 43 games that grew to hundreds of events each: beyond
/// the state cache's byte bound a least-recently-used cache over a cycle of games misses every
/// time, and most "plain" appends read and replayed their whole log — BENCHMARKS.md.)
const GAME_EVENTS: i64 = 40;

/// A game of Mint Condition for the append-only loop, with its rounds dealt. The loop appends
/// round 1 and its retraction in turn, so every append goes to a game in progress (no finish,
/// no read models of a result).
async fn ready_game(
    phone: &mut Phone,
    seed: u64,
    rng: &mut Lcg,
) -> Result<(String, Vec<Value>), String> {
    let names: Vec<String> = (0..2 + rng.below(3))
        .map(|i| format!("Player {:04}", (seed * 7 + i) % 2000))
        .collect();
    let body = json!({"game": "mint-condition", "players": names.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()});
    let (_, created) = timed_post(phone, "/v1/games", &body, 201, true).await?;
    let id = created["id"]
        .as_str()
        .ok_or("a created game without an id")?
        .to_owned();
    Ok((id, rounds(&names, rng)))
}

/// One table of the append-only loop, from its first game (made before the clock) until
/// `until`: round 1, then its retraction, then round 1 again…, each a plain append to the game
/// in progress the server holds. At [`GAME_EVENTS`] the table starts its next game; that
/// creation is not timed, but its time counts in the loop's (one request in 40).
async fn append_only_table(
    mut phone: Phone,
    seed: u64,
    mut rng: Lcg,
    first: (String, Vec<Value>),
    until: Instant,
) -> Timings {
    let mut timings = Timings::default();
    let mut failures = 0u32;
    let (mut game, mut version) = (first, 1i64);
    while Instant::now() < until {
        if version >= GAME_EVENTS {
            match ready_game(&mut phone, seed, &mut rng).await {
                Ok(next) => (game, version) = (next, 1),
                Err(e) => {
                    timings.failures += 1;
                    report_failure(&mut failures, "create", &e);
                    break;
                }
            }
        }
        let (id, rounds) = &game;
        // Odd versions: round 1 is next; even: retract the round just recorded.
        let event = if version % 2 == 1 {
            json!({"id": uuid::Uuid::new_v4().to_string(), "type": "round_collected", "data": rounds[0]})
        } else {
            json!({"id": uuid::Uuid::new_v4().to_string(), "type": "retract", "data": {"seq": version, "reason": "recounted"}})
        };
        let append = json!({"expected_version": version, "events": [event]});
        match timed_post(
            &mut phone,
            &format!("/v1/games/{id}/events"),
            &append,
            201,
            false,
        )
        .await
        {
            Ok((elapsed, _)) => {
                timings.times.push(elapsed);
                version += 1;
            }
            Err(e) => {
                timings.failures += 1;
                report_failure(&mut failures, "append", &e);
                break;
            }
        }
    }
    timings
}

/// The server's state cache counters (hits, misses), from `GET /metrics`.
async fn cache_counters(client: &reqwest::Client, base: &str) -> Result<(u64, u64), String> {
    let text = client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .map_err(|e| e.to_string())?
        .text()
        .await
        .map_err(|e| e.to_string())?;
    let counter = |name: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(name)?.trim().parse::<u64>().ok())
            .ok_or_else(|| format!("/metrics has no {name}"))
    };
    Ok((
        counter("tabletally_cache_hits_total")?,
        counter("tabletally_cache_misses_total")?,
    ))
}

/// Appends only, to games in progress, from `tables` tables at once for `seconds`: appends a
/// second and their latencies, the share of the server's state-cache lookups meanwhile that
/// missed (each miss is a log read and replay), and (given the database's pool on PostgreSQL)
/// the CPU its backends used meanwhile. Each table's first game is made before the clock.
async fn appends_only(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    tables: usize,
    seconds: u64,
    database: Option<&sqlx::PgPool>,
) -> Result<(f64, Timings, f64, Option<Duration>), String> {
    let making: Vec<_> = (0..tables as u64)
        .map(|seed| {
            let (base, token) = (base.to_owned(), token.to_owned());
            tokio::spawn(async move {
                let mut rng = Lcg(0xa99e + seed);
                let mut phone = Phone::connect(&base, &token).await?;
                let first = ready_game(&mut phone, seed, &mut rng).await?;
                Ok::<_, String>((phone, seed, rng, first))
            })
        })
        .collect();
    let mut ready = Vec::with_capacity(tables);
    for table in making {
        ready.push(table.await.map_err(|e| e.to_string())??);
    }
    let cache_before = cache_counters(client, base).await?;
    let cpu_before = match database {
        Some(pool) => Some(backends_cpu(pool).await?),
        None => None,
    };
    let started = Instant::now();
    let until = started + Duration::from_secs(seconds);
    let handles: Vec<_> = ready
        .into_iter()
        .map(|(phone, seed, rng, first)| {
            tokio::spawn(append_only_table(phone, seed, rng, first, until))
        })
        .collect();
    let mut all = Timings::default();
    for handle in handles {
        all.merge(handle.await.map_err(|e| e.to_string())?);
    }
    let rate = all.times.len() as f64 / started.elapsed().as_secs_f64();
    let cpu = match (database, cpu_before) {
        (Some(pool), Some(before)) => Some(cpu_between(&before, &backends_cpu(pool).await?)),
        _ => None,
    };
    let (hits, misses) = cache_counters(client, base).await?;
    let (hits, misses) = (hits - cache_before.0, misses - cache_before.1);
    let missed = misses as f64 / (hits + misses).max(1) as f64;
    Ok((rate, all, missed, cpu))
}

/// The first few failures of a table in words; the rest are only counted.
fn report_failure(failures: &mut u32, what: &str, detail: &str) {
    *failures += 1;
    if *failures <= 3 {
        eprintln!("{what} failed: {detail}");
    }
}

/// `GET url` from `READERS` connections at once for `DENOMINATOR_TIME` (after a warm-up):
/// requests a second and their latencies. The same code measures the bare handler, the
/// health check and the score, so their ratio compares the server, not the client.
async fn closed_loop(
    client: &reqwest::Client,
    url: &str,
    token: &str,
) -> Result<(f64, Timings), String> {
    let run = |until: Instant| {
        let readers: Vec<_> = (0..READERS)
            .map(|_| {
                let (client, url, token) = (client.clone(), url.to_owned(), token.to_owned());
                tokio::spawn(async move {
                    let mut timings = Timings::default();
                    while Instant::now() < until {
                        match timed(client.get(&url).bearer_auth(&token), 200, false).await {
                            Ok((elapsed, _)) => timings.times.push(elapsed),
                            Err(_) => timings.failures += 1,
                        }
                    }
                    timings
                })
            })
            .collect();
        async move {
            let mut all = Timings::default();
            for reader in readers {
                all.merge(reader.await.map_err(|e| e.to_string())?);
            }
            Ok::<_, String>(all)
        }
    };
    run(Instant::now() + WARM_UP).await?;
    let started = Instant::now();
    let timings = run(started + DENOMINATOR_TIME).await?;
    let rate = timings.times.len() as f64 / started.elapsed().as_secs_f64();
    if timings.failures > 0 {
        return Err(format!("{url}: {} requests failed", timings.failures));
    }
    Ok((rate, timings))
}

/// One ~2 KB row: what an appended round weighs, roughly.
fn raw_row() -> String {
    let mut data = String::from("{\"round\": 1, \"collections\": \"");
    data.extend(std::iter::repeat_n('x', RAW_ROW_BYTES - data.len() - 2));
    data.push_str("\"}");
    data
}

/// Commits a second, one row each, on a scratch SQLite file next to the server's (WAL,
/// `synchronous=FULL`, one connection: what the server's durability asks of the disk).
async fn raw_sqlite(database_url: &str) -> Result<f64, String> {
    let path = database_url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:")
        .split('?')
        .next()
        .unwrap_or_default();
    let scratch = format!("{path}.raw-commits");
    let mut connection = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&scratch)
        .create_if_missing(true)
        .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal)
        .synchronous(sqlx::sqlite::SqliteSynchronous::Full)
        .connect()
        .await
        .map_err(|e| e.to_string())?;
    sqlx::query(
        "CREATE TABLE raw_commits (position INTEGER PRIMARY KEY AUTOINCREMENT, \
         game_id TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL)",
    )
    .execute(&mut connection)
    .await
    .map_err(|e| e.to_string())?;
    let row = raw_row();
    let mut commit = async || {
        sqlx::query("INSERT INTO raw_commits (game_id, seq, data) VALUES ($1, $2, $3)")
            .bind("0b6c3f0e-5d7e-4f3b-9a51-3c2d1e0f9a8b")
            .bind(1i64)
            .bind(&row)
            .execute(&mut connection)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let warm = Instant::now() + WARM_UP;
    while Instant::now() < warm {
        commit().await?;
    }
    let started = Instant::now();
    let mut commits = 0u64;
    while started.elapsed() < DENOMINATOR_TIME {
        commit().await?;
        commits += 1;
    }
    let rate = commits as f64 / started.elapsed().as_secs_f64();
    connection.close().await.map_err(|e| e.to_string())?;
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{scratch}{suffix}"));
    }
    Ok(rate)
}

/// Commits a second on a scratch table of the server's PostgreSQL database, one row each,
/// from `connections` connections at once.
/// The CPU a process has used, from this machine's `/proc` (`None`: not a process here, as
/// for a PostgreSQL on another machine).
fn process_cpu(pid: i32) -> Option<Duration> {
    super::cpu_ticks(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The CPU used so far by each backend serving the pool's database, but the pool's own.
async fn backends_cpu(pool: &sqlx::PgPool) -> Result<HashMap<i32, Duration>, String> {
    let pids: Vec<i32> = sqlx::query_scalar(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    )
    .fetch_all(pool)
    .await
    .map_err(|e| e.to_string())?;
    Ok(pids
        .into_iter()
        .filter_map(|pid| Some((pid, process_cpu(pid)?)))
        .collect())
}

/// CPU the backends used between two readings (a backend that started meanwhile counts whole).
fn cpu_between(before: &HashMap<i32, Duration>, after: &HashMap<i32, Duration>) -> Duration {
    after
        .iter()
        .map(|(pid, cpu)| cpu.saturating_sub(before.get(pid).copied().unwrap_or_default()))
        .sum()
}

/// Raw single-row commits from `connections` connections: commits a second, and the CPU their
/// backends used per commit (`None` when PostgreSQL runs on another machine).
async fn raw_postgres(
    pool: &sqlx::PgPool,
    connections: usize,
) -> Result<(f64, Option<Duration>), String> {
    let row = raw_row();
    let run = |until: Instant| {
        let writers: Vec<_> = (0..connections)
            .map(|_| {
                let (pool, row) = (pool.clone(), row.clone());
                tokio::spawn(async move {
                    let mut connection = pool.acquire().await.map_err(|e| e.to_string())?;
                    let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
                        .fetch_one(&mut *connection)
                        .await
                        .map_err(|e| e.to_string())?;
                    let cpu_before = process_cpu(pid);
                    let mut commits = 0u64;
                    while Instant::now() < until {
                        sqlx::query("INSERT INTO tabletally_load_raw_commits (game_id, seq, data) VALUES ($1, $2, $3)")
                            .bind("0b6c3f0e-5d7e-4f3b-9a51-3c2d1e0f9a8b")
                            .bind(1i64)
                            .bind(&row)
                            .execute(&mut *connection)
                            .await
                            .map_err(|e| e.to_string())?;
                        commits += 1;
                    }
                    let cpu = cpu_before.zip(process_cpu(pid)).map(|(b, a)| a.saturating_sub(b));
                    Ok::<_, String>((commits, cpu))
                })
            })
            .collect();
        async move {
            let (mut commits, mut cpu) = (0u64, Some(Duration::ZERO));
            for writer in writers {
                let (c, used) = writer.await.map_err(|e| e.to_string())??;
                commits += c;
                cpu = cpu.zip(used).map(|(a, b)| a + b);
            }
            Ok::<_, String>((commits, cpu))
        }
    };
    run(Instant::now() + WARM_UP).await?;
    let started = Instant::now();
    let (commits, cpu) = run(started + DENOMINATOR_TIME).await?;
    Ok((
        commits as f64 / started.elapsed().as_secs_f64(),
        cpu.map(|cpu| cpu / commits.max(1) as u32),
    ))
}

/// The raw commit rates of the server's database: SQLite from one connection; PostgreSQL
/// from 1 and from 8 (its own group commit needs concurrent committers), with its backends'
/// CPU per commit at 8 (when PostgreSQL runs on this machine).
async fn raw_commits(database_url: &str) -> Result<(f64, Option<f64>, Option<Duration>), String> {
    if !database_url.starts_with("postgres") {
        return Ok((raw_sqlite(database_url).await?, None, None));
    }
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(8)
        .connect(database_url)
        .await
        .map_err(|e| e.to_string())?;
    sqlx::query(
        "CREATE TABLE tabletally_load_raw_commits (position BIGSERIAL PRIMARY KEY, \
         game_id TEXT NOT NULL, seq BIGINT NOT NULL, data TEXT NOT NULL)",
    )
    .execute(&pool)
    .await
    .map_err(|e| e.to_string())?;
    let rates =
        async { Ok::<_, String>((raw_postgres(&pool, 1).await?, raw_postgres(&pool, 8).await?)) }
            .await;
    sqlx::query("DROP TABLE tabletally_load_raw_commits")
        .execute(&pool)
        .await
        .map_err(|e| e.to_string())?;
    pool.close().await;
    let ((one, _), (eight, cpu)) = rates?;
    Ok((one, Some(eight), cpu))
}

/// The bare actix-web server, as a child process of its own (like the real server).
struct Hello {
    child: std::process::Child,
    base: String,
}

impl Hello {
    fn start() -> Result<Self, String> {
        use std::io::BufRead;
        let mut child =
            std::process::Command::new(std::env::current_exe().map_err(|e| e.to_string())?)
                .arg("hello")
                .stdout(std::process::Stdio::piped())
                .spawn()
                .map_err(|e| e.to_string())?;
        let mut line = String::new();
        let stdout = child
            .stdout
            .take()
            .ok_or("the hello server has no output")?;
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        let base = line.trim().trim_start_matches("listening on ").to_owned();
        if !base.starts_with("http://") {
            let _ = child.kill();
            return Err(format!("the hello server did not start: {line:?}"));
        }
        Ok(Self { child, base })
    }
}

impl Drop for Hello {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `tabletally-load hello`: one handler that answers `hello`, with actix-web's defaults (a
/// worker per core), on a free loopback port.
pub fn hello() -> std::io::Result<()> {
    use actix_web::{App, HttpResponse, HttpServer, web};
    actix_web::rt::System::new().block_on(async {
        let server = HttpServer::new(|| {
            App::new().route(
                "/hello",
                web::get().to(|| async { HttpResponse::Ok().json("hello") }),
            )
        })
        .bind(("127.0.0.1", 0))?;
        let address = server.addrs()[0];
        println!("listening on http://{address}");
        server.run().await
    })
}

/// The server's resident memory now, in MiB.
fn rss_mib(pid: u32) -> Option<f64> {
    super::rss_kib(pid).map(|kib| kib as f64 / 1024.0)
}

pub async fn tables(
    base: &str,
    token: &str,
    tables: usize,
    seconds: u64,
    database_url: &str,
    pid: Option<u32>,
) -> Result<(), String> {
    if tables == 0 || seconds == 0 {
        return Err("tables needs at least one table and one second".into());
    }
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(READERS.max(tables))
        .build()
        .map_err(|e| e.to_string())?;

    // The database's own limit first, while the server is idle.
    let (raw_one, raw_eight, raw_cpu) = raw_commits(database_url).await?;
    // PostgreSQL's own CPU in the appends-only loop, read from its backends' /proc entries.
    let monitor = if database_url.starts_with("postgres") {
        Some(
            sqlx::postgres::PgPoolOptions::new()
                .max_connections(1)
                .connect(database_url)
                .await
                .map_err(|e| e.to_string())?,
        )
    } else {
        None
    };

    // Several clubs' tokens (comma-separated): the tables take turns among the clubs.
    let clubs: Vec<&str> = token.split(',').collect();
    let token = clubs[0];
    let pooled = (0..tables)
        .map(|i| Caller::Pooled {
            client: client.clone(),
            base: base.to_owned(),
            token: clubs[i % clubs.len()].to_owned(),
        })
        .collect();
    let (
        Table {
            mut create,
            mut append,
            mut finish,
            mut score,
            finished_game,
        },
        elapsed,
    ) = cycle(pooled, seconds).await?;
    let rss = pid.and_then(rss_mib);
    // The same cycle again, each table on a connection of its own.
    let mut own = Vec::with_capacity(tables);
    for i in 0..tables {
        own.push(Caller::Own(
            Phone::connect(base, clubs[i % clubs.len()]).await?,
        ));
    }
    let (mut own, _) = cycle(own, seconds).await?;
    let appends_per_s = append.times.len() as f64 / elapsed;
    let game = finished_game.ok_or("no game was finished; nothing to read the score of")?;

    // Appends only, to games in progress, one at a time a table.
    let (only_rate, mut only, only_missed, only_cpu) =
        appends_only(&client, base, token, tables, seconds, monitor.as_ref()).await?;
    // The cycle's own floor: one finished game's rows written again by hand, a transaction a
    // request, as many games at once as there were tables (one at a time on SQLite).
    let floor = std::sync::Arc::new(
        super::floor::Floor::of_game(database_url, &game, tables.min(32) as u32).await?,
    );
    let floor_rate = floor.rate(tables, DENOMINATOR_TIME).await?;
    let cycle_rate = (create.times.len() + append.times.len()) as f64 / elapsed;
    // Every request of the cycle (create, three appends, score), as issue 55 counts the cycle.
    let requests_rate =
        (create.times.len() + append.times.len() + score.times.len()) as f64 / elapsed;
    // PostgreSQL's CPU per plain append against a raw single-row insert's, same run.
    let cpu_per_append = only_cpu.map(|cpu| cpu / (only.times.len().max(1) as u32));
    let cpu_ratio = cpu_per_append
        .zip(raw_cpu)
        .map(|(append, raw)| append.as_secs_f64() / raw.as_secs_f64().max(1e-9));

    let (score_rate, mut score_timings) =
        closed_loop(&client, &format!("{base}/v1/games/{game}/score"), token).await?;
    let (healthz_rate, _) = closed_loop(&client, &format!("{base}/healthz"), token).await?;
    let hello = Hello::start()?;
    let (hello_rate, _) = closed_loop(&client, &format!("{}/hello", hello.base), token).await?;
    drop(hello);

    println!(
        "{tables} tables of {} club(s) for {seconds} s: {appends_per_s:.0} appends/s, {:.0} games/s",
        clubs.len(),
        score.times.len() as f64 / elapsed
    );
    println!("{}", create.line("create"));
    println!("{}", append.line("append"));
    println!(
        "{}  (of the appends, those that finished a game)",
        finish.line("finish")
    );
    println!("{}", score.line("score"));
    println!("the same cycle, each table on a connection of its own:");
    println!("{}", own.create.line("create"));
    println!("{}", own.append.line("append"));
    println!("{}", own.finish.line("finish"));
    println!(
        "appends only (a game in progress a table, a new one every {GAME_EVENTS} events): {only_rate:.0} appends/s, state cache missed {:.1} % of its lookups",
        only_missed * 100.0
    );
    println!("{}", only.line("append"));
    println!(
        "the cycle's floor (one game's {} rows in {} requests, written by hand, a transaction a request, {} at once)  {floor_rate:.0} requests/s → the cycle's creations and appends {cycle_rate:.0} /s = {:.2}× its floor",
        floor.rows_per_game(),
        floor.requests_per_game(),
        if database_url.starts_with("postgres") {
            tables.min(32)
        } else {
            1
        },
        cycle_rate / floor_rate
    );
    match raw_eight {
        None => println!(
            "raw commits (SQLite WAL+FULL, 1 connection)  {raw_one:.0} /s → appends {:.2}× raw in the cycle, {:.2}× appending only",
            appends_per_s / raw_one,
            only_rate / raw_one
        ),
        Some(eight) => println!(
            "raw commits (PostgreSQL)  1 connection {raw_one:.0} /s, 8 connections {eight:.0} /s → appends {:.2}× raw at 1, {:.2}× raw at 8 in the cycle (its requests {requests_rate:.0} /s, {:.2}× raw at 8); appending only {:.2}× and {:.2}×",
            appends_per_s / raw_one,
            appends_per_s / eight,
            requests_rate / eight,
            only_rate / raw_one,
            only_rate / eight
        ),
    }
    println!(
        "score of one finished game, {READERS} connections  {score_rate:.0} /s (p50 {:.2}ms p99 {:.2}ms) → {:.2}× bare",
        score_timings.quantile_ms(0.5),
        score_timings.quantile_ms(0.99),
        score_rate / hello_rate
    );
    println!(
        "GET /healthz, {READERS} connections            {healthz_rate:.0} /s → {:.2}× bare",
        healthz_rate / hello_rate
    );
    println!("bare actix-web handler, {READERS} connections  {hello_rate:.0} /s");
    if let Some(rss) = rss {
        println!("server memory after the tables  {rss:.1} MiB");
    }
    if let (Some(append), Some(raw), Some(ratio)) = (cpu_per_append, raw_cpu, cpu_ratio) {
        println!(
            "PostgreSQL backends' CPU  {:.0} µs per append (appending only), {:.0} µs per raw single-row insert (8 connections) → {ratio:.2}×",
            append.as_secs_f64() * 1e6,
            raw.as_secs_f64() * 1e6,
        );
    }
    // One tab-separated line for scripts/tables.sh's table.
    let raw_floor = raw_eight.unwrap_or(raw_one);
    println!(
        "row\t{tables}\t{appends_per_s:.0}\t{:.1}\t{:.1}\t{:.1}\t{:.1}\t{:.1}\t{:.1}\t{}\t{raw_one:.0}\t{}\t{:.2}\t{}\t{score_rate:.0}\t{healthz_rate:.0}\t{hello_rate:.0}\t{:.2}\t{}\t{only_rate:.0}\t{:.1}\t{:.1}\t{:.2}\t{}\t{}\t{}\t{cycle_rate:.0}\t{floor_rate:.0}\t{:.2}\t{:.1}\t{:.1}\t{:.1}\t{}\t{:.2}",
        append.quantile_ms(0.5),
        append.quantile_ms(0.99),
        create.quantile_ms(0.5),
        create.quantile_ms(0.99),
        score.quantile_ms(0.5),
        score.quantile_ms(0.99),
        create.failures + append.failures + score.failures,
        raw_eight.map_or("-".to_owned(), |r| format!("{r:.0}")),
        appends_per_s / raw_one,
        raw_eight.map_or("-".to_owned(), |r| format!("{:.2}", appends_per_s / r)),
        score_rate / hello_rate,
        rss.map_or("-".to_owned(), |r| format!("{r:.0}")),
        only.quantile_ms(0.5),
        only.quantile_ms(0.99),
        only_rate / raw_floor,
        cpu_per_append.map_or("-".to_owned(), |c| format!("{:.0}", c.as_secs_f64() * 1e6)),
        raw_cpu.map_or("-".to_owned(), |c| format!("{:.0}", c.as_secs_f64() * 1e6)),
        cpu_ratio.map_or("-".to_owned(), |r| format!("{r:.2}")),
        cycle_rate / floor_rate,
        only_missed * 100.0,
        own.append.quantile_ms(0.5),
        own.append.quantile_ms(0.99),
        own.create.failures + own.append.failures + own.score.failures,
        requests_rate / raw_floor,
    );
    Ok(())
}
