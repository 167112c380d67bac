//! `GET /v1/games/{id}/score?at=`: the scoreboard after replaying the log (or its first `at`
//! events). The current score is made once per version from the held (cached) game.

use actix_web::{HttpResponse, get, web};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tabletally_domain::score as domain;
use tabletally_domain::{Game, Scoreboard, Status};
use utoipa::{IntoParams, ToSchema};

use super::{game_etag, not_modified, not_modified_response};
use crate::auth::Club;
use crate::error::{ApiError, Problem};
use crate::extract::Query;
use crate::state::AppState;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ScoreQuery {
    /// Replay the log only up to this seq, from 1 to the game's version (default: everything;
    /// a seq past the version is refused with 422).
    #[param(minimum = 1)]
    pub at: Option<i64>,
}

/// The scoreboard; every point is explained by a breakdown line or an adjustment.
#[derive(Debug, Serialize, ToSchema)]
pub struct ScoreView {
    pub game: String,
    /// The seq the score was computed at.
    pub version: i64,
    /// `in_progress`, `finished` or `abandoned` at that seq.
    pub status: String,
    /// True when the game is finished: the score will not change unless an event is corrected.
    #[serde(rename = "final")]
    pub is_final: bool,
    /// True when the lowest total wins.
    pub lower_wins: bool,
    /// Best rank first.
    pub players: Vec<PlayerScoreView>,
    /// Everyone ranked first once the game is finished (more than one: a shared win); empty
    /// while it is in progress and when it was abandoned.
    pub winners: Vec<String>,
    /// While the game is in progress: everyone ranked first so far (empty before the first
    /// round or move is recorded, and once the game is finished or abandoned).
    pub leaders: Vec<String>,
    /// How a tie for first place was settled; null when nobody tied for first.
    pub tiebreak: Option<TiebreakView>,
    /// The options in force that differ from the published rules or from the rules spec's
    /// default for a point the rules leave open (empty for a game played by the book).
    pub house_rules: Vec<HouseRuleView>,
    /// Every house-rule point of the game (a point the published rules leave open) with the
    /// value in force, `default: true` when it is the spec's default.
    pub house_rule_points: Vec<HouseRuleView>,
    /// Game-specific state (e.g. the race of Mint Julep).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub details: Option<Value>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerScoreView {
    pub name: String,
    pub seat: u32,
    pub total: i64,
    pub rank: u32,
    pub rounds: Vec<RoundView>,
    pub adjustments: Vec<AdjustmentView>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RoundView {
    pub round: u32,
    pub points: i64,
    pub breakdown: Vec<LineView>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"label": "Fine Wine ×3", "points": 6, "detail": "3 × 2"}))]
pub struct LineView {
    pub label: String,
    pub points: i64,
    pub detail: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AdjustmentView {
    pub label: String,
    pub points: i64,
    pub detail: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TiebreakView {
    pub rule: String,
    pub detail: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HouseRuleView {
    pub option: String,
    /// Any JSON value (a string, a number, an object or null).
    pub value: Value,
    /// True when this is the service's default for the point.
    pub default: bool,
    pub note: String,
}

/// The scoreboard after replaying the log up to `at`.
#[utoipa::path(tag = "scores", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "Game id"), ScoreQuery), responses(
    (status = 200, description = "The scoreboard", body = ScoreView, headers(("ETag" = String, description = "The game's version (with `at` for a past score); send it back in If-None-Match"))),
    (status = 304, description = "Not modified since the If-None-Match tag"),
    (status = 400, description = "A bad query parameter", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "Missing or wrong token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "No such game in this club", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "`at` is outside 1..version", body = Problem, content_type = "application/problem+json"),
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
    // Known current without reading the database (SQLite), or the game's row decides.
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
            let etag = game_etag(version, query.at);
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
            .ok_or_else(|| ApiError::NotFound("no such game in this club".into()))?,
    };
    let game = &held.game;
    let at = query.at.unwrap_or(game.version);
    if !(1..=game.version).contains(&at) {
        return Err(ApiError::Unprocessable {
            detail: format!(
                "at must be a seq from 1 to {} (the game's version), got {at}",
                game.version
            ),
            pointer: None,
            event_index: None,
        });
    }
    let etag = game_etag(game.version, query.at);
    // The answer body: the scoreboard as the API shows it, serialised.
    let body_of = |evaluation: tabletally_domain::Evaluation| {
        serde_json::to_vec(&score_view(
            game.game.clone(),
            evaluation.status,
            evaluation.version,
            evaluation.scoreboard,
        ))
        .map(actix_web::web::Bytes::from)
        .map_err(|e| ApiError::Internal(format!("game {id}: {e}")))
    };
    let body = if at == game.version {
        // The current score: made once per version and kept with the held game.
        held.score_body(|held| body_of(held.state.evaluation(false)))?
    } else {
        // A past score: replay the log up to `at`.
        let kind = Game::from_id(&game.game)
            .ok_or_else(|| ApiError::Internal(format!("unknown stored game {}", game.game)))?;
        body_of(
            kind.evaluate(&held.state.log()[..at as usize])
                .map_err(|e| ApiError::Internal(format!("game {id}: {e}")))?,
        )?
    };
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::ETAG, etag))
        .content_type(actix_web::http::header::ContentType::json())
        .body(body))
}

/// The scoreboard as the API shows it (also in the live streams' events).
pub fn score_view(game: String, status: Status, version: u64, board: Scoreboard) -> ScoreView {
    ScoreView {
        game,
        version: version as i64,
        status: status.as_str().to_owned(),
        is_final: status == Status::Finished,
        lower_wins: board.lower_wins,
        players: board
            .players
            .into_iter()
            .map(PlayerScoreView::from)
            .collect(),
        winners: board.winners,
        leaders: board.leaders,
        tiebreak: board.tiebreak.map(|t| TiebreakView {
            rule: t.rule,
            detail: t.detail,
        }),
        house_rules: board
            .house_rules
            .iter()
            .filter(|h| !h.default)
            .map(HouseRuleView::from)
            .collect(),
        house_rule_points: board.house_rules.iter().map(HouseRuleView::from).collect(),
        details: board.details,
    }
}

impl From<&domain::HouseRule> for HouseRuleView {
    fn from(h: &domain::HouseRule) -> Self {
        Self {
            option: h.option.clone(),
            value: h.value.clone(),
            default: h.default,
            note: h.note.clone(),
        }
    }
}

impl From<domain::PlayerScore> for PlayerScoreView {
    fn from(p: domain::PlayerScore) -> Self {
        Self {
            name: p.name,
            seat: p.seat,
            total: p.total,
            rank: p.rank,
            rounds: p
                .rounds
                .into_iter()
                .map(|r| RoundView {
                    round: r.round,
                    points: r.points,
                    breakdown: r
                        .breakdown
                        .into_iter()
                        .map(|l| LineView {
                            label: l.label,
                            points: l.points,
                            detail: l.detail,
                        })
                        .collect(),
                })
                .collect(),
            adjustments: p
                .adjustments
                .into_iter()
                .map(|a| AdjustmentView {
                    label: a.label,
                    points: a.points,
                    detail: a.detail,
                })
                .collect(),
        }
    }
}
