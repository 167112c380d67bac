//! The statistics read models: written with the append that changes a game's result, read by
//! the statistics endpoints. Same SQL on both databases, instantiated by `stats_store!`.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::Row;

use super::sql::{PostgresStore, SqliteStore};
use super::{GameRecord, GameResult, StoreError};

/// Date and game filters shared by the statistics queries.
#[derive(Debug, Clone, Default)]
pub struct StatsFilter {
    pub game: Option<String>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
}

impl StatsFilter {
    fn has_dates(&self) -> bool {
        self.from.is_some() || self.to.is_some()
    }
}

/// A club player and how many finished games they played.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerRow {
    pub id: String,
    pub name: String,
    pub games_played: i64,
    pub last_played: Option<DateTime<Utc>>,
}

/// One player's result in one finished game.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRecord {
    pub game_id: String,
    pub game: String,
    pub played_at: DateTime<Utc>,
    pub total: i64,
    pub rank: i64,
    pub won: bool,
    pub players: i64,
}

/// A player's sums for the leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaderRow {
    pub player_id: String,
    pub name: String,
    pub played: i64,
    pub wins: i64,
    pub total_sum: i64,
    pub rank_sum: i64,
}

/// A finished game two players both played.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadToHeadRow {
    pub game_id: String,
    pub game: String,
    pub played_at: DateTime<Utc>,
    pub rank_a: i64,
    pub rank_b: i64,
}

/// A game the player sat at, with their result once it is finished.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerGameRow {
    pub game_id: String,
    pub game: String,
    pub status: String,
    pub started_at: DateTime<Utc>,
    pub seat: i64,
    pub name: String,
    pub total: Option<i64>,
    pub rank: Option<i64>,
    pub won: Option<bool>,
}

/// A fact summed over games: `per_player` facts are about one player each.
#[derive(Debug, Clone, PartialEq)]
pub struct FactTotal {
    pub key: String,
    pub per_player: bool,
    pub sum: i64,
    pub count: i64,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct GameStatsRows {
    pub plays: i64,
    pub results: i64,
    pub total_sum: i64,
    /// `(total, player name, game id)` of the lowest and the highest total.
    pub lowest: Option<(i64, String, String)>,
    pub highest: Option<(i64, String, String)>,
    pub facts: Vec<FactTotal>,
}

#[async_trait]
pub trait StatsStore: Send + Sync {
    /// The club's players by name, `search` matching part of the name (ignoring case).
    async fn list_players(
        &self,
        club: &str,
        search: Option<&str>,
        after_name: Option<&str>,
        limit: i64,
    ) -> Result<Vec<PlayerRow>, StoreError>;

    async fn player(&self, club: &str, id: &str) -> Result<Option<PlayerRow>, StoreError>;

    /// A player's results, oldest first.
    async fn results_of_player(
        &self,
        club: &str,
        player: &str,
        filter: &StatsFilter,
    ) -> Result<Vec<ResultRecord>, StoreError>;

    async fn leaderboard(
        &self,
        club: &str,
        filter: &StatsFilter,
    ) -> Result<Vec<LeaderRow>, StoreError>;

    async fn head_to_head(
        &self,
        club: &str,
        a: &str,
        b: &str,
        filter: &StatsFilter,
    ) -> Result<Vec<HeadToHeadRow>, StoreError>;

    async fn game_stats(
        &self,
        club: &str,
        game: &str,
        filter: &StatsFilter,
    ) -> Result<GameStatsRows, StoreError>;

    /// Games the player sat at, newest first, after the `(started_at, id)` cursor.
    async fn player_games(
        &self,
        club: &str,
        player: &str,
        after: Option<&(DateTime<Utc>, String)>,
        limit: i64,
    ) -> Result<Vec<PlayerGameRow>, StoreError>;

    /// Every game, `(club id, game id)` by id, for a rebuild.
    async fn game_ids(
        &self,
        after: Option<&str>,
        limit: i64,
    ) -> Result<Vec<(String, String)>, StoreError>;

    /// Empties the read models (the start of a rebuild).
    async fn clear_statistics(&self) -> Result<(), StoreError>;

    /// Replaces one game's part of the read models in its own transaction (a rebuild).
    async fn replace_result(
        &self,
        club: &str,
        game: &GameRecord,
        result: Option<&GameResult>,
    ) -> Result<(), StoreError>;
}

/// Sums stored fact lists (`[[player_id | null, key, value], …]` per game) by key and by
/// whether the fact is about a player, sorted by key.
fn sum_facts(lists: &[String]) -> Result<Vec<FactTotal>, StoreError> {
    let mut totals: std::collections::BTreeMap<(String, bool), (i64, i64)> =
        std::collections::BTreeMap::new();
    for list in lists {
        let facts: Vec<(Option<String>, String, i64)> = serde_json::from_str(list)
            .map_err(|e| StoreError::Corrupt(format!("game facts: {e}")))?;
        for (player, key, value) in facts {
            let entry = totals.entry((key, player.is_some())).or_default();
            entry.0 += value;
            entry.1 += 1;
        }
    }
    Ok(totals
        .into_iter()
        .map(|((key, per_player), (sum, count))| FactTotal {
            key,
            per_player,
            sum,
            count,
        })
        .collect())
}

/// `($1, $2, …), ($k, …)` for `rows` rows of `columns` parameters.
fn placeholders(rows: usize, columns: usize) -> String {
    (0..rows)
        .map(|r| {
            format!(
                "({})",
                (1..=columns)
                    .map(|c| format!("${}", r * columns + c))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

macro_rules! stats_store {
    ($store:ident, $db:ty, lock_players = $lock_players:literal) => {
        impl $store {
            /// Rewrites one game's rows of the read models inside the caller's transaction.
            pub(super) async fn write_result(
                tx: &mut sqlx::Transaction<'static, $db>,
                club: &str,
                game: &GameRecord,
                was_finished: bool,
                result: Option<&GameResult>,
            ) -> Result<(), StoreError> {
                // Two games with the same players may finish at once: their players' sums are
                // recomputed one writer at a time (PostgreSQL: row locks taken in id order, so
                // no deadlock; NO KEY UPDATE leaves the foreign-key checks of concurrent game
                // creations unblocked; SQLite: the database write lock already serialises appends).
                // A first finish only adds to the sums with an atomic upsert, which needs no lock:
                // a concurrent recompute either sees its committed results or is added to.
                let recompute = was_finished || result.is_none();
                if recompute && !$lock_players.is_empty() && !game.players.is_empty() {
                    let mut ids: Vec<&str> = game.players.iter().map(|p| p.player_id.as_str()).collect();
                    ids.sort_unstable();
                    let list = (1..=ids.len()).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ");
                    let sql = format!("SELECT id FROM players WHERE id IN ({list}) ORDER BY id {}", $lock_players);
                    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
                    for id in ids {
                        query = query.bind(id);
                    }
                    query.execute(&mut **tx).await?;
                }
                // Rows exist only for a game that was finished: a first finish skips the deletes
                // (on SQLite every statement is a round trip to its worker thread).
                let mut had_result = false;
                if was_finished {
                    let removed = sqlx::query("DELETE FROM player_results WHERE game_id = $1")
                        .bind(&game.id)
                        .execute(&mut **tx)
                        .await?;
                    had_result = removed.rows_affected() > 0;
                    sqlx::query("DELETE FROM game_facts WHERE game_id = $1").bind(&game.id).execute(&mut **tx).await?;
                }
                if let Some(result) = result {
                    let players = result.players.len() as i64;
                    if !result.players.is_empty() {
                        let sql = format!(
                            "INSERT INTO player_results (game_id, player_id, club_id, game, played_at, seat, total, rank, won, players) VALUES {}",
                            placeholders(result.players.len(), 10)
                        );
                        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
                        for p in &result.players {
                            query = query
                                .bind(&game.id)
                                .bind(&p.player_id)
                                .bind(club)
                                .bind(&game.game)
                                .bind(game.started_at)
                                .bind(p.seat)
                                .bind(p.total)
                                .bind(p.rank)
                                .bind(i64::from(p.won))
                                .bind(players);
                        }
                        query.execute(&mut **tx).await?;
                    }
                    if !result.facts.is_empty() {
                        let facts: Vec<serde_json::Value> =
                            result.facts.iter().map(|(player, key, value)| serde_json::json!([player, key, value])).collect();
                        sqlx::query("INSERT INTO game_facts (game_id, club_id, game, played_at, facts) VALUES ($1, $2, $3, $4, $5)")
                            .bind(&game.id)
                            .bind(club)
                            .bind(&game.game)
                            .bind(game.started_at)
                            .bind(serde_json::Value::Array(facts).to_string())
                            .execute(&mut **tx)
                            .await?;
                    }
                }
                // The leaderboard sums of each seated player. A game finishing for the first
                // time adds its results (one upsert a player); a game whose earlier result
                // changed or went away has its players' sums recomputed from their results.
                if had_result || result.is_none() {
                    for seat in &game.players {
                        sqlx::query("DELETE FROM player_game_totals WHERE club_id = $1 AND player_id = $2 AND game = $3")
                            .bind(club)
                            .bind(&seat.player_id)
                            .bind(&game.game)
                            .execute(&mut **tx)
                            .await?;
                        sqlx::query(
                            "INSERT INTO player_game_totals \
                               (club_id, player_id, game, played, wins, total_sum, rank_sum, min_total, max_total, last_played) \
                             SELECT club_id, player_id, game, COUNT(*), SUM(won), SUM(total), SUM(rank), MIN(total), MAX(total), MAX(played_at) \
                             FROM player_results WHERE club_id = $1 AND player_id = $2 AND game = $3 \
                             GROUP BY club_id, player_id, game",
                        )
                        .bind(club)
                        .bind(&seat.player_id)
                        .bind(&game.game)
                        .execute(&mut **tx)
                        .await?;
                    }
                } else if let Some(result) = result
                    && !result.players.is_empty()
                {
                    let sql = format!(
                        "INSERT INTO player_game_totals \
                           (club_id, player_id, game, played, wins, total_sum, rank_sum, min_total, max_total, last_played) \
                         VALUES {} \
                         ON CONFLICT (club_id, player_id, game) DO UPDATE SET \
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
                        placeholders(result.players.len(), 10)
                    );
                    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
                    for p in &result.players {
                        query = query
                            .bind(club)
                            .bind(&p.player_id)
                            .bind(&game.game)
                            .bind(1_i64)
                            .bind(i64::from(p.won))
                            .bind(p.total)
                            .bind(p.rank)
                            .bind(p.total)
                            .bind(p.total)
                            .bind(game.started_at);
                    }
                    query.execute(&mut **tx).await?;
                }
                Ok(())
            }

            fn player_row(row: &<$db as sqlx::Database>::Row) -> Result<PlayerRow, sqlx::Error> {
                Ok(PlayerRow {
                    id: row.try_get("id")?,
                    name: row.try_get("name")?,
                    games_played: row.try_get("games_played")?,
                    last_played: row.try_get("last_played")?,
                })
            }
        }

        #[async_trait]
        impl StatsStore for $store {
            async fn list_players(
                &self,
                club: &str,
                search: Option<&str>,
                after_name: Option<&str>,
                limit: i64,
            ) -> Result<Vec<PlayerRow>, StoreError> {
                let pattern = search.map(|s| format!("%{}%", s.to_lowercase().replace('%', "").replace('_', "")));
                let rows = sqlx::query(
                    "SELECT p.id, p.name, \
                       (SELECT COUNT(*) FROM player_results r WHERE r.club_id = p.club_id AND r.player_id = p.id) AS games_played, \
                       (SELECT MAX(r.played_at) FROM player_results r WHERE r.club_id = p.club_id AND r.player_id = p.id) AS last_played \
                     FROM players p WHERE p.club_id = $1 \
                       AND ($2 IS NULL OR p.name_key LIKE $2) \
                       AND ($3 IS NULL OR p.name_key > $3) \
                     ORDER BY p.name_key LIMIT $4",
                )
                .bind(club)
                .bind(pattern)
                .bind(after_name.map(str::to_lowercase))
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                rows.iter().map(Self::player_row).collect::<Result<_, _>>().map_err(StoreError::from)
            }

            async fn player(&self, club: &str, id: &str) -> Result<Option<PlayerRow>, StoreError> {
                let row = sqlx::query(
                    "SELECT p.id, p.name, \
                       (SELECT COUNT(*) FROM player_results r WHERE r.club_id = p.club_id AND r.player_id = p.id) AS games_played, \
                       (SELECT MAX(r.played_at) FROM player_results r WHERE r.club_id = p.club_id AND r.player_id = p.id) AS last_played \
                     FROM players p WHERE p.club_id = $1 AND p.id = $2",
                )
                .bind(club)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                row.as_ref().map(Self::player_row).transpose().map_err(StoreError::from)
            }

            async fn results_of_player(
                &self,
                club: &str,
                player: &str,
                filter: &StatsFilter,
            ) -> Result<Vec<ResultRecord>, StoreError> {
                let rows = sqlx::query(
                    "SELECT game_id, game, played_at, total, rank, won, players FROM player_results \
                     WHERE club_id = $1 AND player_id = $2 \
                       AND ($3 IS NULL OR game = $3) AND ($4 IS NULL OR played_at >= $4) AND ($5 IS NULL OR played_at < $5) \
                     ORDER BY played_at, game_id",
                )
                .bind(club)
                .bind(player)
                .bind(&filter.game)
                .bind(filter.from)
                .bind(filter.to)
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|row| {
                        Ok(ResultRecord {
                            game_id: row.try_get("game_id")?,
                            game: row.try_get("game")?,
                            played_at: row.try_get("played_at")?,
                            total: row.try_get("total")?,
                            rank: row.try_get("rank")?,
                            won: row.try_get::<i64, _>("won")? == 1,
                            players: row.try_get("players")?,
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn leaderboard(&self, club: &str, filter: &StatsFilter) -> Result<Vec<LeaderRow>, StoreError> {
                // Without dates the per-player sums answer; with dates the results are summed.
                let rows = if filter.has_dates() {
                    sqlx::query(
                        "SELECT r.player_id, p.name, COUNT(*) AS played, CAST(SUM(r.won) AS BIGINT) AS wins, \
                           CAST(SUM(r.total) AS BIGINT) AS total_sum, CAST(SUM(r.rank) AS BIGINT) AS rank_sum \
                         FROM player_results r JOIN players p ON p.id = r.player_id \
                         WHERE r.club_id = $1 AND ($2 IS NULL OR r.game = $2) \
                           AND ($3 IS NULL OR r.played_at >= $3) AND ($4 IS NULL OR r.played_at < $4) \
                         GROUP BY r.player_id, p.name",
                    )
                    .bind(club)
                    .bind(&filter.game)
                    .bind(filter.from)
                    .bind(filter.to)
                    .fetch_all(&self.pool)
                    .await?
                } else {
                    sqlx::query(
                        "SELECT t.player_id, p.name, CAST(SUM(t.played) AS BIGINT) AS played, CAST(SUM(t.wins) AS BIGINT) AS wins, \
                           CAST(SUM(t.total_sum) AS BIGINT) AS total_sum, CAST(SUM(t.rank_sum) AS BIGINT) AS rank_sum \
                         FROM player_game_totals t JOIN players p ON p.id = t.player_id \
                         WHERE t.club_id = $1 AND ($2 IS NULL OR t.game = $2) \
                         GROUP BY t.player_id, p.name",
                    )
                    .bind(club)
                    .bind(&filter.game)
                    .fetch_all(&self.pool)
                    .await?
                };
                rows.iter()
                    .map(|row| {
                        Ok(LeaderRow {
                            player_id: row.try_get("player_id")?,
                            name: row.try_get("name")?,
                            played: row.try_get("played")?,
                            wins: row.try_get("wins")?,
                            total_sum: row.try_get("total_sum")?,
                            rank_sum: row.try_get("rank_sum")?,
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn head_to_head(
                &self,
                club: &str,
                a: &str,
                b: &str,
                filter: &StatsFilter,
            ) -> Result<Vec<HeadToHeadRow>, StoreError> {
                let rows = sqlx::query(
                    "SELECT ra.game_id, ra.game, ra.played_at, ra.rank AS rank_a, rb.rank AS rank_b \
                     FROM player_results ra JOIN player_results rb ON rb.game_id = ra.game_id AND rb.player_id = $3 \
                     WHERE ra.club_id = $1 AND ra.player_id = $2 \
                       AND ($4 IS NULL OR ra.game = $4) AND ($5 IS NULL OR ra.played_at >= $5) AND ($6 IS NULL OR ra.played_at < $6) \
                     ORDER BY ra.played_at DESC, ra.game_id DESC",
                )
                .bind(club)
                .bind(a)
                .bind(b)
                .bind(&filter.game)
                .bind(filter.from)
                .bind(filter.to)
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|row| {
                        Ok(HeadToHeadRow {
                            game_id: row.try_get("game_id")?,
                            game: row.try_get("game")?,
                            played_at: row.try_get("played_at")?,
                            rank_a: row.try_get("rank_a")?,
                            rank_b: row.try_get("rank_b")?,
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn game_stats(&self, club: &str, game: &str, filter: &StatsFilter) -> Result<GameStatsRows, StoreError> {
                let summary = sqlx::query(
                    "SELECT COUNT(DISTINCT game_id) AS plays, COUNT(*) AS results, CAST(COALESCE(SUM(total), 0) AS BIGINT) AS total_sum \
                     FROM player_results WHERE club_id = $1 AND game = $2 \
                       AND ($3 IS NULL OR played_at >= $3) AND ($4 IS NULL OR played_at < $4)",
                )
                .bind(club)
                .bind(game)
                .bind(filter.from)
                .bind(filter.to)
                .fetch_one(&self.pool)
                .await?;
                let mut stats = GameStatsRows {
                    plays: summary.try_get("plays")?,
                    results: summary.try_get("results")?,
                    total_sum: summary.try_get("total_sum")?,
                    ..GameStatsRows::default()
                };
                for (order, slot) in [("ASC", &mut stats.lowest), ("DESC", &mut stats.highest)] {
                    let sql = format!(
                        "SELECT r.total, p.name, r.game_id FROM player_results r JOIN players p ON p.id = r.player_id \
                         WHERE r.club_id = $1 AND r.game = $2 AND ($3 IS NULL OR r.played_at >= $3) AND ($4 IS NULL OR r.played_at < $4) \
                         ORDER BY r.total {order}, r.played_at, r.game_id LIMIT 1"
                    );
                    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
                        .bind(club)
                        .bind(game)
                        .bind(filter.from)
                        .bind(filter.to)
                        .fetch_optional(&self.pool)
                        .await?;
                    if let Some(row) = row {
                        *slot = Some((row.try_get("total")?, row.try_get("name")?, row.try_get("game_id")?));
                    }
                }
                let rows = sqlx::query(
                    "SELECT facts FROM game_facts WHERE club_id = $1 AND game = $2 \
                       AND ($3 IS NULL OR played_at >= $3) AND ($4 IS NULL OR played_at < $4)",
                )
                .bind(club)
                .bind(game)
                .bind(filter.from)
                .bind(filter.to)
                .fetch_all(&self.pool)
                .await?;
                let mut lists = Vec::with_capacity(rows.len());
                for row in &rows {
                    lists.push(row.try_get::<String, _>("facts")?);
                }
                stats.facts = sum_facts(&lists)?;
                Ok(stats)
            }

            async fn player_games(
                &self,
                club: &str,
                player: &str,
                after: Option<&(DateTime<Utc>, String)>,
                limit: i64,
            ) -> Result<Vec<PlayerGameRow>, StoreError> {
                let rows = sqlx::query(
                    "SELECT g.id, g.game, g.status, g.started_at, gp.seat, gp.name, r.total, r.rank, r.won \
                     FROM game_players gp JOIN games g ON g.id = gp.game_id \
                     LEFT JOIN player_results r ON r.game_id = gp.game_id AND r.player_id = gp.player_id \
                     WHERE g.club_id = $1 AND gp.player_id = $2 \
                       AND ($3 IS NULL OR g.started_at < $3 OR (g.started_at = $3 AND g.id < $4)) \
                     ORDER BY g.started_at DESC, g.id DESC LIMIT $5",
                )
                .bind(club)
                .bind(player)
                .bind(after.map(|a| a.0))
                .bind(after.map(|a| a.1.clone()))
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|row| {
                        Ok(PlayerGameRow {
                            game_id: row.try_get("id")?,
                            game: row.try_get("game")?,
                            status: row.try_get("status")?,
                            started_at: row.try_get("started_at")?,
                            seat: row.try_get("seat")?,
                            name: row.try_get("name")?,
                            total: row.try_get("total")?,
                            rank: row.try_get("rank")?,
                            won: row.try_get::<Option<i64>, _>("won")?.map(|w| w == 1),
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn game_ids(&self, after: Option<&str>, limit: i64) -> Result<Vec<(String, String)>, StoreError> {
                let rows = sqlx::query("SELECT club_id, id FROM games WHERE ($1 IS NULL OR id > $1) ORDER BY id LIMIT $2")
                    .bind(after)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter()
                    .map(|row| Ok((row.try_get("club_id")?, row.try_get("id")?)))
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn clear_statistics(&self) -> Result<(), StoreError> {
                let mut tx = self.pool.begin().await?;
                for table in ["DELETE FROM game_facts", "DELETE FROM player_game_totals", "DELETE FROM player_results"] {
                    sqlx::query(table).execute(&mut *tx).await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn replace_result(&self, club: &str, game: &GameRecord, result: Option<&GameResult>) -> Result<(), StoreError> {
                let mut tx = self.pool.begin().await?;
                Self::write_result(&mut tx, club, game, true, result).await?;
                tx.commit().await?;
                Ok(())
            }
        }
    };
}

stats_store!(SqliteStore, sqlx::Sqlite, lock_players = "");
stats_store!(
    PostgresStore,
    sqlx::Postgres,
    lock_players = "FOR NO KEY UPDATE"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_of_several_games_are_summed_by_key_and_kind() {
        let lists = vec![
            r#"[["p1", "damage:fine-wine", 4], ["p2", "damage:fine-wine", 2], [null, "be_careful_decided", 1]]"#.to_owned(),
            r#"[["p1", "damage:fine-wine", 6], [null, "be_careful_decided", 0]]"#.to_owned(),
        ];

        let totals = sum_facts(&lists).unwrap();

        assert_eq!(
            totals,
            vec![
                FactTotal {
                    key: "be_careful_decided".into(),
                    per_player: false,
                    sum: 1,
                    count: 2
                },
                FactTotal {
                    key: "damage:fine-wine".into(),
                    per_player: true,
                    sum: 12,
                    count: 3
                },
            ]
        );
    }
}
