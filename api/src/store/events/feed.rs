//! The club's feed: its events and its lobby's changes in the order of their positions, read
//! only up to where no append still in flight can add an earlier one.

use crate::records::StoredEvent;
use crate::store::backend::{Query, query};
use crate::store::columns::Columns;
use crate::store::error::StoreError;
use crate::store::sql_store::SqlStore;
use crate::store::types::GameChange;

use super::games::{event_row, game_row, joined_seat};

pub(super) async fn club_events<S: SqlStore>(
    store: &S,
    club: &str,
    after: i64,
    limit: i64,
) -> Result<Vec<(String, StoredEvent)>, StoreError> {
    let events = club_events_up_to(store, club, after, limit, i64::MAX).await?;
    match settled_bound(store, club, &events).await? {
        Some(settled) => club_events_up_to(store, club, after, limit, settled).await,
        None => Ok(events),
    }
}

pub(super) async fn game_changes<S: SqlStore>(
    store: &S,
    club: &str,
    after: i64,
    limit: i64,
) -> Result<Vec<GameChange>, StoreError> {
    let changes = game_changes_up_to(store, club, after, limit, i64::MAX).await?;
    match settled_bound(store, club, &changes).await? {
        Some(settled) => game_changes_up_to(store, club, after, limit, settled).await,
        None => Ok(changes),
    }
}

pub(super) async fn head_position<S: SqlStore>(store: &S, club: &str) -> Result<i64, StoreError> {
    let row = query(
        "SELECT MAX(position) AS last FROM game_changes WHERE club_id = $1 AND position <= $2",
    )
    .bind(club)
    .bind(store.settled_position(club).await?.unwrap_or(i64::MAX))
    .fetch_one(store.pool())
    .await?;
    Ok(row.try_get::<Option<i64>, _>("last")?.unwrap_or(0))
}

pub(super) async fn seen_position<S: SqlStore>(store: &S, club: &str) -> Result<i64, StoreError> {
    let row = query("SELECT MAX(position) AS last FROM game_changes WHERE club_id = $1")
        .bind(club)
        .fetch_one(store.pool())
        .await?;
    Ok(row.try_get::<Option<i64>, _>("last")?.unwrap_or(0))
}

pub(super) async fn last_position<S: SqlStore>(store: &S) -> Result<i64, StoreError> {
    let row = query("SELECT MAX(position) AS last FROM events")
        .fetch_one(store.pool())
        .await?;
    Ok(row.try_get::<Option<i64>, _>("last")?.unwrap_or(0))
}

/// A page of the club's positions: `$1` the club, `$2` after, `$3` the limit, `$4` up to.
fn club_page(sql: &'static str, (club, after, limit, up_to): (&str, i64, i64, i64)) -> Query {
    query(sql).bind(club).bind(after).bind(limit).bind(up_to)
}

/// The position up to which a page of the club's log or lobby that found `found` (read
/// with no bound) must be read again, if any: the club's settled position (PostgreSQL:
/// after the appends in flight). A page that found nothing waits for nothing: reading
/// nothing is always safe, the reader's position does not move.
async fn settled_bound<S: SqlStore, T>(
    store: &S,
    club: &str,
    found: &[T],
) -> Result<Option<i64>, StoreError> {
    if found.is_empty() {
        return Ok(None);
    }
    store.settled_position(club).await
}

/// The club's events after `after` and up to `up_to` (positions), with their game's id.
pub(super) async fn club_events_up_to<S: SqlStore>(
    store: &S,
    club: &str,
    after: i64,
    limit: i64,
    up_to: i64,
) -> Result<Vec<(String, StoredEvent)>, StoreError> {
    let rows = club_page(
        "SELECT e.game_id, e.position, e.seq, e.event_id, e.type, e.schema_version, e.data, e.recorded_at, e.recorded_by \
         FROM events e JOIN games g ON g.id = e.game_id \
         WHERE g.club_id = $1 AND e.position > $2 AND e.position <= $4 ORDER BY e.position LIMIT $3",
        (club, after, limit, up_to),
    )
    .fetch_all(store.pool())
    .await?;
    rows.iter()
        .map(|row| Ok((row.try_get("game_id")?, event_row(row)?)))
        .collect()
}

/// The club's lobby changes after `after` and up to `up_to` (positions).
pub(super) async fn game_changes_up_to<S: SqlStore>(
    store: &S,
    club: &str,
    after: i64,
    limit: i64,
    up_to: i64,
) -> Result<Vec<GameChange>, StoreError> {
    // One statement: the page of changes joined with their games' seats.
    let rows = club_page(
        "SELECT x.position, x.kind, x.id, x.game, x.status, x.version, x.options, x.started_at, x.updated_at, \
                s.seat, s.name, s.player_id, s.color \
         FROM (SELECT c.position, c.kind, g.id, g.game, c.status, c.version, g.options, g.started_at, \
                      c.changed_at AS updated_at \
               FROM game_changes c JOIN games g ON g.id = c.game_id \
               WHERE c.club_id = $1 AND c.position > $2 AND c.position <= $4 ORDER BY c.position LIMIT $3) x \
         LEFT JOIN game_players s ON s.game_id = x.id \
         ORDER BY x.position, s.seat",
        (club, after, limit, up_to),
    )
    .fetch_all(store.pool())
    .await?;
    let mut changes: Vec<GameChange> = Vec::new();
    for row in &rows {
        let position: i64 = row.try_get("position")?;
        if changes.last().is_none_or(|c| c.position != position) {
            changes.push(GameChange {
                position,
                kind: row.try_get("kind")?,
                game: game_row(row)?,
            });
        }
        if let (Some(seat), Some(change)) = (joined_seat(row)?, changes.last_mut()) {
            change.game.players.push(seat);
        }
    }
    Ok(changes)
}
