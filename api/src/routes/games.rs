//! Games: create (event 1, `game_started`), read, list.

use actix_web::http::header;
use actix_web::{HttpResponse, get, post, web};
use chrono::{DateTime, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tabletally_domain::Game;
use tabletally_domain::said;
use tabletally_domain::setup::PlayerEntry;
use utoipa::{IntoParams, ToSchema};

use super::problems::{
    BadQuery, BodyTooLarge, IdNotUuid, MalformedJson, NoSuchGame, NotJson, ReadOnlyToken,
    Unauthorized, problems,
};
use super::{cursor, not_modified, not_modified_response, summary_etag};
use crate::auth::Club;
use crate::error::ApiError;
use crate::examples;
use crate::extract::{Json, Query};
use crate::state::AppState;
use crate::store::{GameFilter, NewGame, NewSeat};
use crate::views::GameSummary;

problems! {
    IdTaken: 409, "The id is taken by a different game";
    BadGame: 422, "Unknown game, bad player count, a bad option or an unknown preset";
}

const DEFAULT_PAGE: i64 = 50;
const MAX_PAGE: i64 = 200;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!(examples::create_mint_condition()))]
pub struct CreateGame {
    /// Which game: `mint-condition`, `mind-up`, `mint-julep` or `vintage`.
    #[schema(value_type = crate::views::GameId)]
    pub game: String,
    /// In seat order. Each player has a `name`, or the `player_id` of one of the club's players.
    /// Every game is played by 2 to 6 (Mint Condition 2–5, Mind Up! 3–6, Mint Julep 2–4,
    /// Vintage 3–6; another count is refused with 422).
    #[schema(min_items = 2, max_items = 6)]
    pub players: Vec<PlayerInput>,
    /// The game's options; left-out options take their defaults. At most 16,384 bytes as
    /// compact JSON (a whole custom deck holds about 6,000; 422 beyond).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    /// When play began; default: now.
    #[serde(default)]
    pub started_at: Option<DateTime<Utc>>,
    /// A client-chosen UUID; re-sending the same id returns the same game.
    #[serde(default)]
    #[schema(format = Uuid)]
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
    /// 1 to 40 printable characters, one of them visible, no bidirectional control (spaces around it are trimmed); unique within the game.
    #[serde(default)]
    #[schema(
        min_length = 1,
        max_length = 40,
        pattern = r"^[^\x00-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]*[^\s\x00-\x1F\x7F-\x9F\u200B-\u200F\u2060-\u2064\uFEFF\u00AD\u034F\u180E\u115F\u1160\u3164\uFFA0\u202A-\u202E\u2066-\u2069][^\x00-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]*$"
    )]
    pub name: Option<String>,
    #[serde(default)]
    #[schema(format = Uuid)]
    pub player_id: Option<String>,
    /// At most 40 printable characters.
    #[serde(default)]
    #[schema(max_length = 40, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub color: Option<String>,
}

/// Starts a game: checks players and options, stores event 1 (`game_started`).
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it): each
/// game takes its own number of players (Mint Condition 2–5, Mind Up! 3–6, Mint Julep 2–4,
/// Vintage 3–6) and its own `options` (those of `POST /v1/presets` for that game); names are
/// unique within a game; a `player_id` must be one of the club's players (422).
#[utoipa::path(tag = "games", request_body(content = CreateGame, examples(
        ("mint-condition" = (summary = "Mint Condition: Ann and Bo, by the book (then the events examples \"mint-condition 1…5\")", value = json!(examples::create_mint_condition()))),
        ("mind-up" = (summary = "Mind Up!: four players, 2 objectives a round (then \"mind-up 1…4\")", value = json!(examples::create_mind_up()))),
        ("mint-julep" = (summary = "Mint Julep: three players, card by card (then \"mint-julep 1…6\")", value = json!(examples::create_mint_julep("mint-julep")))),
        ("mint-julep-finishes" = (summary = "Mint Julep: three players, finishes only (then \"mint-julep-finishes 1…5\")", value = json!(examples::create_mint_julep("mint-julep-finishes")))),
        ("vintage" = (summary = "Vintage: three players, four prizes, turn by turn (then \"vintage 1…4\")", value = json!(examples::create_vintage()))),
        ("vintage-collections" = (summary = "Vintage: three players, three prizes, collections only (then \"vintage-collections 1\")", value = json!(examples::create_vintage_collections()))),
    )), security(("club_token" = [])), responses(
    (status = 201, description = "Game created", body = GameSummary, headers(("Location" = String, description = "The game's URL")),
        links(
            ("GetGame" = (operation_id = "get_game", parameters(("id" = "$response.body#/id")))),
            ("AppendEvents" = (operation_id = "append_events", parameters(("id" = "$response.body#/id")))),
            ("ListEvents" = (operation_id = "list_events", parameters(("id" = "$response.body#/id")))),
            ("GetScore" = (operation_id = "get_score", parameters(("id" = "$response.body#/id")))),
        )),
    (status = 200, description = "A game with this id already exists with the same content", body = GameSummary),
    MalformedJson, Unauthorized, ReadOnlyToken, IdTaken, BodyTooLarge, NotJson, BadGame,
))]
#[post("/v1/games")]
pub async fn create_game(
    state: web::Data<AppState>,
    club: Club,
    body: Json<CreateGame>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let kind = Game::from_id(&body.game).ok_or_else(|| {
        ApiError::invalid(
            "/game",
            tabletally_domain::said!(
                "server.api.games.unknown_game",
                game = format!("{:?}", body.game),
                known = tabletally_domain::games::known_ids()
            ),
        )
    })?;
    let id = match &body.id {
        Some(id) => uuid::Uuid::parse_str(id)
            .map_err(|_| {
                ApiError::invalid(
                    "/id",
                    tabletally_domain::said!(
                        "server.api.games.id_not_uuid",
                        got = format!("{id:?}")
                    ),
                )
            })?
            .to_string(),
        None => uuid::Uuid::new_v4().to_string(),
    };
    let entries = resolve_players(&state, &club, &body.players).await?;
    // A creation re-sent after its answer was lost is the stored game, even when the preset it
    // named has changed or gone since (the stored options are those it had then).
    if body.preset.is_some()
        && body.id.is_some()
        && let Some(existing) = state.store.game(&club.id, &id).await?
        && same_game_from_preset(&existing, kind, &entries, body.options.as_ref())
    {
        return Ok(HttpResponse::Ok().json(GameSummary::from(existing)));
    }
    let options = match body.preset.as_deref() {
        Some(preset) => {
            super::presets::with_preset(&state, &club, kind, preset, body.options.as_ref()).await?
        }
        None => body.options.clone().unwrap_or(Value::Null),
    };
    crate::append::check_options_size(&options)
        .map_err(|why| ApiError::invalid("/options", why))?;
    let setup = kind
        .start(&entries, &options)
        .map_err(|e| ApiError::invalid(e.pointer, e.said))?;
    let new_game = NewGame {
        id: id.clone(),
        game: kind.id().to_owned(),
        players: setup
            .players
            .iter()
            .zip(&body.players)
            .map(|(p, input)| NewSeat {
                name: p.name.to_string(),
                player_id: input.player_id.clone(),
                color: p.color.clone(),
            })
            .collect(),
        options: setup.options,
        // Microseconds: what both databases keep.
        started_at: body.started_at.unwrap_or_else(Utc::now).trunc_subsecs(6),
        recorded_by: Some(club.token_name.clone()),
    };
    match state.store.create_game(&club.id, &new_game).await? {
        Some(game) => {
            tracing::info!(game = %game.id, kind = %game.game, "game started");
            state.metrics.game_created();
            Ok(HttpResponse::Created()
                .insert_header((header::LOCATION, format!("/v1/games/{}", game.id)))
                .json(GameSummary::from(game)))
        }
        // The id exists: the same game re-sent is answered with it, anything else is a conflict.
        None => match state.store.game(&club.id, &id).await? {
            Some(existing) if same_game(&existing, &new_game) => {
                Ok(HttpResponse::Ok().json(GameSummary::from(existing)))
            }
            _ => Err(ApiError::IdTaken(said!(
                "server.problem.game_id_taken",
                id = id
            ))),
        },
    }
}

/// Whether a creation naming a preset is this stored game: the same game and seats, and each
/// option the request gave itself as stored (the rest came from the preset).
fn same_game_from_preset(
    existing: &crate::store::GameRecord,
    kind: Game,
    entries: &[PlayerEntry],
    given: Option<&Value>,
) -> bool {
    let Ok(seated) = kind.seat(entries) else {
        return false;
    };
    existing.game == kind.id()
        && same_seats(existing, seated.iter().map(|p| (p.name.as_str(), &p.color)))
        && given
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .all(|(key, value)| existing.options.get(key) == Some(value))
}

fn same_game(existing: &crate::store::GameRecord, new: &NewGame) -> bool {
    existing.game == new.game
        && *existing.options == new.options
        && same_seats(
            existing,
            new.players.iter().map(|p| (p.name.as_str(), &p.color)),
        )
}

/// Whether the stored game seats these `(name, colour)`s, in this order.
fn same_seats<'a>(
    existing: &crate::store::GameRecord,
    seats: impl ExactSizeIterator<Item = (&'a str, &'a Option<String>)>,
) -> bool {
    existing.players.len() == seats.len()
        && existing
            .players
            .iter()
            .zip(seats)
            .all(|(a, (name, color))| a.name == name && a.color == *color)
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
                            tabletally_domain::said!("server.api.games.player_id_unknown", id = id),
                        )
                    })?;
                    if let Some(name) = name
                        .as_deref()
                        .filter(|n| !tabletally_domain::setup::same_name(n, known_name))
                    {
                        return Err(ApiError::invalid(
                            format!("/players/{i}/name"),
                            tabletally_domain::said!(
                                "server.api.games.player_id_other_name",
                                id = id,
                                known = format!("{known_name:?}"),
                                name = format!("{name:?}")
                            ),
                        ));
                    }
                    known_name.clone()
                }
                (None, Some(name)) => name.clone(),
                (None, None) => {
                    return Err(ApiError::invalid(
                        format!("/players/{i}"),
                        tabletally_domain::said!("server.api.games.player_needs_name"),
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
    (status = 200, description = "The game", body = GameSummary, headers(("ETag" = String, description = "The game's version and a fingerprint of this body (it changes when a seated player is merged into another), e.g. \"3-9f2c51d0a4b7e816\"; send it back in If-None-Match, or in If-Match on an append"))),
    (status = 304, description = "Not modified since the If-None-Match tag"),
    IdNotUuid, Unauthorized, NoSuchGame,
))]
#[get("/v1/games/{id}")]
pub async fn get_game(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
    request: actix_web::HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    let game = state
        .store
        .game(&club.id, &id)
        .await?
        .ok_or_else(|| ApiError::NotFound(said!("server.problem.no_such_game")))?;
    let version = game.version;
    let body = serde_json::to_vec(&GameSummary::from(game))
        .map_err(|e| ApiError::Internal(format!("game {id}: {e}")))?;
    let etag = summary_etag(version, &body);
    if not_modified(&request, &etag) {
        return Ok(not_modified_response(&etag));
    }
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag))
        .content_type(header::ContentType::json())
        .body(body))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct GamesQuery {
    /// Only this game id (e.g. `mint-condition`).
    #[param(value_type = Option<crate::views::GameId>)]
    pub game: Option<String>,
    /// Only games with this player (a name or a player id).
    #[param(pattern = r"^[^\x00]*$")]
    pub player: Option<String>,
    /// `in_progress`, `finished` or `abandoned`.
    #[param(value_type = Option<crate::views::GameStatus>)]
    pub status: Option<String>,
    /// Games started at or after this time.
    pub from: Option<DateTime<Utc>>,
    /// Games started before this time.
    pub to: Option<DateTime<Utc>>,
    /// Page size, 1–200 (default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page, exactly as given: opaque hexadecimal text. Any
    /// other text is refused with 400, and so is hexadecimal text this server did not give out
    /// (no schema can tell the two apart).
    #[param(pattern = r"^([0-9a-fA-F]{2})*$", max_length = 1024)]
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
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it): a
/// `cursor` must be a `next_cursor` this server gave out; other hexadecimal text is 400.
#[utoipa::path(tag = "games", security(("club_token" = [])), params(GamesQuery), responses(
    (status = 200, description = "A page of games", body = GamePage),
    BadQuery, Unauthorized,
))]
#[get("/v1/games")]
pub async fn list_games(
    state: web::Data<AppState>,
    club: Club,
    query: Query<GamesQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    // Text the databases cannot store cannot match anything either.
    for (name, value) in [("game", &query.game), ("player", &query.player)] {
        if value.as_deref().is_some_and(|v| v.contains('\0')) {
            return Err(ApiError::bad_parameter(
                name,
                tabletally_domain::said!("server.api.query.nul", parameter = format!("{name:?}")),
            ));
        }
    }
    // A filter on a game that does not exist is a typo, not an empty list.
    if let Some(game) = query.game.as_deref()
        && Game::from_id(game).is_none()
    {
        return Err(ApiError::bad_parameter(
            "game",
            tabletally_domain::said!(
                "server.api.query.unknown_game",
                game = format!("{game:?}"),
                known = tabletally_domain::games::known_ids()
            ),
        ));
    }
    let limit = super::cursor::page_limit(query.limit, DEFAULT_PAGE, MAX_PAGE)?;
    if let Some(status) = &query.status
        && tabletally_domain::Status::parse(status).is_none()
    {
        return Err(ApiError::bad_parameter(
            "status",
            tabletally_domain::said!("server.api.games.status", got = format!("{status:?}")),
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
    let reads = state.store.reads();
    let at = super::read_from::ReadAt::history(&reads, &club.id).await?;
    let mut games = reads.store.list_games(&club.id, &filter).await?;
    let next_cursor = if games.len() as i64 > limit {
        games.truncate(limit as usize);
        games
            .last()
            .map(|g| cursor::encode_game(g.started_at, &g.id))
    } else {
        None
    };
    let page = GamePage {
        games: games.into_iter().map(GameSummary::from).collect(),
        next_cursor,
    };
    Ok(at.answer(&page))
}
