//! The statistics' SQL: the read models' columns, the statements that recompute a player's
//! runs and month snapshots, the locks that order their writers, and the statements written
//! for a filter (a period's conditions, a club's buckets or seats of one game).

use crate::store::lists::{Param, Params};

use super::periods::Range;

/// The columns of a `game_buckets` row that a [`GameSummary`] is read from and written to.
pub(super) const BUCKET_COLUMNS: &str = "plays, results, total_sum, lower_results, \
    lowest_total, lowest_at, lowest_game_id, lowest_seat, \
    highest_total, highest_at, highest_game_id, highest_seat, seat_facts, game_facts";

/// A club's finished seats of one game, as its statistics read them; the caller adds the
/// variant and the period. A finish still noted ([`not_noted`]) is left to its settling.
pub(super) const SEATS_OF_GAME: &str = concat!(
    "SELECT g.id, g.started_at, g.lower_wins, gp.seat, gp.total, gp.facts, \
       CASE WHEN gp.seat = 1 THEN g.facts END AS game_facts \
     FROM games g JOIN game_players gp ON gp.game_id = g.id \
     WHERE g.club_id = $1 AND g.game = $2 AND gp.rank IS NOT NULL AND ",
    not_noted!()
);

/// The condition, on a game `g` of the club `$1`, that its finish is not still noted
/// (`statistics_pending`), as a literal for `concat!`: whatever recomputes the shared sums from
/// the seats leaves a noted finish to its settling, which adds it later ([`super::settle`]). A
/// finish that commits while a recomputation runs is, for each of its statements, either unseen
/// or seen with its note.
macro_rules! not_noted {
    () => {
        "NOT EXISTS (SELECT 1 FROM statistics_pending n WHERE n.club_id = $1 AND n.game_id = g.id)"
    };
}
pub(in crate::store) use not_noted;

/// Removes a player's runs (`$2`: of one game; NULL: of every game) before they are recomputed.
pub(in crate::store) const CLEAR_RUNS: &str =
    "DELETE FROM player_runs WHERE player_id = $1 AND ($2 IS NULL OR game = $2)";

/// A player's runs recomputed from their finished seats (`$1` the club, `$2` the player, `$3`
/// one game or NULL for every game).
pub(in crate::store) const RECOMPUTE_RUNS: &str = concat!(
    "INSERT INTO player_runs \
       (club_id, player_id, game, variant, played_at, game_id, total, rank, lower_wins) \
     SELECT p.club_id, gp.player_id, g.game, g.variant, g.started_at, g.id, gp.total, gp.rank, COALESCE(g.lower_wins, 0) \
     FROM players p JOIN game_players gp ON gp.player_id = p.id JOIN games g ON g.id = gp.game_id \
     WHERE p.id = $2 AND p.club_id = $1 AND ($3 IS NULL OR g.game = $3) AND gp.rank IS NOT NULL AND ",
    not_noted!()
);

/// A period's conditions on `column` (`[start, end)`, either side optional).
pub(super) fn period_conditions(column: &str, (start, end): Range, params: &mut Params) -> String {
    let mut conditions = String::new();
    if let Some(start) = start {
        conditions += &format!(" AND {column} >= {}", params.bind(Param::Time(start)));
    }
    if let Some(end) = end {
        conditions += &format!(" AND {column} < {}", params.bind(Param::Time(end)));
    }
    conditions
}

/// The club's month snapshots (`run_snapshots`) and what a period's leaderboard reads: the sums
/// per player, game and variant of the club's finished games started before `before` (`None`:
/// all of them), negated when `negate`. They are the snapshot of the latest month at or before
/// that instant (the club has one for every month in which a game it finished was started),
/// plus the club's runs from that month's start (`player_runs` by club and time): two index
/// ranges, some thousand rows and at most a month's seats, whatever the club's size. `only`
/// narrows them (`(column, placeholder)` pairs on `game` or `variant`). Columns: `player_id`,
/// `game`, `variant`, `played`, `wins`, `total_sum`, `rank_sum`, `lower_games`.
pub(super) fn sums_before(
    club: &str,
    before: Option<&str>,
    negate: bool,
    only: &[(&str, String)],
) -> String {
    let minus = if negate { "-" } else { "" };
    let (month_bound, run_bound) = match before {
        Some(t) => (
            format!(" AND m.starts_at <= {t}"),
            format!(" AND r.played_at < {t}"),
        ),
        None => (String::new(), String::new()),
    };
    let narrow = |alias: &str| {
        only.iter()
            .map(|(column, value)| format!(" AND {alias}.{column} = {value}"))
            .collect::<String>()
    };
    let month = format!(
        "(SELECT MAX(m.starts_at) FROM run_months m WHERE m.club_id = {club}{month_bound})"
    );
    format!(
        "SELECT s.player_id, s.game, s.variant, {minus}s.played AS played, {minus}s.wins AS wins, \
           {minus}s.total_sum AS total_sum, {minus}s.rank_sum AS rank_sum, {minus}s.lower_games AS lower_games \
         FROM run_snapshots s WHERE s.club_id = {club} AND s.starts_at = {month}{s_only} \
         UNION ALL \
         SELECT r.player_id, r.game, r.variant, {minus}1, {minus}CASE WHEN r.rank = 1 THEN 1 ELSE 0 END, \
           {minus}r.total, {minus}r.rank, {minus}r.lower_wins \
         FROM player_runs r WHERE r.club_id = {club} AND r.played_at >= {month}{run_bound}{r_only}",
        s_only = narrow("s"),
        r_only = narrow("r"),
    )
}

/// The five sums of [`sums_before`]'s rows (`u`), added up by the caller's `GROUP BY`.
pub(super) const SUMMED: &str = "CAST(SUM(u.played) AS BIGINT) AS played, CAST(SUM(u.wins) AS BIGINT) AS wins, \
     CAST(SUM(u.total_sum) AS BIGINT) AS total_sum, CAST(SUM(u.rank_sum) AS BIGINT) AS rank_sum, \
     CAST(SUM(u.lower_games) AS BIGINT) AS lower_games";

/// A month's snapshot, made from the one before it and the runs since (`$1` the club, `$2`
/// the month, not yet in `run_months`).
pub(super) fn snapshot_of_month() -> String {
    format!(
        "INSERT INTO run_snapshots \
           (club_id, starts_at, player_id, game, variant, played, wins, total_sum, rank_sum, lower_games) \
         SELECT $1, $2, u.player_id, u.game, u.variant, {SUMMED} \
         FROM ({}) u GROUP BY u.player_id, u.game, u.variant",
        sums_before("$1", Some("$2"), false, &[])
    )
}

/// The shard of its day's and month's buckets a first finish adds to (of `shards`), picked by
/// its game id (FNV-1a). PostgreSQL holds a row a finish adds to until its commit, so tables
/// of a club finishing the same game at once would otherwise wait on the same two rows. Any
/// shard counts the same: a read adds a bucket's shards up.
pub(super) fn shard_of(game_id: &str, shards: u64) -> i64 {
    let hash = game_id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    i64::try_from(hash % shards).unwrap_or(0)
}

/// The placeholders of `n` buckets' keys after the club and the game (`$1`, `$2`): variant,
/// span, start and shard, four a key.
pub(super) fn bucket_keys(n: usize) -> impl Iterator<Item = String> {
    (0..n).map(|i| {
        let at = 3 + 4 * i;
        format!("${at}, ${}, ${}, ${}", at + 1, at + 2, at + 3)
    })
}

/// Removes a player's month snapshots (`$1` the club, `$2` the player, `$3`: of one game; NULL:
/// of every game) before they are recomputed.
pub(in crate::store) const CLEAR_SNAPSHOTS: &str =
    "DELETE FROM run_snapshots WHERE club_id = $1 AND player_id = $2 AND ($3 IS NULL OR game = $3)";

/// A player's month snapshots recomputed from their runs (the same parameters): for each of the
/// club's months, the player's runs started before it, summed.
pub(in crate::store) const RECOMPUTE_SNAPSHOTS: &str = "INSERT INTO run_snapshots \
       (club_id, starts_at, player_id, game, variant, played, wins, total_sum, rank_sum, lower_games) \
     SELECT m.club_id, m.starts_at, r.player_id, r.game, r.variant, COUNT(*), \
       SUM(CASE WHEN r.rank = 1 THEN 1 ELSE 0 END), SUM(r.total), SUM(r.rank), SUM(r.lower_wins) \
     FROM run_months m JOIN player_runs r ON r.player_id = $2 AND ($3 IS NULL OR r.game = $3) \
       AND r.played_at < m.starts_at \
     WHERE m.club_id = $1 \
     GROUP BY m.club_id, m.starts_at, r.player_id, r.game, r.variant";

/// A club player with their games played and last game, from the leaderboard sums (a
/// `PlayerRow`); the caller adds the `WHERE`.
pub(super) const PLAYER_SELECT: &str = "SELECT p.id, p.name, \
       (SELECT CAST(COALESCE(SUM(t.played), 0) AS BIGINT) FROM player_game_totals t \
        WHERE t.club_id = p.club_id AND t.player_id = p.id) AS games_played, \
       (SELECT MAX(t.last_played) FROM player_game_totals t \
        WHERE t.club_id = p.club_id AND t.player_id = p.id) AS last_played \
     FROM players p";

/// The statement of a club's buckets of one game (and variant; `None`: every variant) in a
/// span and period, by start.
pub(super) fn buckets_query(
    club: &str,
    game: &str,
    variant: Option<&str>,
    span: &str,
    period: Range,
) -> (String, Vec<Param>) {
    let mut params = Params::default();
    let mut sql = format!(
        "SELECT starts_at, {BUCKET_COLUMNS} FROM game_buckets WHERE club_id = {} AND game = {}",
        params.bind(Param::Text(club.to_owned())),
        params.bind(Param::Text(game.to_owned()))
    );
    if let Some(variant) = variant {
        sql += &format!(
            " AND variant = {}",
            params.bind(Param::Text(variant.to_owned()))
        );
    }
    sql += &format!(" AND span = {}", params.bind(Param::Text(span.to_owned())));
    sql += &period_conditions("starts_at", period, &mut params);
    (sql, params.0)
}

/// The statement of a club's finished seats of one game (and variant) in a period.
pub(super) fn seat_summary_query(
    club: &str,
    game: &str,
    variant: Option<&str>,
    period: Range,
) -> (String, Vec<Param>) {
    let mut params = Params::default();
    params.bind(Param::Text(club.to_owned()));
    params.bind(Param::Text(game.to_owned()));
    let mut sql = SEATS_OF_GAME.to_owned();
    if let Some(variant) = variant {
        sql += &format!(
            " AND g.variant = {}",
            params.bind(Param::Text(variant.to_owned()))
        );
    }
    sql += &period_conditions("g.started_at", period, &mut params);
    (sql, params.0)
}
