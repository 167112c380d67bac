//! The statistics read models: written with the append that changes a game's result, read by
//! the statistics endpoints.
//!
//! A finished game's results and facts live on its seats (`game_players.total`, `rank`,
//! `facts`) and its row (`games.facts`); `player_game_totals` sums them per player and game for
//! the leaderboard. Queries about one player start from the player's row (`players.id`, which
//! also scopes them to the club): both planners then walk that player's seats and look their
//! games up, instead of walking the club's games (which SQLite, without table statistics,
//! would choose for a join written from the seats).
//!
//! - [`summary`]: finished seats summed (a period's statistics, a bucket);
//! - [`periods`]: a period split into whole months, whole days and edge seats;
//! - [`sql`]: the statements;
//! - [`write`], [`read`]: the two sides.

mod periods;
mod read;
pub(in crate::store) mod sql;
mod summary;
#[cfg(test)]
mod tests;
pub(in crate::store) mod write;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::records::{GameRecord, GameResult};
use crate::store::backend::SqlStore;
use crate::store::error::StoreError;

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
    /// The variant counted apart (`""`: the published rules).
    pub variant: String,
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
    /// The game's effective options: they say which variant it plays.
    pub options: serde_json::Value,
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

    /// Every game, `(club id, game id)` in play order (start, then id) from after the game `after`,
    /// for a rebuild.
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

/// The statistics on either database: each method is a function of `read` or `write`.
#[async_trait]
impl<S: SqlStore> StatsStore for S {
    async fn list_players(
        &self,
        club: &str,
        search: Option<&str>,
        after_name: Option<&str>,
        limit: i64,
    ) -> Result<Vec<PlayerRow>, StoreError> {
        read::list_players(self, club, search, after_name, limit).await
    }

    async fn player(&self, club: &str, id: &str) -> Result<Option<PlayerRow>, StoreError> {
        read::player(self, club, id).await
    }

    async fn player_named(&self, club: &str, name: &str) -> Result<Option<PlayerRow>, StoreError> {
        read::player_named(self, club, name).await
    }

    async fn results_of_player(
        &self,
        club: &str,
        player: &str,
        filter: &StatsFilter,
    ) -> Result<Vec<ResultRecord>, StoreError> {
        read::results_of_player(self, club, player, filter).await
    }

    async fn leaderboard(
        &self,
        club: &str,
        filter: &StatsFilter,
    ) -> Result<Vec<LeaderRow>, StoreError> {
        read::leaderboard(self, club, filter).await
    }

    async fn head_to_head(
        &self,
        club: &str,
        a: &str,
        b: &str,
        filter: &StatsFilter,
    ) -> Result<Vec<HeadToHeadRow>, StoreError> {
        read::head_to_head(self, club, a, b, filter).await
    }

    async fn game_stats(
        &self,
        club: &str,
        game: &str,
        filter: &StatsFilter,
    ) -> Result<GameStatsRows, StoreError> {
        read::game_stats(self, club, game, filter).await
    }

    async fn player_games(
        &self,
        club: &str,
        player: &str,
        after: Option<&(DateTime<Utc>, String)>,
        limit: i64,
    ) -> Result<Vec<PlayerGameRow>, StoreError> {
        read::player_games(self, club, player, after, limit).await
    }

    async fn game_ids(
        &self,
        after: Option<&str>,
        limit: i64,
    ) -> Result<Vec<(String, String)>, StoreError> {
        read::game_ids(self, after, limit).await
    }

    async fn clear_statistics(&self) -> Result<(), StoreError> {
        write::clear_statistics(self).await
    }

    async fn replace_result(
        &self,
        club: &str,
        game: &GameRecord,
        result: Option<&GameResult>,
    ) -> Result<(), StoreError> {
        write::replace_result(self, club, game, result).await
    }
}
