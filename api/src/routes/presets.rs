//! Table presets: the options and house rules a table always plays a game with (for Vintage also
//! its deck and prizes), saved by name. `POST /v1/games` with `"preset"` copies them into the
//! game's `game_started`, so a log never depends on a preset.

use actix_web::http::header;
use actix_web::{HttpResponse, delete, get, post, web};
use chrono::{DateTime, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tabletally_domain::Game;
use tabletally_domain::setup::PlayerName;
use utoipa::{IntoParams, ToSchema};

use super::problems::{BadQuery, IdNotUuid, MalformedJson, ReadOnlyToken, Unauthorized, problems};
use crate::auth::Club;
use crate::error::ApiError;
use crate::extract::{Json, Query};
use crate::state::AppState;
use crate::store::PresetRecord;

problems! {
    NoSuchPreset: 404, "No such preset in this club";
    PresetNameTaken: 409, "The club has a preset of this name for the game";
    BadPreset: 422, "Unknown game, a bad name or a bad option";
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatePreset {
    /// How the table calls it: 1–40 printable characters, unique per game in the club
    /// (ignoring case).
    #[schema(
        min_length = 1,
        max_length = 40,
        pattern = r"^[^\x00-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]*[^\s\x00-\x1F\x7F-\x9F\u200B-\u200F\u2060-\u2064\uFEFF\u00AD\u034F\u180E\u115F\u1160\u3164\uFFA0\u202A-\u202E\u2066-\u2069][^\x00-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]*$"
    )]
    pub name: String,
    /// Game id, e.g. `vintage`.
    #[schema(value_type = crate::views::GameId)]
    pub game: String,
    /// Any of the game's options; left-out options take their defaults when a game starts.
    /// Vintage: `prizes`, `prize_tie`, `winner_tie` and `deck` (every card's attributes by number, 1–63).
    #[serde(default = "no_options")]
    #[schema(value_type = Object)]
    pub options: Value,
}

/// Options left out: the game's defaults. (`null` is not an object and is refused.)
fn no_options() -> Value {
    Value::Object(Map::new())
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PresetView {
    pub id: String,
    pub name: String,
    pub game: String,
    /// The options as saved.
    #[schema(value_type = Object)]
    pub options: Value,
    pub created_at: DateTime<Utc>,
}

impl From<PresetRecord> for PresetView {
    fn from(p: PresetRecord) -> Self {
        Self {
            id: p.id,
            name: p.name,
            game: p.game,
            options: p.options,
            created_at: p.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PresetList {
    /// By game, then name.
    pub presets: Vec<PresetView>,
}

fn known_game(id: &str, pointer: &str) -> Result<Game, ApiError> {
    Game::from_id(id).ok_or_else(|| {
        ApiError::invalid(
            pointer,
            tabletally_domain::said!(
                "server.api.games.unknown_game",
                game = format!("{id:?}"),
                known = tabletally_domain::games::known_ids()
            ),
        )
    })
}

/// Saves a table preset for one game.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it): option
/// values pass the game's own checks beyond their shape: a Vintage prize id given once, the
/// limits of points and values (422 with the option's `pointer`).
#[utoipa::path(tag = "games", security(("club_token" = [])), request_body(content = CreatePreset, example = json!({
        "name": "Friday", "game": "vintage",
        "options": {"prizes": [{"id": "blue", "name": "Most blue objects", "attribute": "colour", "value": "blue", "points": 4}],
                    "prize_tie": "split",
                    "deck": {"1": {"type": "lamp", "colour": "blue", "period": "60s", "value": 3}}}
    })), responses(
    (status = 201, description = "Preset saved", body = PresetView, headers(("Location" = String, description = "The preset's URL"))),
    MalformedJson, Unauthorized, ReadOnlyToken, PresetNameTaken, BadPreset,
))]
#[post("/v1/presets")]
pub async fn create_preset(
    state: web::Data<AppState>,
    club: Club,
    body: Json<CreatePreset>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let name =
        PlayerName::parse(&body.name).map_err(|rule| ApiError::invalid("/name", rule.preset()))?;
    let kind = known_game(&body.game, "/game")?;
    let options = match body.options {
        options @ Value::Object(_) => options,
        _ => {
            return Err(ApiError::invalid(
                "/options",
                tabletally_domain::said!("server.common.refusal.options_must_json_object"),
            ));
        }
    };
    crate::append::check_options_size(&options)
        .map_err(|why| ApiError::invalid("/options", why))?;
    kind.check_options(&options)
        .map_err(|e| ApiError::invalid(e.pointer, e.said))?;
    let preset = PresetRecord {
        id: uuid::Uuid::new_v4().to_string(),
        game: kind.id().to_owned(),
        name: name.as_str().to_owned(),
        options,
        // Microseconds: what both databases keep, so the answer equals a later read.
        created_at: Utc::now().trunc_subsecs(6),
    };
    if let Err(existing) = state.store.create_preset(&club.id, &preset).await? {
        return Err(ApiError::NameTaken {
            detail: tabletally_domain::said!(
                "server.api.presets.name_taken",
                game = kind.title(),
                name = format!("{:?}", existing.name)
            ),
            player_id: None,
            preset_id: Some(existing.id),
        });
    }
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/v1/presets/{}", preset.id)))
        .json(PresetView::from(preset)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PresetsQuery {
    /// Only this game's presets.
    #[param(value_type = Option<crate::views::GameId>)]
    pub game: Option<String>,
}

/// The club's table presets.
#[utoipa::path(tag = "games", security(("club_token" = [])), params(PresetsQuery), responses(
    (status = 200, description = "The presets", body = PresetList),
    BadQuery, Unauthorized,
))]
#[get("/v1/presets")]
pub async fn list_presets(
    state: web::Data<AppState>,
    club: Club,
    query: Query<PresetsQuery>,
) -> Result<HttpResponse, ApiError> {
    if let Some(game) = query.game.as_deref() {
        known_game(game, "").map_err(|e| ApiError::bad_parameter("game", e.detail()))?;
    }
    let presets = state.store.presets(&club.id, query.game.as_deref()).await?;
    Ok(HttpResponse::Ok().json(PresetList {
        presets: presets.into_iter().map(PresetView::from).collect(),
    }))
}

/// Deletes a table preset. Games started with it keep its options (their `game_started`
/// holds them).
#[utoipa::path(tag = "games", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "Preset id")), responses(
    (status = 204, description = "Deleted"),
    IdNotUuid, Unauthorized, ReadOnlyToken, NoSuchPreset,
))]
#[delete("/v1/presets/{id}")]
pub async fn delete_preset(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    if !state.store.delete_preset(&club.id, &id).await? {
        return Err(ApiError::NotFound(tabletally_domain::said!(
            "server.api.presets.no_such_preset"
        )));
    }
    Ok(HttpResponse::NoContent().finish())
}

/// The options a game starts with: the preset's, with each key the request gives overriding
/// the preset's (`{"preset": "Friday", "options": {"prize_tie": "all"}}`).
pub async fn with_preset(
    state: &AppState,
    club: &Club,
    kind: Game,
    preset: &str,
    options: Option<&Value>,
) -> Result<Value, ApiError> {
    let Some(found) = state
        .store
        .preset_named(&club.id, kind.id(), preset)
        .await?
    else {
        let names: Vec<String> = state
            .store
            .presets(&club.id, Some(kind.id()))
            .await?
            .into_iter()
            .map(|p| format!("{:?}", p.name))
            .collect();
        let (game, preset) = (kind.title(), format!("{preset:?}"));
        return Err(ApiError::invalid(
            "/preset",
            if names.is_empty() {
                tabletally_domain::said!(
                    "server.api.presets.none_of_game",
                    game = game,
                    name = preset
                )
            } else {
                tabletally_domain::said!(
                    "server.api.presets.no_such_name",
                    game = game,
                    name = preset,
                    names = names.join(", ")
                )
            },
        ));
    };
    let mut merged = match found.options {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    match options {
        None | Some(Value::Null) => {}
        Some(Value::Object(given)) => {
            for (key, value) in given {
                merged.insert(key.clone(), value.clone());
            }
        }
        Some(_) => {
            return Err(ApiError::invalid(
                "/options",
                tabletally_domain::said!("server.common.refusal.options_must_json_object"),
            ));
        }
    }
    Ok(Value::Object(merged))
}
