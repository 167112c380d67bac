//! The records the store takes and gives, shared by its parts and by the server.

use chrono::{DateTime, Utc};
use serde_json::Value;
use tabletally_domain::Scoreboard;

use crate::append::Refused;
use crate::records::{GameRecord, GameResult, StoredEvent};
use crate::store::lists::Param;
use crate::store::together::Statement;
use crate::store::writes::args;

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

/// A game's row moved on by an append: its new version, its new status when it changed (`None`:
/// the same; the status is in the games' list indexes, and set even to the same value SQLite
/// rewrites its index entry, one more page for every append), and when.
#[derive(Clone, Copy)]
pub(in crate::store) struct RowMoved<'a> {
    pub version: i64,
    pub status: Option<&'a str>,
    pub at: DateTime<Utc>,
}

impl RowMoved<'_> {
    /// The `UPDATE` that moves game `id` on, setting `set` too (`"facts = $1, "`…: columns
    /// numbered from `$1`, their values in `values`).
    pub fn update(&self, id: &str, set: &str, mut values: Vec<Param>) -> Statement {
        let n = values.len();
        let mut sql = format!(
            "UPDATE games SET {set}version = ${}, updated_at = ${}",
            n + 1,
            n + 2
        );
        values.extend(args![self.version, self.at]);
        if let Some(status) = self.status {
            sql.push_str(&format!(", status = ${}", values.len() + 1));
            values.push(Param::from(status));
        }
        sql.push_str(&format!(" WHERE id = ${}", values.len() + 1));
        values.push(Param::from(id));
        (sql, values)
    }
}
