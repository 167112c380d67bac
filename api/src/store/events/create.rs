//! A game created with its first event: the seats' players found or added, the game's row and
//! seats, its event 1 and the lobby's change, in a transaction or (PostgreSQL) in one statement.
//! The caller holds the transaction and commits it.

use chrono::{DateTime, Utc};
use serde_json::json;
use tabletally_domain::setup::name_key;

use crate::records::{GameRecord, HeldGame, NewEvent, SeatRecord, StoredEvent};
use crate::store::backend::Backend;
use crate::store::columns::Columns;
use crate::store::commit::{AfterCommit, Written};
use crate::store::error::StoreError;
use crate::store::lists::{Param, placeholders};
use crate::store::together::{Statement, renumbered};
use crate::store::types::{NewGame, NewSeat};
use crate::store::writes::{Writing, args};

use super::append::{change_values, event_values, insert_events, now, to_store};
use super::games::corrupt;

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
