//! The common events every game shares (`retract`, `correct`, `abandon`), tested through the
//! public API the server uses: `Game::start`, `Game::check_append` and `Game::evaluate`.
//! Given a stored log, when a batch arrives, then this evaluation or this rejection.
//!
//! The game is Mint Condition with Ann and Bo (7 cards each per round). The three standard
//! rounds and their damage, worked out by hand from `shared/rules/mint-condition.md`:
//! - round 1: Ann 0 (2 Be Careful!, the most) + 4 (Fine Wine ×2) + 4 (Legacy Edition) + 7 (one
//!   Memories) + 0 (first Snack Fingers) = 15; Bo 3 (1 Be Careful!) + 6 (Animal Kingdom ×3) +
//!   3 (Heavy Rotation ×2) + 0 (one Autographed) = 12.
//! - round 2: Ann 5 (no Be Careful!) + 1 (Heavy Rotation ×1) + 5 (Autographed pair) + 0
//!   (Memories ×3) + 0 (Sleeve Me Up!) = 11; Bo 0 + 2 (Fine Wine) + 8 (Legacy Edition ×2) + 3
//!   (Lost Pieces) + 3 (Snack Fingers ×2) = 16.
//! - round 3: Ann 3 (1 Be Careful! < 2) + 6 + 2 + 4 + 3 = 18; Bo 0 + 7 (Memories ×2) + 5
//!   (Heavy Rotation ×3) = 12.
//!
//! Totals: Ann 15 + 11 + 18 = 44, Bo 12 + 16 + 12 = 40: Bo wins (lowest damage).

use serde_json::{Value, json};
use tabletally_domain::log::LogError;
use tabletally_domain::setup::PlayerEntry;
use tabletally_domain::{Evaluation, Game, LogEvent, NewEvent, Rejection, Status};

const GAME: Game = Game::MintCondition;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Given a new game of Ann and Bo with default options: the log holds only `game_started`.
fn started() -> Vec<LogEvent> {
    let players = ["Ann", "Bo"].map(|name| PlayerEntry {
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

fn n(count: usize, id: &str) -> Vec<Value> {
    vec![json!(id); count]
}

fn hand(groups: &[Vec<Value>]) -> Value {
    Value::Array(groups.concat())
}

fn round_collected(round: u32, ann: Value, bo: Value) -> NewEvent {
    event(
        "round_collected",
        json!({"round": round, "collections": {"Ann": ann, "Bo": bo}}),
    )
}

/// Round 1 as standard: Ann 15, Bo 12.
fn round_1() -> NewEvent {
    round_collected(1, ann_round_1(), bo_round_1())
}

fn ann_round_1() -> Value {
    hand(&[
        n(2, "be-careful"),
        n(2, "fine-wine"),
        n(1, "legacy-edition"),
        n(1, "memories"),
        n(1, "snack-fingers"),
    ])
}

fn bo_round_1() -> Value {
    hand(&[
        n(1, "be-careful"),
        n(3, "animal-kingdom"),
        n(2, "heavy-rotation"),
        n(1, "autographed"),
    ])
}

/// Round 2 as standard: Ann 11, Bo 16.
fn round_2() -> NewEvent {
    round_collected(
        2,
        hand(&[
            n(1, "heavy-rotation"),
            n(2, "autographed"),
            n(3, "memories"),
            n(1, "sleeve-me-up"),
        ]),
        hand(&[
            n(1, "be-careful"),
            n(1, "fine-wine"),
            n(2, "legacy-edition"),
            n(1, "lost-pieces"),
            n(2, "snack-fingers"),
        ]),
    )
}

/// Round 3 as standard: Ann 18, Bo 12.
fn round_3() -> NewEvent {
    round_collected(
        3,
        hand(&[
            n(1, "be-careful"),
            n(3, "animal-kingdom"),
            n(1, "fine-wine"),
            n(1, "legacy-edition"),
            n(1, "lost-pieces"),
        ]),
        hand(&[n(2, "be-careful"), n(2, "memories"), n(3, "heavy-rotation")]),
    )
}

fn retract(seq: u64) -> NewEvent {
    event("retract", json!({"seq": seq, "reason": "typo"}))
}

fn correct(seq: u64, data: Value) -> NewEvent {
    event(
        "correct",
        json!({"seq": seq, "data": data, "reason": "miscounted"}),
    )
}

fn abandon() -> NewEvent {
    event("abandon", json!({"reason": "the pizza came"}))
}

/// When `batch` is appended and accepted: the log grows by it (as the store would number it).
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

/// When `batch` is appended and refused.
fn refuse(log: &[LogEvent], batch: Vec<NewEvent>) -> Rejection {
    GAME.check_append(log, &batch)
        .expect_err("the batch should be refused")
}

/// Given the three standard rounds as events 2, 3 and 4.
fn finished_game() -> Vec<LogEvent> {
    let mut log = started();
    append(&mut log, vec![round_1(), round_2(), round_3()]);
    log
}

/// Totals in seat order (Ann, Bo).
fn totals(evaluation: &Evaluation) -> [i64; 2] {
    let total = |name: &str| {
        evaluation
            .scoreboard
            .players
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.total)
            .unwrap_or_else(|| panic!("{name} is not on the scoreboard"))
    };
    [total("Ann"), total("Bo")]
}

fn ann_rounds(evaluation: &Evaluation) -> Vec<i64> {
    let ann = evaluation
        .scoreboard
        .players
        .iter()
        .find(|p| p.name == "Ann")
        .expect("Ann is on the scoreboard");
    ann.rounds.iter().map(|r| r.points).collect()
}

// ---------------------------------------------------------------------------------------------
// The standard game itself
// ---------------------------------------------------------------------------------------------

#[test]
fn three_rounds_finish_the_game_and_the_lowest_damage_wins() {
    // Arrange / Act
    let log = finished_game();
    let evaluation = GAME.evaluate(&log).expect("the log replays");
    // Assert
    assert_eq!(evaluation.status, Status::Finished);
    assert_eq!(evaluation.version, 4);
    assert_eq!(totals(&evaluation), [44, 40]); // 15 + 11 + 18, 12 + 16 + 12
    assert_eq!(ann_rounds(&evaluation), [15, 11, 18]);
    assert_eq!(evaluation.scoreboard.winners, ["Bo"]);
}

#[test]
fn a_game_event_after_the_game_is_finished_is_refused() {
    // Arrange
    let log = finished_game();
    // Act
    let rejection = refuse(&log, vec![round_1()]);
    // Assert
    assert_eq!(rejection.event_index, 0);
    assert_eq!(rejection.pointer, "");
    assert_eq!(
        rejection.rule,
        "the game is already finished; to change it, correct or retract an earlier event"
    );
}

#[test]
fn an_unknown_event_type_is_refused_at_type() {
    let mut log = started();
    append(&mut log, vec![round_1()]);
    let rejection = refuse(&log, vec![event("round_scored", json!({"round": 2}))]);
    assert_eq!(rejection.event_index, 0);
    assert_eq!(rejection.pointer, "/type");
    assert_eq!(
        rejection.rule,
        "Mint Condition has no event \"round_scored\"; its events are round_collected, retract, \
         correct, abandon, result_recorded"
    );
}

#[test]
fn game_started_cannot_be_appended() {
    let log = started();
    let data = log[0].data.clone();
    let rejection = refuse(&log, vec![event("game_started", data)]);
    assert_eq!(rejection.pointer, "/type");
    assert_eq!(
        rejection.rule,
        "game_started is written when the game is created; it cannot be appended"
    );
}

#[test]
fn in_a_batch_with_a_bad_second_event_the_rejection_names_event_index_1() {
    // Arrange
    let log = started();
    // Act: round 3 where round 2 comes next
    let rejection = refuse(&log, vec![round_1(), round_3(), round_2()]);
    // Assert
    assert_eq!(rejection.event_index, 1);
    assert_eq!(rejection.pointer, "/data/round");
    assert_eq!(
        rejection.rule,
        "round 2 comes next; rounds are recorded in order, got round 3"
    );
}

#[test]
fn a_rule_error_inside_a_round_points_into_its_data() {
    let log = started();
    let bad = round_collected(1, json!(["fine-wine"]), bo_round_1());
    let rejection = refuse(&log, vec![bad]);
    assert_eq!(rejection.pointer, "/data/collections/Ann");
    assert_eq!(
        rejection.rule,
        "Ann collected 1 cards, but with 2 players everyone collects 7 per round \
         (switch off strict_counts to allow other sizes)"
    );
}

// ---------------------------------------------------------------------------------------------
// Scores at a version (`?at=`)
// ---------------------------------------------------------------------------------------------

#[test]
fn a_prefix_of_the_log_scores_the_game_as_it_was_then() {
    // Arrange
    let log = finished_game();
    // Act
    let after_round_1 = GAME.evaluate(&log[..2]).expect("the prefix replays");
    let after_round_2 = GAME.evaluate(&log[..3]).expect("the prefix replays");
    // Assert
    assert_eq!(after_round_1.version, 2);
    assert_eq!(after_round_1.status, Status::InProgress);
    assert_eq!(totals(&after_round_1), [15, 12]);
    assert_eq!(after_round_1.scoreboard.leaders, ["Bo"]);
    assert_eq!(after_round_2.version, 3);
    assert_eq!(totals(&after_round_2), [26, 28]); // 15 + 11, 12 + 16
    assert_eq!(after_round_2.scoreboard.leaders, ["Ann"]);
}

#[test]
fn a_prefix_before_a_retract_still_counts_the_retracted_event() {
    // Arrange: round 3 retracted by event 5
    let mut log = finished_game();
    append(&mut log, vec![retract(4)]);
    // Act
    let before = GAME.evaluate(&log[..4]).expect("the prefix replays");
    let after = GAME.evaluate(&log).expect("the log replays");
    // Assert
    assert_eq!((before.version, before.status), (4, Status::Finished));
    assert_eq!(totals(&before), [44, 40]);
    assert_eq!((after.version, after.status), (5, Status::InProgress));
    assert_eq!(totals(&after), [26, 28]);
}

#[test]
fn a_log_that_does_not_begin_with_game_started_does_not_replay() {
    let log = finished_game();
    assert_eq!(GAME.evaluate(&log[1..]), Err(LogError::NoStart));
    assert_eq!(GAME.evaluate(&[]), Err(LogError::NoStart));
}

// ---------------------------------------------------------------------------------------------
// retract
// ---------------------------------------------------------------------------------------------

#[test]
fn a_retracted_round_no_longer_counts_and_can_be_recorded_again() {
    // Arrange
    let mut log = finished_game();
    // Act
    let evaluation = append(&mut log, vec![retract(4)]);
    // Assert: rounds 1 and 2 only
    assert_eq!(evaluation.version, 5);
    assert_eq!(evaluation.status, Status::InProgress);
    assert_eq!(totals(&evaluation), [26, 28]); // 15 + 11, 12 + 16
    assert_eq!(evaluation.scoreboard.leaders, ["Ann"]);
    assert!(evaluation.scoreboard.winners.is_empty());
    // Round 3 comes next again.
    let evaluation = append(&mut log, vec![round_3()]);
    assert_eq!(evaluation.version, 6);
    assert_eq!(evaluation.status, Status::Finished);
    assert_eq!(totals(&evaluation), [44, 40]);
}

#[test]
fn a_retracted_retract_counts_again() {
    // Arrange: event 5 retracts round 3
    let mut log = finished_game();
    append(&mut log, vec![retract(4)]);
    // Act: event 6 retracts event 5
    let evaluation = append(&mut log, vec![retract(5)]);
    // Assert: round 3 is back
    assert_eq!(evaluation.version, 6);
    assert_eq!(evaluation.status, Status::Finished);
    assert_eq!(totals(&evaluation), [44, 40]);
    assert_eq!(GAME.evaluate_with_facts(&log), Ok(evaluation));
}

#[test]
fn game_started_cannot_be_retracted() {
    let mut log = started();
    append(&mut log, vec![round_1()]);
    let rejection = refuse(&log, vec![retract(1)]);
    assert_eq!(rejection.event_index, 0);
    assert_eq!(rejection.pointer, "/data/seq");
    assert_eq!(
        rejection.rule,
        "game_started (event 1) cannot be retracted; abandon the game instead"
    );
}

#[test]
fn a_retract_of_an_event_that_does_not_exist_yet_is_refused() {
    // Arrange: events 1 and 2; the retract would be event 3
    let mut log = started();
    append(&mut log, vec![round_1()]);
    for target in [7, 3, 0] {
        // Act
        let rejection = refuse(&log, vec![retract(target)]);
        // Assert
        assert_eq!(rejection.pointer, "/data/seq");
        assert_eq!(
            rejection.rule,
            format!("there is no earlier event {target} to retract; events are numbered 1 to 2")
        );
    }
}

#[test]
fn retracting_the_same_event_twice_is_refused() {
    let mut log = finished_game();
    append(&mut log, vec![retract(4)]);
    let rejection = refuse(&log, vec![retract(4)]);
    assert_eq!(rejection.pointer, "/data/seq");
    assert_eq!(rejection.rule, "event 4 is already retracted by event 5");
}

#[test]
fn a_retract_that_leaves_a_later_round_out_of_order_is_refused() {
    // Arrange
    let log = finished_game();
    // Act: without round 2 (event 3), round 3 would follow round 1
    let rejection = refuse(&log, vec![retract(3)]);
    // Assert
    assert_eq!(rejection.pointer, "/data/seq");
    assert_eq!(
        rejection.rule,
        "after this change, event 4 (round_collected) would break a rule: \
         round 2 comes next; rounds are recorded in order, got round 3"
    );
}

#[test]
fn a_retract_with_an_unknown_field_is_refused() {
    let mut log = started();
    append(&mut log, vec![round_1()]);
    let rejection = refuse(
        &log,
        vec![event("retract", json!({"seq": 2, "why": "typo"}))],
    );
    assert_eq!(rejection.pointer, "/data/why");
    assert_eq!(
        rejection.rule,
        "a retract event takes \"seq\" and \"reason\"; \"why\" is not one of its fields"
    );
}

#[test]
fn a_retract_naming_its_event_in_words_is_refused_at_seq() {
    // Given a game with round 1 as event 2
    let mut log = started();
    append(&mut log, vec![round_1()]);
    // When the retract's seq is text
    let rejection = refuse(&log, vec![event("retract", json!({"seq": "two"}))]);
    // Then the refusal names seq and what it must be
    assert_eq!(rejection.pointer, "/data/seq");
    assert_eq!(
        rejection.rule,
        "\"seq\" of a retract event must be a whole number, 0 or more; got the text \"two\""
    );
}

#[test]
fn an_abandon_with_an_unknown_field_names_the_one_it_takes() {
    let mut log = started();
    append(&mut log, vec![round_1()]);
    let rejection = refuse(&log, vec![event("abandon", json!({"because": "late"}))]);
    assert_eq!(rejection.pointer, "/data/because");
    assert_eq!(
        rejection.rule,
        "an abandon event takes \"reason\"; \"because\" is not one of its fields"
    );
}

#[test]
fn a_retract_whose_data_is_not_an_object_says_so() {
    let mut log = started();
    append(&mut log, vec![round_1()]);
    let rejection = refuse(&log, vec![event("retract", json!(2))]);
    assert_eq!(rejection.pointer, "/data");
    assert_eq!(
        rejection.rule,
        "the data of a retract event must be an object in curly braces, like { … }; \
         got the number 2"
    );
}

// ---------------------------------------------------------------------------------------------
// correct
// ---------------------------------------------------------------------------------------------

/// Round 1 with Ann's Snack Fingers read as a third Fine Wine: Ann 0 + 6 (Fine Wine ×3) + 4 +
/// 7 = 17 instead of 15. Fine Wine in the game: 3 + 1 + 1 = 5 of 6.
fn round_1_with_three_fine_wine() -> Value {
    json!({"round": 1, "collections": {
        "Ann": hand(&[n(2, "be-careful"), n(3, "fine-wine"), n(1, "legacy-edition"),
                      n(1, "memories")]),
        "Bo": bo_round_1(),
    }})
}

#[test]
fn a_correction_of_round_1_after_round_3_changes_the_score() {
    // Arrange
    let mut log = finished_game();
    // Act
    let evaluation = append(&mut log, vec![correct(2, round_1_with_three_fine_wine())]);
    // Assert
    assert_eq!(evaluation.version, 5);
    assert_eq!(evaluation.status, Status::Finished);
    assert_eq!(ann_rounds(&evaluation), [17, 11, 18]);
    assert_eq!(totals(&evaluation), [46, 40]); // 17 + 11 + 18; Bo unchanged
    assert_eq!(GAME.evaluate_with_facts(&log), Ok(evaluation));
}

#[test]
fn the_latest_correction_of_an_event_wins() {
    // Arrange: event 5 corrects round 1
    let mut log = finished_game();
    append(&mut log, vec![correct(2, round_1_with_three_fine_wine())]);
    // Act: event 6 corrects it back to what was first recorded
    let evaluation = append(&mut log, vec![correct(2, round_1().data)]);
    // Assert
    assert_eq!(ann_rounds(&evaluation), [15, 11, 18]);
    assert_eq!(totals(&evaluation), [44, 40]);
}

#[test]
fn a_retracted_correction_no_longer_counts() {
    let mut log = finished_game();
    append(&mut log, vec![correct(2, round_1_with_three_fine_wine())]);
    let evaluation = append(&mut log, vec![retract(5)]);
    assert_eq!(ann_rounds(&evaluation), [15, 11, 18]);
    assert_eq!(totals(&evaluation), [44, 40]);
}

#[test]
fn a_correction_that_makes_a_later_round_break_the_deck_limit_is_refused() {
    // Arrange
    let log = finished_game();
    // Four Legacy Edition in round 1, then Bo's 2 in round 2 and Ann's 1 in round 3: 4 + 2 + 1 = 7
    let four_legacy = json!({"round": 1, "collections": {
        "Ann": hand(&[n(2, "be-careful"), n(4, "legacy-edition"), n(1, "memories")]),
        "Bo": bo_round_1(),
    }});
    // Act
    let rejection = refuse(&log, vec![correct(2, four_legacy)]);
    // Assert: the correction is to blame, named by the event it targets
    assert_eq!(rejection.event_index, 0);
    assert_eq!(rejection.pointer, "/data/seq");
    assert_eq!(
        rejection.rule,
        "after this correction, event 4 (round_collected) would break a rule: \
         this makes 7 Legacy Edition cards collected in the game (Ann 1 in this round, 6 in \
         earlier rounds), but the box has only 6"
    );
}

#[test]
fn a_correction_whose_own_data_breaks_a_rule_points_into_that_data() {
    // Arrange
    let log = finished_game();
    let six_cards = json!({"round": 1, "collections": {
        "Ann": hand(&[n(2, "be-careful"), n(4, "fine-wine")]),
        "Bo": bo_round_1(),
    }});
    // Act
    let rejection = refuse(&log, vec![correct(2, six_cards)]);
    // Assert
    assert_eq!(rejection.pointer, "/data/data/collections/Ann");
    assert_eq!(
        rejection.rule,
        "this correction replaces event 2 (round_collected of round 1) with data that breaks a \
         rule: Ann collected 6 cards, but with 2 players everyone collects 7 per round \
         (switch off strict_counts to allow other sizes)"
    );
}

#[test]
fn a_correction_of_a_retracted_event_is_refused() {
    let mut log = finished_game();
    append(&mut log, vec![retract(4)]);
    let rejection = refuse(&log, vec![correct(4, round_3().data)]);
    assert_eq!(rejection.pointer, "/data/seq");
    assert_eq!(
        rejection.rule,
        "event 4 was retracted by event 5; there is nothing to correct"
    );
}

#[test]
fn a_correction_of_a_common_event_is_refused() {
    // Arrange: event 5 retracts round 3
    let mut log = finished_game();
    append(&mut log, vec![retract(4)]);
    // Act
    let rejection = refuse(&log, vec![correct(5, json!({"seq": 3}))]);
    // Assert
    assert_eq!(rejection.pointer, "/data/seq");
    assert_eq!(
        rejection.rule,
        "event 5 (retract) is not a game event; only game events can be corrected"
    );
}

#[test]
fn game_started_cannot_be_corrected() {
    let log = finished_game();
    let rejection = refuse(&log, vec![correct(1, json!({}))]);
    assert_eq!(rejection.pointer, "/data/seq");
    assert_eq!(
        rejection.rule,
        "game_started (event 1) cannot be corrected; start a new game instead"
    );
}

#[test]
fn a_corrected_event_can_be_retracted_and_its_correction_no_longer_counts() {
    // Arrange: event 5 corrects round 3 (same data)
    let mut log = finished_game();
    append(&mut log, vec![correct(4, round_3().data)]);
    // Act: event 6 retracts round 3 itself
    let evaluation = append(&mut log, vec![retract(4)]);
    // Assert: only rounds 1 and 2 count; the correction is moot
    assert_eq!(evaluation.status, Status::InProgress);
    assert_eq!(evaluation.scoreboard.players[0].rounds.len(), 2);
}

// ---------------------------------------------------------------------------------------------
// abandon
// ---------------------------------------------------------------------------------------------

#[test]
fn after_an_abandon_a_game_event_is_refused() {
    // Arrange: round 1, then event 3 abandons
    let mut log = started();
    append(&mut log, vec![round_1()]);
    let evaluation = append(&mut log, vec![abandon()]);
    assert_eq!(evaluation.status, Status::Abandoned);
    assert_eq!(totals(&evaluation), [15, 12]);
    // Act
    let rejection = refuse(&log, vec![round_2()]);
    // Assert
    assert_eq!(rejection.pointer, "");
    assert_eq!(
        rejection.rule,
        "the game was abandoned by event 3; retract that event to resume the game"
    );
}

#[test]
fn retracting_the_abandon_resumes_the_game() {
    // Arrange
    let mut log = started();
    append(&mut log, vec![round_1(), abandon()]);
    // Act
    let resumed = append(&mut log, vec![retract(3)]);
    let evaluation = append(&mut log, vec![round_2(), round_3()]);
    // Assert
    assert_eq!(resumed.status, Status::InProgress);
    assert_eq!(evaluation.status, Status::Finished);
    assert_eq!(evaluation.version, 6);
    assert_eq!(totals(&evaluation), [44, 40]);
}

#[test]
fn an_abandoned_game_cannot_be_abandoned_again() {
    let mut log = started();
    append(&mut log, vec![abandon()]);
    let rejection = refuse(&log, vec![abandon()]);
    assert_eq!(rejection.pointer, "");
    assert_eq!(rejection.rule, "the game was already abandoned by event 2");
}

#[test]
fn a_finished_game_abandoned_afterwards_is_abandoned() {
    let mut log = finished_game();
    let evaluation = append(&mut log, vec![abandon()]);
    assert_eq!(evaluation.status, Status::Abandoned);
    assert_eq!(totals(&evaluation), [44, 40]);
}

#[test]
fn a_correction_aimed_one_event_early_says_which_event_it_replaces_and_which_was_meant() {
    // Given rounds 1 to 3 as events 2 to 4
    let log = finished_game();
    // When round 2's record corrects event 2 (round 1)
    let rejection = refuse(&log, vec![correct(2, round_2().data)]);
    // Then the refusal speaks of the correction, not of "the next round"
    assert_eq!(rejection.pointer, "/data/data/round");
    assert_eq!(
        rejection.rule,
        "this correction replaces event 2 (round_collected of round 1) with a record of round 2, \
         which breaks a rule: round 1 comes next; rounds are recorded in order, got round 2; \
         event 3 is the round_collected of round 2 — did you mean to correct event 3?"
    );
}

#[test]
fn a_correction_without_data_is_refused() {
    let log = finished_game();
    let rejection = refuse(&log, vec![event("correct", json!({"seq": 2}))]);
    assert_eq!(rejection.pointer, "/data/data");
    assert_eq!(
        rejection.rule,
        "a correct event needs \"data\": the event that replaces the one at \"seq\""
    );
}

// ---------------------------------------------------------------------------------------------
// Winners and leaders (API.md, Scores)
// ---------------------------------------------------------------------------------------------

#[test]
fn a_game_at_its_first_event_has_no_winner_and_nobody_leads() {
    // Given a new game
    let log = started();
    // When it is scored
    let evaluation = GAME.evaluate(&log).expect("the log replays");
    // Then everyone has 0 and nobody has won or leads
    assert_eq!(totals(&evaluation), [0, 0]);
    assert!(evaluation.scoreboard.winners.is_empty());
    assert!(evaluation.scoreboard.leaders.is_empty());
    assert_eq!(evaluation.scoreboard.tiebreak, None);
}

#[test]
fn a_game_in_progress_names_who_leads_and_no_winner() {
    // Given round 1 (Ann 15, Bo 12: the lowest damage leads)
    let mut log = started();
    // When it is appended
    let evaluation = append(&mut log, vec![round_1()]);
    // Then Bo leads, and nobody has won yet
    assert_eq!(evaluation.status, Status::InProgress);
    assert_eq!(evaluation.scoreboard.leaders, ["Bo"]);
    assert!(evaluation.scoreboard.winners.is_empty());
}

#[test]
fn a_finished_game_names_its_winners_and_no_leaders() {
    // Given the three standard rounds (Ann 44, Bo 40)
    let log = finished_game();
    // When it is scored
    let evaluation = GAME.evaluate(&log).expect("the log replays");
    // Then Bo has won; nobody "leads" a finished game
    assert_eq!(evaluation.scoreboard.winners, ["Bo"]);
    assert!(evaluation.scoreboard.leaders.is_empty());
}

#[test]
fn an_abandoned_game_names_no_winner_and_no_leader_but_keeps_its_totals() {
    // Given a finished game
    let mut log = finished_game();
    // When it is abandoned
    let evaluation = append(&mut log, vec![abandon()]);
    // Then its totals stay as played, but nobody won or leads
    assert_eq!(evaluation.status, Status::Abandoned);
    assert_eq!(totals(&evaluation), [44, 40]);
    assert!(evaluation.scoreboard.winners.is_empty());
    assert!(evaluation.scoreboard.leaders.is_empty());
    assert_eq!(evaluation.scoreboard.tiebreak, None);
}

// ---------------------------------------------------------------------------------------------
// One name rule: names match ignoring case and surrounding spaces, in events too
// ---------------------------------------------------------------------------------------------

#[test]
fn an_event_may_write_a_players_name_in_another_case() {
    // Given a new game of Ann and Bo
    let mut log = started();
    // When round 1 names them "ANN" and " bo"
    let round = event(
        "round_collected",
        json!({"round": 1, "collections": {"ANN": ann_round_1(), " bo": bo_round_1()}}),
    );
    let evaluation = append(&mut log, vec![round]);
    // Then it counts for Ann and Bo as seated (15 and 12)
    assert_eq!(totals(&evaluation), [15, 12]);
}

#[test]
fn a_player_given_twice_in_two_spellings_is_refused() {
    // Given a new game of Ann and Bo
    let log = started();
    // When round 1 gives Ann as "Ann" and as "ann"
    let round = event(
        "round_collected",
        json!({"round": 1, "collections": {"Ann": ann_round_1(), "ann": ann_round_1(), "Bo": bo_round_1()}}),
    );
    let rejection = refuse(&log, vec![round]);
    // Then the second spelling is named
    assert_eq!(rejection.pointer, "/data/collections/ann");
    assert_eq!(
        rejection.rule,
        "\"Ann\" and \"ann\" are the same player (Ann): names match ignoring case, so give each \
         player once"
    );
}

#[test]
fn a_name_nobody_at_the_table_has_is_refused_with_the_players() {
    let log = started();
    let round = event(
        "round_collected",
        json!({"round": 1, "collections": {"Anne": ann_round_1(), "Bo": bo_round_1()}}),
    );
    let rejection = refuse(&log, vec![round]);
    assert_eq!(rejection.pointer, "/data/collections/Anne");
    assert_eq!(
        rejection.rule,
        "\"Anne\" does not play in this game; the players are Ann and Bo"
    );
}
