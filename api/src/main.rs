//! `tabletally`: the score-keeping server. Configuration by environment: `TABLETALLY_ADDR`,
//! `DATABASE_URL`, `RUST_LOG` (see the README). `tabletally openapi` prints the OpenAPI document.

use tabletally_api::config::Config;
use tabletally_api::startup::Application;

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    if std::env::args().nth(1).as_deref() == Some("openapi") {
        let json = tabletally_api::openapi::document().to_pretty_json().map_err(std::io::Error::other)?;
        println!("{json}");
        return Ok(());
    }
    tabletally_api::telemetry::init();
    let config = Config::from_env();
    match Application::build(&config).await {
        Ok(app) => app.run_until_stopped().await,
        Err(e) => {
            tracing::error!(error = %e, "could not start");
            std::process::exit(1);
        }
    }
}
