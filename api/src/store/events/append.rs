//! The write path: an append decided and written inside its transaction, and the rows it and a
//! creation ([`super::create`]) write (the game's row, its events, the lobby's changes). The
//! caller holds the transaction and commits it.

use chrono::{DateTime, SubsecRound, Utc};
use tabletally_domain::Scoreboard;

use crate::append::{self, AppendRequest, Decision};
use crate::records::{GameRecord, HeldGame, NewEvent, StoredEvent};
use crate::store::backend::{Backend, INSERT_EVENT};
use crate::store::columns::Columns;
use crate::store::commit::{AfterCommit, Shared, Written};
use crate::store::error::StoreError;
use crate::store::lists::Param;
use crate::store::stats::write::{first_finish_writes, write_result};
use crate::store::together::{Statement, together};
use crate::store::types::RowMoved;
use crate::store::types::{Appended, SCHEMA_VERSION, change_kind};
use crate::store::writes::{Writing, args};

use super::games::{EVENTS, GAME_ROW, SEATS, corrupt, event_row, game_row, seat_rows};

/// The clock, at the precision both databases keep (microseconds), so an answer given from
/// memory equals the same answer read back later.
pub(in crate::store) fn now() -> DateTime<Utc> {
    Utc::now().trunc_subsecs(6)
}

/// An append decided from a held game state before its row was locked (PostgreSQL,
/// `write_append` of its store): the state's version, the decision, and the state advanced
/// by it.
pub(in crate::store) struct Decided {
    pub(super) version: i64,
    pub(super) decision: Decision,
    pub(super) held: HeldGame,
}

impl Decided {
    /// An append that changes neither the game's status nor the statistics: its writes are the
    /// game's row and the events alone.
    pub(super) fn is_plain(&self) -> bool {
        matches!(
            &self.decision,
            Decision::Append { status, result: None, .. }
                if status.as_str() == self.held.game.status && self.held.game.status != "finished"
        )
    }
}

impl Decided {
    /// An append whose one event moves the game's status, the game not finished before (a
    /// first finish, mostly): PostgreSQL writes it in one statement ([`crate::store::one_statement`]).
    pub(super) fn moves_status_alone(&self) -> bool {
        matches!(
            &self.decision,
            Decision::Append { events, status, .. }
                if events.len() == 1
                    && status.as_str() != self.held.game.status
                    && self.held.game.status != "finished"
        )
    }

    /// [`Decided::moves_status_alone`]'s one statement, writing only while the game's row is
    /// at the decided version in `club`, and the event as it will be stored (its position read
    /// back). `None` for another decision.
    pub(super) fn status_move(
        &self,
        club: &str,
        now: DateTime<Utc>,
        alone: bool,
    ) -> Result<Option<(Statement, StoredEvent)>, StoreError> {
        let Decision::Append {
            events,
            status,
            result,
            read_models,
            ..
        } = &self.decision
        else {
            return Ok(None);
        };
        let ([event], true) = (events.as_slice(), self.moves_status_alone()) else {
            return Ok(None);
        };
        let game = &self.held.game;
        let moved = RowMoved {
            version: self.version + 1,
            status: Some(status.as_str()),
            at: now,
        };
        // As `write_decided` writes them: a first finish's results and notes, or the row alone.
        let (row, rest) = match result.as_ref().filter(|_| *read_models) {
            Some(result) => first_finish_writes(club, game, result, Some(moved))?,
            None => (moved.update(&game.id, "", args![]), Vec::new()),
        };
        let Some(mut change) = change_values(
            club,
            &game.id,
            (Some(&game.status), status.as_str()),
            self.version + 1,
            now,
        ) else {
            return Ok(None);
        };
        let event = to_store(event.clone(), self.version + 1, now);
        let mut event_and_change = event_values(&game.id, &event);
        event_and_change.append(&mut change);
        let statement = crate::store::one_statement::once_moved(
            row,
            (club, self.version),
            alone,
            rest,
            event_and_change,
        );
        Ok(statement.map(|statement| (statement, event)))
    }
}

/// A new event as it is stored at `seq`, recorded `at` (its position is the database's).
pub(super) fn to_store(new: NewEvent, seq: i64, at: DateTime<Utc>) -> StoredEvent {
    StoredEvent {
        position: 0,
        seq,
        id: new.id,
        event_type: new.event_type,
        schema_version: SCHEMA_VERSION,
        data: new.data,
        recorded_at: at,
        recorded_by: new.recorded_by,
    }
}

/// What an append answers and reports once committed: the held game moved on by the events
/// just written (`stored`, with their positions) to `status`.
pub(super) fn appended(
    club: &str,
    mut held: HeldGame,
    stored: Vec<StoredEvent>,
    status: &str,
    at: DateTime<Utc>,
    scoreboard: Scoreboard,
) -> Written<Appended> {
    held.stored_events(&stored);
    let version = held.game.version + stored.len() as i64;
    let previous_status = std::mem::replace(&mut held.game.status, status.to_owned());
    held.game.version = version;
    held.game.updated_at = at;
    Written {
        answer: Appended {
            version,
            events: stored.clone(),
            already_stored: false,
        },
        after: Some(AfterCommit {
            club: club.to_owned(),
            previous_status: Some(previous_status),
            events: stored,
            scoreboard: Some(scoreboard),
            held,
        }),
    }
}

/// An event row's values after its position, in the order of [`INSERT_EVENT`]'s columns.
pub(super) fn event_values(game_id: &str, event: &StoredEvent) -> Vec<Param> {
    args![
        game_id,
        event.seq,
        &event.id,
        &event.event_type,
        event.schema_version,
        event.data.to_string(),
        event.recorded_at,
        &event.recorded_by,
    ]
}

/// Decides and writes one append inside an open transaction, the game's row locked:
/// the game as held (from the state cache when it is at the row's version, else
/// replayed from the log), the decision, the writes. Returns the answer and what to
/// do once the transaction is durable; the caller commits.
///
/// `decided`: the append as already decided from a held state; written as it is when
/// the row is still at that state's version, else decided again. `prepared`: the
/// game replayed before the transaction, used when the row is still at its version
/// (a long log is not replayed while holding the database's write lock).
pub(super) async fn append_in<W: Writing>(
    shared: &Shared,
    w: &mut W,
    club: &str,
    id: &str,
    request: &AppendRequest,
    decided: Option<Decided>,
    prepared: Option<HeldGame>,
) -> Result<Written<Appended>, StoreError> {
    // The sole writer's confirmed entry is the game as stored: nothing to read.
    if w.is_sole_writer()
        && let Some(held) = shared.cache.take_confirmed(club, id)
    {
        return decide_and_write(shared, w, club, id, request, held).await;
    }
    let row = w
        .fetch_optional(&format!("{GAME_ROW}{}", W::Db::LOCK_ROW), args![id, club])
        .await?;
    let Some(row) = row else {
        return Err(StoreError::NotFound);
    };
    let row = game_row(&row)?;
    if let Some(decided) = decided.filter(|d| d.version == row.version) {
        return write_decided(shared, w, club, id, decided.decision, decided.held).await;
    }
    let prepared = prepared.filter(|p| p.game.version == row.version);
    let held = match shared.cache.take(id, row.version).or(prepared) {
        Some(held) => held,
        None => {
            let mut game = row;
            game.players = seat_rows(&w.fetch_all(SEATS, args![id]).await?)?;
            let log = w.fetch_all(EVENTS, args![id, game.version]).await?;
            let log = log.iter().map(event_row).collect::<Result<_, _>>()?;
            HeldGame::replay(game, log).map_err(|e| corrupt("stored game", e))?
        }
    };
    decide_and_write(shared, w, club, id, request, held).await
}

/// The append's decision from the game as held, and its writes.
pub(super) async fn decide_and_write<W: Writing>(
    shared: &Shared,
    w: &mut W,
    club: &str,
    id: &str,
    request: &AppendRequest,
    mut held: HeldGame,
) -> Result<Written<Appended>, StoreError> {
    if held.needs_log(request) {
        // A retract, correction, abandon or retry: decided on the log, read again.
        let log = w.fetch_all(EVENTS, args![id, held.game.version]).await?;
        let log = log.iter().map(event_row).collect::<Result<_, _>>()?;
        held = HeldGame::replay(held.game, log).map_err(|e| corrupt("stored game", e))?;
    }
    match append::decide(&mut held, request) {
        Ok(decision) => write_decided(shared, w, club, id, decision, held).await,
        Err(refused) => {
            // Unchanged by a refusal, and still at the row's version.
            if refused.left_the_state() {
                shared.cache.put_written(club, held);
            }
            Err(refused.into())
        }
    }
}

/// The writes of an append decided from `held` (on `Append`, its state already
/// advanced past the new events).
pub(super) async fn write_decided<W: Writing>(
    shared: &Shared,
    w: &mut W,
    club: &str,
    id: &str,
    decision: Decision,
    held: HeldGame,
) -> Result<Written<Appended>, StoreError> {
    match decision {
        Decision::AlreadyStored { events } => {
            let version = held.game.version;
            shared.cache.put_written(club, held);
            Ok(Written {
                answer: Appended {
                    version,
                    events,
                    already_stored: true,
                },
                after: None,
            })
        }
        Decision::Append {
            events,
            status,
            result,
            read_models,
            scoreboard,
        } => {
            let now = now();
            let version = held.game.version + events.len() as i64;
            // Everything but the events first: on PostgreSQL the first event's insert
            // takes the club's positions lock (shared), held to the commit, so the
            // fewer statements after it, the sooner a reader of the club's log goes.
            let moved = RowMoved {
                version,
                status: Some(status.as_str()).filter(|s| *s != held.game.status),
                at: now,
            };
            // The read models change only when the game was or is now finished. Their
            // shared rows are locked in one order by every writer (`write_result`),
            // and always before the positions lock: no two appends wait in a circle.
            // What is left of their writes goes with the events.
            let mut with = Vec::new();
            if read_models && (held.game.status == "finished" || result.is_some()) {
                with = write_result(
                    w,
                    club,
                    &held.game,
                    held.game.status == "finished",
                    result.as_ref(),
                    Some(moved),
                )
                .await?;
            } else {
                update_game(w, id, moved).await?;
            }
            let change = change_values(
                club,
                id,
                (Some(&held.game.status), status.as_str()),
                version,
                now,
            );
            let first = held.game.version + 1;
            let stored = insert_events(w, id, first, &events, now, change, with).await?;
            Ok(appended(
                club,
                held,
                stored,
                status.as_str(),
                now,
                *scoreboard,
            ))
        }
    }
}

/// Moves the game's row on ([`RowMoved`]).
pub(super) async fn update_game<W: Writing>(
    w: &mut W,
    id: &str,
    moved: RowMoved<'_>,
) -> Result<(), StoreError> {
    let (sql, values) = moved.update(id, "", args![]);
    w.execute(&sql, values).await
}

/// The lobby's change a commit makes to a game, moving it from status `from` to `to` (`from`
/// `None`: a new game) at `version`: its row's values after its position, or `None` when the
/// lobby does not change.
pub(super) fn change_values(
    club: &str,
    id: &str,
    (from, to): (Option<&str>, &str),
    version: i64,
    at: DateTime<Utc>,
) -> Option<Vec<Param>> {
    let kind = change_kind(from, to)?;
    Some(args![club, id, kind, to, version, at])
}

/// Inserts a commit's events, numbered from `first` (the first takes the club's positions
/// lock), and the lobby's change they make (`change`, [`change_values`]), after `with`: the
/// commit's writes that do not depend on its events ([`crate::store::together`]). On PostgreSQL
/// one event and its change go in one statement with them: a game's creation and its finish are
/// such commits.
pub(super) async fn insert_events<W: Writing>(
    w: &mut W,
    id: &str,
    first: i64,
    events: &[NewEvent],
    now: DateTime<Utc>,
    change: Option<Vec<Param>>,
    mut with: Vec<Statement>,
) -> Result<Vec<StoredEvent>, StoreError> {
    let change = match (events, change, W::Db::EVENT_WITH_CHANGE) {
        ([event], Some(change), Some(sql)) => {
            let event = to_store(event.clone(), first, now);
            let mut values = event_values(id, &event);
            values.extend(change);
            with.push((sql.to_owned(), values));
            let (sql, values) = together(with);
            let row = w.fetch_one(&sql, values).await?;
            return Ok(vec![StoredEvent {
                position: row.try_get("position")?,
                ..event
            }]);
        }
        (_, change, _) => change,
    };
    w.execute_together(with).await?;
    let mut stored = Vec::with_capacity(events.len());
    for (i, event) in events.iter().enumerate() {
        stored.push(insert_event(w, i == 0, id, first + i as i64, event, now).await?);
    }
    if let (Some(values), Some(last)) = (change, stored.last()) {
        insert_change(w, last.position, values).await?;
    }
    Ok(stored)
}

/// Records a lobby change with the commit that caused it.
pub(super) async fn record_change<W: Writing>(
    w: &mut W,
    club: &str,
    game: &GameRecord,
    previous_status: Option<&str>,
    last: &StoredEvent,
) -> Result<(), StoreError> {
    let from_to = (previous_status, game.status.as_str());
    let Some(values) = change_values(club, &game.id, from_to, game.version, last.recorded_at)
    else {
        return Ok(());
    };
    insert_change(w, last.position, values).await
}

/// Inserts a lobby change's row after the event at `position` (`values`: [`change_values`]).
async fn insert_change<W: Writing>(
    w: &mut W,
    position: i64,
    values: Vec<Param>,
) -> Result<(), StoreError> {
    if w.is_sole_writer() {
        // `last` was the connection's last insert; its position is not known yet.
        return w.execute(
            "INSERT INTO game_changes (position, club_id, game_id, kind, status, version, changed_at) \
             VALUES (last_insert_rowid(), $1, $2, $3, $4, $5, $6)",
            values,
        )
        .await;
    }
    let mut with_position = args![position];
    with_position.extend(values);
    w.execute(
        "INSERT INTO game_changes (position, club_id, game_id, kind, status, version, changed_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        with_position,
    )
    .await
}

pub(super) async fn insert_event<W: Writing>(
    w: &mut W,
    in_order: bool,
    game_id: &str,
    seq: i64,
    new: &NewEvent,
    at: DateTime<Utc>,
) -> Result<StoredEvent, StoreError> {
    insert_row(w, in_order, game_id, to_store(new.clone(), seq, at)).await
}

/// Inserts one event row at the position it had in another database (`migrate`,
/// into an empty one: no reader or writer is there to order against).
pub(super) async fn insert_at_position<W: Writing>(
    w: &mut W,
    game_id: &str,
    event: StoredEvent,
) -> Result<StoredEvent, StoreError> {
    let overriding = if W::Db::NAME == "postgres" {
        " OVERRIDING SYSTEM VALUE"
    } else {
        ""
    };
    w.execute(
        &format!(
            "INSERT INTO events (position, game_id, seq, event_id, type, schema_version, data, recorded_at, recorded_by){overriding} \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        ),
        [args![event.position], event_values(game_id, &event)].concat(),
    )
    .await?;
    Ok(event)
}

/// Inserts one event row. A reader of the club's log that has seen position `p`
/// must never see a smaller one appear later (the catch-up and the lobby rely on
/// it). SQLite has one writer, so its positions are in commit order anyway. On
/// PostgreSQL a transaction's first event's insert (`in_order`) takes the club's
/// positions lock *shared*, held to the commit: the club's appends commit side by
/// side (PostgreSQL's group commit), and a reader waits for those in flight before
/// it reads (`settled_position`).
pub(super) async fn insert_row<W: Writing>(
    w: &mut W,
    in_order: bool,
    game_id: &str,
    event: StoredEvent,
) -> Result<StoredEvent, StoreError> {
    // The insert, and the same insert reading the new row's position back.
    let sql = if in_order {
        W::Db::INSERT_IN_ORDER
    } else {
        INSERT_EVENT
    };
    let values = event_values(game_id, &event);
    if w.is_sole_writer() {
        // Its position is the batch's next one, settled at the commit.
        w.execute(sql, values).await?;
        return Ok(StoredEvent {
            position: w.provisional_position(),
            ..event
        });
    }
    // The same insert, reading the new row's position back.
    let row = w
        .fetch_one(&format!("{sql} RETURNING position"), values)
        .await?;
    Ok(StoredEvent {
        position: row.try_get("position")?,
        ..event
    })
}
