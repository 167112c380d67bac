//! Configuration from the environment, with defaults that run on a fresh machine.

/// Largest JSON body accepted (→ 413 above it).
pub const BODY_LIMIT: usize = 256 * 1024;
/// Most events accepted in one append request.
pub const MAX_EVENTS_PER_REQUEST: usize = 200;

#[derive(Debug, Clone)]
pub struct Config {
    /// `TABLETALLY_ADDR`, default `127.0.0.1:8080`; port 0 picks a free port.
    pub addr: String,
    /// `DATABASE_URL`, default `sqlite://tabletally.db` (created if missing).
    pub database_url: String,
    /// Worker threads; `TABLETALLY_WORKERS`, default: one per core.
    pub workers: Option<usize>,
}

impl Config {
    pub fn from_env() -> Self {
        Self {
            addr: std::env::var("TABLETALLY_ADDR").unwrap_or_else(|_| "127.0.0.1:8080".into()),
            database_url: std::env::var("DATABASE_URL")
                .unwrap_or_else(|_| "sqlite://tabletally.db".into()),
            workers: std::env::var("TABLETALLY_WORKERS")
                .ok()
                .and_then(|w| w.parse().ok()),
        }
    }
}
