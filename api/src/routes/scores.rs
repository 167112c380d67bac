//! `GET /v1/games/{id}/score?at=`: the scoreboard after replaying the log (or its first `at`
//! events). The current score is made once per version from the held (cached) game.

use actix_web::{HttpResponse, get, web};
use serde::Deserialize;
use tabletally_domain::Game;
use tabletally_domain::said;
use utoipa::IntoParams;

use super::problems::{NoSuchGame, Unauthorized, problems};
use super::{game_etag, not_modified, not_modified_response};
use crate::auth::Club;
use crate::error::ApiError;
use crate::extract::Query;
use crate::language::Language;
use crate::state::AppState;
use crate::views::{ScoreView, score_view_in};

problems! {
    BadScoreQuery: 400, "A bad query parameter, such as `at` below 1 (`parameter` names it)";
    AtBeyondVersion: 422, "`at` is beyond the game's version (`parameter`: `at`)";
}

/// The score's entity tag: the game's tag, and the language when it is not English (the
/// explanations differ, so the body does).
fn score_etag(version: i64, at: Option<i64>, language: Language) -> String {
    let tag = game_etag(version, at);
    match language {
        Language::English => tag,
        other => format!("{}-{}\"", tag.trim_end_matches('"'), other.tag()),
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ScoreQuery {
    /// Replay the log only up to this seq: from 1 to the game's version (default: everything).
    /// A seq past the game's version is refused with 422 (only the game knows its version).
    #[param(minimum = 1)]
    pub at: Option<i64>,
}

/// The scoreboard after replaying the log up to `at`.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it): `at`
/// may not pass the game's version (422), which only the stored game knows.
#[utoipa::path(tag = "scores", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "Game id"), ScoreQuery), responses(
    (status = 200, description = "The scoreboard", body = ScoreView, headers(("ETag" = String, description = "The game's version (with `at` for a past score); send it back in If-None-Match"))),
    (status = 304, description = "Not modified since the If-None-Match tag"),
    BadScoreQuery, Unauthorized, NoSuchGame, AtBeyondVersion,
))]
#[get("/v1/games/{id}/score")]
pub async fn get_score(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
    query: Query<ScoreQuery>,
    request: actix_web::HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    let language = Language::of(&request);
    // Known current without reading the database (while this server is its only writer), or
    // the game's row decides.
    let current = state.store.current_game(&club.id, &id);
    let asks_tag = request
        .headers()
        .contains_key(actix_web::http::header::IF_NONE_MATCH);
    // A tag to compare: answer 304 from the game's version, without replaying its log.
    if asks_tag {
        let version = match &current {
            Some(held) => Some(held.game.version),
            None => state.store.game_version(&club.id, &id).await?,
        };
        if let Some(version) = version
            && query.at.is_none_or(|at| (1..=version).contains(&at))
        {
            let etag = score_etag(version, query.at, language);
            if not_modified(&request, &etag) {
                return Ok(not_modified_response(&etag));
            }
        }
    }
    let held = match current {
        Some(held) => held,
        None => state
            .store
            .held_game(&club.id, &id)
            .await?
            .ok_or_else(|| ApiError::NotFound(said!("server.problem.no_such_game")))?,
    };
    let game = &held.game;
    let at = query.at.unwrap_or(game.version);
    if at < 1 {
        // The schema's own minimum: a parameter that cannot be read as a seq.
        return Err(ApiError::bad_parameter(
            "at",
            said!(
                "server.problem.score_at_outside",
                version = game.version,
                at = at
            ),
        ));
    }
    if at > game.version {
        return Err(ApiError::Unprocessable {
            parameter: Some("at".into()),
            detail: said!(
                "server.problem.score_at_outside",
                version = game.version,
                at = at
            ),
            pointer: None,
            event_index: None,
        });
    }
    let etag = score_etag(game.version, query.at, language);
    // The answer body: the scoreboard as the API shows it, serialised.
    let body_of = |evaluation: tabletally_domain::Evaluation| {
        serde_json::to_vec(&score_view_in(
            language,
            game.game.clone(),
            evaluation.status,
            evaluation.version,
            evaluation.scoreboard,
        ))
        .map(actix_web::web::Bytes::from)
        .map_err(|e| ApiError::Internal(format!("game {id}: {e}")))
    };
    let body = if at == game.version && language == Language::English {
        // The current score: made once per version and kept while the game is read.
        let bodies = state.store.score_bodies();
        match bodies.get(&game.id, game.version) {
            Some(body) => body,
            None => {
                let body = body_of(held.state.evaluation(false))?;
                bodies.put(&game.id, game.version, body.clone());
                body
            }
        }
    } else if at == game.version {
        // In another language: the held game's score, said again.
        body_of(held.state.evaluation(false))?
    } else {
        // A past score: the log read (a held game lets it go), replayed up to `at`.
        let kind = Game::from_id(&game.game)
            .ok_or_else(|| ApiError::Internal(format!("unknown stored game {}", game.game)))?;
        let (_, log) = state
            .store
            .events(&club.id, &id)
            .await?
            .ok_or_else(|| ApiError::NotFound(said!("server.problem.no_such_game")))?;
        let log: Vec<_> = log
            .iter()
            .take(at as usize)
            .map(crate::records::to_log_event)
            .collect();
        body_of(
            kind.evaluate(&log)
                .map_err(|e| ApiError::Internal(format!("game {id}: {e}")))?,
        )?
    };
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::ETAG, etag))
        .content_type(actix_web::http::header::ContentType::json())
        .body(body))
}
