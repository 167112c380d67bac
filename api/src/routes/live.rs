//! The live table: a game's stream, the club's lobby stream (server-sent events), and the
//! club's events in global order for an app catching up after being offline.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, web};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::problems::{BadQuery, NoSuchGame, Unauthorized, problems};
use crate::auth::Club;
use crate::error::ApiError;
use crate::extract::Query;
use crate::language::Language;
use crate::state::AppState;
use crate::streams::{GameStream, LobbyStream};

problems! {
    BadLastEventId: 400, "A bad Last-Event-ID";
    ClubStreamsFull: 429, "The club holds as many open streams as it may";
    ServerStreamsFull: 503, "The server holds as many open streams as it serves";
}

const DEFAULT_EVENTS_PAGE: i64 = 500;
const MAX_EVENTS_PAGE: i64 = 1000;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// Resume after this SSE id (digits), for clients that cannot send `Last-Event-ID`.
    #[param(pattern = "^[0-9]+$")]
    pub last_event_id: Option<String>,
    /// The token, for browsers' `EventSource` (which cannot send headers). Accepted on the
    /// two stream endpoints only; a share link's token is the one meant for URLs.
    pub access_token: Option<String>,
    /// The language of the scores' words (`en`, `fr` or `fa`), for browsers' `EventSource`
    /// (which cannot send `Accept-Language`); it wins over `Accept-Language`. Without either,
    /// English. Machine fields are the same in every language.
    #[param(pattern = "^(en|fr|fa)$")]
    pub lang: Option<String>,
}

/// The language a stream speaks: `?lang=` (one of ours, else 400), else `Accept-Language`.
fn stream_language(req: &HttpRequest, query: &StreamQuery) -> Result<Language, ApiError> {
    match query.lang.as_deref() {
        None => Ok(Language::of(req)),
        Some(tag) => Language::ALL
            .into_iter()
            .find(|l| l.tag() == tag)
            .ok_or_else(|| {
                ApiError::bad_parameter(
                    "lang",
                    tabletally_domain::said!("server.api.live.lang", got = format!("{tag:?}")),
                )
            }),
    }
}

/// `Last-Event-ID` (the header wins over `?last_event_id=`, but each must be well formed):
/// digits only, as the stream's ids are. A number past any id (even past what 64 bits hold) is
/// simply ahead of the log.
fn resume_from(req: &HttpRequest, query: &StreamQuery) -> Result<Option<i64>, ApiError> {
    let by_query = query
        .last_event_id
        .as_deref()
        .map(|text| event_id("\"last_event_id\"", "last_event_id", text))
        .transpose()?;
    match req.headers().get("last-event-id") {
        Some(value) => {
            let text = value.to_str().unwrap_or_default().trim();
            event_id("Last-Event-ID", "Last-Event-ID", text).map(Some)
        }
        None => Ok(by_query),
    }
}

/// An SSE id sent back: `said` is how the refusal names it, `parameter` which one it was.
fn event_id(said: &str, parameter: &str, text: &str) -> Result<i64, ApiError> {
    // Digits only: a sign ("+1"), which Rust's number parser would take, is no id the stream sent.
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::bad_parameter(
            parameter,
            tabletally_domain::said!(
                "server.api.live.event_id_whole",
                id = said,
                got = format!("{text:?}")
            ),
        ));
    }
    Ok(text.parse::<i64>().unwrap_or(i64::MAX))
}

fn event_stream(
    body: impl futures_util::Stream<Item = Result<web::Bytes, actix_web::Error>> + 'static,
) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        // Proxies such as nginx would otherwise hold events back in their buffers.
        .insert_header(("x-accel-buffering", "no"))
        .streaming(body)
}

/// A game's live stream: `snapshot` (game summary and scoreboard), then one `appended` per
/// accepted append (its stored events and the new scoreboard); every SSE `id:` is the game's
/// version after it. With `Last-Event-ID: <v>` the stream starts with every append after `v`
/// instead of the snapshot (a `v` beyond the game's version gets the snapshot: the client's
/// copy is not this log's). A comment line every 10 s keeps it open. The scores' labels and
/// details are said in the language of `?lang=` (else `Accept-Language`), as `GET …/score`
/// says them; `Content-Language` names it.
#[utoipa::path(tag = "live", security(("club_token" = [])),
    params(("id" = uuid::Uuid, Path, description = "Game id"),
           ("Last-Event-ID" = Option<String>, Header, nullable = false, pattern = "^[0-9]+$", description = "Resume after this version (digits); beyond the game's version, the stream starts again with a snapshot"),
           StreamQuery),
    responses(
        (status = 200, description = "text/event-stream: `snapshot` (SnapshotData), then `appended` (AppendedData) events", content_type = "text/event-stream", body = String),
        BadLastEventId, Unauthorized, NoSuchGame, ClubStreamsFull, ServerStreamsFull,
    ))]
#[get("/v1/games/{id}/stream")]
pub async fn game_stream(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
    query: Query<StreamQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    let resume = resume_from(&req, &query)?;
    let language = stream_language(&req, &query)?;
    let stream = GameStream::open(
        &state.live,
        state.store.clone(),
        &club,
        &id,
        resume,
        language,
        crate::client::address(&req),
    )
    .await?;
    Ok(event_stream(stream.into_body()))
}

/// The club's lobby: `game_created`, `game_finished`, `game_abandoned` and `game_resumed`, each
/// with the game's summary; the SSE `id:` is a position of the club's log, so
/// `Last-Event-ID` may also be the `next_after` of `GET /v1/events`.
#[utoipa::path(tag = "live", security(("club_token" = [])),
    params(("Last-Event-ID" = Option<String>, Header, nullable = false, pattern = "^[0-9]+$", description = "Resume after this position (digits); beyond every position this database has given, the stream starts again from the club's beginning (every game's news once more)"), StreamQuery),
    responses(
        (status = 200, description = "text/event-stream of lobby events, each with the game's summary (GameSummary) as data", content_type = "text/event-stream", body = String),
        BadLastEventId, Unauthorized, ClubStreamsFull, ServerStreamsFull,
    ))]
#[get("/v1/stream")]
pub async fn lobby_stream(
    state: web::Data<AppState>,
    club: Club,
    query: Query<StreamQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let resume = resume_from(&req, &query)?;
    // The lobby's events carry no words, but a bad `lang` is refused alike.
    stream_language(&req, &query)?;
    let stream = LobbyStream::open(
        &state.live,
        state.store.clone(),
        &club,
        resume,
        crate::client::address(&req),
    )
    .await?;
    Ok(event_stream(stream.into_body()))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ClubEventsQuery {
    /// Only events after this position (default 0: from the start).
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// Page size, 1–1000 (default 500). A page also ends before its events' data passes
    /// 1 MiB; `next_after` is where the next begins.
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
}

/// An event of the club's log in global order.
#[derive(Debug, Serialize, ToSchema)]
pub struct ClubEventView {
    /// Global order of appends; the lobby stream's SSE ids are positions too.
    pub position: i64,
    pub game_id: String,
    pub seq: i64,
    pub id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    #[schema(value_type = Object)]
    pub data: Value,
    pub recorded_at: chrono::DateTime<chrono::Utc>,
    /// Who recorded it: the name of the token that appended it (`null` for older events).
    pub recorded_by: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ClubEventPage {
    pub events: Vec<ClubEventView>,
    /// Pass as `after` for the next page; once a page is shorter than `limit`, follow
    /// `GET /v1/stream` with it as `Last-Event-ID`. The `after` given when the page is empty.
    pub next_after: i64,
}

/// The club's events in their global order, with each event's game: an app that was offline
/// syncs everything it missed in one loop, then follows the lobby from `next_after`.
#[utoipa::path(tag = "live", security(("club_token" = [])), params(ClubEventsQuery), responses(
    (status = 200, description = "A page of the club's log", body = ClubEventPage),
    BadQuery, Unauthorized,
))]
#[get("/v1/events")]
pub async fn club_events(
    state: web::Data<AppState>,
    club: Club,
    query: Query<ClubEventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = super::cursor::page_limit(query.limit, DEFAULT_EVENTS_PAGE, MAX_EVENTS_PAGE)?;
    let after = query.after.unwrap_or(0);
    if after < 0 {
        return Err(ApiError::bad_parameter(
            "after",
            tabletally_domain::said!("server.api.query.after", got = after),
        ));
    }
    let read = state.store.club_events(&club.id, after, limit).await?;
    let (read, _) =
        crate::routes::events::page_of(read.into_iter(), limit as usize, |(_, e)| &e.data);
    let events: Vec<ClubEventView> = read
        .into_iter()
        .map(|(game_id, e)| ClubEventView {
            position: e.position,
            game_id,
            seq: e.seq,
            id: e.id,
            event_type: e.event_type,
            data: e.data,
            recorded_at: e.recorded_at,
            recorded_by: e.recorded_by,
        })
        .collect();
    let next_after = events.last().map_or(after, |e| e.position);
    Ok(HttpResponse::Ok().json(ClubEventPage { events, next_after }))
}
