//! Stored games keep their scores: a game's log replays as it was scored when it was stored,
//! whatever options were added since. Given a log stored at some schema version, when it is
//! replayed, then it scores with the options that game was played with
//! (`docs/schema-versions.md`).

use serde_json::{Value, json};
use tabletally_domain::games::MintCondition;
use tabletally_domain::log::{SCHEMA_VERSION, upcast};
use tabletally_domain::setup::PlayerEntry;
use tabletally_domain::{Evaluation, Game, LogEvent, NewEvent, Scoreboard};

const GAME: Game = Game::MintCondition;

/// `game_started` of a Mint Condition game exactly as the server wrote it at schema version 1:
/// the effective options of that version (no `protected_be_careful`), the seats with their club
/// player ids, and the start time.
fn game_started_at_version_1() -> LogEvent {
    LogEvent {
        seq: 1,
        event_type: "game_started".into(),
        data: json!({
            "game": "mint-condition",
            "players": [
                {"name": "Ann", "player_id": "0b7d4c1e-5f3a-4b8e-9a61-2c5d7e8f9a10", "seat": 1, "color": null},
                {"name": "Bo", "player_id": "6e2f8a3b-1c4d-4e5f-8a7b-9c0d1e2f3a4b", "seat": 2, "color": null}
            ],
            "options": {"lucky": false, "heavily_used": false, "expert_cards": false,
                        "strict_counts": true, "be_careful_when_none": "five",
                        "memories_over_three": "free", "sleeve_protects": 1,
                        "smoking_kills": null, "tiebreak_scope": "game"},
            "started_at": "2026-11-30T19:00:00Z"
        }),
        schema_version: 1,
    }
}

/// The same game started today: its options as `Game::start` fills them in.
fn game_started_today() -> LogEvent {
    let players = ["Ann", "Bo"].map(|name| PlayerEntry {
        name: name.into(),
        color: None,
    });
    let setup = GAME.start(&players, &json!({})).expect("a valid setup");
    LogEvent::new(
        1,
        "game_started",
        json!({"game": "mint-condition", "players": setup.players, "options": setup.options}),
    )
}

/// Three rounds of two players (7 cards each). In rounds 1 and 3 Ann's only Be Careful! is
/// protected by her Sleeve Me Up!.
///
/// Round 1: Ann Fine Wine ×2 4 + Legacy Edition 4 + Heavy Rotation ×1 1 + Lost Pieces 3 = 12;
///   Bo Animal Kingdom ×3 6 + Autographed ×2 5 + Snack Fingers ×1 0 = 11.
///   Be Careful! counted: Ann 1 and Bo 1, tied → 0 each; ignored: Ann none → 5, Bo 0.
/// Round 2: Ann Memories ×3 0 + Snack Fingers ×2 3 = 3; Bo Heavy Rotation ×4 0 + Autographed
///   ×2 5 = 5. Be Careful! Ann 2, Bo 1 → Ann 0, Bo 3.
/// Round 3: Ann Animal Kingdom ×3 6 + Memories ×1 7 + Heavy Rotation ×1 1 = 14; Bo Heavy
///   Rotation ×4 0 + Memories ×2 7 + Fine Wine 2 = 9.
///   Be Careful! counted: Ann 1, the most → 0, Bo none → 5; ignored: nobody holds one → 5 each.
fn rounds() -> [Value; 3] {
    let protected = json!({"card": "be-careful", "protected": true});
    [
        json!({"round": 1, "collections": {
            "Ann": ["sleeve-me-up", protected, "fine-wine", "fine-wine", "legacy-edition",
                    "heavy-rotation", "lost-pieces"],
            "Bo": ["be-careful", "animal-kingdom", "animal-kingdom", "animal-kingdom",
                   "autographed", "autographed", "snack-fingers"]}}),
        json!({"round": 2, "collections": {
            "Ann": ["be-careful", "be-careful", "memories", "memories", "memories",
                    "snack-fingers", "snack-fingers"],
            "Bo": ["be-careful", "heavy-rotation", "heavy-rotation", "heavy-rotation",
                   "heavy-rotation", "autographed", "autographed"]}}),
        json!({"round": 3, "collections": {
            "Ann": ["sleeve-me-up", protected, "animal-kingdom", "animal-kingdom",
                    "animal-kingdom", "memories", "heavy-rotation"],
            "Bo": ["heavy-rotation", "heavy-rotation", "heavy-rotation", "heavy-rotation",
                   "memories", "memories", "fine-wine"]}}),
    ]
}

/// A whole stored log: `game_started`, then the three rounds at `schema_version`.
fn stored_game(started: LogEvent, schema_version: u32) -> Vec<LogEvent> {
    let mut log = vec![started];
    for (i, round) in rounds().into_iter().enumerate() {
        log.push(LogEvent {
            seq: i as u64 + 2,
            event_type: "round_collected".into(),
            data: round,
            schema_version,
        });
    }
    log
}

fn totals(board: &Scoreboard) -> Vec<(&str, i64)> {
    board
        .players
        .iter()
        .map(|p| (p.name.as_str(), p.total))
        .collect()
}

fn round_points(board: &Scoreboard, name: &str) -> Vec<i64> {
    let player = board.players.iter().find(|p| p.name == name).unwrap();
    player.rounds.iter().map(|r| r.points).collect()
}

fn house_rule(board: &Scoreboard, option: &str) -> (Value, bool) {
    let rule = board
        .house_rules
        .iter()
        .find(|h| h.option == option)
        .unwrap_or_else(|| panic!("{option} is not among the house rules"));
    (rule.value.clone(), rule.default)
}

fn replay(log: &[LogEvent]) -> Evaluation {
    GAME.evaluate(log).expect("the stored log replays")
}

#[test]
fn events_are_written_at_schema_version_6() {
    assert_eq!(SCHEMA_VERSION, 6);
    assert_eq!(
        LogEvent::new(2, "abandon", json!({})).schema_version,
        SCHEMA_VERSION
    );
}

#[test]
fn a_game_started_at_schema_version_1_replays_with_protected_be_careful_ignored() {
    // Given a game stored by the server before protected_be_careful existed
    let log = stored_game(game_started_at_version_1(), 1);

    // When it is replayed
    let board = replay(&log).scoreboard;

    // Then Ann's protected Be Careful! is left out, as it was then:
    // Ann 17 + 3 + 19 = 39, Bo 11 + 8 + 14 = 33 → Bo wins
    assert_eq!(round_points(&board, "Ann"), [17, 3, 19]);
    assert_eq!(round_points(&board, "Bo"), [11, 8, 14]);
    assert_eq!(totals(&board), [("Bo", 33), ("Ann", 39)]);
    assert_eq!(board.winners, ["Bo"]);
    assert_eq!(
        house_rule(&board, "protected_be_careful"),
        (json!("ignored"), false)
    );
}

#[test]
fn a_game_started_today_stores_protected_be_careful_counts_and_scores_with_it() {
    // Given the same game started today
    let started = game_started_today();
    assert_eq!(
        started.data["options"]["protected_be_careful"],
        json!("counts")
    );
    let log = stored_game(started, SCHEMA_VERSION);

    // When it is replayed
    let board = replay(&log).scoreboard;

    // Then Ann's protected Be Careful! counts toward the majority:
    // Ann 12 + 3 + 14 = 29, Bo 11 + 8 + 14 = 33 → Ann wins
    assert_eq!(round_points(&board, "Ann"), [12, 3, 14]);
    assert_eq!(round_points(&board, "Bo"), [11, 8, 14]);
    assert_eq!(totals(&board), [("Ann", 29), ("Bo", 33)]);
    assert_eq!(board.winners, ["Ann"]);
    assert_eq!(
        house_rule(&board, "protected_be_careful"),
        (json!("counts"), true)
    );
}

#[test]
fn rounds_recorded_after_the_upgrade_keep_the_options_the_game_started_with() {
    // Given a game started at schema version 1, its rounds not yet recorded
    let log = vec![game_started_at_version_1()];
    let batch: Vec<NewEvent> = rounds()
        .into_iter()
        .map(|data| NewEvent {
            event_type: "round_collected".into(),
            data,
        })
        .collect();

    // When today's server appends them (at schema version 2)
    let evaluation = GAME
        .check_append(&log, &batch)
        .expect("the rounds are accepted");

    // Then the game is still scored with "ignored": Ann 39, Bo 33
    assert_eq!(totals(&evaluation.scoreboard), [("Bo", 33), ("Ann", 39)]);
}

#[test]
fn the_upcast_fills_in_only_what_a_version_1_game_started_lacks() {
    let options_of = |event_type: &str, schema_version: u32, options: Value| {
        let mut data = json!({"players": [], "options": options});
        upcast::<MintCondition>(event_type, schema_version, &mut data);
        data["options"].clone()
    };
    // Version 1 without the option: the value those games were played with
    assert_eq!(
        options_of("game_started", 1, json!({"lucky": true})),
        json!({"lucky": true, "protected_be_careful": "ignored"})
    );
    // An option already stored is never overwritten
    assert_eq!(
        options_of("game_started", 1, json!({"protected_be_careful": "counts"})),
        json!({"protected_be_careful": "counts"})
    );
    // Version 2 data is today's: nothing to add
    assert_eq!(
        options_of("game_started", 2, json!({"lucky": true})),
        json!({"lucky": true})
    );
    // Only game_started carries options
    let mut round = json!({"round": 1, "options": {}});
    upcast::<MintCondition>("round_collected", 1, &mut round);
    assert_eq!(round, json!({"round": 1, "options": {}}));
}
