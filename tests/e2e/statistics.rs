//! Statistics over HTTP: a small club history recorded through the API, and every statistics
//! endpoint checked against figures computed by hand. Abandoned games, unfinished games and
//! retracted rounds never count; a rebuild of the read models from the log answers the same.
//!
//! The club's history (Mint Condition, 2 players → 7 cards each per round; lowest damage wins):
//!
//! | game | started    | kind           | seats     | totals        | result                    |
//! |------|------------|----------------|-----------|---------------|---------------------------|
//! | G1   | 2026-01-10 | mint-condition | Ann, Bo   | 6, 14         | Ann wins                  |
//! | G2   | 2026-02-14 | mint-condition | Ann, Bo   | 10, 10        | shared win (4 BC each)    |
//! | G3   | 2026-03-07 | mint-condition | Ann, Cy   | 10, 9         | Cy wins, Be Careful! decided |
//! | G4   | 2026-04-04 | mint-condition | Bo, Cy    | 2, 7          | Bo wins                   |
//! | G5   | 2026-05-02 | mint-julep     | Ann, Bo   | 5, 7          | Bo wins                   |
//! | G6   | 2026-06-06 | mint-condition | Ann, Cy   | 5, 8          | Ann wins                  |
//! | X1   | 2026-06-20 | mint-condition | Bo, Cy    | (2, 7)        | finished, then abandoned  |
//! | X2   | 2026-07-04 | mint-condition | Cy, Di    | —             | two rounds only           |
//! | X3   | 2026-07-18 | mint-condition | Ann, Di   | (6, 14)       | finished, round 3 retracted |
//!
//! Results oldest first: Ann W W L L W (G1 G2 G3 G5 G6); Bo L W W W (G1 G2 G4 G5);
//! Cy W L L (G3 G4 G6); Di none.

use futures_util::future::join_all;
use serde_json::{Value, json};

use std::time::Duration;

use sqlx::Connection;

use crate::helpers::{Backend, TestApp, TestClub, event, ranks, spawn_app_with};
use crate::on_both_backends;

/// A 7-card round collection from `(card, copies)`.
fn hand(cards: &[(&str, usize)]) -> Value {
    let list: Vec<Value> = cards
        .iter()
        .flat_map(|(card, n)| std::iter::repeat_n(json!(card), *n))
        .collect();
    assert_eq!(
        list.len(),
        7,
        "2 players collect 7 cards a round: {cards:?}"
    );
    Value::Array(list)
}

const BC: &str = "be-careful";
const AK: &str = "animal-kingdom";
const AUT: &str = "autographed";
const FW: &str = "fine-wine";
const LE: &str = "legacy-edition";
const LP: &str = "lost-pieces";
const MEM: &str = "memories";
const HR: &str = "heavy-rotation";
const SMU: &str = "sleeve-me-up";

/// Three rounds of `(first seat's hand, second seat's hand)`.
pub(crate) type Rounds = [(Value, Value); 3];

/// G1 (and X3). Fillers deal nothing: Memories ×3 or ×4 → 0 (`memories_over_three` free),
/// Heavy Rotation ×4 → 0, Sleeve Me Up! protecting nothing → 0.
/// R1: BC 1 v 1 → 0 / 0. First: Fine Wine 2 → 2. Second: Legacy Edition 4 → 4.
/// R2: BC 2 v 1 → 0 / 3. First: 0. Second: Fine Wine 2 → 3 + 2 = 5.
/// R3: BC 1 v 1 → 0 / 0. First: Legacy Edition 4 → 4. Second: Autographed pair 5 → 5.
/// Totals: first 2 + 0 + 4 = 6, second 4 + 5 + 5 = 14.
/// Damage by kind: first fine-wine 2, legacy-edition 4; second legacy-edition 4,
/// be-careful 3, fine-wine 2, autographed 5. Without Be Careful! 6 v 11: same winner.
pub(crate) fn g1_rounds() -> Rounds {
    [
        (
            hand(&[(BC, 1), (FW, 1), (MEM, 4), (SMU, 1)]),
            hand(&[(BC, 1), (LE, 1), (HR, 4), (SMU, 1)]),
        ),
        (
            hand(&[(BC, 2), (MEM, 3), (SMU, 2)]),
            hand(&[(BC, 1), (FW, 1), (HR, 4), (SMU, 1)]),
        ),
        (
            hand(&[(BC, 1), (LE, 1), (MEM, 4), (SMU, 1)]),
            hand(&[(BC, 1), (AUT, 2), (HR, 4)]),
        ),
    ]
}

/// G2. R1: BC tie → 0; both Animal Kingdom ×3 → 6. R2: BC 2 v 2 → 0, nothing else.
/// R3: BC tie → 0; first Legacy Edition 4, second Fine Wine ×2 → 4.
/// Totals 6 + 0 + 4 = 10 each; Be Careful! cards 1 + 2 + 1 = 4 each → a shared win.
/// Damage by kind: first animal-kingdom 6, legacy-edition 4; second animal-kingdom 6, fine-wine 4.
pub(crate) fn g2_rounds() -> Rounds {
    [
        (
            hand(&[(BC, 1), (AK, 3), (MEM, 3)]),
            hand(&[(BC, 1), (AK, 3), (SMU, 3)]),
        ),
        (
            hand(&[(BC, 2), (MEM, 3), (SMU, 2)]),
            hand(&[(BC, 2), (HR, 4), (SMU, 1)]),
        ),
        (
            hand(&[(BC, 1), (LE, 1), (MEM, 3), (SMU, 2)]),
            hand(&[(BC, 1), (FW, 2), (HR, 4)]),
        ),
    ]
}

/// G3. R1: BC 0 v 2 → 5 / 0; second Fine Wine 2 → 5 / 2.
/// R2: BC 1 v 2 → 3 / 0; second Fine Wine 2 → 3 / 2.
/// R3: BC 1 v 1 → 0 / 0; first Fine Wine 2, second Autographed pair 5 → 2 / 5.
/// Totals: first 5 + 3 + 2 = 10, second 2 + 2 + 5 = 9 → second wins.
/// Without Be Careful! first 10 − 8 = 2, second 9 → first would win: Be Careful! decided it.
/// Damage by kind: first be-careful 8, fine-wine 2; second fine-wine 4, autographed 5.
pub(crate) fn g3_rounds() -> Rounds {
    [
        (
            hand(&[(MEM, 4), (SMU, 3)]),
            hand(&[(BC, 2), (FW, 1), (HR, 4)]),
        ),
        (
            hand(&[(BC, 1), (MEM, 3), (SMU, 3)]),
            hand(&[(BC, 2), (FW, 1), (HR, 4)]),
        ),
        (
            hand(&[(BC, 1), (FW, 1), (MEM, 4), (SMU, 1)]),
            hand(&[(BC, 1), (AUT, 2), (HR, 4)]),
        ),
    ]
}

/// G4 (and X1, X2). BC 1 v 1 every round → 0.
/// R1: second Lost Pieces 3. R2: first Fine Wine 2. R3: second Legacy Edition 4.
/// Totals: first 2, second 3 + 4 = 7 → first wins.
/// Damage by kind: first fine-wine 2; second lost-pieces 3, legacy-edition 4.
pub(crate) fn g4_rounds() -> Rounds {
    [
        (
            hand(&[(BC, 1), (MEM, 3), (SMU, 3)]),
            hand(&[(BC, 1), (LP, 1), (HR, 4), (SMU, 1)]),
        ),
        (
            hand(&[(BC, 1), (FW, 1), (MEM, 4), (SMU, 1)]),
            hand(&[(BC, 1), (HR, 4), (SMU, 2)]),
        ),
        (
            hand(&[(BC, 1), (MEM, 3), (SMU, 3)]),
            hand(&[(BC, 1), (LE, 1), (HR, 4), (SMU, 1)]),
        ),
    ]
}

/// G6. BC 1 v 1 every round → 0.
/// R1: second Animal Kingdom ×3 → 6. R2: first Autographed pair → 5. R3: second Fine Wine → 2.
/// Totals: first 5, second 6 + 2 = 8 → first wins.
/// Damage by kind: first autographed 5; second animal-kingdom 6, fine-wine 2.
pub(crate) fn g6_rounds() -> Rounds {
    [
        (
            hand(&[(BC, 1), (MEM, 3), (SMU, 3)]),
            hand(&[(BC, 1), (AK, 3), (SMU, 3)]),
        ),
        (
            hand(&[(BC, 1), (AUT, 2), (MEM, 4)]),
            hand(&[(BC, 1), (HR, 4), (SMU, 2)]),
        ),
        (
            hand(&[(BC, 1), (MEM, 3), (SMU, 3)]),
            hand(&[(BC, 1), (FW, 1), (HR, 4), (SMU, 1)]),
        ),
    ]
}

/// Abandons a game at `version` (the cat sat on the cards).
pub(crate) async fn abandon(app: &TestApp, club: &TestClub, game: &str, version: i64) {
    let reply = app
        .append(
            club,
            game,
            Some(version),
            vec![event(
                "abandon",
                json!({"reason": "the cat sat on the cards"}),
            )],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
}

pub(crate) fn at(date: &str) -> String {
    format!("{date}T19:00:00Z")
}

/// Creates a 2-player Mint Condition game and records `rounds` of `rounds_spec`, one request
/// each with `expected_version`. Returns the game id.
pub(crate) async fn mint_condition(
    app: &TestApp,
    club: &TestClub,
    date: &str,
    players: (&str, &str),
    rounds_spec: Rounds,
    rounds: usize,
) -> String {
    let options = json!({});
    mint_condition_with(app, club, date, players, &options, rounds_spec, rounds).await
}

/// [`mint_condition`] with these options.
async fn mint_condition_with(
    app: &TestApp,
    club: &TestClub,
    date: &str,
    players: (&str, &str),
    options: &Value,
    rounds_spec: Rounds,
    rounds: usize,
) -> String {
    let game = app
        .new_game(
            club,
            json!({"game": "mint-condition", "players": [{"name": players.0}, {"name": players.1}],
                   "options": options, "started_at": at(date)}),
        )
        .await;
    for (i, (first, second)) in rounds_spec.into_iter().take(rounds).enumerate() {
        let mut collections = serde_json::Map::new();
        collections.insert(players.0.to_owned(), first);
        collections.insert(players.1.to_owned(), second);
        let reply = app
            .append(
                club,
                &game,
                Some(i as i64 + 1),
                vec![event(
                    "round_collected",
                    json!({"round": i + 1, "collections": collections}),
                )],
            )
            .await;
        assert_eq!(reply.status, 201, "{date} round {}: {}", i + 1, reply.body);
    }
    game
}

fn bet(round: u32, player: &str, horse: &str, replaces: Option<&str>) -> Value {
    event(
        "bet_placed",
        json!({"round": round, "player": player, "horse": horse, "replaces": replaces}),
    )
}

fn race(round: u32, order: [&str; 5]) -> Value {
    event("race_recorded", json!({"round": round, "order": order}))
}

/// G5: a 2-player Mint Julep game recorded by finishes only (two active bets each, each bet
/// scored on its own). Final order MS, YGM, AJ, NA, WP.
/// Ann: YGM (round 1) 2nd 2 + 2 = 4, AJ (round 1) 3rd 0 + 1 = 1 → 5.
/// Bo: YGM (round 1) 2nd 2 + 2 = 4, MS (round 2, replaces WP) 1st 1 + 3 − 1 = 3 → 7. Bo wins.
async fn mint_julep(app: &TestApp, club: &TestClub) -> String {
    let game = app
        .new_game(
            club,
            json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}],
                   "started_at": at("2026-05-02")}),
        )
        .await;
    let order = [
        "maple-splendor",
        "you-got-me",
        "alaskan-justice",
        "newtons-apple",
        "whiskey-princess",
    ];
    let events = vec![
        bet(1, "Ann", "you-got-me", None),
        bet(1, "Ann", "alaskan-justice", None),
        bet(1, "Bo", "you-got-me", None),
        bet(1, "Bo", "whiskey-princess", None),
        race(
            1,
            [
                "you-got-me",
                "whiskey-princess",
                "newtons-apple",
                "alaskan-justice",
                "maple-splendor",
            ],
        ),
        event("round_ended", json!({"round": 1})),
        bet(2, "Bo", "maple-splendor", Some("whiskey-princess")),
        race(2, order),
        event("round_ended", json!({"round": 2})),
        // Round 3's finish ends the game: no round_ended after it.
        race(3, order),
    ];
    let reply = app.append(club, &game, Some(1), events).await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    game
}

pub(crate) struct History {
    pub(crate) club: TestClub,
    other_club: TestClub,
    /// A player of the other club.
    stranger: String,
    pub(crate) ann: String,
    pub(crate) bo: String,
    pub(crate) cy: String,
    di: String,
    pub(crate) g: [String; 6],
    pub(crate) x: [String; 3],
}

pub(crate) async fn seat_ids(app: &TestApp, club: &TestClub, game: &str) -> Vec<(String, String)> {
    let reply = app
        .get(&format!("/v1/games/{game}"), Some(&club.token))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.body["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_owned(),
                p["player_id"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

async fn status(app: &TestApp, club: &TestClub, game: &str) -> Value {
    app.get(&format!("/v1/games/{game}"), Some(&club.token))
        .await
        .body["status"]
        .clone()
}

/// Records the history of the module comment, plus another club with an "Ann" and a "Bob".
pub(crate) async fn seed(app: &TestApp) -> History {
    let club = app.new_club().await;
    let g1 = mint_condition(app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 3).await;
    let g2 = mint_condition(app, &club, "2026-02-14", ("Ann", "Bo"), g2_rounds(), 3).await;
    let g3 = mint_condition(app, &club, "2026-03-07", ("Ann", "Cy"), g3_rounds(), 3).await;
    let g4 = mint_condition(app, &club, "2026-04-04", ("Bo", "Cy"), g4_rounds(), 3).await;
    let g5 = mint_julep(app, &club).await;
    let g6 = mint_condition(app, &club, "2026-06-06", ("Ann", "Cy"), g6_rounds(), 3).await;
    // X1: finished, then abandoned.
    let x1 = mint_condition(app, &club, "2026-06-20", ("Bo", "Cy"), g4_rounds(), 3).await;
    abandon(app, &club, &x1, 4).await;
    // X2: two rounds only.
    let x2 = mint_condition(app, &club, "2026-07-04", ("Cy", "Di"), g4_rounds(), 2).await;
    // X3: finished, then its last round (seq 4) retracted.
    let x3 = mint_condition(app, &club, "2026-07-18", ("Ann", "Di"), g1_rounds(), 3).await;
    assert_eq!(status(app, &club, &x3).await, "finished");
    let reply = app
        .append(
            &club,
            &x3,
            Some(4),
            vec![event("retract", json!({"seq": 4, "reason": "wrong table"}))],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);

    for (game, expected) in [
        (&g1, "finished"),
        (&g5, "finished"),
        (&x1, "abandoned"),
        (&x2, "in_progress"),
        (&x3, "in_progress"),
    ] {
        assert_eq!(status(app, &club, game).await, expected, "{game}");
    }

    let other_club = app.new_club().await;
    let other = app
        .new_game(
            &other_club,
            json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bob"}],
                   "started_at": at("2026-03-01")}),
        )
        .await;
    let stranger = seat_ids(app, &other_club, &other).await[1].1.clone();

    let id = |seats: &[(String, String)], name: &str| {
        seats
            .iter()
            .find(|s| s.0 == name)
            .expect("seated")
            .1
            .clone()
    };
    let seats = seat_ids(app, &club, &g1).await;
    let (ann, bo) = (id(&seats, "Ann"), id(&seats, "Bo"));
    let cy = id(&seat_ids(app, &club, &g3).await, "Cy");
    let di = id(&seat_ids(app, &club, &x2).await, "Di");
    History {
        club,
        other_club,
        stranger,
        ann,
        bo,
        cy,
        di,
        g: [g1, g2, g3, g4, g5, g6],
        x: [x1, x2, x3],
    }
}

/// The body of the club's `GET path`, which must answer 200.
async fn get_ok(app: &TestApp, club: &TestClub, path: &str) -> Value {
    let reply = app.get(path, Some(&club.token)).await;
    assert_eq!(reply.status, 200, "{path}: {}", reply.body);
    reply.body
}

impl History {
    async fn get(&self, app: &TestApp, path: &str) -> Value {
        get_ok(app, &self.club, path).await
    }
}

fn names(list: &Value, field: &str) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|p| p[field].as_str().unwrap().to_owned())
        .collect()
}

on_both_backends!(
    the_player_list_is_by_name_searchable_and_paginated,
    a_search_takes_percent_underscore_and_backslash_as_themselves,
    a_players_stats_count_shared_wins_streaks_and_scores_per_game,
    player_stats_can_be_narrowed_to_one_game_and_a_period,
    the_leaderboard_sorts_by_win_rate_wins_or_average_score_and_honours_min_games,
    head_to_head_counts_who_finished_ahead_per_game,
    mint_condition_game_stats_give_records_damage_per_card_kind_and_be_careful_decisions,
    mint_julep_game_stats_give_win_rates_per_horse_and_the_cost_of_late_bets,
    a_players_games_are_listed_newest_first_with_their_result,
    another_clubs_player_is_not_found,
    bad_query_values_are_answered_400,
    a_game_counts_once_finished_and_stops_counting_when_retracted_or_abandoned,
    a_correction_to_a_finished_game_replaces_its_result_everywhere,
    tables_starting_and_finishing_at_once_with_the_same_players_all_count,
    a_rebuild_from_the_log_gives_identical_answers,
    heavily_used_games_are_counted_under_their_own_variant_where_the_highest_total_is_best,
    mind_up_and_vintage_games_beside_both_scorings_of_mint_condition_count_highest_best,
    a_players_game_list_names_the_variant_each_game_plays,
    a_variant_is_checked_against_the_game,
    statistics_and_history_lists_say_where_they_were_read_and_the_lobby_position_they_saw,
    games_finished_out_of_play_order_are_added_in_one_batch_at_the_next_read,
    a_finish_corrected_before_it_was_added_counts_once_with_its_new_result,
    a_merge_adds_the_finishes_noted_before_it_once,
    finished_games_are_added_in_the_background_without_a_read,
    a_finish_decided_on_a_game_another_server_moved_on_is_written_once_after_its_events,
);

async fn the_player_list_is_by_name_searchable_and_paginated(app: TestApp) {
    let h = seed(&app).await;

    let all = h.get(&app, "/v1/players").await;
    let search = h.get(&app, "/v1/players?search=BO").await;
    let page_1 = h.get(&app, "/v1/players?limit=3").await;
    let cursor = page_1["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_owned();
    let page_2 = h
        .get(&app, &format!("/v1/players?limit=3&cursor={cursor}"))
        .await;
    let one = h.get(&app, &format!("/v1/players/{}", h.ann)).await;

    // Finished games only: Ann G1 G2 G3 G5 G6 = 5 (not X3), Bo G1 G2 G4 G5 = 4 (not X1),
    // Cy G3 G4 G6 = 3 (not X1, X2), Di none (X2 unfinished, X3 retracted).
    assert_eq!(
        all,
        json!({"players": [
            {"id": h.ann, "name": "Ann", "games_played": 5, "last_played": at("2026-06-06")},
            {"id": h.bo, "name": "Bo", "games_played": 4, "last_played": at("2026-05-02")},
            {"id": h.cy, "name": "Cy", "games_played": 3, "last_played": at("2026-06-06")},
            {"id": h.di, "name": "Di", "games_played": 0, "last_played": null},
        ], "next_cursor": null})
    );
    // Ignoring case, and not the other club's "Bob".
    assert_eq!(names(&search["players"], "name"), vec!["Bo"]);
    assert_eq!(names(&page_1["players"], "name"), vec!["Ann", "Bo", "Cy"]);
    assert_eq!(names(&page_2["players"], "name"), vec!["Di"]);
    assert_eq!(page_2["next_cursor"], Value::Null);
    assert_eq!(one, all["players"][0]);
}

async fn a_search_takes_percent_underscore_and_backslash_as_themselves(app: TestApp) {
    let club = app.new_club().await;
    for pair in [["A_b", "50%"], ["Back\\slash", "Ann"]] {
        app.new_game(
            &club,
            json!({"game": "mint-julep", "players": [{"name": pair[0]}, {"name": pair[1]}]}),
        )
        .await;
    }
    let found = async |search: &str| {
        let reply = app
            .client
            .get(app.url("/v1/players"))
            .query(&[("search", search)])
            .bearer_auth(&club.token)
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), 200, "{search}");
        let body: Value = reply.json().await.unwrap();
        names(&body["players"], "name")
    };

    assert_eq!(found("%").await, vec!["50%"]);
    assert_eq!(found("_").await, vec!["A_b"]);
    assert_eq!(found("a_B").await, vec!["A_b"]);
    assert_eq!(found("\\").await, vec!["Back\\slash"]);
    // As names match: trimmed, any case.
    assert_eq!(found(" ANN ").await, vec!["Ann"]);
}

async fn a_players_stats_count_shared_wins_streaks_and_scores_per_game(app: TestApp) {
    let h = seed(&app).await;

    let ann = h.get(&app, &format!("/v1/players/{}/stats", h.ann)).await;
    let bo = h.get(&app, &format!("/v1/players/{}/stats", h.bo)).await;
    let cy = h.get(&app, &format!("/v1/players/{}/stats", h.cy)).await;
    let di = h.get(&app, &format!("/v1/players/{}/stats", h.di)).await;

    // Ann: G1 W (6, rank 1), G2 shared W (10, 1), G3 L (10, 2), G5 L (Mint Julep 5, 2),
    // G6 W (5, 1). Wins 3/5 = 0.6; ranks (1+1+2+2+1)/5 = 1.4; W W L L W → longest 2, current 1.
    // Mint Condition: 4 played, 3 wins = 0.75, (6+10+10+5)/4 = 7.75, best (lowest) 5, worst 10,
    // rank (1+1+2+1)/4 = 1.25. Mint Julep: 1 played, 0 wins, 5, rank 2.
    assert_eq!(
        ann,
        json!({
            "player_id": h.ann, "name": "Ann", "games_played": 5, "wins": 3, "win_rate": 0.6,
            "average_rank": 1.4, "current_win_streak": 1, "longest_win_streak": 2,
            "last_played": at("2026-06-06"), "favourite_game": "mint-condition",
            "per_game": [
                {"game": "mint-condition", "games_played": 4, "wins": 3, "win_rate": 0.75,
                 "average_score": 7.75, "best_score": 5, "worst_score": 10, "average_rank": 1.25},
                {"game": "mint-julep", "games_played": 1, "wins": 0, "win_rate": 0.0,
                 "average_score": 5.0, "best_score": 5, "worst_score": 5, "average_rank": 2.0},
            ]
        })
    );
    // Bo: G1 L (14, 2), G2 shared W (10, 1), G4 W (2, 1), G5 W (Mint Julep 7, 1).
    // 3/4 = 0.75; ranks 5/4 = 1.25; L W W W → longest 3, current 3 (X1 abandoned: no 4th).
    // Mint Condition: 2/3 = 0.667, 26/3 = 8.667, best 2, worst 14, ranks 4/3 = 1.333.
    assert_eq!(
        bo,
        json!({
            "player_id": h.bo, "name": "Bo", "games_played": 4, "wins": 3, "win_rate": 0.75,
            "average_rank": 1.25, "current_win_streak": 3, "longest_win_streak": 3,
            "last_played": at("2026-05-02"), "favourite_game": "mint-condition",
            "per_game": [
                {"game": "mint-condition", "games_played": 3, "wins": 2, "win_rate": 0.667,
                 "average_score": 8.667, "best_score": 2, "worst_score": 14, "average_rank": 1.333},
                {"game": "mint-julep", "games_played": 1, "wins": 1, "win_rate": 1.0,
                 "average_score": 7.0, "best_score": 7, "worst_score": 7, "average_rank": 1.0},
            ]
        })
    );
    // Cy: G3 W (9, 1), G4 L (7, 2), G6 L (8, 2). 1/3 = 0.333; ranks 5/3 = 1.667;
    // W L L → longest 1, current 0; (9+7+8)/3 = 8.0, best 7, worst 9.
    assert_eq!(
        cy,
        json!({
            "player_id": h.cy, "name": "Cy", "games_played": 3, "wins": 1, "win_rate": 0.333,
            "average_rank": 1.667, "current_win_streak": 0, "longest_win_streak": 1,
            "last_played": at("2026-06-06"), "favourite_game": "mint-condition",
            "per_game": [
                {"game": "mint-condition", "games_played": 3, "wins": 1, "win_rate": 0.333,
                 "average_score": 8.0, "best_score": 7, "worst_score": 9, "average_rank": 1.667},
            ]
        })
    );
    // Di sat at an unfinished game and at one whose last round was retracted: nothing counts.
    assert_eq!(
        di,
        json!({
            "player_id": h.di, "name": "Di", "games_played": 0, "wins": 0, "win_rate": 0.0,
            "average_rank": 0.0, "current_win_streak": 0, "longest_win_streak": 0,
            "last_played": null, "favourite_game": null, "per_game": []
        })
    );
}

async fn player_stats_can_be_narrowed_to_one_game_and_a_period(app: TestApp) {
    let h = seed(&app).await;

    let julep = h
        .get(
            &app,
            &format!("/v1/players/{}/stats?game=mint-julep", h.ann),
        )
        .await;
    // `from` is inclusive, `to` exclusive: G2 (02-14), G3, G5; not G6 (06-06).
    let period = h
        .get(
            &app,
            &format!(
                "/v1/players/{}/stats?from={}&to={}",
                h.ann,
                at("2026-02-14"),
                at("2026-06-06")
            ),
        )
        .await;
    let both = h
        .get(
            &app,
            &format!(
                "/v1/players/{}/stats?game=mint-condition&from=2026-03-01T00:00:00Z",
                h.bo
            ),
        )
        .await;

    // Ann at Mint Julep: G5 only, lost.
    assert_eq!(
        (
            &julep["games_played"],
            &julep["wins"],
            &julep["win_rate"],
            &julep["current_win_streak"],
            &julep["favourite_game"],
            &julep["last_played"]
        ),
        (
            &json!(1),
            &json!(0),
            &json!(0.0),
            &json!(0),
            &json!("mint-julep"),
            &json!(at("2026-05-02"))
        )
    );
    assert_eq!(julep["per_game"].as_array().unwrap().len(), 1);
    // Ann G2 W (10, 1), G3 L (10, 2), G5 L (5, 2): 1/3 = 0.333, ranks 5/3 = 1.667,
    // W L L → longest 1, current 0. Mint Condition 2 played, (10+10)/2 = 10.0.
    assert_eq!(
        (
            &period["games_played"],
            &period["wins"],
            &period["win_rate"],
            &period["average_rank"],
            &period["longest_win_streak"],
            &period["current_win_streak"],
            &period["last_played"]
        ),
        (
            &json!(3),
            &json!(1),
            &json!(0.333),
            &json!(1.667),
            &json!(1),
            &json!(0),
            &json!(at("2026-05-02"))
        )
    );
    assert_eq!(
        period["per_game"][0],
        json!({"game": "mint-condition", "games_played": 2, "wins": 1, "win_rate": 0.5,
               "average_score": 10.0, "best_score": 10, "worst_score": 10, "average_rank": 1.5})
    );
    // Bo at Mint Condition from March: G4 only (won with 2).
    assert_eq!(
        both["per_game"],
        json!([{"game": "mint-condition", "games_played": 1, "wins": 1, "win_rate": 1.0,
                "average_score": 2.0, "best_score": 2, "worst_score": 2, "average_rank": 1.0}])
    );
    assert_eq!(both["current_win_streak"], 1);
}

async fn the_leaderboard_sorts_by_win_rate_wins_or_average_score_and_honours_min_games(
    app: TestApp,
) {
    let h = seed(&app).await;

    let by_rate = h.get(&app, "/v1/stats/leaderboard").await;
    let by_wins = h.get(&app, "/v1/stats/leaderboard?sort=wins").await;
    let four = h.get(&app, "/v1/stats/leaderboard?min_games=4").await;
    let five = h
        .get(&app, "/v1/stats/leaderboard?min_games=5&sort=wins")
        .await;
    let damage = h
        .get(
            &app,
            "/v1/stats/leaderboard?game=mint-condition&sort=average_score",
        )
        .await;
    let mc_rate = h
        .get(&app, "/v1/stats/leaderboard?game=mint-condition")
        .await;
    let julep = h
        .get(
            &app,
            "/v1/stats/leaderboard?game=mint-julep&sort=average_score",
        )
        .await;
    let spring = h
        .get(
            &app,
            "/v1/stats/leaderboard?from=2026-03-01T00:00:00Z&to=2026-06-01T00:00:00Z",
        )
        .await;

    // Win rate: Bo 3/4 = 0.75, Ann 3/5 = 0.6, Cy 1/3 = 0.333; Di (no finished game) is left out.
    assert_eq!(by_rate["sort"], "win_rate");
    assert_eq!(by_rate["min_games"], 1);
    assert_eq!(by_rate["game"], Value::Null);
    assert_eq!(ranks(&by_rate), vec![("Bo", 1), ("Ann", 2), ("Cy", 3)]);
    // Ann: ranks 7/5 = 1.4. No average score over every game: it would add Mint Condition's
    // damage (lowest wins) to Mint Julep's points (highest wins).
    assert_eq!(
        by_rate["players"][1],
        json!({"rank": 2, "player_id": h.ann, "name": "Ann", "games_played": 5, "wins": 3,
               "win_rate": 0.6, "average_score": null, "average_rank": 1.4})
    );
    // Wins: Ann 3 and Bo 3 share rank 1 (Ann listed first: more games), Cy 1 → rank 3.
    assert_eq!(ranks(&by_wins), vec![("Ann", 1), ("Bo", 1), ("Cy", 3)]);
    assert_eq!(ranks(&four), vec![("Bo", 1), ("Ann", 2)]);
    assert_eq!(ranks(&five), vec![("Ann", 1)]);
    // Mint Condition damage, lowest first: Ann 31/4 = 7.75, Cy 24/3 = 8.0, Bo 26/3 = 8.667.
    assert_eq!(ranks(&damage), vec![("Ann", 1), ("Cy", 2), ("Bo", 3)]);
    let averages: Vec<&Value> = damage["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["average_score"])
        .collect();
    assert_eq!(averages, vec![&json!(7.75), &json!(8.0), &json!(8.667)]);
    assert_eq!(damage["game"], "mint-condition");
    // Mint Condition win rate: Ann 3/4 = 0.75, Bo 2/3 = 0.667, Cy 1/3 = 0.333.
    assert_eq!(ranks(&mc_rate), vec![("Ann", 1), ("Bo", 2), ("Cy", 3)]);
    // Mint Julep points, highest first: Bo 7, Ann 5.
    assert_eq!(ranks(&julep), vec![("Bo", 1), ("Ann", 2)]);
    // March to May: G3 (Cy beat Ann), G4 (Bo beat Cy), G5 (Bo beat Ann):
    // Bo 2/2 = 1.0, Cy 1/2 = 0.5, Ann 0/2 = 0.0.
    assert_eq!(ranks(&spring), vec![("Bo", 1), ("Cy", 2), ("Ann", 3)]);
    assert_eq!(spring["players"][2]["win_rate"], json!(0.0));
}

async fn head_to_head_counts_who_finished_ahead_per_game(app: TestApp) {
    let h = seed(&app).await;

    let ann_bo = h
        .get(
            &app,
            &format!("/v1/stats/head-to-head?players={},{}", h.ann, h.bo),
        )
        .await;
    let bo_ann_mc = h
        .get(
            &app,
            &format!(
                "/v1/stats/head-to-head?players={},{}&game=mint-condition",
                h.bo, h.ann
            ),
        )
        .await;
    let ann_di = h
        .get(
            &app,
            &format!("/v1/stats/head-to-head?players={},{}", h.ann, h.di),
        )
        .await;

    // G1 Ann ahead, G2 tied (shared win), G5 Bo ahead.
    assert_eq!(
        ann_bo,
        json!({
            "players": [
                {"id": h.ann, "name": "Ann", "games_played": 5, "last_played": at("2026-06-06")},
                {"id": h.bo, "name": "Bo", "games_played": 4, "last_played": at("2026-05-02")},
            ],
            "games_together": 3, "first_ahead": 1, "second_ahead": 1, "tied": 1,
            "per_game": [
                {"game": "mint-condition", "games_together": 2, "first_ahead": 1, "second_ahead": 0, "tied": 1},
                {"game": "mint-julep", "games_together": 1, "first_ahead": 0, "second_ahead": 1, "tied": 0},
            ]
        })
    );
    // Bo first now: G1 Ann ahead → second_ahead.
    assert_eq!(
        (
            &bo_ann_mc["games_together"],
            &bo_ann_mc["first_ahead"],
            &bo_ann_mc["second_ahead"],
            &bo_ann_mc["tied"]
        ),
        (&json!(2), &json!(0), &json!(1), &json!(1))
    );
    // Their only game together (X3) lost its last round.
    assert_eq!(ann_di["games_together"], 0);
    assert_eq!(ann_di["per_game"], json!([]));
}

async fn mint_condition_game_stats_give_records_damage_per_card_kind_and_be_careful_decisions(
    app: TestApp,
) {
    let h = seed(&app).await;

    let all = h.get(&app, "/v1/stats/games/mint-condition").await;
    let late = h
        .get(
            &app,
            "/v1/stats/games/mint-condition?from=2026-03-01T00:00:00Z",
        )
        .await;

    // Plays G1 G2 G3 G4 G6 = 5, 10 results; totals 20 + 20 + 19 + 9 + 13 = 81 → 8.1.
    // Lowest damage Bo's 2 (G4), highest Bo's 14 (G1).
    // Damage per kind over the 10 results:
    //   be-careful G1 Bo 3 + G3 Ann 8 = 11 → 1.1
    //   fine-wine G1 2 + 2, G2 4, G3 2 + 4, G4 2, G6 2 = 18 → 1.8
    //   legacy-edition G1 4 + 4, G2 4, G4 4 = 16 → 1.6
    //   autographed G1 5, G3 5, G6 5 = 15 → 1.5
    //   animal-kingdom G2 6 + 6, G6 6 = 18 → 1.8
    //   lost-pieces G4 3 → 0.3            (11 + 18 + 16 + 15 + 18 + 3 = 81 ✓)
    // Be Careful! decided G3 only: 1 of 5 = 0.2. No tie-break decided a game (G2 was shared).
    assert_eq!(
        all,
        json!({
            "game": "mint-condition", "plays": 5, "average_score": 8.1, "lower_is_better": true,
            "record_best": {"total": 2, "player": "Bo", "game_id": h.g[3]},
            "record_worst": {"total": 14, "player": "Bo", "game_id": h.g[0]},
            "insights": {
                "average_damage_per_card_kind": {
                    "animal-kingdom": 1.8, "autographed": 1.5, "be-careful": 1.1,
                    "fine-wine": 1.8, "legacy-edition": 1.6, "lost-pieces": 0.3
                },
                "be_careful_decided": {"games": 1, "share": 0.2,
                    "meaning": "games whose winners would differ without any Be Careful! damage"},
                "tiebreak_decided": {"games": 0, "share": 0.0}
            }
        })
    );
    // From March: G3, G4, G6 → 6 results, 19 + 9 + 13 = 41 → 6.833; worst Ann's 10 (G3).
    // Be Careful! 8 / 6 = 1.333; decided 1 of 3 = 0.333.
    assert_eq!(late["plays"], 3);
    assert_eq!(late["average_score"], json!(6.833));
    assert_eq!(
        late["record_worst"],
        json!({"total": 10, "player": "Ann", "game_id": h.g[2]})
    );
    assert_eq!(
        late["insights"]["average_damage_per_card_kind"]["be-careful"],
        json!(1.333)
    );
    assert_eq!(
        late["insights"]["be_careful_decided"]["share"],
        json!(0.333)
    );
}

async fn mint_julep_game_stats_give_win_rates_per_horse_and_the_cost_of_late_bets(app: TestApp) {
    let h = seed(&app).await;

    let julep = h.get(&app, "/v1/stats/games/mint-julep").await;
    let vintage = h.get(&app, "/v1/stats/games/vintage").await;

    // G5: Ann 5, Bo 7 → 12 / 2 = 6.0; highest is best.
    // Active bets: Ann YGM 4, AJ 1 (lost); Bo YGM 4, MS 3 − late 1 (won). Race won by MS.
    // YGM: 2 bets, 1 bettor won → 0.5, (4 + 4) / 2 = 4.0. AJ: 1 bet, 0 won, 1.0.
    // MS: 1 bet, 1 won, 3.0, 1 race won. Late bets: Bo's MS (round 2), penalty 1.
    assert_eq!(
        julep,
        json!({
            "game": "mint-julep", "plays": 1, "average_score": 6.0, "lower_is_better": false,
            "record_best": {"total": 7, "player": "Bo", "game_id": h.g[4]},
            "record_worst": {"total": 5, "player": "Ann", "game_id": h.g[4]},
            "insights": {
                "horses": {
                    "alaskan-justice": {"bets": 1, "bettor_won": 0, "win_rate": 0.0, "average_points": 1.0, "races_won": 0},
                    "maple-splendor": {"bets": 1, "bettor_won": 1, "win_rate": 1.0, "average_points": 3.0, "races_won": 1},
                    "you-got-me": {"bets": 2, "bettor_won": 1, "win_rate": 0.5, "average_points": 4.0, "races_won": 0}
                },
                "late_bets": {"bets": 1, "total_penalty": 1, "average_penalty": 1.0}
            }
        })
    );
    // A game nobody finished: no plays, no records, no average (0 would read as a score).
    assert_eq!(
        (
            &vintage["plays"],
            &vintage["record_best"],
            &vintage["average_score"]
        ),
        (&json!(0), &Value::Null, &Value::Null)
    );
}

async fn a_players_games_are_listed_newest_first_with_their_result(app: TestApp) {
    let h = seed(&app).await;

    let ann = h.get(&app, &format!("/v1/players/{}/games", h.ann)).await;
    let page_1 = h
        .get(&app, &format!("/v1/players/{}/games?limit=4", h.bo))
        .await;
    let cursor = page_1["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_owned();
    let page_2 = h
        .get(
            &app,
            &format!("/v1/players/{}/games?limit=4&cursor={cursor}", h.bo),
        )
        .await;

    let rows = |page: &Value| -> Vec<Value> {
        page["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                json!([
                    g["game_id"],
                    g["game"],
                    g["status"],
                    g["started_at"],
                    g["seat"],
                    g["total"],
                    g["rank"],
                    g["won"]
                ])
            })
            .collect()
    };
    let [g1, g2, g3, g4, g5, g6] = &h.g;
    let [x1, _, x3] = &h.x;
    // X3 is unfinished again (no result); G2 was a shared win.
    assert_eq!(
        rows(&ann),
        vec![
            json!([
                x3,
                "mint-condition",
                "in_progress",
                at("2026-07-18"),
                1,
                null,
                null,
                null
            ]),
            json!([
                g6,
                "mint-condition",
                "finished",
                at("2026-06-06"),
                1,
                5,
                1,
                true
            ]),
            json!([
                g5,
                "mint-julep",
                "finished",
                at("2026-05-02"),
                1,
                5,
                2,
                false
            ]),
            json!([
                g3,
                "mint-condition",
                "finished",
                at("2026-03-07"),
                1,
                10,
                2,
                false
            ]),
            json!([
                g2,
                "mint-condition",
                "finished",
                at("2026-02-14"),
                1,
                10,
                1,
                true
            ]),
            json!([
                g1,
                "mint-condition",
                "finished",
                at("2026-01-10"),
                1,
                6,
                1,
                true
            ]),
        ]
    );
    assert_eq!(ann["next_cursor"], Value::Null);
    assert_eq!(ann["games"][0]["name"], "Ann");
    // Bo: X1 (abandoned, no result), G5, G4, G2 | G1.
    assert_eq!(
        rows(&page_1),
        vec![
            json!([
                x1,
                "mint-condition",
                "abandoned",
                at("2026-06-20"),
                1,
                null,
                null,
                null
            ]),
            json!([
                g5,
                "mint-julep",
                "finished",
                at("2026-05-02"),
                2,
                7,
                1,
                true
            ]),
            json!([
                g4,
                "mint-condition",
                "finished",
                at("2026-04-04"),
                1,
                2,
                1,
                true
            ]),
            json!([
                g2,
                "mint-condition",
                "finished",
                at("2026-02-14"),
                2,
                10,
                1,
                true
            ]),
        ]
    );
    assert_eq!(
        rows(&page_2),
        vec![json!([
            g1,
            "mint-condition",
            "finished",
            at("2026-01-10"),
            2,
            14,
            2,
            false
        ])]
    );
    assert_eq!(page_2["next_cursor"], Value::Null);
}

async fn another_clubs_player_is_not_found(app: TestApp) {
    let h = seed(&app).await;
    let token = Some(h.club.token.as_str());
    let s = &h.stranger;

    let replies = [
        app.get(&format!("/v1/players/{s}"), token).await,
        app.get(&format!("/v1/players/{s}/stats"), token).await,
        app.get(&format!("/v1/players/{s}/games"), token).await,
        app.get(
            &format!("/v1/stats/head-to-head?players={},{s}", h.ann),
            token,
        )
        .await,
        app.get(&format!("/v1/players/{}", uuid::Uuid::new_v4()), token)
            .await,
    ];
    let own = app
        .get(&format!("/v1/players/{s}"), Some(&h.other_club.token))
        .await;
    let theirs = app.get("/v1/players", Some(&h.other_club.token)).await;

    for reply in &replies {
        reply.problem(404);
    }
    assert_eq!(own.status, 200, "{}", own.body);
    assert_eq!(own.body["name"], "Bob");
    // The other club sees its own two players, with no finished game.
    assert_eq!(names(&theirs.body["players"], "name"), vec!["Ann", "Bob"]);
    assert_eq!(theirs.body["players"][0]["games_played"], 0);
    assert_eq!(app.get("/v1/players", None).await.status, 401);
    // An id that is not even a UUID is a bad request.
    app.get("/v1/players/no-such-player", token)
        .await
        .problem(400);
}

async fn bad_query_values_are_answered_400(app: TestApp) {
    let h = seed(&app).await;
    let token = Some(h.club.token.as_str());
    let (a, b) = (&h.ann, &h.bo);

    let bad = [
        "/v1/players?limit=0".to_owned(),
        "/v1/players?limit=201".to_owned(),
        "/v1/players?cursor=zz".to_owned(),
        "/v1/players?colour=red".to_owned(),
        format!("/v1/players/{a}/stats?game=chess"),
        format!("/v1/players/{a}/stats?from=yesterday"),
        format!("/v1/players/{a}/games?limit=-1"),
        format!("/v1/players/{a}/games?cursor=abc"),
        "/v1/stats/leaderboard?sort=best".to_owned(),
        "/v1/stats/leaderboard?min_games=many".to_owned(),
        "/v1/stats/leaderboard?game=chess".to_owned(),
        "/v1/stats/leaderboard?to=2026-13-01T00:00:00Z".to_owned(),
        format!("/v1/stats/head-to-head?players={a}"),
        format!("/v1/stats/head-to-head?players={a},{a}"),
        format!("/v1/stats/head-to-head?players={a},{b},{a}"),
        "/v1/stats/head-to-head".to_owned(),
        "/v1/stats/games/mint-condition?from=last-week".to_owned(),
    ];

    for path in &bad {
        let reply = app.get(path, token).await;
        assert_eq!(reply.status, 400, "{path}: {}", reply.body);
        // Every one names the query parameter it could not use.
        assert!(
            reply.problem(400)["parameter"].is_string(),
            "{path}: {}",
            reply.body
        );
    }
    // The parameter named, and what it must be, for the ones a handler checks itself.
    for (path, parameter, detail) in [
        (
            "/v1/stats/leaderboard?min_games=-1".to_owned(),
            "min_games",
            "\"min_games\" must be a whole number, 0 or more; got -1".to_owned(),
        ),
        (
            "/v1/stats/leaderboard?variant=heavily-used".to_owned(),
            "variant",
            "variant needs a game: variants belong to one game (e.g. \
             game=mint-condition&variant=heavily-used)"
                .to_owned(),
        ),
        (
            "/v1/stats/head-to-head?players=Ann".to_owned(),
            "players",
            "players must be two players (names or ids) separated by a comma, like players=Ann,Bo"
                .to_owned(),
        ),
        (
            format!("/v1/stats/head-to-head?players=Ann,{a}"),
            "players",
            "players must be two different players; \"Ann\" and \"".to_owned()
                + a
                + "\" are both Ann",
        ),
    ] {
        let reply = app.get(&path, token).await;
        let problem = reply.problem(400);
        assert_eq!(
            (&problem["parameter"], &problem["detail"]),
            (&json!(parameter), &json!(detail)),
            "{path}"
        );
    }
    // An unknown game in the path is a resource that does not exist.
    app.get("/v1/stats/games/chess", token).await.problem(404);
    // An average over all games would mix scoring directions: refused, saying why.
    let mixed = app
        .get("/v1/stats/leaderboard?sort=average_score", token)
        .await;
    assert_eq!(
        mixed.problem(422)["detail"],
        "sort=average_score needs a game (e.g. game=mint-condition): an average over several \
         games would mix their scores, and in Mint Condition the lowest total wins while \
         elsewhere the highest does"
    );
}

/// `(games_played, wins)` of a player.
async fn played_and_won(app: &TestApp, club: &TestClub, player: &str) -> (i64, i64) {
    let reply = app
        .get(&format!("/v1/players/{player}/stats"), Some(&club.token))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    (
        reply.body["games_played"].as_i64().unwrap(),
        reply.body["wins"].as_i64().unwrap(),
    )
}

async fn a_game_counts_once_finished_and_stops_counting_when_retracted_or_abandoned(app: TestApp) {
    // Arrange: G1 (Ann 6, Bo 14) played to its second round.
    let club = app.new_club().await;
    let game = mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 2).await;
    let seats = seat_ids(&app, &club, &game).await;
    let (ann, bo) = (seats[0].1.clone(), seats[1].1.clone());
    let round_3 = || {
        let (first, second) = g1_rounds()[2].clone();
        event(
            "round_collected",
            json!({"round": 3, "collections": {"Ann": first, "Bo": second}}),
        )
    };
    let mut seen = Vec::new();

    // Act: each append changes the statistics in the same request.
    seen.push(played_and_won(&app, &club, &ann).await);
    let reply = app.append(&club, &game, Some(3), vec![round_3()]).await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    seen.push(played_and_won(&app, &club, &ann).await);
    let reply = app
        .append(
            &club,
            &game,
            Some(4),
            vec![event("retract", json!({"seq": 4, "reason": "wrong table"}))],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    seen.push(played_and_won(&app, &club, &ann).await);
    let reply = app.append(&club, &game, Some(5), vec![round_3()]).await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    seen.push(played_and_won(&app, &club, &ann).await);
    let reply = app
        .append(
            &club,
            &game,
            Some(6),
            vec![event("abandon", json!({"reason": "we argued"}))],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    seen.push(played_and_won(&app, &club, &ann).await);
    let bo_abandoned = played_and_won(&app, &club, &bo).await;
    let board_abandoned = app.get("/v1/stats/leaderboard", Some(&club.token)).await;
    let games_abandoned = app
        .get("/v1/stats/games/mint-condition", Some(&club.token))
        .await;
    let reply = app
        .append(
            &club,
            &game,
            Some(7),
            vec![event("retract", json!({"seq": 7, "reason": "we made up"}))],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    seen.push(played_and_won(&app, &club, &ann).await);

    // Assert: unfinished 0; finished (Ann won) 1; round retracted 0; recorded again 1;
    // abandoned 0; abandon retracted 1.
    assert_eq!(seen, vec![(0, 0), (1, 1), (0, 0), (1, 1), (0, 0), (1, 1)]);
    assert_eq!(bo_abandoned, (0, 0));
    assert_eq!(board_abandoned.body["players"], json!([]));
    assert_eq!(games_abandoned.body["plays"], 0);
    assert_eq!(games_abandoned.body["record_best"], Value::Null);
    assert_eq!(played_and_won(&app, &club, &bo).await, (1, 0));
}

/// G1's round 2 (seq 3, the game at version 4) corrected: its two hands recorded the wrong way
/// round. Ann's R2 becomes BC 1 v 2 → 3 + Fine Wine 2 = 5, Bo's 0: totals Ann 11, Bo 9.
async fn swap_g1_round_2(app: &TestApp, club: &TestClub, game: &str) {
    let (first, second) = g1_rounds()[1].clone();
    let corrected = json!({"round": 2, "collections": {"Ann": second, "Bo": first}});
    let reply = app
        .append(
            club,
            game,
            Some(4),
            vec![event("correct", json!({"seq": 3, "data": corrected}))],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
}

async fn a_correction_to_a_finished_game_replaces_its_result_everywhere(app: TestApp) {
    // Arrange: G1 finished (Ann 6, Bo 14: Ann wins).
    let club = app.new_club().await;
    let game = mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 3).await;
    let seats = seat_ids(&app, &club, &game).await;
    let (ann, bo) = (seats[0].1.clone(), seats[1].1.clone());
    let before = (
        played_and_won(&app, &club, &ann).await,
        played_and_won(&app, &club, &bo).await,
    );

    // Act: round 2 (seq 3) corrected: the two hands were recorded the wrong way round.
    swap_g1_round_2(&app, &club, &game).await;
    let leaderboard = app.get("/v1/stats/leaderboard", Some(&club.token)).await;
    let stats = app
        .get("/v1/stats/games/mint-condition", Some(&club.token))
        .await;

    // Assert: R2 swapped: Ann BC 1 v 2 → 3 + Fine Wine 2 = 5, Bo 0. Totals Ann 2 + 5 + 4 = 11,
    // Bo 4 + 0 + 5 = 9: Bo wins. Damage by kind: Ann fine-wine 4, legacy-edition 4,
    // be-careful 3; Bo legacy-edition 4, autographed 5 — over 2 results. Without Be Careful!
    // Ann 8 < Bo 9: Be Careful! decided the game.
    assert_eq!(before, ((1, 1), (1, 0)));
    assert_eq!(played_and_won(&app, &club, &ann).await, (1, 0));
    assert_eq!(played_and_won(&app, &club, &bo).await, (1, 1));
    assert_eq!(ranks(&leaderboard.body), vec![("Bo", 1), ("Ann", 2)]);
    assert_eq!(
        stats.body,
        json!({
            "game": "mint-condition", "plays": 1, "average_score": 10.0, "lower_is_better": true,
            "record_best": {"total": 9, "player": "Bo", "game_id": game},
            "record_worst": {"total": 11, "player": "Ann", "game_id": game},
            "insights": {
                "average_damage_per_card_kind": {
                    "autographed": 2.5, "be-careful": 1.5, "fine-wine": 2.0, "legacy-edition": 4.0
                },
                "be_careful_decided": {"games": 1, "share": 1.0,
                    "meaning": "games whose winners would differ without any Be Careful! damage"},
                "tiebreak_decided": {"games": 0, "share": 0.0}
            }
        })
    );
}

async fn tables_starting_and_finishing_at_once_with_the_same_players_all_count(app: TestApp) {
    // Arrange: eight tables play six G1 games each at the same time, every game two of the same
    // four players, seated in both orders (new names are added by whichever creation comes first).
    let club = app.new_club().await;
    let names = ["Ann", "Bo", "Cy", "Di"];
    let table = async |t: usize| {
        for k in 0..6 {
            let (first, second) = (names[(t + k) % 4], names[(t + 3 * k + 1) % 4]);
            let (first, second) = if first == second {
                (first, names[(t + k + 2) % 4])
            } else {
                (first, second)
            };
            let game = app
                .new_game(
                    &club,
                    json!({"game": "mint-condition", "players": [{"name": first}, {"name": second}]}),
                )
                .await;
            for (round, (a, b)) in g1_rounds().into_iter().enumerate() {
                let data = json!({"round": round + 1, "collections": {first: a, second: b}});
                let reply = app
                    .append(
                        &club,
                        &game,
                        Some(round as i64 + 1),
                        vec![event("round_collected", data)],
                    )
                    .await;
                assert_eq!(
                    reply.status,
                    201,
                    "table {t} game {k} round {}: {}",
                    round + 1,
                    reply.body
                );
            }
        }
    };

    // Act
    join_all((0..8).map(table)).await;

    // Assert: 48 finished games of two players, one winner each (the first seat: 6 v 14).
    let board = app.get("/v1/stats/leaderboard", Some(&club.token)).await;
    let sum = |field: &str| -> i64 {
        board.body["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p[field].as_i64().unwrap())
            .sum()
    };
    assert_eq!(board.body["players"].as_array().unwrap().len(), 4);
    assert_eq!((sum("games_played"), sum("wins")), (96, 48));
}

/// The answer of every statistics endpoint for the seeded club.
async fn every_answer(app: &TestApp, h: &History) -> Vec<(String, Value)> {
    let (a, b, c, d) = (&h.ann, &h.bo, &h.cy, &h.di);
    let mut paths = vec![
        "/v1/players".to_owned(),
        "/v1/players?search=y".to_owned(),
        "/v1/players?limit=2".to_owned(),
        "/v1/stats/leaderboard".to_owned(),
        "/v1/stats/leaderboard?sort=wins".to_owned(),
        "/v1/stats/leaderboard?min_games=4".to_owned(),
        "/v1/stats/leaderboard?game=mint-condition&sort=average_score".to_owned(),
        "/v1/stats/leaderboard?game=mint-julep&sort=average_score".to_owned(),
        "/v1/stats/leaderboard?from=2026-03-01T00:00:00Z&to=2026-06-01T00:00:00Z".to_owned(),
        format!("/v1/stats/head-to-head?players={a},{b}"),
        format!("/v1/stats/head-to-head?players={c},{a}&game=mint-condition"),
        format!("/v1/stats/head-to-head?players={a},{d}"),
        "/v1/stats/games/mint-condition?from=2026-03-01T00:00:00Z".to_owned(),
    ];
    for game in ["mint-condition", "mint-julep", "mind-up", "vintage"] {
        paths.push(format!("/v1/stats/games/{game}"));
    }
    for p in [a, b, c, d] {
        paths.push(format!("/v1/players/{p}"));
        paths.push(format!("/v1/players/{p}/stats"));
        paths.push(format!("/v1/players/{p}/stats?game=mint-condition"));
        paths.push(format!("/v1/players/{p}/stats?from=2026-02-14T19:00:00Z"));
        paths.push(format!("/v1/players/{p}/games"));
    }
    let mut answers = Vec::new();
    for path in paths {
        let body = h.get(app, &path).await;
        answers.push((path, body));
    }
    answers
}

async fn a_rebuild_from_the_log_gives_identical_answers(app: TestApp) {
    // Arrange: the history, answered from the read models written with each append.
    let h = seed(&app).await;
    let before = every_answer(&app, &h).await;
    let store = tabletally_api::store::connect(&app.database_url)
        .await
        .expect("a second connection to the server's database");

    // Act: rebuild from the log; then empty the read models without rebuilding.
    let (replayed, finished) = tabletally_api::statistics::rebuild(store.as_ref())
        .await
        .expect("the rebuild succeeds");
    let rebuilt = every_answer(&app, &h).await;
    store
        .clear_statistics()
        .await
        .expect("the read models are emptied");
    let cleared = every_answer(&app, &h).await;
    tabletally_api::statistics::rebuild(store.as_ref())
        .await
        .expect("the rebuild succeeds again");
    let restored = every_answer(&app, &h).await;

    // Assert: 10 games (9 of this club, 1 of the other), 6 of them finished (G1–G6).
    assert_eq!((replayed, finished), (10, 6));
    // Without a rebuild the answers do change: the comparison can fail.
    let changed: Vec<&str> = before
        .iter()
        .zip(&cleared)
        .filter(|(old, new)| old.1 != new.1)
        .map(|(old, _)| old.0.as_str())
        .collect();
    assert!(changed.len() >= 20, "only {changed:?} changed");
    assert_eq!(
        cleared
            .iter()
            .find(|(p, _)| p == &format!("/v1/players/{}/stats", h.ann))
            .unwrap()
            .1["games_played"],
        0
    );
    // Every endpoint answers exactly as before, after the first and after the second rebuild.
    for answers in [&rebuilt, &restored] {
        let differing: Vec<&str> = before
            .iter()
            .zip(answers)
            .filter(|(old, new)| old.1 != new.1)
            .map(|(old, _)| old.0.as_str())
            .collect();
        let first = before.iter().zip(answers).find(|(old, new)| old.1 != new.1);
        assert!(
            differing.is_empty(),
            "{differing:?} differ after a rebuild; the first one was\n{:#}\nand is now\n{:#}",
            first.map_or(Value::Null, |(old, _)| old.1.clone()),
            first.map_or(Value::Null, |(_, new)| new.1.clone()),
        );
    }
}

/// A club mixing both scorings of Mint Condition with the other three games:
///
/// | game | started    | kind                         | seats           | totals         | result                        |
/// |------|------------|------------------------------|-----------------|----------------|-------------------------------|
/// | S1   | 2026-01-10 | mint-condition               | Ann, Bo         | 6, 14          | Ann wins (lowest)             |
/// | H1   | 2026-02-14 | mint-condition, heavily used | Ann, Bo         | 6, 14          | Bo wins (highest)             |
/// | H2   | 2026-03-07 | mint-condition, heavily used | Ann, Cy         | 10, 9          | Ann wins; Be Careful! decided |
/// | J    | 2026-05-02 | mint-julep (G5)              | Ann, Bo         | 5, 7           | Bo wins                       |
/// | V    | 2026-11-30 | vintage                      | Ann, Bo, Cy     | 27, 26, 21     | Ann wins                      |
/// | M    | 2026-12-04 | mind-up                      | Ann, Bo, Cy, Di | 79, 73, 90, 90 | Di wins the tie on round 3    |
/// | H3   | 2026-12-11 | mint-condition, heavily used | Ann, Cy         | —              | two rounds only               |
///
/// V is the scripted game of `vintage.rs` (its module comment: collections Ann 21, Bo 22, Cy 21;
/// Bo most blue +4, Ann most 60s +3 and most radios +3, vases tied 5/5/5 → nobody). M is the
/// turn-by-turn game of `mind_up.rs` (rounds Ann 23 + 23 + 33, Bo 22 + 18 + 33, Cy 29 + 28 + 33,
/// Di 24 + 29 + 37; Cy and Di tie on 90, Di has more in round 3).
pub(crate) struct Variants {
    pub(crate) club: TestClub,
    ann: String,
    s1: String,
    h1: String,
    h2: String,
    j: String,
    v: String,
    m: String,
    h3: String,
}

pub(crate) async fn seed_variants(app: &TestApp) -> Variants {
    let club = app.new_club().await;
    let heavily_used = json!({"heavily_used": true});
    let s1 = mint_condition(app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 3).await;
    let h1 = mint_condition_with(
        app,
        &club,
        "2026-02-14",
        ("Ann", "Bo"),
        &heavily_used,
        g1_rounds(),
        3,
    )
    .await;
    let h2 = mint_condition_with(
        app,
        &club,
        "2026-03-07",
        ("Ann", "Cy"),
        &heavily_used,
        g3_rounds(),
        3,
    )
    .await;
    let j = mint_julep(app, &club).await;
    let v = crate::vintage::play(app, &club).await;
    let m = crate::mind_up::play_by_turns(app, &club).await;
    let h3 = mint_condition_with(
        app,
        &club,
        "2026-12-11",
        ("Ann", "Cy"),
        &heavily_used,
        g3_rounds(),
        2,
    )
    .await;
    let ann = seat_ids(app, &club, &s1).await[0].1.clone();
    Variants {
        club,
        ann,
        s1,
        h1,
        h2,
        j,
        v,
        m,
        h3,
    }
}

async fn heavily_used_games_are_counted_under_their_own_variant_where_the_highest_total_is_best(
    app: TestApp,
) {
    let v = seed_variants(&app).await;
    let get = async |path: &str| get_ok(&app, &v.club, path).await;

    let published = get("/v1/stats/games/mint-condition").await;
    let heavily_used = get("/v1/stats/games/mint-condition?variant=heavily-used").await;
    let ann = get(&format!("/v1/players/{}/stats", v.ann)).await;
    let damage = get("/v1/stats/leaderboard?game=mint-condition&sort=average_score").await;
    let points =
        get("/v1/stats/leaderboard?game=mint-condition&variant=heavily-used&sort=average_score")
            .await;
    let hu_rate = get("/v1/stats/leaderboard?game=mint-condition&variant=heavily-used").await;
    let everything = get("/v1/stats/leaderboard").await;
    let ann_and_bo = get("/v1/stats/head-to-head?players=Ann,Bo").await;

    // The published rules: S1 only, 6 + 14 = 20 over 2 results; the lowest damage is best.
    assert_eq!(
        published,
        json!({
            "game": "mint-condition", "plays": 1, "average_score": 10.0, "lower_is_better": true,
            "record_best": {"total": 6, "player": "Ann", "game_id": v.s1},
            "record_worst": {"total": 14, "player": "Bo", "game_id": v.s1},
            "insights": {
                "average_damage_per_card_kind": {
                    "autographed": 2.5, "be-careful": 1.5, "fine-wine": 2.0, "legacy-edition": 4.0},
                "be_careful_decided": {"games": 0, "share": 0.0,
                    "meaning": "games whose winners would differ without any Be Careful! damage"},
                "tiebreak_decided": {"games": 0, "share": 0.0}
            }
        })
    );
    // Heavily Used: H1 and H2, 6 + 14 + 10 + 9 = 39 over 4 results → 9.75; the highest is best
    // (Bo's 14 in H1), the lowest worst (Ann's 6 in H1, the earlier of the two games).
    // Damage per kind: be-careful H1 Bo 3 + H2 Ann 8 = 11 → 2.75; fine-wine H1 2 + 2, H2 2 + 4
    // = 10 → 2.5; legacy-edition H1 4 + 4 → 2.0; autographed H1 5, H2 5 → 2.5 (39 ✓).
    // H2 without Be Careful!: Ann 2, Cy 9 → Cy would win: decided 1 of 2.
    assert_eq!(
        heavily_used,
        json!({
            "game": "mint-condition", "variant": "heavily-used", "plays": 2,
            "average_score": 9.75, "lower_is_better": false,
            "record_best": {"variant": "heavily-used", "total": 14, "player": "Bo", "game_id": v.h1},
            "record_worst": {"variant": "heavily-used", "total": 6, "player": "Ann", "game_id": v.h1},
            "insights": {
                "average_damage_per_card_kind": {
                    "autographed": 2.5, "be-careful": 2.75, "fine-wine": 2.5, "legacy-edition": 2.0},
                "be_careful_decided": {"games": 1, "share": 0.5,
                    "meaning": "games whose winners would differ without any Be Careful! damage"},
                "tiebreak_decided": {"games": 0, "share": 0.0}
            }
        })
    );
    assert_ne!(v.h2, v.h1);
    // Ann, oldest first: S1 won with 6; H1 lost with 6 (rank 2), H2 won with 10; J lost with 5
    // (rank 2); V won with 27; M 79, rank 3 (Di 90, Cy 90, Ann 79, Bo 73). H3 is unfinished.
    // Wins over all games stay as they are: S1, H2 and V, 3 of 6 = 0.5; ranks
    // 1 + 2 + 1 + 2 + 1 + 3 = 10 / 6 = 1.667; the last game lost → current streak 0, longest 1.
    assert_eq!(
        (
            &ann["games_played"],
            &ann["wins"],
            &ann["win_rate"],
            &ann["average_rank"],
            &ann["current_win_streak"],
            &ann["longest_win_streak"]
        ),
        (
            &json!(6),
            &json!(3),
            &json!(0.5),
            &json!(1.667),
            &json!(0),
            &json!(1)
        )
    );
    // One entry per game and variant, by game id, the published rules first: Mint Condition's
    // S1 apart from H1 + H2 (6 + 10 = 16 / 2 = 8.0; the highest, 10, is the best; ranks 2 + 1).
    assert_eq!(
        ann["per_game"],
        json!([
            {"game": "mind-up", "games_played": 1, "wins": 0, "win_rate": 0.0,
             "average_score": 79.0, "best_score": 79, "worst_score": 79, "average_rank": 3.0},
            {"game": "mint-condition", "games_played": 1, "wins": 1, "win_rate": 1.0,
             "average_score": 6.0, "best_score": 6, "worst_score": 6, "average_rank": 1.0},
            {"game": "mint-condition", "variant": "heavily-used", "games_played": 2, "wins": 1,
             "win_rate": 0.5, "average_score": 8.0, "best_score": 10, "worst_score": 6,
             "average_rank": 1.5},
            {"game": "mint-julep", "games_played": 1, "wins": 0, "win_rate": 0.0,
             "average_score": 5.0, "best_score": 5, "worst_score": 5, "average_rank": 2.0},
            {"game": "vintage", "games_played": 1, "wins": 1, "win_rate": 1.0,
             "average_score": 27.0, "best_score": 27, "worst_score": 27, "average_rank": 1.0}
        ])
    );
    // Mint Condition, 3 games in either variant, is played most.
    assert_eq!(ann["favourite_game"], "mint-condition");
    // Damage by the published rules, lowest first: Ann 6, Bo 14.
    assert_eq!(damage.get("variant"), None);
    assert_eq!(ranks(&damage), vec![("Ann", 1), ("Bo", 2)]);
    // Heavily Used points, highest first: Bo 14, Cy 9, Ann (6 + 10) / 2 = 8.
    assert_eq!(points["variant"], "heavily-used");
    assert_eq!(ranks(&points), vec![("Bo", 1), ("Cy", 2), ("Ann", 3)]);
    assert_eq!(points["players"][2]["average_score"], json!(8.0));
    // Heavily Used win rate: Bo 1/1, Ann 1/2, Cy 0/1.
    assert_eq!(ranks(&hu_rate), vec![("Bo", 1), ("Ann", 2), ("Cy", 3)]);
    // Every game, whatever its variant: Di 1 of 1 (M) = 1.0; Ann 3 of 6 = 0.5; Bo 2 of 5
    // (S1 lost, H1 won, J won, V 2nd, M 4th) = 0.4; Cy 0 of 3 (H2, V, M).
    assert_eq!(everything.get("variant"), None);
    assert_eq!(
        ranks(&everything),
        vec![("Di", 1), ("Ann", 2), ("Bo", 3), ("Cy", 4)]
    );
    let rates: Vec<&Value> = everything["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["win_rate"])
        .collect();
    assert_eq!(rates, [&json!(1.0), &json!(0.5), &json!(0.4), &json!(0.0)]);
    // Head-to-head, one entry per game and variant: S1 Ann ahead (lowest), H1 Bo ahead
    // (highest), J Bo 7 over Ann 5, V Ann 1st and Bo 2nd, M Ann 3rd and Bo 4th.
    assert_eq!(
        (
            &ann_and_bo["games_together"],
            &ann_and_bo["first_ahead"],
            &ann_and_bo["second_ahead"],
            &ann_and_bo["tied"]
        ),
        (&json!(5), &json!(3), &json!(2), &json!(0))
    );
    assert_eq!(
        ann_and_bo["per_game"],
        json!([
            {"game": "mind-up", "games_together": 1, "first_ahead": 1, "second_ahead": 0, "tied": 0},
            {"game": "mint-condition", "games_together": 1, "first_ahead": 1, "second_ahead": 0, "tied": 0},
            {"game": "mint-condition", "variant": "heavily-used", "games_together": 1,
             "first_ahead": 0, "second_ahead": 1, "tied": 0},
            {"game": "mint-julep", "games_together": 1, "first_ahead": 0, "second_ahead": 1, "tied": 0},
            {"game": "vintage", "games_together": 1, "first_ahead": 1, "second_ahead": 0, "tied": 0}
        ])
    );
}

async fn mind_up_and_vintage_games_beside_both_scorings_of_mint_condition_count_highest_best(
    app: TestApp,
) {
    let v = seed_variants(&app).await;
    let get = async |path: &str| get_ok(&app, &v.club, path).await;

    let mind_up = get("/v1/stats/games/mind-up").await;
    let vintage = get("/v1/stats/games/vintage").await;
    let mind_up_points = get("/v1/stats/leaderboard?game=mind-up&sort=average_score").await;
    let mind_up_rate = get("/v1/stats/leaderboard?game=mind-up").await;
    let vintage_points = get("/v1/stats/leaderboard?game=vintage&sort=average_score").await;
    let vintage_rate = get("/v1/stats/leaderboard?game=vintage").await;

    // M: 79 + 73 + 90 + 90 = 332 over 4 results → 83.0; the highest is best. Cy (seat 3) and Di
    // (seat 4) share the highest, 90, in the same game: the lower seat holds the record.
    // Points and cards under each score card value, from the rows of mind_up.rs (colour ×n under
    // the value v scores n × v):
    //   round 1 (values 1 3 4 2 5): v1 3 + 3 + 3 + 3 = 12 cards, 12 points; v2 4 cards, 8;
    //     v3 4 cards, 12; v4 Ann 1, Bo 2, Cy 1, Di 1 = 5 cards, 20; v5 Ann, Cy, Di 1 each = 3, 15
    //     (67 points = 17 + 16 + 17 + 17 ✓; 28 cards = 4 × 7 ✓).
    //   round 2 (values 4 3 2 1 5): v1 2 + 2 + 1 + 3 = 8 cards, 8; v2 2 + 3 + 1 + 1 = 7, 14;
    //     v3 2 + 1 + 4 + 1 = 8, 24; v4 2 + 2 + 1 + 3 = 8, 32; v5 Cy 1, 5
    //     (83 = 20 + 19 + 24 + 20 ✓; 32 = 4 × 8 ✓).
    //   round 3 (values 2 3 5 1 4): v1 Cy 2, 2; v2 3 + 3 + 2 + 1 = 9, 18; v3 4 + 2 + 2 + 3 = 11,
    //     33; v4 none; v5 2 + 4 + 3 + 5 = 14, 70 (123 = 28 + 32 + 27 + 36 ✓; 36 = 4 × 9 ✓).
    //   Game, per player (÷ 4): v1 22 cards, 22 points → 5.5, 5.5; v2 20, 40 → 5.0, 10.0;
    //     v3 23, 69 → 5.75, 17.25; v4 13, 52 → 3.25, 13.0; v5 18, 90 → 4.5, 22.5.
    // Bubbles: Ann 2 + 1 + 7 = 10, Bo 2 − 1 + 3 = 4, Cy 8 + 6 + 8 = 22, Di 3 + 7 + 3 = 13 → 49 / 4
    //   = 12.25. (Ann 65 columns + 10 bubbles + objectives 4 + 2 − 2 = 79 ✓.)
    // Objectives, each active one round for 4 players; a face that scored, bonus or malus, is
    // a hit: A1 and C2 all 4; B2 Ann and Di; E2 Cy (−2); D1 nobody; G1 all 4 (−2).
    assert_eq!(
        mind_up,
        json!({
            "game": "mind-up", "plays": 1, "average_score": 83.0, "lower_is_better": false,
            "record_best": {"total": 90, "player": "Cy", "game_id": v.m},
            "record_worst": {"total": 73, "player": "Bo", "game_id": v.m},
            "insights": {
                "column_values": {
                    "1": {"average_points_per_game": 5.5, "average_cards_per_game": 5.5},
                    "2": {"average_points_per_game": 10.0, "average_cards_per_game": 5.0},
                    "3": {"average_points_per_game": 17.25, "average_cards_per_game": 5.75},
                    "4": {"average_points_per_game": 13.0, "average_cards_per_game": 3.25},
                    "5": {"average_points_per_game": 22.5, "average_cards_per_game": 4.5}
                },
                "average_bubbles_per_game": 12.25,
                "objective_hit_rates": {
                    "A1": {"hit_rate": 1.0, "hits": 4, "chances": 4},
                    "B2": {"hit_rate": 0.5, "hits": 2, "chances": 4},
                    "C2": {"hit_rate": 1.0, "hits": 4, "chances": 4},
                    "D1": {"hit_rate": 0.0, "hits": 0, "chances": 4},
                    "E2": {"hit_rate": 0.25, "hits": 1, "chances": 4},
                    "G1": {"hit_rate": 1.0, "hits": 4, "chances": 4}
                }
            }
        })
    );
    // V: 27 + 26 + 21 = 74 over 3 results → 24.667; the highest, Ann's 27, is best, Cy's 21
    // worst. Collections: values 21 + 22 + 21 = 64 / 3 = 21.333, 11 cards each. Prizes scored:
    // blue (Bo 4), sixties (Ann 3), radios (Ann 3); vases tied, scored by nobody.
    assert_eq!(
        vintage,
        json!({
            "game": "vintage", "plays": 1, "average_score": 24.667, "lower_is_better": false,
            "record_best": {"total": 27, "player": "Ann", "game_id": v.v},
            "record_worst": {"total": 21, "player": "Cy", "game_id": v.v},
            "insights": {
                "average_collection_value": 21.333,
                "average_collection_cards": 11.0,
                "prizes": {
                    "blue": {"times_scored": 1, "points": 4},
                    "radios": {"times_scored": 1, "points": 3},
                    "sixties": {"times_scored": 1, "points": 3}
                }
            }
        })
    );
    // Mind Up! points, highest first: Cy and Di 90 share rank 1 (Di first: 1 win to 0), Ann 79,
    // Bo 73. Win rate: Di 1/1; Ann, Bo and Cy 0/1 share rank 2, by name.
    assert_eq!(mind_up_points.get("variant"), None);
    assert_eq!(
        ranks(&mind_up_points),
        vec![("Di", 1), ("Cy", 1), ("Ann", 3), ("Bo", 4)]
    );
    assert_eq!(
        ranks(&mind_up_rate),
        vec![("Di", 1), ("Ann", 2), ("Bo", 2), ("Cy", 2)]
    );
    // Vintage points: Ann 27, Bo 26, Cy 21. Win rate: Ann 1/1; Bo and Cy 0/1.
    assert_eq!(
        ranks(&vintage_points),
        vec![("Ann", 1), ("Bo", 2), ("Cy", 3)]
    );
    assert_eq!(ranks(&vintage_rate), vec![("Ann", 1), ("Bo", 2), ("Cy", 2)]);
}

async fn a_players_game_list_names_the_variant_each_game_plays(app: TestApp) {
    let v = seed_variants(&app).await;

    let ann = get_ok(&app, &v.club, &format!("/v1/players/{}/games", v.ann)).await;

    // Newest first. H1, H2 and the unfinished H3 play Heavily Used (their options say so); the
    // others the published rules, which name no variant.
    let rows: Vec<Value> = ann["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            assert_ne!(g.get("variant"), Some(&Value::Null), "{g}");
            json!([
                g["game_id"],
                g["game"],
                g.get("variant"),
                g["status"],
                g["total"],
                g["won"]
            ])
        })
        .collect();
    let hu = "heavily-used";
    assert_eq!(
        rows,
        vec![
            json!([v.h3, "mint-condition", hu, "in_progress", null, null]),
            json!([v.m, "mind-up", null, "finished", 79, false]),
            json!([v.v, "vintage", null, "finished", 27, true]),
            json!([v.j, "mint-julep", null, "finished", 5, false]),
            json!([v.h2, "mint-condition", hu, "finished", 10, true]),
            json!([v.h1, "mint-condition", hu, "finished", 6, false]),
            json!([v.s1, "mint-condition", null, "finished", 6, true]),
        ]
    );
}

async fn a_variant_is_checked_against_the_game(app: TestApp) {
    let club = app.new_club().await;

    for (path, words) in [
        (
            "/v1/stats/leaderboard?variant=heavily-used",
            "variant needs a game",
        ),
        (
            "/v1/stats/leaderboard?game=mint-julep&variant=heavily-used",
            "Mint Julep has no variants counted apart",
        ),
        (
            "/v1/stats/games/mint-condition?variant=lucky",
            "unknown variant \"lucky\" of Mint Condition; its variants are heavily-used",
        ),
        (
            "/v1/players/00000000-0000-4000-8000-000000000000/stats?game=vintage&variant=x",
            "Vintage has no variants counted apart",
        ),
    ] {
        let reply = app.get(path, Some(&club.token)).await;
        let problem = reply.problem(400);
        assert!(
            problem["detail"].as_str().unwrap().contains(words),
            "{path}: {problem}"
        );
    }
}

async fn statistics_and_history_lists_say_where_they_were_read_and_the_lobby_position_they_saw(
    app: TestApp,
) {
    // Arrange: G1 finished; the lobby's last change is its finish, at the position of the
    // game's last event.
    let club = app.new_club().await;
    let game = mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 3).await;
    let feed = get_ok(&app, &club, "/v1/events?after=0&limit=100").await;
    let finish = feed["events"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|e| e["game_id"] == json!(game))
        .expect("the game's events")["position"]
        .as_i64()
        .unwrap();
    let ann = seat_ids(&app, &club, &game).await[0].1.clone();
    let reads = [
        "/v1/games".to_owned(),
        "/v1/players".to_owned(),
        format!("/v1/players/{ann}/stats"),
        format!("/v1/players/{ann}/games"),
        "/v1/stats/leaderboard".to_owned(),
        "/v1/stats/head-to-head?players=Ann,Bo".to_owned(),
        "/v1/stats/games/mint-condition".to_owned(),
    ];

    for path in &reads {
        // Act
        let reply = app.get(path, Some(&club.token)).await;

        // Assert: one database (no standby here), which had seen the finish.
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
        assert_eq!(reply.headers["read-from"], "primary", "{path}");
        assert_eq!(
            reply.headers["read-position"].to_str().unwrap(),
            finish.to_string(),
            "{path}"
        );
    }
    // A game's own reads carry neither: they are always the primary's.
    let own = app
        .get(&format!("/v1/games/{game}"), Some(&club.token))
        .await;
    assert_eq!(own.status, 200);
    assert!(own.headers.get("read-from").is_none());
    // Another club's lobby has no change yet: position 0.
    let other = app.new_club().await;
    let empty = app.get("/v1/stats/leaderboard", Some(&other.token)).await;
    assert_eq!(empty.headers["read-position"], "0");
}

/// The games noted as finished and not yet added to the statistics' shared sums, read from the
/// server's database.
async fn noted_finishes(app: &TestApp) -> i64 {
    let sql = "SELECT COUNT(*) FROM statistics_pending";
    match app.backend {
        Backend::Sqlite => {
            let mut db = sqlx::SqliteConnection::connect(&app.database_url)
                .await
                .expect("the server's SQLite file");
            sqlx::query_scalar(sql).fetch_one(&mut db).await.unwrap()
        }
        Backend::Postgres => {
            let mut db = sqlx::PgConnection::connect(&app.database_url)
                .await
                .expect("the server's PostgreSQL database");
            sqlx::query_scalar(sql).fetch_one(&mut db).await.unwrap()
        }
    }
}

/// A leaderboard's players in its order: name, games played, wins.
fn played_and_won_by_rank(board: &Value) -> Vec<(&str, i64, i64)> {
    board["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["games_played"].as_i64().unwrap(),
                p["wins"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// How many of `finishes` stay noted until the statistics are next read: all of them on
/// PostgreSQL; none on SQLite, whose one writer adds a finish in its own transaction.
fn left_noted(app: &TestApp, finishes: i64) -> i64 {
    match app.backend {
        Backend::Postgres => finishes,
        Backend::Sqlite => 0,
    }
}

/// A server on `app`'s kind of database that adds finished games to the statistics only when
/// they are read (its background round is an hour away).
async fn added_on_read_only(app: TestApp) -> TestApp {
    spawn_app_with(app.backend, |config| {
        config.settle_every = Duration::from_secs(3600);
    })
    .await
    .expect("the database was configured for the first server")
}

async fn games_finished_out_of_play_order_are_added_in_one_batch_at_the_next_read(app: TestApp) {
    // Arrange: March's G4 (Ann 2, Bo 7) finishes and is read; then January's G1 (Ann 6, Bo 14)
    // and February's G2 (10 and 10, a shared win) finish, and nothing reads the statistics.
    let app = added_on_read_only(app).await;
    let club = app.new_club().await;
    let march = mint_condition(&app, &club, "2026-03-07", ("Ann", "Bo"), g4_rounds(), 3).await;
    let seats = seat_ids(&app, &club, &march).await;
    let (ann, bo) = (seats[0].1.clone(), seats[1].1.clone());
    let after_march = played_and_won(&app, &club, &ann).await;
    let january = mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 3).await;
    mint_condition(&app, &club, "2026-02-14", ("Ann", "Bo"), g2_rounds(), 3).await;
    let noted = noted_finishes(&app).await;
    // January's finish is the club's first noted one: the statistics count what came before it.
    let feed = app.get("/v1/events?after=0", Some(&club.token)).await;
    let positions = |game: &str| -> Vec<i64> {
        feed.body["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["game_id"] == game)
            .map(|e| e["position"].as_i64().unwrap())
            .collect()
    };
    let january_finish = *positions(&january).last().unwrap();
    let newest = feed.body["events"].as_array().unwrap().last().unwrap()["position"]
        .as_i64()
        .unwrap();
    let store = tabletally_api::store::connect(&app.database_url)
        .await
        .expect("a second connection to the server's database");
    let counted_before = store.counted_position(&club.id).await.unwrap();

    // Act: the next read adds January's and February's at once, before March's stored run.
    let ann_played = played_and_won(&app, &club, &ann).await;
    let bo_played = played_and_won(&app, &club, &bo).await;
    let spring = app
        .get(
            "/v1/stats/leaderboard?from=2026-02-01T00:00:00Z&to=2026-04-01T00:00:00Z",
            Some(&club.token),
        )
        .await;
    let after_january = app
        .get(
            &format!("/v1/players/{ann}/stats?from=2026-02-01T00:00:00Z"),
            Some(&club.token),
        )
        .await;
    let games = app
        .get("/v1/stats/games/mint-condition", Some(&club.token))
        .await;

    // Assert: Ann won all three (one shared), Bo the shared one. February to March holds G2
    // and G4: Ann 2 of 2, Bo 1 of 2 (the month snapshots, March's run counting the two games
    // before it, and the runs of the batch). Damage 2 + 7 + 6 + 14 + 10 + 10 = 49 over 6.
    assert_eq!(after_march, (1, 1));
    assert_eq!(noted, left_noted(&app, 2));
    assert_eq!(noted_finishes(&app).await, 0);
    let counted = match app.backend {
        Backend::Postgres => january_finish - 1,
        Backend::Sqlite => newest,
    };
    assert_eq!(counted_before, counted);
    assert_eq!(store.counted_position(&club.id).await.unwrap(), newest);
    assert_eq!(
        spring.headers["read-position"].to_str().unwrap(),
        newest.to_string()
    );
    assert_eq!((ann_played, bo_played), ((3, 3), (3, 1)));
    assert_eq!(ranks(&spring.body), vec![("Ann", 1), ("Bo", 2)]);
    assert_eq!(
        played_and_won_by_rank(&spring.body),
        vec![("Ann", 2, 2), ("Bo", 2, 1)]
    );
    assert_eq!(after_january.body["games_played"], 2);
    assert_eq!(after_january.body["wins"], 2);
    assert_eq!(games.body["plays"], 3);
    assert_eq!(
        games.body["record_best"],
        json!({"total": 2, "player": "Ann", "game_id": march})
    );
    assert_eq!(
        games.body["record_worst"],
        json!({"total": 14, "player": "Bo", "game_id": january})
    );
    assert_eq!(games.body["average_score"], json!(8.167));
}

async fn a_finish_corrected_before_it_was_added_counts_once_with_its_new_result(app: TestApp) {
    // Arrange: G1 finished (Ann 6, Bo 14: Ann wins) and G2 finished (a shared win), neither
    // added to the statistics yet.
    let app = added_on_read_only(app).await;
    let club = app.new_club().await;
    let game = mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 3).await;
    mint_condition(&app, &club, "2026-02-14", ("Ann", "Bo"), g2_rounds(), 3).await;
    let seats = seat_ids(&app, &club, &game).await;
    let (ann, bo) = (seats[0].1.clone(), seats[1].1.clone());
    let noted = noted_finishes(&app).await;

    // Act: G1's round 2 corrected (the hands swapped: Ann 11, Bo 9, Bo wins), then read.
    swap_g1_round_2(&app, &club, &game).await;
    let noted_after_correction = noted_finishes(&app).await;
    let games = app
        .get("/v1/stats/games/mint-condition", Some(&club.token))
        .await;

    // Assert: the correction recomputed G1's players without the noted games and left both to
    // the read's settling; each game counts once, G1 with its corrected result. Damage
    // 11 + 9 + 10 + 10 = 40 over 4.
    assert_eq!(
        (noted, noted_after_correction),
        (left_noted(&app, 2), left_noted(&app, 2))
    );
    assert_eq!(played_and_won(&app, &club, &ann).await, (2, 1));
    assert_eq!(played_and_won(&app, &club, &bo).await, (2, 2));
    assert_eq!(games.body["plays"], 2);
    assert_eq!(games.body["average_score"], json!(10.0));
    let board = app.get("/v1/stats/leaderboard", Some(&club.token)).await;
    assert_eq!(
        played_and_won_by_rank(&board.body),
        vec![("Bo", 2, 2), ("Ann", 2, 1)]
    );
}

async fn a_merge_adds_the_finishes_noted_before_it_once(app: TestApp) {
    // Arrange: G1 with Ann and Bo (Ann wins) and G2 with Ann and "Bob" (shared win), both noted,
    // none added.
    let app = added_on_read_only(app).await;
    let club = app.new_club().await;
    let g1 = mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 3).await;
    let g2 = mint_condition(&app, &club, "2026-02-14", ("Ann", "Bob"), g2_rounds(), 3).await;
    let bo = seat_ids(&app, &club, &g1).await[1].1.clone();
    let seats = seat_ids(&app, &club, &g2).await;
    let (ann, bob) = (seats[0].1.clone(), seats[1].1.clone());
    let noted = noted_finishes(&app).await;

    // Act: "Bob" merged into Bo.
    let reply = app
        .post(
            &format!("/v1/players/{bob}/merge"),
            Some(&club.token),
            &json!({"into": bo}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let noted_after_merge = noted_finishes(&app).await;

    // Assert: the merge recomputed Bo without the noted games, and its answer (the player as
    // merged, read after it) added them: Bo has both games (one shared win), Ann both (two
    // wins), once each.
    assert_eq!((noted, noted_after_merge), (left_noted(&app, 2), 0));
    assert_eq!(played_and_won(&app, &club, &bo).await, (2, 1));
    assert_eq!(played_and_won(&app, &club, &ann).await, (2, 2));
    let board = app.get("/v1/stats/leaderboard", Some(&club.token)).await;
    assert_eq!(ranks(&board.body), vec![("Ann", 1), ("Bo", 2)]);
    assert_eq!(
        played_and_won_by_rank(&board.body),
        vec![("Ann", 2, 2), ("Bo", 2, 1)]
    );
}

async fn finished_games_are_added_in_the_background_without_a_read(app: TestApp) {
    // Arrange: a server whose background round comes every 20 ms.
    let app = spawn_app_with(app.backend, |config| {
        config.settle_every = Duration::from_millis(20);
    })
    .await
    .expect("the database was configured for the first server");
    let club = app.new_club().await;

    // Act: G1 finishes; nothing reads the statistics while we wait.
    let game = mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 3).await;
    let mut waited = Duration::ZERO;
    while noted_finishes(&app).await > 0 && waited < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(20)).await;
        waited += Duration::from_millis(20);
    }

    // Assert: the note is gone, and the game counts.
    assert_eq!(
        noted_finishes(&app).await,
        0,
        "still noted after {waited:?}"
    );
    let ann = seat_ids(&app, &club, &game).await[0].1.clone();
    assert_eq!(played_and_won(&app, &club, &ann).await, (1, 1));
}

async fn a_finish_decided_on_a_game_another_server_moved_on_is_written_once_after_its_events(
    app: TestApp,
) {
    if app.backend == Backend::Sqlite {
        return; // one SQLite file is served by one process
    }
    // Arrange: this server holds G1 (Ann 6, Bo 14) after round 2, at version 3; the other server
    // then retracts round 2 and records it again: the same game, at version 5.
    let other = app.second_server().await;
    let club = app.new_club().await;
    let game = mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 2).await;
    let seats = seat_ids(&app, &club, &game).await;
    let (ann, bo) = (seats[0].1.clone(), seats[1].1.clone());
    let round = |n: usize| {
        let (first, second) = g1_rounds()[n - 1].clone();
        event(
            "round_collected",
            json!({"round": n, "collections": {"Ann": first, "Bo": second}}),
        )
    };
    let retract = other
        .append(
            &club,
            &game,
            None,
            vec![event("retract", json!({"seq": 3}))],
        )
        .await;
    assert_eq!(retract.status, 201, "{}", retract.body);
    let again = other.append(&club, &game, None, vec![round(2)]).await;
    assert_eq!(again.body["version"], 5, "{}", again.body);

    // Act: round 3, which finishes the game, sent to this server.
    let finish = app.append(&club, &game, None, vec![round(3)]).await;

    // Assert: the finish decided from version 3 wrote nothing there; it was decided again on
    // the stored game and written after the other server's events. Both servers have it
    // finished at version 6, and it counts once: Ann won 6 to 14.
    assert_eq!(finish.status, 201, "{}", finish.body);
    assert_eq!(finish.body["version"], 6);
    assert_eq!(finish.body["events"][0]["seq"], 6);
    assert_eq!(other.version(&club, &game).await, 6);
    for server in [&app, &other] {
        let score = server.score(&club, &game).await;
        assert_eq!(score["status"], "finished", "{score}");
        assert_eq!(
            crate::helpers::totals(&score),
            vec![("Ann".to_owned(), 6), ("Bo".to_owned(), 14)]
        );
    }
    assert_eq!(played_and_won(&app, &club, &ann).await, (1, 1));
    assert_eq!(played_and_won(&app, &club, &bo).await, (1, 0));
    assert_eq!(noted_finishes(&app).await, 0);
}
