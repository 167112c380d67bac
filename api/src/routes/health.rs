//! Liveness and readiness.

use actix_web::{HttpResponse, get, web};
use serde_json::json;

use super::problems::problems;
use crate::error::ApiError;
use crate::state::AppState;

problems! {
    DatabaseUnreachable: 503, "The database is not reachable";
}

/// The process is up.
#[utoipa::path(tag = "operations", responses((status = 200, description = "The process is up", body = Object, example = json!({"status": "ok"}))))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "ok"}))
}

/// Counters in the Prometheus text format: requests by route pattern and status, their
/// latency, appends and games created. No authentication; it holds no club's data.
#[utoipa::path(tag = "operations", responses((status = 200, description = "Prometheus text format (version 0.0.4)", content_type = "text/plain", body = String)))]
#[get("/metrics")]
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(
            state.metrics.render()
                + &crate::metrics::render_store(
                    state.store.cache_counters(),
                    state.store.writer_counters(),
                )
                + &crate::metrics::render_primary(state.store.followed_primary()),
        )
}

/// The database is reachable.
#[utoipa::path(tag = "operations", responses(
    (status = 200, description = "Ready to serve", body = Object, example = json!({"status": "ready", "database": "sqlite"})),
    DatabaseUnreachable,
))]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    // Between a primary lost and its standby promoted, the old host may still answer (read
    // only): not ready until a primary takes writes again.
    if state.store.followed_primary().is_some_and(|p| !p.up) {
        return Err(ApiError::Unavailable);
    }
    state.store.ping().await.map_err(|e| {
        tracing::warn!(error = %e, "readiness check failed");
        ApiError::Unavailable
    })?;
    Ok(HttpResponse::Ok().json(json!({"status": "ready", "database": state.store.backend()})))
}
