//! Building and running the server.

use std::net::TcpListener;
use std::sync::Arc;
use tabletally_domain::said;

use actix_web::dev::{Server, ServerHandle};
use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::{self, Compat};
use actix_web::{App, HttpRequest, HttpResponse, web};
use tracing_actix_web::{RequestId, TracingLogger};
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

use crate::bare_answers::Worded;
use crate::config::{BODY_LIMIT, CLIENT_REQUEST_TIMEOUT, Config};
use crate::error::ApiError;
use crate::extract;
use crate::http::{self, Cors};
use crate::limits::RateLimit;
use crate::live::{self, Live};
use crate::openapi;
use crate::pad;
use crate::routes;
use crate::state::AppState;
use crate::store::{self, Store};

pub struct Application {
    port: u16,
    server: Server,
    live: Arc<Live>,
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("database {url}: {source}")]
    Database {
        url: String,
        source: store::StoreError,
    },
    #[error(
        "TABLETALLY_PUBLIC_URL {0:?} is not an address phones can open: give it as \
         http://host[:port] or https://host[:port], with no path"
    )]
    PublicUrl(String),
    #[error(
        "TABLETALLY_TRUSTED_PROXIES: {0:?} is neither an address nor a range (such as 10.0.0.1 \
         or 10.0.0.0/8)"
    )]
    TrustedProxy(String),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: String,
        source: std::io::Error,
    },
}

impl Application {
    /// Connects the store (running migrations), binds the address and builds the server.
    pub async fn build(config: &Config) -> Result<Self, StartError> {
        let store =
            store::connect_server(&config.database_url, config.read_database_url.as_deref())
                .await
                .map_err(|source| StartError::Database {
                    url: redact(&config.database_url),
                    source,
                })?;
        tracing::info!(
            backend = store.backend(),
            standby_reads = config.read_database_url.is_some(),
            "database ready"
        );
        let listener = TcpListener::bind(&config.addr).map_err(|source| StartError::Listen {
            addr: config.addr.clone(),
            source,
        })?;
        let local = listener.local_addr().map_err(|source| StartError::Listen {
            addr: config.addr.clone(),
            source,
        })?;
        let port = local.port();
        let links = match &config.public_url {
            Some(url) => {
                pad::Links::public(url).ok_or_else(|| StartError::PublicUrl(url.clone()))?
            }
            None => pad::Links::of_listener(local),
        };
        let store: Arc<dyn Store> = Arc::from(store);
        let live = Live::new(config.streams.clone());
        store.report_commits_to(live.clone());
        tokio::spawn(settle_in_background(store.clone(), config.settle_every));
        if let Some(pool) = store.notifications() {
            tokio::spawn(live::follow_postgres(live.clone(), store.clone(), pool));
        }
        let trusted_proxies = crate::client::TrustedProxies::parse(&config.trusted_proxies)
            .map_err(StartError::TrustedProxy)?;
        let state = AppState {
            imports: tokio::sync::Semaphore::new(crate::state::IMPORTS_AT_ONCE),
            store,
            club_creation: RateLimit::per_minute(config.clubs_per_minute),
            clubs_per_minute: config.clubs_per_minute,
            read_models: config.read_models,
            import_max_bytes: config.import_max_bytes,
            metrics: Arc::default(),
            live: live.clone(),
        };
        // The layers outside the routes read these on their own, not through `AppState`.
        let guards = Guards {
            admission: web::Data::new(crate::admission::Admission::per_address(
                config.requests_per_address,
            )),
            trusted_proxies: web::Data::new(trusted_proxies),
        };
        let cors = Cors {
            origins: config.cors_origins.clone(),
        };
        let server =
            run(listener, state, guards, cors, links, config.workers).map_err(|source| {
                StartError::Listen {
                    addr: config.addr.clone(),
                    source,
                }
            })?;
        Ok(Self { port, server, live })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// What stops this server as a shutdown signal does, from elsewhere (a test that takes the
    /// server away from the phones and brings it back).
    pub fn stopper(&self) -> Stopper {
        Stopper {
            server: self.server.handle(),
            live: self.live.clone(),
        }
    }

    /// Serves until SIGINT/SIGTERM, then ends the live streams and finishes the requests in
    /// flight.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let stopper = self.stopper();
        let on_signal = tokio::spawn(async move {
            stop_signal().await;
            tracing::info!("stopping: closing the live streams, finishing requests");
            stopper.stop().await;
        });
        let served = self.server.await;
        on_signal.abort();
        served
    }
}

/// Stops a running [`Application`].
#[derive(Clone)]
pub struct Stopper {
    server: ServerHandle,
    live: Arc<Live>,
}

impl Stopper {
    /// Ends the live streams (actix would wait for them: they never end by themselves), finishes
    /// the requests in flight and closes the listener.
    pub async fn stop(&self) {
        self.live.close_all();
        self.server.stop(true).await;
    }
}

async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Hides a password in a database URL before logging it.
/// Adds every club's noted finishes to its statistics `every` so often, so that a read finds few
/// to add (each server does; they take turns by the club's statistics lock).
async fn settle_in_background(store: Arc<dyn Store>, every: std::time::Duration) {
    let mut every = tokio::time::interval(every);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if let Err(error) = store.settle_every_club().await {
            tracing::warn!(%error, "adding finished games to the statistics failed; tried again shortly");
        }
    }
}

fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://…@{}", &url[..scheme], &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

/// What the admission and client-address layers read ([`crate::admission`], [`crate::client`]).
struct Guards {
    admission: web::Data<crate::admission::Admission>,
    trusted_proxies: web::Data<crate::client::TrustedProxies>,
}

fn run(
    listener: TcpListener,
    state: AppState,
    guards: Guards,
    cors: Cors,
    links: pad::Links,
    workers: Option<usize>,
) -> std::io::Result<Server> {
    let addr = listener.local_addr()?;
    let state = web::Data::new(state);
    let cors = web::Data::new(cors);
    let links = web::Data::new(links);
    // Serialised once and shared: each worker holding its own copy of the document (what
    // `SwaggerUi::url` does) cost some 4 MiB a worker.
    let document = web::Bytes::from(
        serde_json::to_vec(&openapi::document())
            .map_err(|e| std::io::Error::other(format!("the OpenAPI document: {e}")))?,
    );
    let app = move || {
        let document = document.clone();
        let (app, _) = App::new()
            .into_utoipa_app()
            .app_data(state.clone())
            .app_data(guards.admission.clone())
            .app_data(guards.trusted_proxies.clone())
            .app_data(cors.clone())
            .app_data(links.clone())
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
        app.route(
            "/openapi.json",
            web::get().to(move || {
                let document = document.clone();
                async move {
                    HttpResponse::Ok()
                        .content_type(actix_web::http::header::ContentType::json())
                        .body(document)
                }
            }),
        )
        .service(
            SwaggerUi::new("/docs/{_:.*}").config(utoipa_swagger_ui::Config::from("/openapi.json")),
        )
        // Swagger UI's relative asset paths need the trailing slash.
        .service(web::redirect("/docs", "/docs/").permanent())
        .configure(pad::configure)
        .default_service(web::to(no_route))
        // Innermost: a handler's panic becomes a 500 the other layers see like any answer.
        .wrap(middleware::from_fn(http::catch_panics))
        // A change runs to its end when its phone hangs up midway.
        .wrap(middleware::from_fn(http::finish_changes))
        // Each address's requests in flight, their bodies and answers in time.
        .wrap(middleware::from_fn(crate::admission::admit))
        // Problems said in the language asked for; `Content-Language` on every answer.
        .wrap(middleware::from_fn(crate::speaking::speak))
        .wrap(middleware::from_fn(http::read_unread_body))
        .wrap(middleware::from_fn(pad::secure_docs))
        .wrap(middleware::from_fn(request_id_header))
        .wrap(middleware::from_fn(record_metrics))
        .wrap(middleware::from_fn(http::cors))
        .wrap(middleware::from_fn(http::head_as_get))
        .wrap(Compat::new(TracingLogger::default()))
        // The client's address as the log and the limits know it (trusted proxies only).
        .wrap(middleware::from_fn(crate::client::name_the_client))
        // Outermost: no token in a URL reaches the request log.
        .wrap(middleware::from_fn(http::take_token_from_url))
    };
    // actix-web's `HttpServer`, put together by hand for one thing it cannot do: each
    // connection is `Worded`, so the parser's own bare answers carry a problem body.
    let mut server = actix_server::Server::build()
        .listen("tabletally", listener, move || {
            let http = actix_http::HttpService::build()
                // A slow client gets 408 and is closed rather than holding a worker.
                .client_request_timeout(CLIENT_REQUEST_TIMEOUT)
                .client_disconnect_timeout(std::time::Duration::from_secs(2))
                // A client that closes its side has gone (no client of ours half-closes): its
                // live stream ends and gives its place back at once, not at the next
                // heartbeat's failed write.
                .h1_allow_half_closed(false)
                .local_addr(addr)
                .finish(actix_service::map_config(app(), |_| {
                    actix_web::dev::AppConfig::default()
                }));
            actix_service::ServiceFactoryExt::and_then(
                actix_service::fn_service(|io: actix_web::rt::net::TcpStream| async move {
                    let peer = io.peer_addr().ok();
                    Ok::<_, actix_http::error::DispatchError>((
                        Worded::new(io),
                        actix_http::Protocol::Http1,
                        peer,
                    ))
                }),
                http,
            )
        })?
        .shutdown_timeout(10)
        .disable_signals();
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

/// Counts every answer by its route's pattern, status and time (`GET /metrics`).
async fn record_metrics(
    req: actix_web::dev::ServiceRequest,
    next: middleware::Next<impl actix_web::body::MessageBody>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    let started = std::time::Instant::now();
    let method = crate::metrics::method_label(&http::method_sent(req.request()));
    let metrics = req
        .app_data::<web::Data<AppState>>()
        .map(|state| state.metrics.clone());
    let res = next.call(req).await?;
    if let Some(metrics) = metrics {
        // The matched pattern, never the path itself: no club's ids in the metrics.
        let route = res
            .request()
            .match_pattern()
            .unwrap_or_else(|| "unmatched".to_owned());
        metrics.record(method, &route, res.status().as_u16(), started.elapsed());
    }
    Ok(res)
}

async fn no_route(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    if let Some(allow) = http::allowed_methods(req.path()) {
        return Err(ApiError::MethodNotAllowed {
            method: http::method_sent(&req).to_string(),
            allow,
        });
    }
    Err(ApiError::NotFound(said!(
        "server.problem.no_route",
        method = http::method_sent(&req).to_string(),
        path = req.path()
    )))
}

fn json_error(err: JsonPayloadError, _: &HttpRequest) -> actix_web::Error {
    match err {
        JsonPayloadError::Overflow { .. } | JsonPayloadError::OverflowKnownLength { .. } => {
            ApiError::PayloadTooLarge(BODY_LIMIT).into()
        }
        JsonPayloadError::ContentType => {
            ApiError::UnsupportedMediaType(said!("server.problem.body_not_json")).into()
        }
        // Right JSON syntax, wrong shape (handlers reading `extract::Json` get the field too).
        JsonPayloadError::Deserialize(e) if e.is_data() => ApiError::Unprocessable {
            parameter: None,
            detail: tabletally_domain::said!("server.api.request.body_shape", why = e.to_string()),
            pointer: None,
            event_index: None,
        }
        .into(),
        JsonPayloadError::Deserialize(e) => ApiError::Unreadable {
            detail: said!(
                "server.problem.invalid_json",
                why = syntax_words(&e),
                line = e.line(),
                column = e.column()
            ),
            pointer: Some(String::new()),
            parameter: None,
        }
        .into(),
        JsonPayloadError::Payload(payload) => {
            ApiError::BadRequest(extract::payload_words(&payload)).into()
        }
        other => ApiError::BadRequest(said!(
            "server.problem.body_unreadable",
            why = other.to_string()
        ))
        .into(),
    }
}

/// serde_json's syntax message without its position (given separately, in words).
fn syntax_words(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

fn path_error(err: PathError, req: &HttpRequest) -> actix_web::Error {
    extract::path_error(&err, req).into()
}

fn query_error(err: QueryPayloadError, _: &HttpRequest) -> actix_web::Error {
    ApiError::BadRequest(tabletally_domain::said!(
        "server.api.request.query_unreadable",
        why = err.to_string()
    ))
    .into()
}
