//! The score pad's ratings in real Chromium: the club's table of one game with a player's
//! history as a chart, the favourite named before a game's first round, and each player's
//! rating change once it is finished — in English, French and Persian.

use serde_json::json;

use crate::browser::{Browser, browser_speaking};
use crate::helpers::{Backend, TestApp, TestClub, event, spawn_app};
use crate::pad::open_club;

/// Ann beats Bo twice at Mint Julep; then a game of Ann, Bo and Cy starts.
async fn history(app: &TestApp, club: &TestClub) -> String {
    for day in ["2026-03-01", "2026-03-08"] {
        let game = app
            .new_game(
                club,
                json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}],
                       "started_at": format!("{day}T19:00:00Z")}),
            )
            .await;
        let result = json!({"totals": {"Ann": 9, "Bo": 4}, "winners": ["Ann"], "source": "a test"});
        let reply = app
            .append(club, &game, Some(1), vec![event("result_recorded", result)])
            .await;
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
    app.new_game(
        club,
        json!({"game": "mint-julep", "players": [{"name": "Bo"}, {"name": "Ann"}, {"name": "Cy"}],
               "started_at": "2026-03-15T19:00:00Z"}),
    )
    .await
}

async fn speaking(languages: &str) -> Option<(TestApp, Browser)> {
    let browser = browser_speaking(languages).await?;
    let app = spawn_app(Backend::Sqlite)
        .await
        .expect("sqlite always runs");
    Some((app, browser))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ratings_view_ranks_the_club_and_a_game_names_its_favourite_and_its_changes() {
    let Some((app, b)) = speaking("en").await else {
        return;
    };
    let club = app.new_club().await;
    let next = history(&app, &club).await;

    // The club's table: Ann above Bo; Ann's history is a chart of her two games.
    open_club(&app, &b, &club, "#/ratings?game=mint-julep").await;
    let table = b
        .wait_text("table.ratings tbody", |t| {
            t.contains("Ann") && t.contains("Bo")
        })
        .await;
    assert!(table.find("Ann") < table.find("Bo"), "{table}");
    b.click("table.ratings tbody tr[data-player=\"Ann\"] button")
        .await;
    b.find(".rating-history svg.chart").await;
    let dots = b
        .js("return document.querySelectorAll('.rating-history svg.chart circle.dot').length;")
        .await;
    assert_eq!(dots, 2);
    b.screenshot("en-ratings", None).await;

    // Before its first round, the new game names Ann its favourite.
    b.goto(&app.url(&format!("/#/game/{next}"))).await;
    let favourite = b
        .wait_text(".game-ratings .favourite", |t| t.contains("Ann"))
        .await;
    assert!(
        favourite.contains("favourite") && favourite.contains('%'),
        "{favourite}"
    );

    // Once it is finished (Cy wins), each player's rating before and after it.
    let result =
        json!({"totals": {"Bo": 5, "Ann": 5, "Cy": 8}, "winners": ["Cy"], "source": "a test"});
    let reply = app
        .append(
            &club,
            &next,
            Some(1),
            vec![event("result_recorded", result)],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    b.client.refresh().await.expect("reload");
    let changes = b
        .wait_text(".game-ratings", |t| t.matches('→').count() == 3)
        .await;
    assert!(changes.contains("Cy: 0.0 →"), "{changes}");
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ratings_speak_french_and_persian() {
    for (language, heading, favourite) in [
        ("fr", "Niveaux", "favori"),
        ("fa", "رتبهٔ مهارت", "شانس اول"),
    ] {
        let Some((app, b)) = speaking(language).await else {
            return;
        };
        let club = app.new_club().await;
        let next = history(&app, &club).await;
        open_club(&app, &b, &club, "#/ratings?game=mint-julep").await;
        b.wait_text("main h1", |t| t == heading).await;
        b.wait_text("table.ratings tbody", |t| t.contains("Ann"))
            .await;
        b.screenshot(&format!("{language}-ratings"), None).await;
        b.goto(&app.url(&format!("/#/game/{next}"))).await;
        let shown = b
            .wait_text(".game-ratings .favourite", |t| t.contains("Ann"))
            .await;
        assert!(shown.contains(favourite), "{language}: {shown}");
        b.close().await;
    }
}
