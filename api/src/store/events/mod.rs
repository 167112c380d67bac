//! The log: the [`EventStore`] trait, and its one implementation for both databases, each
//! method the function of the module its concern names.

pub(super) mod append;
pub(super) mod clubs;
mod copy;
pub(super) mod create;
mod feed;
pub(super) mod games;
pub(super) mod postgres;
pub(super) mod sqlite;

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::append::AppendRequest;
use crate::records::{GameRecord, HeldGame, StoredEvent};
use crate::store::backend::Backend;
use crate::store::backend::query;
use crate::store::cache::CacheCounters;
use crate::store::error::StoreError;
use crate::store::players::PlayerStore;
use crate::store::presets::PresetStore;
use crate::store::primary::FollowerStatus;
use crate::store::sql_store::SqlStore;
use crate::store::stats::StatsStore;
use crate::store::types::{
    AccessTokenRecord, Appended, ClubCopy, ClubRecord, GameChange, GameFilter, ImportOutcome,
    ImportResult, ImportedGame, NewGame, Subscribers, WriterCounters,
};

/// Where a request's statistics and history lists are read (see [`EventStore::reads`]).
pub struct Reads<'a> {
    pub store: &'a dyn Store,
    pub from: ReadFrom,
}

/// The database a read came from, as the `Read-From` header names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadFrom {
    /// `DATABASE_URL`'s database (its primary).
    Primary,
    /// A standby of `TABLETALLY_READ_DATABASE_URL`.
    Standby,
}

impl ReadFrom {
    pub fn as_str(self) -> &'static str {
        match self {
            ReadFrom::Primary => "primary",
            ReadFrom::Standby => "standby",
        }
    }
}

/// The whole store: the log, the statistics read models, changes to the club's players and
/// the club's table presets.
pub trait Store: EventStore + StatsStore + PlayerStore + PresetStore {}
impl<T: EventStore + StatsStore + PlayerStore + PresetStore> Store for T {}

#[async_trait]
pub trait EventStore: Send + Sync {
    /// Which backend this is, for logs and `/readyz`.
    fn backend(&self) -> &'static str;

    /// From now on, every commit (game created, events appended) is reported to `subscribers`.
    fn report_commits_to(&self, subscribers: Arc<dyn Subscribers>);

    /// On PostgreSQL, the pool whose database carries the other servers' commit
    /// notifications; `None` on SQLite (one process).
    fn notifications(&self) -> Option<sqlx::PgPool> {
        None
    }

    /// Is the database reachable?
    async fn ping(&self) -> Result<(), StoreError>;

    async fn create_club(
        &self,
        id: &str,
        name: &str,
        token_hash: &str,
    ) -> Result<ClubRecord, StoreError>;

    /// The club's row. Each server keeps the rows it read: [`EventStore::forget_clubs`] when
    /// another server replaced a club's first token.
    async fn club(&self, id: &str) -> Result<Option<ClubRecord>, StoreError>;

    /// Replaces the club's first token with one of this hash, at once on every server (on
    /// PostgreSQL the other servers hear of it by `NOTIFY` as it commits); false when there is
    /// no such club.
    async fn replace_club_token(&self, club: &str, token_hash: &str) -> Result<bool, StoreError>;

    /// Forgets the kept row of this club (`None`: of every club), to read it again.
    fn forget_clubs(&self, club: Option<&str>);

    async fn create_access_token(&self, token: &AccessTokenRecord) -> Result<(), StoreError>;

    async fn access_token(&self, id: &str) -> Result<Option<AccessTokenRecord>, StoreError>;

    /// The club's scoped tokens (not its share links), oldest first.
    async fn access_tokens(&self, club: &str) -> Result<Vec<AccessTokenRecord>, StoreError>;

    /// One game's share links (expired ones too, until revoked), oldest first.
    async fn game_shares(
        &self,
        club: &str,
        game: &str,
    ) -> Result<Vec<AccessTokenRecord>, StoreError>;

    /// Revokes a scoped token (`game: None`) or one game's share link; false when there is none.
    async fn delete_access_token(
        &self,
        club: &str,
        id: &str,
        game: Option<&str>,
    ) -> Result<bool, StoreError>;

    /// Counts one club creation from `client` in the current one-minute window (kept in the
    /// database, so every server counts the same); `Err(seconds)` once over `per_window`.
    async fn count_club_creation(
        &self,
        client: &str,
        now: DateTime<Utc>,
        per_window: u32,
    ) -> Result<Result<(), u64>, StoreError>;

    /// The club's players with these ids (those that exist).
    async fn players_by_id(
        &self,
        club: &str,
        ids: &[String],
    ) -> Result<Vec<(String, String)>, StoreError>;

    /// Creates a game and its event 1 (`game_started`, with `started_data` completed by the
    /// resolved player ids) in one transaction. Returns `None` when the id is already taken;
    /// the caller then compares with [`EventStore::game`].
    async fn create_game(
        &self,
        club: &str,
        game: &NewGame,
    ) -> Result<Option<GameRecord>, StoreError>;

    async fn game(&self, club: &str, id: &str) -> Result<Option<GameRecord>, StoreError>;

    async fn list_games(
        &self,
        club: &str,
        filter: &GameFilter,
    ) -> Result<Vec<GameRecord>, StoreError>;

    /// The game's log, in seq order (all of it, retracted events included).
    async fn events(
        &self,
        club: &str,
        id: &str,
    ) -> Result<Option<(GameRecord, Vec<StoredEvent>)>, StoreError>;

    /// Every club with its players, by id (`tabletally migrate`).
    async fn clubs(&self) -> Result<Vec<ClubCopy>, StoreError>;

    /// Stores a club and its players as they are, ids and token hash included, in one
    /// transaction (`tabletally migrate`, into an empty database).
    async fn copy_club(&self, club: &ClubCopy) -> Result<(), StoreError>;

    /// The club's game ids in the order they were played (start time, then id), after the game
    /// `after` (an export's pages).
    async fn club_game_ids(
        &self,
        club: &str,
        after: Option<&str>,
        limit: i64,
    ) -> Result<Vec<String>, StoreError>;

    /// Stores an exported game whole, in one transaction: its players (by id where a seat gives
    /// one, else by name; seats matched by name get their id in `game_started`), row, seats,
    /// every event as it was, and its statistics when `result` says it is finished. A game id
    /// already in this club changes nothing; one of another club is a conflict.
    async fn import_game(
        &self,
        club: &str,
        game: &ImportedGame,
        result: &ImportResult<'_>,
    ) -> Result<ImportOutcome, StoreError>;

    /// Refreshes the query planner's table statistics during a long import, which grows tables
    /// from nearly empty: PostgreSQL otherwise keeps the plans it made for small tables
    /// (sequential scans) until autovacuum analyses them. Nothing to do on SQLite.
    async fn refresh_planner_statistics(&self) -> Result<(), StoreError>;

    /// The club's events in global order, after `after` (a position), with their game's id.
    async fn club_events(
        &self,
        club: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<(String, StoredEvent)>, StoreError>;

    /// The club's lobby changes after `after` (a position), in order.
    async fn game_changes(
        &self,
        club: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<GameChange>, StoreError>;

    /// The position of the club's latest lobby change (0 when none): where a fresh lobby
    /// stream starts.
    async fn head_position(&self, club: &str) -> Result<i64, StoreError>;

    /// The latest position of any club's log on this database (0 when empty): a position past
    /// it belongs to no log here.
    async fn last_position(&self) -> Result<i64, StoreError>;

    /// Where a request reads statistics and history lists: a standby while one is up
    /// (`TABLETALLY_READ_DATABASE_URL`), else this store. Chosen once per request, so that all
    /// of its reads and its [`EventStore::seen_position`] come from one database.
    fn reads(&self) -> Reads<'_>;

    /// The position of the club's latest lobby change this database holds now, without
    /// waiting for appends in flight: a read from it that begins after counts that change and
    /// every one it held with it.
    async fn seen_position(&self, club: &str) -> Result<i64, StoreError>;

    /// The club a game belongs to (for a notification that names only the game).
    async fn club_of_game(&self, id: &str) -> Result<Option<String>, StoreError>;

    /// Appends in one transaction, with the game locked: holds the game (from the state cache
    /// at the stored version, else replayed from the log), asks [`crate::append::decide`],
    /// writes what it says (events, new version and status, and the statistics read models
    /// when the game's result changes) or nothing. Answered once the commit is durable.
    async fn append(
        &self,
        club: &str,
        id: &str,
        request: AppendRequest,
    ) -> Result<Appended, StoreError>;

    /// The game replayed at its stored version (from the state cache when it holds that
    /// version, else from the log, then cached); `None` when the club has no such game.
    async fn held_game(
        &self,
        club: &str,
        id: &str,
    ) -> Result<Option<std::sync::Arc<HeldGame>>, StoreError>;

    /// The game's stored version (`None`: the club has no such game), read with no replay: what
    /// a conditional read compares its tag with. On PostgreSQL read together with the other
    /// reads waiting for theirs.
    async fn game_version(&self, club: &str, id: &str) -> Result<Option<i64>, StoreError>;

    /// The game as stored now, when the state cache can say so without reading the database
    /// (SQLite, whose one writer is this server's); `None` means: ask [`EventStore::held_game`].
    fn current_game(&self, club: &str, id: &str) -> Option<std::sync::Arc<HeldGame>>;

    /// The current scores' answer bodies of the games read lately.
    fn score_bodies(&self) -> &crate::store::ScoreBodies;

    /// The state cache's hits, misses and size.
    fn cache_counters(&self) -> CacheCounters;

    /// What the write path committed: transactions and the requests they held.
    fn writer_counters(&self) -> WriterCounters;

    /// The primary this server follows among several PostgreSQL hosts (`None`: one database,
    /// nothing to follow).
    fn followed_primary(&self) -> Option<FollowerStatus>;
}

/// The log on either database: each method is its module's function (`clubs`, `games`,
/// `append`, `feed`, `copy`), or the store's own way ([`SqlStore`]).
#[async_trait]
impl<S: SqlStore> EventStore for S {
    fn backend(&self) -> &'static str {
        S::Db::NAME
    }

    fn report_commits_to(&self, subscribers: Arc<dyn Subscribers>) {
        // Set once at start-up; a second call keeps the first.
        let _ = self.shared().subscribers.set(subscribers);
    }

    fn notifications(&self) -> Option<sqlx::PgPool> {
        SqlStore::notifications(self)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        query("SELECT 1").execute(self.pool()).await?;
        Ok(())
    }

    async fn create_club(
        &self,
        id: &str,
        name: &str,
        token_hash: &str,
    ) -> Result<ClubRecord, StoreError> {
        clubs::create_club(self, id, name, token_hash).await
    }

    async fn club(&self, id: &str) -> Result<Option<ClubRecord>, StoreError> {
        clubs::club(self, id).await
    }

    async fn replace_club_token(&self, club: &str, token_hash: &str) -> Result<bool, StoreError> {
        clubs::replace_club_token(self, club, token_hash).await
    }

    fn forget_clubs(&self, club: Option<&str>) {
        self.shared().clubs.forget(club);
    }

    async fn create_access_token(&self, token: &AccessTokenRecord) -> Result<(), StoreError> {
        clubs::create_access_token(self, token).await
    }

    async fn access_token(&self, id: &str) -> Result<Option<AccessTokenRecord>, StoreError> {
        clubs::access_token(self, id).await
    }

    async fn access_tokens(&self, club: &str) -> Result<Vec<AccessTokenRecord>, StoreError> {
        clubs::access_tokens(self, club).await
    }

    async fn game_shares(
        &self,
        club: &str,
        game: &str,
    ) -> Result<Vec<AccessTokenRecord>, StoreError> {
        clubs::game_shares(self, club, game).await
    }

    async fn delete_access_token(
        &self,
        club: &str,
        id: &str,
        game: Option<&str>,
    ) -> Result<bool, StoreError> {
        clubs::delete_access_token(self, club, id, game).await
    }

    async fn count_club_creation(
        &self,
        client: &str,
        now: DateTime<Utc>,
        per_window: u32,
    ) -> Result<Result<(), u64>, StoreError> {
        clubs::count_club_creation(self, client, now, per_window).await
    }

    async fn players_by_id(
        &self,
        club: &str,
        ids: &[String],
    ) -> Result<Vec<(String, String)>, StoreError> {
        games::players_by_id(self, club, ids).await
    }

    async fn create_game(
        &self,
        club: &str,
        game: &NewGame,
    ) -> Result<Option<GameRecord>, StoreError> {
        self.write_create(club, game).await
    }

    async fn game(&self, club: &str, id: &str) -> Result<Option<GameRecord>, StoreError> {
        games::game(self, club, id).await
    }

    async fn list_games(
        &self,
        club: &str,
        filter: &GameFilter,
    ) -> Result<Vec<GameRecord>, StoreError> {
        games::list_games(self, club, filter).await
    }

    async fn events(
        &self,
        club: &str,
        id: &str,
    ) -> Result<Option<(GameRecord, Vec<StoredEvent>)>, StoreError> {
        games::events(self, club, id).await
    }

    async fn clubs(&self) -> Result<Vec<ClubCopy>, StoreError> {
        copy::clubs(self).await
    }

    async fn copy_club(&self, club: &ClubCopy) -> Result<(), StoreError> {
        copy::copy_club(self, club).await
    }

    async fn club_game_ids(
        &self,
        club: &str,
        after: Option<&str>,
        limit: i64,
    ) -> Result<Vec<String>, StoreError> {
        copy::club_game_ids(self, club, after, limit).await
    }

    async fn import_game(
        &self,
        club: &str,
        game: &ImportedGame,
        result: &ImportResult<'_>,
    ) -> Result<ImportOutcome, StoreError> {
        copy::import_game(self, club, game, result).await
    }

    async fn refresh_planner_statistics(&self) -> Result<(), StoreError> {
        copy::refresh_planner_statistics(self).await
    }

    async fn club_events(
        &self,
        club: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<(String, StoredEvent)>, StoreError> {
        feed::club_events(self, club, after, limit).await
    }

    async fn game_changes(
        &self,
        club: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<GameChange>, StoreError> {
        feed::game_changes(self, club, after, limit).await
    }

    async fn head_position(&self, club: &str) -> Result<i64, StoreError> {
        feed::head_position(self, club).await
    }

    async fn last_position(&self) -> Result<i64, StoreError> {
        feed::last_position(self).await
    }

    fn reads(&self) -> Reads<'_> {
        match self.standby() {
            Some(standby) => Reads {
                store: standby,
                from: ReadFrom::Standby,
            },
            None => Reads {
                store: self,
                from: ReadFrom::Primary,
            },
        }
    }

    async fn seen_position(&self, club: &str) -> Result<i64, StoreError> {
        feed::seen_position(self, club).await
    }

    async fn club_of_game(&self, id: &str) -> Result<Option<String>, StoreError> {
        games::club_of_game(self, id).await
    }

    async fn append(
        &self,
        club: &str,
        id: &str,
        request: AppendRequest,
    ) -> Result<Appended, StoreError> {
        self.write_append(club, id, request)
            .await
            .inspect_err(|e| self.write_failed(e))
    }

    async fn held_game(&self, club: &str, id: &str) -> Result<Option<Arc<HeldGame>>, StoreError> {
        games::held_game(self, club, id).await
    }

    async fn game_version(&self, club: &str, id: &str) -> Result<Option<i64>, StoreError> {
        self.stored_version(club, id).await
    }

    fn current_game(&self, club: &str, id: &str) -> Option<Arc<HeldGame>> {
        self.shared().cache.current(club, id)
    }

    fn score_bodies(&self) -> &crate::store::ScoreBodies {
        self.shared().cache.score_bodies()
    }

    fn cache_counters(&self) -> CacheCounters {
        self.shared().cache.counters()
    }

    fn writer_counters(&self) -> WriterCounters {
        self.shared().writer_counters()
    }

    fn followed_primary(&self) -> Option<FollowerStatus> {
        self.follower_status()
    }
}
