//! One server per SQLite database.
//!
//! A server's writer must be its database's only writer: its state cache answers score reads
//! without asking the database ([`super::cache::StateCache::current`]), which a second server's
//! writes would make wrong. So a server holds an exclusive lock on a file beside the database
//! (`<database>.server-lock`) for as long as its store lives, and a second server process on
//! the same file is refused at start with a pointer to PostgreSQL, which serves many.
//! Stores in one process (tests that start a second server) share the lock.
//! `export`, `import` and `migrate` take no lock: they add new games or only read.

use std::collections::HashMap;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use super::error::StoreError;

/// The locks this process holds, by lock file, with how many stores share each.
fn held() -> &'static Mutex<HashMap<PathBuf, (File, usize)>> {
    static HELD: OnceLock<Mutex<HashMap<PathBuf, (File, usize)>>> = OnceLock::new();
    HELD.get_or_init(Default::default)
}

/// Held by a SQLite server's store; released when the last store of the process using this
/// database is dropped.
#[derive(Debug)]
pub(super) struct ServerLock {
    path: PathBuf,
}

impl ServerLock {
    /// Locks `database`'s lock file, or says which server holds it.
    pub(super) fn take(database: &Path) -> Result<Self, StoreError> {
        let mut name = database.as_os_str().to_owned();
        name.push(".server-lock");
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&name)
            .map_err(|e| refused(format!("the server lock {name:?} could not be opened: {e}")))?;
        let path = std::fs::canonicalize(&name).unwrap_or_else(|_| PathBuf::from(&name));
        let mut held = held().lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, stores)) = held.get_mut(&path) {
            *stores += 1;
            return Ok(Self { path });
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(refused(format!(
                    "another tabletally server has the SQLite database {} open (it holds {}); \
                     SQLite serves one server — for several, use PostgreSQL \
                     (DATABASE_URL=postgres://…)",
                    database.display(),
                    path.display()
                )));
            }
            Err(TryLockError::Error(e)) => {
                return Err(refused(format!(
                    "the server lock {} could not be taken: {e}",
                    path.display()
                )));
            }
        }
        held.insert(path.clone(), (file, 1));
        Ok(Self { path })
    }
}

impl Drop for ServerLock {
    fn drop(&mut self) {
        let mut held = held().lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, stores)) = held.get_mut(&self.path) {
            *stores -= 1;
            if *stores == 0 {
                // Closing the file releases the lock.
                held.remove(&self.path);
            }
        }
    }
}

fn refused(why: String) -> StoreError {
    StoreError::Database(sqlx::Error::Configuration(why.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_of_one_process_share_the_lock_and_release_it_with_the_last() {
        let dir = std::env::temp_dir().join(format!("tabletally-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let database = dir.join("club.db");
        let lock_file = dir.join("club.db.server-lock");

        let first = ServerLock::take(&database).expect("the first store locks");
        let second = ServerLock::take(&database).expect("a second store of the process shares it");
        // Another process is refused: an open file description of its own cannot lock.
        let other = File::open(&lock_file).unwrap();
        assert!(matches!(other.try_lock(), Err(TryLockError::WouldBlock)));

        drop(first);
        assert!(matches!(other.try_lock(), Err(TryLockError::WouldBlock)));
        drop(second);
        other.try_lock().expect("released with the last store");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
