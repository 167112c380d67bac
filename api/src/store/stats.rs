//! The statistics read models: written with the append that changes a game's result, read by
//! the statistics endpoints. Same SQL on both databases, instantiated by `stats_store!`.
//!
//! A finished game's results and facts live on its seats (`game_players.total`, `rank`,
//! `facts`) and its row (`games.facts`); `player_game_totals` sums them per player and game for
//! the leaderboard. Queries about one player start from the player's row (`players.id`, which
//! also scopes them to the club): both planners then walk that player's seats and look their
//! games up, instead of walking the club's games — which SQLite, without table statistics,
//! chose for a join written from the seats (100 times slower at 100,000 games).

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use futures_util::TryStreamExt;
use sqlx::Row;

use super::sql::{PostgresStore, SqliteStore};
use super::{GameRecord, GameResult, PlayerResult, SeatRecord, StoreError};

/// Date and game filters shared by the statistics queries.
#[derive(Debug, Clone, Default)]
pub struct StatsFilter {
    pub game: Option<String>,
    /// The variant's games only (`""`: the published rules); `None`: every variant.
    pub variant: Option<String>,
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
    /// The variant the game counts in (`""`: the published rules).
    pub variant: String,
    /// The game's scoreboard said the lowest total won.
    pub lower_wins: bool,
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
    /// In every game counted, the lowest total won.
    pub lower_wins: bool,
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
    /// In every game counted, the lowest total won (`None` without a finished game).
    pub lower_wins: Option<bool>,
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

    /// The club player with this name, by the one name rule (`setup::name_key`).
    async fn player_named(&self, club: &str, name: &str) -> Result<Option<PlayerRow>, StoreError>;

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

/// One finished seat of a game, as read for the game's statistics.
struct SeatResult {
    game_id: String,
    /// Every game has a seat 1: it counts the game once.
    seat: i64,
    played_at: DateTime<Utc>,
    player_id: String,
    total: i64,
    /// The game's scoreboard said the lowest total won.
    lower_wins: bool,
    /// The seat's facts, `{"key": value}`.
    facts: Option<String>,
    /// The whole game's facts, given with one seat of each game only.
    game_facts: Option<String>,
}

/// The lowest or highest total: the earliest such result (then by game id and seat) holds
/// the record, so both databases name the same holder whatever order they read rows in.
#[derive(Clone)]
struct Record {
    total: i64,
    played_at: DateTime<Utc>,
    game_id: String,
    seat: i64,
    player_id: String,
}

/// A game's statistics summed over its finished seats.
#[derive(Default)]
struct GameSummary {
    plays: i64,
    results: i64,
    total_sum: i64,
    lowest: Option<Record>,
    highest: Option<Record>,
    /// `(key, per_player) → (sum, count)`.
    facts: BTreeMap<(String, bool), (i64, i64)>,
    /// In every seat so far, the lowest total won.
    lower_wins: Option<bool>,
}

impl GameSummary {
    fn add(&mut self, seat: SeatResult) -> Result<(), StoreError> {
        if seat.seat == 1 {
            self.plays += 1;
        }
        self.results += 1;
        self.total_sum += seat.total;
        self.lower_wins = Some(self.lower_wins.unwrap_or(true) && seat.lower_wins);
        if let Some(game_facts) = &seat.game_facts {
            self.add_facts(game_facts, false)?;
        }
        if let Some(facts) = &seat.facts {
            self.add_facts(facts, true)?;
        }
        let this = Record {
            total: seat.total,
            played_at: seat.played_at,
            game_id: seat.game_id,
            seat: seat.seat,
            player_id: seat.player_id,
        };
        let earlier = |r: &Record| {
            (this.played_at, &this.game_id, this.seat) < (r.played_at, &r.game_id, r.seat)
        };
        if self
            .lowest
            .as_ref()
            .is_none_or(|r| this.total < r.total || (this.total == r.total && earlier(r)))
        {
            self.lowest = Some(this.clone());
        }
        if self
            .highest
            .as_ref()
            .is_none_or(|r| this.total > r.total || (this.total == r.total && earlier(r)))
        {
            self.highest = Some(this);
        }
        Ok(())
    }

    fn add_facts(&mut self, object: &str, per_player: bool) -> Result<(), StoreError> {
        let facts: BTreeMap<String, i64> = serde_json::from_str(object)
            .map_err(|e| StoreError::Corrupt(format!("game facts: {e}")))?;
        for (key, value) in facts {
            let entry = self.facts.entry((key, per_player)).or_default();
            entry.0 += value;
            entry.1 += 1;
        }
        Ok(())
    }

    /// The facts by key, sorted.
    fn facts(&self) -> Vec<FactTotal> {
        self.facts
            .iter()
            .map(|((key, per_player), (sum, count))| FactTotal {
                key: key.clone(),
                per_player: *per_player,
                sum: *sum,
                count: *count,
            })
            .collect()
    }
}

/// A finished game's facts as stored: a `{"key": value}` object per seat (on its seat row) and
/// one for the facts about the whole game (on the game's row).
struct FactsBySeat {
    seats: BTreeMap<i64, BTreeMap<String, i64>>,
    whole_game: BTreeMap<String, i64>,
}

impl FactsBySeat {
    fn new(game: &GameRecord, result: &GameResult) -> Result<Self, StoreError> {
        let mut facts = FactsBySeat {
            seats: BTreeMap::new(),
            whole_game: BTreeMap::new(),
        };
        for (player, key, value) in &result.facts {
            let object = match player {
                None => &mut facts.whole_game,
                Some(id) => {
                    let seat = game
                        .players
                        .iter()
                        .find(|s| &s.player_id == id)
                        .ok_or_else(|| {
                            StoreError::Corrupt(format!(
                                "a fact names player {id}, who is not seated"
                            ))
                        })?;
                    facts.seats.entry(seat.seat).or_default()
                }
            };
            *object.entry(key.clone()).or_default() += value;
        }
        Ok(facts)
    }

    fn json(object: &BTreeMap<String, i64>) -> Option<String> {
        (!object.is_empty())
            .then(|| serde_json::to_string(object).expect("a map of numbers is JSON"))
    }

    fn of_seat(&self, seat: i64) -> Option<String> {
        self.seats.get(&seat).and_then(Self::json)
    }

    fn whole_game(&self) -> Option<String> {
        Self::json(&self.whole_game)
    }
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

/// A club player with their games played and last game, from the leaderboard sums (a
/// `PlayerRow`); the caller adds the `WHERE`.
macro_rules! player_select {
    () => {
        "SELECT p.id, p.name, \
           (SELECT CAST(COALESCE(SUM(t.played), 0) AS BIGINT) FROM player_game_totals t \
            WHERE t.club_id = p.club_id AND t.player_id = p.id) AS games_played, \
           (SELECT MAX(t.last_played) FROM player_game_totals t \
            WHERE t.club_id = p.club_id AND t.player_id = p.id) AS last_played \
         FROM players p"
    };
}

macro_rules! stats_store {
    ($store:ident, $db:ty, lock_players = $lock_players:literal) => {
        impl $store {
            /// Rewrites one game's part of the read models inside the caller's transaction: the
            /// results and facts on its seats and its row, and its players' leaderboard sums.
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
                // A game that was finished may hold an earlier result: clear it (a first finish
                // skips this; on SQLite every statement is a round trip to its worker thread).
                let mut had_result = false;
                if was_finished {
                    let cleared = sqlx::query(
                        "UPDATE game_players SET total = NULL, rank = NULL, facts = NULL \
                         WHERE game_id = $1 AND rank IS NOT NULL",
                    )
                    .bind(&game.id)
                    .execute(&mut **tx)
                    .await?;
                    had_result = cleared.rows_affected() > 0;
                    sqlx::query("UPDATE games SET facts = NULL WHERE id = $1 AND facts IS NOT NULL").bind(&game.id).execute(&mut **tx).await?;
                }
                if let Some(result) = result {
                    Self::write_seats(tx, game, result).await?;
                }
                // The leaderboard sums of each seated player. A game finishing for the first
                // time adds its results (one upsert for all players); a game whose earlier
                // result changed or went away has its players' sums recomputed from the seats.
                // Rows are written in player id order, the order every writer locks them in:
                // two tables finishing at once with the same players cannot deadlock.
                if had_result || result.is_none() {
                    let mut seats: Vec<&SeatRecord> = game.players.iter().collect();
                    seats.sort_unstable_by(|a, b| a.player_id.cmp(&b.player_id));
                    for seat in seats {
                        // Every variant of the game: a correction may move a game between them.
                        sqlx::query("DELETE FROM player_game_totals WHERE club_id = $1 AND player_id = $2 AND game = $3")
                            .bind(club)
                            .bind(&seat.player_id)
                            .bind(&game.game)
                            .execute(&mut **tx)
                            .await?;
                        sqlx::query(
                            "INSERT INTO player_game_totals \
                               (club_id, player_id, game, variant, lower_wins, played, wins, total_sum, rank_sum, min_total, max_total, last_played) \
                             SELECT g.club_id, gp.player_id, g.game, g.variant, MAX(g.lower_wins), COUNT(*), \
                               SUM(CASE WHEN gp.rank = 1 THEN 1 ELSE 0 END), \
                               SUM(gp.total), SUM(gp.rank), MIN(gp.total), MAX(gp.total), MAX(g.started_at) \
                             FROM players p JOIN game_players gp ON gp.player_id = p.id JOIN games g ON g.id = gp.game_id \
                             WHERE p.id = $2 AND p.club_id = $1 AND g.game = $3 AND gp.rank IS NOT NULL \
                             GROUP BY g.club_id, gp.player_id, g.game, g.variant",
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
                    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
                    for p in players {
                        query = query
                            .bind(club)
                            .bind(&p.player_id)
                            .bind(&game.game)
                            .bind(result.variant.as_deref().unwrap_or(""))
                            .bind(i64::from(result.lower_wins))
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

            /// Writes a finished game's totals, ranks and facts onto its seats (one statement,
            /// a `CASE` per column by seat) and its whole-game facts onto its row.
            async fn write_seats(
                tx: &mut sqlx::Transaction<'static, $db>,
                game: &GameRecord,
                result: &GameResult,
            ) -> Result<(), StoreError> {
                // Every ruleset ranks every seat; the statistics count a game by its seat 1.
                let mut seats: Vec<i64> = result.players.iter().map(|p| p.seat).collect();
                seats.sort_unstable();
                if !seats.iter().copied().eq(game.players.iter().map(|s| s.seat)) {
                    return Err(StoreError::Corrupt(format!(
                        "the score of game {} ranks seats {seats:?}, not every seat",
                        game.id
                    )));
                }
                let facts = FactsBySeat::new(game, result)?;
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
                    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(&game.id);
                    for p in &result.players {
                        query = query.bind(p.seat).bind(p.total).bind(p.rank).bind(facts.of_seat(p.seat));
                    }
                    query.execute(&mut **tx).await?;
                }
                // The variant and direction the statistics count this game's totals in.
                sqlx::query("UPDATE games SET facts = $1, variant = $2, lower_wins = $3 WHERE id = $4")
                    .bind(facts.whole_game())
                    .bind(result.variant.as_deref().unwrap_or(""))
                    .bind(i64::from(result.lower_wins))
                    .bind(&game.id)
                    .execute(&mut **tx)
                    .await?;
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
                    concat!(
                        player_select!(),
                        " WHERE p.club_id = $1 \
                       AND ($2 IS NULL OR p.name_key LIKE $2) \
                       AND ($3 IS NULL OR p.name_key > $3) \
                     ORDER BY p.name_key LIMIT $4"
                    ),
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
                    concat!(player_select!(), " WHERE p.club_id = $1 AND p.id = $2"),
                )
                .bind(club)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                row.as_ref().map(Self::player_row).transpose().map_err(StoreError::from)
            }

            async fn player_named(&self, club: &str, name: &str) -> Result<Option<PlayerRow>, StoreError> {
                let row = sqlx::query(
                    concat!(player_select!(), " WHERE p.club_id = $1 AND p.name_key = $2"),
                )
                .bind(club)
                .bind(tabletally_domain::setup::name_key(name))
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
                    "SELECT g.id, g.game, g.variant, g.lower_wins, g.started_at, gp.total, gp.rank \
                     FROM players p JOIN game_players gp ON gp.player_id = p.id JOIN games g ON g.id = gp.game_id \
                     WHERE p.id = $2 AND p.club_id = $1 AND gp.rank IS NOT NULL \
                       AND ($3 IS NULL OR g.game = $3) AND ($4 IS NULL OR g.started_at >= $4) AND ($5 IS NULL OR g.started_at < $5) \
                       AND ($6 IS NULL OR g.variant = $6) \
                     ORDER BY g.started_at, g.id",
                )
                .bind(club)
                .bind(player)
                .bind(&filter.game)
                .bind(filter.from)
                .bind(filter.to)
                .bind(&filter.variant)
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|row| {
                        let rank: i64 = row.try_get("rank")?;
                        Ok(ResultRecord {
                            game_id: row.try_get("id")?,
                            game: row.try_get("game")?,
                            played_at: row.try_get("started_at")?,
                            total: row.try_get("total")?,
                            rank,
                            won: rank == 1,
                            variant: row.try_get("variant")?,
                            lower_wins: row.try_get::<Option<i64>, _>("lower_wins")? == Some(1),
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn leaderboard(&self, club: &str, filter: &StatsFilter) -> Result<Vec<LeaderRow>, StoreError> {
                // Without dates the per-player sums answer; with dates the results are summed.
                let rows = if filter.has_dates() {
                    sqlx::query(
                        "SELECT gp.player_id, p.name, COUNT(*) AS played, \
                           CAST(SUM(CASE WHEN gp.rank = 1 THEN 1 ELSE 0 END) AS BIGINT) AS wins, \
                           CAST(SUM(gp.total) AS BIGINT) AS total_sum, CAST(SUM(gp.rank) AS BIGINT) AS rank_sum, \
                           CAST(MIN(g.lower_wins) AS BIGINT) AS lower_wins \
                         FROM games g JOIN game_players gp ON gp.game_id = g.id JOIN players p ON p.id = gp.player_id \
                         WHERE g.club_id = $1 AND ($2 IS NULL OR g.game = $2) AND gp.rank IS NOT NULL \
                           AND ($3 IS NULL OR g.started_at >= $3) AND ($4 IS NULL OR g.started_at < $4) \
                           AND ($5 IS NULL OR g.variant = $5) \
                         GROUP BY gp.player_id, p.name",
                    )
                    .bind(club)
                    .bind(&filter.game)
                    .bind(filter.from)
                    .bind(filter.to)
                    .bind(&filter.variant)
                    .fetch_all(&self.pool)
                    .await?
                } else {
                    sqlx::query(
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
                            lower_wins: row.try_get::<Option<i64>, _>("lower_wins")? == Some(1),
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
                    "SELECT g.id, g.game, g.started_at, a.rank AS rank_a, b.rank AS rank_b \
                     FROM players pa JOIN game_players a ON a.player_id = pa.id \
                       JOIN game_players b ON b.game_id = a.game_id AND b.player_id = $3 JOIN games g ON g.id = a.game_id \
                     WHERE pa.id = $2 AND pa.club_id = $1 AND a.rank IS NOT NULL AND b.rank IS NOT NULL \
                       AND ($4 IS NULL OR g.game = $4) AND ($5 IS NULL OR g.started_at >= $5) AND ($6 IS NULL OR g.started_at < $6) \
                     ORDER BY g.started_at DESC, g.id DESC",
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
                            game_id: row.try_get("id")?,
                            game: row.try_get("game")?,
                            played_at: row.try_get("started_at")?,
                            rank_a: row.try_get("rank_a")?,
                            rank_b: row.try_get("rank_b")?,
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn game_stats(&self, club: &str, game: &str, filter: &StatsFilter) -> Result<GameStatsRows, StoreError> {
                // One pass over the finished seats, summed as they stream in: four queries over
                // the same rows took four times as long, and all rows at once would hold a club's
                // whole history in memory. The whole game's facts come with its seat 1.
                let mut rows = sqlx::query(
                    "SELECT g.id, g.started_at, g.lower_wins, gp.seat, gp.player_id, gp.total, gp.facts, \
                       CASE WHEN gp.seat = 1 THEN g.facts END AS game_facts \
                     FROM games g JOIN game_players gp ON gp.game_id = g.id \
                     WHERE g.club_id = $1 AND g.game = $2 AND gp.rank IS NOT NULL \
                       AND ($3 IS NULL OR g.started_at >= $3) AND ($4 IS NULL OR g.started_at < $4) \
                       AND ($5 IS NULL OR g.variant = $5)",
                )
                .bind(club)
                .bind(game)
                .bind(filter.from)
                .bind(filter.to)
                .bind(&filter.variant)
                .fetch(&self.pool);
                let mut summary = GameSummary::default();
                while let Some(row) = rows.try_next().await? {
                    summary.add(SeatResult {
                        game_id: row.try_get("id")?,
                        seat: row.try_get("seat")?,
                        played_at: row.try_get("started_at")?,
                        player_id: row.try_get("player_id")?,
                        total: row.try_get("total")?,
                        lower_wins: row.try_get::<Option<i64>, _>("lower_wins")? == Some(1),
                        facts: row.try_get("facts")?,
                        game_facts: row.try_get("game_facts")?,
                    })?;
                }
                drop(rows);
                let name_of = async |record: Option<Record>| -> Result<Option<(i64, String, String)>, StoreError> {
                    let Some(record) = record else { return Ok(None) };
                    let row = sqlx::query("SELECT name FROM players WHERE id = $1")
                        .bind(&record.player_id)
                        .fetch_one(&self.pool)
                        .await?;
                    Ok(Some((record.total, row.try_get("name")?, record.game_id)))
                };
                let lowest = name_of(summary.lowest.take()).await?;
                let highest = name_of(summary.highest.take()).await?;
                Ok(GameStatsRows {
                    plays: summary.plays,
                    results: summary.results,
                    total_sum: summary.total_sum,
                    lowest,
                    highest,
                    facts: summary.facts(),
                    lower_wins: summary.lower_wins,
                })
            }

            async fn player_games(
                &self,
                club: &str,
                player: &str,
                after: Option<&(DateTime<Utc>, String)>,
                limit: i64,
            ) -> Result<Vec<PlayerGameRow>, StoreError> {
                let rows = sqlx::query(
                    "SELECT g.id, g.game, g.status, g.started_at, gp.seat, gp.name, gp.total, gp.rank \
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
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|row| {
                        let rank: Option<i64> = row.try_get("rank")?;
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
                for statement in [
                    "UPDATE game_players SET total = NULL, rank = NULL, facts = NULL WHERE rank IS NOT NULL OR facts IS NOT NULL",
                    "UPDATE games SET facts = NULL WHERE facts IS NOT NULL",
                    "DELETE FROM player_game_totals",
                ] {
                    sqlx::query(statement).execute(&mut *tx).await?;
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

    fn seat(
        game: &str,
        day: u32,
        seat: i64,
        player: &str,
        total: i64,
        facts: &str,
        game_facts: Option<&str>,
    ) -> SeatResult {
        SeatResult {
            game_id: game.into(),
            seat,
            played_at: format!("2026-01-{day:02}T19:00:00Z").parse().unwrap(),
            player_id: player.into(),
            total,
            lower_wins: true,
            facts: Some(facts.into()),
            game_facts: game_facts.map(Into::into),
        }
    }

    #[test]
    fn a_games_seats_are_summed_into_plays_records_and_facts_by_key_and_kind() {
        let mut summary = GameSummary::default();
        for s in [
            seat(
                "g2",
                5,
                1,
                "ann",
                4,
                r#"{"damage:fine-wine": 4}"#,
                Some(r#"{"be_careful_decided": 1}"#),
            ),
            seat(
                "g2",
                5,
                2,
                "bo",
                9,
                r#"{"damage:fine-wine": 2, "damage:be-careful": 7}"#,
                None,
            ),
            seat("g1", 3, 2, "cy", 9, r#"{"damage:fine-wine": 6}"#, None),
            seat(
                "g1",
                3,
                1,
                "di",
                4,
                r#"{}"#,
                Some(r#"{"be_careful_decided": 0}"#),
            ),
        ] {
            summary.add(s).unwrap();
        }

        // Ties on the total go to the earlier game: g1 (3 January) holds both records.
        assert_eq!(
            (summary.plays, summary.results, summary.total_sum),
            (2, 4, 26)
        );
        let lowest = summary.lowest.as_ref().unwrap();
        let highest = summary.highest.as_ref().unwrap();
        assert_eq!(
            (
                lowest.total,
                lowest.game_id.as_str(),
                lowest.player_id.as_str()
            ),
            (4, "g1", "di")
        );
        assert_eq!(
            (
                highest.total,
                highest.game_id.as_str(),
                highest.player_id.as_str()
            ),
            (9, "g1", "cy")
        );
        let fact = |key: &str, per_player, sum, count| FactTotal {
            key: key.into(),
            per_player,
            sum,
            count,
        };
        assert_eq!(
            summary.facts(),
            vec![
                fact("be_careful_decided", false, 1, 2),
                fact("damage:be-careful", true, 7, 1),
                fact("damage:fine-wine", true, 12, 3),
            ]
        );
    }

    #[test]
    fn a_record_shared_within_one_game_goes_to_the_lower_seat_whatever_the_row_order() {
        let mut summary = GameSummary::default();
        for s in [
            seat("g1", 3, 2, "bo", 7, "{}", None),
            seat("g1", 3, 1, "ann", 7, "{}", None),
        ] {
            summary.add(s).unwrap();
        }

        assert_eq!(summary.lowest.as_ref().unwrap().player_id, "ann");
        assert_eq!(summary.highest.as_ref().unwrap().player_id, "ann");
    }

    #[test]
    fn facts_are_stored_per_seat_and_for_the_whole_game_with_repeated_keys_added() {
        let seat = |n: i64, id: &str| crate::store::SeatRecord {
            seat: n,
            name: id.into(),
            player_id: id.into(),
            color: None,
        };
        let game = GameRecord {
            id: "g".into(),
            game: "mint-condition".into(),
            status: "finished".into(),
            version: 4,
            options: serde_json::json!({}),
            players: vec![seat(1, "ann"), seat(2, "bo")],
            started_at: Utc::now(),
            updated_at: Utc::now(),
        };
        let result = GameResult {
            players: Vec::new(),
            facts: vec![
                (Some("bo".into()), "damage:fine-wine".into(), 2),
                (None, "be_careful_decided".into(), 1),
                (Some("bo".into()), "damage:fine-wine".into(), 3),
            ],
            variant: None,
            lower_wins: true,
        };

        let facts = FactsBySeat::new(&game, &result).unwrap();

        assert_eq!(facts.of_seat(1), None);
        assert_eq!(
            facts.of_seat(2).as_deref(),
            Some(r#"{"damage:fine-wine":5}"#)
        );
        assert_eq!(
            facts.whole_game().as_deref(),
            Some(r#"{"be_careful_decided":1}"#)
        );
    }
}
