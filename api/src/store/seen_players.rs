//! PostgreSQL: the players a server has seated by name, so that a creation of names it has seen
//! is one statement ([`super::one_statement`]).

use std::collections::HashMap;

use tabletally_domain::setup::name_key;

use crate::records::{GameRecord, SeatRecord};
use crate::store::types::NewGame;

/// Each seat's `(name key, player)`, in seat order.
pub(super) type Seated = Vec<(String, String)>;

/// Names this server has at most in [`SeenPlayers`]; then it forgets them all and starts again.
const SEEN_NAMES: usize = 4096;

/// The players this server has seated by name: `(club, name key)` → player. A creation whose
/// every seat is a name seen here is one statement, which checks that each name is still its
/// player's (`events::create::create_at_once`); one whose check fails forgets its names, and
/// its creation reads them.
#[derive(Default)]
pub(super) struct SeenPlayers(std::sync::Mutex<HashMap<(String, String), String>>);

impl SeenPlayers {
    /// `game`'s seats, and each one's `(name key, player)`, when each is a name seen here, and
    /// no two the same player.
    pub(super) fn seats(&self, club: &str, game: &NewGame) -> Option<(Vec<SeatRecord>, Seated)> {
        let seen = self.0.lock().ok()?;
        let mut seats = Vec::with_capacity(game.players.len());
        let mut seated: Seated = Vec::with_capacity(game.players.len());
        for (i, asked) in game.players.iter().enumerate() {
            if asked.player_id.is_some() {
                return None;
            }
            let key = name_key(&asked.name);
            let player = seen.get(&(club.to_owned(), key.clone()))?;
            if seated.iter().any(|(_, other)| other == player) {
                return None;
            }
            seats.push(SeatRecord {
                seat: i as i64 + 1,
                name: asked.name.clone(),
                player_id: player.clone(),
                color: asked.color.clone(),
            });
            seated.push((key, player.clone()));
        }
        Some((seats, seated))
    }

    /// The players `game`'s named seats were given (`created`: the game as created).
    pub(super) fn remember(&self, club: &str, game: &NewGame, created: Option<&GameRecord>) {
        let (Some(created), Ok(mut seen)) = (created, self.0.lock()) else {
            return;
        };
        if seen.len() >= SEEN_NAMES {
            seen.clear();
        }
        for (asked, seat) in game.players.iter().zip(&created.players) {
            if asked.player_id.is_none() {
                seen.insert(
                    (club.to_owned(), name_key(&asked.name)),
                    seat.player_id.clone(),
                );
            }
        }
    }

    pub(super) fn forget(&self, club: &str, seated: &[(String, String)]) {
        if let Ok(mut seen) = self.0.lock() {
            for (key, _) in seated {
                seen.remove(&(club.to_owned(), key.clone()));
            }
        }
    }
}
