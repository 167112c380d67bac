//! The score pad: the web page for the table, served at `/` from files compiled into the binary
//! (`web/` at the repository root). Nothing is fetched at run time; the page talks to `/v1` only.
//!
//! Every asset is answered with an `ETag` (a hash of its bytes) and `Cache-Control: no-cache`, so
//! a phone revalidates cheaply (`304`) and never runs a stale page after an upgrade, and with a
//! Content-Security-Policy that allows nothing but this origin (no inline script or style).
//!
//! `/sw.js`, the service worker that keeps the page available offline, is served from the root
//! so that its scope is the whole page (no `Service-Worker-Allowed` needed); it caches only these
//! assets, never the API.

use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::sync::OnceLock;

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use qrcode::QrCode;
use qrcode::render::svg;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::ApiError;

/// Only this origin: scripts, styles, images, `fetch` and `EventSource`, the service worker and
/// the web app manifest.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; worker-src 'self'; \
     manifest-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

/// Swagger UI at `/docs/`: its own files and this origin's document only, shown in no other
/// site's frame. Its scripts are files; it sets styles inline and draws icons from `data:`.
pub const DOCS_CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
     font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

/// The headers of Swagger UI's pages and files (`/docs/…`), as the pad's pages have theirs.
pub async fn secure_docs(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    let docs = req.path() == "/docs" || req.path().starts_with("/docs/");
    let mut res = next.call(req).await?;
    if docs {
        let headers = res.headers_mut();
        page_headers(headers, DOCS_CONTENT_SECURITY_POLICY);
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    Ok(res)
}

/// One compiled-in file: the path it is served at, its type and its bytes.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
}

macro_rules! assets {
    ($(($path:literal, $file:literal, $type:expr)),* $(,)?) => {
        &[$(Asset { path: $path, content_type: $type, bytes: include_bytes!(concat!("../../web/", $file)) }),*]
    };
}

const JS: &str = "text/javascript; charset=utf-8";
const JSON: &str = "application/json; charset=utf-8";

static ASSETS: &[Asset] = assets![
    ("/", "index.html", "text/html; charset=utf-8"),
    ("/sw.js", "sw.js", JS),
    (
        "/pad/manifest.webmanifest",
        "manifest.webmanifest",
        "application/manifest+json"
    ),
    ("/pad/style.css", "style.css", "text/css; charset=utf-8"),
    ("/pad/app.js", "app.js", JS),
    ("/pad/api.js", "api.js", JS),
    ("/pad/state.js", "state.js", JS),
    ("/pad/ui.js", "ui.js", JS),
    ("/pad/i18n.js", "i18n.js", JS),
    ("/pad/live.js", "live.js", JS),
    ("/pad/outbox.js", "outbox.js", JS),
    ("/pad/charts.js", "charts.js", JS),
    ("/pad/views/club.js", "views/club.js", JS),
    ("/pad/views/new-game.js", "views/new-game.js", JS),
    ("/pad/views/game.js", "views/game.js", JS),
    ("/pad/views/conflict.js", "views/conflict.js", JS),
    ("/pad/views/scoreboard.js", "views/scoreboard.js", JS),
    ("/pad/views/log.js", "views/log.js", JS),
    ("/pad/views/history.js", "views/history.js", JS),
    ("/pad/views/ratings.js", "views/ratings.js", JS),
    ("/pad/games/index.js", "games/index.js", JS),
    ("/pad/games/forms.js", "games/forms.js", JS),
    ("/pad/games/describe.js", "games/describe.js", JS),
    (
        "/pad/games/mint-condition.js",
        "games/mint-condition.js",
        JS
    ),
    ("/pad/games/mind-up.js", "games/mind-up.js", JS),
    ("/pad/games/mint-julep.js", "games/mint-julep.js", JS),
    ("/pad/games/vintage.js", "games/vintage.js", JS),
    ("/pad/icon.svg", "icon.svg", "image/svg+xml"),
    // The page's words, one catalogue per language (`i18n/` at the repository's root; web/i18n.js
    // names the languages). A new language is its file, a line here and one in web/sw.js.
    ("/pad/i18n/en.json", "../i18n/en.json", JSON),
    ("/pad/i18n/fr.json", "../i18n/fr.json", JSON),
    ("/pad/i18n/fa.json", "../i18n/fa.json", JSON),
];

/// Each asset's `ETag`, computed once.
fn etags() -> &'static [String] {
    static ETAGS: OnceLock<Vec<String>> = OnceLock::new();
    ETAGS.get_or_init(|| {
        ASSETS
            .iter()
            .map(|a| {
                let digest = Sha256::digest(a.bytes);
                format!("\"{}\"", crate::auth::hex(&digest[..12]))
            })
            .collect()
    })
}

/// Registers the page and its assets (outside the OpenAPI document: they are not the API).
pub fn configure(cfg: &mut web::ServiceConfig) {
    for (index, asset) in ASSETS.iter().enumerate() {
        cfg.route(
            asset.path,
            web::get().to(move |req: HttpRequest| async move { serve(index, &req) }),
        );
    }
    cfg.route("/pad/qr.svg", web::get().to(qr_code));
    cfg.route("/pad/links.json", web::get().to(links));
}

/// Where phones at the table can reach this server, for the links and QR codes the pad hands
/// out: a page opened at `http://127.0.0.1:8080` must not give friends a link to 127.0.0.1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Links {
    /// `TABLETALLY_PUBLIC_URL`, when set: the one address to use.
    pub public_url: Option<String>,
    /// The machine's addresses on the local network with the server's port, best first, when
    /// the server listens on all interfaces and no public address is set.
    pub lan: Vec<String>,
}

impl Links {
    /// The address the operator gave: `http(s)://host[:port]` (a trailing `/` is dropped), or
    /// `None` when it is not one.
    pub fn public(url: &str) -> Option<Links> {
        let url = url.trim().trim_end_matches('/');
        let host = url
            .strip_prefix("https://")
            .or_else(|| url.strip_prefix("http://"))?;
        let plain = |c: char| c.is_ascii_alphanumeric() || "-.:[]_".contains(c);
        if host.is_empty() || !host.chars().all(plain) {
            return None;
        }
        Some(Links {
            public_url: Some(url.to_owned()),
            lan: Vec::new(),
        })
    }

    /// The LAN addresses to offer when the server listens on all interfaces (`0.0.0.0` or
    /// `[::]`); none when it listens on one address, which the page then uses as it is.
    pub fn of_listener(local: SocketAddr) -> Links {
        let mut lan = Vec::new();
        if local.ip().is_unspecified() {
            let mut ips = vec![outbound_address("0.0.0.0:0", "192.0.2.1:9")];
            if local.is_ipv6() {
                ips.push(outbound_address("[::]:0", "[2001:db8::1]:9"));
            }
            for ip in ips.into_iter().flatten() {
                lan.push(format!("http://{}", SocketAddr::new(ip, local.port())));
            }
        }
        Links {
            public_url: None,
            lan,
        }
    }
}

/// The address this machine sends from towards `remote`: a UDP socket's `connect` picks the
/// route and sends nothing. Documentation-only remotes (RFC 5737, RFC 3849) are never reached.
fn outbound_address(bind: &str, remote: &str) -> Option<IpAddr> {
    let socket = UdpSocket::bind(bind).ok()?;
    socket.connect(remote).ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

/// `GET /pad/links.json`: [`Links`], for the pad's share links and added phones.
async fn links(links: web::Data<Links>) -> HttpResponse {
    let mut res = HttpResponse::Ok().json(links.get_ref());
    secure(&mut res);
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    res
}

fn serve(index: usize, req: &HttpRequest) -> HttpResponse {
    let asset = &ASSETS[index];
    let etag = &etags()[index];
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut res = if fresh {
        HttpResponse::NotModified().finish()
    } else {
        HttpResponse::Ok()
            .content_type(asset.content_type)
            .body(asset.bytes)
    };
    secure(&mut res);
    let headers = res.headers_mut();
    if let Ok(v) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, v);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    res
}

/// The headers every page response carries.
fn secure(res: &mut HttpResponse) {
    page_headers(res.headers_mut(), CONTENT_SECURITY_POLICY);
}

/// A page's security headers: its content policy, no sniffing, no referrer.
fn page_headers(headers: &mut actix_web::http::header::HeaderMap, policy: &'static str) {
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(policy),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
}

#[derive(Deserialize)]
struct QrQuery {
    text: String,
}

/// The longest text a share QR code encodes (a share link is far shorter).
const QR_MAX_CHARS: usize = 1000;

/// `GET /pad/qr.svg?text=…`: the text as a QR code, drawn here so the page needs no library and
/// no network. The link never leaves this server (`Referrer-Policy: no-referrer`, `no-store`).
async fn qr_code(query: web::Query<QrQuery>) -> Result<HttpResponse, ApiError> {
    if query.text.is_empty() || query.text.chars().count() > QR_MAX_CHARS {
        return Err(ApiError::bad_parameter(
            "text",
            tabletally_domain::said!("server.api.pad.qr_text_length", most = QR_MAX_CHARS),
        ));
    }
    let code = QrCode::new(query.text.as_bytes()).map_err(|e| {
        ApiError::bad_parameter(
            "text",
            tabletally_domain::said!("server.api.pad.qr_cannot_encode", why = e.to_string()),
        )
    })?;
    let image = code
        .render::<svg::Color>()
        .min_dimensions(200, 200)
        .quiet_zone(true)
        .build();
    let mut res = HttpResponse::Ok().content_type("image/svg+xml").body(image);
    secure(&mut res);
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::ASSETS;

    #[test]
    fn the_service_worker_keeps_every_asset_of_the_page_but_itself() {
        let worker = ASSETS
            .iter()
            .find(|a| a.path == "/sw.js")
            .expect("the service worker is served");
        let worker = std::str::from_utf8(worker.bytes).expect("a script");
        let missing: Vec<&str> = ASSETS
            .iter()
            .map(|a| a.path)
            .filter(|path| *path != "/sw.js" && !worker.contains(&format!("'{path}'")))
            .collect();
        assert_eq!(
            missing,
            Vec::<&str>::new(),
            "add them to SHELL in web/sw.js"
        );
    }
}
