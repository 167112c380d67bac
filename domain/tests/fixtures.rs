//! The benchmark fixtures (`benches/fixtures/<game-id>.json`) are finished games that replay
//! without error; the Mint Condition one also scores as worked out by hand.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tabletally_domain::{Evaluation, Game, LogEvent, Status};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/fixtures")
}

/// The schema version a fixture row was stored with. The fixtures were recorded at version 1,
/// before their rows carried one, so a row without it is version 1.
fn stored_schema_version(event: &Value) -> u32 {
    event["schema_version"]
        .as_u64()
        .map_or(1, |v| u32::try_from(v).expect("a schema version"))
}

/// Reads a fixture the way the benchmark does and replays it.
fn evaluate(path: &Path) -> Evaluation {
    let id = path
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("a UTF-8 file name");
    let game = Game::from_id(id)
        .unwrap_or_else(|| panic!("fixture {}: no game with id {id:?}", path.display()));
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let events: Vec<Value> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if let Some(named) = events.first().and_then(|e| e["data"]["game"].as_str()) {
        assert_eq!(
            named,
            id,
            "fixture {}: game_started names another game",
            path.display()
        );
    }
    let log: Vec<LogEvent> = events
        .iter()
        .map(|e| LogEvent {
            seq: e["seq"].as_u64().expect("a numeric seq"),
            event_type: e["type"].as_str().expect("a type").to_owned(),
            // Through JSON text, as the database stores it.
            data: serde_json::from_str(&e["data"].to_string()).expect("data is JSON"),
            schema_version: stored_schema_version(e),
        })
        .collect();
    game.evaluate(&log)
        .unwrap_or_else(|e| panic!("fixture {} does not replay: {e}", path.display()))
}

#[test]
fn every_fixture_replays_to_a_finished_game() {
    let mut paths: Vec<PathBuf> = fs::read_dir(fixtures_dir())
        .expect("the fixtures folder")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no fixtures found");
    for path in &paths {
        let evaluation = evaluate(path);
        assert_eq!(
            evaluation.status,
            Status::Finished,
            "fixture {} is not finished",
            path.display()
        );
    }
}

// Five players, Lucky on (Ann red, Bo blue, Cy green, Di yellow, Ed purple), other options at
// the defaults of schema version 1, when the game was stored: its options have no
// `protected_be_careful`, so it replays with "ignored", as it was scored then. Be Careful!
// first (most → 0, fewer → 3, none → 5; protected ones don't count):
//
// - round 1 (Be Careful! Ann 1, Bo 2, Cy 0, Di 2, Ed 0):
//   Ann 3 + 6 (Animal Kingdom ×3) + 2 (Fine Wine) + 1 (Heavy Rotation ×1) = 12;
//   Bo 0 + 5 (Autographed pair) + 7 (Memories ×1) + 4 (Legacy Edition) = 16;
//   Cy 5 + 0 (Memories ×3) + 3 (Heavy Rotation ×2) + 0 (first Snack Fingers) = 8;
//   Di 0 + 0 (Sleeve Me Up!, protecting its Legacy Edition) + 3 (Lost Pieces)
//     + 0 (Animal Kingdom ×1) = 3;
//   Ed 5 + 5 (Heavy Rotation ×3) + 3 (Snack Fingers ×2) + 0 (Autographed ×1) = 13.
// - round 2 (Be Careful! Ann 1, Bo 0, Cy 3, Di 0, Ed 1):
//   Ann 3 + 7 (Memories ×2) + 5 (Autographed ×3: one pair) = 15;
//   Bo 5 + 6 (Animal Kingdom ×4: one set) + 1 (Heavy Rotation ×1) + 2 (Fine Wine) = 14;
//   Cy 0 + 4 (Legacy Edition) + 0 (Sleeve Me Up!, protecting its Fine Wine) = 4;
//   Di 5 + 1 (Heavy Rotation ×5) + 7 (Memories ×1) = 13;
//   Ed 3 + 3 (Lost Pieces) + 3 (Snack Fingers ×2) + 7 (Memories ×1) + 0 (Animal Kingdom ×1) = 16.
// - round 3 (Be Careful! Ann 0, Bo 2, Cy 0, Di 0 (its one is protected), Ed 2):
//   Ann 5 + 4 (Legacy Edition) + 3 (Lost Pieces) + 6 (Snack Fingers ×3) + 1 (Heavy Rotation) = 19;
//   Bo 0 + 0 (Memories ×3) + 0 (first Snack Fingers) = 0;
//   Cy 5 + 6 (Animal Kingdom ×3) + 5 (Autographed pair) + 1 (Heavy Rotation) = 17;
//   Di 5 + 4 (Fine Wine ×2) + 5 (Autographed pair) + 0 (Sleeve Me Up!) = 14;
//   Ed 0 + 2 (Fine Wine) + 4 (Legacy Edition) + 1 (Heavy Rotation) + 7 (Memories ×1) = 14.
//
// Damage, then Lucky (cards showing the player's colour or rainbow, protected ones included):
// - Ann 12 + 15 + 19 = 46, Lucky 3 (red, rainbow, red) → 43
// - Bo 16 + 14 + 0 = 30, Lucky 2 (blue, blue) → 28
// - Cy 8 + 4 + 17 = 29, Lucky 4 (green, rainbow, green protected, green) → 25
// - Di 3 + 13 + 14 = 30, Lucky 1 (yellow) → 29
// - Ed 13 + 16 + 14 = 43, Lucky 3 (purple ×3) → 40
//
// Lowest wins: Cy.
#[test]
fn the_mint_condition_fixture_scores_as_worked_out_by_hand() {
    let evaluation = evaluate(&fixtures_dir().join("mint-condition.json"));
    assert_eq!(evaluation.status, Status::Finished);
    let board = evaluation.scoreboard;
    let mut totals: Vec<(&str, i64)> = board
        .players
        .iter()
        .map(|p| (p.name.as_str(), p.total))
        .collect();
    totals.sort_by_key(|(name, _)| *name);
    assert_eq!(
        totals,
        vec![("Ann", 43), ("Bo", 28), ("Cy", 25), ("Di", 29), ("Ed", 40)]
    );
    let damage: Vec<(&str, Vec<i64>)> = {
        let mut d: Vec<_> = board
            .players
            .iter()
            .map(|p| (p.name.as_str(), p.rounds.iter().map(|r| r.points).collect()))
            .collect();
        d.sort_by_key(|(name, _)| *name);
        d
    };
    assert_eq!(
        damage,
        vec![
            ("Ann", vec![12, 15, 19]),
            ("Bo", vec![16, 14, 0]),
            ("Cy", vec![8, 4, 17]),
            ("Di", vec![3, 13, 14]),
            ("Ed", vec![13, 16, 14]),
        ]
    );
    assert_eq!(board.winners, vec!["Cy"]);
    assert!(board.tiebreak.is_none());
}
