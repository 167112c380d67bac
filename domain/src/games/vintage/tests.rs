//! Given/when/then tests on pure data: given these events, when this one arrives, then this
//! score or this rule error. Expected numbers are worked out by hand in the comments.
//!
//! Test cards are `c1`…`c63` from [`card`]: value k % 4; colour by k % 3 (0 blue, 1 red,
//! 2 green); period by tens (1–9 50s, 10–19 60s, 20–29 70s, 30–39 50s, …); type by k % 7
//! (lamp, radio, chair, vase, phone, clock, bowl).

use serde_json::{Value, json};

use super::Vintage;
use super::state::Record;
use crate::games::Game;
use crate::insights::{names, summed};
use crate::log::{self, Evaluation, LogEvent, NewEvent, Rejection, Status};
use crate::ruleset::Ruleset;
use crate::score::{Fact, PlayerScore};
use crate::setup::PlayerEntry;
use crate::untranslated::{FRENCH, PERSIAN};

// ---------------------------------------------------------------------------------------------
// Helpers: cards, logs, and a small table model that writes long logs.

const TYPES: [&str; 7] = ["lamp", "radio", "chair", "vase", "phone", "clock", "bowl"];
const COLOURS: [&str; 3] = ["blue", "red", "green"];
const PERIODS: [&str; 3] = ["50s", "60s", "70s"];

fn id(k: u32) -> String {
    format!("c{k}")
}

/// The description of test card `k`.
fn card(k: u32) -> Value {
    json!({
        "id": id(k),
        "type": TYPES[(k % 7) as usize],
        "colour": COLOURS[(k % 3) as usize],
        "period": PERIODS[((k / 10) % 3) as usize],
        "value": k % 4,
    })
}

/// Test card `k`, but worth exactly 1.
fn card_worth_one(k: u32) -> Value {
    let mut c = card(k);
    c["value"] = json!(1);
    c
}

fn antique(id: &str, object: &str, colour: &str, period: &str, value: u32) -> Value {
    json!({"id": id, "type": object, "colour": colour, "period": period, "value": value})
}

/// Most blue objects 4, most 60s objects 3, most lamps 2.
fn prizes() -> Value {
    json!([
        {"id": "blue", "name": "Most blue objects", "attribute": "colour", "value": "blue", "points": 4},
        {"id": "sixties", "name": "Most 60s objects", "attribute": "period", "value": "60s", "points": 3},
        {"id": "lamps", "name": "Most lamps", "attribute": "type", "value": "lamp", "points": 2},
    ])
}

fn entries(names: &[&str]) -> Vec<PlayerEntry> {
    names
        .iter()
        .map(|n| PlayerEntry {
            name: (*n).into(),
            color: None,
        })
        .collect()
}

/// A log holding only `game_started`, created through the real setup.
fn started(names: &[&str], options: Value) -> Vec<LogEvent> {
    let setup = Game::Vintage
        .start(&entries(names), &options)
        .expect("the setup is valid");
    vec![LogEvent::new(
        1,
        "game_started",
        json!({"game": "vintage", "players": setup.players, "options": setup.options}),
    )]
}

fn new_event(event_type: &str, data: &Value) -> NewEvent {
    NewEvent {
        event_type: event_type.into(),
        data: data.clone(),
    }
}

/// Appends an event that must be accepted; returns the evaluation of the whole log.
fn record(log: &mut Vec<LogEvent>, event_type: &str, data: Value) -> Evaluation {
    let evaluation = log::check_append::<Vintage>(log, &[new_event(event_type, &data)])
        .unwrap_or_else(|r| panic!("{event_type} {data} was refused: {r}"));
    log.push(LogEvent::new(log.len() as u64 + 1, event_type, data));
    evaluation
}

/// An event that must be refused; the log is unchanged.
fn refused(log: &[LogEvent], event_type: &str, data: Value) -> Rejection {
    match log::check_append::<Vintage>(log, &[new_event(event_type, &data)]) {
        Ok(_) => panic!("{event_type} {data} was accepted"),
        Err(rejection) => rejection,
    }
}

fn assert_refused(rejection: &Rejection, pointer: &str, rule: &str) {
    assert_eq!(
        (rejection.pointer.as_str(), rejection.rule.as_str()),
        (pointer, rule)
    );
}

fn evaluate(log: &[LogEvent]) -> Evaluation {
    log::evaluate::<Vintage>(log).expect("the log replays")
}

fn totals(evaluation: &Evaluation) -> Vec<(String, i64)> {
    let mut by_seat: Vec<&PlayerScore> = evaluation.scoreboard.players.iter().collect();
    by_seat.sort_by_key(|p| p.seat);
    by_seat.iter().map(|p| (p.name.clone(), p.total)).collect()
}

fn player<'a>(evaluation: &'a Evaluation, name: &str) -> &'a PlayerScore {
    evaluation
        .scoreboard
        .players
        .iter()
        .find(|p| p.name == name)
        .expect("a player of the game")
}

/// A player's breakdown lines as (label, points, detail).
fn ranks(evaluation: &Evaluation) -> Vec<(&str, u32)> {
    evaluation
        .scoreboard
        .players
        .iter()
        .map(|p| (p.name.as_str(), p.rank))
        .collect()
}

fn lines(evaluation: &Evaluation, name: &str) -> Vec<(String, i64, String)> {
    let p = player(evaluation, name);
    assert_eq!(p.rounds.len(), 1, "Vintage has one scoring round");
    p.rounds[0]
        .breakdown
        .iter()
        .map(|l| (l.label.to_string(), l.points, l.detail.to_string()))
        .collect()
}

fn details(evaluation: &Evaluation) -> &Value {
    evaluation
        .scoreboard
        .details
        .as_ref()
        .expect("Vintage always has details")
}

fn ids(ks: &[u32]) -> Value {
    json!(ks.iter().map(|k| id(*k)).collect::<Vec<_>>())
}

/// How a simulated turn takes its card.
enum Take {
    /// Steal the newest card of this seat's showcase.
    Steal(usize),
    /// Steal this card from this seat.
    StealCard(usize, u32),
    /// Dig the top of the discard pile.
    Dig,
}

/// A bare model of the table that writes long logs: the deck yields `c{dealt+1}`, `c{dealt+2}`
/// …; each turn banks the oldest showcase card, takes as told, draws two (from the reshuffled
/// discard pile, lowest id first, once the deck runs out), keeps the first and discards the
/// second. It checks no rule: the engine does.
struct Sim {
    names: Vec<&'static str>,
    describe: fn(u32) -> Value,
    showcases: Vec<Vec<u32>>,
    discard: Vec<u32>,
    next_new: u32,
    reshuffled: Option<Vec<u32>>,
    turns: usize,
}

impl Sim {
    /// Deals c1, c2, … in seat order (1, 2, then 3 cards); returns the `showcases_dealt` data.
    fn deal(names: &[&'static str], describe: fn(u32) -> Value) -> (Sim, Value) {
        let mut next = 1;
        let mut showcases = Vec::new();
        let mut data = serde_json::Map::new();
        for (seat, name) in names.iter().enumerate() {
            let size = (seat + 1).min(3) as u32;
            let cards: Vec<u32> = (next..next + size).collect();
            next += size;
            data.insert(
                (*name).into(),
                json!(cards.iter().map(|k| describe(*k)).collect::<Vec<_>>()),
            );
            showcases.push(cards);
        }
        let sim = Sim {
            names: names.to_vec(),
            describe,
            showcases,
            discard: Vec::new(),
            next_new: next,
            reshuffled: None,
            turns: 0,
        };
        (sim, json!({"showcases": data}))
    }

    /// The `turn_taken` data of the next turn, applied to the model.
    fn turn(&mut self, take: Take) -> Value {
        let seat = self.turns % self.names.len();
        let banked = self.showcases[seat].remove(0);
        let (steal, dig) = match take {
            Take::Steal(from) => {
                let card = self.showcases[from].pop().expect("a card to steal");
                self.showcases[seat].push(card);
                (
                    json!({"from": self.names[from], "card": id(card)}),
                    Value::Null,
                )
            }
            Take::StealCard(from, card) => {
                self.showcases[from].retain(|c| *c != card);
                self.showcases[seat].push(card);
                (
                    json!({"from": self.names[from], "card": id(card)}),
                    Value::Null,
                )
            }
            Take::Dig => {
                let card = self.discard.pop().expect("a card to dig");
                self.showcases[seat].push(card);
                (Value::Null, json!(id(card)))
            }
        };
        let mut drawn: Vec<(u32, Value)> = Vec::new();
        while drawn.len() < 2 {
            if self.next_new <= 63 {
                drawn.push((self.next_new, (self.describe)(self.next_new)));
                self.next_new += 1;
                continue;
            }
            let pile = self.reshuffled.get_or_insert_with(|| {
                let mut pile = std::mem::take(&mut self.discard);
                pile.sort_unstable();
                pile
            });
            if pile.is_empty() {
                break;
            }
            let k = pile.remove(0);
            drawn.push((k, json!(id(k))));
        }
        let kept = drawn.first().map(|(k, _)| *k);
        self.showcases[seat].extend(kept);
        self.discard.extend(drawn.iter().skip(1).map(|(k, _)| *k));
        self.turns += 1;
        json!({
            "player": self.names[seat],
            "banked": id(banked),
            "steal": steal,
            "dig": dig,
            "drawn": drawn.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
            "kept": kept.map(id),
        })
    }

    /// `final_banked` data: each seat banks its `counts[seat]` oldest showcase cards.
    fn final_bank(&self, counts: &[usize]) -> Value {
        let banked: serde_json::Map<String, Value> = self
            .names
            .iter()
            .zip(&self.showcases)
            .zip(counts)
            .map(|((name, cards), n)| ((*name).to_owned(), ids(&cards[..*n])))
            .collect();
        json!({"banked": banked})
    }
}

/// Ann, Bo and Cy with the three test prizes, dealt c1 | c2 c3 | c4 c5 c6.
fn three_player_game() -> (Vec<LogEvent>, Sim) {
    let mut log = started(&["Ann", "Bo", "Cy"], json!({"prizes": prizes()}));
    let (sim, dealt) = Sim::deal(&["Ann", "Bo", "Cy"], card);
    record(&mut log, "showcases_dealt", dealt);
    (log, sim)
}

/// The 3-player game's plan: turn 1 Ann steals c4 from Cy, turn 28 Ann steals Bo's newest,
/// every other turn digs the card the previous turn discarded.
fn three_player_take(turn: usize) -> Take {
    match turn {
        1 => Take::StealCard(2, 4),
        28 => Take::Steal(1),
        _ => Take::Dig,
    }
}

/// Plays turns `from..=to` of the 3-player game's plan.
fn play_three_player_turns(log: &mut Vec<LogEvent>, sim: &mut Sim, from: usize, to: usize) {
    for turn in from..=to {
        let data = sim.turn(three_player_take(turn));
        record(log, "turn_taken", data);
    }
}

// ---------------------------------------------------------------------------------------------
// Setup and options.

#[test]
fn the_default_options_have_no_prizes_and_nobody_scores_a_tied_prize() {
    assert_eq!(
        Game::Vintage.default_options(),
        json!({"prizes": [], "prize_tie": "nobody", "winner_tie": "shared", "deck": {}})
    );
    assert_eq!(Game::from_id("vintage"), Some(Game::Vintage));
}

#[test]
fn vintage_is_played_by_three_to_six_players() {
    let err = Game::Vintage
        .start(&entries(&["Ann", "Bo"]), &json!({"prizes": []}))
        .unwrap_err();
    assert_eq!(err.pointer, "/players");
    assert_eq!(err.rule, "Vintage is played by 3 to 6 players, not 2");
    assert!(
        Game::Vintage
            .start(
                &entries(&["A", "B", "C", "D", "E", "F"]),
                &json!({"prizes": []})
            )
            .is_ok()
    );
}

fn setup_error(options: Value) -> (String, String) {
    let err = Game::Vintage
        .start(&entries(&["Ann", "Bo", "Cy"]), &options)
        .unwrap_err();
    (err.pointer, err.rule)
}

fn prize(id: &str, attribute: &str, value: &str, points: i64) -> Value {
    json!({"id": id, "name": format!("Most {value}"), "attribute": attribute, "value": value, "points": points})
}

#[test]
fn a_prize_or_a_card_worth_more_than_a_million_is_refused() {
    let points = json!({"prizes": [prize("blue", "colour", "blue", 4_611_686_018_427_387_904)]});
    let value = json!({"prizes": [], "deck": {"7": {"type": "lamp", "colour": "blue",
                                                  "period": "60s", "value": 1_000_001}}});
    assert_eq!(
        setup_error(points),
        (
            "/options/prizes/0/points".into(),
            "a prize's points must be between -1000000 and 1000000, not 4611686018427387904".into()
        )
    );
    assert_eq!(setup_error(value).0, "/options/deck/7/value");
}

#[test]
fn two_prizes_with_one_id_are_refused() {
    let options =
        json!({"prizes": [prize("blue", "colour", "blue", 4), prize("blue", "colour", "red", 3)]});
    assert_eq!(
        setup_error(options),
        (
            "/options/prizes/1/id".into(),
            "two prizes have the id \"blue\"; prize ids must differ".into()
        )
    );
}

#[test]
fn a_prize_counts_a_cards_text_not_its_id_or_value() {
    for attribute in ["id", "value", " ", "Value", " ID "] {
        let options = json!({"prizes": [prize("big", attribute, "large", 2)]});
        assert_eq!(
            setup_error(options),
            (
                "/options/prizes/0/attribute".into(),
                format!(
                    "prize \"big\" counts attribute {attribute:?}, but a prize counts a card's \
                     printed text: \"type\", \"colour\", \"period\" or another attribute the \
                     cards record (not \"id\" or \"value\")"
                )
            )
        );
    }
}

#[test]
fn a_prize_with_negative_points_is_refused() {
    let options = json!({"prizes": [prize("blue", "colour", "blue", -1)]});
    assert_eq!(
        setup_error(options),
        (
            "/options/prizes/0/points".into(),
            "prize \"blue\" is worth -1 points, but points are 0 or more".into()
        )
    );
}

#[test]
fn a_prize_worth_zero_points_is_accepted() {
    let options = json!({"prizes": [prize("blue", "colour", "blue", 0)]});
    assert!(
        Game::Vintage
            .start(&entries(&["Ann", "Bo", "Cy"]), &options)
            .is_ok()
    );
}

#[test]
fn at_most_seventeen_prizes_are_accepted() {
    let seventeen: Vec<Value> = (1..=17)
        .map(|i| prize(&format!("p{i}"), "type", &format!("t{i}"), 1))
        .collect();
    assert!(
        Game::Vintage
            .start(
                &entries(&["Ann", "Bo", "Cy"]),
                &json!({"prizes": seventeen})
            )
            .is_ok()
    );
    let mut eighteen = seventeen.clone();
    eighteen.push(prize("p18", "type", "t18", 1));
    assert_eq!(
        setup_error(json!({"prizes": eighteen})),
        (
            "/options/prizes".into(),
            "Vintage has 17 prize cards, so at most 17 prizes; 18 were given".into()
        )
    );
}

#[test]
fn an_unknown_prize_tie_mode_is_refused() {
    let (pointer, rule) = setup_error(json!({"prizes": [], "prize_tie": "coin"}));
    assert_eq!(pointer, "/options/prize_tie");
    assert_eq!(
        rule,
        "option \"prize_tie\" must be one of \"nobody\", \"all\" or \"split\"; got \"coin\""
    );
}

// ---------------------------------------------------------------------------------------------
// Cards as data.

#[test]
fn a_card_never_described_cannot_be_named_by_id() {
    let log = started(&["Ann", "Bo", "Cy"], json!({"prizes": []}));
    let data = json!({"showcases": {
        "Ann": ["c1"], "Bo": [card(2), card(3)], "Cy": [card(4), card(5), card(6)]}});
    assert_refused(
        &refused(&log, "showcases_dealt", data),
        "/data/showcases/Ann/0",
        "card \"c1\" was never described and is not a number of the table's deck; the first \
         time a card appears, give its id, type, colour, period and value (or start the game \
         with a deck, e.g. from a preset)",
    );
}

#[test]
fn a_card_described_again_with_other_attributes_is_refused() {
    let (log, _) = three_player_game();
    // c1 was dealt as a red 50s radio worth 1.
    let mut c1 = card(1);
    c1["colour"] = json!("blue");
    let turn = json!({"player": "Ann", "banked": c1, "steal": {"from": "Cy", "card": "c4"},
                      "drawn": [card(7), card(8)], "kept": "c7"});
    assert_refused(
        &refused(&log, "turn_taken", turn),
        "/data/banked/colour",
        "card c1 was described as a red 50s radio worth 1; the same card cannot now be a blue \
         50s radio worth 1",
    );
}

#[test]
fn a_card_described_again_the_same_way_is_accepted_whatever_the_case() {
    let (mut log, _) = three_player_game();
    let mut c1 = card(1);
    c1["colour"] = json!(" Red ");
    let turn = json!({"player": "Ann", "banked": c1, "steal": {"from": "Cy", "card": card(4)},
                      "dig": null, "drawn": [card(7), card(8)], "kept": card(7)});
    record(&mut log, "turn_taken", turn);
}

#[test]
fn a_card_value_is_a_whole_number_of_zero_or_more() {
    let log = started(&["Ann", "Bo", "Cy"], json!({"prizes": []}));
    let mut c1 = card(1);
    c1["value"] = json!(-2);
    let data = json!({"showcases": {
        "Ann": [c1], "Bo": [card(2), card(3)], "Cy": [card(4), card(5), card(6)]}});
    assert_refused(
        &refused(&log, "showcases_dealt", data.clone()),
        "/data/showcases/Ann/0/value",
        "a card's value is a whole number from 0 to 1000000, not -2",
    );
    let mut zero = data;
    zero["showcases"]["Ann"][0]["value"] = json!(0);
    let mut log = log;
    record(&mut log, "showcases_dealt", zero);
}

#[test]
fn a_card_with_an_attribute_that_is_not_text_or_a_missing_colour_is_refused() {
    let log = started(&["Ann", "Bo", "Cy"], json!({"prizes": []}));
    let mut c1 = card(1);
    c1["size"] = json!(3);
    let data = json!({"showcases": {
        "Ann": [c1], "Bo": [card(2), card(3)], "Cy": [card(4), card(5), card(6)]}});
    assert_refused(
        &refused(&log, "showcases_dealt", data),
        "/data/showcases/Ann/0/size",
        "a card's size is non-empty text (besides its value, a card's attributes are text)",
    );
    let mut c1 = card(1);
    c1.as_object_mut().map(|c| c.remove("colour"));
    let data = json!({"showcases": {
        "Ann": [c1], "Bo": [card(2), card(3)], "Cy": [card(4), card(5), card(6)]}});
    assert_refused(
        &refused(&log, "showcases_dealt", data),
        "/data/showcases/Ann/0",
        "a card description needs its colour",
    );
}

// ---------------------------------------------------------------------------------------------
// The deal.

#[test]
fn showcases_are_dealt_one_two_and_three_cards_by_seat() {
    let log = started(&["Ann", "Bo", "Cy", "Di"], json!({"prizes": []}));
    let data = json!({"showcases": {"Ann": [card(1)], "Bo": [card(2), card(3)],
        "Cy": [card(4), card(5), card(6)], "Di": [card(7), card(8)]}});
    assert_refused(
        &refused(&log, "showcases_dealt", data),
        "/data/showcases/Di",
        "Di sits in seat 4 and is dealt 3 card(s), not 2",
    );
}

#[test]
fn a_card_dealt_twice_is_refused() {
    let log = started(&["Ann", "Bo", "Cy"], json!({"prizes": []}));
    let data = json!({"showcases": {"Ann": [card(1)], "Bo": [card(2), card(3)],
        "Cy": [card(4), "c2", card(6)]}});
    assert_refused(
        &refused(&log, "showcases_dealt", data),
        "/data/showcases/Cy/1",
        "card c2 is dealt twice (it is already in Bo's showcase); a card can be in one place only",
    );
}

#[test]
fn every_player_is_dealt_once_and_strangers_are_refused() {
    let log = started(&["Ann", "Bo", "Cy"], json!({"prizes": []}));
    let missing = json!({"showcases": {"Ann": [card(1)], "Bo": [card(2), card(3)]}});
    assert_refused(
        &refused(&log, "showcases_dealt", missing),
        "/data/showcases",
        "Cy's showcase is missing; every player appears once",
    );
    let stranger = json!({"showcases": {"Ann": [card(1)], "Bo": [card(2), card(3)],
        "Cy": [card(4), card(5), card(6)], "Zed": []}});
    assert_refused(
        &refused(&log, "showcases_dealt", stranger),
        "/data/showcases/Zed",
        "\"Zed\" does not play in this game; the players are Ann, Bo and Cy",
    );
}

#[test]
fn the_showcases_are_dealt_only_once() {
    let (log, _) = three_player_game();
    let again = json!({"showcases": {"Ann": [card(1)], "Bo": [card(2), card(3)],
        "Cy": [card(4), card(5), card(6)]}});
    assert_refused(
        &refused(&log, "showcases_dealt", again),
        "/data",
        "the showcases were already dealt; they are dealt once, at the start of the game",
    );
}

#[test]
fn a_turn_or_final_bank_before_the_deal_is_refused() {
    let log = started(&["Ann", "Bo", "Cy"], json!({"prizes": []}));
    let turn = json!({"player": "Ann", "banked": "c1", "steal": {"from": "Cy", "card": "c4"},
                      "drawn": [card(7), card(8)], "kept": "c7"});
    let rule = "the showcases have not been dealt yet; record showcases_dealt first (or, to \
                record only the end of the game, collections_recorded)";
    assert_refused(&refused(&log, "turn_taken", turn), "/data", rule);
    let bank = json!({"banked": {"Ann": [], "Bo": [], "Cy": []}});
    assert_refused(&refused(&log, "final_banked", bank), "/data", rule);
}

// ---------------------------------------------------------------------------------------------
// A turn: bank, steal or dig, draw two and keep one.

/// Ann's legal first turn in the 3-player game: bank c1, steal c4 from Cy, draw c7 c8, keep c7.
fn first_turn() -> Value {
    json!({"player": "Ann", "banked": "c1", "steal": {"from": "Cy", "card": "c4"}, "dig": null,
           "drawn": [card(7), card(8)], "kept": "c7"})
}

fn with(mut turn: Value, field: &str, value: Value) -> Value {
    turn[field] = value;
    turn
}

#[test]
fn turns_go_in_seat_order() {
    let (log, _) = three_player_game();
    let turn = json!({"player": "Bo", "banked": "c2", "steal": {"from": "Cy", "card": "c4"},
                      "drawn": [card(7), card(8)], "kept": "c7"});
    assert_refused(
        &refused(&log, "turn_taken", turn),
        "/data/player",
        "it is Ann's turn (turn 1), not Bo's; turns go in seat order",
    );
    let stranger = with(first_turn(), "player", json!("Zed"));
    assert_refused(
        &refused(&log, "turn_taken", stranger),
        "/data/player",
        "\"Zed\" does not play in this game; the players are Ann, Bo and Cy",
    );
}

#[test]
fn a_player_banks_only_from_their_own_showcase() {
    let (log, _) = three_player_game();
    assert_refused(
        &refused(
            &log,
            "turn_taken",
            with(first_turn(), "banked", json!("c2")),
        ),
        "/data/banked",
        "Ann cannot bank c2: it is in Bo's showcase; a player banks a card from their own showcase",
    );
    // A card described here for the first time is not in any showcase.
    assert_refused(
        &refused(&log, "turn_taken", with(first_turn(), "banked", card(40))),
        "/data/banked",
        "Ann cannot bank c40: it is not on the table; a player banks a card from their own \
         showcase",
    );
}

#[test]
fn a_turn_takes_exactly_one_card_by_steal_or_dig() {
    let (mut log, mut sim) = three_player_game();
    play_three_player_turns(&mut log, &mut sim, 1, 1);
    let neither =
        json!({"player": "Bo", "banked": "c2", "drawn": [card(9), card(10)], "kept": "c9"});
    assert_refused(
        &refused(&log, "turn_taken", neither),
        "/data",
        "Bo must take one card after banking: give steal (a card from another player's showcase) \
         or dig (the top card of the discard pile)",
    );
    let both = json!({"player": "Bo", "banked": "c2", "steal": {"from": "Ann", "card": "c4"},
                      "dig": "c8", "drawn": [card(9), card(10)], "kept": "c9"});
    assert_refused(
        &refused(&log, "turn_taken", both),
        "/data/dig",
        "Bo takes one card per turn: steal or dig, not both",
    );
}

#[test]
fn a_player_cannot_steal_from_themselves() {
    let (log, _) = three_player_game();
    let turn = with(first_turn(), "steal", json!({"from": "Ann", "card": "c1"}));
    assert_refused(
        &refused(&log, "turn_taken", turn),
        "/data/steal/from",
        "Ann cannot steal from their own showcase; steal from another player or dig",
    );
}

#[test]
fn only_a_card_in_the_named_showcase_can_be_stolen() {
    let (log, _) = three_player_game();
    let turn = with(first_turn(), "steal", json!({"from": "Cy", "card": "c2"}));
    assert_refused(
        &refused(&log, "turn_taken", turn),
        "/data/steal/card",
        "Ann cannot steal c2 from Cy: it is in Bo's showcase",
    );
}

#[test]
fn seat_one_may_not_dig_on_the_first_turn() {
    let (log, _) = three_player_game();
    let turn = json!({"player": "Ann", "banked": "c1", "dig": "c4",
                      "drawn": [card(7), card(8)], "kept": "c7"});
    assert_refused(
        &refused(&log, "turn_taken", turn),
        "/data/dig",
        "Ann may not dig on the first turn of the game; steal a card instead",
    );
}

#[test]
fn only_the_top_card_of_the_discard_pile_can_be_dug() {
    let (mut log, mut sim) = three_player_game();
    // Turn 1 discards c8; turn 2 digs c8 and discards c10.
    play_three_player_turns(&mut log, &mut sim, 1, 2);
    let turn = json!({"player": "Cy", "banked": "c5", "dig": "c8",
                      "drawn": [card(11), card(12)], "kept": "c11"});
    assert_refused(
        &refused(&log, "turn_taken", turn),
        "/data/dig",
        "Cy can dig only the top card of the discard pile, which is c10; c8 is in Bo's showcase",
    );
}

#[test]
fn the_discarded_draw_becomes_the_top_of_the_discard_pile() {
    let (mut log, _) = three_player_game();
    // Ann keeps c8 and discards c7: c7 is the top Bo may dig.
    let turn = with(first_turn(), "kept", json!("c8"));
    let evaluation = record(&mut log, "turn_taken", turn);
    assert_eq!(details(&evaluation)["discard_pile"], json!(["c7"]));
    assert_eq!(
        details(&evaluation)["showcases"]["Ann"],
        json!(["c4", "c8"])
    );
    let dig = json!({"player": "Bo", "banked": "c2", "dig": "c7",
                     "drawn": [card(9), card(10)], "kept": "c10"});
    let evaluation = record(&mut log, "turn_taken", dig);
    assert_eq!(details(&evaluation)["discard_pile"], json!(["c9"]));
    assert_eq!(
        details(&evaluation)["showcases"]["Bo"],
        json!(["c3", "c7", "c10"])
    );
}

#[test]
fn a_dig_from_an_empty_discard_pile_is_refused() {
    // Every turn discards a card after its dig, so a legal log never meets an empty pile after
    // turn 1; the check is met here by emptying the pile by hand.
    let players = crate::setup::seat_players(&entries(&["Ann", "Bo", "Cy"]), 3..=6, "Vintage")
        .expect("three players");
    let mut state = Vintage::new_game(players.into(), super::Options::default());
    let (mut sim, dealt) = Sim::deal(&["Ann", "Bo", "Cy"], card);
    Vintage::apply(&mut state, "showcases_dealt", &dealt).expect("dealt");
    Vintage::apply(&mut state, "turn_taken", &sim.turn(Take::StealCard(2, 4))).expect("turn 1");
    if let Record::TurnByTurn(table) = &mut state.record {
        table.replace_discard(&[]);
    }
    let turn = json!({"player": "Bo", "banked": "c2", "dig": "c8",
                      "drawn": [card(9), card(10)], "kept": "c9"});
    let err = Vintage::apply(&mut state, "turn_taken", &turn).unwrap_err();
    assert_eq!(err.pointer, "/dig");
    assert_eq!(err.rule, "Bo cannot dig c8: the discard pile is empty");
}

#[test]
fn a_turn_draws_two_cards_from_the_deck() {
    let (log, _) = three_player_game();
    assert_refused(
        &refused(
            &log,
            "turn_taken",
            with(first_turn(), "drawn", json!([card(7)])),
        ),
        "/data/drawn",
        "Ann draws 2 cards, not 1",
    );
    // c5 is in Cy's showcase: it cannot come out of the deck.
    assert_refused(
        &refused(
            &log,
            "turn_taken",
            with(first_turn(), "drawn", json!([card(7), "c5"])),
        ),
        "/data/drawn/1",
        "Ann cannot draw c5: it is in Cy's showcase, and a card drawn comes from the deck",
    );
    assert_refused(
        &refused(
            &log,
            "turn_taken",
            with(first_turn(), "drawn", json!([card(7), "c7"])),
        ),
        "/data/drawn/1",
        "c7 is drawn twice; a card can be in one place only",
    );
}

#[test]
fn the_kept_card_is_one_of_the_two_drawn() {
    let (log, _) = three_player_game();
    assert_refused(
        &refused(&log, "turn_taken", with(first_turn(), "kept", json!("c4"))),
        "/data/kept",
        "Ann kept c4, but drew c7 and c8; the kept card is one of those drawn",
    );
    assert_refused(
        &refused(&log, "turn_taken", with(first_turn(), "kept", Value::Null)),
        "/data/kept",
        "Ann keeps one of the drawn cards; give kept",
    );
}

#[test]
fn unknown_fields_in_a_turn_are_refused() {
    let (log, _) = three_player_game();
    assert_refused(
        &refused(&log, "turn_taken", with(first_turn(), "note", json!("hi"))),
        "/data/note",
        "unknown field \"note\"; turn_taken has \"player\", \"banked\", \"steal\", \"dig\", \
         \"drawn\" and \"kept\"",
    );
    let turn = with(
        first_turn(),
        "steal",
        json!({"from": "Cy", "card": "c4", "why": 1}),
    );
    assert_refused(
        &refused(&log, "turn_taken", turn),
        "/data/steal/why",
        "unknown field \"why\"; steal has \"from\" and \"card\"",
    );
}

// ---------------------------------------------------------------------------------------------
// The rules file's worked example.

/// Showcases Ann {lamp}, Bo {radio, chair}, Cy {vase, phone, clock}.
fn worked_example() -> Vec<LogEvent> {
    let mut log = started(&["Ann", "Bo", "Cy"], json!({"prizes": []}));
    let dealt = json!({"showcases": {
        "Ann": [antique("lamp", "lamp", "blue", "60s", 3)],
        "Bo": [antique("radio", "radio", "red", "50s", 2), antique("chair", "chair", "green", "70s", 1)],
        "Cy": [antique("vase", "vase", "blue", "50s", 2), antique("phone", "phone", "black", "60s", 4),
               antique("clock", "clock", "brown", "70s", 5)]}});
    let evaluation = record(&mut log, "showcases_dealt", dealt);
    // rules: with 3 players the deck starts at 63 − (1 + 2 + 3) = 57.
    assert_eq!(details(&evaluation)["deck"], json!(57));
    log
}

#[test]
fn worked_example_stealing_from_a_showcase_of_three_is_legal() {
    let mut log = worked_example();
    // Ann plays first (seat 1) and may not dig: she banks the lamp and steals the clock.
    record(
        &mut log,
        "turn_taken",
        json!({"player": "Ann", "banked": "lamp", "steal": {"from": "Cy", "card": "clock"},
               "drawn": [antique("desk", "desk", "red", "60s", 1), antique("mirror", "mirror", "gold", "50s", 2)],
               "kept": "desk"}),
    );
    // On Bo's turn, stealing the phone from Cy is legal.
    let evaluation = record(
        &mut log,
        "turn_taken",
        json!({"player": "Bo", "banked": "radio", "steal": {"from": "Cy", "card": "phone"},
               "drawn": [antique("sofa", "sofa", "blue", "70s", 3), antique("rug", "rug", "red", "60s", 0)],
               "kept": "sofa"}),
    );
    assert_eq!(details(&evaluation)["showcases"]["Cy"], json!(["vase"]));
    assert_eq!(
        details(&evaluation)["showcases"]["Bo"],
        json!(["chair", "phone", "sofa"])
    );
}

#[test]
fn worked_example_a_showcase_holding_one_card_cannot_be_stolen_from() {
    // The example's Ann {lamp} cannot face Bo's turn in a real game (Ann plays first and ends
    // her turn with two cards), so the rule is met one turn later: Bo steals from Ann, and on
    // Cy's turn Ann's showcase holds exactly one card.
    let mut log = worked_example();
    record(
        &mut log,
        "turn_taken",
        json!({"player": "Ann", "banked": "lamp", "steal": {"from": "Bo", "card": "chair"},
               "drawn": [antique("desk", "desk", "red", "60s", 1), antique("mirror", "mirror", "gold", "50s", 2)],
               "kept": "desk"}),
    );
    record(
        &mut log,
        "turn_taken",
        json!({"player": "Bo", "banked": "radio", "steal": {"from": "Ann", "card": "desk"},
               "dig": null,
               "drawn": [antique("sofa", "sofa", "blue", "70s", 3), antique("rug", "rug", "red", "60s", 0)],
               "kept": "sofa"}),
    );
    let steal_from_ann = json!({"player": "Cy", "banked": "vase",
        "steal": {"from": "Ann", "card": "chair"},
        "drawn": [antique("bust", "bust", "white", "50s", 2), antique("fan", "fan", "red", "60s", 1)],
        "kept": "bust"});
    assert_refused(
        &refused(&log, "turn_taken", steal_from_ann.clone()),
        "/data/steal/card",
        "Cy cannot steal chair: it is the only card in Ann's showcase, and a showcase holding \
         exactly one card cannot be stolen from",
    );
    // Bo holds desk and sofa: stealing from him is legal.
    let steal_from_bo = with(
        steal_from_ann,
        "steal",
        json!({"from": "Bo", "card": "desk"}),
    );
    record(&mut log, "turn_taken", steal_from_bo);
}

// ---------------------------------------------------------------------------------------------
// A whole 3-player game, turn by turn.
//
// Plan (see `three_player_take`): every turn banks its oldest showcase card and keeps the first
// of its two drawn cards. Turn t draws c(2t+5) and c(2t+6). Turn 1 (Ann) steals c4 from Cy;
// turns 2–27 dig the card the turn before discarded, c(2t+4); turn 28 (Ann) steals Bo's newest.
//
// Ann (turns 1, 4, …, 28 — 10 turns) showcase queue: c1 | c4 c7 | c12 c13 | c18 c19 | c24 c25 |
//   c30 c31 | c36 c37 | c42 c43 | c48 c49 | c54 c55 | c57 c61 → banks c1 c4 c7 c12 c13 c18 c19
//   c24 c25 c30, then c31 at the end (c57, stolen on turn 28, may not be banked).
// Bo (turns 2, 5, …, 26 — 9 turns): c2 c3 | c8 c9 | c14 c15 | … | c56 c57 → banks c2 c3 c8 c9
//   c14 c15 c20 c21 c26, then c27 c32 at the end (one turn fewer: he adds the optional second card).
// Cy (turns 3, 6, …, 27 — 9 turns): c5 c6 (c4 stolen) | c10 c11 | c16 c17 | … | c58 c59 →
//   banks c5 c6 c10 c11 c16 c17 c22 c23 c28, then c29 c34.
// Deck: 57 − 2 × 28 = 1 after turn 28 → the game ends (57 − 2 × 27 = 3 after turn 27).

#[test]
fn a_three_player_game_is_scored_in_progress() {
    let (mut log, mut sim) = three_player_game();
    play_three_player_turns(&mut log, &mut sim, 1, 3);
    let evaluation = evaluate(&log);
    assert_eq!(evaluation.status, Status::InProgress);
    // Banked so far: Ann c1 (1), Bo c2 (2), Cy c5 (1); none is blue, 60s or a lamp.
    assert_eq!(
        totals(&evaluation),
        vec![("Ann".into(), 1), ("Bo".into(), 2), ("Cy".into(), 1)]
    );
    assert_eq!(details(&evaluation)["next_player"], json!("Ann"));
    // 57 − 3 × 2 = 51.
    assert_eq!(details(&evaluation)["deck"], json!(51));
    // In progress: Bo leads, nobody has won yet.
    assert_eq!(evaluation.scoreboard.leaders, vec!["Bo"]);
    assert!(evaluation.scoreboard.winners.is_empty());
}

#[test]
fn final_banked_before_the_end_of_the_game_is_refused() {
    let (mut log, mut sim) = three_player_game();
    play_three_player_turns(&mut log, &mut sim, 1, 27);
    let evaluation = evaluate(&log);
    assert_eq!(details(&evaluation)["deck"], json!(3));
    assert_eq!(details(&evaluation)["next_player"], json!("Ann"));
    let bank = json!({"banked": {"Ann": ["c31"], "Bo": ["c27", "c32"], "Cy": ["c29", "c34"]}});
    assert_refused(
        &refused(&log, "final_banked", bank),
        "/data",
        "the game is not over: the deck still holds 3 card(s); final_banked comes after the last turn",
    );
}

#[test]
fn a_three_player_game_ends_after_turn_28_and_is_scored_by_hand() {
    let (mut log, mut sim) = three_player_game();
    play_three_player_turns(&mut log, &mut sim, 1, 28);
    let evaluation = evaluate(&log);
    assert_eq!(evaluation.status, Status::InProgress);
    let table = details(&evaluation);
    // rules: 57 − 56 = 1 card left → the game ends; seat 1 had 10 turns, seats 2 and 3 nine.
    assert_eq!(table["deck"], json!(1));
    assert_eq!(table["turns"], json!(28));
    assert_eq!(table["next_player"], Value::Null);
    assert_eq!(table["final_bank_due"], json!(true));
    assert_eq!(table["final_bank_order"], json!(["Bo", "Cy", "Ann"]));
    assert_eq!(
        table["collections"]["Ann"],
        ids(&[1, 4, 7, 12, 13, 18, 19, 24, 25, 30])
    );
    assert_eq!(
        table["showcases"]["Ann"],
        ids(&[31, 36, 37, 42, 43, 48, 49, 54, 55, 57, 61])
    );

    // A 29th turn is refused.
    let turn_29 = json!({"player": "Bo", "banked": "c27", "dig": "c62",
                         "drawn": [card(63), card(64)], "kept": "c63"});
    assert_refused(
        &refused(&log, "turn_taken", turn_29),
        "/data",
        "no more turns: turn 28 left 1 card(s) in the deck, which ends the game; record \
         final_banked to finish it",
    );
    // Ann banks one card, but not c57, stolen on turn 28.
    let stolen = json!({"banked": {"Ann": ["c57"], "Bo": ["c27", "c32"], "Cy": ["c29", "c34"]}});
    assert_refused(
        &refused(&log, "final_banked", stolen),
        "/data/banked/Ann/0",
        "Ann stole c57 on the last turn of the game and may not bank it",
    );
    let not_hers = json!({"banked": {"Ann": ["c31"], "Bo": ["c27", "c32"], "Cy": ["c29", "c31"]}});
    assert_refused(
        &refused(&log, "final_banked", not_hers),
        "/data/banked/Cy/1",
        "Cy cannot bank c31: it is in Ann's showcase; a player banks a card from their own showcase",
    );

    // Bo and Cy had one turn fewer and both add the second card.
    let bank = json!({"banked": {"Ann": ["c31"], "Bo": ["c27", "c32"], "Cy": ["c29", "c34"]}});
    let evaluation = record(&mut log, "final_banked", bank);
    assert_eq!(evaluation.status, Status::Finished);
    // Values (k % 4):
    //   Ann c1 c4 c7 c12 c13 c18 c19 c24 c25 c30 c31: 1+0+3+0+1+2+3+0+1+2+3 = 16
    //   Bo  c2 c3 c8 c9 c14 c15 c20 c21 c26 c27 c32:  2+3+0+1+2+3+0+1+2+3+0 = 17
    //   Cy  c5 c6 c10 c11 c16 c17 c22 c23 c28 c29 c34: 1+2+2+3+0+1+2+3+0+1+2 = 17
    // Blue (k % 3 = 0): Ann c12 c18 c24 c30 = 4; Bo c3 c9 c15 c21 c27 = 5; Cy c6 = 1 → Bo +4.
    // 60s (10–19): Ann c12 c13 c18 c19 = 4; Bo c14 c15 = 2; Cy c10 c11 c16 c17 = 4 → tie,
    //   nobody scores (prize_tie default).
    // Lamps (k % 7 = 0): Ann c7 = 1; Bo c14 c21 = 2; Cy c28 = 1 → Bo +2.
    // Totals: Ann 16, Bo 17 + 4 + 2 = 23, Cy 17.
    assert_eq!(
        totals(&evaluation),
        vec![("Ann".into(), 16), ("Bo".into(), 23), ("Cy".into(), 17)]
    );
    assert_eq!(evaluation.scoreboard.winners, vec!["Bo"]);
    assert_eq!(evaluation.scoreboard.tiebreak, None);
    assert_eq!(
        lines(&evaluation, "Bo"),
        vec![
            (
                "Collection ×11".into(),
                17,
                "c2 2 + c3 3 + c8 0 + c9 1 + c14 2 + c15 3 + c20 0 + c21 1 + c26 2 + c27 3 + c32 0 = 17"
                    .into()
            ),
            ("Most blue objects".into(), 4, "5 vs 4 → +4".into()),
            ("Most 60s objects".into(), 0, "2 vs 4 (Ann and Cy) → 0".into()),
            ("Most lamps".into(), 2, "2 vs 1 → +2".into()),
        ]
    );
    assert_eq!(
        lines(&evaluation, "Ann")[2],
        (
            "Most 60s objects".into(),
            0,
            "4, tied with Cy → nobody scores it (house rule prize_tie: nobody)".into()
        )
    );
    // Every player collected 11 cards; 63 = 33 collected + 28 in showcases + 2 discarded.
    let table = details(&evaluation);
    assert_eq!(
        table["collections"]["Cy"],
        ids(&[5, 6, 10, 11, 16, 17, 22, 23, 28, 29, 34])
    );
    assert_eq!(table["discard_pile"], ids(&[60, 62]));
    assert_eq!(table["final_bank_due"], json!(false));
    // Nothing is accepted after the end.
    let late = json!({"player": "Bo", "banked": "c38", "dig": "c62",
                      "drawn": [card(63), card(64)], "kept": "c63"});
    assert_refused(
        &refused(&log, "turn_taken", late),
        "",
        "the game is already finished; to change it, correct or retract an earlier event",
    );
}

// The final bank of the same game, after turn 28. Bo and Cy had 9 turns to Ann's 10, so each
// banks one card and may add a second; Ann banks one. Their showcases then:
//   Ann c31 c36 c37 … c55 c57 c61 (c57 stolen on turn 28); Bo c27 c32 c33 c38 c39 c44 c45 c50
//   c51 c56; Cy c29 c34 c35 c40 c41 c46 c47 c52 c53 c58 c59.

/// The 3-player game's plan played to its end (turn 28), before the final bank.
fn three_player_game_over() -> Vec<LogEvent> {
    let (mut log, mut sim) = three_player_game();
    play_three_player_turns(&mut log, &mut sim, 1, 28);
    log
}

#[test]
fn a_player_who_had_one_turn_fewer_may_decline_the_second_card() {
    let mut log = three_player_game_over();
    // Cy declines: only c29. Bo adds a second card of his choice, c33 (not his oldest, c32).
    let bank = json!({"banked": {"Ann": ["c31"], "Bo": ["c27", "c33"], "Cy": ["c29"]}});
    let evaluation = record(&mut log, "final_banked", bank);
    assert_eq!(evaluation.status, Status::Finished);
    // Values (k % 4):
    //   Ann c1 c4 c7 c12 c13 c18 c19 c24 c25 c30 c31: 1+0+3+0+1+2+3+0+1+2+3 = 16
    //   Bo  c2 c3 c8 c9 c14 c15 c20 c21 c26 c27 c33:  2+3+0+1+2+3+0+1+2+3+1 = 18
    //   Cy  c5 c6 c10 c11 c16 c17 c22 c23 c28 c29:    1+2+2+3+0+1+2+3+0+1   = 15
    // Blue (k % 3 = 0): Ann c12 c18 c24 c30 = 4; Bo c3 c9 c15 c21 c27 c33 = 6; Cy c6 = 1 → Bo +4.
    // 60s (10–19): Ann 4, Bo c14 c15 = 2, Cy c10 c11 c16 c17 = 4 → tie, nobody scores.
    // Lamps (k % 7 = 0): Ann c7 = 1; Bo c14 c21 = 2; Cy c28 = 1 → Bo +2.
    // Totals: Ann 16, Bo 18 + 4 + 2 = 24, Cy 15 (c34, declined, stays in the showcase and does
    // not count: only collections score).
    assert_eq!(
        totals(&evaluation),
        vec![("Ann".into(), 16), ("Bo".into(), 24), ("Cy".into(), 15)]
    );
    assert_eq!(evaluation.scoreboard.winners, vec!["Bo"]);
    assert_eq!(
        lines(&evaluation, "Cy")[0],
        (
            "Collection ×10".into(),
            15,
            "c5 1 + c6 2 + c10 2 + c11 3 + c16 0 + c17 1 + c22 2 + c23 3 + c28 0 + c29 1 = 15"
                .into()
        )
    );
    assert_eq!(
        lines(&evaluation, "Bo")[1],
        ("Most blue objects".into(), 4, "6 vs 4 → +4".into())
    );
    let table = details(&evaluation);
    assert_eq!(
        table["showcases"]["Cy"],
        ids(&[34, 35, 40, 41, 46, 47, 52, 53, 58, 59])
    );
    assert_eq!(
        table["showcases"]["Bo"],
        ids(&[32, 38, 39, 44, 45, 50, 51, 56])
    );
    assert_eq!(table["final_bank_due"], json!(false));
}

#[test]
fn the_final_bank_is_one_card_each_and_an_optional_second_after_one_turn_fewer() {
    let log = three_player_game_over();
    let legal_ann = json!(["c31"]);
    let legal_bo = json!(["c27", "c32"]);
    let legal_cy = json!(["c29"]);
    let bank =
        |ann: Value, bo: Value, cy: Value| json!({"banked": {"Ann": ann, "Bo": bo, "Cy": cy}});

    // Ann had the most turns: exactly one card.
    assert_refused(
        &refused(
            &log,
            "final_banked",
            bank(json!(["c31", "c36"]), legal_bo.clone(), legal_cy.clone()),
        ),
        "/data/banked/Ann",
        "Ann banks one more card, not 2; only a player who had one turn fewer than others may add \
         a second",
    );
    assert_refused(
        &refused(
            &log,
            "final_banked",
            bank(json!([]), legal_bo.clone(), legal_cy.clone()),
        ),
        "/data/banked/Ann",
        "Ann banks one more card, not 0",
    );
    // Bo had one turn fewer: one card and perhaps a second, never three, never none.
    assert_refused(
        &refused(
            &log,
            "final_banked",
            bank(
                legal_ann.clone(),
                json!(["c27", "c32", "c33"]),
                legal_cy.clone(),
            ),
        ),
        "/data/banked/Bo",
        "Bo had 9 turn(s), one fewer than others, and banks one more card and may add a second, \
         not 3",
    );
    assert_refused(
        &refused(
            &log,
            "final_banked",
            bank(legal_ann.clone(), legal_bo.clone(), json!([])),
        ),
        "/data/banked/Cy",
        "Cy banks one more card, not 0; only the second card, for having had one turn fewer than \
         others, may be declined",
    );
    // The same card twice is one card banked twice, not two cards.
    assert_refused(
        &refused(
            &log,
            "final_banked",
            bank(legal_ann.clone(), json!(["c27", "c27"]), legal_cy.clone()),
        ),
        "/data/banked/Bo/1",
        "c27 is banked twice; a card can be in one place only",
    );
    let mut log = log;
    let evaluation = record(
        &mut log,
        "final_banked",
        bank(legal_ann, legal_bo, legal_cy),
    );
    assert_eq!(evaluation.status, Status::Finished);
}

// A 3-player game where Bo's showcase is whittled down: Ann steals Bo's newest card on turn 1,
// Cy steals Bo's newest on each of her turns (3, 6, …, 27), every other turn digs. Bo's turns
// bank his only card and bring him two (a dug card and a kept one), so after each of Cy's turns
// he holds one: c56 at the end (he dug c56 and kept c57 on turn 26; Cy stole c57 on turn 27).

#[test]
fn a_player_who_had_one_turn_fewer_but_holds_one_card_banks_that_card() {
    let (mut log, mut sim) = three_player_game();
    for turn in 1..=28 {
        let take = match turn % 3 {
            1 if turn == 1 => Take::Steal(1),
            0 => Take::Steal(1),
            _ => Take::Dig,
        };
        record(&mut log, "turn_taken", sim.turn(take));
    }
    let evaluation = evaluate(&log);
    assert_eq!(details(&evaluation)["next_player"], Value::Null);
    assert_eq!(details(&evaluation)["showcases"]["Bo"], ids(&[56]));

    let mut two_for_bo = sim.final_bank(&[1, 1, 2]);
    two_for_bo["banked"]["Bo"] = json!(["c56", "c57"]);
    assert_refused(
        &refused(&log, "final_banked", two_for_bo),
        "/data/banked/Bo",
        "Bo had 9 turn(s), one fewer than others, and may add a second card, but the showcase \
         holds only one: Bo banks 1, not 2",
    );
    let evaluation = record(&mut log, "final_banked", sim.final_bank(&[1, 1, 2]));
    assert_eq!(evaluation.status, Status::Finished);
    // Ann 10 turns + 1, Bo 9 + 1 (the only card he had), Cy 9 + 2.
    let sizes: Vec<usize> = ["Ann", "Bo", "Cy"]
        .iter()
        .map(|n| {
            details(&evaluation)["collections"][n]
                .as_array()
                .map_or(0, Vec::len)
        })
        .collect();
    assert_eq!(sizes, vec![11, 10, 11]);
    assert_eq!(details(&evaluation)["showcases"]["Bo"], json!([]));
}

// ---------------------------------------------------------------------------------------------
// A 5-player game: the discard pile is reshuffled once.
//
// Plan: every turn steals the newest card of the next seat and never digs, so all 25
// discards stay in the pile: turn t ≤ 25 draws c(2t+11) c(2t+12), keeps the odd one and
// discards the even one (c14, c16, …, c62). Deck 63 − 12 = 51; after turn 25 it holds 1 (c63).
// Turn 26 draws c63, then the 25-card pile becomes the deck and c14 (the simulation draws the
// lowest id first) is drawn from it: 24 left. Turns 27–38 draw 2 each: 24 − 24 = 0 → the game
// ends after turn 38. Turns: Ann, Bo, Cy 8 each (38 = 7 × 5 + 3), Di and Ed 7 each.
// Each player's showcase sizes repeat every 5 turns (1 2 3 3 3 after each round), so every
// steal is legal. Every card is worth 1 and there are no prizes, so a total is a collection
// size: Ann, Bo, Cy 8 + 1, Di and Ed 7 + 2 → 9 each, a five-way shared win.

const FIVE: [&str; 5] = ["Ann", "Bo", "Cy", "Di", "Ed"];

fn five_player_game(turns: usize) -> (Vec<LogEvent>, Sim) {
    let mut log = started(&FIVE, json!({"prizes": []}));
    let (mut sim, dealt) = Sim::deal(&FIVE, card_worth_one);
    record(&mut log, "showcases_dealt", dealt);
    for t in 0..turns {
        let data = sim.turn(Take::Steal((t + 1) % 5));
        record(&mut log, "turn_taken", data);
    }
    (log, sim)
}

#[test]
fn a_five_player_game_goes_on_when_the_deck_first_runs_low() {
    let (log, _) = five_player_game(25);
    let evaluation = evaluate(&log);
    let table = details(&evaluation);
    assert_eq!(table["deck"], json!(1));
    assert_eq!(table["reshuffled"], json!(false));
    assert_eq!(table["next_player"], json!("Ann"));
    assert_eq!(table["discard_pile"].as_array().map(Vec::len), Some(25));
    let bank = json!({"banked": {"Ann": [], "Bo": [], "Cy": [], "Di": [], "Ed": []}});
    assert_refused(
        &refused(&log, "final_banked", bank),
        "/data",
        "the game is not over: the deck still holds 1 card(s) and the discard pile is still to be \
         reshuffled into a new deck; final_banked comes after the last turn",
    );
}

#[test]
fn the_draw_after_the_deck_runs_low_takes_the_last_card_then_the_reshuffled_pile() {
    let (mut log, mut sim) = five_player_game(25);
    // Turn 26, Ann: banks her oldest card and steals Bo's newest, as the simulation will.
    let expected = sim.turn(Take::Steal(1));
    assert_eq!(expected["drawn"], json!([card_worth_one(63), "c14"]));
    // Two new cards: only one was left in the deck.
    let two_new = with(
        expected.clone(),
        "drawn",
        json!([card_worth_one(63), card_worth_one(64)]),
    );
    assert_refused(
        &refused(&log, "turn_taken", two_new),
        "/data/drawn/1",
        "Ann cannot draw c64: it is a card never seen before, and the deck held only 1 card(s); \
         the rest of the draw comes from the reshuffled discard pile",
    );
    // The last card of the deck must be drawn first.
    let skips_c63 = with(
        with(expected.clone(), "drawn", json!(["c14", "c16"])),
        "kept",
        json!("c14"),
    );
    assert_refused(
        &refused(&log, "turn_taken", skips_c63),
        "/data/drawn",
        "the deck still held 1 card(s); they are drawn before the discard pile is reshuffled, \
         but Ann drew 0 new card(s)",
    );
    // c2 was banked by Bo on turn 2: it is not in the pile.
    let from_collection = with(expected.clone(), "drawn", json!([card_worth_one(63), "c2"]));
    assert_refused(
        &refused(&log, "turn_taken", from_collection),
        "/data/drawn/1",
        "Ann cannot draw c2: it is in Bo's collection, and cards drawn after the reshuffle come \
         from the reshuffled discard pile",
    );
    let evaluation = record(&mut log, "turn_taken", expected);
    let table = details(&evaluation);
    // 25 − 1 = 24 cards in the new deck; c14 discarded again onto the empty pile.
    assert_eq!(table["deck"], json!(24));
    assert_eq!(table["reshuffled"], json!(true));
    assert_eq!(table["discard_pile"], json!(["c14"]));

    // Turn 27, Bo: only cards of the reshuffled pile can be drawn now.
    let expected = sim.turn(Take::Steal(2));
    assert_eq!(expected["drawn"], json!(["c16", "c18"]));
    let new_card = with(
        expected.clone(),
        "drawn",
        json!(["c16", card_worth_one(64)]),
    );
    assert_refused(
        &refused(&log, "turn_taken", new_card),
        "/data/drawn/1",
        "Bo cannot draw c64: it is a card never seen before, and cards drawn after the reshuffle \
         come from the reshuffled discard pile",
    );
    let discarded = with(expected.clone(), "drawn", json!(["c14", "c16"]));
    assert_refused(
        &refused(&log, "turn_taken", discarded),
        "/data/drawn/0",
        "Bo cannot draw c14: it is in the discard pile, and cards drawn after the reshuffle come \
         from the reshuffled discard pile",
    );
    let evaluation = record(&mut log, "turn_taken", expected);
    assert_eq!(details(&evaluation)["deck"], json!(22));
}

#[test]
fn a_five_player_game_ends_when_the_reshuffled_deck_runs_low() {
    let (mut log, sim) = five_player_game(37);
    // After turn 37 the reshuffled deck holds 24 − 2 × 11 = 2: Cy plays turn 38.
    let evaluation = evaluate(&log);
    assert_eq!(details(&evaluation)["deck"], json!(2));
    assert_eq!(details(&evaluation)["next_player"], json!("Cy"));
    let mut sim = sim;
    record(&mut log, "turn_taken", sim.turn(Take::Steal(3)));
    let evaluation = evaluate(&log);
    let table = details(&evaluation);
    assert_eq!(table["deck"], json!(0));
    assert_eq!(table["next_player"], Value::Null);
    assert_eq!(
        table["final_bank_order"],
        json!(["Di", "Ed", "Ann", "Bo", "Cy"])
    );
    // Di and Ed had 7 turns, one fewer than the others' 8: each adds the optional second card.
    let bank = sim.final_bank(&[1, 1, 1, 2, 2]);
    let evaluation = record(&mut log, "final_banked", bank);
    assert_eq!(evaluation.status, Status::Finished);
    // Ann, Bo, Cy 8 + 1 = 9 cards, Di and Ed 7 + 2 = 9, each worth 1.
    assert_eq!(
        totals(&evaluation),
        FIVE.iter()
            .map(|n| ((*n).to_owned(), 9))
            .collect::<Vec<_>>()
    );
    assert_eq!(evaluation.scoreboard.winners, FIVE.to_vec());
    let tiebreak = evaluation
        .scoreboard
        .tiebreak
        .clone()
        .expect("a shared win");
    assert_eq!(tiebreak.rule, "ties are shared");
    assert_eq!(
        tiebreak.detail,
        "Ann, Bo, Cy, Di and Ed tied on 9 points and share the win"
    );
}

// A 6-player game whose discard pile is dug empty: turn 1 steals, every later turn digs the
// card the turn before discarded, so the pile holds one card after each turn. Deck 63 − 15 =
// 48; after turn 24 it is empty. Turn 25 (Ann) digs the pile's only card, the empty pile
// becomes the deck, and nothing is left to draw: Ann draws nothing and keeps nothing, and the
// reshuffled deck (0 cards) ends the game. Ann had 5 turns, the others 4 → they may bank two, and do.

const SIX: [&str; 6] = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"];

#[test]
fn a_draw_with_nothing_left_to_draw_draws_nothing_and_ends_the_game() {
    let mut log = started(&SIX, json!({"prizes": []}));
    let (mut sim, dealt) = Sim::deal(&SIX, card);
    record(&mut log, "showcases_dealt", dealt);
    for turn in 1..=24 {
        let take = if turn == 1 { Take::Steal(1) } else { Take::Dig };
        record(&mut log, "turn_taken", sim.turn(take));
    }
    let evaluation = evaluate(&log);
    assert_eq!(details(&evaluation)["deck"], json!(0));
    assert_eq!(
        details(&evaluation)["discard_pile"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    let turn_25 = sim.turn(Take::Dig);
    assert_eq!(turn_25["drawn"], json!([]));
    assert_eq!(turn_25["kept"], Value::Null);
    assert_refused(
        &refused(
            &log,
            "turn_taken",
            with(turn_25.clone(), "drawn", json!([card(64), card(65)])),
        ),
        "/data/drawn",
        "only 0 card(s) were left to draw (the deck and the reshuffled discard pile ran out), so \
         Ann draws 0, not 2",
    );
    let evaluation = record(&mut log, "turn_taken", turn_25);
    assert_eq!(details(&evaluation)["next_player"], Value::Null);
    assert_eq!(details(&evaluation)["discard_pile"], json!([]));
    let evaluation = record(
        &mut log,
        "final_banked",
        sim.final_bank(&[1, 2, 2, 2, 2, 2]),
    );
    assert_eq!(evaluation.status, Status::Finished);
    // Collections: Ann 5 + 1 = 6 cards, everyone else 4 + 2 = 6.
    let sizes: Vec<usize> = SIX
        .iter()
        .map(|n| {
            details(&evaluation)["collections"][n]
                .as_array()
                .map_or(0, Vec::len)
        })
        .collect();
    assert_eq!(sizes, vec![6; 6]);
}

// ---------------------------------------------------------------------------------------------
// Corrections replay every turn again.

#[test]
fn a_correction_that_breaks_a_later_turn_is_refused() {
    let (mut log, mut sim) = three_player_game();
    play_three_player_turns(&mut log, &mut sim, 1, 2);
    // Turn 1 (event 3) kept c7 and discarded c8, which Bo dug on turn 2 (event 4). Had Ann kept
    // c8, c7 would be on top and Bo's dig of c8 impossible.
    let corrected = with(first_turn(), "kept", json!("c8"));
    let rejection = refused(&log, "correct", json!({"seq": 3, "data": corrected}));
    assert_eq!(rejection.pointer, "/data/seq");
    assert_eq!(
        rejection.rule,
        "after this correction, event 4 (turn_taken) would break a rule: Bo can dig only the top \
         card of the discard pile, which is c7; c8 is in Ann's showcase"
    );
    // Retracting the last turn gives Bo the turn back.
    let evaluation = record(&mut log, "retract", json!({"seq": 4}));
    assert_eq!(details(&evaluation)["next_player"], json!("Bo"));
    assert_eq!(details(&evaluation)["discard_pile"], json!(["c8"]));
}

// ---------------------------------------------------------------------------------------------
// The end-only shortcut and prize scoring.
//
// Ann: blue 60s lamp 3, blue 50s radio 2; Bo: blue 60s chair 1, red 60s vase 4;
// Cy: green 70s lamp 0. Prizes: blue 4, 60s 3, lamps 5.
// Values: Ann 3 + 2 = 5, Bo 1 + 4 = 5, Cy 0.
// Blue: Ann 2, Bo 1 → Ann +4. 60s: Ann 1, Bo 2 → Bo +3. Lamps: Ann 1, Cy 1 → a tie.
// (Ann's lamp counts for blue, 60s and lamps; Bo's chair for blue and 60s.)

fn end_only(prize_tie: &str) -> Evaluation {
    let prizes = json!([
        {"id": "blue", "name": "Most blue objects", "attribute": "colour", "value": "blue", "points": 4},
        {"id": "sixties", "name": "Most 60s objects", "attribute": "period", "value": "60s", "points": 3},
        {"id": "lamps", "name": "Most lamps", "attribute": "type", "value": "Lamp", "points": 5},
        {"id": "gold", "name": "Most gold objects", "attribute": "colour", "value": "gold", "points": 6},
    ]);
    let mut log = started(
        &["Ann", "Bo", "Cy"],
        json!({"prizes": prizes, "prize_tie": prize_tie}),
    );
    record(
        &mut log,
        "collections_recorded",
        json!({"collections": {
            "Ann": [antique("a1", "lamp", "blue", "60s", 3), antique("a2", "radio", "blue", "50s", 2)],
            "Bo": [antique("b1", "chair", "blue", "60s", 1), antique("b2", "vase", "red", "60s", 4)],
            "Cy": [antique("k1", "lamp", "green", "70s", 0)]}}),
    )
}

#[test]
fn collections_recorded_scores_values_and_prizes_and_ends_the_game() {
    let evaluation = end_only("nobody");
    assert_eq!(evaluation.status, Status::Finished);
    // Ann 5 + 4 = 9, Bo 5 + 3 = 8, Cy 0; the lamps tie scores nothing.
    assert_eq!(
        totals(&evaluation),
        vec![("Ann".into(), 9), ("Bo".into(), 8), ("Cy".into(), 0)]
    );
    assert_eq!(
        lines(&evaluation, "Ann"),
        vec![
            ("Collection ×2".into(), 5, "a1 3 + a2 2 = 5".into()),
            ("Most blue objects".into(), 4, "2 vs 1 → +4".into()),
            ("Most 60s objects".into(), 0, "1 vs 2 (Bo) → 0".into()),
            (
                "Most lamps".into(),
                0,
                "1, tied with Cy → nobody scores it (house rule prize_tie: nobody)".into()
            ),
            (
                "Most gold objects".into(),
                0,
                "no card of this game has colour “gold”".into()
            ),
        ]
    );
    // No card of the game is gold: every breakdown says so, for 0 points.
    assert!(evaluation.scoreboard.players.iter().all(|p| {
        p.rounds[0].breakdown.iter().any(|l| {
            l.label == "Most gold objects"
                && l.points == 0
                && l.detail == "no card of this game has colour “gold”"
        })
    }));
}

/// Ann, Bo and Cy record their collections; one prize of 5 on period `period`.
fn sixties_prize_on(period: &str) -> Evaluation {
    let mut log = started(
        &["Ann", "Bo", "Cy"],
        json!({"prizes": [{"id": "sixties", "name": "Most 60s objects", "attribute": "period",
                           "value": period, "points": 5}]}),
    );
    record(
        &mut log,
        "collections_recorded",
        json!({"collections": {
            "Ann": [antique("a1", "lamp", "blue", "60s", 3), antique("a2", "radio", "blue", "60s", 2)],
            "Bo": [antique("b1", "chair", "red", "50s", 1)],
            "Cy": [antique("k1", "vase", "green", "70s", 3)]}}),
    )
}

#[test]
fn a_prize_no_card_of_the_game_matches_says_so_in_every_breakdown_instead_of_a_silent_zero() {
    // The prize was typed the way a French phone shows periods; the cards store "60s".
    let evaluation = sixties_prize_on("années 60");
    // Ann 3 + 2 = 5, Bo 1, Cy 3: nobody takes the prize.
    assert_eq!(
        totals(&evaluation),
        vec![("Ann".into(), 5), ("Bo".into(), 1), ("Cy".into(), 3)]
    );
    for name in ["Ann", "Bo", "Cy"] {
        let line = &player(&evaluation, name).rounds[0].breakdown[1];
        assert_eq!(
            (line.label.to_string(), line.points, line.detail.to_string()),
            (
                "Most 60s objects".into(),
                0,
                "no card of this game has period “années 60”".into()
            )
        );
        assert_eq!(
            line.detail.render(&FRENCH.catalogue),
            "aucune carte de cette partie n'a pour époque « années 60 »"
        );
        assert_eq!(
            line.detail.render(&PERSIAN.catalogue),
            "در این بازی هیچ کارتی با دورهٔ «années 60» نیست"
        );
    }
}

#[test]
fn the_same_prize_on_the_value_the_cards_store_goes_to_the_player_with_most() {
    let evaluation = sixties_prize_on("60s");
    // Ann 3 + 2 + 5 = 10 (2 sixties against 0), Bo 1, Cy 3.
    assert_eq!(
        totals(&evaluation),
        vec![("Ann".into(), 10), ("Bo".into(), 1), ("Cy".into(), 3)]
    );
    assert_eq!(
        lines(&evaluation, "Ann")[1],
        ("Most 60s objects".into(), 5, "2 vs 0 → +5".into())
    );
    assert_eq!(lines(&evaluation, "Bo").len(), 1, "Bo has no 60s card");
}

#[test]
fn a_prize_may_count_any_other_text_the_cards_record() {
    // rules: cards have "at least" a type, a colour, a period and a value; other attributes are
    // free text. A prize on "material": Ann holds two wooden objects, Bo one, Cy none recorded.
    let wood = |id: &str, value: u32| {
        json!({"id": id, "type": "chair", "colour": "red", "period": "50s", "value": value,
               "material": "Wood "})
    };
    let mut log = started(
        &["Ann", "Bo", "Cy"],
        json!({"prizes": [prize("wood", "material", "wood", 3)]}),
    );
    record(
        &mut log,
        "collections_recorded",
        json!({"collections": {
            "Ann": [wood("a1", 1), wood("a2", 2)],
            "Bo": [wood("b1", 0), antique("b2", "vase", "red", "60s", 4)],
            "Cy": [antique("k1", "lamp", "green", "70s", 2)]}}),
    );
    let evaluation = evaluate(&log);
    // Ann 1 + 2 + 3 = 6, Bo 0 + 4 = 4, Cy 2.
    assert_eq!(
        totals(&evaluation),
        vec![("Ann".into(), 6), ("Bo".into(), 4), ("Cy".into(), 2)]
    );
    assert_eq!(
        lines(&evaluation, "Ann"),
        vec![
            ("Collection ×2".into(), 3, "a1 1 + a2 2 = 3".into()),
            ("Most wood".into(), 3, "2 vs 1 → +3".into()),
        ]
    );
}

/// Prizes on "Colour", " PERIOD " and "Material", and collections that hold them: Ann two blue
/// objects (one 60s, of wood), Bo two 60s objects, Cy neither.
fn prizes_named_loosely() -> (Value, Value) {
    let prizes = json!({"prizes": [
        prize("blue", "Colour", "blue", 4),
        prize("sixties", " PERIOD ", "60s", 3),
        prize("wood", "Material", "wood", 2),
    ]});
    let mut a1 = antique("a1", "lamp", "blue", "60s", 3);
    a1["material"] = json!("wood");
    let collections = json!({"collections": {
        "Ann": [a1, antique("a2", "radio", "blue", "50s", 2)],
        "Bo": [antique("b1", "chair", "red", "60s", 1), antique("b2", "vase", "red", "60s", 4)],
        "Cy": [antique("k1", "lamp", "green", "70s", 0)]}});
    (prizes, collections)
}

#[test]
fn a_prizes_attribute_name_is_read_ignoring_case_and_surrounding_spaces() {
    let (prizes, collections) = prizes_named_loosely();
    let mut log = started(&["Ann", "Bo", "Cy"], prizes);
    let evaluation = record(&mut log, "collections_recorded", collections);
    // Values: Ann 3 + 2 = 5, Bo 1 + 4 = 5, Cy 0. Blue: Ann 2 vs 0 → +4; 60s: Bo 2 vs Ann 1 →
    // +3; wood: Ann 1 vs 0 → +2. Ann 5 + 4 + 2 = 11, Bo 5 + 3 = 8, Cy 0.
    assert_eq!(
        totals(&evaluation),
        vec![("Ann".into(), 11), ("Bo".into(), 8), ("Cy".into(), 0)]
    );
    assert_eq!(
        lines(&evaluation, "Ann"),
        vec![
            ("Collection ×2".into(), 5, "a1 3 + a2 2 = 5".into()),
            ("Most blue".into(), 4, "2 vs 0 → +4".into()),
            ("Most 60s".into(), 0, "1 vs 2 (Bo) → 0".into()),
            ("Most wood".into(), 2, "1 vs 0 → +2".into()),
        ]
    );
}

#[test]
fn a_game_stored_before_schema_6_still_reads_attribute_names_letter_for_letter() {
    // Given a game stored at version 5, whose prizes named "Colour", " PERIOD " and "Material"
    let (prizes, collections) = prizes_named_loosely();
    let mut log = started(&["Ann", "Bo", "Cy"], json!({"prizes": []}));
    log[0].data["options"]["prizes"] = prizes["prizes"].clone();
    log[0].schema_version = 5;
    log.push(LogEvent {
        schema_version: 5,
        ..LogEvent::new(2, "collections_recorded", collections)
    });
    // When it is replayed, then its prizes still count nothing, as when it was stored: only
    // the values, Ann 5, Bo 5, Cy 0 — and each prize says that no card matched it.
    let evaluation = evaluate(&log);
    assert_eq!(
        totals(&evaluation),
        vec![("Ann".into(), 5), ("Bo".into(), 5), ("Cy".into(), 0)]
    );
    assert_eq!(
        lines(&evaluation, "Ann"),
        vec![
            ("Collection ×2".into(), 5, "a1 3 + a2 2 = 5".into()),
            (
                "Most blue".into(),
                0,
                "no card of this game has Colour “blue”".into()
            ),
            (
                "Most 60s".into(),
                0,
                "no card of this game has PERIOD “60s”".into()
            ),
            (
                "Most wood".into(),
                0,
                "no card of this game has Material “wood”".into()
            ),
        ]
    );
}

#[test]
fn a_new_game_cannot_set_the_letter_for_letter_reading_of_attribute_names() {
    let (pointer, rule) = setup_error(json!({"prizes": [], "attribute_names_exact": true}));
    assert_eq!(pointer, "/options/attribute_names_exact");
    assert!(
        rule.starts_with("unknown option \"attribute_names_exact\""),
        "{rule}"
    );
}

#[test]
fn a_card_described_again_with_other_text_for_an_attribute_is_refused() {
    let log = started(&["Ann", "Bo", "Cy"], json!({"prizes": []}));
    let mut c1 = card(1);
    c1["material"] = json!("wood");
    let mut again = c1.clone();
    again["material"] = json!("glass");
    let data = json!({"collections": {
        "Ann": [c1], "Bo": [again], "Cy": [card(4)]}});
    assert_refused(
        &refused(&log, "collections_recorded", data),
        "/data/collections/Bo/0/material",
        "card c1 was described with material \"wood\"; the same card cannot now have \"glass\"",
    );
}

#[test]
fn with_prize_tie_all_every_tied_player_scores_the_prize() {
    let evaluation = end_only("all");
    // Ann 9 + 5 = 14, Bo 8, Cy 0 + 5 = 5.
    assert_eq!(
        totals(&evaluation),
        vec![("Ann".into(), 14), ("Bo".into(), 8), ("Cy".into(), 5)]
    );
    assert_eq!(
        lines(&evaluation, "Cy")[1],
        (
            "Most lamps".into(),
            5,
            "1, tied with Ann → +5 each (house rule prize_tie: all)".into()
        )
    );
}

#[test]
fn with_prize_tie_split_the_points_are_divided_and_the_remainder_lost() {
    let evaluation = end_only("split");
    // 5 ÷ 2 = 2 each, 1 lost: Ann 9 + 2 = 11, Bo 8, Cy 2.
    assert_eq!(
        totals(&evaluation),
        vec![("Ann".into(), 11), ("Bo".into(), 8), ("Cy".into(), 2)]
    );
    assert_eq!(
        lines(&evaluation, "Ann")[3],
        (
            "Most lamps".into(),
            2,
            "1, tied with Cy → 5 ÷ 2 = +2, remainder 1 lost (house rule prize_tie: split)".into()
        )
    );
    let house = &evaluation.scoreboard.house_rules;
    assert_eq!(house.len(), 2);
    assert_eq!(house[0].option, "prize_tie");
    assert_eq!(house[0].value, json!("split"));
    assert!(!house[0].default);
}

#[test]
fn the_house_rules_are_always_listed() {
    let house = &end_only("nobody").scoreboard.house_rules;
    let listed: Vec<(&str, &Value, bool)> = house
        .iter()
        .map(|h| (h.option.as_str(), &h.value, h.default))
        .collect();
    assert_eq!(
        listed,
        vec![
            ("prize_tie", &json!("nobody"), true),
            ("winner_tie", &json!("shared"), true)
        ]
    );
}

/// Ann 3 + 2 = 5 and the blue prize (+4) = 9; Bo 9 from one chair; Cy 0.
fn tied_on_total(winner_tie: &str) -> Evaluation {
    let mut log = started(
        &["Ann", "Bo", "Cy"],
        json!({"prizes": [prize("blue", "colour", "blue", 4)], "winner_tie": winner_tie}),
    );
    record(
        &mut log,
        "collections_recorded",
        json!({"collections": {
            "Ann": [antique("a1", "lamp", "blue", "60s", 3), antique("a2", "radio", "blue", "50s", 2)],
            "Bo": [antique("b1", "chair", "red", "60s", 9)],
            "Cy": [antique("k1", "lamp", "green", "70s", 0)]}}),
    )
}

#[test]
fn with_winner_tie_most_prize_points_the_tied_player_with_more_prize_points_wins() {
    // Ann 3 + 2 + blue 4 = 9 (prize points 4), Bo 9 (prize points 0), Cy 0.
    let evaluation = tied_on_total("most_prize_points");
    assert_eq!(
        totals(&evaluation),
        vec![("Ann".into(), 9), ("Bo".into(), 9), ("Cy".into(), 0)]
    );
    assert_eq!(evaluation.scoreboard.winners, vec!["Ann"]);
    assert_eq!(ranks(&evaluation), vec![("Ann", 1), ("Bo", 2), ("Cy", 3)]);
    let tiebreak = evaluation.scoreboard.tiebreak.expect("a tie-break");
    assert_eq!(
        tiebreak.rule,
        "the tied player with more prize points wins (house rule winner_tie: most_prize_points)"
    );
    assert_eq!(
        tiebreak.detail,
        "Ann and Bo tied on 9 points; prize points Ann 4, Bo 0: Ann wins"
    );
    // By default the same table shares the win.
    let shared = tied_on_total("shared");
    assert_eq!(shared.scoreboard.winners, vec!["Ann", "Bo"]);
}

#[test]
fn with_winner_tie_most_prize_points_players_equal_on_prize_points_too_share_the_win() {
    let mut log = started(
        &["Ann", "Bo", "Cy"],
        json!({"prizes": [], "winner_tie": "most_prize_points"}),
    );
    let evaluation = record(
        &mut log,
        "collections_recorded",
        json!({"collections": {
            "Ann": [antique("a1", "lamp", "blue", "60s", 5)],
            "Bo": [antique("b1", "vase", "red", "50s", 5)],
            "Cy": []}}),
    );
    assert_eq!(evaluation.scoreboard.winners, vec!["Ann", "Bo"]);
    assert_eq!(
        evaluation.scoreboard.tiebreak.map(|t| t.detail),
        Some(
            "Ann and Bo tied on 5 points; prize points Ann 0, Bo 0: Ann and Bo share the win"
                .into()
        )
    );
}

#[test]
fn equal_totals_share_the_win() {
    let mut log = started(&["Ann", "Bo", "Cy"], json!({"prizes": []}));
    let evaluation = record(
        &mut log,
        "collections_recorded",
        json!({"collections": {
            "Ann": [antique("a1", "lamp", "blue", "60s", 5)],
            "Bo": [antique("b1", "vase", "red", "50s", 2), antique("b2", "vase", "red", "50s", 3)],
            "Cy": []}}),
    );
    // Ann 5, Bo 2 + 3 = 5, Cy 0.
    assert_eq!(evaluation.scoreboard.winners, vec!["Ann", "Bo"]);
    assert_eq!(ranks(&evaluation), vec![("Ann", 1), ("Bo", 1), ("Cy", 3)]);
    assert_eq!(
        evaluation
            .scoreboard
            .tiebreak
            .as_ref()
            .map(|t| t.detail.to_string()),
        Some("Ann and Bo tied on 5 points and share the win".to_owned())
    );
    assert_eq!(
        lines(&evaluation, "Cy"),
        vec![("Collection ×0".into(), 0, "no cards collected".into())]
    );
}

#[test]
fn a_card_in_two_collections_is_refused() {
    let log = started(&["Ann", "Bo", "Cy"], json!({"prizes": []}));
    let data = json!({"collections": {
        "Ann": [antique("a1", "lamp", "blue", "60s", 5)], "Bo": ["a1"], "Cy": []}});
    assert_refused(
        &refused(&log, "collections_recorded", data),
        "/data/collections/Bo/0",
        "card a1 is already in Ann's collection; a card can be in one place only",
    );
}

#[test]
fn more_than_63_collected_cards_are_refused() {
    let log = started(&["Ann", "Bo", "Cy"], json!({"prizes": []}));
    let cards = |from: u32, to: u32| (from..=to).map(card).collect::<Vec<_>>();
    let data =
        json!({"collections": {"Ann": cards(1, 22), "Bo": cards(23, 44), "Cy": cards(45, 64)}});
    assert_refused(
        &refused(&log, "collections_recorded", data),
        "/data/collections",
        "64 cards are collected, but the game has only 63 antique cards",
    );
}

#[test]
fn collections_recorded_is_refused_once_the_game_is_recorded_turn_by_turn() {
    let (log, _) = three_player_game();
    let data = json!({"collections": {"Ann": [], "Bo": [], "Cy": []}});
    assert_refused(
        &refused(&log, "collections_recorded", data),
        "/data",
        "this game is recorded turn by turn, so its collections come from the turns; \
         collections_recorded is for a table that records only the end",
    );
}

// ---------------------------------------------------------------------------------------------
// The bench fixture: a finished 4-player game, turn by turn.
//
// Plan: dealt c1 | c2 c3 | c4 c5 c6 | c7 c8 c9; deck 54. Turn t draws c(2t+8) c(2t+9), keeps
// the first. Turn 1 and every even turn steal the newest card of the next seat (Ann from Bo,
// Bo from Cy, Di from Ann); every odd turn from 3 digs (Ann and Cy). 54 − 2 × 27 = 0 after turn
// 27 (Cy's): the game ends. Ann, Bo, Cy had 7 turns, Di 6 → Di may bank two at the end, and does.
// Collections, worked out turn by turn:
//   Ann c1 c3 c17 c25 c33 c41 c49 + c57      Bo c2 c6 c12 c14 c20 c22 c28 + c30
//   Cy  c4 c5 c13 c21 c29 c37 c45 + c53      Di c7 c8 c9 c10 c16 c18 + c24 c26
// Values (k % 4): Ann 1+3+1+1+1+1+1+1 = 10; Bo 2+2+0+2+0+2+0+2 = 10;
//   Cy 0+1+1+1+1+1+1+1 = 7; Di 3+0+1+2+0+2+0+2 = 10.
// Blue: Ann c3 c33 c57 = 3, Bo c6 c12 c30 = 3, Cy c21 c45 = 2, Di c9 c18 c24 = 3
//   → split 4 ÷ 3 = 1 each for Ann, Bo, Di (1 lost).
// 60s: Ann c17 c41 c49 = 3, Bo c12 c14 = 2, Cy c13 c45 = 2, Di c10 c16 c18 = 3
//   → split 3 ÷ 2 = 1 each for Ann and Di (1 lost).
// Lamps: Ann c49, Bo c14 c28, Cy c21, Di c7 → Bo +2.
// Radios: Ann c1 c57, Bo c22, Cy c29, Di c8 → Ann +2.
// Totals: Ann 10 + 1 + 1 + 2 = 14, Bo 10 + 1 + 2 = 13, Cy 7, Di 10 + 1 + 1 = 12.

const FIXTURE: &str = include_str!("../../../benches/fixtures/vintage.json");
const FOUR: [&str; 4] = ["Ann", "Bo", "Cy", "Di"];

fn fixture_game() -> Vec<LogEvent> {
    let prizes = json!([
        {"id": "blue", "name": "Most blue objects", "attribute": "colour", "value": "blue", "points": 4},
        {"id": "sixties", "name": "Most 60s objects", "attribute": "period", "value": "60s", "points": 3},
        {"id": "lamps", "name": "Most lamps", "attribute": "type", "value": "lamp", "points": 2},
        {"id": "radios", "name": "Most radios", "attribute": "type", "value": "radio", "points": 2},
    ]);
    let mut log = started(&FOUR, json!({"prizes": prizes, "prize_tie": "split"}));
    let (mut sim, dealt) = Sim::deal(&FOUR, card);
    record(&mut log, "showcases_dealt", dealt);
    for turn in 1..=27 {
        let seat = (turn - 1) % 4;
        let take = if turn == 1 || turn % 2 == 0 {
            Take::Steal((seat + 1) % 4)
        } else {
            Take::Dig
        };
        let data = sim.turn(take);
        record(&mut log, "turn_taken", data);
    }
    record(&mut log, "final_banked", sim.final_bank(&[1, 1, 1, 2]));
    log
}

fn to_json(log: &[LogEvent]) -> Value {
    json!(
        log.iter()
            .map(|e| json!({"seq": e.seq, "type": e.event_type, "data": e.data}))
            .collect::<Vec<_>>()
    )
}

fn from_json(value: &Value) -> Vec<LogEvent> {
    value
        .as_array()
        .expect("an array of events")
        .iter()
        .map(|e| {
            LogEvent::new(
                e["seq"].as_u64().expect("seq"),
                e["type"].as_str().expect("type"),
                e["data"].clone(),
            )
        })
        .collect()
}

#[test]
fn the_bench_fixture_replays_to_its_hand_computed_totals() {
    let fixture: Value = serde_json::from_str(FIXTURE).expect("the fixture is JSON");
    let log = from_json(&fixture);
    assert_eq!(log.len(), 30);
    let evaluation = evaluate(&log);
    assert_eq!(evaluation.status, Status::Finished);
    assert_eq!(evaluation.version, 30);
    assert_eq!(
        totals(&evaluation),
        vec![
            ("Ann".into(), 14),
            ("Bo".into(), 13),
            ("Cy".into(), 7),
            ("Di".into(), 12)
        ]
    );
    assert_eq!(evaluation.scoreboard.winners, vec!["Ann"]);
    let table = details(&evaluation);
    assert_eq!(
        table["collections"]["Di"],
        ids(&[7, 8, 9, 10, 16, 18, 24, 26])
    );
    assert_eq!(
        table["collections"]["Ann"],
        ids(&[1, 3, 17, 25, 33, 41, 49, 57])
    );
}

#[test]
fn the_bench_fixture_is_the_game_the_test_plan_writes() {
    let fixture: Value = serde_json::from_str(FIXTURE).expect("the fixture is JSON");
    assert_eq!(fixture, to_json(&fixture_game()));
}

/// Rewrites the fixture: `cargo test -p tabletally-domain write_vintage_bench_fixture -- --ignored`.
#[test]
#[ignore = "writes domain/benches/fixtures/vintage.json"]
fn write_vintage_bench_fixture() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/fixtures/vintage.json");
    let text = serde_json::to_string_pretty(&to_json(&fixture_game())).expect("serialises");
    std::fs::write(path, text + "\n").expect("writes the fixture");
}

// ---------------------------------------------------------------------------------------------
// Facts for the club statistics

#[test]
fn a_finished_game_gives_collection_and_prize_facts() {
    // Given the collections of `end_only` with prize_tie split: Ann a1 3 + a2 2, Bo b1 1 + b2 4,
    // Cy k1 0. Blue → Ann +4; 60s → Bo +3; lamps tied Ann/Cy → 5 ÷ 2 = +2 each; gold: nobody.
    let evaluation = end_only("split");
    assert_eq!(evaluation.status, Status::Finished);
    // Then prizes scoring 0 (Ann's 60s, Bo's blue) give no fact.
    assert_eq!(
        evaluation.facts,
        vec![
            Fact::stored_player("Ann", "collection_value", 5),
            Fact::stored_player("Ann", "collection_cards", 2),
            Fact::stored_player("Ann", "prize:blue", 4),
            Fact::stored_player("Ann", "prize:lamps", 2),
            Fact::stored_player("Bo", "collection_value", 5),
            Fact::stored_player("Bo", "collection_cards", 2),
            Fact::stored_player("Bo", "prize:sixties", 3),
            Fact::stored_player("Cy", "collection_value", 0),
            Fact::stored_player("Cy", "collection_cards", 1),
            Fact::stored_player("Cy", "prize:lamps", 2),
        ]
    );
}

#[test]
fn the_declared_insights_come_from_the_facts_of_finished_games() {
    // Given `end_only` twice: with prize_tie split (facts above) and with nobody scoring the
    // lamps tie (Ann 5, 2 cards, blue 4; Bo 5, 2 cards, sixties 3; Cy 0, 1 card).
    let sums = summed(&[end_only("split"), end_only("nobody")]);
    // When the club's insights are drawn from them.
    let insights = Vintage::insights(&sums);
    // Then every declared insight, from 2 games and 6 seats: value 20 / 6, cards 10 / 6; blue
    // scored twice for 8, lamps twice for 2 + 2, sixties twice for 6.
    assert_eq!(
        insights.keys().map(String::as_str).collect::<Vec<_>>(),
        names(Vintage::INSIGHTS)
    );
    assert_eq!(
        Value::Object(insights),
        json!({
            "average_collection_value": 3.333,
            "average_collection_cards": 1.667,
            "prizes": {
                "blue": {"times_scored": 2, "points": 8},
                "lamps": {"times_scored": 2, "points": 4},
                "sixties": {"times_scored": 2, "points": 6}}
        })
    );
}

#[test]
fn a_game_in_progress_gives_no_facts() {
    let (log, _) = three_player_game();
    assert_eq!(evaluate(&log).status, Status::InProgress);
    assert!(evaluate(&log).facts.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Prizes must be given; a table's deck names cards by number.

#[test]
fn a_game_without_prizes_is_refused_unless_the_table_says_none() {
    // Given options without prizes, when the game starts, then the table is asked for them
    let (pointer, rule) = setup_error(json!({"prize_tie": "all"}));
    assert_eq!(pointer, "/options");
    assert_eq!(
        rule,
        "which prize cards are in play? Vintage's prizes are not published, so the table lists \
         them in options.prizes, e.g. [{\"id\": \"blue\", \"name\": \"Most blue objects\", \
         \"attribute\": \"colour\", \"value\": \"blue\", \"points\": 4}]; to play without \
         prizes, say \"prizes\": []"
    );
    // An explicit empty list is a game without prizes.
    assert!(
        Game::Vintage
            .start(&entries(&["Ann", "Bo", "Cy"]), &json!({"prizes": []}))
            .is_ok()
    );
}

/// Cards 1–4 of a table's deck: a blue 60s lamp 3, a red 50s radio 2, a blue 70s chair 1 and
/// a green 60s vase 4.
fn deck() -> Value {
    json!({
        "1": {"type": "lamp", "colour": "blue", "period": "60s", "value": 3},
        "2": {"type": "radio", "colour": "red", "period": "50s", "value": 2},
        "3": {"type": "chair", "colour": "blue", "period": "70s", "value": 1},
        "4": {"type": "vase", "colour": "green", "period": "60s", "value": 4},
    })
}

#[test]
fn with_a_deck_cards_are_named_by_their_number() {
    // Given a game with the test prizes and a deck of four cards
    let mut log = started(
        &["Ann", "Bo", "Cy"],
        json!({"prizes": prizes(), "deck": deck()}),
    );
    // When the collections name the cards by number (as numbers or text)
    let evaluation = record(
        &mut log,
        "collections_recorded",
        json!({"collections": {"Ann": [1, "3"], "Bo": [2], "Cy": [4]}}),
    );
    // Then Ann: 3 + 1, most blue (2) +4, most lamps (1) +2 = 10 (60s: Ann 1, Cy 1, tied,
    // nobody); Bo 2; Cy 4.
    assert_eq!(evaluation.status, Status::Finished);
    assert_eq!(
        totals(&evaluation),
        vec![("Ann".into(), 10), ("Bo".into(), 2), ("Cy".into(), 4)]
    );
}

#[test]
fn a_deck_card_described_otherwise_is_refused() {
    let log = started(&["Ann", "Bo", "Cy"], json!({"prizes": [], "deck": deck()}));
    let data = json!({"collections": {
        "Ann": [{"id": "1", "type": "lamp", "colour": "red", "period": "60s", "value": 3}],
        "Bo": [2], "Cy": [4]}});
    assert_refused(
        &refused(&log, "collections_recorded", data),
        "/data/collections/Ann/0/colour",
        "card 1 was described as a blue 60s lamp worth 3; the same card cannot now be a red 60s \
         lamp worth 3",
    );
}

#[test]
fn a_deck_is_numbered_1_to_63() {
    let deck = json!({"64": {"type": "lamp", "colour": "blue", "period": "60s", "value": 3}});
    assert_eq!(
        setup_error(json!({"prizes": [], "deck": deck})),
        (
            "/options/deck/64".into(),
            "the deck's cards are numbered 1 to 63, not 64".into()
        )
    );
}

#[test]
fn nobody_leads_after_only_the_deal_and_the_first_turn_names_the_leader() {
    // Given the deal: every showcase is out, nobody has banked a card
    let (mut log, mut sim) = three_player_game();
    let dealt = evaluate(&log);
    // When Ann takes turn 1 (she banks c1, worth 1)
    play_three_player_turns(&mut log, &mut sim, 1, 1);
    let one_turn = evaluate(&log);
    // Then nobody leads after the deal, and Ann after her turn
    assert_eq!(dealt.status, Status::InProgress);
    assert!(
        dealt.scoreboard.leaders.is_empty(),
        "{:?}",
        dealt.scoreboard.leaders
    );
    assert_eq!(
        totals(&one_turn),
        vec![("Ann".into(), 1), ("Bo".into(), 0), ("Cy".into(), 0)]
    );
    assert_eq!(one_turn.scoreboard.leaders, vec!["Ann"]);
}
