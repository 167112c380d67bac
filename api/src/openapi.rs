//! The OpenAPI 3.1 document: paths are collected from the routes themselves, this adds the
//! title, the security scheme and the tags. `tabletally openapi` prints it; the committed
//! copy is `openapi/openapi.json`.

use actix_web::App;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::AppExt;

use crate::error::Problem;
use crate::live::{AppendedData, SnapshotData};
use crate::routes;
use crate::views;

/// The command that rewrites the committed document.
pub const REGENERATE: &str =
    "cargo run -p tabletally-api --bin tabletally -- openapi > openapi/openapi.json";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "tabletally",
        description = "Keeps score for physical card games. Events are the single source of truth; \
                       scores explain every point. Errors are application/problem+json (RFC 9457).",
        license(name = "MIT")
    ),
    modifiers(&ClubToken),
    // Schemas only query parameters name are not collected from the routes.
    components(schemas(Problem, views::GameId, views::GameStatus, AppendedData, SnapshotData)),
    tags(
        (name = "clubs", description = "Tenancy: a club and its bearer token"),
        (name = "games", description = "Games and their players"),
        (name = "events", description = "The game log: append and read"),
        (name = "scores", description = "Scoreboards replayed from the log"),
        (name = "access", description = "Tokens with scopes (admin, write, read) and share links (one game, read-only, expiring)"),
        (name = "live", description = "The live table: server-sent-event streams of a game and of the club's lobby, and the club's log in global order"),
        (name = "statistics", description = "Players, leaderboards, head-to-head and game insights over finished games"),
        (name = "portability", description = "A club's whole history in and out: export, import"),
        (name = "operations", description = "Health and readiness"),
    )
)]
struct ApiDoc;

struct ClubToken;

impl Modify for ClubToken {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "club_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "The club's token (POST /v1/clubs, scope admin), a token it issued \
                         (POST /v1/tokens, scope admin, write or read), or a share link's token \
                         (POST /v1/games/{id}/shares: one game, read-only). The two stream \
                         endpoints also take it as ?access_token=.",
                    ))
                    .build(),
            ),
        );
    }
}

/// The whole document, as the server serves it at `/openapi.json`.
pub fn document() -> utoipa::openapi::OpenApi {
    let (_, mut api) = App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(routes::configure)
        .split_for_parts();
    crate::language::describe(&mut api);
    api
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_openapi_document_matches_the_code() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        let generated = document()
            .to_pretty_json()
            .expect("the document serialises");
        assert!(
            committed.trim_end() == generated.trim_end(),
            "openapi/openapi.json is out of date with the code; regenerate it with:\n    {REGENERATE}"
        );
    }

    #[test]
    fn every_operation_under_v1_except_club_creation_requires_the_club_token() {
        let doc = document();
        for (path, item) in &doc.paths.paths {
            for (method, op) in [
                ("get", &item.get),
                ("post", &item.post),
                ("delete", &item.delete),
            ] {
                let Some(op) = op else { continue };
                let secured = op.security.as_ref().is_some_and(|s| !s.is_empty());
                let public = !path.starts_with("/v1/") || path == "/v1/clubs";
                assert_eq!(secured, !public, "{method} {path}");
            }
        }
    }

    /// Found by generating a client: a 403 the document did not list came back as "no answer".
    /// A read token is refused everything but reading, and only admin tokens manage tokens.
    #[test]
    fn every_operation_a_tokens_scope_can_refuse_lists_403() {
        let doc = document();
        let mut guarded = 0;
        for (path, item) in &doc.paths.paths {
            for (method, op) in [
                ("get", &item.get),
                ("post", &item.post),
                ("patch", &item.patch),
                ("put", &item.put),
                ("delete", &item.delete),
            ] {
                let Some(op) = op else { continue };
                let secured = op.security.as_ref().is_some_and(|s| !s.is_empty());
                let writes = method != "get";
                let admin_only = path.starts_with("/v1/tokens") || path == "/v1/club/token";
                if !(secured && (writes || admin_only)) {
                    continue;
                }
                guarded += 1;
                assert!(
                    op.responses.responses.contains_key("403"),
                    "{method} {path} does not list 403"
                );
            }
        }
        assert!(
            guarded >= 15,
            "only {guarded} guarded operations were found"
        );
    }

    /// Found by generating a client: a `$ref` to a schema the document did not hold.
    #[test]
    fn every_reference_of_the_document_resolves() {
        fn refs(value: &serde_json::Value, found: &mut Vec<String>) {
            match value {
                serde_json::Value::Object(map) => {
                    if let Some(serde_json::Value::String(r)) = map.get("$ref") {
                        found.push(r.clone());
                    }
                    map.values().for_each(|v| refs(v, found));
                }
                serde_json::Value::Array(items) => items.iter().for_each(|v| refs(v, found)),
                _ => {}
            }
        }
        let doc = serde_json::to_value(document()).unwrap();
        let mut found = Vec::new();
        refs(&doc, &mut found);
        assert!(!found.is_empty());
        for reference in found {
            let pointer = reference.trim_start_matches('#');
            assert!(
                doc.pointer(pointer).is_some(),
                "{reference} does not resolve"
            );
        }
    }

    #[test]
    fn the_documented_game_ids_are_the_games_there_are() {
        let doc = serde_json::to_value(document()).unwrap();
        let documented = &doc["components"]["schemas"]["GameId"]["enum"];
        let games: Vec<&str> = tabletally_domain::Game::ALL
            .iter()
            .map(|g| g.id())
            .collect();
        assert_eq!(documented, &serde_json::json!(games));
    }

    /// Found by fuzzing: a house rule's value is a string, a number, an object or null, and
    /// the document once said "object".
    #[test]
    fn a_house_rule_value_may_be_any_json() {
        let doc = serde_json::to_value(document()).unwrap();
        let value = &doc["components"]["schemas"]["HouseRuleView"]["properties"]["value"];
        assert!(value.is_object() && value.get("type").is_none(), "{value}");
    }
}
