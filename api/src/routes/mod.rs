//! One module per resource. Handlers are thin: read the request, call the store and the
//! domain, answer. Shared response shapes live here.

pub mod access;
pub mod clubs;
mod cursor;
pub mod events;
pub mod games;
pub mod health;
pub mod live;
pub mod players;
pub mod portability;
pub mod presets;
pub mod scores;
pub mod stats;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::store::{GameRecord, StoredEvent};

/// Registers every route (the OpenAPI paths are collected from the same calls).
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(health::healthz)
        .service(health::readyz)
        .service(health::metrics)
        .service(clubs::create_club)
        .service(games::create_game)
        .service(games::list_games)
        .service(games::get_game)
        .service(events::append_events)
        .service(events::list_events)
        .service(scores::get_score)
        .service(presets::create_preset)
        .service(presets::list_presets)
        .service(presets::delete_preset)
        .service(live::game_stream)
        .service(live::lobby_stream)
        .service(live::club_events)
        .service(access::create_token)
        .service(access::list_tokens)
        .service(access::revoke_token)
        .service(access::create_share)
        .service(access::revoke_share)
        .service(stats::list_players)
        .service(stats::get_player)
        .service(players::rename_player)
        .service(players::merge_player)
        .service(stats::player_stats)
        .service(stats::player_games)
        .service(stats::leaderboard)
        .service(stats::head_to_head)
        .service(stats::game_stats)
        .service(portability::export)
        .service(portability::import)
        .service(portability::import_bgstats)
        .service(portability::import_bgg)
        .service(portability::export_bgstats)
        .service(portability::export_bgg);
}

/// A game's entity tag: its version, which every append raises (and `at` for a past score,
/// which never changes). API.md, Conditional requests.
pub fn game_etag(version: i64, at: Option<i64>) -> String {
    match at {
        Some(at) => format!("\"{version}-at-{at}\""),
        None => format!("\"{version}\""),
    }
}

/// True when the request's `If-None-Match` names `etag` (or `*`): answer `304`.
pub fn not_modified(request: &actix_web::HttpRequest, etag: &str) -> bool {
    request
        .headers()
        .get_all(actix_web::http::header::IF_NONE_MATCH)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|tag| tag.trim().trim_start_matches("W/"))
        .any(|tag| tag == etag || tag == "*")
}

/// `304 Not Modified` with the tag, no body.
pub fn not_modified_response(etag: &str) -> actix_web::HttpResponse {
    actix_web::HttpResponse::NotModified()
        .insert_header((actix_web::http::header::ETAG, etag.to_owned()))
        .finish()
}

/// The games tabletally keeps score for (documentation only: the handlers read the id as text
/// and refuse an unknown one with words listing these).
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum GameId {
    MintCondition,
    MindUp,
    MintJulep,
    Vintage,
}

/// A game's status (documentation only, like [`GameId`]).
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    InProgress,
    Finished,
    Abandoned,
}

/// A seated player of a game.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SeatView {
    /// How this game's events refer to the player.
    pub name: String,
    /// The club's player (the same person across games).
    pub player_id: String,
    /// 1-based seat, in the order given at creation.
    pub seat: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
}

/// A game's summary.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "6f1c2a4e-3b5d-4c7e-9f10-2a3b4c5d6e7f", "game": "mint-condition", "status": "in_progress",
    "version": 1, "players": [{"name": "Ann", "player_id": "0b8e…", "seat": 1, "color": "red"}],
    "options": {"lucky": false}, "started_at": "2026-11-30T19:00:00Z", "updated_at": "2026-11-30T19:00:00Z"
}))]
pub struct GameSummary {
    pub id: String,
    /// Game id, e.g. `mint-condition`.
    pub game: String,
    /// `in_progress`, `finished` or `abandoned`.
    #[schema(example = "in_progress")]
    pub status: String,
    /// The seq of the game's last event.
    pub version: i64,
    pub players: Vec<SeatView>,
    /// The effective options (defaults filled in).
    #[schema(value_type = Object)]
    pub options: Value,
    pub started_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<GameRecord> for GameSummary {
    fn from(g: GameRecord) -> Self {
        Self {
            id: g.id,
            game: g.game,
            status: g.status,
            version: g.version,
            players: g
                .players
                .into_iter()
                .map(|p| SeatView {
                    name: p.name,
                    player_id: p.player_id,
                    seat: p.seat,
                    color: p.color,
                })
                .collect(),
            options: g.options,
            started_at: g.started_at,
            updated_at: g.updated_at,
        }
    }
}

/// A stored event.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EventView {
    /// Position in the game's log: 1, 2, 3 … without gaps.
    pub seq: i64,
    /// The client's event id (UUID).
    pub id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    #[schema(value_type = Object)]
    pub data: Value,
    pub recorded_at: DateTime<Utc>,
    /// Who recorded it: the name of the token that appended it ("club token" for the club's
    /// first token). `null` for events stored before tabletally kept it.
    pub recorded_by: Option<String>,
    /// Global order of appends across all games.
    pub position: i64,
    pub schema_version: i64,
    /// Set when a later `retract` (this seq) makes this event no longer count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retracted_by: Option<i64>,
    /// Set when a later `correct` (this seq) replaces this event's data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corrected_by: Option<i64>,
}

/// A game's stored events as answered, each marked when a later event retracted or corrected it.
pub fn event_views(log: Vec<StoredEvent>) -> Vec<EventView> {
    let marks = tabletally_domain::log::marks(
        &log.iter()
            .map(crate::records::to_log_event)
            .collect::<Vec<_>>(),
    );
    log.into_iter()
        .map(|e| {
            let mark = marks.get(&(e.seq as u64)).copied().unwrap_or_default();
            let mut view = EventView::from(e);
            view.retracted_by = mark.retracted_by.map(|s| s as i64);
            view.corrected_by = mark.corrected_by.map(|s| s as i64);
            view
        })
        .collect()
}

impl From<StoredEvent> for EventView {
    fn from(e: StoredEvent) -> Self {
        Self {
            seq: e.seq,
            id: e.id,
            event_type: e.event_type,
            data: e.data,
            recorded_at: e.recorded_at,
            recorded_by: e.recorded_by,
            position: e.position,
            schema_version: e.schema_version,
            retracted_by: None,
            corrected_by: None,
        }
    }
}
