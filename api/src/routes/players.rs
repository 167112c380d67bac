//! Changing a club's players: rename one, or merge two into one (a typo that became a second
//! player). Games keep the names their events were written with; statistics follow the player.

use actix_web::{HttpResponse, patch, post, web};
use serde::Deserialize;
use tabletally_domain::said;
use tabletally_domain::setup::PlayerName;
use utoipa::ToSchema;

use super::stats::PlayerSummary;
use crate::auth::Club;
use crate::error::{ApiError, Problem};
use crate::extract::Json;
use crate::state::AppState;
use crate::store::{Merge, Rename};

fn not_found() -> ApiError {
    ApiError::NotFound(tabletally_domain::said!(
        "server.api.players.no_such_player"
    ))
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
    (status = 400, description = "The id is not a UUID, or malformed JSON", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "Missing or wrong token", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "A token with scope read: it may read but not change anything", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "No such player in this club", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "Another player of the club has this name", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "The name is empty, too long or not printable", body = Problem, content_type = "application/problem+json"),
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
    let player = state
        .store
        .player(&club.id, &id)
        .await?
        .ok_or_else(not_found)?;
    Ok(HttpResponse::Ok().json(PlayerSummary::from(player)))
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
    (status = 400, description = "The id is not a UUID, or malformed JSON", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "Missing or wrong token", body = Problem, content_type = "application/problem+json"),
    (status = 403, description = "A token with scope read: it may read but not change anything", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "No such player in this club: the player in the path, or `into`", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "Both players sat at the same game", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`into` is the player in the path (a player cannot be merged into themselves)", body = Problem, content_type = "application/problem+json"),
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
    let player = state
        .store
        .player(&club.id, &into)
        .await?
        .ok_or_else(not_found)?;
    Ok(HttpResponse::Ok().json(PlayerSummary::from(player)))
}
