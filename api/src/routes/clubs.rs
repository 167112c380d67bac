//! `POST /v1/clubs`: a new club and its token (shown once); `GET /v1/club`: the club a token
//! opens.

use std::time::Instant;

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use chrono::Utc;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::problems::{BodyTooLarge, MalformedJson, NotJson, Unauthorized, problems};
use crate::auth::{self, Club};
use crate::error::ApiError;
use crate::extract::Json;
use crate::state::AppState;

problems! {
    ShareLink: 404, "A share link (it reads its game only)";
    InvalidName: 422, "Invalid name";
    TooManyClubs: 429, "Too many clubs created from this address (see Retry-After)";
}

const MAX_CLUB_NAME: usize = 100;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Friday games"}))]
pub struct CreateClub {
    /// 1 to 100 printable characters, one of them visible, no bidirectional control (spaces around it are trimmed).
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\x00-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]*[^\s\x00-\x1F\x7F-\x9F\u200B-\u200F\u2060-\u2064\uFEFF\u00AD\u034F\u180E\u115F\u1160\u3164\uFFA0\u202A-\u202E\u2066-\u2069][^\x00-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]*$"
    )]
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ClubCreated {
    pub id: String,
    pub name: String,
    /// The bearer token for every other call. Shown once: only its hash is stored.
    pub token: String,
}

/// Creates a club. No authentication needed; the answer holds the club's token.
#[utoipa::path(tag = "clubs", request_body = CreateClub, responses(
    (status = 201, description = "Club created", body = ClubCreated),
    MalformedJson, BodyTooLarge, NotJson, InvalidName, TooManyClubs,
))]
#[post("/v1/clubs")]
pub async fn create_club(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: Json<CreateClub>,
) -> Result<HttpResponse, ApiError> {
    if let Some(client) = crate::client::address(&req) {
        if state.store.backend() == "postgres" {
            // Several servers share one PostgreSQL: the count lives there.
            state
                .store
                .count_club_creation(&client.to_string(), Utc::now(), state.clubs_per_minute)
                .await?
                .map_err(ApiError::TooManyRequests)?;
        } else {
            state
                .club_creation
                .check(client, Instant::now())
                .map_err(ApiError::TooManyRequests)?;
        }
    }
    let name =
        tabletally_domain::setup::checked_name(&body.name, MAX_CLUB_NAME).map_err(|fault| {
            ApiError::invalid(
                "/name",
                fault.of_any_name().unwrap_or_else(|| {
                    tabletally_domain::said!("server.api.clubs.name_length", most = MAX_CLUB_NAME)
                }),
            )
        })?;
    let id = uuid::Uuid::new_v4().to_string();
    let (token, hash) = auth::new_token(&id)?;
    let club = state.store.create_club(&id, name, &hash).await?;
    tracing::info!(club = %club.id, "club created");
    Ok(HttpResponse::Created().json(ClubCreated {
        id: club.id,
        name: club.name,
        token,
    }))
}

/// The club a token opens: its id and name.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": "5f0c6a1e-3b7d-4a8e-9c2f-1d4b6e8a0c3f", "name": "Friday games"}))]
pub struct ClubView {
    pub id: String,
    pub name: String,
}

/// The club this token opens, by name: what a phone shows before it opens a link to another
/// club (any token but a share link; nothing else of the club's is in the answer).
#[utoipa::path(tag = "clubs", security(("club_token" = [])), responses(
    (status = 200, description = "The token's club", body = ClubView),
    Unauthorized, ShareLink,
))]
#[get("/v1/club")]
pub async fn get_club(state: web::Data<AppState>, club: Club) -> Result<HttpResponse, ApiError> {
    // A club whose token still holds has its row; a club that is gone answers as a wrong token.
    let record = state
        .store
        .club(&club.id)
        .await?
        .ok_or(ApiError::Unauthorized)?;
    Ok(HttpResponse::Ok().json(ClubView {
        id: record.id,
        name: record.name,
    }))
}
