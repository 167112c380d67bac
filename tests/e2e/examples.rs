//! The OpenAPI document's examples cannot rot: every request example of `POST /v1/games` and
//! `POST /v1/games/{id}/events`, read from the document the server serves (generated from the
//! code), is replayed in order — each scenario's creation, then its steps — and each scenario
//! ends with the final score the game's page in `docs/` works out ("Final score: Ann 44, Bo 40.").
//! The request examples of presets, player rename and merge, tokens and share links are sent as
//! well, each where it applies (a merge's `into` stands for a player of the club: the test puts
//! in a real one).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::helpers::{TestApp, totals};
use crate::on_both_backends;

on_both_backends!(
    every_example_of_the_document_replays_in_order,
    the_other_request_examples_of_the_document_succeed,
);

/// The page of `docs/` that works each scenario out.
fn docs_page(scenario: &str) -> &'static str {
    match scenario {
        "mint-condition" => "mint-condition.md",
        "mind-up" => "mind-up.md",
        "mint-julep" | "mint-julep-finishes" => "mint-julep.md",
        "vintage" | "vintage-collections" => "vintage.md",
        other => panic!("scenario {other:?} has no page in docs/"),
    }
}

fn examples<'a>(doc: &'a Value, path: &str) -> &'a serde_json::Map<String, Value> {
    doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["examples"]
        .as_object()
        .unwrap_or_else(|| panic!("{path} has request examples"))
}

/// The one request example of an operation: `example`, or the only entry of `examples`.
fn example<'a>(doc: &'a Value, method: &str, path: &str) -> &'a Value {
    let content = &doc["paths"][path][method]["requestBody"]["content"]["application/json"];
    if !content["example"].is_null() {
        return &content["example"];
    }
    let examples = content["examples"]
        .as_object()
        .unwrap_or_else(|| panic!("{method} {path} has a request example"));
    assert_eq!(examples.len(), 1, "{method} {path}: one example");
    examples.values().next().map(|e| &e["value"]).expect("one")
}

async fn every_example_of_the_document_replays_in_order(app: TestApp) {
    let club = app.new_club().await;
    let doc = app.get("/openapi.json", None).await.body;
    let creations = examples(&doc, "/v1/games");
    // "<scenario> <step>" → the scenario's steps in order.
    let mut steps: BTreeMap<&str, BTreeMap<u32, &Value>> = BTreeMap::new();
    for (name, example) in examples(&doc, "/v1/games/{id}/events") {
        let (scenario, step) = name
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("example {name:?} is named <scenario> <step>"));
        let step: u32 = step.parse().expect("a step number");
        steps
            .entry(scenario)
            .or_default()
            .insert(step, &example["value"]);
    }
    assert_eq!(
        steps.keys().copied().collect::<Vec<_>>(),
        creations.keys().map(String::as_str).collect::<Vec<_>>(),
        "every scenario has a creation example and steps"
    );

    for (scenario, steps) in steps {
        let created = app
            .post(
                "/v1/games",
                Some(&club.token),
                &creations[scenario]["value"],
            )
            .await;
        assert_eq!(created.status, 201, "{scenario}: {}", created.body);
        let game = created.body["id"].as_str().expect("an id");
        assert_eq!(
            steps.keys().copied().collect::<Vec<_>>(),
            (1..=steps.len() as u32).collect::<Vec<_>>(),
            "{scenario}: steps 1, 2, 3 … without gaps"
        );
        for (step, body) in steps {
            let reply = app
                .post(&format!("/v1/games/{game}/events"), Some(&club.token), body)
                .await;
            assert_eq!(reply.status, 201, "{scenario} {step}: {}", reply.body);
        }
        // The page walks through the same game: its "Final score" line is the server's.
        let score = app.score(&club, game).await;
        assert_eq!(score["status"], "finished", "{scenario}");
        let seats = created.body["players"].as_array().expect("players");
        let final_line = seats
            .iter()
            .map(|seat| {
                let name = seat["name"].as_str().expect("a name");
                let total = totals(&score)
                    .into_iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, t)| t)
                    .expect("a total");
                format!("{name} {total}")
            })
            .collect::<Vec<_>>()
            .join(", ");
        let page = docs_page(scenario);
        let text =
            std::fs::read_to_string(format!("{}/../docs/{page}", env!("CARGO_MANIFEST_DIR")))
                .expect("the docs page");
        assert!(
            text.contains(&format!("Final score: {final_line}.")),
            "docs/{page} does not say \"Final score: {final_line}.\" for {scenario}"
        );
    }
}

async fn the_other_request_examples_of_the_document_succeed(app: TestApp) {
    let club = app.new_club().await;
    let doc = app.get("/openapi.json", None).await.body;
    // A table where `Anne` was a typo and `Bea` a second spelling of Bo.
    let seats = |game: &str, names: [&str; 2]| json!({"game": game, "players": [{"name": names[0]}, {"name": names[1]}]});
    let first = app
        .post(
            "/v1/games",
            Some(&club.token),
            &seats("mint-condition", ["Anne", "Bo"]),
        )
        .await;
    assert_eq!(first.status, 201, "{}", first.body);
    let second = app
        .post(
            "/v1/games",
            Some(&club.token),
            &seats("mint-condition", ["Bea", "Cy"]),
        )
        .await;
    assert_eq!(second.status, 201, "{}", second.body);
    let player = |game: &Value, seat: usize| -> String {
        game["players"][seat]["player_id"]
            .as_str()
            .expect("a player id")
            .to_owned()
    };
    let (anne, bo, bea) = (
        player(&first.body, 0),
        player(&first.body, 1),
        player(&second.body, 0),
    );
    let game = first.body["id"].as_str().expect("an id");

    // Renaming: Anne becomes the example's name.
    let rename = example(&doc, "patch", "/v1/players/{id}");
    let renamed = app
        .patch(&format!("/v1/players/{anne}"), Some(&club.token), rename)
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    assert_eq!(renamed.body["name"], rename["name"]);

    // Merging: the example's shape, with Bo as the player who stays.
    let mut merge = example(&doc, "post", "/v1/players/{id}/merge").clone();
    assert!(
        merge["into"].is_string(),
        "the example names the player who stays"
    );
    merge["into"] = json!(bo);
    let merged = app
        .post(
            &format!("/v1/players/{bea}/merge"),
            Some(&club.token),
            &merge,
        )
        .await;
    assert_eq!(merged.status, 200, "{}", merged.body);
    assert_eq!(merged.body["id"], json!(bo));

    // A token for another phone and a share link of the game.
    let token = app
        .post(
            "/v1/tokens",
            Some(&club.token),
            example(&doc, "post", "/v1/tokens"),
        )
        .await;
    assert_eq!(token.status, 201, "{}", token.body);
    let share = app
        .post(
            &format!("/v1/games/{game}/shares"),
            Some(&club.token),
            example(&doc, "post", "/v1/games/{id}/shares"),
        )
        .await;
    assert_eq!(share.status, 201, "{}", share.body);

    // A preset, then a game started with it holds the preset's options.
    let preset = example(&doc, "post", "/v1/presets");
    let saved = app.post("/v1/presets", Some(&club.token), preset).await;
    assert_eq!(saved.status, 201, "{}", saved.body);
    let started = app
        .post(
            "/v1/games",
            Some(&club.token),
            &json!({
                "game": preset["game"],
                "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}],
                "preset": preset["name"],
            }),
        )
        .await;
    assert_eq!(started.status, 201, "{}", started.body);
    assert_eq!(
        started.body["options"]["prizes"],
        preset["options"]["prizes"]
    );
    assert_eq!(started.body["options"]["deck"], preset["options"]["deck"]);
}
