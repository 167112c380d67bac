//! `tabletally`: the score-keeping server. Configuration by environment: `TABLETALLY_ADDR`,
//! `DATABASE_URL`, `RUST_LOG` (see the README).
//!
//! - `tabletally` — serve.
//! - `tabletally openapi` — print the OpenAPI document.
//! - `tabletally rebuild-stats` — rebuild the statistics read models from the event log.

use tabletally_api::config::Config;

use tabletally_api::startup::Application;

// Scoring builds many small strings and JSON values; mimalloc makes a replay about a third
// faster than the system allocator (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    if std::env::args().nth(1).as_deref() == Some("openapi") {
        let json = tabletally_api::openapi::document()
            .to_pretty_json()
            .map_err(std::io::Error::other)?;
        println!("{json}");
        return Ok(());
    }
    tabletally_api::telemetry::init();
    let config = Config::from_env();
    if std::env::args().nth(1).as_deref() == Some("rebuild-stats") {
        return rebuild_stats(&config).await;
    }
    match Application::build(&config).await {
        Ok(app) => app.run_until_stopped().await,
        Err(e) => {
            tracing::error!(error = %e, "could not start");
            std::process::exit(1);
        }
    }
}

async fn rebuild_stats(config: &Config) -> std::io::Result<()> {
    let store = tabletally_api::store::connect(&config.database_url)
        .await
        .map_err(std::io::Error::other)?;
    let (replayed, finished) = tabletally_api::statistics::rebuild(store.as_ref())
        .await
        .map_err(std::io::Error::other)?;
    tracing::info!(replayed, finished, "statistics rebuilt from the event log");
    Ok(())
}
