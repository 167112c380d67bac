//! Given / when / then: given these events, when this one arrives, then this race, this score
//! or this exact rule error. Positions and points are worked out by hand in the comments.
//! Race shorthand in comments: [front group, top first] [next group] …

use serde_json::{Value, json};

use super::MintJulep;
use crate::games::Game;
use crate::insights::{names, summed};
use crate::log::{Evaluation, LogEvent, NewEvent, Rejection, Status};
use crate::ruleset::Ruleset;
use crate::score::Fact;
use crate::setup::PlayerEntry;

const AJ: &str = "alaskan-justice";
const MS: &str = "maple-splendor";
const NA: &str = "newtons-apple";
const WP: &str = "whiskey-princess";
const YGM: &str = "you-got-me";

// ---------------------------------------------------------------- helpers

fn started(names: &[&str], options: Value) -> Vec<LogEvent> {
    let entries: Vec<PlayerEntry> = names
        .iter()
        .map(|n| PlayerEntry {
            name: (*n).into(),
            color: None,
        })
        .collect();
    let setup = Game::MintJulep.start(&entries, &options).unwrap();
    vec![LogEvent::new(
        1,
        "game_started",
        json!({"game": "mint-julep", "players": setup.players, "options": setup.options}),
    )]
}

/// A log of a game with these players and options, each event checked on the way in.
fn given(names: &[&str], options: Value, events: &[(&str, Value)]) -> Vec<LogEvent> {
    let mut log = started(names, options);
    for (event_type, data) in events {
        if let Err(e) = when(&log, event_type, data.clone()) {
            panic!("given event {event_type} {data} was refused: {e}");
        }
        log.push(LogEvent::new(
            log.len() as u64 + 1,
            *event_type,
            data.clone(),
        ));
    }
    log
}

fn when(log: &[LogEvent], event_type: &str, data: Value) -> Result<Evaluation, Rejection> {
    Game::MintJulep.check_append(
        log,
        &[NewEvent {
            event_type: event_type.into(),
            data,
        }],
    )
}

fn refused(log: &[LogEvent], event_type: &str, data: Value) -> Rejection {
    match when(log, event_type, data) {
        Ok(_) => panic!("{event_type} was accepted"),
        Err(e) => e,
    }
}

fn now(log: &[LogEvent]) -> Evaluation {
    Game::MintJulep.evaluate_with_facts(log).unwrap()
}

fn bet(round: u32, player: &str, horse: &str) -> (&'static str, Value) {
    (
        "bet_placed",
        json!({"round": round, "player": player, "horse": horse}),
    )
}

fn rebet(round: u32, player: &str, horse: &str, replaces: &str) -> (&'static str, Value) {
    (
        "bet_placed",
        json!({"round": round, "player": player, "horse": horse, "replaces": replaces}),
    )
}

fn lettered(round: u32, player: &str, horse: &str, letter: &str) -> (&'static str, Value) {
    (
        "bet_placed",
        json!({"round": round, "player": player, "horse": horse, "initiative": letter}),
    )
}

/// A move: (horse, "forward"/"back", "top"/"named").
fn card(round: u32, player: &str, moves: &[(&str, &str, &str)]) -> (&'static str, Value) {
    let moves: Vec<Value> = moves
        .iter()
        .map(|(h, d, k)| json!({"horse": h, "direction": d, "kind": k}))
        .collect();
    (
        "card_played",
        json!({"round": round, "player": player, "moves": moves, "mint_julep": null}),
    )
}

fn mint_julep(
    round: u32,
    player: &str,
    horse: &str,
    moves: &[(&str, &str, &str)],
) -> (&'static str, Value) {
    let (t, mut data) = card(round, player, moves);
    data["mint_julep"] = json!({"horse": horse});
    (t, data)
}

fn ended(round: u32) -> (&'static str, Value) {
    ("round_ended", json!({"round": round}))
}

fn recorded(round: u32, order: [&str; 5]) -> (&'static str, Value) {
    ("race_recorded", json!({"round": round, "order": order}))
}

/// The race groups, front to back, each top first, as horse ids.
fn groups(eval: &Evaluation) -> Vec<Vec<String>> {
    let details = eval.scoreboard.details.as_ref().expect("details");
    details["race"]["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(|g| {
            g.as_array()
                .expect("group")
                .iter()
                .map(|h| h["horse"].as_str().expect("horse").to_owned())
                .collect()
        })
        .collect()
}

fn race(groups: &[&[&str]]) -> Vec<Vec<String>> {
    groups
        .iter()
        .map(|g| g.iter().map(|h| (*h).to_owned()).collect())
        .collect()
}

fn total(eval: &Evaluation, name: &str) -> i64 {
    player(eval, name).total
}

fn player<'a>(eval: &'a Evaluation, name: &str) -> &'a crate::score::PlayerScore {
    eval.scoreboard
        .players
        .iter()
        .find(|p| p.name == name)
        .expect("player")
}

/// Every breakdown line of a player as (label, points, detail).
fn lines(eval: &Evaluation, name: &str) -> Vec<(String, i64, String)> {
    player(eval, name)
        .rounds
        .iter()
        .flat_map(|r| r.breakdown.iter())
        .map(|l| (l.label.to_string(), l.points, l.detail.to_string()))
        .collect()
}

fn line(label: &str, points: i64, detail: &str) -> (String, i64, String) {
    (label.into(), points, detail.into())
}

const THREE: [&str; 3] = ["Ann", "Bo", "Cy"];
const FOUR: [&str; 4] = ["Ann", "Bo", "Cy", "Di"];

/// Three players with their round-1 bets placed: the race can start.
fn three_ready() -> Vec<(&'static str, Value)> {
    vec![bet(1, "Ann", YGM), bet(1, "Bo", AJ), bet(1, "Cy", WP)]
}

fn race_now(events: &[(&str, Value)]) -> Vec<Vec<String>> {
    groups(&now(&given(&THREE, json!({}), events)))
}

// ---------------------------------------------------------------- the race

#[test]
fn the_race_starts_as_one_group_in_the_table_order() {
    assert_eq!(race_now(&three_ready()), race(&[&[AJ, MS, NA, WP, YGM]]));
}

#[test]
fn worked_example_2_a_named_horse_moving_forward_from_the_start_makes_a_new_front_group() {
    let mut events = three_ready();
    events.push(card(1, "Ann", &[(YGM, "forward", "named")]));
    // rules example 2: [YGM] [AJ MS NA WP]
    assert_eq!(race_now(&events), race(&[&[YGM], &[AJ, MS, NA, WP]]));
}

#[test]
fn worked_example_2_the_lone_front_horse_cannot_move_forward_again() {
    let mut events = three_ready();
    events.push(card(1, "Ann", &[(YGM, "forward", "named")]));
    let log = given(&THREE, json!({}), &events);
    let (t, data) = card(1, "Bo", &[(YGM, "forward", "top")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/moves/0");
    assert_eq!(
        e.rule,
        "move 1, You Got Me forward (top move): You Got Me is alone in the front group and \
         cannot move forward: that would leave a gap"
    );
}

#[test]
fn a_top_horse_moving_forward_lands_on_top_of_the_group_ahead() {
    let mut events = three_ready();
    // [AJ] [MS NA WP YGM] → MS forward lands on top of AJ: [MS AJ] [NA WP YGM]
    events.push(card(1, "Ann", &[(AJ, "forward", "top")]));
    events.push(card(1, "Bo", &[(MS, "forward", "top")]));
    assert_eq!(race_now(&events), race(&[&[MS, AJ], &[NA, WP, YGM]]));
}

#[test]
fn a_named_horse_from_inside_a_group_moves_back_onto_the_group_behind() {
    let mut events = three_ready();
    // [YGM] [AJ MS NA WP] → MS back, no group behind: [YGM] [AJ NA WP] [MS]
    // → NA back lands on top of MS: [YGM] [AJ WP] [NA MS]
    events.push(card(1, "Ann", &[(YGM, "forward", "named")]));
    events.push(card(1, "Bo", &[(MS, "back", "named")]));
    assert_eq!(race_now(&events), race(&[&[YGM], &[AJ, NA, WP], &[MS]]));
    events.push(card(1, "Cy", &[(NA, "back", "named")]));
    assert_eq!(race_now(&events), race(&[&[YGM], &[AJ, WP], &[NA, MS]]));
}

#[test]
fn a_lone_front_horse_moving_back_joins_the_group_behind_and_its_group_disappears() {
    let mut events = three_ready();
    // [YGM] [AJ MS NA WP] → YGM back lands on top of the group behind: [YGM AJ MS NA WP]
    events.push(card(1, "Ann", &[(YGM, "forward", "named")]));
    events.push(card(1, "Bo", &[(YGM, "back", "top")]));
    assert_eq!(race_now(&events), race(&[&[YGM, AJ, MS, NA, WP]]));
}

#[test]
fn a_horse_alone_in_the_last_group_cannot_move_back() {
    let mut events = three_ready();
    // [MS NA WP YGM] [AJ]
    events.push(card(1, "Ann", &[(AJ, "back", "top")]));
    let log = given(&THREE, json!({}), &events);
    let (t, data) = card(1, "Bo", &[(AJ, "back", "named")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/moves/0");
    assert_eq!(
        e.rule,
        "move 1, Alaskan Justice back (named move): Alaskan Justice is alone in the last group \
         and cannot move back: that would leave a gap"
    );
}

#[test]
fn a_top_move_of_a_horse_under_another_is_refused() {
    let log = given(&THREE, json!({}), &three_ready());
    let (t, data) = card(1, "Ann", &[(NA, "forward", "top")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/moves/0");
    assert_eq!(
        e.rule,
        "move 1, Newton's Apple forward (top move): a top-horse move needs the top of a group, \
         but Newton's Apple is under Alaskan Justice (use a named-horse move)"
    );
}

#[test]
fn one_card_may_move_several_horses_and_one_horse_twice_the_same_way() {
    let mut events = three_ready();
    // YGM back: [AJ MS NA WP] [YGM]; WP back onto YGM: [AJ MS NA] [WP YGM];
    // WP back again, its group is the last: [AJ MS NA] [YGM] [WP]
    events.push(card(
        1,
        "Ann",
        &[
            (YGM, "back", "named"),
            (WP, "back", "named"),
            (WP, "back", "top"),
        ],
    ));
    assert_eq!(race_now(&events), race(&[&[AJ, MS, NA], &[YGM], &[WP]]));
}

#[test]
fn moving_a_horse_back_in_the_same_cards_action_is_refused_and_nothing_moves() {
    let log = given(&THREE, json!({}), &three_ready());
    let (t, data) = card(1, "Ann", &[(YGM, "forward", "named"), (YGM, "back", "top")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/moves/1");
    assert_eq!(
        e.rule,
        "move 2, You Got Me back (top move): You Got Me already moved forward in this card's \
         action; a horse may not be moved back in the same action"
    );
    // The refused card left the race as it was.
    assert_eq!(groups(&now(&log)), race(&[&[AJ, MS, NA, WP, YGM]]));
}

#[test]
fn the_same_horse_may_move_back_with_the_next_card() {
    let mut events = three_ready();
    events.push(card(1, "Ann", &[(YGM, "forward", "named")]));
    events.push(card(1, "Bo", &[(YGM, "back", "top")]));
    assert_eq!(race_now(&events), race(&[&[YGM, AJ, MS, NA, WP]]));
}

#[test]
fn an_unknown_horse_in_a_move_is_refused() {
    let log = given(&THREE, json!({}), &three_ready());
    let (t, data) = card(1, "Ann", &[("seabiscuit", "forward", "named")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/moves/0/horse");
    assert_eq!(
        e.rule,
        "unknown horse \"seabiscuit\"; the horses are alaskan-justice, maple-splendor, \
         newtons-apple, whiskey-princess, you-got-me"
    );
}

#[test]
fn a_move_with_an_unknown_direction_or_kind_is_refused() {
    let log = given(&THREE, json!({}), &three_ready());
    let (t, data) = card(1, "Ann", &[(YGM, "sideways", "named")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/moves/0/direction");
    assert_eq!(e.rule, "direction is \"forward\" or \"back\"");
    let (t, data) = card(1, "Ann", &[(YGM, "forward", "any")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/moves/0/kind");
}

#[test]
fn unknown_fields_in_a_card_or_a_move_are_refused() {
    let log = given(&THREE, json!({}), &three_ready());
    let (t, mut data) = card(1, "Ann", &[(YGM, "forward", "named")]);
    data["moves"][0]["steps"] = json!(2);
    let e = refused(&log, t, data.clone());
    assert_eq!(e.pointer, "/data/moves/0/steps");
    assert_eq!(
        e.rule,
        "unknown field \"steps\"; a move has \"horse\", \"direction\" and \"kind\""
    );
    let (t, mut data) = card(1, "Ann", &[(YGM, "forward", "named")]);
    data["card"] = json!("gallop");
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/card");
}

#[test]
fn a_card_that_moves_nothing_is_refused() {
    let log = given(&THREE, json!({}), &three_ready());
    let (t, data) = card(1, "Ann", &[]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/moves");
    assert_eq!(e.rule, "a card played in the race moves at least one horse");
}

#[test]
fn a_card_by_someone_not_at_the_table_is_refused() {
    let log = given(&THREE, json!({}), &three_ready());
    let (t, data) = card(1, "Zed", &[(YGM, "forward", "named")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/player");
    assert_eq!(
        e.rule,
        "\"Zed\" does not play in this game; the players are Ann, Bo and Cy"
    );
}

// ---------------------------------------------------------------- Mint Julep

#[test]
fn mint_julep_flips_an_unflipped_top_horse_and_its_moves_apply() {
    let mut events = three_ready();
    // Mint Julep on AJ (top of the only group); its ability moves AJ forward: [AJ] [MS NA WP YGM]
    events.push(mint_julep(1, "Ann", AJ, &[(AJ, "forward", "top")]));
    let eval = now(&given(&THREE, json!({}), &events));
    assert_eq!(groups(&eval), race(&[&[AJ], &[MS, NA, WP, YGM]]));
    let details = eval.scoreboard.details.unwrap();
    assert_eq!(details["race"]["groups"][0][0]["flipped"], json!(true));
    assert_eq!(details["race"]["groups"][1][0]["flipped"], json!(false));
}

#[test]
fn mint_julep_on_a_horse_under_another_is_refused() {
    let log = given(&THREE, json!({}), &three_ready());
    let (t, data) = mint_julep(1, "Ann", NA, &[(NA, "forward", "named")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/mint_julep/horse");
    assert_eq!(
        e.rule,
        "Mint Julep on Newton's Apple: the Mint Julep card is played on the top horse of a \
         group, but Newton's Apple is under Alaskan Justice"
    );
}

#[test]
fn a_flipped_horse_stays_flipped_and_cannot_take_mint_julep_again_in_a_later_round() {
    let mut events = three_ready();
    events.push(mint_julep(1, "Ann", AJ, &[(AJ, "forward", "top")]));
    events.push(ended(1));
    let log = given(&THREE, json!({}), &events);
    let (t, data) = mint_julep(2, "Bo", AJ, &[(MS, "forward", "top")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/mint_julep/horse");
    assert_eq!(
        e.rule,
        "Mint Julep on Alaskan Justice: Alaskan Justice was already flipped by an earlier Mint \
         Julep card; its ability is used only once"
    );
}

#[test]
fn the_movement_of_a_mint_julep_is_checked_like_any_move() {
    let mut events = three_ready();
    events.push(card(1, "Ann", &[(YGM, "forward", "named")]));
    let log = given(&THREE, json!({}), &events);
    // [YGM] [AJ MS NA WP]: YGM is top and unflipped, but alone at the front.
    let (t, data) = mint_julep(1, "Bo", YGM, &[(YGM, "forward", "top")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/moves/0");
    assert_eq!(
        e.rule,
        "move 1, You Got Me forward (top move): You Got Me is alone in the front group and \
         cannot move forward: that would leave a gap"
    );
    // Nothing was flipped by the refused card.
    let details = now(&log).scoreboard.details.unwrap();
    assert_eq!(details["race"]["groups"][0][0]["flipped"], json!(false));
}

#[test]
fn a_second_mint_julep_card_in_the_same_round_is_refused() {
    let mut events = three_ready();
    // Mint Julep on AJ, AJ forward: [AJ] [MS NA WP YGM], AJ flipped.
    events.push(mint_julep(1, "Ann", AJ, &[(AJ, "forward", "top")]));
    let log = given(&THREE, json!({}), &events);
    // MS is an unflipped top horse, but the one Mint Julep card is already out this round.
    let (t, data) = mint_julep(1, "Bo", MS, &[(MS, "forward", "top")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/mint_julep");
    assert_eq!(
        e.rule,
        "Ann already played the Mint Julep card in round 1 (on Alaskan Justice); the deck holds \
         one Mint Julep card and it is shuffled back only at the end of the round"
    );
    // The same moves on an ordinary card are fine: MS lands on top of AJ, [MS AJ] [NA WP YGM].
    let (t, data) = card(1, "Bo", &[(MS, "forward", "top")]);
    let eval = when(&log, t, data).unwrap();
    assert_eq!(groups(&eval), race(&[&[MS, AJ], &[NA, WP, YGM]]));
    // MS was not flipped by the refused card.
    let details = eval.scoreboard.details.clone().unwrap();
    assert_eq!(details["race"]["groups"][0][0]["flipped"], json!(false));
    // Ann YGM 5th 2 + 0 = 2; Bo AJ 2nd 0 + 2 = 2; Cy WP 4th 2 + 0 = 2.
    assert_eq!(total(&eval, "Ann"), 2);
    assert_eq!(total(&eval, "Bo"), 2);
    assert_eq!(total(&eval, "Cy"), 2);
}

#[test]
fn the_mint_julep_card_is_shuffled_back_at_the_end_of_the_round() {
    let mut events = three_ready();
    events.push(mint_julep(1, "Ann", AJ, &[(AJ, "forward", "top")]));
    events.push(ended(1));
    // Round 2 from [AJ] [MS NA WP YGM]: Mint Julep on MS, MS forward lands on AJ.
    events.push(mint_julep(2, "Bo", MS, &[(MS, "forward", "top")]));
    let eval = now(&given(&THREE, json!({}), &events));
    assert_eq!(groups(&eval), race(&[&[MS, AJ], &[NA, WP, YGM]]));
    let details = eval.scoreboard.details.clone().unwrap();
    assert_eq!(details["race"]["groups"][0][0]["flipped"], json!(true));
    assert_eq!(details["race"]["groups"][0][1]["flipped"], json!(true));
    // MS 1st, AJ 2nd, NA 3rd, WP 4th, YGM 5th: Ann YGM 2 + 0 = 2; Bo AJ 0 + 2 = 2;
    // Cy WP 2 + 0 = 2, a three-way shared lead (round 1 of 3: nobody has won yet).
    assert_eq!(total(&eval, "Ann"), 2);
    assert_eq!(total(&eval, "Bo"), 2);
    assert_eq!(total(&eval, "Cy"), 2);
    assert_eq!(eval.scoreboard.leaders, vec!["Ann", "Bo", "Cy"]);
    assert!(eval.scoreboard.winners.is_empty());
}

#[test]
fn a_correction_that_makes_a_second_mint_julep_card_in_a_round_is_refused() {
    let mut events = three_ready();
    events.push(mint_julep(1, "Ann", AJ, &[(AJ, "forward", "top")]));
    events.push(card(1, "Bo", &[(MS, "forward", "top")]));
    let log = given(&THREE, json!({}), &events);
    // Event 6 said to be a Mint Julep card on MS too.
    let (_, data) = mint_julep(1, "Bo", MS, &[(MS, "forward", "top")]);
    let e = refused(&log, "correct", json!({"seq": 6, "data": data}));
    assert_eq!(e.pointer, "/data/data/mint_julep");
    assert!(
        e.rule
            .contains("Ann already played the Mint Julep card in round 1 (on Alaskan Justice)"),
        "{}",
        e.rule
    );
}

#[test]
fn a_mint_julep_card_with_an_unknown_field_is_refused() {
    let log = given(&THREE, json!({}), &three_ready());
    let (t, mut data) = mint_julep(1, "Ann", AJ, &[(AJ, "forward", "top")]);
    data["mint_julep"]["ability"] = json!("swap");
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/mint_julep/ability");
}

// ---------------------------------------------------------------- rounds

#[test]
fn the_race_carries_into_the_next_round_as_it_stands() {
    let mut events = three_ready();
    events.push(card(1, "Ann", &[(YGM, "forward", "named")]));
    events.push(ended(1));
    // Round 2 continues from [YGM] [AJ MS NA WP]: AJ forward lands on top of YGM.
    events.push(card(2, "Bo", &[(AJ, "forward", "top")]));
    assert_eq!(race_now(&events), race(&[&[AJ, YGM], &[MS, NA, WP]]));
}

#[test]
fn an_event_of_the_wrong_round_is_refused() {
    let mut events = three_ready();
    events.push(ended(1));
    let log = given(&THREE, json!({}), &events);
    let (t, data) = card(1, "Ann", &[(YGM, "forward", "named")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/round");
    assert_eq!(e.rule, "round 1 has ended; the game is in round 2");
    let (t, data) = ended(3);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/round");
    assert_eq!(
        e.rule,
        "the game is in round 2; end it with round_ended before round 3"
    );
}

#[test]
fn after_round_3_the_game_is_finished_and_takes_no_more_events() {
    let mut events = three_ready();
    events.extend([ended(1), ended(2), ended(3)]);
    let log = given(&THREE, json!({}), &events);
    assert_eq!(now(&log).status, Status::Finished);
    let (t, data) = card(3, "Ann", &[(YGM, "forward", "named")]);
    let e = refused(&log, t, data);
    assert_eq!(
        e.rule,
        "the game is already finished; to change it, correct or retract an earlier event"
    );
}

#[test]
fn a_round_out_of_range_is_refused() {
    let log = given(&THREE, json!({}), &[]);
    let e = refused(&log, "round_ended", json!({"round": 4}));
    assert_eq!(e.pointer, "/data/round");
    assert_eq!(e.rule, "round must be a whole number from 1 to 3");
}

// ---------------------------------------------------------------- bets

#[test]
fn the_race_cannot_start_before_every_player_has_bet_in_round_1() {
    let log = given(&THREE, json!({}), &[bet(1, "Ann", YGM), bet(1, "Bo", AJ)]);
    let (t, data) = card(1, "Ann", &[(YGM, "forward", "named")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data");
    assert_eq!(
        e.rule,
        "in round 1 every player must place a bet before the race starts, but Cy has 0"
    );
}

#[test]
fn with_two_players_one_bet_each_is_enough_to_start_the_race() {
    // rules: with 2 players each *can* have two bets; round 1 requires one each.
    let log = given(
        &["Ann", "Bo"],
        json!({}),
        &[bet(1, "Ann", YGM), bet(1, "Bo", AJ)],
    );
    let (t, data) = card(1, "Ann", &[(YGM, "forward", "named")]);
    let eval = when(&log, t, data).unwrap();
    // [YGM] [AJ MS NA WP]: Ann YGM 1st 2 + 3 = 5; Bo AJ 2nd 0 + 2 = 2.
    assert_eq!(groups(&eval), race(&[&[YGM], &[AJ, MS, NA, WP]]));
    assert_eq!(total(&eval, "Ann"), 5);
    assert_eq!(total(&eval, "Bo"), 2);
}

#[test]
fn with_two_players_the_race_cannot_start_before_each_has_a_bet() {
    // Ann's second bet does not stand in for Bo's first.
    let log = given(
        &["Ann", "Bo"],
        json!({}),
        &[bet(1, "Ann", YGM), bet(1, "Ann", AJ)],
    );
    let (t, data) = card(1, "Ann", &[(YGM, "forward", "named")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data");
    assert_eq!(
        e.rule,
        "in round 1 every player must place a bet before the race starts, but Bo has 0"
    );
    let (t, data) = ended(1);
    let e = refused(&log, t, data);
    assert_eq!(
        e.rule,
        "in round 1 every player must place a bet before round 1 ends, but Bo has 0"
    );
}

#[test]
fn a_finish_cannot_be_recorded_nor_round_1_ended_without_the_compulsory_bets() {
    let log = given(&THREE, json!({}), &[bet(1, "Ann", YGM)]);
    let (t, data) = recorded(1, [YGM, AJ, NA, WP, MS]);
    let e = refused(&log, t, data);
    assert_eq!(
        e.rule,
        "in round 1 every player must place a bet before the race starts, but Bo has 0 and Cy has 0"
    );
    let (t, data) = ended(1);
    let e = refused(&log, t, data);
    assert_eq!(
        e.rule,
        "in round 1 every player must place a bet before round 1 ends, but Bo has 0 and Cy has 0"
    );
}

#[test]
fn a_bet_by_someone_not_at_the_table_is_refused() {
    let log = given(&THREE, json!({}), &[]);
    let (t, data) = bet(1, "Zed", YGM);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/player");
    assert_eq!(
        e.rule,
        "\"Zed\" does not play in this game; the players are Ann, Bo and Cy"
    );
}

#[test]
fn a_bet_on_an_unknown_horse_is_refused() {
    let log = given(&THREE, json!({}), &[]);
    let (t, data) = bet(1, "Ann", "seabiscuit");
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/horse");
}

#[test]
fn a_second_bet_in_round_1_is_refused() {
    let log = given(&THREE, json!({}), &[bet(1, "Ann", YGM)]);
    let (t, data) = bet(1, "Ann", AJ);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/player");
    assert_eq!(
        e.rule,
        "Ann already placed one bet in round 1; to bet on another horse instead, name the bet it \
         replaces in \"replaces\" (or correct or retract the bet)"
    );
}

#[test]
fn a_third_bet_in_round_1_with_two_players_is_refused() {
    let log = given(
        &["Ann", "Bo"],
        json!({}),
        &[bet(1, "Ann", YGM), bet(1, "Ann", AJ)],
    );
    let (t, data) = bet(1, "Ann", MS);
    let e = refused(&log, t, data);
    assert_eq!(
        e.rule,
        "Ann already placed two bets (2 players) in round 1; to bet on another horse instead, \
         name the bet it replaces in \"replaces\" (or correct or retract the bet)"
    );
}

#[test]
fn a_first_bet_naming_a_bet_to_replace_is_refused() {
    // rules: "`replaces`, when present, must name one of the player's active bets".
    let log = given(&THREE, json!({}), &[]);
    let (t, data) = rebet(1, "Ann", YGM, AJ);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/replaces");
    assert_eq!(
        e.rule,
        "Ann has no active bet on Alaskan Justice to replace; Ann has no active bet yet (leave \
         \"replaces\" out)"
    );
}

#[test]
fn a_round_1_bet_naming_the_players_bet_replaces_it() {
    let events = vec![
        bet(1, "Ann", AJ),
        rebet(1, "Ann", YGM, AJ),
        bet(1, "Bo", MS),
        bet(1, "Cy", WP),
    ];
    let eval = now(&given(&THREE, json!({}), &events));
    // Ann's AJ bet is discarded. Start order: YGM 5th, round 1: 2 + 0 = 2.
    assert_eq!(
        lines(&eval, "Ann"),
        vec![line(
            "bet on You Got Me (round 1)",
            2,
            "start bonus 2 + 5th place 0 = 2"
        )]
    );
}

#[test]
fn a_later_bet_replaces_the_active_one_and_remembers_its_round() {
    let mut events = three_ready();
    events.push(ended(1));
    events.push(bet(2, "Bo", MS));
    let eval = now(&given(&THREE, json!({}), &events));
    // Start order stands: MS is 2nd. Bo's AJ bet is discarded: 1 + 2 − 1 = 2.
    assert_eq!(
        lines(&eval, "Bo"),
        vec![line(
            "bet on Maple Splendor (round 2)",
            2,
            "start bonus 1 + 2nd place 2 − late penalty 1 = 2"
        )]
    );
}

#[test]
fn with_three_players_a_later_bet_naming_the_active_one_replaces_it() {
    let mut events = three_ready();
    events.push(ended(1));
    events.push(rebet(2, "Bo", MS, AJ));
    let eval = now(&given(&THREE, json!({}), &events));
    // Bo's AJ bet is discarded. Start order: MS 2nd, 1 + 2 − 1 = 2.
    assert_eq!(
        lines(&eval, "Bo"),
        vec![line(
            "bet on Maple Splendor (round 2)",
            2,
            "start bonus 1 + 2nd place 2 − late penalty 1 = 2"
        )]
    );
}

#[test]
fn with_three_players_a_later_bet_naming_a_horse_not_backed_is_refused() {
    let mut events = three_ready();
    events.push(ended(1));
    let log = given(&THREE, json!({}), &events);
    let (t, data) = rebet(2, "Bo", MS, NA);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/replaces");
    assert_eq!(
        e.rule,
        "Bo has no active bet on Newton's Apple to replace; Bo's active bets: Alaskan Justice"
    );
}

#[test]
fn with_two_players_holding_two_a_bet_naming_a_horse_not_backed_is_refused() {
    let log = given(&["Ann", "Bo"], json!({}), &two_ready());
    let (t, data) = rebet(2, "Bo", NA, AJ);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/replaces");
    assert_eq!(
        e.rule,
        "Bo has no active bet on Alaskan Justice to replace; Bo's active bets: Maple Splendor and \
         Whiskey Princess"
    );
}

fn two_ready() -> Vec<(&'static str, Value)> {
    vec![
        bet(1, "Ann", YGM),
        bet(1, "Ann", AJ),
        bet(1, "Bo", MS),
        bet(1, "Bo", WP),
        ended(1),
    ]
}

#[test]
fn with_two_players_a_later_bet_without_replaces_is_refused() {
    let log = given(&["Ann", "Bo"], json!({}), &two_ready());
    let (t, data) = bet(2, "Bo", NA);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/replaces");
    assert_eq!(
        e.rule,
        "with 2 players Bo holds two bets (on Maple Splendor and Whiskey Princess); \"replaces\" \
         must name the horse of the bet this one replaces"
    );
}

#[test]
fn with_two_players_a_later_bet_replaces_the_bet_it_names() {
    let mut events = two_ready();
    events.push(rebet(2, "Bo", NA, WP));
    let eval = now(&given(&["Ann", "Bo"], json!({}), &events));
    // Start order AJ MS NA WP YGM. MS 2nd: 1 + 2 = 3; NA 3rd: 1 + 1 − 1 = 1.
    assert_eq!(
        lines(&eval, "Bo"),
        vec![
            line(
                "bet on Maple Splendor (round 1)",
                3,
                "start bonus 1 + 2nd place 2 = 3"
            ),
            line(
                "bet on Newton's Apple (round 2)",
                1,
                "start bonus 1 + 3rd place 1 − late penalty 1 = 1"
            ),
        ]
    );
    assert_eq!(total(&eval, "Bo"), 4);
}

/// Two players, one bet each in round 1; round 1 ends with the horses in the start order.
fn two_with_one_bet_each() -> Vec<(&'static str, Value)> {
    vec![bet(1, "Ann", YGM), bet(1, "Bo", AJ), ended(1)]
}

#[test]
fn with_two_players_a_second_bet_added_in_a_later_round_pays_that_rounds_late_penalty() {
    let mut events = two_with_one_bet_each();
    // Round 2: Ann adds Newton's Apple (no "replaces": it is her second bet, not a new first).
    events.push(bet(2, "Ann", NA));
    // [AJ MS NA WP YGM] → AJ forward, no group ahead: [AJ] [MS NA WP YGM]
    events.push(card(2, "Bo", &[(AJ, "forward", "top")]));
    events.push(ended(2));
    // Round 3: Bo adds Whiskey Princess.
    events.push(bet(3, "Bo", WP));
    // WP forward (named) lands on top of AJ: [WP AJ] [MS NA YGM];
    // YGM forward (named) lands on top of WP: [YGM WP AJ] [MS NA].
    events.push(card(
        3,
        "Bo",
        &[(WP, "forward", "named"), (YGM, "forward", "named")],
    ));
    events.push(ended(3));
    let eval = now(&given(&["Ann", "Bo"], json!({}), &events));
    assert_eq!(eval.status, Status::Finished);
    assert_eq!(groups(&eval), race(&[&[YGM, WP, AJ], &[MS, NA]]));
    // Ann: YGM 1st 2 + 3 = 5; NA 5th, round 2: 1 + 0 − 1 = 0 → 5.
    assert_eq!(
        lines(&eval, "Ann"),
        vec![
            line(
                "bet on You Got Me (round 1)",
                5,
                "start bonus 2 + 1st place 3 = 5"
            ),
            line(
                "bet on Newton's Apple (round 2)",
                0,
                "start bonus 1 + 5th place 0 − late penalty 1 = 0"
            ),
        ]
    );
    assert_eq!(total(&eval, "Ann"), 5);
    // Bo: AJ 3rd 0 + 1 = 1; WP 2nd, round 3: 2 + 2 − 2 = 2 → 3.
    assert_eq!(
        lines(&eval, "Bo"),
        vec![
            line(
                "bet on Alaskan Justice (round 1)",
                1,
                "start bonus 0 + 3rd place 1 = 1"
            ),
            line(
                "bet on Whiskey Princess (round 3)",
                2,
                "start bonus 2 + 2nd place 2 − late penalty 2 = 2"
            ),
        ]
    );
    assert_eq!(total(&eval, "Bo"), 3);
    assert_eq!(eval.scoreboard.winners, vec!["Ann"]);
}

#[test]
fn with_two_players_a_later_bet_naming_the_players_only_bet_replaces_it() {
    // rules: a named replacement is one "whatever the number of the player's active bets".
    let mut events = two_with_one_bet_each();
    events.push(rebet(2, "Bo", MS, AJ));
    let eval = now(&given(&["Ann", "Bo"], json!({}), &events));
    // Bo's AJ bet is discarded. Start order: MS 2nd, round 2: 1 + 2 − 1 = 2.
    assert_eq!(
        lines(&eval, "Bo"),
        vec![line(
            "bet on Maple Splendor (round 2)",
            2,
            "start bonus 1 + 2nd place 2 − late penalty 1 = 2"
        )]
    );
    assert_eq!(total(&eval, "Bo"), 2);
}

#[test]
fn with_two_players_holding_one_a_bet_naming_a_horse_not_backed_is_refused() {
    let log = given(&["Ann", "Bo"], json!({}), &two_with_one_bet_each());
    let (t, data) = rebet(2, "Bo", MS, WP);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/replaces");
    assert_eq!(
        e.rule,
        "Bo has no active bet on Whiskey Princess to replace; Bo's active bets: Alaskan Justice"
    );
}

#[test]
fn with_two_players_once_a_late_second_bet_is_placed_a_new_bet_names_the_one_it_replaces() {
    let mut events = two_with_one_bet_each();
    events.push(bet(2, "Ann", NA));
    events.push(ended(2));
    let log = given(&["Ann", "Bo"], json!({}), &events);
    let (t, data) = bet(3, "Ann", MS);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/replaces");
    assert_eq!(
        e.rule,
        "with 2 players Ann holds two bets (on You Got Me and Newton's Apple); \"replaces\" \
         must name the horse of the bet this one replaces"
    );
    let (t, data) = rebet(3, "Ann", MS, NA);
    let eval = when(&log, t, data).unwrap();
    // Start order AJ MS NA WP YGM. Ann: YGM 5th 2 + 0 = 2; MS 2nd, round 3: 1 + 2 − 2 = 1 → 3.
    assert_eq!(
        lines(&eval, "Ann"),
        vec![
            line(
                "bet on You Got Me (round 1)",
                2,
                "start bonus 2 + 5th place 0 = 2"
            ),
            line(
                "bet on Maple Splendor (round 3)",
                1,
                "start bonus 1 + 2nd place 2 − late penalty 2 = 1"
            ),
        ]
    );
    assert_eq!(total(&eval, "Ann"), 3);
}

#[test]
fn with_two_players_a_late_second_bet_may_be_replaced_in_the_round_it_was_placed() {
    let mut events = two_with_one_bet_each();
    events.push(bet(2, "Ann", NA));
    events.push(rebet(2, "Ann", MS, NA));
    let eval = now(&given(&["Ann", "Bo"], json!({}), &events));
    // Start order: YGM 5th, 2 + 0 = 2; MS 2nd, 1 + 2 − 1 = 2 → 4.
    assert_eq!(
        lines(&eval, "Ann"),
        vec![
            line(
                "bet on You Got Me (round 1)",
                2,
                "start bonus 2 + 5th place 0 = 2"
            ),
            line(
                "bet on Maple Splendor (round 2)",
                2,
                "start bonus 1 + 2nd place 2 − late penalty 1 = 2"
            ),
        ]
    );
    assert_eq!(total(&eval, "Ann"), 4);
}

#[test]
fn a_bet_placed_this_round_may_be_replaced_by_another_new_bet_of_the_same_round() {
    // The rules set no limit on new bets in rounds 2 and 3: each replaces the active one.
    let mut events = three_ready();
    events.push(ended(1));
    events.push(bet(2, "Bo", MS));
    events.push(bet(2, "Bo", NA));
    let eval = now(&given(&THREE, json!({}), &events));
    // Start order: NA 3rd, 1 + 1 − 1 = 1.
    assert_eq!(
        lines(&eval, "Bo"),
        vec![line(
            "bet on Newton's Apple (round 2)",
            1,
            "start bonus 1 + 3rd place 1 − late penalty 1 = 1"
        )]
    );
}

#[test]
fn a_bet_after_the_race_of_the_round_has_begun_is_refused() {
    let mut events = three_ready();
    events.push(ended(1));
    events.push(card(2, "Ann", &[(YGM, "forward", "named")]));
    let log = given(&THREE, json!({}), &events);
    let (t, data) = bet(2, "Bo", MS);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data");
    assert_eq!(
        e.rule,
        "Bo cannot bet now: bets of round 2 are placed before its race, which has begun"
    );
}

#[test]
fn an_initiative_is_one_capital_letter() {
    let log = given(&THREE, json!({}), &[]);
    for bad in [json!("AB"), json!("a"), json!(""), json!(1)] {
        let e = refused(
            &log,
            "bet_placed",
            json!({"round": 1, "player": "Ann", "horse": YGM, "initiative": bad}),
        );
        assert_eq!(e.pointer, "/data/initiative");
        assert_eq!(
            e.rule,
            "initiative is the bet card's letter, one capital letter from A to Z"
        );
    }
}

#[test]
fn two_backers_of_one_horse_with_the_same_letter_leave_the_race_order_unenforced() {
    // Their order is unknown, so no card is refused for its turn.
    let mut events = vec![
        lettered(1, "Ann", YGM, "A"),
        lettered(1, "Bo", YGM, "A"),
        lettered(1, "Cy", AJ, "A"),
    ];
    events.push(card(1, "Ann", &[(YGM, "forward", "named")]));
    events.push(card(1, "Cy", &[(NA, "forward", "named")]));
    events.push(card(1, "Ann", &[(WP, "forward", "named")]));
    // [YGM] [AJ MS NA WP] → NA onto YGM: [NA YGM] [AJ MS WP] → WP onto NA: [WP NA YGM] [AJ MS]
    assert_eq!(race_now(&events), race(&[&[WP, NA, YGM], &[AJ, MS]]));
}

#[test]
fn an_unknown_field_in_a_bet_is_refused() {
    let log = given(&THREE, json!({}), &[]);
    let e = refused(
        &log,
        "bet_placed",
        json!({"round": 1, "player": "Ann", "horse": YGM, "stake": 5}),
    );
    assert_eq!(e.pointer, "/data/stake");
    assert_eq!(
        e.rule,
        "unknown field \"stake\"; bet_placed has \"round\", \"player\", \"horse\", \"replaces\" \
         and \"initiative\""
    );
}

// ---------------------------------------------------------------- race order by letters

fn lettered_three() -> Vec<(&'static str, Value)> {
    // Start order AJ MS NA WP YGM → race order: Cy (AJ, A), Bo (AJ, B), Ann (YGM, A).
    vec![
        lettered(1, "Ann", YGM, "A"),
        lettered(1, "Bo", AJ, "B"),
        lettered(1, "Cy", AJ, "A"),
    ]
}

#[test]
fn with_letters_recorded_a_player_whose_turn_is_over_cannot_play() {
    let mut events = lettered_three();
    events.push(card(1, "Cy", &[(YGM, "forward", "named")]));
    events.push(card(1, "Bo", &[(NA, "forward", "named")]));
    // Several cards in a row in one's own turn are fine.
    events.push(card(1, "Bo", &[(MS, "back", "named")]));
    let log = given(&THREE, json!({}), &events);
    let (t, data) = card(1, "Cy", &[(WP, "forward", "named")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/player");
    assert_eq!(
        e.rule,
        "Cy's turn in round 1's race is over: the race order by bets and initiative is \
         Cy (Alaskan Justice A), Bo (Alaskan Justice B), Ann (You Got Me A), and Bo has already played"
    );
    // Ann, later in the order, may still play.
    let (t, data) = card(1, "Ann", &[(WP, "forward", "named")]);
    assert!(when(&log, t, data).is_ok());
}

#[test]
fn the_race_order_follows_the_leading_horse_at_the_start_of_each_round() {
    let mut events = lettered_three();
    // Round 1: YGM to the front: [YGM] [AJ MS NA WP].
    events.push(card(1, "Cy", &[(YGM, "forward", "named")]));
    events.push(ended(1));
    // Round 2 order: Ann (YGM, A) first, then Cy and Bo (AJ, A then B).
    events.push(card(2, "Ann", &[(MS, "forward", "named")]));
    events.push(card(2, "Cy", &[(NA, "forward", "named")]));
    let log = given(&THREE, json!({}), &events);
    let (t, data) = card(2, "Ann", &[(WP, "forward", "named")]);
    let e = refused(&log, t, data);
    assert!(
        e.rule
            .starts_with("Ann's turn in round 2's race is over: the race order by bets and initiative is Ann (You Got Me A), Cy (Alaskan Justice A), Bo (Alaskan Justice B)"),
        "{}",
        e.rule
    );
}

#[test]
fn with_two_players_a_player_with_two_bets_has_a_turn_for_each() {
    // Start order AJ MS NA WP YGM → race order: Bo (AJ), Ann (MS), Bo (NA), Ann (YGM).
    let mut events = vec![
        lettered(1, "Ann", MS, "A"),
        lettered(1, "Ann", YGM, "A"),
        lettered(1, "Bo", AJ, "A"),
        lettered(1, "Bo", NA, "A"),
    ];
    events.push(card(1, "Bo", &[(YGM, "forward", "named")]));
    events.push(card(1, "Ann", &[(NA, "forward", "named")]));
    events.push(card(1, "Bo", &[(WP, "forward", "named")]));
    events.push(card(1, "Ann", &[(MS, "forward", "named")]));
    let log = given(&["Ann", "Bo"], json!({}), &events);
    // [YGM] [AJ MS NA WP] → [NA YGM] [AJ MS WP] → [WP NA YGM] [AJ MS] → [MS WP NA YGM] [AJ]
    assert_eq!(groups(&now(&log)), race(&[&[MS, WP, NA, YGM], &[AJ]]));
    // Ann played at her last place: Bo's turns are over.
    let (t, data) = card(1, "Bo", &[(AJ, "forward", "named")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/player");
    assert_eq!(
        e.rule,
        "Bo's turn in round 1's race is over: the race order by bets and initiative is \
         Bo (Alaskan Justice A), Ann (Maple Splendor A), Bo (Newton's Apple A), Ann (You Got Me A), \
         and Ann has already played"
    );
}

#[test]
fn without_letters_the_race_order_is_not_enforced() {
    let mut events = three_ready();
    events.push(card(1, "Cy", &[(YGM, "forward", "named")]));
    events.push(card(1, "Bo", &[(NA, "forward", "named")]));
    events.push(card(1, "Cy", &[(WP, "forward", "named")]));
    // [WP NA YGM] [AJ MS]
    assert_eq!(race_now(&events), race(&[&[WP, NA, YGM], &[AJ, MS]]));
}

// ---------------------------------------------------------------- race_recorded

#[test]
fn a_recorded_finish_sets_the_placement() {
    let mut events = three_ready();
    events.push(recorded(1, [YGM, AJ, NA, WP, MS]));
    let eval = now(&given(&THREE, json!({}), &events));
    let details = eval.scoreboard.details.unwrap();
    assert_eq!(details["race"]["placement"], json!([YGM, AJ, NA, WP, MS]));
    assert_eq!(details["race"]["recorded_finish_only"], json!(true));
}

#[test]
fn a_recorded_finish_must_list_every_horse_once() {
    let log = given(&THREE, json!({}), &three_ready());
    let e = refused(
        &log,
        "race_recorded",
        json!({"round": 1, "order": [YGM, AJ, NA, WP]}),
    );
    assert_eq!(e.pointer, "/data/order");
    assert_eq!(
        e.rule,
        "order lists all five horses once each, 1st place first"
    );
    let (t, data) = recorded(1, [YGM, AJ, NA, AJ, MS]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/order/3");
    assert_eq!(
        e.rule,
        "Alaskan Justice is listed twice; the order lists all five horses once each"
    );
    let (t, data) = recorded(1, [YGM, AJ, "seabiscuit", WP, MS]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/order/2");
}

#[test]
fn cards_and_a_recorded_finish_do_not_mix() {
    let mut events = three_ready();
    events.push(card(1, "Ann", &[(YGM, "forward", "named")]));
    let log = given(&THREE, json!({}), &events);
    let (t, data) = recorded(1, [YGM, AJ, NA, WP, MS]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data/round");
    assert_eq!(
        e.rule,
        "round 1's race is being recorded card by card; record either the cards or only the finish"
    );

    let mut events = three_ready();
    events.push(recorded(1, [YGM, AJ, NA, WP, MS]));
    events.push(ended(1));
    let log = given(&THREE, json!({}), &events);
    let (t, data) = card(2, "Ann", &[(YGM, "back", "named")]);
    let e = refused(&log, t, data);
    assert_eq!(e.pointer, "/data");
    assert_eq!(
        e.rule,
        "an earlier race_recorded gave only the finish, so the groups of horses are unknown and \
         card moves cannot be checked; record the rest of the game with race_recorded"
    );
}

#[test]
fn a_finish_is_recorded_once_per_round() {
    let mut events = three_ready();
    events.push(recorded(1, [YGM, AJ, NA, WP, MS]));
    let log = given(&THREE, json!({}), &events);
    let (t, data) = recorded(1, [AJ, YGM, NA, WP, MS]);
    let e = refused(&log, t, data);
    assert_eq!(
        e.rule,
        "round 1's race is already recorded; correct that event instead"
    );
}

#[test]
fn a_finish_may_be_recorded_every_round_and_the_last_one_is_scored() {
    let mut events = three_ready();
    events.extend([
        recorded(1, [WP, YGM, AJ, NA, MS]),
        ended(1),
        recorded(2, [AJ, WP, YGM, NA, MS]),
        ended(2),
        recorded(3, [YGM, AJ, NA, WP, MS]),
    ]);
    let eval = now(&given(&THREE, json!({}), &events));
    // Round 3's finish counts: Ann YGM 1st 2 + 3 = 5; Bo AJ 2nd 0 + 2 = 2; Cy WP 4th 2 + 0 = 2.
    assert_eq!(total(&eval, "Ann"), 5);
    assert_eq!(total(&eval, "Bo"), 2);
    assert_eq!(total(&eval, "Cy"), 2);
}

// ---------------------------------------------------------------- scoring

#[test]
fn worked_example_1_start_bonus_plus_place_minus_late_penalty() {
    let events = vec![
        bet(1, "Ann", YGM),
        bet(1, "Bo", MS),
        bet(1, "Cy", NA),
        ended(1),
        rebet(2, "Bo", AJ, MS),
        ended(2),
        recorded(3, [YGM, AJ, NA, WP, MS]),
    ];
    let eval = now(&given(&THREE, json!({}), &events));
    assert_eq!(eval.status, Status::Finished);
    // rules example 1: Ann 2 + 3 − 0 = 5; Bo 0 + 2 − 1 = 1. Cy: Newton's Apple 3rd, 1 + 1 = 2.
    assert_eq!(
        lines(&eval, "Ann"),
        vec![line(
            "bet on You Got Me (round 1)",
            5,
            "start bonus 2 + 1st place 3 = 5"
        )]
    );
    assert_eq!(
        lines(&eval, "Bo"),
        vec![line(
            "bet on Alaskan Justice (round 2)",
            1,
            "start bonus 0 + 2nd place 2 − late penalty 1 = 1"
        )]
    );
    assert_eq!(total(&eval, "Cy"), 2);
    assert_eq!(eval.scoreboard.winners, vec!["Ann"]);
    assert_eq!(eval.scoreboard.tiebreak, None);
    let ranks: Vec<(&str, u32)> = eval
        .scoreboard
        .players
        .iter()
        .map(|p| (p.name.as_str(), p.rank))
        .collect();
    assert_eq!(ranks, vec![("Ann", 1), ("Cy", 2), ("Bo", 3)]);
    // Bo's bet sits under the round it was placed in.
    assert_eq!(player(&eval, "Bo").rounds[0].round, 2);
}

#[test]
fn fourth_and_fifth_place_score_nothing_and_a_round_3_bet_can_go_negative() {
    let events = vec![
        bet(1, "Ann", WP),
        bet(1, "Bo", MS),
        bet(1, "Cy", NA),
        ended(1),
        ended(2),
        rebet(3, "Bo", AJ, MS),
        recorded(3, [YGM, MS, NA, WP, AJ]),
    ];
    let eval = now(&given(&THREE, json!({}), &events));
    // Ann: WP 4th, 2 + 0 = 2. Bo: AJ 5th in round 3, 0 + 0 − 2 = −2. Cy: NA 3rd, 1 + 1 = 2.
    assert_eq!(
        lines(&eval, "Ann"),
        vec![line(
            "bet on Whiskey Princess (round 1)",
            2,
            "start bonus 2 + 4th place 0 = 2"
        )]
    );
    assert_eq!(
        lines(&eval, "Bo"),
        vec![line(
            "bet on Alaskan Justice (round 3)",
            -2,
            "start bonus 0 + 5th place 0 − late penalty 2 = -2"
        )]
    );
    assert_eq!(total(&eval, "Bo"), -2);
    // Ann and Cy tie on 2: the win is shared.
    assert_eq!(eval.scoreboard.winners, vec!["Ann", "Cy"]);
    let tiebreak = eval.scoreboard.tiebreak.unwrap();
    assert_eq!(tiebreak.rule, "none: Mint Julep has no tie-break");
    assert_eq!(
        tiebreak.detail,
        "Ann and Cy tied on 2 points and share the win"
    );
}

/// Ann, Bo and Cy end on You Got Me (Cy from round 2), Di on Whiskey Princess.
fn three_backers(options: Value) -> Evaluation {
    let events = vec![
        bet(1, "Ann", YGM),
        bet(1, "Bo", YGM),
        bet(1, "Cy", MS),
        bet(1, "Di", WP),
        ended(1),
        bet(2, "Cy", YGM),
        ended(2),
        recorded(3, [YGM, WP, AJ, NA, MS]),
    ];
    now(&given(&FOUR, options, &events))
}

#[test]
fn backers_of_one_horse_split_before_the_penalty_by_default_and_the_remainder_is_lost() {
    let eval = three_backers(json!({}));
    // YGM 1st: 2 + 3 = 5, 5 / 3 = 1 each (2 lost); Cy then pays 1: 1 − 1 = 0.
    assert_eq!(
        lines(&eval, "Ann"),
        vec![line(
            "bet on You Got Me (round 1)",
            1,
            "start bonus 2 + 1st place 3 = 5, split between 3 backers: 5 / 3 = 1 (remainder lost)"
        )]
    );
    assert_eq!(
        lines(&eval, "Cy"),
        vec![line(
            "bet on You Got Me (round 2)",
            0,
            "start bonus 2 + 1st place 3 = 5, split between 3 backers: 5 / 3 = 1 (remainder lost) \
             − late penalty 1 = 0"
        )]
    );
    assert_eq!(total(&eval, "Bo"), 1);
    // Di alone on WP 2nd: 2 + 2 = 4.
    assert_eq!(total(&eval, "Di"), 4);
    assert_eq!(eval.scoreboard.winners, vec!["Di"]);
}

#[test]
fn with_split_after_penalty_each_backer_divides_their_own_net_points() {
    let eval = three_backers(json!({"split": "after_penalty"}));
    // Ann, Bo: 5 / 3 = 1. Cy: (2 + 3 − 1) / 3 = 4 / 3 = 1.
    assert_eq!(total(&eval, "Ann"), 1);
    assert_eq!(total(&eval, "Bo"), 1);
    assert_eq!(
        lines(&eval, "Cy"),
        vec![line(
            "bet on You Got Me (round 2)",
            1,
            "start bonus 2 + 1st place 3 − late penalty 1 = 4, split between 3 backers: \
             4 / 3 = 1 (remainder lost)"
        )]
    );
}

/// Bo backs Alaskan Justice from round 2, Cy from round 3; it finishes last.
fn late_backers_of_the_last_horse(options: Value) -> Evaluation {
    let events = vec![
        bet(1, "Ann", YGM),
        bet(1, "Bo", MS),
        bet(1, "Cy", NA),
        bet(1, "Di", WP),
        ended(1),
        bet(2, "Bo", AJ),
        ended(2),
        bet(3, "Cy", AJ),
        recorded(3, [YGM, WP, NA, MS, AJ]),
    ];
    now(&given(&FOUR, options, &events))
}

#[test]
fn a_negative_share_after_the_penalty_rounds_toward_zero() {
    let eval = late_backers_of_the_last_horse(json!({"split": "after_penalty"}));
    // Bo: (0 + 0 − 1) / 2 = −0.5 → 0 (toward zero, not −1). Cy: (0 + 0 − 2) / 2 = −1.
    assert_eq!(
        lines(&eval, "Bo"),
        vec![line(
            "bet on Alaskan Justice (round 2)",
            0,
            "start bonus 0 + 5th place 0 − late penalty 1 = -1, split between 2 backers: \
             -1 / 2 = 0 (remainder lost, rounded toward zero)"
        )]
    );
    assert_eq!(total(&eval, "Cy"), -1);
}

#[test]
fn a_penalty_after_a_split_of_nothing_is_paid_in_full() {
    let eval = late_backers_of_the_last_horse(json!({}));
    // Before the penalty: (0 + 0) / 2 = 0; Bo 0 − 1 = −1; Cy 0 − 2 = −2.
    assert_eq!(total(&eval, "Bo"), -1);
    assert_eq!(
        lines(&eval, "Cy"),
        vec![line(
            "bet on Alaskan Justice (round 3)",
            -2,
            "start bonus 0 + 5th place 0 = 0, split between 2 backers: 0 / 2 = 0 − late penalty 2 = -2"
        )]
    );
    // Ann YGM 1st alone: 2 + 3 = 5. Di WP 2nd: 2 + 2 = 4.
    assert_eq!(total(&eval, "Ann"), 5);
    assert_eq!(total(&eval, "Di"), 4);
}

#[test]
fn with_two_players_bets_on_one_horse_are_not_split() {
    let events = vec![
        bet(1, "Ann", YGM),
        bet(1, "Ann", AJ),
        bet(1, "Bo", YGM),
        bet(1, "Bo", MS),
        ended(1),
        ended(2),
        recorded(3, [YGM, MS, AJ, NA, WP]),
    ];
    let eval = now(&given(&["Ann", "Bo"], json!({}), &events));
    // Both get YGM in full: 2 + 3 = 5. Ann AJ 3rd: 0 + 1 = 1 → 6. Bo MS 2nd: 1 + 2 = 3 → 8.
    assert_eq!(
        lines(&eval, "Ann"),
        vec![
            line(
                "bet on You Got Me (round 1)",
                5,
                "start bonus 2 + 1st place 3 = 5"
            ),
            line(
                "bet on Alaskan Justice (round 1)",
                1,
                "start bonus 0 + 3rd place 1 = 1"
            ),
        ]
    );
    assert_eq!(total(&eval, "Ann"), 6);
    assert_eq!(total(&eval, "Bo"), 8);
    assert_eq!(eval.scoreboard.winners, vec!["Bo"]);
    // The same split option changes nothing with 2 players.
    let eval = now(&given(
        &["Ann", "Bo"],
        json!({"split": "after_penalty"}),
        &events,
    ));
    assert_eq!(total(&eval, "Ann"), 6);
}

#[test]
fn a_game_in_progress_is_scored_on_the_race_as_it_stands() {
    let mut events = three_ready();
    events.push(card(1, "Ann", &[(YGM, "forward", "named")]));
    let eval = now(&given(&THREE, json!({}), &events));
    assert_eq!(eval.status, Status::InProgress);
    // [YGM] [AJ MS NA WP]: Ann YGM 1st 2 + 3 = 5; Bo AJ 2nd 0 + 2 = 2; Cy WP 5th 2 + 0 = 2.
    assert_eq!(total(&eval, "Ann"), 5);
    assert_eq!(total(&eval, "Bo"), 2);
    assert_eq!(total(&eval, "Cy"), 2);
}

#[test]
fn the_score_details_show_the_race_for_a_phone_to_draw() {
    let mut events = three_ready();
    events.push(mint_julep(1, "Ann", AJ, &[(AJ, "back", "top")]));
    let eval = now(&given(&THREE, json!({}), &events));
    // [MS NA WP YGM] [AJ], Alaskan Justice flipped.
    let horse = |id: &str, name: &str, flipped: bool| json!({"horse": id, "name": name, "flipped": flipped});
    assert_eq!(
        eval.scoreboard.details,
        Some(json!({
            "round": 1,
            "race_started": true,
            "race": {
                "groups": [
                    [
                        horse(MS, "Maple Splendor", false),
                        horse(NA, "Newton's Apple", false),
                        horse(WP, "Whiskey Princess", false),
                        horse(YGM, "You Got Me", false),
                    ],
                    [horse(AJ, "Alaskan Justice", true)],
                ],
                "placement": [MS, NA, WP, YGM, AJ],
                "recorded_finish_only": false,
            },
            "bets": [
                {"player": "Ann", "horse": YGM, "round": 1, "initiative": null},
                {"player": "Bo", "horse": AJ, "round": 1, "initiative": null},
                {"player": "Cy", "horse": WP, "round": 1, "initiative": null},
            ],
        }))
    );
}

#[test]
fn a_game_at_its_first_event_scores_zero_for_everyone_and_names_no_winner_or_leader() {
    let eval = now(&given(&THREE, json!({}), &[]));
    assert!(
        eval.scoreboard
            .players
            .iter()
            .all(|p| p.total == 0 && p.rounds.is_empty())
    );
    assert!(eval.scoreboard.winners.is_empty());
    assert!(eval.scoreboard.leaders.is_empty());
}

// ---------------------------------------------------------------- setup and options

#[test]
fn the_split_house_rule_is_always_listed() {
    let eval = now(&given(&THREE, json!({}), &[]));
    let rules = &eval.scoreboard.house_rules;
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].option, "split");
    assert_eq!(rules[0].value, json!("before_penalty"));
    assert!(rules[0].default);
    let eval = now(&given(&THREE, json!({"split": "after_penalty"}), &[]));
    assert_eq!(eval.scoreboard.house_rules[0].value, json!("after_penalty"));
    assert!(!eval.scoreboard.house_rules[0].default);
}

#[test]
fn the_effective_options_fill_in_the_default_split() {
    let setup = Game::MintJulep
        .start(
            &[
                PlayerEntry {
                    name: "Ann".into(),
                    color: None,
                },
                PlayerEntry {
                    name: "Bo".into(),
                    color: None,
                },
            ],
            &Value::Null,
        )
        .unwrap();
    assert_eq!(
        setup.options,
        json!({"split": "before_penalty", "last_race_ends_game": true})
    );
}

#[test]
fn an_unknown_split_or_option_is_refused_at_setup() {
    let entries: Vec<PlayerEntry> = THREE
        .iter()
        .map(|n| PlayerEntry {
            name: (*n).into(),
            color: None,
        })
        .collect();
    let e = Game::MintJulep
        .start(&entries, &json!({"split": "evenly"}))
        .unwrap_err();
    assert_eq!(e.pointer, "/options/split");
    let e = Game::MintJulep
        .start(&entries, &json!({"tiebreak": true}))
        .unwrap_err();
    assert_eq!(e.pointer, "/options/tiebreak");
    assert_eq!(
        e.rule,
        "unknown option \"tiebreak\"; this game's options are: last_race_ends_game, split"
    );
}

#[test]
fn mint_julep_is_for_two_to_four_players() {
    let entries: Vec<PlayerEntry> = ["Ann", "Bo", "Cy", "Di", "Ed"]
        .iter()
        .map(|n| PlayerEntry {
            name: (*n).into(),
            color: None,
        })
        .collect();
    let e = Game::MintJulep.start(&entries, &json!({})).unwrap_err();
    assert_eq!(e.pointer, "/players");
    assert_eq!(e.rule, "Mint Julep is played by 2 to 4 players, not 5");
}

// ---------------------------------------------------------------- common events

#[test]
fn retracting_a_bet_reopens_the_compulsory_bet_check() {
    let mut events = three_ready();
    events.push(card(1, "Ann", &[(YGM, "forward", "named")]));
    let log = given(&THREE, json!({}), &events);
    // Retracting Cy's bet (event 4) leaves the card of event 5 played before Cy's bet.
    let e = refused(&log, "retract", json!({"seq": 4}));
    assert_eq!(e.pointer, "/data/seq");
    assert_eq!(
        e.rule,
        "after this change, event 5 (card_played) would break a rule: in round 1 every player \
         must place a bet before the race starts, but Cy has 0"
    );
}

#[test]
fn correcting_a_move_replays_the_race_with_the_new_move() {
    let mut events = three_ready();
    events.push(card(1, "Ann", &[(YGM, "forward", "named")]));
    let log = given(&THREE, json!({}), &events);
    let (_, data) = card(1, "Ann", &[(WP, "forward", "named")]);
    let eval = when(&log, "correct", json!({"seq": 5, "data": data})).unwrap();
    assert_eq!(groups(&eval), race(&[&[WP], &[AJ, MS, NA, YGM]]));
}

// ---------------------------------------------------------------- the bench fixture

#[test]
fn the_bench_fixture_replays_to_a_finished_game_with_hand_checked_totals() {
    let text = include_str!("../../../benches/fixtures/mint-julep.json");
    let raw: Vec<Value> = serde_json::from_str(text).unwrap();
    let log: Vec<LogEvent> = raw
        .iter()
        .map(|e| {
            LogEvent::new(
                e["seq"].as_u64().unwrap(),
                e["type"].as_str().unwrap(),
                e["data"].clone(),
            )
        })
        .collect();
    // Every event is also accepted when appended one by one.
    for i in 1..log.len() {
        let new = NewEvent {
            event_type: log[i].event_type.clone(),
            data: log[i].data.clone(),
        };
        if let Err(e) = Game::MintJulep.check_append(&log[..i], &[new]) {
            panic!("fixture event {} refused: {e}", log[i].seq);
        }
    }
    let eval = now(&log);
    assert_eq!(eval.status, Status::Finished);
    let details = eval.scoreboard.details.clone().unwrap();
    assert_eq!(details["race"]["placement"], json!(FIXTURE_PLACEMENT));
    let totals: Vec<(&str, i64)> = eval
        .scoreboard
        .players
        .iter()
        .map(|p| (p.name.as_str(), p.total))
        .collect();
    assert_eq!(totals, FIXTURE_TOTALS.to_vec());
}

/// The fixture's final race: [YGM NA] [MS AJ WP].
const FIXTURE_PLACEMENT: [&str; 5] = [YGM, NA, MS, AJ, WP];
/// Ann: You Got Me 1st, round 1, alone: 2 + 3 = 5.
/// Bo: Maple Splendor 3rd, round 2, alone: 1 + 1 − 1 = 1.
/// Di (round 1) and Cy (round 3) share Newton's Apple 2nd: (1 + 2) / 2 = 1 each, remainder
/// lost; Di 1, Cy 1 − 2 = −1. Bo and Di tie for 2nd; ranked order keeps seat order.
const FIXTURE_TOTALS: [(&str, i64); 4] = [("Ann", 5), ("Bo", 1), ("Di", 1), ("Cy", -1)];

// ---------------------------------------------------------------- facts for the club statistics

/// One player's expected facts for one active bet.
fn bet_facts(name: &str, horse: &str, won: bool, penalty: i64, points: i64) -> Vec<Fact> {
    vec![
        Fact::stored_player(name, format!("bet:{horse}"), 1),
        Fact::stored_player(name, format!("bet_won:{horse}"), i64::from(won)),
        Fact::stored_player(name, "late_penalty", penalty),
        Fact::stored_player(name, "late_bets", i64::from(penalty > 0)),
        Fact::stored_player(name, format!("bet_points:{horse}"), points),
    ]
}

#[test]
fn a_finished_game_gives_bet_facts_and_the_winning_horse() {
    // Given Ann and Bo on You Got Me from round 1, Cy on it from round 2 (penalty 1), Di on
    // Whiskey Princess; finish [YGM, WP, AJ, NA, MS].
    let eval = three_backers(json!({}));
    assert_eq!(eval.status, Status::Finished);
    // Then: YGM 2 + 3 = 5, split 3 ways = 1 each; Cy 1 − 1 = 0. Di WP 2 + 2 = 4 and wins alone.
    let expected = [
        bet_facts("Ann", YGM, false, 0, 1),
        bet_facts("Bo", YGM, false, 0, 1),
        bet_facts("Cy", YGM, false, 1, 0),
        bet_facts("Di", WP, true, 0, 4),
        vec![Fact::stored_game(format!("winning_horse:{YGM}"), 1)],
    ]
    .concat();
    assert_eq!(eval.facts, expected);
}

/// Ann: AJ (round 1) and MS (replacing WP in round 3, penalty 2); Bo: YGM and NA (round 1).
fn two_players_two_bets_each() -> Evaluation {
    let events = vec![
        bet(1, "Ann", AJ),
        bet(1, "Ann", WP),
        bet(1, "Bo", YGM),
        bet(1, "Bo", NA),
        ended(1),
        ended(2),
        rebet(3, "Ann", MS, WP),
        recorded(3, [MS, NA, YGM, AJ, WP]),
    ];
    now(&given(&["Ann", "Bo"], json!({}), &events))
}

#[test]
fn with_two_players_each_of_both_bets_gives_its_facts() {
    // Given `two_players_two_bets_each`, finish [MS, NA, YGM, AJ, WP]: Ann AJ 0 + 0 = 0,
    // MS 1 + 3 − 2 = 2 → 2; Bo YGM 2 + 1 = 3, NA 1 + 2 = 3 → 6, Bo wins.
    let eval = two_players_two_bets_each();
    assert_eq!(eval.status, Status::Finished);
    assert_eq!(total(&eval, "Ann"), 2);
    assert_eq!(total(&eval, "Bo"), 6);
    let expected = [
        bet_facts("Ann", AJ, false, 0, 0),
        bet_facts("Ann", MS, false, 2, 2),
        bet_facts("Bo", YGM, true, 0, 3),
        bet_facts("Bo", NA, true, 0, 3),
        vec![Fact::stored_game(format!("winning_horse:{MS}"), 1)],
    ]
    .concat();
    assert_eq!(eval.facts, expected);
}

#[test]
fn the_declared_insights_come_from_the_facts_of_finished_games() {
    // Given the two games above: You Got Me backed by Ann, Bo and Cy (1, 1 and 0 points, Cy
    // late by 1) and won by nobody's backer, Di's Whiskey Princess (4, Di wins); and Ann's
    // Alaskan Justice (0) and late Maple Splendor (2, penalty 2), Bo's winning You Got Me (3)
    // and Newton's Apple (3). Races won: You Got Me, Maple Splendor.
    let sums = summed(&[three_backers(json!({})), two_players_two_bets_each()]);
    // When the club's insights are drawn from them.
    let insights = MintJulep::insights(&sums);
    // Then every declared insight: You Got Me 4 bets, 1 won, 1 + 1 + 0 + 3 = 5 points;
    // two late bets cost 1 + 2.
    assert_eq!(
        insights.keys().map(String::as_str).collect::<Vec<_>>(),
        names(MintJulep::INSIGHTS)
    );
    let horse = |bets, won, rate, points, races| {
        json!({"bets": bets, "bettor_won": won, "win_rate": rate, "average_points": points,
               "races_won": races})
    };
    assert_eq!(
        Value::Object(insights),
        json!({
            "horses": {
                AJ: horse(1, 0, 0.0, 0.0, 0),
                MS: horse(1, 0, 0.0, 2.0, 1),
                NA: horse(1, 1, 1.0, 3.0, 0),
                WP: horse(1, 1, 1.0, 4.0, 0),
                YGM: horse(4, 1, 0.25, 1.25, 1)},
            "late_bets": {"bets": 2, "total_penalty": 3, "average_penalty": 1.5}
        })
    );
}

#[test]
fn recording_the_last_rounds_finish_ends_the_game() {
    // Given rounds 1 and 2 ended
    let mut events = three_ready();
    events.extend([
        recorded(1, [WP, YGM, AJ, NA, MS]),
        ended(1),
        recorded(2, [AJ, WP, YGM, NA, MS]),
        ended(2),
    ]);
    let before = now(&given(&THREE, json!({}), &events));
    // When round 3's finish is recorded
    events.push(recorded(3, [YGM, AJ, NA, WP, MS]));
    let after = now(&given(&THREE, json!({}), &events));
    // Then the game is finished without a round_ended: Ann YGM 1st 2 + 3 = 5 wins.
    assert_eq!(before.status, Status::InProgress);
    assert_eq!(after.status, Status::Finished);
    assert_eq!(after.scoreboard.winners, vec!["Ann"]);
}

#[test]
fn the_last_rounds_round_ended_after_its_recorded_finish_is_accepted_and_changes_nothing() {
    // Given a game recorded by its finishes, round 3's finish already ending it
    let mut events = three_ready();
    events.extend([
        recorded(1, [WP, YGM, AJ, NA, MS]),
        ended(1),
        recorded(2, [AJ, WP, YGM, NA, MS]),
        ended(2),
        recorded(3, [YGM, AJ, NA, WP, MS]),
    ]);
    let log = given(&THREE, json!({}), &events);
    let finished = now(&log);
    // When the table ends round 3 as the rules' event contract has it
    let eval = when(&log, "round_ended", json!({"round": 3})).unwrap();
    // Then it is accepted, the game stays finished with the same score: Ann YGM 1st 2 + 3 = 5
    assert_eq!(eval.status, Status::Finished);
    assert_eq!(eval.scoreboard, finished.scoreboard);
    assert_eq!(total(&eval, "Ann"), 5);
    // An earlier round's end is still refused, and so is a second end of round 3
    let e = refused(&log, "round_ended", json!({"round": 2}));
    assert_eq!(e.rule, "round 2 has ended; the game is in round 3");
    let mut ended_log = log.clone();
    ended_log.push(LogEvent::new(
        ended_log.len() as u64 + 1,
        "round_ended",
        json!({"round": 3}),
    ));
    let (event_type, data) = ended(3);
    let rejection = crate::log::check_append::<MintJulep>(
        &ended_log,
        &[NewEvent {
            event_type: event_type.into(),
            data,
        }],
    )
    .unwrap_err();
    assert_eq!(
        rejection.rule,
        "the game is already finished; to change it, correct or retract an earlier event"
    );
    // Nor may anything else follow the finish
    let e = refused(
        &log,
        "bet_placed",
        json!({"round": 3, "player": "Bo", "horse": MS}),
    );
    assert_eq!(
        e.rule,
        "the game is already finished; to change it, correct or retract an earlier event"
    );
}

#[test]
fn a_game_stored_before_schema_3_still_ends_with_round_ended_after_the_last_finish() {
    // Given a game_started as version 2 wrote it (no last_race_ends_game), and its rounds
    let rounds = [
        recorded(1, [WP, YGM, AJ, NA, MS]),
        ended(1),
        recorded(2, [AJ, WP, YGM, NA, MS]),
        ended(2),
        recorded(3, [YGM, AJ, NA, WP, MS]),
    ];
    let mut log = started(&THREE, json!({}));
    log[0].data["options"] = json!({"split": "before_penalty"});
    log[0].schema_version = 2;
    for (event_type, data) in three_ready().into_iter().chain(rounds) {
        let seq = log.len() as u64 + 1;
        log.push(LogEvent {
            schema_version: 2,
            ..LogEvent::new(seq, event_type, data)
        });
    }
    // When it is replayed, then round 3's finish left it in progress, as it was played
    assert_eq!(now(&log).status, Status::InProgress);
    // And its stored round_ended finishes it: Ann 5 wins.
    let (event_type, data) = ended(3);
    let seq = log.len() as u64 + 1;
    log.push(LogEvent {
        schema_version: 2,
        ..LogEvent::new(seq, event_type, data)
    });
    let eval = now(&log);
    assert_eq!(eval.status, Status::Finished);
    assert_eq!(eval.scoreboard.winners, vec!["Ann"]);
}

/// A game as schema version 4 stored it: its `game_started` with the effective options of that
/// version, and events accepted then (not checked again on the way in).
fn stored_at_version_4(names: &[&str], events: &[(&str, Value)]) -> Vec<LogEvent> {
    let mut log = started(names, json!({}));
    log[0].data["options"] = json!({"split": "before_penalty", "last_race_ends_game": true});
    log[0].schema_version = 4;
    for (event_type, data) in events {
        let seq = log.len() as u64 + 1;
        log.push(LogEvent {
            schema_version: 4,
            ..LogEvent::new(seq, *event_type, data.clone())
        });
    }
    log
}

#[test]
fn a_game_stored_before_schema_5_keeps_a_two_player_bet_naming_the_only_bet_as_a_second() {
    // Given Bo's round-2 bet on MS naming his only bet (AJ), stored when that added a second
    let mut events = two_with_one_bet_each();
    events.push(rebet(2, "Bo", MS, AJ));
    let log = stored_at_version_4(&["Ann", "Bo"], &events);
    // When it is replayed, then both bets still score. Start order: AJ 1st, 0 + 3 = 3;
    // MS 2nd, round 2: 1 + 2 − 1 = 2 → 5.
    let eval = now(&log);
    assert_eq!(
        lines(&eval, "Bo"),
        vec![
            line(
                "bet on Alaskan Justice (round 1)",
                3,
                "start bonus 0 + 1st place 3 = 3"
            ),
            line(
                "bet on Maple Splendor (round 2)",
                2,
                "start bonus 1 + 2nd place 2 − late penalty 1 = 2"
            ),
        ]
    );
    assert_eq!(total(&eval, "Bo"), 5);
    // And a bet appended to that game today is read the old way too: Ann names her only bet
    // (YGM) and now holds two. YGM 5th, 2 + 0 = 2; NA 3rd, round 2: 1 + 1 − 1 = 1 → 3.
    let (t, data) = rebet(2, "Ann", NA, YGM);
    let eval = when(&log, t, data).unwrap();
    assert_eq!(lines(&eval, "Ann").len(), 2);
    assert_eq!(total(&eval, "Ann"), 3);
}

#[test]
fn a_game_stored_before_schema_5_keeps_bets_whose_replaces_named_no_bet() {
    // Given, as version 4 accepted them: Ann's round-1 bet naming a horse she had no bet on
    // (left aside), and Bo's round-2 bet naming NA while he backed AJ (replaced AJ anyway)
    let mut events = vec![rebet(1, "Ann", YGM, AJ), bet(1, "Bo", AJ), bet(1, "Cy", WP)];
    events.push(ended(1));
    events.push(rebet(2, "Bo", MS, NA));
    let log = stored_at_version_4(&THREE, &events);
    let eval = now(&log);
    // Start order: YGM 5th, 2 + 0 = 2; Bo's MS 2nd, round 2: 1 + 2 − 1 = 2.
    assert_eq!(
        lines(&eval, "Ann"),
        vec![line(
            "bet on You Got Me (round 1)",
            2,
            "start bonus 2 + 5th place 0 = 2"
        )]
    );
    assert_eq!(
        lines(&eval, "Bo"),
        vec![line(
            "bet on Maple Splendor (round 2)",
            2,
            "start bonus 1 + 2nd place 2 − late penalty 1 = 2"
        )]
    );
}

#[test]
fn a_new_game_cannot_set_the_old_reading_of_replaces() {
    let entries: Vec<PlayerEntry> = THREE
        .iter()
        .map(|n| PlayerEntry {
            name: (*n).into(),
            color: None,
        })
        .collect();
    let e = Game::MintJulep
        .start(&entries, &json!({"replaces_only_between_two_bets": true}))
        .unwrap_err();
    assert_eq!(e.pointer, "/options/replaces_only_between_two_bets");
    assert_eq!(
        e.rule,
        "unknown option \"replaces_only_between_two_bets\"; this game's options are: \
         last_race_ends_game, split"
    );
}
