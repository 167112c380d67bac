//! `result_recorded`: a game known only by its final scores (history typed in from another
//! app). Given a new game, when its result is typed in, then the game is finished with those
//! totals, says they were not checked against the rules, and nothing else may be recorded.
//!
//! The game is Mint Condition (the lowest total wins) with Ann, Bo and Cy.

use serde_json::{Value, json};
use tabletally_domain::setup::PlayerEntry;
use tabletally_domain::{Evaluation, Game, LogEvent, NewEvent, Rejection, Status};

const GAME: Game = Game::MintCondition;

fn started() -> Vec<LogEvent> {
    let players = ["Ann", "Bo", "Cy"].map(|name| PlayerEntry {
        name: name.into(),
        color: None,
    });
    let setup = GAME.start(&players, &json!({})).expect("a valid setup");
    vec![LogEvent::new(
        1,
        "game_started",
        json!({"players": setup.players, "options": setup.options}),
    )]
}

fn event(event_type: &str, data: Value) -> NewEvent {
    NewEvent {
        event_type: event_type.into(),
        data,
    }
}

fn typed_in(totals: Value, winners: Value) -> NewEvent {
    event(
        "result_recorded",
        json!({"totals": totals, "winners": winners, "source": "BG Stats"}),
    )
}

fn append(log: &mut Vec<LogEvent>, batch: Vec<NewEvent>) -> Evaluation {
    let evaluation = GAME
        .check_append(log, &batch)
        .unwrap_or_else(|r| panic!("the batch should be accepted: {r}"));
    for new in batch {
        let seq = log.len() as u64 + 1;
        log.push(LogEvent::new(seq, new.event_type, new.data));
    }
    evaluation
}

fn refuse(log: &[LogEvent], batch: Vec<NewEvent>) -> (String, String) {
    let Rejection { pointer, rule, .. } = GAME
        .check_append(log, &batch)
        .expect_err("the batch should be refused");
    (pointer, rule)
}

/// `(name, total, rank)` best first.
fn ranking(evaluation: &Evaluation) -> Vec<(&str, i64, u32)> {
    evaluation
        .scoreboard
        .players
        .iter()
        .map(|p| (p.name.as_str(), p.total, p.rank))
        .collect()
}

fn round_1() -> NewEvent {
    let nine = |card: &str| vec![json!(card); 9];
    event(
        "round_collected",
        json!({"round": 1, "collections": {
            "Ann": nine("memories"), "Bo": nine("heavy-rotation"), "Cy": nine("be-careful")}}),
    )
}

#[test]
fn a_typed_in_result_finishes_the_game_with_its_totals_and_winners() {
    let mut log = started();

    let evaluation = append(
        &mut log,
        vec![typed_in(
            json!({"Ann": 31, "Bo": 40, "Cy": 25}),
            json!(["Ann"]),
        )],
    );

    // The winners are as typed in (not checked: Cy's 25 is lower); the others follow by their
    // totals in the game's direction, lowest first.
    assert_eq!(evaluation.status, Status::Finished);
    assert_eq!(
        ranking(&evaluation),
        vec![("Ann", 31, 1), ("Cy", 25, 2), ("Bo", 40, 3)]
    );
    let board = &evaluation.scoreboard;
    assert_eq!(board.winners, ["Ann"]);
    assert!(board.lower_wins);
    let ann = &board.players[0];
    assert!(ann.rounds.is_empty());
    assert_eq!(ann.adjustments[0].label, "Total typed in");
    assert_eq!(ann.adjustments[0].points, 31);
    assert_eq!(
        ann.adjustments[0].detail,
        "recorded with result_recorded (event 2) from BG Stats; not checked against the rules"
    );
    assert_eq!(
        board.details,
        Some(json!({"result_recorded": {"event": 2, "source": "BG Stats",
            "checked_against_rules": false,
            "note": "the totals were typed in and not checked against the rules"}}))
    );
    // Statistics: no rule-aware facts, only the mark with its three seats.
    let facts: Vec<(Option<&str>, &str, i64)> = evaluation
        .facts
        .iter()
        .map(|f| (f.player.as_deref(), f.key.as_str(), f.value))
        .collect();
    assert_eq!(facts, vec![(None, "result_recorded", 3)]);
}

#[test]
fn a_shared_win_ranks_every_typed_in_winner_first() {
    let mut log = started();

    let evaluation = append(
        &mut log,
        vec![typed_in(
            json!({"Ann": 30, "Bo": 30, "Cy": 12}),
            json!(["Bo", "Ann"]),
        )],
    );

    assert_eq!(
        ranking(&evaluation),
        vec![("Ann", 30, 1), ("Bo", 30, 1), ("Cy", 12, 3)]
    );
    assert_eq!(evaluation.scoreboard.winners, ["Ann", "Bo"]);
}

#[test]
fn no_game_event_may_follow_a_typed_in_result() {
    let mut log = started();
    append(
        &mut log,
        vec![typed_in(
            json!({"Ann": 31, "Bo": 40, "Cy": 25}),
            json!(["Ann"]),
        )],
    );

    assert_eq!(
        refuse(&log, vec![round_1()]),
        (
            "".into(),
            "this game's final scores were typed in by event 2 (result_recorded), so no game \
             event can follow; retract it to record the game event by event"
                .into()
        )
    );
    assert_eq!(
        refuse(
            &log,
            vec![typed_in(
                json!({"Ann": 1, "Bo": 2, "Cy": 3}),
                json!(["Ann"])
            )]
        )
        .1,
        "this game's final scores were typed in by event 2 (result_recorded), so no game event \
         can follow; retract it to record the game event by event"
    );
}

#[test]
fn a_typed_in_result_may_not_follow_a_game_event() {
    let mut log = started();
    append(&mut log, vec![round_1()]);

    assert_eq!(
        refuse(
            &log,
            vec![typed_in(
                json!({"Ann": 31, "Bo": 40, "Cy": 25}),
                json!(["Ann"])
            )]
        ),
        (
            "/type".into(),
            "result_recorded is for a game known only by its final scores, right after \
             game_started; this game already has game events (event 2): record its end with \
             them, or retract them first"
                .into()
        )
    );
}

#[test]
fn a_typed_in_result_names_every_player_and_at_least_one_winner() {
    let log = started();
    let cases = [
        (
            json!({"Ann": 31, "Bo": 40, "Di": 25}),
            json!(["Ann"]),
            "/data/totals/Di",
            "Di is not a player of this game; its players are Ann, Bo and Cy",
        ),
        (
            json!({"Ann": 31, "Bo": 40}),
            json!(["Ann"]),
            "/data/totals",
            "Cy's total is missing: every player needs one",
        ),
        (
            json!({"Ann": 31, "Bo": "40", "Cy": 25}),
            json!(["Ann"]),
            "/data/totals/Bo",
            "Bo's total must be a whole number",
        ),
        (
            json!({"Ann": 31, "Bo": 40, "Cy": 25}),
            json!([]),
            "/data/winners",
            "name at least one winner (several for a shared win)",
        ),
        (
            json!({"Ann": 31, "Bo": 40, "Cy": 25}),
            json!(["Ann", "Ann"]),
            "/data/winners/1",
            "Ann is named twice",
        ),
        (
            json!({"Ann": 31, "Bo": 40, "Cy": 25}),
            json!(["Zoe"]),
            "/data/winners/0",
            "Zoe is not a player of this game; its players are Ann, Bo and Cy",
        ),
    ];
    for (totals, winners, pointer, rule) in cases {
        assert_eq!(
            refuse(&log, vec![typed_in(totals, winners)]),
            (pointer.into(), rule.into())
        );
    }
}

#[test]
fn a_typed_in_result_matches_names_as_a_table_does_ignoring_spaces_around_and_case() {
    // Given Ann, Bo and Cy seated, when a file's result names them "Ann ", "bo" and " CY "
    // (real BG Stats files keep trailing spaces), then each total is the seated player's.
    let mut log = started();

    let evaluation = append(
        &mut log,
        vec![typed_in(
            json!({"Ann ": 31, "bo": 40, " CY ": 25}),
            json!(["ann "]),
        )],
    );

    assert_eq!(
        ranking(&evaluation),
        vec![("Ann", 31, 1), ("Cy", 25, 2), ("Bo", 40, 3)]
    );
    assert_eq!(evaluation.scoreboard.winners, ["Ann"]);
    assert!(evaluation.in_statistics);
}

#[test]
fn one_player_given_two_totals_under_two_spellings_is_refused() {
    let log = started();

    let refused = refuse(
        &log,
        vec![typed_in(
            json!({"Ann": 31, "ann ": 30, "Bo": 40, "Cy": 25}),
            json!(["Ann"]),
        )],
    );

    // serde_json keeps the keys in sorted order: "Ann" comes before "ann ".
    assert_eq!(
        refused,
        (
            "/data/totals/ann ".into(),
            "Ann's total is given twice".into()
        )
    );
    // The same winner under two spellings is one winner named twice.
    let refused = refuse(
        &log,
        vec![typed_in(
            json!({"Ann": 31, "Bo": 40, "Cy": 25}),
            json!(["Ann", "ANN"]),
        )],
    );
    assert_eq!(
        refused,
        ("/data/winners/1".into(), "Ann is named twice".into())
    );
}

#[test]
fn a_typed_in_result_kept_out_of_the_statistics_is_finished_and_says_so() {
    // Given a play its app keeps out of win statistics (BoardGameGeek's nowinstats)
    let mut log = started();

    let evaluation = append(
        &mut log,
        vec![event(
            "result_recorded",
            json!({"totals": {"Ann": 31, "Bo": 40, "Cy": 25}, "winners": ["Ann"],
                   "source": "BoardGameGeek", "in_statistics": false}),
        )],
    );

    // Then the game is finished and scored as typed in, and the statistics leave it out.
    assert_eq!(evaluation.status, Status::Finished);
    assert_eq!(evaluation.scoreboard.winners, ["Ann"]);
    assert!(!evaluation.in_statistics);
    assert_eq!(
        evaluation.scoreboard.details.as_ref().unwrap()["result_recorded"]["in_statistics"],
        json!(false)
    );
    // A result counted says nothing of it.
    let mut counted = started();
    let evaluation = append(
        &mut counted,
        vec![typed_in(
            json!({"Ann": 31, "Bo": 40, "Cy": 25}),
            json!(["Ann"]),
        )],
    );
    assert!(evaluation.in_statistics);
    assert!(
        evaluation.scoreboard.details.as_ref().unwrap()["result_recorded"]
            .get("in_statistics")
            .is_none()
    );
}

#[test]
fn a_typed_in_result_of_the_wrong_shape_names_the_field_in_words() {
    let log = started();
    // Without winners
    assert_eq!(
        refuse(
            &log,
            vec![event("result_recorded", json!({"totals": {"Ann": 31}}))]
        ),
        (
            "/data/winners".into(),
            "a result_recorded event needs \"winners\": the names of the winners".into()
        )
    );
    // With a winner given as a seat number
    assert_eq!(
        refuse(&log, vec![typed_in(json!({"Ann": 31}), json!([1]))]),
        (
            "/data/winners".into(),
            "\"winners\" of a result_recorded event has a value that must be text in quotes, \
             like \"Ann\"; got the number 1"
                .into()
        )
    );
}

#[test]
fn a_typed_in_result_can_be_corrected_or_retracted() {
    let mut log = started();
    append(
        &mut log,
        vec![typed_in(
            json!({"Ann": 31, "Bo": 40, "Cy": 25}),
            json!(["Ann"]),
        )],
    );

    let corrected = append(
        &mut log,
        vec![event(
            "correct",
            json!({"seq": 2, "data": {"totals": {"Ann": 31, "Bo": 40, "Cy": 20},
                   "winners": ["Cy"]}, "reason": "typo"}),
        )],
    );
    assert_eq!(
        ranking(&corrected),
        vec![("Cy", 20, 1), ("Ann", 31, 2), ("Bo", 40, 3)]
    );

    // Retracted, the game is in progress again and can be recorded round by round.
    let retracted = append(&mut log, vec![event("retract", json!({"seq": 2}))]);
    assert_eq!(retracted.status, Status::InProgress);
    assert_eq!(append(&mut log, vec![round_1()]).status, Status::InProgress);
}

#[test]
fn a_total_beyond_a_million_points_either_way_is_refused() {
    // Given a new game
    let log = started();

    // When a total of more than a million points is typed in, or less than minus a million
    let too_high = refuse(
        &log,
        vec![typed_in(
            json!({"Ann": 1_000_001, "Bo": 2, "Cy": 3}),
            json!(["Bo"]),
        )],
    );
    let too_low = refuse(
        &log,
        vec![typed_in(
            json!({"Ann": 1, "Bo": -4_611_686_018_427_387_904_i64, "Cy": 3}),
            json!(["Bo"]),
        )],
    );

    // Then each is refused at its total; a million itself is a total like any other
    assert_eq!(
        too_high,
        (
            "/data/totals/Ann".into(),
            "Ann's total must be between -1000000 and 1000000, not 1000001".into()
        )
    );
    assert_eq!(too_low.0, "/data/totals/Bo");
    let mut log = log;
    let at_the_limit = append(
        &mut log,
        vec![typed_in(
            json!({"Ann": 1_000_000, "Bo": -1_000_000, "Cy": 0}),
            json!(["Bo"]),
        )],
    );
    assert_eq!(at_the_limit.status, Status::Finished);
}
