//! What one client may hold of the server, and for how long: so that no client — careless or
//! hostile — can take the server's file descriptors, workers or memory from everyone else.
//!
//! - At most [`Admission::per_address`] requests of one client address in flight at once
//!   (→ 429, and the connection is closed): live streams are counted by their own limits.
//! - A request's body arrives whole within [`BODY_DEADLINE`] (→ 408, closed), or for a file
//!   sent to an import, never pauses longer than that between two parts.
//! - Once its body is in, a request is answered within [`ANSWER_DEADLINE`]: a database that
//!   hangs (a frozen primary, a partition) gets 503 with Retry-After, never silence. A change
//!   already begun still runs to its end ([`crate::http::finish_changes`]), so the client's
//!   retry is answered from the log.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Duration;

use actix_web::HttpMessage;
use actix_web::HttpResponse;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::{Method, header};
use actix_web::middleware::Next;
use actix_web::web::{Bytes, BytesMut};
use futures_util::StreamExt;

use crate::config::BODY_LIMIT;
use crate::error::ApiError;

/// How long a request's body may take to arrive (an import's: the longest pause in it).
pub const BODY_DEADLINE: Duration = Duration::from_secs(10);
/// How long an answer may take once the body is in.
pub const ANSWER_DEADLINE: Duration = Duration::from_secs(8);

/// The requests in flight of each client address.
pub struct Admission {
    per_address: usize,
    in_flight: Mutex<HashMap<IpAddr, usize>>,
}

impl Admission {
    pub fn per_address(per_address: usize) -> Self {
        Self {
            per_address,
            in_flight: Mutex::new(HashMap::new()),
        }
    }

    fn enter(&self, address: IpAddr) -> Option<InFlight<'_>> {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        let count = in_flight.entry(address).or_default();
        if *count >= self.per_address {
            return None;
        }
        *count += 1;
        Some(InFlight {
            admission: self,
            address,
        })
    }
}

/// A request's place among its address's, given back when it is answered.
struct InFlight<'a> {
    admission: &'a Admission,
    address: IpAddr,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        let mut in_flight = self
            .admission
            .in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(count) = in_flight.get_mut(&self.address) {
            *count -= 1;
            if *count == 0 {
                in_flight.remove(&self.address);
            }
        }
    }
}

/// Streams (bounded by their own limits), an export (as long as the club's history) and an
/// import (as long as its file) are not held to the answer's deadline.
fn long_by_nature(path: &str) -> bool {
    path.ends_with("/stream") || path.starts_with("/v1/export") || path.starts_with("/v1/import")
}

/// The middleware: admits, reads the body in time, answers in time.
pub async fn admit<B: MessageBody>(
    mut req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    let admission = req.app_data::<actix_web::web::Data<Admission>>().cloned();
    // Health checks answer whoever floods the server: they hold nothing.
    let counted = !matches!(req.path(), "/healthz" | "/readyz" | "/metrics");
    let address = crate::client::address(req.request()).filter(|_| counted);
    let _place = match (&admission, address) {
        (Some(admission), Some(address)) => match admission.enter(address) {
            Some(place) => Some(place),
            None => {
                let most = admission.per_address;
                return Ok(refuse(req, ApiError::TooManyInFlight(most)));
            }
        },
        _ => None,
    };
    let path = req.path().to_owned();
    if path.starts_with("/v1/import") {
        let payload = req.take_payload();
        req.set_payload(Payload::Stream {
            payload: Box::pin(NoLongPause::new(payload)),
        });
    } else if has_body(&req) {
        match read_in_time(req.take_payload()).await {
            Ok(payload) => req.set_payload(payload),
            Err(error) => return Ok(refuse(req, error)),
        }
    }
    if long_by_nature(&path) {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body);
    }
    // No copy of the request is kept meanwhile (routing needs it alone): the late answer is
    // an error, which the outer layers turn into its problem.
    match tokio::time::timeout(ANSWER_DEADLINE, next.call(req)).await {
        Ok(answer) => answer.map(ServiceResponse::map_into_left_body),
        Err(_) => {
            crate::error::unavailable_episode(&"no answer in time", "the database did not answer");
            Err(ApiError::Unavailable.into())
        }
    }
}

/// Whether the request may carry a body worth reading ahead (a stated length, or chunks).
fn has_body(req: &ServiceRequest) -> bool {
    !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS)
        && (req.headers().contains_key(header::TRANSFER_ENCODING)
            || req
                .headers()
                .get(header::CONTENT_LENGTH)
                .is_some_and(|length| length != "0"))
}

/// The answer to a request refused before its body was read: the connection is closed, as
/// the rest of the body would otherwise be read as the next request.
fn refuse<B>(req: ServiceRequest, error: ApiError) -> ServiceResponse<EitherBody<B>> {
    let mut res = HttpResponse::from_error(error);
    res.head_mut()
        .set_connection_type(actix_web::http::ConnectionType::Close);
    req.into_response(res).map_into_right_body()
}

/// The whole body within [`BODY_DEADLINE`], as the payload the handler reads. A body past the
/// limit is handed on as it comes (its extractor refuses it with 413).
async fn read_in_time(mut payload: Payload) -> Result<Payload, ApiError> {
    let mut body = BytesMut::new();
    let read = async {
        while let Some(chunk) = payload.next().await {
            body.extend_from_slice(&chunk?);
            if body.len() > BODY_LIMIT {
                return Ok(true);
            }
        }
        Ok::<bool, actix_web::error::PayloadError>(false)
    };
    match tokio::time::timeout(BODY_DEADLINE, read).await {
        Err(_) => Err(ApiError::BodyTooSlow(BODY_DEADLINE.as_secs())),
        Ok(Err(e)) => Err(ApiError::BadRequest(crate::extract::payload_words(&e))),
        Ok(Ok(false)) => Ok(Payload::from(body.freeze())),
        Ok(Ok(true)) => {
            let read: Bytes = body.freeze();
            let rest = futures_util::stream::once(async move { Ok(read) }).chain(payload);
            Ok(Payload::Stream {
                payload: Box::pin(rest),
            })
        }
    }
}

/// An import's file as it comes, refused when it pauses longer than [`BODY_DEADLINE`].
struct NoLongPause {
    payload: Payload,
    pause: std::pin::Pin<Box<tokio::time::Sleep>>,
}

impl NoLongPause {
    fn new(payload: Payload) -> Self {
        Self {
            payload,
            pause: Box::pin(tokio::time::sleep(BODY_DEADLINE)),
        }
    }
}

impl futures_util::Stream for NoLongPause {
    type Item = Result<Bytes, actix_web::error::PayloadError>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        match self.payload.poll_next_unpin(cx) {
            Poll::Ready(item) => {
                let deadline = tokio::time::Instant::now() + BODY_DEADLINE;
                self.pause.as_mut().reset(deadline);
                Poll::Ready(item)
            }
            Poll::Pending => match std::future::Future::poll(self.pause.as_mut(), cx) {
                Poll::Ready(()) => Poll::Ready(Some(Err(actix_web::error::PayloadError::Io(
                    std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        format!("nothing of the file came for {} s", BODY_DEADLINE.as_secs()),
                    ),
                )))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}
