//! The live table: what the write path committed, fanned out to open server-sent-event streams.
//!
//! The store reports every commit once ([`Subscribers::committed`]). For a game somebody follows,
//! [`Live`] turns the commit into one `appended` frame, serialised once, and puts it on the game's
//! broadcast channel — a bounded ring: sending never waits, and a stream that falls more than
//! `buffer` frames behind is closed (its client resumes with `Last-Event-ID`). Lobbies get a
//! wake-up and read their changes from the database.
//!
//! A stream (`streams.rs`) never trusts the channel for completeness: versions are gapless, so
//! when the next frame does not follow the last one it sent (two commits published out of order,
//! a commit made by another server, a lost `LISTEN` connection) it reads the gap from the log.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use actix_web::web::Bytes;
use serde::Serialize;
use tabletally_domain::{Game, Scoreboard};
use tokio::sync::{broadcast, watch};

use crate::config::StreamLimits;
use crate::error::ApiError;
use crate::language::Language;
use crate::records::to_log_event;
use crate::store::{Committed, GameRecord, Store, StoredEvent, Subscribers};
use crate::views::{EventView, GameSummary, ScoreView, score_view, score_view_in};
use crate::wakeups::{Heard, Wakeups};

/// One accepted append as a game stream sends it.
#[derive(Debug)]
pub struct Frame {
    /// The game's version after the append: the SSE `id:`.
    pub version: i64,
    /// The seq of the append's first event.
    pub first_seq: i64,
    /// The whole SSE event in English, ready to write.
    pub sse: Bytes,
    /// What the frame says, to say it in another language: once per language for all the
    /// streams that speak it (French, Persian), and only when one of them does.
    parts: FrameParts,
    said: [OnceLock<Bytes>; 2],
}

#[derive(Debug)]
struct FrameParts {
    game: String,
    status: tabletally_domain::Status,
    events: Vec<EventView>,
    board: Scoreboard,
}

/// `data` of an `appended` event as written (the events borrowed from the frame).
#[derive(Serialize)]
struct AppendedDataRef<'a> {
    version: i64,
    events: &'a [EventView],
    score: ScoreView,
}

impl Frame {
    /// The whole SSE event in `language`, ready to write.
    pub fn sse_in(&self, language: Language) -> Bytes {
        let slot = match language {
            Language::English => return self.sse.clone(),
            Language::French => &self.said[0],
            Language::Persian => &self.said[1],
        };
        slot.get_or_init(|| {
            let parts = &self.parts;
            let data = AppendedDataRef {
                version: self.version,
                events: &parts.events,
                score: score_view_in(
                    language,
                    parts.game.clone(),
                    parts.status,
                    self.version as u64,
                    parts.board.clone(),
                ),
            };
            sse("appended", self.version, &data)
        })
        .clone()
    }
}

/// `data` of an `appended` event (the document's schema; frames are written from
/// `AppendedDataRef`, the same fields).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[allow(dead_code)]
pub struct AppendedData {
    /// The game's version after the append.
    pub version: i64,
    /// The events the append stored, as `GET …/events` shows them.
    pub events: Vec<EventView>,
    /// The scoreboard after the append.
    pub score: ScoreView,
}

/// `data` of the `snapshot` event that opens a game stream.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SnapshotData {
    pub game: GameSummary,
    pub score: ScoreView,
}

struct GameChannel {
    club: String,
    sender: broadcast::Sender<Arc<Frame>>,
    /// The highest version put on the channel (0: none yet).
    published: i64,
}

#[derive(Default)]
struct OpenStreams {
    total: usize,
    /// Streams opened with the club's own tokens.
    per_club: HashMap<String, usize>,
    /// Streams opened with one share link, counted apart from its club's.
    per_share: HashMap<String, usize>,
    per_address: HashMap<IpAddr, usize>,
}

/// Counts one more in `map` under `key` unless it holds `most` already (`Err(most)`).
fn take_place<K: std::hash::Hash + Eq>(
    map: &mut HashMap<K, usize>,
    key: K,
    most: usize,
) -> Result<(), usize> {
    let count = map.entry(key).or_default();
    if *count >= most {
        return Err(*count);
    }
    *count += 1;
    Ok(())
}

/// Counts one less in `map` under `key`, forgetting keys at 0.
fn give_place<K: std::hash::Hash + Eq>(map: &mut HashMap<K, usize>, key: &K) {
    if let Some(count) = map.get_mut(key) {
        *count = count.saturating_sub(1);
        if *count == 0 {
            map.remove(key);
        }
    }
}

/// Whose place a stream takes: a club's own, or one share link's (either way from an address).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    Club(String),
    Share(String),
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

/// Why a stream could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum StreamRefused {
    #[error("this club has {0} open streams, the most allowed; close one or retry later")]
    ClubFull(usize),
    #[error("this share link has {0} open streams, the most allowed; close one or retry later")]
    ShareFull(usize),
    #[error("this address has {0} open streams, the most allowed; close one or retry later")]
    AddressFull(usize),
    #[error("this server has {0} open streams, the most it serves; retry later")]
    ServerFull(usize),
}

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

    /// Counts a new stream against the limits (the server's, its holder's, its address's);
    /// the ticket gives its places back when dropped.
    pub fn admit(
        self: &Arc<Self>,
        holder: Holder,
        address: Option<IpAddr>,
    ) -> Result<Ticket, StreamRefused> {
        let mut guard = lock(&self.open);
        let open = &mut *guard;
        if open.total >= self.limits.per_server {
            return Err(StreamRefused::ServerFull(open.total));
        }
        if let Some(address) = address
            && let Some(count) = open.per_address.get(&address)
            && *count >= self.limits.per_address
        {
            return Err(StreamRefused::AddressFull(*count));
        }
        match &holder {
            Holder::Club(club) => {
                take_place(&mut open.per_club, club.clone(), self.limits.per_club)
                    .map_err(StreamRefused::ClubFull)?
            }
            Holder::Share(share) => {
                take_place(&mut open.per_share, share.clone(), self.limits.per_share)
                    .map_err(StreamRefused::ShareFull)?
            }
        }
        if let Some(address) = address {
            // Checked above: there is room.
            let _ = take_place(&mut open.per_address, address, usize::MAX);
        }
        open.total += 1;
        Ok(Ticket {
            live: Arc::clone(self),
            holder,
            address,
        })
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

/// A stream's place in the limits.
pub struct Ticket {
    live: Arc<Live>,
    holder: Holder,
    address: Option<IpAddr>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut guard = lock(&self.live.open);
        let open = &mut *guard;
        open.total = open.total.saturating_sub(1);
        match &self.holder {
            Holder::Club(club) => give_place(&mut open.per_club, club),
            Holder::Share(share) => give_place(&mut open.per_share, share),
        }
        if let Some(address) = &self.address {
            give_place(&mut open.per_address, address);
        }
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

/// One SSE event: `event:`, `id:` and one `data:` line (compact JSON has no line breaks),
/// the JSON written straight after its prefix.
pub(crate) fn sse(event: &str, id: i64, data: &impl Serialize) -> Bytes {
    let mut out = Vec::with_capacity(2048);
    out.extend_from_slice(format!("event: {event}\nid: {id}\ndata: ").as_bytes());
    let prefix = out.len();
    if let Err(e) = serde_json::to_writer(&mut out, data) {
        tracing::error!(error = %e, "an SSE payload did not serialise");
        out.truncate(prefix);
        out.extend_from_slice(b"null");
    }
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

fn appended_frame(game: &GameRecord, events: Vec<StoredEvent>, board: Scoreboard) -> Frame {
    let status = tabletally_domain::Status::parse(&game.status)
        .unwrap_or(tabletally_domain::Status::InProgress);
    let first_seq = events.first().map_or(game.version, |e| e.seq);
    let events: Vec<EventView> = events.into_iter().map(EventView::from).collect();
    let data = AppendedDataRef {
        version: game.version,
        events: &events,
        score: score_view(
            game.game.clone(),
            status,
            game.version as u64,
            board.clone(),
        ),
    };
    let sse = sse("appended", game.version, &data);
    Frame {
        version: game.version,
        first_seq,
        sse,
        parts: FrameParts {
            game: game.game.clone(),
            status,
            events,
            board,
        },
        said: Default::default(),
    }
}

/// The seq where the log's last append begins.
fn last_append_start(log: &[StoredEvent]) -> Option<i64> {
    appends(log).last().map(|a| a[0].seq)
}

/// The log cut into its appends: one append's events were written by one commit, so they
/// share their `recorded_at` and follow each other.
fn appends(log: &[StoredEvent]) -> Vec<&[StoredEvent]> {
    let mut appends = Vec::new();
    let mut start = 0;
    for i in 1..=log.len() {
        let ends = i == log.len()
            || log[i].recorded_at != log[i - 1].recorded_at
            || log[i].seq != log[i - 1].seq + 1;
        if ends {
            appends.push(&log[start..i]);
            start = i;
        }
    }
    appends
}

/// One `appended` frame per append after version `after`, each with the scoreboard after it.
pub fn frames_after(
    game: &GameRecord,
    log: &[StoredEvent],
    after: i64,
) -> Result<Vec<Frame>, ApiError> {
    let mut frames = FramesAfter::new(game.clone(), log.to_vec(), after)?;
    std::iter::from_fn(|| frames.next_frame()).collect()
}

/// [`frames_after`], made one at a time as a stream sends them: a phone resuming a long game
/// from far back holds the log and one frame, not every frame at once.
pub struct FramesAfter {
    kind: Game,
    game: GameRecord,
    log: Vec<StoredEvent>,
    replay: Vec<tabletally_domain::LogEvent>,
    /// Each append's events, as ranges of the log, the next first.
    appends: std::collections::VecDeque<std::ops::Range<usize>>,
    after: i64,
}

impl FramesAfter {
    pub fn new(game: GameRecord, mut log: Vec<StoredEvent>, after: i64) -> Result<Self, ApiError> {
        let kind = Game::from_id(&game.game)
            .ok_or_else(|| ApiError::Internal(format!("unknown stored game {}", game.game)))?;
        // Each event's data is held once, by the replay; a frame's events take theirs back.
        let replay = log
            .iter_mut()
            .map(|e| {
                let data = std::mem::take(&mut e.data);
                let event = to_log_event(e);
                tabletally_domain::LogEvent { data, ..event }
            })
            .collect();
        let mut start = 0;
        let appends = appends(&log)
            .iter()
            .map(|append| {
                let range = start..start + append.len();
                start = range.end;
                range
            })
            .filter(|range| log[range.end - 1].seq > after)
            .collect();
        Ok(Self {
            kind,
            game,
            log,
            replay,
            appends,
            after,
        })
    }

    /// The next append's frame; `None` after the last.
    pub fn next_frame(&mut self) -> Option<Result<Frame, ApiError>> {
        let range = self.appends.pop_front()?;
        let end = self.log[range.end - 1].seq;
        // A resume inside an append (an id this server never sent) gets the rest of it.
        let after = self.after;
        let events: Vec<StoredEvent> = self.log[range.clone()]
            .iter()
            .zip(&self.replay[range])
            .filter(|(e, _)| e.seq > after)
            .map(|(e, replayed)| StoredEvent {
                data: replayed.data.clone(),
                ..e.clone()
            })
            .collect();
        let evaluation = match self.kind.evaluate(&self.replay[..end as usize]) {
            Ok(evaluation) => evaluation,
            Err(e) => {
                return Some(Err(ApiError::Internal(format!(
                    "game {}: {e}",
                    self.game.id
                ))));
            }
        };
        let at_end = GameRecord {
            version: end,
            status: evaluation.status.as_str().to_owned(),
            ..self.game.clone()
        };
        Some(Ok(appended_frame(&at_end, events, evaluation.scoreboard)))
    }
}

/// The `snapshot` event, its score said in `language`.
pub(crate) fn snapshot(
    game: &GameRecord,
    log: &[StoredEvent],
    language: Language,
) -> Result<Bytes, ApiError> {
    let kind = Game::from_id(&game.game)
        .ok_or_else(|| ApiError::Internal(format!("unknown stored game {}", game.game)))?;
    let replay: Vec<_> = log.iter().map(to_log_event).collect();
    let evaluation = kind
        .evaluate(&replay)
        .map_err(|e| ApiError::Internal(format!("game {}: {e}", game.id)))?;
    let data = SnapshotData {
        game: GameSummary::from(game.clone()),
        score: score_view_in(
            language,
            game.game.clone(),
            evaluation.status,
            evaluation.version,
            evaluation.scoreboard,
        ),
    };
    Ok(sse("snapshot", game.version, &data))
}

/// On PostgreSQL: `LISTEN`s for commits of every server and catches the local streams up;
/// after losing the connection it listens again and re-reads every followed game, so nothing
/// committed meanwhile is missed. Ends when the server closes.
pub async fn follow_postgres(live: Arc<Live>, store: Arc<dyn Store>, pool: sqlx::PgPool) {
    use sqlx::postgres::{PgListener, PgPoolOptions};
    let channel = crate::store::NOTIFY_CHANNEL;
    let mut closing = live.closing();
    // This server's own wake-ups for the others, on the store's pool (which follows the
    // primary).
    let sender = live.clone();
    let sender_pool = pool.clone();
    let sender_closing = live.closing();
    tokio::spawn(async move {
        sender
            .wakeups
            .send(sender_pool, channel, sender_closing)
            .await;
    });
    let mut retry = Duration::from_millis(100);
    loop {
        if *closing.borrow() {
            return;
        }
        // Its own connection, named so an operator (and the tests) can find it; made with the
        // store's options of now, which follow the primary after a failover.
        let options = (*pool.connect_options())
            .clone()
            .application_name(crate::wakeups::LISTENER);
        // A host that does not answer (the primary just lost) is given up on in seconds, not
        // sqlx's 30: the next try takes the options of whatever the store follows by then.
        let listen_pool = PgPoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(3))
            .after_connect(|conn, _| {
                Box::pin(async move {
                    crate::store::keepalive::turn_on(conn).await;
                    Ok(())
                })
            })
            .connect_lazy_with(options);
        let listener = async {
            let mut listener = PgListener::connect_with(&listen_pool).await?;
            listener
                .listen_all([channel, crate::store::REVOCATIONS_CHANNEL])
                .await?;
            Ok::<_, sqlx::Error>(listener)
        }
        .await;
        let mut listener = match listener {
            Ok(listener) => listener,
            Err(e) => {
                tracing::warn!(error = %e, "live: cannot LISTEN; retrying");
                tokio::select! {
                    _ = closing.changed() => return,
                    _ = tokio::time::sleep(retry) => {}
                }
                // At most a second: a failover is over in seconds.
                retry = (retry * 2).min(Duration::from_secs(1));
                continue;
            }
        };
        retry = Duration::from_millis(100);
        let mut lobby_heads = HashMap::new();
        // Listening again: whatever was committed while we were not is in the log, and a
        // token may have been revoked or a first token replaced meanwhile.
        live.catch_up_all(store.as_ref()).await;
        store.forget_clubs(None);
        live.recheck_tokens();
        // A host that hangs (not a crash) keeps a LISTEN connection open and silent: once the
        // store follows another host (a failover), listen there, without waiting for TCP.
        let listening_to = host_of(listen_pool.connect_options().as_ref());
        let mut check = tokio::time::interval(Duration::from_secs(1));
        loop {
            let received = {
                let receiving = listener.try_recv();
                tokio::pin!(receiving);
                loop {
                    tokio::select! {
                        _ = closing.changed() => return,
                        received = &mut receiving => break Some(received),
                        _ = check.tick() => {
                            if host_of(pool.connect_options().as_ref()) != listening_to {
                                break None;
                            }
                        }
                    }
                }
            };
            let Some(received) = received else {
                tracing::warn!("live: the store follows another host now; listening there");
                break;
            };
            match received {
                Ok(Some(notification))
                    if notification.channel() == crate::store::REVOCATIONS_CHANNEL =>
                {
                    let revoked = notification.payload();
                    // A first token replaced: its club's row is read again before anyone
                    // checks a token against it.
                    if let Some(club) = crate::store::revoked_first_token(revoked) {
                        store.forget_clubs(Some(club));
                    }
                    live.revoked(revoked);
                }
                Ok(Some(notification)) => match live.wakeups.heard(notification.payload()) {
                    Heard::Committed { .. } => {
                        live.woken(store.as_ref(), &mut lobby_heads).await;
                    }
                    Heard::Game { game, version } => {
                        live.notified(store.as_ref(), game, version).await;
                    }
                    Heard::Own | Heard::Unknown => {}
                },
                Ok(None) => {
                    tracing::warn!("live: the LISTEN connection was lost; listening again");
                    break;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "live: the LISTEN connection failed; listening again");
                    break;
                }
            }
        }
    }
}

/// The host and port a connection's options name.
fn host_of(options: &sqlx::postgres::PgConnectOptions) -> (String, u16) {
    (options.get_host().to_owned(), options.get_port())
}

impl From<StreamRefused> for ApiError {
    fn from(refused: StreamRefused) -> Self {
        match refused {
            StreamRefused::ClubFull(most) => ApiError::TooManyStreams(tabletally_domain::said!(
                "server.api.live.club_streams_full",
                most = most
            )),
            StreamRefused::ShareFull(most) => ApiError::TooManyStreams(tabletally_domain::said!(
                "server.api.live.share_streams_full",
                most = most
            )),
            StreamRefused::AddressFull(most) => ApiError::TooManyStreams(tabletally_domain::said!(
                "server.api.live.address_streams_full",
                most = most
            )),
            StreamRefused::ServerFull(most) => ApiError::ServerBusy(tabletally_domain::said!(
                "server.api.live.server_streams_full",
                most = most
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};
    use serde_json::json;

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
