//! A line of an export read and checked: what its report says when it is wrong, in every
//! language.

use super::*;
use serde_json::json;
use tabletally_domain::message::Arg;
use tabletally_domain::setup::PlayerEntry;
use tabletally_domain::untranslated::assert_said_in_french_and_persian;

const GAME: &str = "0b6c3f0e-5d7e-4f3b-9a51-3c2d1e0f9a8b";
const AT: &str = "2026-12-01T20:00:00Z";

/// A Mint Julep game of Ann and Bo whose result was typed in, as an export writes it.
fn good_line() -> Value {
    let players = ["Ann", "Bo"].map(|name| PlayerEntry {
        name: name.into(),
        color: None,
    });
    let setup = Game::MintJulep.start(&players, &json!({})).unwrap();
    json!({"format": FORMAT, "game": {"id": GAME, "game": "mint-julep"}, "events": [
        {"seq": 1, "id": "e1", "type": "game_started", "recorded_at": AT,
         "data": {"game": "mint-julep", "players": setup.players, "options": setup.options}},
        {"seq": 2, "id": "e2", "type": "result_recorded", "recorded_at": AT,
         "data": {"totals": {"Ann": 9, "Bo": 4}, "winners": ["Ann"], "source": "BG Stats"}},
    ]})
}

fn good_player() -> Value {
    json!({"format": PLAYER_FORMAT, "player": {"id": GAME, "name": "Ann", "created_at": AT}})
}

fn good_preset() -> Value {
    json!({"format": PRESET_FORMAT, "preset": {"id": GAME, "name": "friday",
           "game": "mint-condition", "options": {}, "created_at": AT}})
}

/// Why `line` does not import, as its report says it (what is said before the store is
/// asked: the line is read, then checked).
fn refusal(line: &Value) -> Message {
    let text = line.to_string();
    let object = shape::object(&text).unwrap();
    let checked = match line_kind(&object) {
        Err(detail) => return detail,
        Ok(PLAYER_FORMAT) => club::read_player(&object).map(drop),
        Ok(PRESET_FORMAT) => club::read_preset(&object).map(drop),
        Ok(_) => check_line(&object).map(drop),
    };
    match checked {
        Err((_, _, detail)) => detail,
        Ok(()) => panic!("{line} imports"),
    }
}

/// `line` with one change.
fn changed(line: fn() -> Value, change: impl FnOnce(&mut Value)) -> Value {
    let mut line = line();
    change(&mut line);
    line
}

/// Every key a message is said with, its values' keys included.
fn keys(message: &Message, into: &mut std::collections::BTreeSet<&'static str>) {
    if let Message::Keyed { key, args } = message {
        into.insert(key.key);
        for (_, arg) in args {
            if let Arg::Said(inner) = arg {
                keys(inner, into);
            }
        }
    }
}

#[test]
fn a_good_line_is_checked_without_a_refusal() {
    let line = good_line();
    assert!(check_line(line.as_object().unwrap()).is_ok());
    assert!(club::read_player(good_player().as_object().unwrap()).is_ok());
    assert!(club::read_preset(good_preset().as_object().unwrap()).is_ok());
}

#[test]
fn every_way_a_line_can_be_wrong_is_said_in_french_and_persian_without_english() {
    let mut details: Vec<Message> = [
        "3",
        "\"a text of more than forty characters, cut where it is shown\"",
        "[1]",
        "null",
        "true",
        "{\"format\": ",
        "{\"a\": 1, \"a\": 2}",
        "nonsense",
    ]
    .into_iter()
    .map(|line| shape::object(line).unwrap_err())
    .collect();
    let mut game = |change: fn(&mut Value)| details.push(refusal(&changed(good_line, change)));
    game(|l| l["format"] = json!("tabletally.game/2"));
    game(|l| l["format"] = json!({}));
    game(|l| l["game"] = json!(3));
    game(|l| l["events"] = json!(null));
    game(|l| l["game"]["players"] = json!([3]));
    game(|l| l["game"]["players"] = json!([{"seat": "first"}]));
    game(|l| l["game"]["players"] = json!([{"player_id": 3}]));
    game(|l| l["game"]["id"] = json!(null));
    game(|l| l["game"]["game"] = json!(null));
    game(|l| l["game"]["started_at"] = json!("yesterday"));
    game(|l| l["game"]["updated_at"] = json!(1));
    game(|l| l["events"][1] = json!(3));
    game(|l| l["events"][1]["seq"] = json!(null));
    game(|l| l["events"][1]["id"] = json!(null));
    game(|l| l["events"][1]["type"] = json!(null));
    game(|l| l["events"][1]["recorded_at"] = json!(null));
    game(|l| l["events"][1]["recorded_by"] = json!(3));
    game(|l| l["events"][1]["schema_version"] = json!("1"));
    game(|l| l["events"][1]["position"] = json!("1"));
    game(|l| l["game"]["id"] = json!("x"));
    game(|l| l["game"]["game"] = json!("chess"));
    game(|l| {
        let event = l["events"][1].clone();
        l["events"] = json!(vec![event; MAX_EVENTS_PER_GAME + 1]);
    });
    game(|l| l["events"][1]["seq"] = json!(3));
    game(|l| {
        l["events"][1]["type"] = json!("abandoned");
        l["events"][1]["data"] = json!({"reason": "x".repeat(501)});
    });
    game(|l| l["events"][1]["id"] = json!("e1"));
    game(|l| l["events"][0]["type"] = json!("result_recorded"));
    game(|l| l["events"][0]["data"] = json!(3));
    game(|l| l["events"][0]["data"]["players"] = json!(null));
    game(|l| l["events"][0]["data"]["players"][0] = json!(3));
    game(|l| l["events"][0]["data"]["players"][0]["name"] = json!(3));
    game(|l| l["events"][0]["data"]["players"][0]["seat"] = json!("first"));
    game(|l| l["events"][0]["data"]["players"][0]["color"] = json!(3));
    game(|l| l["events"][0]["data"]["started_at"] = json!("yesterday"));
    game(|l| l["events"][0]["data"]["players"][0]["name"] = json!(""));
    game(|l| l["events"][0]["data"]["players"][0]["seat"] = json!(2));
    game(|l| {
        l["events"][0]["data"]["options"] = json!({"pace": "fast"});
        l["events"].as_array_mut().unwrap().pop();
    });
    game(|l| l["events"][1]["data"]["totals"] = json!({"Ann": 9, "Zed": 4}));
    game(|l| l["events"][1]["type"] = json!("round_collected"));
    game(|l| {
        let again = json!({"seq": 3, "id": "e3", "type": "result_recorded", "recorded_at": AT,
                           "data": {"totals": {"Ann": 1, "Bo": 2}}});
        l["events"].as_array_mut().unwrap().push(again);
    });
    game(|l| l["game"]["players"] = json!(3));
    let mut player = |change: fn(&mut Value)| details.push(refusal(&changed(good_player, change)));
    player(|l| l["player"] = json!(null));
    player(|l| l["player"]["former_names"] = json!(3));
    player(|l| l["player"]["former_names"] = json!([3]));
    player(|l| l["player"]["id"] = json!(null));
    player(|l| l["player"]["name"] = json!(null));
    player(|l| l["player"]["created_at"] = json!(null));
    player(|l| l["player"]["id"] = json!("x"));
    player(|l| l["player"]["name"] = json!(""));
    let mut preset = |change: fn(&mut Value)| details.push(refusal(&changed(good_preset, change)));
    preset(|l| l["preset"] = json!([]));
    preset(|l| l["preset"]["id"] = json!(null));
    preset(|l| l["preset"]["game"] = json!(null));
    preset(|l| l["preset"]["name"] = json!(null));
    preset(|l| l["preset"]["options"] = json!(3));
    preset(|l| l["preset"]["created_at"] = json!("yesterday"));
    preset(|l| l["preset"]["id"] = json!("x"));
    preset(|l| l["preset"]["name"] = json!(""));
    preset(|l| l["preset"]["game"] = json!("chess"));
    preset(|l| l["preset"]["options"] = json!({"nonsense": true}));

    let mut said = std::collections::BTreeSet::new();
    for detail in &details {
        assert_said_in_french_and_persian(detail);
        keys(detail, &mut said);
    }
    // Said as the store answers (a player, a preset or a game it has otherwise, or cannot
    // store), or by the import routes: the end-to-end tests say those.
    let elsewhere = [
        "game.player_merged_meanwhile",
        "game.not_stored",
        "line.not_utf8",
        "player.id_elsewhere",
        "player.other_name",
        "player.other_creation",
        "player.name_taken",
        "player.not_stored",
        "preset.differs",
        "preset.name_taken",
        "preset.id_elsewhere",
        "preset.not_stored",
    ];
    let unsaid: Vec<&str> = tabletally_domain::message::english()
        .keys()
        .filter(|key| {
            [
                "line", "value", "field", "what", "whose", "game", "player", "preset",
            ]
            .iter()
            .any(|group| key.starts_with(&format!("server.api.import.{group}.")))
        })
        .filter(|key| !said.contains(key))
        .filter(|key| !elsewhere.iter().any(|e| key.ends_with(e)))
        .collect();
    assert!(unsaid.is_empty(), "no test line says {unsaid:?}");
}

#[test]
fn a_game_line_of_an_export_is_known_by_its_start() {
    assert!(is_game_line(
        format!("{{\"format\":\"{FORMAT}\",\"game\":{{}}}}").as_bytes()
    ));
    assert!(!is_game_line(
        format!("{{\"format\":\"{PLAYER_FORMAT}\",\"player\":{{}}}}").as_bytes()
    ));
}
