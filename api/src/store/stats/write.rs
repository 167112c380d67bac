//! The statistics' write side: a game's part of the read models rewritten inside the
//! transaction that changes its result (its seats, its players' leaderboard sums, runs and
//! month snapshots, the day and month buckets), and the whole read models cleared or rebuilt.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::records::{GameRecord, GameResult, PlayerResult, SeatRecord};
use crate::store::backend::Backend;
use crate::store::backend::query;
use crate::store::columns::Columns;
use crate::store::error::StoreError;
use crate::store::lists::{Param, placeholders};
use crate::store::sql_store::SqlStore;
use crate::store::together::Statement;
use crate::store::types::RowMoved;
use crate::store::writes::{WriteOn, Writing, args};

use super::buckets::{bucket_writes, buckets_locking, locked_buckets, recompute_buckets};
use super::periods::{day_start, month_start};
use super::ratings::change_noted;
use super::sql::{
    CLEAR_RUNS, CLEAR_SNAPSHOTS, RECOMPUTE_RUNS, RECOMPUTE_SNAPSHOTS, player_rows, shard_of,
    snapshot_of_month,
};
use super::summary::{FactsBySeat, GameSummary, SeatResult};

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
/// finish's writes, made after its reads): an append sends them with its events
/// ([`crate::store::together`]), any other caller as they are.
///
/// `locked`: a first finish's seats as the transaction read and locked them with the game's
/// row, the month snapshots' lock taken after them ([`lock_first_finish`]); `None`: they are
/// read and locked here.
pub(in crate::store) async fn write_result<W: Writing>(
    w: &mut W,
    club: &str,
    game: &GameRecord,
    was_finished: bool,
    result: Option<&GameResult>,
    moved: Option<RowMoved<'_>>,
    locked: Option<BTreeMap<i64, String>>,
) -> Result<Vec<Statement>, StoreError> {
    if let (None, Some(moved)) = (result, moved) {
        let (sql, values) = moved.update(&game.id, "", args![]);
        w.execute(&sql, values).await?;
    }
    // The seats' players as stored: a merge may have moved a seat to another player
    // since this game's state was held (a merge changes no game's version). On
    // PostgreSQL the seats stay locked, so no merge moves them before the commit, and so
    // do their players' rows, in id order: two games with the same players may finish at
    // once, and their players' sums and runs are written one writer at a time (row locks
    // taken in id order, so no deadlock; NO KEY UPDATE leaves the foreign-key checks of
    // concurrent game creations unblocked; SQLite: the database write lock already
    // serialises appends). A first finish takes them too: its runs continue the player's
    // previous run, which a concurrent finish of the same player must have committed.
    let snapshots_locked = locked.is_some();
    let now_seated = match locked {
        Some(seated) => seated,
        None => seated_of(
            &w.fetch_all(&seats_locked::<W::Db>(), args![&game.id])
                .await?,
        )?,
    };
    let (game, result) = reseated(game, result, &now_seated);
    let (game, result) = (&game, result.as_ref());
    // A game that was finished may hold an earlier result: clear it (a first finish
    // skips this: on PostgreSQL every statement is a round trip).
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
    // The leaderboard sums of each seated player. A game finishing for the first
    // time adds its results (one upsert for all players); a game whose earlier
    // result changed or went away has its players' sums recomputed from the seats.
    // Rows are written in player id order, the order every writer locks them in:
    // two tables finishing at once with the same players cannot deadlock.
    if had_result || result.is_none() {
        // The seats first: the sums are recomputed from them.
        if let Some(result) = result {
            w.execute_together(seat_statements(game, result, moved)?)
                .await?;
        }
        if had_result {
            lock_snapshots(w, club).await?;
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
                "INSERT INTO player_game_totals \
                   (club_id, player_id, game, variant, lower_wins, played, wins, total_sum, rank_sum, min_total, max_total, last_played) \
                 SELECT g.club_id, gp.player_id, g.game, g.variant, MAX(g.lower_wins), COUNT(*), \
                   SUM(CASE WHEN gp.rank = 1 THEN 1 ELSE 0 END), \
                   SUM(gp.total), SUM(gp.rank), MIN(gp.total), MAX(gp.total), MAX(g.started_at) \
                 FROM players p JOIN game_players gp ON gp.player_id = p.id JOIN games g ON g.id = gp.game_id \
                 WHERE p.id = $2 AND p.club_id = $1 AND g.game = $3 AND gp.rank IS NOT NULL \
                 GROUP BY g.club_id, gp.player_id, g.game, g.variant",
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
        // A first finish: its seats, its players' sums and runs, the ratings' note, its
        // later months' snapshots and its buckets write rows no other of them reads, so
        // they go together, after the reads of the snapshots and buckets.
        let mut together = seat_statements(game, result, moved)?;
        if !result.players.is_empty() {
            together.push(totals_added(club, game, result));
            together.extend(runs_added(club, game, result));
            together.extend(
                added_to_snapshots_and_buckets(w, club, game, result, snapshots_locked).await?,
            );
        }
        together.push(noted);
        return Ok(together);
    }
    Ok(Vec::new())
}

/// The read of a game's seats' players (`$1` the game): on PostgreSQL the seats locked, then
/// their players in id order ([`seats_and_players_locked`]); SQLite's transaction holds the
/// database's write lock.
pub(super) fn seats_locked<DB: Backend>() -> String {
    if DB::LOCK_SEATS.is_empty() {
        return "SELECT gp.seat, gp.player_id FROM game_players gp \
                JOIN players p ON p.id = gp.player_id WHERE gp.game_id = $1 ORDER BY p.id"
            .into();
    }
    format!(
        "WITH {} SELECT s.seat, s.player_id FROM s CROSS JOIN (SELECT COUNT(*) FROM p) AS after_players",
        seats_and_players_locked("", DB::LOCK_SEATS)
    )
}

/// PostgreSQL: the `WITH` items that lock a game's seats (`s`, `$1` the game; `gate` a
/// condition added to their read) and then their players (`p`), in the order every writer
/// takes them. Each player is locked by its own lookup of the primary key, in id order (a
/// lateral subquery a player): joined or matched with `IN`, the planner may hash the seats and
/// walk every player of the server, as it did on tables it had not analysed (a new database,
/// autovacuum off).
fn seats_and_players_locked(gate: &str, lock: &str) -> String {
    format!(
        "s AS MATERIALIZED (SELECT seat, player_id FROM game_players WHERE game_id = $1{gate} {lock}), \
         p AS MATERIALIZED (SELECT one.id FROM (SELECT DISTINCT player_id FROM s ORDER BY player_id) AS q \
           CROSS JOIN LATERAL (SELECT id FROM players WHERE id = q.player_id {lock}) AS one)"
    )
}

/// Seat → player id, from rows of [`seats_locked`] (or of [`first_finish_locks`]).
fn seated_of(rows: &[impl Columns]) -> Result<BTreeMap<i64, String>, StoreError> {
    let mut seated = BTreeMap::new();
    for row in rows {
        if let Some(seat) = row.try_get::<Option<i64>, _>("seat")? {
            seated.insert(seat, row.try_get::<String, _>("player_id")?);
        }
    }
    Ok(seated)
}

/// PostgreSQL: a first finish's locks taken with its game's row, in one statement (`$1` the
/// game, `$2` the club, `$3` its month), in the order every writer takes them: the game's row
/// (`game_row`), its seats, their players in id order, the month snapshots' lock to add
/// ([`Backend::SNAPSHOTS_LOCK_TO_ADD`]). Its rows: the game's columns with each seat's (`seat`,
/// `player_id`) and how many players were locked (`players_locked`); none when the game is not
/// the club's. `None` on SQLite, whose transaction holds the database's write lock.
///
/// The seats are locked apart from their players: a merge that moved one (it locks the game's
/// row first) has committed by the time the row is locked, and a seat's lock then reads the
/// seat as the merge left it, where a join with the player the statement began with would
/// drop it.
pub(super) fn first_finish_locks<DB: Backend>(game_row: &str) -> Option<String> {
    let snapshots = crate::store::together::renumbered(DB::SNAPSHOTS_LOCK_TO_ADD?, 1);
    Some(format!(
        "WITH g AS MATERIALIZED ({game_row}{}), {}, \
         l AS MATERIALIZED ({snapshots} FROM (SELECT COUNT(*) FROM p) AS after_players) \
         SELECT g.*, s.seat, s.player_id, (SELECT COUNT(*) FROM p) AS players_locked \
         FROM g CROSS JOIN l LEFT JOIN s ON true",
        DB::LOCK_ROW,
        seats_and_players_locked(" AND EXISTS (SELECT 1 FROM g)", DB::LOCK_SEATS),
    ))
}

/// Locks a first finish's game's row, seats, players and month snapshots
/// ([`first_finish_locks`]): the rows read (none: not the club's game) and the seats' players
/// as stored, for [`write_result`]'s `locked`. `None` on SQLite.
pub(in crate::store) async fn lock_first_finish<W: Writing>(
    w: &mut W,
    game_row: &str,
    (id, club): (&str, &str),
    month: DateTime<Utc>,
) -> Result<Option<(Vec<W::Row>, BTreeMap<i64, String>)>, StoreError> {
    let Some(sql) = first_finish_locks::<W::Db>(game_row) else {
        return Ok(None);
    };
    let rows = w.fetch_all(&sql, args![id, club, month]).await?;
    let seated = seated_of(&rows)?;
    let mut players: Vec<&String> = seated.values().collect();
    players.sort_unstable();
    players.dedup();
    let locked = match rows.first() {
        Some(row) => row.try_get::<i64, _>("players_locked")?,
        None => 0,
    };
    if locked != players.len() as i64 {
        // A seat moved to a player added since the statement began, whose row it did not
        // see: locked now.
        let marks = (1..=players.len())
            .map(|n| format!("${n}"))
            .collect::<Vec<_>>();
        let sql = format!(
            "SELECT id FROM players WHERE id IN ({}) ORDER BY id {}",
            marks.join(", "),
            W::Db::LOCK_SEATS
        );
        w.execute(&sql, players.iter().map(|id| Param::from(*id)).collect())
            .await?;
    }
    Ok(Some((rows, seated)))
}

/// A first finish added to its players' leaderboard sums: one upsert for all of them.
fn totals_added(club: &str, game: &GameRecord, result: &GameResult) -> Statement {
    let sql = format!(
        "INSERT INTO player_game_totals \
               (club_id, player_id, game, variant, lower_wins, played, wins, total_sum, rank_sum, min_total, max_total, last_played) \
             VALUES {} \
             ON CONFLICT (club_id, player_id, game, variant) DO UPDATE SET \
               played = player_game_totals.played + 1, \
               wins = player_game_totals.wins + excluded.wins, \
               total_sum = player_game_totals.total_sum + excluded.total_sum, \
               rank_sum = player_game_totals.rank_sum + excluded.rank_sum, \
               min_total = CASE WHEN excluded.min_total < player_game_totals.min_total \
                           THEN excluded.min_total ELSE player_game_totals.min_total END, \
               max_total = CASE WHEN excluded.max_total > player_game_totals.max_total \
                           THEN excluded.max_total ELSE player_game_totals.max_total END, \
               last_played = CASE WHEN excluded.last_played > player_game_totals.last_played \
                             THEN excluded.last_played ELSE player_game_totals.last_played END",
        placeholders(result.players.len(), 12)
    );
    let mut players: Vec<&PlayerResult> = result.players.iter().collect();
    players.sort_unstable_by(|a, b| a.player_id.cmp(&b.player_id));
    let mut values = Vec::with_capacity(12 * players.len());
    for p in players {
        values.extend(args![
            club,
            &p.player_id,
            &game.game,
            result.variant.as_deref().unwrap_or(""),
            i64::from(result.lower_wins),
            1_i64,
            i64::from(p.won),
            p.total,
            p.rank,
            p.total,
            p.total,
            game.started_at,
        ]);
    }
    (sql, values)
}

/// A finished game's totals, ranks and facts written onto its seats (one statement, a
/// `CASE` per column by seat), and its whole-game facts onto its row.
fn seat_statements(
    game: &GameRecord,
    result: &GameResult,
    moved: Option<RowMoved<'_>>,
) -> Result<Vec<Statement>, StoreError> {
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
    let mut statements = Vec::with_capacity(2);
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
        statements.push((sql, values));
    }
    // The variant and direction the statistics count this game's totals in.
    let counted_in = args![
        facts.whole_game(),
        result.variant.as_deref().unwrap_or(""),
        i64::from(result.lower_wins),
    ];
    statements.push(match moved {
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
    });
    Ok(statements)
}

/// A first finish added to its players' runs: a row each, continuing the sums of the
/// run before it, and the game added to the sums of any later row (a game started
/// before others finished after them, or an imported one). The two statements touch
/// different rows (before the game, and after it), so they may go together.
fn runs_added(club: &str, game: &GameRecord, result: &GameResult) -> Vec<Statement> {
    let mut players: Vec<&PlayerResult> = result.players.iter().collect();
    players.sort_unstable_by(|a, b| a.player_id.cmp(&b.player_id));
    // $1 game, $2 variant, $3 start, $4 game id, $5 lower wins, $6 club; then per
    // player (from $7, four each): id, total, rank, won.
    let player = |i: usize, column: usize| format!("${}", 7 + 4 * i + column);
    let before = |column: &str| {
        format!(
            "COALESCE((SELECT r.{column} FROM player_runs r \
               WHERE r.player_id = v.column1 AND r.game = $1 AND r.variant = $2 \
                 AND (r.played_at, r.game_id) < ($3, $4) \
               ORDER BY r.played_at DESC, r.game_id DESC LIMIT 1), 0)"
        )
    };
    let (values, player_values) = player_rows(&players, 7);
    let insert = format!(
        "INSERT INTO player_runs \
           (club_id, player_id, game, variant, played_at, game_id, total, rank, lower_wins, \
            played, wins, total_sum, rank_sum, lower_games) \
         SELECT $6, v.column1, $1, $2, $3, $4, v.column2, v.column3, $5, \
           1 + {}, v.column4 + {}, v.column2 + {}, v.column3 + {}, $5 + {} \
         FROM (VALUES {values}) v",
        before("played"),
        before("wins"),
        before("total_sum"),
        before("rank_sum"),
        before("lower_games"),
    );
    let by_player = |column: usize| {
        (0..players.len())
            .map(|i| format!("WHEN {} THEN {}", player(i, 0), player(i, column)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let later = format!(
        "UPDATE player_runs SET played = played + 1, \
           wins = wins + CASE player_id {} ELSE 0 END, \
           total_sum = total_sum + CASE player_id {} ELSE 0 END, \
           rank_sum = rank_sum + CASE player_id {} ELSE 0 END, \
           lower_games = lower_games + $5 \
         WHERE player_id IN ({}) AND game = $1 AND variant = $2 AND (played_at, game_id) > ($3, $4) \
           AND club_id || '' = $6",
        by_player(3),
        by_player(1),
        by_player(2),
        (0..players.len())
            .map(|i| player(i, 0))
            .collect::<Vec<_>>()
            .join(", "),
    );
    // The club is in `later` only because both statements take the same values:
    // compared so that no index serves it, the players' runs are found by their key,
    // not by walking the club's runs since this game's start.
    [insert, later]
        .into_iter()
        .map(|sql| {
            let mut values = args![
                &game.game,
                result.variant.as_deref().unwrap_or(""),
                game.started_at,
                &game.id,
                i64::from(result.lower_wins),
                club,
            ];
            values.extend(player_values.iter().cloned());
            (sql, values)
        })
        .collect()
}

/// Takes the club's month snapshots alone for this transaction (PostgreSQL; on SQLite
/// the database write lock holds them already), for a correction that recomputes
/// them. Two writers of snapshots at once would otherwise miss each other: one making
/// a month's snapshot from seats the other has not committed, the other adding its
/// seats to the months it sees, not that one. Taken after the players' rows, as by
/// every writer of snapshots: no two wait in a circle.
pub(super) async fn lock_snapshots<W: Writing>(w: &mut W, club: &str) -> Result<(), StoreError> {
    if let Some(lock) = W::Db::SNAPSHOTS_LOCK {
        w.execute(lock, args![club]).await?;
    }
    Ok(())
}

/// A first finish added to the club's month snapshots and to its day's and month's sums.
/// The game's month gets a snapshot if it has none (written here), and every later month's
/// counts the game's seats (a game recorded after others that started later, or an imported
/// one). Its day's and month's rows, in the shard its game id picks, are locked (created empty
/// if missing) and read. On PostgreSQL the months' check and the buckets' lock are one
/// statement: both read after the snapshots' lock. Returns the writes left, which go with the
/// events: the later months' snapshots and both buckets, added to.
async fn added_to_snapshots_and_buckets<W: Writing>(
    w: &mut W,
    club: &str,
    game: &GameRecord,
    result: &GameResult,
    snapshots_locked: bool,
) -> Result<Vec<Statement>, StoreError> {
    let month = month_start(game.started_at);
    if !snapshots_locked && let Some(lock) = W::Db::SNAPSHOTS_LOCK_TO_ADD {
        w.execute(lock, args![club, month]).await?;
    }
    let variant = result.variant.as_deref().unwrap_or("");
    let spans = [
        ("day", day_start(game.started_at)),
        ("month", month_start(game.started_at)),
    ];
    let shard = shard_of(&game.id, W::Db::BUCKET_SHARDS);
    let (locking, mut values, keys) =
        buckets_locking(club, &game.game, &[variant], &spans, &[shard]);
    let (found, rows) = if W::Db::WRITES_TOGETHER {
        let sql = format!(
            "WITH b AS ({locking}) SELECT b.*, c.here, c.later FROM b CROSS JOIN ({}) AS c",
            months_found(&format!("${}", values.len() + 1))
        );
        values.push(Param::from(month));
        let rows = w.fetch_all(&sql, values).await?;
        let found = rows
            .first()
            .map(months)
            .ok_or_else(|| StoreError::Corrupt("no bucket was locked".into()))??;
        (found, rows)
    } else {
        let found = months(&w.fetch_one(&months_found("$2"), args![club, month]).await?)?;
        (found, w.fetch_all(&locking, values).await?)
    };
    let (here, later) = found;
    if !here {
        // Made before the month is listed: until then the month before it answers.
        w.execute(&snapshot_of_month(), args![club, month]).await?;
        w.execute(
            "INSERT INTO run_months (club_id, starts_at) VALUES ($1, $2)",
            args![club, month],
        )
        .await?;
    }
    let mut writes = Vec::with_capacity(2);
    if later {
        writes.push(later_snapshots_added(club, game, result));
    }
    let facts = FactsBySeat::new(game, result)?;
    let mut this = GameSummary::default();
    for p in &result.players {
        this.add(SeatResult {
            game_id: game.id.clone(),
            seat: p.seat,
            played_at: game.started_at,
            total: p.total,
            lower_wins: result.lower_wins,
            facts: facts.of_seat(p.seat),
            game_facts: if p.seat == 1 {
                facts.whole_game()
            } else {
                None
            },
        })?;
    }
    let mut sums = Vec::with_capacity(keys.len());
    for (span, starts_at, shard, mut sum) in locked_buckets(&rows, keys)? {
        sum.merge(this.clone());
        sums.push((variant.to_owned(), span, starts_at, shard, sum));
    }
    writes.extend(bucket_writes(club, &game.game, &sums));
    Ok(writes)
}

/// Whether the club's month has its snapshot (`here`), and whether a later month has
/// (`later`): `$1` the club, `month` the placeholder of the month's start.
fn months_found(month: &str) -> String {
    format!(
        "SELECT CAST(CASE WHEN EXISTS (SELECT 1 FROM run_months WHERE club_id = $1 AND starts_at = {month}) \
                THEN 1 ELSE 0 END AS BIGINT) AS here, \
           CAST(CASE WHEN EXISTS (SELECT 1 FROM run_months WHERE club_id = $1 AND starts_at > {month}) \
                THEN 1 ELSE 0 END AS BIGINT) AS later"
    )
}

/// `(here, later)` from a row of [`months_found`].
fn months(row: &impl Columns) -> Result<(bool, bool), StoreError> {
    Ok((
        row.try_get::<i64, _>("here")? != 0,
        row.try_get::<i64, _>("later")? != 0,
    ))
}

/// A first finish's seats added to the snapshots of every month after its game's.
fn later_snapshots_added(club: &str, game: &GameRecord, result: &GameResult) -> Statement {
    // $1 club, $2 the game's start, $3 game, $4 variant, $5 lower wins; then the
    // players (from $6).
    let players: Vec<&PlayerResult> = result.players.iter().collect();
    let (values, player_values) = player_rows(&players, 6);
    let sql = format!(
        "INSERT INTO run_snapshots \
           (club_id, starts_at, player_id, game, variant, played, wins, total_sum, rank_sum, lower_games) \
         SELECT m.club_id, m.starts_at, v.column1, $3, $4, 1, v.column4, v.column2, v.column3, $5 \
         FROM run_months m CROSS JOIN (VALUES {values}) v \
         WHERE m.club_id = $1 AND m.starts_at > $2 \
         ON CONFLICT (club_id, starts_at, player_id, game, variant) DO UPDATE SET \
           played = run_snapshots.played + 1, wins = run_snapshots.wins + excluded.wins, \
           total_sum = run_snapshots.total_sum + excluded.total_sum, \
           rank_sum = run_snapshots.rank_sum + excluded.rank_sum, \
           lower_games = run_snapshots.lower_games + excluded.lower_games"
    );
    let mut values = args![
        club,
        game.started_at,
        &game.game,
        result.variant.as_deref().unwrap_or(""),
        i64::from(result.lower_wins),
    ];
    values.extend(player_values);
    (sql, values)
}

pub(super) async fn clear_statistics<S: SqlStore>(store: &S) -> Result<(), StoreError> {
    let _turn = store.write_turn().await;
    let mut tx = store.pool().begin_with(S::Db::BEGIN).await?;
    if let Some(hold) = S::Db::WRITES_HELD {
        query(hold).execute(&mut tx).await?;
    }
    // The months stay listed, their snapshots emptied: the games replayed add their
    // seats to every later month again. A finish meanwhile (a rebuild runs beside
    // the servers) may then rely on a month it found listed staying so
    // (`SNAPSHOTS_LOCK_TO_ADD`).
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
    let rest = write_result(&mut w, club, game, true, result, None, None).await?;
    w.execute_together(rest).await?;
    w.commit().await?;
    Ok(true)
}
