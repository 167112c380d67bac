//! Clubs and their tokens: the club's row (kept by each server), scoped tokens and share
//! links, their revocation on every server, and the count of clubs created per client.

use chrono::{DateTime, Utc};

use super::append::now;
use crate::store::backend::Backend;
use crate::store::backend::query;
use crate::store::columns::Columns;
use crate::store::error::StoreError;
use crate::store::lists::Param;
use crate::store::sql_store::SqlStore;
use crate::store::types::{AccessTokenRecord, ClubRecord};
use crate::store::writes::args;

/// The channel every PostgreSQL server `LISTEN`s on for the other servers' commits: a
/// coalesced wake-up (`crate::wakeups`), a hint only: listeners read the committed rows
/// themselves.
pub const NOTIFY_CHANNEL: &str = "tabletally_commits";

/// The channel a revoked token's id (or a replaced first token's [`first_token_revocation`]) is
/// sent on, so every server ends the streams it opened (and forgets the club's kept row).
pub const REVOCATIONS_CHANNEL: &str = "tabletally_revocations";

/// How a revocation names a club's first token once a new one replaced it (an issued token is
/// named by its id, a UUID: the two never meet).
pub fn first_token_revocation(club: &str) -> String {
    format!("club:{club}")
}

/// The club whose first token a revocation names, if it names one.
pub fn revoked_first_token(revocation: &str) -> Option<&str> {
    revocation.strip_prefix("club:")
}

pub(super) async fn create_club<S: SqlStore>(
    store: &S,
    id: &str,
    name: &str,
    token_hash: &str,
) -> Result<ClubRecord, StoreError> {
    let _turn = store.write_turn().await;
    query("INSERT INTO clubs (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4)")
        .bind(id)
        .bind(name)
        .bind(token_hash)
        .bind(now())
        .execute(store.pool())
        .await?;
    Ok(ClubRecord {
        id: id.to_owned(),
        name: name.to_owned(),
        token_hash: token_hash.to_owned(),
    })
}

pub(super) async fn club<S: SqlStore>(
    store: &S,
    id: &str,
) -> Result<Option<ClubRecord>, StoreError> {
    if let Some(club) = store.shared().clubs.get(id) {
        return Ok(Some(club));
    }
    let ticket = store.shared().clubs.ticket();
    let row = query("SELECT id, name, token_hash FROM clubs WHERE id = $1")
        .bind(id)
        .fetch_optional(store.pool())
        .await?;
    let club = row
        .map(|row| {
            Ok::<_, StoreError>(ClubRecord {
                id: row.try_get("id")?,
                name: row.try_get("name")?,
                token_hash: row.try_get("token_hash")?,
            })
        })
        .transpose()?;
    if let Some(club) = &club {
        store.shared().clubs.put(club.clone(), ticket);
    }
    Ok(club)
}

pub(super) async fn replace_club_token<S: SqlStore>(
    store: &S,
    club: &str,
    token_hash: &str,
) -> Result<bool, StoreError> {
    let _turn = store.write_turn().await;
    let mut tx = store.pool().begin_with(S::Db::BEGIN).await?;
    let done = query("UPDATE clubs SET token_hash = $1 WHERE id = $2")
        .bind(token_hash)
        .bind(club)
        .execute(&mut tx)
        .await?;
    let replaced = done > 0;
    // Every server forgets the club's row and ends the old token's streams.
    if replaced {
        announce_revocation(&mut tx, &first_token_revocation(club)).await?;
    }
    tx.commit().await?;
    store.shared().clubs.forget(Some(club));
    Ok(replaced)
}

pub(super) async fn create_access_token<S: SqlStore>(
    store: &S,
    token: &AccessTokenRecord,
) -> Result<(), StoreError> {
    let _turn = store.write_turn().await;
    query(
        "INSERT INTO access_tokens (id, club_id, name, scope, game_id, secret_hash, created_at, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(&token.id)
    .bind(&token.club_id)
    .bind(&token.name)
    .bind(&token.scope)
    .bind(&token.game_id)
    .bind(&token.secret_hash)
    .bind(token.created_at)
    .bind(token.expires_at)
    .execute(store.pool())
    .await?;
    Ok(())
}

/// The tokens `condition` selects (`$1`… its values), oldest first.
async fn tokens_where<S: SqlStore>(
    store: &S,
    condition: &str,
    values: Vec<Param>,
) -> Result<Vec<AccessTokenRecord>, StoreError> {
    let rows = query(format!(
        "SELECT id, club_id, name, scope, game_id, secret_hash, created_at, expires_at \
         FROM access_tokens WHERE {condition} ORDER BY created_at, id"
    ))
    .with(values)
    .fetch_all(store.pool())
    .await?;
    rows.iter().map(access_token_row).collect()
}

pub(super) async fn access_token<S: SqlStore>(
    store: &S,
    id: &str,
) -> Result<Option<AccessTokenRecord>, StoreError> {
    Ok(tokens_where(store, "id = $1", args![id]).await?.pop())
}

pub(super) async fn access_tokens<S: SqlStore>(
    store: &S,
    club: &str,
) -> Result<Vec<AccessTokenRecord>, StoreError> {
    tokens_where(store, "club_id = $1 AND scope <> 'share'", args![club]).await
}

pub(super) async fn game_shares<S: SqlStore>(
    store: &S,
    club: &str,
    game: &str,
) -> Result<Vec<AccessTokenRecord>, StoreError> {
    let shares = "club_id = $1 AND game_id = $2 AND scope = 'share'";
    tokens_where(store, shares, args![club, game]).await
}

pub(super) async fn delete_access_token<S: SqlStore>(
    store: &S,
    club: &str,
    id: &str,
    game: Option<&str>,
) -> Result<bool, StoreError> {
    let _turn = store.write_turn().await;
    let mut tx = store.pool().begin().await?;
    let done = query(
        "DELETE FROM access_tokens WHERE club_id = $1 AND id = $2 \
         AND (($3 IS NULL AND scope <> 'share') OR (scope = 'share' AND game_id = $3))",
    )
    .bind(club)
    .bind(id)
    .bind(game)
    .execute(&mut tx)
    .await?;
    let deleted = done > 0;
    // Every server's streams opened with it end at once.
    if deleted {
        announce_revocation(&mut tx, id).await?;
    }
    tx.commit().await?;
    Ok(deleted)
}

pub(super) async fn count_club_creation<S: SqlStore>(
    store: &S,
    client: &str,
    now: DateTime<Utc>,
    per_window: u32,
) -> Result<Result<(), u64>, StoreError> {
    let window = chrono::Duration::seconds(crate::limits::WINDOW.as_secs() as i64);
    // One statement, so two servers counting the same client at once both count:
    // a finished window starts again at 1, a current one adds 1.
    let _turn = store.write_turn().await;
    let row = query(
        "INSERT INTO club_creation_windows (client, window_start, created) VALUES ($1, $2, 1) \
         ON CONFLICT (client) DO UPDATE SET \
           created = CASE WHEN club_creation_windows.window_start <= $3 THEN 1 \
                          ELSE club_creation_windows.created + 1 END, \
           window_start = CASE WHEN club_creation_windows.window_start <= $3 THEN $2 \
                          ELSE club_creation_windows.window_start END \
         RETURNING window_start, created",
    )
    .bind(client)
    .bind(now)
    .bind(now - window)
    .fetch_one(store.pool())
    .await?;
    let start: DateTime<Utc> = row.try_get("window_start")?;
    let created: i64 = row.try_get("created")?;
    if created > i64::from(per_window) {
        let wait = (start + window - now).num_seconds().max(1);
        return Ok(Err(wait as u64));
    }
    Ok(Ok(()))
}

fn access_token_row(row: &impl Columns) -> Result<AccessTokenRecord, StoreError> {
    Ok(AccessTokenRecord {
        id: row.try_get("id")?,
        club_id: row.try_get("club_id")?,
        name: row.try_get("name")?,
        scope: row.try_get("scope")?,
        game_id: row.try_get("game_id")?,
        secret_hash: row.try_get("secret_hash")?,
        created_at: row.try_get("created_at")?,
        expires_at: row.try_get("expires_at")?,
    })
}

/// Tells the other servers (PostgreSQL `NOTIFY`, delivered at commit) of a revocation
/// ([`REVOCATIONS_CHANNEL`]); SQLite's one server has told its streams itself.
async fn announce_revocation<DB: Backend>(
    tx: &mut sqlx::Transaction<'static, DB>,
    revoked: &str,
) -> Result<(), StoreError> {
    if let Some(notify) = DB::NOTIFY {
        query(notify)
            .bind(REVOCATIONS_CHANNEL)
            .bind(revoked)
            .execute(tx)
            .await?;
    }
    Ok(())
}
