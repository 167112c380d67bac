//! The OpenAPI document's examples cannot rot: every request example of `POST /v1/games` and
//! `POST /v1/games/{id}/events`, read from the document the server serves (generated from the
//! code), is replayed in order — each scenario's creation, then its steps — and each scenario
//! ends with the final score the game's page in `docs/` works out ("Final score: Ann 44, Bo 40.").

use std::collections::BTreeMap;

use serde_json::Value;

use crate::helpers::{TestApp, totals};
use crate::on_both_backends;

on_both_backends!(every_example_of_the_document_replays_in_order);

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
