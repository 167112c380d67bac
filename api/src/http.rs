//! Cross-cutting HTTP: tokens taken out of URLs before anything logs them, CORS for browser
//! clients on other origins, `HEAD` answered as `GET` without the body, `405` with `Allow`
//! for a known path with the wrong method, and changes that run to their end when their phone
//! hangs up.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::OnceLock;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, Uri};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpResponse, web};

use crate::auth::UrlToken;

const REDACTED: &str = "REDACTED";

/// Moves `?access_token=` out of the URL into the request's extensions, leaving `REDACTED` in
/// its place: the request line that the log writes (at any level) never holds a token, and
/// only the two stream endpoints read the extension (`auth`).
pub async fn take_token_from_url(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    if let Some((token, redacted)) = redact(req.uri())
        && let Ok(uri) = redacted.parse::<Uri>()
    {
        req.extensions_mut().insert(UrlToken(token));
        req.match_info_mut().get_mut().update(&uri);
        req.head_mut().uri = uri;
    }
    // A token in any other form (`access%5Ftoken=`, `;access_token=`, a path) is refused, and
    // its secret kept out of the log all the same.
    let target = req.uri().path_and_query().map_or("", |p| p.as_str());
    if let Some(hidden) = hide_secrets(target)
        && let Ok(uri) = hidden.parse::<Uri>()
    {
        req.match_info_mut().get_mut().update(&uri);
        req.head_mut().uri = uri;
    }
    next.call(req).await
}

/// The text with every token secret (a token's last part: exactly 64 hexadecimal digits after
/// a `.`) replaced by `REDACTED`; `None` when it holds none. A cursor (hexadecimal too) is no
/// token's and stays as it is.
fn hide_secrets(text: &str) -> Option<String> {
    const SECRET: usize = 64;
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut at, mut copied, mut found) = (0, 0, false);
    while at < bytes.len() {
        let run = bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_hexdigit())
            .count();
        if run == SECRET && at > 0 && bytes[at - 1] == b'.' {
            out.push_str(&text[copied..at]);
            out.push_str(REDACTED);
            copied = at + run;
            found = true;
        }
        at += run.max(1);
    }
    found.then(|| out + &text[copied..])
}

/// `(token, the path and query with the token replaced)`, when the query holds one.
fn redact(uri: &Uri) -> Option<(String, String)> {
    let query = uri.query()?;
    let mut token = None;
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some(("access_token", value)) => {
                token = Some(value.to_owned());
                format!("access_token={REDACTED}")
            }
            _ => pair.to_owned(),
        })
        .collect();
    let token = token?;
    let token =
        web::Query::<std::collections::HashMap<String, String>>::from_query(&format!("t={token}"))
            .ok()
            .and_then(|q| q.get("t").cloned())
            .unwrap_or(token);
    Some((token, format!("{}?{}", uri.path(), pairs.join("&"))))
}

/// Allowed browser origins (`TABLETALLY_CORS_ORIGINS`, comma-separated; `*` for any; none by
/// default).
#[derive(Debug, Clone, Default)]
pub struct Cors {
    pub origins: Vec<String>,
}

impl Cors {
    fn allows(&self, origin: &str) -> bool {
        self.origins.iter().any(|o| o == "*" || o == origin)
    }
}

/// Request headers a browser client may send: the token, JSON bodies, resuming a stream,
/// conditional requests.
const ALLOWED_HEADERS: &str = "Authorization, Content-Type, Last-Event-ID, If-Match, If-None-Match";
/// Response headers a browser client may read.
const EXPOSED_HEADERS: &str =
    "Location, ETag, Retry-After, X-Request-Id, Content-Language, Read-From, Read-Position";

/// Answers CORS preflights from allowed origins and marks their responses readable.
pub async fn cors(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let allowed_origin = req
        .headers()
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .filter(|origin| {
            req.app_data::<web::Data<Cors>>()
                .is_some_and(|cors| cors.allows(origin))
        })
        .map(str::to_owned);
    let Some(origin) = allowed_origin else {
        return Ok(next.call(req).await?.map_into_left_body());
    };
    let origin = HeaderValue::from_str(&origin).ok();
    let preflight = req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    if preflight {
        let methods = allowed_methods(req.path()).unwrap_or_else(|| "GET, POST, DELETE".into());
        let mut response = HttpResponse::NoContent();
        if let Some(origin) = origin {
            response.insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, origin));
        }
        response
            .insert_header((header::ACCESS_CONTROL_ALLOW_METHODS, methods))
            .insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, ALLOWED_HEADERS))
            .insert_header((header::ACCESS_CONTROL_MAX_AGE, "600"))
            .insert_header((header::VARY, "Origin"));
        return Ok(req.into_response(response.finish()).map_into_right_body());
    }
    let mut res = next.call(req).await?;
    let headers = res.headers_mut();
    if let Some(origin) = origin {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    }
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(EXPOSED_HEADERS),
    );
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
    Ok(res.map_into_left_body())
}

/// A handler that panics (a bug) answers `500` problem+json, and the worker goes on serving
/// (the panic would otherwise drop the connection with no answer). The answer is made from the
/// error, as for any failed request: the request itself went with the panic.
pub async fn catch_panics<B: MessageBody>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<B>, actix_web::Error> {
    use futures_util::FutureExt;
    match std::panic::AssertUnwindSafe(next.call(req))
        .catch_unwind()
        .await
    {
        Ok(res) => res,
        Err(panic) => {
            let why = crate::telemetry::panic_message(panic.as_ref());
            Err(crate::error::ApiError::Internal(format!("a handler panicked: {why}")).into())
        }
    }
}

/// A request that changes something runs to its end even when its client hangs up midway:
/// actix drops a handler whose connection breaks, and an append dropped between its commit and
/// what follows would be stored but never told to the game's followers (nor to a retry, which
/// finds it stored). So the handler of a change runs as a task of its own on the same worker,
/// which the connection does not own; a read (`GET`, `HEAD`, `OPTIONS`) stops with its reader.
pub async fn finish_changes<B: MessageBody + 'static>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<B>, actix_web::Error> {
    use tracing::Instrument;
    // An import is a file's games, each stored whole on its own: one whose client hung up
    // stops between two games rather than run on for nobody.
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS)
        || req.path().starts_with("/v1/import")
    {
        return next.call(req).await;
    }
    let change = next.call(req).instrument(tracing::Span::current());
    actix_web::rt::spawn(change).await.unwrap_or_else(|e| {
        // Only when the worker stops meanwhile (a panic was answered inside, as a 500).
        Err(crate::error::ApiError::Internal(format!("the request's task ended: {e}")).into())
    })
}

/// A request body the answer did not need — refused before it was read (a bad id in the path, a
/// body that is not JSON, a missing token) — is read to its end before the answer goes out, so
/// that the connection stays open for the next request: HTTP/1.1 closes it otherwise, not
/// knowing where the next request would begin. Only bodies of a stated length within the body
/// limit; a larger one is refused with 413 and the connection closed.
pub async fn read_unread_body(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    use futures_util::StreamExt;

    let length = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<usize>().ok());
    if !length.is_some_and(|length| (1..=crate::config::BODY_LIMIT).contains(&length)) {
        return next.call(req).await;
    }
    let body = Rc::new(RefCell::new(req.take_payload()));
    req.set_payload(Payload::Stream {
        payload: Box::pin(SharedBody(Rc::clone(&body))),
    });
    let res = next.call(req).await;
    // An answer that closes the connection (a body too slow to wait for) leaves the rest unread.
    let closes = res.as_ref().is_ok_and(|res| {
        res.response().head().connection_type() == actix_web::http::ConnectionType::Close
    });
    // What the handler read is gone; the rest is read and dropped.
    while !closes
        && let Some(Ok(_)) = std::future::poll_fn(|cx| body.borrow_mut().poll_next_unpin(cx)).await
    {
    }
    res
}

/// The request body, read by the handler and, afterwards, by [`read_unread_body`].
struct SharedBody(Rc<RefCell<Payload>>);

impl futures_util::Stream for SharedBody {
    type Item = Result<web::Bytes, actix_web::error::PayloadError>;

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use futures_util::StreamExt;
        self.0.borrow_mut().poll_next_unpin(cx)
    }
}

/// The method a request was sent with, when [`head_as_get`] answered a `HEAD` as a `GET`.
#[derive(Debug, Clone, Copy)]
pub struct SentAsHead;

/// The method the client sent (a `HEAD` answered as a `GET` says `HEAD`).
pub fn method_sent(req: &actix_web::HttpRequest) -> Method {
    if req.extensions().get::<SentAsHead>().is_some() {
        Method::HEAD
    } else {
        req.method().clone()
    }
}

/// `HEAD` is `GET` without its body (RFC 9110: a server that answers GET answers HEAD): the
/// request goes to the GET route, and the connection, which knows the request was a HEAD,
/// sends the answer's headers (its `Content-Length` and `ETag` too) and no body. A streamed
/// answer (a live stream, an export) is dropped at once instead: it would never end, and it
/// holds a stream's place while it runs.
pub async fn head_as_get(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody, actix_web::body::None>>, actix_web::Error>
{
    let head = req.method() == Method::HEAD;
    if head {
        req.head_mut().method = Method::GET;
        req.extensions_mut().insert(SentAsHead);
    }
    let res = next.call(req).await?;
    if head
        && matches!(
            res.response().body().size(),
            actix_web::body::BodySize::Stream
        )
    {
        return Ok(res
            .map_body(|_, _| actix_web::body::None::new())
            .map_into_right_body());
    }
    Ok(res.map_into_left_body())
}

/// The API's paths as templates (`/v1/games/{id}`), with their methods, from the OpenAPI
/// document the routes generate.
fn route_table() -> &'static [(Vec<String>, Vec<String>)] {
    static TABLE: OnceLock<Vec<(Vec<String>, Vec<String>)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let doc = serde_json::to_value(crate::openapi::document()).unwrap_or_default();
        doc["paths"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(path, item)| {
                let segments = path.split('/').map(str::to_owned).collect();
                let methods = item
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(method, _)| method.to_uppercase())
                    .filter(|m| Method::from_bytes(m.as_bytes()).is_ok())
                    .collect();
                (segments, methods)
            })
            .collect()
    })
}

/// The methods a known path answers (`Allow`), or `None` for an unknown path.
pub fn allowed_methods(path: &str) -> Option<String> {
    let segments: Vec<&str> = path.split('/').collect();
    let mut methods: Vec<&str> = route_table()
        .iter()
        .filter(|(template, _)| {
            template.len() == segments.len()
                && template
                    .iter()
                    .zip(&segments)
                    .all(|(t, s)| (t.starts_with('{') && !s.is_empty()) || t == s)
        })
        .flat_map(|(_, methods)| methods.iter().map(String::as_str))
        .collect();
    if methods.is_empty() {
        return None;
    }
    // Whatever answers GET answers HEAD too (`head_as_get`).
    if methods.contains(&"GET") {
        methods.push("HEAD");
    }
    methods.sort_unstable();
    methods.dedup();
    Some(methods.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_in_the_url_is_taken_out_and_redacted() {
        let uri: Uri = "/v1/stream?last_event_id=4&access_token=tt.c1.abc%2B&x=1"
            .parse()
            .unwrap();

        let (token, redacted) = redact(&uri).unwrap();

        assert_eq!(token, "tt.c1.abc+");
        assert_eq!(
            redacted,
            "/v1/stream?last_event_id=4&access_token=REDACTED&x=1"
        );
        assert!(redact(&"/v1/stream?last_event_id=4".parse().unwrap()).is_none());
    }

    #[test]
    fn a_token_secret_in_any_other_form_is_hidden_and_nothing_else_is() {
        let secret = "0123456789abcdef".repeat(4);
        for form in [
            format!("/v1/stream?access%5Ftoken=tt.c1.{secret}"),
            format!("/v1/stream?x=1;access_token=tts.9.{secret}"),
            format!("/v1/games/tt.c1.{secret}"),
        ] {
            let hidden = hide_secrets(&form).expect("a secret");
            assert!(
                !hidden.contains(&secret) && hidden.contains("REDACTED"),
                "{hidden}"
            );
        }
        // Ids and versions are shorter than a secret, and a cursor is no token's part.
        assert_eq!(
            hide_secrets("/v1/games/0b6c3f0e-5d7e-4f3b-9a51-3c2d1e0f9a8b/score?at=3"),
            None
        );
        let cursor = format!("/v1/games?limit=2&cursor={secret}{secret}");
        assert_eq!(hide_secrets(&cursor), None);
        assert_eq!(hide_secrets(&format!("/v1/games?cursor={secret}")), None);
    }

    #[actix_web::test]
    async fn a_handler_that_panics_answers_500_and_the_next_request_is_served() {
        let app = actix_web::test::init_service(
            actix_web::App::new()
                .route(
                    "/boom",
                    web::get().to(|| async {
                        if std::hint::black_box(true) {
                            panic!("a bug");
                        }
                        HttpResponse::Ok().finish()
                    }),
                )
                .route(
                    "/fine",
                    web::get().to(|| async { HttpResponse::Ok().finish() }),
                )
                .wrap(actix_web::middleware::from_fn(catch_panics)),
        )
        .await;

        // The error is what actix answers with, as for any failed request.
        let boom = actix_web::test::try_call_service(
            &app,
            actix_web::test::TestRequest::get()
                .uri("/boom")
                .to_request(),
        )
        .await
        .expect_err("the panic is an error")
        .error_response();
        let fine = actix_web::test::call_service(
            &app,
            actix_web::test::TestRequest::get()
                .uri("/fine")
                .to_request(),
        )
        .await;

        assert_eq!(boom.status(), 500);
        assert_eq!(
            boom.headers().get(header::CONTENT_TYPE).unwrap(),
            "application/problem+json"
        );
        assert_eq!(fine.status(), 200);
    }

    #[test]
    fn a_known_path_lists_its_methods_and_an_unknown_one_none() {
        assert_eq!(
            allowed_methods("/v1/games").as_deref(),
            Some("GET, HEAD, POST")
        );
        assert_eq!(
            allowed_methods("/v1/games/6f1c2a4e-3b5d-4c7e-9f10-2a3b4c5d6e7f/shares/x").as_deref(),
            Some("DELETE")
        );
        assert_eq!(allowed_methods("/v1/nothing-here"), None);
    }
}
