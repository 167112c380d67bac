//! The one error type of the HTTP boundary. Every variant becomes an RFC 9457
//! `application/problem+json` response; causes go to the log, never to the client.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use tabletally_domain::Message;
use tabletally_domain::said;
use utoipa::ToSchema;

use crate::append::Refused;
use crate::language::Language;
use crate::store::StoreError;

/// A problem detail (RFC 9457) with the extra fields tabletally uses.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "type": "/problems/rule-violation", "title": "An event breaks a rule of the game", "status": 422,
    "detail": "Ann collected 8 cards, but with 3 players everyone collects 9 per round",
    "event_index": 0, "pointer": "/events/0/data/collections/Ann"
}))]
pub struct Problem {
    /// A URI reference naming the kind of problem.
    #[serde(rename = "type")]
    pub problem_type: String,
    pub title: String,
    pub status: u16,
    pub detail: String,
    /// Which event of the request broke a rule (0-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_index: Option<usize>,
    /// JSON pointer (RFC 6901) into the request body at the offending field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// The query or path parameter that could not be read (e.g. `limit`, `id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameter: Option<String>,
    /// The game's current version, on a version conflict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_version: Option<i64>,
    /// The player who already has the name, on a rename to a taken name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player_id: Option<String>,
    /// The preset that already has the name, on a preset name taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset_id: Option<String>,
    /// The games both players sat at, on a merge refused for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_ids: Option<Vec<String>>,
}

/// The `detail` of each is said in the language the request asks for (see [`crate::language`]);
/// text not in the catalogues yet is said in English.
#[derive(Debug, Clone)]
pub enum ApiError {
    /// 400: the request could not be read (malformed JSON, bad query or path parameter).
    BadRequest(Message),
    /// 400: a value could not be read; `pointer` (into the body) or `parameter` (query, path)
    /// names it, and the detail says what it must be.
    Unreadable {
        detail: Message,
        pointer: Option<String>,
        parameter: Option<String>,
    },
    /// 401: missing or wrong bearer token.
    Unauthorized,
    /// 404: no such resource in this club.
    NotFound(Message),
    /// 405: the path exists but not with this method; `allow` lists the methods it takes.
    MethodNotAllowed { method: String, allow: String },
    /// 409: the game moved on since the client's `expected_version`; `current_version` says
    /// where it is now.
    StaleVersion { current_version: i64 },
    /// 409: an id the client chose (a game's, an event's) is already used for something else.
    IdTaken(Message),
    /// 409: another player or preset of the club has the name; its id is in the body.
    NameTaken {
        detail: Message,
        player_id: Option<String>,
        preset_id: Option<String>,
    },
    /// 409: two players who sat at the same game are not merged; `game_ids` names the games.
    SatTogether {
        detail: Message,
        game_ids: Vec<String>,
    },
    /// 409: a concurrent request changed the same data; sending the request again settles it.
    Conflict(Message),
    /// 413: the body is larger than the server accepts.
    PayloadTooLarge(usize),
    /// 408: the body did not arrive within this many seconds; the connection is closed.
    BodyTooSlow(u64),
    /// 400: the request's line or headers could not be read, by actix-web's parser
    /// ([`crate::bare_answers`]).
    HeadUnreadable,
    /// 431: the request's line and headers are more than the parser reads.
    HeadTooLarge,
    /// 408: the request's line and headers did not arrive within this many seconds.
    HeadTooSlow(u64),
    /// 415: the body is not JSON.
    UnsupportedMediaType(Message),
    /// 422: the request is well-formed but invalid (a field's value, an option, an id that is
    /// not a UUID); `pointer` names the field, `event_index` the event when it is one's.
    Unprocessable {
        detail: Message,
        pointer: Option<String>,
        event_index: Option<usize>,
        /// The query or path parameter whose value it is (`at` beyond a game's version).
        parameter: Option<String>,
    },
    /// 422: an event breaks a rule of the game or of the log.
    RuleViolation {
        detail: Message,
        pointer: String,
        event_index: usize,
    },
    /// 429: too many requests from this client; retry after the given seconds.
    TooManyRequests(u64),
    /// 503: the server is importing as many files at once as it does; retry in a minute.
    ImportsBusy(usize),
    /// 429: this client address has as many requests in flight as it may.
    TooManyInFlight(usize),
    /// 429: the club holds as many open streams as it may.
    TooManyStreams(Message),
    /// 503: the server holds as many open streams as it serves.
    ServerBusy(Message),
    /// 403: the token may read but not write (or not manage tokens).
    Forbidden(Message),
    /// 503: the database cannot be reached.
    Unavailable,
    /// 503: the database went away while answering (a failover to its standby, a restart).
    /// A transaction is kept whole or not at all: sending the same request again is safe, and a
    /// write that was kept is then answered as already stored.
    DatabaseLost,
    /// 500: a bug or an I/O failure; details are logged, not returned.
    Internal(String),
}

impl ApiError {
    /// 400 for a query or path parameter the handler cannot use.
    pub fn bad_parameter(parameter: &str, detail: impl Into<Message>) -> Self {
        ApiError::Unreadable {
            detail: detail.into(),
            pointer: None,
            parameter: Some(parameter.to_owned()),
        }
    }

    pub fn invalid(pointer: impl Into<String>, detail: impl Into<Message>) -> Self {
        ApiError::Unprocessable {
            parameter: None,
            detail: detail.into(),
            pointer: Some(pointer.into()),
            event_index: None,
        }
    }

    /// The problem's type (`/problems/{slug}`) and title.
    fn slug_and_title(&self) -> (&'static str, Message) {
        match self {
            ApiError::BadRequest(_) | ApiError::Unreadable { .. } => {
                ("bad-request", said!("server.problem.bad_request.title"))
            }
            ApiError::Unauthorized => ("unauthorized", said!("server.problem.unauthorized.title")),
            ApiError::NotFound(_) => ("not-found", said!("server.problem.not_found.title")),
            ApiError::MethodNotAllowed { .. } => (
                "method-not-allowed",
                said!("server.problem.method_not_allowed.title"),
            ),
            ApiError::StaleVersion { .. } => {
                ("stale-version", said!("server.problem.stale_version.title"))
            }
            ApiError::IdTaken(_) => ("id-taken", said!("server.problem.id_taken.title")),
            ApiError::NameTaken { .. } => ("name-taken", said!("server.problem.name_taken.title")),
            ApiError::SatTogether { .. } => (
                "players-sat-together",
                said!("server.problem.players_sat_together.title"),
            ),
            ApiError::Conflict(_) => ("conflict", said!("server.problem.conflict.title")),
            ApiError::PayloadTooLarge(_) => (
                "payload-too-large",
                said!("server.problem.payload_too_large.title"),
            ),
            ApiError::BodyTooSlow(_) | ApiError::HeadTooSlow(_) => (
                "request-timeout",
                said!("server.problem.request_timeout.title"),
            ),
            ApiError::HeadUnreadable => ("bad-request", said!("server.problem.bad_request.title")),
            ApiError::HeadTooLarge => (
                "request-head-too-large",
                said!("server.problem.head_too_large.title"),
            ),
            ApiError::UnsupportedMediaType(_) => (
                "unsupported-media-type",
                said!("server.problem.unsupported_media_type.title"),
            ),
            ApiError::RuleViolation { .. } => (
                "rule-violation",
                said!("server.problem.rule_violation.title"),
            ),
            ApiError::Unprocessable { .. } => (
                "invalid-request",
                said!("server.problem.invalid_request.title"),
            ),
            ApiError::TooManyRequests(_) => (
                "too-many-requests",
                said!("server.problem.too_many_requests.title"),
            ),
            ApiError::ImportsBusy(_) => ("server-busy", said!("server.problem.imports_busy.title")),
            ApiError::TooManyInFlight(_) => (
                "too-many-requests",
                said!("server.problem.too_many_requests.title"),
            ),
            ApiError::TooManyStreams(_) => (
                "too-many-streams",
                said!("server.problem.too_many_streams.title"),
            ),
            ApiError::ServerBusy(_) => ("server-busy", said!("server.problem.server_busy.title")),
            ApiError::Forbidden(_) => ("forbidden", said!("server.problem.forbidden.title")),
            ApiError::Unavailable => ("unavailable", said!("server.problem.unavailable.title")),
            ApiError::DatabaseLost => {
                ("database-lost", said!("server.problem.database_lost.title"))
            }
            ApiError::Internal(_) => ("internal", said!("server.problem.internal.title")),
        }
    }

    /// What the client is told went wrong (never an internal cause).
    pub fn detail(&self) -> Message {
        match self {
            ApiError::BadRequest(detail)
            | ApiError::NotFound(detail)
            | ApiError::IdTaken(detail)
            | ApiError::Conflict(detail)
            | ApiError::UnsupportedMediaType(detail)
            | ApiError::TooManyStreams(detail)
            | ApiError::ServerBusy(detail)
            | ApiError::Forbidden(detail)
            | ApiError::Unreadable { detail, .. }
            | ApiError::NameTaken { detail, .. }
            | ApiError::SatTogether { detail, .. }
            | ApiError::Unprocessable { detail, .. }
            | ApiError::RuleViolation { detail, .. } => detail.clone(),
            ApiError::Unauthorized => said!("server.problem.unauthorized.detail"),
            ApiError::MethodNotAllowed { method, allow } => said!(
                "server.problem.method_not_allowed.detail",
                method = method,
                allow = allow
            ),
            ApiError::StaleVersion { .. } => said!("server.problem.stale_version.detail"),
            ApiError::PayloadTooLarge(bytes) => {
                said!("server.problem.payload_too_large.detail", bytes = *bytes)
            }
            ApiError::ImportsBusy(most) => {
                said!("server.problem.imports_busy.detail", most = *most)
            }
            ApiError::TooManyInFlight(most) => {
                said!("server.problem.too_many_in_flight", most = *most)
            }
            ApiError::BodyTooSlow(seconds) => {
                said!("server.problem.request_timeout.detail", seconds = *seconds)
            }
            ApiError::HeadTooSlow(seconds) => {
                said!("server.problem.head_too_slow.detail", seconds = *seconds)
            }
            ApiError::HeadUnreadable => said!("server.problem.head_unreadable.detail"),
            ApiError::HeadTooLarge => said!("server.problem.head_too_large.detail"),
            ApiError::TooManyRequests(seconds) => {
                said!(
                    "server.problem.too_many_requests.detail",
                    seconds = *seconds
                )
            }
            ApiError::Unavailable => said!("server.problem.unavailable.detail"),
            ApiError::DatabaseLost => said!("server.problem.database_lost.detail"),
            // Never leak internals.
            ApiError::Internal(_) => said!("server.problem.internal.detail"),
        }
    }

    /// The problem in English.
    pub fn problem(&self) -> Problem {
        self.problem_in(Language::English)
    }

    /// The problem said in `language`; every other field is the same in every language.
    pub fn problem_in(&self, language: Language) -> Problem {
        let (slug, title) = self.slug_and_title();
        let catalogue = language.catalogue();
        let mut problem = Problem {
            problem_type: format!("/problems/{slug}"),
            title: title.render(catalogue),
            status: self.status_code().as_u16(),
            detail: self.detail().render(catalogue),
            event_index: None,
            pointer: None,
            parameter: None,
            current_version: None,
            player_id: None,
            preset_id: None,
            game_ids: None,
        };
        match self {
            ApiError::Unprocessable {
                pointer,
                event_index,
                parameter,
                ..
            } => {
                problem.pointer.clone_from(pointer);
                problem.event_index = *event_index;
                problem.parameter.clone_from(parameter);
            }
            ApiError::RuleViolation {
                pointer,
                event_index,
                ..
            } => {
                problem.pointer = Some(pointer.clone());
                problem.event_index = Some(*event_index);
            }
            ApiError::Unreadable {
                pointer, parameter, ..
            } => {
                problem.pointer.clone_from(pointer);
                problem.parameter.clone_from(parameter);
            }
            ApiError::StaleVersion { current_version } => {
                problem.current_version = Some(*current_version);
            }
            ApiError::NameTaken {
                player_id,
                preset_id,
                ..
            } => {
                problem.player_id.clone_from(player_id);
                problem.preset_id.clone_from(preset_id);
            }
            ApiError::SatTogether { game_ids, .. } => problem.game_ids = Some(game_ids.clone()),
            _ => {}
        }
        problem
    }

    /// The answer, its problem said in `language`.
    pub fn error_response_in(&self, language: Language) -> HttpResponse {
        if let ApiError::Internal(cause) = self {
            tracing::error!(%cause, "request failed");
        }
        let mut response = HttpResponse::build(self.status_code());
        response.insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        ));
        match self {
            ApiError::TooManyRequests(seconds) => {
                response.insert_header((header::RETRY_AFTER, seconds.to_string()));
            }
            // Streams close within seconds when phones leave; a short wait is enough.
            ApiError::TooManyStreams(_) | ApiError::ServerBusy(_) => {
                response.insert_header((header::RETRY_AFTER, "5"));
            }
            ApiError::MethodNotAllowed { allow, .. } => {
                response.insert_header((header::ALLOW, allow.as_str()));
            }
            ApiError::TooManyInFlight(_) => {
                response.insert_header((header::RETRY_AFTER, "1"));
            }
            ApiError::ImportsBusy(_) => {
                response.insert_header((header::RETRY_AFTER, "30"));
            }
            // A failover takes seconds; a restart of the one database may take longer.
            ApiError::DatabaseLost | ApiError::Unavailable => {
                response.insert_header((header::RETRY_AFTER, "2"));
            }
            _ => {}
        }
        if matches!(self, ApiError::Unauthorized) {
            response.insert_header((header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer")));
        }
        response.json(self.problem_in(language))
    }
}

/// The log's words: the detail in English, and an internal cause as it is.
impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiError::Internal(cause) => write!(f, "internal error: {cause}"),
            other => other.detail().fmt(f),
        }
    }
}

impl std::error::Error for ApiError {}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) | ApiError::Unreadable { .. } | ApiError::HeadUnreadable => {
                StatusCode::BAD_REQUEST
            }
            ApiError::HeadTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::StaleVersion { .. }
            | ApiError::IdTaken(_)
            | ApiError::NameTaken { .. }
            | ApiError::SatTogether { .. }
            | ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::BodyTooSlow(_) | ApiError::HeadTooSlow(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::Unprocessable { .. } | ApiError::RuleViolation { .. } => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            ApiError::TooManyRequests(_)
            | ApiError::TooManyStreams(_)
            | ApiError::TooManyInFlight(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::ServerBusy(_) | ApiError::ImportsBusy(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::Unavailable | ApiError::DatabaseLost => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        self.error_response_in(Language::English)
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound => ApiError::NotFound(said!("server.problem.no_such_game")),
            StoreError::Refused(refused) => refused.into(),
            StoreError::Conflict(detail) => ApiError::Conflict(detail),
            StoreError::UnknownPlayer(id) => {
                ApiError::invalid("/players", said!("server.problem.unknown_player", id = id))
            }
            StoreError::Corrupt(detail) => ApiError::Internal(detail),
            StoreError::Database(e) => match e {
                // A deadlock or serialisation failure: the request lost a race and can be retried.
                sqlx::Error::Database(ref db)
                    if matches!(db.code().as_deref(), Some("40001" | "40P01")) =>
                {
                    ApiError::Conflict(said!("server.problem.conflict.retry"))
                }
                // A row this request refers to went away meanwhile: a player merged into another
                // while a game seating them was created (PostgreSQL checks at the statement).
                sqlx::Error::Database(ref db) if db.is_foreign_key_violation() => {
                    ApiError::Conflict(said!("server.problem.conflict.player_merged"))
                }
                ref e if crate::store::lost_primary(e) => {
                    unavailable_episode(e, "the database went away during a request");
                    ApiError::DatabaseLost
                }
                sqlx::Error::PoolTimedOut => {
                    unavailable_episode(&e, "database unreachable");
                    ApiError::Unavailable
                }
                // SQLite busy or locked (another process holds the file), PostgreSQL's own
                // bounds on a wait (statement_timeout, lock_timeout): the database is slow to
                // answer, not the request wrong. Sending it again is safe.
                ref e if database_busy(e) => {
                    unavailable_episode(e, "the database is busy");
                    ApiError::Unavailable
                }
                e => ApiError::Internal(e.to_string()),
            },
        }
    }
}

/// Whether the database refused to wait any longer: SQLite's `SQLITE_BUSY` and
/// `SQLITE_LOCKED` (and their extended codes), PostgreSQL's `query_canceled` (a
/// statement_timeout) and `lock_not_available` (a lock_timeout).
pub fn database_busy(e: &sqlx::Error) -> bool {
    let sqlx::Error::Database(db) = e else {
        return false;
    };
    match db.code().as_deref() {
        Some("57014" | "55P03") => true,
        Some(code) => code
            .parse::<i64>()
            .is_ok_and(|code| matches!(code & 0xff, 5 | 6)),
        None => false,
    }
}

/// Logs a database that cannot answer once per episode (at WARN; again only after 30 s of
/// answers), not once per request: a failover or a long lock would otherwise flood the log.
pub(crate) fn unavailable_episode(cause: &dyn std::fmt::Display, what: &str) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LAST: AtomicU64 = AtomicU64::new(0);
    static SINCE: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let last = LAST.swap(now, Ordering::Relaxed);
    let answered = SINCE.fetch_add(1, Ordering::Relaxed);
    if now.saturating_sub(last) >= 30 {
        SINCE.store(0, Ordering::Relaxed);
        tracing::warn!(error = %cause, "{what}: answering 503 with Retry-After until it answers again");
    } else if answered > 0 && answered.is_power_of_two() {
        tracing::debug!(error = %cause, answered, "{what}: still answering 503");
    }
}

impl From<Refused> for ApiError {
    fn from(refused: Refused) -> Self {
        match refused {
            Refused::StaleVersion { current, .. } => ApiError::StaleVersion {
                current_version: current,
            },
            Refused::IdReused { .. } | Refused::PartlyStored { .. } => {
                ApiError::IdTaken(refused.said())
            }
            Refused::GameTooLong { .. } => ApiError::Unprocessable {
                parameter: None,
                detail: refused.said(),
                pointer: Some("/events".into()),
                event_index: None,
            },
            Refused::DuplicateId { index, .. } => ApiError::Unprocessable {
                parameter: None,
                detail: refused.said(),
                pointer: Some(format!("/events/{index}/id")),
                event_index: Some(index),
            },
            Refused::Rule(rejection) => ApiError::RuleViolation {
                pointer: format!("/events/{}{}", rejection.event_index, rejection.pointer),
                event_index: rejection.event_index,
                detail: rejection.said,
            },
            Refused::Broken(detail) => ApiError::Internal(detail),
        }
    }
}
