//! Access: the club's tokens with scopes (`POST/GET/DELETE /v1/tokens`, admin only), a new
//! first token for the club (`POST /v1/club/token`, admin only) and a game's share links
//! (`POST /v1/games/{id}/shares`, `DELETE …/shares/{share_id}`).

use actix_web::{HttpResponse, delete, get, post, web};
use chrono::{DateTime, Duration, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use tabletally_domain::said;
use utoipa::ToSchema;

use super::problems::{IdNotUuid, MalformedJson, NoSuchGame, Unauthorized, problems};
use crate::auth::{self, Admin, Club};
use crate::error::ApiError;
use crate::extract::Json;
use crate::state::AppState;
use crate::store::{AccessTokenRecord, first_token_revocation};

problems! {
    AnIdNotUuid: 400, "An id is not a UUID";
    AdminOnly: 403, "The token does not have scope admin";
    ReadToken: 403, "A read token";
    NoSuchShare: 404, "No such share link of this game in this club";
    NoSuchToken: 404, "No such token in this club";
    BadExpiry: 422, "expires_in_hours outside 1..720";
    BadNameOrScope: 422, "A bad name or scope";
}

const MAX_TOKEN_NAME: usize = 100;
/// A share link lives at most 30 days: long enough for a league night's recap, short enough
/// that a forgotten link stops working.
const MAX_SHARE_HOURS: i64 = 30 * 24;
const DEFAULT_SHARE_HOURS: i64 = 24;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Ann's phone", "scope": "write"}))]
pub struct CreateToken {
    /// Who or what holds it, e.g. "Ann's phone": 1 to 100 printable characters (spaces around
    /// it are trimmed). Not `club token` (any case), the name the log gives the club's own token.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\x00-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]*[^\s\x00-\x1F\x7F-\x9F\u200B-\u200F\u2060-\u2064\uFEFF\u00AD\u034F\u180E\u115F\u1160\u3164\uFFA0\u202A-\u202E\u2066-\u2069][^\x00-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]*$"
    )]
    pub name: String,
    // What it may do: the values and their meaning are `TokenScope`'s (a description here would
    // wrap the values in an `allOf` with an object, which no scope is).
    #[schema(inline, value_type = TokenScope)]
    pub scope: String,
}

/// What the token may do: `admin` (everything, managing tokens included: a second organiser,
/// revocable unlike the club's first token), `write` (everything but managing tokens) or `read`
/// (every GET).
#[derive(ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)] // a name for the document only: the handler reads the scope as text
pub enum TokenScope {
    Admin,
    Write,
    Read,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TokenCreated {
    pub id: String,
    pub name: String,
    pub scope: String,
    /// The bearer token. Shown once: only its hash is stored.
    pub token: String,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TokenView {
    pub id: String,
    pub name: String,
    pub scope: String,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TokenList {
    /// The tokens the club issued, oldest first (its first token, from `POST /v1/clubs`, is
    /// not listed).
    pub tokens: Vec<TokenView>,
}

/// Issues a token with scope `admin`, `write` or `read` (admin only).
#[utoipa::path(tag = "access", security(("club_token" = [])), request_body(content = CreateToken, example = json!({"name": "Ann's phone", "scope": "write"})), responses(
    (status = 201, description = "Token created; the secret is shown once", body = TokenCreated),
    MalformedJson, Unauthorized, AdminOnly, BadNameOrScope,
))]
#[post("/v1/tokens")]
pub async fn create_token(
    state: web::Data<AppState>,
    admin: Admin,
    body: Json<CreateToken>,
) -> Result<HttpResponse, ApiError> {
    let name = checked_name(&body.name)?;
    if !matches!(body.scope.as_str(), "admin" | "write" | "read") {
        return Err(ApiError::invalid(
            "/scope",
            tabletally_domain::said!(
                "server.api.access.scope_unknown",
                got = format!("{:?}", body.scope)
            ),
        ));
    }
    let id = uuid::Uuid::new_v4().to_string();
    let (token, secret_hash) = auth::new_issued_token(&id, false)?;
    let record = AccessTokenRecord {
        id: id.clone(),
        club_id: admin.0.id,
        name: name.to_owned(),
        scope: body.scope.clone(),
        game_id: None,
        secret_hash,
        created_at: Utc::now().trunc_subsecs(6),
        expires_at: None,
    };
    state.store.create_access_token(&record).await?;
    tracing::info!(club = %record.club_id, token = %id, scope = %record.scope, "token issued");
    Ok(HttpResponse::Created().json(TokenCreated {
        id,
        name: record.name,
        scope: record.scope,
        token,
        created_at: record.created_at,
    }))
}

fn checked_name(raw: &str) -> Result<&str, ApiError> {
    let name = tabletally_domain::setup::checked_name(raw, MAX_TOKEN_NAME).map_err(|fault| {
        ApiError::invalid(
            "/name",
            fault.of_any_name().unwrap_or_else(|| {
                tabletally_domain::said!(
                    "server.api.access.token_name_length",
                    most = MAX_TOKEN_NAME
                )
            }),
        )
    })?;
    // Events name the token that recorded them: the club's own token's name stays its own.
    if name.eq_ignore_ascii_case(auth::CLUB_TOKEN_NAME) {
        return Err(ApiError::invalid(
            "/name",
            tabletally_domain::said!(
                "server.api.access.token_name_is_the_clubs",
                name = format!("{:?}", auth::CLUB_TOKEN_NAME)
            ),
        ));
    }
    Ok(name)
}

/// The tokens the club issued, never their secrets (admin only).
#[utoipa::path(tag = "access", security(("club_token" = [])), responses(
    (status = 200, description = "The club's tokens", body = TokenList),
    Unauthorized, AdminOnly,
))]
#[get("/v1/tokens")]
pub async fn list_tokens(
    state: web::Data<AppState>,
    admin: Admin,
) -> Result<HttpResponse, ApiError> {
    let tokens = state
        .store
        .access_tokens(&admin.0.id)
        .await?
        .into_iter()
        .map(|t| TokenView {
            id: t.id,
            name: t.name,
            scope: t.scope,
            created_at: t.created_at,
        })
        .collect();
    Ok(HttpResponse::Ok().json(TokenList { tokens }))
}

/// Revokes a token at once, on every server: it answers 401 from the next request on
/// (admin only).
#[utoipa::path(tag = "access", security(("club_token" = [])),
    params(("id" = uuid::Uuid, Path, description = "Token id")),
    responses(
        (status = 204, description = "Revoked"),
        IdNotUuid, Unauthorized, AdminOnly, NoSuchToken,
    ))]
#[delete("/v1/tokens/{id}")]
pub async fn revoke_token(
    state: web::Data<AppState>,
    admin: Admin,
    id: web::Path<uuid::Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    if !state
        .store
        .delete_access_token(&admin.0.id, &id, None)
        .await?
    {
        return Err(ApiError::NotFound(tabletally_domain::said!(
            "server.api.access.no_such_token"
        )));
    }
    state.live.revoked(&id);
    tracing::info!(club = %admin.0.id, token = %id, "token revoked");
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ClubTokenReplaced {
    /// The club's id.
    pub id: String,
    /// The club's new first token (scope `admin`). Shown once: only its hash is stored.
    pub token: String,
}

/// Replaces the club's first token (the one `POST /v1/clubs` answered) with a new one, for when
/// it was lost or seen by someone it should not have been (admin only). The old one answers
/// 401 from the next request on and the streams it opened end, on every server; the tokens the
/// club issued are left as they are.
#[utoipa::path(tag = "access", security(("club_token" = [])), responses(
    (status = 200, description = "The new first token; the old one no longer works", body = ClubTokenReplaced),
    Unauthorized, AdminOnly,
))]
#[post("/v1/club/token")]
pub async fn replace_club_token(
    state: web::Data<AppState>,
    admin: Admin,
) -> Result<HttpResponse, ApiError> {
    let club = admin.0.id;
    let (token, hash) = auth::new_token(&club)?;
    if !state.store.replace_club_token(&club, &hash).await? {
        // Authenticated a moment ago: the club cannot have gone (no statement deletes one).
        return Err(ApiError::Internal(format!("club {club} has no row")));
    }
    state.live.revoked(&first_token_revocation(&club));
    tracing::info!(club = %club, "the club's first token was replaced");
    Ok(HttpResponse::Ok().json(ClubTokenReplaced { id: club, token }))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"expires_in_hours": 24}))]
pub struct CreateShare {
    /// 1 to 720 hours (30 days); default 24. A whole number (`24.0` is 24, as JSON Schema
    /// counts it).
    #[serde(default)]
    #[schema(value_type = Option<i64>, minimum = 1, maximum = 720)]
    pub expires_in_hours: Option<serde_json::Value>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ShareCreated {
    pub id: String,
    /// A read-only token for this game only (summary, events, score, stream), safe to put in
    /// a link as `?access_token=`. Shown once.
    pub token: String,
    pub expires_at: DateTime<Utc>,
}

/// `expires_in_hours`: a whole number, written `24` or `24.0` (both integers to JSON Schema, so
/// to the document); left out or `null`, the default.
fn share_hours(given: Option<&serde_json::Value>) -> Result<i64, ApiError> {
    let refused = |got: String| {
        ApiError::invalid(
            "/expires_in_hours",
            tabletally_domain::said!("server.api.access.expires_in_hours_whole", got = got),
        )
    };
    match given {
        None | Some(serde_json::Value::Null) => Ok(DEFAULT_SHARE_HOURS),
        Some(serde_json::Value::Number(n)) => match (n.as_i64(), n.as_f64()) {
            (Some(hours), _) => Ok(hours),
            // Past i64 either way: out of range, which the caller says.
            (None, Some(f)) if f.fract() == 0.0 => {
                Ok(f.clamp(i64::MIN as f64, i64::MAX as f64) as i64)
            }
            _ => Err(refused(format!("the number {n}"))),
        },
        Some(serde_json::Value::String(s)) => Err(refused(format!("the text {s:?}"))),
        Some(serde_json::Value::Bool(b)) => Err(refused(b.to_string())),
        Some(_) => Err(refused("a list or an object".to_owned())),
    }
}

/// A share link: a read-only token for this one game, with an expiry.
#[utoipa::path(tag = "access", security(("club_token" = [])),
    params(("id" = uuid::Uuid, Path, description = "Game id")),
    request_body(content = CreateShare, example = json!({"expires_in_hours": 24})),
    responses(
        (status = 201, description = "Share link created; the token is shown once", body = ShareCreated),
        MalformedJson, Unauthorized, ReadToken, NoSuchGame, BadExpiry,
    ))]
#[post("/v1/games/{id}/shares")]
pub async fn create_share(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
    body: Json<CreateShare>,
) -> Result<HttpResponse, ApiError> {
    let game = id.into_inner().to_string();
    let hours = share_hours(body.expires_in_hours.as_ref())?;
    if !(1..=MAX_SHARE_HOURS).contains(&hours) {
        return Err(ApiError::invalid(
            "/expires_in_hours",
            tabletally_domain::said!(
                "server.api.access.share_hours",
                most = MAX_SHARE_HOURS,
                hours = hours
            ),
        ));
    }
    state
        .store
        .game(&club.id, &game)
        .await?
        .ok_or_else(|| ApiError::NotFound(said!("server.problem.no_such_game")))?;
    let share_id = uuid::Uuid::new_v4().to_string();
    let (token, secret_hash) = auth::new_issued_token(&share_id, true)?;
    let created_at = Utc::now().trunc_subsecs(6);
    let record = AccessTokenRecord {
        id: share_id.clone(),
        club_id: club.id,
        name: format!("share of game {game}"),
        scope: "share".into(),
        game_id: Some(game.clone()),
        secret_hash,
        created_at,
        expires_at: Some(created_at + Duration::hours(hours)),
    };
    state.store.create_access_token(&record).await?;
    tracing::info!(club = %record.club_id, game = %game, share = %share_id, hours, "share link created");
    Ok(HttpResponse::Created().json(ShareCreated {
        id: share_id,
        token,
        expires_at: created_at + Duration::hours(hours),
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ShareView {
    pub id: String,
    pub created_at: DateTime<Utc>,
    /// Past this time the link answers 401; it stays listed until revoked.
    pub expires_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ShareList {
    /// Oldest first; never their tokens.
    pub shares: Vec<ShareView>,
}

/// The game's share links, so that one handed out can be found and revoked.
#[utoipa::path(tag = "access", security(("club_token" = [])),
    params(("id" = uuid::Uuid, Path, description = "Game id")),
    responses(
        (status = 200, description = "The game's share links", body = ShareList),
        IdNotUuid, Unauthorized, NoSuchGame,
    ))]
#[get("/v1/games/{id}/shares")]
pub async fn list_shares(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
) -> Result<HttpResponse, ApiError> {
    let game = id.into_inner().to_string();
    state
        .store
        .game(&club.id, &game)
        .await?
        .ok_or_else(|| ApiError::NotFound(said!("server.problem.no_such_game")))?;
    let shares = state
        .store
        .game_shares(&club.id, &game)
        .await?
        .into_iter()
        .map(|s| ShareView {
            id: s.id,
            created_at: s.created_at,
            expires_at: s.expires_at,
        })
        .collect();
    Ok(HttpResponse::Ok().json(ShareList { shares }))
}

/// Revokes a share link at once.
#[utoipa::path(tag = "access", security(("club_token" = [])),
    params(("id" = uuid::Uuid, Path, description = "Game id"), ("share_id" = uuid::Uuid, Path, description = "Share link id")),
    responses(
        (status = 204, description = "Revoked"),
        AnIdNotUuid, Unauthorized, ReadToken, NoSuchShare,
    ))]
#[delete("/v1/games/{id}/shares/{share_id}")]
pub async fn revoke_share(
    state: web::Data<AppState>,
    club: Club,
    path: web::Path<(uuid::Uuid, uuid::Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (game, share) = path.into_inner();
    let (game, share) = (game.to_string(), share.to_string());
    if !state
        .store
        .delete_access_token(&club.id, &share, Some(&game))
        .await?
    {
        return Err(ApiError::NotFound(tabletally_domain::said!(
            "server.api.access.no_such_share"
        )));
    }
    state.live.revoked(&share);
    tracing::info!(club = %club.id, game = %game, share = %share, "share link revoked");
    Ok(HttpResponse::NoContent().finish())
}
