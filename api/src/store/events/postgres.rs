//! The PostgreSQL store: a pool on the primary (followed among several hosts), kept
//! connections for the write path ([`crate::store::lanes`]), gathered statements for plain
//! appends and version reads, and a standby for statistics when one is given.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use tokio::sync::MutexGuard;

use crate::append::{self, AppendRequest, Decision};
use crate::records::{GameRecord, StoredEvent};
use crate::store::backend::query;
use crate::store::columns::Columns;
use crate::store::commit::{Shared, Written};
use crate::store::error::StoreError;
use crate::store::lanes::Lanes;
use crate::store::plain::{PlainAppend, PlainAppends};
use crate::store::primary::{Follower, FollowerStatus};
use crate::store::seen_players::SeenPlayers;
use crate::store::sql_store::SqlStore;
use crate::store::types::{Appended, NewGame, Usage};
use crate::store::versions::VersionReads;
use crate::store::writes::{Writes, Writing, args};

use super::append::{Decided, append_in, appended, now, to_store};
use super::create::{create_at_once, create_in, create_known};

pub struct PostgresStore {
    pool: PgPool,
    /// The hosts of a multi-host `DATABASE_URL`, the pool following their primary.
    primary: Option<Arc<Follower>>,
    shared: Arc<Shared>,
    /// Score reads' version checks, gathered into one statement (see [`versions`]).
    versions: VersionReads,
    /// Plain appends, gathered into one statement while one is in flight (see [`plain`]).
    plain: PlainAppends,
    /// Connections kept between requests (see [`lanes`]): appends and creations write on them.
    lanes: Arc<Lanes>,
    /// Statistics and history lists read from a standby (`TABLETALLY_READ_DATABASE_URL`).
    standby: Option<Box<Standby>>,
    /// The players this server has seated by name, for creations in one statement.
    seen: SeenPlayers,
}

/// A store on a standby, for reads only, and the follower that says whether one is up.
pub(super) struct Standby {
    store: PostgresStore,
    follower: Arc<Follower>,
}

impl PostgresStore {
    /// The store on `url`'s primary, reading statistics and history lists from a standby among
    /// `read_url`'s hosts when one is given and up.
    pub async fn connect(
        url: &str,
        read_url: Option<&str>,
        usage: Usage,
    ) -> Result<Self, StoreError> {
        let primary = Follower::primary_of(url)?.map(Arc::new);
        let options = match &primary {
            Some(primary) => primary.find_at_start().await?,
            None => crate::store::primary::bounded(PgConnectOptions::from_str(url)?),
        };
        let pool_options = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10));
        let pool_options = match &primary {
            Some(primary) => primary.guard(pool_options),
            None => crate::store::primary::checked_on_acquire(pool_options, None).after_connect(
                |conn, _| {
                    Box::pin(async move {
                        crate::store::keepalive::turn_on(conn).await;
                        Ok(())
                    })
                },
            ),
        };
        let pool = pool_options.connect_with(options).await?;
        if let Some(primary) = &primary {
            tokio::spawn(primary.clone().watch(pool.clone()));
        }
        crate::store::migrations::postgres()
            .run(&pool)
            .await
            .map_err(|e| StoreError::Database(e.into()))?;
        let standby = read_url.map(Standby::connect).transpose()?.map(Box::new);
        let store = Self::on(pool, primary, standby);
        // A pass (export, import, migrate) only adds games; a server's cache may answer alone
        // while it is the database's only one.
        if usage == Usage::Server {
            tokio::spawn(crate::store::sole::keep(
                Arc::downgrade(&store.shared),
                (*store.pool.connect_options()).clone(),
                store.primary.clone(),
                crate::store::sole::wanted(),
            ));
        }
        Ok(store)
    }

    fn on(pool: PgPool, primary: Option<Arc<Follower>>, standby: Option<Box<Standby>>) -> Self {
        let lanes = Arc::new(Lanes::new(primary.clone()));
        let shared = Shared::new(false);
        Self {
            versions: VersionReads::start(pool.clone(), lanes.clone()),
            plain: PlainAppends::start(pool.clone(), lanes.clone(), shared.clone()),
            lanes,
            pool,
            primary,
            shared,
            standby,
            seen: SeenPlayers::default(),
        }
    }
}

impl Standby {
    /// Connects lazily: the server starts whether or not a standby answers, and reads from the
    /// primary until the follower finds one. A read waits at most 2 s for a connection.
    fn connect(url: &str) -> Result<Self, StoreError> {
        let follower = Arc::new(Follower::standby_of(url)?);
        let pool = follower
            .guard(
                PgPoolOptions::new()
                    .max_connections(8)
                    .acquire_timeout(Duration::from_secs(2)),
            )
            .connect_lazy_with(follower.options());
        tokio::spawn(follower.clone().watch(pool.clone()));
        Ok(Self {
            store: PostgresStore::on(pool, None, None),
            follower,
        })
    }
}

impl SqlStore for PostgresStore {
    type Db = sqlx::Postgres;

    fn pool(&self) -> &PgPool {
        &self.pool
    }

    fn shared(&self) -> &Shared {
        &self.shared
    }

    fn notifications(&self) -> Option<PgPool> {
        Some(self.pool.clone())
    }

    fn follower_status(&self) -> Option<FollowerStatus> {
        self.primary.as_ref().map(|primary| primary.status())
    }

    /// The standby while one is up.
    fn standby(&self) -> Option<&Self> {
        self.standby
            .as_deref()
            .filter(|standby| standby.follower.is_up())
            .map(|standby| &standby.store)
    }

    /// A write that failed because the primary went away (or is a standby now) makes the
    /// server look for the primary at once, not at its next check.
    fn write_failed(&self, e: &StoreError) {
        if let (Some(primary), StoreError::Database(e)) = (&self.primary, e)
            && crate::store::primary::lost_primary(e)
        {
            primary.check_now();
        }
    }

    /// The last position a reader of the club's log or lobby may read up to. Appends draw
    /// positions from one sequence and commit side by side, so a later position may commit
    /// before an earlier one. This waits for the club's appends in flight (each holds the
    /// club's positions lock shared, from its first event to its commit) by taking that lock
    /// alone for one statement, and reads the sequence's last position meanwhile: every
    /// position of the club up to it is then committed or rolled back, and any later append
    /// draws a greater one. One round trip; appends arriving meanwhile wait that long. (This
    /// relies on the sequence handing out values in the order they are drawn: its `CACHE` must
    /// stay 1, the default, as in the migration that created it.)
    async fn settled_position(&self, club: &str) -> Result<Option<i64>, StoreError> {
        let row = query(
            "SELECT pg_sequence_last_value('events_position_seq'::regclass) AS last \
             FROM (SELECT pg_advisory_xact_lock(7461626, hashtext($1))) AS after_appends_in_flight",
        )
        .bind(club)
        .fetch_one(&self.pool)
        .await?;
        Ok(Some(row.try_get::<Option<i64>, _>("last")?.unwrap_or(0)))
    }

    /// The game's stored version, read together with the other reads waiting for theirs.
    async fn stored_version(&self, club: &str, id: &str) -> Result<Option<i64>, StoreError> {
        self.versions.version(club, id).await
    }

    /// One transaction per append; PostgreSQL's own group commit batches concurrent ones. A
    /// game this server holds is decided from the held state first: a plain append is then
    /// written in one statement that applies only while the game's row is at that state's
    /// version ([`PostgresStore::write_at_version`]); anything else, or a row that moved on, takes the
    /// locked path, which reuses the decision while the row is still at its version. Refusals
    /// and retries are answered from the locked row alone (the held state may be behind it).
    async fn write_append(
        &self,
        club: &str,
        id: &str,
        request: AppendRequest,
    ) -> Result<Appended, StoreError> {
        // Open until the answer (the guard lives to the end of this function): a read meanwhile
        // asks the database; the term it began in says whether this server is the only one
        // writing (no writes lock to take).
        let writing = self.shared.cache.writing(id);
        let alone = writing.term().is_some();
        let mut decided = None;
        match self.shared.cache.take_latest(club, id) {
            // Decided under the row's lock, with the log read again.
            Some(held) if held.needs_log(&request) => self.shared.cache.put_written(club, held),
            Some(mut held) => {
                let version = held.game.version;
                match append::decide(&mut held, &request) {
                    Ok(decision @ Decision::Append { .. }) => {
                        decided = Some(Decided {
                            version,
                            decision,
                            held,
                        });
                    }
                    // Unchanged; decided again under the row's lock.
                    Err(refused) if !refused.left_the_state() => {}
                    _ => self.shared.cache.put_written(club, held),
                }
            }
            None => {}
        }
        if let Some(plain) = decided.take_if(|d| d.is_plain())
            && let Some(appended) = self.write_at_version(club, id, plain, alone).await?
        {
            return Ok(appended);
        }
        if let Some(moving) = decided.take_if(|d| d.moves_status_alone())
            && let Some(appended) = self.write_status_move(club, moving, alone).await?
        {
            return Ok(appended);
        }
        let mut lane = self.lanes.take(&self.pool, club).await?;
        let mut w = Writes::on_lane(&mut lane).await?;
        if !alone {
            w.execute(crate::store::sole::WRITES_LOCK, args![]).await?;
        }
        let written = append_in(&self.shared, &mut w, club, id, &request, decided, None).await?;
        let answer = self.commit(w, written).await?;
        self.lanes.give_back(lane);
        Ok(answer)
    }

    /// PostgreSQL's writers wait on row locks, bounded by `lock_timeout`: no turn to take.
    async fn write_turn(&self) -> Option<MutexGuard<'_, ()>> {
        None
    }

    async fn write_create(
        &self,
        club: &str,
        game: &NewGame,
    ) -> Result<Option<GameRecord>, StoreError> {
        // Open until the answer, as for an append: a new game is current from its creation.
        let _writing = self.shared.cache.writing(&game.id);
        let mut lane = self.lanes.take(&self.pool, club).await?;
        // Every name one this server has seated: one round trip, checked as it writes.
        if let Some((seats, seated)) = self.seen.seats(club, game) {
            let at_once = create_at_once(
                &mut Writes::alone_on_lane(&mut lane),
                club,
                game,
                seats,
                &seated,
            )
            .await;
            match at_once {
                Ok(Some(written)) => {
                    self.lanes.give_back(lane);
                    if let Some(after) = written.after {
                        self.shared.count_batch(1);
                        self.shared.committed(after);
                    }
                    return Ok(written.answer);
                }
                Ok(None) => self.seen.forget(club, &seated),
                Err(e) => {
                    self.seen.forget(club, &seated);
                    tracing::debug!(error = %e, "a creation of players seen goes the longer way")
                }
            }
        }
        // Its players known and its id new, as a club's creations mostly are: two round trips,
        // not four. A write that fails there (a player merged away since the read, the same
        // creation sent twice at once) wrote nothing, and the transaction's way answers it.
        let known = create_known(&mut Writes::alone_on_lane(&mut lane), club, game).await;
        match known {
            Ok(Some(written)) => {
                self.lanes.give_back(lane);
                self.seen.remember(club, game, written.answer.as_ref());
                if let Some(after) = written.after {
                    self.shared.count_batch(1);
                    self.shared.committed(after);
                }
                return Ok(written.answer);
            }
            Ok(None) => {}
            Err(e) => {
                tracing::debug!(error = %e, "a creation of known players goes the transaction's way")
            }
        }
        let mut w = Writes::on_lane(&mut lane).await?;
        let written = create_in(&mut w, club, game).await?;
        let answer = self.commit(w, written).await?;
        self.lanes.give_back(lane);
        self.seen.remember(club, game, answer.as_ref());
        Ok(answer)
    }
}

impl PostgresStore {
    /// Writes a plain append ([`Decided::is_plain`]) in one statement, with the plain appends
    /// made while the one before was in flight ([`super::plain`]): the game's row moves on only
    /// if it is still at the decided version and in the club (the database decides the version,
    /// never the cache), and the events are inserted only if it did, after the club's positions
    /// lock (shared). `None`, with nothing written, when the
    /// row was not there at that version. `alone`: this server's term began before the append
    /// (no writes lock to take, [`super::sole`]).
    async fn write_at_version(
        &self,
        club: &str,
        id: &str,
        decided: Decided,
        alone: bool,
    ) -> Result<Option<Appended>, StoreError> {
        let Decided {
            version: at,
            decision:
                Decision::Append {
                    events,
                    status,
                    scoreboard,
                    ..
                },
            held,
        } = decided
        else {
            return Ok(None);
        };
        let now = now();
        let append = PlainAppend {
            club,
            id,
            at,
            now,
            events: &events,
            alone,
        };
        let Some(positions) = self.plain.write(append).await? else {
            // The row moved on (or is another club's): nothing was written.
            return Ok(None);
        };
        let stored = events
            .into_iter()
            .zip(positions)
            .map(|(event, (seq, position))| StoredEvent {
                position,
                ..to_store(event, seq, now)
            })
            .collect();
        let written = appended(club, held, stored, status.as_str(), now, *scoreboard);
        if let Some(after) = written.after {
            self.shared.committed(after);
        }
        Ok(Some(written.answer))
    }

    /// Writes an append that moves the game's status ([`Decided::moves_status_alone`]: a first
    /// finish, mostly) in one statement ([`crate::store::one_statement`]), which writes only while the
    /// game's row is at the decided version in the club. `None`, with nothing written, when it
    /// was not.
    async fn write_status_move(
        &self,
        club: &str,
        decided: Decided,
        alone: bool,
    ) -> Result<Option<Appended>, StoreError> {
        let now = now();
        let Some(((sql, values), event)) = decided.status_move(club, now, alone)? else {
            return Ok(None);
        };
        // What the answer needs, taken before anything is written (`status_move` answered only
        // for an append).
        let Decided {
            decision: Decision::Append {
                status, scoreboard, ..
            },
            held,
            ..
        } = decided
        else {
            return Ok(None);
        };
        let mut lane = self.lanes.take(&self.pool, club).await?;
        let row = Writes::alone_on_lane(&mut lane)
            .fetch_optional(&sql, values)
            .await?;
        self.lanes.give_back(lane);
        let Some(row) = row else {
            // The row moved on (or is another club's): nothing was written.
            return Ok(None);
        };
        let stored = vec![StoredEvent {
            position: row.try_get("position")?,
            ..event
        }];
        let written = appended(club, held, stored, status.as_str(), now, *scoreboard);
        self.shared.count_batch(1);
        if let Some(after) = written.after {
            self.shared.committed(after);
        }
        Ok(Some(written.answer))
    }

    async fn commit<T>(
        &self,
        w: Writes<'_, sqlx::Postgres>,
        written: Written<T>,
    ) -> Result<T, StoreError> {
        if let Some(after) = written.after {
            let id = after.held.game.id.clone();
            if let Err(e) = w.commit().await {
                self.shared.cache.forget(&id);
                return Err(e);
            }
            self.shared.count_batch(1);
            self.shared.committed(after);
        } else {
            w.roll_back().await?;
        }
        Ok(written.answer)
    }
}
