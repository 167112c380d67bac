//! Renaming and merging a club's players, on both databases, with statistics computed by hand
//! before and after. Games keep the names their events were written with.
//!
//! The club's history (Mint Condition, 2 players, lowest damage wins; rounds from
//! `statistics.rs`):
//!
//! | game | started    | seats        | totals | result            |
//! |------|------------|--------------|--------|-------------------|
//! | G1   | 2026-01-10 | Ann, Bo      | 6, 14  | Ann wins          |
//! | G2   | 2026-02-14 | Anne, Bo     | 2, 7   | Anne wins (typo)  |
//! | G3   | 2026-03-07 | Bo, Cy       | 10, 10 | shared win        |

use serde_json::{Value, json};

use crate::helpers::{HeldWrite, TestApp, TestClub, ranks};
use crate::on_both_backends;
use crate::statistics::{at, g1_rounds, g2_rounds, g4_rounds, mint_condition, seat_ids};

struct Club {
    club: TestClub,
    ann: String,
    anne: String,
    bo: String,
    g: [String; 3],
}

async fn seed(app: &TestApp) -> Club {
    let club = app.new_club().await;
    let g1 = mint_condition(app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 3).await;
    let g2 = mint_condition(app, &club, "2026-02-14", ("Anne", "Bo"), g4_rounds(), 3).await;
    let g3 = mint_condition(app, &club, "2026-03-07", ("Bo", "Cy"), g2_rounds(), 3).await;
    let g1_seats = seat_ids(app, &club, &g1).await;
    let g2_seats = seat_ids(app, &club, &g2).await;
    Club {
        ann: g1_seats[0].1.clone(),
        bo: g1_seats[1].1.clone(),
        anne: g2_seats[0].1.clone(),
        club,
        g: [g1, g2, g3],
    }
}

impl Club {
    async fn get(&self, app: &TestApp, path: &str) -> Value {
        let reply = app.get(path, Some(&self.club.token)).await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
        reply.body
    }

    async fn merge(&self, app: &TestApp, from: &str, into: &str) -> crate::helpers::Reply {
        app.post(
            &format!("/v1/players/{from}/merge"),
            Some(&self.club.token),
            &json!({"into": into}),
        )
        .await
    }

    async fn rename(&self, app: &TestApp, id: &str, name: &str) -> crate::helpers::Reply {
        app.patch(
            &format!("/v1/players/{id}"),
            Some(&self.club.token),
            &json!({"name": name}),
        )
        .await
    }
}

/// `(name, games_played)` of the player list.
fn listed(players: &Value) -> Vec<(String, i64)> {
    players["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_owned(),
                p["games_played"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// `(name, average_score)` of a leaderboard, in its order.
fn averages(board: &Value) -> Vec<(String, f64)> {
    board["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_owned(),
                p["average_score"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn s(name: &str) -> String {
    name.to_owned()
}

on_both_backends!(
    a_merged_typo_adds_its_games_to_the_player_and_the_log_keeps_its_name,
    players_who_sat_at_the_same_game_are_not_merged,
    a_player_cannot_be_merged_into_themselves_or_another_clubs_player,
    a_renamed_player_keeps_their_statistics_and_new_games_find_the_new_name,
    a_rename_onto_another_players_name_is_a_conflict_naming_them,
    a_name_seated_before_a_rename_seats_someone_new_after_it,
    head_to_head_takes_names_or_ids,
    a_game_in_progress_when_its_player_is_merged_finishes_for_the_merged_player,
    a_seat_moved_while_its_games_last_round_waits_finishes_for_the_player_it_moved_to,
    a_game_created_while_its_player_is_merged_is_created_or_refused_never_a_500,
    a_merge_sent_again_after_its_answer_was_lost_is_answered_as_done,
    a_games_etag_changes_when_one_of_its_players_is_merged,
);

async fn a_merge_sent_again_after_its_answer_was_lost_is_answered_as_done(app: TestApp) {
    // Given Anne merged into Ann (the answer was lost on the way)
    let c = seed(&app).await;
    let first = c.merge(&app, &c.anne, &c.ann).await;
    assert_eq!(first.status, 200, "{}", first.body);

    // When the phone sends the same merge again, and then Anne into Bo
    let again = c.merge(&app, &c.anne, &c.ann).await;
    let elsewhere = c.merge(&app, &c.anne, &c.bo).await;

    // Then the retry is answered as the merge was: Ann with G1 and G2, 2 played
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.body, first.body);
    assert_eq!(
        again.body,
        json!({"id": c.ann, "name": "Ann", "games_played": 2, "last_played": at("2026-02-14")})
    );
    // Anne is gone: any other merge of hers finds nobody
    elsewhere.problem(404);
    assert_eq!(
        listed(&c.get(&app, "/v1/players").await),
        vec![(s("Ann"), 2), (s("Bo"), 3), (s("Cy"), 1)]
    );
}

async fn a_games_etag_changes_when_one_of_its_players_is_merged(app: TestApp) {
    // Given G2 (Anne, Bo) read with its tag
    let c = seed(&app).await;
    let path = format!("/v1/games/{}", c.g[1]);
    let before = app.get(&path, Some(&c.club.token)).await;
    let tag = before.headers["etag"].to_str().unwrap().to_owned();
    assert!(tag.starts_with("\"4-"), "{tag}");
    assert_eq!(before.body["players"][0]["player_id"], json!(c.anne));
    let unchanged = app
        .client
        .get(app.url(&path))
        .bearer_auth(&c.club.token)
        .header("if-none-match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(unchanged.status(), 304);

    // When Anne is merged into Ann: G2's log (version 4) does not change, its seat does
    assert_eq!(c.merge(&app, &c.anne, &c.ann).await.status, 200);
    let after = app
        .client
        .get(app.url(&path))
        .bearer_auth(&c.club.token)
        .header("if-none-match", &tag)
        .send()
        .await
        .unwrap();

    // Then the old tag no longer matches: 200 with the new player_id and a new tag
    assert_eq!(after.status(), 200);
    let new_tag = after.headers()["etag"].to_str().unwrap().to_owned();
    assert_ne!(new_tag, tag);
    assert!(new_tag.starts_with("\"4-"), "{new_tag}");
    let body: Value = after.json().await.unwrap();
    assert_eq!(body["version"], 4);
    assert_eq!(body["players"][0]["player_id"], json!(c.ann));
    // And the tag still serves as If-Match on an append: its version (4) is what counts.
    let retract = app
        .client
        .post(app.url(&format!("{path}/events")))
        .bearer_auth(&c.club.token)
        .header("If-Match", &new_tag)
        .json(&json!({"events": [{"type": "retract", "data": {"seq": 4, "reason": "round 3 again"}}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(retract.status(), 201);
    let stale = app
        .client
        .post(app.url(&format!("{path}/events")))
        .bearer_auth(&c.club.token)
        .header("If-Match", &new_tag)
        .json(&json!({"events": [{"type": "retract", "data": {"seq": 3, "reason": "round 2 again"}}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), 409);
}

async fn a_merged_typo_adds_its_games_to_the_player_and_the_log_keeps_its_name(app: TestApp) {
    // Given G1 (Ann 6, wins), G2 (the typo Anne 2, wins) and G3 (Bo 10, Cy 10, shared)
    let c = seed(&app).await;
    let board = "/v1/stats/leaderboard?game=mint-condition&sort=average_score";
    let before_list = c.get(&app, "/v1/players").await;
    let before_board = c.get(&app, board).await;
    // Lowest average first: Anne 2, Ann 6, Cy 10, Bo (14 + 7 + 10) / 3 = 10.333.
    assert_eq!(
        listed(&before_list),
        vec![(s("Ann"), 1), (s("Anne"), 1), (s("Bo"), 3), (s("Cy"), 1)]
    );
    assert_eq!(
        averages(&before_board),
        vec![
            (s("Anne"), 2.0),
            (s("Ann"), 6.0),
            (s("Cy"), 10.0),
            (s("Bo"), 10.333)
        ]
    );

    // When Anne is merged into Ann
    let merged = c.merge(&app, &c.anne, &c.ann).await;

    // Then Ann has both games: 2 played, 2 wins, (6 + 2) / 2 = 4.0, best 2, worst 6
    assert_eq!(merged.status, 200, "{}", merged.body);
    assert_eq!(
        merged.body,
        json!({"id": c.ann, "name": "Ann", "games_played": 2, "last_played": at("2026-02-14")})
    );
    let stats = c.get(&app, &format!("/v1/players/{}/stats", c.ann)).await;
    assert_eq!(
        (
            &stats["games_played"],
            &stats["wins"],
            &stats["win_rate"],
            &stats["longest_win_streak"]
        ),
        (&json!(2), &json!(2), &json!(1.0), &json!(2))
    );
    assert_eq!(
        stats["per_game"],
        json!([{"game": "mint-condition", "games_played": 2, "wins": 2, "win_rate": 1.0,
                "average_score": 4.0, "best_score": 2, "worst_score": 6, "average_rank": 1.0}])
    );
    assert_eq!(
        listed(&c.get(&app, "/v1/players").await),
        vec![(s("Ann"), 2), (s("Bo"), 3), (s("Cy"), 1)]
    );
    assert_eq!(
        averages(&c.get(&app, board).await),
        vec![(s("Ann"), 4.0), (s("Cy"), 10.0), (s("Bo"), 10.333)]
    );
    // Anne is gone; G2 seats Ann's id under the name its events use.
    app.get(&format!("/v1/players/{}", c.anne), Some(&c.club.token))
        .await
        .problem(404);
    let g2 = c.get(&app, &format!("/v1/games/{}", c.g[1])).await;
    assert_eq!(g2["players"][0]["name"], "Anne");
    assert_eq!(g2["players"][0]["player_id"], json!(c.ann));
    let score = c.get(&app, &format!("/v1/games/{}/score", c.g[1])).await;
    assert_eq!(score["winners"], json!(["Anne"]));
    // Ann's games are G2 and G1, newest first, each under the name played.
    let games = c.get(&app, &format!("/v1/players/{}/games", c.ann)).await;
    let played: Vec<(&str, &str)> = games["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["game_id"].as_str().unwrap(), g["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        played,
        vec![(c.g[1].as_str(), "Anne"), (c.g[0].as_str(), "Ann")]
    );
    let listed_games = c.get(&app, "/v1/games?player=ann").await;
    assert_eq!(listed_games["games"].as_array().unwrap().len(), 2);
    // Bo's figures did not move: G1 lost, G2 lost, G3 shared.
    let bo = c.get(&app, &format!("/v1/players/{}/stats", c.bo)).await;
    assert_eq!((&bo["games_played"], &bo["wins"]), (&json!(3), &json!(1)));
    // A rebuild of the statistics from the log answers the same.
    let store = tabletally_api::store::connect(&app.database_url)
        .await
        .expect("a second connection to the server's database");
    tabletally_api::statistics::rebuild(store.as_ref())
        .await
        .expect("the rebuild succeeds");
    assert_eq!(
        averages(&c.get(&app, board).await),
        vec![(s("Ann"), 4.0), (s("Cy"), 10.0), (s("Bo"), 10.333)]
    );
}

async fn players_who_sat_at_the_same_game_are_not_merged(app: TestApp) {
    // Given Ann and Bo, who both sat at G1 and G2's Bo
    let c = seed(&app).await;
    // When Bo is merged into Ann
    let reply = c.merge(&app, &c.bo, &c.ann).await;
    // Then 409 names the game by its id, says why in words, and nothing moved
    let problem = reply.problem(409);
    assert_eq!(problem["type"], "/problems/players-sat-together");
    assert_eq!(
        problem["title"],
        "Players who sat at the same game cannot be merged"
    );
    assert_eq!(problem["game_ids"], json!([c.g[0]]));
    assert_eq!(
        problem["detail"],
        "both players sat at a game together, and a game cannot seat one person twice, so they \
         are not merged — they are two people, or a game's seats are wrong"
    );
    assert_eq!(
        listed(&c.get(&app, "/v1/players").await),
        vec![(s("Ann"), 1), (s("Anne"), 1), (s("Bo"), 3), (s("Cy"), 1)]
    );
}

async fn a_player_cannot_be_merged_into_themselves_or_another_clubs_player(app: TestApp) {
    let c = seed(&app).await;
    let other = app.new_club().await;
    let stranger_game = app
        .new_game(
            &other,
            json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;
    let stranger = seat_ids(&app, &other, &stranger_game).await[0].1.clone();

    let themselves = c.merge(&app, &c.ann, &c.ann).await;
    let across = c.merge(&app, &c.anne, &stranger).await;
    let not_an_id = c.merge(&app, &c.anne, "Ann").await;
    let from_elsewhere = app
        .post(
            &format!("/v1/players/{stranger}/merge"),
            Some(&c.club.token),
            &json!({"into": c.ann}),
        )
        .await;

    let problem = themselves.problem(422);
    assert_eq!(problem["pointer"], "/into");
    assert_eq!(
        problem["detail"],
        "a player cannot be merged into themselves; into must be another player's id"
    );
    // Another club's player is no player of this club: 404, as for the path's own id.
    assert_eq!(
        across.problem(404)["detail"],
        format!(
            "no such player in this club: into {stranger} (players merge only within their club)"
        )
    );
    assert_eq!(
        not_an_id.problem(422)["detail"],
        "into must be the player id (a UUID) of the player who stays, got \"Ann\""
    );
    from_elsewhere.problem(404);
    // Nothing moved in either club.
    assert_eq!(
        listed(&c.get(&app, "/v1/players").await),
        vec![(s("Ann"), 1), (s("Anne"), 1), (s("Bo"), 3), (s("Cy"), 1)]
    );
}

async fn a_renamed_player_keeps_their_statistics_and_new_games_find_the_new_name(app: TestApp) {
    // Given G1 to G3
    let c = seed(&app).await;
    // When Bo is renamed "Bob"
    let renamed = c.rename(&app, &c.bo, " Bob ").await;
    // Then Bob has Bo's 3 games and 1 win; the games keep "Bo"
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    assert_eq!(
        renamed.body,
        json!({"id": c.bo, "name": "Bob", "games_played": 3, "last_played": at("2026-03-07")})
    );
    let stats = c.get(&app, &format!("/v1/players/{}/stats", c.bo)).await;
    assert_eq!(
        (&stats["name"], &stats["games_played"], &stats["wins"]),
        (&json!("Bob"), &json!(3), &json!(1))
    );
    let g1 = c.get(&app, &format!("/v1/games/{}/score", c.g[0])).await;
    assert_eq!(ranks(&g1), vec![("Ann", 1), ("Bo", 2)]);
    // A new game with "BOB" seats the same player; one with "Bo" is someone new.
    let bob_game = app
        .new_game(
            &c.club,
            json!({"game": "mint-condition", "players": [{"name": "BOB"}, {"name": "Bo"}]}),
        )
        .await;
    let seats = seat_ids(&app, &c.club, &bob_game).await;
    assert_eq!(seats[0].1, c.bo);
    assert_ne!(seats[1].1, c.bo);
    // Renaming in another case only is allowed: it is the same name.
    let recased = c.rename(&app, &c.ann, "ANN").await;
    assert_eq!(recased.status, 200, "{}", recased.body);
    assert_eq!(recased.body["name"], "ANN");
}

async fn a_rename_onto_another_players_name_is_a_conflict_naming_them(app: TestApp) {
    let c = seed(&app).await;

    let onto_ann = c.rename(&app, &c.anne, "ann").await;
    let empty = c.rename(&app, &c.anne, "  ").await;
    // A line break is no space: it is refused, not trimmed (the schema's pattern refuses it).
    let line_break = c.rename(&app, &c.anne, "\nAnnie").await;
    let unknown = c
        .rename(&app, "00000000-0000-4000-8000-000000000000", "Zed")
        .await;

    let taken = onto_ann.problem(409);
    assert_eq!(taken["type"], "/problems/name-taken");
    assert_eq!(taken["title"], "The name is already taken");
    assert_eq!(taken["player_id"], c.ann.as_str());
    assert_eq!(
        taken["detail"],
        "the club already has a player called \"Ann\", and names match ignoring case — if \
         they are the same person, merge them instead"
    );
    let problem = empty.problem(422);
    assert_eq!(problem["pointer"], "/name");
    assert_eq!(problem["detail"], "a player name cannot be empty");
    let problem = line_break.problem(422);
    assert_eq!(problem["pointer"], "/name");
    assert_eq!(
        problem["detail"],
        "a player name cannot contain control characters"
    );
    unknown.problem(404);
    assert_eq!(
        listed(&c.get(&app, "/v1/players").await),
        vec![(s("Ann"), 1), (s("Anne"), 1), (s("Bo"), 3), (s("Cy"), 1)]
    );
}

async fn head_to_head_takes_names_or_ids(app: TestApp) {
    let c = seed(&app).await;

    let by_names = c.get(&app, "/v1/stats/head-to-head?players=ann,Bo").await;
    let mixed = c
        .get(
            &app,
            &format!("/v1/stats/head-to-head?players=Ann,{}", c.bo),
        )
        .await;
    let nobody = app
        .get(
            "/v1/stats/head-to-head?players=Ann,Zed",
            Some(&c.club.token),
        )
        .await;
    let twice = app
        .get(
            &format!("/v1/stats/head-to-head?players=ANN,{}", c.ann),
            Some(&c.club.token),
        )
        .await;

    // G1 only: Ann 6 beat Bo 14.
    assert_eq!(
        (
            &by_names["games_together"],
            &by_names["first_ahead"],
            &by_names["second_ahead"]
        ),
        (&json!(1), &json!(1), &json!(0))
    );
    assert_eq!(by_names["players"][0]["id"], json!(c.ann));
    assert_eq!(mixed, by_names);
    assert_eq!(
        nobody.problem(404)["detail"],
        "the club has no player called \"Zed\" (names match ignoring case)"
    );
    assert_eq!(
        twice.problem(400)["detail"],
        format!(
            "players must be two different players; \"ANN\" and \"{}\" are both Ann",
            c.ann
        )
    );
}

async fn a_game_in_progress_when_its_player_is_merged_finishes_for_the_merged_player(app: TestApp) {
    // Given the history, and G4 (Anne, Cy; G1's rounds) with two of its three rounds recorded:
    // the server holds its state, seats and all.
    let c = seed(&app).await;
    let g4 = mint_condition(&app, &c.club, "2026-04-04", ("Anne", "Cy"), g1_rounds(), 2).await;
    // When Anne is merged into Ann, and then G4's last round is recorded
    let merged = c.merge(&app, &c.anne, &c.ann).await;
    assert_eq!(merged.status, 200, "{}", merged.body);
    let [_, _, (anne, cy)] = g1_rounds();
    let last = app
        .append(
            &c.club,
            &g4,
            Some(3),
            vec![crate::helpers::event(
                "round_collected",
                json!({"round": 3, "collections": {"Anne": anne, "Cy": cy}}),
            )],
        )
        .await;
    // Then G4 finishes, and its result is Ann's: G1 (6, won), G2 (2, won), G4 (6, won).
    assert_eq!(last.status, 201, "{}", last.body);
    let seats = seat_ids(&app, &c.club, &g4).await;
    assert_eq!(seats[0], (s("Anne"), c.ann.clone()));
    let ann = c.get(&app, &format!("/v1/players/{}/stats", c.ann)).await;
    assert_eq!((&ann["games_played"], &ann["wins"]), (&json!(3), &json!(3)));
    assert_eq!(
        listed(&c.get(&app, "/v1/players").await),
        vec![(s("Ann"), 3), (s("Bo"), 3), (s("Cy"), 2)]
    );
}

async fn a_seat_moved_while_its_games_last_round_waits_finishes_for_the_player_it_moved_to(
    app: TestApp,
) {
    // Given the history, and G4 (Anne, Cy; G1's rounds) with two of its three rounds recorded,
    // and another connection moving G4's seat of Anne to Ann as a merge does: the game's row
    // locked first (PostgreSQL), not yet committed
    let c = seed(&app).await;
    let g4 = mint_condition(&app, &c.club, "2026-04-04", ("Anne", "Cy"), g1_rounds(), 2).await;
    let lock = match app.backend {
        crate::helpers::Backend::Postgres => {
            format!("SELECT id FROM games WHERE id = '{g4}' FOR UPDATE;")
        }
        crate::helpers::Backend::Sqlite => String::new(),
    };
    let moved = format!(
        "{lock} UPDATE game_players SET player_id = '{}' WHERE game_id = '{g4}' AND player_id = '{}'",
        c.ann, c.anne
    );
    let other = HeldWrite::begin(&app, &moved).await;

    // When G4's last round is recorded, and the move commits while the append waits for the
    // game's row (PostgreSQL: the append's locks are one statement, begun before the commit)
    let [_, _, (anne, cy)] = g1_rounds();
    let round = vec![crate::helpers::event(
        "round_collected",
        json!({"round": 3, "collections": {"Anne": anne, "Cy": cy}}),
    )];
    let (last, ()) = tokio::join!(app.append(&c.club, &g4, Some(3), round), async {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        other.commit().await;
    });

    // Then G4 finishes for Ann: Ann has G1 (6, won) and G4 (6, won), Anne G2 alone
    assert_eq!(last.status, 201, "{}", last.body);
    let ann = c.get(&app, &format!("/v1/players/{}/stats", c.ann)).await;
    assert_eq!((&ann["games_played"], &ann["wins"]), (&json!(2), &json!(2)));
    let anne = c.get(&app, &format!("/v1/players/{}/stats", c.anne)).await;
    assert_eq!(
        (&anne["games_played"], &anne["wins"]),
        (&json!(1), &json!(1))
    );
    assert_eq!(
        listed(&c.get(&app, "/v1/players").await),
        vec![(s("Ann"), 2), (s("Anne"), 1), (s("Bo"), 3), (s("Cy"), 2)]
    );
}

async fn a_game_created_while_its_player_is_merged_is_created_or_refused_never_a_500(app: TestApp) {
    for round in 0..8 {
        // Given two players, each with a game of their own
        let club = app.new_club().await;
        let (a, b) = (format!("A{round}"), format!("B{round}"));
        let g1 = mint_condition(&app, &club, "2026-01-10", (&a, "Cy"), g1_rounds(), 0).await;
        let g2 = mint_condition(&app, &club, "2026-01-11", (&b, "Di"), g1_rounds(), 0).await;
        let a_id = seat_ids(&app, &club, &g1).await[0].1.clone();
        let b_id = seat_ids(&app, &club, &g2).await[0].1.clone();

        // When a game seating A is created while A is merged into B
        let new_game = json!({"game": "mint-condition",
                              "players": [{"name": a}, {"name": "Ed"}]});
        let merge = json!({"into": b_id});
        let merge_path = format!("/v1/players/{a_id}/merge");
        let (created, merged) = tokio::join!(
            app.post("/v1/games", Some(&club.token), &new_game),
            app.post(&merge_path, Some(&club.token), &merge),
        );

        // Then each is done, or refused as a conflict to send again: never a server error
        assert!(
            [201, 409].contains(&created.status.as_u16()),
            "creation: {} {}",
            created.status,
            created.body
        );
        assert!(
            [200, 409].contains(&merged.status.as_u16()),
            "merge: {} {}",
            merged.status,
            merged.body
        );
    }
}

async fn a_name_seated_before_a_rename_seats_someone_new_after_it(app: TestApp) {
    // Given G1 to G3: this server has seated "Ann" and "Bo" (on PostgreSQL it remembers whom,
    // and creates a game of names it remembers in one statement that checks them)
    let c = seed(&app).await;
    // When Bo is renamed "Bob", and games of "Ann" and "Bo" are created, one after the other
    let renamed = c.rename(&app, &c.bo, "Bob").await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    let players = json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]});
    let first = app.new_game(&c.club, players.clone()).await;
    let second = app.new_game(&c.club, players).await;
    // Then "Bo" is someone new, the same in both games; Ann is Ann; Bob keeps his 3 games
    let first_seats = seat_ids(&app, &c.club, &first).await;
    let second_seats = seat_ids(&app, &c.club, &second).await;
    assert_eq!(first_seats[0].1, c.ann);
    assert_ne!(first_seats[1].1, c.bo);
    assert_eq!(second_seats, first_seats);
    let bob = c.get(&app, &format!("/v1/players/{}", c.bo)).await;
    assert_eq!(
        (&bob["name"], &bob["games_played"]),
        (&json!("Bob"), &json!(3))
    );
    let new_bo = c
        .get(&app, &format!("/v1/players/{}", first_seats[1].1))
        .await;
    assert_eq!(new_bo["name"], "Bo");
}
