//! The state every handler can reach, built once at start-up (see [`crate::startup`]).

use std::sync::Arc;

use crate::limits::RateLimit;
use crate::live::Live;
use crate::metrics::Metrics;
use crate::store::Store;

/// What every handler can reach.
/// Files a server imports at once; another gets 503 with `Retry-After`.
pub const IMPORTS_AT_ONCE: usize = 2;

pub struct AppState {
    pub store: Arc<dyn Store>,
    /// `POST /v1/clubs` per client address (SQLite: in memory; PostgreSQL: in the database).
    pub club_creation: RateLimit,
    pub clubs_per_minute: u32,
    /// Whether appends keep the statistics read models up to date.
    pub read_models: bool,
    /// Largest file `POST /v1/import` accepts.
    pub import_max_bytes: usize,
    /// What `GET /metrics` reports.
    pub metrics: Arc<Metrics>,
    /// The open live streams and what the write path publishes to them.
    pub live: Arc<Live>,
    /// Imports under way: at most [`crate::state::IMPORTS_AT_ONCE`], so that the tables'
    /// appends keep the database's time and the server its memory.
    pub imports: tokio::sync::Semaphore,
}
