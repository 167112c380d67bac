//! The streams a phone holds open: a game's (its snapshot, then every append) and the club's
//! lobby. Each follows [`Live`]'s channels, reads from the log what it missed, sends heartbeats,
//! and ends when its token is revoked or the server shuts down.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use tabletally_domain::said;

use actix_web::web::Bytes;
use tokio::sync::{broadcast, watch};

use crate::auth::{Club, Credential};
use crate::error::ApiError;
use crate::language::Language;
use crate::live::{
    Frame, FramesAfter, GameSubscription, Live, LobbySubscription, RECHECK, Ticket, snapshot, sse,
};
use crate::store::{Store, StoreError};
use crate::views::GameSummary;

const HEARTBEAT: &[u8] = b": heartbeat\n\n";

/// A stream of server-sent events: what its [`Feed`] brings, with heartbeats, until the server
/// shuts down or the token it was opened with stops holding.
pub struct EventStream<F> {
    feed: F,
    store: Arc<dyn Store>,
    /// Frames to send before anything the feed has.
    pending: VecDeque<Bytes>,
    heartbeat: tokio::time::Interval,
    closing: watch::Receiver<bool>,
    /// The token the stream was opened with: revoked, expired or replaced, the stream ends.
    revocation: Revocation,
    _ticket: Ticket,
}

/// A game's stream: the snapshot (or what a resuming client missed), then every append.
pub type GameStream = EventStream<GameFeed>;

/// A club's lobby: games created, finished, abandoned and resumed.
pub type LobbyStream = EventStream<LobbyFeed>;

/// What one kind of stream sends: where its news come from and the frames they become.
pub trait Feed {
    /// What the feed's channel says when it wakes.
    type News;

    /// A frame to send before waiting for news (what a resuming client missed).
    fn ready(&mut self) -> Result<Option<Bytes>, Ended> {
        Ok(None)
    }

    /// Waits for the channel's next news (`None`: the feed has no channel). Only waits: a
    /// heartbeat or the end may come first and drop it.
    fn news(&mut self) -> impl Future<Output = Option<Self::News>>;

    /// Queues on `pending` the frames the news brings.
    fn take(
        &mut self,
        news: Self::News,
        store: &dyn Store,
        pending: &mut VecDeque<Bytes>,
    ) -> impl Future<Output = Result<(), Ended>>;
}

/// The stream ends here (why was logged where it was found).
pub struct Ended;

impl<F: Feed> EventStream<F> {
    fn new(
        feed: F,
        store: Arc<dyn Store>,
        live: &Live,
        revocation: Revocation,
        ticket: Ticket,
        pending: VecDeque<Bytes>,
    ) -> Self {
        Self {
            feed,
            store,
            pending,
            heartbeat: heartbeat(live.limits.heartbeat),
            closing: live.closing(),
            revocation,
            _ticket: ticket,
        }
    }

    /// The next bytes to send; `None` ends the stream.
    async fn next_chunk(&mut self) -> Option<Bytes> {
        loop {
            if let Some(bytes) = self.pending.pop_front() {
                self.heartbeat.reset();
                return Some(bytes);
            }
            if *self.closing.borrow() {
                return None;
            }
            if let Some(frame) = self.feed.ready().ok()? {
                self.heartbeat.reset();
                return Some(frame);
            }
            let store = self.store.as_ref();
            tokio::select! {
                _ = self.closing.changed() => return None,
                _ = self.heartbeat.tick() => return self.revocation.heartbeat_unless_revoked(store).await,
                () = self.revocation.ended(store) => return None,
                news = self.feed.news() => self.feed.take(news?, store, &mut self.pending).await.ok()?,
            }
        }
    }

    pub fn into_body(self) -> impl futures_util::Stream<Item = Result<Bytes, actix_web::Error>> {
        futures_util::stream::unfold(self, |mut stream| async move {
            let chunk = stream.next_chunk().await?;
            Some((Ok(chunk), stream))
        })
    }
}

/// A game's appends, from its channel, or from its log for what the channel cannot give.
pub struct GameFeed {
    club: String,
    game: String,
    subscription: GameSubscription,
    /// What a resuming client missed, or a gap read from the log: sent after `pending`, a
    /// frame at a time, before anything newer.
    catching_up: Option<FramesAfter>,
    /// The version of the last frame queued (or to be sent by `catching_up`).
    last: i64,
    /// The language of the scores' words (`?lang=`, else `Accept-Language`).
    language: Language,
}

impl GameStream {
    /// `resume`: the version the client last received (`Last-Event-ID`).
    pub async fn open(
        live: &Arc<Live>,
        store: Arc<dyn Store>,
        club: &Club,
        game: &str,
        resume: Option<i64>,
        language: Language,
        address: Option<std::net::IpAddr>,
    ) -> Result<Self, ApiError> {
        let revocation = watch_revocation(live, club);
        let ticket = live.admit(holder(club), address)?;
        let club = club.id.as_str();
        // Subscribe before reading: a commit after the read is then on the channel.
        let subscription = live.subscribe_game(club, game);
        let (record, log) = store
            .events(club, game)
            .await?
            .ok_or_else(|| ApiError::NotFound(said!("server.problem.no_such_game")))?;
        let mut pending = VecDeque::new();
        let mut catching_up = None;
        match resume {
            Some(v) if v < 0 => {
                return Err(ApiError::bad_parameter(
                    "Last-Event-ID",
                    tabletally_domain::said!("server.api.live.last_event_id_version", got = v),
                ));
            }
            Some(v) if v <= record.version => {
                catching_up = Some(FramesAfter::new(record.clone(), log, v)?);
            }
            // Ahead of the game (a club restored from an older copy, a phone that was ahead):
            // what the client holds is not this log's, so it starts again from a snapshot. An
            // error would make a browser's EventSource stop reconnecting for good.
            Some(_) | None => pending.push_back(snapshot(&record, &log, language)?),
        }
        let feed = GameFeed {
            club: club.to_owned(),
            game: game.to_owned(),
            subscription,
            catching_up,
            last: record.version,
            language,
        };
        Ok(Self::new(feed, store, live, revocation, ticket, pending))
    }
}

impl GameFeed {
    async fn catch_up(&mut self, store: &dyn Store) -> Result<(), ApiError> {
        let (record, log) = store.events(&self.club, &self.game).await?.ok_or_else(|| {
            ApiError::NotFound(tabletally_domain::said!("server.api.live.game_gone"))
        })?;
        self.catching_up = Some(FramesAfter::new(record.clone(), log, self.last)?);
        self.last = record.version;
        Ok(())
    }

    fn could_not_catch_up(&self, e: ApiError) -> Ended {
        tracing::warn!(error = %e, game = %self.game, "a game stream could not catch up; closing it");
        Ended
    }
}

impl Feed for GameFeed {
    type News = Result<Arc<Frame>, broadcast::error::RecvError>;

    fn ready(&mut self) -> Result<Option<Bytes>, Ended> {
        let Some(frames) = &mut self.catching_up else {
            return Ok(None);
        };
        match frames.next_frame() {
            Some(Ok(frame)) => Ok(Some(frame.sse_in(self.language))),
            Some(Err(e)) => Err(self.could_not_catch_up(e)),
            None => {
                self.catching_up = None;
                Ok(None)
            }
        }
    }

    async fn news(&mut self) -> Option<Self::News> {
        Some(self.subscription.receiver.as_mut()?.recv().await)
    }

    async fn take(
        &mut self,
        news: Self::News,
        store: &dyn Store,
        pending: &mut VecDeque<Bytes>,
    ) -> Result<(), Ended> {
        match news {
            Ok(frame) if frame.version <= self.last => Ok(()),
            Ok(frame) if frame.first_seq == self.last + 1 => {
                self.last = frame.version;
                pending.push_back(frame.sse_in(self.language));
                Ok(())
            }
            // A gap: read it from the log (the frame itself is in what is read).
            Ok(_) => match self.catch_up(store).await {
                Ok(()) => Ok(()),
                Err(e) => Err(self.could_not_catch_up(e)),
            },
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::info!(game = %self.game, missed, "a slow game stream fell behind; closing it (the client resumes)");
                Err(Ended)
            }
            Err(broadcast::error::RecvError::Closed) => Err(Ended),
        }
    }
}

/// A club's lobby changes, read from the database whenever a commit of the club wakes it.
pub struct LobbyFeed {
    club: String,
    subscription: LobbySubscription,
    /// The position of the last change queued.
    last: i64,
}

const LOBBY_PAGE: i64 = 500;

impl LobbyStream {
    /// `resume`: the position the client last received (`Last-Event-ID`), or the `next_after`
    /// of `GET /v1/events`.
    pub async fn open(
        live: &Arc<Live>,
        store: Arc<dyn Store>,
        club: &Club,
        resume: Option<i64>,
        address: Option<std::net::IpAddr>,
    ) -> Result<Self, ApiError> {
        let revocation = watch_revocation(live, club);
        let ticket = live.admit(holder(club), address)?;
        let club = club.id.as_str();
        let subscription = live.subscribe_lobby(club);
        let last = match resume {
            Some(position) if position < 0 => {
                return Err(ApiError::bad_parameter(
                    "Last-Event-ID",
                    tabletally_domain::said!(
                        "server.api.live.last_event_id_position",
                        got = position
                    ),
                ));
            }
            // Beyond every log here: the client's position is not this log's (a copy restored
            // elsewhere). It starts again from the beginning, every game's news once more, as
            // a game stream starts again with a snapshot.
            Some(position) => {
                if position > store.last_position().await? {
                    0
                } else {
                    position
                }
            }
            None => store.head_position(club).await?,
        };
        let feed = LobbyFeed {
            club: club.to_owned(),
            subscription,
            last,
        };
        let mut stream = Self::new(feed, store, live, revocation, ticket, VecDeque::new());
        // A resuming client first gets what it missed; a fresh one an immediate comment, so
        // it knows the stream is open.
        let store = stream.store.as_ref();
        stream.feed.catch_up(store, &mut stream.pending).await?;
        if stream.pending.is_empty() {
            stream.pending.push_back(Bytes::from_static(HEARTBEAT));
        }
        Ok(stream)
    }
}

impl LobbyFeed {
    async fn catch_up(
        &mut self,
        store: &dyn Store,
        pending: &mut VecDeque<Bytes>,
    ) -> Result<(), StoreError> {
        loop {
            let changes = store
                .game_changes(&self.club, self.last, LOBBY_PAGE)
                .await?;
            let full = changes.len() as i64 == LOBBY_PAGE;
            for change in changes {
                self.last = change.position;
                pending.push_back(sse(
                    &change.kind,
                    change.position,
                    // The game's summary is the event's data (API.md, Live table).
                    &GameSummary::from(change.game),
                ));
            }
            if !full {
                return Ok(());
            }
        }
    }
}

impl Feed for LobbyFeed {
    type News = Result<(), watch::error::RecvError>;

    async fn news(&mut self) -> Option<Self::News> {
        Some(self.subscription.receiver.as_mut()?.changed().await)
    }

    async fn take(
        &mut self,
        woken: Self::News,
        store: &dyn Store,
        pending: &mut VecDeque<Bytes>,
    ) -> Result<(), Ended> {
        if woken.is_err() {
            return Err(Ended);
        }
        self.catch_up(store, pending).await.map_err(|e| {
            tracing::warn!(error = %e, club = %self.club, "a lobby stream could not read its changes; closing it");
            Ended
        })
    }
}

/// What a stream opened by `club` watches to end when its token stops holding.
fn watch_revocation(live: &Live, club: &Club) -> Revocation {
    Revocation {
        key: club.credential.revocation_key(&club.id),
        club: club.id.clone(),
        credential: club.credential.clone(),
        revocations: live.revocations(),
    }
}

/// Ends a stream when the token it was opened with is revoked (an issued token or a share
/// link) or replaced (the club's first token). An expiry is caught by the heartbeat.
struct Revocation {
    /// What a revocation of this token names ([`Credential::revocation_key`]).
    key: String,
    club: String,
    credential: Credential,
    revocations: broadcast::Receiver<Arc<str>>,
}

impl Revocation {
    /// Resolves when the token is revoked.
    async fn ended(&mut self, store: &dyn Store) {
        loop {
            let check = match self.revocations.recv().await {
                Ok(revoked) if *revoked == *self.key => return,
                Ok(revoked) => *revoked == *RECHECK,
                // Revocations were dropped while this stream was busy: ask the database.
                Err(broadcast::error::RecvError::Lagged(_)) => true,
                Err(broadcast::error::RecvError::Closed) => return std::future::pending().await,
            };
            if check && matches!(self.still_valid(store).await, Ok(false)) {
                return;
            }
        }
    }

    async fn still_valid(&self, store: &dyn Store) -> Result<bool, ApiError> {
        crate::auth::still_valid(store, &self.club, &self.credential).await
    }

    /// A heartbeat, or the end of the stream when its token was revoked or has expired.
    async fn heartbeat_unless_revoked(&self, store: &dyn Store) -> Option<Bytes> {
        match self.still_valid(store).await {
            Ok(true) => {}
            Ok(false) => return None,
            // The database is away: keep the stream; the next heartbeat asks again.
            Err(e) => tracing::warn!(error = %e, "a stream could not check its token"),
        }
        Some(Bytes::from_static(HEARTBEAT))
    }
}

fn heartbeat(period: Duration) -> tokio::time::Interval {
    let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    interval
}

/// Whose place a stream takes: a share link's streams are counted apart from its club's, so
/// a link passed around cannot lock the club's own phones out.
fn holder(club: &Club) -> crate::live::Holder {
    match (&club.scope, &club.credential) {
        (crate::auth::Scope::Share { .. }, crate::auth::Credential::Issued { id }) => {
            crate::live::Holder::Share(id.clone())
        }
        _ => crate::live::Holder::Club(club.id.clone()),
    }
}
