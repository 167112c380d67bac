//! Who a scoreboard names (API.md, Scores): `winners` only once the game is finished, `leaders`
//! while it is in progress, and neither for an abandoned game. Rounds from `statistics.rs`
//! (G1: round 1 Ann 2, Bo 4; after three rounds Ann 6, Bo 14; the lowest damage wins).

use serde_json::json;

use crate::helpers::{TestApp, event, totals};
use crate::on_both_backends;
use crate::statistics::{g1_rounds, mint_condition};

on_both_backends!(a_scoreboard_names_winners_only_when_the_game_is_finished);

async fn a_scoreboard_names_winners_only_when_the_game_is_finished(app: TestApp) {
    let club = app.new_club().await;
    let fresh = mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 0).await;
    let round_1 = mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 1).await;
    let finished = mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 3).await;
    let abandoned = mint_condition(&app, &club, "2026-01-10", ("Ann", "Bo"), g1_rounds(), 3).await;
    let reply = app
        .append(
            &club,
            &abandoned,
            Some(4),
            vec![event("abandon", json!({"reason": "the pub closed"}))],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);

    let fresh = app.score(&club, &fresh).await;
    let round_1 = app.score(&club, &round_1).await;
    let finished = app.score(&club, &finished).await;
    let abandoned = app.score(&club, &abandoned).await;

    // At its first event: everyone 0, nobody leads or has won.
    assert_eq!(totals(&fresh), vec![("Ann".into(), 0), ("Bo".into(), 0)]);
    assert_eq!(
        (&fresh["winners"], &fresh["leaders"]),
        (&json!([]), &json!([]))
    );
    // After round 1 (Ann 2, Bo 4): Ann leads.
    assert_eq!(round_1["status"], "in_progress");
    assert_eq!(
        (&round_1["winners"], &round_1["leaders"]),
        (&json!([]), &json!(["Ann"]))
    );
    // Finished (Ann 6, Bo 14): Ann has won.
    assert_eq!(finished["status"], "finished");
    assert_eq!(
        (&finished["winners"], &finished["leaders"]),
        (&json!(["Ann"]), &json!([]))
    );
    // Abandoned: the totals stay, nobody won.
    assert_eq!(abandoned["status"], "abandoned");
    assert_eq!(
        totals(&abandoned),
        vec![("Ann".into(), 6), ("Bo".into(), 14)]
    );
    assert_eq!(
        (&abandoned["winners"], &abandoned["leaders"]),
        (&json!([]), &json!([]))
    );
    assert_eq!(abandoned["tiebreak"], json!(null));
}
