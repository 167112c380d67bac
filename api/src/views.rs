//! The shapes the API answers with, shared by the routes, the live streams and the OpenAPI
//! document: a game's summary, its stored events and its scoreboard. Each is made from a record
//! of the store or the domain's scoreboard, and knows nothing of requests.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use tabletally_domain::message::Catalogue;
use tabletally_domain::score as domain;
use tabletally_domain::{Scoreboard, Status};

use crate::language::Language;
use utoipa::ToSchema;

use crate::records::{GameRecord, StoredEvent};

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
    /// `null` for a player seated without a colour.
    #[schema(required = true)]
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
            options: std::sync::Arc::unwrap_or_clone(g.options),
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

/// The scoreboard as the API shows it (also in the live streams' events), in English.
pub fn score_view(game: String, status: Status, version: u64, board: Scoreboard) -> ScoreView {
    score_view_in(Language::English, game, status, version, board)
}

/// The scoreboard with its explanations (labels, details, tie-break, house-rule notes) said in
/// `language`; names, numbers, keys and options are the same in every language.
pub fn score_view_in(
    language: Language,
    game: String,
    status: Status,
    version: u64,
    board: Scoreboard,
) -> ScoreView {
    let catalogue = language.catalogue();
    ScoreView {
        game,
        version: version as i64,
        status: status.as_str().to_owned(),
        is_final: status == Status::Finished,
        lower_wins: board.lower_wins,
        players: board
            .players
            .into_iter()
            .map(|p| PlayerScoreView::said(p, catalogue))
            .collect(),
        winners: board.winners,
        leaders: board.leaders,
        tiebreak: board.tiebreak.map(|t| TiebreakView {
            rule: t.rule.render(catalogue),
            detail: t.detail.render(catalogue),
        }),
        house_rules: board
            .house_rules
            .iter()
            .filter(|h| !h.default)
            .map(|h| HouseRuleView::said(h, catalogue))
            .collect(),
        house_rule_points: board
            .house_rules
            .iter()
            .map(|h| HouseRuleView::said(h, catalogue))
            .collect(),
        details: board.details,
    }
}

impl HouseRuleView {
    fn said(h: &domain::HouseRule, catalogue: &Catalogue) -> Self {
        Self {
            option: h.option.clone(),
            value: h.value.clone(),
            default: h.default,
            note: h.note.render(catalogue),
        }
    }
}

impl PlayerScoreView {
    fn said(p: domain::PlayerScore, catalogue: &Catalogue) -> Self {
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
                            label: l.label.render(catalogue),
                            points: l.points,
                            detail: l.detail.render(catalogue),
                        })
                        .collect(),
                })
                .collect(),
            adjustments: p
                .adjustments
                .into_iter()
                .map(|a| AdjustmentView {
                    label: a.label.render(catalogue),
                    points: a.points,
                    detail: a.detail.render(catalogue),
                })
                .collect(),
        }
    }
}
