//! `tabletally migrate`: every club copied into an empty database through the export and
//! import path, then checked game by game and statistic by statistic.

use std::sync::Arc;

use tabletally_domain::Game;

use super::{EXPORT_PAGE, ImportReport, copy_line, export, is_game_line};
use crate::records::to_log_event;
use crate::store::{Store, StoreError, StoredEvent};

/// Progress of a long run on standard error: one line rewritten in place on a terminal, a log
/// line every few seconds otherwise.
pub struct Progress {
    what: &'static str,
    done: u64,
    terminal: bool,
    last: std::time::Instant,
}

impl Progress {
    pub fn new(what: &'static str) -> Self {
        use std::io::IsTerminal;
        Self {
            what,
            done: 0,
            terminal: std::io::stderr().is_terminal(),
            last: std::time::Instant::now(),
        }
    }

    pub fn tick(&mut self) {
        self.done += 1;
        let every = if self.terminal {
            std::time::Duration::from_millis(200)
        } else {
            std::time::Duration::from_secs(5)
        };
        if self.last.elapsed() >= every {
            self.last = std::time::Instant::now();
            self.show();
        }
    }

    pub fn finish(&mut self) {
        self.show();
        if self.terminal {
            eprintln!();
        }
    }

    fn show(&self) {
        if self.terminal {
            eprint!("\r{}: {} games", self.what, self.done);
        } else {
            tracing::info!(games = self.done, "{}", self.what);
        }
    }
}

/// Why `tabletally migrate` stopped.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("the target database already holds {0} club(s); migrate into an empty database")]
    TargetNotEmpty(usize),
    #[error(
        "line {line} of club {club}'s export{} could not be copied: {detail}",
        if .game.is_empty() { String::new() } else { format!(" (game {})", .game) }
    )]
    Copy {
        club: String,
        /// The line of the club's export (its players and presets come first).
        line: u64,
        /// Empty when the line is a player or a preset.
        game: String,
        detail: String,
    },
    #[error("after the copy, {0}")]
    Differs(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a migration copied and checked.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Migrated {
    pub clubs: u64,
    pub games: u64,
    /// Statistics answers compared on both databases.
    pub statistics: u64,
}

/// Copies every club — its token hashes (the club's and its scoped tokens'), and through the
/// export and import path its players with their ids, its presets and every game — from
/// `source` into the empty `target`, then checks that every game and every statistic answers
/// the same on both.
pub async fn migrate(source: Arc<dyn Store>, target: &dyn Store) -> Result<Migrated, MigrateError> {
    let already = target.clubs().await?.len();
    if already > 0 {
        return Err(MigrateError::TargetNotEmpty(already));
    }
    let clubs = source.clubs().await?;
    let mut progress = Progress::new("copied");
    for club in &clubs {
        // The club's row; its players come with the export's lines, as in any move.
        target
            .copy_club(&crate::store::ClubCopy {
                players: Vec::new(),
                ..club.clone()
            })
            .await?;
        let mut lines = std::pin::pin!(export(source.clone(), club.id.clone()));
        // One report for the club's games, as an import keeps: it counts the games copied, and
        // a long copy refreshes PostgreSQL's planner statistics at the same counts.
        let mut report = ImportReport::default();
        let mut number = 0;
        while let Some(line) = futures_util::TryStreamExt::try_next(&mut lines).await? {
            number += 1;
            let text = String::from_utf8_lossy(&line);
            copy_line(target, &club.id, number, text.trim_end(), &mut report).await;
            if let Some(failure) = report.failed.pop() {
                return Err(MigrateError::Copy {
                    club: club.id.clone(),
                    line: failure.line,
                    game: failure.game_id.unwrap_or_default(),
                    detail: failure.detail.english(),
                });
            }
            if is_game_line(&line) {
                progress.tick();
            }
        }
        // Scoped tokens keep working on the copy (their hashes move); share links are short-lived
        // and name one game on one server, so they are made anew.
        for token in source.access_tokens(&club.id).await? {
            target.create_access_token(&token).await?;
        }
    }
    progress.finish();
    let mut migrated = verify(source.as_ref(), target, &clubs).await?;
    migrated.clubs = clubs.len() as u64;
    Ok(migrated)
}

/// Every game's log and score, and every statistic, compared on both databases.
async fn verify(
    source: &dyn Store,
    target: &dyn Store,
    clubs: &[crate::store::ClubCopy],
) -> Result<Migrated, MigrateError> {
    use crate::store::StatsFilter;
    let differs = |what: String| MigrateError::Differs(what);
    let mut checked = Migrated::default();
    let mut progress = Progress::new("checked");
    for club in clubs {
        let copied: Vec<_> = target
            .clubs()
            .await?
            .into_iter()
            .filter(|c| c.id == club.id)
            .collect();
        if copied.as_slice() != std::slice::from_ref(club) {
            return Err(differs(format!(
                "club {} (its name, token or players) differs",
                club.id
            )));
        }
        if source.access_tokens(&club.id).await? != target.access_tokens(&club.id).await?
            || source.presets(&club.id, None).await? != target.presets(&club.id, None).await?
        {
            return Err(differs(format!(
                "club {}'s tokens or presets differ",
                club.id
            )));
        }
        let mut after: Option<String> = None;
        loop {
            let ids = source
                .club_game_ids(&club.id, after.as_deref(), EXPORT_PAGE)
                .await?;
            let Some(last) = ids.last() else { break };
            after = Some(last.clone());
            for id in &ids {
                let (a, b) = (
                    source.events(&club.id, id).await?,
                    target.events(&club.id, id).await?,
                );
                let (Some((game_a, log_a)), Some((game_b, log_b))) = (a, b) else {
                    return Err(differs(format!("game {id} is missing")));
                };
                let same_log = log_a.len() == log_b.len()
                    && log_a.iter().zip(&log_b).all(|(x, y)| {
                        (
                            x.seq,
                            &x.id,
                            &x.event_type,
                            &x.data,
                            x.schema_version,
                            x.recorded_at,
                            &x.recorded_by,
                        ) == (
                            y.seq,
                            &y.id,
                            &y.event_type,
                            &y.data,
                            y.schema_version,
                            y.recorded_at,
                            &y.recorded_by,
                        )
                    });
                if !same_log
                    || (game_a.status.as_str(), game_a.version)
                        != (game_b.status.as_str(), game_b.version)
                {
                    return Err(differs(format!("game {id}'s log or status differs")));
                }
                let kind = Game::from_id(&game_a.game)
                    .ok_or_else(|| differs(format!("game {id} has an unknown kind")))?;
                let score = |log: &[StoredEvent]| {
                    kind.evaluate(&log.iter().map(to_log_event).collect::<Vec<_>>())
                        .map(|e| e.scoreboard)
                        .map_err(|e| differs(format!("game {id} does not replay: {e}")))
                };
                if score(&log_a)? != score(&log_b)? {
                    return Err(differs(format!("game {id}'s score differs")));
                }
                checked.games += 1;
                progress.tick();
            }
        }
        let mut filters = vec![StatsFilter::default()];
        for kind in Game::ALL {
            let variants = std::iter::once("").chain(kind.variants().iter().map(|v| v.id));
            for variant in variants {
                filters.push(StatsFilter {
                    game: Some(kind.id().to_owned()),
                    variant: Some(variant.to_owned()),
                    ..StatsFilter::default()
                });
            }
        }
        // Both databases' noted finishes added, as a read of their statistics does first.
        source.settle_statistics(&club.id).await?;
        target.settle_statistics(&club.id).await?;
        for filter in &filters {
            let sorted = |mut rows: Vec<crate::store::LeaderRow>| {
                rows.sort_by(|x, y| x.player_id.cmp(&y.player_id));
                rows
            };
            if sorted(source.leaderboard(&club.id, filter).await?)
                != sorted(target.leaderboard(&club.id, filter).await?)
            {
                return Err(differs(format!(
                    "club {}'s leaderboard ({:?}) differs",
                    club.id, filter.game
                )));
            }
            if let Some(game) = &filter.game
                && source.game_stats(&club.id, game, filter).await?
                    != target.game_stats(&club.id, game, filter).await?
            {
                return Err(differs(format!(
                    "club {}'s statistics of {game} differ",
                    club.id
                )));
            }
            checked.statistics += 2;
        }
        for player in &club.players {
            let filter = StatsFilter::default();
            if source
                .results_of_player(&club.id, &player.id, &filter)
                .await?
                != target
                    .results_of_player(&club.id, &player.id, &filter)
                    .await?
            {
                return Err(differs(format!("player {}'s results differ", player.name)));
            }
            checked.statistics += 1;
        }
    }
    progress.finish();
    Ok(checked)
}
