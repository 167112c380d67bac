//! Structured logs with `tracing`. `RUST_LOG` sets the level (default `info`);
//! `TABLETALLY_LOG_FORMAT=json` writes one JSON object per line. Every line goes to standard error.

use tracing_subscriber::EnvFilter;

pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // Logs go to standard error, always: standard output carries only a command's data
    // (`tabletally export > club.ndjson`). Colours only on a terminal, never in a log file.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    // A second init (tests start many servers) is harmless: keep the first.
    let _ = if std::env::var("TABLETALLY_LOG_FORMAT").as_deref() == Ok("json") {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}

/// What a caught panic said (its message, when it was text), for the log and the answer.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}
