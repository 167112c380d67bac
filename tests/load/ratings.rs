//! `tabletally-load ratings <database-url>`: on a seeded database, the time the store takes to
//! rate every finished game from scratch, and to rate again the games of the last year (what a
//! correction of a game a year back costs), each three times.

use std::time::Instant;

use tabletally_api::store::{self, Usage};

/// What each run removes before the store rates the unrated games again.
const RUNS: [(&str, &[&str]); 2] = [
    (
        "from scratch",
        &["DELETE FROM rated_games", "DELETE FROM rating_current"],
    ),
    (
        "the last year again",
        &["DELETE FROM rated_games WHERE played_at >= \
           (SELECT MAX(started_at) FROM games) - INTERVAL_A_YEAR"],
    ),
];

pub async fn ratings(url: &str) -> Result<(), String> {
    let store = store::connect_for(url, Usage::Pass)
        .await
        .map_err(|e| e.to_string())?;
    let a_year = if url.starts_with("postgres") {
        "INTERVAL '1 year'"
    } else {
        // SQLite compares times as text: a year back from the latest start, as text.
        "0"
    };
    for (name, statements) in RUNS {
        for _ in 0..3 {
            for sql in statements {
                let sql = if url.starts_with("postgres") {
                    sql.replace("INTERVAL_A_YEAR", a_year)
                } else {
                    sql.replace(
                    "(SELECT MAX(started_at) FROM games) - INTERVAL_A_YEAR",
                    "strftime('%Y-%m-%dT%H:%M:%S+00:00', (SELECT MAX(started_at) FROM games), '-1 year')",
                )
                };
                execute(url, &sql).await?;
            }
            let started = Instant::now();
            let games = store.rate_unrated().await.map_err(|e| e.to_string())?;
            println!(
                "ratings {name:<20} {games:>7} games rated in {:>6} ms",
                started.elapsed().as_millis()
            );
        }
    }
    Ok(())
}

/// One statement on its own connection.
async fn execute(url: &str, sql: &str) -> Result<(), String> {
    use sqlx::Connection;
    if url.starts_with("postgres") {
        let mut conn = sqlx::PgConnection::connect(url)
            .await
            .map_err(|e| e.to_string())?;
        sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(&mut conn)
            .await
            .map_err(|e| e.to_string())?;
    } else {
        let mut conn = sqlx::SqliteConnection::connect(url)
            .await
            .map_err(|e| e.to_string())?;
        sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(&mut conn)
            .await
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}
