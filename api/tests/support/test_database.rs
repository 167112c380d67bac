//! A fresh database per test: a SQLite file in a directory of its own, or a PostgreSQL database
//! made from `TABLETALLY_TEST_POSTGRES_URL`, removed or dropped with its guard (also when the
//! test panics). The server's own tests (api/tests) and the end-to-end tests (tests/e2e) include
//! this one file.

use std::path::PathBuf;

use sqlx::Connection;

pub const POSTGRES_URL_VAR: &str = "TABLETALLY_TEST_POSTGRES_URL";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Where a test's database lives; dropped with the test.
pub enum TestDatabase {
    Sqlite { dir: PathBuf },
    Postgres { admin_url: String, name: String },
}

impl TestDatabase {
    /// A fresh database, its name beginning with `prefix`, and its URL; `None` when PostgreSQL
    /// is not configured (outside CI).
    pub async fn fresh(backend: Backend, prefix: &str) -> Option<(TestDatabase, String)> {
        match backend {
            Backend::Sqlite => {
                let dir = std::env::temp_dir().join(format!("{prefix}-{}", uuid::Uuid::new_v4()));
                std::fs::create_dir_all(&dir).expect("create a temp directory");
                let url = format!("sqlite://{}", dir.join("tabletally.db").display());
                Some((TestDatabase::Sqlite { dir }, url))
            }
            Backend::Postgres => {
                let Ok(admin_url) = std::env::var(POSTGRES_URL_VAR) else {
                    skip_outside_ci(
                        &format!("{POSTGRES_URL_VAR} must be set"),
                        &format!("set {POSTGRES_URL_VAR} to run the PostgreSQL half of this test"),
                    );
                    return None;
                };
                let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
                let mut conn = sqlx::PgConnection::connect(&admin_url)
                    .await
                    .unwrap_or_else(|e| {
                        panic!("PostgreSQL at {POSTGRES_URL_VAR} is unreachable: {e}")
                    });
                sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
                    .execute(&mut conn)
                    .await
                    .expect("create a test database");
                let url = replace_database(&admin_url, &name);
                Some((TestDatabase::Postgres { admin_url, name }, url))
            }
        }
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        match self {
            TestDatabase::Sqlite { dir } => {
                let _ = std::fs::remove_dir_all(dir);
            }
            TestDatabase::Postgres { admin_url, name } => {
                let (admin_url, name) = (admin_url.clone(), name.clone());
                // Drop runs outside async: a small runtime of its own drops the database.
                let _ = std::thread::spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build();
                    if let Ok(rt) = rt {
                        rt.block_on(async {
                            if let Ok(mut conn) = sqlx::PgConnection::connect(&admin_url).await {
                                let sql =
                                    format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)");
                                let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                                    .execute(&mut conn)
                                    .await;
                            }
                        });
                    }
                })
                .join();
            }
        }
    }
}

/// `postgres://u@h:5432/postgres?x` → `postgres://u@h:5432/<name>?x`.
pub fn replace_database(url: &str, name: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let host_part = match base[scheme_end..].find('/') {
        Some(slash) => &base[..scheme_end + slash],
        None => base,
    };
    match query {
        Some(q) => format!("{host_part}/{name}?{q}"),
        None => format!("{host_part}/{name}"),
    }
}

/// A test that needs something this machine lacks prints `skipped` (with `how`) locally; in CI
/// (`CI` set) nothing may be skipped, so it fails saying `missing`.
pub fn skip_outside_ci(missing: &str, how: &str) {
    assert!(
        std::env::var("CI").is_err(),
        "{missing} in CI: this test may not be skipped there"
    );
    eprintln!("skipped: {how}");
}
