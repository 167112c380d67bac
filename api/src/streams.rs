//! The streams a phone holds open: a game's (its snapshot, then every append) and the club's
//! lobby. Each follows [`Live`]'s channels, reads from the log what it missed, sends heartbeats,
//! and ends when its token is revoked or the server shuts down.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;
use tabletally_domain::said;

use actix_web::web::Bytes;
use futures_util::task::AtomicWaker;
use tokio::sync::{broadcast, watch};
use tokio::time::Instant;

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
    /// When the stream last sent anything: a heartbeat comes a whole period after it. (Kept
    /// here rather than the heartbeat's timer moved at every frame.)
    last_sent: Instant,
    /// Resolves when the server shuts down or the token the stream was opened with is revoked
    /// or replaced; made once, and polled only after its own wake-up.
    ended: WhenWoken,
    /// The token the stream was opened with, checked at each heartbeat (an expiry).
    token: TokenCheck,
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
        let token = revocation.token.clone();
        let mut closing = live.closing();
        let watched = Arc::clone(&store);
        let ended = WhenWoken::new(async move {
            // Already closing when the stream opened: `changed` would wait for the next change.
            if *closing.borrow_and_update() {
                return;
            }
            tokio::select! {
                _ = closing.changed() => {}
                () = revocation.ended(watched.as_ref()) => {}
            }
        });
        Self {
            feed,
            store,
            pending,
            heartbeat: heartbeat(live.limits.heartbeat),
            last_sent: Instant::now(),
            ended,
            token,
            _ticket: ticket,
        }
    }

    /// The next bytes to send; `None` ends the stream.
    async fn next_chunk(&mut self) -> Option<Bytes> {
        loop {
            let ready = match self.pending.pop_front() {
                Some(bytes) => Some(bytes),
                // A long catch-up stops at a shutdown too.
                None if self.ended.done_now() => return None,
                None => self.feed.ready().ok()?,
            };
            if let Some(bytes) = ready {
                self.last_sent = Instant::now();
                return Some(bytes);
            }
            let store = self.store.as_ref();
            // In this order: the end first (its poll is a flag's read until it was woken), then
            // the game's news, the one thing a frame waits on.
            tokio::select! {
                biased;
                () = &mut self.ended => return None,
                news = self.feed.news() => self.feed.take(news?, store, &mut self.pending).await.ok()?,
                _ = self.heartbeat.tick() => {
                    let due = self.last_sent + self.heartbeat.period();
                    if Instant::now() < due {
                        // Something was sent since: a heartbeat a whole period after it.
                        self.heartbeat.reset_at(due);
                        continue;
                    }
                    return self.token.heartbeat_unless_revoked(store).await;
                }
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
        token: TokenCheck {
            club: club.id.clone(),
            credential: club.credential.clone(),
        },
        revocations: live.revocations(),
    }
}

/// Ends a stream when the token it was opened with is revoked (an issued token or a share
/// link) or replaced (the club's first token). An expiry is caught by the heartbeat.
struct Revocation {
    /// What a revocation of this token names ([`Credential::revocation_key`]).
    key: String,
    token: TokenCheck,
    revocations: broadcast::Receiver<Arc<str>>,
}

impl Revocation {
    /// Resolves when the token is revoked.
    async fn ended(mut self, store: &dyn Store) {
        loop {
            let check = match self.revocations.recv().await {
                Ok(revoked) if *revoked == *self.key => return,
                Ok(revoked) => *revoked == *RECHECK,
                // Revocations were dropped while this stream was busy: ask the database.
                Err(broadcast::error::RecvError::Lagged(_)) => true,
                Err(broadcast::error::RecvError::Closed) => return std::future::pending().await,
            };
            if check && matches!(self.token.still_valid(store).await, Ok(false)) {
                return;
            }
        }
    }
}

/// The token a stream was opened with, asked of the database.
#[derive(Clone)]
struct TokenCheck {
    club: String,
    credential: Credential,
}

impl TokenCheck {
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

/// A future polled only after its own waker fired (and once at first). A stream's end, the
/// server's shutdown or its token's revocation, waits on channels every stream of the server
/// shares: polled with each frame, it would take their locks at every frame. Polled this way,
/// a frame asks it one flag.
struct WhenWoken {
    future: Pin<Box<dyn Future<Output = ()>>>,
    woken: Arc<Woken>,
    /// `woken` as a waker, made once.
    waker: Waker,
}

struct Woken {
    /// Set by the future's waker; the first poll finds it set.
    flag: AtomicBool,
    /// The stream's task, woken in turn.
    task: AtomicWaker,
}

impl Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.flag.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl WhenWoken {
    fn new(future: impl Future<Output = ()> + 'static) -> Self {
        let woken = Arc::new(Woken {
            flag: AtomicBool::new(true),
            task: AtomicWaker::new(),
        });
        Self {
            future: Box::pin(future),
            waker: Waker::from(Arc::clone(&woken)),
            woken,
        }
    }

    /// Whether the future has resolved, asked without a task to wake (polled only if woken).
    /// Not asked again once it has.
    fn done_now(&mut self) -> bool {
        self.woken.flag.swap(false, Ordering::AcqRel)
            && self
                .future
                .as_mut()
                .poll(&mut Context::from_waker(&self.waker))
                .is_ready()
    }
}

impl Future for WhenWoken {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // The task first, then the flag: a wake-up between the two is not lost.
        self.woken.task.register(cx.waker());
        if self.done_now() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// A task's waker that counts its wake-ups.
    struct Counted(AtomicUsize);

    impl Wake for Counted {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn an_end_is_polled_at_first_and_then_only_after_its_own_wake_up() {
        // Given a future that counts its polls and keeps the waker it was given.
        let polls = Arc::new(AtomicUsize::new(0));
        let kept: Arc<std::sync::Mutex<Option<Waker>>> = Arc::default();
        let done = Arc::new(AtomicBool::new(false));
        let (p, k, d) = (Arc::clone(&polls), Arc::clone(&kept), Arc::clone(&done));
        let mut end = WhenWoken::new(std::future::poll_fn(move |cx| {
            p.fetch_add(1, Ordering::SeqCst);
            *k.lock().unwrap() = Some(cx.waker().clone());
            if d.load(Ordering::SeqCst) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        }));
        let task = Arc::new(Counted(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&task));
        let mut cx = Context::from_waker(&waker);

        // When the stream's task polls it three times with nothing woken,
        for _ in 0..3 {
            assert!(Pin::new(&mut end).poll(&mut cx).is_pending());
        }
        // then the future polled only the first time.
        assert_eq!(polls.load(Ordering::SeqCst), 1);

        // When its own waker fires (the channel it waits on has news),
        done.store(true, Ordering::SeqCst);
        kept.lock().unwrap().take().unwrap().wake();
        // then the stream's task is woken, and the next ask polls the future again: it ended.
        assert_eq!(task.0.load(Ordering::SeqCst), 1);
        assert!(end.done_now());
        assert_eq!(polls.load(Ordering::SeqCst), 2);
    }
}
