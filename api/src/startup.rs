//! Building and running the server.

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::dev::Server;
use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::{self, Compat};
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use tracing_actix_web::{RequestId, TracingLogger};
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

use crate::config::{BODY_LIMIT, CLIENT_REQUEST_TIMEOUT, Config};
use crate::error::ApiError;
use crate::limits::RateLimit;
use crate::openapi;
use crate::pad;
use crate::routes;
use crate::store::{self, Store};

/// What every handler can reach.
pub struct AppState {
    pub store: Arc<dyn Store>,
    /// `POST /v1/clubs` per client address.
    pub club_creation: RateLimit,
    /// Whether appends keep the statistics read models up to date.
    pub read_models: bool,
    /// Largest file `POST /v1/import` accepts.
    pub import_max_bytes: usize,
}

pub struct Application {
    port: u16,
    server: Server,
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("database {url}: {source}")]
    Database {
        url: String,
        source: store::StoreError,
    },
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: String,
        source: std::io::Error,
    },
}

impl Application {
    /// Connects the store (running migrations), binds the address and builds the server.
    pub async fn build(config: &Config) -> Result<Self, StartError> {
        let store = store::connect(&config.database_url)
            .await
            .map_err(|source| StartError::Database {
                url: redact(&config.database_url),
                source,
            })?;
        tracing::info!(backend = store.backend(), "database ready");
        let listener = TcpListener::bind(&config.addr).map_err(|source| StartError::Listen {
            addr: config.addr.clone(),
            source,
        })?;
        let port = listener
            .local_addr()
            .map_err(|source| StartError::Listen {
                addr: config.addr.clone(),
                source,
            })?
            .port();
        let state = AppState {
            store: Arc::from(store),
            club_creation: RateLimit::per_minute(config.clubs_per_minute),
            read_models: config.read_models,
            import_max_bytes: config.import_max_bytes,
        };
        let server = run(listener, state, config.workers).map_err(|source| StartError::Listen {
            addr: config.addr.clone(),
            source,
        })?;
        Ok(Self { port, server })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until SIGINT/SIGTERM, then finishes the requests in flight.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}

/// Hides a password in a database URL before logging it.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://…@{}", &url[..scheme], &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

fn run(listener: TcpListener, state: AppState, workers: Option<usize>) -> std::io::Result<Server> {
    let addr = listener.local_addr()?;
    let state = web::Data::new(state);
    let document = openapi::document();
    let mut server = HttpServer::new(move || {
        let (app, _) = App::new()
            .into_utoipa_app()
            .app_data(state.clone())
            .app_data(
                web::JsonConfig::default()
                    .limit(BODY_LIMIT)
                    .error_handler(json_error),
            )
            .app_data(web::PayloadConfig::default().limit(BODY_LIMIT))
            .app_data(web::PathConfig::default().error_handler(path_error))
            .app_data(web::QueryConfig::default().error_handler(query_error))
            .configure(routes::configure)
            .split_for_parts();
        app.service(SwaggerUi::new("/docs/{_:.*}").url("/openapi.json", document.clone()))
            .configure(pad::configure)
            .default_service(web::to(no_route))
            .wrap(middleware::from_fn(request_id_header))
            .wrap(Compat::new(TracingLogger::default()))
    })
    .listen(listener)?
    // A slow client gets 408 and is closed rather than holding a worker.
    .client_request_timeout(CLIENT_REQUEST_TIMEOUT)
    .client_disconnect_timeout(std::time::Duration::from_secs(2))
    .shutdown_timeout(10);
    if let Some(workers) = workers {
        server = server.workers(workers);
    }
    tracing::info!("listening on http://{addr}");
    Ok(server.run())
}

/// Echoes the request id of the log line as `x-request-id`, so a user can quote it.
async fn request_id_header(
    req: actix_web::dev::ServiceRequest,
    next: middleware::Next<impl actix_web::body::MessageBody>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    let id = actix_web::HttpMessage::extensions(&req)
        .get::<RequestId>()
        .copied();
    let mut res = next.call(req).await?;
    if let Some(id) = id
        && let Ok(value) = HeaderValue::from_str(&id.to_string())
    {
        res.headers_mut()
            .insert(HeaderName::from_static("x-request-id"), value);
    }
    Ok(res)
}

async fn no_route(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound(format!(
        "no route for {} {}",
        req.method(),
        req.path()
    )))
}

fn json_error(err: JsonPayloadError, _: &HttpRequest) -> actix_web::Error {
    match err {
        JsonPayloadError::Overflow { .. } | JsonPayloadError::OverflowKnownLength { .. } => {
            ApiError::PayloadTooLarge(BODY_LIMIT).into()
        }
        JsonPayloadError::ContentType => ApiError::UnsupportedMediaType(
            "the body must be JSON with Content-Type: application/json".into(),
        )
        .into(),
        // Right JSON syntax, wrong shape: name the problem (serde says which field).
        JsonPayloadError::Deserialize(e) if e.is_data() => ApiError::Unprocessable {
            detail: format!("the body does not have the expected shape: {e}"),
            pointer: None,
            event_index: None,
        }
        .into(),
        JsonPayloadError::Deserialize(e) => {
            ApiError::BadRequest(format!("the body is not valid JSON: {e}")).into()
        }
        other => ApiError::BadRequest(format!("the body could not be read: {other}")).into(),
    }
}

fn path_error(err: PathError, _: &HttpRequest) -> actix_web::Error {
    ApiError::BadRequest(format!("bad path parameter: {err}")).into()
}

fn query_error(err: QueryPayloadError, _: &HttpRequest) -> actix_web::Error {
    ApiError::BadRequest(format!("bad query parameter: {err}")).into()
}
