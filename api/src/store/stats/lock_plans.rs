//! PostgreSQL's plans for the locks a correction takes, on tables the planner has never analysed
//! (a new database, autovacuum off): each seated player is found by its key, whatever the
//! players table holds. Run when `TABLETALLY_TEST_POSTGRES_URL` names a database.

use sqlx::{Connection, PgConnection, Row};

use super::write::seats_locked;

/// The generic plan PostgreSQL keeps for `sql` once a connection has run it a few times, on a
/// fresh database whose players table holds 500 of one club's players and was never analysed.
async fn generic_plan(sql: &str, args: &str) -> Option<String> {
    let url = crate::store::test_postgres_url()?;
    let name = format!(
        "tabletally_plans_{}_{}",
        std::process::id(),
        chrono::Utc::now().timestamp_micros()
    );
    let mut admin = PgConnection::connect(&url).await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin)
        .await
        .unwrap();
    let database_url = format!("{}/{name}", url.rsplit_once('/').unwrap().0);
    let plan = async {
        let mut conn = PgConnection::connect(&database_url).await.unwrap();
        crate::store::migrations::postgres()
            .run(&mut conn)
            .await
            .unwrap();
        sqlx::raw_sql(
            "INSERT INTO clubs (id, name, token_hash, created_at) VALUES ('c', 'Friday', 'x', now()); \
             INSERT INTO players (id, club_id, name, name_key, created_at) \
               SELECT 'p' || n, 'c', 'Player ' || n, 'player ' || n, now() FROM generate_series(1, 500) n",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "PREPARE locks AS {sql}; SET plan_cache_mode = force_generic_plan"
        )))
        .execute(&mut conn)
        .await
        .unwrap();
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "EXPLAIN (COSTS OFF) EXECUTE locks({args})"
        )))
        .fetch_all(&mut conn)
        .await
        .unwrap();
        conn.close().await.unwrap();
        rows.iter()
            .map(|row| row.get::<String, _>(0))
            .collect::<Vec<_>>()
            .join("\n")
    }
    .await;
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE {name} WITH (FORCE)"
    )))
    .execute(&mut admin)
    .await
    .unwrap();
    Some(plan)
}

fn assert_players_found_by_key(plan: &str) {
    assert!(
        !plan.contains("Seq Scan on players"),
        "the players table is walked:\n{plan}"
    );
    assert!(
        plan.contains("Index Scan using players_pkey on players"),
        "no player is found by its key:\n{plan}"
    );
}

#[tokio::test]
async fn a_corrections_lock_of_its_seats_finds_each_player_by_its_key_on_a_table_never_analysed() {
    let Some(plan) = generic_plan(&seats_locked::<sqlx::Postgres>(), "'g1'").await else {
        return;
    };
    assert_players_found_by_key(&plan);
}
