//! Club tokens. A token is `tt.<club id>.<secret>`; only the SHA-256 of the secret is stored,
//! and it is compared in constant time. The club id lets us find the row without searching by
//! the secret.

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, web};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::ApiError;
use crate::startup::AppState;

const PREFIX: &str = "tt";

/// The club a request is authenticated as.
#[derive(Debug, Clone)]
pub struct Club {
    pub id: String,
}

/// A fresh token for a club, and the hash to store.
pub fn new_token(club_id: &str) -> Result<(String, String), ApiError> {
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(|e| ApiError::Internal(format!("no randomness: {e}")))?;
    let secret = hex(&secret);
    let hash = hash_secret(&secret);
    Ok((format!("{PREFIX}.{club_id}.{secret}"), hash))
}

fn hash_secret(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Splits `tt.<club>.<secret>` into club id and secret.
fn parse(token: &str) -> Option<(&str, &str)> {
    let mut parts = token.splitn(3, '.');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(PREFIX), Some(club), Some(secret)) if !club.is_empty() && !secret.is_empty() => {
            Some((club, secret))
        }
        _ => None,
    }
}

async fn authenticate(
    state: web::Data<AppState>,
    authorization: Option<String>,
) -> Result<Club, ApiError> {
    let value = authorization.ok_or(ApiError::Unauthorized)?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .map(str::trim)
        .ok_or(ApiError::Unauthorized)?;
    let (club_id, secret) = parse(token).ok_or(ApiError::Unauthorized)?;
    let club = state
        .store
        .club(club_id)
        .await?
        .ok_or(ApiError::Unauthorized)?;
    let given = hash_secret(secret);
    if bool::from(given.as_bytes().ct_eq(club.token_hash.as_bytes())) {
        Ok(Club { id: club.id })
    } else {
        Err(ApiError::Unauthorized)
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
    web::Query::<std::collections::HashMap<String, String>>::from_query(req.query_string())
        .ok()
        .and_then(|q| q.get("access_token").cloned())
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
        Box::pin(async move {
            let state = state.ok_or_else(|| ApiError::Internal("app state missing".into()))?;
            authenticate(state, authorization).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_carries_its_club_and_a_secret_whose_hash_is_stored() {
        let (token, hash) = new_token("c1").unwrap();
        let (club, secret) = parse(&token).unwrap();
        assert_eq!(club, "c1");
        assert_eq!(secret.len(), 64);
        assert_eq!(hash_secret(secret), hash);
        assert_ne!(secret, hash);
    }

    #[test]
    fn malformed_tokens_do_not_parse() {
        assert_eq!(parse("tt.c1"), None);
        assert_eq!(parse("xx.c1.secret"), None);
        assert_eq!(parse("tt..secret"), None);
    }
}
