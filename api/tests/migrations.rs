//! Migrations that convert stored data, each tested from a database written by the schema
//! before it, on SQLite and on PostgreSQL (whenever `TABLETALLY_TEST_POSTGRES_URL` is set; CI
//! sets it and may not skip):
//! - 0005 moves the statistics read models onto the seats and games: every figure is kept;
//! - 0006 counts Heavily Used games under their own variant, with their scoreboard's direction;
//! - 0010 builds the players' runs and the games' day and month sums from the finished seats;
//!   0018 drops the runs' running sums and keeps each run's own result.

use std::path::{Path, PathBuf};

use sqlx::migrate::Migrator;
use sqlx::{Connection, Row};

#[path = "support/test_database.rs"]
mod test_database;

use test_database::{Backend, TestDatabase};

/// A folder holding copies of `backend`'s migrations up to `last` (a database "as it was").
fn migrations_up_to(backend: &str, last: u32) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../migrations")
        .join(backend);
    let copy = std::env::temp_dir().join(format!(
        "tabletally-migrations-{}",
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&copy).unwrap();
    for entry in std::fs::read_dir(source).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let version: u32 = name[..4].parse().unwrap();
        if version <= last {
            std::fs::copy(&path, copy.join(name)).unwrap();
        }
    }
    copy
}

/// One finished Mint Julep game (Ann 5 rank 2, Bo 7 rank 1; Ann's two late bets give
/// `late_penalty` twice) and one unfinished game, in the 0004 layout.
const HISTORY_0004: &[&str] = &[
    "INSERT INTO clubs (id, name, token_hash, created_at) VALUES ('c', 'Club', 'h', '2026-01-01T00:00:00Z')",
    "INSERT INTO players (id, club_id, name, name_key, created_at) VALUES \
       ('ann', 'c', 'Ann', 'ann', '2026-01-01T00:00:00Z'), ('bo', 'c', 'Bo', 'bo', '2026-01-01T00:00:00Z')",
    "INSERT INTO games (id, club_id, game, status, version, options, started_at, created_at, updated_at) VALUES \
       ('g1', 'c', 'mint-julep', 'finished', 9, '{}', '2026-01-10T19:00:00Z', '2026-01-10T19:00:00Z', '2026-01-10T21:00:00Z'), \
       ('g2', 'c', 'mint-julep', 'in_progress', 3, '{}', '2026-01-11T19:00:00Z', '2026-01-11T19:00:00Z', '2026-01-11T20:00:00Z')",
    "INSERT INTO game_players (game_id, seat, player_id, name, color) VALUES \
       ('g1', 1, 'ann', 'Ann', NULL), ('g1', 2, 'bo', 'Bo', NULL), ('g2', 1, 'bo', 'Bo', NULL), ('g2', 2, 'ann', 'Ann', NULL)",
    "INSERT INTO player_results (game_id, player_id, club_id, game, played_at, seat, total, rank, won, players) VALUES \
       ('g1', 'ann', 'c', 'mint-julep', '2026-01-10T19:00:00Z', 1, 5, 2, 0, 2), \
       ('g1', 'bo', 'c', 'mint-julep', '2026-01-10T19:00:00Z', 2, 7, 1, 1, 2)",
    "INSERT INTO player_game_totals (club_id, player_id, game, played, wins, total_sum, rank_sum, min_total, max_total, last_played) VALUES \
       ('c', 'ann', 'mint-julep', 1, 0, 5, 2, 5, 5, '2026-01-10T19:00:00Z'), \
       ('c', 'bo', 'mint-julep', 1, 1, 7, 1, 7, 7, '2026-01-10T19:00:00Z')",
    "INSERT INTO game_facts (game_id, club_id, game, played_at, facts) VALUES ('g1', 'c', 'mint-julep', '2026-01-10T19:00:00Z', \
       '[[\"ann\", \"late_penalty\", 2], [\"ann\", \"late_penalty\", 3], [\"ann\", \"late_bets\", 1], [\"ann\", \"late_bets\", 1], \
         [\"bo\", \"bet:maple-splendor\", 1], [null, \"winning_horse:maple-splendor\", 1]]')",
];

/// What the database holds after the migration ([`Migrated`]).
macro_rules! migrated {
    ($conn:expr) => {{
        let seats: Vec<(
            String,
            i64,
            Option<i64>,
            Option<i64>,
            Option<serde_json::Value>,
        )> = sqlx::query(
            "SELECT game_id, seat, total, rank, facts FROM game_players ORDER BY game_id, seat",
        )
        .fetch_all(&mut $conn)
        .await
        .unwrap()
        .iter()
        .map(|r| {
            let facts: Option<String> = r.get("facts");
            (
                r.get("game_id"),
                r.get("seat"),
                r.get("total"),
                r.get("rank"),
                facts.map(|f| serde_json::from_str(&f).unwrap()),
            )
        })
        .collect();
        let games: Vec<(String, Option<serde_json::Value>)> =
            sqlx::query("SELECT id, facts FROM games ORDER BY id")
                .fetch_all(&mut $conn)
                .await
                .unwrap()
                .iter()
                .map(|r| {
                    let facts: Option<String> = r.get("facts");
                    (
                        r.get("id"),
                        facts.map(|f| serde_json::from_str(&f).unwrap()),
                    )
                })
                .collect();
        let sums: Vec<(String, i64, i64, i64)> = sqlx::query(
            "SELECT player_id, played, wins, total_sum FROM player_game_totals ORDER BY player_id",
        )
        .fetch_all(&mut $conn)
        .await
        .unwrap()
        .iter()
        .map(|r| {
            (
                r.get("player_id"),
                r.get("played"),
                r.get("wins"),
                r.get("total_sum"),
            )
        })
        .collect();
        let old_table = sqlx::query("SELECT COUNT(*) FROM player_results")
            .fetch_one(&mut $conn)
            .await;
        (seats, games, sums, old_table.is_err())
    }};
}

/// Migrates a database written by the schema up to `$last` with `$history` to today's, then
/// reads it with `$read`.
macro_rules! migrate_and_read {
    ($url:expr, $backend:literal, $conn_type:ty, $migrator:expr) => {
        migrate_and_read!(
            $url,
            $backend,
            $conn_type,
            $migrator,
            4,
            HISTORY_0004,
            migrated
        )
    };
    ($url:expr, $backend:literal, $conn_type:ty, $migrator:expr, $last:expr, $history:expr, $read:ident) => {{
        let before = migrations_up_to($backend, $last);
        let mut conn = <$conn_type>::connect($url).await.unwrap();
        Migrator::new(before.as_path())
            .await
            .unwrap()
            .run(&mut conn)
            .await
            .unwrap();
        for statement in $history {
            sqlx::query(*statement).execute(&mut conn).await.unwrap();
        }
        $migrator.run(&mut conn).await.unwrap();
        std::fs::remove_dir_all(before).unwrap();
        $read!(conn)
    }};
}

/// `(game, seat, total, rank, facts)`.
type Seat = (
    String,
    i64,
    Option<i64>,
    Option<i64>,
    Option<serde_json::Value>,
);
/// Every seat, every game's `(id, facts)`, the sums `(player, played, wins, total_sum)`, and
/// whether the old results table is gone.
type Migrated = (
    Vec<Seat>,
    Vec<(String, Option<serde_json::Value>)>,
    Vec<(String, i64, i64, i64)>,
    bool,
);

fn assert_converted((seats, games, sums, old_table_gone): Migrated) {
    use serde_json::json;
    assert_eq!(
        seats,
        vec![
            (
                "g1".into(),
                1,
                Some(5),
                Some(2),
                Some(json!({"late_penalty": 5, "late_bets": 2}))
            ),
            (
                "g1".into(),
                2,
                Some(7),
                Some(1),
                Some(json!({"bet:maple-splendor": 1}))
            ),
            ("g2".into(), 1, None, None, None),
            ("g2".into(), 2, None, None, None),
        ]
    );
    assert_eq!(
        games,
        vec![
            (
                "g1".into(),
                Some(json!({"winning_horse:maple-splendor": 1}))
            ),
            ("g2".into(), None),
        ]
    );
    assert_eq!(sums, vec![("ann".into(), 1, 0, 5), ("bo".into(), 1, 1, 7)]);
    assert!(old_table_gone, "player_results is dropped");
}

/// A fresh SQLite file for sqlx to create (`mode=rwc`: the migrations open it, not the server).
async fn fresh_sqlite() -> (TestDatabase, String) {
    let (database, url) = TestDatabase::fresh(Backend::Sqlite, "tabletally_migrate")
        .await
        .expect("SQLite always runs");
    (database, format!("{url}?mode=rwc"))
}

/// A fresh PostgreSQL database; `None` when PostgreSQL is not configured (outside CI).
async fn fresh_postgres() -> Option<(TestDatabase, String)> {
    TestDatabase::fresh(Backend::Postgres, "tabletally_migrate").await
}

#[tokio::test]
async fn results_and_facts_move_onto_the_seats_on_sqlite() {
    let (_database, url) = fresh_sqlite().await;

    let migrated = migrate_and_read!(
        &url,
        "sqlite",
        sqlx::SqliteConnection,
        tabletally_api::store::migrations::sqlite()
    );

    assert_converted(migrated);
}

#[tokio::test]
async fn results_and_facts_move_onto_the_seats_on_postgres() {
    let Some((_database, url)) = fresh_postgres().await else {
        return;
    };

    let migrated = migrate_and_read!(
        &url,
        "postgres",
        sqlx::PgConnection,
        tabletally_api::store::migrations::postgres()
    );

    assert_converted(migrated);
}

/// Three finished games as the 0005 schema stored them — Mint Condition by the published rules
/// (Ann 20 wins, Bo 30), Mint Condition Heavily Used (Bo 42 wins, Ann 14), Vintage (Ann 31
/// wins, Bo 20) — and an unfinished Heavily Used game. 0005 summed both Mint Conditions.
const HISTORY_0005: &[&str] = &[
    "INSERT INTO clubs (id, name, token_hash, created_at) VALUES ('c', 'Club', 'h', '2026-01-01T00:00:00Z')",
    "INSERT INTO players (id, club_id, name, name_key, created_at) VALUES \
       ('ann', 'c', 'Ann', 'ann', '2026-01-01T00:00:00Z'), ('bo', 'c', 'Bo', 'bo', '2026-01-01T00:00:00Z')",
    "INSERT INTO games (id, club_id, game, status, version, options, started_at, created_at, updated_at) VALUES \
       ('g1', 'c', 'mint-condition', 'finished', 4, '{\"lucky\": false, \"heavily_used\": false, \"strict_counts\": true}', \
          '2026-01-10T19:00:00Z', '2026-01-10T19:00:00Z', '2026-01-10T21:00:00Z'), \
       ('g2', 'c', 'mint-condition', 'finished', 4, '{\"lucky\": false, \"heavily_used\": true, \"strict_counts\": true}', \
          '2026-01-11T19:00:00Z', '2026-01-11T19:00:00Z', '2026-01-11T21:00:00Z'), \
       ('g3', 'c', 'vintage', 'finished', 9, '{}', '2026-01-12T19:00:00Z', '2026-01-12T19:00:00Z', '2026-01-12T21:00:00Z'), \
       ('g4', 'c', 'mint-condition', 'in_progress', 2, '{\"heavily_used\": true}', \
          '2026-01-13T19:00:00Z', '2026-01-13T19:00:00Z', '2026-01-13T20:00:00Z')",
    "INSERT INTO game_players (game_id, seat, player_id, name, color, total, rank) VALUES \
       ('g1', 1, 'ann', 'Ann', NULL, 20, 1), ('g1', 2, 'bo', 'Bo', NULL, 30, 2), \
       ('g2', 1, 'ann', 'Ann', NULL, 14, 2), ('g2', 2, 'bo', 'Bo', NULL, 42, 1), \
       ('g3', 1, 'ann', 'Ann', NULL, 31, 1), ('g3', 2, 'bo', 'Bo', NULL, 20, 2), \
       ('g4', 1, 'ann', 'Ann', NULL, NULL, NULL), ('g4', 2, 'bo', 'Bo', NULL, NULL, NULL)",
    "INSERT INTO player_game_totals (club_id, player_id, game, played, wins, total_sum, rank_sum, min_total, max_total, last_played) VALUES \
       ('c', 'ann', 'mint-condition', 2, 1, 34, 3, 14, 20, '2026-01-11T19:00:00Z'), \
       ('c', 'bo', 'mint-condition', 2, 1, 72, 3, 30, 42, '2026-01-11T19:00:00Z'), \
       ('c', 'ann', 'vintage', 1, 1, 31, 1, 31, 31, '2026-01-12T19:00:00Z'), \
       ('c', 'bo', 'vintage', 1, 0, 20, 2, 20, 20, '2026-01-12T19:00:00Z')",
];

/// Every game's `(id, variant, lower_wins)` and the sums `(player, game, variant, lower_wins,
/// played, wins, total_sum, min_total, max_total)`.
macro_rules! variants {
    ($conn:expr) => {{
        let games: Vec<GameVariant> =
            sqlx::query("SELECT id, variant, lower_wins FROM games ORDER BY id")
                .fetch_all(&mut $conn)
                .await
                .unwrap()
                .iter()
                .map(|r| (r.get("id"), r.get("variant"), r.get("lower_wins")))
                .collect();
        let sums: Vec<Sums> = sqlx::query(
            "SELECT player_id, game, variant, lower_wins, played, wins, total_sum, min_total, max_total \
             FROM player_game_totals ORDER BY player_id, game, variant",
        )
        .fetch_all(&mut $conn)
        .await
        .unwrap()
        .iter()
        .map(|r| {
            (
                r.get("player_id"),
                r.get("game"),
                r.get("variant"),
                r.get("lower_wins"),
                [
                    r.get("played"),
                    r.get("wins"),
                    r.get("total_sum"),
                    r.get("min_total"),
                    r.get("max_total"),
                ],
            )
        })
        .collect();
        (games, sums)
    }};
}

/// `(player, game, variant, lower_wins, [played, wins, total_sum, min_total, max_total])`.
type Sums = (String, String, String, i64, [i64; 5]);
/// `(game id, variant, lower_wins)`.
type GameVariant = (String, String, Option<i64>);

fn assert_counted_apart((games, sums): (Vec<GameVariant>, Vec<Sums>)) {
    let s = |x: &str| x.to_owned();
    assert_eq!(
        games,
        vec![
            (s("g1"), s(""), Some(1)),
            (s("g2"), s("heavily-used"), Some(0)),
            (s("g3"), s(""), Some(0)),
            (s("g4"), s("heavily-used"), None),
        ]
    );
    assert_eq!(
        sums,
        vec![
            (s("ann"), s("mint-condition"), s(""), 1, [1, 1, 20, 20, 20]),
            (
                s("ann"),
                s("mint-condition"),
                s("heavily-used"),
                0,
                [1, 0, 14, 14, 14]
            ),
            (s("ann"), s("vintage"), s(""), 0, [1, 1, 31, 31, 31]),
            (s("bo"), s("mint-condition"), s(""), 1, [1, 0, 30, 30, 30]),
            (
                s("bo"),
                s("mint-condition"),
                s("heavily-used"),
                0,
                [1, 1, 42, 42, 42]
            ),
            (s("bo"), s("vintage"), s(""), 0, [1, 0, 20, 20, 20]),
        ]
    );
}

#[tokio::test]
async fn heavily_used_games_are_counted_apart_after_migration_0006_on_sqlite() {
    let (_database, url) = fresh_sqlite().await;

    let migrated = migrate_and_read!(
        &url,
        "sqlite",
        sqlx::SqliteConnection,
        tabletally_api::store::migrations::sqlite(),
        5,
        HISTORY_0005,
        variants
    );

    assert_counted_apart(migrated);
}

#[tokio::test]
async fn heavily_used_games_are_counted_apart_after_migration_0006_on_postgres() {
    let Some((_database, url)) = fresh_postgres().await else {
        return;
    };

    let migrated = migrate_and_read!(
        &url,
        "postgres",
        sqlx::PgConnection,
        tabletally_api::store::migrations::postgres(),
        5,
        HISTORY_0005,
        variants
    );

    assert_counted_apart(migrated);
}

/// A database written before 0010: three finished Mint Condition games by the published rules
/// — g1 (10 January 19:00: Ann 20 wins, Bo 30; Ann's Fine Wine 4, Bo's Fine Wine 2 and Be
/// Careful! 7; Be Careful! decided it), g2 (10 January 21:00: Ann 25, Bo 20 wins; Bo's Fine
/// Wine 3), g3 (3 February: Ann 20 wins, Bo 24) — one Heavily Used (12 January: Bo 42 wins,
/// Ann 14) and one unfinished.
const HISTORY_0008: &[&str] = &[
    "INSERT INTO clubs (id, name, token_hash, created_at) VALUES ('c', 'Club', 'h', '2026-01-01T00:00:00+00:00')",
    "INSERT INTO players (id, club_id, name, name_key, created_at) VALUES \
       ('ann', 'c', 'Ann', 'ann', '2026-01-01T00:00:00+00:00'), ('bo', 'c', 'Bo', 'bo', '2026-01-01T00:00:00+00:00')",
    "INSERT INTO games (id, club_id, game, status, version, options, started_at, created_at, updated_at, variant, lower_wins, facts) VALUES \
       ('g1', 'c', 'mint-condition', 'finished', 4, '{}', '2026-01-10T19:00:00+00:00', '2026-01-10T19:00:00+00:00', '2026-01-10T21:00:00+00:00', '', 1, \
          '{\"be_careful_decided\": 1}'), \
       ('g2', 'c', 'mint-condition', 'finished', 4, '{}', '2026-01-10T21:00:00+00:00', '2026-01-10T21:00:00+00:00', '2026-01-10T23:00:00+00:00', '', 1, NULL), \
       ('g3', 'c', 'mint-condition', 'finished', 4, '{}', '2026-02-03T19:00:00+00:00', '2026-02-03T19:00:00+00:00', '2026-02-03T21:00:00+00:00', '', 1, NULL), \
       ('g4', 'c', 'mint-condition', 'finished', 4, '{\"heavily_used\": true}', '2026-01-12T19:00:00+00:00', '2026-01-12T19:00:00+00:00', \
          '2026-01-12T21:00:00+00:00', 'heavily-used', 0, NULL), \
       ('g5', 'c', 'mint-condition', 'in_progress', 2, '{}', '2026-02-04T19:00:00+00:00', '2026-02-04T19:00:00+00:00', '2026-02-04T20:00:00+00:00', '', NULL, NULL)",
    "INSERT INTO game_players (game_id, seat, player_id, name, color, total, rank, facts) VALUES \
       ('g1', 1, 'ann', 'Ann', NULL, 20, 1, '{\"damage:fine-wine\": 4}'), \
       ('g1', 2, 'bo', 'Bo', NULL, 30, 2, '{\"damage:fine-wine\": 2, \"damage:be-careful\": 7}'), \
       ('g2', 1, 'ann', 'Ann', NULL, 25, 2, NULL), ('g2', 2, 'bo', 'Bo', NULL, 20, 1, '{\"damage:fine-wine\": 3}'), \
       ('g3', 1, 'ann', 'Ann', NULL, 20, 1, NULL), ('g3', 2, 'bo', 'Bo', NULL, 24, 2, NULL), \
       ('g4', 1, 'ann', 'Ann', NULL, 14, 2, NULL), ('g4', 2, 'bo', 'Bo', NULL, 42, 1, NULL), \
       ('g5', 1, 'ann', 'Ann', NULL, NULL, NULL, NULL), ('g5', 2, 'bo', 'Bo', NULL, NULL, NULL, NULL)",
];

/// `(player, game, variant, game id, [total, rank, lower_wins])` in the runs' order.
type Run = (String, String, String, String, [i64; 3]);
/// `(variant, span, [plays, results, total_sum, lower_results, lowest total, its seat,
/// highest total, its seat], lowest's game, highest's game, seat facts, game facts)`.
type Bucket = (
    String,
    String,
    [i64; 8],
    String,
    String,
    serde_json::Value,
    serde_json::Value,
);

/// The runs, and the buckets looked up by the key the server binds (a UTC midnight), so a
/// start stored in another form would not be found.
macro_rules! history {
    ($conn:expr) => {{
        let runs: Vec<Run> = sqlx::query(
            "SELECT player_id, game, variant, game_id, total, rank, lower_wins FROM player_runs \
             ORDER BY player_id, game, variant, played_at, game_id",
        )
        .fetch_all(&mut $conn)
        .await
        .unwrap()
        .iter()
        .map(|r| {
            (
                r.get("player_id"),
                r.get("game"),
                r.get("variant"),
                r.get("game_id"),
                ["total", "rank", "lower_wins"].map(|c| r.get::<i64, _>(c)),
            )
        })
        .collect();
        let mut buckets: Vec<Bucket> = Vec::new();
        for (span, at) in [
            ("day", "2026-01-10T00:00:00Z"),
            ("day", "2026-01-12T00:00:00Z"),
            ("day", "2026-02-03T00:00:00Z"),
            ("month", "2026-01-01T00:00:00Z"),
            ("month", "2026-02-01T00:00:00Z"),
        ] {
            let at: chrono::DateTime<chrono::Utc> = at.parse().unwrap();
            let rows = sqlx::query(
                "SELECT * FROM game_buckets WHERE club_id = 'c' AND game = 'mint-condition' \
                 AND span = $1 AND starts_at = $2 ORDER BY variant",
            )
            .bind(span)
            .bind(at)
            .fetch_all(&mut $conn)
            .await
            .unwrap();
            for r in rows {
                let json = |c: &str| serde_json::from_str(&r.get::<String, _>(c)).unwrap();
                buckets.push((
                    r.get("variant"),
                    format!("{span} {}", at.format("%m-%d")),
                    [
                        "plays",
                        "results",
                        "total_sum",
                        "lower_results",
                        "lowest_total",
                        "lowest_seat",
                        "highest_total",
                        "highest_seat",
                    ]
                    .map(|c| r.get::<i64, _>(c)),
                    r.get("lowest_game_id"),
                    r.get("highest_game_id"),
                    json("seat_facts"),
                    json("game_facts"),
                ));
            }
        }
        let count: i64 = sqlx::query("SELECT COUNT(*) AS n FROM game_buckets")
            .fetch_one(&mut $conn)
            .await
            .unwrap()
            .get("n");
        (runs, buckets, count)
    }};
}

fn assert_history_built((runs, buckets, count): (Vec<Run>, Vec<Bucket>, i64)) {
    use serde_json::json;
    let s = |x: &str| x.to_owned();
    let run = |p: &str, v: &str, g: &str, figures: [i64; 3]| {
        (s(p), s("mint-condition"), s(v), s(g), figures)
    };
    // Each finished seat's run in play order (0018 dropped the running sums 0010 built beside
    // them): Ann 20 W, 25 L, 20 W; Bo 30 L, 20 W, 24 L; the Heavily Used game apart.
    assert_eq!(
        runs,
        vec![
            run("ann", "", "g1", [20, 1, 1]),
            run("ann", "", "g2", [25, 2, 1]),
            run("ann", "", "g3", [20, 1, 1]),
            run("ann", "heavily-used", "g4", [14, 2, 0]),
            run("bo", "", "g1", [30, 2, 1]),
            run("bo", "", "g2", [20, 1, 1]),
            run("bo", "", "g3", [24, 2, 1]),
            run("bo", "heavily-used", "g4", [42, 1, 0]),
        ]
    );
    // 10 January: g1 and g2, 20 + 30 + 25 + 20 = 95; the lowest 20 twice, g1's (earlier) holds
    // it; Fine Wine 4 + 2 + 3 over 3 seats, Be Careful! 7 over 1; Be Careful! decided g1.
    let january_10 = |span: &str| {
        (
            s(""),
            s(span),
            [2, 4, 95, 4, 20, 1, 30, 2],
            s("g1"),
            s("g1"),
            json!({"damage:fine-wine": [9, 3], "damage:be-careful": [7, 1]}),
            json!({"be_careful_decided": [1, 1]}),
        )
    };
    let february_3 = |span: &str| {
        (
            s(""),
            s(span),
            [1, 2, 44, 2, 20, 1, 24, 2],
            s("g3"),
            s("g3"),
            json!({}),
            json!({}),
        )
    };
    let heavily_used = |span: &str| {
        (
            s("heavily-used"),
            s(span),
            [1, 2, 56, 0, 14, 1, 42, 2],
            s("g4"),
            s("g4"),
            json!({}),
            json!({}),
        )
    };
    assert_eq!(
        buckets,
        vec![
            january_10("day 01-10"),
            heavily_used("day 01-12"),
            february_3("day 02-03"),
            january_10("month 01-01"),
            heavily_used("month 01-01"),
            february_3("month 02-01"),
        ]
    );
    assert_eq!(count, 6, "no bucket for the unfinished game");
}

#[tokio::test]
async fn runs_and_day_and_month_sums_are_built_by_migration_0010_on_sqlite() {
    let (_database, url) = fresh_sqlite().await;

    let built = migrate_and_read!(
        &url,
        "sqlite",
        sqlx::SqliteConnection,
        tabletally_api::store::migrations::sqlite(),
        8,
        HISTORY_0008,
        history
    );

    assert_history_built(built);
}

#[tokio::test]
async fn runs_and_day_and_month_sums_are_built_by_migration_0010_on_postgres() {
    let Some((_database, url)) = fresh_postgres().await else {
        return;
    };

    let built = migrate_and_read!(
        &url,
        "postgres",
        sqlx::PgConnection,
        tabletally_api::store::migrations::postgres(),
        8,
        HISTORY_0008,
        history
    );

    assert_history_built(built);
}
