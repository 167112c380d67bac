//! History to and from BG Stats and BoardGameGeek: a file exported from one club is copied into
//! another club of the same server with `new_ids=true`, a report names a play by its place in
//! the file, and our exports have the shape of the files those apps write.
//!
//! The fixtures (`tests/fixtures/bgstats.json`, `tests/fixtures/bgg-plays.xml`) follow the
//! apps' own files. BG Stats: the export as its play-file readers and writers on GitHub model it
//! (theiam79/BGStats.Bot `src/BGStats.Bot/Models/{Game,Play,Player,PlayerScore}.cs`,
//! ctuncan/bga_bgstats' `.bgsplay` writer): scores as text, `role` for a player's colour,
//! `seatOrder` from 1 (0 when not set), `highestWins` per game, dates as `YYYY-MM-DD HH:MM:SS`.
//! BoardGameGeek: its XML API 2 `plays` answer (`/xmlapi2/plays?username=…`): every attribute a
//! string, `startposition`, `color`, `new` and `win` on each `<player>`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::helpers::{TestApp, TestClub, event, totals};
use crate::on_both_backends;

on_both_backends!(
    a_file_exported_from_one_club_is_copied_into_another_with_new_ids,
    a_game_copied_from_our_own_file_and_from_another_apps_file_is_copied_once,
    a_report_line_names_the_plays_place_in_the_file,
    seats_and_colours_come_in_as_the_file_gives_them,
    the_bg_stats_export_has_every_field_bg_stats_writes_with_its_type,
    the_boardgamegeek_export_has_every_attribute_boardgamegeek_writes,
    a_report_on_another_apps_file_is_said_in_french_or_persian,
    a_bg_stats_file_may_write_its_whole_numbers_with_a_point,
);

/// An app's import and export routes and its file's content type.
struct App {
    import: &'static str,
    export: &'static str,
    content_type: &'static str,
}

const BG_STATS: App = App {
    import: "/v1/import/bgstats",
    export: "/v1/export/bgstats",
    content_type: "application/json",
};

const BOARDGAMEGEEK: App = App {
    import: "/v1/import/bgg",
    export: "/v1/export/bgg",
    content_type: "application/xml",
};

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

async fn export(app: &TestApp, club: &TestClub, to: &App) -> String {
    let (status, _, file) = app.get_text(to.export, &club.token).await;
    assert_eq!(status, 200, "{file}");
    file
}

async fn import(app: &TestApp, club: &TestClub, to: &App, query: &str, file: &str) -> Value {
    let path = format!("{}{query}", to.import);
    let reply = app
        .post_raw(
            &path,
            Some(&club.token),
            to.content_type,
            file.as_bytes().to_vec(),
        )
        .await;
    assert_eq!(reply.status, 200, "{path}: {}", reply.body);
    reply.body
}

/// A game known only by its final totals, its players seated with these colours.
async fn typed_in(
    app: &TestApp,
    club: &TestClub,
    game: &str,
    started_at: &str,
    seats: &[(&str, Option<&str>, i64)],
    winner: &str,
) -> String {
    let players: Vec<Value> = seats
        .iter()
        .map(|(name, color, _)| match color {
            Some(color) => json!({"name": name, "color": color}),
            None => json!({"name": name}),
        })
        .collect();
    let id = app
        .new_game(
            club,
            json!({"game": game, "players": players, "started_at": started_at}),
        )
        .await;
    let totals: serde_json::Map<String, Value> = seats
        .iter()
        .map(|(name, _, total)| ((*name).to_owned(), json!(total)))
        .collect();
    let reply = app
        .append(
            club,
            &id,
            Some(1),
            vec![event(
                "result_recorded",
                json!({"totals": totals, "winners": [winner], "source": "the score pad"}),
            )],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    id
}

/// A club with two finished games: Mint Julep on 24 December (Ann red 9, Bo blue 4: Ann wins)
/// and Mint Condition on 26 December (Cy green 12, Ann red 20, Bo without a colour 15: the
/// least damage wins, Cy). Their ids, oldest first.
async fn club_with_two_games(app: &TestApp) -> (TestClub, Vec<String>) {
    let club = app.new_club().await;
    let julep = typed_in(
        app,
        &club,
        "mint-julep",
        "2025-12-24T19:00:00Z",
        &[("Ann", Some("red"), 9), ("Bo", Some("blue"), 4)],
        "Ann",
    )
    .await;
    let condition = typed_in(
        app,
        &club,
        "mint-condition",
        "2025-12-26T19:00:00Z",
        &[
            ("Cy", Some("green"), 12),
            ("Ann", Some("red"), 20),
            ("Bo", None, 15),
        ],
        "Cy",
    )
    .await;
    (club, vec![julep, condition])
}

/// The club's games, oldest first, as `(game, [(seat, name, colour)], [(name, total)])`.
async fn games(app: &TestApp, club: &TestClub) -> Vec<(String, Vec<Value>, Vec<(String, i64)>)> {
    let list = app.get("/v1/games", Some(&club.token)).await;
    assert_eq!(list.status, 200, "{}", list.body);
    let mut summaries = list.body["games"].as_array().unwrap().clone();
    summaries.sort_by_key(|g| g["started_at"].as_str().unwrap().to_owned());
    let mut games = Vec::new();
    for game in summaries {
        let seats = game["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| json!([p["seat"], p["name"], p["color"]]))
            .collect();
        let score = app.score(club, game["id"].as_str().unwrap()).await;
        games.push((
            game["game"].as_str().unwrap().to_owned(),
            seats,
            totals(&score),
        ));
    }
    games
}

async fn a_file_exported_from_one_club_is_copied_into_another_with_new_ids(app: TestApp) {
    let (club, ids) = club_with_two_games(&app).await;
    let originals = games(&app, &club).await;
    for to in [BG_STATS, BOARDGAMEGEEK] {
        let file = export(&app, &club, &to).await;
        let other = app.new_club().await;

        // Without new ids each play is refused, advising the route the file came to.
        let refused = import(&app, &other, &to, "", &file).await;
        let advice = |line: u64, id: &str| {
            json!({"line": line, "game_id": id, "status": 409, "detail": format!(
                "game id {id} cannot be used here; to import a copy under new ids, send the \
                 file to POST {}?new_ids=true", to.import)})
        };
        assert_eq!(
            refused,
            json!({"imported": 0, "already_present": 0,
                   "failed": [advice(1, &ids[0]), advice(2, &ids[1])]}),
            "{}",
            to.import
        );
        assert_eq!(games(&app, &other).await, vec![], "{}", to.import);
        // A misspelt switch is refused, not ignored.
        let typo = app
            .post_raw(
                &format!("{}?new_id=true", to.import),
                Some(&other.token),
                to.content_type,
                file.clone().into_bytes(),
            )
            .await;
        assert!(
            typo.problem(400)["detail"]
                .as_str()
                .unwrap()
                .contains("new_id"),
            "{}",
            typo.body
        );

        // With new ids the other club gets a copy, once however often the file is sent.
        let first = import(&app, &other, &to, "?new_ids=true", &file).await;
        let again = import(&app, &other, &to, "?new_ids=true", &file).await;

        assert_eq!(
            first,
            json!({"imported": 2, "already_present": 0, "failed": []}),
            "{}",
            to.import
        );
        assert_eq!(
            again,
            json!({"imported": 0, "already_present": 2, "failed": []}),
            "{}",
            to.import
        );
        // The same games, seats, colours and totals: Ann red 9, Bo blue 4; Cy green 12, Ann
        // red 20, Bo 15.
        let copies = games(&app, &other).await;
        assert_eq!(copies, originals, "{}", to.import);
        assert_eq!(
            copies[1],
            (
                "mint-condition".to_owned(),
                vec![
                    json!([1, "Cy", "green"]),
                    json!([2, "Ann", "red"]),
                    json!([3, "Bo", null])
                ],
                vec![("Ann".into(), 20), ("Bo".into(), 15), ("Cy".into(), 12)]
            )
        );
        // The first club's games are untouched.
        assert_eq!(games(&app, &club).await, originals, "{}", to.import);
    }
}

async fn a_game_copied_from_our_own_file_and_from_another_apps_file_is_copied_once(app: TestApp) {
    let (club, _) = club_with_two_games(&app).await;
    let other = app.new_club().await;
    let (status, _, ndjson) = app.get_text("/v1/export", &club.token).await;
    assert_eq!(status, 200);
    let copied = app
        .post_raw(
            "/v1/import?new_ids=true",
            Some(&other.token),
            "application/x-ndjson",
            ndjson.into_bytes(),
        )
        .await;
    assert_eq!(copied.body["imported"], 2, "{}", copied.body);

    for to in [BG_STATS, BOARDGAMEGEEK] {
        let file = export(&app, &club, &to).await;
        let report = import(&app, &other, &to, "?new_ids=true", &file).await;

        // Each play's copy gets the id our own file's copy got: both are already there.
        assert_eq!(
            report,
            json!({"imported": 0, "already_present": 2, "failed": []}),
            "{}",
            to.import
        );
    }
    assert_eq!(games(&app, &other).await.len(), 2);
}

async fn a_report_line_names_the_plays_place_in_the_file(app: TestApp) {
    let club = app.new_club().await;
    // plays[0] is Coloretto (skipped), plays[1] imports, plays[2] has no score for Bo.
    let bgstats = json!({
        "games": [{"id": 1, "name": "Coloretto"}, {"id": 2, "name": "Mint Julep"}],
        "players": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bo"}],
        "plays": [
            {"uuid": "P-COLORETTO", "playDate": "2024-06-01 20:00:00", "gameRefId": 1,
             "playerScores": [{"playerRefId": 1, "score": "30"}, {"playerRefId": 2, "score": "25"}]},
            {"uuid": "P-GOOD", "playDate": "2024-06-02 20:00:00", "gameRefId": 2,
             "playerScores": [{"playerRefId": 1, "score": "7", "winner": true},
                              {"playerRefId": 2, "score": "3"}]},
            {"uuid": "P-NO-SCORE", "playDate": "2024-06-03 20:00:00", "gameRefId": 2,
             "playerScores": [{"playerRefId": 1, "score": "8", "winner": true},
                              {"playerRefId": 2, "score": ""}]}
        ]
    });
    // The second <play> (BoardGameGeek's play 9002) has no score for Bo.
    let bgg = r#"<?xml version="1.0" encoding="utf-8"?><plays total="2" page="1">
  <play id="9001" date="2024-06-04" quantity="1" length="20" incomplete="0" nowinstats="0" location="">
    <item name="Mint Julep" objecttype="thing" objectid="0"/>
    <players><player name="Ann" score="6" win="1"/><player name="Bo" score="2" win="0"/></players>
  </play>
  <play id="9002" date="2024-06-05" quantity="1" length="20" incomplete="0" nowinstats="0" location="">
    <item name="Mint Julep" objecttype="thing" objectid="0"/>
    <players><player name="Ann" score="6" win="1"/><player name="Bo" score="" win="0"/></players>
  </play>
</plays>"#;

    let from_bgstats = import(&app, &club, &BG_STATS, "", &bgstats.to_string()).await;
    let from_bgg = import(&app, &club, &BOARDGAMEGEEK, "", bgg).await;

    assert_eq!(
        from_bgstats,
        json!({"imported": 1, "already_present": 0,
               "failed": [{"line": 3, "game_id": null, "status": 422,
                           "detail": "play bgstats:P-NO-SCORE: Bo has no whole-number score"}],
               "skipped": [{"game": "Coloretto", "plays": 1}]})
    );
    assert_eq!(
        from_bgg,
        json!({"imported": 1, "already_present": 0,
               "failed": [{"line": 2, "game_id": null, "status": 422,
                           "detail": "play bgg:9002: Bo has no whole-number score"}]})
    );
}

async fn seats_and_colours_come_in_as_the_file_gives_them(app: TestApp) {
    let club = app.new_club().await;

    import(&app, &club, &BG_STATS, "", &fixture("bgstats.json")).await;
    import(&app, &club, &BOARDGAMEGEEK, "", &fixture("bgg-plays.xml")).await;

    // BG Stats' Mind Up!: listed Ann, Bo, Cy with seatOrder 2, 3, 1. Vintage: seatOrder 0 (not
    // set), so in the order listed. BoardGameGeek's Mint Julep: Bo listed first at
    // startposition 2; its Mint Condition has no start positions.
    let seats: Vec<(String, Vec<Value>)> = games(&app, &club)
        .await
        .into_iter()
        .map(|(game, seats, _)| (game, seats))
        .collect();
    assert_eq!(
        seats,
        vec![
            (
                "mint-condition".into(),
                vec![json!([1, "Ann", "Red"]), json!([2, "Bo", "Blue"])]
            ),
            (
                "mind-up".into(),
                vec![
                    json!([1, "Cy", "Green"]),
                    json!([2, "Ann", "Red"]),
                    json!([3, "Bo", "Blue"])
                ]
            ),
            (
                "vintage".into(),
                vec![
                    json!([1, "Ann", null]),
                    json!([2, "Bo", null]),
                    json!([3, "Cy", null])
                ]
            ),
            (
                "mint-julep".into(),
                vec![json!([1, "Ann", "Red"]), json!([2, "Bo", "Blue"])]
            ),
            (
                "mint-condition".into(),
                vec![json!([1, "Ann", "Red"]), json!([2, "Bo", "Blue"])]
            ),
        ]
    );
}

/// JSON's name for a value's type.
fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Where `ours` lacks a key `theirs` has, or gives it another type (objects key by key, arrays
/// by their first item).
fn shape_differences(at: &str, theirs: &Value, ours: &Value, found: &mut Vec<String>) {
    match (theirs, ours) {
        (Value::Object(theirs), Value::Object(ours)) => {
            for (key, their) in theirs {
                let at = format!("{at}/{key}");
                match ours.get(key) {
                    None => found.push(format!("{at} is missing")),
                    Some(our) => shape_differences(&at, their, our, found),
                }
            }
        }
        (Value::Array(theirs), Value::Array(ours)) => {
            if let (Some(their), Some(our)) = (theirs.first(), ours.first()) {
                shape_differences(&format!("{at}/0"), their, our, found);
            }
        }
        (theirs, ours) if type_of(theirs) != type_of(ours) => found.push(format!(
            "{at} is a {}, not a {}",
            type_of(ours),
            type_of(theirs)
        )),
        _ => {}
    }
}

/// A time as BG Stats writes it, from one of our RFC 3339 times.
fn bgstats_time(rfc3339: &Value) -> String {
    chrono::DateTime::parse_from_rfc3339(rfc3339.as_str().unwrap())
        .unwrap()
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
}

async fn the_bg_stats_export_has_every_field_bg_stats_writes_with_its_type(app: TestApp) {
    let (club, ids) = club_with_two_games(&app).await;
    let (other, _) = club_with_two_games(&app).await;

    let file = export(&app, &club, &BG_STATS).await;
    let again = export(&app, &club, &BG_STATS).await;
    let others: Value = serde_json::from_str(&export(&app, &other, &BG_STATS).await).unwrap();

    // Exporting twice gives the same file, uuids included.
    assert_eq!(file, again);
    let ours: Value = serde_json::from_str(&file).unwrap();
    let mut theirs: Value = serde_json::from_str(&fixture("bgstats-real-shape.json")).unwrap();
    // What the phone that wrote the file was: a server is no phone.
    theirs["userInfo"] = json!({"meRefId": 1});
    let mut found = Vec::new();
    shape_differences("", &theirs, &ours, &mut found);
    assert_eq!(found, Vec::<String>::new(), "{ours:#}");

    // The games played, with the way each is won: the least damage wins Mint Condition.
    let games: Vec<(&Value, &Value)> = ours["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (&g["name"], &g["highestWins"]))
        .collect();
    assert_eq!(
        games,
        vec![
            (&json!("Mint Julep"), &json!(true)),
            (&json!("Mint Condition"), &json!(false))
        ]
    );
    // A game's uuid is the same in every club's file; a player's is the club's own.
    let uuids = |file: &Value, list: &str| -> Vec<String> {
        file[list]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["uuid"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(uuids(&ours, "games"), uuids(&others, "games"));
    for uuid in uuids(&ours, "players") {
        assert!(uuid::Uuid::parse_str(&uuid).is_ok(), "{uuid}");
        assert!(!uuids(&others, "players").contains(&uuid), "{uuid}");
    }
    // The Mint Condition play: seats in order with their colours, Cy's 12 the best.
    let play = &ours["plays"][1];
    let names: BTreeMap<i64, &str> = ours["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_i64().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let scores: Vec<Value> = play["playerScores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            json!([
                s["seatOrder"],
                names[&s["playerRefId"].as_i64().unwrap()],
                s["role"],
                s["score"],
                s["rank"],
                s["winner"],
                s["newPlayer"]
            ])
        })
        .collect();
    assert_eq!(
        scores,
        vec![
            json!([1, "Cy", "green", "12", 1, true, true]),
            json!([2, "Ann", "red", "20", 3, false, true]),
            json!([3, "Bo", "", "15", 2, false, true])
        ]
    );
    assert_eq!(play["uuid"], json!(ids[1]));
    assert_eq!(play["playDate"], "2025-12-26 19:00:00");
    // Entered when its first event was recorded, changed when its last was.
    let log = app
        .get(&format!("/v1/games/{}/events", ids[1]), Some(&club.token))
        .await
        .body;
    assert_eq!(
        (&play["entryDate"], &play["modificationDate"]),
        (
            &json!(bgstats_time(&log["events"][0]["recorded_at"])),
            &json!(bgstats_time(&log["events"][1]["recorded_at"]))
        )
    );
    // Our id where BG Stats keeps a play's origin, never in the comment its players read.
    assert_eq!(play["comments"], "");
    let origin: Value = serde_json::from_str(play["metaData"].as_str().unwrap()).unwrap();
    assert_eq!(origin["tabletallyGameId"], json!(ids[1]));
    assert_eq!(ours["userInfo"]["meRefId"], ours["players"][0]["id"]);
}

/// The attributes of every `<name …>` element of a file, in order (the files here quote every
/// value with `"` and hold no `>` in one).
fn elements(xml: &str, name: &str) -> Vec<BTreeMap<String, String>> {
    xml.split(&format!("<{name} "))
        .skip(1)
        .map(|rest| {
            let tag = &rest[..rest.find('>').unwrap()];
            let parts: Vec<&str> = tag.split('"').collect();
            parts
                .chunks(2)
                .filter(|pair| pair.len() == 2)
                .map(|pair| {
                    (
                        pair[0].trim().trim_end_matches('=').to_owned(),
                        pair[1].to_owned(),
                    )
                })
                .collect()
        })
        .collect()
}

async fn the_boardgamegeek_export_has_every_attribute_boardgamegeek_writes(app: TestApp) {
    let (club, ids) = club_with_two_games(&app).await;

    let file = export(&app, &club, &BOARDGAMEGEEK).await;
    let again = export(&app, &club, &BOARDGAMEGEEK).await;

    assert_eq!(file, again);
    let theirs = fixture("bgg-plays.xml");
    for element in ["plays", "play", "item", "subtype", "player"] {
        let (their, ours) = (&elements(&theirs, element)[0], &elements(&file, element)[0]);
        for (key, value) in their {
            let our = ours
                .get(key)
                .unwrap_or_else(|| panic!("<{element}> has no {key}: {file}"));
            assert!(
                value.parse::<i64>().is_err() || our.parse::<i64>().is_ok(),
                "<{element} {key}=\"{our}\"> is not a whole number like \"{value}\""
            );
        }
    }
    // Seats in order with their colours (none for Bo), everyone new to the game.
    let players: Vec<String> = elements(&file, "player")
        .iter()
        .map(|p| {
            ["startposition", "name", "color", "score", "new", "win"]
                .map(|key| p[key].as_str())
                .join("|")
        })
        .collect();
    assert_eq!(
        players,
        [
            "1|Ann|red|9|1|1",
            "2|Bo|blue|4|1|0",
            "1|Cy|green|12|1|1",
            "2|Ann|red|20|1|0",
            "3|Bo||15|1|0",
        ]
    );
    // Played at the club; our id in an attribute of our own, which BoardGameGeek's readers skip.
    let plays = elements(&file, "play");
    assert_eq!(
        (
            plays[1]["date"].as_str(),
            plays[1]["location"].as_str(),
            plays[1]["tabletallyGameId"].as_str()
        ),
        ("2025-12-26", "Friday games", ids[1].as_str())
    );
}

async fn a_report_on_another_apps_file_is_said_in_french_or_persian(app: TestApp) {
    use crate::portability::{assert_no_english_left, details, import_in, machine_fields};
    // Given a BG Stats file with a play that lists no players, one that names a player the
    // file does not list and one without Bo's score, and a BoardGameGeek file with another
    // club's game, a play of quantity 500 and one without Bo's score.
    let source = app.new_club().await;
    let game = typed_in(
        &app,
        &source,
        "mint-julep",
        "2024-06-01T20:00:00Z",
        &[("Ann", None, 6), ("Bo", None, 2)],
        "Ann",
    )
    .await;
    let bgstats = json!({
        "games": [{"id": 1, "name": "Mint Julep"}],
        "players": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bo"}],
        "plays": [
            {"uuid": "P-EMPTY", "playDate": "2024-06-01 20:00:00", "gameRefId": 1,
             "playerScores": []},
            {"uuid": "P-STRANGER", "playDate": "2024-06-02 20:00:00", "gameRefId": 1,
             "playerScores": [{"playerRefId": 1, "score": "7"}, {"playerRefId": 999, "score": "3"}]},
            {"uuid": "P-NO-SCORE", "playDate": "2024-06-03 20:00:00", "gameRefId": 1,
             "playerScores": [{"playerRefId": 1, "score": "8"}, {"playerRefId": 2, "score": ""}]}
        ]
    })
    .to_string();
    let ours = export(&app, &source, &BOARDGAMEGEEK).await;
    let bgg = ours.replace(
        "</plays>",
        r#"<play id="9001" date="2024-06-04" quantity="500">
    <item name="Mint Julep" objecttype="thing" objectid="0"/>
    <players><player name="Ann" score="6" win="1"/><player name="Bo" score="2" win="0"/></players>
  </play>
  <play id="9002" date="2024-06-05" quantity="1">
    <item name="Mint Julep" objecttype="thing" objectid="0"/>
    <players><player name="Ann" score="6" win="1"/><player name="Bo" score="" win="0"/></players>
  </play>
</plays>"#,
    );
    let club = app.new_club().await;

    // When each is imported in English, French and Persian
    let mut reports = BTreeMap::new();
    for language in ["en", "fr", "fa"] {
        for to in [&BG_STATS, &BOARDGAMEGEEK] {
            let file = if to.import == BG_STATS.import {
                &bgstats
            } else {
                &bgg
            };
            let report = import_in(
                &app,
                &club,
                to.import,
                to.content_type,
                file.as_bytes(),
                language,
            )
            .await;
            reports.insert((to.import, language), report);
        }
    }

    // Then the plays fail alike in every language, their details said in it
    let (bgstats_en, bgg_en) = (
        &reports[&(BG_STATS.import, "en")],
        &reports[&(BOARDGAMEGEEK.import, "en")],
    );
    assert_eq!(
        details(bgstats_en),
        [
            "play bgstats:P-EMPTY: the play lists no players",
            "play bgstats:P-STRANGER: playerScores[1] names playerRefId 999, which the file's players do not list",
            "play bgstats:P-NO-SCORE: Bo has no whole-number score",
        ]
    );
    assert_eq!(
        details(bgg_en),
        [
            format!("game id {game} cannot be used here; to import a copy under new ids, send the file to POST /v1/import/bgg?new_ids=true"),
            r#"play bgg:9001: quantity="500" says the game was played 500 times with the same scores; at most 100 are imported as separate games, so record them apart"#.to_owned(),
            "play bgg:9002: Bo has no whole-number score".to_owned(),
        ]
    );
    for language in ["fr", "fa"] {
        for (to, english) in [(&BG_STATS, bgstats_en), (&BOARDGAMEGEEK, bgg_en)] {
            let report = &reports[&(to.import, language)];
            assert_eq!(machine_fields(report), machine_fields(english));
            assert_no_english_left(&details(report), language);
        }
    }
    assert_eq!(
        details(&reports[&(BG_STATS.import, "fr")]),
        [
            "partie bgstats:P-EMPTY : la partie n'a aucun joueur",
            "partie bgstats:P-STRANGER : playerScores[1] désigne le playerRefId 999, que la liste des joueurs du fichier ne contient pas",
            "partie bgstats:P-NO-SCORE : Bo n'a pas de score en nombre entier",
        ]
    );
    assert_eq!(
        details(&reports[&(BOARDGAMEGEEK.import, "fr")]),
        [
            format!("l'id de partie {game} ne peut pas servir ici ; pour importer une copie sous de nouveaux ids, envoyez le fichier à POST /v1/import/bgg?new_ids=true"),
            r#"partie bgg:9001 : quantity="500" dit que la partie a été jouée 500 fois avec les mêmes scores ; au plus 100 sont importées comme parties séparées, alors enregistrez-les à part"#.to_owned(),
            "partie bgg:9002 : Bo n'a pas de score en nombre entier".to_owned(),
        ]
    );
    assert_eq!(
        details(&reports[&(BG_STATS.import, "fa")]),
        [
            "بازی bgstats:P-EMPTY: این بازی هیچ بازیکنی را نام نمی‌برد",
            "بازی bgstats:P-STRANGER: playerScores[1] به playerRefId 999 اشاره می‌کند که در فهرست بازیکنان پرونده نیست",
            "بازی bgstats:P-NO-SCORE: Bo امتیازی با عدد درست ندارد",
        ]
    );
    assert_eq!(
        details(&reports[&(BOARDGAMEGEEK.import, "fa")])[0],
        format!(
            "شناسهٔ بازی {game} این‌جا به کار نمی‌رود؛ برای وارد کردن رونوشتی با شناسه‌های تازه، پرونده را به POST /v1/import/bgg?new_ids=true بفرستید"
        )
    );
}

/// The file with every id, reference and seat order written as a float (`7` → `7.0`).
fn with_points(value: &mut Value) {
    match value {
        Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                let whole = ["id", "gameRefId", "playerRefId", "seatOrder"].contains(&key.as_str());
                match field.as_i64().filter(|_| whole) {
                    Some(n) => *field = json!(n as f64),
                    None => with_points(field),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(with_points),
        _ => {}
    }
}

async fn a_bg_stats_file_may_write_its_whole_numbers_with_a_point(app: TestApp) {
    // Arrange: BG Stats' fixture as it is, and again with its whole numbers written `7.0`
    // (JSON Schema's `integer`, which the OpenAPI document gives them, allows both).
    let as_written = fixture("bgstats.json");
    let mut pointed: Value = serde_json::from_str(&as_written).unwrap();
    with_points(&mut pointed);
    let pointed = pointed.to_string();
    let mut half: Value = serde_json::from_str(&pointed).unwrap();
    half["players"][0]["id"] = json!(1.5);
    let (first, second, third) = (
        app.new_club().await,
        app.new_club().await,
        app.new_club().await,
    );

    // Act
    import(&app, &first, &BG_STATS, "", &as_written).await;
    import(&app, &second, &BG_STATS, "", &pointed).await;
    let refused = app
        .post_raw(
            BG_STATS.import,
            Some(&third.token),
            BG_STATS.content_type,
            half.to_string().into_bytes(),
        )
        .await;

    // Assert: the same games either way; a number with a fraction is refused, named.
    assert!(pointed.contains(".0"), "{pointed}");
    assert_eq!(games(&app, &second).await, games(&app, &first).await);
    assert_eq!(refused.status, 400, "{}", refused.body);
    let detail = refused.body["detail"].as_str().unwrap();
    assert!(detail.contains("1.5 is not a whole number"), "{detail}");
    assert!(games(&app, &third).await.is_empty());
}
