//! `GET /metrics` in the Prometheus text format: requests by route and status, their latency,
//! and what the write path did. Routes are counted by their pattern (`/v1/games/{id}`), never by
//! the path a client sent, so no club's ids or names appear.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::store::{CacheCounters, WriterCounters};

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

#[derive(Debug, Default, Clone)]
struct Latency {
    /// Requests at or under each bucket's bound (cumulative when written).
    buckets: [u64; BUCKETS.len()],
    count: u64,
    sum_seconds: f64,
}

/// The server's counters, shared by every worker.
#[derive(Debug, Default)]
pub struct Metrics {
    /// `(method, route pattern, status)` → count.
    requests: Mutex<BTreeMap<(String, String, u16), u64>>,
    /// `(method, route pattern)` → latency histogram.
    latency: Mutex<BTreeMap<(String, String), Latency>>,
    /// Events stored by appends (retries of stored events not counted).
    events_appended: AtomicU64,
    /// Append requests that stored events.
    appends: AtomicU64,
    /// Games created.
    games_created: AtomicU64,
}

impl Metrics {
    /// Counts one answered request.
    /// `method` is a [`method_label`], `route` a route's pattern or `unmatched`: both come from
    /// short fixed lists, so no client can grow the counters.
    pub fn record(&self, method: &str, route: &str, status: u16, took: Duration) {
        let key = (method.to_owned(), route.to_owned());
        if let Ok(mut requests) = self.requests.lock() {
            *requests
                .entry((key.0.clone(), key.1.clone(), status))
                .or_default() += 1;
        }
        if let Ok(mut latency) = self.latency.lock() {
            let entry = latency.entry(key).or_default();
            let seconds = took.as_secs_f64();
            if let Some(i) = BUCKETS.iter().position(|bound| seconds <= *bound) {
                entry.buckets[i] += 1;
            }
            entry.count += 1;
            entry.sum_seconds += seconds;
        }
    }

    /// Counts an append that stored `events` events.
    pub fn appended(&self, events: usize) {
        self.appends.fetch_add(1, Ordering::Relaxed);
        self.events_appended
            .fetch_add(events as u64, Ordering::Relaxed);
    }

    pub fn game_created(&self) {
        self.games_created.fetch_add(1, Ordering::Relaxed);
    }

    /// The text exposition format (version 0.0.4).
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("# HELP tabletally_http_requests_total HTTP requests answered, by route pattern and status.\n");
        out.push_str("# TYPE tabletally_http_requests_total counter\n");
        if let Ok(requests) = self.requests.lock() {
            for ((method, route, status), count) in requests.iter() {
                let _ = writeln!(
                    out,
                    "tabletally_http_requests_total{{method=\"{method}\",route=\"{}\",status=\"{status}\"}} {count}",
                    escape(route)
                );
            }
        }
        out.push_str("# HELP tabletally_http_request_duration_seconds Time to answer a request, by route pattern.\n");
        out.push_str("# TYPE tabletally_http_request_duration_seconds histogram\n");
        if let Ok(latency) = self.latency.lock() {
            for ((method, route), l) in latency.iter() {
                let labels = format!("method=\"{method}\",route=\"{}\"", escape(route));
                let mut cumulative = 0;
                for (bound, n) in BUCKETS.iter().zip(l.buckets) {
                    cumulative += n;
                    let _ = writeln!(
                        out,
                        "tabletally_http_request_duration_seconds_bucket{{{labels},le=\"{bound}\"}} {cumulative}"
                    );
                }
                let _ = writeln!(
                    out,
                    "tabletally_http_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {}\n\
                     tabletally_http_request_duration_seconds_sum{{{labels}}} {}\n\
                     tabletally_http_request_duration_seconds_count{{{labels}}} {}",
                    l.count, l.sum_seconds, l.count
                );
            }
        }
        for (name, help, value) in [
            (
                "tabletally_appends_total",
                "Append requests that stored events.",
                &self.appends,
            ),
            (
                "tabletally_events_appended_total",
                "Events stored by appends.",
                &self.events_appended,
            ),
            (
                "tabletally_games_created_total",
                "Games created.",
                &self.games_created,
            ),
        ] {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}",
                value.load(Ordering::Relaxed)
            );
        }
        out
    }
}

/// The store's write path and state cache, in the same format (appended to [`Metrics::render`]).
pub fn render_store(cache: CacheCounters, writer: WriterCounters) -> String {
    let mut out = String::new();
    for (name, kind, help, value) in [
        (
            "tabletally_cache_hits_total",
            "counter",
            "Game states answered from the state cache.",
            cache.hits,
        ),
        (
            "tabletally_cache_misses_total",
            "counter",
            "Game states replayed from the log (not cached at the stored version).",
            cache.misses,
        ),
        (
            "tabletally_cache_games",
            "gauge",
            "Games held in the state cache.",
            cache.games,
        ),
        (
            "tabletally_cache_bytes",
            "gauge",
            "Estimated bytes held in the state cache.",
            cache.bytes,
        ),
        (
            "tabletally_cache_answered_alone_total",
            "counter",
            "Score reads answered from the state cache without asking the database.",
            cache.answered_alone,
        ),
        (
            "tabletally_sole_server",
            "gauge",
            "1 while this server is the database's only writer (its cache may answer alone).",
            u64::from(cache.sole),
        ),
        (
            "tabletally_write_commits_total",
            "counter",
            "Transactions committed by the write path (appends and game creations).",
            writer.commits,
        ),
        (
            "tabletally_write_requests_total",
            "counter",
            "Requests those commits held; divided by the commits, the group commit's mean batch.",
            writer.requests,
        ),
        (
            "tabletally_write_largest_batch",
            "gauge",
            "The most requests one commit held.",
            writer.largest_batch,
        ),
    ] {
        let _ = writeln!(
            out,
            "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
        );
    }
    out
}

/// A label value with `\`, `"` and newlines escaped.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The primary followed among several PostgreSQL hosts: which, whether up, failovers, and
/// the time spent without one (nothing for one database).
pub fn render_primary(primary: Option<crate::store::primary::FollowerStatus>) -> String {
    let Some(p) = primary else {
        return String::new();
    };
    format!(
        "# HELP tabletally_database_primary_up Whether the followed host took writes at the last check.\n\
         # TYPE tabletally_database_primary_up gauge\n\
         tabletally_database_primary_up{{host=\"{host}\"}} {up}\n\
         # HELP tabletally_database_failovers_total Moves to another host after the primary was lost.\n\
         # TYPE tabletally_database_failovers_total counter\n\
         tabletally_database_failovers_total {failovers}\n\
         # HELP tabletally_database_without_primary_seconds_total Time spent with no host taking writes.\n\
         # TYPE tabletally_database_without_primary_seconds_total counter\n\
         tabletally_database_without_primary_seconds_total {without:.3}\n",
        host = escape(&p.host),
        up = u8::from(p.up),
        failovers = p.failovers,
        without = p.without.as_secs_f64(),
    )
}

/// A request's method as the metrics label it: the methods HTTP defines, each by its name;
/// anything a client made up is `other` (a label per made-up method would grow without bound).
pub fn method_label(method: &actix_web::http::Method) -> &'static str {
    use actix_web::http::Method;
    const KNOWN: [(Method, &str); 9] = [
        (Method::GET, "GET"),
        (Method::HEAD, "HEAD"),
        (Method::POST, "POST"),
        (Method::PUT, "PUT"),
        (Method::PATCH, "PATCH"),
        (Method::DELETE, "DELETE"),
        (Method::OPTIONS, "OPTIONS"),
        (Method::CONNECT, "CONNECT"),
        (Method::TRACE, "TRACE"),
    ];
    KNOWN
        .iter()
        .find(|(known, _)| known == method)
        .map_or("other", |(_, label)| label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_counted_by_route_and_status_with_a_cumulative_latency_histogram() {
        let metrics = Metrics::default();
        metrics.record("GET", "/v1/games/{id}", 200, Duration::from_micros(800));
        metrics.record("GET", "/v1/games/{id}", 200, Duration::from_millis(30));
        metrics.record("GET", "/v1/games/{id}", 404, Duration::from_millis(2));
        metrics.appended(3);
        metrics.game_created();

        let text = metrics.render();

        for line in [
            "tabletally_http_requests_total{method=\"GET\",route=\"/v1/games/{id}\",status=\"200\"} 2",
            "tabletally_http_requests_total{method=\"GET\",route=\"/v1/games/{id}\",status=\"404\"} 1",
            // 0.8 ms ≤ 1 ms; 2 ms ≤ 2.5 ms; 30 ms ≤ 50 ms.
            "tabletally_http_request_duration_seconds_bucket{method=\"GET\",route=\"/v1/games/{id}\",le=\"0.001\"} 1",
            "tabletally_http_request_duration_seconds_bucket{method=\"GET\",route=\"/v1/games/{id}\",le=\"0.0025\"} 2",
            "tabletally_http_request_duration_seconds_bucket{method=\"GET\",route=\"/v1/games/{id}\",le=\"0.025\"} 2",
            "tabletally_http_request_duration_seconds_bucket{method=\"GET\",route=\"/v1/games/{id}\",le=\"0.05\"} 3",
            "tabletally_http_request_duration_seconds_bucket{method=\"GET\",route=\"/v1/games/{id}\",le=\"+Inf\"} 3",
            "tabletally_http_request_duration_seconds_count{method=\"GET\",route=\"/v1/games/{id}\"} 3",
            "tabletally_appends_total 1",
            "tabletally_events_appended_total 3",
            "tabletally_games_created_total 1",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        }
    }

    #[test]
    fn the_cache_and_the_group_commit_are_shown_with_their_figures() {
        let cache = CacheCounters {
            hits: 7,
            misses: 2,
            games: 3,
            bytes: 4096,
            answered_alone: 6,
            sole: true,
        };
        let writer = WriterCounters {
            commits: 4,
            requests: 10,
            largest_batch: 5,
        };

        let text = render_store(cache, writer);

        for line in [
            "tabletally_cache_hits_total 7",
            "tabletally_cache_misses_total 2",
            "tabletally_cache_games 3",
            "tabletally_cache_bytes 4096",
            "tabletally_cache_answered_alone_total 6",
            "tabletally_sole_server 1",
            "tabletally_write_commits_total 4",
            "tabletally_write_requests_total 10",
            "tabletally_write_largest_batch 5",
            "# TYPE tabletally_cache_games gauge",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        }
    }
}
