//! Changing a club's players: a rename, and a merge of two players into one. Written once for both
//! databases.
//!
//! A player's seats keep the name the game's events use (`game_players.name`): a rename changes
//! only the club's player (`players.name`, `name_key`), and a merge moves the seats to the other
//! player and recomputes their leaderboard sums and runs. Stored events are never rewritten — a game's
//! `game_started` keeps the player id it was written with; the seats say who sat there now.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use tabletally_domain::setup::name_key;

use super::backend::Backend;
use super::backend::query;
use super::columns::Columns;
use super::error::StoreError;
use super::sql_store::SqlStore;
use super::stats::ratings::mark_changed;
use super::stats::settle::lock_statistics;
use super::stats::sql::{
    CLEAR_RUNS, CLEAR_SNAPSHOTS, RECOMPUTE_RUNS, RECOMPUTE_SNAPSHOTS, not_noted,
};
use super::writes::{WriteOn, Writing, args};

/// How a rename went.
#[derive(Debug, Clone, PartialEq)]
pub enum Rename {
    Renamed,
    /// No such player in this club.
    NotFound,
    /// Another of the club's players already has this name (by the one name rule).
    NameTaken {
        id: String,
        name: String,
    },
}

/// How a merge went.
#[derive(Debug, Clone, PartialEq)]
pub enum Merge {
    Merged,
    /// The player was already merged into this one: a merge sent again (its answer was lost).
    AlreadyMerged,
    /// The player to merge is not in this club.
    NotFound,
    /// The player to merge into is not in this club.
    IntoNotFound,
    /// Both sat at these games (ids, in id order): one seat each cannot become one player.
    SatTogether(Vec<String>),
}

/// A club player as an export carries them.
#[derive(Debug, Clone, PartialEq)]
pub struct ClubPlayer {
    pub id: String,
    /// The current name.
    pub name: String,
    pub created_at: DateTime<Utc>,
    /// The other names their games seat them under (names before a rename, the names of
    /// players merged into them), by name: the seats keep the names the events use, so this is
    /// read from the games, not stored apart.
    pub former_names: Vec<String>,
}

/// How a player from an export went into a club.
#[derive(Debug, Clone, PartialEq)]
pub enum PlayerImport {
    Imported,
    /// The club has this player, under the same name since the same time: nothing changed.
    AlreadyPresent,
    /// Not added, and why in words (the id is another player's or another club's, or the name
    /// is another player's).
    Conflict(tabletally_domain::Message),
}

#[async_trait]
pub trait PlayerStore: Send + Sync {
    /// Renames a club player; the name is already checked.
    async fn rename_player(&self, club: &str, id: &str, name: &str) -> Result<Rename, StoreError>;

    /// Moves every seat of player `from` to player `into`, recomputes `into`'s leaderboard sums
    /// and runs and removes `from`, in one transaction.
    async fn merge_players(&self, club: &str, from: &str, into: &str) -> Result<Merge, StoreError>;

    /// Every player of the club by name, with the other names their games seat them under.
    async fn club_players(&self, club: &str) -> Result<Vec<ClubPlayer>, StoreError>;

    /// Adds a player with their id, name and creation time (`former_names` comes back with their
    /// games); one already there as it is changes nothing.
    async fn import_player(
        &self,
        club: &str,
        player: &ClubPlayer,
    ) -> Result<PlayerImport, StoreError>;
}

/// A player's leaderboard sums from their finished seats, every game and variant.
const RECOMPUTE_TOTALS: &str = concat!(
    "INSERT INTO player_game_totals \
       (club_id, player_id, game, variant, lower_wins, played, wins, total_sum, rank_sum, min_total, max_total, last_played) \
     SELECT g.club_id, gp.player_id, g.game, g.variant, MAX(g.lower_wins), COUNT(*), \
       SUM(CASE WHEN gp.rank = 1 THEN 1 ELSE 0 END), \
       SUM(gp.total), SUM(gp.rank), MIN(gp.total), MAX(gp.total), MAX(g.started_at) \
     FROM players p JOIN game_players gp ON gp.player_id = p.id JOIN games g ON g.id = gp.game_id \
     WHERE p.id = $2 AND p.club_id = $1 AND gp.rank IS NOT NULL AND ",
    not_noted!(),
    " GROUP BY g.club_id, gp.player_id, g.game, g.variant"
);

/// A club's players on either database.
#[async_trait]
impl<S: SqlStore> PlayerStore for S {
    async fn rename_player(&self, club: &str, id: &str, name: &str) -> Result<Rename, StoreError> {
        let key = name_key(name);
        let _turn = self.write_turn().await;
        let mut tx = self.pool().begin_with(S::Db::BEGIN).await?;
        // Another club's player does not exist here: checked before anything is compared.
        let known = query(format!(
            "SELECT id FROM players WHERE club_id = $1 AND id = $2{}",
            S::Db::LOCK_ROW
        ))
        .bind(club)
        .bind(id)
        .fetch_optional(&mut tx)
        .await?;
        if known.is_none() {
            return Ok(Rename::NotFound);
        }
        let taken =
            query("SELECT id, name FROM players WHERE club_id = $1 AND name_key = $2 AND id <> $3")
                .bind(club)
                .bind(&key)
                .bind(id)
                .fetch_optional(&mut tx)
                .await?;
        if let Some(row) = taken {
            return Ok(Rename::NameTaken {
                id: row.try_get("id")?,
                name: row.try_get("name")?,
            });
        }
        let renamed =
            query("UPDATE players SET name = $1, name_key = $2 WHERE club_id = $3 AND id = $4")
                .bind(name)
                .bind(&key)
                .bind(club)
                .bind(id)
                .execute(&mut tx)
                .await
                .map_err(|e| match &e {
                    // A concurrent rename or game creation took the name first.
                    sqlx::Error::Database(db) if db.is_unique_violation() => {
                        StoreError::Conflict(tabletally_domain::said!(
                            "server.api.players.renamed_concurrently",
                            name = format!("{name:?}")
                        ))
                    }
                    _ => StoreError::Database(e),
                })?;
        if renamed == 0 {
            return Ok(Rename::NotFound);
        }
        tx.commit().await?;
        Ok(Rename::Renamed)
    }

    async fn merge_players(&self, club: &str, from: &str, into: &str) -> Result<Merge, StoreError> {
        let _turn = self.write_turn().await;
        let mut w = S::Db::writes(self.pool().begin_with(S::Db::BEGIN).await?);
        // The games of the player who goes, locked first in id order as an append locks
        // its game before its players: an append finishing one of them waits for the
        // merge, then sees the moved seats (on SQLite, BEGIN IMMEDIATE serialises it all).
        w.fetch_all(
            &format!(
                "SELECT id FROM games WHERE club_id = $1 AND id IN \
                 (SELECT game_id FROM game_players WHERE player_id = $2) ORDER BY id{}",
                S::Db::LOCK_ROW
            ),
            args![club, from],
        )
        .await?;
        // The club's statistics lock, taken after the games' rows and before the players' as by
        // every writer of the sums: no settling adds a game of the player who goes meanwhile.
        // The sums are recomputed from the finished seats but the noted ones, which their
        // settling adds to the player they belong to then.
        lock_statistics(&mut w, club).await?;
        // Both rows locked in id order, the order every writer locks players in.
        let (first, second) = if from < into {
            (from, into)
        } else {
            (into, from)
        };
        let rows = w
            .fetch_all(
                &format!(
                    "SELECT id FROM players WHERE club_id = $1 AND id IN ($2, $3) ORDER BY id{}",
                    S::Db::LOCK_ROW
                ),
                args![club, first, second],
            )
            .await?;
        let found: Vec<String> = rows
            .iter()
            .map(|r| r.try_get("id"))
            .collect::<Result<_, _>>()?;
        if !found.iter().any(|id| id == from) {
            let merged_into: Option<String> = w
                .fetch_optional(
                    "SELECT into_id FROM player_merges WHERE club_id = $1 AND from_id = $2",
                    args![club, from],
                )
                .await?
                .map(|row| row.try_get("into_id"))
                .transpose()?;
            let again = merged_into.as_deref() == Some(into) && found.iter().any(|id| id == into);
            return Ok(if again {
                Merge::AlreadyMerged
            } else {
                Merge::NotFound
            });
        }
        if !found.iter().any(|id| id == into) {
            return Ok(Merge::IntoNotFound);
        }
        let shared = w
            .fetch_all(
                "SELECT a.game_id FROM game_players a JOIN game_players b ON b.game_id = a.game_id \
                 WHERE a.player_id = $1 AND b.player_id = $2 ORDER BY a.game_id",
                args![from, into],
            )
            .await?;
        if !shared.is_empty() {
            let games = shared
                .iter()
                .map(|r| r.try_get("game_id"))
                .collect::<Result<_, _>>()?;
            return Ok(Merge::SatTogether(games));
        }
        // The ratings of each game the player who goes finished are rated again from their
        // first finished game of it: their seats become the other player's.
        let finished = w
            .fetch_all(
                "SELECT g.game, g.started_at, g.id FROM game_players gp CROSS JOIN games g \
                 WHERE gp.player_id = $1 AND gp.rank IS NOT NULL AND g.id = gp.game_id \
                 ORDER BY g.game, g.started_at, g.id",
                args![from],
            )
            .await?;
        let mut firsts: Vec<(String, DateTime<Utc>, String)> = Vec::new();
        for row in &finished {
            let game: String = row.try_get("game")?;
            if firsts.last().is_none_or(|f| f.0 != game) {
                firsts.push((game, row.try_get("started_at")?, row.try_get("id")?));
            }
        }
        w.execute(
            "UPDATE game_players SET player_id = $1 WHERE player_id = $2",
            args![into, from],
        )
        .await?;
        w.execute(
            "DELETE FROM player_game_totals WHERE club_id = $1 AND player_id IN ($2, $3)",
            args![club, from, into],
        )
        .await?;
        w.execute(RECOMPUTE_TOTALS, args![club, into]).await?;
        for player in [from, into] {
            w.execute(CLEAR_RUNS, args![player, None::<&str>]).await?;
        }
        w.execute(RECOMPUTE_RUNS, args![club, into, None::<&str>])
            .await?;
        // The month snapshots follow the runs (the statistics lock is held).
        for player in [from, into] {
            w.execute(CLEAR_SNAPSHOTS, args![club, player, None::<&str>])
                .await?;
        }
        w.execute(RECOMPUTE_SNAPSHOTS, args![club, into, None::<&str>])
            .await?;
        w.execute(
            "DELETE FROM players WHERE club_id = $1 AND id = $2",
            args![club, from],
        )
        .await?;
        w.execute(
            "INSERT INTO player_merges (from_id, club_id, into_id, merged_at) VALUES ($1, $2, $3, $4)",
            args![from, club, into, chrono::Utc::now()],
        )
        .await?;
        for (game, at, id) in &firsts {
            mark_changed(&mut w, club, game, (*at, id)).await?;
        }
        w.commit().await?;
        Ok(Merge::Merged)
    }

    async fn club_players(&self, club: &str) -> Result<Vec<ClubPlayer>, StoreError> {
        let rows = query(
            "SELECT id, name, created_at FROM players WHERE club_id = $1 ORDER BY name_key, id",
        )
        .bind(club)
        .fetch_all(self.pool())
        .await?;
        let mut players = Vec::with_capacity(rows.len());
        for row in &rows {
            players.push(ClubPlayer {
                id: row.try_get("id")?,
                name: row.try_get("name")?,
                created_at: row.try_get("created_at")?,
                former_names: Vec::new(),
            });
        }
        // Each seat name once per player (the seats' index on player_id serves it).
        let seats = query(
                    "SELECT DISTINCT gp.player_id, gp.name FROM game_players gp \
                     JOIN players p ON p.id = gp.player_id WHERE p.club_id = $1 ORDER BY gp.player_id, gp.name",
                )
                .bind(club)
                .fetch_all(self.pool())
                .await?;
        let mut known: std::collections::HashMap<String, Vec<String>> =
            std::collections::HashMap::new();
        for seat in &seats {
            known
                .entry(seat.try_get("player_id")?)
                .or_default()
                .push(seat.try_get("name")?);
        }
        for player in &mut players {
            let key = name_key(&player.name);
            player.former_names = known
                .remove(&player.id)
                .unwrap_or_default()
                .into_iter()
                .filter(|name| name_key(name) != key)
                .collect();
        }
        Ok(players)
    }

    async fn import_player(
        &self,
        club: &str,
        player: &ClubPlayer,
    ) -> Result<PlayerImport, StoreError> {
        let key = name_key(&player.name);
        let _turn = self.write_turn().await;
        let mut tx = self.pool().begin_with(S::Db::BEGIN).await?;
        let same_id = query("SELECT club_id, name, created_at FROM players WHERE id = $1")
            .bind(&player.id)
            .fetch_optional(&mut tx)
            .await?;
        if let Some(row) = same_id {
            let owner: String = row.try_get("club_id")?;
            let name: String = row.try_get("name")?;
            let created_at: DateTime<Utc> = row.try_get("created_at")?;
            return Ok(if owner != club {
                PlayerImport::Conflict(tabletally_domain::said!(
                    "server.api.import.player.id_elsewhere",
                    id = &player.id
                ))
            } else if name != player.name {
                PlayerImport::Conflict(tabletally_domain::said!(
                    "server.api.import.player.other_name",
                    id = &player.id,
                    name = format!("{name:?}"),
                    file_name = format!("{:?}", player.name)
                ))
            } else if created_at != player.created_at {
                PlayerImport::Conflict(tabletally_domain::said!(
                    "server.api.import.player.other_creation",
                    id = &player.id,
                    name = format!("{name:?}"),
                    created_at = created_at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
                    file_created_at = player
                        .created_at
                        .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
                ))
            } else {
                PlayerImport::AlreadyPresent
            });
        }
        let taken = query("SELECT id, name FROM players WHERE club_id = $1 AND name_key = $2")
            .bind(club)
            .bind(&key)
            .fetch_optional(&mut tx)
            .await?;
        if let Some(row) = taken {
            let (id, name): (String, String) = (row.try_get("id")?, row.try_get("name")?);
            return Ok(PlayerImport::Conflict(tabletally_domain::said!(
                "server.api.import.player.name_taken",
                name = format!("{name:?}"),
                id = id,
                file_id = &player.id
            )));
        }
        query("INSERT INTO players (id, club_id, name, name_key, created_at) VALUES ($1, $2, $3, $4, $5)")
                    .bind(&player.id)
                    .bind(club)
                    .bind(&player.name)
                    .bind(&key)
                    .bind(player.created_at)
                    .execute(&mut tx)
                    .await
                    .map_err(|e| match &e {
                        // A game created meanwhile seated a new player of this name (PostgreSQL).
                        sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(tabletally_domain::said!(
                            "server.api.import.player_added_concurrently",
                            name = format!("{:?}", player.name)
                        )),
                        _ => StoreError::Database(e),
                    })?;
        tx.commit().await?;
        Ok(PlayerImport::Imported)
    }
}
