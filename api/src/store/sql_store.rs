//! A store on either database ([`SqlStore`]): its pool, and the parts each store does its own
//! way — SQLite's one writer, PostgreSQL's kept connections, plain appends and standby. The
//! store's traits are implemented once for every `SqlStore` (`events`, `stats`, `players`,
//! `presets`).

use std::future::Future;

use tokio::sync::MutexGuard;

use super::commit::Shared;
use super::error::StoreError;
use super::primary::FollowerStatus;
use super::types::{Appended, NewGame};
use super::writes::WriteOn;
use crate::append::AppendRequest;
use crate::records::GameRecord;

/// A store on a [`super::backend::Backend`]: its pool, and the parts each store does its own way. The rest of
/// the store's traits are implemented once for every `SqlStore` (`events`, `stats`,
/// `players`, `presets`).
pub(super) trait SqlStore: Send + Sync + 'static {
    type Db: WriteOn;

    /// The pool reads and the writes outside the append path run on.
    fn pool(&self) -> &sqlx::Pool<Self::Db>;

    /// What the write path shares with the reads: the state cache, the clubs' rows, the
    /// subscribers of commits.
    fn shared(&self) -> &Shared;

    /// On PostgreSQL, the pool whose database carries the other servers' commit notifications.
    fn notifications(&self) -> Option<sqlx::PgPool>;

    /// The database's write turn, held by a write outside the append path for its
    /// transaction (SQLite: taken in turn with the writer's batches); `None`: none to take.
    fn write_turn(&self) -> impl Future<Output = Option<MutexGuard<'_, ()>>> + Send;

    /// The last position a reader of the club's log or lobby may read up to; `None`: no bound.
    fn settled_position(
        &self,
        club: &str,
    ) -> impl Future<Output = Result<Option<i64>, StoreError>> + Send;

    /// The game's stored version (`None`: the club has no such game).
    fn stored_version(
        &self,
        club: &str,
        id: &str,
    ) -> impl Future<Output = Result<Option<i64>, StoreError>> + Send;

    /// Decides and writes one append (see `EventStore::append`).
    fn write_append(
        &self,
        club: &str,
        id: &str,
        request: AppendRequest,
    ) -> impl Future<Output = Result<Appended, StoreError>> + Send;

    /// Creates a game and its first event (see `EventStore::create_game`).
    fn write_create(
        &self,
        club: &str,
        game: &NewGame,
    ) -> impl Future<Output = Result<Option<GameRecord>, StoreError>> + Send;

    /// Told of a write that failed: PostgreSQL then looks for its primary at once.
    fn write_failed(&self, e: &StoreError);

    /// The primary this store follows among several hosts (`None`: nothing to follow).
    fn follower_status(&self) -> Option<FollowerStatus>;

    /// The store on a standby, while one is up: where statistics and history lists are read
    /// (`TABLETALLY_READ_DATABASE_URL`). `None`: this store answers them.
    fn standby(&self) -> Option<&Self>;
}
