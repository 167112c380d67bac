//! What a held game keeps, counted by the allocator: a game of each of the four, at each quarter
//! of its benchmark fixture (`domain/benches/fixtures/`), held as the state cache holds it, its
//! estimate ([`HeldGame::bytes`]) within 25 % of the heap it holds. The count rounds each
//! allocation up as mimalloc does (the server's allocator), so it follows the server's RSS
//! (`scripts/held.sh` measures that).

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicIsize, Ordering};

use chrono::Utc;
use serde_json::Value;
use tabletally_api::store::{GameRecord, HeldGame, SeatRecord, StoredEvent};
use tabletally_domain::NewEvent;

/// The system allocator, counting the bytes live (each allocation as mimalloc would round it).
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

/// mimalloc's size classes: multiples of 8 up to 64, then eight classes per doubling.
fn rounded(size: usize) -> usize {
    if size <= 64 {
        return size.div_ceil(8) * 8;
    }
    let step = size.next_power_of_two() / 8;
    size.div_ceil(step) * step
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(rounded(layout.size()) as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(rounded(layout.size()) as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// The first `n`/`d` of a fixture's game, as the store reads it: its row and its events.
fn part_of_game(game: &str, n: usize, d: usize) -> (GameRecord, Vec<StoredEvent>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../domain/benches/fixtures")
        .join(format!("{game}.json"));
    let text = std::fs::read_to_string(&path).expect("the fixture");
    let events: Vec<Value> = serde_json::from_str(&text).expect("a JSON array of events");
    let half = (events.len() * n / d).max(1);
    let started = &events[0]["data"];
    let players = started["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| SeatRecord {
            seat: p["seat"].as_i64().expect("a seat"),
            name: p["name"].as_str().expect("a name").to_owned(),
            player_id: uuid::Uuid::new_v4().to_string(),
            color: p["color"].as_str().map(str::to_owned),
        })
        .collect();
    let row = GameRecord {
        id: uuid::Uuid::new_v4().to_string(),
        game: game.to_owned(),
        status: "in_progress".into(),
        version: half as i64,
        options: started["options"].clone().into(),
        players,
        started_at: Utc::now(),
        updated_at: Utc::now(),
    };
    let log = events[..half]
        .iter()
        .map(|e| StoredEvent {
            position: e["seq"].as_i64().expect("a seq"),
            seq: e["seq"].as_i64().expect("a seq"),
            id: uuid::Uuid::new_v4().to_string(),
            event_type: e["type"].as_str().expect("a type").to_owned(),
            schema_version: e["schema_version"].as_i64().unwrap_or(1),
            data: e["data"].clone(),
            recorded_at: Utc::now(),
            recorded_by: Some("bench".into()),
        })
        .collect();
    (row, log)
}

/// How a server comes to hold a game: replayed from its log (a miss), or continued event by
/// event from its first (appends to a game held all along, its undo let go since).
#[derive(Debug, Clone, Copy)]
enum Held {
    Replayed,
    Appended,
}

fn hold(row: GameRecord, log: Vec<StoredEvent>, how: Held) -> HeldGame {
    match how {
        Held::Replayed => {
            let mut held = HeldGame::replay(row, log).expect("the fixture replays");
            held.let_go_of_log();
            held
        }
        Held::Appended => {
            let mut log = log.into_iter();
            let first = log.next().into_iter().collect();
            let mut held = HeldGame::replay(row, first).expect("the fixture starts");
            held.let_go_of_log();
            for e in log {
                let new = NewEvent {
                    event_type: e.event_type,
                    data: e.data,
                };
                held.state.append(&[new]).expect("the fixture appends");
            }
            held.let_go_of_undo();
            held
        }
    }
}

#[test]
fn the_estimate_of_a_game_held_at_any_quarter_is_within_a_quarter_of_the_heap_it_holds() {
    let mut outside = Vec::new();
    for (game, quarter, how) in ["mint-condition", "mind-up", "mint-julep", "vintage"]
        .into_iter()
        .flat_map(|game| (1..=4).map(move |n| (game, n)))
        .flat_map(|(game, n)| [Held::Replayed, Held::Appended].map(|how| (game, n, how)))
    {
        let (row, log) = part_of_game(game, quarter, 4);
        let events = log.len();
        // On a server the games of one options text share them (`records::shared_options`):
        // held by a thousand games, each game's share is a thousandth.
        let sharing: Vec<_> = (0..999).map(|_| row.options.clone()).collect();
        let row_alone = {
            let before = live();
            let copy = row.clone();
            let bytes = live() - before;
            drop(copy);
            bytes
        };

        // Held as the state cache holds it: shared, the `Arc`'s counts with it.
        let held = std::sync::Arc::new(hold(row, log, how));
        let estimate = held.bytes();
        let state_copy = {
            let before = live();
            let copy = held.state.clone();
            let bytes = live() - before;
            drop(copy);
            bytes
        };
        let after = live();
        drop(held);
        let heap = after - live();
        drop(sharing);

        // The allocator's count is the heap alone; the estimate adds the struct sizes and the
        // cache's own entry, which are counted once more here.
        let counted = heap as f64 + HELD_OUTSIDE_THE_HEAP;
        let ratio = estimate as f64 / counted;
        println!(
            "{game} to {quarter}/4, {how:?}: {events} events, heap {heap} B (the row {row_alone} B, a copy of the state {state_copy} B), estimate {estimate} B: {ratio:.2}×"
        );
        if !(0.75..=1.25).contains(&ratio) {
            outside.push(format!(
                "{game} to {quarter}/4, {how:?}: estimate {estimate} B against {counted} B held"
            ));
        }
    }
    assert!(outside.is_empty(), "{outside:#?}");
}

/// What the cache's entry costs besides the game's heap: its key in two maps and the entry
/// (their own allocations, made by the cache, not here).
const HELD_OUTSIDE_THE_HEAP: f64 = 256.0;
