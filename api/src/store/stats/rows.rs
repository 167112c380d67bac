//! What the statistics' reads answer, and the filter they share.

use chrono::{DateTime, Utc};

use crate::ratings::Rating;

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
    pub(super) fn has_dates(&self) -> bool {
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

/// A club player's rating of one game, as it stood at a date.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingRow {
    pub player_id: String,
    pub name: String,
    pub rating: Rating,
    /// Rated games of this game so far.
    pub games: i64,
    pub last_played_at: DateTime<Utc>,
}

/// One rated game of a player: the game, its rank there, the rating before and after.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingPoint {
    pub game_id: String,
    pub played_at: DateTime<Utc>,
    pub rank: i64,
    pub before: Rating,
    pub after: Rating,
}
