//! A first finish's share of the statistics' shared sums, added in batches. A game finishing
//! writes its seats' results and notes itself (`statistics_pending`, [`noted`]); what it adds to
//! its players' leaderboard sums, runs and month snapshots and to its day's and month's buckets
//! is written later, for all of the club's noted games at once:
//! - before the club's statistics are read ([`settle`], called by the routes, as the ratings'
//!   settling is);
//! - every [`SETTLE_EVERY`] in the background ([`settle_every_club`]), so that notes stay few.
//!
//! That is PostgreSQL's way. SQLite's one writer settles a finish's note in the finish's own
//! transaction (`Backend::SETTLES_LATER`): it commits the finishes waiting together already, and
//! a settling in a transaction of its own would hold the write lock beside it.
//!
//! A batch writes what the same games finishing one after the other would have: each seat's
//! run, and its share of the leaderboard sums, of the month snapshots from its month on and of
//! its buckets. Whatever recomputes
//! the sums from the seats (a correction, a merge) leaves the noted finishes out
//! ([`super::sql::not_noted`]), to be added by their settling. Every writer of these sums takes
//! the club's statistics lock first (PostgreSQL: `STATISTICS_LOCK`; SQLite: the
//! database's write lock), so they add and recompute one at a time. On PostgreSQL a batch's
//! writes go as a few statements a club, where each finish used to lock its players, its month
//! snapshots and its buckets and write them itself.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::store::backend::{Backend, query};
use crate::store::columns::Columns;
use crate::store::error::StoreError;
use crate::store::lists::Param;
use crate::store::sql_store::SqlStore;
use crate::store::together::Statement;
use crate::store::writes::{WriteOn, Writing, args};

use super::buckets::{BucketKey, bucket_writes, keys_locking, locked_buckets};
use super::periods::{day_start, month_start};
use super::sql::{shard_of, snapshot_of_month};
use super::summary::{GameSummary, SeatResult};

/// How often by default (`TABLETALLY_SETTLE_MS`).
pub const SETTLE_EVERY: Duration = Duration::from_millis(250);

/// Noted games a batch takes at most: at six seats a game, its runs' insert stays one statement
/// within both databases' limit on values.
const GAMES_A_BATCH: usize = 200;

/// Values one statement of a batch binds at most (SQLite allows 32,766).
const VALUES_A_STATEMENT: usize = 30_000;

/// The note of a first finish, sent with its other writes.
pub(in crate::store) fn noted(club: &str, game_id: &str) -> Statement {
    (
        "INSERT INTO statistics_pending (club_id, game_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"
            .into(),
        args![club, game_id],
    )
}

/// Adds the club's noted finishes to its statistics, a batch a transaction, before they are
/// read. Nothing noted (the usual case for a read) costs one read.
pub(in crate::store) async fn settle<S: SqlStore>(store: &S, club: &str) -> Result<(), StoreError> {
    loop {
        let pending = query("SELECT 1 FROM statistics_pending WHERE club_id = $1 LIMIT 1")
            .bind(club)
            .fetch_optional(store.pool())
            .await?;
        if pending.is_none() {
            return Ok(());
        }
        let _turn = store.write_turn().await;
        let mut w = S::Db::writes(store.pool().begin_with(S::Db::BEGIN).await?);
        let taken = settle_in(&mut w, club).await?;
        w.commit().await?;
        // A batch that was not full took every note there was when it began.
        if taken < GAMES_A_BATCH {
            return Ok(());
        }
    }
}

/// The newest lobby change of the club whose games this database's statistics count: its newest
/// one, or the one before the first finish still noted (a standby may not have replayed the
/// settling of a finish it has replayed). A noted game's last event is its finish: anything
/// that changed it since settled it.
pub(in crate::store) async fn counted_position<S: SqlStore>(
    store: &S,
    club: &str,
) -> Result<i64, StoreError> {
    let row = query(
        "SELECT (SELECT MAX(position) FROM game_changes WHERE club_id = $1) AS seen, \
           (SELECT MIN((SELECT MAX(e.position) FROM events e WHERE e.game_id = p.game_id)) \
            FROM statistics_pending p WHERE p.club_id = $1) AS noted",
    )
    .bind(club)
    .fetch_one(store.pool())
    .await?;
    let seen = row.try_get::<Option<i64>, _>("seen")?.unwrap_or(0);
    Ok(match row.try_get::<Option<i64>, _>("noted")? {
        Some(noted) => seen.min(noted - 1),
        None => seen,
    })
}

/// Settles every club with noted finishes ([`settle`]): the background's round, every
/// [`SETTLE_EVERY`]. How many clubs it settled.
pub(in crate::store) async fn settle_every_club<S: SqlStore>(
    store: &S,
) -> Result<usize, StoreError> {
    let rows = query("SELECT DISTINCT club_id FROM statistics_pending")
        .fetch_all(store.pool())
        .await?;
    for row in &rows {
        settle(store, &row.try_get::<String, _>("club_id")?).await?;
    }
    Ok(rows.len())
}

/// In the caller's transaction: takes the club's statistics lock, then adds a batch of its noted
/// finishes to its statistics. How many it added.
pub(super) async fn settle_in<W: Writing>(w: &mut W, club: &str) -> Result<usize, StoreError> {
    lock_statistics(w, club).await?;
    w.keep_prepared(false);
    let taken = take_and_add(w, club).await;
    w.keep_prepared(true);
    taken
}

/// A batch of the club's noted finishes taken and added, the lock held.
async fn take_and_add<W: Writing>(w: &mut W, club: &str) -> Result<usize, StoreError> {
    let rows = w
        .fetch_all(
            "DELETE FROM statistics_pending WHERE club_id = $1 AND game_id IN \
               (SELECT game_id FROM statistics_pending WHERE club_id = $1 \
                ORDER BY game_id LIMIT $2) \
             RETURNING game_id",
            args![club, GAMES_A_BATCH as i64],
        )
        .await?;
    let ids = rows
        .iter()
        .map(|row| row.try_get::<String, _>("game_id"))
        .collect::<Result<Vec<_>, _>>()?;
    if !ids.is_empty() {
        add_batch(w, club, &ids).await?;
    }
    Ok(ids.len())
}

/// Takes the club's statistics lock for the rest of the transaction (PostgreSQL; SQLite's write
/// lock holds it already). Every writer of the club's sums takes it after the rows of the games
/// it changes and before any player's row.
pub(in crate::store) async fn lock_statistics<W: Writing>(
    w: &mut W,
    club: &str,
) -> Result<(), StoreError> {
    if let Some(lock) = W::Db::STATISTICS_LOCK {
        w.execute(lock, args![club]).await?;
    }
    Ok(())
}

/// A noted game as its row and seats hold it now.
struct Finished {
    id: String,
    game: String,
    started_at: DateTime<Utc>,
    variant: String,
    lower_wins: bool,
    facts: Option<String>,
    seats: Vec<Seat>,
}

/// A finished seat: its player as seated now, and its result.
struct Seat {
    seat: i64,
    player_id: String,
    total: i64,
    rank: i64,
    facts: Option<String>,
}

impl Seat {
    /// What the seat adds to its player's sums: played, wins, total, rank, games the lowest
    /// total won.
    fn sums(&self, lower_wins: bool) -> Sums {
        Sums {
            played: 1,
            wins: i64::from(self.rank == 1),
            total_sum: self.total,
            rank_sum: self.rank,
            lower_games: i64::from(lower_wins),
        }
    }
}

/// A player's running sums, as a run and a month snapshot keep them.
#[derive(Clone, Copy, Default)]
struct Sums {
    played: i64,
    wins: i64,
    total_sum: i64,
    rank_sum: i64,
    lower_games: i64,
}

impl Sums {
    fn add(&mut self, other: Sums) {
        self.played += other.played;
        self.wins += other.wins;
        self.total_sum += other.total_sum;
        self.rank_sum += other.rank_sum;
        self.lower_games += other.lower_games;
    }

    fn values(self) -> Vec<Param> {
        args![
            self.played,
            self.wins,
            self.total_sum,
            self.rank_sum,
            self.lower_games
        ]
    }
}

/// A player's leaderboard sums of one game and variant, as `player_game_totals` keeps them.
struct Totals {
    lower_wins: bool,
    sums: Sums,
    min_total: i64,
    max_total: i64,
    last_played: DateTime<Utc>,
}

/// The games `ids` added to the club's statistics: read, then written as the same games
/// finishing one after the other in play order would have written them.
async fn add_batch<W: Writing>(w: &mut W, club: &str, ids: &[String]) -> Result<(), StoreError> {
    let games = finished(w, club, ids).await?;
    if games.is_empty() {
        return Ok(());
    }
    let months: BTreeSet<DateTime<Utc>> = w
        .fetch_all(
            "SELECT starts_at FROM run_months WHERE club_id = $1",
            args![club],
        )
        .await?
        .iter()
        .map(|row| row.try_get("starts_at"))
        .collect::<Result<_, _>>()?;
    // The writes that read nothing another of them writes go together: the runs (each read
    // of a run before it sees the stored runs only, the batch's own are added here), the
    // leaderboard sums, the month snapshots listed now and the buckets.
    let mut together = vec![runs_added(club, &games)?];
    together.extend(totals_added(club, &games));
    together.extend(snapshots_added(club, &games, &months));
    together.extend(buckets_added(w, club, &games).await?);
    for group in groups(together) {
        w.execute_together(group).await?;
    }
    // A month first played in this batch gets its snapshot from the runs, now with the batch's.
    let new_months: BTreeSet<DateTime<Utc>> = games
        .iter()
        .map(|g| month_start(g.started_at))
        .filter(|month| !months.contains(month))
        .collect();
    for month in new_months {
        w.execute(&snapshot_of_month(), args![club, month]).await?;
        w.execute(
            "INSERT INTO run_months (club_id, starts_at) VALUES ($1, $2)",
            args![club, month],
        )
        .await?;
    }
    Ok(())
}

/// The noted games' rows and finished seats, in play order (a game no longer finished, whose
/// seats hold no result, has none to add).
async fn finished<W: Writing>(
    w: &mut W,
    club: &str,
    ids: &[String],
) -> Result<Vec<Finished>, StoreError> {
    let marks = (2..ids.len() + 2)
        .map(|n| format!("${n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut values = args![club];
    values.extend(ids.iter().map(Param::from));
    // The club compared so that no index serves it: the games are found by their key.
    let rows = w
        .fetch_all(
            &format!(
                "SELECT g.id, g.game, g.started_at, g.variant, g.lower_wins, g.facts AS game_facts, \
                   gp.seat, gp.player_id, gp.total, gp.rank, gp.facts \
                 FROM games g JOIN game_players gp ON gp.game_id = g.id \
                 WHERE g.id IN ({marks}) AND g.club_id || '' = $1 AND gp.rank IS NOT NULL \
                 ORDER BY g.started_at, g.id, gp.seat"
            ),
            values,
        )
        .await?;
    let mut games: Vec<Finished> = Vec::new();
    for row in &rows {
        let id: String = row.try_get("id")?;
        if games.last().is_none_or(|g| g.id != id) {
            games.push(Finished {
                id,
                game: row.try_get("game")?,
                started_at: row.try_get("started_at")?,
                variant: row
                    .try_get::<Option<String>, _>("variant")?
                    .unwrap_or_default(),
                lower_wins: row.try_get::<Option<i64>, _>("lower_wins")? == Some(1),
                facts: row.try_get("game_facts")?,
                seats: Vec::new(),
            });
        }
        let game = games.last_mut().expect("pushed above");
        game.seats.push(Seat {
            seat: row.try_get("seat")?,
            player_id: row.try_get("player_id")?,
            total: row.try_get("total")?,
            rank: row.try_get("rank")?,
            facts: row.try_get("facts")?,
        });
    }
    Ok(games)
}

/// `$first`, `$(first + 1)`, … as `rows` rows of `columns` values each.
fn value_rows(first: usize, rows: usize, columns: usize) -> String {
    (0..rows)
        .map(|r| {
            let marks = (0..columns)
                .map(|c| format!("${}", first + r * columns + c))
                .collect::<Vec<_>>()
                .join(", ");
            format!("({marks})")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Each seat's run, in one statement (`$1` the club; then eight values a seat).
fn runs_added(club: &str, games: &[Finished]) -> Result<Statement, StoreError> {
    let mut values = args![club];
    let mut rows = 0;
    for game in games {
        for seat in &game.seats {
            values.extend(args![
                &seat.player_id,
                &game.game,
                &game.variant,
                game.started_at,
                &game.id,
                seat.total,
                seat.rank,
                i64::from(game.lower_wins),
            ]);
            rows += 1;
        }
    }
    if values.len() > VALUES_A_STATEMENT {
        return Err(StoreError::Corrupt(format!(
            "{rows} finished seats are too many for one batch of statistics"
        )));
    }
    let sql = format!(
        "INSERT INTO player_runs \
           (club_id, player_id, game, variant, played_at, game_id, total, rank, lower_wins) \
         SELECT $1, v.* FROM (VALUES {}) v",
        value_rows(2, rows, 8),
    );
    Ok((sql, values))
}

/// The players' leaderboard sums, each player's games of one game and variant added up first
/// (an upsert changes a row once), in statements of at most [`VALUES_A_STATEMENT`] values.
fn totals_added(club: &str, games: &[Finished]) -> Vec<Statement> {
    let mut totals: BTreeMap<(&str, &str, &str), Totals> = BTreeMap::new();
    for game in games {
        for seat in &game.seats {
            let sums = seat.sums(game.lower_wins);
            let entry = totals
                .entry((&seat.player_id, &game.game, &game.variant))
                .or_insert(Totals {
                    lower_wins: game.lower_wins,
                    sums: Sums::default(),
                    min_total: seat.total,
                    max_total: seat.total,
                    last_played: game.started_at,
                });
            entry.sums.add(sums);
            entry.min_total = entry.min_total.min(seat.total);
            entry.max_total = entry.max_total.max(seat.total);
            entry.last_played = entry.last_played.max(game.started_at);
        }
    }
    let rows: Vec<_> = totals.into_iter().collect();
    rows.chunks(VALUES_A_STATEMENT / 12)
        .map(|chunk| {
            let sql = format!(
                "INSERT INTO player_game_totals \
                   (club_id, player_id, game, variant, lower_wins, played, wins, total_sum, rank_sum, \
                    min_total, max_total, last_played) \
                 VALUES {} \
                 ON CONFLICT (club_id, player_id, game, variant) DO UPDATE SET \
                   played = player_game_totals.played + excluded.played, \
                   wins = player_game_totals.wins + excluded.wins, \
                   total_sum = player_game_totals.total_sum + excluded.total_sum, \
                   rank_sum = player_game_totals.rank_sum + excluded.rank_sum, \
                   min_total = CASE WHEN excluded.min_total < player_game_totals.min_total \
                               THEN excluded.min_total ELSE player_game_totals.min_total END, \
                   max_total = CASE WHEN excluded.max_total > player_game_totals.max_total \
                               THEN excluded.max_total ELSE player_game_totals.max_total END, \
                   last_played = CASE WHEN excluded.last_played > player_game_totals.last_played \
                                 THEN excluded.last_played ELSE player_game_totals.last_played END",
                value_rows(1, chunk.len(), 12)
            );
            let mut values = Vec::with_capacity(12 * chunk.len());
            for ((player, game, variant), t) in chunk {
                values.extend(args![
                    club,
                    *player,
                    *game,
                    *variant,
                    i64::from(t.lower_wins),
                    t.sums.played,
                    t.sums.wins,
                    t.sums.total_sum,
                    t.sums.rank_sum,
                    t.min_total,
                    t.max_total,
                    t.last_played,
                ]);
            }
            (sql, values)
        })
        .collect()
}

/// Each game's seats added to the snapshot of every month listed now that starts after the
/// game did, added up a snapshot row first.
fn snapshots_added(
    club: &str,
    games: &[Finished],
    months: &BTreeSet<DateTime<Utc>>,
) -> Vec<Statement> {
    let mut added: BTreeMap<(DateTime<Utc>, &str, &str, &str), Sums> = BTreeMap::new();
    for game in games {
        for month in months.range((
            std::ops::Bound::Excluded(game.started_at),
            std::ops::Bound::Unbounded,
        )) {
            for seat in &game.seats {
                added
                    .entry((*month, &seat.player_id, &game.game, &game.variant))
                    .or_default()
                    .add(seat.sums(game.lower_wins));
            }
        }
    }
    let rows: Vec<_> = added.into_iter().collect();
    rows.chunks(VALUES_A_STATEMENT / 10)
        .map(|chunk| {
            let sql = format!(
                "INSERT INTO run_snapshots \
                   (club_id, starts_at, player_id, game, variant, played, wins, total_sum, rank_sum, lower_games) \
                 VALUES {} \
                 ON CONFLICT (club_id, starts_at, player_id, game, variant) DO UPDATE SET \
                   played = run_snapshots.played + excluded.played, \
                   wins = run_snapshots.wins + excluded.wins, \
                   total_sum = run_snapshots.total_sum + excluded.total_sum, \
                   rank_sum = run_snapshots.rank_sum + excluded.rank_sum, \
                   lower_games = run_snapshots.lower_games + excluded.lower_games",
                value_rows(1, chunk.len(), 10)
            );
            let mut values = Vec::with_capacity(10 * chunk.len());
            for ((month, player, game, variant), sums) in chunk {
                values.extend(args![club, *month, *player, *game, *variant]);
                values.extend(sums.values());
            }
            (sql, values)
        })
        .collect()
}

/// The games' day and month buckets, each game in the shard its id picks: locked (made empty
/// where missing) and read a game at a time, then written back with the games added.
async fn buckets_added<W: Writing>(
    w: &mut W,
    club: &str,
    games: &[Finished],
) -> Result<Vec<Statement>, StoreError> {
    let mut added: BTreeMap<&str, BTreeMap<BucketKey<'_>, GameSummary>> = BTreeMap::new();
    for game in games {
        let mut this = GameSummary::default();
        for seat in &game.seats {
            this.add(SeatResult {
                game_id: game.id.clone(),
                seat: seat.seat,
                played_at: game.started_at,
                total: seat.total,
                lower_wins: game.lower_wins,
                facts: seat.facts.clone(),
                game_facts: if seat.seat == 1 {
                    game.facts.clone()
                } else {
                    None
                },
            })?;
        }
        let shard = shard_of(&game.id, W::Db::BUCKET_SHARDS);
        let of_game = added.entry(&game.game).or_default();
        for (span, starts_at) in [
            ("day", day_start(game.started_at)),
            ("month", month_start(game.started_at)),
        ] {
            of_game
                .entry((&game.variant, span, starts_at, shard))
                .or_default()
                .merge(this.clone());
        }
    }
    let mut writes = Vec::new();
    for (game, buckets) in added {
        let keys: Vec<BucketKey<'_>> = buckets.keys().copied().collect();
        let (sql, values, keys) = keys_locking(club, game, keys);
        let rows = w.fetch_all(&sql, values).await?;
        let mut sums = Vec::with_capacity(keys.len());
        for ((variant, ..), (span, starts_at, shard, mut sum)) in
            keys.iter().zip(locked_buckets(&rows, keys.clone())?)
        {
            sum.merge(buckets[&(*variant, span, starts_at, shard)].clone());
            sums.push(((*variant).to_owned(), span, starts_at, shard, sum));
        }
        writes.extend(bucket_writes(club, game, &sums));
    }
    Ok(writes)
}

/// The statements in groups sent together, each group within [`VALUES_A_STATEMENT`] values.
fn groups(statements: Vec<Statement>) -> Vec<Vec<Statement>> {
    let mut groups: Vec<Vec<Statement>> = Vec::new();
    let mut size = 0;
    for statement in statements {
        if groups.is_empty() || size + statement.1.len() > VALUES_A_STATEMENT {
            groups.push(Vec::new());
            size = 0;
        }
        size += statement.1.len();
        groups.last_mut().expect("pushed above").push(statement);
    }
    groups
}
