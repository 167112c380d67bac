//! Request examples for the OpenAPI document: one per event type of every game, taken from the
//! rules' event contracts, so a client author sees each shape without reading the rules.

use serde_json::{Value, json};

fn append(event_type: &str, id: &str, data: Value) -> Value {
    json!({"expected_version": 3, "events": [{"id": id, "type": event_type, "data": data}]})
}

pub fn mint_condition_round_collected() -> Value {
    append(
        "round_collected",
        "7d9f6c1e-0a51-4c1b-9d5e-1f2a3b4c5d6e",
        json!({"round": 1, "collections": {
        "Ann": ["animal-kingdom", "animal-kingdom", "animal-kingdom", "be-careful", {"card": "fine-wine", "symbol": "red"}, "legacy-edition", "memories"],
        "Bo": ["be-careful", "be-careful", "heavy-rotation", "sleeve-me-up", {"card": "autographed", "protected": true}, "autographed", "lost-pieces"]}}),
    )
}

pub fn mind_up_round_started() -> Value {
    append(
        "round_started",
        "3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
        json!({"round": 1, "columns": [3, 5, 1, 4, 2],
        "prizes": [12, 30, 47], "objectives": ["A1", "F2"],
        "hands": {"Ann": [5, 9, 23, 31, 41, 50, 60], "Bo": [2, 6, 13, 19, 27, 36, 44], "Cy": [1, 8, 15, 22, 33, 39, 58]}}),
    )
}

pub fn mind_up_cards_played() -> Value {
    append(
        "cards_played",
        "4d2e3f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a",
        json!({"round": 1, "cards": {"Ann": 41, "Bo": 2, "Cy": 33}}),
    )
}

pub fn mind_up_last_cards_placed() -> Value {
    append(
        "last_cards_placed",
        "5e3f4a6b-7c8d-4e9f-8a1b-2c3d4e5f6a7b",
        json!({"round": 1, "cards": {"Ann": 60, "Bo": 44, "Cy": 58}}),
    )
}

pub fn mind_up_rows_recorded() -> Value {
    append(
        "rows_recorded",
        "6f4a5b7c-8d9e-4f0a-9b2c-3d4e5f6a7b8c",
        json!({"round": 1, "rows": {
        "Ann": [[23, 31, 60], [9, 50, 39], [13]], "Bo": [[2, 6], [12, 21, 24, 28], [4]], "Cy": [[1, 8, 15], [33, 37, 43], [5]]}}),
    )
}

pub fn mint_julep_bet_placed() -> Value {
    append(
        "bet_placed",
        "7a5b6c8d-9e0f-4a1b-8c3d-4e5f6a7b8c9d",
        json!({"round": 1, "player": "Ann", "horse": "you-got-me", "replaces": null, "initiative": "A"}),
    )
}

pub fn mint_julep_card_played() -> Value {
    append(
        "card_played",
        "8b6c7d9e-0f1a-4b2c-9d4e-5f6a7b8c9d0e",
        json!({"round": 1, "player": "Ann",
        "moves": [{"horse": "you-got-me", "direction": "forward", "kind": "named"},
                  {"horse": "alaskan-justice", "direction": "back", "kind": "top"}],
        "mint_julep": null}),
    )
}

pub fn mint_julep_round_ended() -> Value {
    append(
        "round_ended",
        "9c7d8e0f-1a2b-4c3d-8e5f-6a7b8c9d0e1f",
        json!({"round": 1}),
    )
}

pub fn mint_julep_race_recorded() -> Value {
    append(
        "race_recorded",
        "0d8e9f1a-2b3c-4d4e-9f6a-7b8c9d0e1f2a",
        json!({"round": 3,
        "order": ["you-got-me", "alaskan-justice", "newtons-apple", "whiskey-princess", "maple-splendor"]}),
    )
}

pub fn vintage_showcases_dealt() -> Value {
    append(
        "showcases_dealt",
        "1e9f0a2b-3c4d-4e5f-8a7b-8c9d0e1f2a3b",
        json!({"showcases": {
        "Ann": [{"id": "c1", "type": "lamp", "colour": "blue", "period": "60s", "value": 3}],
        "Bo": [{"id": "c2", "type": "radio", "colour": "red", "period": "50s", "value": 2},
               {"id": "c3", "type": "chair", "colour": "blue", "period": "70s", "value": 1}],
        "Cy": [{"id": "c4", "type": "vase", "colour": "green", "period": "60s", "value": 4},
               {"id": "c5", "type": "phone", "colour": "red", "period": "70s", "value": 2},
               {"id": "c6", "type": "clock", "colour": "blue", "period": "50s", "value": 3}]}}),
    )
}

pub fn vintage_turn_taken() -> Value {
    append(
        "turn_taken",
        "2f0a1b3c-4d5e-4f6a-9b8c-9d0e1f2a3b4c",
        json!({"player": "Bo", "banked": "c2",
        "steal": {"from": "Cy", "card": "c5"}, "dig": null,
        "drawn": [{"id": "c7", "type": "lamp", "colour": "red", "period": "60s", "value": 2},
                  {"id": "c8", "type": "radio", "colour": "blue", "period": "70s", "value": 1}],
        "kept": "c7"}),
    )
}

pub fn vintage_final_banked() -> Value {
    append(
        "final_banked",
        "3a1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
        json!({"banked": {"Ann": ["c30"], "Bo": ["c12", "c14"], "Cy": []}}),
    )
}

pub fn vintage_collections_recorded() -> Value {
    append(
        "collections_recorded",
        "4b2c3d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
        json!({"collections": {
        "Ann": [{"id": "c1", "type": "lamp", "colour": "blue", "period": "60s", "value": 3}],
        "Bo": [{"id": "c2", "type": "radio", "colour": "red", "period": "50s", "value": 2}],
        "Cy": [{"id": "c3", "type": "chair", "colour": "blue", "period": "70s", "value": 1}]}}),
    )
}

pub fn retract() -> Value {
    append(
        "retract",
        "0e5a1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b2c",
        json!({"seq": 5, "reason": "typo"}),
    )
}

pub fn correct() -> Value {
    append(
        "correct",
        "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9",
        json!({"seq": 2, "reason": "Bo had 3 Fine Wine",
        "data": {"round": 1, "collections": {"Ann": ["memories"], "Bo": ["fine-wine"]}}}),
    )
}

pub fn abandon() -> Value {
    append(
        "abandon",
        "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d",
        json!({"reason": "the pub closed"}),
    )
}

pub fn create_mint_condition() -> Value {
    json!({"game": "mint-condition",
        "players": [{"name": "Ann", "color": "red"}, {"name": "Bo", "color": "blue"}, {"name": "Cy", "color": "green"}],
        "options": {"lucky": true, "memories_over_three": "multiples_of_three"}, "started_at": "2026-11-30T19:00:00Z"})
}

/// Mint Condition's effective options by the book (for tools that create games directly).
pub fn mint_condition_defaults() -> Value {
    tabletally_domain::Game::MintCondition.default_options()
}

pub fn create_mind_up() -> Value {
    json!({"game": "mind-up", "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}], "options": {"objectives": 2}})
}

pub fn create_mint_julep() -> Value {
    json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}], "options": {"split": "after_penalty"}})
}

pub fn create_vintage() -> Value {
    json!({"game": "vintage", "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}], "options": {
        "prizes": [{"id": "blue", "name": "Most blue objects", "attribute": "colour", "value": "blue", "points": 4},
                   {"id": "sixties", "name": "Most 60s objects", "attribute": "period", "value": "60s", "points": 3}],
        "prize_tie": "split"}})
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
            create_mint_julep(),
            create_vintage(),
        ] {
            let game = Game::from_id(example["game"].as_str().unwrap()).expect("a known game");
            let players: Vec<PlayerEntry> =
                serde_json::from_value(example["players"].clone()).unwrap();
            game.start(&players, &example["options"])
                .unwrap_or_else(|e| panic!("{}: {e}", game.id()));
        }
    }

    #[test]
    fn every_event_type_of_every_game_has_an_example() {
        let examples = [
            ("mint-condition", mint_condition_round_collected()),
            ("mind-up", mind_up_round_started()),
            ("mind-up", mind_up_cards_played()),
            ("mind-up", mind_up_last_cards_placed()),
            ("mind-up", mind_up_rows_recorded()),
            ("mint-julep", mint_julep_bet_placed()),
            ("mint-julep", mint_julep_card_played()),
            ("mint-julep", mint_julep_round_ended()),
            ("mint-julep", mint_julep_race_recorded()),
            ("vintage", vintage_showcases_dealt()),
            ("vintage", vintage_turn_taken()),
            ("vintage", vintage_final_banked()),
            ("vintage", vintage_collections_recorded()),
        ];
        for game in Game::ALL {
            for event_type in game.event_types() {
                let found = examples
                    .iter()
                    .any(|(id, e)| *id == game.id() && e["events"][0]["type"] == *event_type);
                assert!(found, "no OpenAPI example of {} {event_type}", game.id());
            }
        }
    }
}
