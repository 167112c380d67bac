//! Checkpoints of SQLite's write-ahead log beside the writer. SQLite checkpoints the log inside
//! the commit that takes it past 1,000 pages, before that batch's callers hear, on the writer's
//! thread. Instead the writer's connection counts the log's frames ([`Direct::watch_wal`]), and
//! after a batch the writer asks for a checkpoint on a reader's connection, on the other CPU
//! (bench log of 2026-12-07, "SQLite's writer: a lone request without a savepoint, checkpoints
//! beside it").

use std::ffi::c_int;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::mpsc;

use super::direct::Direct;

/// The log's frames past which the writer asks for a checkpoint beside it (SQLite's own
/// threshold), and past which, those lagging, it makes one itself.
const CHECKPOINT_FRAMES: c_int = 1000;
const CHECKPOINT_ITSELF: c_int = 8 * CHECKPOINT_FRAMES;

/// Checkpoints made beside the writer, on a connection of the readers' pool, each when the
/// writer asks; they end with the writer. One that waits for no one (`PASSIVE`) copies the
/// log's committed pages into the database while the writer goes on, but the log starts again
/// only from a transaction begun with every page copied: the writer then copies the few
/// committed meanwhile itself (see [`checkpoint`]).
pub(super) struct Beside {
    ask: mpsc::Sender<()>,
    /// Checkpoints made so far.
    made: Arc<AtomicU64>,
}

impl Beside {
    /// Checkpoints beside the writer that never come: the writer checkpoints itself.
    #[cfg(test)]
    pub(super) fn nobody() -> Self {
        Beside {
            ask: mpsc::channel(1).0,
            made: Arc::default(),
        }
    }
}

pub(super) fn checkpoints(pool: sqlx::SqlitePool) -> Beside {
    let (ask, mut asked) = mpsc::channel(1);
    let made = Arc::new(AtomicU64::new(0));
    let counted = Arc::clone(&made);
    tokio::spawn(async move {
        while asked.recv().await.is_some() {
            if let Err(e) = sqlx::query(CHECKPOINT).execute(&pool).await {
                tracing::warn!(error = %e, "a checkpoint beside the writer failed");
            }
            counted.fetch_add(1, Ordering::Release);
        }
    });
    Beside { ask, made }
}

const CHECKPOINT: &str = "PRAGMA wal_checkpoint(PASSIVE)";

/// After a batch, once the log has grown past SQLite's threshold: a checkpoint asked for
/// beside the writer, and once it is made, the rest copied here (a few pages) so that the next
/// transaction starts the log again. Made here whole when none can be asked for or the log
/// has grown far (the log stays bounded). `asked`: how many were made when the writer asked.
pub(super) fn checkpoint(direct: &mut Direct, beside: &Beside, asked: &mut Option<u64>) {
    let frames = direct.wal_frames();
    if frames < CHECKPOINT_FRAMES {
        *asked = None;
        return;
    }
    let made = beside.made.load(Ordering::Acquire);
    let here = match *asked {
        None if beside.ask.try_send(()).is_ok() => {
            *asked = Some(made);
            false
        }
        None => frames >= CHECKPOINT_ITSELF,
        Some(then) => made > then || frames >= CHECKPOINT_ITSELF,
    };
    if here {
        *asked = None;
        if let Err(e) = direct.execute(CHECKPOINT, &[]) {
            tracing::warn!(error = %e, frames, "the writer's own checkpoint failed");
        }
    }
}
