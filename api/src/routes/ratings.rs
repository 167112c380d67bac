//! Skill ratings (`docs/ratings.md`): the club's players of one game ranked by their rating, a
//! player's rating game by game, and what a game's players could expect before it and got after.

use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tabletally_domain::said;
use utoipa::{IntoParams, ToSchema};

use super::cursor;
use super::filters::check_game;
use super::problems::{BadQuery, IdNotUuid, NoSuchGame, Unauthorized, problems};
use super::read_from::ReadAt;
use crate::auth::Club;
use crate::error::ApiError;
use crate::extract::Query;
use crate::ratings::{Rating, win_chances};
use crate::state::AppState;
use crate::store::RatingPoint;

problems! {
    NoSuchRatedPlayer: 404, "No such player in this club";
}

const DEFAULT_PAGE: i64 = 50;
const MAX_PAGE: i64 = 200;

/// The game a ratings query names: one of ours.
fn rated_game(game: &str) -> Result<&str, ApiError> {
    check_game(Some(game))?;
    Ok(game)
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct RatingsQuery {
    /// The game rated (each game has its own ratings).
    #[param(value_type = crate::views::GameId)]
    pub game: String,
    /// The ratings as they stood before this instant (games started before it); absent: now.
    pub to: Option<DateTime<Utc>>,
    /// Page size, 1–200 (default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page, exactly as given: opaque hexadecimal text.
    #[param(pattern = r"^([0-9a-fA-F]{2})*$", max_length = 1024)]
    pub cursor: Option<String>,
}

/// A player's rating: `mu` − 3·`sigma` is the `ordinal` shown and ranked by.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[schema(example = json!({"mu": 27.31, "sigma": 5.02, "ordinal": 12.25}))]
pub struct RatingValue {
    /// The mean of the player's skill as the games so far show it (a new player's: 25).
    pub mu: f64,
    /// How uncertain it still is (a new player's: 25/3; it shrinks game by game).
    pub sigma: f64,
    /// `mu` − 3·`sigma`: a rating the player is very likely above (a new player's: 0).
    pub ordinal: f64,
}

impl From<Rating> for RatingValue {
    fn from(rating: Rating) -> Self {
        RatingValue {
            mu: rating.mu,
            sigma: rating.sigma,
            ordinal: rating.ordinal(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerRating {
    pub player_id: String,
    pub name: String,
    pub mu: f64,
    pub sigma: f64,
    /// `mu` − 3·`sigma`.
    pub ordinal: f64,
    /// Rated games of this game so far.
    pub games: i64,
    /// When the last of them started.
    pub last_played_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Ratings {
    pub game: String,
    /// Highest `ordinal` first (then by player id).
    pub ratings: Vec<PlayerRating>,
    pub next_cursor: Option<String>,
}

/// The club's players of one game, ranked by their rating.
///
/// Every finished game counts, in the order the games were played, whoever recorded them and
/// however they came (imports too); abandoned games do not. A correction or a retraction of an
/// earlier game changes the ratings after it as if it had always been so.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400 names it): a `cursor`
/// must be a `next_cursor` this server gave out.
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(RatingsQuery), responses(
    (status = 200, description = "The club's ratings of one game", body = Ratings),
    BadQuery, Unauthorized,
))]
#[get("/v1/stats/ratings")]
pub async fn ratings(
    state: web::Data<AppState>,
    club: Club,
    query: Query<RatingsQuery>,
) -> Result<HttpResponse, ApiError> {
    let game = rated_game(&query.game)?.to_owned();
    let limit = cursor::page_limit(query.limit, DEFAULT_PAGE, MAX_PAGE)?;
    let after = query
        .cursor
        .as_deref()
        .map(cursor::decode_rating)
        .transpose()?;
    state.store.settle_ratings(&club.id, &game).await?;
    let reads = state.store.reads();
    let at = ReadAt::history(&reads, &club.id).await?;
    let mut rows = reads
        .store
        .ratings(&club.id, &game, query.to, after.as_ref(), limit + 1)
        .await?;
    let next_cursor = (rows.len() as i64 > limit).then(|| {
        let last = &rows[limit as usize - 1];
        cursor::encode_rating(last.rating.ordinal(), &last.player_id)
    });
    rows.truncate(limit as usize);
    let ratings = rows
        .into_iter()
        .map(|r| PlayerRating {
            player_id: r.player_id,
            name: r.name,
            mu: r.rating.mu,
            sigma: r.rating.sigma,
            ordinal: r.rating.ordinal(),
            games: r.games,
            last_played_at: r.last_played_at,
        })
        .collect();
    let answer = Ratings {
        game,
        ratings,
        next_cursor,
    };
    Ok(at.answer(&answer))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PlayerRatingsQuery {
    /// The game rated.
    #[param(value_type = crate::views::GameId)]
    pub game: String,
    /// Page size, 1–200 (default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page, exactly as given: opaque hexadecimal text.
    #[param(pattern = r"^([0-9a-fA-F]{2})*$", max_length = 1024)]
    pub cursor: Option<String>,
}

/// One rated game of a player: where their rating went.
#[derive(Debug, Serialize, ToSchema)]
pub struct RatingStep {
    pub game_id: String,
    pub played_at: DateTime<Utc>,
    /// The player's final rank at that game (tied players share one).
    pub rank: i64,
    pub mu: f64,
    pub sigma: f64,
    /// `mu` − 3·`sigma` after the game.
    pub ordinal: f64,
    /// The rating before the game.
    pub before: RatingValue,
}

impl From<RatingPoint> for RatingStep {
    fn from(point: RatingPoint) -> Self {
        RatingStep {
            game_id: point.game_id,
            played_at: point.played_at,
            rank: point.rank,
            mu: point.after.mu,
            sigma: point.after.sigma,
            ordinal: point.after.ordinal(),
            before: point.before.into(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerRatingHistory {
    pub player_id: String,
    pub game: String,
    /// In the order the games were played, oldest first.
    pub points: Vec<RatingStep>,
    pub next_cursor: Option<String>,
}

/// A player's rating of one game, game by game.
///
/// Beyond the schema (400 names it): a `cursor` must be a `next_cursor` this server gave out.
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "Player id"), PlayerRatingsQuery), responses(
    (status = 200, description = "A page of the player's rated games", body = PlayerRatingHistory),
    BadQuery, IdNotUuid, Unauthorized, NoSuchRatedPlayer,
))]
#[get("/v1/players/{id}/ratings")]
pub async fn player_ratings(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
    query: Query<PlayerRatingsQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    let game = rated_game(&query.game)?.to_owned();
    let limit = cursor::page_limit(query.limit, DEFAULT_PAGE, MAX_PAGE)?;
    let after = query
        .cursor
        .as_deref()
        .map(cursor::decode_game)
        .transpose()?;
    state.store.settle_statistics(&club.id).await?;
    state
        .store
        .player(&club.id, &id)
        .await?
        .ok_or_else(|| ApiError::NotFound(said!("server.api.players.no_such_player")))?;
    state.store.settle_ratings(&club.id, &game).await?;
    let reads = state.store.reads();
    let at = ReadAt::history(&reads, &club.id).await?;
    let mut rows = reads
        .store
        .player_ratings(&club.id, &id, &game, after.as_ref(), limit + 1)
        .await?;
    let next_cursor = if rows.len() as i64 > limit {
        rows.truncate(limit as usize);
        rows.last()
            .map(|p| cursor::encode_game(p.played_at, &p.game_id))
    } else {
        None
    };
    let answer = PlayerRatingHistory {
        player_id: id,
        game,
        points: rows.into_iter().map(RatingStep::from).collect(),
        next_cursor,
    };
    Ok(at.answer(&answer))
}

/// A seated player: their chance to win as the game starts, and their rating before and (once
/// the game is finished) after it.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeatRating {
    pub seat: i64,
    pub name: String,
    pub player_id: String,
    /// The chance to win the game, from the ratings before it (0–1; the table's sum to 1).
    pub chance: f64,
    /// The rating before the game (a player new to the game: `mu` 25, `sigma` 25/3).
    pub before: RatingValue,
    /// The rating after the game; absent until it is finished (and for an abandoned game).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<RatingValue>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GameRatings {
    pub game_id: String,
    pub game: String,
    /// In seat order.
    pub players: Vec<SeatRating>,
    /// The seat with the best chance (the earliest seat on a tie): the table's favourite.
    pub favourite: i64,
}

/// A game's players' ratings: each one's chance to win before the first round, and their rating
/// before and after the game.
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "Game id")), responses(
    (status = 200, description = "The game's players' chances and ratings", body = GameRatings),
    IdNotUuid, Unauthorized, NoSuchGame,
))]
#[get("/v1/games/{id}/ratings")]
pub async fn game_ratings(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    let game = state
        .store
        .game(&club.id, &id)
        .await?
        .ok_or_else(|| ApiError::NotFound(said!("server.problem.no_such_game")))?;
    let players: Vec<String> = game.players.iter().map(|s| s.player_id.clone()).collect();
    state.store.settle_ratings(&club.id, &game.game).await?;
    let reads = state.store.reads();
    let at = ReadAt::history(&reads, &club.id).await?;
    let before = reads
        .store
        .ratings_before(&club.id, &game.game, (game.started_at, &game.id), &players)
        .await?;
    let points = reads
        .store
        .game_points(&club.id, &game.game, (game.started_at, &game.id))
        .await?;
    let table: Vec<Rating> = players
        .iter()
        .map(|p| before.get(p).copied().unwrap_or(Rating::NEW))
        .collect();
    let chances = win_chances(&table);
    let favourite = chances
        .iter()
        .enumerate()
        .fold(0, |best, (i, c)| if *c > chances[best] { i } else { best });
    let answer = GameRatings {
        favourite: game.players.get(favourite).map_or(1, |s| s.seat),
        players: game
            .players
            .iter()
            .zip(table)
            .zip(chances)
            .map(|((seat, before), chance)| SeatRating {
                seat: seat.seat,
                name: seat.name.clone(),
                player_id: seat.player_id.clone(),
                chance,
                before: before.into(),
                after: points
                    .iter()
                    .find(|(player, _)| *player == seat.player_id)
                    .map(|(_, point)| point.after.into()),
            })
            .collect(),
        game_id: game.id,
        game: game.game,
    };
    Ok(at.answer(&answer))
}
