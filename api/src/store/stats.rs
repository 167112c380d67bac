//! The statistics read models: written with the append that changes a game's result, read by
//! the statistics endpoints. Same SQL on both databases, instantiated by `stats_store!`.
//!
//! A finished game's results and facts live on its seats (`game_players.total`, `rank`,
//! `facts`) and its row (`games.facts`); `player_game_totals` sums them per player and game for
//! the leaderboard. Queries about one player start from the player's row (`players.id`, which
//! also scopes them to the club): both planners then walk that player's seats and look their
//! games up, instead of walking the club's games — which SQLite, without table statistics,
//! chose for a join written from the seats (100 times slower at 100,000 games).

use std::collections::BTreeMap;

use tabletally_domain::setup::name_key;

use async_trait::async_trait;
use chrono::{DateTime, Datelike, Days, Months, NaiveTime, Utc};
use sqlx::Row;

use super::lists::{Param, Params, bind_params, placeholders};
use super::sql::{PostgresStore, SqliteStore};
use super::writes::{Writes, args};
use super::{GameRecord, GameResult, PlayerResult, SeatRecord, StoreError};

/// Date and game filters shared by the statistics queries.
#[derive(Debug, Clone, Default)]
pub struct StatsFilter {
    pub game: Option<String>,
    /// The variant's games only (`""`: the published rules); `None`: every variant.
    pub variant: Option<String>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
}

impl StatsFilter {
    fn has_dates(&self) -> bool {
        self.from.is_some() || self.to.is_some()
    }
}

/// A club player and how many finished games they played.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerRow {
    pub id: String,
    pub name: String,
    pub games_played: i64,
    pub last_played: Option<DateTime<Utc>>,
}

/// One player's result in one finished game.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRecord {
    pub game_id: String,
    pub game: String,
    pub played_at: DateTime<Utc>,
    pub total: i64,
    pub rank: i64,
    pub won: bool,
    /// The variant the game counts in (`""`: the published rules).
    pub variant: String,
    /// The game's scoreboard said the lowest total won.
    pub lower_wins: bool,
}

/// A player's sums for the leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaderRow {
    pub player_id: String,
    pub name: String,
    pub played: i64,
    pub wins: i64,
    pub total_sum: i64,
    pub rank_sum: i64,
    /// In every game counted, the lowest total won.
    pub lower_wins: bool,
}

/// A finished game two players both played.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadToHeadRow {
    pub game_id: String,
    pub game: String,
    /// The variant counted apart (`""`: the published rules).
    pub variant: String,
    pub played_at: DateTime<Utc>,
    pub rank_a: i64,
    pub rank_b: i64,
}

/// A game the player sat at, with their result once it is finished.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerGameRow {
    pub game_id: String,
    pub game: String,
    pub status: String,
    pub started_at: DateTime<Utc>,
    pub seat: i64,
    pub name: String,
    pub total: Option<i64>,
    pub rank: Option<i64>,
    pub won: Option<bool>,
    /// The game's effective options: they say which variant it plays.
    pub options: serde_json::Value,
}

/// A fact summed over games: `per_player` facts are about one player each.
#[derive(Debug, Clone, PartialEq)]
pub struct FactTotal {
    pub key: String,
    pub per_player: bool,
    pub sum: i64,
    pub count: i64,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct GameStatsRows {
    pub plays: i64,
    pub results: i64,
    pub total_sum: i64,
    /// `(total, player name, game id)` of the lowest and the highest total.
    pub lowest: Option<(i64, String, String)>,
    pub highest: Option<(i64, String, String)>,
    pub facts: Vec<FactTotal>,
    /// In every game counted, the lowest total won (`None` without a finished game).
    pub lower_wins: Option<bool>,
}

#[async_trait]
pub trait StatsStore: Send + Sync {
    /// The club's players by name, `search` matching part of the name (ignoring case).
    async fn list_players(
        &self,
        club: &str,
        search: Option<&str>,
        after_name: Option<&str>,
        limit: i64,
    ) -> Result<Vec<PlayerRow>, StoreError>;

    async fn player(&self, club: &str, id: &str) -> Result<Option<PlayerRow>, StoreError>;

    /// The club player with this name, by the one name rule (`setup::name_key`).
    async fn player_named(&self, club: &str, name: &str) -> Result<Option<PlayerRow>, StoreError>;

    /// A player's results, oldest first.
    async fn results_of_player(
        &self,
        club: &str,
        player: &str,
        filter: &StatsFilter,
    ) -> Result<Vec<ResultRecord>, StoreError>;

    async fn leaderboard(
        &self,
        club: &str,
        filter: &StatsFilter,
    ) -> Result<Vec<LeaderRow>, StoreError>;

    async fn head_to_head(
        &self,
        club: &str,
        a: &str,
        b: &str,
        filter: &StatsFilter,
    ) -> Result<Vec<HeadToHeadRow>, StoreError>;

    async fn game_stats(
        &self,
        club: &str,
        game: &str,
        filter: &StatsFilter,
    ) -> Result<GameStatsRows, StoreError>;

    /// Games the player sat at, newest first, after the `(started_at, id)` cursor.
    async fn player_games(
        &self,
        club: &str,
        player: &str,
        after: Option<&(DateTime<Utc>, String)>,
        limit: i64,
    ) -> Result<Vec<PlayerGameRow>, StoreError>;

    /// Every game, `(club id, game id)` in play order (start, then id) from after the game `after`,
    /// for a rebuild.
    async fn game_ids(
        &self,
        after: Option<&str>,
        limit: i64,
    ) -> Result<Vec<(String, String)>, StoreError>;

    /// Empties the read models (the start of a rebuild).
    async fn clear_statistics(&self) -> Result<(), StoreError>;

    /// Replaces one game's part of the read models in its own transaction (a rebuild).
    async fn replace_result(
        &self,
        club: &str,
        game: &GameRecord,
        result: Option<&GameResult>,
    ) -> Result<(), StoreError>;
}

/// One finished seat of a game, as read for the game's statistics.
struct SeatResult {
    game_id: String,
    /// Every game has a seat 1: it counts the game once.
    seat: i64,
    played_at: DateTime<Utc>,
    total: i64,
    /// The game's scoreboard said the lowest total won.
    lower_wins: bool,
    /// The seat's facts, `{"key": value}`.
    facts: Option<String>,
    /// The whole game's facts, given with one seat of each game only.
    game_facts: Option<String>,
}

/// The lowest or highest total: the earliest such result (then by game id and seat) holds
/// the record, so both databases name the same holder whatever order they read rows in, and
/// sums of days and months name the same holder as the seats they sum. The holder is the
/// player in that seat now (a merge of players moves seats).
#[derive(Debug, Clone, PartialEq)]
struct Record {
    total: i64,
    played_at: DateTime<Utc>,
    game_id: String,
    seat: i64,
}

impl Record {
    /// Who holds the record first: the earlier game, then the lower game id, then seat.
    fn earlier_than(&self, other: &Record) -> bool {
        (self.played_at, &self.game_id, self.seat) < (other.played_at, &other.game_id, other.seat)
    }
}

/// Finished seats summed: a game's statistics over a period, and what a day's or a month's
/// games amount to (a row of `game_buckets`). Sums of sums are the same as the sum of the
/// seats, so a period reads whole months and days and adds the seats of its partial days.
#[derive(Debug, Clone, Default, PartialEq)]
struct GameSummary {
    plays: i64,
    results: i64,
    total_sum: i64,
    /// Seats of games the lowest total won.
    lower_results: i64,
    lowest: Option<Record>,
    highest: Option<Record>,
    /// `(key, per_player) → (sum, count)`.
    facts: BTreeMap<(String, bool), (i64, i64)>,
}

impl GameSummary {
    fn add(&mut self, seat: SeatResult) -> Result<(), StoreError> {
        if seat.seat == 1 {
            self.plays += 1;
        }
        self.results += 1;
        self.total_sum += seat.total;
        self.lower_results += i64::from(seat.lower_wins);
        if let Some(game_facts) = &seat.game_facts {
            self.add_facts(game_facts, false)?;
        }
        if let Some(facts) = &seat.facts {
            self.add_facts(facts, true)?;
        }
        let record = Record {
            total: seat.total,
            played_at: seat.played_at,
            game_id: seat.game_id,
            seat: seat.seat,
        };
        self.keep_records(Some(record.clone()), Some(record));
        Ok(())
    }

    /// Adds another summary's seats to this one.
    fn merge(&mut self, other: GameSummary) {
        self.plays += other.plays;
        self.results += other.results;
        self.total_sum += other.total_sum;
        self.lower_results += other.lower_results;
        for (key, (sum, count)) in other.facts {
            let entry = self.facts.entry(key).or_default();
            entry.0 += sum;
            entry.1 += count;
        }
        self.keep_records(other.lowest, other.highest);
    }

    fn keep_records(&mut self, lowest: Option<Record>, highest: Option<Record>) {
        if let Some(this) = lowest
            && self.lowest.as_ref().is_none_or(|r| {
                this.total < r.total || (this.total == r.total && this.earlier_than(r))
            })
        {
            self.lowest = Some(this);
        }
        if let Some(this) = highest
            && self.highest.as_ref().is_none_or(|r| {
                this.total > r.total || (this.total == r.total && this.earlier_than(r))
            })
        {
            self.highest = Some(this);
        }
    }

    fn add_facts(&mut self, object: &str, per_player: bool) -> Result<(), StoreError> {
        let facts: BTreeMap<String, i64> = serde_json::from_str(object)
            .map_err(|e| StoreError::Corrupt(format!("game facts: {e}")))?;
        for (key, value) in facts {
            let entry = self.facts.entry((key, per_player)).or_default();
            entry.0 += value;
            entry.1 += 1;
        }
        Ok(())
    }

    /// In every seat counted, the lowest total won (`None` without a finished game).
    fn lower_wins(&self) -> Option<bool> {
        (self.results > 0).then_some(self.lower_results == self.results)
    }

    /// The facts by key, sorted.
    fn facts(&self) -> Vec<FactTotal> {
        self.facts
            .iter()
            .map(|((key, per_player), (sum, count))| FactTotal {
                key: key.clone(),
                per_player: *per_player,
                sum: *sum,
                count: *count,
            })
            .collect()
    }

    /// The seats' (`per_player`) or the whole games' facts as a bucket stores them:
    /// `{"key": [sum, count]}`.
    fn facts_json(&self, per_player: bool) -> String {
        let facts: BTreeMap<&str, (i64, i64)> = self
            .facts
            .iter()
            .filter(|((_, of_seat), _)| *of_seat == per_player)
            .map(|((key, _), sums)| (key.as_str(), *sums))
            .collect();
        serde_json::to_string(&facts).expect("a map of numbers is JSON")
    }

    fn add_facts_json(&mut self, object: &str, per_player: bool) -> Result<(), StoreError> {
        let facts: BTreeMap<String, (i64, i64)> = serde_json::from_str(object)
            .map_err(|e| StoreError::Corrupt(format!("summed facts: {e}")))?;
        for (key, (sum, count)) in facts {
            let entry = self.facts.entry((key, per_player)).or_default();
            entry.0 += sum;
            entry.1 += count;
        }
        Ok(())
    }
}

/// `[start, end)`; `None`: unbounded on that side.
type Range = (Option<DateTime<Utc>>, Option<DateTime<Utc>>);

/// How a period (`from` inclusive, `to` exclusive, any instants) is read: whole UTC months
/// from the month buckets, whole UTC days at its edges from the day buckets, and the games of
/// the partial days at its very edges (at most two, or one stretch shorter than two days) from
/// their seats. A period of years thus reads some 70 months, up to 60 days and a few hundred
/// seats, never every game in it.
#[derive(Debug, Default, PartialEq)]
struct Period {
    months: Option<Range>,
    days: Vec<Range>,
    seats: Vec<Range>,
}

fn day_start(t: DateTime<Utc>) -> DateTime<Utc> {
    t.date_naive().and_time(NaiveTime::MIN).and_utc()
}

fn month_start(t: DateTime<Utc>) -> DateTime<Utc> {
    let first = t
        .date_naive()
        .with_day(1)
        .expect("every month has a first day");
    first.and_time(NaiveTime::MIN).and_utc()
}

fn next_day(t: DateTime<Utc>) -> Option<DateTime<Utc>> {
    t.checked_add_days(Days::new(1))
}

fn next_month(t: DateTime<Utc>) -> Option<DateTime<Utc>> {
    t.checked_add_months(Months::new(1))
}

/// The first start of a span at or after `t` (`None` past the calendar's end).
fn ceil(
    t: DateTime<Utc>,
    start: fn(DateTime<Utc>) -> DateTime<Utc>,
    next: fn(DateTime<Utc>) -> Option<DateTime<Utc>>,
) -> Option<DateTime<Utc>> {
    let floor = start(t);
    if floor == t { Some(t) } else { next(floor) }
}

impl Period {
    fn split(from: Option<DateTime<Utc>>, to: Option<DateTime<Utc>>) -> Period {
        let mut period = Period::default();
        if let (Some(from), Some(to)) = (from, to)
            && from >= to
        {
            return period;
        }
        // Whole days: [first_day, end_day); `None` is unbounded, unless the calendar ends.
        let first_day = match from {
            Some(from) => match ceil(from, day_start, next_day) {
                Some(day) => Some(day),
                None => {
                    period.seats.push((Some(from), to));
                    return period;
                }
            },
            None => None,
        };
        let end_day = to.map(day_start);
        if let (Some(first), Some(end)) = (first_day, end_day)
            && first >= end
        {
            period.seats.push((from, to));
            return period;
        }
        if let (Some(from), Some(first)) = (from, first_day)
            && from < first
        {
            period.seats.push((Some(from), Some(first)));
        }
        if let (Some(end), Some(to)) = (end_day, to)
            && end < to
        {
            period.seats.push((Some(end), Some(to)));
        }
        let first_month = match first_day {
            Some(day) => match ceil(day, month_start, next_month) {
                Some(month) => Some(month),
                None => {
                    period.days.push((Some(day), end_day));
                    return period;
                }
            },
            None => None,
        };
        let end_month = end_day.map(month_start);
        if let (Some(first), Some(end)) = (first_month, end_month)
            && first >= end
        {
            period.days.push((first_day, end_day));
            return period;
        }
        period.months = Some((first_month, end_month));
        if let (Some(day), Some(month)) = (first_day, first_month)
            && day < month
        {
            period.days.push((Some(day), Some(month)));
        }
        if let (Some(month), Some(day)) = (end_month, end_day)
            && month < day
        {
            period.days.push((Some(month), Some(day)));
        }
        period
    }
}

/// A finished game's facts as stored: a `{"key": value}` object per seat (on its seat row) and
/// one for the facts about the whole game (on the game's row).
struct FactsBySeat {
    seats: BTreeMap<i64, BTreeMap<String, i64>>,
    whole_game: BTreeMap<String, i64>,
}

impl FactsBySeat {
    fn new(game: &GameRecord, result: &GameResult) -> Result<Self, StoreError> {
        let mut facts = FactsBySeat {
            seats: BTreeMap::new(),
            whole_game: BTreeMap::new(),
        };
        for (player, key, value) in &result.facts {
            let object = match player {
                None => &mut facts.whole_game,
                Some(id) => {
                    let seat = game
                        .players
                        .iter()
                        .find(|s| &s.player_id == id)
                        .ok_or_else(|| {
                            StoreError::Corrupt(format!(
                                "a fact names player {id}, who is not seated"
                            ))
                        })?;
                    facts.seats.entry(seat.seat).or_default()
                }
            };
            *object.entry(key.clone()).or_default() += value;
        }
        Ok(facts)
    }

    fn json(object: &BTreeMap<String, i64>) -> Option<String> {
        (!object.is_empty())
            .then(|| serde_json::to_string(object).expect("a map of numbers is JSON"))
    }

    fn of_seat(&self, seat: i64) -> Option<String> {
        self.seats.get(&seat).and_then(Self::json)
    }

    fn whole_game(&self) -> Option<String> {
        Self::json(&self.whole_game)
    }
}

/// The columns of a `game_buckets` row that a [`GameSummary`] is read from and written to.
const BUCKET_COLUMNS: &str = "plays, results, total_sum, lower_results, \
    lowest_total, lowest_at, lowest_game_id, lowest_seat, \
    highest_total, highest_at, highest_game_id, highest_seat, seat_facts, game_facts";

/// A club's finished seats of one game, as its statistics read them; the caller adds the
/// variant and the period.
const SEATS_OF_GAME: &str = "SELECT g.id, g.started_at, g.lower_wins, gp.seat, gp.total, gp.facts, \
       CASE WHEN gp.seat = 1 THEN g.facts END AS game_facts \
     FROM games g JOIN game_players gp ON gp.game_id = g.id \
     WHERE g.club_id = $1 AND g.game = $2 AND gp.rank IS NOT NULL";

/// Removes a player's runs (`$2`: of one game; NULL: of every game) before they are recomputed.
pub(super) const CLEAR_RUNS: &str =
    "DELETE FROM player_runs WHERE player_id = $1 AND ($2 IS NULL OR game = $2)";

/// A player's runs recomputed from their finished seats (`$1` the club, `$2` the player, `$3`
/// one game or NULL for every game), each with its running sums in play order.
pub(super) const RECOMPUTE_RUNS: &str = "INSERT INTO player_runs \
       (club_id, player_id, game, variant, played_at, game_id, total, rank, lower_wins, \
        played, wins, total_sum, rank_sum, lower_games) \
     SELECT p.club_id, gp.player_id, g.game, g.variant, g.started_at, g.id, gp.total, gp.rank, COALESCE(g.lower_wins, 0), \
       COUNT(*) OVER w, SUM(CASE WHEN gp.rank = 1 THEN 1 ELSE 0 END) OVER w, SUM(gp.total) OVER w, \
       SUM(gp.rank) OVER w, SUM(COALESCE(g.lower_wins, 0)) OVER w \
     FROM players p JOIN game_players gp ON gp.player_id = p.id JOIN games g ON g.id = gp.game_id \
     WHERE p.id = $2 AND p.club_id = $1 AND ($3 IS NULL OR g.game = $3) AND gp.rank IS NOT NULL \
     WINDOW w AS (PARTITION BY g.game, g.variant ORDER BY g.started_at, g.id ROWS UNBOUNDED PRECEDING)";

/// A period's conditions on `column` (`[start, end)`, either side optional).
fn period_conditions(column: &str, (start, end): Range, params: &mut Params) -> String {
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
fn sums_before(club: &str, before: Option<&str>, negate: bool, only: &[(&str, String)]) -> String {
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
const SUMMED: &str = "CAST(SUM(u.played) AS BIGINT) AS played, CAST(SUM(u.wins) AS BIGINT) AS wins, \
     CAST(SUM(u.total_sum) AS BIGINT) AS total_sum, CAST(SUM(u.rank_sum) AS BIGINT) AS rank_sum, \
     CAST(SUM(u.lower_games) AS BIGINT) AS lower_games";

/// A month's snapshot, made from the one before it and the runs since (`$1` the club, `$2`
/// the month, not yet in `run_months`).
fn snapshot_of_month() -> String {
    format!(
        "INSERT INTO run_snapshots \
           (club_id, starts_at, player_id, game, variant, played, wins, total_sum, rank_sum, lower_games) \
         SELECT $1, $2, u.player_id, u.game, u.variant, {SUMMED} \
         FROM ({}) u GROUP BY u.player_id, u.game, u.variant",
        sums_before("$1", Some("$2"), false, &[])
    )
}

/// A finished game's players as `VALUES` rows from parameter `$first` on, four a player (id,
/// total, rank, won), and those parameters in the same order.
fn player_rows(players: &[&PlayerResult], first: usize) -> (String, Vec<Param>) {
    let rows = (0..players.len())
        .map(|i| {
            let at = first + 4 * i;
            format!("(${at}, ${}, ${}, ${})", at + 1, at + 2, at + 3)
        })
        .collect::<Vec<_>>()
        .join(", ");
    let mut values = Vec::with_capacity(4 * players.len());
    for p in players {
        values.extend(args![&p.player_id, p.total, p.rank, i64::from(p.won)]);
    }
    (rows, values)
}

/// PostgreSQL: the club's month snapshots, alone for one transaction (`$1` the club): taken by a
/// correction and a merge, which recompute snapshots; see `lock_snapshots`. A first finish
/// takes it through [`SNAPSHOTS_LOCK_TO_ADD`].
pub(super) const SNAPSHOTS_LOCK: &str = "SELECT pg_advisory_xact_lock(7461627, hashtext($1))";

/// PostgreSQL: the same lock for a first finish (`$1` the club, `$2` its game's month), shared
/// when that month has its snapshot already, as it has for nearly every finish. Such finishes
/// only add their seats to later months' snapshots, which they can do side by side (their
/// players' rows are locked). One that makes its month's snapshot takes the lock alone, so that
/// no finish it cannot see is still adding seats. A month once listed stays listed, so what the
/// check found before the lock still holds after it (a rebuild, too, keeps the months listed).
pub(super) const SNAPSHOTS_LOCK_TO_ADD: &str = "SELECT CASE \
       WHEN EXISTS (SELECT 1 FROM run_months WHERE club_id = $1 AND starts_at = $2) \
       THEN pg_advisory_xact_lock_shared(7461627, hashtext($1)) \
       ELSE pg_advisory_xact_lock(7461627, hashtext($1)) END";

/// The shard of its day's and month's buckets a first finish adds to (of `shards`), picked by
/// its game id (FNV-1a). PostgreSQL holds a row a finish adds to until its commit, so tables
/// of a club finishing the same game at once would otherwise wait on the same two rows. Any
/// shard counts the same: a read adds a bucket's shards up.
fn shard_of(game_id: &str, shards: u64) -> i64 {
    let hash = game_id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    i64::try_from(hash % shards).unwrap_or(0)
}

/// The placeholders of `n` buckets' keys after the club and the game (`$1`, `$2`): variant,
/// span, start and shard, four a key.
fn bucket_keys(n: usize) -> impl Iterator<Item = String> {
    (0..n).map(|i| {
        let at = 3 + 4 * i;
        format!("${at}, ${}, ${}, ${}", at + 1, at + 2, at + 3)
    })
}

/// Removes a player's month snapshots (`$1` the club, `$2` the player, `$3`: of one game; NULL:
/// of every game) before they are recomputed.
pub(super) const CLEAR_SNAPSHOTS: &str =
    "DELETE FROM run_snapshots WHERE club_id = $1 AND player_id = $2 AND ($3 IS NULL OR game = $3)";

/// A player's month snapshots recomputed from their runs (the same parameters): for each of the
/// club's months, the player's runs started before it, summed.
pub(super) const RECOMPUTE_SNAPSHOTS: &str = "INSERT INTO run_snapshots \
       (club_id, starts_at, player_id, game, variant, played, wins, total_sum, rank_sum, lower_games) \
     SELECT m.club_id, m.starts_at, r.player_id, r.game, r.variant, COUNT(*), \
       SUM(CASE WHEN r.rank = 1 THEN 1 ELSE 0 END), SUM(r.total), SUM(r.rank), SUM(r.lower_wins) \
     FROM run_months m JOIN player_runs r ON r.player_id = $2 AND ($3 IS NULL OR r.game = $3) \
       AND r.played_at < m.starts_at \
     WHERE m.club_id = $1 \
     GROUP BY m.club_id, m.starts_at, r.player_id, r.game, r.variant";

/// A club player with their games played and last game, from the leaderboard sums (a
/// `PlayerRow`); the caller adds the `WHERE`.
macro_rules! player_select {
    () => {
        "SELECT p.id, p.name, \
           (SELECT CAST(COALESCE(SUM(t.played), 0) AS BIGINT) FROM player_game_totals t \
            WHERE t.club_id = p.club_id AND t.player_id = p.id) AS games_played, \
           (SELECT MAX(t.last_played) FROM player_game_totals t \
            WHERE t.club_id = p.club_id AND t.player_id = p.id) AS last_played \
         FROM players p"
    };
}

/// The game and its result with each seat's player as stored now (`now_seated`: seat → player
/// id), where a merge moved one since the game was held.
fn reseated(
    game: &GameRecord,
    result: Option<&GameResult>,
    now_seated: &BTreeMap<i64, String>,
) -> (GameRecord, Option<GameResult>) {
    let mut game = game.clone();
    let mut moved: BTreeMap<String, String> = BTreeMap::new();
    for seat in &mut game.players {
        if let Some(now) = now_seated.get(&seat.seat)
            && *now != seat.player_id
        {
            moved.insert(
                std::mem::replace(&mut seat.player_id, now.clone()),
                now.clone(),
            );
        }
    }
    let mut result = result.cloned();
    if let Some(result) = result.as_mut().filter(|_| !moved.is_empty()) {
        for player in &mut result.players {
            if let Some(now) = moved.get(&player.player_id) {
                player.player_id = now.clone();
            }
        }
        for (player, _, _) in &mut result.facts {
            if let Some(now) = player.as_ref().and_then(|id| moved.get(id)) {
                *player = Some(now.clone());
            }
        }
    }
    (game, result)
}

/// The statement of a club's buckets of one game (and variant; `None`: every variant) in a
/// span and period, by start.
fn buckets_query(
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
fn seat_summary_query(
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

macro_rules! stats_store {
    ($store:ident, $db:ty, begin = $begin:literal, lock_players = $lock_players:literal, lock_club = $lock_club:expr,
     lock_club_to_add = $lock_club_to_add:expr, bucket_shards = $bucket_shards:expr, json_rows = $json_rows:literal) => {
        impl $store {
            /// Rewrites one game's part of the read models inside the caller's transaction: the
            /// results and facts on its seats and its row, and its players' leaderboard sums.
            pub(super) async fn write_result(
                w: &mut Writes<'_, $db>,
                club: &str,
                game: &GameRecord,
                was_finished: bool,
                result: Option<&GameResult>,
            ) -> Result<(), StoreError> {
                // The seats' players as stored: a merge may have moved a seat to another player
                // since this game's state was held (a merge changes no game's version). On
                // PostgreSQL the seats stay locked, so no merge moves them before the commit.
                let seated = w
                    .fetch_all(&format!("SELECT seat, player_id FROM game_players WHERE game_id = $1 {}", $lock_players), args![&game.id])
                    .await?;
                let mut now_seated = BTreeMap::new();
                for row in &seated {
                    now_seated.insert(row.try_get::<i64, _>("seat")?, row.try_get::<String, _>("player_id")?);
                }
                let (game, result) = reseated(game, result, &now_seated);
                let (game, result) = (&game, result.as_ref());
                // Two games with the same players may finish at once: their players' sums and
                // runs are written one writer at a time (PostgreSQL: row locks taken in id order,
                // so no deadlock; NO KEY UPDATE leaves the foreign-key checks of concurrent game
                // creations unblocked; SQLite: the database write lock already serialises appends).
                // A first finish takes them too: its runs continue the player's previous run,
                // which a concurrent finish of the same player must have committed.
                if !$lock_players.is_empty() && !game.players.is_empty() {
                    let mut ids: Vec<&str> = game.players.iter().map(|p| p.player_id.as_str()).collect();
                    ids.sort_unstable();
                    let list = (1..=ids.len()).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ");
                    let sql = format!("SELECT id FROM players WHERE id IN ({list}) ORDER BY id {}", $lock_players);
                    w.fetch_all(&sql, ids.into_iter().map(Param::from).collect()).await?;
                }
                // A game that was finished may hold an earlier result: clear it (a first finish
                // skips this: on PostgreSQL every statement is a round trip).
                let mut had_result = false;
                if was_finished {
                    let cleared = w
                        .fetch_all(
                            "UPDATE game_players SET total = NULL, rank = NULL, facts = NULL \
                             WHERE game_id = $1 AND rank IS NOT NULL RETURNING seat",
                            args![&game.id],
                        )
                        .await?;
                    had_result = !cleared.is_empty();
                    w.execute("UPDATE games SET facts = NULL WHERE id = $1 AND facts IS NOT NULL", args![&game.id]).await?;
                }
                // The variant the earlier result counted in: its day and month are summed again.
                let mut variants: Vec<String> = result.map(|r| r.variant.clone().unwrap_or_default()).into_iter().collect();
                if had_result {
                    let row = w.fetch_one("SELECT variant FROM games WHERE id = $1", args![&game.id]).await?;
                    variants.push(row.try_get("variant")?);
                }
                if let Some(result) = result {
                    Self::write_seats(w, game, result).await?;
                }
                // The leaderboard sums of each seated player. A game finishing for the first
                // time adds its results (one upsert for all players); a game whose earlier
                // result changed or went away has its players' sums recomputed from the seats.
                // Rows are written in player id order, the order every writer locks them in:
                // two tables finishing at once with the same players cannot deadlock.
                if had_result || result.is_none() {
                    if had_result {
                        Self::lock_snapshots(w, club).await?;
                    }
                    let mut seats: Vec<&SeatRecord> = game.players.iter().collect();
                    seats.sort_unstable_by(|a, b| a.player_id.cmp(&b.player_id));
                    for seat in seats {
                        // Every variant of the game: a correction may move a game between them.
                        w.execute(
                            "DELETE FROM player_game_totals WHERE club_id = $1 AND player_id = $2 AND game = $3",
                            args![club, &seat.player_id, &game.game],
                        )
                        .await?;
                        w.execute(
                            "INSERT INTO player_game_totals \
                               (club_id, player_id, game, variant, lower_wins, played, wins, total_sum, rank_sum, min_total, max_total, last_played) \
                             SELECT g.club_id, gp.player_id, g.game, g.variant, MAX(g.lower_wins), COUNT(*), \
                               SUM(CASE WHEN gp.rank = 1 THEN 1 ELSE 0 END), \
                               SUM(gp.total), SUM(gp.rank), MIN(gp.total), MAX(gp.total), MAX(g.started_at) \
                             FROM players p JOIN game_players gp ON gp.player_id = p.id JOIN games g ON g.id = gp.game_id \
                             WHERE p.id = $2 AND p.club_id = $1 AND g.game = $3 AND gp.rank IS NOT NULL \
                             GROUP BY g.club_id, gp.player_id, g.game, g.variant",
                            args![club, &seat.player_id, &game.game],
                        )
                        .await?;
                        if had_result {
                            w.execute(CLEAR_RUNS, args![&seat.player_id, &game.game]).await?;
                            w.execute(RECOMPUTE_RUNS, args![club, &seat.player_id, &game.game]).await?;
                            w.execute(CLEAR_SNAPSHOTS, args![club, &seat.player_id, &game.game]).await?;
                            w.execute(RECOMPUTE_SNAPSHOTS, args![club, &seat.player_id, &game.game]).await?;
                        }
                    }
                    if had_result {
                        Self::recompute_buckets(w, club, game, variants).await?;
                    }
                } else if let Some(result) = result
                    && !result.players.is_empty()
                {
                    let sql = format!(
                        "INSERT INTO player_game_totals \
                           (club_id, player_id, game, variant, lower_wins, played, wins, total_sum, rank_sum, min_total, max_total, last_played) \
                         VALUES {} \
                         ON CONFLICT (club_id, player_id, game, variant) DO UPDATE SET \
                           played = player_game_totals.played + 1, \
                           wins = player_game_totals.wins + excluded.wins, \
                           total_sum = player_game_totals.total_sum + excluded.total_sum, \
                           rank_sum = player_game_totals.rank_sum + excluded.rank_sum, \
                           min_total = CASE WHEN excluded.min_total < player_game_totals.min_total \
                                       THEN excluded.min_total ELSE player_game_totals.min_total END, \
                           max_total = CASE WHEN excluded.max_total > player_game_totals.max_total \
                                       THEN excluded.max_total ELSE player_game_totals.max_total END, \
                           last_played = CASE WHEN excluded.last_played > player_game_totals.last_played \
                                         THEN excluded.last_played ELSE player_game_totals.last_played END",
                        placeholders(result.players.len(), 12)
                    );
                    let mut players: Vec<&PlayerResult> = result.players.iter().collect();
                    players.sort_unstable_by(|a, b| a.player_id.cmp(&b.player_id));
                    let mut values = Vec::with_capacity(12 * players.len());
                    for p in players {
                        values.extend(args![
                            club,
                            &p.player_id,
                            &game.game,
                            result.variant.as_deref().unwrap_or(""),
                            i64::from(result.lower_wins),
                            1_i64,
                            i64::from(p.won),
                            p.total,
                            p.rank,
                            p.total,
                            p.total,
                            game.started_at,
                        ]);
                    }
                    w.execute(&sql, values).await?;
                    Self::add_runs(w, club, game, result).await?;
                    Self::add_to_snapshots(w, club, game, result).await?;
                    Self::add_to_buckets(w, club, game, result).await?;
                }
                Ok(())
            }

            /// Writes a finished game's totals, ranks and facts onto its seats (one statement,
            /// a `CASE` per column by seat) and its whole-game facts onto its row.
            async fn write_seats(
                w: &mut Writes<'_, $db>,
                game: &GameRecord,
                result: &GameResult,
            ) -> Result<(), StoreError> {
                // Every ruleset ranks every seat; the statistics count a game by its seat 1.
                let mut seats: Vec<i64> = result.players.iter().map(|p| p.seat).collect();
                seats.sort_unstable();
                if !seats.iter().copied().eq(game.players.iter().map(|s| s.seat)) {
                    return Err(StoreError::Corrupt(format!(
                        "the score of game {} ranks seats {seats:?}, not every seat",
                        game.id
                    )));
                }
                let facts = FactsBySeat::new(game, result)?;
                if !result.players.is_empty() {
                    let cases = |first: usize| {
                        (0..result.players.len())
                            .map(|i| format!("WHEN ${} THEN ${}", 2 + 4 * i, first + 4 * i))
                            .collect::<Vec<_>>()
                            .join(" ")
                    };
                    let sql = format!(
                        "UPDATE game_players SET total = CASE seat {} END, rank = CASE seat {} END, facts = CASE seat {} END \
                         WHERE game_id = $1",
                        cases(3),
                        cases(4),
                        cases(5)
                    );
                    let mut values = args![&game.id];
                    for p in &result.players {
                        values.extend(args![p.seat, p.total, p.rank, facts.of_seat(p.seat)]);
                    }
                    w.execute(&sql, values).await?;
                }
                // The variant and direction the statistics count this game's totals in.
                w.execute(
                    "UPDATE games SET facts = $1, variant = $2, lower_wins = $3 WHERE id = $4",
                    args![facts.whole_game(), result.variant.as_deref().unwrap_or(""), i64::from(result.lower_wins), &game.id],
                )
                .await
            }

            /// Adds a first finish to its players' runs: a row each, continuing the sums of the
            /// run before it, and the game added to the sums of any later row (a game started
            /// before others finished after them, or an imported one).
            async fn add_runs(
                w: &mut Writes<'_, $db>,
                club: &str,
                game: &GameRecord,
                result: &GameResult,
            ) -> Result<(), StoreError> {
                let mut players: Vec<&PlayerResult> = result.players.iter().collect();
                players.sort_unstable_by(|a, b| a.player_id.cmp(&b.player_id));
                // $1 game, $2 variant, $3 start, $4 game id, $5 lower wins, $6 club; then per
                // player (from $7, four each): id, total, rank, won.
                let player = |i: usize, column: usize| format!("${}", 7 + 4 * i + column);
                let before = |column: &str| {
                    format!(
                        "COALESCE((SELECT r.{column} FROM player_runs r \
                           WHERE r.player_id = v.column1 AND r.game = $1 AND r.variant = $2 \
                             AND (r.played_at, r.game_id) < ($3, $4) \
                           ORDER BY r.played_at DESC, r.game_id DESC LIMIT 1), 0)"
                    )
                };
                let (values, player_values) = player_rows(&players, 7);
                let insert = format!(
                    "INSERT INTO player_runs \
                       (club_id, player_id, game, variant, played_at, game_id, total, rank, lower_wins, \
                        played, wins, total_sum, rank_sum, lower_games) \
                     SELECT $6, v.column1, $1, $2, $3, $4, v.column2, v.column3, $5, \
                       1 + {}, v.column4 + {}, v.column2 + {}, v.column3 + {}, $5 + {} \
                     FROM (VALUES {values}) v",
                    before("played"),
                    before("wins"),
                    before("total_sum"),
                    before("rank_sum"),
                    before("lower_games"),
                );
                let by_player = |column: usize| {
                    (0..players.len())
                        .map(|i| format!("WHEN {} THEN {}", player(i, 0), player(i, column)))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                let later = format!(
                    "UPDATE player_runs SET played = played + 1, \
                       wins = wins + CASE player_id {} ELSE 0 END, \
                       total_sum = total_sum + CASE player_id {} ELSE 0 END, \
                       rank_sum = rank_sum + CASE player_id {} ELSE 0 END, \
                       lower_games = lower_games + $5 \
                     WHERE player_id IN ({}) AND game = $1 AND variant = $2 AND (played_at, game_id) > ($3, $4) \
                       AND club_id || '' = $6",
                    by_player(3),
                    by_player(1),
                    by_player(2),
                    (0..players.len()).map(|i| player(i, 0)).collect::<Vec<_>>().join(", "),
                );
                // The club is in `later` only because both statements take the same values:
                // compared so that no index serves it, the players' runs are found by their key,
                // not by walking the club's runs since this game's start.
                for sql in [insert, later] {
                    let mut values = args![
                        &game.game,
                        result.variant.as_deref().unwrap_or(""),
                        game.started_at,
                        &game.id,
                        i64::from(result.lower_wins),
                        club,
                    ];
                    values.extend(player_values.iter().cloned());
                    w.execute(&sql, values).await?;
                }
                Ok(())
            }

            /// Takes the club's month snapshots alone for this transaction (PostgreSQL; on SQLite
            /// the database write lock holds them already), for a correction that recomputes
            /// them. Two writers of snapshots at once would otherwise miss each other: one making
            /// a month's snapshot from seats the other has not committed, the other adding its
            /// seats to the months it sees, not that one. Taken after the players' rows, as by
            /// every writer of snapshots: no two wait in a circle.
            async fn lock_snapshots(w: &mut Writes<'_, $db>, club: &str) -> Result<(), StoreError> {
                if let Some(lock) = $lock_club {
                    w.execute(lock, args![club]).await?;
                }
                Ok(())
            }

            /// Adds a first finish to the club's month snapshots: the game's month gets one if it
            /// has none, and every later month's counts the game's seats (a game recorded after
            /// others that started later, or an imported one).
            async fn add_to_snapshots(
                w: &mut Writes<'_, $db>,
                club: &str,
                game: &GameRecord,
                result: &GameResult,
            ) -> Result<(), StoreError> {
                let month = month_start(game.started_at);
                if let Some(lock) = $lock_club_to_add {
                    w.execute(lock, args![club, month]).await?;
                }
                let found = w
                    .fetch_one(
                        "SELECT CAST(CASE WHEN EXISTS (SELECT 1 FROM run_months WHERE club_id = $1 AND starts_at = $2) \
                                THEN 1 ELSE 0 END AS BIGINT) AS here, \
                           CAST(CASE WHEN EXISTS (SELECT 1 FROM run_months WHERE club_id = $1 AND starts_at > $2) \
                                THEN 1 ELSE 0 END AS BIGINT) AS later",
                        args![club, month],
                    )
                    .await?;
                if found.try_get::<i64, _>("here")? == 0 {
                    // Made before the month is listed: until then the month before it answers.
                    w.execute(&snapshot_of_month(), args![club, month]).await?;
                    w.execute("INSERT INTO run_months (club_id, starts_at) VALUES ($1, $2)", args![club, month]).await?;
                }
                if found.try_get::<i64, _>("later")? == 0 || result.players.is_empty() {
                    return Ok(());
                }
                // $1 club, $2 the game's start, $3 game, $4 variant, $5 lower wins; then the
                // players (from $6).
                let players: Vec<&PlayerResult> = result.players.iter().collect();
                let (values, player_values) = player_rows(&players, 6);
                let sql = format!(
                    "INSERT INTO run_snapshots \
                       (club_id, starts_at, player_id, game, variant, played, wins, total_sum, rank_sum, lower_games) \
                     SELECT m.club_id, m.starts_at, v.column1, $3, $4, 1, v.column4, v.column2, v.column3, $5 \
                     FROM run_months m CROSS JOIN (VALUES {values}) v \
                     WHERE m.club_id = $1 AND m.starts_at > $2 \
                     ON CONFLICT (club_id, starts_at, player_id, game, variant) DO UPDATE SET \
                       played = run_snapshots.played + 1, wins = run_snapshots.wins + excluded.wins, \
                       total_sum = run_snapshots.total_sum + excluded.total_sum, \
                       rank_sum = run_snapshots.rank_sum + excluded.rank_sum, \
                       lower_games = run_snapshots.lower_games + excluded.lower_games"
                );
                let mut values = args![
                    club,
                    game.started_at,
                    &game.game,
                    result.variant.as_deref().unwrap_or(""),
                    i64::from(result.lower_wins),
                ];
                values.extend(player_values);
                w.execute(&sql, values).await
            }

            /// Adds a first finish to its day's and its month's sums, in the shard its game id
            /// picks: both rows are locked (created empty if missing), read, added to and
            /// written back.
            async fn add_to_buckets(
                w: &mut Writes<'_, $db>,
                club: &str,
                game: &GameRecord,
                result: &GameResult,
            ) -> Result<(), StoreError> {
                let variant = result.variant.as_deref().unwrap_or("");
                let facts = FactsBySeat::new(game, result)?;
                let mut this = GameSummary::default();
                for p in &result.players {
                    this.add(SeatResult {
                        game_id: game.id.clone(),
                        seat: p.seat,
                        played_at: game.started_at,
                        total: p.total,
                        lower_wins: result.lower_wins,
                        facts: facts.of_seat(p.seat),
                        game_facts: if p.seat == 1 { facts.whole_game() } else { None },
                    })?;
                }
                let spans = [("day", day_start(game.started_at)), ("month", month_start(game.started_at))];
                let shard = shard_of(&game.id, $bucket_shards);
                let locked = Self::lock_buckets(w, club, &game.game, &[variant], &spans, &[shard]).await?;
                let mut sums = Vec::with_capacity(locked.len());
                for (span, starts_at, shard, mut sum) in locked {
                    sum.merge(this.clone());
                    sums.push((variant.to_owned(), span, starts_at, shard, sum));
                }
                Self::write_buckets(w, club, &game.game, &sums).await
            }

            /// Locks the buckets of these variants, spans and shards, creating empty ones where
            /// there are none (an upsert locks a row whether it inserts or finds it; two writers
            /// of one bucket then add to it one after the other), and reads them, in the order
            /// given (every writer locks variants in order, a day before its month, shards in
            /// order).
            async fn lock_buckets(
                w: &mut Writes<'_, $db>,
                club: &str,
                game: &str,
                variants: &[&str],
                spans: &[(&'static str, DateTime<Utc>)],
                shards: &[i64],
            ) -> Result<Vec<(&'static str, DateTime<Utc>, i64, GameSummary)>, StoreError> {
                let keys: Vec<(&str, &'static str, DateTime<Utc>, i64)> = variants
                    .iter()
                    .flat_map(|v| spans.iter().flat_map(move |(span, at)| shards.iter().map(move |shard| (*v, *span, *at, *shard))))
                    .collect();
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
                let rows = w.fetch_all(&sql, values).await?;
                let mut locked = Vec::with_capacity(keys.len());
                for (variant, span, starts_at, shard) in keys {
                    let row = rows
                        .iter()
                        .find(|row| {
                            row.try_get::<String, _>("variant").is_ok_and(|v| v == variant)
                                && row.try_get::<String, _>("span").is_ok_and(|s| s == span)
                                && row.try_get::<i64, _>("shard").is_ok_and(|s| s == shard)
                        })
                        .ok_or_else(|| StoreError::Corrupt(format!("bucket {span} {starts_at} {shard} was not returned")))?;
                    locked.push((span, starts_at, shard, Self::bucket_row(row)?));
                }
                Ok(locked)
            }

            /// Writes bucket shards `(variant, span, starts_at, shard, sums)` whole; one without
            /// results is removed.
            async fn write_buckets(
                w: &mut Writes<'_, $db>,
                club: &str,
                game: &str,
                buckets: &[(String, &'static str, DateTime<Utc>, i64, GameSummary)],
            ) -> Result<(), StoreError> {
                // A recount empties every shard but 0: one statement for all of them.
                let emptied: Vec<_> = buckets.iter().filter(|b| b.4.results == 0).collect();
                if !emptied.is_empty() {
                    let keys = bucket_keys(emptied.len()).map(|key| format!("({key})")).collect::<Vec<_>>().join(", ");
                    let mut values = args![club, game];
                    for (variant, span, starts_at, shard, _) in emptied {
                        values.extend(args![variant, *span, *starts_at, *shard]);
                    }
                    w.execute(
                        &format!(
                            "DELETE FROM game_buckets WHERE club_id = $1 AND game = $2 \
                             AND (variant, span, starts_at, shard) IN (VALUES {keys})"
                        ),
                        values,
                    )
                    .await?;
                }
                let kept: Vec<_> = buckets.iter().filter(|b| b.4.results > 0).collect();
                if kept.is_empty() {
                    return Ok(());
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
                w.execute(&sql, values).await
            }

            /// Sums a game's day and month again from its seats, for the variants its earlier
            /// and its new result count in (a correction, a retraction, an abandon): each is
            /// written whole to shard 0, its other shards locked and emptied.
            async fn recompute_buckets(
                w: &mut Writes<'_, $db>,
                club: &str,
                game: &GameRecord,
                mut variants: Vec<String>,
            ) -> Result<(), StoreError> {
                variants.sort_unstable();
                variants.dedup();
                let (day, month) = (day_start(game.started_at), month_start(game.started_at));
                let names: Vec<&str> = variants.iter().map(String::as_str).collect();
                let shards: Vec<i64> = (0..$bucket_shards).collect();
                Self::lock_buckets(w, club, &game.game, &names, &[("day", day), ("month", month)], &shards).await?;
                let mut sums = Vec::with_capacity(2 * shards.len() * variants.len());
                for variant in &variants {
                    let (sql, params) = seat_summary_query(club, &game.game, Some(variant), (Some(day), next_day(day)));
                    let day_sum = Self::summed_seats(&w.fetch_all(&sql, params).await?)?;
                    // The month: its other days as stored, and this day as it is now.
                    let mut month_sum = day_sum.clone();
                    let (sql, params) = buckets_query(club, &game.game, Some(variant), "day", (Some(month), next_month(month)));
                    for (at, sum) in Self::bucket_rows(&w.fetch_all(&sql, params).await?)? {
                        if at != day {
                            month_sum.merge(sum);
                        }
                    }
                    for (span, starts_at, sum) in [("day", day, day_sum), ("month", month, month_sum)] {
                        sums.push((variant.clone(), span, starts_at, 0, sum));
                        for shard in &shards[1..] {
                            sums.push((variant.clone(), span, starts_at, *shard, GameSummary::default()));
                        }
                    }
                }
                Self::write_buckets(w, club, &game.game, &sums).await
            }

            fn bucket_row(row: &impl super::columns::Columns) -> Result<GameSummary, StoreError> {
                let record = |prefix: &str| -> Result<Option<Record>, sqlx::Error> {
                    let total: Option<i64> = row.try_get(format!("{prefix}_total").as_str())?;
                    let Some(total) = total else { return Ok(None) };
                    Ok(Some(Record {
                        total,
                        played_at: row.try_get(format!("{prefix}_at").as_str())?,
                        game_id: row.try_get(format!("{prefix}_game_id").as_str())?,
                        seat: row.try_get(format!("{prefix}_seat").as_str())?,
                    }))
                };
                let mut sum = GameSummary {
                    plays: row.try_get("plays")?,
                    results: row.try_get("results")?,
                    total_sum: row.try_get("total_sum")?,
                    lower_results: row.try_get("lower_results")?,
                    lowest: record("lowest")?,
                    highest: record("highest")?,
                    facts: BTreeMap::new(),
                };
                sum.add_facts_json(&row.try_get::<String, _>("seat_facts")?, true)?;
                sum.add_facts_json(&row.try_get::<String, _>("game_facts")?, false)?;
                Ok(sum)
            }

            /// A club's buckets of one game (and variant; `None`: every variant) in a span and
            /// period, by start.
            async fn buckets<'e, E>(
                executor: E,
                club: &str,
                game: &str,
                variant: Option<&str>,
                span: &str,
                period: Range,
            ) -> Result<Vec<(DateTime<Utc>, GameSummary)>, StoreError>
            where
                E: sqlx::Executor<'e, Database = $db>,
            {
                let (sql, params) = buckets_query(club, game, variant, span, period);
                let rows = bind_params!(sqlx::query(sqlx::AssertSqlSafe(sql)), params).fetch_all(executor).await?;
                Self::bucket_rows(&rows)
            }

            fn bucket_rows(rows: &[impl super::columns::Columns]) -> Result<Vec<(DateTime<Utc>, GameSummary)>, StoreError> {
                rows.iter()
                    .map(|row| Ok((row.try_get("starts_at")?, Self::bucket_row(row)?)))
                    .collect()
            }

            /// A club's finished seats of one game (and variant) in a period, summed.
            async fn seat_summary<'e, E>(
                executor: E,
                club: &str,
                game: &str,
                variant: Option<&str>,
                period: Range,
            ) -> Result<GameSummary, StoreError>
            where
                E: sqlx::Executor<'e, Database = $db>,
            {
                let (sql, params) = seat_summary_query(club, game, variant, period);
                let rows = bind_params!(sqlx::query(sqlx::AssertSqlSafe(sql)), params).fetch_all(executor).await?;
                Self::summed_seats(&rows)
            }

            fn summed_seats(rows: &[impl super::columns::Columns]) -> Result<GameSummary, StoreError> {
                let mut summary = GameSummary::default();
                for row in rows {
                    summary.add(SeatResult {
                        game_id: row.try_get("id")?,
                        seat: row.try_get("seat")?,
                        played_at: row.try_get("started_at")?,
                        total: row.try_get("total")?,
                        lower_wins: row.try_get::<Option<i64>, _>("lower_wins")? == Some(1),
                        facts: row.try_get("facts")?,
                        game_facts: row.try_get("game_facts")?,
                    })?;
                }
                Ok(summary)
            }

            /// The leaderboard of a period from the month snapshots: per player, the sums
            /// before `to` less those before `from` ([`sums_before`]), in one statement.
            async fn leaderboard_between(&self, club: &str, filter: &StatsFilter) -> Result<Vec<LeaderRow>, StoreError> {
                if let (Some(from), Some(to)) = (filter.from, filter.to)
                    && from >= to
                {
                    return Ok(Vec::new());
                }
                let mut params = Params::default();
                let club = params.bind(Param::Text(club.to_owned()));
                let mut only = Vec::new();
                if let Some(game) = &filter.game {
                    only.push(("game", params.bind(Param::Text(game.clone()))));
                }
                if let Some(variant) = &filter.variant {
                    only.push(("variant", params.bind(Param::Text(variant.clone()))));
                }
                let to = filter.to.map(|to| params.bind(Param::Time(to)));
                let mut parts = vec![sums_before(&club, to.as_deref(), false, &only)];
                if let Some(from) = filter.from {
                    parts.push(sums_before(&club, Some(&params.bind(Param::Time(from))), true, &only));
                }
                // One row, the players as one JSON array: on SQLite every row is a hand-off from
                // the connection's thread, and a thousand of them took longer than the reads.
                // Summed by player first, then named: the join meets one row a player.
                let sql = format!(
                    "SELECT {json_rows} AS players FROM \
                       (SELECT b.player_id, p.name, b.played, b.wins, b.total_sum, b.rank_sum, b.lower_games \
                        FROM (SELECT u.player_id, {SUMMED} FROM ({parts}) u \
                              GROUP BY u.player_id HAVING SUM(u.played) > 0) b \
                        JOIN players p ON p.id = b.player_id) AS board",
                    json_rows = $json_rows,
                    parts = parts.join(" UNION ALL "),
                );
                let row = bind_params!(sqlx::query(sqlx::AssertSqlSafe(sql)), params.0).fetch_one(&self.pool).await?;
                let Some(json) = row.try_get::<Option<String>, _>("players")? else {
                    return Ok(Vec::new());
                };
                let board: Vec<(String, String, [i64; 5])> = serde_json::from_str(&json)
                    .map_err(|e| StoreError::Corrupt(format!("a period's leaderboard: {e}")))?;
                Ok(board
                    .into_iter()
                    .map(|(player_id, name, [played, wins, total_sum, rank_sum, lower_games])| LeaderRow {
                        player_id,
                        name,
                        played,
                        wins,
                        total_sum,
                        rank_sum,
                        lower_wins: lower_games == played,
                    })
                    .collect())
            }

            fn player_row(row: &<$db as sqlx::Database>::Row) -> Result<PlayerRow, sqlx::Error> {
                Ok(PlayerRow {
                    id: row.try_get("id")?,
                    name: row.try_get("name")?,
                    games_played: row.try_get("games_played")?,
                    last_played: row.try_get("last_played")?,
                })
            }
        }

        #[async_trait]
        impl StatsStore for $store {
            async fn list_players(
                &self,
                club: &str,
                search: Option<&str>,
                after_name: Option<&str>,
                limit: i64,
            ) -> Result<Vec<PlayerRow>, StoreError> {
                // Part of a name under the name rule (trimmed, any case), `%`, `_` and `\` as
                // themselves.
                let pattern = search.map(|s| {
                    let key = name_key(s).replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
                    format!("%{key}%")
                });
                let rows = sqlx::query(
                    concat!(
                        player_select!(),
                        " WHERE p.club_id = $1 \
                       AND ($2 IS NULL OR p.name_key LIKE $2 ESCAPE '\\') \
                       AND ($3 IS NULL OR p.name_key > $3) \
                     ORDER BY p.name_key LIMIT $4"
                    ),
                )
                .bind(club)
                .bind(pattern)
                .bind(after_name.map(str::to_lowercase))
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                rows.iter().map(Self::player_row).collect::<Result<_, _>>().map_err(StoreError::from)
            }

            async fn player(&self, club: &str, id: &str) -> Result<Option<PlayerRow>, StoreError> {
                let row = sqlx::query(
                    concat!(player_select!(), " WHERE p.club_id = $1 AND p.id = $2"),
                )
                .bind(club)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                row.as_ref().map(Self::player_row).transpose().map_err(StoreError::from)
            }

            async fn player_named(&self, club: &str, name: &str) -> Result<Option<PlayerRow>, StoreError> {
                let row = sqlx::query(
                    concat!(player_select!(), " WHERE p.club_id = $1 AND p.name_key = $2"),
                )
                .bind(club)
                .bind(tabletally_domain::setup::name_key(name))
                .fetch_optional(&self.pool)
                .await?;
                row.as_ref().map(Self::player_row).transpose().map_err(StoreError::from)
            }

            async fn results_of_player(
                &self,
                club: &str,
                player: &str,
                filter: &StatsFilter,
            ) -> Result<Vec<ResultRecord>, StoreError> {
                // The player's runs: one range of the runs' key per game and variant.
                let mut params = Params::default();
                let mut sql = format!(
                    "SELECT r.game_id, r.game, r.variant, r.lower_wins, r.played_at, r.total, r.rank \
                     FROM players p JOIN player_runs r ON r.player_id = p.id \
                     WHERE p.club_id = {} AND p.id = {}",
                    params.bind(Param::Text(club.to_owned())),
                    params.bind(Param::Text(player.to_owned()))
                );
                if let Some(game) = &filter.game {
                    sql += &format!(" AND r.game = {}", params.bind(Param::Text(game.clone())));
                }
                if let Some(variant) = &filter.variant {
                    sql += &format!(" AND r.variant = {}", params.bind(Param::Text(variant.clone())));
                }
                sql += &period_conditions("r.played_at", (filter.from, filter.to), &mut params);
                sql += " ORDER BY r.played_at, r.game_id";
                let rows = bind_params!(sqlx::query(sqlx::AssertSqlSafe(sql)), params.0).fetch_all(&self.pool).await?;
                rows.iter()
                    .map(|row| {
                        let rank: i64 = row.try_get("rank")?;
                        Ok(ResultRecord {
                            game_id: row.try_get("game_id")?,
                            game: row.try_get("game")?,
                            played_at: row.try_get("played_at")?,
                            total: row.try_get("total")?,
                            rank,
                            won: rank == 1,
                            variant: row.try_get("variant")?,
                            lower_wins: row.try_get::<i64, _>("lower_wins")? == 1,
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn leaderboard(&self, club: &str, filter: &StatsFilter) -> Result<Vec<LeaderRow>, StoreError> {
                // Without dates the per-player sums answer; with dates, the runs.
                if filter.has_dates() {
                    return self.leaderboard_between(club, filter).await;
                }
                let rows = sqlx::query(
                        "SELECT t.player_id, p.name, CAST(SUM(t.played) AS BIGINT) AS played, CAST(SUM(t.wins) AS BIGINT) AS wins, \
                           CAST(SUM(t.total_sum) AS BIGINT) AS total_sum, CAST(SUM(t.rank_sum) AS BIGINT) AS rank_sum, \
                           CAST(MIN(t.lower_wins) AS BIGINT) AS lower_wins \
                         FROM player_game_totals t JOIN players p ON p.id = t.player_id \
                         WHERE t.club_id = $1 AND ($2 IS NULL OR t.game = $2) AND ($3 IS NULL OR t.variant = $3) \
                         GROUP BY t.player_id, p.name",
                    )
                    .bind(club)
                    .bind(&filter.game)
                    .bind(&filter.variant)
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter()
                    .map(|row| {
                        Ok(LeaderRow {
                            player_id: row.try_get("player_id")?,
                            name: row.try_get("name")?,
                            played: row.try_get("played")?,
                            wins: row.try_get("wins")?,
                            total_sum: row.try_get("total_sum")?,
                            rank_sum: row.try_get("rank_sum")?,
                            lower_wins: row.try_get::<Option<i64>, _>("lower_wins")? == Some(1),
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn head_to_head(
                &self,
                club: &str,
                a: &str,
                b: &str,
                filter: &StatsFilter,
            ) -> Result<Vec<HeadToHeadRow>, StoreError> {
                // The first player's runs, each looked up in the second player's by its key.
                let mut params = Params::default();
                let mut sql = format!(
                    "SELECT ra.game_id, ra.game, ra.variant, ra.played_at, ra.rank AS rank_a, rb.rank AS rank_b \
                     FROM players pa JOIN player_runs ra ON ra.player_id = pa.id \
                       JOIN player_runs rb ON rb.player_id = {} AND rb.game = ra.game AND rb.variant = ra.variant \
                         AND rb.played_at = ra.played_at AND rb.game_id = ra.game_id \
                     WHERE pa.club_id = {} AND pa.id = {}",
                    params.bind(Param::Text(b.to_owned())),
                    params.bind(Param::Text(club.to_owned())),
                    params.bind(Param::Text(a.to_owned()))
                );
                if let Some(game) = &filter.game {
                    sql += &format!(" AND ra.game = {}", params.bind(Param::Text(game.clone())));
                }
                sql += &period_conditions("ra.played_at", (filter.from, filter.to), &mut params);
                sql += " ORDER BY ra.played_at DESC, ra.game_id DESC";
                let rows = bind_params!(sqlx::query(sqlx::AssertSqlSafe(sql)), params.0).fetch_all(&self.pool).await?;
                rows.iter()
                    .map(|row| {
                        Ok(HeadToHeadRow {
                            game_id: row.try_get("game_id")?,
                            game: row.try_get("game")?,
                            variant: row.try_get("variant")?,
                            played_at: row.try_get("played_at")?,
                            rank_a: row.try_get("rank_a")?,
                            rank_b: row.try_get("rank_b")?,
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn game_stats(&self, club: &str, game: &str, filter: &StatsFilter) -> Result<GameStatsRows, StoreError> {
                // Whole months and days from their sums, the partial days at the edges from
                // their seats (see `Period`).
                let period = Period::split(filter.from, filter.to);
                let variant = filter.variant.as_deref();
                let mut summary = GameSummary::default();
                if let Some(months) = period.months {
                    for (_, sum) in Self::buckets(&self.pool, club, game, variant, "month", months).await? {
                        summary.merge(sum);
                    }
                }
                for days in period.days {
                    for (_, sum) in Self::buckets(&self.pool, club, game, variant, "day", days).await? {
                        summary.merge(sum);
                    }
                }
                for seats in period.seats {
                    summary.merge(Self::seat_summary(&self.pool, club, game, variant, seats).await?);
                }
                // The record holders by seat: whoever sits there now (a merge moves seats).
                let name_of = async |record: Option<Record>| -> Result<Option<(i64, String, String)>, StoreError> {
                    let Some(record) = record else { return Ok(None) };
                    let row = sqlx::query(
                        "SELECT p.name FROM game_players gp JOIN players p ON p.id = gp.player_id \
                         WHERE gp.game_id = $1 AND gp.seat = $2",
                    )
                    .bind(&record.game_id)
                    .bind(record.seat)
                    .fetch_one(&self.pool)
                    .await?;
                    Ok(Some((record.total, row.try_get("name")?, record.game_id)))
                };
                let lower_wins = summary.lower_wins();
                let facts = summary.facts();
                let lowest = name_of(summary.lowest.take()).await?;
                let highest = name_of(summary.highest.take()).await?;
                Ok(GameStatsRows {
                    plays: summary.plays,
                    results: summary.results,
                    total_sum: summary.total_sum,
                    lowest,
                    highest,
                    facts,
                    lower_wins,
                })
            }

            async fn player_games(
                &self,
                club: &str,
                player: &str,
                after: Option<&(DateTime<Utc>, String)>,
                limit: i64,
            ) -> Result<Vec<PlayerGameRow>, StoreError> {
                let rows = sqlx::query(
                    "SELECT g.id, g.game, g.status, g.started_at, g.options, gp.seat, gp.name, gp.total, gp.rank \
                     FROM players p JOIN game_players gp ON gp.player_id = p.id JOIN games g ON g.id = gp.game_id \
                     WHERE p.id = $2 AND p.club_id = $1 \
                       AND ($3 IS NULL OR g.started_at < $3 OR (g.started_at = $3 AND g.id < $4)) \
                     ORDER BY g.started_at DESC, g.id DESC LIMIT $5",
                )
                .bind(club)
                .bind(player)
                .bind(after.map(|a| a.0))
                .bind(after.map(|a| a.1.clone()))
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|row| {
                        let rank: Option<i64> = row.try_get("rank")?;
                        let options: String = row.try_get("options")?;
                        Ok(PlayerGameRow {
                            game_id: row.try_get("id")?,
                            game: row.try_get("game")?,
                            status: row.try_get("status")?,
                            started_at: row.try_get("started_at")?,
                            seat: row.try_get("seat")?,
                            name: row.try_get("name")?,
                            total: row.try_get("total")?,
                            rank,
                            won: rank.map(|r| r == 1),
                            options: serde_json::from_str(&options)
                                .map_err(|e| StoreError::Corrupt(format!("game options: {e}")))?,
                        })
                    })
                    .collect::<Result<_, StoreError>>()
            }

            async fn game_ids(&self, after: Option<&str>, limit: i64) -> Result<Vec<(String, String)>, StoreError> {
                // In play order: each game then extends its players' runs and its club's month
                // snapshots at their ends, where a game from the past would rewrite every later
                // run and month of its players.
                let rows = sqlx::query(
                        "SELECT club_id, id FROM games \
                         WHERE $1 IS NULL OR (started_at, id) > ((SELECT started_at FROM games WHERE id = $1), $1) \
                         ORDER BY started_at, id LIMIT $2",
                    )
                    .bind(after)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter()
                    .map(|row| Ok((row.try_get("club_id")?, row.try_get("id")?)))
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn clear_statistics(&self) -> Result<(), StoreError> {
                let _turn = self.write_turn().await;
                let mut tx = self.pool.begin_with($begin).await?;
                // The months stay listed, their snapshots emptied: the games replayed add their
                // seats to every later month again. A finish meanwhile (a rebuild runs beside
                // the servers) may then rely on a month it found listed staying so
                // (`SNAPSHOTS_LOCK_TO_ADD`).
                for statement in [
                    "UPDATE game_players SET total = NULL, rank = NULL, facts = NULL WHERE rank IS NOT NULL OR facts IS NOT NULL",
                    "UPDATE games SET facts = NULL WHERE facts IS NOT NULL",
                    "DELETE FROM player_game_totals",
                    "DELETE FROM player_runs",
                    "DELETE FROM run_snapshots",
                    "DELETE FROM game_buckets",
                ] {
                    sqlx::query(statement).execute(&mut *tx).await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn replace_result(&self, club: &str, game: &GameRecord, result: Option<&GameResult>) -> Result<(), StoreError> {
                // On SQLite the write lock from the start: a rebuild runs beside a server, whose
                // commit would otherwise fail this transaction's first write (`SQLITE_BUSY`).
                let _turn = self.write_turn().await;
                let mut w = Writes::new(self.pool.begin_with($begin).await?);
                Self::write_result(&mut w, club, game, true, result).await?;
                w.commit().await?;
                Ok(())
            }
        }
    };
}

stats_store!(
    SqliteStore,
    sqlx::Sqlite,
    begin = "BEGIN IMMEDIATE",
    lock_players = "",
    lock_club = None::<&str>,
    lock_club_to_add = None::<&str>,
    // One writer at a time: nothing waits on a bucket's row.
    bucket_shards = 1,
    json_rows = "json_group_array(json_array(player_id, name, json_array(played, wins, total_sum, rank_sum, lower_games)))"
);
stats_store!(
    PostgresStore,
    sqlx::Postgres,
    begin = "BEGIN",
    lock_players = "FOR NO KEY UPDATE",
    lock_club = Some(SNAPSHOTS_LOCK),
    lock_club_to_add = Some(SNAPSHOTS_LOCK_TO_ADD),
    bucket_shards = 8,
    json_rows = "CAST(json_agg(json_build_array(player_id, name, json_build_array(played, wins, total_sum, rank_sum, lower_games))) AS TEXT)"
);

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(
        game: &str,
        day: u32,
        seat: i64,
        total: i64,
        facts: &str,
        game_facts: Option<&str>,
    ) -> SeatResult {
        SeatResult {
            game_id: game.into(),
            seat,
            played_at: format!("2026-01-{day:02}T19:00:00Z").parse().unwrap(),
            total,
            lower_wins: true,
            facts: Some(facts.into()),
            game_facts: game_facts.map(Into::into),
        }
    }

    #[test]
    fn a_games_seats_are_summed_into_plays_records_and_facts_by_key_and_kind() {
        let mut summary = GameSummary::default();
        for s in [
            seat(
                "g2",
                5,
                1,
                4,
                r#"{"damage:fine-wine": 4}"#,
                Some(r#"{"be_careful_decided": 1}"#),
            ),
            seat(
                "g2",
                5,
                2,
                9,
                r#"{"damage:fine-wine": 2, "damage:be-careful": 7}"#,
                None,
            ),
            seat("g1", 3, 2, 9, r#"{"damage:fine-wine": 6}"#, None),
            seat("g1", 3, 1, 4, r#"{}"#, Some(r#"{"be_careful_decided": 0}"#)),
        ] {
            summary.add(s).unwrap();
        }

        // Ties on the total go to the earlier game: g1 (3 January) holds both records, in
        // seat 1 (Di's 4) and seat 2 (Cy's 9).
        assert_eq!(
            (summary.plays, summary.results, summary.total_sum),
            (2, 4, 26)
        );
        let lowest = summary.lowest.as_ref().unwrap();
        let highest = summary.highest.as_ref().unwrap();
        assert_eq!(
            (lowest.total, lowest.game_id.as_str(), lowest.seat),
            (4, "g1", 1)
        );
        assert_eq!(
            (highest.total, highest.game_id.as_str(), highest.seat),
            (9, "g1", 2)
        );
        let fact = |key: &str, per_player, sum, count| FactTotal {
            key: key.into(),
            per_player,
            sum,
            count,
        };
        assert_eq!(
            summary.facts(),
            vec![
                fact("be_careful_decided", false, 1, 2),
                fact("damage:be-careful", true, 7, 1),
                fact("damage:fine-wine", true, 12, 3),
            ]
        );
    }

    #[test]
    fn a_record_shared_within_one_game_goes_to_the_lower_seat_whatever_the_row_order() {
        let mut summary = GameSummary::default();
        for s in [
            seat("g1", 3, 2, 7, "{}", None),
            seat("g1", 3, 1, 7, "{}", None),
        ] {
            summary.add(s).unwrap();
        }

        assert_eq!(summary.lowest.as_ref().unwrap().seat, 1);
        assert_eq!(summary.highest.as_ref().unwrap().seat, 1);
    }

    #[test]
    fn facts_are_stored_per_seat_and_for_the_whole_game_with_repeated_keys_added() {
        let seat = |n: i64, id: &str| crate::store::SeatRecord {
            seat: n,
            name: id.into(),
            player_id: id.into(),
            color: None,
        };
        let game = GameRecord {
            id: "g".into(),
            game: "mint-condition".into(),
            status: "finished".into(),
            version: 4,
            options: serde_json::json!({}),
            players: vec![seat(1, "ann"), seat(2, "bo")],
            started_at: Utc::now(),
            updated_at: Utc::now(),
        };
        let result = GameResult {
            players: Vec::new(),
            facts: vec![
                (Some("bo".into()), "damage:fine-wine".into(), 2),
                (None, "be_careful_decided".into(), 1),
                (Some("bo".into()), "damage:fine-wine".into(), 3),
            ],
            variant: None,
            lower_wins: true,
        };

        let facts = FactsBySeat::new(&game, &result).unwrap();

        assert_eq!(facts.of_seat(1), None);
        assert_eq!(
            facts.of_seat(2).as_deref(),
            Some(r#"{"damage:fine-wine":5}"#)
        );
        assert_eq!(
            facts.whole_game().as_deref(),
            Some(r#"{"be_careful_decided":1}"#)
        );
    }

    #[test]
    fn sums_of_days_merged_equal_the_sum_of_their_seats_records_and_facts_included() {
        let seats = || {
            vec![
                seat(
                    "g1",
                    3,
                    1,
                    9,
                    r#"{"damage:fine-wine": 6}"#,
                    Some(r#"{"be_careful_decided": 1}"#),
                ),
                seat("g1", 3, 2, 4, r#"{"damage:fine-wine": 2}"#, None),
                seat(
                    "g2",
                    5,
                    1,
                    4,
                    r#"{"damage:be-careful": 3}"#,
                    Some(r#"{"be_careful_decided": 0}"#),
                ),
                seat("g2", 5, 2, 12, "{}", None),
            ]
        };
        let mut whole = GameSummary::default();
        for s in seats() {
            whole.add(s).unwrap();
        }
        // Two days as a bucket stores them (facts as JSON), merged in the later-first order.
        let (mut day_3, mut day_5) = (GameSummary::default(), GameSummary::default());
        for (i, s) in seats().into_iter().enumerate() {
            if i < 2 {
                day_3.add(s).unwrap()
            } else {
                day_5.add(s).unwrap()
            }
        }
        let stored = |day: &GameSummary| {
            let mut read = GameSummary {
                facts: BTreeMap::new(),
                ..day.clone()
            };
            read.add_facts_json(&day.facts_json(true), true).unwrap();
            read.add_facts_json(&day.facts_json(false), false).unwrap();
            read
        };
        let mut merged = stored(&day_5);
        merged.merge(stored(&day_3));

        assert_eq!(merged, whole);
        // 9 + 4 + 4 + 12 = 29 over 4 seats of 2 games; the 4 of g1 (3 January) is the lowest.
        assert_eq!((merged.plays, merged.results, merged.total_sum), (2, 4, 29));
        assert_eq!(
            merged.lowest.as_ref().map(|r| (r.game_id.as_str(), r.seat)),
            Some(("g1", 2))
        );
        assert_eq!(
            merged
                .highest
                .as_ref()
                .map(|r| (r.game_id.as_str(), r.seat)),
            Some(("g2", 2))
        );
        assert_eq!(day_3.facts_json(false), r#"{"be_careful_decided":[1,1]}"#);
        assert_eq!(merged.lower_wins(), Some(true));
        assert_eq!(GameSummary::default().lower_wins(), None);
    }

    fn at(t: &str) -> DateTime<Utc> {
        t.parse().unwrap()
    }

    #[test]
    fn a_period_reads_whole_months_then_whole_days_then_the_seats_of_partial_days() {
        let period = Period::split(
            Some(at("2025-11-20T18:30:00Z")),
            Some(at("2026-03-02T09:00:00Z")),
        );

        assert_eq!(
            period,
            Period {
                months: Some((
                    Some(at("2025-12-01T00:00:00Z")),
                    Some(at("2026-03-01T00:00:00Z"))
                )),
                days: vec![
                    (
                        Some(at("2025-11-21T00:00:00Z")),
                        Some(at("2025-12-01T00:00:00Z"))
                    ),
                    (
                        Some(at("2026-03-01T00:00:00Z")),
                        Some(at("2026-03-02T00:00:00Z"))
                    ),
                ],
                seats: vec![
                    (
                        Some(at("2025-11-20T18:30:00Z")),
                        Some(at("2025-11-21T00:00:00Z"))
                    ),
                    (
                        Some(at("2026-03-02T00:00:00Z")),
                        Some(at("2026-03-02T09:00:00Z"))
                    ),
                ],
            }
        );
    }

    #[test]
    fn a_period_on_whole_months_reads_months_only_and_an_open_side_is_unbounded() {
        let whole = Period::split(
            Some(at("2026-01-01T00:00:00Z")),
            Some(at("2026-03-01T00:00:00Z")),
        );
        let since = Period::split(Some(at("2026-01-31T00:00:00Z")), None);
        let ever = Period::split(None, None);

        assert_eq!(
            whole,
            Period {
                months: Some((
                    Some(at("2026-01-01T00:00:00Z")),
                    Some(at("2026-03-01T00:00:00Z"))
                )),
                ..Period::default()
            }
        );
        assert_eq!(
            since,
            Period {
                months: Some((Some(at("2026-02-01T00:00:00Z")), None)),
                days: vec![(
                    Some(at("2026-01-31T00:00:00Z")),
                    Some(at("2026-02-01T00:00:00Z"))
                )],
                seats: vec![],
            }
        );
        assert_eq!(
            ever,
            Period {
                months: Some((None, None)),
                ..Period::default()
            }
        );
    }

    #[test]
    fn a_short_or_empty_period_reads_days_or_seats_only() {
        let hours = Period::split(
            Some(at("2026-01-10T18:00:00Z")),
            Some(at("2026-01-11T02:00:00Z")),
        );
        let days = Period::split(
            Some(at("2026-01-10T00:00:00Z")),
            Some(at("2026-01-12T06:00:00Z")),
        );
        let backwards = Period::split(
            Some(at("2026-02-01T00:00:00Z")),
            Some(at("2026-01-01T00:00:00Z")),
        );
        let end_of_time = Period::split(Some(DateTime::<Utc>::MAX_UTC), None);

        assert_eq!(
            hours,
            Period {
                seats: vec![(
                    Some(at("2026-01-10T18:00:00Z")),
                    Some(at("2026-01-11T02:00:00Z"))
                )],
                ..Period::default()
            }
        );
        assert_eq!(
            days,
            Period {
                days: vec![(
                    Some(at("2026-01-10T00:00:00Z")),
                    Some(at("2026-01-12T00:00:00Z"))
                )],
                seats: vec![(
                    Some(at("2026-01-12T00:00:00Z")),
                    Some(at("2026-01-12T06:00:00Z"))
                )],
                ..Period::default()
            }
        );
        assert_eq!(backwards, Period::default());
        assert_eq!(
            end_of_time,
            Period {
                seats: vec![(Some(DateTime::<Utc>::MAX_UTC), None)],
                ..Period::default()
            }
        );
    }
}
