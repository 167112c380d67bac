//! The event store: one trait, two implementations (SQLite and PostgreSQL) generated from the
//! same SQL in [`sql`].
//!
//! Every read and write is scoped to a club: another club's game simply does not exist here.

mod cache;
mod columns;
mod commit;
mod direct;
mod gather;
pub mod keepalive;
mod lanes;
mod lists;
pub mod migrations;
mod plain;
mod players;
mod presets;
pub mod primary;
mod server_lock;
mod sole;
mod sql;
mod stats;
mod turns;
mod versions;
mod writer;
mod writes;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;
use tabletally_domain::Scoreboard;

use crate::append::{AppendRequest, Refused};

pub use crate::records::{
    EventMeta, GameRecord, GameResult, HeldGame, NewEvent, PlayerResult, SeatRecord, StoredEvent,
};
pub use cache::{CacheCounters, StateCache};
pub use plain::{PLAIN_APPEND, PLAIN_APPENDS};
pub use players::{ClubPlayer, Merge, PlayerImport, PlayerStore, Rename};
pub use presets::{PresetRecord, PresetStore};
pub use primary::lost_primary;
pub use sql::{
    GAME_ROW, NOTIFY_CHANNEL, PostgresStore, REVOCATIONS_CHANNEL, STORED_VERSION, SqliteStore,
    first_token_revocation, revoked_first_token, seat_players_read,
};
pub use stats::{
    FactTotal, GameStatsRows, HeadToHeadRow, LeaderRow, PlayerGameRow, PlayerRow, ResultRecord,
    StatsFilter, StatsStore,
};
pub use versions::VERSIONS_READ;

/// The schema version every event is written with. The domain owns it: it knows how to upcast
/// the data of older versions (`docs/schema-versions.md`).
pub const SCHEMA_VERSION: i64 = tabletally_domain::log::SCHEMA_VERSION as i64;

#[derive(Debug, Clone)]
pub struct ClubRecord {
    pub id: String,
    pub name: String,
    pub token_hash: String,
}

/// A club as a copy to another database needs it (`tabletally migrate`).
#[derive(Debug, Clone, PartialEq)]
pub struct ClubCopy {
    pub id: String,
    pub name: String,
    pub token_hash: String,
    pub created_at: DateTime<Utc>,
    pub players: Vec<PlayerCopy>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PlayerCopy {
    pub id: String,
    pub name: String,
    pub name_key: String,
    pub created_at: DateTime<Utc>,
}

/// A player of a game about to be created: an existing club player, or a name to find or add.
#[derive(Debug, Clone)]
pub struct NewSeat {
    pub name: String,
    pub player_id: Option<String>,
    pub color: Option<String>,
}

#[derive(Debug, Clone)]
pub struct NewGame {
    pub id: String,
    pub game: String,
    pub players: Vec<NewSeat>,
    pub options: Value,
    pub started_at: DateTime<Utc>,
    /// The name of the token that created it, kept on its `game_started`.
    pub recorded_by: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Appended {
    pub version: i64,
    pub events: Vec<StoredEvent>,
    /// True when the request was a retry of events already stored (nothing new written).
    pub already_stored: bool,
}

/// What one transaction committed to a game's log, handed to the live streams once it is
/// durable (see [`Subscribers`]).
#[derive(Debug)]
pub struct Committed<'a> {
    pub club: &'a str,
    /// The game as the commit left it (version, status, updated_at).
    pub game: &'a GameRecord,
    /// The status before the commit; `None` when the commit created the game.
    pub previous_status: Option<&'a str>,
    /// The events written, with their seq and global position (the subscriber's to keep: a
    /// game's frame is made of them).
    pub events: Vec<StoredEvent>,
    /// The scoreboard after the commit, when the write path computed it (appends do).
    pub scoreboard: Option<Scoreboard>,
}

/// Where a store reports what it committed: the one post-commit seam of the write path.
/// Called after the commit, never inside a transaction; it must not block.
pub trait Subscribers: Send + Sync {
    fn committed(&self, commit: Committed<'_>);
}

/// A token besides the club's first one: a scoped token (`admin`, `write`, `read`) or a share
/// link (`share`, for one game, expiring).
#[derive(Debug, Clone, PartialEq)]
pub struct AccessTokenRecord {
    pub id: String,
    pub club_id: String,
    pub name: String,
    pub scope: String,
    /// The one game a share link reads.
    pub game_id: Option<String>,
    pub secret_hash: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
}

/// A change the club's lobby reports, as stored with the commit that caused it.
#[derive(Debug, Clone, PartialEq)]
pub struct GameChange {
    /// The position of the commit's last event.
    pub position: i64,
    /// `game_created`, `game_finished`, `game_abandoned` or `game_resumed`.
    pub kind: String,
    /// The game as the change left it (status, version, updated_at of that moment).
    pub game: GameRecord,
}

/// What a lobby calls a status change (`None`: the lobby does not report it).
pub fn change_kind(previous_status: Option<&str>, status: &str) -> Option<&'static str> {
    match (previous_status, status) {
        (None, _) => Some("game_created"),
        (Some(before), after) if before == after => None,
        (_, "finished") => Some("game_finished"),
        (_, "abandoned") => Some("game_abandoned"),
        (_, _) => Some("game_resumed"),
    }
}

/// Filters of the game list; `cursor` is the (started_at, id) of the last game of the previous page.
#[derive(Debug, Clone, Default)]
pub struct GameFilter {
    pub game: Option<String>,
    pub player: Option<String>,
    pub status: Option<String>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    pub after: Option<(DateTime<Utc>, String)>,
    pub limit: i64,
}

/// A whole game from an export, checked by the rules, to store as it was.
#[derive(Debug, Clone)]
pub struct ImportedGame {
    /// Its id, kind, options and start; a seat is the club's player it names by id, else the
    /// one of its name.
    pub game: NewGame,
    /// What its log amounts to.
    pub status: tabletally_domain::Status,
    /// Every stored event, seq 1 (`game_started`) first, with its id, schema version and time.
    pub events: Vec<StoredEvent>,
    /// When the game last changed where it comes from (kept: a move is not a change).
    pub updated_at: DateTime<Utc>,
    /// Whether each event keeps the club-log `position` it has (`migrate` into an empty
    /// database: a phone resuming the club's log reads the same order before and after).
    pub keep_positions: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportOutcome {
    Imported,
    /// A game with this id is already this club's: nothing was written.
    AlreadyPresent,
}

/// What an imported game puts into the statistics, once its seats have club player ids.
pub type ImportResult<'a> =
    dyn Fn(&GameRecord) -> Result<Option<GameResult>, Refused> + Send + Sync + 'a;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No such game (or player) in this club.
    #[error("not found")]
    NotFound,
    /// The decision refused the append; nothing was written.
    #[error(transparent)]
    Refused(#[from] Refused),
    /// A uniqueness rule of the database was hit by a concurrent writer.
    #[error("conflict: {0}")]
    Conflict(tabletally_domain::Message),
    /// A player id given at game creation is not one of the club's players.
    #[error("unknown player id {0}")]
    UnknownPlayer(String),
    /// Stored data that does not parse: a bug or a corrupted database.
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

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
    fn report_commits_to(&self, subscribers: std::sync::Arc<dyn Subscribers>);

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
    /// waiting for appends in flight: what a read from it may have counted at most.
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

    /// The state cache's hits, misses and size.
    fn cache_counters(&self) -> CacheCounters;

    /// What the write path committed: transactions and the requests they held.
    fn writer_counters(&self) -> WriterCounters;

    /// The primary this server follows among several PostgreSQL hosts (`None`: one database,
    /// nothing to follow).
    fn followed_primary(&self) -> Option<primary::FollowerStatus>;
}

/// Commits of the write path; on SQLite a commit holds a batch of requests (group commit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriterCounters {
    pub commits: u64,
    pub requests: u64,
    pub largest_batch: u64,
}

/// What a store is opened for: what SQLite may keep in memory follows from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Usage {
    /// A server: many readers coming back to the same hot pages.
    Server,
    /// One long pass over a club's history (export, import, migrate): each page is read once,
    /// so a small page cache keeps the process's memory flat whatever the club's size.
    Pass,
}

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
        Some(read_url) if is_postgres(url) && is_postgres(read_url) => Ok(Box::new(
            PostgresStore::connect(url, Some(read_url), Usage::Server).await?,
        )),
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
    if is_postgres(url) {
        Ok(Box::new(PostgresStore::connect(url, None, usage).await?))
    } else if url.starts_with("sqlite:") {
        Ok(Box::new(SqliteStore::connect_for(url, usage).await?))
    } else {
        Err(StoreError::Database(sqlx::Error::Configuration(
            format!("DATABASE_URL must start with sqlite: or postgres://, got {url:?}").into(),
        )))
    }
}
