//! Tokens. The club's first token is `tt.<club id>.<secret>` (scope `admin`); the tokens it
//! issues are `tk.<token id>.<secret>` (scope `admin`, `write` or `read`) and share links
//! `ts.<token id>.<secret>` (one game, read-only, expiring). Only the SHA-256 of a secret is
//! stored, compared in constant time; the id in the token finds the row without searching by
//! the secret. Every request reads an issued token's row, so a revoked one fails at once on
//! every server. The club's first token is checked against its club's row, kept by each server;
//! a new first token (`POST /v1/club/token`) makes the servers forget that row (on PostgreSQL
//! by `NOTIFY`, as it commits).
//!
//! What a token may do is decided here, once, for every handler that takes a [`Club`]:
//! a `read` token only reads (anything else → 403), a share link only reads its game's
//! summary, events, score and stream (anything else → 404).

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::http::{Method, header};
use actix_web::{FromRequest, HttpRequest, web};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use actix_web::HttpMessage;

use crate::error::ApiError;
use crate::state::AppState;
use crate::store::{Store, first_token_revocation};

/// The `access_token` query parameter of a request, moved out of its URL before anything logs
/// it (`http::take_token_from_url`); only the two stream endpoints read it.
#[derive(Debug, Clone)]
pub struct UrlToken(pub String);

const PREFIX: &str = "tt";
const ISSUED: &str = "tk";
const SHARE: &str = "ts";

/// What a token may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Everything, including managing tokens (the club's first token).
    Admin,
    /// Everything but managing tokens.
    Write,
    /// Every GET.
    Read,
    /// This game's summary, events, score and stream.
    Share { game: String },
}

impl Scope {
    pub fn as_str(&self) -> &'static str {
        match self {
            Scope::Admin => "admin",
            Scope::Write => "write",
            Scope::Read => "read",
            Scope::Share { .. } => "share",
        }
    }
}

/// The club a request is authenticated as, and what its token may do.
#[derive(Debug, Clone)]
pub struct Club {
    pub id: String,
    pub scope: Scope,
    /// Which token it is: an open stream checks at every heartbeat that it still holds.
    pub credential: Credential,
    /// Who the token is, as a game's log shows it next to what it recorded: the issued token's
    /// name, or [`CLUB_TOKEN_NAME`].
    pub token_name: String,
}

/// Which token a request was made with, so that an open stream can tell when it stops holding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// The club's first token, by the hash it matched (a new first token replaces that hash).
    First { hash: String },
    /// An issued token or a share link, by its row's id.
    Issued { id: String },
}

impl Credential {
    /// What a revocation names ([`crate::live::Live::revoked`]): an issued token's id, or
    /// [`first_token_revocation`] of its club for the club's first token.
    pub fn revocation_key(&self, club: &str) -> String {
        match self {
            Credential::First { .. } => first_token_revocation(club),
            Credential::Issued { id } => id.clone(),
        }
    }
}

/// What the log calls the club's first token (it has no name of its own).
pub const CLUB_TOKEN_NAME: &str = "club token";

/// A club whose token has scope `admin`: what token management takes (others → 403).
#[derive(Debug, Clone)]
pub struct Admin(pub Club);

/// A fresh token for a club, and the hash to store.
pub fn new_token(club_id: &str) -> Result<(String, String), ApiError> {
    let (secret, hash) = new_secret()?;
    Ok((format!("{PREFIX}.{club_id}.{secret}"), hash))
}

/// A fresh issued token (`share`: a share link) with this row id, and the hash to store.
pub fn new_issued_token(id: &str, share: bool) -> Result<(String, String), ApiError> {
    let (secret, hash) = new_secret()?;
    let prefix = if share { SHARE } else { ISSUED };
    Ok((format!("{prefix}.{id}.{secret}"), hash))
}

fn new_secret() -> Result<(String, String), ApiError> {
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(|e| ApiError::Internal(format!("no randomness: {e}")))?;
    let secret = hex(&secret);
    let hash = hash_secret(&secret);
    Ok((secret, hash))
}

fn hash_secret(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

/// Lower-case hex of `bytes`. Every request hashes its token and compares the hex: written
/// into one string, not formatted byte by byte (a string per byte showed in profiles).
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(2 * bytes.len());
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

/// Splits `tt.<club>.<secret>` into club id and secret.
#[cfg(test)]
fn parse(token: &str) -> Option<(&str, &str)> {
    match parse_any(token) {
        Some((PREFIX, club, secret)) => Some((club, secret)),
        _ => None,
    }
}

/// Splits `<prefix>.<id>.<secret>`.
fn parse_any(token: &str) -> Option<(&str, &str, &str)> {
    let mut parts = token.splitn(3, '.');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(prefix), Some(id), Some(secret)) if !id.is_empty() && !secret.is_empty() => {
            Some((prefix, id, secret))
        }
        _ => None,
    }
}

fn same_secret(secret: &str, stored_hash: &str) -> bool {
    bool::from(hash_secret(secret).as_bytes().ct_eq(stored_hash.as_bytes()))
}

/// Who a bearer token is; 401 for anything unknown, wrong, revoked or expired.
pub async fn authenticate(state: &AppState, authorization: Option<&str>) -> Result<Club, ApiError> {
    let value = authorization.ok_or(ApiError::Unauthorized)?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .map(str::trim)
        .ok_or(ApiError::Unauthorized)?;
    let (prefix, id, secret) = parse_any(token).ok_or(ApiError::Unauthorized)?;
    // The databases cannot hold a NUL; such an id matches nothing.
    if id.contains('\0') {
        return Err(ApiError::Unauthorized);
    }
    match prefix {
        PREFIX => {
            let club = state.store.club(id).await?.ok_or(ApiError::Unauthorized)?;
            if same_secret(secret, &club.token_hash) {
                Ok(Club {
                    id: club.id,
                    scope: Scope::Admin,
                    credential: Credential::First {
                        hash: club.token_hash,
                    },
                    token_name: CLUB_TOKEN_NAME.to_owned(),
                })
            } else {
                Err(ApiError::Unauthorized)
            }
        }
        ISSUED | SHARE => {
            let row = state
                .store
                .access_token(id)
                .await?
                .ok_or(ApiError::Unauthorized)?;
            if !same_secret(secret, &row.secret_hash) {
                return Err(ApiError::Unauthorized);
            }
            if row
                .expires_at
                .is_some_and(|expires| expires <= chrono::Utc::now())
            {
                return Err(ApiError::Unauthorized);
            }
            let scope = match (prefix, row.scope.as_str(), row.game_id) {
                (ISSUED, "admin", None) => Scope::Admin,
                (ISSUED, "write", None) => Scope::Write,
                (ISSUED, "read", None) => Scope::Read,
                (SHARE, "share", Some(game)) => Scope::Share { game },
                _ => return Err(ApiError::Unauthorized),
            };
            Ok(Club {
                id: row.club_id,
                scope,
                credential: Credential::Issued { id: row.id },
                token_name: row.name,
            })
        }
        _ => Err(ApiError::Unauthorized),
    }
}

/// Does `club`'s token still hold (an issued one not revoked nor expired, a first one not
/// replaced)? Open streams ask.
pub async fn still_valid(
    store: &dyn Store,
    club: &str,
    credential: &Credential,
) -> Result<bool, ApiError> {
    Ok(match credential {
        Credential::First { hash } => store
            .club(club)
            .await?
            .is_some_and(|row| row.token_hash == *hash),
        Credential::Issued { id } => store
            .access_token(id)
            .await?
            .is_some_and(|row| row.expires_at.is_none_or(|e| e > chrono::Utc::now())),
    })
}

/// May this token make this request? `read` reads; a share link reads its game only.
fn permit(club: &Club, method: &Method, path: &str) -> Result<(), ApiError> {
    let reads = method == Method::GET || method == Method::HEAD;
    match &club.scope {
        Scope::Admin | Scope::Write => Ok(()),
        Scope::Read if reads => Ok(()),
        Scope::Read => Err(ApiError::Forbidden(tabletally_domain::said!(
            "server.api.access.read_only"
        ))),
        Scope::Share { game } => {
            let shared = path
                .strip_prefix("/v1/games/")
                .and_then(|rest| rest.strip_prefix(game.as_str()))
                .is_some_and(|rest| matches!(rest, "" | "/events" | "/score" | "/stream"));
            if reads && shared {
                Ok(())
            } else {
                // Never say what else exists.
                Err(ApiError::NotFound(tabletally_domain::said!(
                    "server.api.access.share_reads_only"
                )))
            }
        }
    }
}

/// `?access_token=` on the two stream endpoints only: browsers' `EventSource` cannot send an
/// `Authorization` header. Anywhere else a token in the URL is ignored (→ 401).
fn query_token(req: &HttpRequest) -> Option<String> {
    let path = req.path();
    let stream =
        path == "/v1/stream" || (path.starts_with("/v1/games/") && path.ends_with("/stream"));
    if !stream {
        return None;
    }
    // Taken out of the URL before the request was logged (`http::take_token_from_url`).
    req.extensions().get::<UrlToken>().map(|t| t.0.clone())
}

impl FromRequest for Club {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let authorization = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
            .or_else(|| query_token(req).map(|token| format!("Bearer {token}")));
        let (method, path) = (req.method().clone(), req.path().to_owned());
        Box::pin(async move {
            let state = state.ok_or_else(|| ApiError::Internal("app state missing".into()))?;
            let club = authenticate(&state, authorization.as_deref()).await?;
            permit(&club, &method, &path)?;
            Ok(club)
        })
    }
}

impl FromRequest for Admin {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let club = Club::from_request(req, payload);
        Box::pin(async move {
            let club = club.await?;
            match club.scope {
                Scope::Admin => Ok(Admin(club)),
                _ => Err(ApiError::Forbidden(tabletally_domain::said!(
                    "server.api.access.admin_only"
                ))),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_two_lower_case_digits_a_byte() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        assert_eq!(hex(&[]), "");
    }

    #[test]
    fn a_token_carries_its_club_and_a_secret_whose_hash_is_stored() {
        let (token, hash) = new_token("c1").unwrap();
        let (club, secret) = parse(&token).unwrap();
        assert_eq!(club, "c1");
        assert_eq!(secret.len(), 64);
        assert_eq!(hash_secret(secret), hash);
        assert_ne!(secret, hash);
    }

    fn club(scope: Scope) -> Club {
        Club {
            id: "c1".into(),
            scope,
            credential: Credential::First { hash: "h".into() },
            token_name: CLUB_TOKEN_NAME.into(),
        }
    }

    #[test]
    fn a_read_token_reads_but_writes_nothing() {
        let read = club(Scope::Read);

        assert!(permit(&read, &Method::GET, "/v1/games").is_ok());
        assert!(matches!(
            permit(&read, &Method::POST, "/v1/games"),
            Err(ApiError::Forbidden(_))
        ));
        assert!(matches!(
            permit(&read, &Method::DELETE, "/v1/tokens/t1"),
            Err(ApiError::Forbidden(_))
        ));
    }

    #[test]
    fn a_share_link_reads_its_game_and_nothing_else() {
        let share = club(Scope::Share { game: "g1".into() });

        for path in [
            "/v1/games/g1",
            "/v1/games/g1/events",
            "/v1/games/g1/score",
            "/v1/games/g1/stream",
        ] {
            assert!(permit(&share, &Method::GET, path).is_ok(), "{path}");
        }
        for (method, path) in [
            (Method::POST, "/v1/games/g1/events"),
            (Method::GET, "/v1/games/g2"),
            (Method::GET, "/v1/games/g12"),
            (Method::GET, "/v1/games"),
            (Method::GET, "/v1/stream"),
            (Method::GET, "/v1/events"),
            (Method::GET, "/v1/players"),
            (Method::POST, "/v1/games/g1/shares"),
        ] {
            assert!(
                matches!(permit(&share, &method, path), Err(ApiError::NotFound(_))),
                "{method} {path}"
            );
        }
    }

    #[test]
    fn malformed_tokens_do_not_parse() {
        assert_eq!(parse("tt.c1"), None);
        assert_eq!(parse("xx.c1.secret"), None);
        assert_eq!(parse("tt..secret"), None);
    }
}
