//! A game as stored: its row, seats and log, read by id or listed, and replayed into the state
//! a read or an append needs.

use std::sync::Arc;

use crate::records::{GameRecord, HeldGame, SeatRecord, StoredEvent};
use crate::store::backend::{Target, query};
use crate::store::columns::Columns;
use crate::store::error::StoreError;
use crate::store::lists::game_list;
use crate::store::sql_store::SqlStore;
use crate::store::types::GameFilter;

/// A game's row by its id, in its club (the club compared as in
/// [`crate::store::plain::PLAIN_APPEND`]).
pub const GAME_ROW: &str = "SELECT id, game, status, version, options, started_at, updated_at \
                            FROM games WHERE id = $1 AND club_id || '' = $2";
/// A game's stored version by its id, in its club (the club compared as in
/// [`crate::store::plain::PLAIN_APPEND`]).
pub const STORED_VERSION: &str = "SELECT version FROM games WHERE id = $1 AND club_id || '' = $2";

/// A game's seats, by game id.
pub(super) const SEATS: &str =
    "SELECT seat, name, player_id, color FROM game_players WHERE game_id = $1 ORDER BY seat";

/// The game's events up to `version`, the one its row was read at: on PostgreSQL each
/// statement of a read sees the commits made before it, so events appended since the row was
/// read are left for the next read (the row and the log agree).
pub(super) const EVENTS: &str = "SELECT position, seq, event_id, type, schema_version, data, recorded_at, recorded_by \
                                 FROM events WHERE game_id = $1 AND seq <= $2 ORDER BY seq";

pub(super) fn corrupt(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("{what}: {e}"))
}

pub(super) fn game_row(row: &impl Columns) -> Result<GameRecord, StoreError> {
    let options: String = row.try_get("options")?;
    Ok(GameRecord {
        id: row.try_get("id")?,
        game: row.try_get("game")?,
        status: row.try_get("status")?,
        version: row.try_get("version")?,
        options: crate::records::shared_options(&options)
            .map_err(|e| corrupt("game options", e))?,
        players: Vec::new(),
        started_at: row.try_get("started_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

pub(super) fn event_row(row: &impl Columns) -> Result<StoredEvent, StoreError> {
    let data: String = row.try_get("data")?;
    Ok(StoredEvent {
        position: row.try_get("position")?,
        seq: row.try_get("seq")?,
        id: row.try_get("event_id")?,
        event_type: row.try_get("type")?,
        schema_version: row.try_get("schema_version")?,
        data: serde_json::from_str(&data).map_err(|e| corrupt("event data", e))?,
        recorded_at: row.try_get("recorded_at")?,
        recorded_by: row.try_get("recorded_by")?,
    })
}

/// The seats of [`SEATS`]' rows.
pub(super) fn seat_rows(rows: &[impl Columns]) -> Result<Vec<SeatRecord>, StoreError> {
    rows.iter()
        .map(|row| {
            Ok(SeatRecord {
                seat: row.try_get("seat")?,
                name: row.try_get("name")?,
                player_id: row.try_get("player_id")?,
                color: row.try_get("color")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(StoreError::from)
}

/// The seat of a row that joined a game with its seats (none when it had none).
pub(super) fn joined_seat(row: &impl Columns) -> Result<Option<SeatRecord>, StoreError> {
    let Some(seat) = row.try_get::<Option<i64>, _>("seat")? else {
        return Ok(None);
    };
    Ok(Some(SeatRecord {
        seat,
        name: row.try_get("name")?,
        player_id: row.try_get("player_id")?,
        color: row.try_get("color")?,
    }))
}

/// A game's seats ([`SEATS`]).
pub(super) async fn seats(on: impl Target, game_id: &str) -> Result<Vec<SeatRecord>, StoreError> {
    seat_rows(&query(SEATS).bind(game_id).fetch_all(on).await?)
}

/// The game's events up to `version` ([`EVENTS`]).
pub(super) async fn load_events(
    on: impl Target,
    game_id: &str,
    version: i64,
) -> Result<Vec<StoredEvent>, StoreError> {
    let rows = query(EVENTS)
        .bind(game_id)
        .bind(version)
        .fetch_all(on)
        .await?;
    rows.iter().map(event_row).collect()
}

pub(super) async fn game<S: SqlStore>(
    store: &S,
    club: &str,
    id: &str,
) -> Result<Option<GameRecord>, StoreError> {
    let row = query(GAME_ROW)
        .bind(id)
        .bind(club)
        .fetch_optional(store.pool())
        .await?;
    let Some(row) = row else { return Ok(None) };
    let mut game = game_row(&row)?;
    game.players = seats(store.pool(), id).await?;
    Ok(Some(game))
}

pub(super) async fn list_games<S: SqlStore>(
    store: &S,
    club: &str,
    filter: &GameFilter,
) -> Result<Vec<GameRecord>, StoreError> {
    // One statement: the page of games joined with their seats (a row per seat).
    let (sql, params) = game_list(club, filter);
    let rows = query(sql).with(params).fetch_all(store.pool()).await?;
    let mut games: Vec<GameRecord> = Vec::new();
    for row in &rows {
        let id: String = row.try_get("id")?;
        if games.last().is_none_or(|g| g.id != id) {
            games.push(game_row(row)?);
        }
        if let (Some(seat), Some(game)) = (joined_seat(row)?, games.last_mut()) {
            game.players.push(seat);
        }
    }
    Ok(games)
}

pub(super) async fn events<S: SqlStore>(
    store: &S,
    club: &str,
    id: &str,
) -> Result<Option<(GameRecord, Vec<StoredEvent>)>, StoreError> {
    // The row first, then its log up to the row's version (`load_events`).
    let mut tx = store.pool().begin().await?;
    let row = query(GAME_ROW)
        .bind(id)
        .bind(club)
        .fetch_optional(&mut tx)
        .await?;
    let Some(row) = row else { return Ok(None) };
    let mut game = game_row(&row)?;
    game.players = seats(&mut tx, id).await?;
    let events = load_events(&mut tx, id, game.version).await?;
    tx.commit().await?;
    Ok(Some((game, events)))
}

pub(super) async fn players_by_id<S: SqlStore>(
    store: &S,
    club: &str,
    ids: &[String],
) -> Result<Vec<(String, String)>, StoreError> {
    let mut found = Vec::with_capacity(ids.len());
    for id in ids {
        let row = query("SELECT id, name FROM players WHERE club_id = $1 AND id = $2")
            .bind(club)
            .bind(id)
            .fetch_optional(store.pool())
            .await?;
        if let Some(row) = row {
            found.push((row.try_get("id")?, row.try_get("name")?));
        }
    }
    Ok(found)
}

pub(super) async fn club_of_game<S: SqlStore>(
    store: &S,
    id: &str,
) -> Result<Option<String>, StoreError> {
    let row = query("SELECT club_id FROM games WHERE id = $1")
        .bind(id)
        .fetch_optional(store.pool())
        .await?;
    Ok(row.map(|row| row.try_get("club_id")).transpose()?)
}

pub(super) async fn held_game<S: SqlStore>(
    store: &S,
    club: &str,
    id: &str,
) -> Result<Option<Arc<HeldGame>>, StoreError> {
    // Taken before the database is read: an entry is confirmed only if no write
    // to the game began since.
    let ticket = store.shared().cache.ticket(id);
    // Only the version: a cached state at that version is the answer.
    let Some(version) = store.stored_version(club, id).await? else {
        return Ok(None);
    };
    if let Some(held) = store.shared().cache.get_read(club, id, version, ticket) {
        return Ok(Some(held));
    }
    // Missed: read the row and the log in one read transaction, so they agree.
    let Some((game, log)) = events(store, club, id).await? else {
        return Ok(None);
    };
    let mut held = HeldGame::replay(game, log).map_err(|e| corrupt("stored game", e))?;
    held.let_go_of_log();
    let held = Arc::new(held);
    store.shared().cache.put_read(club, held.clone(), ticket);
    Ok(Some(held))
}
