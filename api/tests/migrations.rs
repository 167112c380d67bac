//! Migration 0005 moves the statistics read models onto the seats and games: a database holding
//! results and facts in the 0004 layout keeps every figure, on SQLite and on PostgreSQL
//! (whenever `TABLETALLY_TEST_POSTGRES_URL` is set; CI sets it and may not skip).

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

macro_rules! migrate_and_read {
    ($url:expr, $backend:literal, $conn_type:ty, $migrator:expr) => {{
        let before = migrations_up_to($backend, 4);
        let mut conn = <$conn_type>::connect($url).await.unwrap();
        Migrator::new(before.as_path())
            .await
            .unwrap()
            .run(&mut conn)
            .await
            .unwrap();
        for statement in HISTORY_0004 {
            sqlx::query(*statement).execute(&mut conn).await.unwrap();
        }
        $migrator.run(&mut conn).await.unwrap();
        std::fs::remove_dir_all(before).unwrap();
        migrated!(conn)
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

#[tokio::test]
async fn results_and_facts_move_onto_the_seats_on_sqlite() {
    let path = std::env::temp_dir().join(format!(
        "tabletally-migrate-{}.db",
        uuid::Uuid::new_v4().simple()
    ));
    let url = format!("sqlite://{}?mode=rwc", path.display());

    let migrated = migrate_and_read!(
        &url,
        "sqlite",
        sqlx::SqliteConnection,
        sqlx::migrate!("../migrations/sqlite")
    );

    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    assert_converted(migrated);
}

#[tokio::test]
async fn results_and_facts_move_onto_the_seats_on_postgres() {
    let Ok(admin_url) = std::env::var(POSTGRES_URL_VAR) else {
        assert!(
            std::env::var("CI").is_err(),
            "{POSTGRES_URL_VAR} must be set in CI"
        );
        eprintln!("skipped: set {POSTGRES_URL_VAR} to run the PostgreSQL half of this test");
        return;
    };
    let name = format!("tabletally_migrate_{}", uuid::Uuid::new_v4().simple());
    let mut admin = sqlx::PgConnection::connect(&admin_url).await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
        .execute(&mut admin)
        .await
        .unwrap();
    let url = format!("{}/{name}", admin_url.rsplit_once('/').unwrap().0);

    let migrated = migrate_and_read!(
        &url,
        "postgres",
        sqlx::PgConnection,
        sqlx::migrate!("../migrations/postgres")
    );

    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE \"{name}\" WITH (FORCE)"
    )))
    .execute(&mut admin)
    .await
    .unwrap();
    assert_converted(migrated);
}
