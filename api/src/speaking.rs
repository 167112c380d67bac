//! Every answer in the language its request asked for ([`crate::language`]): `Content-Language`
//! on each, and a problem, made in English where it happened, said again in that language.

use actix_web::body::{BoxBody, EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError};

use crate::error::ApiError;
use crate::language::Language;

/// Says every answer's language in `Content-Language` (and that it depends on
/// `Accept-Language`, for caches), and says a problem in the language asked for: the problem is
/// made in English where it happens, and made again here from the same error.
pub async fn speak(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let language = Language::of(req.request());
    // No copy of the request is held here: layers inside need it to themselves. An error a layer
    // inside returns (a handler's panic) is answered further out, in English.
    let res = next.call(req).await?.map_into_left_body();
    let said = match res
        .response()
        .error()
        .and_then(|e| e.as_error::<ApiError>())
    {
        Some(error) if language != Language::English => Some(SaidIn {
            error: error.clone(),
            language,
        }),
        _ => None,
    };
    let mut res = match said {
        Some(said) => res
            .into_response(HttpResponse::from_error(said))
            .map_into_right_body(),
        None => res,
    };
    let headers = res.headers_mut();
    headers.insert(
        header::CONTENT_LANGUAGE,
        HeaderValue::from_static(language.tag()),
    );
    headers.append(header::VARY, HeaderValue::from_static("Accept-Language"));
    Ok(res)
}

/// An error to be said in a language other than English.
#[derive(Debug)]
struct SaidIn {
    error: ApiError,
    language: Language,
}

impl std::fmt::Display for SaidIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl ResponseError for SaidIn {
    fn status_code(&self) -> actix_web::http::StatusCode {
        self.error.status_code()
    }

    fn error_response(&self) -> HttpResponse<BoxBody> {
        self.error.error_response_in(self.language)
    }
}
