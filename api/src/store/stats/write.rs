//! The statistics' write side: a game's part of the read models rewritten inside the
//! transaction that changes its result (its seats, its players' leaderboard sums, runs and
//! month snapshots, the day and month buckets; a first finish's sums are added later, in a
//! batch: [`super::settle`]), and the whole read models cleared or rebuilt.

use std::collections::BTreeMap;

use crate::records::{GameRecord, GameResult, SeatRecord};
use crate::store::backend::Backend;
use crate::store::backend::query;
use crate::store::columns::Columns;
use crate::store::error::StoreError;
use crate::store::lists::Param;
use crate::store::sql_store::SqlStore;
use crate::store::together::Statement;
use crate::store::types::RowMoved;
use crate::store::writes::{WriteOn, Writing, args};

use super::buckets::recompute_buckets;
use super::ratings::change_noted;
use super::settle::{lock_statistics, noted, settle_in};
use super::sql::{CLEAR_RUNS, CLEAR_SNAPSHOTS, RECOMPUTE_RUNS, RECOMPUTE_SNAPSHOTS, not_noted};
use super::summary::FactsBySeat;

/// The game and its result with each seat's player as stored now (`now_seated`: seat → player
/// id), where a merge moved one since the game was held.
pub(super) fn reseated(
    game: &GameRecord,
    result: Option<&GameResult>,
    now_seated: &BTreeMap<i64, String>,
) -> (GameRecord, Option<GameResult>) {
    let mut game = game.clone();
    let mut moved: BTreeMap<String, String> = BTreeMap::new();
    for seat in &mut game.players {
        if let Some(now) = now_seated.get(&seat.seat)
            && *now != seat.player_id
        {
            moved.insert(
                std::mem::replace(&mut seat.player_id, now.clone()),
                now.clone(),
            );
        }
    }
    let mut result = result.cloned();
    if let Some(result) = result.as_mut().filter(|_| !moved.is_empty()) {
        for player in &mut result.players {
            if let Some(now) = moved.get(&player.player_id) {
                player.player_id = now.clone();
            }
        }
        for (player, _, _) in &mut result.facts {
            if let Some(now) = player.as_ref().and_then(|id| moved.get(id)) {
                *player = Some(now.clone());
            }
        }
    }
    (game, result)
}

/// Rewrites one game's part of the read models inside the caller's transaction: the
/// results and facts on its seats and its row, and its players' leaderboard sums. `moved`:
/// the append that changes the result moves the game's row on too, written with its facts.
/// Returns the writes left to send, which depend on nothing written after them (a first
/// finish's writes, made with no read at all): an append sends them with its events
/// ([`crate::store::together`]), any other caller as they are.
///
/// A first finish writes its seats' results and notes the game: what it adds to its players'
/// sums, runs and month snapshots and to its buckets is added later, with the club's other
/// finishes ([`super::settle`]). Anything else recomputes those sums from the seats, holding the
/// club's statistics lock, and leaves the finishes still noted to their settling.
pub(in crate::store) async fn write_result<W: Writing>(
    w: &mut W,
    club: &str,
    game: &GameRecord,
    was_finished: bool,
    result: Option<&GameResult>,
    moved: Option<RowMoved<'_>>,
) -> Result<Vec<Statement>, StoreError> {
    if !was_finished && let Some(result) = result {
        return first_finish(w, club, game, result, moved).await;
    }
    if let (None, Some(moved)) = (result, moved) {
        let (sql, values) = moved.update(&game.id, "", args![]);
        w.execute(&sql, values).await?;
    }
    // Before the seats' players are locked, as by every writer of the club's sums.
    lock_statistics(w, club).await?;
    // The seats' players as stored: a merge may have moved a seat to another player
    // since this game's state was held (a merge changes no game's version). On
    // PostgreSQL the seats stay locked, so no merge moves them before the commit, and so
    // do their players' rows, in id order (NO KEY UPDATE leaves the foreign-key checks of
    // concurrent game creations unblocked; SQLite: the database write lock already
    // serialises appends).
    let now_seated = seated_of(
        &w.fetch_all(&seats_locked::<W::Db>(), args![&game.id])
            .await?,
    )?;
    let (game, result) = reseated(game, result, &now_seated);
    let (game, result) = (&game, result.as_ref());
    // A game that was finished may hold an earlier result: clear it.
    let mut had_result = false;
    if was_finished {
        let cleared = w
            .fetch_all(
                "UPDATE game_players SET total = NULL, rank = NULL, facts = NULL \
                 WHERE game_id = $1 AND rank IS NOT NULL RETURNING seat",
                args![&game.id],
            )
            .await?;
        had_result = !cleared.is_empty();
        w.execute(
            "UPDATE games SET facts = NULL WHERE id = $1 AND facts IS NOT NULL",
            args![&game.id],
        )
        .await?;
    }
    // The variant the earlier result counted in: its day and month are summed again.
    let mut variants: Vec<String> = result
        .map(|r| r.variant.clone().unwrap_or_default())
        .into_iter()
        .collect();
    if had_result {
        let row = w
            .fetch_one("SELECT variant FROM games WHERE id = $1", args![&game.id])
            .await?;
        variants.push(row.try_get("variant")?);
    }
    let noted = change_noted(club, &game.game, (game.started_at, &game.id));
    // A game whose earlier result changed or went away has its players' sums recomputed
    // from the seats, in player id order; one finished with no result stored (a rebuild's
    // game) is noted as a first finish is.
    if had_result || result.is_none() {
        // The seats first: the sums are recomputed from them.
        if let Some(result) = result {
            let (seats, row) = seat_statements(game, result, moved)?;
            w.execute_together(seats.into_iter().chain([row]).collect())
                .await?;
        }
        let mut seats: Vec<&SeatRecord> = game.players.iter().collect();
        seats.sort_unstable_by(|a, b| a.player_id.cmp(&b.player_id));
        for seat in seats {
            // Every variant of the game: a correction may move a game between them.
            w.execute(
                "DELETE FROM player_game_totals WHERE club_id = $1 AND player_id = $2 AND game = $3",
                args![club, &seat.player_id, &game.game],
            )
            .await?;
            w.execute(
                concat!(
                    "INSERT INTO player_game_totals \
                   (club_id, player_id, game, variant, lower_wins, played, wins, total_sum, rank_sum, min_total, max_total, last_played) \
                 SELECT g.club_id, gp.player_id, g.game, g.variant, MAX(g.lower_wins), COUNT(*), \
                   SUM(CASE WHEN gp.rank = 1 THEN 1 ELSE 0 END), \
                   SUM(gp.total), SUM(gp.rank), MIN(gp.total), MAX(gp.total), MAX(g.started_at) \
                 FROM players p JOIN game_players gp ON gp.player_id = p.id JOIN games g ON g.id = gp.game_id \
                 WHERE p.id = $2 AND p.club_id = $1 AND g.game = $3 AND gp.rank IS NOT NULL AND ",
                    not_noted!(),
                    " GROUP BY g.club_id, gp.player_id, g.game, g.variant"
                ),
                args![club, &seat.player_id, &game.game],
            )
            .await?;
            if had_result {
                w.execute(CLEAR_RUNS, args![&seat.player_id, &game.game])
                    .await?;
                w.execute(RECOMPUTE_RUNS, args![club, &seat.player_id, &game.game])
                    .await?;
                w.execute(CLEAR_SNAPSHOTS, args![club, &seat.player_id, &game.game])
                    .await?;
                w.execute(
                    RECOMPUTE_SNAPSHOTS,
                    args![club, &seat.player_id, &game.game],
                )
                .await?;
            }
        }
        if had_result {
            recompute_buckets(w, club, game, variants).await?;
        }
        let (sql, values) = noted;
        w.execute(&sql, values).await?;
    } else if let Some(result) = result {
        // Finished with no result stored (a rebuild's game): added as a first finish.
        return first_finish(w, club, game, result, moved).await;
    }
    Ok(Vec::new())
}

/// A game finishing with no result stored for it: its seats' results and its row's facts, the
/// ratings' note and the statistics' note, written together. On SQLite the note is settled at
/// once, in the same transaction ([`Backend::SETTLES_LATER`]).
async fn first_finish<W: Writing>(
    w: &mut W,
    club: &str,
    game: &GameRecord,
    result: &GameResult,
    moved: Option<RowMoved<'_>>,
) -> Result<Vec<Statement>, StoreError> {
    let (row, mut together) = first_finish_writes(club, game, result, moved)?;
    together.push(row);
    if W::Db::SETTLES_LATER {
        return Ok(together);
    }
    w.execute_together(together).await?;
    settle_in(w, club).await?;
    Ok(Vec::new())
}

/// A first finish's writes, none reading another's: its row's facts (with the row moved on, when
/// `moved`), and the rest: its seats' results, the statistics' note and the ratings' note.
pub(in crate::store) fn first_finish_writes(
    club: &str,
    game: &GameRecord,
    result: &GameResult,
    moved: Option<RowMoved<'_>>,
) -> Result<(Statement, Vec<Statement>), StoreError> {
    let (seats, row) = seat_statements(game, result, moved)?;
    let mut rest: Vec<Statement> = seats.into_iter().collect();
    if !result.players.is_empty() {
        rest.push(noted(club, &game.id));
    }
    rest.push(change_noted(club, &game.game, (game.started_at, &game.id)));
    Ok((row, rest))
}

/// The read of a game's seats' players (`$1` the game): on PostgreSQL the seats locked, then
/// their players in id order; SQLite's transaction holds the database's write lock.
///
/// On PostgreSQL each player is locked by its own lookup of the primary key, in id order (a
/// lateral subquery a player): joined or matched with `IN`, the planner may hash the seats and
/// walk every player of the server, as it did on tables it had not analysed (a new database,
/// autovacuum off).
pub(super) fn seats_locked<DB: Backend>() -> String {
    let lock = DB::LOCK_SEATS;
    if lock.is_empty() {
        return "SELECT gp.seat, gp.player_id FROM game_players gp \
                JOIN players p ON p.id = gp.player_id WHERE gp.game_id = $1 ORDER BY p.id"
            .into();
    }
    format!(
        "WITH s AS MATERIALIZED (SELECT seat, player_id FROM game_players WHERE game_id = $1 {lock}), \
         p AS MATERIALIZED (SELECT one.id FROM (SELECT DISTINCT player_id FROM s ORDER BY player_id) AS q \
           CROSS JOIN LATERAL (SELECT id FROM players WHERE id = q.player_id {lock}) AS one) \
         SELECT s.seat, s.player_id FROM s CROSS JOIN (SELECT COUNT(*) FROM p) AS after_players"
    )
}

/// Seat → player id, from rows of [`seats_locked`].
fn seated_of(rows: &[impl Columns]) -> Result<BTreeMap<i64, String>, StoreError> {
    let mut seated = BTreeMap::new();
    for row in rows {
        if let Some(seat) = row.try_get::<Option<i64>, _>("seat")? {
            seated.insert(seat, row.try_get::<String, _>("player_id")?);
        }
    }
    Ok(seated)
}

/// A finished game's totals, ranks and facts written onto its seats (one statement, a
/// `CASE` per column by seat; `None` for a result that ranks no one), and its whole-game facts
/// onto its row.
fn seat_statements(
    game: &GameRecord,
    result: &GameResult,
    moved: Option<RowMoved<'_>>,
) -> Result<(Option<Statement>, Statement), StoreError> {
    // Every ruleset ranks every seat; the statistics count a game by its seat 1.
    let mut seats: Vec<i64> = result.players.iter().map(|p| p.seat).collect();
    seats.sort_unstable();
    if !seats
        .iter()
        .copied()
        .eq(game.players.iter().map(|s| s.seat))
    {
        return Err(StoreError::Corrupt(format!(
            "the score of game {} ranks seats {seats:?}, not every seat",
            game.id
        )));
    }
    let facts = FactsBySeat::new(game, result)?;
    let mut seats = None;
    if !result.players.is_empty() {
        let cases = |first: usize| {
            (0..result.players.len())
                .map(|i| format!("WHEN ${} THEN ${}", 2 + 4 * i, first + 4 * i))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let sql = format!(
            "UPDATE game_players SET total = CASE seat {} END, rank = CASE seat {} END, facts = CASE seat {} END \
             WHERE game_id = $1",
            cases(3),
            cases(4),
            cases(5)
        );
        let mut values = args![&game.id];
        for p in &result.players {
            values.extend(args![p.seat, p.total, p.rank, facts.of_seat(p.seat)]);
        }
        seats = Some((sql, values));
    }
    // The variant and direction the statistics count this game's totals in.
    let counted_in = args![
        facts.whole_game(),
        result.variant.as_deref().unwrap_or(""),
        i64::from(result.lower_wins),
    ];
    let row = match moved {
        Some(moved) => moved.update(
            &game.id,
            "facts = $1, variant = $2, lower_wins = $3, ",
            counted_in,
        ),
        None => {
            let mut values = counted_in;
            values.push(Param::from(&game.id));
            (
                "UPDATE games SET facts = $1, variant = $2, lower_wins = $3 WHERE id = $4".into(),
                values,
            )
        }
    };
    Ok((seats, row))
}

pub(super) async fn clear_statistics<S: SqlStore>(store: &S) -> Result<(), StoreError> {
    let _turn = store.write_turn().await;
    let mut tx = store.pool().begin_with(S::Db::BEGIN).await?;
    if let Some(hold) = S::Db::WRITES_HELD {
        query(hold).execute(&mut tx).await?;
    }
    // The months stay listed, their snapshots emptied: the games replayed add their
    // seats to every later month again.
    for statement in [
        "UPDATE game_players SET total = NULL, rank = NULL, facts = NULL WHERE rank IS NOT NULL OR facts IS NOT NULL",
        "UPDATE games SET facts = NULL WHERE facts IS NOT NULL",
        "DELETE FROM player_game_totals",
        "DELETE FROM player_runs",
        "DELETE FROM run_snapshots",
        "DELETE FROM game_buckets",
        "DELETE FROM rated_games",
        "DELETE FROM rating_current",
        "DELETE FROM rating_changes",
        "DELETE FROM statistics_pending",
    ] {
        query(statement).execute(&mut tx).await?;
    }
    tx.commit().await?;
    Ok(())
}

pub(super) async fn replace_result<S: SqlStore>(
    store: &S,
    club: &str,
    game: &GameRecord,
    result: Option<&GameResult>,
) -> Result<bool, StoreError> {
    // On SQLite the write lock from the start: a rebuild runs beside a server, whose
    // commit would otherwise fail this transaction's first write (`SQLITE_BUSY`).
    let _turn = store.write_turn().await;
    let mut w = S::Db::writes(store.pool().begin_with(S::Db::BEGIN).await?);
    // The game as the result was computed from, held until the commit (PostgreSQL: the
    // row lock an append takes too). An append that finished it since has written its
    // result; replacing that with this older reading would lose the game.
    let now = w
        .fetch_optional(
            &format!("SELECT version FROM games WHERE id = $1{}", S::Db::LOCK_ROW),
            args![&game.id],
        )
        .await?;
    let now: Option<i64> = now.map(|row| row.try_get("version")).transpose()?;
    if now != Some(game.version) {
        return Ok(false);
    }
    let rest = write_result(&mut w, club, game, true, result, None).await?;
    w.execute_together(rest).await?;
    w.commit().await?;
    Ok(true)
}
