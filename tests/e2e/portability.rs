//! A club's history in and out: exported as `tabletally.game/1` NDJSON from one database and
//! imported into a new club on the other (SQLite → PostgreSQL and back, when PostgreSQL is
//! configured), it answers every score, event list and statistic the same.

use serde_json::{Value, json};

use crate::helpers::{Backend, TestApp, TestClub, event, spawn_app, totals};
use crate::mint_condition::new_game;
use crate::on_both_backends;

on_both_backends!(
    an_exported_club_imported_on_the_other_database_answers_the_same,
    a_game_id_of_another_club_is_a_conflict,
    every_club_migrates_to_an_empty_database_and_answers_the_same,
    a_bg_stats_export_brings_the_plays_of_our_games_as_typed_in_results,
    a_boardgamegeek_plays_file_brings_the_plays_of_our_games_as_typed_in_results,
    a_file_of_another_kind_is_refused_with_400,
    our_finished_games_go_out_to_bg_stats_and_boardgamegeek_and_come_back_the_same,
    a_broken_line_is_named_and_the_other_games_still_import,
    a_typed_in_result_counts_in_the_statistics_but_not_in_the_insights,
    a_heavily_used_game_goes_out_to_other_apps_and_comes_back_counted_apart,
    imported_players_are_seated_as_a_new_game_seats_them,
    another_copy_of_a_stored_game_is_a_conflict_not_present,
    the_lobby_hears_of_imported_games,
    an_incomplete_boardgamegeek_play_is_skipped,
    who_recorded_an_event_is_kept_on_import_and_may_be_left_out,
    the_export_lists_games_in_the_order_they_were_played,
    a_club_moves_whole_with_its_players_merges_renames_and_presets,
    a_file_of_games_alone_still_imports_with_players_matched_by_name,
    a_copy_under_new_ids_keeps_a_merged_player_one_player,
    a_line_that_is_not_what_a_line_must_be_is_named_in_words,
    a_name_the_club_already_has_keeps_the_clubs_player_and_preset,
    every_format_version_of_our_own_files_still_imports,
    a_real_shaped_bg_stats_file_imports_with_its_names_trimmed_and_its_faults_named,
    a_bg_stats_file_is_read_after_a_byte_order_mark_and_must_hold_its_lists,
    a_boardgamegeek_file_of_two_pages_imports_quantities_as_games_and_keeps_nowinstats_out,
    our_exports_are_read_by_the_apps_own_readers,
    an_imported_event_beyond_the_limits_of_an_append_is_refused_with_its_line,
    a_report_lists_the_first_hundred_failures_and_counts_the_rest,
    an_import_whose_client_hangs_up_stops_between_two_games,
    a_third_import_at_once_is_asked_to_come_back_later,
    fifty_imports_in_a_row_all_answer_while_another_club_keeps_recording,
    an_import_report_is_said_in_french_or_persian_with_the_same_machine_fields,
);

/// The other database when PostgreSQL is configured, else a second server on the same kind.
async fn other_server(app: &TestApp) -> TestApp {
    let other = match app.backend {
        Backend::Sqlite => Backend::Postgres,
        Backend::Postgres => Backend::Sqlite,
    };
    match spawn_app(other).await {
        Some(target) => target,
        None => spawn_app(app.backend).await.expect("the same backend runs"),
    }
}

/// Every value with the keys that differ between two databases or clubs by design removed:
/// global positions and club player ids (a game's `updated_at` moves with it).
fn portable(mut value: Value) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.remove("position");
                map.remove("player_id");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut value);
    value
}

async fn export(app: &TestApp, club: &TestClub) -> String {
    let (status, content_type, text) = app.get_text("/v1/export", &club.token).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(content_type, "application/x-ndjson");
    text
}

/// The game lines of an export (after its players and presets): a file as exports were
/// before they carried the club's players.
fn game_lines(file: &str) -> Vec<&str> {
    file.lines()
        .filter(|l| l.starts_with(r#"{"format":"tabletally.game/1""#))
        .collect()
}

async fn import(app: &TestApp, club: &TestClub, file: &str) -> Value {
    let reply = app
        .post_raw(
            "/v1/import",
            Some(&club.token),
            "application/x-ndjson",
            file.as_bytes().to_vec(),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.body
}

/// Posts a file to an import route asking for `language`: the report (200 asserted).
pub(crate) async fn import_in(
    app: &TestApp,
    club: &TestClub,
    path: &str,
    content_type: &str,
    file: &[u8],
    language: &str,
) -> Value {
    let reply = app
        .client
        .post(app.url(path))
        .bearer_auth(&club.token)
        .header("content-type", content_type)
        .header("accept-language", language)
        .body(file.to_vec())
        .send()
        .await
        .expect("the server answers");
    assert_eq!(reply.status(), 200);
    assert_eq!(reply.headers()["content-language"], language);
    reply.json().await.expect("a report")
}

/// A report's failures without their words: what must not change with the language.
pub(crate) fn machine_fields(report: &Value) -> Value {
    let mut report = report.clone();
    for failure in report["failed"].as_array_mut().expect("failures") {
        failure["detail"] = Value::Null;
    }
    report
}

/// A report's details, in the order of its failures.
pub(crate) fn details(report: &Value) -> Vec<String> {
    report["failed"]
        .as_array()
        .expect("failures")
        .iter()
        .map(|f| f["detail"].as_str().expect("a detail").to_owned())
        .collect()
}

/// Asserts that every detail is said in French or Persian (`language`) with no English word
/// left: each Latin word is data (quoted, a name, an id) or one the language's catalogue uses.
pub(crate) fn assert_no_english_left(details: &[String], language: &str) {
    use tabletally_domain::untranslated::{FRENCH, PERSIAN, english_left_in};
    let catalogue = if language == "fr" {
        &*FRENCH
    } else {
        &*PERSIAN
    };
    for detail in details {
        let left = english_left_in(detail, catalogue);
        assert!(
            left.is_empty(),
            "English left in {language}: {left:?} in {detail:?}"
        );
    }
}

/// A game of Mint Julep known only by its final totals.
async fn typed_in_game(app: &TestApp, club: &TestClub) -> String {
    let game = app
        .new_game(
            club,
            json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}],
                   "started_at": "2025-12-24T19:00:00Z"}),
        )
        .await;
    let reply = app
        .append(
            club,
            &game,
            Some(1),
            vec![event(
                "result_recorded",
                json!({"totals": {"Ann": 9, "Bo": 4}, "winners": ["Ann"], "source": "BG Stats"}),
            )],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    game
}

async fn an_exported_club_imported_on_the_other_database_answers_the_same(app: TestApp) {
    // Given the statistics history (Mint Condition games with a retracted round and an
    // abandoned game, Mint Julep), a Mind Up! and a Vintage game, and a typed-in result.
    let history = crate::statistics::seed(&app).await;
    let club = &history.club;
    crate::mind_up::play_by_turns(&app, club).await;
    crate::vintage::play(&app, club).await;
    typed_in_game(&app, club).await;
    let file = export(&app, club).await;
    let lines: Vec<Value> = file
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    // The club's players first, then its 12 games: 6 finished + 3 others from the history,
    // Mind Up!, Vintage, the typed-in game.
    let players = app.get("/v1/players", Some(&club.token)).await.body["players"]
        .as_array()
        .unwrap()
        .len();
    let formats: Vec<&str> = lines
        .iter()
        .map(|l| l["format"].as_str().unwrap())
        .collect();
    let mut expected = vec!["tabletally.player/1"; players];
    expected.extend(["tabletally.game/1"; 12]);
    assert_eq!(formats, expected);

    // When it is imported into a new club on the other database, twice.
    let target = other_server(&app).await;
    let copy = target.new_club().await;
    let first = import(&target, &copy, &file).await;
    let second = import(&target, &copy, &file).await;

    // Then every game is there once, and answers the same.
    assert_eq!(
        first,
        json!({"imported": 12, "already_present": 0, "failed": [],
               "players": {"imported": players, "already_present": 0}})
    );
    assert_eq!(
        second,
        json!({"imported": 0, "already_present": 12, "failed": [],
               "players": {"imported": 0, "already_present": players}})
    );
    for line in &lines[players..] {
        let id = line["game"]["id"].as_str().unwrap();
        for path in [
            format!("/v1/games/{id}"),
            format!("/v1/games/{id}/score"),
            format!("/v1/games/{id}/events"),
        ] {
            let before = app.get(&path, Some(&club.token)).await;
            let after = target.get(&path, Some(&copy.token)).await;
            assert_eq!(after.status, 200, "{path}: {}", after.body);
            assert_eq!(portable(after.body), portable(before.body), "{path}");
        }
    }
    for path in [
        "/v1/stats/leaderboard",
        "/v1/stats/leaderboard?game=mint-condition&sort=average_score",
        "/v1/stats/games/mint-condition",
        "/v1/stats/games/mint-julep",
        "/v1/stats/games/mind-up",
        "/v1/stats/games/vintage",
    ] {
        let before = app.get(path, Some(&club.token)).await;
        let after = target.get(path, Some(&copy.token)).await;
        assert_eq!(portable(after.body), portable(before.body), "{path}");
    }
    // The copy exports the same file, but for the club's own player ids and positions.
    let again: Vec<Value> = export(&target, &copy)
        .await
        .lines()
        .map(|l| portable(serde_json::from_str(l).unwrap()))
        .collect();
    let lines: Vec<Value> = lines.into_iter().map(portable).collect();
    assert_eq!(again, lines);
}

async fn a_broken_line_is_named_and_the_other_games_still_import(app: TestApp) {
    let club = app.new_club().await;
    let typed_in = typed_in_game(&app, &club).await;
    let history = crate::mind_up::play_by_turns(&app, &club).await;
    let file = export(&app, &club).await;
    let mut lines: Vec<String> = game_lines(&file).into_iter().map(str::to_owned).collect();
    assert_eq!(lines.len(), 2);
    // Line 1 (games in the order they were played: the typed-in one first) gets a second winner
    // nobody played as; a third line is not JSON.
    let (first_id, second_id) = (&typed_in, &history);
    assert_eq!(
        serde_json::from_str::<Value>(&lines[0]).unwrap()["game"]["id"],
        typed_in.as_str()
    );
    let mut broken: Value = serde_json::from_str(&lines[0]).unwrap();
    let target_event = broken["events"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["seq"] == 2)
        .unwrap();
    target_event["data"]["winners"] = json!(["Ann", "Zoe"]);
    lines[0] = broken.to_string();
    lines.push("{\"format\": \"tabletally.game/1\", \"game\": ".into());
    // A fourth names a key twice (the second game again, with "format" given twice).
    lines.push(lines[1].replacen('{', "{\"format\": \"tabletally.game/1\", ", 1));
    let file = lines.join("\n") + "\n";

    // Game ids are kept, so the copy goes to another database.
    let target = other_server(&app).await;
    let copy = target.new_club().await;
    let report = import(&target, &copy, &file).await;

    assert_eq!(report["imported"], 1);
    assert_eq!(report["already_present"], 0);
    let failed = report["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 3, "{report}");
    assert_eq!(failed[0]["line"], 1);
    assert_eq!(failed[0]["game_id"], json!(first_id));
    assert_eq!(failed[0]["status"], 422);
    let detail = failed[0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("event 2 (") && detail.contains("breaks a rule"),
        "{detail}"
    );
    assert_eq!(failed[1]["line"], 3);
    assert_eq!(failed[1]["status"], 400);
    assert_eq!(failed[2]["line"], 4);
    assert_eq!(failed[2]["status"], 400);
    let twice = failed[2]["detail"].as_str().unwrap();
    assert!(
        twice.contains(r#""format" appears twice in one object"#),
        "{twice}"
    );
    // Nothing of the broken game was stored; the other one was.
    let missing = target
        .get(&format!("/v1/games/{first_id}"), Some(&copy.token))
        .await;
    assert_eq!(missing.status, 404);
    let present = target
        .get(&format!("/v1/games/{second_id}"), Some(&copy.token))
        .await;
    assert_eq!(present.status, 200);
}

async fn a_typed_in_result_counts_in_the_statistics_but_not_in_the_insights(app: TestApp) {
    let club = app.new_club().await;
    let game = typed_in_game(&app, &club).await;

    let score = app.score(&club, &game).await;
    let stats = app
        .get("/v1/stats/games/mint-julep", Some(&club.token))
        .await
        .body;
    let board = app
        .get("/v1/stats/leaderboard?game=mint-julep", Some(&club.token))
        .await
        .body;

    assert_eq!(score["status"], "finished");
    assert_eq!(score["winners"], json!(["Ann"]));
    assert_eq!(
        score["details"]["result_recorded"]["checked_against_rules"],
        false
    );
    // One play, Ann 9 and Bo 4: average 6.5, best Ann's 9.
    assert_eq!(stats["plays"], 1);
    assert_eq!(stats["average_score"], json!(6.5));
    assert_eq!(stats["record_best"]["total"], 9);
    // The insights know nothing of its bets.
    assert_eq!(
        stats["insights"],
        json!({"horses": {}, "late_bets": {"bets": 0, "total_penalty": 0, "average_penalty": 0.0}})
    );
    let names: Vec<&str> = board["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["Ann", "Bo"]);
}

async fn a_game_id_of_another_club_is_a_conflict(app: TestApp) {
    let club = app.new_club().await;
    let game = typed_in_game(&app, &club).await;
    let file = export(&app, &club).await;

    let other = app.new_club().await;
    let report = import(&app, &other, &file).await;

    // Its players' ids are the first club's too (Ann's and Bo's lines come first).
    let seats = app
        .get(&format!("/v1/games/{game}"), Some(&club.token))
        .await;
    let (ann, bo) = (
        seats.body["players"][0]["player_id"].as_str().unwrap(),
        seats.body["players"][1]["player_id"].as_str().unwrap(),
    );
    let taken = |id: &str, what: &str| {
        format!(
            "{what} id {id} cannot be used here; to import a copy under new ids, send the file \
             to POST /v1/import?new_ids=true"
        )
    };
    assert_eq!(
        report,
        json!({"imported": 0, "already_present": 0, "failed": [
            {"line": 1, "game_id": null, "status": 409, "detail": taken(ann, "player")},
            {"line": 2, "game_id": null, "status": 409, "detail": taken(bo, "player")},
            {"line": 3, "game_id": game, "status": 409, "detail": taken(&game, "game")}]})
    );
    // With new ids the other club gets a copy, once however often it is sent; the first club's
    // game is untouched.
    let copy = |app: &TestApp, file: String| {
        let reply = app
            .client
            .post(app.url("/v1/import?new_ids=true"))
            .bearer_auth(&other.token)
            .header("content-type", "application/x-ndjson")
            .body(file)
            .send();
        async move { reply.await.unwrap().json::<Value>().await.unwrap() }
    };
    let first = copy(&app, file.clone()).await;
    let again = copy(&app, file).await;
    assert_eq!(
        first,
        json!({"imported": 1, "already_present": 0, "failed": [],
               "players": {"imported": 2, "already_present": 0}})
    );
    assert_eq!(
        again,
        json!({"imported": 0, "already_present": 1, "failed": [],
               "players": {"imported": 0, "already_present": 2}})
    );
    let copied = app.get("/v1/games", Some(&other.token)).await;
    let copied_id = copied.body["games"][0]["id"].as_str().unwrap().to_owned();
    assert_ne!(copied_id, game);
    let score = app
        .get(&format!("/v1/games/{copied_id}/score"), Some(&other.token))
        .await;
    assert_eq!(
        totals(&score.body),
        vec![("Ann".into(), 9), ("Bo".into(), 4)]
    );
    let original = app
        .get(&format!("/v1/games/{game}"), Some(&club.token))
        .await;
    assert_eq!(original.status, 200);
}

async fn every_club_migrates_to_an_empty_database_and_answers_the_same(app: TestApp) {
    // Given the statistics history (two clubs, ten games) and a Mind Up! game, a game of Bo
    // and Dee (Di's typo) with Dee merged into Di, then Di renamed Diane, and a table preset.
    let history = crate::statistics::seed(&app).await;
    crate::mind_up::play_by_turns(&app, &history.club).await;
    let typo = crate::statistics::mint_condition(
        &app,
        &history.club,
        "2026-08-01",
        ("Dee", "Bo"),
        crate::statistics::g1_rounds(),
        3,
    )
    .await;
    let dee = crate::statistics::seat_ids(&app, &history.club, &typo).await[0]
        .1
        .clone();
    let players = app
        .get("/v1/players?search=di", Some(&history.club.token))
        .await;
    let di = players.body["players"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let merged = app
        .post(
            &format!("/v1/players/{dee}/merge"),
            Some(&history.club.token),
            &json!({"into": di}),
        )
        .await;
    assert_eq!(merged.status, 200, "{}", merged.body);
    let renamed = app
        .patch(
            &format!("/v1/players/{di}"),
            Some(&history.club.token),
            &json!({"name": "Diane"}),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    let preset = app
        .post(
            "/v1/presets",
            Some(&history.club.token),
            &json!({"name": "Friday", "game": "mint-condition", "options": {"lucky": true}}),
        )
        .await;
    assert_eq!(preset.status, 201, "{}", preset.body);
    // And, last of all, a retraction in the July game X2: late in the club's log, early in the
    // export's order of games played.
    let x2 = &history.x[1];
    let late = app
        .append(
            &history.club,
            x2,
            Some(3),
            vec![event("retract", json!({"seq": 3, "reason": "typed late"}))],
        )
        .await;
    assert_eq!(late.status, 201, "{}", late.body);
    let log_before = club_log(&app, &history.club).await;
    let games_before = app.get("/v1/games", Some(&history.club.token)).await.body;
    let target = other_server(&app).await;
    let connect = |url: String| async move {
        std::sync::Arc::from(
            tabletally_api::store::connect(&url)
                .await
                .expect("the database opens"),
        )
    };
    let source: std::sync::Arc<dyn tabletally_api::store::Store> =
        connect(app.database_url.clone()).await;
    let copy: std::sync::Arc<dyn tabletally_api::store::Store> =
        connect(target.database_url.clone()).await;

    // When every club is migrated, then its own check passed: 12 games, and per club the
    // leaderboard and game statistics of every game and variant (2 × 6 filters) and each
    // player's results (Ann, Bo, Cy, Di; Ann and Bob in the other club).
    let migrated = tabletally_api::portability::migrate(source.clone(), copy.as_ref())
        .await
        .expect("the migration checks out");
    assert_eq!(
        (migrated.clubs, migrated.games, migrated.statistics),
        (2, 12, 2 * 6 * 2 + 4 + 2)
    );
    // The club's token works on the copy (its hash moved), and the answers are the same.
    for path in [
        "/v1/stats/leaderboard",
        "/v1/stats/games/mint-condition",
        "/v1/players",
        "/v1/presets",
    ] {
        let before = app.get(path, Some(&history.club.token)).await;
        let after = target.get(path, Some(&history.club.token)).await;
        assert_eq!(after.status, 200, "{path}: {}", after.body);
        assert_eq!(after.body, before.body, "{path}");
    }
    // The club's log reads the same, position by position: a phone resuming it across the move
    // misses nothing (X2's retraction is still last). Every game keeps its last change's time.
    let log_after = club_log(&target, &history.club).await;
    assert_eq!(log_after.len(), log_before.len());
    assert_eq!(log_after, log_before);
    let last = log_after.last().unwrap();
    assert_eq!(
        (last["game_id"].as_str(), &last["type"]),
        (Some(x2.as_str()), &json!("retract"))
    );
    let games_after = target
        .get("/v1/games", Some(&history.club.token))
        .await
        .body;
    assert_eq!(games_after, games_before);
    // A phone resuming just before the retraction still gets it, and a new append goes after it.
    let position = last["position"].as_i64().unwrap();
    let resumed = target
        .get(
            &format!("/v1/events?after={}", position - 1),
            Some(&history.club.token),
        )
        .await;
    assert_eq!(
        resumed.body["events"][0]["type"], "retract",
        "{}",
        resumed.body
    );
    let next = target
        .append(
            &history.club,
            x2,
            Some(4),
            vec![event("retract", json!({"seq": 4}))],
        )
        .await;
    assert_eq!(next.status, 201, "{}", next.body);
    let newest = club_log(&target, &history.club).await;
    assert!(newest.last().unwrap()["position"].as_i64().unwrap() > position);
    // And a second migration into the now full database fails loudly, changing nothing.
    let again = tabletally_api::portability::migrate(source, copy.as_ref())
        .await
        .expect_err("the target is not empty");
    assert_eq!(
        again.to_string(),
        "the target database already holds 2 club(s); migrate into an empty database"
    );
}

/// The club's whole log in order (`GET /v1/events`, page by page).
async fn club_log(app: &TestApp, club: &TestClub) -> Vec<Value> {
    let mut events = Vec::new();
    let mut after = 0;
    loop {
        let page = app
            .get(
                &format!("/v1/events?after={after}&limit=100"),
                Some(&club.token),
            )
            .await;
        assert_eq!(page.status, 200, "{}", page.body);
        let got = page.body["events"].as_array().unwrap().clone();
        after = page.body["next_after"].as_i64().unwrap();
        let done = got.len() < 100;
        events.extend(got);
        if done {
            return events;
        }
    }
}

fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

async fn import_file(
    app: &TestApp,
    club: &TestClub,
    path: &str,
    content_type: &str,
    file: Vec<u8>,
) -> Value {
    let reply = app
        .post_raw(path, Some(&club.token), content_type, file)
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.body
}

/// `(name, rank, wins, games played)` of a leaderboard.
fn standings(board: &Value) -> Vec<(String, i64, i64, i64)> {
    board["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_owned(),
                p["rank"].as_i64().unwrap(),
                p["wins"].as_i64().unwrap(),
                p["games_played"].as_i64().unwrap(),
            )
        })
        .collect()
}

async fn a_bg_stats_export_brings_the_plays_of_our_games_as_typed_in_results(app: TestApp) {
    let club = app.new_club().await;
    let file = fixture("bgstats.json");

    let first = import_file(
        &app,
        &club,
        "/v1/import/bgstats",
        "application/json",
        file.clone(),
    )
    .await;
    let second = import_file(&app, &club, "/v1/import/bgstats", "application/json", file).await;

    // Plays 1 (Mint Condition), 2 (Mind Up!, named "Mind up") and 5 (Vintage) are ours; 3 and 4
    // are Coloretto; play 6 has no score for Bo.
    let failed = json!([{"line": 6, "game_id": null, "status": 422,
        "detail": "play bgstats:3D0E5A6C-0000-4000-8000-000000000006: Bo has no whole-number score"}]);
    let skipped = json!([{"game": "Coloretto", "plays": 2}]);
    assert_eq!(
        first,
        json!({"imported": 3, "already_present": 0, "failed": failed, "skipped": skipped})
    );
    assert_eq!(
        second,
        json!({"imported": 0, "already_present": 3, "failed": failed, "skipped": skipped})
    );
    // Ann won Mint Condition (12 to 20) and Vintage (31, 28, 19); Bo won Mind Up! (61, 55, 48).
    let board = app
        .get("/v1/stats/leaderboard", Some(&club.token))
        .await
        .body;
    assert_eq!(
        standings(&board),
        vec![
            ("Ann".into(), 1, 2, 3),
            ("Bo".into(), 2, 1, 3),
            ("Cy".into(), 3, 0, 2)
        ]
    );
    let damage = app
        .get("/v1/stats/games/mint-condition", Some(&club.token))
        .await
        .body;
    assert_eq!(
        (
            &damage["plays"],
            &damage["average_score"],
            &damage["record_best"]["total"]
        ),
        (&json!(1), &json!(16.0), &json!(12))
    );
    // Typed-in totals say nothing about card kinds.
    assert_eq!(
        damage["insights"]["average_damage_per_card_kind"],
        json!({})
    );
    let games = app
        .get("/v1/games?game=mind-up", Some(&club.token))
        .await
        .body;
    assert_eq!(games["games"][0]["status"], "finished");
    assert_eq!(games["games"][0]["started_at"], "2024-03-08T20:00:00Z");
}

async fn a_file_of_another_kind_is_refused_with_400(app: TestApp) {
    let club = app.new_club().await;
    for (path, content_type, body, words) in [
        (
            "/v1/import/bgstats",
            "application/json",
            &b"\x00"[..],
            "not a BG Stats export",
        ),
        (
            "/v1/import/bgg",
            "application/xml",
            &b"<plays><play id=\"1\""[..],
            "not a BoardGameGeek plays file",
        ),
        // Text that holds no XML at all is not an empty plays file.
        (
            "/v1/import/bgg",
            "application/xml",
            &b"hello"[..],
            "not a BoardGameGeek plays file: it has no <plays> element",
        ),
    ] {
        let reply = app
            .post_raw(path, Some(&club.token), content_type, body.to_vec())
            .await;
        let problem = reply.problem(400);
        assert!(
            problem["detail"].as_str().unwrap().starts_with(words),
            "{path}: {problem}"
        );
    }
}

async fn a_boardgamegeek_plays_file_brings_the_plays_of_our_games_as_typed_in_results(
    app: TestApp,
) {
    let club = app.new_club().await;
    let file = fixture("bgg-plays.xml");

    let first = import_file(
        &app,
        &club,
        "/v1/import/bgg",
        "application/xml",
        file.clone(),
    )
    .await;
    let second = import_file(&app, &club, "/v1/import/bgg", "application/xml", file).await;

    let skipped = json!([{"game": "Coloretto", "plays": 1}]);
    assert_eq!(
        first,
        json!({"imported": 2, "already_present": 0, "failed": [], "skipped": skipped})
    );
    assert_eq!(
        second,
        json!({"imported": 0, "already_present": 2, "failed": [], "skipped": skipped})
    );
    // Mint Julep: Ann 7 wins (marked). Mint Condition: nobody marked, so the lowest damage wins:
    // Bo's 22. One win each out of two: a shared first place, Ann before Bo by name.
    let board = app
        .get("/v1/stats/leaderboard", Some(&club.token))
        .await
        .body;
    assert_eq!(
        standings(&board),
        vec![("Ann".into(), 1, 1, 2), ("Bo".into(), 1, 1, 2)]
    );
    let julep = app
        .get("/v1/stats/games/mint-julep", Some(&club.token))
        .await
        .body;
    assert_eq!(julep["record_best"]["player"], "Ann");
}

async fn our_finished_games_go_out_to_bg_stats_and_boardgamegeek_and_come_back_the_same(
    app: TestApp,
) {
    // Given the statistics history: 6 finished games (5 Mint Condition, 1 Mint Julep).
    let history = crate::statistics::seed(&app).await;
    let club = &history.club;
    let board = app
        .get("/v1/stats/leaderboard", Some(&club.token))
        .await
        .body;

    let (status, content_type, bgstats) = app.get_text("/v1/export/bgstats", &club.token).await;
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    let (status, content_type, bgg) = app.get_text("/v1/export/bgg", &club.token).await;
    assert_eq!(
        (status, content_type.as_str()),
        (200, "application/xml; charset=utf-8")
    );
    let parsed: Value = serde_json::from_str(&bgstats).unwrap();
    assert_eq!(parsed["plays"].as_array().unwrap().len(), 6);
    assert_eq!(bgg.matches("<play ").count(), 6);

    // Back into the same club, each file finds its games already there.
    for (path, content_type, file) in [
        ("/v1/import/bgstats", "application/json", bgstats.clone()),
        ("/v1/import/bgg", "application/xml", bgg.clone()),
    ] {
        let report = import_file(&app, club, path, content_type, file.into_bytes()).await;
        assert_eq!(
            report,
            json!({"imported": 0, "already_present": 6, "failed": []}),
            "{path}"
        );
    }
    // Into a new club on the other database, each gives the same leaderboard (a server of its
    // own each: the files keep our game ids).
    for (path, content_type, file) in [
        ("/v1/import/bgstats", "application/json", bgstats),
        ("/v1/import/bgg", "application/xml", bgg),
    ] {
        let target = other_server(&app).await;
        let copy = target.new_club().await;
        let report = import_file(&target, &copy, path, content_type, file.into_bytes()).await;
        assert_eq!(report["imported"], 6, "{path}: {report}");
        let after = target
            .get("/v1/stats/leaderboard", Some(&copy.token))
            .await
            .body;
        assert_eq!(portable(after), portable(board.clone()), "{path}");
    }
}

async fn a_heavily_used_game_goes_out_to_other_apps_and_comes_back_counted_apart(app: TestApp) {
    // Given both scorings of Mint Condition beside the other games (`statistics::seed_variants`).
    let club = crate::statistics::seed_variants(&app).await.club;
    let ask = async |app: &TestApp, club: &TestClub, path: &str| {
        let r = app.get(path, Some(&club.token)).await;
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        portable(r.body)
    };
    const HIGHEST_FIRST: &str =
        "/v1/stats/leaderboard?game=mint-condition&variant=heavily-used&sort=average_score";
    const LOWEST_FIRST: &str = "/v1/stats/leaderboard?game=mint-condition&sort=average_score";
    let (points, damage) = (
        ask(&app, &club, HIGHEST_FIRST).await,
        ask(&app, &club, LOWEST_FIRST).await,
    );
    let (_, _, bgstats) = app.get_text("/v1/export/bgstats", &club.token).await;
    let (_, _, bgg) = app.get_text("/v1/export/bgg", &club.token).await;
    assert!(
        bgg.contains(r#"<item name="Mint Condition (Heavily Used)""#),
        "{bgg}"
    );

    for (path, content_type, file) in [
        ("/v1/import/bgstats", "application/json", bgstats),
        ("/v1/import/bgg", "application/xml", bgg),
    ] {
        let target = other_server(&app).await;
        let copy = target.new_club().await;
        let report = import_file(&target, &copy, path, content_type, file.into_bytes()).await;
        assert_eq!(report["imported"], 6, "{path}: {report}");
        // Heavily Used comes back as itself: highest first, apart from the published rules.
        assert_eq!(ask(&target, &copy, HIGHEST_FIRST).await, points, "{path}");
        assert_eq!(ask(&target, &copy, LOWEST_FIRST).await, damage, "{path}");
    }
}

async fn who_recorded_an_event_is_kept_on_import_and_may_be_left_out(app: TestApp) {
    // Given a game whose round the file no longer says who recorded (an older export).
    let club = app.new_club().await;
    let game = typed_in_game(&app, &club).await;
    let mut line: Value = serde_json::from_str(game_lines(&export(&app, &club).await)[0]).unwrap();
    assert_eq!(line["events"][1]["recorded_by"], "club token");
    line["events"][1]
        .as_object_mut()
        .unwrap()
        .remove("recorded_by");

    // When it is imported on another server.
    let target = other_server(&app).await;
    let copy = target.new_club().await;
    let report = import(&target, &copy, &line.to_string()).await;

    // Then the name that was there is kept, and the one left out is null.
    assert_eq!(report["imported"], 1, "{report}");
    let log = target
        .get(&format!("/v1/games/{game}/events"), Some(&copy.token))
        .await;
    let who: Vec<&Value> = log.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["recorded_by"])
        .collect();
    assert_eq!(who, [&json!("club token"), &Value::Null]);
}

async fn the_export_lists_games_in_the_order_they_were_played(app: TestApp) {
    // Arrange: two games, then a copy of them where the one with the smaller id started an
    // hour after the other (id order and play order disagree).
    let club = app.new_club().await;
    let first = app.new_game(&club, new_game(json!({}))).await;
    let second = app.new_game(&club, new_game(json!({}))).await;
    let file = export(&app, &club).await;
    let ids: Vec<String> = game_lines(&file)
        .into_iter()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["game"]["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    // (Both start at the same time here, so id order decides between them.)
    assert_eq!(ids.len(), 2);
    assert!(ids.contains(&first) && ids.contains(&second));
    let (smaller, larger) = if first < second {
        (&first, &second)
    } else {
        (&second, &first)
    };
    let lines: Vec<String> = game_lines(&file)
        .into_iter()
        .map(|line| {
            let mut game: Value = serde_json::from_str(line).unwrap();
            let started: chrono::DateTime<chrono::Utc> = game["game"]["started_at"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap();
            let start = if game["game"]["id"] == smaller.as_str() {
                started + chrono::Duration::hours(2)
            } else {
                started + chrono::Duration::hours(1)
            };
            game["game"]["started_at"] = json!(start.to_rfc3339());
            game["events"][0]["data"]
                .as_object_mut()
                .unwrap()
                .remove("started_at");
            game.to_string()
        })
        .collect();
    let target = other_server(&app).await;
    let copy = target.new_club().await;
    let report = import(&target, &copy, &(lines.join("\n") + "\n")).await;
    assert_eq!(report["imported"], 2, "{report}");

    // Act
    let exported = export(&target, &copy).await;

    // Assert: the game that started first comes first, whatever its id.
    let order: Vec<Value> = game_lines(&exported)
        .into_iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["game"]["id"].clone())
        .collect();
    assert_eq!(order, vec![json!(larger), json!(smaller)]);
    // What a long import does every 10,000 games runs on this database (ANALYZE on PostgreSQL).
    let store = tabletally_api::store::connect(&target.database_url)
        .await
        .expect("a second connection to the server's database");
    store
        .refresh_planner_statistics()
        .await
        .expect("the planner's statistics refresh");
}

/// An exported line's `game_started` is checked like a new game: each broken copy of a good
/// line is refused with 422 naming the rule, and nothing of it is stored.
async fn imported_players_are_seated_as_a_new_game_seats_them(app: TestApp) {
    let club = app.new_club().await;
    typed_in_game(&app, &club).await;
    let line: Value = serde_json::from_str(game_lines(&export(&app, &club).await)[0]).unwrap();
    let target = other_server(&app).await;
    let copy = target.new_club().await;
    type Break = fn(&mut Value);
    let cases: [(&str, Break); 5] = [
        ("Mint Julep is played by 2 to 4 players, not 1", |players| {
            players.as_array_mut().unwrap().truncate(1);
        }),
        (
            "a player name cannot contain control characters",
            |players| {
                players[0]["name"] = json!("A\u{0}nn");
            },
        ),
        ("a player name cannot be empty", |players| {
            players[1]["name"] = json!("")
        }),
        ("must be \"Bo\" at seat 2", |players| {
            players[1]["seat"] = json!(1)
        }),
        ("two players are called \"Ann\"", |players| {
            players[1]["name"] = json!("ann")
        }),
    ];

    for (words, break_it) in cases {
        let mut broken = line.clone();
        break_it(&mut broken["events"][0]["data"]["players"]);
        let report = import(&target, &copy, &format!("{broken}\n")).await;
        let failed = &report["failed"][0];
        assert_eq!(report["imported"], 0, "{words}: {report}");
        assert_eq!(failed["status"], 422, "{words}: {report}");
        let detail = failed["detail"].as_str().unwrap();
        assert!(
            detail.starts_with("event 1 (game_started): ") && detail.contains(words),
            "{words}: {detail}"
        );
    }
    // The line as exported still imports.
    let report = import(&target, &copy, &format!("{line}\n")).await;
    assert_eq!(report["imported"], 1, "{report}");
}

/// Re-importing a game changes nothing only when it is the game as stored: a copy with other
/// events (here one more) is named as a conflict, and the stored game stands.
async fn another_copy_of_a_stored_game_is_a_conflict_not_present(app: TestApp) {
    let club = app.new_club().await;
    let game = app
        .new_game(
            &club,
            json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;
    let file = export(&app, &club).await;
    let mut longer: Value = serde_json::from_str(game_lines(&file)[0]).unwrap();
    longer["events"].as_array_mut().unwrap().push(json!({
        "seq": 2, "id": "5f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9", "type": "result_recorded",
        "recorded_at": "2026-12-01T20:00:00Z",
        "data": {"totals": {"Ann": 9, "Bo": 4}, "winners": ["Ann"], "source": "typed in"}}));

    let other = import(&app, &club, &format!("{longer}\n")).await;
    let same = import(&app, &club, &file).await;

    assert_eq!(other["imported"], 0, "{other}");
    assert_eq!(other["already_present"], 0, "{other}");
    assert_eq!(other["failed"][0]["status"], 409, "{other}");
    let detail = other["failed"][0]["detail"].as_str().unwrap();
    assert!(
        detail.contains("with other events (1 stored, 2 in the file)"),
        "{detail}"
    );
    assert_eq!(
        same,
        json!({"imported": 0, "already_present": 1, "failed": [],
               "players": {"imported": 0, "already_present": 2}})
    );
    let stored = app
        .get(&format!("/v1/games/{game}"), Some(&club.token))
        .await;
    assert_eq!(stored.body["version"], 1);
}

/// An imported game is lobby news like a game played here: created, then finished, at the
/// positions of its first and last events, live and on a reconnect alike.
async fn the_lobby_hears_of_imported_games(app: TestApp) {
    let club = app.new_club().await;
    let game = typed_in_game(&app, &club).await;
    let file = export(&app, &club).await;
    let target = other_server(&app).await;
    let copy = target.new_club().await;
    let mut lobby = crate::live::EventStream::open(&target, "/v1/stream", &copy.token, None).await;

    let report = import(&target, &copy, &file).await;
    assert_eq!(report["imported"], 1, "{report}");

    let created = lobby.expect().await;
    let finished = lobby.expect().await;
    assert_eq!(
        (created.event.as_str(), &created.data["id"]),
        ("game_created", &json!(game))
    );
    assert_eq!(
        (finished.event.as_str(), &finished.data["status"]),
        ("game_finished", &json!("finished"))
    );
    let mut again =
        crate::live::EventStream::open(&target, "/v1/stream", &copy.token, Some(0)).await;
    assert_eq!(again.expect().await.event, "game_created");
    assert_eq!(again.expect().await.event, "game_finished");
}

async fn an_incomplete_boardgamegeek_play_is_skipped(app: TestApp) {
    let club = app.new_club().await;
    let file = r#"<?xml version="1.0" encoding="utf-8"?><plays total="1" page="1">
  <play id="7" date="2024-05-01" quantity="1" length="30" incomplete="1" nowinstats="0" location="">
    <item name="Mint Julep" objecttype="thing" objectid="0"></item>
    <players><player name="Ann" score="5" win="1"/><player name="Bo" score="" win="0"/></players>
  </play>
</plays>"#;

    let report = import_file(
        &app,
        &club,
        "/v1/import/bgg",
        "application/xml",
        file.as_bytes().to_vec(),
    )
    .await;

    assert_eq!(
        report,
        json!({"imported": 0, "already_present": 0, "failed": [],
               "skipped": [{"game": "Mint Julep (incomplete)", "plays": 1}]})
    );
}

/// A club with a merge, a rename and a preset (Mint Condition, lowest damage wins):
///
/// | game | started    | seats      | totals | result           |
/// |------|------------|------------|--------|------------------|
/// | G1   | 2026-01-10 | Ann, Bo    | 6, 14  | Ann wins         |
/// | G2   | 2026-02-14 | Anne, Bo   | 2, 7   | Anne wins (typo) |
/// | G3   | 2026-03-07 | Bo, Cy     | 10, 10 | shared win       |
///
/// then Anne merged into Ann (2 games, 2 wins), Cy renamed Cyril, and a "Friday" preset.
struct Moving {
    club: TestClub,
    ann: String,
    anne: String,
    bo: String,
    cy: String,
    preset: Value,
    games: [String; 3],
}

async fn club_with_a_merge_a_rename_and_a_preset(app: &TestApp) -> Moving {
    use crate::statistics::{g1_rounds, g2_rounds, g4_rounds, mint_condition, seat_ids};
    let club = app.new_club().await;
    let g1 = mint_condition(app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 3).await;
    let g2 = mint_condition(app, &club, "2026-02-14", ("Anne", "Bo"), g4_rounds(), 3).await;
    let g3 = mint_condition(app, &club, "2026-03-07", ("Bo", "Cy"), g2_rounds(), 3).await;
    let (g1_seats, g2_seats, g3_seats) = (
        seat_ids(app, &club, &g1).await,
        seat_ids(app, &club, &g2).await,
        seat_ids(app, &club, &g3).await,
    );
    let (ann, bo) = (g1_seats[0].1.clone(), g1_seats[1].1.clone());
    let (anne, cy) = (g2_seats[0].1.clone(), g3_seats[1].1.clone());
    let merged = app
        .post(
            &format!("/v1/players/{anne}/merge"),
            Some(&club.token),
            &json!({"into": ann}),
        )
        .await;
    assert_eq!(merged.status, 200, "{}", merged.body);
    let renamed = app
        .patch(
            &format!("/v1/players/{cy}"),
            Some(&club.token),
            &json!({"name": "Cyril"}),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    let preset = app
        .post(
            "/v1/presets",
            Some(&club.token),
            &json!({"name": "Friday", "game": "mint-condition", "options": {"lucky": true}}),
        )
        .await;
    assert_eq!(preset.status, 201, "{}", preset.body);
    Moving {
        club,
        ann,
        anne,
        bo,
        cy,
        preset: preset.body,
        games: [g1, g2, g3],
    }
}

/// `(id, name, games_played)` of the club's players, by name.
async fn roster(app: &TestApp, club: &TestClub) -> Vec<(String, String, i64)> {
    let players = app.get("/v1/players", Some(&club.token)).await;
    assert_eq!(players.status, 200, "{}", players.body);
    players.body["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_owned(),
                p["name"].as_str().unwrap().to_owned(),
                p["games_played"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// A value without the keys named.
fn without(mut value: Value, keys: &[&str]) -> Value {
    fn strip(value: &mut Value, keys: &[&str]) {
        match value {
            Value::Object(map) => {
                keys.iter().for_each(|k| {
                    map.remove(*k);
                });
                map.values_mut().for_each(|v| strip(v, keys));
            }
            Value::Array(items) => items.iter_mut().for_each(|v| strip(v, keys)),
            _ => {}
        }
    }
    strip(&mut value, keys);
    value
}

async fn a_club_moves_whole_with_its_players_merges_renames_and_presets(app: TestApp) {
    // Given a club with a merge, a rename and a preset.
    let moving = club_with_a_merge_a_rename_and_a_preset(&app).await;
    let club = &moving.club;
    let file = export(&app, club).await;
    let lines: Vec<Value> = file
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    // Its players by name, each with the other names their games seat them under, then the
    // preset, then the three games.
    assert_eq!(lines.len(), 3 + 1 + 3, "{file}");
    let players: Vec<Value> = lines[..3]
        .iter()
        .map(|l| without(l.clone(), &["created_at"]))
        .collect();
    assert_eq!(
        players,
        [
            json!({"format": "tabletally.player/1",
                   "player": {"id": moving.ann, "name": "Ann", "former_names": ["Anne"]}}),
            json!({"format": "tabletally.player/1",
                   "player": {"id": moving.bo, "name": "Bo", "former_names": []}}),
            json!({"format": "tabletally.player/1",
                   "player": {"id": moving.cy, "name": "Cyril", "former_names": ["Cy"]}}),
        ]
    );
    assert_eq!(
        lines[3],
        json!({"format": "tabletally.preset/1", "preset": moving.preset})
    );
    assert!(
        lines[4..]
            .iter()
            .all(|l| l["format"] == "tabletally.game/1")
    );

    // When it is imported into an empty club on a fresh server (the other database when
    // PostgreSQL is configured), twice.
    let target = other_server(&app).await;
    let copy = target.new_club().await;
    let first = import(&target, &copy, &file).await;
    let second = import(&target, &copy, &file).await;

    // Then the club is back as it was: the same players (ids, current names, games played),
    // the preset, and every answer the same, once.
    assert_eq!(
        first,
        json!({"imported": 3, "already_present": 0, "failed": [],
               "players": {"imported": 3, "already_present": 0},
               "presets": {"imported": 1, "already_present": 0}})
    );
    assert_eq!(
        second,
        json!({"imported": 0, "already_present": 3, "failed": [],
               "players": {"imported": 0, "already_present": 3},
               "presets": {"imported": 0, "already_present": 1}})
    );
    assert_eq!(
        roster(&target, &copy).await,
        [
            (moving.ann.clone(), "Ann".into(), 2),
            (moving.bo.clone(), "Bo".into(), 3),
            (moving.cy.clone(), "Cyril".into(), 1),
        ]
    );
    let mut paths = vec![
        "/v1/players".to_owned(),
        "/v1/presets".to_owned(),
        "/v1/stats/leaderboard".to_owned(),
        "/v1/stats/games/mint-condition".to_owned(),
        "/v1/stats/head-to-head?players=Ann,Bo".to_owned(),
    ];
    for id in [&moving.ann, &moving.bo, &moving.cy] {
        paths.push(format!("/v1/players/{id}"));
        paths.push(format!("/v1/players/{id}/stats"));
        paths.push(format!("/v1/players/{id}/games"));
    }
    for id in &moving.games {
        paths.push(format!("/v1/games/{id}/score"));
    }
    for path in &paths {
        let before = app.get(path, Some(&club.token)).await;
        let after = target.get(path, Some(&copy.token)).await;
        assert_eq!(after.status, 200, "{path}: {}", after.body);
        assert_eq!(after.body, before.body, "{path}");
    }
    // Every game's summary (but for when it was stored) and its events (but for their places
    // in the server's global order) are the same, the merged-away Anne's id in G2's
    // game_started included, while the seat is Ann's.
    for id in &moving.games {
        let summary = format!("/v1/games/{id}");
        let before = app.get(&summary, Some(&club.token)).await;
        let after = target.get(&summary, Some(&copy.token)).await;
        assert_eq!(
            without(after.body, &["updated_at"]),
            without(before.body, &["updated_at"]),
            "{summary}"
        );
        let events = format!("/v1/games/{id}/events");
        let before = app.get(&events, Some(&club.token)).await;
        let after = target.get(&events, Some(&copy.token)).await;
        assert_eq!(
            without(after.body, &["position"]),
            without(before.body, &["position"]),
            "{events}"
        );
    }
    let g2 = &moving.games[1];
    let started = target
        .get(&format!("/v1/games/{g2}/events"), Some(&copy.token))
        .await;
    assert_eq!(
        started.body["events"][0]["data"]["players"][0]["player_id"],
        json!(moving.anne)
    );
    let seats = target
        .get(&format!("/v1/games/{g2}"), Some(&copy.token))
        .await;
    assert_eq!(
        seats.body["players"][0],
        json!({"name": "Anne", "player_id": moving.ann, "seat": 1, "color": null})
    );
    // The copy exports the same file, but for when its games were stored.
    let again = export(&target, &copy).await;
    let same = |file: &str| -> Vec<Value> {
        file.lines()
            .map(|l| {
                without(
                    serde_json::from_str(l).unwrap(),
                    &["updated_at", "position"],
                )
            })
            .collect()
    };
    assert_eq!(same(&again), same(&file));
    assert_eq!(
        again.lines().take(4).collect::<Vec<_>>(),
        file.lines().take(4).collect::<Vec<_>>()
    );

    // And a player renamed on the copy since keeps the club's name when the file comes again.
    let renamed = target
        .patch(
            &format!("/v1/players/{}", moving.bo),
            Some(&copy.token),
            &json!({"name": "Bob"}),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    let third = import(&target, &copy, &file).await;
    assert_eq!(
        third,
        json!({"imported": 0, "already_present": 3, "failed": [{"line": 2, "game_id": null,
                "status": 409, "detail": format!("the club's player {} is called \"Bob\", the \
                file calls them \"Bo\"; the club's name stands (rename the player to change it)",
                moving.bo)}],
               "players": {"imported": 0, "already_present": 2},
               "presets": {"imported": 0, "already_present": 1}})
    );
}

async fn a_file_of_games_alone_still_imports_with_players_matched_by_name(app: TestApp) {
    // Given the games of the club with a merge and a rename, as exports wrote them before
    // they carried players.
    let moving = club_with_a_merge_a_rename_and_a_preset(&app).await;
    let file = game_lines(&export(&app, &moving.club).await).join("\n") + "\n";

    // When it is imported into an empty club on a fresh server.
    let target = other_server(&app).await;
    let copy = target.new_club().await;
    let report = import(&target, &copy, &file).await;

    // Then it imports as such files always did: each seat's name is a player of the club (new
    // ids, no presets), and game_started names them.
    assert_eq!(
        report,
        json!({"imported": 3, "already_present": 0, "failed": []})
    );
    let players = roster(&target, &copy).await;
    let listed: Vec<(&str, i64)> = players.iter().map(|(_, n, g)| (n.as_str(), *g)).collect();
    assert_eq!(listed, [("Ann", 1), ("Anne", 1), ("Bo", 3), ("Cy", 1)]);
    let source_ids = [&moving.ann, &moving.anne, &moving.bo, &moving.cy];
    assert!(players.iter().all(|(id, _, _)| !source_ids.contains(&id)));
    let g2 = &moving.games[1];
    let started = target
        .get(&format!("/v1/games/{g2}/events"), Some(&copy.token))
        .await;
    assert_eq!(
        started.body["events"][0]["data"]["players"][0]["player_id"],
        json!(players[1].0)
    );
    let presets = target.get("/v1/presets", Some(&copy.token)).await;
    assert_eq!(presets.body, json!({"presets": []}));
}

async fn a_copy_under_new_ids_keeps_a_merged_player_one_player(app: TestApp) {
    // Given the club with a merge, a rename and a preset, and another club on the same server.
    let moving = club_with_a_merge_a_rename_and_a_preset(&app).await;
    let file = export(&app, &moving.club).await;
    let other = app.new_club().await;
    let copy = |file: String| {
        let reply = app
            .client
            .post(app.url("/v1/import?new_ids=true"))
            .bearer_auth(&other.token)
            .header("content-type", "application/x-ndjson")
            .body(file)
            .send();
        async move { reply.await.unwrap().json::<Value>().await.unwrap() }
    };

    // When the other club imports a copy under new ids, twice.
    let first = copy(file.clone()).await;
    let again = copy(file).await;

    // Then it has the club's players under ids of its own, Ann with both her games, and the
    // copy's game_started names the copy's players.
    assert_eq!(
        first,
        json!({"imported": 3, "already_present": 0, "failed": [],
               "players": {"imported": 3, "already_present": 0},
               "presets": {"imported": 1, "already_present": 0}})
    );
    assert_eq!(
        again,
        json!({"imported": 0, "already_present": 3, "failed": [],
               "players": {"imported": 0, "already_present": 3},
               "presets": {"imported": 0, "already_present": 1}})
    );
    let players = roster(&app, &other).await;
    let listed: Vec<(&str, i64)> = players.iter().map(|(_, n, g)| (n.as_str(), *g)).collect();
    assert_eq!(listed, [("Ann", 2), ("Bo", 3), ("Cyril", 1)]);
    assert!(
        players
            .iter()
            .all(|(id, _, _)| ![&moving.ann, &moving.bo, &moving.cy].contains(&id))
    );
    let games = app.get("/v1/games", Some(&other.token)).await;
    let copied_g2 = games.body["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["players"][0]["name"] == "Anne")
        .expect("the copy of G2")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let started = app
        .get(&format!("/v1/games/{copied_g2}/events"), Some(&other.token))
        .await;
    assert_eq!(
        started.body["events"][0]["data"]["players"][0]["player_id"],
        json!(players[0].0)
    );
    let presets = app.get("/v1/presets", Some(&other.token)).await;
    assert_eq!(presets.body["presets"][0]["name"], "Friday");
    assert_ne!(presets.body["presets"][0]["id"], moving.preset["id"]);
}

async fn a_line_that_is_not_what_a_line_must_be_is_named_in_words(app: TestApp) {
    let club = app.new_club().await;
    let game = "0b6c3f0e-5d7e-4f3b-9a51-3c2d1e0f9a8b";
    let file = [
        "3".to_owned(),
        "nonsense".to_owned(),
        r#"{"format": "tabletally.game/2", "game": {}, "events": []}"#.to_owned(),
        format!(r#"{{"format": "tabletally.game/1", "game": {{"id": "{game}", "game": "mint-julep"}}}}"#),
        r#"{"format": "tabletally.game/1", "game": 3, "events": []}"#.to_owned(),
        r#"{"format": "tabletally.player/1", "player": {"id": "5f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9", "name": "Ann"}}"#.to_owned(),
        r#"{"game": {}}"#.to_owned(),
        String::new(),
        r#"{"format": "tabletally.game/1", "game": {"id": "x", "game": "vintage"}, "events": [{"seq": 1}]}"#.to_owned(),
    ]
    .join("\n");

    let report = import(&app, &club, &file).await;

    let kinds = r#""tabletally.player/1", "tabletally.preset/1" or "tabletally.game/1""#;
    let failure = |line: u64, game_id: Option<&str>, detail: String| json!({"line": line, "game_id": game_id, "status": 400, "detail": detail});
    assert_eq!(
        report,
        json!({"imported": 0, "already_present": 0, "failed": [
            failure(1, None, format!(
                r#"each line must be one JSON object whose "format" is {kinds}, not the number 3"#)),
            failure(2, None, format!(
                r#"the line is not JSON (it goes wrong at column 2): each line must be one JSON object whose "format" is {kinds}"#)),
            failure(3, None, format!(
                r#"unknown format "tabletally.game/2": a line's "format" is {kinds} (a file from a newer tabletally needs a newer server)"#)),
            failure(4, Some(game),
                r#"the line has no "events": it must be the game's stored events in order, a list of objects with "seq", "id", "type", "data" and "recorded_at""#.into()),
            failure(5, None,
                r#"the line's "game" must be the game's summary, an object with its "id" and "game", not the number 3"#.into()),
            failure(6, None,
                r#"the player has no "created_at": it must be when the club first seated them, a time such as "2026-12-01T20:00:00Z""#.into()),
            failure(7, None, format!(
                r#"the line has no "format": it must be {kinds}, the kind of line"#)),
            failure(9, Some("x"),
                r#"event 1 has no "id": it must be the event's id"#.into()),
        ]})
    );
    let players = app.get("/v1/players", Some(&club.token)).await;
    assert_eq!(players.body["players"], json!([]));
}

async fn a_name_the_club_already_has_keeps_the_clubs_player_and_preset(app: TestApp) {
    // Given the club with a merge, a rename and a preset, and a club on another server that
    // already has an Ann (at a game with Zed) and a Mint Condition preset called "friday".
    let moving = club_with_a_merge_a_rename_and_a_preset(&app).await;
    let file = export(&app, &moving.club).await;
    let target = other_server(&app).await;
    let copy = target.new_club().await;
    let game = target
        .new_game(
            &copy,
            json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Zed"}]}),
        )
        .await;
    let their_ann = target
        .get(&format!("/v1/games/{game}"), Some(&copy.token))
        .await
        .body["players"][0]["player_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let friday = target
        .post(
            "/v1/presets",
            Some(&copy.token),
            &json!({"name": "friday", "game": "mint-condition"}),
        )
        .await;
    assert_eq!(friday.status, 201, "{}", friday.body);

    // When the file is imported there.
    let report = import(&target, &copy, &file).await;

    // Then the club's Ann and preset stand, the file's are named as conflicts, and the games
    // still import: Ann's seat goes to the club's Ann by name.
    let conflict = |line: u64, detail: String| json!({"line": line, "game_id": null, "status": 409, "detail": detail});
    assert_eq!(
        report,
        json!({"imported": 3, "already_present": 0, "failed": [
            conflict(1, format!("the club already has a player called \"Ann\" (player \
                {their_ann}), so player {} was not added; their games seat the club's \"Ann\"",
                moving.ann)),
            conflict(4, format!("the club already has a Mint Condition preset called \
                \"friday\" (preset {}), so preset {} was not added",
                friday.body["id"].as_str().unwrap(), moving.preset["id"].as_str().unwrap())),
        ], "players": {"imported": 2, "already_present": 0}})
    );
    let g1 = &moving.games[0];
    let seats = target
        .get(&format!("/v1/games/{g1}"), Some(&copy.token))
        .await;
    assert_eq!(seats.body["players"][0]["player_id"], json!(their_ann));
}

/// A game's `(name, total, rank)` in score order, and its winners.
async fn final_score(
    app: &TestApp,
    club: &TestClub,
    game: &str,
) -> (Vec<(String, i64, i64)>, Value) {
    let score = app
        .get(&format!("/v1/games/{game}/score"), Some(&club.token))
        .await;
    assert_eq!(score.status, 200, "{}", score.body);
    let players = score.body["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_owned(),
                p["total"].as_i64().unwrap(),
                p["rank"].as_i64().unwrap(),
            )
        })
        .collect();
    (players, score.body["winners"].clone())
}

/// The club's games, oldest first: `(id, game)`.
async fn games_played(app: &TestApp, club: &TestClub) -> Vec<(String, String)> {
    let list = app.get("/v1/games?limit=200", Some(&club.token)).await;
    assert_eq!(list.status, 200, "{}", list.body);
    let mut games: Vec<(String, String, String)> = list.body["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["started_at"].as_str().unwrap().to_owned(),
                g["id"].as_str().unwrap().to_owned(),
                g["game"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    games.sort();
    games.into_iter().map(|(_, id, game)| (id, game)).collect()
}

/// `(name, games played)` of the club's players, by name.
async fn players_played(app: &TestApp, club: &TestClub) -> Vec<(String, i64)> {
    let list = app.get("/v1/players", Some(&club.token)).await;
    assert_eq!(list.status, 200, "{}", list.body);
    let mut players: Vec<(String, i64)> = list.body["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_owned(),
                p["games_played"].as_i64().unwrap(),
            )
        })
        .collect();
    players.sort();
    players
}

fn named(rows: &[(&str, i64, i64)]) -> Vec<(String, i64, i64)> {
    rows.iter()
        .map(|(n, t, r)| ((*n).to_owned(), *t, *r))
        .collect()
}

async fn every_format_version_of_our_own_files_still_imports(app: TestApp) {
    // Given an export of today (players, a renamed one, a preset, then games) and one from the
    // first format (games alone, schema version 2, no recorded_by, no colour when none)
    for (file, players, presets) in [
        (
            "tabletally-club-2026.ndjson",
            json!({"imported": 3, "already_present": 0}),
            json!({"imported": 1, "already_present": 0}),
        ),
        ("tabletally-games-2025.ndjson", Value::Null, Value::Null),
    ] {
        let club = app.new_club().await;

        // When each is imported into a club of its own
        let report = import(&app, &club, std::str::from_utf8(&fixture(file)).unwrap()).await;

        // Then both games of each come in whole, scored as the rules score them
        assert_eq!(report["imported"], 2, "{file}: {report}");
        assert_eq!(report["failed"], json!([]), "{file}: {report}");
        assert_eq!(report["players"], players, "{file}");
        assert_eq!(report["presets"], presets, "{file}");
        let games = games_played(&app, &club).await;
        assert_eq!(games.len(), 2, "{file}");
        let (condition, julep) = (&games[0].0, &games[1].0);
        assert_eq!(games[0].1, "mint-condition");
        // The worked example's damage, with a round corrected (kept today, retracted in 2025).
        let expected = if file.contains("2026") { 46 } else { 44 };
        assert_eq!(
            final_score(&app, &club, condition).await,
            (named(&[("Bo", 40, 1), ("Ann", expected, 2)]), json!(["Bo"])),
            "{file}"
        );
        assert_eq!(
            final_score(&app, &club, julep).await,
            (named(&[("Ann", 9, 1), ("Cy", 4, 2)]), json!(["Ann"])),
            "{file}"
        );
        // Today's file brings the renamed player under his name now; the old one by name.
        let cy = if file.contains("2026") { "Cyril" } else { "Cy" };
        assert_eq!(
            players_played(&app, &club).await,
            vec![("Ann".into(), 2), ("Bo".into(), 1), (cy.into(), 1)],
            "{file}"
        );
        // And a second import changes nothing.
        let again = import(&app, &club, std::str::from_utf8(&fixture(file)).unwrap()).await;
        assert_eq!(again["imported"], 0, "{file}: {again}");
        assert_eq!(again["already_present"], 2, "{file}: {again}");
    }
}

async fn a_real_shaped_bg_stats_file_imports_with_its_names_trimmed_and_its_faults_named(
    app: TestApp,
) {
    // Given a BG Stats backup as the app writes one: names with trailing spaces ("Jay ",
    // "Abbie Wilkinson "), a play with no players, one naming a player the file lacks, an
    // ignored play and a play of another game
    let club = app.new_club().await;

    // When it is imported
    let report = import_file(
        &app,
        &club,
        "/v1/import/bgstats",
        "application/json",
        fixture("bgstats-real-shape.json"),
    )
    .await;

    // Then the three good plays of our games come in, the two faulty ones are named by their
    // place in `plays`, and the other game is counted as skipped
    assert_eq!(
        report,
        json!({"imported": 3, "already_present": 0, "failed": [
            {"line": 4, "game_id": null, "status": 422,
             "detail": "play bgstats:a3f7c1e9-5d2b-4f86-9c4a-2e8b6d0f3a75: the play lists no players"},
            {"line": 5, "game_id": null, "status": 422,
             "detail": "play bgstats:d9e4b2a6-3c8f-4b15-a7d9-6f1e0c5b8a32: playerScores[1] names playerRefId 999, which the file's players do not list"}],
            "skipped": [{"game": "Coloretto", "plays": 1}]})
    );
    let games = games_played(&app, &club).await;
    assert_eq!(
        final_score(&app, &club, &games[0].0).await,
        (
            named(&[("Jay", 12, 1), ("Ann", 15, 2), ("Abbie Wilkinson", 20, 3)]),
            json!(["Jay"])
        )
    );
    assert_eq!(
        final_score(&app, &club, &games[1].0).await,
        (
            named(&[("Jay", 31, 1), ("Abbie Wilkinson", 28, 2), ("Ann", 22, 3)]),
            json!(["Jay"])
        )
    );
    // The ignored play is stored and scored, and kept out of the statistics, as BG Stats keeps it.
    let ignored = &games[2].0;
    let score = app
        .get(&format!("/v1/games/{ignored}/score"), Some(&club.token))
        .await;
    assert_eq!(score.body["winners"], json!(["Abbie Wilkinson"]));
    assert_eq!(
        score.body["details"]["result_recorded"]["in_statistics"],
        json!(false)
    );
    assert_eq!(
        players_played(&app, &club).await,
        vec![
            ("Abbie Wilkinson".into(), 2),
            ("Ann".into(), 2),
            ("Jay".into(), 2)
        ]
    );
    // Nothing was stored for the faulty plays: a second import finds only the three.
    let again = import_file(
        &app,
        &club,
        "/v1/import/bgstats",
        "application/json",
        fixture("bgstats-real-shape.json"),
    )
    .await;
    assert_eq!(
        (&again["imported"], &again["already_present"]),
        (&json!(0), &json!(3))
    );
}

async fn a_bg_stats_file_is_read_after_a_byte_order_mark_and_must_hold_its_lists(app: TestApp) {
    // Given the same backup saved with a UTF-8 byte-order mark
    let club = app.new_club().await;
    let mut file = b"\xEF\xBB\xBF".to_vec();
    file.extend(fixture("bgstats-real-shape.json"));

    let report = import_file(&app, &club, "/v1/import/bgstats", "application/json", file).await;

    // Then it is read as without it
    assert_eq!(report["imported"], 3, "{report}");
    // And an object without the lists every BG Stats file holds is refused, naming them.
    for (body, missing) in [
        ("{}", "games, players, plays"),
        (r#"{"games": [], "players": []}"#, "plays"),
    ] {
        let reply = app
            .post_raw(
                "/v1/import/bgstats",
                Some(&club.token),
                "application/json",
                body.as_bytes().to_vec(),
            )
            .await;
        let problem = reply.problem(400);
        assert_eq!(
            problem["detail"],
            format!(
                "not a BG Stats export: a BG Stats export is a JSON object with the lists games, \
                 players and plays (empty when it has none); this one has no {missing}"
            ),
            "{body}"
        );
    }
    assert_eq!(games_played(&app, &club).await.len(), 3);
}

async fn a_boardgamegeek_file_of_two_pages_imports_quantities_as_games_and_keeps_nowinstats_out(
    app: TestApp,
) {
    // Given a user's two pages of plays saved into one file after a byte-order mark: a Mint
    // Julep race played 3 times (quantity="3"), a teaching game of Mint Condition left out of
    // the win statistics (nowinstats="1"), Coloretto, and on page 2 an older game of Mind Up!
    let club = app.new_club().await;

    let report = import_file(
        &app,
        &club,
        "/v1/import/bgg",
        "application/xml",
        fixture("bgg-plays-real-shape.xml"),
    )
    .await;

    // Then the race is three games, every play of ours is in, and Coloretto is skipped
    assert_eq!(
        report,
        json!({"imported": 5, "already_present": 0, "failed": [],
               "skipped": [{"game": "Coloretto", "plays": 1}]})
    );
    let games = games_played(&app, &club).await;
    let kinds: Vec<&str> = games.iter().map(|(_, g)| g.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "mind-up",
            "mint-condition",
            "mint-julep",
            "mint-julep",
            "mint-julep"
        ]
    );
    for (id, _) in &games[2..5] {
        assert_eq!(
            final_score(&app, &club, id).await,
            (named(&[("Ann", 7, 1), ("Bo", 5, 2)]), json!(["Ann"]))
        );
    }
    assert_eq!(
        final_score(&app, &club, &games[0].0).await,
        (
            named(&[("Cy", 41, 1), ("Ann", 30, 2), ("Bo", 25, 3)]),
            json!(["Cy"])
        )
    );
    // The teaching game is scored, and counts in no statistic: Ann's three races and the game
    // of Mind Up! are her four games and three wins (the leaderboard ranks by share of wins).
    assert_eq!(
        final_score(&app, &club, &games[1].0).await,
        (named(&[("Ann", 12, 1), ("Bo", 20, 2)]), json!(["Ann"]))
    );
    let board = app
        .get("/v1/stats/leaderboard", Some(&club.token))
        .await
        .body;
    assert_eq!(
        standings(&board),
        vec![
            ("Cy".into(), 1, 1, 1),
            ("Ann".into(), 2, 3, 4),
            ("Bo".into(), 3, 0, 4)
        ]
    );
    // A second import finds all five.
    let again = import_file(
        &app,
        &club,
        "/v1/import/bgg",
        "application/xml",
        fixture("bgg-plays-real-shape.xml"),
    )
    .await;
    assert_eq!(
        (&again["imported"], &again["already_present"]),
        (&json!(0), &json!(5))
    );
}

async fn our_exports_are_read_by_the_apps_own_readers(app: TestApp) {
    // Given the statistics history (6 finished games), with Ann renamed Annie afterwards
    let history = crate::statistics::seed(&app).await;
    let club = &history.club;
    let renamed = app
        .patch(
            &format!("/v1/players/{}", history.ann),
            Some(&club.token),
            &json!({"name": "Annie"}),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);

    let (_, _, bgstats) = app.get_text("/v1/export/bgstats", &club.token).await;
    let (_, _, bgg) = app.get_text("/v1/export/bgg", &club.token).await;

    // Then each file says who played under their names today, and our ids stay out of what
    // the apps show (a play's comment, the place it was played)
    assert!(!bgstats.contains("tabletally:") && !bgg.contains("tabletally:"));
    assert!(bgg.contains(r#"<plays username="" userid="0" total="6" page="1" termsofuse="#));
    assert!(bgg.contains(r#"name="Annie""#) && !bgg.contains(r#"name="Ann""#));
    let parsed: Value = serde_json::from_str(&bgstats).unwrap();
    let names: Vec<&str> = parsed["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"Annie") && !names.contains(&"Ann"),
        "{names:?}"
    );

    // And the apps' own readers read them: BoardGameGeek's client (PyPI), and for BG Stats (no
    // reader is published) the shape all real backups share.
    let dir = std::env::temp_dir().join(format!("tabletally-exports-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("plays.xml"), &bgg).unwrap();
    std::fs::write(dir.join("BGStatsExport.json"), &bgstats).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/read-exports.sh");
    let read = std::process::Command::new(script)
        .arg("--bgg")
        .arg(dir.join("plays.xml"))
        .arg("--bgstats")
        .arg(dir.join("BGStatsExport.json"))
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    let read = match read {
        Ok(read) => read,
        Err(e) if std::env::var("CI").is_err() => {
            eprintln!("skipped: the readers could not run ({e})");
            return;
        }
        Err(e) => panic!("scripts/read-exports.sh: {e}"),
    };
    let stderr = String::from_utf8_lossy(&read.stderr);
    if !read.status.success() && stderr.contains("pip") && std::env::var("CI").is_err() {
        eprintln!("skipped: the readers could not be installed: {stderr}");
        return;
    }
    assert!(
        read.status.success(),
        "the readers refused our files: {stderr}"
    );
    let seen: Value = serde_json::from_slice(&read.stdout).unwrap();
    assert_eq!(seen["bgg"]["play_count"], 6, "{seen}");
    assert_eq!(seen["bgstats"]["play_count"], 6, "{seen}");
    let first = &seen["bgg"]["plays"][0];
    assert_eq!(first["game_name"], "Mint Condition", "{seen}");
    assert_eq!(first["players"][0]["name"], "Annie", "{seen}");
}

async fn an_imported_event_beyond_the_limits_of_an_append_is_refused_with_its_line(app: TestApp) {
    // Given an export whose typed-in game gained an abandon with a reason of 600 characters
    let club = app.new_club().await;
    let typed_in = typed_in_game(&app, &club).await;
    let file = export(&app, &club).await;
    let mut line: Value = serde_json::from_str(game_lines(&file)[0]).unwrap();
    line["events"].as_array_mut().unwrap().push(json!({
        "seq": 3, "id": uuid::Uuid::new_v4().to_string(), "type": "abandon",
        "data": {"reason": "r".repeat(600)}, "recorded_at": "2025-12-24T20:00:00Z"}));

    // When it is imported elsewhere
    let target = other_server(&app).await;
    let copy = target.new_club().await;
    let report = import(&target, &copy, &format!("{line}\n")).await;

    // Then the line is refused as an append would be, and nothing of it is stored
    assert_eq!(
        report["failed"],
        json!([{"line": 1, "game_id": typed_in, "status": 422,
                "detail": "event 3 (abandon): a reason is a sentence of at most 500 characters; \
                           this one has 600 (at /data/reason)"}])
    );
    let missing = target
        .get(&format!("/v1/games/{typed_in}"), Some(&copy.token))
        .await;
    assert_eq!(missing.status, 404);
}

async fn a_report_lists_the_first_hundred_failures_and_counts_the_rest(app: TestApp) {
    // Given a file of 150 lines that are not JSON
    let club = app.new_club().await;
    let file = "not json\n".repeat(150);

    let report = import(&app, &club, &file).await;

    // Then the report lists the first 100 and counts the other 50: it stays small
    let failed = report["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 100);
    assert_eq!(failed[99]["line"], 100);
    assert_eq!(report["failures_left_out"], 50);
    assert_eq!(report["imported"], 0);
}

/// A BG Stats file of `plays` plays of Mint Julep by Ann and Bo.
fn bgstats_file(plays: usize) -> Vec<u8> {
    let plays: Vec<Value> = (0..plays)
        .map(|i| {
            json!({"uuid": format!("PLAY-{i:06}"), "playDate": "2024-03-01 20:00:00", "gameRefId": 1,
                   "playerScores": [{"playerRefId": 1, "score": "9", "winner": true},
                                    {"playerRefId": 2, "score": "4", "winner": false}]})
        })
        .collect();
    serde_json::to_vec(&json!({
        "games": [{"id": 1, "name": "Mint Julep"}],
        "players": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bo"}],
        "plays": plays,
    }))
    .unwrap()
}

/// How many games the club has (its games list, counted page by page).
async fn games_count(app: &TestApp, club: &TestClub) -> usize {
    let players = app.get("/v1/players", Some(&club.token)).await;
    players.body["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["games_played"].as_u64().unwrap_or(0) as usize)
        .max()
        .unwrap_or(0)
}

async fn an_import_whose_client_hangs_up_stops_between_two_games(app: TestApp) {
    // Given a BG Stats file of 3,000 plays, sent by a client that hangs up after 1 s
    let club = app.new_club().await;
    let file = bgstats_file(3_000);
    let sent = app
        .client
        .post(app.url("/v1/import/bgstats"))
        .bearer_auth(&club.token)
        .header("content-type", "application/json")
        .body(file)
        .timeout(std::time::Duration::from_secs(1))
        .send()
        .await;
    assert!(
        sent.is_err(),
        "the import should still be running after 1 s"
    );

    // Then the import stops soon after: the club's games stop growing, short of 3,000
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let then = games_count(&app, &club).await;
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let later = games_count(&app, &club).await;
    assert_eq!(later, then, "the import went on without its client");
    assert!(then < 3_000, "{then}");
    // And what it stored is whole: the same file again brings the rest, nothing twice.
    let report = import_file(
        &app,
        &club,
        "/v1/import/bgstats",
        "application/json",
        bgstats_file(3_000),
    )
    .await;
    assert_eq!(report["already_present"], then as u64, "{report}");
    assert_eq!(report["imported"], (3_000 - then) as u64, "{report}");
}

async fn a_third_import_at_once_is_asked_to_come_back_later(app: TestApp) {
    use std::io::Write;
    // Given two imports under way, their files still coming (a line every half second)
    let club = app.new_club().await;
    let address = app.address.trim_start_matches("http://").to_owned();
    let token = club.token.clone();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let uploads: Vec<_> = (0..2)
        .map(|_| {
            let (address, token, stop) = (address.clone(), token.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut stream = std::net::TcpStream::connect(address).unwrap();
                let head = format!(
                    "POST /v1/import HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
                     Content-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n"
                );
                stream.write_all(head.as_bytes()).unwrap();
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = stream.write_all(b"1\r\n\n\r\n");
                    std::thread::sleep(std::time::Duration::from_millis(500));
                }
            })
        })
        .collect();
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;

    // When a third file is sent
    let third = app
        .post_raw(
            "/v1/import",
            Some(&club.token),
            "application/x-ndjson",
            b"\n".to_vec(),
        )
        .await;

    // Then it is asked to come back, in words, and is taken once the others end
    let problem = third.problem(503);
    assert_eq!(
        problem["detail"],
        "this server is importing 2 files already; send this one again in a minute"
    );
    assert_eq!(third.headers["retry-after"], "30");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for upload in uploads {
        upload.join().unwrap();
    }
    let mut taken = false;
    for _ in 0..50 {
        let again = app
            .post_raw(
                "/v1/import",
                Some(&club.token),
                "application/x-ndjson",
                b"\n".to_vec(),
            )
            .await;
        if again.status == 200 {
            taken = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(taken, "the third import was never taken");
}

async fn fifty_imports_in_a_row_all_answer_while_another_club_keeps_recording(app: TestApp) {
    // Given a club's export of five games, and another club correcting its round all along
    // (on a server that lets one address create the fifty clubs the imports go to)
    let app = crate::helpers::spawn_app_with(app.backend, |config| config.clubs_per_minute = 100)
        .await
        .expect("the same backend runs");
    let club = app.new_club().await;
    for _ in 0..5 {
        typed_in_game(&app, &club).await;
    }
    let file = export(&app, &club).await;
    let players = app.new_club().await;
    let table = app.new_game(&players, new_game(json!({}))).await;
    let round = crate::mint_condition::round_1();
    assert_eq!(
        app.append(
            &players,
            &table,
            Some(1),
            vec![event("round_collected", round.clone())]
        )
        .await
        .status,
        201
    );
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let recording = {
        let (client, address, token, stop) = (
            app.client.clone(),
            app.address.clone(),
            players.token.clone(),
            stop.clone(),
        );
        let (table, round) = (table.clone(), round.clone());
        tokio::spawn(async move {
            let mut statuses = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let correction = json!({"events": [{"id": uuid::Uuid::new_v4().to_string(),
                    "type": "correct", "data": {"seq": 2, "data": round}}]});
                let reply = client
                    .post(format!("{address}/v1/games/{table}/events"))
                    .bearer_auth(&token)
                    .json(&correction)
                    .send()
                    .await
                    .expect("an answer");
                statuses.push(reply.status().as_u16());
            }
            statuses
        })
    };

    // When it is imported fifty times in a row, into fifty new clubs
    for copy in 1..=50 {
        let target = app.new_club().await;
        let reply = app
            .post_raw(
                "/v1/import?new_ids=true",
                Some(&target.token),
                "application/x-ndjson",
                file.clone().into_bytes(),
            )
            .await;

        // Then every import answers, whole
        assert_eq!(reply.status, 200, "import {copy}: {}", reply.body);
        assert_eq!(reply.body["imported"], 5, "import {copy}: {}", reply.body);
        assert_eq!(reply.body["failed"], json!([]), "import {copy}");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let statuses = recording.await.unwrap();
    // And the other club's every correction was stored
    assert!(!statuses.is_empty());
    assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");
    let version = app
        .get(&format!("/v1/games/{table}"), Some(&players.token))
        .await;
    assert_eq!(version.body["version"], 2 + statuses.len() as u64);
}

async fn an_import_report_is_said_in_french_or_persian_with_the_same_machine_fields(app: TestApp) {
    // Given another club's export (its players' and game's ids are that club's) and a file with
    // lines of several kinds wrong: a number, a line that is not JSON, a newer format, a player
    // without "created_at", an event without an id, the other club's Ann and game, that game
    // with a result naming a player who did not play, and a line that is not UTF-8.
    let source = app.new_club().await;
    let game = typed_in_game(&app, &source).await;
    let seats = app
        .get(&format!("/v1/games/{game}"), Some(&source.token))
        .await;
    let ann = seats.body["players"][0]["player_id"].as_str().unwrap();
    let exported = export(&app, &source).await;
    let lines: Vec<&str> = exported.lines().collect();
    let mut zed: Value = serde_json::from_str(lines[2]).unwrap();
    zed["events"][1]["data"]["totals"] = json!({"Ann": 9, "Zed": 4});
    let mut file = [
        "3",
        "nonsense",
        r#"{"format": "tabletally.game/2", "game": {}, "events": []}"#,
        r#"{"format": "tabletally.player/1", "player": {"id": "5f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9", "name": "Ann"}}"#,
        r#"{"format": "tabletally.game/1", "game": {"id": "x", "game": "vintage"}, "events": [{"seq": 1}]}"#,
        lines[0],
        lines[2],
        &zed.to_string(),
    ]
    .join("\n")
    .into_bytes();
    file.extend_from_slice(b"\n\xff\xfe\n");
    let club = app.new_club().await;

    // When it is imported in English, French and Persian
    let ndjson = "application/x-ndjson";
    let english = import_in(&app, &club, "/v1/import", ndjson, &file, "en").await;
    let french = import_in(&app, &club, "/v1/import", ndjson, &file, "fr").await;
    let persian = import_in(&app, &club, "/v1/import", ndjson, &file, "fa").await;

    // Then every line fails the same way, and only the words change with the language
    assert_eq!(
        machine_fields(&english),
        json!({"imported": 0, "already_present": 0, "failed": [
            {"line": 1, "game_id": null, "status": 400, "detail": null},
            {"line": 2, "game_id": null, "status": 400, "detail": null},
            {"line": 3, "game_id": null, "status": 400, "detail": null},
            {"line": 4, "game_id": null, "status": 400, "detail": null},
            {"line": 5, "game_id": "x", "status": 400, "detail": null},
            {"line": 6, "game_id": null, "status": 409, "detail": null},
            {"line": 7, "game_id": game, "status": 409, "detail": null},
            {"line": 8, "game_id": game, "status": 422, "detail": null},
            {"line": 9, "game_id": null, "status": 400, "detail": null}]})
    );
    assert_eq!(machine_fields(&french), machine_fields(&english));
    assert_eq!(machine_fields(&persian), machine_fields(&english));
    let kinds = r#""tabletally.player/1", "tabletally.preset/1" ou "tabletally.game/1""#;
    let said = details(&french);
    assert_eq!(
        said[..7],
        [
            format!(r#"chaque ligne doit être un seul objet JSON dont le "format" est {kinds}, pas le nombre 3"#),
            format!(r#"la ligne n'est pas du JSON (l'erreur est à la colonne 2) : chaque ligne doit être un seul objet JSON dont le "format" est {kinds}"#),
            format!(r#"format "tabletally.game/2" inconnu : le "format" d'une ligne est {kinds} (un fichier venu d'une version plus récente de tabletally demande un serveur plus récent)"#),
            r#"le joueur n'a pas de "created_at" : ce doit être le moment où le club l'a fait jouer pour la première fois, un instant écrit comme "2026-12-01T20:00:00Z""#.to_owned(),
            r#"l'événement 1 n'a pas de "id" : ce doit être l'id de l'événement"#.to_owned(),
            format!("l'id de joueur {ann} ne peut pas servir ici ; pour importer une copie sous de nouveaux ids, envoyez le fichier à POST /v1/import?new_ids=true"),
            format!("l'id de partie {game} ne peut pas servir ici ; pour importer une copie sous de nouveaux ids, envoyez le fichier à POST /v1/import?new_ids=true"),
        ]
    );
    assert!(
        said[7].starts_with("l'événement 2 (result_recorded) enfreint une règle : "),
        "{}",
        said[7]
    );
    assert_eq!(said[8], "la ligne n'est pas du texte UTF-8");
    let said = details(&persian);
    assert_eq!(
        said[0],
        r#"هر سطر باید یک شیء JSON باشد که "format" آن "tabletally.player/1"، "tabletally.preset/1" یا "tabletally.game/1" است، نه عدد 3"#
    );
    assert_eq!(
        said[3],
        r#"بازیکن "created_at" ندارد: باید زمانی که باشگاه نخستین بار او را در بازی نشاند، زمانی مانند "2026-12-01T20:00:00Z" باشد"#
    );
    assert_eq!(said[4], r#"رویداد 1 "id" ندارد: باید شناسهٔ رویداد باشد"#);
    assert!(
        said[7].starts_with("رویداد 2 (result_recorded) قاعده‌ای را می‌شکند: "),
        "{}",
        said[7]
    );
    assert_eq!(said[8], "سطر متن UTF-8 نیست");
    assert_no_english_left(&details(&french), "fr");
    assert_no_english_left(&details(&persian), "fa");
    // English reads as it always has.
    assert_eq!(
        details(&english)[3],
        r#"the player has no "created_at": it must be when the club first seated them, a time such as "2026-12-01T20:00:00Z""#
    );
}
