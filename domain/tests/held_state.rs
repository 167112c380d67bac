//! A held state continues a game exactly as replaying its whole log would: the server's state
//! cache relies on it. Checked on every benchmark fixture (finished games of the four games).

use std::fs;
use std::path::Path;

use serde_json::{Value, json};
use tabletally_domain::log::COMMON_EVENT_TYPES;
use tabletally_domain::{Game, GameState, LogEvent, NewEvent, Status};

fn fixture(game: Game) -> Vec<LogEvent> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/fixtures")
        .join(format!("{}.json", game.id()));
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let events: Vec<Value> = serde_json::from_str(&text).expect("a JSON array of events");
    events
        .iter()
        .map(|e| LogEvent {
            seq: e["seq"].as_u64().expect("a seq"),
            event_type: e["type"].as_str().expect("a type").to_owned(),
            data: e["data"].clone(),
            schema_version: e["schema_version"].as_u64().map_or(1, |v| v as u32),
        })
        .collect()
}

fn new_event(event: &LogEvent) -> NewEvent {
    NewEvent {
        event_type: event.event_type.clone(),
        data: event.data.clone(),
    }
}

#[test]
fn a_state_without_its_log_continues_plain_events_and_asks_for_it_for_the_others() {
    for game in Game::ALL {
        let log = fixture(game);
        let mut whole = game.replay(log[..1].to_vec()).expect("the start replays");
        let mut held = whole.clone();
        held.let_go_of_log();
        for event in &log[1..] {
            let batch = [new_event(event)];
            if held.needs_log(&batch) {
                assert!(COMMON_EVENT_TYPES.contains(&event.event_type.as_str()));
                let refused = held.append(&batch).unwrap_err();
                assert_eq!(refused.event_index, 0);
                assert_eq!(held.evaluation(true), whole.evaluation(true));
                whole.append(&batch).expect("the fixture's next event");
                // What the server does: the log read again and replayed whole, then let go.
                held = whole.clone();
                held.let_go_of_log();
            } else {
                assert_eq!(
                    held.append(&batch).expect("a plain event"),
                    whole.append(&batch).expect("the same event"),
                    "{} event {}",
                    game.id(),
                    event.seq
                );
            }
        }
        assert!(held.log().is_none());
        assert_eq!(held.evaluation(true), whole.evaluation(true));
        assert_eq!(held.version(), log.len() as u64);
    }
}

#[test]
fn appending_to_a_held_state_ends_where_replaying_the_whole_log_ends() {
    for game in Game::ALL {
        let log = fixture(game);
        let whole = game.evaluate_with_facts(&log).expect("the fixture replays");
        assert_eq!(whole.status, Status::Finished, "{}", game.id());
        for split in 1..log.len() {
            let mut state = game
                .replay(log[..split].to_vec())
                .expect("a prefix replays");
            let mut last = None;
            for event in &log[split..] {
                last = Some(
                    state
                        .append(&[new_event(event)])
                        .unwrap_or_else(|r| panic!("{} event {}: {r}", game.id(), event.seq)),
                );
            }
            assert_eq!(last.as_ref(), Some(&whole), "{} held at {split}", game.id());
            assert_eq!(state.version(), log.len() as u64);
            assert_eq!(state.evaluation(true), whole);
        }
    }
}

#[test]
fn a_refused_batch_leaves_the_held_state_as_it_was() {
    for game in Game::ALL {
        let log = fixture(game);
        let middle = log.len() / 2;
        let mut state = game
            .replay(log[..middle].to_vec())
            .expect("a prefix replays");
        let before = state.evaluation(true);
        // The first event is good, the second is not: the batch is refused whole.
        let batch = [
            new_event(&log[middle]),
            NewEvent {
                event_type: "no_such_event".into(),
                data: json!({}),
            },
        ];

        let refused = state.append(&batch).unwrap_err();

        assert_eq!(refused.event_index, 1, "{}", game.id());
        assert_eq!(refused.pointer, "/type");
        assert_eq!(state.version(), middle as u64);
        assert_eq!(state.log().map(<[_]>::len), Some(middle));
        assert_eq!(state.evaluation(true), before);
        // And the state still takes the good event.
        let after = state.append(&batch[..1]).expect("the good event alone");
        assert_eq!(after.version, middle as u64 + 1);
    }
}

#[test]
fn a_retract_appended_to_a_held_state_counts_as_in_a_whole_replay() {
    for game in Game::ALL {
        let mut log = fixture(game);
        log.truncate(3);
        let retract = LogEvent::new(4, "retract", json!({"seq": 3, "reason": "typo"}));
        let mut whole_log = log.clone();
        whole_log.push(retract.clone());
        let whole = game
            .evaluate_with_facts(&whole_log)
            .expect("the retract replays");
        let mut state: GameState = game.replay(log).expect("a prefix replays");

        let held = state
            .append(&[new_event(&retract)])
            .expect("the retract is accepted");

        assert_eq!(held, whole, "{}", game.id());
        assert_eq!(held.version, 4);
    }
}

/// A held state replayed from `prefix`, and the log it holds (what `append_and_compare` extends).
fn held_from(game: Game, prefix: &[LogEvent]) -> (Vec<LogEvent>, GameState) {
    let state = game.replay(prefix.to_vec()).expect("a prefix replays");
    (prefix.to_vec(), state)
}

/// Appends `event` to both the held state and `log`, and checks the held answer against a
/// whole replay of the log.
fn append_and_compare(game: Game, state: &mut GameState, log: &mut Vec<LogEvent>, event: LogEvent) {
    log.push(event.clone());
    let whole = game.evaluate_with_facts(log);
    let held = state.append(&[new_event(&event)]);
    match (held, whole) {
        (Ok(held), Ok(whole)) => {
            assert_eq!(held, whole, "{} after seq {}", game.id(), event.seq);
            assert_eq!(state.evaluation(true), whole);
        }
        (held, whole) => panic!(
            "{} seq {}: held {:?}, whole replay {:?}",
            game.id(),
            event.seq,
            held.map(|e| e.version),
            whole.map(|e| e.version)
        ),
    }
    assert_eq!(state.version(), log.len() as u64);
}

/// A fixture's event as event `seq` of another log.
fn renumbered(seq: u64, event: &LogEvent) -> LogEvent {
    LogEvent::new(seq, event.event_type.clone(), event.data.clone())
}

fn retract(seq: u64, target: u64) -> LogEvent {
    LogEvent::new(seq, "retract", json!({"seq": target, "reason": "undo"}))
}

#[test]
fn undoing_the_last_event_again_and_again_counts_as_in_a_whole_replay() {
    for game in Game::ALL {
        let fixture = fixture(game);
        for split in 1..fixture.len() {
            let (mut log, mut state) = held_from(game, &fixture[..split]);
            let in_force = state.game_events();
            // The next event, its undo, the undo of the undo, … and the game goes on.
            append_and_compare(game, &mut state, &mut log, fixture[split].clone());
            for undo in 0..4 {
                let seq = log.len() as u64 + 1;
                append_and_compare(game, &mut state, &mut log, retract(seq, seq - 1));
                // What the state holds (its size, as estimated) does not grow with undos.
                if undo == 0 && fixture[split].event_type != "retract" {
                    assert_eq!(state.game_events(), in_force, "{} at {split}", game.id());
                }
            }
            if let Some(next) = fixture.get(split + 1) {
                let seq = log.len() as u64 + 1;
                let event = renumbered(seq, next);
                append_and_compare(game, &mut state, &mut log, event);
            }
        }
    }
}

#[test]
fn undoing_an_abandon_or_a_correction_counts_as_in_a_whole_replay() {
    for game in Game::ALL {
        let (mut log, mut state) = held_from(game, &fixture(game)[..3]);
        let correction = LogEvent::new(
            4,
            "correct",
            json!({"seq": 3, "data": log[2].data.clone(), "reason": "same again"}),
        );
        append_and_compare(game, &mut state, &mut log, correction);
        append_and_compare(game, &mut state, &mut log, retract(5, 4));
        append_and_compare(
            game,
            &mut state,
            &mut log,
            LogEvent::new(6, "abandon", json!({})),
        );
        assert_eq!(state.evaluation(true).status, Status::Abandoned);
        append_and_compare(game, &mut state, &mut log, retract(7, 6));
        assert_eq!(state.evaluation(true).status, Status::InProgress);
        append_and_compare(game, &mut state, &mut log, retract(8, 7));
        assert_eq!(state.evaluation(true).status, Status::Abandoned);
    }
}

#[test]
fn a_malformed_undo_is_refused_as_a_whole_replay_refuses_it_and_leaves_the_state() {
    for game in Game::ALL {
        let mut log = fixture(game);
        log.truncate(3);
        let mut state = game.replay(log[..2].to_vec()).expect("a prefix replays");
        state.append(&[new_event(&log[2])]).expect("event 3");
        let before = state.evaluation(true);
        for (data, pointer) in [
            (json!({"seq": "3"}), "/data/seq"),
            (json!({"seq": 3, "why": "typo"}), "/data/why"),
            (json!({"seq": 4}), "/data/seq"),
        ] {
            let undo = NewEvent {
                event_type: "retract".into(),
                data,
            };

            let refused = state.append(&[undo]).unwrap_err();

            assert_eq!(refused.pointer, pointer, "{}", game.id());
            assert_eq!(state.version(), 3);
            assert_eq!(state.evaluation(true), before);
        }
        // The right undo still replays to the state before event 3.
        let undone = state
            .append(&[new_event(&retract(4, 3))])
            .expect("the undo");
        assert_eq!(
            undone,
            game.evaluate_with_facts(&[
                log[0].clone(),
                log[1].clone(),
                log[2].clone(),
                retract(4, 3)
            ])
            .expect("replays")
        );
    }
}

/// A typed-in result for every seated player of `log`'s game, the first one winning.
fn typed_in(seq: u64, log: &[LogEvent]) -> LogEvent {
    let names: Vec<&str> = log[0].data["players"]
        .as_array()
        .expect("seated players")
        .iter()
        .map(|p| p["name"].as_str().expect("a name"))
        .collect();
    let totals: serde_json::Map<String, Value> = names
        .iter()
        .enumerate()
        .map(|(i, name)| ((*name).to_owned(), json!(10 + i)))
        .collect();
    LogEvent::new(
        seq,
        "result_recorded",
        json!({"totals": totals, "winners": [names[0]], "source": "BG Stats"}),
    )
}

#[test]
fn undoing_a_typed_in_result_or_the_only_game_event_counts_as_in_a_whole_replay() {
    for game in Game::ALL {
        let fixture = fixture(game);
        let (mut log, mut state) = held_from(game, &fixture[..1]);
        let result = typed_in(2, &log);
        append_and_compare(game, &mut state, &mut log, result);
        assert_eq!(state.evaluation(true).status, Status::Finished);
        append_and_compare(game, &mut state, &mut log, retract(3, 2));
        // With the typed-in result undone, the game is played again …
        let first = renumbered(4, &fixture[1]);
        append_and_compare(game, &mut state, &mut log, first);
        // … and with its only game event undone, a result may be typed in again.
        append_and_compare(game, &mut state, &mut log, retract(5, 4));
        let again = typed_in(6, &log);
        append_and_compare(game, &mut state, &mut log, again);
    }
}

#[test]
fn after_an_undone_abandon_the_game_goes_on_and_after_a_new_one_it_does_not() {
    for game in Game::ALL {
        let fixture = fixture(game);
        let (mut log, mut state) = held_from(game, &fixture[..2]);
        append_and_compare(
            game,
            &mut state,
            &mut log,
            LogEvent::new(3, "abandon", json!({})),
        );
        append_and_compare(game, &mut state, &mut log, retract(4, 3));
        let next = renumbered(5, &fixture[2]);
        append_and_compare(game, &mut state, &mut log, next);
        append_and_compare(
            game,
            &mut state,
            &mut log,
            LogEvent::new(6, "abandon", json!({})),
        );
        let after = renumbered(7, &fixture[3]);
        let mut whole_log = log.clone();
        whole_log.push(after.clone());

        let refused = state.append(&[new_event(&after)]).unwrap_err();

        assert!(
            game.evaluate_with_facts(&whole_log).is_err(),
            "{}",
            game.id()
        );
        assert_eq!(refused.event_index, 0);
        assert_eq!(state.version(), 6);
        assert_eq!(state.evaluation(true).status, Status::Abandoned);
    }
}

#[test]
fn an_undo_after_a_batch_of_several_events_counts_as_in_a_whole_replay() {
    for game in Game::ALL {
        let fixture = fixture(game);
        let (mut log, mut state) = held_from(game, &fixture[..2]);
        state
            .append(&[new_event(&fixture[2]), new_event(&fixture[3])])
            .expect("two events at once");
        log.extend_from_slice(&fixture[2..4]);
        // Undone twice over: the copy of the first is undone too.
        append_and_compare(game, &mut state, &mut log, retract(5, 4));
        append_and_compare(game, &mut state, &mut log, retract(6, 5));
        let mut copy = state.clone();
        let mut copy_log = log.clone();
        append_and_compare(game, &mut state, &mut log, retract(7, 6));
        append_and_compare(game, &mut copy, &mut copy_log, retract(7, 6));
    }
}

#[test]
fn a_state_without_its_log_undoes_its_last_event_with_the_replay_kept_from_before_it() {
    for game in Game::ALL {
        let fixture = fixture(game);
        for split in 1..fixture.len() {
            let next = &fixture[split];
            if COMMON_EVENT_TYPES.contains(&next.event_type.as_str()) {
                continue;
            }
            let mut whole = game
                .replay(fixture[..split].to_vec())
                .expect("a prefix replays");
            let mut held = whole.clone();
            held.let_go_of_log();
            let batch = [new_event(next)];
            assert_eq!(held.append(&batch), whole.append(&batch));
            let seq = split as u64 + 1;
            let undo = [new_event(&retract(seq + 1, seq))];
            let mut forgetful = held.clone();

            assert!(held.keeps_undo());
            assert!(!held.needs_log(&undo), "{} at {split}", game.id());
            assert_eq!(
                held.append(&undo).expect("the undo, without the log"),
                whole.append(&undo).expect("the undo, replayed whole"),
                "{} at {split}",
                game.id()
            );
            // Once the replay from before is let go, the undo needs the log again.
            forgetful.let_go_of_undo();
            assert!(!forgetful.keeps_undo());
            assert!(forgetful.needs_log(&undo));
            assert!(forgetful.append(&undo).is_err());
        }
    }
}
