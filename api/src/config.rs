//! Configuration from the environment, with defaults that run on a fresh machine.

use std::time::Duration;

/// Largest JSON body accepted (→ 413 above it).
pub const BODY_LIMIT: usize = 256 * 1024;
/// Most events accepted in one append request (→ 422).
pub const MAX_EVENTS_PER_REQUEST: usize = 200;
/// Most events one game's log may hold (→ 422). A long game of Mind Up! is about 30.
pub const MAX_EVENTS_PER_GAME: usize = 2000;
/// Most bytes an event's `data` may hold, as compact JSON (→ 422). The largest legal events —
/// a round of the biggest table, a correction of one — hold about 2,000.
pub const MAX_EVENT_DATA_BYTES: usize = 8 * 1024;
/// Most characters of a `reason` (a retraction's, a correction's, an abandon's): a sentence.
pub const MAX_REASON_CHARS: usize = 500;
/// Most bytes a game's or a preset's options may hold, as compact JSON (→ 422): a whole custom
/// deck of Vintage (63 cards) or of Mind Up! holds about 6,000.
pub const MAX_OPTIONS_BYTES: usize = 16 * 1024;
/// Most bytes of event data one page of a log holds (the game's, the club's), besides its
/// `limit`: a page of the largest events is about 1 MiB, not 8; the rest follows on the next.
pub const MAX_PAGE_DATA_BYTES: usize = 1024 * 1024;
/// How long a client may take to send a request's head before it gets 408 and is closed.
pub const CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// Limits of the live streams (configuration: `TABLETALLY_STREAM_*`).
#[derive(Debug, Clone)]
pub struct StreamLimits {
    /// Frames a game stream may fall behind before it is closed.
    pub buffer: usize,
    /// Open streams per club, opened with its own tokens (→ 429 above it).
    pub per_club: usize,
    /// Open streams per share link, counted apart from its club's (→ 429 above it).
    pub per_share: usize,
    /// Open streams per client address (→ 429 above it).
    pub per_address: usize,
    /// Open streams per server (→ 503 above it).
    pub per_server: usize,
    /// A comment line at least this often keeps proxies and phones from closing an idle stream.
    pub heartbeat: Duration,
}

impl Default for StreamLimits {
    fn default() -> Self {
        Self {
            buffer: 64,
            per_club: 200,
            // A share link is for a table's guests and a screen or two.
            per_share: 20,
            // A club's tables behind one address (a café's Wi-Fi) open a few hundred at most.
            per_address: 500,
            per_server: 10_000,
            // API.md: "at least every 15 s"; 10 leaves room for a busy server's timers.
            heartbeat: Duration::from_secs(10),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Config {
    /// `TABLETALLY_ADDR`, default `127.0.0.1:8080`; port 0 picks a free port.
    pub addr: String,
    /// `DATABASE_URL`, default `sqlite://tabletally.db` (created if missing).
    pub database_url: String,
    /// `TABLETALLY_READ_DATABASE_URL`: a PostgreSQL standby (one host or several, as in
    /// `DATABASE_URL`) that statistics and history lists are read from while it answers as a
    /// standby; none by default (everything is read from `DATABASE_URL`).
    pub read_database_url: Option<String>,
    /// Worker threads; `TABLETALLY_WORKERS`, default: one per core.
    pub workers: Option<usize>,
    /// Clubs one client address may create per minute; `TABLETALLY_CLUBS_PER_MINUTE`,
    /// default 20 (→ 429 above it).
    pub clubs_per_minute: u32,
    /// Keep the statistics read models up to date on every append; `TABLETALLY_READ_MODELS=off`
    /// turns that off (only for measuring what they cost: statistics are then stale until
    /// `tabletally rebuild-stats`).
    pub read_models: bool,
    /// Largest file `POST /v1/import` accepts; `TABLETALLY_IMPORT_MAX_BYTES`, default 256 MiB
    /// (→ 413 above it). The file is read line by line, so memory holds one game at a time.
    pub import_max_bytes: usize,
    /// Live streams: `TABLETALLY_STREAM_BUFFER` (frames a stream may lag, default 64),
    /// `TABLETALLY_STREAMS_PER_CLUB` (default 200, → 429), `TABLETALLY_STREAMS_PER_SERVER`
    /// (default 10000, → 503).
    pub streams: StreamLimits,
    /// Browser origins allowed by CORS; `TABLETALLY_CORS_ORIGINS`, comma-separated (`*`: any),
    /// none by default.
    pub cors_origins: Vec<String>,
    /// `TABLETALLY_PUBLIC_URL`: the address phones reach this server at (`https://pad.example`,
    /// `http://192.168.1.20:8080`), used by the score pad for share links, QR codes and added
    /// phones. None by default: the pad then offers the machine's LAN addresses when the
    /// server listens on all interfaces, or the page's own address.
    pub public_url: Option<String>,
    /// `TABLETALLY_TRUSTED_PROXIES`: the proxies (addresses or CIDR ranges, comma-separated)
    /// whose `X-Forwarded-For` names the client; none by default (the peer is the client).
    pub trusted_proxies: String,
    /// `TABLETALLY_REQUESTS_PER_ADDRESS`: requests one client address may have in flight at
    /// once (→ 429); live streams are counted by their own limits.
    pub requests_per_address: usize,
    /// `TABLETALLY_SETTLE_MS`: how often, in milliseconds, the server adds the games finished
    /// since to the statistics' shared sums in the background (a read adds them first anyway);
    /// 250 by default.
    pub settle_every: std::time::Duration,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            addr: "127.0.0.1:8080".into(),
            database_url: "sqlite://tabletally.db".into(),
            read_database_url: None,
            workers: None,
            clubs_per_minute: 20,
            read_models: true,
            import_max_bytes: 256 * 1024 * 1024,
            streams: StreamLimits::default(),
            cors_origins: Vec::new(),
            public_url: None,
            trusted_proxies: String::new(),
            // A café's tables behind one address: a few requests in flight each.
            requests_per_address: 256,
            settle_every: crate::store::SETTLE_EVERY,
        }
    }
}

impl Config {
    pub fn from_env() -> Self {
        let defaults = Self::default();
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let number = |name: &str| var(name).and_then(|v| v.parse::<usize>().ok());
        Self {
            addr: var("TABLETALLY_ADDR").unwrap_or(defaults.addr),
            database_url: var("DATABASE_URL").unwrap_or(defaults.database_url),
            read_database_url: var("TABLETALLY_READ_DATABASE_URL"),
            workers: var("TABLETALLY_WORKERS").and_then(|w| w.parse().ok()),
            clubs_per_minute: var("TABLETALLY_CLUBS_PER_MINUTE")
                .and_then(|v| v.parse().ok())
                .unwrap_or(defaults.clubs_per_minute),
            read_models: var("TABLETALLY_READ_MODELS").as_deref() != Some("off"),
            import_max_bytes: var("TABLETALLY_IMPORT_MAX_BYTES")
                .and_then(|v| v.parse().ok())
                .unwrap_or(defaults.import_max_bytes),
            streams: StreamLimits {
                buffer: number("TABLETALLY_STREAM_BUFFER").unwrap_or(defaults.streams.buffer),
                per_club: number("TABLETALLY_STREAMS_PER_CLUB")
                    .unwrap_or(defaults.streams.per_club),
                per_share: number("TABLETALLY_STREAMS_PER_SHARE")
                    .unwrap_or(defaults.streams.per_share),
                per_address: number("TABLETALLY_STREAMS_PER_ADDRESS")
                    .unwrap_or(defaults.streams.per_address),
                per_server: number("TABLETALLY_STREAMS_PER_SERVER")
                    .unwrap_or(defaults.streams.per_server),
                heartbeat: defaults.streams.heartbeat,
            },
            cors_origins: var("TABLETALLY_CORS_ORIGINS")
                .map(|v| {
                    v.split(',')
                        .map(|o| o.trim().trim_end_matches('/').to_owned())
                        .filter(|o| !o.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
            public_url: var("TABLETALLY_PUBLIC_URL"),
            trusted_proxies: var("TABLETALLY_TRUSTED_PROXIES").unwrap_or_default(),
            requests_per_address: number("TABLETALLY_REQUESTS_PER_ADDRESS")
                .unwrap_or(defaults.requests_per_address),
            settle_every: number("TABLETALLY_SETTLE_MS")
                .filter(|ms| *ms > 0)
                .map_or(defaults.settle_every, |ms| {
                    std::time::Duration::from_millis(ms as u64)
                }),
        }
    }
}
