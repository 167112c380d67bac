//! The SQLite store: one file, opened in WAL mode, read through a pool and written by one
//! writer that owns its connection (group commit, [`crate::store::writer`]).

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use tokio::sync::MutexGuard;

use crate::append::AppendRequest;
use crate::records::{GameRecord, HeldGame};
use crate::store::backend::query;
use crate::store::checkpoints::checkpoints;
use crate::store::columns::Columns;
use crate::store::commit::{Shared, Written};
use crate::store::error::StoreError;
use crate::store::primary::FollowerStatus;
use crate::store::server_lock::ServerLock;
use crate::store::sql_store::SqlStore;
use crate::store::types::{Appended, NewGame, Usage};
use crate::store::writer::{Work, Writer};
use crate::store::writes::Writes;

use super::append::append_in;
use super::create::create_in;
use super::games::{STORED_VERSION, corrupt};

/// SQLite: appends and game creations go to the one writer (group commit, see [`Writer`]);
/// everything else reads and writes through the pool.
pub struct SqliteStore {
    pool: SqlitePool,
    writer: Writer,
    shared: Arc<Shared>,
    /// Held while the store lives: this server is the database's only writer.
    _lock: Option<ServerLock>,
}

/// SQLite's page cache per connection, MiB (`TABLETALLY_SQLITE_CACHE_MB`): a server's, and a
/// long pass's (export, import, migrate), small so that its memory stays flat (BENCHMARKS.md,
/// "Memory").
const DEFAULT_SQLITE_CACHE_MB: u64 = 8;
const PASS_SQLITE_CACHE_MB: u64 = 2;
/// SQLite's memory map of the database file, MiB (`TABLETALLY_SQLITE_MMAP_MB`). None by
/// default: it makes appends no faster, and every connection maps the file on its own
/// (BENCHMARKS.md, "SQLite's memory map (`mmap_size`)").
const DEFAULT_SQLITE_MMAP_MB: u64 = 0;

fn sqlite_mb(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

impl SqliteStore {
    /// Opens (creating if missing) a SQLite file in WAL mode with foreign keys on.
    /// `synchronous = FULL`: an acknowledged append survives a power cut, not just a crash.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_for(url, Usage::Server).await
    }

    pub async fn connect_for(url: &str, usage: Usage) -> Result<Self, StoreError> {
        // A pass reads one thing at a time: two readers, each with a small page cache.
        let (readers, cache_mb) = match usage {
            Usage::Server => (8, DEFAULT_SQLITE_CACHE_MB),
            Usage::Pass => (2, PASS_SQLITE_CACHE_MB),
        };
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10))
            // Page cache per connection and memory map: what each costs in memory and gives in
            // speed is in BENCHMARKS.md, "Memory" and "SQLite's memory map (`mmap_size`)".
            .pragma(
                "cache_size",
                format!(
                    "-{}",
                    sqlite_mb("TABLETALLY_SQLITE_CACHE_MB", cache_mb) << 10
                ),
            )
            .pragma(
                "mmap_size",
                (sqlite_mb("TABLETALLY_SQLITE_MMAP_MB", DEFAULT_SQLITE_MMAP_MB) << 20).to_string(),
            );
        // A local file's connection cannot be cut: no ping (a hand-off to SQLite's thread)
        // before each read.
        let pool = SqlitePoolOptions::new()
            .max_connections(readers)
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await?;
        crate::store::migrations::sqlite()
            .run(&pool)
            .await
            .map_err(|e| StoreError::Database(e.into()))?;
        // A server's writer is the database's only one (`server_lock`): its cache may answer
        // alone. A pass (export, import, migrate) locks nothing and its cache is not trusted.
        let lock = match usage {
            Usage::Server if !in_memory(url) => Some(ServerLock::take(options.get_filename())?),
            _ => None,
        };
        let shared = Shared::new(usage == Usage::Server);
        // The writer's own connection: appends and creations never queue in the pool.
        let writer = Writer::start(
            options,
            shared.clone(),
            SqliteWork,
            checkpoints(pool.clone()),
        )
        .await?;
        Ok(Self {
            pool,
            writer,
            shared,
            _lock: lock,
        })
    }
}

/// What SQLite's writer runs for each request: the SQL both backends share.
struct SqliteWork;

impl Work for SqliteWork {
    async fn append(
        &self,
        shared: &Shared,
        w: &mut Writes<'_, sqlx::Sqlite>,
        club: &str,
        id: &str,
        request: &AppendRequest,
        prepared: Option<HeldGame>,
    ) -> Result<Written<Appended>, StoreError> {
        append_in(shared, w, club, id, request, None, prepared).await
    }

    async fn create(
        &self,
        w: &mut Writes<'_, sqlx::Sqlite>,
        club: &str,
        game: &NewGame,
    ) -> Result<Written<Option<GameRecord>>, StoreError> {
        create_in(w, club, game).await
    }
}

/// `sqlite::memory:` and `mode=memory` URLs: one process's database, nothing to lock.
fn in_memory(url: &str) -> bool {
    url.contains(":memory:") || url.contains("mode=memory")
}

impl SqlStore for SqliteStore {
    type Db = sqlx::Sqlite;

    fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    fn shared(&self) -> &Shared {
        &self.shared
    }

    /// One process: no other server to tell.
    fn notifications(&self) -> Option<sqlx::PgPool> {
        None
    }

    /// One file: no primary to follow.
    fn follower_status(&self) -> Option<FollowerStatus> {
        None
    }

    /// SQLite has no standby: every read is the primary's.
    fn standby(&self) -> Option<&Self> {
        None
    }

    /// One process's file: there is no other host to move to.
    fn write_failed(&self, _: &StoreError) {}

    /// No bound: one writer commits positions in order, so what a reader of the club's log or
    /// lobby finds is all it may read.
    async fn settled_position(&self, _club: &str) -> Result<Option<i64>, StoreError> {
        Ok(None)
    }

    /// The game's stored version. Reads on SQLite never wait for the writer (WAL), and most
    /// are answered by the cache without asking (`current_game`).
    async fn stored_version(&self, club: &str, id: &str) -> Result<Option<i64>, StoreError> {
        let row = query(STORED_VERSION)
            .bind(id)
            .bind(club)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|row| row.try_get("version")).transpose()?)
    }

    /// A game this server holds no state of is replayed here, from a read snapshot, before
    /// the writer's batch, so that no long log is replayed while the batch holds the database's
    /// write lock.
    async fn write_append(
        &self,
        club: &str,
        id: &str,
        request: AppendRequest,
    ) -> Result<Appended, StoreError> {
        let prepared = if self.shared.cache.holds(id) {
            None
        } else {
            let Some((game, log)) = super::games::events(self, club, id).await? else {
                return Err(StoreError::NotFound);
            };
            Some(HeldGame::replay(game, log).map_err(|e| corrupt("stored game", e))?)
        };
        self.writer.append(club, id, request, prepared).await
    }

    /// SQLite's write lock, taken in turn with the writer's batches (see [`Writer`]).
    async fn write_turn(&self) -> Option<MutexGuard<'_, ()>> {
        Some(self.writer.database_turn().await)
    }

    async fn write_create(
        &self,
        club: &str,
        game: &NewGame,
    ) -> Result<Option<GameRecord>, StoreError> {
        self.writer.create(club, game.clone()).await
    }
}
