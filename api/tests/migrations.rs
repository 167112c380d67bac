//! Migrations that convert stored data, each tested from a database written by the schema
//! before it, on SQLite and on PostgreSQL (whenever `TABLETALLY_TEST_POSTGRES_URL` is set; CI
//! sets it and may not skip):
//! - 0005 moves the statistics read models onto the seats and games: every figure is kept;
//! - 0006 counts Heavily Used games under their own variant, with their scoreboard's direction.

use std::path::{Path, PathBuf};

use sqlx::migrate::Migrator;
use sqlx::{Connection, Row};

const POSTGRES_URL_VAR: &str = "TABLETALLY_TEST_POSTGRES_URL";

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

/// A fresh SQLite file, deleted afterwards, and a fresh PostgreSQL database, dropped afterwards
/// (`None` when PostgreSQL is not configured outside CI).
fn sqlite_url() -> (String, PathBuf) {
    let path = std::env::temp_dir().join(format!(
        "tabletally-migrate-{}.db",
        uuid::Uuid::new_v4().simple()
    ));
    (format!("sqlite://{}?mode=rwc", path.display()), path)
}

fn remove_sqlite(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

async fn postgres_database() -> Option<(String, String, String)> {
    let Ok(admin_url) = std::env::var(POSTGRES_URL_VAR) else {
        assert!(
            std::env::var("CI").is_err(),
            "{POSTGRES_URL_VAR} must be set in CI"
        );
        eprintln!("skipped: set {POSTGRES_URL_VAR} to run the PostgreSQL half of this test");
        return None;
    };
    let name = format!("tabletally_migrate_{}", uuid::Uuid::new_v4().simple());
    let mut admin = sqlx::PgConnection::connect(&admin_url).await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
        .execute(&mut admin)
        .await
        .unwrap();
    let url = format!("{}/{name}", admin_url.rsplit_once('/').unwrap().0);
    Some((admin_url, name, url))
}

async fn drop_postgres(admin_url: &str, name: &str) {
    let mut admin = sqlx::PgConnection::connect(admin_url).await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE \"{name}\" WITH (FORCE)"
    )))
    .execute(&mut admin)
    .await
    .unwrap();
}

#[tokio::test]
async fn results_and_facts_move_onto_the_seats_on_sqlite() {
    let (url, path) = sqlite_url();

    let migrated = migrate_and_read!(
        &url,
        "sqlite",
        sqlx::SqliteConnection,
        sqlx::migrate!("../migrations/sqlite")
    );

    remove_sqlite(&path);
    assert_converted(migrated);
}

#[tokio::test]
async fn results_and_facts_move_onto_the_seats_on_postgres() {
    let Some((admin_url, name, url)) = postgres_database().await else {
        return;
    };

    let migrated = migrate_and_read!(
        &url,
        "postgres",
        sqlx::PgConnection,
        sqlx::migrate!("../migrations/postgres")
    );

    drop_postgres(&admin_url, &name).await;
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
    let (url, path) = sqlite_url();

    let migrated = migrate_and_read!(
        &url,
        "sqlite",
        sqlx::SqliteConnection,
        sqlx::migrate!("../migrations/sqlite"),
        5,
        HISTORY_0005,
        variants
    );

    remove_sqlite(&path);
    assert_counted_apart(migrated);
}

#[tokio::test]
async fn heavily_used_games_are_counted_apart_after_migration_0006_on_postgres() {
    let Some((admin_url, name, url)) = postgres_database().await else {
        return;
    };

    let migrated = migrate_and_read!(
        &url,
        "postgres",
        sqlx::PgConnection,
        sqlx::migrate!("../migrations/postgres"),
        5,
        HISTORY_0005,
        variants
    );

    drop_postgres(&admin_url, &name).await;
    assert_counted_apart(migrated);
}
