//! Club statistics computed from the read models: player summaries with streaks, the
//! leaderboard, head-to-head, and each game's insights. Also the rebuild of the read models
//! from the event log.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value, json};
use tabletally_domain::Game;
use utoipa::ToSchema;

use crate::append::{game_result, to_log_event};
use crate::store::{FactTotal, GameStatsRows, LeaderRow, ResultRecord, Store, StoreError};

/// Whether a lower total is the better one for this game's statistics. Mint Condition counts
/// damage; its Heavily Used variant is rare enough not to flip the club's records.
pub fn lower_is_better(game: &str) -> bool {
    game == "mint-condition"
}

fn ratio(part: i64, whole: i64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        round3(part as f64 / whole as f64)
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// A player's figures for one game (or all games), from their results oldest first.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct GameFigures {
    /// Game id, or `all`.
    pub game: String,
    pub games_played: i64,
    /// A shared win counts as a win.
    pub wins: i64,
    pub win_rate: f64,
    pub average_score: f64,
    /// Lowest total for Mint Condition (damage), highest for the others.
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
    /// One entry per game played, by game id.
    pub per_game: Vec<GameFigures>,
}

fn figures(game: &str, results: &[&ResultRecord]) -> GameFigures {
    let played = results.len() as i64;
    let wins = results.iter().filter(|r| r.won).count() as i64;
    let totals: Vec<i64> = results.iter().map(|r| r.total).collect();
    let (low, high) = (
        totals.iter().copied().min().unwrap_or(0),
        totals.iter().copied().max().unwrap_or(0),
    );
    let (best, worst) = if lower_is_better(game) {
        (low, high)
    } else {
        (high, low)
    };
    GameFigures {
        game: game.to_owned(),
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
    let mut by_game: BTreeMap<&str, Vec<&ResultRecord>> = BTreeMap::new();
    for r in results {
        by_game.entry(r.game.as_str()).or_default().push(r);
    }
    let favourite_game = by_game
        .iter()
        .max_by_key(|(_, rs)| (rs.len(), rs.last().map(|r| r.played_at)))
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
        per_game: by_game.iter().map(|(g, rs)| figures(g, rs)).collect(),
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
    pub average_score: f64,
    pub average_rank: f64,
}

/// Ranks players: by the sort key, then wins, then games played, then name. Equal keys share
/// a rank (competition ranking).
pub fn leaderboard(
    rows: Vec<LeaderRow>,
    sort: LeaderboardSort,
    game: Option<&str>,
    min_games: i64,
) -> Vec<LeaderboardEntry> {
    let lower_better = game.is_some_and(lower_is_better);
    let mut entries: Vec<LeaderboardEntry> = rows
        .into_iter()
        .filter(|r| r.played >= min_games && r.played > 0)
        .map(|r| LeaderboardEntry {
            rank: 0,
            win_rate: ratio(r.wins, r.played),
            average_score: round3(r.total_sum as f64 / r.played as f64),
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
            LeaderboardSort::AverageScore if lower_better => -e.average_score,
            LeaderboardSort::AverageScore => e.average_score,
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

/// The game's statistics: plays, scores, records, and what only a rule-aware service knows.
pub fn game_insights(game: &str, rows: &GameStatsRows) -> Value {
    let per_result = |sum: i64| {
        if rows.results == 0 {
            0.0
        } else {
            round3(sum as f64 / rows.results as f64)
        }
    };
    let facts: BTreeMap<&str, &FactTotal> =
        rows.facts.iter().map(|f| (f.key.as_str(), f)).collect();
    let sum = |key: &str| facts.get(key).map_or(0, |f| f.sum);
    let with_prefix = |prefix: &str| -> Vec<(&str, &FactTotal)> {
        facts
            .iter()
            .filter_map(|(k, f)| k.strip_prefix(prefix).map(|rest| (rest, *f)))
            .collect()
    };
    let mut insights = Map::new();
    match game {
        "mint-condition" => {
            let damage: Map<String, Value> = with_prefix("damage:")
                .into_iter()
                .map(|(kind, f)| (kind.to_owned(), json!(per_result(f.sum))))
                .collect();
            insights.insert("average_damage_per_card_kind".into(), Value::Object(damage));
            let decided = sum("be_careful_decided");
            insights.insert(
                "be_careful_decided".into(),
                json!({"games": decided, "share": ratio(decided, rows.plays),
                       "meaning": "games whose winners would differ without any Be Careful! damage"}),
            );
            let tiebreaks = sum("tiebreak_decided");
            insights.insert(
                "tiebreak_decided".into(),
                json!({"games": tiebreaks, "share": ratio(tiebreaks, rows.plays)}),
            );
        }
        "mind-up" => {
            let mut columns = Map::new();
            for value in 1..=5 {
                let points = sum(&format!("column:{value}:points"));
                let cards = sum(&format!("column:{value}:cards"));
                columns.insert(
                    value.to_string(),
                    json!({"average_points_per_game": per_result(points), "average_cards_per_game": per_result(cards)}),
                );
            }
            insights.insert("column_values".into(), Value::Object(columns));
            insights.insert(
                "average_bubbles_per_game".into(),
                json!(per_result(sum("bubbles"))),
            );
            let mut rates = Map::new();
            for (face, seen) in with_prefix("objective:") {
                if let Some(face) = face.strip_suffix(":seen") {
                    let hits = sum(&format!("objective:{face}:hit"));
                    rates.insert(face.to_owned(), json!({"hit_rate": ratio(hits, seen.sum), "hits": hits, "chances": seen.sum}));
                }
            }
            insights.insert("objective_hit_rates".into(), Value::Object(rates));
        }
        "mint-julep" => {
            let mut horses = Map::new();
            for (horse, bets) in with_prefix("bet:") {
                let won = sum(&format!("bet_won:{horse}"));
                let points = sum(&format!("bet_points:{horse}"));
                horses.insert(
                    horse.to_owned(),
                    json!({"bets": bets.sum, "bettor_won": won, "win_rate": ratio(won, bets.sum),
                           "average_points": if bets.sum == 0 { 0.0 } else { round3(points as f64 / bets.sum as f64) },
                           "races_won": sum(&format!("winning_horse:{horse}"))}),
                );
            }
            insights.insert("horses".into(), Value::Object(horses));
            let late = sum("late_bets");
            let penalty = sum("late_penalty");
            insights.insert(
                "late_bets".into(),
                json!({"bets": late, "total_penalty": penalty,
                       "average_penalty": if late == 0 { 0.0 } else { round3(penalty as f64 / late as f64) }}),
            );
        }
        "vintage" => {
            insights.insert(
                "average_collection_value".into(),
                json!(per_result(sum("collection_value"))),
            );
            insights.insert(
                "average_collection_cards".into(),
                json!(per_result(sum("collection_cards"))),
            );
            let prizes: Map<String, Value> = with_prefix("prize:")
                .into_iter()
                .map(|(prize, f)| {
                    (
                        prize.to_owned(),
                        json!({"times_scored": f.count, "points": f.sum}),
                    )
                })
                .collect();
            insights.insert("prizes".into(), Value::Object(prizes));
        }
        _ => {}
    }
    Value::Object(insights)
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
            let Some((game, log)) = store.events(club, id).await? else {
                continue;
            };
            let kind = Game::from_id(&game.game)
                .ok_or_else(|| StoreError::Corrupt(format!("unknown game {}", game.game)))?;
            let log: Vec<_> = log.iter().map(to_log_event).collect();
            let evaluation = kind
                .evaluate_with_facts(&log)
                .map_err(|e| StoreError::Corrupt(format!("game {id}: {e}")))?;
            let result =
                game_result(&game, &evaluation).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            finished += usize::from(result.is_some());
            store.replace_result(club, &game, result.as_ref()).await?;
            replayed += 1;
        }
        tracing::info!(replayed, finished, "rebuilding statistics");
    }
    Ok((replayed, finished))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn result(day: u32, game: &str, total: i64, rank: i64) -> ResultRecord {
        ResultRecord {
            game_id: format!("g{day}"),
            game: game.into(),
            played_at: Utc.with_ymd_and_hms(2026, 11, day, 19, 0, 0).unwrap(),
            total,
            rank,
            won: rank == 1,
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
    fn the_leaderboard_shares_ranks_and_drops_players_below_min_games() {
        let row = |name: &str, played, wins, total_sum| LeaderRow {
            player_id: name.to_lowercase(),
            name: name.into(),
            played,
            wins,
            total_sum,
            rank_sum: played * 2,
        };
        let rows = vec![
            row("Ann", 4, 2, 120),
            row("Bo", 2, 1, 50),
            row("Cy", 4, 3, 160),
            row("Di", 1, 1, 10),
        ];

        let board = leaderboard(rows.clone(), LeaderboardSort::WinRate, None, 2);
        let by_score = leaderboard(
            rows,
            LeaderboardSort::AverageScore,
            Some("mint-condition"),
            1,
        );

        // Cy 3/4 = 0.75; Ann 2/4 = 0.5 and Bo 1/2 = 0.5 share rank 2 (Ann first: more wins).
        let names: Vec<(&str, i64)> = board.iter().map(|e| (e.name.as_str(), e.rank)).collect();
        assert_eq!(names, vec![("Cy", 1), ("Ann", 2), ("Bo", 2)]);
        // Damage: Di 10, Bo 25, Ann 30, Cy 40 — lowest first.
        let names: Vec<&str> = by_score.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, vec!["Di", "Bo", "Ann", "Cy"]);
    }
}
