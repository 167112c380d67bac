//! A club's players: the list, one player, their statistics and their games (reads a standby
//! may serve), and the changes: rename one, or merge two into one (a typo that became a second
//! player). Games keep the names their events were written with; statistics follow the player.

use actix_web::{HttpResponse, get, patch, post, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tabletally_domain::said;
use tabletally_domain::setup::PlayerName;
use utoipa::{IntoParams, ToSchema};

use super::cursor;
use super::filters::{VariantId, check_game, select_variant};
use super::problems::{BadQuery, IdNotUuid, ReadOnlyToken, Unauthorized, problems};
use super::read_from::ReadAt;
use crate::auth::Club;
use crate::error::ApiError;
use crate::extract::{Json, Query};
use crate::state::AppState;
use crate::statistics::{self, PlayerStats};
use crate::store::{Merge, PlayerRow, Rename, StatsFilter};

problems! {
    IdNotUuidOrMalformedJson: 400, "The id is not a UUID, or malformed JSON";
    NoSuchPlayer: 404, "No such player in this club";
    NoSuchPlayerOrInto: 404, "No such player in this club: the player in the path, or `into`";
    NameTaken: 409, "Another player of the club has this name";
    SatTogether: 409, "Both players sat at the same game";
    InvalidName: 422, "The name is empty, too long or not printable";
    MergeIntoSelf: 422, "`into` is the player in the path (a player cannot be merged into themselves)";
}

const DEFAULT_PAGE: i64 = 50;
const MAX_PAGE: i64 = 200;

fn not_found() -> ApiError {
    ApiError::NotFound(tabletally_domain::said!(
        "server.api.players.no_such_player"
    ))
}

/// The club's player with this id, or 404.
async fn club_player(state: &AppState, club: &Club, id: &str) -> Result<PlayerRow, ApiError> {
    state.store.settle_statistics(&club.id).await?;
    state
        .store
        .player(&club.id, id)
        .await?
        .ok_or_else(not_found)
}

/// The club's player with this id as the answer: a read's, a rename's or a merge's.
async fn player_answer(state: &AppState, club: &Club, id: &str) -> Result<HttpResponse, ApiError> {
    let player = club_player(state, club, id).await?;
    Ok(HttpResponse::Ok().json(PlayerSummary::from(player)))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerSummary {
    pub id: String,
    pub name: String,
    /// Finished games played.
    pub games_played: i64,
    pub last_played: Option<DateTime<Utc>>,
}

impl From<PlayerRow> for PlayerSummary {
    fn from(p: PlayerRow) -> Self {
        Self {
            id: p.id,
            name: p.name,
            games_played: p.games_played,
            last_played: p.last_played,
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PlayersQuery {
    /// Part of a name, ignoring case.
    #[param(pattern = r"^[^\x00]*$")]
    pub search: Option<String>,
    /// Page size, 1–200 (default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page, exactly as given: opaque hexadecimal text. Any
    /// other text is refused with 400, and so is hexadecimal text this server did not give out
    /// (no schema can tell the two apart).
    #[param(pattern = r"^([0-9a-fA-F]{2})*$", max_length = 1024)]
    pub cursor: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerPage {
    /// By name.
    pub players: Vec<PlayerSummary>,
    pub next_cursor: Option<String>,
}

/// The club's players by name, with the number of finished games each played.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it): a
/// `cursor` must decode to a name (hexadecimal UTF-8, as `next_cursor` is); other text is 400.
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(PlayersQuery), responses(
    (status = 200, description = "A page of players", body = PlayerPage),
    BadQuery, Unauthorized,
))]
#[get("/v1/players")]
pub async fn list_players(
    state: web::Data<AppState>,
    club: Club,
    query: Query<PlayersQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = cursor::page_limit(query.limit, DEFAULT_PAGE, MAX_PAGE)?;
    if query.search.as_deref().is_some_and(|v| v.contains('\0')) {
        return Err(ApiError::bad_parameter(
            "search",
            tabletally_domain::said!("server.api.query.nul", parameter = "\"search\""),
        ));
    }
    let after = query
        .cursor
        .as_deref()
        .map(cursor::decode_name)
        .transpose()?;
    state.store.settle_statistics(&club.id).await?;
    let reads = state.store.reads();
    let at = ReadAt::statistics(&reads, &club.id).await?;
    let mut players = reads
        .store
        .list_players(
            &club.id,
            query.search.as_deref(),
            after.as_deref(),
            limit + 1,
        )
        .await?;
    let next_cursor = if players.len() as i64 > limit {
        players.truncate(limit as usize);
        players.last().map(|p| cursor::encode_name(&p.name))
    } else {
        None
    };
    let page = PlayerPage {
        players: players.into_iter().map(PlayerSummary::from).collect(),
        next_cursor,
    };
    Ok(at.answer(&page))
}

/// One club player.
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "Player id")), responses(
    (status = 200, description = "The player", body = PlayerSummary),
    IdNotUuid, Unauthorized, NoSuchPlayer,
))]
#[get("/v1/players/{id}")]
pub async fn get_player(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
) -> Result<HttpResponse, ApiError> {
    player_answer(&state, &club, &id.into_inner().to_string()).await
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct StatsQuery {
    /// Only this game id.
    #[param(value_type = Option<crate::views::GameId>)]
    pub game: Option<String>,
    /// Only this variant of the game; needs `game`, a game that has the variant
    /// (`heavily-used`: Mint Condition only; Mind Up!, Mint Julep and Vintage have none).
    /// Refused with 400 otherwise.
    #[param(inline, value_type = Option<VariantId>)]
    pub variant: Option<String>,
    /// Games played at or after this time.
    pub from: Option<DateTime<Utc>>,
    /// Games played before this time.
    pub to: Option<DateTime<Utc>>,
}

impl StatsQuery {
    fn filter(&self) -> Result<StatsFilter, ApiError> {
        check_game(self.game.as_deref())?;
        Ok(StatsFilter {
            variant: select_variant(self.game.as_deref(), self.variant.as_deref(), false)?,
            game: self.game.clone(),
            from: self.from,
            to: self.to,
        })
    }
}

/// A player's statistics: wins, win rate, scores per game, ranks and streaks.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it):
/// `variant` needs `game`, a game that has that variant (400).
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "Player id"), StatsQuery), responses(
    (status = 200, description = "The player's statistics", body = PlayerStats),
    BadQuery, Unauthorized, NoSuchPlayer,
))]
#[get("/v1/players/{id}/stats")]
pub async fn player_stats(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
    query: Query<StatsQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    let filter = query.filter()?;
    let player = club_player(&state, &club, &id).await?;
    let reads = state.store.reads();
    let at = ReadAt::statistics(&reads, &club.id).await?;
    let results = reads
        .store
        .results_of_player(&club.id, &id, &filter)
        .await?;
    let stats = statistics::player_stats(&player.id, &player.name, &results);
    Ok(at.answer(&stats))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PlayerGamesQuery {
    /// Page size, 1–200 (default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page, exactly as given: opaque hexadecimal text. Any
    /// other text is refused with 400, and so is hexadecimal text this server did not give out
    /// (no schema can tell the two apart).
    #[param(pattern = r"^([0-9a-fA-F]{2})*$", max_length = 1024)]
    pub cursor: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerGame {
    pub game_id: String,
    pub game: String,
    /// The variant the game plays, whose figures its result counts in (`heavily-used`: the
    /// highest Mint Condition total wins); absent for the published rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub status: String,
    pub started_at: DateTime<Utc>,
    pub seat: i64,
    /// The name the player had at that table.
    pub name: String,
    /// The player's result once the game is finished.
    pub total: Option<i64>,
    pub rank: Option<i64>,
    pub won: Option<bool>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerGamePage {
    /// Newest first.
    pub games: Vec<PlayerGame>,
    pub next_cursor: Option<String>,
}

/// The player's games, newest first, with their result when finished.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it): a
/// `cursor` must be a `next_cursor` this server gave out; other hexadecimal text is 400.
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "Player id"), PlayerGamesQuery), responses(
    (status = 200, description = "A page of the player's games", body = PlayerGamePage),
    BadQuery, Unauthorized, NoSuchPlayer,
))]
#[get("/v1/players/{id}/games")]
pub async fn player_games(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
    query: Query<PlayerGamesQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    let limit = cursor::page_limit(query.limit, DEFAULT_PAGE, MAX_PAGE)?;
    let after = query
        .cursor
        .as_deref()
        .map(cursor::decode_game)
        .transpose()?;
    club_player(&state, &club, &id).await?;
    let reads = state.store.reads();
    let at = ReadAt::history(&reads, &club.id).await?;
    let mut rows = reads
        .store
        .player_games(&club.id, &id, after.as_ref(), limit + 1)
        .await?;
    let next_cursor = if rows.len() as i64 > limit {
        rows.truncate(limit as usize);
        rows.last()
            .map(|g| cursor::encode_game(g.started_at, &g.game_id))
    } else {
        None
    };
    let games = rows
        .into_iter()
        .map(|g| PlayerGame {
            variant: crate::records::variant_of(&g.game, &g.options),
            game_id: g.game_id,
            game: g.game,
            status: g.status,
            started_at: g.started_at,
            seat: g.seat,
            name: g.name,
            total: g.total,
            rank: g.rank,
            won: g.won,
        })
        .collect();
    Ok(at.answer(&PlayerGamePage { games, next_cursor }))
}

/// A club player by id, or by name under the one name rule (ignoring case).
pub(super) async fn player_by_name_or_id(
    state: &AppState,
    club: &Club,
    given: &str,
) -> Result<PlayerRow, ApiError> {
    if given.is_empty() || given.contains('\0') {
        return Err(ApiError::bad_parameter(
            "players",
            tabletally_domain::said!("server.api.stats.two_players"),
        ));
    }
    match uuid::Uuid::parse_str(given) {
        Ok(id) => club_player(state, club, &id.to_string()).await,
        Err(_) => {
            state.store.settle_statistics(&club.id).await?;
            state
                .store
                .player_named(&club.id, given)
                .await?
                .ok_or_else(|| {
                    ApiError::NotFound(said!(
                        "server.problem.no_player_called",
                        name = format!("{given:?}")
                    ))
                })
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Ann"}))]
pub struct RenamePlayer {
    /// The new name: 1–40 printable characters. Names match ignoring case and surrounding
    /// spaces, so it must differ, in that sense, from every other player's of the club.
    #[schema(
        min_length = 1,
        max_length = 40,
        pattern = r"^[^\x00-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]*[^\s\x00-\x1F\x7F-\x9F\u200B-\u200F\u2060-\u2064\uFEFF\u00AD\u034F\u180E\u115F\u1160\u3164\uFFA0\u202A-\u202E\u2066-\u2069][^\x00-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]*$"
    )]
    pub name: String,
}

/// Renames a player. Their games keep the names their events were written with; new games
/// find the player by the new name.
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "Player id")), request_body(content = RenamePlayer, example = json!({"name": "Ann"})), responses(
    (status = 200, description = "The renamed player", body = PlayerSummary),
    IdNotUuidOrMalformedJson, Unauthorized, ReadOnlyToken, NoSuchPlayer, NameTaken, InvalidName,
))]
#[patch("/v1/players/{id}")]
pub async fn rename_player(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
    body: Json<RenamePlayer>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    let name = PlayerName::parse(&body.name)
        .map_err(|fault| ApiError::invalid("/name", fault.player()))?;
    match state
        .store
        .rename_player(&club.id, &id, name.as_str())
        .await?
    {
        Rename::Renamed => {}
        Rename::NotFound => return Err(not_found()),
        Rename::NameTaken {
            id: other,
            name: taken,
        } => {
            return Err(ApiError::NameTaken {
                detail: said!(
                    "server.problem.player_name_taken",
                    name = format!("{taken:?}")
                ),
                player_id: Some(other),
                preset_id: None,
            });
        }
    }
    tracing::info!(player = %id, "player renamed");
    player_answer(&state, &club, &id).await
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"into": "0b8e6f52-3c1d-4e7a-9b20-5f6a7c8d9e01"}))]
pub struct MergePlayer {
    /// The id of the club player who stays; the player in the path is folded into them.
    #[schema(format = Uuid)]
    pub into: String,
}

/// Folds a player into another (a name typo that became a player of its own): every seat of
/// the player in the path moves to `into`, their statistics are added up, and the player in
/// the path is gone. Games keep the names their events were written with. Two players who
/// sat at the same game are not merged (a game cannot seat one player twice): 409 names it.
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "The player to fold into the other")), request_body(content = MergePlayer, example = json!({"into": "0b8e6f52-3c1d-4e7a-9b20-5f6a7c8d9e01"})), responses(
    (status = 200, description = "The player merged into, with the statistics of both", body = PlayerSummary),
    IdNotUuidOrMalformedJson, Unauthorized, ReadOnlyToken, NoSuchPlayerOrInto, SatTogether, MergeIntoSelf,
))]
#[post("/v1/players/{id}/merge")]
pub async fn merge_player(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
    body: Json<MergePlayer>,
) -> Result<HttpResponse, ApiError> {
    let from = id.into_inner().to_string();
    let into = uuid::Uuid::parse_str(body.into.trim())
        .map_err(|_| {
            ApiError::invalid(
                "/into",
                tabletally_domain::said!(
                    "server.api.players.into_not_uuid",
                    got = format!("{:?}", body.into)
                ),
            )
        })?
        .to_string();
    if into == from {
        return Err(ApiError::invalid(
            "/into",
            tabletally_domain::said!("server.api.players.merge_into_self"),
        ));
    }
    match state.store.merge_players(&club.id, &from, &into).await? {
        // A merge sent again after its answer was lost is answered as the first one was.
        Merge::Merged => tracing::info!(player = %from, into = %into, "player merged"),
        Merge::AlreadyMerged => {}
        Merge::NotFound => return Err(not_found()),
        // As for the path's own id: another club's player is no player of this club.
        Merge::IntoNotFound => {
            return Err(ApiError::NotFound(tabletally_domain::said!(
                "server.api.players.no_such_into",
                into = into
            )));
        }
        Merge::SatTogether(games) => {
            let detail = match games.len() {
                1 => tabletally_domain::said!("server.api.players.sat_together_once"),
                n => tabletally_domain::said!("server.api.players.sat_together", games = n),
            };
            return Err(ApiError::SatTogether {
                detail,
                game_ids: games,
            });
        }
    }
    player_answer(&state, &club, &into).await
}
