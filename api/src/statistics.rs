//! Club statistics computed from the read models: player summaries with streaks, the
//! leaderboard, head-to-head, and each game's insights. Also the rebuild of the read models
//! from the event log.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use tabletally_domain::Game;
use tabletally_domain::insights::{FactSums, Sum, ratio, round3};
use utoipa::ToSchema;

use crate::append::game_result;
use crate::records::to_log_event;
use crate::store::{GameStatsRows, LeaderRow, ResultRecord, Store, StoreError};

/// A player's figures for one game (or all games), from their results oldest first.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct GameFigures {
    /// Game id, or `all`.
    pub game: String,
    /// The variant these games were played in (`heavily-used`); absent for the published rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub games_played: i64,
    /// A shared win counts as a win.
    pub wins: i64,
    pub win_rate: f64,
    pub average_score: f64,
    /// The lowest total where the lowest wins (Mint Condition's damage), else the highest.
    pub best_score: i64,
    pub worst_score: i64,
    pub average_rank: f64,
}

#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct PlayerStats {
    pub player_id: String,
    pub name: String,
    pub games_played: i64,
    pub wins: i64,
    pub win_rate: f64,
    pub average_rank: f64,
    /// Wins in a row up to the latest game (0 when the latest game was not a win).
    pub current_win_streak: i64,
    pub longest_win_streak: i64,
    pub last_played: Option<chrono::DateTime<chrono::Utc>>,
    /// The game played most often (ties: the one played most recently).
    pub favourite_game: Option<String>,
    /// One entry per game and variant played, by game id (the published rules first).
    pub per_game: Vec<GameFigures>,
}

/// The API's variant from a stored one (`""`: the published rules).
pub fn variant_field(stored: &str) -> Option<String> {
    (!stored.is_empty()).then(|| stored.to_owned())
}

fn figures((game, variant): (&str, &str), results: &[&ResultRecord]) -> GameFigures {
    let played = results.len() as i64;
    let wins = results.iter().filter(|r| r.won).count() as i64;
    let totals: Vec<i64> = results.iter().map(|r| r.total).collect();
    let (low, high) = (
        totals.iter().copied().min().unwrap_or(0),
        totals.iter().copied().max().unwrap_or(0),
    );
    // One game and variant share one direction, which each game's scoreboard recorded.
    let (best, worst) = if results.iter().all(|r| r.lower_wins) {
        (low, high)
    } else {
        (high, low)
    };
    GameFigures {
        game: game.to_owned(),
        variant: variant_field(variant),
        games_played: played,
        wins,
        win_rate: ratio(wins, played),
        average_score: if played == 0 {
            0.0
        } else {
            round3(totals.iter().sum::<i64>() as f64 / played as f64)
        },
        best_score: best,
        worst_score: worst,
        average_rank: if played == 0 {
            0.0
        } else {
            round3(results.iter().map(|r| r.rank).sum::<i64>() as f64 / played as f64)
        },
    }
}

/// Everything about a player from their results (oldest first).
pub fn player_stats(player_id: &str, name: &str, results: &[ResultRecord]) -> PlayerStats {
    let played = results.len() as i64;
    let wins = results.iter().filter(|r| r.won).count() as i64;
    let mut longest = 0;
    let mut run = 0;
    for r in results {
        run = if r.won { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let mut by_game: BTreeMap<(&str, &str), Vec<&ResultRecord>> = BTreeMap::new();
    for r in results {
        by_game
            .entry((r.game.as_str(), r.variant.as_str()))
            .or_default()
            .push(r);
    }
    // The favourite is a game, whatever variant it was played in.
    let mut by_game_only: BTreeMap<&str, (usize, Option<chrono::DateTime<chrono::Utc>>)> =
        BTreeMap::new();
    for r in results {
        let entry = by_game_only.entry(r.game.as_str()).or_default();
        entry.0 += 1;
        entry.1 = entry.1.max(Some(r.played_at));
    }
    let favourite_game = by_game_only
        .iter()
        .max_by_key(|(_, counted)| **counted)
        .map(|(g, _)| (*g).to_owned());
    PlayerStats {
        player_id: player_id.to_owned(),
        name: name.to_owned(),
        games_played: played,
        wins,
        win_rate: ratio(wins, played),
        average_rank: if played == 0 {
            0.0
        } else {
            round3(results.iter().map(|r| r.rank).sum::<i64>() as f64 / played as f64)
        },
        current_win_streak: run,
        longest_win_streak: longest,
        last_played: results.last().map(|r| r.played_at),
        favourite_game,
        per_game: by_game.iter().map(|(g, rs)| figures(*g, rs)).collect(),
    }
}

/// How the leaderboard is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LeaderboardSort {
    WinRate,
    Wins,
    AverageScore,
}

#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct LeaderboardEntry {
    pub rank: i64,
    pub player_id: String,
    pub name: String,
    pub games_played: i64,
    pub wins: i64,
    pub win_rate: f64,
    /// Average total per game; `null` on a leaderboard over every game, where it would mix
    /// games whose lowest total wins with games whose highest does.
    #[schema(required = true)]
    pub average_score: Option<f64>,
    pub average_rank: f64,
}

/// Ranks players: by the sort key, then wins, then games played, then name. Equal keys share
/// a rank (competition ranking). A lower average score ranks first only when every game counted
/// was won by the lowest total (its scoreboard said so).
/// `one_game`: the rows are one game's (and variant's), so an average score means something.
pub fn leaderboard(
    rows: Vec<LeaderRow>,
    sort: LeaderboardSort,
    min_games: i64,
    one_game: bool,
) -> Vec<LeaderboardEntry> {
    let lower_better = !rows.is_empty() && rows.iter().all(|r| r.lower_wins);
    let mut entries: Vec<LeaderboardEntry> = rows
        .into_iter()
        .filter(|r| r.played >= min_games && r.played > 0)
        .map(|r| LeaderboardEntry {
            rank: 0,
            win_rate: ratio(r.wins, r.played),
            average_score: one_game.then(|| round3(r.total_sum as f64 / r.played as f64)),
            average_rank: round3(r.rank_sum as f64 / r.played as f64),
            player_id: r.player_id,
            name: r.name,
            games_played: r.played,
            wins: r.wins,
        })
        .collect();
    let key = |e: &LeaderboardEntry| -> f64 {
        match sort {
            LeaderboardSort::WinRate => e.win_rate,
            LeaderboardSort::Wins => e.wins as f64,
            LeaderboardSort::AverageScore if lower_better => -e.average_score.unwrap_or(0.0),
            LeaderboardSort::AverageScore => e.average_score.unwrap_or(0.0),
        }
    };
    entries.sort_by(|a, b| {
        key(b)
            .total_cmp(&key(a))
            .then(b.wins.cmp(&a.wins))
            .then(b.games_played.cmp(&a.games_played))
            .then(a.name.cmp(&b.name))
    });
    for i in 0..entries.len() {
        entries[i].rank = if i > 0 && key(&entries[i]) == key(&entries[i - 1]) {
            entries[i - 1].rank
        } else {
            i as i64 + 1
        };
    }
    entries
}

/// The game's rule-aware insights, from its facts summed over the club's finished games.
pub fn game_insights(game: Game, rows: &GameStatsRows) -> Value {
    let mut sums = FactSums::new(rows.plays, rows.results);
    for fact in &rows.facts {
        sums.add(
            &fact.key,
            Sum {
                sum: fact.sum,
                count: fact.count,
            },
        );
    }
    Value::Object(game.insights(&sums.without_typed_in_results()))
}

/// Rebuilds every read model from the event log, logging progress. Returns how many games
/// were replayed and how many of them are finished.
pub async fn rebuild(store: &dyn Store) -> Result<(usize, usize), StoreError> {
    const BATCH: i64 = 500;
    store.clear_statistics().await?;
    let (mut replayed, mut finished) = (0usize, 0usize);
    let mut after: Option<String> = None;
    loop {
        let ids = store.game_ids(after.as_deref(), BATCH).await?;
        let Some(last) = ids.last() else { break };
        after = Some(last.1.clone());
        for (club, id) in &ids {
            // Read again while a table's append moves the game on between reading and writing.
            loop {
                let Some((game, log)) = store.events(club, id).await? else {
                    break;
                };
                let kind = Game::from_id(&game.game)
                    .ok_or_else(|| StoreError::Corrupt(format!("unknown game {}", game.game)))?;
                let log: Vec<_> = log.iter().map(to_log_event).collect();
                let evaluation = kind
                    .evaluate_with_facts(&log)
                    .map_err(|e| StoreError::Corrupt(format!("game {id}: {e}")))?;
                let result = game_result(&game, &evaluation)
                    .map_err(|e| StoreError::Corrupt(e.to_string()))?;
                if store.replace_result(club, &game, result.as_ref()).await? {
                    finished += usize::from(result.is_some());
                    replayed += 1;
                    break;
                }
            }
        }
        tracing::info!(replayed, finished, "rebuilding statistics");
    }
    Ok((replayed, finished))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    /// A result as stored: `game` may name a variant (`mint-condition/heavily-used`); the
    /// direction is what that game's scoreboard says.
    fn result(day: u32, game: &str, total: i64, rank: i64) -> ResultRecord {
        let (game, variant) = game.split_once('/').unwrap_or((game, ""));
        ResultRecord {
            game_id: format!("g{day}"),
            game: game.into(),
            played_at: Utc.with_ymd_and_hms(2026, 11, day, 19, 0, 0).unwrap(),
            total,
            rank,
            won: rank == 1,
            variant: variant.into(),
            lower_wins: game == "mint-condition" && variant.is_empty(),
        }
    }

    #[test]
    fn streaks_count_wins_in_a_row_and_the_current_run() {
        // W W L W W W L W → longest 3, current 1.
        let ranks = [1, 1, 2, 1, 1, 1, 3, 1];
        let results: Vec<_> = ranks
            .iter()
            .enumerate()
            .map(|(i, r)| result(i as u32 + 1, "mind-up", 50, *r))
            .collect();

        let stats = player_stats("p", "Ann", &results);

        assert_eq!(stats.games_played, 8);
        assert_eq!(stats.wins, 6);
        assert_eq!(stats.win_rate, 0.75);
        assert_eq!(stats.longest_win_streak, 3);
        assert_eq!(stats.current_win_streak, 1);
        // (1+1+2+1+1+1+3+1) / 8 = 11 / 8 = 1.375
        assert_eq!(stats.average_rank, 1.375);
    }

    #[test]
    fn the_best_mint_condition_score_is_the_lowest_damage() {
        let results = vec![
            result(1, "mint-condition", 30, 1),
            result(2, "mint-condition", 45, 3),
            result(3, "vintage", 20, 2),
            result(4, "vintage", 31, 1),
        ];

        let stats = player_stats("p", "Ann", &results);

        let mc = &stats.per_game[0];
        assert_eq!(
            (
                mc.game.as_str(),
                mc.best_score,
                mc.worst_score,
                mc.average_score
            ),
            ("mint-condition", 30, 45, 37.5)
        );
        let v = &stats.per_game[1];
        assert_eq!(
            (v.game.as_str(), v.best_score, v.worst_score),
            ("vintage", 31, 20)
        );
        // Two games each: the one played last (vintage) is the favourite.
        assert_eq!(stats.favourite_game.as_deref(), Some("vintage"));
    }

    #[test]
    fn heavily_used_games_are_figures_of_their_own_where_the_highest_total_is_best() {
        let results = vec![
            result(1, "mint-condition", 30, 1),
            result(2, "mint-condition/heavily-used", 42, 1),
            result(3, "mint-condition/heavily-used", 14, 3),
            result(4, "mint-condition", 45, 2),
        ];

        let stats = player_stats("p", "Ann", &results);

        let figures: Vec<_> = stats
            .per_game
            .iter()
            .map(|f| {
                (
                    f.game.as_str(),
                    f.variant.as_deref(),
                    f.games_played,
                    f.best_score,
                    f.worst_score,
                    f.average_score,
                )
            })
            .collect();
        assert_eq!(
            figures,
            vec![
                ("mint-condition", None, 2, 30, 45, 37.5),
                ("mint-condition", Some("heavily-used"), 2, 42, 14, 28.0),
            ]
        );
        // Wins over all games are counted as before: games 1 and 2.
        assert_eq!((stats.games_played, stats.wins), (4, 2));
        assert_eq!(stats.favourite_game.as_deref(), Some("mint-condition"));
    }

    #[test]
    fn the_leaderboard_shares_ranks_and_drops_players_below_min_games() {
        let row = |name: &str, played, wins, total_sum| LeaderRow {
            player_id: name.to_lowercase(),
            name: name.into(),
            played,
            wins,
            total_sum,
            rank_sum: played * 2,
            lower_wins: true,
        };
        let rows = vec![
            row("Ann", 4, 2, 120),
            row("Bo", 2, 1, 50),
            row("Cy", 4, 3, 160),
            row("Di", 1, 1, 10),
        ];

        let board = leaderboard(rows.clone(), LeaderboardSort::WinRate, 2, false);
        let by_score = leaderboard(rows.clone(), LeaderboardSort::AverageScore, 1, true);
        let highest_first: Vec<LeaderRow> = rows
            .into_iter()
            .map(|r| LeaderRow {
                lower_wins: false,
                ..r
            })
            .collect();
        let by_score_heavily_used =
            leaderboard(highest_first, LeaderboardSort::AverageScore, 1, true);

        // Cy 3/4 = 0.75; Ann 2/4 = 0.5 and Bo 1/2 = 0.5 share rank 2 (Ann first: more wins).
        let names: Vec<(&str, i64)> = board.iter().map(|e| (e.name.as_str(), e.rank)).collect();
        assert_eq!(names, vec![("Cy", 1), ("Ann", 2), ("Bo", 2)]);
        // Over every game an average would mix directions: none is given.
        assert!(board.iter().all(|e| e.average_score.is_none()));
        assert_eq!(by_score[0].average_score, Some(10.0));
        // Damage: Di 10, Bo 25, Ann 30, Cy 40 — lowest first.
        let names: Vec<&str> = by_score.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, vec!["Di", "Bo", "Ann", "Cy"]);
        // Games the highest total won: highest average first.
        let names: Vec<&str> = by_score_heavily_used
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(names, vec!["Cy", "Ann", "Bo", "Di"]);
    }
}
