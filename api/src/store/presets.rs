//! A club's table presets, by game and name. Same SQL on both databases.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;
use tabletally_domain::setup::name_key;

use super::backend::query;
use super::columns::Columns;
use super::error::StoreError;
use super::sql_store::SqlStore;

#[derive(Debug, Clone, PartialEq)]
pub struct PresetRecord {
    pub id: String,
    pub game: String,
    pub name: String,
    /// As given (checked against the game's options): a game's own options override its keys.
    pub options: Value,
    pub created_at: DateTime<Utc>,
}

#[async_trait]
pub trait PresetStore: Send + Sync {
    /// Stores a preset; `Err(existing)` when the club has one of that name for the game.
    async fn create_preset(
        &self,
        club: &str,
        preset: &PresetRecord,
    ) -> Result<Result<(), PresetRecord>, StoreError>;

    /// The club's presets by game, then name; only one game's with `game`.
    async fn presets(
        &self,
        club: &str,
        game: Option<&str>,
    ) -> Result<Vec<PresetRecord>, StoreError>;

    /// The club's preset of this name for the game (names match ignoring case).
    async fn preset_named(
        &self,
        club: &str,
        game: &str,
        name: &str,
    ) -> Result<Option<PresetRecord>, StoreError>;

    /// Deletes a preset; false when the club has no such preset.
    async fn delete_preset(&self, club: &str, id: &str) -> Result<bool, StoreError>;
}

fn preset_row(row: &impl Columns) -> Result<PresetRecord, StoreError> {
    let options: String = row.try_get("options")?;
    Ok(PresetRecord {
        id: row.try_get("id")?,
        game: row.try_get("game")?,
        name: row.try_get("name")?,
        options: serde_json::from_str(&options)
            .map_err(|e| StoreError::Corrupt(format!("preset options: {e}")))?,
        created_at: row.try_get("created_at")?,
    })
}

/// A club's presets on either database.
#[async_trait]
impl<S: SqlStore> PresetStore for S {
    async fn create_preset(
        &self,
        club: &str,
        preset: &PresetRecord,
    ) -> Result<Result<(), PresetRecord>, StoreError> {
        let _turn = self.write_turn().await;
        let inserted = query(
                    "INSERT INTO presets (id, club_id, game, name, name_key, options, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (club_id, game, name_key) DO NOTHING",
                )
                .bind(&preset.id)
                .bind(club)
                .bind(&preset.game)
                .bind(&preset.name)
                .bind(name_key(&preset.name))
                .bind(preset.options.to_string())
                .bind(preset.created_at)
                .execute(self.pool())
                .await?;
        if inserted == 1 {
            return Ok(Ok(()));
        }
        match self.preset_named(club, &preset.game, &preset.name).await? {
            Some(existing) => Ok(Err(existing)),
            None => Err(StoreError::Conflict(tabletally_domain::said!(
                "server.api.presets.changed_concurrently"
            ))),
        }
    }

    async fn presets(
        &self,
        club: &str,
        game: Option<&str>,
    ) -> Result<Vec<PresetRecord>, StoreError> {
        let rows = query(
            "SELECT id, game, name, options, created_at FROM presets \
                     WHERE club_id = $1 AND ($2 IS NULL OR game = $2) ORDER BY game, name_key",
        )
        .bind(club)
        .bind(game)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(preset_row).collect()
    }

    async fn preset_named(
        &self,
        club: &str,
        game: &str,
        name: &str,
    ) -> Result<Option<PresetRecord>, StoreError> {
        let row = query(
            "SELECT id, game, name, options, created_at FROM presets \
                     WHERE club_id = $1 AND game = $2 AND name_key = $3",
        )
        .bind(club)
        .bind(game)
        .bind(name_key(name))
        .fetch_optional(self.pool())
        .await?;
        row.as_ref().map(preset_row).transpose()
    }

    async fn delete_preset(&self, club: &str, id: &str) -> Result<bool, StoreError> {
        let _turn = self.write_turn().await;
        let deleted = query("DELETE FROM presets WHERE club_id = $1 AND id = $2")
            .bind(club)
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(deleted > 0)
    }
}
