//! Whole clubs and games copied in or out: every club with its players (`migrate`), a club's
//! game ids in play order (an export's pages), and an exported game stored as it was.

use serde_json::{Value, json};

use crate::records::{GameRecord, StoredEvent};
use crate::store::backend::Backend;
use crate::store::backend::query;
use crate::store::columns::Columns;
use crate::store::error::StoreError;
use crate::store::sql_store::SqlStore;
use crate::store::stats::write::write_result;
use crate::store::types::{
    ClubCopy, Committed, ImportOutcome, ImportResult, ImportedGame, PlayerCopy,
};
use crate::store::writes::{WriteOn, Writing, args};

use super::append::{insert_at_position, insert_row, now, record_change};
use super::create::{insert_game, seat_players};
use super::games::{EVENTS, event_row};

/// Whether an imported game's events are the stored ones: the same ids, types and data in the
/// same order (the players' ids in `game_started` are each club's own, so they are left out).
fn same_log(stored: &[StoredEvent], file: &[StoredEvent]) -> bool {
    fn without_player_ids(data: &Value) -> Value {
        let mut data = data.clone();
        if let Some(Value::Array(players)) = data.get_mut("players") {
            for player in players.iter_mut().filter_map(Value::as_object_mut) {
                player.remove("player_id");
            }
        }
        data
    }
    stored.len() == file.len()
        && stored.iter().zip(file).all(|(s, f)| {
            s.id == f.id
                && s.event_type == f.event_type
                && if s.seq == 1 {
                    without_player_ids(&s.data) == without_player_ids(&f.data)
                } else {
                    s.data == f.data
                }
        })
}

pub(super) async fn clubs<S: SqlStore>(store: &S) -> Result<Vec<ClubCopy>, StoreError> {
    let rows = query("SELECT id, name, token_hash, created_at FROM clubs ORDER BY id")
        .fetch_all(store.pool())
        .await?;
    let mut clubs = Vec::with_capacity(rows.len());
    for row in &rows {
        let id: String = row.try_get("id")?;
        let players = query(
            "SELECT id, name, name_key, created_at FROM players WHERE club_id = $1 ORDER BY id",
        )
        .bind(&id)
        .fetch_all(store.pool())
        .await?
        .iter()
        .map(|p| {
            Ok(PlayerCopy {
                id: p.try_get("id")?,
                name: p.try_get("name")?,
                name_key: p.try_get("name_key")?,
                created_at: p.try_get("created_at")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()?;
        clubs.push(ClubCopy {
            id,
            name: row.try_get("name")?,
            token_hash: row.try_get("token_hash")?,
            created_at: row.try_get("created_at")?,
            players,
        });
    }
    Ok(clubs)
}

pub(super) async fn copy_club<S: SqlStore>(store: &S, club: &ClubCopy) -> Result<(), StoreError> {
    let _turn = store.write_turn().await;
    let mut tx = store.pool().begin().await?;
    query("INSERT INTO clubs (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4)")
        .bind(&club.id)
        .bind(&club.name)
        .bind(&club.token_hash)
        .bind(club.created_at)
        .execute(&mut tx)
        .await?;
    for p in &club.players {
        query("INSERT INTO players (id, club_id, name, name_key, created_at) VALUES ($1, $2, $3, $4, $5)")
            .bind(&p.id)
            .bind(&club.id)
            .bind(&p.name)
            .bind(&p.name_key)
            .bind(p.created_at)
            .execute(&mut tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}

pub(super) async fn club_game_ids<S: SqlStore>(
    store: &S,
    club: &str,
    after: Option<&str>,
    limit: i64,
) -> Result<Vec<String>, StoreError> {
    // In play order: an import of the file then adds each game after its players'
    // earlier ones, so their runs need no rewriting.
    let rows = query(
        "SELECT id FROM games WHERE club_id = $1 AND ($2 IS NULL OR \
           (started_at, id) > ((SELECT started_at FROM games WHERE id = $2), $2)) \
         ORDER BY started_at, id LIMIT $3",
    )
    .bind(club)
    .bind(after)
    .bind(limit)
    .fetch_all(store.pool())
    .await?;
    rows.iter()
        .map(|row| row.try_get("id").map_err(StoreError::from))
        .collect()
}

pub(super) async fn import_game<S: SqlStore>(
    store: &S,
    club: &str,
    game: &ImportedGame,
    result: &ImportResult<'_>,
) -> Result<ImportOutcome, StoreError> {
    let _turn = store.write_turn().await;
    let mut w = S::Db::writes(store.pool().begin_with(S::Db::BEGIN).await?);
    let owner = w
        .fetch_optional(
            "SELECT club_id FROM games WHERE id = $1",
            args![&game.game.id],
        )
        .await?;
    if let Some(owner) = owner {
        let owner: String = owner.try_get("club_id")?;
        return if owner == club {
            // Present only if it is this game as stored; another copy is a conflict.
            let stored = w.fetch_all(EVENTS, args![&game.game.id, i64::MAX]).await?;
            let stored: Vec<StoredEvent> =
                stored.iter().map(event_row).collect::<Result<_, _>>()?;
            if same_log(&stored, &game.events) {
                Ok(ImportOutcome::AlreadyPresent)
            } else {
                Err(StoreError::Conflict(tabletally_domain::said!(
                    "server.api.import.game_with_other_events",
                    id = game.game.id.as_str(),
                    stored = stored.len(),
                    file = game.events.len()
                )))
            }
        } else {
            Err(StoreError::Conflict(tabletally_domain::said!(
                "server.api.import.game_id_elsewhere",
                id = game.game.id.as_str()
            )))
        };
    }
    let now = now();
    let seats = seat_players(&mut w, club, &game.game.players, now).await?;
    // A seat given by id and another by a name may be one player: one seat each.
    if let Some((a, b)) = seats.iter().enumerate().find_map(|(i, a)| {
        seats[i + 1..]
            .iter()
            .find(|b| b.player_id == a.player_id)
            .map(|b| (a, b))
    }) {
        return Err(StoreError::Conflict(tabletally_domain::said!(
            "server.api.games.seated_twice",
            seat = a.seat,
            name = format!("{:?}", a.name),
            other_seat = b.seat,
            other_name = format!("{:?}", b.name),
            player_id = a.player_id.as_str()
        )));
    }
    let version = game.events.len() as i64;
    let created = game
        .events
        .first()
        .map_or(game.updated_at, |e| e.recorded_at);
    insert_game(
        &mut w,
        club,
        &game.game,
        game.status.as_str(),
        version,
        &seats,
        (created, game.updated_at),
    )
    .await?;
    let record = GameRecord {
        id: game.game.id.clone(),
        game: game.game.game.clone(),
        status: game.status.as_str().to_owned(),
        version,
        options: game.game.options.clone().into(),
        players: seats,
        started_at: game.game.started_at,
        updated_at: game.updated_at,
    };
    // The read models before the events, like an append: their shared rows are
    // locked before the club's positions lock.
    if let Some(result) = result(&record)? {
        let rest = write_result(&mut w, club, &record, false, Some(&result), None).await?;
        w.execute_together(rest).await?;
    }
    let mut stored = Vec::with_capacity(game.events.len());
    for (i, event) in game.events.iter().enumerate() {
        let mut event = event.clone();
        if event.seq == 1 {
            // A seat matched by name gets this club's player id; a seat given by id
            // keeps the id its log was written with (a merged-away player's, too).
            if let Some(Value::Array(players)) = event.data.get_mut("players") {
                for ((player, seat), given) in players
                    .iter_mut()
                    .zip(&record.players)
                    .zip(&game.game.players)
                {
                    if given.player_id.is_none()
                        || player.get("player_id").is_none_or(Value::is_null)
                    {
                        player["player_id"] = json!(seat.player_id);
                    }
                }
            }
        }
        // Under the club's positions lock, like an append: a client following the
        // club's log meanwhile misses none of the imported events.
        stored.push(if game.keep_positions && event.position > 0 {
            insert_at_position(&mut w, &game.game.id, event).await?
        } else {
            insert_row(&mut w, i == 0, &game.game.id, event).await?
        });
    }
    if game.keep_positions && S::Db::NAME == "postgres" {
        // Positions given by hand leave the identity behind: later appends go after them.
        w.execute(
            "SELECT setval(pg_get_serial_sequence('events', 'position'), (SELECT MAX(position) FROM events))",
            args![],
        )
        .await?;
    }
    // The lobby's news, as if it had been played here: created, then how it ended.
    let created = GameRecord {
        status: "in_progress".into(),
        version: 1,
        ..record.clone()
    };
    if let (Some(first), Some(last)) = (stored.first(), stored.last()) {
        record_change(&mut w, club, &created, None, first).await?;
        record_change(&mut w, club, &record, Some("in_progress"), last).await?;
    }
    w.commit().await?;
    if let Some(subscribers) = store.shared().subscribers.get() {
        subscribers.committed(Committed {
            club,
            game: &record,
            previous_status: None,
            events: stored,
            scoreboard: None,
        });
    }
    Ok(ImportOutcome::Imported)
}

pub(super) async fn refresh_planner_statistics<S: SqlStore>(store: &S) -> Result<(), StoreError> {
    if S::Db::NAME == "postgres" {
        query("ANALYZE").execute(store.pool()).await?;
    }
    Ok(())
}
