//! `held` and `held-loop` (issue 55): what a game in progress costs the server while its state
//! cache holds it, and whether a club network's Friday evening fits.
//!
//! Each game is brought to a typical mid-game point one event a request, as a pad sends them,
//! then its score is read once, as the pad shows it after a round:
//! - Mint Condition: 3 players, rounds 1 and 2 of 3 (version 3);
//! - Mind Up!: 4 players, 2 objectives a round, turn by turn, rounds 1 and 2 of 3 (version 18);
//! - Mint Julep: 3 players, rounds 1 and 2 of 3, bet by bet and card by card (version 14);
//! - Vintage: 3 players, 4 prizes, the deal and 14 of its 28 turns (version 16).
//!
//! The data of the last three is the end-to-end tests' (`tests/e2e/<game>.rs`), the same for every
//! game; Mint Condition's rounds are dealt per game, as the other loops do.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::phone::Phone;
use super::{Lcg, rounds, rss_kib};

/// Tables bringing games to their mid-game point at once.
const MAKERS: usize = 32;

/// The four games, by API id.
const GAMES: [&str; 4] = ["mint-condition", "mind-up", "mint-julep", "vintage"];

/// A game to make: its creation body and its events up to the mid-game point (`type`, `data`).
struct Script {
    create: Value,
    events: Vec<(&'static str, Value)>,
}

fn script(game: &str, rng: &mut Lcg) -> Result<Script, String> {
    let players =
        |names: &[&str]| -> Vec<Value> { names.iter().map(|n| json!({"name": n})).collect() };
    Ok(match game {
        "mint-condition" => {
            let names: Vec<String> = ["Ann", "Bo", "Cy"].map(str::to_owned).to_vec();
            let dealt = rounds(&names, rng);
            Script {
                create: json!({"game": game, "players": players(&["Ann", "Bo", "Cy"])}),
                events: dealt
                    .into_iter()
                    .take(2)
                    .map(|r| ("round_collected", r))
                    .collect(),
            }
        }
        "mind-up" => Script {
            create: json!({"game": game, "players": players(&["Ann", "Bo", "Cy", "Di"]), "options": {"objectives": 2}}),
            events: mind_up_rounds(),
        },
        "mint-julep" => Script {
            create: json!({"game": game, "players": players(&["Ann", "Bo", "Cy"])}),
            events: mint_julep_rounds(),
        },
        "vintage" => Script {
            create: json!({"game": game, "players": players(&["Ann", "Bo", "Cy"]), "options": vintage_options()}),
            events: vintage_half(),
        },
        _ => return Err(format!("{game} is none of {}", GAMES.join(", "))),
    })
}

fn mind_up_rounds() -> Vec<(&'static str, Value)> {
    let turn = |round: u32, cards: [u8; 4]| {
        let [ann, bo, cy, di] = cards;
        (
            "cards_played",
            json!({"round": round, "cards": {"Ann": ann, "Bo": bo, "Cy": cy, "Di": di}}),
        )
    };
    let last = |round: u32, cards: [u8; 4]| {
        let [ann, bo, cy, di] = cards;
        (
            "last_cards_placed",
            json!({"round": round, "cards": {"Ann": ann, "Bo": bo, "Cy": cy, "Di": di}}),
        )
    };
    vec![
        (
            "round_started",
            json!({"round": 1, "columns": [1, 3, 4, 2, 5], "prizes": [11, 22, 44, 53], "objectives": ["A1", "C2"],
            "hands": {"Ann": [12, 31, 37, 39, 46, 52, 54], "Bo": [2, 14, 25, 27, 33, 41, 50],
                      "Cy": [13, 28, 32, 35, 36, 56, 60], "Di": [1, 3, 4, 6, 9, 38, 58]}}),
        ),
        turn(1, [46, 25, 13, 1]),
        turn(1, [12, 27, 35, 3]),
        turn(1, [31, 14, 56, 4]),
        turn(1, [37, 50, 60, 9]),
        turn(1, [54, 33, 32, 38]),
        turn(1, [52, 41, 36, 58]),
        last(1, [39, 2, 28, 6]),
        (
            "round_started",
            json!({"round": 2, "columns": [4, 3, 2, 1, 5], "objectives": ["B2", "E2"],
            "hands": {"Ann": [7, 13, 14, 27, 38, 39, 53, 60], "Bo": [2, 12, 25, 31, 33, 37, 40, 44],
                      "Cy": [9, 22, 28, 32, 35, 45, 46, 56], "Di": [1, 3, 4, 6, 11, 49, 50, 54]}}),
        ),
        turn(2, [53, 31, 56, 54]),
        turn(2, [7, 37, 22, 6]),
        turn(2, [60, 25, 45, 11]),
        turn(2, [13, 40, 35, 1]),
        turn(2, [38, 33, 46, 49]),
        turn(2, [27, 12, 32, 3]),
        turn(2, [14, 44, 28, 4]),
        last(2, [39, 2, 9, 50]),
    ]
}

fn mint_julep_rounds() -> Vec<(&'static str, Value)> {
    let bet = |round: u32, player: &str, horse: &str, replaces: Option<&str>| {
        (
            "bet_placed",
            json!({"round": round, "player": player, "horse": horse, "replaces": replaces}),
        )
    };
    let step = |horse: &str, direction: &str, kind: &str| json!({"horse": horse, "direction": direction, "kind": kind});
    let card = |round: u32, player: &str, moves: Vec<Value>, mint_julep: Option<&str>| {
        (
            "card_played",
            json!({"round": round, "player": player, "moves": moves, "mint_julep": mint_julep.map(|h| json!({"horse": h}))}),
        )
    };
    let ended = |round: u32| ("round_ended", json!({"round": round}));
    vec![
        bet(1, "Ann", "you-got-me", None),
        bet(1, "Bo", "alaskan-justice", None),
        bet(1, "Cy", "newtons-apple", None),
        card(1, "Ann", vec![step("you-got-me", "forward", "named")], None),
        card(
            1,
            "Bo",
            vec![step("alaskan-justice", "forward", "top")],
            None,
        ),
        card(
            1,
            "Cy",
            vec![
                step("newtons-apple", "forward", "named"),
                step("maple-splendor", "back", "top"),
            ],
            None,
        ),
        card(
            1,
            "Ann",
            vec![step("whiskey-princess", "forward", "top")],
            Some("whiskey-princess"),
        ),
        ended(1),
        bet(2, "Bo", "you-got-me", Some("alaskan-justice")),
        card(2, "Bo", vec![step("you-got-me", "forward", "named")], None),
        card(
            2,
            "Cy",
            vec![step("newtons-apple", "forward", "named")],
            None,
        ),
        card(
            2,
            "Ann",
            vec![step("maple-splendor", "forward", "top")],
            None,
        ),
        ended(2),
    ]
}

fn vintage_options() -> Value {
    let prize = |id: &str, name: &str, attribute: &str, value: &str, points: i64| json!({"id": id, "name": name, "attribute": attribute, "value": value, "points": points});
    json!({"prizes": [
        prize("blue", "Most blue objects", "colour", "blue", 4),
        prize("sixties", "Most 60s objects", "period", "60s", 3),
        prize("radios", "Most radios", "type", "radio", 3),
        prize("vases", "Most vases", "type", "vase", 2),
    ]})
}

/// The deal and turns 1–14 of the end-to-end tests' scripted game (`tests/e2e/vintage.rs`).
fn vintage_half() -> Vec<(&'static str, Value)> {
    const PLAYERS: [&str; 3] = ["Ann", "Bo", "Cy"];
    const TYPES: [&str; 4] = ["lamp", "radio", "chair", "vase"];
    const COLOURS: [&str; 3] = ["blue", "red", "green"];
    let card = |n: u32| {
        let period = if n % 2 == 1 { "60s" } else { "50s" };
        json!({"id": format!("c{n}"), "type": TYPES[(n % 4) as usize], "colour": COLOURS[(n % 3) as usize],
               "period": period, "value": n % 5})
    };
    let c = |n: u32| json!(format!("c{n}"));
    let mut events = vec![(
        "showcases_dealt",
        json!({"showcases": {"Ann": [card(1)], "Bo": [card(2), card(3)], "Cy": [card(4), card(5), card(6)]}}),
    )];
    for t in 1..=14u32 {
        let banked = match t {
            1 => 1,
            2 => 2,
            3 => 5,
            _ => 2 * t - 1,
        };
        let (steal, dig) = match t {
            1 => (json!({"from": "Cy", "card": "c4"}), Value::Null),
            14 => (json!({"from": "Ann", "card": "c4"}), Value::Null),
            _ => (Value::Null, c(2 * t + 4)),
        };
        events.push((
            "turn_taken",
            json!({"player": PLAYERS[((t - 1) % 3) as usize], "banked": c(banked), "steal": steal, "dig": dig,
                   "drawn": [card(2 * t + 5), card(2 * t + 6)], "kept": c(2 * t + 5)}),
        ));
    }
    events
}

fn event(event_type: &str, data: &Value) -> Value {
    json!({"id": uuid::Uuid::new_v4().to_string(), "type": event_type, "data": data})
}

/// The answer's body, or why it is not the one expected.
fn expect(
    answer: (u16, hyper::body::Bytes),
    expected: u16,
    what: &str,
) -> Result<hyper::body::Bytes, String> {
    match answer {
        (status, body) if status == expected => Ok(body),
        (status, body) => Err(format!(
            "{what}: {status}: {}",
            String::from_utf8_lossy(&body)
        )),
    }
}

/// A game made and brought to its mid-game point, score read: its id, version and last event's
/// data.
async fn make_game(phone: &mut Phone, game: &str, rng: &mut Lcg) -> Result<Made, String> {
    let script = script(game, rng)?;
    let body = serde_json::to_vec(&script.create).map_err(|e| e.to_string())?;
    let created = expect(phone.post("/v1/games", body).await?, 201, "create")?;
    let created: Value = serde_json::from_slice(&created).map_err(|e| e.to_string())?;
    let id = created["id"]
        .as_str()
        .ok_or("a created game without an id")?
        .to_owned();
    let mut version = 1;
    for (event_type, data) in &script.events {
        let append = json!({"expected_version": version, "events": [event(event_type, data)]});
        let body = serde_json::to_vec(&append).map_err(|e| e.to_string())?;
        expect(
            phone.post(&format!("/v1/games/{id}/events"), body).await?,
            201,
            event_type,
        )?;
        version += 1;
    }
    expect(
        phone.get(&format!("/v1/games/{id}/score")).await?,
        200,
        "score",
    )?;
    let last = script
        .events
        .into_iter()
        .last()
        .map_or(Value::Null, |(_, data)| data);
    Ok((id, version, last))
}

/// A game's id, version and last event's data.
type Made = (String, i64, Value);

/// `games` games of `game` made by [`MAKERS`] tables at once: their ids and versions, in order.
async fn make_games(
    base: &str,
    token: &str,
    game: &str,
    games: usize,
) -> Result<Vec<Made>, String> {
    let makers: Vec<_> = (0..MAKERS.min(games))
        .map(|maker| {
            let (base, token, game) = (base.to_owned(), token.to_owned(), game.to_owned());
            tokio::spawn(async move {
                let mut phone = Phone::connect(&base, &token).await?;
                let mut rng = Lcg(0x55 + maker as u64);
                let mut made = Vec::new();
                for _ in (maker..games).step_by(MAKERS) {
                    made.push(make_game(&mut phone, &game, &mut rng).await?);
                }
                Ok::<_, String>(made)
            })
        })
        .collect();
    let mut all = Vec::with_capacity(games);
    for maker in makers {
        all.extend(maker.await.map_err(|e| e.to_string())??);
    }
    Ok(all)
}

/// The server's `GET /metrics` counters this tool reads.
#[derive(Debug, Clone, Copy)]
struct Counters {
    hits: u64,
    misses: u64,
    games: u64,
    bytes: u64,
}

async fn counters(base: &str, token: &str) -> Result<Counters, String> {
    let mut phone = Phone::connect(base, token).await?;
    let text = expect(phone.get("/metrics").await?, 200, "metrics")?;
    let text = String::from_utf8_lossy(&text);
    let counter = |name: &str| {
        text.lines()
            .find_map(|line| {
                line.strip_prefix(name)?
                    .strip_prefix(' ')?
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
            .ok_or_else(|| format!("/metrics has no {name}"))
    };
    Ok(Counters {
        hits: counter("tabletally_cache_hits_total")?,
        misses: counter("tabletally_cache_misses_total")?,
        games: counter("tabletally_cache_games")?,
        bytes: counter("tabletally_cache_bytes")?,
    })
}

fn rss(pid: Option<u32>) -> Result<u64, String> {
    let pid = pid.ok_or("no server pid: RSS is read from /proc/<pid>/status")?;
    rss_kib(pid).ok_or_else(|| format!("no VmRSS for pid {pid}"))
}

/// `held <base-url> <token> <game-id> <games> <server-pid>`: the server's RSS growth per
/// 1,000 games held at their mid-game point, and the cache's own estimate against it.
pub async fn held(
    base: &str,
    token: &str,
    game: &str,
    games: usize,
    pid: Option<u32>,
) -> Result<(), String> {
    if games == 0 {
        return Err("held needs at least one game".into());
    }
    // One game first, so that what any first request allocates is in the baseline.
    make_games(base, token, game, 1).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (rss_before, cache_before) = (rss(pid)?, counters(base, token).await?);
    let started = Instant::now();
    let made = make_games(base, token, game, games).await?;
    let took = started.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (rss_after, cache) = (rss(pid)?, counters(base, token).await?);
    let version = made.first().map_or(0, |(_, v, _)| *v);
    let growth = rss_after as f64 - rss_before as f64;
    let per_game = growth / games as f64;
    let held = cache.games.saturating_sub(cache_before.games);
    let estimate = cache.bytes.saturating_sub(cache_before.bytes) as f64 / 1024.0;
    let estimate_per_game = estimate / held.max(1) as f64;
    println!(
        "{game}: {games} games made to version {version} and their scores read in {:.1} s",
        took.as_secs_f64()
    );
    println!(
        "server RSS {:.1} → {:.1} MiB: {:.1} KiB a game, {:.1} MiB per 1,000",
        rss_before as f64 / 1024.0,
        rss_after as f64 / 1024.0,
        per_game,
        per_game * 1000.0 / 1024.0
    );
    println!(
        "the cache holds {} games ({held} more), estimated {:.1} MiB ({:.1} KiB more: {estimate_per_game:.2} KiB a game held); estimate ÷ RSS growth {:.2}; hits {} misses {}",
        cache.games,
        cache.bytes as f64 / 1048576.0,
        estimate,
        estimate / growth.max(1.0),
        cache.hits - cache_before.hits,
        cache.misses - cache_before.misses,
    );
    println!(
        "row\t{game}\t{games}\t{version}\t{rss_before}\t{rss_after}\t{per_game:.2}\t{held}\t{estimate_per_game:.2}\t{:.2}",
        estimate / growth.max(1.0)
    );
    Ok(())
}

/// One table of the loop: its games in turn, each the undo of its last round and the round
/// again (the game stays in progress at its mid-game point), one append a game every `every`.
async fn loop_table(
    mut phone: Phone,
    mut games: Vec<Made>,
    every: Duration,
    until: Instant,
) -> Result<(Vec<Duration>, u64), String> {
    let mut times = Vec::new();
    let mut failures = 0;
    let gap = every / games.len().max(1) as u32;
    let mut next = Instant::now();
    'tables: while Instant::now() < until {
        for (id, version, round) in &mut games {
            tokio::time::sleep_until(next.into()).await;
            next += gap;
            if Instant::now() >= until {
                break 'tables;
            }
            // The game's log ends with its second round, or with the undo of it.
            let undone = (*version - 3) % 2 == 1;
            let append = if undone {
                json!({"expected_version": *version, "events": [event("round_collected", round)]})
            } else {
                json!({"expected_version": *version, "events": [event("retract", &json!({"seq": *version, "reason": "recounted"}))]})
            };
            let body = serde_json::to_vec(&append).map_err(|e| e.to_string())?;
            let started = Instant::now();
            match phone.post(&format!("/v1/games/{id}/events"), body).await? {
                (201, _) => {
                    times.push(started.elapsed());
                    *version += 1;
                }
                (status, body) => {
                    failures += 1;
                    if failures <= 3 {
                        eprintln!(
                            "append failed: {status}: {}",
                            String::from_utf8_lossy(&body)
                        );
                    }
                    return Ok((times, failures));
                }
            }
        }
    }
    Ok((times, failures))
}

/// `held-loop <base-url> <token> <games> <seconds> <server-pid> [tables] [every-seconds]`:
/// `games` Mint Condition games in progress (made as `held` makes them), then `tables` tables
/// (default 100) appending over them for `seconds`, each table returning to each of its games
/// every `every-seconds` (default 5): the cache's hit rate over the loop and the server's RSS.
pub async fn held_loop(
    base: &str,
    token: &str,
    games: usize,
    seconds: u64,
    pid: Option<u32>,
    tables: usize,
    every: Duration,
) -> Result<(), String> {
    if games == 0 || tables == 0 || seconds == 0 {
        return Err("held-loop needs games, tables and seconds".into());
    }
    let rss_empty = rss(pid)?;
    let started = Instant::now();
    let made = make_games(base, token, "mint-condition", games).await?;
    println!(
        "{games} Mint Condition games made to version 3 and their scores read in {:.1} s; server RSS {:.1} → {:.1} MiB",
        started.elapsed().as_secs_f64(),
        rss_empty as f64 / 1024.0,
        rss(pid)? as f64 / 1024.0
    );
    let tables = tables.min(games);
    let mut shares: Vec<Vec<Made>> = vec![Vec::new(); tables];
    for (i, game) in made.into_iter().enumerate() {
        shares[i % tables].push(game);
    }
    let before = counters(base, token).await?;
    let rss_before = rss(pid)?;
    let started = Instant::now();
    let until = started + Duration::from_secs(seconds);
    let mut handles = Vec::new();
    for share in shares {
        let phone = Phone::connect(base, token).await?;
        handles.push(tokio::spawn(loop_table(phone, share, every, until)));
    }
    let mut peak = rss_before;
    while Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(500)).await;
        peak = peak.max(rss(pid)?);
    }
    let (mut times, mut failures) = (Vec::new(), 0);
    for handle in handles {
        let (t, f) = handle.await.map_err(|e| e.to_string())??;
        times.extend(t);
        failures += f;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let after = counters(base, token).await?;
    let rss_after = rss(pid)?;
    peak = peak.max(rss_after);
    times.sort_unstable();
    let quantile = |q: f64| {
        times
            .get(((times.len().max(1) - 1) as f64 * q).round() as usize)
            .map_or(f64::NAN, |t| t.as_secs_f64() * 1000.0)
    };
    let (hits, misses) = (after.hits - before.hits, after.misses - before.misses);
    let hit_rate = hits as f64 * 100.0 / (hits + misses).max(1) as f64;
    println!(
        "{} appends in {elapsed:.1} s over {games} games from {tables} tables ({:.0} /s: a game's turn every {:.1} s), p50 {:.2} ms, p99 {:.2} ms, failed {failures}",
        times.len(),
        times.len() as f64 / elapsed,
        games as f64 * elapsed / times.len().max(1) as f64,
        quantile(0.5),
        quantile(0.99),
    );
    println!(
        "cache over the loop: {hits} hits, {misses} misses ({hit_rate:.2} % hit); holds {} games, estimated {:.1} MiB ({:.2} KiB a game)",
        after.games,
        after.bytes as f64 / 1048576.0,
        after.bytes as f64 / 1024.0 / after.games.max(1) as f64,
    );
    println!(
        "server RSS {:.1} MiB before the loop, {:.1} MiB after, {:.1} MiB at most (sampled every 0.5 s); {:.1} MiB with no game",
        rss_before as f64 / 1024.0,
        rss_after as f64 / 1024.0,
        peak as f64 / 1024.0,
        rss_empty as f64 / 1024.0,
    );
    println!(
        "row\t{games}\t{}\t{:.0}\t{:.2}\t{:.2}\t{hits}\t{misses}\t{hit_rate:.2}\t{}\t{:.1}\t{:.1}\t{:.1}\t{failures}",
        times.len(),
        times.len() as f64 / elapsed,
        quantile(0.5),
        quantile(0.99),
        after.games,
        rss_after as f64 / 1024.0,
        peak as f64 / 1024.0,
        after.bytes as f64 / 1048576.0,
    );
    Ok(())
}
