//! The game log: append (all or nothing, idempotent, optimistic) and read.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tabletally_domain::said;
use utoipa::{IntoParams, ToSchema};

use super::problems::{
    BadQuery, BodyTooLarge, NoSuchGame, NotJson, ReadOnlyToken, Unauthorized, problems,
};
use crate::append::AppendRequest;
use crate::auth::Club;
use crate::config::{MAX_EVENTS_PER_REQUEST, MAX_PAGE_DATA_BYTES};
use crate::error::ApiError;
use crate::examples;
use crate::extract::{Json, Query};
use crate::state::AppState;
use crate::store::NewEvent;
use crate::views::{EventView, event_views};

problems! {
    MalformedJsonOrIfMatch: 400, "Malformed JSON or If-Match";
    StaleVersion: 409, "Stale expected_version (current_version in the body) or an event id reused";
    RuleViolation: 422, "A rule violation: event_index, pointer and the rule";
}

const DEFAULT_EVENTS_PAGE: i64 = 500;
const MAX_EVENTS_PAGE: i64 = 1000;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AppendEvents {
    /// The version the client last saw; omitted → no check. Also accepted as `If-Match: "<version>"`.
    #[serde(default)]
    pub expected_version: Option<i64>,
    /// 1 to 200 events, validated in order and stored together, or none is.
    #[schema(min_items = 1, max_items = 200)]
    pub events: Vec<EventInput>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EventInput {
    /// The client's UUID for this event: a retry with the same id and content is answered 200.
    /// Left out, the server gives the event a new id (returned in the answer) — but then a
    /// retry after a lost answer cannot be recognised and is stored again, so phones send theirs.
    #[serde(default)]
    #[schema(format = Uuid)]
    pub id: Option<String>,
    /// The game's event type, or `retract`, `correct`, `abandon`.
    #[serde(rename = "type")]
    #[schema(min_length = 1, pattern = r"\S")]
    pub event_type: String,
    /// The event's fields, as its game's rules name them. At most 8,192 bytes as compact JSON
    /// (the largest legal events hold about 2,000), and a `reason` (of `retract`, `correct`,
    /// `abandon`) at most 500 characters; beyond either, 422 naming the field.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub data: Value,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AppendResult {
    /// The game's version after the append.
    pub version: i64,
    /// The events of the request as stored.
    pub events: Vec<EventView>,
}

/// Appends events to a game's log.
///
/// Beyond the schema (no JSON Schema of one request can say it; 400/422 names it): each
/// event's `type` and `data` must follow the game's rules and the state the log is in (422
/// with `event_index` and `pointer`); `expected_version` and If-Match, given both, must agree.
/// Each request example belongs to one scenario's game: the examples of `id` give it, in order.
#[utoipa::path(tag = "events", security(("club_token" = [])),
    params(("id" = uuid::Uuid, Path, description = "Game id"),
           ("If-Match" = Option<String>, Header, nullable = false, pattern = r#"^((W/)?"?[0-9]+(-[0-9a-fA-F]+)?"?|\*)$"#, description = "The expected version, e.g. \"3\" (instead of expected_version), or the game's ETag (its version counts); `*` checks nothing")),
    request_body(content = AppendEvents, examples(
        ("mint-condition 1" = (summary = "Mint Condition 1: round 1 (expected_version 1)", value = json!(examples::mint_condition(1)))),
        ("mint-condition 2" = (summary = "Mint Condition 2: round 2", value = json!(examples::mint_condition(2)))),
        ("mint-condition 3" = (summary = "Mint Condition 3: round 3: the game is finished, Ann 44, Bo 40", value = json!(examples::mint_condition(3)))),
        ("mint-condition 4" = (summary = "Mint Condition 4: correct event 2 (round 1): Ann 46", value = json!(examples::mint_condition(4)))),
        ("mint-condition 5" = (summary = "Mint Condition 5: retract the correction (event 5): Ann 44 again", value = json!(examples::mint_condition(5)))),
        ("mind-up 1" = (summary = "Mind Up! 1: round 1 turn by turn: round_started, 6 × cards_played, last_cards_placed", value = json!(examples::mind_up(1)))),
        ("mind-up 2" = (summary = "Mind Up! 2: round 2 turn by turn", value = json!(examples::mind_up(2)))),
        ("mind-up 3" = (summary = "Mind Up! 3: round 3 recorded at its end: round_started, rows_recorded", value = json!(examples::mind_up(3)))),
        ("mind-up 4" = (summary = "Mind Up! 4: correct event 19 (round 3's score cards)", value = json!(examples::mind_up(4)))),
        ("mint-julep 1" = (summary = "Mint Julep 1: round 1's bets", value = json!(examples::mint_julep(1)))),
        ("mint-julep 2" = (summary = "Mint Julep 2: round 1's race card by card, a Mint Julep card, round_ended", value = json!(examples::mint_julep(2)))),
        ("mint-julep 3" = (summary = "Mint Julep 3: round 2: a late bet, two cards", value = json!(examples::mint_julep(3)))),
        ("mint-julep 4" = (summary = "Mint Julep 4: round 2 ends", value = json!(examples::mint_julep(4)))),
        ("mint-julep 5" = (summary = "Mint Julep 5: round 3: a late bet, the last cards, round_ended", value = json!(examples::mint_julep(5)))),
        ("mint-julep 6" = (summary = "Mint Julep 6: correct event 10 (Bo's bet)", value = json!(examples::mint_julep(6)))),
        ("mint-julep-finishes 1" = (summary = "Mint Julep (finishes only) 1: round 1: bets, race_recorded, round_ended", value = json!(examples::mint_julep_finishes(1)))),
        ("mint-julep-finishes 2" = (summary = "Mint Julep (finishes only) 2: round 2: a late bet and the finish", value = json!(examples::mint_julep_finishes(2)))),
        ("mint-julep-finishes 3" = (summary = "Mint Julep (finishes only) 3: round 3's finish", value = json!(examples::mint_julep_finishes(3)))),
        ("mint-julep-finishes 4" = (summary = "Mint Julep (finishes only) 4: abandon", value = json!(examples::mint_julep_finishes(4)))),
        ("mint-julep-finishes 5" = (summary = "Mint Julep (finishes only) 5: retract the abandon: the game counts again", value = json!(examples::mint_julep_finishes(5)))),
        ("vintage 1" = (summary = "Vintage 1: the deal (showcases_dealt)", value = json!(examples::vintage(1)))),
        ("vintage 2" = (summary = "Vintage 2: 28 turns (turn_taken)", value = json!(examples::vintage(2)))),
        ("vintage 3" = (summary = "Vintage 3: the last banks (final_banked)", value = json!(examples::vintage(3)))),
        ("vintage 4" = (summary = "Vintage 4: correct event 2 (a card's value in the deal)", value = json!(examples::vintage(4)))),
        ("vintage-collections 1" = (summary = "Vintage (collections only) 1: collections_recorded", value = json!(examples::vintage_collections()))),
    )),
    responses(
        (status = 201, description = "Events stored", body = AppendResult),
        (status = 200, description = "A retry: every event was already stored with the same content", body = AppendResult),
        MalformedJsonOrIfMatch, Unauthorized, ReadOnlyToken, NoSuchGame, StaleVersion, BodyTooLarge, NotJson, RuleViolation,
    ))]
#[post("/v1/games/{id}/events")]
pub async fn append_events(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
    req: HttpRequest,
    body: Json<AppendEvents>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    let body = body.into_inner();
    let expected_version = match (body.expected_version, if_match_version(&req)?) {
        (Some(v), Some(h)) if v != h => {
            return Err(ApiError::invalid(
                "/expected_version",
                tabletally_domain::said!(
                    "server.api.events.version_disagrees",
                    version = v,
                    if_match = h
                ),
            ));
        }
        (v, h) => v.or(h),
    };
    let request = AppendRequest {
        expected_version,
        events: check_events(body.events, &club.token_name)?,
        read_models: state.read_models,
    };
    let appended = state.store.append(&club.id, &id, request).await?;
    if !appended.already_stored {
        tracing::info!(game = %id, version = appended.version, events = appended.events.len(), "events appended");
        state.metrics.appended(appended.events.len());
    }
    let result = AppendResult {
        version: appended.version,
        events: appended.events.into_iter().map(EventView::from).collect(),
    };
    Ok(if appended.already_stored {
        HttpResponse::Ok().json(result)
    } else {
        HttpResponse::Created().json(result)
    })
}

/// Shape checks before the store: a batch of 1 to the maximum, UUID ids (given or new), a type each.
fn check_events(events: Vec<EventInput>, recorded_by: &str) -> Result<Vec<NewEvent>, ApiError> {
    if events.is_empty() {
        return Err(ApiError::invalid(
            "/events",
            tabletally_domain::said!("server.api.events.none"),
        ));
    }
    if events.len() > MAX_EVENTS_PER_REQUEST {
        return Err(ApiError::invalid(
            "/events",
            tabletally_domain::said!("server.api.events.too_many", most = MAX_EVENTS_PER_REQUEST),
        ));
    }
    events
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let id = match e.id {
                Some(id) => uuid::Uuid::parse_str(&id).map_err(|_| ApiError::Unprocessable {
                    parameter: None,
                    detail: said!("server.problem.event_id_not_uuid", id = format!("{id:?}")),
                    pointer: Some(format!("/events/{i}/id")),
                    event_index: Some(i),
                })?,
                None => uuid::Uuid::new_v4(),
            }
            .to_string();
            if e.event_type.trim().is_empty() {
                return Err(ApiError::Unprocessable {
                    parameter: None,
                    detail: tabletally_domain::said!("server.api.events.needs_type"),
                    pointer: Some(format!("/events/{i}/type")),
                    event_index: Some(i),
                });
            }
            crate::append::check_event_size(&e.data).map_err(|(at, detail)| {
                ApiError::Unprocessable {
                    parameter: None,
                    detail,
                    pointer: Some(format!("/events/{i}/data{at}")),
                    event_index: Some(i),
                }
            })?;
            Ok(NewEvent {
                id,
                event_type: e.event_type,
                data: e.data,
                recorded_by: Some(recorded_by.to_owned()),
            })
        })
        .collect()
}

/// `If-Match: "3"` (quotes and a weak `W/` prefix are tolerated); `If-Match: *` (any version
/// of a game that exists) checks nothing.
fn if_match_version(req: &HttpRequest) -> Result<Option<i64>, ApiError> {
    let Some(value) = req.headers().get(header::IF_MATCH) else {
        return Ok(None);
    };
    let text = value.to_str().unwrap_or_default().trim();
    if text == "*" {
        return Ok(None);
    }
    let text = text.strip_prefix("W/").unwrap_or(text).trim_matches('"');
    // A game's ETag (`"3-9f2c51d0a4b7e816"`) works too: an append checks the version only.
    let version = match text.split_once('-') {
        Some((version, fingerprint))
            if !fingerprint.is_empty() && fingerprint.chars().all(|c| c.is_ascii_hexdigit()) =>
        {
            version
        }
        _ => text,
    };
    // More digits than a version can have: no game is at that version, so the append is stale.
    if !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(Some(version.parse::<i64>().unwrap_or(i64::MAX)));
    }
    version.parse::<i64>().map(Some).map_err(|_| {
        ApiError::bad_parameter(
            "If-Match",
            tabletally_domain::said!("server.api.events.if_match", got = format!("{text:?}")),
        )
    })
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Only events with a seq greater than this (default 0).
    pub after: Option<i64>,
    /// Page size, 1–1000 (default 500). A page also ends before its events' data passes
    /// 1 MiB; `next_after` then says where the next begins.
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<usize>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct EventPage {
    /// The game's current version.
    pub version: i64,
    pub events: Vec<EventView>,
    /// Pass as `after` for the next page; `null` when there is no more.
    pub next_after: Option<i64>,
}

/// The game's log, retracted and corrected events included and marked.
#[utoipa::path(tag = "events", security(("club_token" = [])), params(("id" = uuid::Uuid, Path, description = "Game id"), EventsQuery), responses(
    (status = 200, description = "A page of the log", body = EventPage),
    BadQuery, Unauthorized, NoSuchGame,
))]
#[get("/v1/games/{id}/events")]
pub async fn list_events(
    state: web::Data<AppState>,
    club: Club,
    id: web::Path<uuid::Uuid>,
    query: Query<EventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner().to_string();
    let limit = super::cursor::page_limit(
        query.limit.map(|l| i64::try_from(l).unwrap_or(i64::MAX)),
        DEFAULT_EVENTS_PAGE,
        MAX_EVENTS_PAGE,
    )? as usize;
    let after = query.after.unwrap_or(0);
    let (game, log) = state
        .store
        .events(&club.id, &id)
        .await?
        .ok_or_else(|| ApiError::NotFound(said!("server.problem.no_such_game")))?;
    let (events, more) = page_of(
        event_views(log).into_iter().filter(|e| e.seq > after),
        limit,
        |e| &e.data,
    );
    let next_after = if more {
        events.last().map(|e| e.seq)
    } else {
        None
    };
    Ok(HttpResponse::Ok().json(EventPage {
        version: game.version,
        events,
        next_after,
    }))
}

/// The first `limit` items, or fewer if their data would pass [`MAX_PAGE_DATA_BYTES`] (never
/// none); and whether any item is left after them.
pub(crate) fn page_of<T>(
    items: impl Iterator<Item = T>,
    limit: usize,
    data: impl Fn(&T) -> &serde_json::Value,
) -> (Vec<T>, bool) {
    let mut page = Vec::new();
    let mut bytes = 0;
    for item in items {
        let size = crate::append::json_size(data(&item));
        if page.len() == limit || (!page.is_empty() && bytes + size > MAX_PAGE_DATA_BYTES) {
            return (page, true);
        }
        bytes += size;
        page.push(item);
    }
    (page, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data_of(bytes: usize) -> serde_json::Value {
        // `"…"`: two quotes around the characters.
        serde_json::Value::String("x".repeat(bytes - 2))
    }

    #[test]
    fn a_page_ends_before_its_data_passes_a_mebibyte_and_says_more_follows() {
        let items: Vec<_> = (0..5).map(|_| data_of(400 * 1024)).collect();

        let (page, more) = page_of(items.iter(), 10, |v| v);

        assert_eq!(page.len(), 2, "800 KiB fit, a third would pass 1 MiB");
        assert!(more);
    }

    #[test]
    fn a_page_holds_one_item_however_large_and_its_limit_at_most() {
        let huge = [data_of(2 * 1024 * 1024)];
        let small: Vec<_> = (0..5).map(|_| data_of(10)).collect();

        assert_eq!(page_of(huge.iter(), 10, |v| v), (vec![&huge[0]], false));
        let (page, more) = page_of(small.iter(), 3, |v| v);
        assert_eq!((page.len(), more), (3, true));
        let (page, more) = page_of(small.iter(), 5, |v| v);
        assert_eq!((page.len(), more), (5, false));
    }
}
