//! A club's history in and out (`tabletally.game/1` NDJSON, see [`crate::portability`]).

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use futures_util::{StreamExt, TryStreamExt};
use tabletally_domain::{Message, said};

use serde::Deserialize;
use utoipa::IntoParams;

use super::problems::{ReadOnlyToken, Unauthorized, problems};
use crate::auth::Club;
use crate::error::ApiError;
use crate::extract::Query;
use crate::language::Language;
use crate::portability::{self, GameIds, ImportReport, other_apps};
use crate::state::AppState;
use crate::store::Store;

problems! {
    BadNewIds: 400, "A query parameter is not what it must be (`new_ids` is true or false)";
    NotBgStats: 400, "The file is not a BG Stats export";
    NotBggPlays: 400, "The file is not a BoardGameGeek plays file";
    FileTooLarge: 413, "The file is larger than TABLETALLY_IMPORT_MAX_BYTES";
    ImportsBusy: 503, "The server is importing as many files at once as it takes (2): send it again after Retry-After";
}

/// The club's whole history, streamed as it is read: first its players
/// (`tabletally.player/1`) and table presets (`tabletally.preset/1`), then one game a line
/// (`tabletally.game/1`), every stored event included. Tokens and share links stay behind.
#[utoipa::path(tag = "portability", security(("club_token" = [])), responses(
    (status = 200, description = "One JSON object per line, each with its \"format\": {\"format\": \"tabletally.player/1\", \"player\": {\"id\", \"name\", \"former_names\": [<the other names their games seat them under>], \"created_at\"}} for each player, {\"format\": \"tabletally.preset/1\", \"preset\": {\"id\", \"name\", \"game\", \"options\", \"created_at\"}} for each preset, then {\"format\": \"tabletally.game/1\", \"game\": <game summary>, \"events\": [<every stored event>]} for each game, in the order they were played", content_type = "application/x-ndjson", body = String),
    Unauthorized,
))]
#[get("/v1/export")]
pub async fn export(state: web::Data<AppState>, club: Club) -> HttpResponse {
    let lines = portability::export(state.store.clone(), club.id).map_ok(web::Bytes::from);
    HttpResponse::Ok()
        .content_type("application/x-ndjson")
        .streaming(lines.map_err(|e| actix_web::error::ErrorInternalServerError(e.to_string())))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ImportQuery {
    /// `true`: give each game, player and preset a new id, made from this club and the file's
    /// id — to copy another club's history on the same server (an id belongs to one club).
    /// Importing the copy twice still changes nothing. Default `false`: the file's ids are kept.
    pub new_ids: Option<bool>,
}

impl ImportQuery {
    fn ids(&self) -> GameIds {
        if self.new_ids.unwrap_or(false) {
            GameIds::New
        } else {
            GameIds::Kept
        }
    }
}

/// Imports an export (NDJSON: players, presets, games). Players and presets keep their ids;
/// each game is checked by the rules as if its events were appended and stored whole or not
/// at all, with its ids, its seats going to the players its summary names (merged and renamed
/// players included) when the club has them, else matched by name (files of games alone).
/// Whatever is already present is left as it is, so importing a file twice changes nothing.
/// A broken line is reported with its number and, in words, what the line must be; the others
/// still import.
#[utoipa::path(tag = "portability", security(("club_token" = [])), params(ImportQuery),
    request_body(content = String, content_type = "application/x-ndjson", description = "One exported player, preset or game per line (`tabletally.player/1`, `tabletally.preset/1`, `tabletally.game/1`)"),
    responses(
    (status = 200, description = "What was imported, line by line", body = ImportReport),
    BadNewIds, Unauthorized, ReadOnlyToken, FileTooLarge, ImportsBusy,
))]
#[post("/v1/import")]
pub async fn import(
    req: HttpRequest,
    state: web::Data<AppState>,
    club: Club,
    query: Query<ImportQuery>,
    mut body: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let ids = query.ids();
    let _turn = import_turn(&state)?;
    let limit = state.import_max_bytes;
    let mut report = ImportReport::default();
    let mut pending: Vec<u8> = Vec::new();
    let (mut received, mut line_number) = (0usize, 0u64);
    // Line by line as the body arrives: memory holds one game, not the file.
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(unreadable)?;
        received += chunk.len();
        if received > limit {
            return Err(ApiError::PayloadTooLarge(limit));
        }
        pending.extend_from_slice(&chunk);
        while let Some(end) = pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            line_number += 1;
            import_line(&state, &club, line_number, &line, &mut report, ids).await;
        }
    }
    if !pending.is_empty() {
        line_number += 1;
        import_line(&state, &club, line_number, &pending, &mut report, ids).await;
    }
    Ok(said(&req, report))
}

async fn import_line(
    state: &AppState,
    club: &Club,
    number: u64,
    line: &[u8],
    report: &mut ImportReport,
    ids: GameIds,
) {
    match std::str::from_utf8(line) {
        Ok(text) if text.trim().is_empty() => {}
        Ok(text) => {
            let store = state.store.as_ref();
            portability::import_line_as(store, &club.id, number, text.trim(), report, ids).await;
            // The worker's other requests (a table's append) go first between two games.
            tokio::task::yield_now().await;
        }
        Err(_) => report.refuse(portability::ImportFailure {
            line: number,
            game_id: None,
            status: 400,
            detail: said!("server.api.import.line.not_utf8"),
        }),
    }
}

/// The report, its details said in the language the request asks for.
fn said(req: &HttpRequest, report: ImportReport) -> HttpResponse {
    HttpResponse::Ok().json(report.said_in(Language::of(req).catalogue()))
}

/// A place among the imports under way, or 503 when the server has as many as it takes.
fn import_turn(state: &AppState) -> Result<tokio::sync::SemaphorePermit<'_>, ApiError> {
    state
        .imports
        .try_acquire()
        .map_err(|_| ApiError::ImportsBusy(crate::state::IMPORTS_AT_ONCE))
}

/// A body that broke off while it was read.
fn unreadable(e: actix_web::error::PayloadError) -> ApiError {
    ApiError::BadRequest(said!("server.problem.body_unreadable", why = e.to_string()))
}

/// The whole body, up to the import size limit.
async fn whole_body(mut body: web::Payload, limit: usize) -> Result<Vec<u8>, ApiError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(unreadable)?;
        if bytes.len() + chunk.len() > limit {
            return Err(ApiError::PayloadTooLarge(limit));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// Imports another app's file with its reader (`read`): the whole file, up to the import size
/// limit, once the server has a place among its imports; 400 when it is not that app's file.
async fn import_other_app(
    req: &HttpRequest,
    state: &AppState,
    club: &Club,
    query: &ImportQuery,
    body: web::Payload,
    read: impl AsyncFnOnce(&dyn Store, &str, &[u8], GameIds) -> Result<ImportReport, Message>,
) -> Result<HttpResponse, ApiError> {
    let _turn = import_turn(state)?;
    let file = whole_body(body, state.import_max_bytes).await?;
    let report = read(state.store.as_ref(), &club.id, &file, query.ids())
        .await
        .map_err(ApiError::BadRequest)?;
    Ok(said(req, report))
}

/// Imports a BG Stats JSON export: each play of one of our four games (matched by name)
/// becomes a finished game whose totals were typed in (`result_recorded`), its players seated
/// by `seatOrder` with their colours (`role`); players are matched by name; plays of other
/// games are counted as skipped. Importing the same file twice changes nothing. A file
/// exported from another club of this server holds that club's game ids: import it with
/// `new_ids=true`.
#[utoipa::path(tag = "portability", security(("club_token" = [])), params(ImportQuery),
    request_body(content = other_apps::BgStatsFile, content_type = "application/json", description = "A BG Stats export (games, players, plays with playerScores)",
        example = json!({
            "games": [{"id": 1, "name": "Mint Julep"}],
            "players": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bo"}],
            "plays": [{"uuid": "3D0E5A6C-0000-4000-8000-00000000A001", "playDate": "2024-03-01 20:00:00",
                       "gameRefId": 1, "playerScores": [
                           {"playerRefId": 1, "score": "9", "winner": true, "seatOrder": 1},
                           {"playerRefId": 2, "score": "4", "winner": false, "seatOrder": 2}]}]
        })),
    responses(
    (status = 200, description = "What was imported, play by play: `line` is the play's place in `plays`, counted from 1 (`line` 1 is `plays[0]`)", body = ImportReport),
    NotBgStats, Unauthorized, ReadOnlyToken, FileTooLarge, ImportsBusy,
))]
#[post("/v1/import/bgstats")]
pub async fn import_bgstats(
    req: HttpRequest,
    state: web::Data<AppState>,
    club: Club,
    query: Query<ImportQuery>,
    body: web::Payload,
) -> Result<HttpResponse, ApiError> {
    import_other_app(
        &req,
        &state,
        &club,
        &query,
        body,
        other_apps::import_bgstats,
    )
    .await
}

/// Imports a BoardGameGeek plays XML file (as its XML API 2 `plays` serves it; this server does
/// not call BoardGameGeek): plays of our games become typed-in games, their players seated by
/// `startposition` with their colours (`color`); the others are skipped. A file exported from
/// another club of this server holds that club's game ids: import it with `new_ids=true`.
#[utoipa::path(tag = "portability", security(("club_token" = [])), params(ImportQuery),
    request_body(content = String, content_type = "application/xml", description = "A BoardGameGeek plays file",
        example = json!("<?xml version=\"1.0\" encoding=\"utf-8\"?><plays total=\"0\" page=\"1\"></plays>")),
    responses(
    (status = 200, description = "What was imported, play by play: `line` is the `<play>` element's place in the file, counted from 1 (its `id` attribute is BoardGameGeek's and may be missing or 0; the `detail` of a play that breaks a rule names it)", body = ImportReport),
    NotBggPlays, Unauthorized, ReadOnlyToken, FileTooLarge, ImportsBusy,
))]
#[post("/v1/import/bgg")]
pub async fn import_bgg(
    req: HttpRequest,
    state: web::Data<AppState>,
    club: Club,
    query: Query<ImportQuery>,
    body: web::Payload,
) -> Result<HttpResponse, ApiError> {
    import_other_app(&req, &state, &club, &query, body, other_apps::import_bgg).await
}

/// The club's finished games as a BG Stats export, to take the history to BG Stats.
#[utoipa::path(tag = "portability", security(("club_token" = [])), responses(
    (status = 200, description = "A BG Stats export: games, players, plays with playerScores", content_type = "application/json", body = Object),
    Unauthorized,
))]
#[get("/v1/export/bgstats")]
pub async fn export_bgstats(
    state: web::Data<AppState>,
    club: Club,
) -> Result<HttpResponse, ApiError> {
    let file = other_apps::export_bgstats(state.store.as_ref(), &club.id).await?;
    Ok(HttpResponse::Ok().json(file))
}

/// The club's finished games as a BoardGameGeek plays file.
#[utoipa::path(tag = "portability", security(("club_token" = [])), responses(
    (status = 200, description = "A plays file as BoardGameGeek's XML API 2 serves it", content_type = "application/xml", body = String),
    Unauthorized,
))]
#[get("/v1/export/bgg")]
pub async fn export_bgg(state: web::Data<AppState>, club: Club) -> Result<HttpResponse, ApiError> {
    let xml = other_apps::export_bgg(state.store.as_ref(), &club.id).await?;
    Ok(HttpResponse::Ok()
        .content_type("application/xml; charset=utf-8")
        .body(xml))
}
