//! Skill ratings kept with the statistics: each rated seat of a finished game is a point with
//! the player's rating before and after it, the game's points packed in one row of
//! `rated_games` ([`rated_seats`](super::rated_seats)). A change to a game's result
//! only notes the game (`rating_changes`, [`mark_changed`]): appends never wait on each other for
//! the ratings. Before the ratings are read, [`settle`] rates the club's games of that game
//! again from the earliest one noted, in play order (start, then id), so that what is read is
//! always what a rating of the whole history from scratch would give.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use crate::ratings::{Rating, rate};
use crate::store::backend::{Backend, query};
use crate::store::columns::Columns;
use crate::store::error::StoreError;
use crate::store::lists::Param;
use crate::store::sql_store::SqlStore;
use crate::store::together::Statement;
use crate::store::writes::{WriteOn, Writing, args};

use super::rated_seats::{SeatPoint, pack, unpack};
use super::rows::{RatingPoint, RatingRow};

/// Rated games (or current ratings) written by one statement at most.
const ROWS_A_STATEMENT: usize = 400;
/// Players whose last points one statement reads at most.
const PLAYERS_A_STATEMENT: usize = 200;

/// Notes, inside the transaction that changes it, that a game's result changed: its club's
/// ratings of that game are rated again from it before they are next read.
pub(in crate::store) async fn mark_changed<W: Writing>(
    w: &mut W,
    club: &str,
    game: &str,
    played: (DateTime<Utc>, &str),
) -> Result<(), StoreError> {
    let (sql, values) = change_noted(club, game, played);
    w.execute(&sql, values).await
}

/// The statement of [`mark_changed`], to send with others ([`crate::store::together`]).
pub(in crate::store) fn change_noted(
    club: &str,
    game: &str,
    (at, id): (DateTime<Utc>, &str),
) -> Statement {
    (
        "INSERT INTO rating_changes (club_id, game, played_at, game_id) VALUES ($1, $2, $3, $4)"
            .into(),
        args![club, game, at, id],
    )
}

/// Brings the club's ratings of `game` up to date: the games noted as changed are taken, and
/// the games from the earliest of them on are rated again, in one transaction. Nothing to do
/// (the usual case) costs one read.
pub(in crate::store) async fn settle<S: SqlStore>(
    store: &S,
    club: &str,
    game: &str,
) -> Result<(), StoreError> {
    let pending = query("SELECT 1 FROM rating_changes WHERE club_id = $1 AND game = $2 LIMIT 1")
        .bind(club)
        .bind(game)
        .fetch_optional(store.pool())
        .await?;
    if pending.is_none() {
        return Ok(());
    }
    let _turn = store.write_turn().await;
    let mut w = S::Db::writes(store.pool().begin_with(S::Db::BEGIN).await?);
    // Taken first: a change noted after this is left for the next settling.
    if let Some(lock) = S::Db::RATINGS_LOCK {
        w.execute(lock, args![club, game]).await?;
    }
    let taken = w
        .fetch_all(
            "DELETE FROM rating_changes WHERE club_id = $1 AND game = $2 \
             RETURNING played_at, game_id",
            args![club, game],
        )
        .await?;
    let mut earliest: Option<(DateTime<Utc>, String)> = None;
    for row in &taken {
        let change: (DateTime<Utc>, String) = (row.try_get("played_at")?, row.try_get("game_id")?);
        if earliest.as_ref().is_none_or(|e| change < *e) {
            earliest = Some(change);
        }
    }
    if let Some((at, id)) = earliest {
        rerate_from(&mut w, club, game, (at, &id)).await?;
    }
    w.commit().await
}

/// Rates again the club's games of `game` played from `from` on (start, then id): their
/// rows are removed, and every one of those games still finished is rated anew, each player
/// starting from their last point before it. Each player whose rating this can change gets
/// their current rating written again (or removed, when no point of theirs is left).
async fn rerate_from<W: Writing>(
    w: &mut W,
    club: &str,
    game: &str,
    (at, id): (DateTime<Utc>, &str),
) -> Result<(), StoreError> {
    // Whoever played from `at` on: a point of theirs goes.
    let mut players: Vec<String> = Vec::new();
    for row in w
        .fetch_all(
            "SELECT player_id FROM rating_current \
             WHERE club_id = $1 AND game = $2 AND last_played_at >= $3",
            args![club, game, at],
        )
        .await?
    {
        players.push(row.try_get("player_id")?);
    }
    let rows = w
        .fetch_all(
            "SELECT g.id, g.started_at, gp.player_id, gp.rank \
             FROM games g JOIN game_players gp ON gp.game_id = g.id \
             WHERE g.club_id = $1 AND g.game = $2 AND (g.started_at, g.id) >= ($3, $4) \
               AND gp.rank IS NOT NULL \
             ORDER BY g.started_at, g.id, gp.seat",
            args![club, game, at, id],
        )
        .await?;
    let mut seats: Vec<(String, DateTime<Utc>, String, i64)> = Vec::with_capacity(rows.len());
    for row in &rows {
        seats.push((
            row.try_get("id")?,
            row.try_get("started_at")?,
            row.try_get("player_id")?,
            row.try_get("rank")?,
        ));
    }
    drop(rows);
    players.extend(seats.iter().map(|s| s.2.clone()));
    players.sort_unstable();
    players.dedup();
    let mut standing = last_points_before(w, club, game, &players, (at, id)).await?;
    w.execute(
        "DELETE FROM rated_games WHERE club_id = $1 AND game = $2 \
         AND (played_at, game_id) >= ($3, $4)",
        args![club, game, at, id],
    )
    .await?;
    // Each game's points, packed: (game id, played at, points).
    let mut rated: Vec<(&str, DateTime<Utc>, Vec<u8>)> = Vec::new();
    let mut points: Vec<SeatPoint<'_>> = Vec::with_capacity(5);
    for table in seats.chunk_by(|a, b| a.0 == b.0) {
        let before: Vec<(Rating, i64)> = table
            .iter()
            .map(|(_, _, player, rank)| {
                let rating = standing
                    .get(player.as_str())
                    .map_or(Rating::NEW, |s| s.rating);
                (rating, *rank)
            })
            .collect();
        let after = rate(&before);
        points.clear();
        for (((_, played_at, player_id, rank), (before, _)), after) in
            table.iter().zip(&before).zip(after)
        {
            let games = standing.get(player_id.as_str()).map_or(0, |s| s.games) + 1;
            standing.insert(
                player_id,
                Standing {
                    rating: after,
                    games,
                    played_at: *played_at,
                },
            );
            points.push(SeatPoint {
                player_id,
                rank: *rank,
                games,
                before: *before,
                after,
            });
        }
        rated.push((&table[0].0, table[0].1, pack(&points)));
    }
    for chunk in rated.chunks_mut(ROWS_A_STATEMENT) {
        let mut values = Vec::with_capacity(5 * chunk.len());
        for (game_id, played_at, points) in chunk.iter_mut() {
            values.extend(args![
                club,
                game,
                *played_at,
                *game_id,
                std::mem::take(points)
            ]);
        }
        w.execute(
            &format!(
                "INSERT INTO rated_games (club_id, game, played_at, game_id, points) VALUES {}",
                W::Db::values_placeholders(chunk.len(), 5)
            ),
            values,
        )
        .await?;
    }
    write_current(w, club, game, &players, &standing).await
}

/// Writes these players' current ratings from their standing, and removes those of players
/// left without a point.
async fn write_current<W: Writing>(
    w: &mut W,
    club: &str,
    game: &str,
    players: &[String],
    standing: &HashMap<&str, Standing>,
) -> Result<(), StoreError> {
    let (rated, gone): (Vec<&String>, Vec<&String>) = players
        .iter()
        .partition(|p| standing.contains_key(p.as_str()));
    for chunk in rated.chunks(ROWS_A_STATEMENT) {
        let mut values = Vec::with_capacity(8 * chunk.len());
        for player in chunk {
            let s = &standing[player.as_str()];
            values.extend(args![
                club,
                game,
                player.as_str(),
                s.rating.mu,
                s.rating.sigma,
                s.rating.ordinal(),
                s.games,
                s.played_at,
            ]);
        }
        w.execute(
            &format!(
                "INSERT INTO rating_current (club_id, game, player_id, mu, sigma, ordinal, games, \
                 last_played_at) VALUES {} ON CONFLICT (club_id, game, player_id) DO UPDATE SET \
                 mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal, \
                 games = excluded.games, last_played_at = excluded.last_played_at",
                W::Db::values_placeholders(chunk.len(), 8)
            ),
            values,
        )
        .await?;
    }
    for chunk in gone.chunks(PLAYERS_A_STATEMENT) {
        let mut values = args![club, game];
        values.extend(chunk.iter().map(|p| Param::from(p.as_str())));
        let listed = (0..chunk.len())
            .map(|i| format!("${}", i + 3))
            .collect::<Vec<_>>();
        w.execute(
            &format!(
                "DELETE FROM rating_current WHERE club_id = $1 AND game = $2 AND player_id IN ({})",
                listed.join(", ")
            ),
            values,
        )
        .await?;
    }
    Ok(())
}

/// A player's rating after their last point, how many games it counts, and when they last
/// played.
#[derive(Clone, Copy)]
struct Standing {
    rating: Rating,
    games: i64,
    played_at: DateTime<Utc>,
}

/// Rated games one step of a walk back through the club's rated games reads.
const GAMES_A_STEP: i64 = 2048;

/// The last point before `(at, id)` of each of `players` who has one, found by walking the
/// club's rated games of `game` back from there in play order. Who has one is known before the
/// walk: a player's rated games (`rating_current`) less their points from there on; the walk
/// stops once the last of them is found.
async fn last_points_before<'p, W: Writing>(
    w: &mut W,
    club: &str,
    game: &str,
    players: &'p [String],
    (at, id): (DateTime<Utc>, &str),
) -> Result<HashMap<&'p str, Standing>, StoreError> {
    let mut rated: HashMap<String, i64> = HashMap::new();
    for row in w
        .fetch_all(
            "SELECT player_id, games FROM rating_current WHERE club_id = $1 AND game = $2",
            args![club, game],
        )
        .await?
    {
        rated.insert(row.try_get("player_id")?, row.try_get("games")?);
    }
    for row in w
        .fetch_all(
            "SELECT points FROM rated_games \
             WHERE club_id = $1 AND game = $2 AND (played_at, game_id) >= ($3, $4)",
            args![club, game, at, id],
        )
        .await?
    {
        let points: Vec<u8> = row.try_get("points")?;
        for seat in unpack(&points)? {
            if let Some(games) = rated.get_mut(seat.player_id) {
                *games -= 1;
            }
        }
    }
    let mut wanted: HashMap<&str, &'p str> = players
        .iter()
        .filter(|p| rated.get(p.as_str()).is_some_and(|n| *n > 0))
        .map(|p| (p.as_str(), p.as_str()))
        .collect();
    let mut last = HashMap::with_capacity(wanted.len());
    let mut from: (DateTime<Utc>, String) = (at, id.to_owned());
    while !wanted.is_empty() {
        let rows = w
            .fetch_all(
                "SELECT played_at, game_id, points FROM rated_games \
                 WHERE club_id = $1 AND game = $2 AND (played_at, game_id) < ($3, $4) \
                 ORDER BY played_at DESC, game_id DESC LIMIT $5",
                args![club, game, from.0, &from.1, GAMES_A_STEP],
            )
            .await?;
        for row in &rows {
            from = (row.try_get("played_at")?, row.try_get("game_id")?);
            let points: Vec<u8> = row.try_get("points")?;
            for seat in unpack(&points)? {
                let Some(player) = wanted.remove(seat.player_id) else {
                    continue;
                };
                let standing = Standing {
                    rating: seat.after,
                    games: seat.games,
                    played_at: from.0,
                };
                last.insert(player, standing);
            }
        }
        if (rows.len() as i64) < GAMES_A_STEP {
            break;
        }
    }
    Ok(last)
}

/// Rates the games no point covers yet, club by club and game by game, from the earliest of
/// them (what a server does at its first start after the ratings were added), and settles every
/// change noted: a server's start leaves every rating up to date.
pub(in crate::store) async fn rate_unrated<S: SqlStore>(store: &S) -> Result<usize, StoreError> {
    // Per club and game: how many, and the earliest start (its games are rated again from
    // the first of that start, whatever its id).
    let rows = query(
        "SELECT g.club_id, g.game, COUNT(*) AS unrated, MIN(g.started_at) AS earliest FROM games g \
         WHERE EXISTS (SELECT 1 FROM game_players gp WHERE gp.game_id = g.id AND gp.rank IS NOT NULL) \
           AND NOT EXISTS (SELECT 1 FROM rated_games r WHERE r.club_id = g.club_id \
             AND r.game = g.game AND r.played_at = g.started_at AND r.game_id = g.id) \
         GROUP BY g.club_id, g.game",
    )
    .fetch_all(store.pool())
    .await?;
    let mut unrated = 0;
    for row in &rows {
        let (club, game): (String, String) = (row.try_get("club_id")?, row.try_get("game")?);
        let earliest: DateTime<Utc> = row.try_get("earliest")?;
        unrated += usize::try_from(row.try_get::<i64, _>("unrated")?).unwrap_or(0);
        let _turn = store.write_turn().await;
        let mut w = S::Db::writes(store.pool().begin_with(S::Db::BEGIN).await?);
        mark_changed(&mut w, &club, &game, (earliest, "")).await?;
        w.commit().await?;
    }
    let noted = query("SELECT DISTINCT club_id, game FROM rating_changes")
        .fetch_all(store.pool())
        .await?;
    for row in &noted {
        let (club, game): (String, String) = (row.try_get("club_id")?, row.try_get("game")?);
        settle(store, &club, &game).await?;
    }
    Ok(unrated)
}

/// A page of the club's players of `game` ranked by their rating as it stood before `to`
/// (`None`: now), highest ordinal first (then by id): those after `after` (an ordinal and a
/// player id), `limit` at most.
pub(super) async fn ratings<S: SqlStore>(
    store: &S,
    club: &str,
    game: &str,
    to: Option<DateTime<Utc>>,
    after: Option<&(f64, String)>,
    limit: i64,
) -> Result<Vec<RatingRow>, StoreError> {
    let Some(to) = to else {
        // Now: a range of the current ratings, in their order.
        const RANKED: &str = "SELECT p.id, p.name, r.mu, r.sigma, r.games, \
             r.last_played_at AS played_at \
             FROM rating_current r JOIN players p ON p.id = r.player_id AND p.club_id = r.club_id \
             WHERE r.club_id = $1 AND r.game = $2";
        let rows = match after {
            None => query(format!(
                "{RANKED} ORDER BY r.ordinal DESC, r.player_id LIMIT $3"
            ))
            .bind(club)
            .bind(game)
            .bind(limit),
            Some((ordinal, id)) => query(format!(
                "{RANKED} AND (r.ordinal < $3 OR (r.ordinal = $3 AND r.player_id > $4)) \
                 ORDER BY r.ordinal DESC, r.player_id LIMIT $5"
            ))
            .bind(club)
            .bind(game)
            .bind(*ordinal)
            .bind(id)
            .bind(limit),
        }
        .fetch_all(store.pool())
        .await?;
        return rows.iter().map(rating_row).collect();
    };
    // At a date: the current rating of whoever has not played since, and for the others their
    // last point before it (a walk back from the date), all read in one snapshot.
    let mut w = S::Db::writes(store.pool().begin().await?);
    let current = w
        .fetch_all(
            "SELECT p.id, p.name, r.mu, r.sigma, r.games, r.last_played_at AS played_at \
             FROM rating_current r JOIN players p ON p.id = r.player_id AND p.club_id = r.club_id \
             WHERE r.club_id = $1 AND r.game = $2",
            args![club, game],
        )
        .await?
        .iter()
        .map(rating_row)
        .collect::<Result<Vec<_>, _>>()?;
    let since: Vec<String> = current
        .iter()
        .filter(|r| r.last_played_at >= to)
        .map(|r| r.player_id.clone())
        .collect();
    let before = last_points_before(&mut w, club, game, &since, (to, "")).await?;
    w.commit().await?;
    let mut rows: Vec<RatingRow> = current
        .into_iter()
        .filter_map(|row| {
            if row.last_played_at < to {
                return Some(row);
            }
            let then = before.get(row.player_id.as_str())?;
            Some(RatingRow {
                rating: then.rating,
                games: then.games,
                last_played_at: then.played_at,
                ..row
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        b.rating
            .ordinal()
            .total_cmp(&a.rating.ordinal())
            .then_with(|| a.player_id.cmp(&b.player_id))
    });
    if let Some((ordinal, id)) = after {
        rows.retain(|r| {
            let o = r.rating.ordinal();
            o < *ordinal || (o == *ordinal && r.player_id > *id)
        });
    }
    rows.truncate(usize::try_from(limit).unwrap_or(0));
    Ok(rows)
}

fn rating_row(row: &impl Columns) -> Result<RatingRow, StoreError> {
    Ok(RatingRow {
        player_id: row.try_get("id")?,
        name: row.try_get("name")?,
        rating: Rating {
            mu: row.try_get("mu")?,
            sigma: row.try_get("sigma")?,
        },
        games: row.try_get("games")?,
        last_played_at: row.try_get("played_at")?,
    })
}

/// A player's rated games of one game (`$1` the club, `$2` the game, `$3` the player), found
/// from their seats: the seats first (SQLite keeps a CROSS JOIN's order), then each seat's game
/// and rated game by their keys. (The rated game's key names the club and the game: asked of
/// the game too, SQLite would walk the club's games by them instead of taking the one by its id.)
const PLAYER_GAMES: &str = "FROM game_players gp CROSS JOIN games g CROSS JOIN rated_games r \
     WHERE gp.player_id = $3 AND g.id = gp.game_id \
       AND r.club_id = $1 AND r.game = $2 AND r.played_at = g.started_at AND r.game_id = g.id";

/// A player's points of `game` in play order, after the point of game `after` (a page).
pub(super) async fn player_ratings<S: SqlStore>(
    store: &S,
    club: &str,
    player: &str,
    game: &str,
    after: Option<&(DateTime<Utc>, String)>,
    limit: i64,
) -> Result<Vec<RatingPoint>, StoreError> {
    let rows = query(format!(
        "SELECT r.game_id, r.played_at, r.points \
         {PLAYER_GAMES} AND ($4 IS NULL OR (g.started_at, g.id) > ($4, $5)) \
         ORDER BY g.started_at, g.id LIMIT $6"
    ))
    .bind(club)
    .bind(game)
    .bind(player)
    .bind(after.map(|a| a.0))
    .bind(after.map(|a| a.1.clone()))
    .bind(limit)
    .fetch_all(store.pool())
    .await?;
    let mut points = Vec::with_capacity(rows.len());
    for row in &rows {
        points.extend(
            rated_game(row)?
                .into_iter()
                .filter_map(|(id, point)| (id == player).then_some(point)),
        );
    }
    Ok(points)
}

/// The points of one game, by player id: what it changed.
pub(super) async fn game_points<S: SqlStore>(
    store: &S,
    club: &str,
    game: &str,
    (at, id): (DateTime<Utc>, &str),
) -> Result<Vec<(String, RatingPoint)>, StoreError> {
    let row = query(
        "SELECT game_id, played_at, points FROM rated_games \
         WHERE club_id = $1 AND game = $2 AND played_at = $3 AND game_id = $4",
    )
    .bind(club)
    .bind(game)
    .bind(at)
    .bind(id)
    .fetch_optional(store.pool())
    .await?;
    row.as_ref().map_or(Ok(Vec::new()), rated_game)
}

/// These players' ratings of `game` as they stood before the game `(at, id)` was played.
pub(super) async fn ratings_before<S: SqlStore>(
    store: &S,
    club: &str,
    game: &str,
    (at, id): (DateTime<Utc>, &str),
    players: &[String],
) -> Result<HashMap<String, Rating>, StoreError> {
    let mut found = HashMap::with_capacity(players.len());
    for player in players {
        let row = query(format!(
            "SELECT r.game_id, r.played_at, r.points {PLAYER_GAMES} \
             AND (g.started_at, g.id) < ($4, $5) \
             ORDER BY g.started_at DESC, g.id DESC LIMIT 1"
        ))
        .bind(club)
        .bind(game)
        .bind(player)
        .bind(at)
        .bind(id)
        .fetch_optional(store.pool())
        .await?;
        if let Some(row) = row
            && let Some((_, point)) = rated_game(&row)?.into_iter().find(|(p, _)| p == player)
        {
            found.insert(player.clone(), point.after);
        }
    }
    Ok(found)
}

/// A rated game's row (`game_id`, `played_at`, `points`) as each seat's player and point.
fn rated_game(row: &impl Columns) -> Result<Vec<(String, RatingPoint)>, StoreError> {
    let game_id: String = row.try_get("game_id")?;
    let played_at: DateTime<Utc> = row.try_get("played_at")?;
    let points: Vec<u8> = row.try_get("points")?;
    Ok(unpack(&points)?
        .into_iter()
        .map(|seat| {
            let point = RatingPoint {
                game_id: game_id.clone(),
                played_at,
                rank: seat.rank,
                before: seat.before,
                after: seat.after,
            };
            (seat.player_id.to_owned(), point)
        })
        .collect())
}
