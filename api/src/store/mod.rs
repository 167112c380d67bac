//! The event store: the log of every game, the statistics read from it, the club's players and
//! presets — one set of traits, written once and run on SQLite or PostgreSQL.
//!
//! - [`backend`]: what differs between the two databases, and between their two stores;
//! - [`events`]: the log (clubs, tokens, games, appends, the club's feed, copies);
//! - [`stats`]: the statistics read models, written with the append that finishes a game;
//! - [`players`], [`presets`]: the club's players and table presets;
//! - the write path's parts: SQLite's one [`writer`], PostgreSQL's kept connections
//!   ([`lanes`]) and gathered statements ([`plain`], [`versions`]), the state [`cache`].
//!
//! Every read and write is scoped to a club: another club's game simply does not exist here.

mod backend;
mod cache;
mod checkpoints;
mod columns;
mod commit;
mod direct;
mod error;
mod events;
mod gather;
pub mod keepalive;
mod lanes;
mod lists;
mod lookout;
pub mod migrations;
mod one_statement;
mod plain;
mod players;
mod presets;
pub mod primary;
mod recency;
mod score_bodies;
mod seen_players;
mod server_lock;
mod sole;
mod sql_store;
mod stats;
mod together;
mod turns;
mod types;
mod versions;
mod writer;
mod writes;

pub use crate::records::{
    EventMeta, GameRecord, GameResult, HeldGame, NewEvent, PlayerResult, SeatRecord, StoredEvent,
};
pub use cache::{CacheCounters, StateCache};
pub use error::StoreError;
pub use events::clubs::{
    NOTIFY_CHANNEL, REVOCATIONS_CHANNEL, first_token_revocation, revoked_first_token,
};
pub use events::create::seat_players_read;
pub use events::games::{GAME_ROW, STORED_VERSION};
pub use events::postgres::PostgresStore;
pub use events::sqlite::SqliteStore;
pub use events::{EventStore, ReadFrom, Reads, Store};
pub use plain::{PLAIN_APPEND, PLAIN_APPENDS};
pub use players::{ClubPlayer, Merge, PlayerImport, PlayerStore, Rename};
pub use presets::{PresetRecord, PresetStore};
pub use primary::lost_primary;
pub use score_bodies::ScoreBodies;
pub use stats::settle::SETTLE_EVERY;
pub use stats::{
    FactTotal, GameStatsRows, HeadToHeadRow, LeaderRow, PlayerGameRow, PlayerRow, RatingPoint,
    RatingRow, ResultRecord, StatsFilter, StatsStore,
};
pub use types::*;
pub use versions::VERSIONS_READ;

/// Opens the store a `DATABASE_URL` names (`sqlite:` or `postgres:`), running its migrations.
pub async fn connect(url: &str) -> Result<Box<dyn Store>, StoreError> {
    connect_for(url, Usage::Server).await
}

/// [`connect`] for a server, reading statistics and history lists from a standby among
/// `read_url`'s hosts when one is given (`TABLETALLY_READ_DATABASE_URL`, PostgreSQL only).
pub async fn connect_server(
    url: &str,
    read_url: Option<&str>,
) -> Result<Box<dyn Store>, StoreError> {
    match read_url {
        None => connect(url).await,
        Some(read_url) if is_postgres(url) && is_postgres(read_url) => {
            let store = PostgresStore::connect(url, Some(read_url), Usage::Server).await?;
            rated(Box::new(store)).await
        }
        Some(_) => Err(StoreError::Database(sqlx::Error::Configuration(
            "TABLETALLY_READ_DATABASE_URL names a PostgreSQL standby (postgres://…) of a \
             PostgreSQL DATABASE_URL; SQLite has no standby"
                .into(),
        ))),
    }
}

fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// [`connect`], for a given use.
pub async fn connect_for(url: &str, usage: Usage) -> Result<Box<dyn Store>, StoreError> {
    let store: Box<dyn Store> = if is_postgres(url) {
        Box::new(PostgresStore::connect(url, None, usage).await?)
    } else if url.starts_with("sqlite:") {
        Box::new(SqliteStore::connect_for(url, usage).await?)
    } else {
        return Err(StoreError::Database(sqlx::Error::Configuration(
            format!("DATABASE_URL must start with sqlite: or postgres://, got {url:?}").into(),
        )));
    };
    match usage {
        Usage::Server => rated(store).await,
        // A pass (export, import, migrate) rates what it adds as it adds it.
        Usage::Pass => Ok(store),
    }
}

/// The store, once every finished game it holds is rated (the first start after ratings were
/// added rates the history).
async fn rated(store: Box<dyn Store>) -> Result<Box<dyn Store>, StoreError> {
    let games = store.rate_unrated().await?;
    if games > 0 {
        tracing::info!(games, "rated the finished games no rating covered yet");
    }
    Ok(store)
}

/// Unit tests against PostgreSQL: the database `TABLETALLY_TEST_POSTGRES_URL` names, or `None`
/// (the test skips, and says so) when it is not set, which CI does not allow.
#[cfg(test)]
pub(crate) fn test_postgres_url() -> Option<String> {
    let url = std::env::var("TABLETALLY_TEST_POSTGRES_URL").ok();
    if url.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "TABLETALLY_TEST_POSTGRES_URL must be set in CI"
        );
        println!("skipped: set TABLETALLY_TEST_POSTGRES_URL to run this test");
    }
    url
}
