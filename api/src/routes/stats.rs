//! Players and statistics over a club's finished games (abandoned games and retracted events
//! never count: the read models hold only what the replayed log says).

use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tabletally_domain::Game;
use tabletally_domain::insights::round3;
use tabletally_domain::said;
use utoipa::{IntoParams, ToSchema};

use super::cursor;
use crate::auth::Club;
use crate::error::{ApiError, Problem};
use crate::extract::Query;
use crate::state::AppState;
use crate::statistics::{self, LeaderboardEntry, LeaderboardSort, PlayerStats};
use crate::store::{PlayerRow, Reads, StatsFilter};

const DEFAULT_PAGE: i64 = 50;
const MAX_PAGE: i64 = 200;

fn page_limit(limit: Option<i64>) -> Result<i64, ApiError> {
    super::cursor::page_limit(limit, DEFAULT_PAGE, MAX_PAGE)
}

fn check_game(game: Option<&str>) -> Result<(), ApiError> {
    match game {
        Some(id) if Game::from_id(id).is_none() => Err(ApiError::bad_parameter(
            "game",
            tabletally_domain::said!(
                "server.api.query.unknown_game",
                game = format!("{id:?}"),
                known = tabletally_domain::games::known_ids()
            ),
        )),
        _ => Ok(()),
    }
}

/// The stored variant a query selects (`""`: the published rules), checked against the game's
/// variants. `None`: every variant, which only a query without a game may ask for.
/// `published_by_default`: without `variant`, a game's figures are its published rules' ones.
fn select_variant(
    game: Option<&str>,
    variant: Option<&str>,
    published_by_default: bool,
) -> Result<Option<String>, ApiError> {
    let Some(game) = game.and_then(Game::from_id) else {
        return match variant {
            Some(_) => Err(ApiError::bad_parameter(
                "variant",
                tabletally_domain::said!("server.api.stats.variant_needs_game"),
            )),
            None => Ok(None),
        };
    };
    match variant {
        None => Ok(published_by_default.then(String::new)),
        Some(id) => match game.variant_by_id(id) {
            Some(v) => Ok(Some(v.id.to_owned())),
            None => Err(ApiError::bad_parameter(
                "variant",
                match game.variants() {
                    [] => tabletally_domain::said!(
                        "server.api.stats.no_variants",
                        game = game.title()
                    ),
                    known => tabletally_domain::said!(
                        "server.api.stats.unknown_variant",
                        variant = format!("{id:?}"),
                        game = game.title(),
                        variants = known.iter().map(|v| v.id).collect::<Vec<_>>().join(", ")
                    ),
                },
            )),
        },
    }
}

/// The variants the statistics count apart, of every game (`Game::variants`).
#[derive(utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)] // a name for the document only: queries read the variant as text
pub enum VariantId {
    /// Mint Condition's "Heavily Used": the highest total wins.
    HeavilyUsed,
}

fn not_found() -> ApiError {
    ApiError::NotFound(tabletally_domain::said!(
        "server.api.players.no_such_player"
    ))
}

/// A statistics or history answer, saying where it was read (`Read-From`) and the newest lobby
/// change of the club that database held once it was read (`Read-Position`): the answer
/// counts nothing after that position (see docs/deploy.md, "Reads from the standby").
pub(super) async fn read_answer(
    reads: &Reads<'_>,
    club: &str,
    body: &impl Serialize,
) -> Result<HttpResponse, ApiError> {
    let seen = reads.store.seen_position(club).await?;
    Ok(HttpResponse::Ok()
        .insert_header((READ_FROM, reads.from.as_str()))
        .insert_header((READ_POSITION, seen))
        .json(body))
}

const READ_FROM: &str = "Read-From";
const READ_POSITION: &str = "Read-Position";

/// The reads [`read_answer`] serves: they may come from a standby.
const READ_FROM_STANDBY: [&str; 7] = [
    "/v1/games",
    "/v1/players",
    "/v1/players/{id}/stats",
    "/v1/players/{id}/games",
    "/v1/stats/leaderboard",
    "/v1/stats/head-to-head",
    "/v1/stats/games/{game}",
];

/// Says in the OpenAPI document which answers carry `Read-From` and `Read-Position`.
pub fn describe_read_headers(api: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::header::HeaderBuilder;
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    use utoipa::openapi::{Ref, RefOr};

    let components = api.components.get_or_insert_with(Default::default);
    components.headers.insert(
        "ReadFrom".into(),
        RefOr::T(
            HeaderBuilder::new()
                .schema(Some(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .enum_values(Some(["primary", "standby"])),
                ))
                .description(Some(
                    "The database this answer was read from: `standby` when the server reads \
                     statistics and history lists from a standby (`TABLETALLY_READ_DATABASE_URL`) \
                     and one answered, else `primary`.",
                ))
                .build(),
        ),
    );
    components.headers.insert(
        "ReadPosition".into(),
        RefOr::T(
            HeaderBuilder::new()
                .schema(Some(
                    ObjectBuilder::new()
                        .schema_type(Type::Integer)
                        .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                            utoipa::openapi::KnownFormat::Int64,
                        )))
                        .minimum(Some(0)),
                ))
                .description(Some(
                    "The newest change of the club's lobby (a game created, finished, abandoned \
                     or resumed; the lobby stream's `id`) that the database held once this \
                     answer was read: the answer counts no change after it. A standby may be \
                     behind the primary; a game's own reads (`/v1/games/{id}`, its score, its \
                     events) always come from the primary and never go backwards.",
                ))
                .build(),
        ),
    );
    for path in READ_FROM_STANDBY {
        let Some(RefOr::T(ok)) = api
            .paths
            .paths
            .get_mut(path)
            .and_then(|item| item.get.as_mut())
            .and_then(|get| get.responses.responses.get_mut("200"))
        else {
            panic!("the document has no 200 answer of GET {path}");
        };
        for (name, component) in [(READ_FROM, "ReadFrom"), (READ_POSITION, "ReadPosition")] {
            ok.headers.insert(
                name.into(),
                RefOr::Ref(Ref::new(format!("#/components/headers/{component}"))),
            );
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerSummary {
    pub id: String,
    pub name: String,
    /// Finished games played.
    pub games_played: i64,
    pub last_played: Option<DateTime<Utc>>,
}

impl From<PlayerRow> for PlayerSummary {
    fn from(p: PlayerRow) -> Self {
        Self {
            id: p.id,
            name: p.name,
            games_played: p.games_played,
            last_played: p.last_played,
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PlayersQuery {
    /// Part of a name, ignoring case.
    #[param(pattern = r"^[^\x00]*$")]
    pub search: Option<String>,
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
pub struct PlayerPage {
    /// By name.
    pub players: Vec<PlayerSummary>,
    pub next_cursor: Option<String>,
}

/// The club's players by name, with the number of finished games each played.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it): a
/// `cursor` must decode to a name (hexadecimal UTF-8, as `next_cursor` is); other text is 400.
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(PlayersQuery), responses(
    (status = 200, description = "A page of players", body = PlayerPage),
    (status = 400, description = "A bad query parameter", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "Missing or wrong token", body = Problem, content_type = "application/problem+json"),
))]
#[get("/v1/players")]
pub async fn list_players(
    state: web::Data<AppState>,
    club: Club,
    query: Query<PlayersQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = page_limit(query.limit)?;
    if query.search.as_deref().is_some_and(|v| v.contains('\0')) {
        return Err(ApiError::bad_parameter(
            "search",
            tabletally_domain::said!("server.api.query.nul", parameter = "\"search\""),
        ));
    }
    let after = query
        .cursor
        .as_deref()
        .map(cursor::decode_name)
        .transpose()?;
    let reads = state.store.reads();
    let mut players = reads
        .store
        .list_players(
            &club.id,
            query.search.as_deref(),
            after.as_deref(),
            limit + 1,
        )
        .await?;
    let next_cursor = if players.len() as i64 > limit {
        players.truncate(limit as usize);
        players.last().map(|p| cursor::encode_name(&p.name))
    } else {
        None
    };
    let page = PlayerPage {
        players: players.into_iter().map(PlayerSummary::from).collect(),
        next_cursor,
    };
    read_answer(&reads, &club.id, &page).await
}

/// One club player.
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "Player id")), responses(
    (status = 200, description = "The player", body = PlayerSummary),
    (status = 400, description = "The id is not a UUID", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "Missing or wrong token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "No such player in this club", body = Problem, content_type = "application/problem+json"),
))]
#[get("/v1/players/{id}")]
pub async fn get_player(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    let player = state
        .store
        .player(&club.id, &id)
        .await?
        .ok_or_else(not_found)?;
    Ok(HttpResponse::Ok().json(PlayerSummary::from(player)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct StatsQuery {
    /// Only this game id.
    #[param(value_type = Option<crate::views::GameId>)]
    pub game: Option<String>,
    /// Only this variant of the game; needs `game`, a game that has the variant
    /// (`heavily-used`: Mint Condition only; Mind Up!, Mint Julep and Vintage have none).
    /// Refused with 400 otherwise.
    #[param(inline, value_type = Option<VariantId>)]
    pub variant: Option<String>,
    /// Games played at or after this time.
    pub from: Option<DateTime<Utc>>,
    /// Games played before this time.
    pub to: Option<DateTime<Utc>>,
}

impl StatsQuery {
    fn filter(&self) -> Result<StatsFilter, ApiError> {
        check_game(self.game.as_deref())?;
        Ok(StatsFilter {
            variant: select_variant(self.game.as_deref(), self.variant.as_deref(), false)?,
            game: self.game.clone(),
            from: self.from,
            to: self.to,
        })
    }
}

/// A player's statistics: wins, win rate, scores per game, ranks and streaks.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it):
/// `variant` needs `game`, a game that has that variant (400).
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "Player id"), StatsQuery), responses(
    (status = 200, description = "The player's statistics", body = PlayerStats),
    (status = 400, description = "A bad query parameter", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "Missing or wrong token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "No such player in this club", body = Problem, content_type = "application/problem+json"),
))]
#[get("/v1/players/{id}/stats")]
pub async fn player_stats(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
    query: Query<StatsQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    let filter = query.filter()?;
    let player = state
        .store
        .player(&club.id, &id)
        .await?
        .ok_or_else(not_found)?;
    let reads = state.store.reads();
    let results = reads
        .store
        .results_of_player(&club.id, &id, &filter)
        .await?;
    let stats = statistics::player_stats(&player.id, &player.name, &results);
    read_answer(&reads, &club.id, &stats).await
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PlayerGamesQuery {
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
pub struct PlayerGame {
    pub game_id: String,
    pub game: String,
    /// The variant the game plays, whose figures its result counts in (`heavily-used`: the
    /// highest Mint Condition total wins); absent for the published rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub status: String,
    pub started_at: DateTime<Utc>,
    pub seat: i64,
    /// The name the player had at that table.
    pub name: String,
    /// The player's result once the game is finished.
    pub total: Option<i64>,
    pub rank: Option<i64>,
    pub won: Option<bool>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerGamePage {
    /// Newest first.
    pub games: Vec<PlayerGame>,
    pub next_cursor: Option<String>,
}

/// The player's games, newest first, with their result when finished.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it): a
/// `cursor` must be a `next_cursor` this server gave out; other hexadecimal text is 400.
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "Player id"), PlayerGamesQuery), responses(
    (status = 200, description = "A page of the player's games", body = PlayerGamePage),
    (status = 400, description = "A bad query parameter", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "Missing or wrong token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "No such player in this club", body = Problem, content_type = "application/problem+json"),
))]
#[get("/v1/players/{id}/games")]
pub async fn player_games(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
    query: Query<PlayerGamesQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    let limit = page_limit(query.limit)?;
    let after = query
        .cursor
        .as_deref()
        .map(cursor::decode_game)
        .transpose()?;
    state
        .store
        .player(&club.id, &id)
        .await?
        .ok_or_else(not_found)?;
    let reads = state.store.reads();
    let mut rows = reads
        .store
        .player_games(&club.id, &id, after.as_ref(), limit + 1)
        .await?;
    let next_cursor = if rows.len() as i64 > limit {
        rows.truncate(limit as usize);
        rows.last()
            .map(|g| cursor::encode_game(g.started_at, &g.game_id))
    } else {
        None
    };
    let games = rows
        .into_iter()
        .map(|g| PlayerGame {
            variant: crate::records::variant_of(&g.game, &g.options),
            game_id: g.game_id,
            game: g.game,
            status: g.status,
            started_at: g.started_at,
            seat: g.seat,
            name: g.name,
            total: g.total,
            rank: g.rank,
            won: g.won,
        })
        .collect();
    read_answer(&reads, &club.id, &PlayerGamePage { games, next_cursor }).await
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct LeaderboardQuery {
    /// Only this game id (needed to sort by average score).
    #[param(value_type = Option<crate::views::GameId>)]
    pub game: Option<String>,
    /// With `game`: this variant's games; without it, the game's published rules. Needs `game`,
    /// a game that has the variant (`heavily-used`: Mint Condition only; Mind Up!, Mint Julep
    /// and Vintage have none); refused with 400 otherwise. Figures never mix scoring directions.
    #[param(inline, value_type = Option<VariantId>)]
    pub variant: Option<String>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    /// Leave out players with fewer finished games (default 1).
    #[param(minimum = 0)]
    pub min_games: Option<i64>,
    /// `win_rate` (default), `wins` or `average_score` (lowest first where the lowest total wins).
    pub sort: Option<LeaderboardSort>,
    /// At most this many entries, 1–200 (default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Leaderboard {
    pub sort: LeaderboardSort,
    pub game: Option<String>,
    /// The variant counted (`heavily-used`); absent for the published rules or all games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub min_games: i64,
    pub players: Vec<LeaderboardEntry>,
}

/// Players ranked by win rate, wins or average score.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it):
/// `variant` needs `game`, a game that has that variant (400).
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(LeaderboardQuery), responses(
    (status = 200, description = "The leaderboard", body = Leaderboard),
    (status = 400, description = "A bad query parameter", body = Problem, content_type = "application/problem+json"),
    (status = 422, description = "sort=average_score without a game", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "Missing or wrong token", body = Problem, content_type = "application/problem+json"),
))]
#[get("/v1/stats/leaderboard")]
pub async fn leaderboard(
    state: web::Data<AppState>,
    club: Club,
    query: Query<LeaderboardQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    check_game(query.game.as_deref())?;
    let sort = query.sort.unwrap_or(LeaderboardSort::WinRate);
    if sort == LeaderboardSort::AverageScore && query.game.is_none() {
        return Err(ApiError::Unprocessable {
            parameter: None,
            detail: tabletally_domain::said!("server.api.stats.average_needs_game"),
            pointer: None,
            event_index: None,
        });
    }
    let limit = page_limit(query.limit)?;
    let min_games = query.min_games.unwrap_or(1);
    if min_games < 0 {
        return Err(ApiError::bad_parameter(
            "min_games",
            tabletally_domain::said!("server.api.stats.min_games", got = min_games),
        ));
    }
    let filter = StatsFilter {
        variant: select_variant(query.game.as_deref(), query.variant.as_deref(), true)?,
        game: query.game.clone(),
        from: query.from,
        to: query.to,
    };
    let reads = state.store.reads();
    let rows = reads.store.leaderboard(&club.id, &filter).await?;
    let mut players = statistics::leaderboard(rows, sort, min_games, query.game.is_some());
    players.truncate(limit as usize);
    let board = Leaderboard {
        sort,
        variant: filter
            .variant
            .as_deref()
            .and_then(statistics::variant_field),
        game: query.game,
        min_games,
        players,
    };
    read_answer(&reads, &club.id, &board).await
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct HeadToHeadQuery {
    /// Two different players of the club, comma-separated, each by name (ignoring case) or id:
    /// `Ann,Bo`. A player the club does not have is 404; the same player twice is refused with 400.
    #[param(pattern = r"^[^,\x00]*[^,\s\x00][^,\x00]*,[^,\x00]*[^,\s\x00][^,\x00]*$")]
    pub players: String,
    #[param(value_type = Option<crate::views::GameId>)]
    pub game: Option<String>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HeadToHead {
    pub players: Vec<super::stats::PlayerSummary>,
    /// Finished games both played.
    pub games_together: i64,
    /// Games where the first player finished ahead (a better rank).
    pub first_ahead: i64,
    pub second_ahead: i64,
    /// Games where they shared a rank.
    pub tied: i64,
    /// Per game id and variant: games together and who was ahead.
    pub per_game: Vec<HeadToHeadGame>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HeadToHeadGame {
    pub game: String,
    /// The variant these games played (`heavily-used`), counted apart from the published rules;
    /// absent for the published rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub games_together: i64,
    pub first_ahead: i64,
    pub second_ahead: i64,
    pub tied: i64,
}

/// A club player by id, or by name under the one name rule (ignoring case).
async fn player_by_name_or_id(
    state: &AppState,
    club: &Club,
    given: &str,
) -> Result<PlayerRow, ApiError> {
    if given.is_empty() || given.contains('\0') {
        return Err(ApiError::bad_parameter(
            "players",
            tabletally_domain::said!("server.api.stats.two_players"),
        ));
    }
    match uuid::Uuid::parse_str(given) {
        Ok(id) => state
            .store
            .player(&club.id, &id.to_string())
            .await?
            .ok_or_else(not_found),
        Err(_) => state
            .store
            .player_named(&club.id, given)
            .await?
            .ok_or_else(|| {
                ApiError::NotFound(said!(
                    "server.problem.no_player_called",
                    name = format!("{given:?}")
                ))
            }),
    }
}

/// Two players: games together and who finished ahead how often.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it): the
/// two must be different players (400): a name and the same player's id are one player.
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(HeadToHeadQuery), responses(
    (status = 200, description = "Head-to-head", body = HeadToHead),
    (status = 400, description = "A bad query parameter", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "Missing or wrong token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "A player is not in this club (by that name or id)", body = Problem, content_type = "application/problem+json"),
))]
#[get("/v1/stats/head-to-head")]
pub async fn head_to_head(
    state: web::Data<AppState>,
    club: Club,
    query: Query<HeadToHeadQuery>,
) -> Result<HttpResponse, ApiError> {
    check_game(query.game.as_deref())?;
    let given: Vec<&str> = query.players.split(',').map(str::trim).collect();
    let [a, b] = given[..] else {
        return Err(ApiError::bad_parameter(
            "players",
            tabletally_domain::said!("server.api.stats.two_players"),
        ));
    };
    let first = player_by_name_or_id(&state, &club, a).await?;
    let second = player_by_name_or_id(&state, &club, b).await?;
    if first.id == second.id {
        return Err(ApiError::bad_parameter(
            "players",
            tabletally_domain::said!(
                "server.api.stats.same_player_twice",
                first = format!("{a:?}"),
                second = format!("{b:?}"),
                name = first.name.as_str()
            ),
        ));
    }
    let (a, b) = (first.id.as_str(), second.id.as_str());
    let filter = StatsFilter {
        game: query.game.clone(),
        variant: None,
        from: query.from,
        to: query.to,
    };
    let reads = state.store.reads();
    let rows = reads.store.head_to_head(&club.id, a, b, &filter).await?;
    let mut per_game: Vec<HeadToHeadGame> = Vec::new();
    for row in &rows {
        let variant = statistics::variant_field(&row.variant);
        let entry = match per_game
            .iter_mut()
            .position(|g| g.game == row.game && g.variant == variant)
        {
            Some(i) => &mut per_game[i],
            None => {
                per_game.push(HeadToHeadGame {
                    game: row.game.clone(),
                    variant,
                    games_together: 0,
                    first_ahead: 0,
                    second_ahead: 0,
                    tied: 0,
                });
                per_game.last_mut().expect("just pushed")
            }
        };
        entry.games_together += 1;
        match row.rank_a.cmp(&row.rank_b) {
            std::cmp::Ordering::Less => entry.first_ahead += 1,
            std::cmp::Ordering::Greater => entry.second_ahead += 1,
            std::cmp::Ordering::Equal => entry.tied += 1,
        }
    }
    per_game.sort_by(|x, y| (&x.game, &x.variant).cmp(&(&y.game, &y.variant)));
    let together = HeadToHead {
        players: vec![first.into(), second.into()],
        games_together: rows.len() as i64,
        first_ahead: per_game.iter().map(|g| g.first_ahead).sum(),
        second_ahead: per_game.iter().map(|g| g.second_ahead).sum(),
        tied: per_game.iter().map(|g| g.tied).sum(),
        per_game,
    };
    read_answer(&reads, &club.id, &together).await
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct GameStatsQuery {
    /// This variant's games; without it, the published rules. Only a game that has the variant
    /// takes it (`heavily-used`: Mint Condition only; Mind Up!, Mint Julep and Vintage have
    /// none); refused with 400 otherwise.
    #[param(inline, value_type = Option<VariantId>)]
    pub variant: Option<String>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RecordScore {
    /// The variant the record was set in (`heavily-used`); absent for the published rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub total: i64,
    pub player: String,
    pub game_id: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GameStats {
    pub game: String,
    /// The variant counted (`heavily-used`); absent for the published rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// Finished games.
    pub plays: i64,
    /// Average total per player and game; null when no game counts (nothing to average).
    pub average_score: Option<f64>,
    /// True when the lowest total wins these games (as their scoreboards said).
    pub lower_is_better: bool,
    /// The best total ever (the lowest where the lowest wins).
    pub record_best: Option<RecordScore>,
    pub record_worst: Option<RecordScore>,
    /// Rule-aware insights, per game: Mint Condition damage per card kind and how often Be
    /// Careful! decided a game; Mind Up! points per column value and objective hit rates; Mint
    /// Julep win rate per horse bet and the cost of late bets; Vintage prizes and average value.
    #[schema(value_type = Object)]
    pub insights: Value,
}

/// A game's statistics over the club's finished plays.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it):
/// `variant` only for a game that has that variant (400).
#[utoipa::path(tag = "statistics", security(("club_token" = [])), params(("game" = crate::views::GameId, Path, description = "Game id, e.g. mint-condition"), GameStatsQuery), responses(
    (status = 200, description = "The game's statistics", body = GameStats),
    (status = 400, description = "A bad query parameter", body = Problem, content_type = "application/problem+json"),
    (status = 401, description = "Missing or wrong token", body = Problem, content_type = "application/problem+json"),
    (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
))]
#[get("/v1/stats/games/{game}")]
pub async fn game_stats(
    state: web::Data<AppState>,
    club: Club,
    game: web::Path<String>,
    query: Query<GameStatsQuery>,
) -> Result<HttpResponse, ApiError> {
    let game = game.into_inner();
    let Some(kind) = Game::from_id(&game) else {
        return Err(ApiError::NotFound(said!(
            "server.problem.unknown_game",
            game = format!("{game:?}"),
            games = tabletally_domain::games::known_ids()
        )));
    };
    let variant = select_variant(Some(&game), query.variant.as_deref(), true)?;
    let filter = StatsFilter {
        game: Some(game.clone()),
        variant: variant.clone(),
        from: query.from,
        to: query.to,
    };
    let reads = state.store.reads();
    let rows = reads.store.game_stats(&club.id, &game, &filter).await?;
    let variant = variant.as_deref().and_then(statistics::variant_field);
    // The direction the games' scoreboards recorded; with no finished game, the variant's own.
    let lower = rows
        .lower_wins
        .unwrap_or_else(|| kind.lower_wins(variant.as_deref().and_then(|v| kind.variant_by_id(v))));
    let record = |r: &Option<(i64, String, String)>| {
        r.as_ref().map(|(total, player, game_id)| RecordScore {
            variant: variant.clone(),
            total: *total,
            player: player.clone(),
            game_id: game_id.clone(),
        })
    };
    let (best, worst) = if lower {
        (record(&rows.lowest), record(&rows.highest))
    } else {
        (record(&rows.highest), record(&rows.lowest))
    };
    let stats = GameStats {
        insights: statistics::game_insights(kind, &rows),
        average_score: (rows.results > 0)
            .then(|| round3(rows.total_sum as f64 / rows.results as f64)),
        game,
        variant,
        plays: rows.plays,
        lower_is_better: lower,
        record_best: best,
        record_worst: worst,
    };
    read_answer(&reads, &club.id, &stats).await
}
