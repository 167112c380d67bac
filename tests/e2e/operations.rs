//! Health, readiness, the OpenAPI document and Swagger UI.

use crate::helpers::TestApp;
use crate::on_both_backends;

on_both_backends!(
    the_service_reports_health_and_readiness,
    the_openapi_document_and_swagger_ui_are_served,
    docs_without_a_slash_redirects_to_swagger_ui
);

async fn the_service_reports_health_and_readiness(app: TestApp) {
    let health = app.get("/healthz", None).await;
    let ready = app.get("/readyz", None).await;

    assert_eq!(health.status, 200);
    assert_eq!(ready.status, 200);
    let backend = match app.backend {
        crate::helpers::Backend::Sqlite => "sqlite",
        crate::helpers::Backend::Postgres => "postgres",
    };
    assert_eq!(ready.body["database"], backend);
}

async fn the_openapi_document_and_swagger_ui_are_served(app: TestApp) {
    let doc = app.get("/openapi.json", None).await;
    let ui = app.client.get(app.url("/docs/")).send().await.unwrap();

    assert_eq!(doc.status, 200);
    assert_eq!(doc.body["openapi"], "3.1.0");
    assert!(doc.body["paths"]["/v1/games/{id}/events"]["post"].is_object());
    assert_eq!(ui.status(), 200);
    assert!(
        ui.text().await.unwrap().contains("swagger"),
        "Swagger UI page"
    );
}

async fn docs_without_a_slash_redirects_to_swagger_ui(app: TestApp) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();

    let reply = client.get(app.url("/docs")).send().await.unwrap();

    assert_eq!(reply.status(), 308);
    assert_eq!(reply.headers()["location"], "/docs/");
}
