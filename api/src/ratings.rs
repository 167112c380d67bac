//! Players' skill ratings: Weng-Lin with the Bradley–Terry full-pairing update (Weng & Lin 2011,
//! the model OpenSkill calls `BradleyTerryFull`): μ₀ = 25, σ₀ = 25/3, β = 25/6, κ = 0.0001 and no
//! added dynamics (τ = 0), whatever the number of players. Each player is a team of one, ranked
//! by the game's final standings; players still tied after the rules' tie-breaks share a rank.
//! The update is the `skillratings` crate's; the chances to win are OpenSkill's `predict_win`.

use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

/// A new player's mean.
pub const MU: f64 = 25.0;
/// A new player's uncertainty.
pub const SIGMA: f64 = 25.0 / 3.0;
/// The spread of one game's performance around a player's skill.
pub const BETA: f64 = 25.0 / 6.0;
/// The least share of its variance a rating keeps after a game.
pub const KAPPA: f64 = 0.0001;

/// A player's rating: the mean of their skill and its uncertainty.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    pub mu: f64,
    pub sigma: f64,
}

impl Rating {
    /// Where every player starts.
    pub const NEW: Rating = Rating {
        mu: MU,
        sigma: SIGMA,
    };

    /// The conservative rating shown and ranked by: μ − 3σ (a new player's is 0).
    pub fn ordinal(self) -> f64 {
        self.mu - 3.0 * self.sigma
    }
}

fn config() -> WengLinConfig {
    WengLinConfig {
        beta: BETA,
        uncertainty_tolerance: KAPPA,
    }
}

/// Every seat's rating after a game, in the order given: each seat's rating before it and its
/// rank (1 the best; tied seats share one).
pub fn rate(table: &[(Rating, i64)]) -> Vec<Rating> {
    let teams: Vec<[WengLinRating; 1]> = table
        .iter()
        .map(|(rating, _)| {
            [WengLinRating {
                rating: rating.mu,
                uncertainty: rating.sigma,
            }]
        })
        .collect();
    let outcome: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(table)
        .map(|(team, (_, rank))| {
            (
                team.as_slice(),
                MultiTeamOutcome::new(usize::try_from(*rank).unwrap_or(usize::MAX)),
            )
        })
        .collect();
    weng_lin_multi_team(&outcome, &config())
        .into_iter()
        .map(|team| Rating {
            mu: team[0].rating,
            sigma: team[0].uncertainty,
        })
        .collect()
}

/// Each seat's chance to win a game about to start (OpenSkill's `predict_win`): for each pair,
/// Φ((μᵢ − μⱼ) / √(2β² + σᵢ² + σⱼ²)) that the first finishes ahead; a seat's chance is its mean
/// over the others, the whole table's summing to 1. One seat alone wins for sure.
pub fn win_chances(table: &[Rating]) -> Vec<f64> {
    let n = table.len();
    if n < 2 {
        return vec![1.0; n];
    }
    let ahead = |a: Rating, b: Rating| {
        let c = (2.0 * BETA * BETA + a.sigma * a.sigma + b.sigma * b.sigma).sqrt();
        normal_cdf((a.mu - b.mu) / c)
    };
    let wins: Vec<f64> = table
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            let sum: f64 = table
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, &b)| ahead(a, b))
                .sum();
            sum / (n - 1) as f64
        })
        .collect();
    let total: f64 = wins.iter().sum();
    wins.into_iter().map(|w| w / total).collect()
}

/// The standard normal distribution's CDF.
fn normal_cdf(x: f64) -> f64 {
    0.5 * (1.0 + libm::erf(x / std::f64::consts::SQRT_2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn a_new_players_ordinal_is_zero() {
        assert!(Rating::NEW.ordinal().abs() < 1e-12);
    }

    #[test]
    fn the_winner_of_two_new_players_rises_and_the_loser_falls_by_as_much() {
        // Two new players: c = √(2·(25/3)² + 2·(25/6)²) = 13.176…, p = ½, so the winner's μ
        // rises by σ²/c · ½ = 2.6352… and the loser's falls by as much.
        let after = rate(&[(Rating::NEW, 1), (Rating::NEW, 2)]);
        let c = (2.0 * SIGMA * SIGMA + 2.0 * BETA * BETA).sqrt();
        let step = SIGMA * SIGMA / c * 0.5;
        assert!(close(after[0].mu, MU + step), "{after:?}");
        assert!(close(after[1].mu, MU - step), "{after:?}");
        assert!(close(after[0].sigma, after[1].sigma));
        assert!(after[0].sigma < SIGMA);
    }

    #[test]
    fn two_new_players_who_tie_keep_their_means() {
        let after = rate(&[(Rating::NEW, 1), (Rating::NEW, 1)]);
        assert!(
            close(after[0].mu, MU) && close(after[1].mu, MU),
            "{after:?}"
        );
    }

    /// OpenSkill 6.2.0's `predict_win` for these tables (printed by the reference script).
    #[test]
    fn the_chances_to_win_are_openskills() {
        let table = |t: &[(f64, f64)]| -> Vec<Rating> {
            t.iter().map(|&(mu, sigma)| Rating { mu, sigma }).collect()
        };
        let three = win_chances(&table(&[(25.0, 25.0 / 3.0), (30.0, 5.0), (20.0, 7.0)]));
        for (got, want) in three.iter().zip([0.328962, 0.500414, 0.170624]) {
            assert!((got - want).abs() < 1e-5, "{three:?}");
        }
        let four = win_chances(&table(&[
            (35.0, 2.0),
            (28.0, 4.0),
            (22.0, 6.0),
            (18.0, 1.0),
        ]));
        for (got, want) in four.iter().zip([0.459699, 0.30502, 0.167941, 0.06734]) {
            assert!((got - want).abs() < 1e-5, "{four:?}");
        }
        assert!(close(three.iter().sum::<f64>(), 1.0));
    }
}
