//! The store's one error type.

use crate::append::Refused;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No such game (or player) in this club.
    #[error("not found")]
    NotFound,
    /// The decision refused the append; nothing was written.
    #[error(transparent)]
    Refused(#[from] Refused),
    /// A uniqueness rule of the database was hit by a concurrent writer.
    #[error("conflict: {0}")]
    Conflict(tabletally_domain::Message),
    /// A player id given at game creation is not one of the club's players.
    #[error("unknown player id {0}")]
    UnknownPlayer(String),
    /// Stored data that does not parse: a bug or a corrupted database.
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}
