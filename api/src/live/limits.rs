//! How many streams may be open at once: on the server, per club, per share link (counted
//! apart from its club's) and per address. A stream holds a [`Ticket`] while it is open, and
//! gives its places back when the ticket is dropped.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use super::{Live, lock};
use crate::error::ApiError;

#[derive(Default)]
pub(super) struct OpenStreams {
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

impl Live {
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
