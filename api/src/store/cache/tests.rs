//! The state cache's behaviour: versions, terms, tickets, eviction and the undos kept.

use super::*;
use crate::records::{GameRecord, StoredEvent};
use chrono::Utc;
use serde_json::json;

/// What a score read asks: the game at the version it read from the database.
fn get(cache: &StateCache, id: &str, version: i64) -> Option<Arc<HeldGame>> {
    cache.get_read("c1", id, version, cache.ticket(id))
}

fn held(id: &str, version: i64) -> HeldGame {
    let game = GameRecord {
        id: id.into(),
        game: "mint-condition".into(),
        status: "in_progress".into(),
        version,
        options: json!({}).into(),
        players: vec![],
        started_at: Utc::now(),
        updated_at: Utc::now(),
    };
    let started = StoredEvent {
        position: 1,
        seq: 1,
        id: id.into(),
        event_type: "game_started".into(),
        schema_version: 3,
        data: json!({"game": "mint-condition", "players": [
            {"name": "Ann", "seat": 1}, {"name": "Bo", "seat": 2}
        ], "options": tabletally_domain::Game::MintCondition.default_options()}),
        recorded_at: Utc::now(),
        recorded_by: None,
    };
    HeldGame::replay(game, vec![started]).expect("a game start replays")
}

/// `held`, a round later, keeping the replay from before that round for an undo.
fn held_after_a_round(id: &str) -> HeldGame {
    let mut game = held(id, 1);
    let (ann, bo) = (["be-careful"; 7], ["memories"; 7]);
    game.state
        .append(&[tabletally_domain::NewEvent {
            event_type: "round_collected".into(),
            data: json!({"round": 1, "collections": {
                "Ann": ann, "Bo": bo
            }}),
        }])
        .expect("a round of seven cards each");
    game.game.version = 2;
    game
}

#[test]
fn only_the_games_written_last_keep_their_undo() {
    let cache = StateCache::new(1_000, 64 << 20);
    let one = held_after_a_round("g0");
    let (with_undo, without) = (one.bytes(), {
        let mut forgetful = one.clone();
        forgetful.let_go_of_undo();
        forgetful.bytes()
    });
    assert!(with_undo > without);
    cache.put_written("c1", one);
    for i in 1..UNDOS_KEPT {
        cache.put_written("c1", held_after_a_round(&format!("g{i}")));
    }
    assert!(get(&cache, "g0", 2).expect("held").keeps_undo());
    // A reader's copy is not a write: it keeps nobody's undo, and lets none go.
    cache.put_read("c1", held("r", 1), cache.ticket("r"));
    assert!(get(&cache, "g0", 2).expect("held").keeps_undo());
    let before = cache.counters().bytes;

    cache.put_written("c1", held_after_a_round("gn"));

    assert!(!get(&cache, "g0", 2).expect("still held").keeps_undo());
    assert!(get(&cache, "g1", 2).expect("held").keeps_undo());
    assert_eq!(
        cache.counters().bytes,
        before + with_undo as u64 - (with_undo - without) as u64
    );
}

#[test]
fn an_entry_answers_only_for_the_version_it_holds() {
    let cache = StateCache::new(10, DEFAULT_BYTES);
    cache.put_written("c1", held("g1", 1));

    assert!(get(&cache, "g1", 2).is_none());
    assert!(get(&cache, "g1", 1).is_some());
    assert_eq!(
        cache.counters(),
        CacheCounters {
            hits: 1,
            misses: 1,
            games: 1,
            bytes: held("g1", 1).bytes() as u64,
            answered_alone: 0,
            sole: false,
        }
    );
}

#[test]
fn the_latest_state_is_taken_only_by_the_club_it_was_put_for() {
    let cache = StateCache::new(10, DEFAULT_BYTES);
    cache.put_written("c1", held("g1", 3));

    assert!(cache.take_latest("c2", "g1").is_none());
    let taken = cache
        .take_latest("c1", "g1")
        .expect("c1's game, at any version");

    assert_eq!(taken.game.version, 3);
    assert!(cache.take_latest("c1", "g1").is_none());
}

#[test]
fn taking_at_another_version_drops_the_stale_entry() {
    let cache = StateCache::new(10, DEFAULT_BYTES);
    cache.put_written("c1", held("g1", 1));

    assert!(cache.take("g1", 3).is_none());

    assert!(get(&cache, "g1", 1).is_none());
    assert_eq!(cache.counters().games, 0);
    assert_eq!(cache.counters().bytes, 0);
}

#[test]
fn an_older_version_put_late_does_not_replace_a_newer_one() {
    let cache = StateCache::new(10, DEFAULT_BYTES);
    cache.put_written("c1", held("g1", 3));

    // A score read replayed version 2 while a commit moved the game to 3.
    let ticket = cache.ticket("g1");
    cache.put_read("c1", held("g1", 2), ticket);

    assert!(get(&cache, "g1", 2).is_none());
    assert!(get(&cache, "g1", 3).is_some());
    assert_eq!(cache.counters().games, 1);
}

/// What a write does: open, put what it committed, end.
fn write(cache: &StateCache, game: HeldGame) {
    let id = game.game.id.clone();
    let _open = cache.writing(&id);
    cache.put_written("c1", game);
}

#[test]
fn only_an_authoritative_cache_answers_without_the_database() {
    let checking = StateCache::new(10, DEFAULT_BYTES);
    write(&checking, held("g1", 1));
    let alone = StateCache::new(10, DEFAULT_BYTES).authoritative();
    write(&alone, held("g1", 1));

    assert!(checking.current("c1", "g1").is_none());
    assert_eq!(alone.current("c1", "g1").unwrap().game.version, 1);
    // Another club's token never sees it.
    assert!(alone.current("c2", "g1").is_none());
    assert_eq!(alone.counters().answered_alone, 1);
}

#[test]
fn a_term_answers_while_it_lasts_and_trusts_nothing_from_an_earlier_one() {
    let cache = StateCache::new(10, DEFAULT_BYTES);
    let first = cache.begin_term(None);
    write(&cache, held("g1", 1));
    assert!(cache.current("c1", "g1").is_some());
    assert!(cache.counters().sole);

    cache.end_term();
    assert!(cache.current("c1", "g1").is_none());
    assert!(!cache.counters().sole);
    // Meanwhile another server may have moved g1 on: a new term must not take it as stored.
    let second = cache.begin_term(None);

    assert_ne!(first, second);
    assert!(cache.current("c1", "g1").is_none());
    // A reader that reads its version in the new term makes it current again.
    assert!(get(&cache, "g1", 1).is_some());
    assert!(cache.current("c1", "g1").is_some());
}

#[test]
fn a_write_begun_before_the_term_makes_nothing_current_in_it() {
    let cache = StateCache::new(10, DEFAULT_BYTES);
    let before = cache.writing("g1");
    assert_eq!(before.term(), None);
    cache.begin_term(None);
    // A write begun now shares the game with the older one, still open.
    let during = cache.writing("g1");
    assert!(during.term().is_some());

    cache.put_written("c1", held("g1", 2));
    drop(during);
    assert!(cache.current("c1", "g1").is_none(), "a write is still open");
    drop(before);

    assert!(cache.current("c1", "g1").is_none());
    write(&cache, held("g1", 3));
    assert_eq!(cache.current("c1", "g1").unwrap().game.version, 3);
}

#[test]
fn a_readers_ticket_from_before_the_term_confirms_nothing_in_it() {
    let cache = StateCache::new(10, DEFAULT_BYTES);
    let before = cache.ticket("g1");
    cache.begin_term(None);

    cache.put_read("c1", held("g1", 1), before);
    assert!(cache.current("c1", "g1").is_none());
    assert!(cache.get_read("c1", "g1", 1, before).is_some());
    assert!(cache.current("c1", "g1").is_none());

    let during = cache.ticket("g1");
    assert!(cache.get_read("c1", "g1", 1, during).is_some());
    assert!(cache.current("c1", "g1").is_some());
}

#[test]
fn a_term_past_its_lease_answers_nothing_until_renewed() {
    let cache = StateCache::new(10, DEFAULT_BYTES);
    let past = Instant::now() - std::time::Duration::from_millis(1);
    let term = cache.begin_term(Some(past));
    write(&cache, held("g1", 1));

    assert!(cache.current("c1", "g1").is_none());
    cache.renew_term(term, Instant::now() + std::time::Duration::from_secs(60));
    // What was written past the lease was not known to be alone: still not current.
    assert!(cache.current("c1", "g1").is_none());
    write(&cache, held("g1", 2));
    assert_eq!(cache.current("c1", "g1").unwrap().game.version, 2);
    cache.renew_term(term, past);
    assert!(cache.current("c1", "g1").is_none());
}

#[test]
fn the_sole_writer_takes_only_an_entry_current_in_the_open_term() {
    let cache = StateCache::new(10, DEFAULT_BYTES);
    write(&cache, held("g1", 1));
    assert!(cache.take_confirmed("c1", "g1").is_none());

    cache.begin_term(None);
    assert!(
        cache.take_confirmed("c1", "g1").is_none(),
        "written before the term"
    );
    write(&cache, held("g1", 2));
    assert!(cache.take_confirmed("c2", "g1").is_none(), "another club's");

    assert_eq!(cache.take_confirmed("c1", "g1").unwrap().game.version, 2);
    assert!(cache.take_latest("c1", "g1").is_none(), "taken out");
}

#[test]
fn a_game_with_two_writes_open_is_current_only_when_both_end() {
    let cache = StateCache::new(10, DEFAULT_BYTES).authoritative();
    let one = cache.writing("g1");
    let two = cache.writing("g1");
    cache.put_written("c1", held("g1", 2));

    drop(one);
    assert!(cache.current("c1", "g1").is_none());
    drop(two);

    assert_eq!(cache.current("c1", "g1").unwrap().game.version, 2);
}

#[test]
fn a_game_the_writer_is_writing_is_not_current_until_its_batch_ends() {
    let cache = StateCache::new(10, DEFAULT_BYTES).authoritative();
    cache.put_written("c1", held("g1", 1));

    cache.begin_write("g1");
    // A refused request put the state back inside the batch: still not current.
    cache.put_written("c1", held("g1", 1));
    assert!(cache.current("c1", "g1").is_none());
    cache.put_written("c1", held("g1", 2));
    cache.end_writes(&["g1".to_owned()]);

    assert_eq!(cache.current("c1", "g1").unwrap().game.version, 2);
}

#[test]
fn a_readers_state_is_current_only_when_no_write_began_since_it_read() {
    let cache = StateCache::new(10, DEFAULT_BYTES).authoritative();

    let quiet = cache.ticket("g1");
    cache.put_read("c1", held("g1", 1), quiet);
    assert_eq!(cache.current("c1", "g1").unwrap().game.version, 1);

    // A reader read version 1, then a write began, committed 2 and ended, and the entry it
    // put went away (evicted); the reader's late put must not be taken as current.
    let stale = cache.ticket("g2");
    cache.begin_write("g2");
    cache.end_writes(&["g2".to_owned()]);
    cache.put_read("c1", held("g2", 1), stale);
    assert!(cache.current("c1", "g2").is_none());
    // It still answers a reader that checks the version in the database.
    let fresh = cache.ticket("g2");
    assert!(cache.get_read("c1", "g2", 1, fresh).is_some());
    assert_eq!(cache.current("c1", "g2").unwrap().game.version, 1);

    // A reader whose read overlapped a write in progress confirms nothing either.
    let during = {
        cache.begin_write("g3");
        cache.ticket("g3")
    };
    cache.put_read("c1", held("g3", 1), during);
    cache.end_writes(&["g3".to_owned()]);
    assert!(cache.current("c1", "g3").is_none());
}

#[test]
fn the_least_recently_used_game_goes_first_when_full() {
    let cache = StateCache::new(2, DEFAULT_BYTES);
    cache.put_written("c1", held("g1", 1));
    cache.put_written("c1", held("g2", 1));
    assert!(get(&cache, "g1", 1).is_some());

    cache.put_written("c1", held("g3", 1));

    assert!(get(&cache, "g2", 1).is_none());
    assert!(get(&cache, "g1", 1).is_some());
    assert!(get(&cache, "g3", 1).is_some());
}

#[test]
fn the_byte_bound_holds_as_well_as_the_count() {
    let one = held("g1", 1).bytes();
    let cache = StateCache::new(100, one * 2);
    for id in ["g1", "g2", "g3"] {
        cache.put_written("c1", held(id, 1));
    }

    assert_eq!(cache.counters().games, 2);
    assert!(cache.counters().bytes <= (one * 2) as u64);
    assert!(get(&cache, "g1", 1).is_none());
}
