//! `tabletally`: the score-keeping server. Configuration by environment: `TABLETALLY_ADDR`,
//! `DATABASE_URL`, `RUST_LOG` (see docs/configuration.md).
//!
//! - `tabletally` — serve.
//! - `tabletally openapi` — print the OpenAPI document.
//! - `tabletally rebuild-stats` — rebuild the statistics read models from the event log.
//! - `tabletally export --club <id> > club.ndjson` — a club's players, presets and history
//!   (`tabletally.player/1`, `tabletally.preset/1`, `tabletally.game/1`).
//! - `tabletally import --club <id> < club.ndjson` — the same back in (prints the report).
//! - `tabletally migrate --from sqlite://… --to postgres://…` — copies every club into an empty
//!   database, then checks every game's score and every statistic answers the same on both.

use tabletally_api::config::Config;

use tabletally_api::startup::Application;

// Scoring builds many small strings and JSON values, which mimalloc allocates faster than the
// system allocator.
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = match args.first().map(String::as_str) {
        Some("rebuild-stats") => Some(rebuild_stats(&config).await),
        Some("export") => Some(async { export(&config, &flag(&args, "--club")?).await }.await),
        Some("import") => Some(async { import(&config, &flag(&args, "--club")?).await }.await),
        Some("migrate") => {
            Some(async { migrate(&flag(&args, "--from")?, &flag(&args, "--to")?).await }.await)
        }
        Some(other) if !other.starts_with('-') => {
            Some(Err(usage(&format!("unknown command {other:?}"))))
        }
        _ => None,
    };
    if let Some(outcome) = command {
        // A command's error in words, not as a debug dump.
        if let Err(e) = outcome {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        return Ok(());
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

fn usage(problem: &str) -> std::io::Error {
    std::io::Error::other(format!(
        "{problem}\nusage: tabletally [rebuild-stats | openapi | export --club <id> | \
         import --club <id> | migrate --from <database url> --to <database url>]"
    ))
}

/// The value after `name` on the command line.
fn flag(args: &[String], name: &str) -> std::io::Result<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
        .ok_or_else(|| usage(&format!("{} needs {name} <value>", args[0])))
}

async fn open(url: &str) -> std::io::Result<std::sync::Arc<dyn tabletally_api::store::Store>> {
    use tabletally_api::store::{Usage, connect_for};
    let store = connect_for(url, Usage::Pass)
        .await
        .map_err(std::io::Error::other)?;
    Ok(std::sync::Arc::from(store))
}

/// The club's history to standard output, a game a line as it is read.
async fn export(config: &Config, club: &str) -> std::io::Result<()> {
    use futures_util::TryStreamExt;
    use std::io::Write;
    let store = open(&config.database_url).await?;
    if store
        .club(club)
        .await
        .map_err(std::io::Error::other)?
        .is_none()
    {
        return Err(usage(&format!("no club {club} in {}", config.database_url)));
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut progress = tabletally_api::portability::Progress::new("exported");
    let mut lines = std::pin::pin!(tabletally_api::portability::export(store, club.to_owned()));
    while let Some(line) = lines.try_next().await.map_err(std::io::Error::other)? {
        out.write_all(&line)?;
        if tabletally_api::portability::is_game_line(&line) {
            progress.tick();
        }
    }
    out.flush()?;
    progress.finish();
    Ok(())
}

/// Standard input into the club, line by line; the report to standard output.
async fn import(config: &Config, club: &str) -> std::io::Result<()> {
    use std::io::BufRead;
    let store = open(&config.database_url).await?;
    if store
        .club(club)
        .await
        .map_err(std::io::Error::other)?
        .is_none()
    {
        return Err(usage(&format!("no club {club} in {}", config.database_url)));
    }
    let mut report = tabletally_api::portability::ImportReport::default();
    let mut progress = tabletally_api::portability::Progress::new("imported");
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let before = report.games();
        tabletally_api::portability::import_line(
            store.as_ref(),
            club,
            i as u64 + 1,
            line.trim(),
            &mut report,
        )
        .await;
        // Progress counts games, not the players' and presets' lines before them.
        if report.games() > before {
            progress.tick();
        }
    }
    progress.finish();
    println!(
        "{}",
        serde_json::to_string_pretty(&report).map_err(std::io::Error::other)?
    );
    if report.failures() == 0 {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "{} line(s) were not imported",
            report.failures()
        )))
    }
}

async fn migrate(from: &str, to: &str) -> std::io::Result<()> {
    let source = open(from).await?;
    let target = open(to).await?;
    let migrated = tabletally_api::portability::migrate(source, target.as_ref())
        .await
        .map_err(std::io::Error::other)?;
    tracing::info!(
        clubs = migrated.clubs,
        games = migrated.games,
        statistics = migrated.statistics,
        "migrated, and every game and statistic answers the same on both databases"
    );
    Ok(())
}
