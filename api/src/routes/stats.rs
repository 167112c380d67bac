//! Statistics over a club's finished games: the leaderboard, two players head to head, a
//! game's figures (abandoned games and retracted events never count: the read models hold
//! only what the replayed log says). One player's own figures are in `players`.

use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tabletally_domain::Game;
use tabletally_domain::insights::round3;
use tabletally_domain::said;
use utoipa::{IntoParams, ToSchema};

use super::filters::{VariantId, check_game, select_variant};
use super::players::{PlayerSummary, player_by_name_or_id};
use super::problems::{BadQuery, Unauthorized, problems};
use super::read_from::ReadAt;
use crate::auth::Club;
use crate::error::ApiError;
use crate::extract::Query;
use crate::state::AppState;
use crate::statistics::{self, LeaderboardEntry, LeaderboardSort};
use crate::store::StatsFilter;

problems! {
    NoSuchNamedPlayer: 404, "A player is not in this club (by that name or id)";
    UnknownGame: 404, "No such game";
    AverageNeedsGame: 422, "sort=average_score without a game";
}

const DEFAULT_PAGE: i64 = 50;
const MAX_PAGE: i64 = 200;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct LeaderboardQuery {
    /// Only this game id (needed to sort by average score).
    #[param(value_type = Option<crate::views::GameId>)]
    pub game: Option<String>,
    /// With `game`: this variant's games; without it, the game's published rules. Needs `game`,
    /// a game that has the variant (`heavily-used`: Mint Condition only; Mind Up!, Mint Julep
    /// and Vintage have none); refused with 400 otherwise. Figures never mix scoring directions.
    #[param(inline, value_type = Option<VariantId>)]
    pub variant: Option<String>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    /// Leave out players with fewer finished games (default 1).
    #[param(minimum = 0)]
    pub min_games: Option<i64>,
    /// `win_rate` (default), `wins` or `average_score` (lowest first where the lowest total wins).
    pub sort: Option<LeaderboardSort>,
    /// At most this many entries, 1–200 (default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Leaderboard {
    pub sort: LeaderboardSort,
    pub game: Option<String>,
    /// The variant counted (`heavily-used`); absent for the published rules or all games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub min_games: i64,
    pub players: Vec<LeaderboardEntry>,
}

/// Players ranked by win rate, wins or average score.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it):
/// `variant` needs `game`, a game that has that variant (400).
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(LeaderboardQuery), responses(
    (status = 200, description = "The leaderboard", body = Leaderboard),
    BadQuery, AverageNeedsGame, Unauthorized,
))]
#[get("/v1/stats/leaderboard")]
pub async fn leaderboard(
    state: web::Data<AppState>,
    club: Club,
    query: Query<LeaderboardQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    check_game(query.game.as_deref())?;
    let sort = query.sort.unwrap_or(LeaderboardSort::WinRate);
    if sort == LeaderboardSort::AverageScore && query.game.is_none() {
        return Err(ApiError::Unprocessable {
            parameter: None,
            detail: tabletally_domain::said!("server.api.stats.average_needs_game"),
            pointer: None,
            event_index: None,
        });
    }
    let limit = super::cursor::page_limit(query.limit, DEFAULT_PAGE, MAX_PAGE)?;
    let min_games = query.min_games.unwrap_or(1);
    if min_games < 0 {
        return Err(ApiError::bad_parameter(
            "min_games",
            tabletally_domain::said!("server.api.stats.min_games", got = min_games),
        ));
    }
    let filter = StatsFilter {
        variant: select_variant(query.game.as_deref(), query.variant.as_deref(), true)?,
        game: query.game.clone(),
        from: query.from,
        to: query.to,
    };
    state.store.settle_statistics(&club.id).await?;
    let reads = state.store.reads();
    let at = ReadAt::statistics(&reads, &club.id).await?;
    let rows = reads.store.leaderboard(&club.id, &filter).await?;
    let mut players = statistics::leaderboard(rows, sort, min_games, query.game.is_some());
    players.truncate(limit as usize);
    let board = Leaderboard {
        sort,
        variant: filter
            .variant
            .as_deref()
            .and_then(statistics::variant_field),
        game: query.game,
        min_games,
        players,
    };
    Ok(at.answer(&board))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct HeadToHeadQuery {
    /// Two different players of the club, comma-separated, each by name (ignoring case) or id:
    /// `Ann,Bo`. A player the club does not have is 404; the same player twice is refused with 400.
    #[param(pattern = r"^[^,\x00]*[^,\s\x00][^,\x00]*,[^,\x00]*[^,\s\x00][^,\x00]*$")]
    pub players: String,
    #[param(value_type = Option<crate::views::GameId>)]
    pub game: Option<String>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HeadToHead {
    pub players: Vec<PlayerSummary>,
    /// Finished games both played.
    pub games_together: i64,
    /// Games where the first player finished ahead (a better rank).
    pub first_ahead: i64,
    pub second_ahead: i64,
    /// Games where they shared a rank.
    pub tied: i64,
    /// Per game id and variant: games together and who was ahead.
    pub per_game: Vec<HeadToHeadGame>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HeadToHeadGame {
    pub game: String,
    /// The variant these games played (`heavily-used`), counted apart from the published rules;
    /// absent for the published rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub games_together: i64,
    pub first_ahead: i64,
    pub second_ahead: i64,
    pub tied: i64,
}

/// Two players: games together and who finished ahead how often.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it): the
/// two must be different players (400): a name and the same player's id are one player.
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(HeadToHeadQuery), responses(
    (status = 200, description = "Head-to-head", body = HeadToHead),
    BadQuery, Unauthorized, NoSuchNamedPlayer,
))]
#[get("/v1/stats/head-to-head")]
pub async fn head_to_head(
    state: web::Data<AppState>,
    club: Club,
    query: Query<HeadToHeadQuery>,
) -> Result<HttpResponse, ApiError> {
    check_game(query.game.as_deref())?;
    let given: Vec<&str> = query.players.split(',').map(str::trim).collect();
    let [a, b] = given[..] else {
        return Err(ApiError::bad_parameter(
            "players",
            tabletally_domain::said!("server.api.stats.two_players"),
        ));
    };
    let first = player_by_name_or_id(&state, &club, a).await?;
    let second = player_by_name_or_id(&state, &club, b).await?;
    if first.id == second.id {
        return Err(ApiError::bad_parameter(
            "players",
            tabletally_domain::said!(
                "server.api.stats.same_player_twice",
                first = format!("{a:?}"),
                second = format!("{b:?}"),
                name = first.name.as_str()
            ),
        ));
    }
    let (a, b) = (first.id.as_str(), second.id.as_str());
    let filter = StatsFilter {
        game: query.game.clone(),
        variant: None,
        from: query.from,
        to: query.to,
    };
    state.store.settle_statistics(&club.id).await?;
    let reads = state.store.reads();
    let at = ReadAt::statistics(&reads, &club.id).await?;
    let rows = reads.store.head_to_head(&club.id, a, b, &filter).await?;
    let mut per_game: Vec<HeadToHeadGame> = Vec::new();
    for row in &rows {
        let variant = statistics::variant_field(&row.variant);
        let entry = match per_game
            .iter_mut()
            .position(|g| g.game == row.game && g.variant == variant)
        {
            Some(i) => &mut per_game[i],
            None => {
                per_game.push(HeadToHeadGame {
                    game: row.game.clone(),
                    variant,
                    games_together: 0,
                    first_ahead: 0,
                    second_ahead: 0,
                    tied: 0,
                });
                per_game.last_mut().expect("just pushed")
            }
        };
        entry.games_together += 1;
        match row.rank_a.cmp(&row.rank_b) {
            std::cmp::Ordering::Less => entry.first_ahead += 1,
            std::cmp::Ordering::Greater => entry.second_ahead += 1,
            std::cmp::Ordering::Equal => entry.tied += 1,
        }
    }
    per_game.sort_by(|x, y| (&x.game, &x.variant).cmp(&(&y.game, &y.variant)));
    let together = HeadToHead {
        players: vec![first.into(), second.into()],
        games_together: rows.len() as i64,
        first_ahead: per_game.iter().map(|g| g.first_ahead).sum(),
        second_ahead: per_game.iter().map(|g| g.second_ahead).sum(),
        tied: per_game.iter().map(|g| g.tied).sum(),
        per_game,
    };
    Ok(at.answer(&together))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct GameStatsQuery {
    /// This variant's games; without it, the published rules. Only a game that has the variant
    /// takes it (`heavily-used`: Mint Condition only; Mind Up!, Mint Julep and Vintage have
    /// none); refused with 400 otherwise.
    #[param(inline, value_type = Option<VariantId>)]
    pub variant: Option<String>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RecordScore {
    /// The variant the record was set in (`heavily-used`); absent for the published rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub total: i64,
    pub player: String,
    pub game_id: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GameStats {
    pub game: String,
    /// The variant counted (`heavily-used`); absent for the published rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// Finished games.
    pub plays: i64,
    /// Average total per player and game; null when no game counts (nothing to average).
    pub average_score: Option<f64>,
    /// True when the lowest total wins these games (as their scoreboards said).
    pub lower_is_better: bool,
    /// The best total ever (the lowest where the lowest wins).
    pub record_best: Option<RecordScore>,
    pub record_worst: Option<RecordScore>,
    /// Rule-aware insights, per game: Mint Condition damage per card kind and how often Be
    /// Careful! decided a game; Mind Up! points per column value and objective hit rates; Mint
    /// Julep win rate per horse bet and the cost of late bets; Vintage prizes and average value.
    #[schema(value_type = Object)]
    pub insights: Value,
}

/// A game's statistics over the club's finished plays.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it):
/// `variant` only for a game that has that variant (400).
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(("game" = crate::views::GameId, Path, description = "Game id, e.g. mint-condition"), GameStatsQuery), responses(
    (status = 200, description = "The game's statistics", body = GameStats),
    BadQuery, Unauthorized, UnknownGame,
))]
#[get("/v1/stats/games/{game}")]
pub async fn game_stats(
    state: web::Data<AppState>,
    club: Club,
    game: web::Path<String>,
    query: Query<GameStatsQuery>,
) -> Result<HttpResponse, ApiError> {
    let game = game.into_inner();
    let Some(kind) = Game::from_id(&game) else {
        return Err(ApiError::NotFound(said!(
            "server.problem.unknown_game",
            game = format!("{game:?}"),
            games = tabletally_domain::games::known_ids()
        )));
    };
    let variant = select_variant(Some(&game), query.variant.as_deref(), true)?;
    let filter = StatsFilter {
        game: Some(game.clone()),
        variant: variant.clone(),
        from: query.from,
        to: query.to,
    };
    state.store.settle_statistics(&club.id).await?;
    let reads = state.store.reads();
    let at = ReadAt::statistics(&reads, &club.id).await?;
    let rows = reads.store.game_stats(&club.id, &game, &filter).await?;
    let variant = variant.as_deref().and_then(statistics::variant_field);
    // The direction the games' scoreboards recorded; with no finished game, the variant's own.
    let lower = rows
        .lower_wins
        .unwrap_or_else(|| kind.lower_wins(variant.as_deref().and_then(|v| kind.variant_by_id(v))));
    let record = |r: &Option<(i64, String, String)>| {
        r.as_ref().map(|(total, player, game_id)| RecordScore {
            variant: variant.clone(),
            total: *total,
            player: player.clone(),
            game_id: game_id.clone(),
        })
    };
    let (best, worst) = if lower {
        (record(&rows.lowest), record(&rows.highest))
    } else {
        (record(&rows.highest), record(&rows.lowest))
    };
    let stats = GameStats {
        insights: statistics::game_insights(kind, &rows),
        average_score: (rows.results > 0)
            .then(|| round3(rows.total_sum as f64 / rows.results as f64)),
        game,
        variant,
        plays: rows.plays,
        lower_is_better: lower,
        record_best: best,
        record_worst: worst,
    };
    Ok(at.answer(&stats))
}
