//! The day and month buckets of the statistics: a bucket is one game, variant, span (a day or
//! a month) and start's summed results, split into shards ([`super::sql::shard_of`]). A writer
//! locks the buckets it adds to and reads them, then writes them back whole.

use chrono::{DateTime, Utc};

use crate::records::GameRecord;
use crate::store::backend::Backend;
use crate::store::columns::Columns;
use crate::store::error::StoreError;
use crate::store::lists::{Param, placeholders};
use crate::store::together::Statement;
use crate::store::writes::{Writing, args};

use super::periods::{day_start, month_start, next_day, next_month};
use super::read::{bucket_row, bucket_rows, summed_seats};
use super::sql::{BUCKET_COLUMNS, bucket_keys, buckets_query, seat_summary_query};
use super::summary::GameSummary;

/// The buckets of these variants, spans and shards ([`buckets_locking`]), locked and read.
pub(super) async fn lock_buckets<W: Writing>(
    w: &mut W,
    club: &str,
    game: &str,
    variants: &[&str],
    spans: &[(&'static str, DateTime<Utc>)],
    shards: &[i64],
) -> Result<Vec<LockedBucket>, StoreError> {
    let (sql, values, keys) = buckets_locking(club, game, variants, spans, shards);
    locked_buckets(&w.fetch_all(&sql, values).await?, keys)
}

/// A bucket's key: variant, span, start and shard.
pub(super) type BucketKey<'a> = (&'a str, &'static str, DateTime<Utc>, i64);

/// A bucket locked and read: span, start, shard, and its sums.
type LockedBucket = (&'static str, DateTime<Utc>, i64, GameSummary);

/// The statement that locks the buckets of these variants, spans and shards, creating empty
/// ones where there are none (an upsert locks a row whether it inserts or finds it; two
/// writers of one bucket then add to it one after the other), and reads them, in the order
/// given (every writer locks variants in order, a day before its month, shards in order);
/// its values, and the keys in that order.
pub(super) fn buckets_locking<'a>(
    club: &str,
    game: &str,
    variants: &[&'a str],
    spans: &[(&'static str, DateTime<Utc>)],
    shards: &[i64],
) -> (String, Vec<Param>, Vec<BucketKey<'a>>) {
    let keys: Vec<BucketKey<'a>> = variants
        .iter()
        .flat_map(|v| {
            spans.iter().flat_map(move |(span, at)| {
                shards.iter().map(move |shard| (*v, *span, *at, *shard))
            })
        })
        .collect();
    keys_locking(club, game, keys)
}

/// [`buckets_locking`] of these keys, in the order given.
pub(super) fn keys_locking<'a>(
    club: &str,
    game: &str,
    keys: Vec<BucketKey<'a>>,
) -> (String, Vec<Param>, Vec<BucketKey<'a>>) {
    let values = bucket_keys(keys.len())
        .map(|key| format!("($1, $2, {key}, 0, 0, 0, 0, '{{}}', '{{}}')"))
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(
        "INSERT INTO game_buckets \
           (club_id, game, variant, span, starts_at, shard, plays, results, total_sum, lower_results, seat_facts, game_facts) \
         VALUES {values} \
         ON CONFLICT (club_id, game, variant, span, starts_at, shard) DO UPDATE SET plays = game_buckets.plays \
         RETURNING variant, span, starts_at, shard, {BUCKET_COLUMNS}"
    );
    let mut values = args![club, game];
    for (variant, span, starts_at, shard) in &keys {
        values.extend(args![*variant, *span, *starts_at, *shard]);
    }
    (sql, values, keys)
}

/// The buckets read by [`buckets_locking`]'s statement, in its keys' order.
pub(super) fn locked_buckets(
    rows: &[impl Columns],
    keys: Vec<BucketKey<'_>>,
) -> Result<Vec<LockedBucket>, StoreError> {
    let mut locked = Vec::with_capacity(keys.len());
    for (variant, span, starts_at, shard) in keys {
        let row = rows
            .iter()
            .find(|row| {
                row.try_get::<String, _>("variant")
                    .is_ok_and(|v| v == variant)
                    && row.try_get::<String, _>("span").is_ok_and(|s| s == span)
                    && row.try_get::<i64, _>("shard").is_ok_and(|s| s == shard)
                    && row
                        .try_get::<DateTime<Utc>, _>("starts_at")
                        .is_ok_and(|at| at == starts_at)
            })
            .ok_or_else(|| {
                StoreError::Corrupt(format!(
                    "bucket {span} {starts_at} {shard} was not returned"
                ))
            })?;
        locked.push((span, starts_at, shard, bucket_row(row)?));
    }
    Ok(locked)
}

/// The writes of bucket shards `(variant, span, starts_at, shard, sums)` whole; one without
/// results is removed. The two statements touch different rows: they may go together.
pub(super) fn bucket_writes(
    club: &str,
    game: &str,
    buckets: &[(String, &'static str, DateTime<Utc>, i64, GameSummary)],
) -> Vec<Statement> {
    let mut statements = Vec::with_capacity(2);
    // A recount empties every shard but 0: one statement for all of them.
    let emptied: Vec<_> = buckets.iter().filter(|b| b.4.results == 0).collect();
    if !emptied.is_empty() {
        let keys = bucket_keys(emptied.len())
            .map(|key| format!("({key})"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut values = args![club, game];
        for (variant, span, starts_at, shard, _) in emptied {
            values.extend(args![variant, *span, *starts_at, *shard]);
        }
        statements.push((
            format!(
                "DELETE FROM game_buckets WHERE club_id = $1 AND game = $2 \
                 AND (variant, span, starts_at, shard) IN (VALUES {keys})"
            ),
            values,
        ));
    }
    let kept: Vec<_> = buckets.iter().filter(|b| b.4.results > 0).collect();
    if kept.is_empty() {
        return statements;
    }
    let columns = 20;
    let update = BUCKET_COLUMNS
        .split(',')
        .map(|c| format!("{0} = excluded.{0}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(
        "INSERT INTO game_buckets (club_id, game, variant, span, starts_at, shard, {BUCKET_COLUMNS}) VALUES {} \
         ON CONFLICT (club_id, game, variant, span, starts_at, shard) DO UPDATE SET {update}",
        placeholders(kept.len(), columns)
    );
    let mut values = Vec::with_capacity(columns * kept.len());
    for (variant, span, starts_at, shard, sum) in kept {
        let lowest = sum.lowest.as_ref();
        let highest = sum.highest.as_ref();
        values.extend(args![
            club,
            game,
            variant,
            *span,
            *starts_at,
            *shard,
            sum.plays,
            sum.results,
            sum.total_sum,
            sum.lower_results,
            lowest.map(|r| r.total),
            lowest.map(|r| r.played_at),
            lowest.map(|r| r.game_id.clone()),
            lowest.map(|r| r.seat),
            highest.map(|r| r.total),
            highest.map(|r| r.played_at),
            highest.map(|r| r.game_id.clone()),
            highest.map(|r| r.seat),
            sum.facts_json(true),
            sum.facts_json(false),
        ]);
    }
    statements.push((sql, values));
    statements
}

/// Sums a game's day and month again from its seats, for the variants its earlier
/// and its new result count in (a correction, a retraction, an abandon): each is
/// written whole to shard 0, its other shards locked and emptied.
pub(super) async fn recompute_buckets<W: Writing>(
    w: &mut W,
    club: &str,
    game: &GameRecord,
    mut variants: Vec<String>,
) -> Result<(), StoreError> {
    variants.sort_unstable();
    variants.dedup();
    let (day, month) = (day_start(game.started_at), month_start(game.started_at));
    let names: Vec<&str> = variants.iter().map(String::as_str).collect();
    let shards: Vec<i64> = (0..W::Db::BUCKET_SHARDS as i64).collect();
    lock_buckets(
        w,
        club,
        &game.game,
        &names,
        &[("day", day), ("month", month)],
        &shards,
    )
    .await?;
    let mut sums = Vec::with_capacity(2 * shards.len() * variants.len());
    for variant in &variants {
        let (sql, params) =
            seat_summary_query(club, &game.game, Some(variant), (Some(day), next_day(day)));
        let day_sum = summed_seats(&w.fetch_all(&sql, params).await?)?;
        // The month: its other days as stored, and this day as it is now.
        let mut month_sum = day_sum.clone();
        let (sql, params) = buckets_query(
            club,
            &game.game,
            Some(variant),
            "day",
            (Some(month), next_month(month)),
        );
        for (at, sum) in bucket_rows(&w.fetch_all(&sql, params).await?)? {
            if at != day {
                month_sum.merge(sum);
            }
        }
        for (span, starts_at, sum) in [("day", day, day_sum), ("month", month, month_sum)] {
            sums.push((variant.clone(), span, starts_at, 0, sum));
            for shard in &shards[1..] {
                sums.push((
                    variant.clone(),
                    span,
                    starts_at,
                    *shard,
                    GameSummary::default(),
                ));
            }
        }
    }
    w.execute_together(bucket_writes(club, &game.game, &sums))
        .await
}
