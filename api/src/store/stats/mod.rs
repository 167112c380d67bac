//! The statistics read models: written with the append that changes a game's result (a first
//! finish's shared sums in a batch, settled before they are read), read by the statistics
//! endpoints.
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
//! - [`rows`]: what the reads answer, and their filter;
//! - [`sql`]: the statements;
//! - [`buckets`]: the day and month sums, locked, read and written back whole;
//! - [`write`], [`read`]: the two sides;
//! - [`settle`]: first finishes added to the shared sums in batches, before they are read.

mod buckets;
#[cfg(test)]
mod lock_plans;
pub(in crate::store) mod periods;
mod rated_seats;
pub(in crate::store) mod ratings;
mod read;
mod rows;
pub(in crate::store) mod settle;
pub(in crate::store) mod sql;
mod summary;
#[cfg(test)]
mod tests;
pub(in crate::store) mod write;

use std::collections::HashMap;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::records::{GameRecord, GameResult};
use crate::store::sql_store::SqlStore;

use crate::ratings::Rating;
use crate::store::error::StoreError;
pub use rows::{
    FactTotal, GameStatsRows, HeadToHeadRow, LeaderRow, PlayerGameRow, PlayerRow, RatingPoint,
    RatingRow, ResultRecord, StatsFilter,
};

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

    /// A page of the club's players of `game` ranked by their rating as it stood before `to`
    /// (`None`: now): highest ordinal first, then by id; after `after` (an ordinal and an id).
    async fn ratings(
        &self,
        club: &str,
        game: &str,
        to: Option<DateTime<Utc>>,
        after: Option<&(f64, String)>,
        limit: i64,
    ) -> Result<Vec<RatingRow>, StoreError>;

    /// A player's rated games of `game` in play order, after the game `after` (a page).
    async fn player_ratings(
        &self,
        club: &str,
        player: &str,
        game: &str,
        after: Option<&(DateTime<Utc>, String)>,
        limit: i64,
    ) -> Result<Vec<RatingPoint>, StoreError>;

    /// What one game changed in its players' ratings, by player id (none until it finished).
    async fn game_points(
        &self,
        club: &str,
        game: &str,
        played: (DateTime<Utc>, &str),
    ) -> Result<Vec<(String, RatingPoint)>, StoreError>;

    /// These players' ratings of `game` as they stood before the game `(at, id)` was played
    /// (absent: not rated yet).
    async fn ratings_before(
        &self,
        club: &str,
        game: &str,
        before: (DateTime<Utc>, &str),
        players: &[String],
    ) -> Result<HashMap<String, Rating>, StoreError>;

    /// Rates every finished game no rating covers yet, and settles every change noted (a
    /// server's start); how many games were unrated.
    async fn rate_unrated(&self) -> Result<usize, StoreError>;

    /// Brings the club's ratings of `game` up to date with every change to its results: done
    /// before they are read, on the primary.
    async fn settle_ratings(&self, club: &str, game: &str) -> Result<(), StoreError>;

    /// Adds the club's finished games noted since the last settling to its players' sums, runs
    /// and month snapshots and to its buckets: done before they are read, on the primary.
    async fn settle_statistics(&self, club: &str) -> Result<(), StoreError>;

    /// The newest lobby change of the club whose games these statistics count (its newest, or
    /// the one before the first finish not yet added): what a statistics answer's
    /// `Read-Position` says.
    async fn counted_position(&self, club: &str) -> Result<i64, StoreError>;

    /// [`Self::settle_statistics`] for every club with noted games (the background's round);
    /// how many clubs had some.
    async fn settle_every_club(&self) -> Result<usize, StoreError>;

    /// Empties the read models (the start of a rebuild).
    async fn clear_statistics(&self) -> Result<(), StoreError>;

    /// Replaces one game's part of the read models in its own transaction (a rebuild), if the
    /// game is still at `game.version`; `false`: an append moved it on since it was read, and
    /// nothing was written (read it again).
    async fn replace_result(
        &self,
        club: &str,
        game: &GameRecord,
        result: Option<&GameResult>,
    ) -> Result<bool, StoreError>;
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

    async fn ratings(
        &self,
        club: &str,
        game: &str,
        to: Option<DateTime<Utc>>,
        after: Option<&(f64, String)>,
        limit: i64,
    ) -> Result<Vec<RatingRow>, StoreError> {
        ratings::ratings(self, club, game, to, after, limit).await
    }

    async fn player_ratings(
        &self,
        club: &str,
        player: &str,
        game: &str,
        after: Option<&(DateTime<Utc>, String)>,
        limit: i64,
    ) -> Result<Vec<RatingPoint>, StoreError> {
        ratings::player_ratings(self, club, player, game, after, limit).await
    }

    async fn game_points(
        &self,
        club: &str,
        game: &str,
        played: (DateTime<Utc>, &str),
    ) -> Result<Vec<(String, RatingPoint)>, StoreError> {
        ratings::game_points(self, club, game, played).await
    }

    async fn ratings_before(
        &self,
        club: &str,
        game: &str,
        before: (DateTime<Utc>, &str),
        players: &[String],
    ) -> Result<HashMap<String, Rating>, StoreError> {
        ratings::ratings_before(self, club, game, before, players).await
    }

    async fn rate_unrated(&self) -> Result<usize, StoreError> {
        ratings::rate_unrated(self).await
    }

    async fn settle_ratings(&self, club: &str, game: &str) -> Result<(), StoreError> {
        ratings::settle(self, club, game).await
    }

    async fn settle_statistics(&self, club: &str) -> Result<(), StoreError> {
        settle::settle(self, club).await
    }

    async fn counted_position(&self, club: &str) -> Result<i64, StoreError> {
        settle::counted_position(self, club).await
    }

    async fn settle_every_club(&self) -> Result<usize, StoreError> {
        settle::settle_every_club(self).await
    }

    async fn clear_statistics(&self) -> Result<(), StoreError> {
        write::clear_statistics(self).await
    }

    async fn replace_result(
        &self,
        club: &str,
        game: &GameRecord,
        result: Option<&GameResult>,
    ) -> Result<bool, StoreError> {
        write::replace_result(self, club, game, result).await
    }
}
