//! Games: create (event 1, `game_started`), read, list.

use actix_web::http::header;
use actix_web::{HttpResponse, get, post, web};
use chrono::{DateTime, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tabletally_domain::Game;
use tabletally_domain::setup::PlayerEntry;
use utoipa::{IntoParams, ToSchema};

use super::{GameSummary, cursor};
use crate::auth::Club;
use crate::error::{ApiError, Problem};
use crate::examples;
use crate::startup::AppState;
use crate::store::{GameFilter, NewGame, NewSeat};

const DEFAULT_PAGE: i64 = 50;
const MAX_PAGE: i64 = 200;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "game": "mint-condition",
    "players": [{"name": "Ann", "color": "red"}, {"name": "Bo", "color": "blue"}, {"name": "Cy", "color": "green"}],
    "options": {"lucky": true},
    "started_at": "2026-11-30T19:00:00Z"
}))]
pub struct CreateGame {
    /// Game id: `mint-condition`.
    pub game: String,
    /// In seat order. Each player has a `name`, or the `player_id` of one of the club's players.
    pub players: Vec<PlayerInput>,
    /// The game's options; left-out options take their defaults.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    /// When play began; default: now.
    #[serde(default)]
    pub started_at: Option<DateTime<Utc>>,
    /// A client-chosen UUID; re-sending the same id returns the same game.
    #[serde(default)]
    pub id: Option<String>,
    /// The name of one of the club's presets for this game (`POST /v1/presets`): the game
    /// starts with its options, each key of `options` overriding the preset's. The effective
    /// options are stored in `game_started`, so the log never depends on the preset.
    #[serde(default)]
    pub preset: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayerInput {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub player_id: Option<String>,
    #[serde(default)]
    pub color: Option<String>,
}

/// Starts a game: checks players and options, stores event 1 (`game_started`).
#[utoipa::path(tag = "games", request_body(content = CreateGame, examples(
        ("mint-condition" = (summary = "Mint Condition with Lucky", value = json!(examples::create_mint_condition()))),
        ("mind-up" = (summary = "Mind Up! with 2 objectives a round", value = json!(examples::create_mind_up()))),
        ("mint-julep" = (summary = "Mint Julep, splitting after penalties", value = json!(examples::create_mint_julep()))),
        ("vintage" = (summary = "Vintage with two prizes", value = json!(examples::create_vintage()))),
    )), security(("club_token" = [])), responses(
    (status = 201, description = "Game created", body = GameSummary, headers(("Location" = String, description = "The game's URL")),
        links(
            ("GetGame" = (operation_id = "get_game", parameters(("id" = "$response.body#/id")))),
            ("AppendEvents" = (operation_id = "append_events", parameters(("id" = "$response.body#/id")))),
            ("ListEvents" = (operation_id = "list_events", parameters(("id" = "$response.body#/id")))),
            ("GetScore" = (operation_id = "get_score", parameters(("id" = "$response.body#/id")))),
        )),
    (status = 200, description = "A game with this id already exists with the same content", body = GameSummary),
    (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "Missing or wrong token", body = Problem, content_type = "application/problem+json"),
    (status = 409, description = "The id is taken by a different game", body = Problem, content_type = "application/problem+json"),
    (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
    (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "Unknown game, bad player count, a bad option or an unknown preset", body = Problem, content_type = "application/problem+json"),
))]
#[post("/v1/games")]
pub async fn create_game(
    state: web::Data<AppState>,
    club: Club,
    body: web::Json<CreateGame>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let kind = Game::from_id(&body.game).ok_or_else(|| {
        ApiError::invalid(
            "/game",
            format!(
                "unknown game {:?}; tabletally keeps score for {}",
                body.game,
                tabletally_domain::games::known_ids()
            ),
        )
    })?;
    let id = match &body.id {
        Some(id) => uuid::Uuid::parse_str(id)
            .map_err(|_| ApiError::invalid("/id", format!("id must be a UUID, got {id:?}")))?
            .to_string(),
        None => uuid::Uuid::new_v4().to_string(),
    };
    let entries = resolve_players(&state, &club, &body.players).await?;
    let options = match body.preset.as_deref() {
        Some(preset) => {
            super::presets::with_preset(&state, &club, kind, preset, body.options.as_ref()).await?
        }
        None => body.options.clone().unwrap_or(Value::Null),
    };
    let setup = kind
        .start(&entries, &options)
        .map_err(|e| ApiError::invalid(e.pointer, e.rule))?;
    let new_game = NewGame {
        id: id.clone(),
        game: kind.id().to_owned(),
        players: setup
            .players
            .iter()
            .zip(&body.players)
            .map(|(p, input)| NewSeat {
                name: p.name.clone(),
                player_id: input.player_id.clone(),
                color: p.color.clone(),
            })
            .collect(),
        options: setup.options,
        // Microseconds: what both databases keep.
        started_at: body.started_at.unwrap_or_else(Utc::now).trunc_subsecs(6),
    };
    match state.store.create_game(&club.id, &new_game).await? {
        Some(game) => {
            tracing::info!(game = %game.id, kind = %game.game, "game started");
            Ok(HttpResponse::Created()
                .insert_header((header::LOCATION, format!("/v1/games/{}", game.id)))
                .json(GameSummary::from(game)))
        }
        // The id exists: the same game re-sent is answered with it, anything else is a conflict.
        None => match state.store.game(&club.id, &id).await? {
            Some(existing) if same_game(&existing, &new_game) => {
                Ok(HttpResponse::Ok().json(GameSummary::from(existing)))
            }
            _ => Err(ApiError::Conflict {
                detail: format!("game id {id} is already used for a different game"),
                current_version: None,
            }),
        },
    }
}

fn same_game(existing: &crate::store::GameRecord, new: &NewGame) -> bool {
    existing.game == new.game
        && existing.options == new.options
        && existing.players.len() == new.players.len()
        && existing
            .players
            .iter()
            .zip(&new.players)
            .all(|(a, b)| a.name == b.name && a.color == b.color)
}

/// Turns `player_id`s into names (a name given too must match) so the domain sees names only.
async fn resolve_players(
    state: &AppState,
    club: &Club,
    players: &[PlayerInput],
) -> Result<Vec<PlayerEntry>, ApiError> {
    let ids: Vec<String> = players.iter().filter_map(|p| p.player_id.clone()).collect();
    let known = if ids.is_empty() {
        Vec::new()
    } else {
        state.store.players_by_id(&club.id, &ids).await?
    };
    players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let name = match (&p.player_id, &p.name) {
                (Some(id), name) => {
                    let (_, known_name) = known.iter().find(|(k, _)| k == id).ok_or_else(|| {
                        ApiError::invalid(
                            format!("/players/{i}/player_id"),
                            format!("player_id {id} is not one of this club's players"),
                        )
                    })?;
                    if let Some(name) = name
                        .as_deref()
                        .filter(|n| !tabletally_domain::setup::same_name(n, known_name))
                    {
                        return Err(ApiError::invalid(
                            format!("/players/{i}/name"),
                            format!("player_id {id} is {known_name:?}, not {name:?}"),
                        ));
                    }
                    known_name.clone()
                }
                (None, Some(name)) => name.clone(),
                (None, None) => {
                    return Err(ApiError::invalid(
                        format!("/players/{i}"),
                        "a player needs a name or a player_id",
                    ));
                }
            };
            Ok(PlayerEntry {
                name,
                color: p.color.clone(),
            })
        })
        .collect()
}

/// A game's summary.
#[utoipa::path(tag = "games", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "Game id")), responses(
    (status = 200, description = "The game", body = GameSummary),
    (status = 400, description = "The id is not a UUID", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "Missing or wrong token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "No such game in this club", body = Problem, content_type = "application/problem+json"),
))]
#[get("/v1/games/{id}")]
pub async fn get_game(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    let game = state
        .store
        .game(&club.id, &id)
        .await?
        .ok_or_else(|| ApiError::NotFound("no such game in this club".into()))?;
    Ok(HttpResponse::Ok().json(GameSummary::from(game)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct GamesQuery {
    /// Only this game id (e.g. `mint-condition`).
    pub game: Option<String>,
    /// Only games with this player (a name or a player id).
    pub player: Option<String>,
    /// `in_progress`, `finished` or `abandoned`.
    pub status: Option<String>,
    /// Games started at or after this time.
    pub from: Option<DateTime<Utc>>,
    /// Games started before this time.
    pub to: Option<DateTime<Utc>>,
    /// Page size, 1–200 (default 50).
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GamePage {
    /// Newest first.
    pub games: Vec<GameSummary>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// The club's games, newest first, filtered and paginated.
#[utoipa::path(tag = "games", security(("club_token" = [])), params(GamesQuery), responses(
    (status = 200, description = "A page of games", body = GamePage),
    (status = 400, description = "A bad query parameter", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "Missing or wrong token", body = Problem, content_type = "application/problem+json"),
))]
#[get("/v1/games")]
pub async fn list_games(
    state: web::Data<AppState>,
    club: Club,
    query: web::Query<GamesQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    // Text the databases cannot store cannot match anything either.
    for (name, value) in [("game", &query.game), ("player", &query.player)] {
        if value.as_deref().is_some_and(|v| v.contains('\0')) {
            return Err(ApiError::BadRequest(format!(
                "{name} cannot contain a NUL character"
            )));
        }
    }
    let limit = query.limit.unwrap_or(DEFAULT_PAGE);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(ApiError::BadRequest(format!(
            "limit must be between 1 and {MAX_PAGE}"
        )));
    }
    if let Some(status) = &query.status
        && tabletally_domain::Status::parse(status).is_none()
    {
        return Err(ApiError::BadRequest(
            "status must be in_progress, finished or abandoned".into(),
        ));
    }
    let after = query
        .cursor
        .as_deref()
        .map(cursor::decode_game)
        .transpose()?;
    let filter = GameFilter {
        game: query.game,
        player: query.player,
        status: query.status,
        from: query.from,
        to: query.to,
        after,
        // One more than asked tells whether another page exists.
        limit: limit + 1,
    };
    let mut games = state.store.list_games(&club.id, &filter).await?;
    let next_cursor = if games.len() as i64 > limit {
        games.truncate(limit as usize);
        games
            .last()
            .map(|g| cursor::encode_game(g.started_at, &g.id))
    } else {
        None
    };
    Ok(HttpResponse::Ok().json(GamePage {
        games: games.into_iter().map(GameSummary::from).collect(),
        next_cursor,
    }))
}
