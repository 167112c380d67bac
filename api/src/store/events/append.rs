//! The write path: an append decided and written inside its transaction, a game created with
//! its first event, and the rows both write (the game's row, its seats and players, its events,
//! the lobby's changes). The caller holds the transaction and commits it.

use chrono::{DateTime, SubsecRound, Utc};
use serde_json::json;
use tabletally_domain::Scoreboard;
use tabletally_domain::setup::name_key;

use crate::append::{self, AppendRequest, Decision};
use crate::records::{GameRecord, HeldGame, NewEvent, SeatRecord, StoredEvent};
use crate::store::backend::{Backend, INSERT_EVENT};
use crate::store::columns::Columns;
use crate::store::commit::{AfterCommit, Shared, Written};
use crate::store::error::StoreError;
use crate::store::lists::{Param, placeholders};
use crate::store::stats::write::{first_finish_writes, write_result};
use crate::store::together::{Statement, renumbered, together};
use crate::store::types::RowMoved;
use crate::store::types::{Appended, NewGame, NewSeat, SCHEMA_VERSION, change_kind};
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
fn event_values(game_id: &str, event: &StoredEvent) -> Vec<Param> {
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

/// The read of a new game's players: `$1` the club, then `names` name keys, each looked up by
/// the whole unique key, then `ids` known players' ids, by the primary key (the club compared
/// as in [`crate::store::plain::PLAIN_APPEND`]). Each name is its own lookup, which PostgreSQL
/// plans by the whole key even before it has the table's statistics.
pub fn seat_players_read(names: usize, ids: usize) -> String {
    let mut lookups: Vec<String> = (2..names + 2)
        .map(|key| {
            format!("SELECT id, name_key FROM players WHERE club_id = $1 AND name_key = ${key}")
        })
        .collect();
    if ids > 0 {
        let ids: Vec<String> = (names + 2..names + 2 + ids)
            .map(|n| format!("${n}"))
            .collect();
        lookups.push(format!(
            "SELECT id, name_key FROM players WHERE id IN ({}) AND club_id || '' = $1",
            ids.join(", ")
        ));
    }
    lookups.join(" UNION ALL ")
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

/// Creates a game and its event 1 inside an open transaction (see
/// `EventStore::create_game`); the caller commits.
pub(super) async fn create_in<W: Writing>(
    w: &mut W,
    club: &str,
    game: &NewGame,
) -> Result<Written<Option<GameRecord>>, StoreError> {
    created(w, club, game, true).await
}

/// PostgreSQL: a club's usual creation, whose players are all the club's already and whose
/// id is new, is one read and then one statement writing every row, so it needs no
/// transaction (`w` commits each statement on its own). `None`, with nothing written, when a
/// name is new to the club or the id is taken: the transaction's way ([`create_in`]) then.
pub(super) async fn create_known<W: Writing>(
    w: &mut W,
    club: &str,
    game: &NewGame,
) -> Result<Option<Written<Option<GameRecord>>>, StoreError> {
    let written = created(w, club, game, false).await?;
    Ok(written.after.is_some().then_some(written))
}

/// [`create_in`]; `adding`: the seats' new names are added to the club's players (else the
/// game is not created when one is new).
async fn created<W: Writing>(
    w: &mut W,
    club: &str,
    game: &NewGame,
    adding: bool,
) -> Result<Written<Option<GameRecord>>, StoreError> {
    let now = now();
    let Some(seats) = seats_of(w, club, Some(&game.id), &game.players, now, adding).await? else {
        // Stored already (the creation was sent again), or a name is new and not `adding`.
        return Ok(Written {
            answer: None,
            after: None,
        });
    };
    let (rows, started, change) = creation(club, game, &seats, now);
    let first = insert_events(w, &game.id, 1, &[started], now, change, rows).await?;
    created_record(club, game, seats, first, now)
}

/// PostgreSQL: a creation whose every seat's player this server has seen by name (`seats`, in
/// seat order, `seated` their `(name key, player)`), in one statement that writes only if the
/// id is new and each name still the player's ([`crate::store::one_statement`]). `None`, with
/// nothing written, when not.
pub(super) async fn create_at_once<W: Writing>(
    w: &mut W,
    club: &str,
    game: &NewGame,
    seats: Vec<SeatRecord>,
    seated: &[(String, String)],
) -> Result<Option<Written<Option<GameRecord>>>, StoreError> {
    let now = now();
    let (rows, started, change) = creation(club, game, &seats, now);
    let Some(mut change) = change else {
        return Ok(None);
    };
    let event = to_store(started, 1, now);
    let mut event_and_change = event_values(&game.id, &event);
    event_and_change.append(&mut change);
    let Some((sql, values)) =
        crate::store::one_statement::once_checked(club, &game.id, seated, rows, event_and_change)
    else {
        return Ok(None);
    };
    let Some(row) = w.fetch_optional(&sql, values).await? else {
        return Ok(None);
    };
    let first = vec![StoredEvent {
        position: row.try_get("position")?,
        ..event
    }];
    created_record(club, game, seats, first, now).map(Some)
}

/// A creation's writes: the game's row and seats; its first event; the lobby's change
/// ([`change_values`]).
fn creation(
    club: &str,
    game: &NewGame,
    seats: &[SeatRecord],
    now: DateTime<Utc>,
) -> (Vec<Statement>, NewEvent, Option<Vec<Param>>) {
    let rows = game_rows(club, game, "in_progress", 1, seats, (now, now));
    let started = json!({
        "game": game.game,
        "players": seats.iter().map(|s| json!({
            "name": s.name, "player_id": s.player_id, "seat": s.seat, "color": s.color,
        })).collect::<Vec<_>>(),
        "options": game.options,
        "started_at": game.started_at,
    });
    // The game's own id doubles as the client id of its first event.
    let started = NewEvent {
        id: game.id.clone(),
        event_type: "game_started".into(),
        data: started,
        recorded_by: game.recorded_by.clone(),
    };
    let change = change_values(club, &game.id, (None, "in_progress"), 1, now);
    (rows, started, change)
}

/// What a creation answers and reports once committed: the game as created, held.
fn created_record(
    club: &str,
    game: &NewGame,
    seats: Vec<SeatRecord>,
    first: Vec<StoredEvent>,
    now: DateTime<Utc>,
) -> Result<Written<Option<GameRecord>>, StoreError> {
    let created = GameRecord {
        id: game.id.clone(),
        game: game.game.clone(),
        status: "in_progress".into(),
        version: 1,
        options: crate::records::shared_options(&game.options.to_string())
            .map_err(|e| corrupt("new game's options", e))?,
        players: seats,
        started_at: game.started_at,
        updated_at: now,
    };
    let held =
        HeldGame::replay(created.clone(), first.clone()).map_err(|e| corrupt("new game", e))?;
    Ok(Written {
        answer: Some(created),
        after: Some(AfterCommit {
            club: club.to_owned(),
            previous_status: None,
            events: first,
            scoreboard: None,
            held,
        }),
    })
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
fn change_values(
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
async fn insert_events<W: Writing>(
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

/// Finds or adds the club's players for a new game's seats, in seat order.
pub(super) async fn seat_players<W: Writing>(
    w: &mut W,
    club: &str,
    players: &[NewSeat],
    now: DateTime<Utc>,
) -> Result<Vec<SeatRecord>, StoreError> {
    // With no game id to look for, never `None`.
    Ok(seats_of(w, club, None, players, now, true)
        .await?
        .unwrap_or_default())
}

/// [`seat_players`], after checking that no game has the id `new_game` yet (`None`: one has).
/// Not `adding` (PostgreSQL only), nothing is written: `None` too when a name is new to the
/// club or a player id is not found.
async fn seats_of<W: Writing>(
    w: &mut W,
    club: &str,
    new_game: Option<&str>,
    players: &[NewSeat],
    now: DateTime<Utc>,
    adding: bool,
) -> Result<Option<Vec<SeatRecord>>, StoreError> {
    // Add the new names first, in key order (the order every creation inserts them
    // in, so two creations adding the same names cannot deadlock); a concurrent
    // creation may add the same name.
    let mut new_keys: Vec<(String, &str)> = players
        .iter()
        .filter(|seat| seat.player_id.is_none())
        .map(|seat| (name_key(&seat.name), seat.name.as_str()))
        .collect();
    new_keys.sort_unstable();
    new_keys.dedup_by(|a, b| a.0 == b.0);
    let mut added = Vec::with_capacity(5 * new_keys.len());
    for (key, name) in &new_keys {
        added.extend(args![
            uuid::Uuid::new_v4().to_string(),
            club,
            *name,
            key,
            now
        ]);
    }
    // Every seat's player in one read ([`seat_players_read`]).
    let known: Vec<&String> = players
        .iter()
        .filter_map(|seat| seat.player_id.as_ref())
        .collect();
    let read = || {
        let mut params = vec![Param::from(club)];
        params.extend(new_keys.iter().map(|(key, _)| Param::from(key)));
        params.extend(known.iter().map(|id| Param::from(*id)));
        (params.len() > 1).then(|| (seat_players_read(new_keys.len(), known.len()), params))
    };
    let mut by_key = std::collections::HashMap::new();
    let mut ids = std::collections::HashSet::new();
    let mut read_again = true;
    if W::Db::WRITES_TOGETHER && (new_game.is_some() || !new_keys.is_empty() || !known.is_empty()) {
        let names = if adding { new_keys.len() } else { 0 };
        let (sql, values) = checked_added_read(new_game, names, added, read());
        for row in w.fetch_all(&sql, values).await? {
            let Some(id) = row.try_get::<Option<String>, _>("id")? else {
                return Ok(None);
            };
            by_key.insert(row.try_get::<String, _>("name_key")?, id.clone());
            ids.insert(id);
        }
        // A name another creation added since this statement began is in neither part.
        read_again = new_keys.iter().any(|(key, _)| !by_key.contains_key(key))
            || known.iter().any(|id| !ids.contains(*id));
        if read_again && !adding {
            return Ok(None);
        }
    } else {
        if let Some(id) = new_game
            && w.fetch_optional("SELECT 1 FROM games WHERE id = $1", args![id])
                .await?
                .is_some()
        {
            return Ok(None);
        }
        if !new_keys.is_empty() {
            w.execute(
                &format!(
                    "INSERT INTO players (id, club_id, name, name_key, created_at) VALUES {} \
                     ON CONFLICT (club_id, name_key) DO NOTHING",
                    placeholders(new_keys.len(), 5)
                ),
                added,
            )
            .await?;
        }
    }
    if read_again && let Some((sql, params)) = read() {
        for row in w.fetch_all(&sql, params).await? {
            let id: String = row.try_get("id")?;
            by_key.insert(row.try_get::<String, _>("name_key")?, id.clone());
            ids.insert(id);
        }
    }
    let mut seats = Vec::with_capacity(players.len());
    for (i, seat) in players.iter().enumerate() {
        let player_id = match &seat.player_id {
            Some(id) if ids.contains(id) => id.clone(),
            Some(id) => return Err(StoreError::UnknownPlayer(id.clone())),
            // Gone between the insert, which found the name taken, and the read: the
            // player was merged into another meanwhile (PostgreSQL; SQLite's writer
            // and merges take turns). Sent again, the creation adds the name anew.
            None => by_key.get(&name_key(&seat.name)).cloned().ok_or_else(|| {
                StoreError::Conflict(tabletally_domain::said!(
                    "server.api.games.player_merged_concurrently",
                    name = format!("{:?}", seat.name)
                ))
            })?,
        };
        seats.push(SeatRecord {
            seat: i as i64 + 1,
            name: seat.name.clone(),
            player_id,
            color: seat.color.clone(),
        });
    }
    Ok(Some(seats))
}

/// PostgreSQL: [`seats_of`]'s check of the new game's id, its new names' insert (`added`: five
/// values a name, `names` of them) and its read of every seat's player (`read`) as one
/// statement ([`crate::store::together`]). Its rows: a row with no id if the game is stored
/// already (nothing is added then); then each name added, from the insert; then what the read
/// finds, which sees the players as they were before the statement (so not those it adds).
fn checked_added_read(
    new_game: Option<&str>,
    names: usize,
    added: Vec<Param>,
    read: Option<Statement>,
) -> Statement {
    let mut withs = Vec::new();
    let mut selects = Vec::new();
    let mut values = Vec::new();
    let mut guard = "";
    if let Some(id) = new_game {
        values.push(Param::from(id));
        withs.push("taken AS (SELECT 1 FROM games WHERE id = $1)".to_owned());
        selects.push(
            "SELECT CAST(NULL AS TEXT) AS id, CAST(NULL AS TEXT) AS name_key FROM taken".to_owned(),
        );
        guard = " WHERE NOT EXISTS (SELECT 1 FROM taken)";
    }
    if names > 0 {
        let rows = renumbered(&placeholders(names, 5), values.len());
        withs.push(format!(
            "added AS (INSERT INTO players (id, club_id, name, name_key, created_at) \
             SELECT * FROM (VALUES {rows}) AS v{guard} \
             ON CONFLICT (club_id, name_key) DO NOTHING RETURNING id, name_key)"
        ));
        selects.push("SELECT id, name_key FROM added".to_owned());
        values.extend(added);
    }
    if let Some((sql, read)) = read {
        selects.push(renumbered(&sql, values.len()));
        values.extend(read);
    }
    let with = if withs.is_empty() {
        String::new()
    } else {
        format!("WITH {} ", withs.join(", "))
    };
    (format!("{with}{}", selects.join(" UNION ALL ")), values)
}

/// Inserts a game's row and seats (status and version as given), sent together
/// ([`crate::store::together`]: the seats' check of their game sees the row).
pub(super) async fn insert_game<W: Writing>(
    w: &mut W,
    club: &str,
    game: &NewGame,
    status: &str,
    version: i64,
    seats: &[SeatRecord],
    times: (DateTime<Utc>, DateTime<Utc>),
) -> Result<(), StoreError> {
    w.execute_together(game_rows(club, game, status, version, seats, times))
        .await
}

/// The inserts of a game's row and its seats.
fn game_rows(
    club: &str,
    game: &NewGame,
    status: &str,
    version: i64,
    seats: &[SeatRecord],
    (created, updated): (DateTime<Utc>, DateTime<Utc>),
) -> Vec<Statement> {
    let mut statements = vec![(
        "INSERT INTO games (id, club_id, game, status, version, options, started_at, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
            .to_owned(),
        args![&game.id, club, &game.game, status, version, game.options.to_string(), game.started_at, created, updated],
    )];
    if !seats.is_empty() {
        let mut values = Vec::with_capacity(5 * seats.len());
        for seat in seats {
            values.extend(args![
                &game.id,
                seat.seat,
                &seat.player_id,
                &seat.name,
                &seat.color
            ]);
        }
        statements.push((
            format!(
                "INSERT INTO game_players (game_id, seat, player_id, name, color) VALUES {}",
                placeholders(seats.len(), 5)
            ),
            values,
        ));
    }
    statements
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
