//! The statistics' read side: a club's players, a player's results and games, leaderboards,
//! head to head, and a game's statistics over a period.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use tabletally_domain::setup::name_key;

use crate::store::backend::Backend;
use crate::store::backend::{Target, query};
use crate::store::columns::Columns;
use crate::store::error::StoreError;
use crate::store::lists::{Param, Params};
use crate::store::sql_store::SqlStore;

use super::periods::{Period, Range};
use super::rows::{
    GameStatsRows, HeadToHeadRow, LeaderRow, PlayerGameRow, PlayerRow, ResultRecord, StatsFilter,
};
use super::sql::{
    PLAYER_SELECT, SUMMED, buckets_query, period_conditions, seat_summary_query, sums_before,
};
use super::summary::{GameSummary, Record, SeatResult};

pub(super) fn bucket_row(row: &impl Columns) -> Result<GameSummary, StoreError> {
    let record = |prefix: &str| -> Result<Option<Record>, sqlx::Error> {
        let total: Option<i64> = row.try_get(format!("{prefix}_total").as_str())?;
        let Some(total) = total else { return Ok(None) };
        Ok(Some(Record {
            total,
            played_at: row.try_get(format!("{prefix}_at").as_str())?,
            game_id: row.try_get(format!("{prefix}_game_id").as_str())?,
            seat: row.try_get(format!("{prefix}_seat").as_str())?,
        }))
    };
    let mut sum = GameSummary {
        plays: row.try_get("plays")?,
        results: row.try_get("results")?,
        total_sum: row.try_get("total_sum")?,
        lower_results: row.try_get("lower_results")?,
        lowest: record("lowest")?,
        highest: record("highest")?,
        facts: BTreeMap::new(),
    };
    sum.add_facts_json(&row.try_get::<String, _>("seat_facts")?, true)?;
    sum.add_facts_json(&row.try_get::<String, _>("game_facts")?, false)?;
    Ok(sum)
}

/// A club's buckets of one game (and variant; `None`: every variant) in a span and
/// period, by start.
pub(super) async fn buckets(
    on: impl Target,
    club: &str,
    game: &str,
    variant: Option<&str>,
    span: &str,
    period: Range,
) -> Result<Vec<(DateTime<Utc>, GameSummary)>, StoreError> {
    let (sql, params) = buckets_query(club, game, variant, span, period);
    let rows = query(sql).with(params).fetch_all(on).await?;
    bucket_rows(&rows)
}

pub(super) fn bucket_rows(
    rows: &[impl Columns],
) -> Result<Vec<(DateTime<Utc>, GameSummary)>, StoreError> {
    rows.iter()
        .map(|row| Ok((row.try_get("starts_at")?, bucket_row(row)?)))
        .collect()
}

/// A club's finished seats of one game (and variant) in a period, summed.
pub(super) async fn seat_summary(
    on: impl Target,
    club: &str,
    game: &str,
    variant: Option<&str>,
    period: Range,
) -> Result<GameSummary, StoreError> {
    let (sql, params) = seat_summary_query(club, game, variant, period);
    let rows = query(sql).with(params).fetch_all(on).await?;
    summed_seats(&rows)
}

pub(super) fn summed_seats(rows: &[impl Columns]) -> Result<GameSummary, StoreError> {
    let mut summary = GameSummary::default();
    for row in rows {
        summary.add(SeatResult {
            game_id: row.try_get("id")?,
            seat: row.try_get("seat")?,
            played_at: row.try_get("started_at")?,
            total: row.try_get("total")?,
            lower_wins: row.try_get::<Option<i64>, _>("lower_wins")? == Some(1),
            facts: row.try_get("facts")?,
            game_facts: row.try_get("game_facts")?,
        })?;
    }
    Ok(summary)
}

fn player_row(row: &impl Columns) -> Result<PlayerRow, sqlx::Error> {
    Ok(PlayerRow {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        games_played: row.try_get("games_played")?,
        last_played: row.try_get("last_played")?,
    })
}

/// The leaderboard of a period from the month snapshots: per player, the sums
/// before `to` less those before `from` ([`sums_before`]), in one statement.
pub(super) async fn leaderboard_between<S: SqlStore>(
    store: &S,
    club: &str,
    filter: &StatsFilter,
) -> Result<Vec<LeaderRow>, StoreError> {
    if let (Some(from), Some(to)) = (filter.from, filter.to)
        && from >= to
    {
        return Ok(Vec::new());
    }
    let mut params = Params::default();
    let club = params.bind(Param::Text(club.to_owned()));
    let mut only = Vec::new();
    if let Some(game) = &filter.game {
        only.push(("game", params.bind(Param::Text(game.clone()))));
    }
    if let Some(variant) = &filter.variant {
        only.push(("variant", params.bind(Param::Text(variant.clone()))));
    }
    let to = filter.to.map(|to| params.bind(Param::Time(to)));
    let mut parts = vec![sums_before(&club, to.as_deref(), false, &only)];
    if let Some(from) = filter.from {
        parts.push(sums_before(
            &club,
            Some(&params.bind(Param::Time(from))),
            true,
            &only,
        ));
    }
    // One row, the players as one JSON array: SQLite hands each row over from its
    // connection's thread. Summed by player first, then named: the join meets one row a
    // player.
    let sql = format!(
        "SELECT {json_rows} AS players FROM \
           (SELECT b.player_id, p.name, b.played, b.wins, b.total_sum, b.rank_sum, b.lower_games \
            FROM (SELECT u.player_id, {SUMMED} FROM ({parts}) u \
                  GROUP BY u.player_id HAVING SUM(u.played) > 0) b \
            JOIN players p ON p.id = b.player_id) AS board",
        json_rows = S::Db::JSON_ROWS,
        parts = parts.join(" UNION ALL "),
    );
    let row = query(sql).with(params.0).fetch_one(store.pool()).await?;
    let Some(json) = row.try_get::<Option<String>, _>("players")? else {
        return Ok(Vec::new());
    };
    let board: Vec<(String, String, [i64; 5])> = serde_json::from_str(&json)
        .map_err(|e| StoreError::Corrupt(format!("a period's leaderboard: {e}")))?;
    Ok(board
        .into_iter()
        .map(
            |(player_id, name, [played, wins, total_sum, rank_sum, lower_games])| LeaderRow {
                player_id,
                name,
                played,
                wins,
                total_sum,
                rank_sum,
                lower_wins: lower_games == played,
            },
        )
        .collect())
}

pub(super) async fn list_players<S: SqlStore>(
    store: &S,
    club: &str,
    search: Option<&str>,
    after_name: Option<&str>,
    limit: i64,
) -> Result<Vec<PlayerRow>, StoreError> {
    // Part of a name under the name rule (trimmed, any case), `%`, `_` and `\` as
    // themselves.
    let pattern = search.map(|s| {
        let key = name_key(s)
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        format!("%{key}%")
    });
    let rows = query(format!(
        "{PLAYER_SELECT}{}",
        " WHERE p.club_id = $1 \
           AND ($2 IS NULL OR p.name_key LIKE $2 ESCAPE '\\') \
           AND ($3 IS NULL OR p.name_key > $3) \
         ORDER BY p.name_key LIMIT $4"
    ))
    .bind(club)
    .bind(pattern)
    .bind(after_name.map(str::to_lowercase))
    .bind(limit)
    .fetch_all(store.pool())
    .await?;
    rows.iter()
        .map(player_row)
        .collect::<Result<_, _>>()
        .map_err(StoreError::from)
}

pub(super) async fn player<S: SqlStore>(
    store: &S,
    club: &str,
    id: &str,
) -> Result<Option<PlayerRow>, StoreError> {
    player_where(store, "p.id", club, id.to_owned()).await
}

pub(super) async fn player_named<S: SqlStore>(
    store: &S,
    club: &str,
    name: &str,
) -> Result<Option<PlayerRow>, StoreError> {
    player_where(store, "p.name_key", club, name_key(name)).await
}

/// The club's player whose `column` is `value`.
async fn player_where<S: SqlStore>(
    store: &S,
    column: &str,
    club: &str,
    value: String,
) -> Result<Option<PlayerRow>, StoreError> {
    let row = query(format!(
        "{PLAYER_SELECT} WHERE p.club_id = $1 AND {column} = $2"
    ))
    .bind(club)
    .bind(value)
    .fetch_optional(store.pool())
    .await?;
    Ok(row.as_ref().map(player_row).transpose()?)
}

pub(super) async fn results_of_player<S: SqlStore>(
    store: &S,
    club: &str,
    player: &str,
    filter: &StatsFilter,
) -> Result<Vec<ResultRecord>, StoreError> {
    // The player's runs: one range of the runs' key per game and variant.
    let mut params = Params::default();
    let mut sql = format!(
        "SELECT r.game_id, r.game, r.variant, r.lower_wins, r.played_at, r.total, r.rank \
         FROM players p JOIN player_runs r ON r.player_id = p.id \
         WHERE p.club_id = {} AND p.id = {}",
        params.bind(Param::Text(club.to_owned())),
        params.bind(Param::Text(player.to_owned()))
    );
    if let Some(game) = &filter.game {
        sql += &format!(" AND r.game = {}", params.bind(Param::Text(game.clone())));
    }
    if let Some(variant) = &filter.variant {
        sql += &format!(
            " AND r.variant = {}",
            params.bind(Param::Text(variant.clone()))
        );
    }
    sql += &period_conditions("r.played_at", (filter.from, filter.to), &mut params);
    sql += " ORDER BY r.played_at, r.game_id";
    let rows = query(sql).with(params.0).fetch_all(store.pool()).await?;
    rows.iter()
        .map(|row| {
            let rank: i64 = row.try_get("rank")?;
            Ok(ResultRecord {
                game_id: row.try_get("game_id")?,
                game: row.try_get("game")?,
                played_at: row.try_get("played_at")?,
                total: row.try_get("total")?,
                rank,
                won: rank == 1,
                variant: row.try_get("variant")?,
                lower_wins: row.try_get::<i64, _>("lower_wins")? == 1,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(StoreError::from)
}

pub(super) async fn leaderboard<S: SqlStore>(
    store: &S,
    club: &str,
    filter: &StatsFilter,
) -> Result<Vec<LeaderRow>, StoreError> {
    // Without dates the per-player sums answer; with dates, the runs.
    if filter.has_dates() {
        return leaderboard_between(store, club, filter).await;
    }
    let rows = query(
            "SELECT t.player_id, p.name, CAST(SUM(t.played) AS BIGINT) AS played, CAST(SUM(t.wins) AS BIGINT) AS wins, \
               CAST(SUM(t.total_sum) AS BIGINT) AS total_sum, CAST(SUM(t.rank_sum) AS BIGINT) AS rank_sum, \
               CAST(MIN(t.lower_wins) AS BIGINT) AS lower_wins \
             FROM player_game_totals t JOIN players p ON p.id = t.player_id \
             WHERE t.club_id = $1 AND ($2 IS NULL OR t.game = $2) AND ($3 IS NULL OR t.variant = $3) \
             GROUP BY t.player_id, p.name",
        )
        .bind(club)
        .bind(&filter.game)
        .bind(&filter.variant)
        .fetch_all(store.pool())
        .await?;
    rows.iter()
        .map(|row| {
            Ok(LeaderRow {
                player_id: row.try_get("player_id")?,
                name: row.try_get("name")?,
                played: row.try_get("played")?,
                wins: row.try_get("wins")?,
                total_sum: row.try_get("total_sum")?,
                rank_sum: row.try_get("rank_sum")?,
                lower_wins: row.try_get::<Option<i64>, _>("lower_wins")? == Some(1),
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(StoreError::from)
}

pub(super) async fn head_to_head<S: SqlStore>(
    store: &S,
    club: &str,
    a: &str,
    b: &str,
    filter: &StatsFilter,
) -> Result<Vec<HeadToHeadRow>, StoreError> {
    // The first player's runs, each looked up in the second player's by its key.
    let mut params = Params::default();
    let mut sql = format!(
        "SELECT ra.game_id, ra.game, ra.variant, ra.played_at, ra.rank AS rank_a, rb.rank AS rank_b \
         FROM players pa JOIN player_runs ra ON ra.player_id = pa.id \
           JOIN player_runs rb ON rb.player_id = {} AND rb.game = ra.game AND rb.variant = ra.variant \
             AND rb.played_at = ra.played_at AND rb.game_id = ra.game_id \
         WHERE pa.club_id = {} AND pa.id = {}",
        params.bind(Param::Text(b.to_owned())),
        params.bind(Param::Text(club.to_owned())),
        params.bind(Param::Text(a.to_owned()))
    );
    if let Some(game) = &filter.game {
        sql += &format!(" AND ra.game = {}", params.bind(Param::Text(game.clone())));
    }
    sql += &period_conditions("ra.played_at", (filter.from, filter.to), &mut params);
    sql += " ORDER BY ra.played_at DESC, ra.game_id DESC";
    let rows = query(sql).with(params.0).fetch_all(store.pool()).await?;
    rows.iter()
        .map(|row| {
            Ok(HeadToHeadRow {
                game_id: row.try_get("game_id")?,
                game: row.try_get("game")?,
                variant: row.try_get("variant")?,
                played_at: row.try_get("played_at")?,
                rank_a: row.try_get("rank_a")?,
                rank_b: row.try_get("rank_b")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(StoreError::from)
}

pub(super) async fn game_stats<S: SqlStore>(
    store: &S,
    club: &str,
    game: &str,
    filter: &StatsFilter,
) -> Result<GameStatsRows, StoreError> {
    // Whole months and days from their sums, the partial days at the edges from
    // their seats (see `Period`).
    let period = Period::split(filter.from, filter.to);
    let variant = filter.variant.as_deref();
    let mut summary = GameSummary::default();
    if let Some(months) = period.months {
        for (_, sum) in buckets(store.pool(), club, game, variant, "month", months).await? {
            summary.merge(sum);
        }
    }
    for days in period.days {
        for (_, sum) in buckets(store.pool(), club, game, variant, "day", days).await? {
            summary.merge(sum);
        }
    }
    for seats in period.seats {
        summary.merge(seat_summary(store.pool(), club, game, variant, seats).await?);
    }
    // The record holders by seat: whoever sits there now (a merge moves seats).
    let name_of =
        async |record: Option<Record>| -> Result<Option<(i64, String, String)>, StoreError> {
            let Some(record) = record else {
                return Ok(None);
            };
            let row = query(
                "SELECT p.name FROM game_players gp JOIN players p ON p.id = gp.player_id \
             WHERE gp.game_id = $1 AND gp.seat = $2",
            )
            .bind(&record.game_id)
            .bind(record.seat)
            .fetch_one(store.pool())
            .await?;
            Ok(Some((record.total, row.try_get("name")?, record.game_id)))
        };
    let lower_wins = summary.lower_wins();
    let facts = summary.facts();
    let lowest = name_of(summary.lowest.take()).await?;
    let highest = name_of(summary.highest.take()).await?;
    Ok(GameStatsRows {
        plays: summary.plays,
        results: summary.results,
        total_sum: summary.total_sum,
        lowest,
        highest,
        facts,
        lower_wins,
    })
}

pub(super) async fn player_games<S: SqlStore>(
    store: &S,
    club: &str,
    player: &str,
    after: Option<&(DateTime<Utc>, String)>,
    limit: i64,
) -> Result<Vec<PlayerGameRow>, StoreError> {
    let rows = query(
        "SELECT g.id, g.game, g.status, g.started_at, g.options, gp.seat, gp.name, gp.total, gp.rank \
         FROM players p JOIN game_players gp ON gp.player_id = p.id JOIN games g ON g.id = gp.game_id \
         WHERE p.id = $2 AND p.club_id = $1 \
           AND ($3 IS NULL OR g.started_at < $3 OR (g.started_at = $3 AND g.id < $4)) \
         ORDER BY g.started_at DESC, g.id DESC LIMIT $5",
    )
    .bind(club)
    .bind(player)
    .bind(after.map(|a| a.0))
    .bind(after.map(|a| a.1.clone()))
    .bind(limit)
    .fetch_all(store.pool())
    .await?;
    rows.iter()
        .map(|row| {
            let rank: Option<i64> = row.try_get("rank")?;
            let options: String = row.try_get("options")?;
            Ok(PlayerGameRow {
                game_id: row.try_get("id")?,
                game: row.try_get("game")?,
                status: row.try_get("status")?,
                started_at: row.try_get("started_at")?,
                seat: row.try_get("seat")?,
                name: row.try_get("name")?,
                total: row.try_get("total")?,
                rank,
                won: rank.map(|r| r == 1),
                options: serde_json::from_str(&options)
                    .map_err(|e| StoreError::Corrupt(format!("game options: {e}")))?,
            })
        })
        .collect::<Result<_, StoreError>>()
}

pub(super) async fn game_ids<S: SqlStore>(
    store: &S,
    after: Option<&str>,
    limit: i64,
) -> Result<Vec<(String, String)>, StoreError> {
    // In play order: each game then extends its players' runs and its club's month
    // snapshots at their ends, where a game from the past would rewrite every later
    // run and month of its players.
    let rows = query(
            "SELECT club_id, id FROM games \
             WHERE $1 IS NULL OR (started_at, id) > ((SELECT started_at FROM games WHERE id = $1), $1) \
             ORDER BY started_at, id LIMIT $2",
        )
        .bind(after)
        .bind(limit)
        .fetch_all(store.pool())
        .await?;
    rows.iter()
        .map(|row| Ok((row.try_get("club_id")?, row.try_get("id")?)))
        .collect::<Result<_, sqlx::Error>>()
        .map_err(StoreError::from)
}
