//! A fixed-window rate limit per client address, for the one unauthenticated write
//! (`POST /v1/clubs`), in memory for SQLite (one server process). On PostgreSQL the same
//! windows are counted in the database, so that every server counts the same clients.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub const WINDOW: Duration = Duration::from_secs(60);

pub struct RateLimit {
    per_window: u32,
    windows: Mutex<HashMap<IpAddr, (Instant, u32)>>,
}

impl RateLimit {
    pub fn per_minute(per_window: u32) -> Self {
        Self {
            per_window,
            windows: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one request from `client`; `Err(seconds)` says when to retry once over the limit.
    pub fn check(&self, client: IpAddr, now: Instant) -> Result<(), u64> {
        let mut windows = self
            .windows
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // Forget finished windows so the map cannot grow without bound.
        if windows.len() > 10_000 {
            windows.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        }
        let (start, count) = windows.entry(client).or_insert((now, 0));
        if now.duration_since(*start) >= WINDOW {
            *start = now;
            *count = 0;
        }
        if *count >= self.per_window {
            let wait = WINDOW.saturating_sub(now.duration_since(*start));
            return Err(wait.as_secs().max(1));
        }
        *count += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_over_the_limit_waits_for_the_next_window() {
        let limit = RateLimit::per_minute(2);
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let other: IpAddr = "127.0.0.2".parse().unwrap();
        let t0 = Instant::now();

        assert_eq!(limit.check(ip, t0), Ok(()));
        assert_eq!(limit.check(ip, t0 + Duration::from_secs(1)), Ok(()));
        assert_eq!(limit.check(ip, t0 + Duration::from_secs(20)), Err(40));
        assert_eq!(limit.check(other, t0 + Duration::from_secs(20)), Ok(()));
        assert_eq!(limit.check(ip, t0 + Duration::from_secs(60)), Ok(()));
    }
}
