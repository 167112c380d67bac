//! The OpenAPI document's examples cannot rot: every request example of `POST /v1/games` and
//! `POST /v1/games/{id}/events`, read from the document the server serves (generated from the
//! code), is replayed in order — each scenario's creation, then its steps — and each scenario
//! ends with the final scores `docs/` works out.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::helpers::{TestApp, expect_totals, totals};
use crate::on_both_backends;

on_both_backends!(every_example_of_the_document_replays_in_order);

/// Each scenario's status and totals after its last step, as `docs/` explains them.
fn expected_end(scenario: &str) -> (&'static str, Vec<(String, i64)>) {
    match scenario {
        "mint-condition" => ("finished", expect_totals(&[("Ann", 44), ("Bo", 40)])),
        "mind-up" => (
            "finished",
            expect_totals(&[("Ann", 82), ("Bo", 70), ("Cy", 87), ("Di", 78)]),
        ),
        "mint-julep" => (
            "finished",
            expect_totals(&[("Ann", 5), ("Bo", 0), ("Cy", -1)]),
        ),
        "mint-julep-finishes" => (
            "finished",
            expect_totals(&[("Ann", 5), ("Bo", 1), ("Cy", 2)]),
        ),
        "vintage" => (
            "finished",
            expect_totals(&[("Ann", 31), ("Bo", 26), ("Cy", 21)]),
        ),
        "vintage-collections" => (
            "finished",
            expect_totals(&[("Ann", 8), ("Bo", 6), ("Cy", 12)]),
        ),
        other => panic!("scenario {other:?} has no expected end here"),
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
                .post(
                    &format!("/v1/games/{game}/events"),
                    Some(&club.token),
                    body,
                )
                .await;
            assert_eq!(reply.status, 201, "{scenario} {step}: {}", reply.body);
        }
        let score = app.score(&club, game).await;
        let (status, expected) = expected_end(scenario);
        assert_eq!(
            (score["status"].clone(), totals(&score)),
            (json!(status), expected),
            "{scenario}"
        );
    }
}
