//! How long the server takes to turn a stored game into its score, per game.
//!
//! For every fixture in `benches/fixtures/<game-id>.json` (a finished game's whole log), one
//! benchmark `replay_and_score/<game-id>` measures the path of `GET /v1/games/{id}/score` after
//! the rows are read: parse each event's stored data (the database keeps it as JSON text) into
//! a [`LogEvent`], replay the log with [`Game::evaluate`], and serialise the scoreboard to JSON.
//!
//! Run: `cargo bench -p tabletally-domain --bench replay`. See `BENCHMARKS.md`.

use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

// The server binary's allocator (api/src/main.rs), so the bench measures what it runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use serde_json::Value;
use tabletally_domain::{Game, LogEvent, NewEvent, Status};

/// One event as the database stores it: its data is JSON text.
struct StoredRow {
    seq: u64,
    event_type: String,
    data: String,
    schema_version: u32,
}

/// A fixture, loaded and checked: its game and its rows.
struct Fixture {
    id: String,
    game: Game,
    rows: Vec<StoredRow>,
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/fixtures")
}

/// Every `*.json` in the fixtures folder, sorted by game id. Panics on anything malformed.
fn load_fixtures() -> Vec<Fixture> {
    let dir = fixtures_dir();
    let mut paths: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no fixtures in {}", dir.display());
    paths.iter().map(|p| load_fixture(p)).collect()
}

fn load_fixture(path: &Path) -> Fixture {
    let id = path
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("a UTF-8 file name")
        .to_owned();
    let game = Game::from_id(&id).unwrap_or_else(|| {
        panic!(
            "fixture {}: no game with id {id:?} (known: {})",
            path.display(),
            tabletally_domain::games::known_ids()
        )
    });
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let events: Vec<Value> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let rows: Vec<StoredRow> = events
        .iter()
        .map(|e| StoredRow {
            seq: e["seq"].as_u64().expect("every event has a numeric seq"),
            event_type: e["type"]
                .as_str()
                .expect("every event has a type")
                .to_owned(),
            // As stored: the data is JSON text, serialised once, outside the measurement.
            data: serde_json::to_string(&e["data"]).expect("data serialises"),
            // The fixtures were recorded at schema version 1, before rows carried one.
            schema_version: e["schema_version"]
                .as_u64()
                .map_or(1, |v| u32::try_from(v).expect("a schema version")),
        })
        .collect();
    if let Some(named) = events.first().and_then(|e| e["data"]["game"].as_str()) {
        assert_eq!(
            named,
            id,
            "fixture {}: game_started names another game",
            path.display()
        );
    }
    Fixture { id, game, rows }
}

/// Stored rows → log (the JSON parsing part).
fn parse(rows: &[StoredRow]) -> Vec<LogEvent> {
    rows.iter()
        .map(|row| LogEvent {
            seq: row.seq,
            event_type: row.event_type.clone(),
            data: serde_json::from_str(&row.data).expect("stored data is JSON"),
            schema_version: row.schema_version,
        })
        .collect()
}

/// The measured path: stored rows → log → evaluation → scoreboard JSON.
fn replay_and_score(game: Game, rows: &[StoredRow]) -> (Status, String) {
    let log = parse(rows);
    let evaluation = game.evaluate(&log).expect("the fixture replays");
    let json = serde_json::to_string(&evaluation.scoreboard).expect("the scoreboard serialises");
    (evaluation.status, json)
}

fn bench_replay(c: &mut Criterion) {
    let fixtures = load_fixtures();
    // A broken fixture fails here, loudly, before anything is measured.
    for f in &fixtures {
        let (status, _) = replay_and_score(f.game, &f.rows);
        assert_eq!(
            status,
            Status::Finished,
            "fixture {}.json is not a finished game",
            f.id
        );
    }
    let mut group = c.benchmark_group("replay_and_score");
    for f in &fixtures {
        group.bench_function(f.id.as_str(), |b| {
            b.iter(|| replay_and_score(black_box(f.game), black_box(&f.rows)))
        });
    }
    group.finish();
    // The same path in its three parts, to see where the time goes.
    let mut parts = c.benchmark_group("parts");
    for f in &fixtures {
        let log = parse(&f.rows);
        let evaluation = f.game.evaluate(&log).expect("the fixture replays");
        parts.bench_function(format!("{}/parse", f.id), |b| {
            b.iter(|| parse(black_box(&f.rows)))
        });
        parts.bench_function(format!("{}/evaluate", f.id), |b| {
            b.iter(|| f.game.evaluate(black_box(&log)).expect("replays"))
        });
        parts.bench_function(format!("{}/serialise", f.id), |b| {
            b.iter(|| serde_json::to_string(black_box(&evaluation.scoreboard)).expect("serialises"))
        });
    }
    parts.finish();
    // What the server's held state does with a new event (`POST …/events`, the game cached):
    // the last event of the fixture, then a retract of it (a table's "undo").
    let mut held = c.benchmark_group("held");
    for f in &fixtures {
        let log = parse(&f.rows);
        let (last, before) = log.split_last().expect("a fixture has events");
        let mut state = f.game.replay(before.to_vec()).expect("the fixture replays");
        let new = |event: &LogEvent| NewEvent {
            event_type: event.event_type.clone(),
            data: event.data.clone(),
        };
        held.bench_function(format!("{}/append_last", f.id), |b| {
            b.iter_batched(
                || state.clone(),
                |mut state| state.append(black_box(&[new(last)])).expect("appends"),
                BatchSize::SmallInput,
            )
        });
        state.append(&[new(last)]).expect("the last event appends");
        let undo = NewEvent {
            event_type: "retract".into(),
            data: serde_json::json!({"seq": last.seq, "reason": "undo"}),
        };
        held.bench_function(format!("{}/undo_last", f.id), |b| {
            b.iter_batched(
                || state.clone(),
                |mut state| {
                    state
                        .append(black_box(std::slice::from_ref(&undo)))
                        .expect("undoes")
                },
                BatchSize::SmallInput,
            )
        });
    }
    held.finish();
}

criterion_group!(benches, bench_replay);
criterion_main!(benches);
