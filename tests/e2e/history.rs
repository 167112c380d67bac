//! Statistics over periods that cut through days and months (issue 14): the read models sum
//! whole UTC months and days and add the games of partial days from their seats, and a
//! player's figures for a period are the difference of two running sums. Each answer here is
//! worked out by hand from the club history of `statistics.rs` (G1 2026-01-10 … G6 2026-06-06,
//! every game at 19:00 UTC), or compared with the same games asked for another way.

use serde_json::{Value, json};
use sqlx::Connection;

use crate::helpers::{Backend, HeldWrite, TestApp, event, ranks};
use crate::on_both_backends;
use crate::statistics::{
    Rounds, abandon, at, g1_rounds, g2_rounds, g3_rounds, g4_rounds, g6_rounds, mint_condition,
    seat_ids, seed,
};

on_both_backends!(
    a_period_cutting_through_days_sums_the_same_games_as_whole_days_and_whole_months,
    a_leaderboard_over_a_period_counts_exactly_the_games_started_in_it,
    head_to_head_and_player_stats_count_a_period_to_the_instant,
    a_game_started_earlier_that_finishes_later_counts_in_its_own_period,
    the_migration_builds_the_read_models_the_appends_write,
    period_leaderboards_sum_the_games_whatever_order_they_were_recorded_and_corrected_in,
    period_leaderboards_stay_exact_when_tables_finish_games_of_many_months_at_once,
    a_rebuild_replays_the_games_in_play_order_page_by_page_and_answers_the_same,
    a_rebuild_beside_tables_finishing_games_leaves_every_period_exact,
    a_rebuild_that_read_a_game_before_its_last_round_keeps_the_result_the_round_wrote,
    a_rebuild_empties_the_read_models_only_between_writes,
);

async fn get(app: &TestApp, token: &str, path: &str) -> Value {
    let reply = app.get(path, Some(token)).await;
    assert_eq!(reply.status, 200, "{path}: {}", reply.body);
    reply.body
}

async fn a_period_cutting_through_days_sums_the_same_games_as_whole_days_and_whole_months(
    app: TestApp,
) {
    let h = seed(&app).await;
    let token = &h.club.token;

    // G2 (02-14 19:00) and G3 (03-07), three ways: from an hour before G2 to G4's very start
    // (partial days at both edges, then March as a month); by whole days; by whole months.
    let cut = get(
        &app,
        token,
        "/v1/stats/games/mint-condition?from=2026-02-14T18:00:00Z&to=2026-04-04T19:00:00Z",
    )
    .await;
    let days = get(
        &app,
        token,
        "/v1/stats/games/mint-condition?from=2026-02-14T00:00:00Z&to=2026-03-08T00:00:00Z",
    )
    .await;
    let months = get(
        &app,
        token,
        "/v1/stats/games/mint-condition?from=2026-02-01T00:00:00Z&to=2026-04-01T00:00:00Z",
    )
    .await;
    let none = get(
        &app,
        token,
        "/v1/stats/games/mint-condition?from=2026-02-14T19:00:01Z&to=2026-03-07T19:00:00Z",
    )
    .await;

    // G2: Ann 10, Bo 10; G3: Ann 10, Cy 9 → 39 / 4 = 9.75. Lowest Cy's 9 (G3); the highest,
    // 10, three times: the earliest, G2's seat 1, is Ann's. Damage per kind over 4 results:
    // be-careful G3 Ann 8 → 2.0; fine-wine G2 4 + G3 2 + 4 → 2.5; legacy-edition G2 4 → 1.0;
    // autographed G3 5 → 1.25; animal-kingdom G2 6 + 6 → 3.0 (8 + 10 + 4 + 5 + 12 = 39 ✓).
    // Be Careful! decided G3: 1 of 2.
    assert_eq!(cut["plays"], 2);
    assert_eq!(cut["average_score"], json!(9.75));
    assert_eq!(
        cut["record_best"],
        json!({"total": 9, "player": "Cy", "game_id": h.g[2]})
    );
    assert_eq!(
        cut["record_worst"],
        json!({"total": 10, "player": "Ann", "game_id": h.g[1]})
    );
    assert_eq!(
        cut["insights"]["average_damage_per_card_kind"],
        json!({"animal-kingdom": 3.0, "autographed": 1.25, "be-careful": 2.0,
               "fine-wine": 2.5, "legacy-edition": 1.0})
    );
    assert_eq!(cut["insights"]["be_careful_decided"]["share"], json!(0.5));
    assert_eq!(days, cut);
    assert_eq!(months, cut);
    // A second after G2 to G3's start: no game, no average; the direction is the published
    // rules'.
    assert_eq!(
        (
            &none["plays"],
            &none["average_score"],
            &none["record_best"],
            &none["lower_is_better"]
        ),
        (&json!(0), &Value::Null, &Value::Null, &json!(true))
    );
}

async fn a_leaderboard_over_a_period_counts_exactly_the_games_started_in_it(app: TestApp) {
    let h = seed(&app).await;
    let token = &h.club.token;

    // From G3's start to a second after G6's: G3, G4, G5 (Mint Julep) and G6.
    let period = "from=2026-03-07T19:00:00Z&to=2026-06-06T19:00:01Z";
    let board = get(&app, token, &format!("/v1/stats/leaderboard?{period}")).await;
    let damage = get(
        &app,
        token,
        &format!("/v1/stats/leaderboard?game=mint-condition&sort=average_score&{period}"),
    )
    .await;
    let before_g3 = get(
        &app,
        token,
        "/v1/stats/leaderboard?sort=wins&to=2026-03-07T19:00:00Z",
    )
    .await;
    let backwards = get(
        &app,
        token,
        "/v1/stats/leaderboard?from=2026-06-01T00:00:00Z&to=2026-01-01T00:00:00Z",
    )
    .await;

    // Bo G4 W, G5 W → 1.0; Ann G3 L, G5 L, G6 W and Cy G3 W, G4 L, G6 L → 1/3 each, equal
    // wins and games: rank 2 shared, by name. Ann's ranks 5/3; no average score over Mint
    // Condition's damage and Mint Julep's points together.
    assert_eq!(ranks(&board), vec![("Bo", 1), ("Ann", 2), ("Cy", 2)]);
    assert_eq!(
        board["players"][1],
        json!({"rank": 2, "player_id": h.ann, "name": "Ann", "games_played": 3, "wins": 1,
               "win_rate": 0.333, "average_score": null, "average_rank": 1.667})
    );
    // Mint Condition damage, lowest first: Bo 2 (G4), Ann (10 + 5) / 2 = 7.5, Cy 24 / 3 = 8.0.
    assert_eq!(ranks(&damage), vec![("Bo", 1), ("Ann", 2), ("Cy", 3)]);
    assert_eq!(damage["players"][1]["average_score"], json!(7.5));
    assert_eq!(damage["players"][2]["average_score"], json!(8.0));
    // Before G3: G1 (Ann W), G2 (shared): Ann 2 wins, Bo 1.
    assert_eq!(ranks(&before_g3), vec![("Ann", 1), ("Bo", 2)]);
    assert_eq!(backwards["players"], json!([]));
}

async fn head_to_head_and_player_stats_count_a_period_to_the_instant(app: TestApp) {
    let h = seed(&app).await;
    let token = &h.club.token;

    // `to` is G6's start: G6 is left out, G3 is in.
    let h2h = get(
        &app,
        token,
        &format!(
            "/v1/stats/head-to-head?players={},{}&from=2026-03-07T19:00:00Z&to=2026-06-06T19:00:00Z",
            h.ann, h.cy
        ),
    )
    .await;
    let stats = get(
        &app,
        token,
        &format!(
            "/v1/players/{}/stats?from=2026-01-10T19:00:00.000001Z&to=2026-05-02T19:00:00.000001Z",
            h.ann
        ),
    )
    .await;

    // Ann and Cy met in G3 (Cy ahead) and G6 (Ann ahead): only G3 counts.
    assert_eq!(
        (
            &h2h["games_together"],
            &h2h["first_ahead"],
            &h2h["second_ahead"]
        ),
        (&json!(1), &json!(0), &json!(1))
    );
    // Ann from just after G1 to just after G5: G2 W, G3 L, G5 L.
    assert_eq!(
        (
            &stats["games_played"],
            &stats["wins"],
            &stats["current_win_streak"],
            &stats["last_played"]
        ),
        (&json!(3), &json!(1), &json!(0), &json!(at("2026-05-02")))
    );
}

async fn a_game_started_earlier_that_finishes_later_counts_in_its_own_period(app: TestApp) {
    // Arrange: A starts on 10 January and stops after two rounds; B starts on 20 January and
    // finishes; then A finishes.
    let club = app.new_club().await;
    let a = mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 2).await;
    mint_condition(&app, &club, "2026-01-20", ("Ann", "Bo"), g2_rounds(), 3).await;
    let [_, _, (ann_3, bo_3)] = g1_rounds();
    let reply = app
        .append(
            &club,
            &a,
            Some(3),
            vec![event(
                "round_collected",
                json!({"round": 3, "collections": {"Ann": ann_3, "Bo": bo_3}}),
            )],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);

    // Act
    let since = get(
        &app,
        &club.token,
        "/v1/stats/leaderboard?game=mint-condition&sort=wins&from=2026-01-15T00:00:00Z",
    )
    .await;
    let until = get(
        &app,
        &club.token,
        "/v1/stats/leaderboard?game=mint-condition&sort=wins&to=2026-01-15T00:00:00Z",
    )
    .await;
    let ever = get(&app, &club.token, "/v1/stats/leaderboard?sort=wins").await;

    // Assert: A is G1 (Ann 6 wins, Bo 14), B is G2 (10 and 10, a shared win).
    let figures = |board: &Value| -> Vec<(String, i64, i64)> {
        board["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_owned(),
                    p["games_played"].as_i64().unwrap(),
                    p["wins"].as_i64().unwrap(),
                )
            })
            .collect()
    };
    let row = |name: &str, played, wins| (name.to_owned(), played, wins);
    assert_eq!(figures(&since), vec![row("Ann", 1, 1), row("Bo", 1, 1)]);
    assert_eq!(figures(&until), vec![row("Ann", 1, 1), row("Bo", 1, 0)]);
    assert_eq!(figures(&ever), vec![row("Ann", 2, 2), row("Bo", 2, 1)]);
    assert_eq!(since["players"][0]["average_score"], json!(10.0));
    assert_eq!(until["players"][1]["average_score"], json!(14.0));
}

/// Statistics answers over whole and partial periods, for the seeded club.
async fn period_answers(app: &TestApp, h: &crate::statistics::History) -> Vec<(String, Value)> {
    let periods = [
        "",
        "from=2026-02-14T18:00:00Z",
        "to=2026-04-04T19:00:00Z",
        "from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z",
        "from=2026-02-14T19:00:00Z&to=2026-06-06T19:00:00.5Z",
    ];
    let mut paths = Vec::new();
    for period in periods {
        paths.push(format!("/v1/stats/leaderboard?{period}"));
        paths.push(format!(
            "/v1/stats/leaderboard?game=mint-condition&sort=average_score&{period}"
        ));
        paths.push(format!("/v1/stats/games/mint-condition?{period}"));
        paths.push(format!("/v1/stats/games/mint-julep?{period}"));
        paths.push(format!(
            "/v1/stats/head-to-head?players={},{}&{period}",
            h.ann, h.bo
        ));
        for p in [&h.ann, &h.bo, &h.cy] {
            paths.push(format!("/v1/players/{p}/stats?{period}"));
        }
    }
    paths.push("/v1/games?status=finished".into());
    paths.push("/v1/games?player=Ann&limit=2".into());
    let mut answers = Vec::new();
    for path in paths {
        let body = get(app, &h.club.token, &path).await;
        answers.push((path, body));
    }
    answers
}

async fn the_migration_builds_the_read_models_the_appends_write(app: TestApp) {
    // Arrange: the history, its read models written by each append.
    let h = seed(&app).await;
    let written = period_answers(&app, &h).await;

    // Act: drop what migrations 0010, 0012 and 0013 made and run them again on the same games.
    let drop = "DROP TABLE run_snapshots; DROP TABLE run_months; \
                DROP TABLE player_runs; DROP TABLE game_buckets; \
                DROP INDEX games_club_status_started; DROP INDEX games_club_game_started;";
    match app.backend {
        Backend::Sqlite => {
            let mut db = sqlx::SqliteConnection::connect(&app.database_url)
                .await
                .unwrap();
            sqlx::raw_sql(drop).execute(&mut db).await.unwrap();
            sqlx::raw_sql(include_str!(
                "../../migrations/sqlite/0010_history_read_models.sql"
            ))
            .execute(&mut db)
            .await
            .unwrap();
            sqlx::raw_sql(include_str!(
                "../../migrations/sqlite/0012_run_snapshots.sql"
            ))
            .execute(&mut db)
            .await
            .unwrap();
            sqlx::raw_sql(include_str!(
                "../../migrations/sqlite/0013_bucket_shards.sql"
            ))
            .execute(&mut db)
            .await
            .unwrap();
        }
        Backend::Postgres => {
            let mut db = sqlx::PgConnection::connect(&app.database_url)
                .await
                .unwrap();
            sqlx::raw_sql(drop).execute(&mut db).await.unwrap();
            sqlx::raw_sql(include_str!(
                "../../migrations/postgres/0010_history_read_models.sql"
            ))
            .execute(&mut db)
            .await
            .unwrap();
            sqlx::raw_sql(include_str!(
                "../../migrations/postgres/0012_run_snapshots.sql"
            ))
            .execute(&mut db)
            .await
            .unwrap();
            sqlx::raw_sql(include_str!(
                "../../migrations/postgres/0013_bucket_shards.sql"
            ))
            .execute(&mut db)
            .await
            .unwrap();
        }
    }
    let migrated = period_answers(&app, &h).await;

    // Assert: every answer is the same.
    for ((path, before), (_, after)) in written.iter().zip(&migrated) {
        assert_eq!(after, before, "{path}");
    }
}

/// A small deterministic generator: the same "random" club on every run.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// Per player id: (games, wins, sum of ranks, sum of totals) over the finished games started
/// in `[from, to)`, worked out from each game's own scoreboard.
type Expected = std::collections::BTreeMap<String, (i64, i64, i64, i64)>;

/// A finished game: its id, its start, and its seats as (player id now, rank, total).
type FinishedGame = (
    String,
    chrono::DateTime<chrono::Utc>,
    Vec<(String, i64, i64)>,
);

/// Whether a game started at `started` counts in the period `[from, to)` (either side open).
fn in_period(
    started: chrono::DateTime<chrono::Utc>,
    from: Option<chrono::DateTime<chrono::Utc>>,
    to: Option<chrono::DateTime<chrono::Utc>>,
) -> bool {
    from.is_none_or(|f| started >= f) && to.is_none_or(|t| started < t)
}

fn expected_board(
    games: &[FinishedGame],
    from: Option<chrono::DateTime<chrono::Utc>>,
    to: Option<chrono::DateTime<chrono::Utc>>,
) -> Expected {
    let mut board = Expected::new();
    for (_, started, seats) in games {
        if !in_period(*started, from, to) {
            continue;
        }
        for (player, rank, total) in seats {
            let e = board.entry(player.clone()).or_default();
            *e = (
                e.0 + 1,
                e.1 + i64::from(*rank == 1),
                e.2 + rank,
                e.3 + total,
            );
        }
    }
    board
}

/// Each finished game's start and its seats as (player id now, rank, total), from the API.
async fn finished_games(
    app: &TestApp,
    club: &crate::helpers::TestClub,
    ids: &[String],
) -> Vec<FinishedGame> {
    let mut games = Vec::new();
    for id in ids {
        let game = get(app, &club.token, &format!("/v1/games/{id}")).await;
        if game["status"] != "finished" {
            continue;
        }
        let started = game["started_at"].as_str().unwrap().parse().unwrap();
        let seats = seat_ids(app, club, id).await;
        let score = get(app, &club.token, &format!("/v1/games/{id}/score")).await;
        let mut results = Vec::new();
        for p in score["players"].as_array().unwrap() {
            let name = p["name"].as_str().unwrap();
            let player = &seats.iter().find(|s| s.0 == name).expect("seated").1;
            results.push((
                player.clone(),
                p["rank"].as_i64().unwrap(),
                p["total"].as_i64().unwrap(),
            ));
        }
        games.push((id.clone(), started, results));
    }
    games
}

/// Asks the leaderboard over many periods (month starts, game starts, midnights, open sides)
/// and checks every player's games, wins, average rank and average damage against the games;
/// and the game's statistics (plays, average damage, records) over the same periods.
async fn check_periods(
    app: &TestApp,
    club: &crate::helpers::TestClub,
    ids: &[String],
    rng: &mut Lcg,
    when: &str,
) {
    let games = finished_games(app, club, ids).await;
    let bound = |rng: &mut Lcg| -> Option<String> {
        let month = 1 + rng.below(9);
        let day = 1 + rng.below(28);
        match rng.below(5) {
            0 => None,
            1 => Some(format!("2026-{month:02}-01T00:00:00Z")),
            2 => Some(format!("2026-{month:02}-{day:02}T19:00:00Z")),
            3 => Some(format!("2026-{month:02}-{day:02}T00:00:00Z")),
            _ => Some(format!("2026-{month:02}-{day:02}T19:00:00.5Z")),
        }
    };
    for _ in 0..30 {
        let (from, to) = (bound(rng), bound(rng));
        let parse = |t: &Option<String>| t.as_ref().map(|t| t.parse().unwrap());
        let (from_at, to_at) = (parse(&from), parse(&to));
        if let (Some(f), Some(t)) = (from_at, to_at)
            && f >= t
        {
            continue;
        }
        let mut query = String::new();
        if let Some(from) = &from {
            query += &format!("&from={from}");
        }
        if let Some(to) = &to {
            query += &format!("&to={to}");
        }
        let expected = expected_board(&games, from_at, to_at);
        let board = get(
            app,
            &club.token,
            &format!("/v1/stats/leaderboard?game=mint-condition{query}"),
        )
        .await;
        let answered: Expected = board["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let played = p["games_played"].as_i64().unwrap();
                let rank_sum = (p["average_rank"].as_f64().unwrap() * played as f64).round();
                let total_sum = (p["average_score"].as_f64().unwrap() * played as f64).round();
                (
                    p["player_id"].as_str().unwrap().to_owned(),
                    (
                        played,
                        p["wins"].as_i64().unwrap(),
                        rank_sum as i64,
                        total_sum as i64,
                    ),
                )
            })
            .collect();
        assert_eq!(answered, expected, "{when}: from {from:?} to {to:?}");

        // The game's statistics over the same period, read from its day and month sums.
        let stats = get(
            app,
            &club.token,
            &format!(
                "/v1/stats/games/mint-condition?{}",
                query.trim_start_matches('&')
            ),
        )
        .await;
        let record = |r: &Value| {
            (!r.is_null()).then(|| {
                let game = r["game_id"].as_str().unwrap().to_owned();
                (r["total"].as_i64().unwrap(), game)
            })
        };
        let answered = (
            stats["plays"].as_i64().unwrap(),
            stats["average_score"]
                .as_f64()
                .map(|a| (a * 1e3).round() as i64),
            record(&stats["record_best"]),
            record(&stats["record_worst"]),
        );
        assert_eq!(
            answered,
            expected_game_stats(&games, from_at, to_at),
            "{when}: game statistics from {from:?} to {to:?}"
        );
    }
}

/// A game's statistics as compared: plays, average total (in thousandths), and the best and the
/// worst total with the game that set it.
type GameStatsSeen = (
    i64,
    Option<i64>,
    Option<(i64, String)>,
    Option<(i64, String)>,
);

/// A period's game statistics from its games: the best total is the lowest, and a record is
/// held by the game that set it first (the earliest start, then the lowest game id).
fn expected_game_stats(
    games: &[FinishedGame],
    from: Option<chrono::DateTime<chrono::Utc>>,
    to: Option<chrono::DateTime<chrono::Utc>>,
) -> GameStatsSeen {
    let counted: Vec<&FinishedGame> = games
        .iter()
        .filter(|(_, started, _)| in_period(*started, from, to))
        .collect();
    let seats = counted.iter().flat_map(|(id, started, seats)| {
        seats
            .iter()
            .map(move |(_, _, total)| (*total, *started, id))
    });
    let (count, sum) = seats
        .clone()
        .fold((0, 0), |(n, s), (t, _, _)| (n + 1, s + t));
    let best = seats.clone().min_by_key(|(t, at, id)| (*t, *at, *id));
    let worst = seats.min_by_key(|(t, at, id)| (-*t, *at, *id));
    let record = |r: Option<(i64, chrono::DateTime<chrono::Utc>, &String)>| {
        r.map(|(t, _, id)| (t, id.clone()))
    };
    (
        counted.len() as i64,
        (count > 0).then(|| (sum as f64 / count as f64 * 1e3).round() as i64),
        record(best),
        record(worst),
    )
}

async fn period_leaderboards_sum_the_games_whatever_order_they_were_recorded_and_corrected_in(
    app: TestApp,
) {
    // Arrange: 28 two-player games over January to August, recorded in a shuffled order, so
    // that months are first seen late and games land before months already summed. Ed never
    // sits with Cy, so that Ed can be merged into Cy at the end.
    let club = app.new_club().await;
    let mut rng = Lcg(31);
    let pairs = [
        ("Ann", "Bo"),
        ("Ann", "Cy"),
        ("Bo", "Cy"),
        ("Cy", "Di"),
        ("Ann", "Ed"),
        ("Bo", "Ed"),
        ("Di", "Ed"),
    ];
    let specs: [fn() -> Rounds; 5] = [g1_rounds, g2_rounds, g3_rounds, g4_rounds, g6_rounds];
    let mut planned: Vec<(String, usize, usize)> = (0..28)
        .map(|_| {
            let date = format!("2026-{:02}-{:02}", 1 + rng.below(8), 1 + rng.below(28));
            let pair = rng.below(pairs.len() as u64) as usize;
            let spec = rng.below(specs.len() as u64) as usize;
            (date, pair, spec)
        })
        .collect();
    for i in (1..planned.len()).rev() {
        planned.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut ids = Vec::new();
    for (date, pair, spec) in &planned {
        ids.push(mint_condition(&app, &club, date, pairs[*pair], specs[*spec](), 3).await);
    }
    check_periods(&app, &club, &ids, &mut rng, "recorded").await;

    // Act and assert: corrections. Three games lose their last round (no longer finished),
    // one of them gets it back; one game is abandoned after finishing.
    for id in &ids[3..6] {
        let reply = app
            .append(
                &club,
                id,
                Some(4),
                vec![event("retract", json!({"seq": 4, "reason": "wrong table"}))],
            )
            .await;
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
    let (date, pair, spec) = &planned[4];
    let round = specs[*spec]()[2].clone();
    let (first, second) = pairs[*pair];
    let reply = app
        .append(
            &club,
            &ids[4],
            Some(5),
            vec![event(
                "round_collected",
                json!({"round": 3, "collections": {first: round.0, second: round.1}}),
            )],
        )
        .await;
    assert_eq!(reply.status, 201, "{date}: {}", reply.body);
    abandon(&app, &club, &ids[7], 4).await;
    check_periods(&app, &club, &ids, &mut rng, "corrected").await;

    // Ed merged into Cy: Ed's games count as Cy's in every period.
    let players = get(&app, &club.token, "/v1/players?limit=50").await;
    let id_of = |name: &str| {
        players["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .expect("listed")["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let reply = app
        .post(
            &format!("/v1/players/{}/merge", id_of("Ed")),
            Some(&club.token),
            &json!({"into": id_of("Cy")}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    check_periods(&app, &club, &ids, &mut rng, "merged").await;
}

/// A game of Mint Condition somewhere in 2026's first nine months: its date and rounds.
fn scattered_game(rng: &mut Lcg) -> (String, Rounds) {
    let specs: [fn() -> Rounds; 5] = [g1_rounds, g2_rounds, g3_rounds, g4_rounds, g6_rounds];
    let date = format!("2026-{:02}-{:02}", 1 + rng.below(9), 1 + rng.below(28));
    (date, specs[rng.below(specs.len() as u64) as usize]())
}

async fn period_leaderboards_stay_exact_when_tables_finish_games_of_many_months_at_once(
    app: TestApp,
) {
    // Arrange: eight tables with players of their own, each recording four games at once with
    // the others, started in months scattered over the year (so that one table's finish makes
    // a month while another's adds a late game to the months after its own).
    let club = app.new_club().await;
    let names: Vec<String> = (0..16).map(|i| format!("P{i:02}")).collect();
    let table = |t: usize| {
        let (app, club, names) = (&app, &club, &names);
        async move {
            let mut rng = Lcg(100 + t as u64);
            let mut ids = Vec::new();
            for _ in 0..4 {
                let (date, spec) = scattered_game(&mut rng);
                let pair = (names[2 * t].as_str(), names[2 * t + 1].as_str());
                ids.push(mint_condition(app, club, &date, pair, spec, 3).await);
            }
            ids
        }
    };

    // Act
    let ids: Vec<String> = futures_util::future::join_all((0..8).map(table))
        .await
        .into_iter()
        .flatten()
        .collect();

    // Assert
    check_periods(&app, &club, &ids, &mut Lcg(7), "at once").await;
}

async fn a_rebuild_replays_the_games_in_play_order_page_by_page_and_answers_the_same(app: TestApp) {
    // Arrange: games recorded out of play order, two of them started at the same instant.
    let club = app.new_club().await;
    let mut ids = Vec::new();
    for (date, pair) in [
        ("2026-05-02", ("Ann", "Bo")),
        ("2026-01-09", ("Bo", "Cy")),
        ("2026-03-14", ("Ann", "Cy")),
        ("2026-01-09", ("Ann", "Di")),
        ("2026-02-27", ("Cy", "Di")),
    ] {
        ids.push(mint_condition(&app, &club, date, pair, g1_rounds(), 3).await);
    }
    let mut rng = Lcg(11);
    check_periods(&app, &club, &ids, &mut rng, "recorded").await;
    let store = tabletally_api::store::connect(&app.database_url)
        .await
        .expect("a second connection to the server's database");

    // Act: the rebuild's pages, two games each, and the rebuild itself.
    let mut paged = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let page = store.game_ids(after.as_deref(), 2).await.expect("a page");
        let Some(last) = page.last() else { break };
        after = Some(last.1.clone());
        paged.extend(
            page.into_iter()
                .filter(|(c, _)| *c == club.id)
                .map(|(_, id)| id),
        );
    }
    tabletally_api::statistics::rebuild(store.as_ref())
        .await
        .expect("the rebuild succeeds");

    // Assert: every game once, by start and then id; the same answers after the rebuild.
    let mut by_start = Vec::new();
    for id in &ids {
        let game = get(&app, &club.token, &format!("/v1/games/{id}")).await;
        by_start.push((game["started_at"].as_str().unwrap().to_owned(), id.clone()));
    }
    by_start.sort();
    let expected: Vec<String> = by_start.into_iter().map(|(_, id)| id).collect();
    assert_eq!(paged, expected);
    check_periods(&app, &club, &ids, &mut rng, "rebuilt").await;
}

async fn a_rebuild_beside_tables_finishing_games_leaves_every_period_exact(app: TestApp) {
    // Arrange: sixteen games of eight players over the year, and a second connection to the
    // server's database to rebuild from, as `tabletally rebuild-stats` does while servers run.
    let club = app.new_club().await;
    let names: Vec<String> = (0..8).map(|i| format!("P{i:02}")).collect();
    let played = |rng: &mut Lcg| {
        let (date, spec) = scattered_game(rng);
        let first = rng.below(8) as usize;
        let second = (first + 1 + rng.below(7) as usize) % 8;
        (date, first, second, spec)
    };
    let mut rng = Lcg(23);
    let mut ids = Vec::new();
    for _ in 0..16 {
        let (date, a, b, spec) = played(&mut rng);
        ids.push(mint_condition(&app, &club, &date, (&names[a], &names[b]), spec, 3).await);
    }
    let store = tabletally_api::store::connect(&app.database_url)
        .await
        .expect("a second connection to the server's database");
    let table = |t: u64| {
        let (app, club, names, played) = (&app, &club, &names, &played);
        async move {
            let mut rng = Lcg(200 + t);
            let mut ids = Vec::new();
            for _ in 0..3 {
                let (date, a, b, spec) = played(&mut rng);
                ids.push(mint_condition(app, club, &date, (&names[a], &names[b]), spec, 3).await);
            }
            ids
        }
    };

    // Act: four tables record three games each (the same players, months scattered over the
    // year) while the rebuild clears the read models and replays every game.
    let (rebuilt, recorded) = tokio::join!(
        tabletally_api::statistics::rebuild(store.as_ref()),
        futures_util::future::join_all((0..4).map(table)),
    );

    // Assert: the rebuild ended, and every period counts every game once.
    let (replayed, _) = rebuilt.expect("the rebuild succeeds beside the tables");
    assert!(replayed >= 16, "the rebuild replayed {replayed} games");
    ids.extend(recorded.into_iter().flatten());
    check_periods(&app, &club, &ids, &mut rng, "rebuilt beside tables").await;
}

async fn a_rebuild_that_read_a_game_before_its_last_round_keeps_the_result_the_round_wrote(
    app: TestApp,
) {
    // Arrange: G1 two rounds in, read from a second connection as a rebuild reads it; then a
    // table records the third round, which finishes it (Ann 6 against Bo 14: Ann wins).
    let club = app.new_club().await;
    let id = mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 2).await;
    let store = tabletally_api::store::connect(&app.database_url)
        .await
        .expect("a second connection to the server's database");
    let (read, _) = store
        .events(&club.id, &id)
        .await
        .unwrap()
        .expect("the game");
    let [_, _, (ann, bo)] = g1_rounds();
    let round = json!({"round": 3, "collections": {"Ann": ann, "Bo": bo}});
    let reply = app
        .append(&club, &id, Some(3), vec![event("round_collected", round)])
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);

    // Act: the rebuild writes what it read, a game in play.
    let written = store.replace_result(&club.id, &read, None).await.unwrap();

    // Assert: nothing written, and the finished game still counts, once.
    assert!(!written, "a game moved on since it was read is read again");
    let board = get(
        &app,
        &club.token,
        "/v1/stats/leaderboard?game=mint-condition",
    )
    .await;
    let rows: Vec<_> = board["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].clone(),
                p["games_played"].clone(),
                p["wins"].clone(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (json!("Ann"), json!(1), json!(1)),
            (json!("Bo"), json!(1), json!(0))
        ]
    );
}

async fn a_rebuild_empties_the_read_models_only_between_writes(app: TestApp) {
    // Arrange: a finished game, and a game in play with a write to its row under way on another
    // connection (an append between its update of the row and its commit).
    let club = app.new_club().await;
    mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 3).await;
    let id = mint_condition(&app, &club, "2026-02-14", ("Ann", "Bo"), g2_rounds(), 2).await;
    let store = tabletally_api::store::connect(&app.database_url)
        .await
        .expect("a second connection to the server's database");
    let touch = format!("UPDATE games SET updated_at = updated_at WHERE id = '{id}'");
    let write = HeldWrite::begin(&app, &touch).await;

    // Act: the rebuild's first step, while the write is under way.
    let emptying = tokio::spawn(async move { store.clear_statistics().await });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;

    // Assert: it waits for the write's commit, then empties the read models.
    assert!(!emptying.is_finished(), "emptied in the middle of a write");
    write.commit().await;
    emptying.await.unwrap().expect("emptied after the commit");
    let board = get(
        &app,
        &club.token,
        "/v1/stats/leaderboard?game=mint-condition",
    )
    .await;
    assert_eq!(board["players"], json!([]));
}
