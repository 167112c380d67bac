//! The live table: what the write path committed, fanned out to open server-sent-event streams.
//!
//! The store reports every commit once ([`Subscribers::committed`]). For a game somebody follows,
//! [`Live`] turns the commit into one `appended` frame, serialised once, and puts it on the game's
//! broadcast channel — a bounded ring: sending never waits, and a stream that falls more than
//! `buffer` frames behind is closed (its client resumes with `Last-Event-ID`). Lobbies get a
//! wake-up and read their changes from the database.
//!
//! The parts: the frames a stream sends (`frames`), how many streams may be open (`limits`),
//! and, on PostgreSQL, other servers' commits (`postgres`).
//!
//! A stream (`streams.rs`) never trusts the channel for completeness: versions are gapless, so
//! when the next frame does not follow the last one it sent (two commits published out of order,
//! a commit made by another server, a lost `LISTEN` connection) it reads the gap from the log.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::{broadcast, watch};

use crate::config::StreamLimits;
use crate::store::{Committed, Store, Subscribers};
use crate::wakeups::Wakeups;

mod frames;
mod limits;
mod postgres;

pub use frames::{AppendedData, Frame, FramesAfter, SnapshotData, frames_after};
use frames::{appended_frame, last_append_start};
pub(crate) use frames::{snapshot, sse};
use limits::OpenStreams;
pub use limits::{Holder, StreamRefused, Ticket};
pub use postgres::follow_postgres;

struct GameChannel {
    club: String,
    sender: broadcast::Sender<Arc<Frame>>,
    /// The highest version put on the channel (0: none yet).
    published: i64,
}

pub struct Live {
    pub(crate) limits: StreamLimits,
    games: Mutex<HashMap<String, GameChannel>>,
    /// Per club: the latest position a lobby was woken for.
    lobbies: Mutex<HashMap<String, watch::Sender<i64>>>,
    open: Mutex<OpenStreams>,
    closing: watch::Sender<bool>,
    /// Issued tokens just revoked (here or, on PostgreSQL, by another server): their streams
    /// end at once. [`RECHECK`] asks every stream to check its token in the database.
    revocations: broadcast::Sender<Arc<str>>,
    /// This server's commits, for the other servers' followers (PostgreSQL).
    wakeups: Wakeups,
}

/// On the revocations channel: every stream checks its token (revocations may have been missed).
pub(crate) const RECHECK: &str = "*";

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere never leaves these maps half-written: keep serving.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Live {
    pub fn new(limits: StreamLimits) -> Arc<Self> {
        Arc::new(Self {
            limits,
            games: Mutex::new(HashMap::new()),
            lobbies: Mutex::new(HashMap::new()),
            open: Mutex::new(OpenStreams::default()),
            closing: watch::Sender::new(false),
            revocations: broadcast::Sender::new(64),
            wakeups: Wakeups::default(),
        })
    }

    /// A token was revoked (an issued token's id) or replaced (a club's first token, named by
    /// [`crate::store::first_token_revocation`]): the streams it opened end now.
    pub fn revoked(&self, token: &str) {
        // Nobody listening is not an error: no stream was opened with that token.
        let _ = self.revocations.send(Arc::from(token));
    }

    /// Revocations may have been missed (a lost `LISTEN` connection): every stream checks its
    /// token in the database.
    pub fn recheck_tokens(&self) {
        let _ = self.revocations.send(Arc::from(RECHECK));
    }

    /// Revocations from now on (a token's id, or [`RECHECK`]): what a stream opened with an
    /// issued token watches to end when it is revoked.
    pub(crate) fn revocations(&self) -> broadcast::Receiver<Arc<str>> {
        self.revocations.subscribe()
    }

    /// Ends every open stream (graceful shutdown): each finishes its current frame and closes.
    pub fn close_all(&self) {
        self.closing.send_replace(true);
    }

    pub(crate) fn subscribe_game(self: &Arc<Self>, club: &str, game: &str) -> GameSubscription {
        let mut games = lock(&self.games);
        let channel = games.entry(game.to_owned()).or_insert_with(|| GameChannel {
            club: club.to_owned(),
            sender: broadcast::Sender::new(self.limits.buffer.max(1)),
            published: 0,
        });
        GameSubscription {
            receiver: Some(channel.sender.subscribe()),
            live: Arc::clone(self),
            game: game.to_owned(),
        }
    }

    pub(crate) fn subscribe_lobby(self: &Arc<Self>, club: &str) -> LobbySubscription {
        let mut lobbies = lock(&self.lobbies);
        let sender = lobbies
            .entry(club.to_owned())
            .or_insert_with(|| watch::Sender::new(0));
        LobbySubscription {
            receiver: Some(sender.subscribe()),
            live: Arc::clone(self),
            club: club.to_owned(),
        }
    }

    /// Puts frames on a game's channel, skipping versions it already carried.
    fn publish(&self, game: &str, frames: Vec<Frame>) {
        let mut games = lock(&self.games);
        let Some(channel) = games.get_mut(game) else {
            return;
        };
        for frame in frames {
            if frame.version > channel.published {
                channel.published = frame.version;
                // No receiver left is not an error: the channel is about to be dropped.
                let _ = channel.sender.send(Arc::new(frame));
            }
        }
    }

    /// The highest version a followed game's channel carried; `None` when nobody follows it.
    fn published(&self, game: &str) -> Option<i64> {
        lock(&self.games).get(game).map(|c| c.published)
    }

    /// Wakes the club's lobby streams, if any.
    fn wake_lobby(&self, club: &str, position: i64) {
        if let Some(sender) = lock(&self.lobbies).get(club) {
            sender.send_replace(position);
        }
    }

    fn has_lobbies(&self) -> bool {
        !lock(&self.lobbies).is_empty()
    }

    /// The followed games, with their club: what a server that lost its notifications re-reads.
    fn followed(&self) -> Vec<(String, String)> {
        lock(&self.games)
            .iter()
            .map(|(game, channel)| (channel.club.clone(), game.clone()))
            .collect()
    }

    fn followed_clubs(&self) -> Vec<String> {
        lock(&self.lobbies).keys().cloned().collect()
    }

    /// Reads from the log what a followed game's channel has not carried yet and publishes
    /// it: after a notification from another server, or after the notifications were lost.
    pub async fn catch_up_game(&self, store: &dyn Store, club: &str, game: &str) {
        let Some(published) = self.published(game) else {
            return;
        };
        let log = match store.events(club, game).await {
            Ok(Some(log)) => log,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(error = %e, game, "live catch-up could not read the log");
                return;
            }
        };
        if log.0.version <= published {
            return;
        }
        // A channel that carried nothing yet only needs the latest append: its streams read
        // anything older themselves.
        let after = if published == 0 {
            last_append_start(&log.1).map_or(0, |seq| seq - 1)
        } else {
            published
        };
        match frames_after(&log.0, &log.1, after) {
            Ok(frames) => self.publish(game, frames),
            Err(e) => tracing::error!(error = %e, game, "live catch-up could not score the log"),
        }
    }

    /// After lost notifications: every followed game and lobby reads what it missed.
    pub async fn catch_up_all(&self, store: &dyn Store) {
        for (club, game) in self.followed() {
            self.catch_up_game(store, &club, &game).await;
        }
        for club in self.followed_clubs() {
            self.wake_lobby(&club, i64::MAX);
        }
    }

    /// A wake-up from another server ([`crate::wakeups`]): every followed game the database
    /// has moved on reads what it missed, and every followed lobby whose club has news since
    /// the last wake-up (`lobby_heads`, kept by the caller) looks. One batched version read for
    /// all games, one position read per lobby; nothing when nobody here follows anything.
    pub async fn woken(&self, store: &dyn Store, lobby_heads: &mut HashMap<String, i64>) {
        let games = self.followed();
        let clubs = self.followed_clubs();
        let (versions, heads) = futures_util::future::join(
            futures_util::future::join_all(
                games
                    .iter()
                    .map(|(club, game)| store.game_version(club, game)),
            ),
            futures_util::future::join_all(clubs.iter().map(|club| store.seen_position(club))),
        )
        .await;
        for ((club, game), version) in games.iter().zip(versions) {
            match version {
                Ok(Some(version)) if self.published(game).is_some_and(|p| p < version) => {
                    self.catch_up_game(store, club, game).await;
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, game, "live: cannot read a game's version"),
            }
        }
        lobby_heads.retain(|club, _| clubs.contains(club));
        for (club, head) in clubs.into_iter().zip(heads) {
            // A failed read wakes the lobby anyway: its streams read the database themselves.
            let head = head.unwrap_or(i64::MAX);
            let seen = lobby_heads.entry(club.clone()).or_insert(0);
            if head > *seen {
                *seen = head;
                self.wake_lobby(&club, head);
            }
        }
    }

    /// A notification from a server of the version before wake-ups that `game` reached
    /// `version`.
    pub async fn notified(&self, store: &dyn Store, game: &str, version: i64) {
        let followed = lock(&self.games)
            .get(game)
            .filter(|c| c.published < version)
            .map(|c| c.club.clone());
        if let Some(club) = followed {
            self.catch_up_game(store, &club, game).await;
        }
        if self.has_lobbies() {
            match store.club_of_game(game).await {
                Ok(Some(club)) => self.wake_lobby(&club, i64::MAX),
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, game, "live: cannot find a game's club"),
            }
        }
    }

    pub fn closing(&self) -> watch::Receiver<bool> {
        self.closing.subscribe()
    }
}

impl Subscribers for Live {
    fn committed(&self, commit: Committed<'_>) {
        if let Some(last) = commit.events.last() {
            self.wakeups.committed(last.position);
        }
        let game = &commit.game.id;
        // Only a change the lobby reports wakes it (its streams then read the database).
        let lobby_news =
            crate::store::change_kind(commit.previous_status, &commit.game.status).is_some();
        if let Some(last) = commit.events.last().filter(|_| lobby_news) {
            self.wake_lobby(commit.club, last.position);
        }
        let Some(scoreboard) = commit.scoreboard else {
            return;
        };
        // Serialise only for a game somebody follows, and only once for all its streams.
        if self
            .published(game)
            .is_none_or(|published| published >= commit.game.version)
        {
            return;
        }
        let frame = appended_frame(commit.game, commit.events, scoreboard);
        self.publish(game, vec![frame]);
    }
}

pub(crate) struct GameSubscription {
    pub(crate) receiver: Option<broadcast::Receiver<Arc<Frame>>>,
    live: Arc<Live>,
    game: String,
}

impl Drop for GameSubscription {
    fn drop(&mut self) {
        drop(self.receiver.take());
        let mut games = lock(&self.live.games);
        if games
            .get(&self.game)
            .is_some_and(|c| c.sender.receiver_count() == 0)
        {
            games.remove(&self.game);
        }
    }
}

pub(crate) struct LobbySubscription {
    pub(crate) receiver: Option<watch::Receiver<i64>>,
    live: Arc<Live>,
    club: String,
}

impl Drop for LobbySubscription {
    fn drop(&mut self) {
        drop(self.receiver.take());
        let mut lobbies = lock(&self.live.lobbies);
        if lobbies
            .get(&self.club)
            .is_some_and(|s| s.receiver_count() == 0)
        {
            lobbies.remove(&self.club);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::frames::appends;
    use super::*;
    use crate::store::StoredEvent;
    use chrono::{TimeZone, Utc};
    use serde_json::json;
    use std::net::IpAddr;

    fn event(seq: i64, second: u32) -> StoredEvent {
        StoredEvent {
            position: seq * 10,
            seq,
            id: format!("e{seq}"),
            event_type: "x".into(),
            schema_version: 1,
            data: json!({}),
            recorded_at: Utc.with_ymd_and_hms(2026, 12, 1, 20, 0, second).unwrap(),
            recorded_by: None,
        }
    }

    #[test]
    fn a_log_is_cut_into_the_appends_that_wrote_it() {
        // Event 1 alone, events 2–3 together, event 4 alone.
        let log = [event(1, 0), event(2, 5), event(3, 5), event(4, 9)];

        let seqs: Vec<Vec<i64>> = appends(&log)
            .iter()
            .map(|a| a.iter().map(|e| e.seq).collect())
            .collect();

        assert_eq!(seqs, vec![vec![1], vec![2, 3], vec![4]]);
        assert_eq!(last_append_start(&log), Some(4));
    }

    #[test]
    fn a_club_over_its_stream_limit_is_refused_until_a_stream_closes() {
        let live = Live::new(StreamLimits {
            per_club: 2,
            per_server: 3,
            ..StreamLimits::default()
        });

        let club = |c: &str| Holder::Club(c.into());
        let first = live.admit(club("a"), None).unwrap();
        let _second = live.admit(club("a"), None).unwrap();
        let refused = live.admit(club("a"), None);
        let _other = live.admit(club("b"), None).unwrap();
        let server_full = live.admit(club("c"), None);
        drop(first);
        let again = live.admit(club("a"), None);

        assert!(matches!(refused, Err(StreamRefused::ClubFull(2))));
        assert!(matches!(server_full, Err(StreamRefused::ServerFull(3))));
        assert!(again.is_ok());
    }

    #[test]
    fn a_share_links_streams_count_apart_from_its_clubs_and_an_address_has_its_own_limit() {
        let live = Live::new(StreamLimits {
            per_club: 2,
            per_share: 2,
            per_address: 3,
            ..StreamLimits::default()
        });
        let (one, two): (IpAddr, IpAddr) =
            ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());

        // A share link's streams fill the link, never the club
        let shared = [
            live.admit(Holder::Share("s".into()), Some(one)).unwrap(),
            live.admit(Holder::Share("s".into()), Some(one)).unwrap(),
        ];
        let share_full = live.admit(Holder::Share("s".into()), Some(two));
        let own = live.admit(Holder::Club("a".into()), Some(two));
        // One address holds at most three, whoever it holds them for
        let third = live.admit(Holder::Share("t".into()), Some(one)).unwrap();
        let address_full = live.admit(Holder::Club("b".into()), Some(one));
        drop(shared);
        let after = live.admit(Holder::Club("b".into()), Some(one));

        assert!(matches!(share_full, Err(StreamRefused::ShareFull(2))));
        assert!(own.is_ok());
        assert!(matches!(address_full, Err(StreamRefused::AddressFull(3))));
        assert!(after.is_ok());
        drop(third);
    }
}
