//! The log over HTTP: optimistic concurrency, idempotent retries, all-or-nothing batches.

use serde_json::json;
use sqlx::Connection;

use crate::helpers::{Backend, TestApp, TestClub, event, metric};
use crate::on_both_backends;

/// A 2-player Mint Condition game (7 cards a round).
async fn two_player_game(app: &TestApp, club: &TestClub) -> String {
    app.new_game(
        club,
        json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
    )
    .await
}

fn round(n: u32) -> serde_json::Value {
    json!({"round": n, "collections": {
        "Ann": ["fine-wine", "be-careful", "memories", "autographed", "autographed", "legacy-edition", "lost-pieces"],
        "Bo": ["be-careful", "be-careful", "heavy-rotation", "animal-kingdom", "animal-kingdom", "animal-kingdom", "snack-fingers"]
    }})
}

on_both_backends!(
    a_stale_expected_version_is_a_conflict_naming_the_current_version,
    an_event_id_that_is_not_a_uuid_is_an_invalid_request_not_a_broken_rule,
    reads_made_while_appends_commit_agree_with_their_version,
    if_match_works_like_expected_version,
    of_two_concurrent_appends_at_one_version_exactly_one_succeeds,
    a_retried_request_returns_the_stored_result,
    an_event_id_reused_with_other_content_is_a_conflict,
    a_rule_violation_names_the_event_and_the_field,
    a_batch_with_one_bad_event_of_three_stores_nothing,
    a_batch_of_rounds_is_stored_in_order,
    an_abandoned_game_refuses_events_until_the_abandon_is_retracted,
    the_log_can_be_read_in_pages,
    an_event_sent_without_an_id_gets_one_from_the_server,
    an_append_to_a_game_another_server_moved_on_is_decided_against_the_stored_game,
    plain_appends_made_while_one_is_in_flight_are_written_together_each_at_its_own_version,
    a_reason_longer_than_a_sentence_is_refused_and_nothing_is_stored,
    an_event_larger_than_any_legal_one_is_refused_and_nothing_is_stored,
    options_larger_than_a_whole_custom_deck_are_refused,
);

async fn a_stale_expected_version_is_a_conflict_naming_the_current_version(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    assert_eq!(
        app.append(
            &club,
            &game,
            Some(1),
            vec![event("round_collected", round(1))]
        )
        .await
        .status,
        201
    );

    let reply = app
        .append(
            &club,
            &game,
            Some(1),
            vec![event("round_collected", round(2))],
        )
        .await;

    let problem = reply.problem(409);
    assert_eq!(problem["current_version"], 2);
    assert_eq!(problem["type"], "/problems/stale-version");
    assert_eq!(
        problem["title"],
        "Someone else recorded this game meanwhile"
    );
    // A sentence a phone can show as it is.
    assert_eq!(
        problem["detail"],
        "someone else recorded this game meanwhile — reload to see it"
    );
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(log.body["version"], 2);
}

async fn if_match_works_like_expected_version(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    let send = |version: &str| {
        app.client
            .post(app.url(&format!("/v1/games/{game}/events")))
            .bearer_auth(&club.token)
            .header("If-Match", version.to_owned())
            .json(&json!({"events": [event("round_collected", round(1))]}))
            .send()
    };

    let stale = send("\"7\"").await.unwrap();
    let fresh = send("\"1\"").await.unwrap();
    // `*`: any version of the game; round 2 goes on at version 2.
    let any = app
        .client
        .post(app.url(&format!("/v1/games/{game}/events")))
        .bearer_auth(&club.token)
        .header("If-Match", "*")
        .json(&json!({"events": [event("round_collected", round(2))]}))
        .send()
        .await
        .unwrap();

    assert_eq!(stale.status(), 409);
    assert_eq!(fresh.status(), 201);
    assert_eq!(any.status(), 201);
}

async fn of_two_concurrent_appends_at_one_version_exactly_one_succeeds(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;

    let (a, b) = tokio::join!(
        app.append(
            &club,
            &game,
            Some(1),
            vec![event("round_collected", round(1))]
        ),
        app.append(
            &club,
            &game,
            Some(1),
            vec![event("round_collected", round(1))]
        ),
    );

    let mut statuses = vec![a.status.as_u16(), b.status.as_u16()];
    statuses.sort();
    assert_eq!(statuses, vec![201, 409], "{} / {}", a.body, b.body);
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(log.body["events"].as_array().unwrap().len(), 2);
}

async fn a_retried_request_returns_the_stored_result(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    let events = vec![event("round_collected", round(1))];
    let first = app.append(&club, &game, Some(1), events.clone()).await;
    assert_eq!(first.status, 201);

    // The phone lost the answer and sends the same request again: its expected_version is now stale.
    let retry = app.append(&club, &game, Some(1), events).await;

    assert_eq!(retry.status, 200, "{}", retry.body);
    assert_eq!(retry.body["events"], first.body["events"]);
    assert_eq!(retry.body["version"], 2);
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(log.body["events"].as_array().unwrap().len(), 2);
}

async fn an_event_id_reused_with_other_content_is_a_conflict(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    let first = event("round_collected", round(1));
    assert_eq!(
        app.append(&club, &game, None, vec![first.clone()])
            .await
            .status,
        201
    );
    let mut other = first.clone();
    other["data"]["collections"]["Ann"][0] = json!("memories");

    let reply = app.append(&club, &game, None, vec![other]).await;

    let problem = reply.problem(409);
    assert_eq!(problem["type"], "/problems/id-taken");
    assert_eq!(
        problem["title"],
        "The id is already used for something else"
    );
}

async fn a_rule_violation_names_the_event_and_the_field(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    let mut bad = round(1);
    bad["collections"]["Bo"][2] = json!("fine-whine");

    let reply = app
        .append(&club, &game, Some(1), vec![event("round_collected", bad)])
        .await;

    let problem = reply.problem(422);
    assert_eq!(problem["type"], "/problems/rule-violation");
    assert_eq!(problem["title"], "An event breaks a rule of the game");
    assert_eq!(problem["event_index"], 0);
    assert_eq!(problem["pointer"], "/events/0/data/collections/Bo/2");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .starts_with("unknown card \"fine-whine\""),
        "{problem}"
    );
}

async fn an_event_id_that_is_not_a_uuid_is_an_invalid_request_not_a_broken_rule(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    let mut sent = event("round_collected", round(1));
    sent["id"] = json!("round-1");

    let reply = app.append(&club, &game, Some(1), vec![sent]).await;

    let problem = reply.problem(422);
    assert_eq!(problem["type"], "/problems/invalid-request");
    assert_eq!(problem["title"], "The request is invalid");
    assert_eq!(problem["event_index"], 0);
    assert_eq!(problem["pointer"], "/events/0/id");
    assert_eq!(
        problem["detail"],
        "event id must be a UUID, got \"round-1\""
    );
    assert_eq!(app.version(&club, &game).await, 1);
}

async fn a_batch_with_one_bad_event_of_three_stores_nothing(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    // Round 3 before round 2 is out of order.
    let events = vec![
        event("round_collected", round(1)),
        event("round_collected", round(3)),
        event("round_collected", round(2)),
    ];

    let reply = app.append(&club, &game, Some(1), events).await;

    let problem = reply.problem(422);
    assert_eq!(problem["event_index"], 1);
    assert_eq!(problem["pointer"], "/events/1/data/round");
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(log.body["version"], 1);
    assert_eq!(log.body["events"].as_array().unwrap().len(), 1);
}

async fn a_batch_of_rounds_is_stored_in_order(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;

    let reply = app
        .append(
            &club,
            &game,
            Some(1),
            vec![
                event("round_collected", round(1)),
                event("round_collected", round(2)),
            ],
        )
        .await;

    assert_eq!(reply.status, 201, "{}", reply.body);
    assert_eq!(reply.body["version"], 3);
    let seqs: Vec<i64> = reply.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(seqs, vec![2, 3]);
}

async fn an_abandoned_game_refuses_events_until_the_abandon_is_retracted(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    let abandon = app
        .append(
            &club,
            &game,
            Some(1),
            vec![event("abandon", json!({"reason": "the pub closed"}))],
        )
        .await;
    assert_eq!(abandon.status, 201);
    assert_eq!(
        app.get(&format!("/v1/games/{game}"), Some(&club.token))
            .await
            .body["status"],
        "abandoned"
    );

    let refused = app
        .append(&club, &game, None, vec![event("round_collected", round(1))])
        .await;
    let resumed = app
        .append(
            &club,
            &game,
            None,
            vec![event("retract", json!({"seq": 2}))],
        )
        .await;
    let accepted = app
        .append(&club, &game, None, vec![event("round_collected", round(1))])
        .await;

    refused.problem(422);
    assert_eq!(resumed.status, 201);
    assert_eq!(accepted.status, 201, "{}", accepted.body);
    assert_eq!(
        app.get(&format!("/v1/games/{game}"), Some(&club.token))
            .await
            .body["status"],
        "in_progress"
    );
}

async fn the_log_can_be_read_in_pages(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    let events = vec![
        event("round_collected", round(1)),
        event("round_collected", round(2)),
        event("round_collected", round(3)),
    ];
    assert_eq!(app.append(&club, &game, Some(1), events).await.status, 201);

    let first = app
        .get(
            &format!("/v1/games/{game}/events?limit=2"),
            Some(&club.token),
        )
        .await;
    let second = app
        .get(
            &format!("/v1/games/{game}/events?after=2&limit=2"),
            Some(&club.token),
        )
        .await;

    let seqs = |r: &crate::helpers::Reply| -> Vec<i64> {
        r.body["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["seq"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(seqs(&first), vec![1, 2]);
    assert_eq!(first.body["next_after"], 2);
    assert_eq!(seqs(&second), vec![3, 4]);
    assert_eq!(second.body["next_after"], serde_json::Value::Null);
    assert_eq!(first.body["events"][0]["type"], "game_started");
    assert_eq!(first.body["version"], 4);
}

async fn an_event_sent_without_an_id_gets_one_from_the_server(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;

    let reply = app
        .append(
            &club,
            &game,
            Some(1),
            vec![json!({"type": "round_collected", "data": round(1)})],
        )
        .await;

    assert_eq!(reply.status, 201, "{}", reply.body);
    let id = reply.body["events"][0]["id"].as_str().expect("an id");
    assert!(uuid::Uuid::parse_str(id).is_ok(), "{id}");
    let log = app
        .get(&format!("/v1/games/{game}/events"), Some(&club.token))
        .await;
    assert_eq!(log.body["events"][1]["id"], id);
}

async fn an_append_to_a_game_another_server_moved_on_is_decided_against_the_stored_game(
    app: TestApp,
) {
    if app.backend == Backend::Sqlite {
        return; // one SQLite file is served by one process
    }
    // Arrange: this server holds the game after round 1; the other server then retracts it.
    let other = app.second_server().await;
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    let first = app
        .append(&club, &game, None, vec![event("round_collected", round(1))])
        .await;
    assert_eq!(first.status, 201, "{}", first.body);
    let retract = other
        .append(
            &club,
            &game,
            None,
            vec![event("retract", json!({"seq": 2}))],
        )
        .await;
    assert_eq!(retract.status, 201, "{}", retract.body);

    // Act: round 2, which follows round 1 as this server last held the game; then round 1.
    let round_2 = app
        .append(&club, &game, None, vec![event("round_collected", round(2))])
        .await;
    let round_1 = app
        .append(&club, &game, None, vec![event("round_collected", round(1))])
        .await;

    // Assert: round 2 was refused as the stored game has it (no round in force), nothing
    // written; round 1 was then stored after the retract. Both servers score what a game of
    // round 1 alone scores.
    let problem = round_2.problem(422);
    assert_eq!(problem["pointer"], "/events/0/data/round", "{problem}");
    assert_eq!(round_1.status, 201, "{}", round_1.body);
    assert_eq!(round_1.body["version"], 4);
    assert_eq!(round_1.body["events"][0]["seq"], 4);
    assert_eq!(other.version(&club, &game).await, 4);
    let reference = two_player_game(&app, &club).await;
    let reply = app
        .append(
            &club,
            &reference,
            None,
            vec![event("round_collected", round(1))],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    let expected = app.score(&club, &reference).await["players"].clone();
    assert_eq!(app.score(&club, &game).await["players"], expected);
    assert_eq!(other.score(&club, &game).await["players"], expected);
}

async fn plain_appends_made_while_one_is_in_flight_are_written_together_each_at_its_own_version(
    app: TestApp,
) {
    if app.backend == Backend::Sqlite {
        return; // SQLite's writer gathers every write of a batch (tests of `writer.rs`)
    }
    // Arrange: four games this server holds after round 1; the other server then retracts the
    // last one's round. The first game's row is held locked from outside, so that an append to
    // it stays in flight.
    let other = app.second_server().await;
    let club = app.new_club().await;
    let mut games = Vec::new();
    for _ in 0..4 {
        let game = two_player_game(&app, &club).await;
        let reply = app
            .append(&club, &game, None, vec![event("round_collected", round(1))])
            .await;
        assert_eq!(reply.status, 201, "{}", reply.body);
        games.push(game);
    }
    let (held, together, moved_on) = (&games[0], &games[1..3], &games[3]);
    let retract = other
        .append(
            &club,
            moved_on,
            None,
            vec![event("retract", json!({"seq": 2}))],
        )
        .await;
    assert_eq!(retract.status, 201, "{}", retract.body);
    let mut db = sqlx::PgConnection::connect(&app.database_url)
        .await
        .expect("connect");
    sqlx::raw_sql("BEGIN")
        .execute(&mut db)
        .await
        .expect("begin");
    sqlx::query("SELECT 1 FROM games WHERE id = $1 FOR UPDATE")
        .bind(held)
        .execute(&mut db)
        .await
        .expect("the row held");

    // Act: round 2 to the held game (in flight until the row is let go); meanwhile round 2 to
    // the other three, the last of which this server holds at round 1 but the database does not.
    let first = app.append(&club, held, None, vec![event("round_collected", round(2))]);
    let rest = async {
        let mut waited = 0;
        while waiting_appends(&mut db).await == 0 {
            waited += 1;
            assert!(
                waited < 200,
                "the held game's append never waited for its row"
            );
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        let appends = futures_util::future::join_all(
            together
                .iter()
                .map(|game| app.append(&club, game, None, vec![event("round_collected", round(2))]))
                .chain([app.append(
                    &club,
                    moved_on,
                    None,
                    vec![event("round_collected", round(2))],
                )]),
        );
        let release = async {
            // Time for the three to reach the statement after the one in flight.
            tokio::time::sleep(std::time::Duration::from_millis(1000)).await;
            sqlx::raw_sql("COMMIT")
                .execute(&mut db)
                .await
                .expect("commit");
        };
        tokio::join!(appends, release).0
    };
    let (first, rest) = tokio::join!(first, rest);

    // Assert: round 2 went in after round 1 (seq 3) where the server held the game as stored;
    // where it did not, nothing was written by the statement and the append, decided again
    // against the stored game (round 1 retracted), was refused. The three made meanwhile
    // shared one statement, and every game scores as its own rounds do.
    assert_eq!(first.status, 201, "{}", first.body);
    assert_eq!(first.body["events"][0]["seq"], 3);
    for (reply, game) in rest.iter().zip(together) {
        assert_eq!(reply.status, 201, "{}", reply.body);
        assert_eq!(reply.body["events"][0]["seq"], 3, "{game}");
        assert_eq!(other.version(&club, game).await, 3);
    }
    let problem = rest[2].problem(422);
    assert_eq!(problem["pointer"], "/events/0/data/round", "{problem}");
    assert_eq!(other.version(&club, held).await, 3);
    assert_eq!(other.version(&club, moved_on).await, 3);
    let largest = metric(&app.client, &app.url(""), "tabletally_write_largest_batch").await;
    assert!(
        largest >= 3,
        "the appends made meanwhile were written apart"
    );
    let reference = two_player_game(&app, &club).await;
    for n in 1..=2 {
        let reply = app
            .append(
                &club,
                &reference,
                None,
                vec![event("round_collected", round(n))],
            )
            .await;
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
    let two_rounds = app.score(&club, &reference).await["players"].clone();
    for game in [held].into_iter().chain(together) {
        assert_eq!(
            other.score(&club, game).await["players"],
            two_rounds,
            "{game}"
        );
    }
}

/// How many plain-append statements (of one append or more) wait for a lock.
async fn waiting_appends(db: &mut sqlx::PgConnection) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity \
         WHERE wait_event_type = 'Lock' AND left(query, 60) IN (left($1, 60), left($2, 60))",
    )
    .bind(tabletally_api::store::PLAIN_APPEND)
    .bind(tabletally_api::store::PLAIN_APPENDS)
    .fetch_one(db)
    .await
    .expect("the waiting statements")
}

/// A log or a score read while appends commit is one version's: the log's events are exactly
/// 1..=version and the score's tag is the version its body says (PostgreSQL once read the row
/// and then the log, and answered events past the row's version).
async fn reads_made_while_appends_commit_agree_with_their_version(app: TestApp) {
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    let appends = async {
        // Abandon and resume in turn: 40 appends, each a new version.
        for i in 0..40 {
            let kind = if i % 2 == 0 { "abandon" } else { "retract" };
            let data = if i % 2 == 0 {
                json!({})
            } else {
                json!({"seq": i + 1})
            };
            let reply = app
                .append(&club, &game, None, vec![event(kind, data)])
                .await;
            assert_eq!(reply.status, 201, "{}", reply.body);
        }
    };
    let reads = async {
        let mut checked = 0;
        for _ in 0..60 {
            let log = app
                .get(&format!("/v1/games/{game}/events"), Some(&club.token))
                .await;
            let seqs: Vec<i64> = log.body["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["seq"].as_i64().unwrap())
                .collect();
            let version = log.body["version"].as_i64().unwrap();
            assert_eq!(seqs, (1..=version).collect::<Vec<_>>(), "{}", log.body);
            let score = app
                .client
                .get(app.url(&format!("/v1/games/{game}/score")))
                .bearer_auth(&club.token)
                .send()
                .await
                .unwrap();
            let tag = score.headers()["etag"].to_str().unwrap().to_owned();
            let body: serde_json::Value = score.json().await.unwrap();
            assert_eq!(tag, format!("\"{}\"", body["version"]), "{body}");
            checked += 1;
        }
        checked
    };
    let ((), checked) = tokio::join!(appends, reads);
    assert_eq!(checked, 60);
}

async fn a_reason_longer_than_a_sentence_is_refused_and_nothing_is_stored(app: TestApp) {
    // Given a game with one round, and a retraction of it with a reason of 501 characters
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    let first = app
        .append(
            &club,
            &game,
            Some(1),
            vec![event("round_collected", round(1))],
        )
        .await;
    assert_eq!(first.status, 201, "{}", first.body);
    let long = "x".repeat(501);

    // When it is sent (and an abandon with a reason of 200,000 characters, as an attacker would)
    let reply = app
        .append(
            &club,
            &game,
            Some(2),
            vec![event("retract", json!({"seq": 2, "reason": long}))],
        )
        .await;
    let huge = app
        .append(
            &club,
            &game,
            Some(2),
            vec![event("abandon", json!({"reason": "y".repeat(200_000)}))],
        )
        .await;

    // Then both are refused at the reason, in words, and the log is as it was
    let problem = reply.problem(422);
    assert_eq!(problem["pointer"], "/events/0/data/reason");
    assert_eq!(problem["event_index"], 0);
    assert_eq!(
        problem["detail"],
        "a reason is a sentence of at most 500 characters; this one has 501"
    );
    assert_eq!(
        huge.problem(422)["detail"],
        "a reason is a sentence of at most 500 characters; this one has 200000"
    );
    assert_eq!(app.version(&club, &game).await, 2);
    // And a reason of 500 characters is a reason.
    let kept = app
        .append(
            &club,
            &game,
            Some(2),
            vec![event(
                "retract",
                json!({"seq": 2, "reason": "z".repeat(500)}),
            )],
        )
        .await;
    assert_eq!(kept.status, 201, "{}", kept.body);
}

async fn an_event_larger_than_any_legal_one_is_refused_and_nothing_is_stored(app: TestApp) {
    // Given a round padded with 9,000 bytes of made-up cards (the largest legal events hold
    // about 2,000), second in a batch after a good round
    let club = app.new_club().await;
    let game = two_player_game(&app, &club).await;
    let mut padded = round(2);
    padded["collections"]["Ann"] = json!(vec!["fine-wine"; 1_000]);

    let reply = app
        .append(
            &club,
            &game,
            Some(1),
            vec![
                event("round_collected", round(1)),
                event("round_collected", padded.clone()),
            ],
        )
        .await;

    // Then the batch is refused at that event's data, with its size, and nothing is stored
    let problem = reply.problem(422);
    assert_eq!(problem["pointer"], "/events/1/data");
    assert_eq!(problem["event_index"], 1);
    let size = serde_json::to_string(&padded).unwrap().len();
    assert_eq!(
        problem["detail"],
        format!(
            "an event may hold at most 8192 bytes (a round of the biggest table holds about \
             2,000); this one holds {size}"
        )
    );
    assert_eq!(app.version(&club, &game).await, 1);
    // In French, too.
    let reply = app
        .client
        .post(app.url(&format!("/v1/games/{game}/events")))
        .bearer_auth(&club.token)
        .header("accept-language", "fr")
        .json(&json!({"events": [event("round_collected", padded)]}))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 422);
    let problem: serde_json::Value = reply.json().await.unwrap();
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .starts_with("un événement contient au plus 8192 octets"),
        "{problem}"
    );
}

async fn options_larger_than_a_whole_custom_deck_are_refused(app: TestApp) {
    // Given Vintage options whose prizes' names fill 20,000 bytes
    let club = app.new_club().await;
    let prize = |i: usize| {
        json!({"id": format!("p{i}"), "name": "n".repeat(1_000), "attribute": "colour",
               "value": "blue", "points": 1})
    };
    let options = json!({"prizes": (0..20).map(prize).collect::<Vec<_>>()});

    // When a game or a preset is made with them
    let game = app
        .post(
            "/v1/games",
            Some(&club.token),
            &json!({"game": "vintage", "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}],
                    "options": options}),
        )
        .await;
    let preset = app
        .post(
            "/v1/presets",
            Some(&club.token),
            &json!({"name": "Big", "game": "vintage", "options": options}),
        )
        .await;

    // Then both are refused at the options, with their size, and nothing is made
    let size = serde_json::to_string(&options).unwrap().len();
    for reply in [&game, &preset] {
        let problem = reply.problem(422);
        assert_eq!(problem["pointer"], "/options", "{problem}");
        assert_eq!(
            problem["detail"],
            format!(
                "a game's options may hold at most 16384 bytes (a whole custom deck holds about \
                 6,000); these hold {size}"
            )
        );
    }
    let games = app.get("/v1/games", Some(&club.token)).await;
    assert_eq!(games.body["games"], json!([]));
}
