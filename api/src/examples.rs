//! The OpenAPI document's request examples. Each game's examples form scenarios that work when
//! pasted in order: the creation example of `POST /v1/games` named after the scenario, then the
//! `POST /v1/games/{id}/events` examples named `<scenario> <step>`, each with the
//! `expected_version` the game has by then, ending with a correction. The e2e test
//! `examples::every_example_of_the_document_replays_in_order` plays them all, on both databases,
//! and checks the final scores `docs/` explains.

use serde_json::{Value, json};

/// Each scenario's game id, given in its creation example: pasting a creation twice is a retry
/// (the same game), and a tool that sends every example can send each scenario's steps to the
/// game they belong to (the document gives `POST /v1/games/{id}/events` these ids as the
/// examples of `id`, in the order of the request examples).
pub const SCENARIO_GAMES: [(&str, &str); 6] = [
    ("mind-up", "0e5a1c2b-7d3f-4a6e-9b1c-2d3e4f5a0002"),
    ("mint-condition", "0e5a1c2b-7d3f-4a6e-9b1c-2d3e4f5a0001"),
    ("mint-julep", "0e5a1c2b-7d3f-4a6e-9b1c-2d3e4f5a0003"),
    (
        "mint-julep-finishes",
        "0e5a1c2b-7d3f-4a6e-9b1c-2d3e4f5a0004",
    ),
    ("vintage", "0e5a1c2b-7d3f-4a6e-9b1c-2d3e4f5a0005"),
    (
        "vintage-collections",
        "0e5a1c2b-7d3f-4a6e-9b1c-2d3e4f5a0006",
    ),
];

/// The game id of a scenario (`"mint-julep-finishes"`), as its creation example gives it.
pub fn scenario_game(scenario: &str) -> Option<&'static str> {
    SCENARIO_GAMES
        .iter()
        .find(|(name, _)| *name == scenario)
        .map(|(_, id)| *id)
}

fn with_id(mut creation: Value, scenario: &str) -> Value {
    if let Some(id) = scenario_game(scenario) {
        creation["id"] = json!(id);
    }
    creation
}

fn append(expected_version: i64, events: Vec<Value>) -> Value {
    json!({"expected_version": expected_version, "events": events})
}

/// An event with a fixed id, so pasting an example twice is recognised as a retry.
fn event(id: &str, event_type: &str, data: Value) -> Value {
    json!({"id": id, "type": event_type, "data": data})
}

/// `count` copies of a card.
fn cards(groups: &[(usize, &str)]) -> Value {
    Value::Array(
        groups
            .iter()
            .flat_map(|(count, card)| std::iter::repeat_n(json!(card), *count))
            .collect(),
    )
}

// ---------------------------------------------------------------------------------------------
// Mint Condition: Ann and Bo, three rounds by the book, a correction and its retraction.
// ---------------------------------------------------------------------------------------------

pub fn create_mint_condition() -> Value {
    with_id(
        json!({"game": "mint-condition",
            "players": [{"name": "Ann", "color": "red"}, {"name": "Bo", "color": "blue"}],
            "started_at": "2026-11-30T19:00:00Z"}),
        "mint-condition",
    )
}

fn mint_condition_round(round: u32, ann: Value, bo: Value) -> Value {
    json!({"round": round, "collections": {"Ann": ann, "Bo": bo}})
}

fn mint_condition_round_1(ann_fine_wine: usize) -> Value {
    let ann = if ann_fine_wine == 3 {
        // The correction: Ann's Snack Fingers was a third Fine Wine.
        cards(&[
            (2, "be-careful"),
            (3, "fine-wine"),
            (1, "legacy-edition"),
            (1, "memories"),
        ])
    } else {
        cards(&[
            (2, "be-careful"),
            (2, "fine-wine"),
            (1, "legacy-edition"),
            (1, "memories"),
            (1, "snack-fingers"),
        ])
    };
    let bo = cards(&[
        (1, "be-careful"),
        (3, "animal-kingdom"),
        (2, "heavy-rotation"),
        (1, "autographed"),
    ]);
    mint_condition_round(1, ann, bo)
}

/// Step `step` (1–5) of the Mint Condition scenario.
pub fn mint_condition(step: u32) -> Value {
    match step {
        1 => append(
            1,
            vec![event(
                "7d9f6c1e-0a51-4c1b-9d5e-1f2a3b4c5d01",
                "round_collected",
                mint_condition_round_1(2),
            )],
        ),
        2 => append(
            2,
            vec![event(
                "7d9f6c1e-0a51-4c1b-9d5e-1f2a3b4c5d02",
                "round_collected",
                mint_condition_round(
                    2,
                    cards(&[
                        (1, "heavy-rotation"),
                        (2, "autographed"),
                        (3, "memories"),
                        (1, "sleeve-me-up"),
                    ]),
                    cards(&[
                        (1, "be-careful"),
                        (1, "fine-wine"),
                        (2, "legacy-edition"),
                        (1, "lost-pieces"),
                        (2, "snack-fingers"),
                    ]),
                ),
            )],
        ),
        3 => append(
            3,
            vec![event(
                "7d9f6c1e-0a51-4c1b-9d5e-1f2a3b4c5d03",
                "round_collected",
                mint_condition_round(
                    3,
                    cards(&[
                        (1, "be-careful"),
                        (3, "animal-kingdom"),
                        (1, "fine-wine"),
                        (1, "legacy-edition"),
                        (1, "lost-pieces"),
                    ]),
                    cards(&[(2, "be-careful"), (2, "memories"), (3, "heavy-rotation")]),
                ),
            )],
        ),
        4 => append(
            4,
            vec![event(
                "7d9f6c1e-0a51-4c1b-9d5e-1f2a3b4c5d04",
                "correct",
                json!({"seq": 2, "reason": "Ann's Snack Fingers was a third Fine Wine",
                       "data": mint_condition_round_1(3)}),
            )],
        ),
        _ => append(
            5,
            vec![event(
                "7d9f6c1e-0a51-4c1b-9d5e-1f2a3b4c5d05",
                "retract",
                json!({"seq": 5, "reason": "it was Snack Fingers after all"}),
            )],
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Mind Up!: Ann, Bo, Cy and Di with two objectives a round; rounds 1 and 2 turn by turn,
// round 3 recorded at its end, then its score cards corrected.
// ---------------------------------------------------------------------------------------------

pub fn create_mind_up() -> Value {
    with_id(
        json!({"game": "mind-up",
            "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}, {"name": "Di"}],
            "options": {"objectives": 2}, "started_at": "2026-12-04T19:00:00Z"}),
        "mind-up",
    )
}

fn mind_up_cards(event_type: &str, id: String, round: u32, played: [u8; 4]) -> Value {
    let [ann, bo, cy, di] = played;
    event(
        &id,
        event_type,
        json!({"round": round, "cards": {"Ann": ann, "Bo": bo, "Cy": cy, "Di": di}}),
    )
}

/// A round played turn by turn: `round_started`, the turns, the last cards.
fn mind_up_turns(round: u32, started: Value, turns: &[[u8; 4]], last: [u8; 4]) -> Vec<Value> {
    let id = |n: usize| format!("3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d{round:02}{n:02}");
    let mut events = vec![event(&id(0), "round_started", started)];
    for (n, turn) in turns.iter().enumerate() {
        events.push(mind_up_cards("cards_played", id(n + 1), round, *turn));
    }
    events.push(mind_up_cards("last_cards_placed", id(99), round, last));
    events
}

fn mind_up_round_3_started(columns: [u8; 5]) -> Value {
    json!({"round": 3, "columns": columns, "prizes": [4, 14, 28, 44], "objectives": ["D1", "G1"],
        "hands": {"Ann": [12, 13, 25, 37, 39, 41, 42, 46, 53], "Bo": [1, 2, 7, 32, 34, 36, 38, 56, 60],
                  "Cy": [9, 16, 22, 27, 35, 45, 49, 54, 58], "Di": [3, 6, 11, 18, 31, 33, 40, 50, 52]}})
}

/// Step `step` (1–4) of the Mind Up! scenario.
pub fn mind_up(step: u32) -> Value {
    match step {
        1 => append(
            1,
            mind_up_turns(
                1,
                json!({"round": 1, "columns": [1, 3, 4, 2, 5], "prizes": [11, 22, 44, 53], "objectives": ["A1", "C2"],
                    "hands": {"Ann": [12, 31, 37, 39, 46, 52, 54], "Bo": [2, 14, 25, 27, 33, 41, 50],
                              "Cy": [13, 28, 32, 35, 36, 56, 60], "Di": [1, 3, 4, 6, 9, 38, 58]}}),
                &[
                    [46, 25, 13, 1],
                    [12, 27, 35, 3],
                    [31, 14, 56, 4],
                    [37, 50, 60, 9],
                    [54, 33, 32, 38],
                    [52, 41, 36, 58],
                ],
                [39, 2, 28, 6],
            ),
        ),
        2 => append(
            9,
            mind_up_turns(
                2,
                json!({"round": 2, "columns": [4, 3, 2, 1, 5], "objectives": ["B2", "E2"],
                    "hands": {"Ann": [7, 13, 14, 27, 38, 39, 53, 60], "Bo": [2, 12, 25, 31, 33, 37, 40, 44],
                              "Cy": [9, 22, 28, 32, 35, 45, 46, 56], "Di": [1, 3, 4, 6, 11, 49, 50, 54]}}),
                &[
                    [53, 31, 56, 54],
                    [7, 37, 22, 6],
                    [60, 25, 45, 11],
                    [13, 40, 35, 1],
                    [38, 33, 46, 49],
                    [27, 12, 32, 3],
                    [14, 44, 28, 4],
                ],
                [39, 2, 9, 50],
            ),
        ),
        3 => append(
            18,
            vec![
                event(
                    "3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d0300",
                    "round_started",
                    mind_up_round_3_started([2, 3, 5, 1, 4]),
                ),
                event(
                    "3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d0398",
                    "rows_recorded",
                    json!({"round": 3, "rows": {
                        "Ann": [[28, 40, 37], [39, 41, 7, 22], [46, 31]], "Bo": [[4, 12, 56], [9, 54], [6, 32, 42, 2]],
                        "Cy": [[14, 49], [52, 11], [45, 53, 16], [27, 34]], "Di": [[44], [1, 38, 60], [58, 13, 18, 3, 33]]}}),
                ),
            ],
        ),
        _ => append(
            20,
            vec![event(
                "3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d0400",
                "correct",
                json!({"seq": 19, "reason": "the score cards were 5 3 2 1 4",
                       "data": mind_up_round_3_started([5, 3, 2, 1, 4])}),
            )],
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Mint Julep: Ann, Bo and Cy. One game card by card (late bets, a Mint Julep card, a
// correction), one recorded only by each round's finish (an abandon and its retraction).
// ---------------------------------------------------------------------------------------------

/// Mint Julep's creation for `scenario` (`mint-julep` or `mint-julep-finishes`: two games).
pub fn create_mint_julep(scenario: &str) -> Value {
    with_id(
        json!({"game": "mint-julep",
            "players": [{"name": "Ann", "color": "red"}, {"name": "Bo", "color": "blue"}, {"name": "Cy", "color": "green"}],
            "started_at": "2026-12-04T19:00:00Z"}),
        scenario,
    )
}

fn bet(id: &str, round: u32, player: &str, horse: &str, replaces: Option<&str>) -> Value {
    event(
        id,
        "bet_placed",
        json!({"round": round, "player": player, "horse": horse, "replaces": replaces}),
    )
}

/// A card's moves: `(horse, "forward" | "back", "top" | "named")`.
fn card(
    id: &str,
    round: u32,
    player: &str,
    moves: &[(&str, &str, &str)],
    mint_julep: Option<&str>,
) -> Value {
    let moves: Vec<Value> = moves
        .iter()
        .map(|(horse, direction, kind)| json!({"horse": horse, "direction": direction, "kind": kind}))
        .collect();
    event(
        id,
        "card_played",
        json!({"round": round, "player": player, "moves": moves,
               "mint_julep": mint_julep.map(|horse| json!({"horse": horse}))}),
    )
}

fn round_ended(id: &str, round: u32) -> Value {
    event(id, "round_ended", json!({"round": round}))
}

/// Step `step` (1–6) of the Mint Julep scenario played card by card.
pub fn mint_julep(step: u32) -> Value {
    let id = |n: u32| format!("8b6c7d9e-0f1a-4b2c-9d4e-5f6a7b8c{n:04}");
    match step {
        1 => append(
            1,
            vec![
                bet(&id(2), 1, "Ann", "you-got-me", None),
                bet(&id(3), 1, "Bo", "alaskan-justice", None),
                bet(&id(4), 1, "Cy", "newtons-apple", None),
            ],
        ),
        2 => append(
            4,
            vec![
                card(
                    &id(5),
                    1,
                    "Ann",
                    &[("you-got-me", "forward", "named")],
                    None,
                ),
                card(
                    &id(6),
                    1,
                    "Bo",
                    &[("alaskan-justice", "forward", "top")],
                    None,
                ),
                card(
                    &id(7),
                    1,
                    "Cy",
                    &[
                        ("newtons-apple", "forward", "named"),
                        ("maple-splendor", "back", "top"),
                    ],
                    None,
                ),
                card(
                    &id(8),
                    1,
                    "Ann",
                    &[("whiskey-princess", "forward", "top")],
                    Some("whiskey-princess"),
                ),
                round_ended(&id(9), 1),
            ],
        ),
        3 => append(
            9,
            vec![
                bet(&id(10), 2, "Bo", "you-got-me", Some("alaskan-justice")),
                card(
                    &id(11),
                    2,
                    "Bo",
                    &[("you-got-me", "forward", "named")],
                    None,
                ),
                card(
                    &id(12),
                    2,
                    "Cy",
                    &[("newtons-apple", "forward", "named")],
                    None,
                ),
            ],
        ),
        4 => append(
            12,
            vec![
                card(
                    &id(13),
                    2,
                    "Ann",
                    &[("maple-splendor", "forward", "top")],
                    None,
                ),
                round_ended(&id(14), 2),
            ],
        ),
        5 => append(
            14,
            vec![
                bet(&id(15), 3, "Cy", "maple-splendor", Some("newtons-apple")),
                card(
                    &id(16),
                    3,
                    "Ann",
                    &[
                        ("you-got-me", "forward", "named"),
                        ("alaskan-justice", "forward", "named"),
                    ],
                    Some("newtons-apple"),
                ),
                card(
                    &id(17),
                    3,
                    "Cy",
                    &[
                        ("maple-splendor", "forward", "top"),
                        ("maple-splendor", "forward", "top"),
                    ],
                    None,
                ),
                card(
                    &id(18),
                    3,
                    "Bo",
                    &[("you-got-me", "forward", "named")],
                    None,
                ),
                round_ended(&id(19), 3),
            ],
        ),
        _ => append(
            19,
            vec![event(
                &id(20),
                "correct",
                json!({"seq": 10, "reason": "it was Maple Splendor",
                       "data": {"round": 2, "player": "Bo", "horse": "maple-splendor", "replaces": "alaskan-justice"}}),
            )],
        ),
    }
}

/// Step `step` (1–5) of the Mint Julep scenario recorded by each round's finish only.
pub fn mint_julep_finishes(step: u32) -> Value {
    let id = |n: u32| format!("0d8e9f1a-2b3c-4d4e-9f6a-7b8c9d0e{n:04}");
    let race = |n: u32, round: u32, order: [&str; 5]| {
        event(
            &id(n),
            "race_recorded",
            json!({"round": round, "order": order}),
        )
    };
    match step {
        1 => append(
            1,
            vec![
                bet(&id(2), 1, "Ann", "you-got-me", None),
                bet(&id(3), 1, "Bo", "maple-splendor", None),
                bet(&id(4), 1, "Cy", "whiskey-princess", None),
                race(
                    5,
                    1,
                    [
                        "alaskan-justice",
                        "maple-splendor",
                        "you-got-me",
                        "newtons-apple",
                        "whiskey-princess",
                    ],
                ),
                round_ended(&id(6), 1),
            ],
        ),
        2 => append(
            6,
            vec![
                bet(&id(7), 2, "Bo", "alaskan-justice", Some("maple-splendor")),
                race(
                    8,
                    2,
                    [
                        "you-got-me",
                        "alaskan-justice",
                        "maple-splendor",
                        "whiskey-princess",
                        "newtons-apple",
                    ],
                ),
                round_ended(&id(9), 2),
            ],
        ),
        3 => append(
            9,
            vec![
                race(
                    10,
                    3,
                    [
                        "you-got-me",
                        "alaskan-justice",
                        "newtons-apple",
                        "whiskey-princess",
                        "maple-splendor",
                    ],
                ),
                // Round 3's finish ends the game: no round_ended follows it.
            ],
        ),
        4 => append(
            10,
            vec![event(
                &id(12),
                "abandon",
                json!({"reason": "the pub closed"}),
            )],
        ),
        _ => append(
            11,
            vec![event(
                &id(13),
                "retract",
                json!({"seq": 11, "reason": "we finished it after all"}),
            )],
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Vintage: Ann, Bo and Cy. One game turn by turn (28 turns, cards described by a formula so the
// example stays readable in code), one recorded only by the final collections.
// ---------------------------------------------------------------------------------------------

const VINTAGE_PLAYERS: [&str; 3] = ["Ann", "Bo", "Cy"];

fn prize(id: &str, name: &str, attribute: &str, value: &str, points: i64) -> Value {
    json!({"id": id, "name": name, "attribute": attribute, "value": value, "points": points})
}

pub fn create_vintage() -> Value {
    with_id(
        json!({"game": "vintage", "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}],
            "options": {"prizes": [
                prize("blue", "Most blue objects", "colour", "blue", 4),
                prize("sixties", "Most 60s objects", "period", "60s", 3),
                prize("radios", "Most radios", "type", "radio", 3),
                prize("vases", "Most vases", "type", "vase", 2)]},
            "started_at": "2026-11-30T19:00:00Z"}),
        "vintage",
    )
}

/// Card `cN`: type, colour, period and value follow from N.
fn vintage_card(n: u32) -> Value {
    const TYPES: [&str; 4] = ["lamp", "radio", "chair", "vase"];
    const COLOURS: [&str; 3] = ["blue", "red", "green"];
    let period = if n % 2 == 1 { "60s" } else { "50s" };
    json!({"id": format!("c{n}"), "type": TYPES[(n % 4) as usize], "colour": COLOURS[(n % 3) as usize],
           "period": period, "value": n % 5})
}

fn vintage_deal(c1_value: u32) -> Value {
    let mut c1 = vintage_card(1);
    c1["value"] = json!(c1_value);
    json!({"showcases": {"Ann": [c1], "Bo": [vintage_card(2), vintage_card(3)],
                         "Cy": [vintage_card(4), vintage_card(5), vintage_card(6)]}})
}

/// Turn `t` (1-based): bank, steal (turns 1 and 14) or dig, draw two and keep the first.
fn vintage_turn(t: u32) -> Value {
    let c = |n: u32| json!(format!("c{n}"));
    let banked = match t {
        1 => 1,
        2 => 2,
        3 => 5,
        _ => 2 * t - 1,
    };
    let (steal, dig) = match t {
        1 => (json!({"from": "Cy", "card": "c4"}), Value::Null),
        14 => (json!({"from": "Ann", "card": "c4"}), Value::Null),
        _ => (Value::Null, c(2 * t + 4)),
    };
    event(
        &format!("1e9f0a2b-3c4d-4e5f-8a7b-8c9d0e1f{t:04}"),
        "turn_taken",
        json!({"player": VINTAGE_PLAYERS[((t - 1) % 3) as usize], "banked": c(banked),
               "steal": steal, "dig": dig,
               "drawn": [vintage_card(2 * t + 5), vintage_card(2 * t + 6)], "kept": c(2 * t + 5)}),
    )
}

/// Step `step` (1–4) of the Vintage scenario played turn by turn.
pub fn vintage(step: u32) -> Value {
    let id = |n: u32| format!("1e9f0a2b-3c4d-4e5f-8a7b-8c9d0e1f{n:04}");
    match step {
        1 => append(1, vec![event(&id(100), "showcases_dealt", vintage_deal(1))]),
        2 => append(2, (1..=28).map(vintage_turn).collect()),
        3 => append(
            30,
            vec![event(
                &id(101),
                "final_banked",
                json!({"banked": {"Ann": ["c61"], "Bo": ["c57", "c3"], "Cy": ["c59", "c6"]}}),
            )],
        ),
        _ => append(
            31,
            vec![event(
                &id(102),
                "correct",
                json!({"seq": 2, "reason": "c1 is worth 5", "data": vintage_deal(5)}),
            )],
        ),
    }
}

pub fn create_vintage_collections() -> Value {
    with_id(
        json!({"game": "vintage", "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}],
            "options": {"prizes": [
                prize("blue", "Most blue objects", "colour", "blue", 4),
                prize("lamps", "Most lamps", "type", "lamp", 3),
                prize("sixties", "Most 60s objects", "period", "60s", 5)]}}),
        "vintage-collections",
    )
}

/// The Vintage game recorded by its final collections only (one step).
pub fn vintage_collections() -> Value {
    let k = |id: &str, object: &str, colour: &str, period: &str, value: u32| json!({"id": id, "type": object, "colour": colour, "period": period, "value": value});
    append(
        1,
        vec![event(
            "4b2c3d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
            "collections_recorded",
            json!({"collections": {
                "Ann": [k("k1", "lamp", "blue", "60s", 3), k("k2", "radio", "blue", "50s", 4), k("k3", "lamp", "red", "60s", 1)],
                "Bo": [k("k4", "vase", "blue", "70s", 4), k("k5", "lamp", "blue", "50s", 0), k("k6", "chair", "green", "70s", 2)],
                "Cy": [k("k7", "lamp", "green", "60s", 1), k("k8", "lamp", "red", "60s", 5), k("k9", "phone", "red", "60s", 1)]}}),
        )],
    )
}

/// Mint Condition's effective options by the book (for tools that create games directly).
pub fn mint_condition_defaults() -> Value {
    tabletally_domain::Game::MintCondition.default_options()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabletally_domain::Game;
    use tabletally_domain::setup::PlayerEntry;

    #[test]
    fn every_creation_example_starts_a_game() {
        for example in [
            create_mint_condition(),
            create_mind_up(),
            create_mint_julep("mint-julep"),
            create_vintage(),
            create_vintage_collections(),
        ] {
            let game = Game::from_id(example["game"].as_str().unwrap()).expect("a known game");
            let players: Vec<PlayerEntry> =
                serde_json::from_value(example["players"].clone()).unwrap();
            let options = example.get("options").cloned().unwrap_or(json!({}));
            game.start(&players, &options)
                .unwrap_or_else(|e| panic!("{}: {e}", game.id()));
        }
    }

    #[test]
    fn every_event_type_of_every_game_has_an_example() {
        let mut examples: Vec<(&str, Value)> = Vec::new();
        examples.extend((1..=5).map(|s| ("mint-condition", mint_condition(s))));
        examples.extend((1..=4).map(|s| ("mind-up", mind_up(s))));
        examples.extend((1..=6).map(|s| ("mint-julep", mint_julep(s))));
        examples.extend((1..=5).map(|s| ("mint-julep", mint_julep_finishes(s))));
        examples.extend((1..=4).map(|s| ("vintage", vintage(s))));
        examples.push(("vintage", vintage_collections()));
        for game in Game::ALL {
            for event_type in game.event_types() {
                let found = examples.iter().any(|(id, e)| {
                    *id == game.id()
                        && e["events"]
                            .as_array()
                            .is_some_and(|events| events.iter().any(|ev| ev["type"] == *event_type))
                });
                assert!(found, "no OpenAPI example of {} {event_type}", game.id());
            }
        }
    }
}
