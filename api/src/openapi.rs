//! The OpenAPI 3.1 document: paths are collected from the routes themselves, this adds the
//! title, the security scheme and the tags. `tabletally openapi` prints it; the committed
//! copy is `openapi/openapi.json`.

use actix_web::App;
use serde_json::{Value, json};
use utoipa::openapi::schema::{AllOfBuilder, AnyOfBuilder, Object, OneOfBuilder, Schema};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{Content, RefOr};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::AppExt;

use crate::error::Problem;
use crate::examples;
use crate::live::{AppendedData, SnapshotData};
use crate::routes;
use crate::views;
use tabletally_domain::Game;

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
    // Schemas the routes name only in query parameters or refusals (`routes::problems`) are
    // not collected from them.
    components(schemas(Problem, views::GameId, views::GameStatus, AppendedData, SnapshotData)),
    tags(
        (name = "clubs", description = "Tenancy: a club and its bearer token"),
        (name = "games", description = "Games and their players"),
        (name = "events", description = "The game log: append and read"),
        (name = "scores", description = "Scoreboards replayed from the log"),
        (name = "access", description = "Tokens with scopes (admin, write, read) and share links (one game, read-only, expiring)"),
        (name = "live", description = "The live table: server-sent-event streams of a game and of the club's lobby, and the club's log in global order"),
        (name = "statistics", description = "Players, leaderboards, head-to-head, skill ratings and game insights over finished games"),
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
    // What the derive macros cannot say: each stream event's JSON, a player's name-or-id, each
    // game's own preset options, and which game each example of an append belongs to.
    describe_stream_events(&mut api);
    a_player_needs_a_name_or_an_id(&mut api);
    preset_options_per_game(&mut api);
    new_game_per_game(&mut api);
    append_examples_name_their_game(&mut api);
    crate::language::describe(&mut api);
    routes::read_from::describe_read_headers(&mut api);
    api
}

/// A schema written as JSON: leaves only (no `oneOf`/`anyOf`/`allOf`, which the builders make).
fn leaf(schema: Value) -> RefOr<Schema> {
    match serde_json::from_value::<Object>(schema) {
        Ok(object) => RefOr::T(Schema::Object(object)),
        Err(e) => panic!("a schema of the document does not read: {e}"),
    }
}

fn reference(name: &str) -> RefOr<Schema> {
    RefOr::Ref(utoipa::openapi::Ref::from_schema_name(name))
}

/// One SSE event as a client's parser sees it (the fields `event`, `id` and `data`): `data` is
/// JSON text whose content is the named schema.
fn sse_event(kinds: &[&str], data_schema: &str) -> RefOr<Schema> {
    let mut event = leaf(json!({
        "type": "object",
        "required": ["event", "id", "data"],
        "properties": {
            "event": {"type": "string", "enum": kinds},
            "id": {"type": "string", "pattern": "^[0-9]+$",
                   "description": "The game's version after this event (a game's stream), or a position of the club's log (the lobby): send it back as Last-Event-ID"},
            "data": {"type": "string", "contentMediaType": "application/json",
                     "description": format!("JSON text of a {data_schema}")}
        }
    }));
    if let RefOr::T(Schema::Object(object)) = &mut event
        && let Some(RefOr::T(Schema::Object(data))) = object.properties.get_mut("data")
    {
        data.content_schema = Some(Box::new(reference(data_schema)));
    }
    event
}

/// The two streams: each event kind with the JSON schema of its `data` (OpenAPI's
/// `itemSchema`: the schema of one event of the stream).
fn describe_stream_events(api: &mut utoipa::openapi::OpenApi) {
    let game = OneOfBuilder::new()
        .item(sse_event(&["snapshot"], "SnapshotData"))
        .item(sse_event(&["appended"], "AppendedData"));
    let lobby = sse_event(
        &[
            "game_created",
            "game_finished",
            "game_abandoned",
            "game_resumed",
        ],
        "GameSummary",
    );
    for (path, item) in [
        ("/v1/games/{id}/stream", game.into()),
        ("/v1/stream", lobby),
    ] {
        let response = api
            .paths
            .paths
            .get_mut(path)
            .and_then(|p| p.get.as_mut())
            .and_then(|op| op.responses.responses.get_mut("200"));
        let Some(RefOr::T(response)) = response else {
            panic!("{path} has no 200 answer to describe");
        };
        let mut content = Content::default();
        content.item_schema = Some(item);
        response
            .content
            .insert("text/event-stream".to_owned(), RefOr::T(content));
    }
}

/// `PlayerInput`: its fields, and a `name` or a `player_id` (or both).
fn a_player_needs_a_name_or_an_id(api: &mut utoipa::openapi::OpenApi) {
    let Some(components) = api.components.as_mut() else {
        return;
    };
    let Some(fields) = components.schemas.remove("PlayerInput") else {
        panic!("PlayerInput is not in the document");
    };
    let one_of_the_two = AnyOfBuilder::new()
        .item(leaf(json!({"type": "object", "required": ["name"],
                          "properties": {"name": {"type": "string"}}})))
        .item(leaf(json!({"type": "object", "required": ["player_id"],
                          "properties": {"player_id": {"type": "string"}}})));
    components.schemas.insert(
        "PlayerInput".to_owned(),
        AllOfBuilder::new()
            .item(fields)
            .item(one_of_the_two)
            .description(Some("A seat: a `name`, or the `player_id` of one of the club's players, or both (then the name must be that player's)."))
            .into(),
    );
}

/// The options a game takes: every key, its JSON type and, where the type says it, its values.
/// What a value must satisfy beyond its shape (a Vintage prize's id given once, the limits of
/// points) is the game's own check, which `POST /v1/presets` states in words.
fn game_options(game: Game) -> Value {
    const U32: u64 = u32::MAX as u64;
    let text = json!({"type": "string", "minLength": 1, "pattern": r"\S"});
    let properties = match game {
        Game::MintCondition => json!({
            "lucky": {"type": "boolean", "description": "Variant \"Lucky\""},
            "heavily_used": {"type": "boolean", "description": "Variant \"Heavily Used\" (the highest total wins)"},
            "expert_cards": {"type": "boolean"},
            "strict_counts": {"type": "boolean"},
            "be_careful_when_none": {"type": "string", "enum": ["five", "zero"]},
            "memories_over_three": {"type": "string", "enum": ["free", "multiples_of_three"]},
            "sleeve_protects": {"type": "integer", "minimum": 0, "maximum": U32},
            "smoking_kills": {"type": ["object", "null"], "additionalProperties": false,
                "required": ["holder", "others"],
                "properties": {"holder": {"type": "integer", "minimum": 0, "maximum": U32},
                               "others": {"type": "integer", "minimum": 0, "maximum": U32}}},
            "tiebreak_scope": {"type": "string", "enum": ["game", "last_round"]},
            "protected_be_careful": {"type": "string", "enum": ["counts", "ignored"]},
        }),
        Game::MindUp => json!({
            "objectives": {"type": "integer", "minimum": 0, "maximum": 5},
            "cards": {"type": ["array", "null"], "items": {"type": "object", "additionalProperties": false,
                "required": ["number", "colour", "bubble"],
                "properties": {"number": {"type": "integer"}, "colour": {"type": "string"}, "bubble": {"type": "integer"}}}},
            "still_tied": {"type": "string", "enum": ["shared_win", "more_in_round_2"]},
            "d1_without_green": {"type": "string", "enum": ["nothing", "bonus"]},
        }),
        Game::MintJulep => json!({
            "split": {"type": "string", "enum": ["before_penalty", "after_penalty"]},
            "last_race_ends_game": {"type": "boolean"},
        }),
        Game::Vintage => json!({
            "prizes": {"type": "array", "maxItems": tabletally_domain::games::vintage::MAX_PRIZES,
                "items": {"type": "object", "additionalProperties": false,
                    "required": ["id", "name", "attribute", "value", "points"],
                    "properties": {"id": text, "name": {"type": "string"}, "attribute": {"type": "string"},
                                   "value": {"type": "string"}, "points": {"type": "integer", "format": "int64"}}}},
            "prize_tie": {"type": "string", "enum": ["nobody", "all", "split"]},
            "winner_tie": {"type": "string", "enum": ["shared", "most_prize_points"]},
            "deck": {"type": "object",
                "propertyNames": {"type": "string", "pattern": "^([1-9]|[1-5][0-9]|6[0-3])$"},
                "additionalProperties": {"type": "object", "additionalProperties": false,
                    "required": ["type", "colour", "period", "value"],
                    "properties": {"type": text, "colour": text, "period": text,
                                   "value": {"type": "integer", "minimum": 0, "maximum": U32}}}},
        }),
    };
    json!({"type": "object", "additionalProperties": false, "properties": properties})
}

/// `CreatePreset`: one shape per game, its `options` the keys that game takes.
fn preset_options_per_game(api: &mut utoipa::openapi::OpenApi) {
    let Some(components) = api.components.as_mut() else {
        return;
    };
    let Some(RefOr::T(Schema::Object(preset))) = components.schemas.remove("CreatePreset") else {
        panic!("CreatePreset is not in the document as an object");
    };
    let mut per_game = OneOfBuilder::new().description(preset.description.clone());
    for game in Game::ALL {
        let mut shape = preset.clone();
        shape.description = None;
        shape.title = Some(game.title().to_owned());
        shape.properties.insert(
            "game".to_owned(),
            leaf(json!({"type": "string", "enum": [game.id()]})),
        );
        let mut options = leaf(game_options(game));
        if let RefOr::T(Schema::Object(o)) = &mut options {
            o.description = Some(format!(
                "{}'s options; left-out options take their defaults when a game starts. At most \
                 16,384 bytes as compact JSON (422 beyond).",
                game.title()
            ));
        }
        shape.properties.insert("options".to_owned(), options);
        per_game = per_game.item(RefOr::T(Schema::Object(shape)));
    }
    components
        .schemas
        .insert("CreatePreset".to_owned(), per_game.into());
}

/// `CreateGame`: one shape per game (`NewMintConditionGame` …), each with the number of
/// players it seats and the options it takes. Each shape is a schema of its own, so that a
/// generated client has a model per game.
fn new_game_per_game(api: &mut utoipa::openapi::OpenApi) {
    let Some(components) = api.components.as_mut() else {
        return;
    };
    let Some(RefOr::T(Schema::Object(create))) = components.schemas.remove("CreateGame") else {
        panic!("CreateGame is not in the document as an object");
    };
    let mut per_game = OneOfBuilder::new()
        .description(create.description.clone())
        .examples(create.examples.clone());
    for game in Game::ALL {
        let mut shape = create.clone();
        shape.description = Some(match game.required_options() {
            [] => format!("A new game of {}.", game.title()),
            required => format!(
                "A new game of {}; its options must give {} (here or from a preset).",
                game.title(),
                required
                    .iter()
                    .map(|(key, _)| *key)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
        shape.examples = Vec::new();
        shape.properties.insert(
            "game".to_owned(),
            leaf(json!({"type": "string", "enum": [game.id()]})),
        );
        let seats = game.players();
        if let Some(RefOr::T(Schema::Array(players))) = shape.properties.get_mut("players") {
            players.min_items = Some(*seats.start());
            players.max_items = Some(*seats.end());
            players.description = Some(format!(
                "In seat order: {} to {} players. Each has a `name`, or the `player_id` of one \
                 of the club's players.",
                seats.start(),
                seats.end()
            ));
        }
        let mut options = game_options(game);
        options["type"] = json!(["object", "null"]);
        options["description"] = json!(format!(
            "{}'s options; left-out options take their defaults. At most 16,384 bytes as \
             compact JSON (a whole custom deck holds about 6,000; 422 beyond).",
            game.title()
        ));
        shape.properties.insert("options".to_owned(), leaf(options));
        let name = format!(
            "New{}Game",
            game.title()
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .collect::<String>()
        );
        components
            .schemas
            .insert(name.clone(), RefOr::T(Schema::Object(shape)));
        per_game = per_game.item(reference(&name));
    }
    components
        .schemas
        .insert("CreateGame".to_owned(), per_game.into());
}

/// `POST /v1/games/{id}/events`: the examples of `id` are the scenarios' game ids, in the order
/// of the request examples (`<scenario> <step>`), so a tool pairing the n-th example of each
/// sends every step to the game its scenario's creation example made.
fn append_examples_name_their_game(api: &mut utoipa::openapi::OpenApi) {
    let Some(operation) = api
        .paths
        .paths
        .get_mut("/v1/games/{id}/events")
        .and_then(|p| p.post.as_mut())
    else {
        panic!("POST /v1/games/{{id}}/events is not in the document");
    };
    let Some(RefOr::T(body)) = &operation.request_body else {
        panic!("POST /v1/games/{{id}}/events has no request body");
    };
    let names: Vec<&String> = body
        .content
        .get("application/json")
        .and_then(|c| match c {
            RefOr::T(content) => Some(content.examples.keys().collect()),
            RefOr::Ref(_) => None,
        })
        .unwrap_or_default();
    let ids: Vec<Value> = names
        .iter()
        .map(|name| {
            let scenario = name.rsplit_once(' ').map_or(name.as_str(), |(s, _)| s);
            let id = examples::scenario_game(scenario)
                .unwrap_or_else(|| panic!("example {name:?} names no scenario with a game"));
            json!(id)
        })
        .collect();
    for parameter in operation.parameters.iter_mut().flatten() {
        if let RefOr::T(parameter) = parameter
            && parameter.name == "id"
        {
            let mut schema = Object::default();
            schema.schema_type =
                utoipa::openapi::schema::SchemaType::Type(utoipa::openapi::schema::Type::String);
            schema.format = Some(utoipa::openapi::schema::SchemaFormat::KnownFormat(
                utoipa::openapi::schema::KnownFormat::Uuid,
            ));
            schema.examples = ids.clone();
            parameter.schema = Some(RefOr::T(Schema::Object(schema)));
        }
    }
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

    /// A generated client takes a status the document does not list for no answer at all: a
    /// read token is refused everything but reading, and only admin tokens manage tokens.
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

    /// A generated client fails on a `$ref` to a schema the document does not hold.
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

    /// A house rule's value is a string, a number, an object or null: its schema names no type.
    #[test]
    fn a_house_rule_value_may_be_any_json() {
        let doc = serde_json::to_value(document()).unwrap();
        let value = &doc["components"]["schemas"]["HouseRuleView"]["properties"]["value"];
        assert!(value.is_object() && value.get("type").is_none(), "{value}");
    }

    /// A client reads each stream event's `data` with the schema of its kind, not as a string.
    #[test]
    fn every_stream_event_kind_is_described_with_the_schema_of_its_data() {
        let doc = serde_json::to_value(document()).unwrap();
        let item = |path: &str| {
            doc["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"]
                ["itemSchema"]
                .clone()
        };
        let kinds = |event: &Value| -> Vec<(String, String)> {
            let one = |e: &Value| {
                let data = &e["properties"]["data"];
                assert_eq!(data["contentMediaType"], "application/json");
                e["properties"]["event"]["enum"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| {
                        let kind = k.as_str().unwrap().to_owned();
                        (
                            kind,
                            data["contentSchema"]["$ref"].as_str().unwrap().to_owned(),
                        )
                    })
                    .collect::<Vec<_>>()
            };
            match event["oneOf"].as_array() {
                Some(branches) => branches.iter().flat_map(one).collect(),
                None => one(event),
            }
        };
        let schemas = "#/components/schemas/";
        assert_eq!(
            kinds(&item("/v1/games/{id}/stream")),
            [
                ("snapshot".into(), format!("{schemas}SnapshotData")),
                ("appended".into(), format!("{schemas}AppendedData")),
            ]
        );
        let lobby = kinds(&item("/v1/stream"));
        let names: Vec<&str> = lobby.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "game_created",
                "game_finished",
                "game_abandoned",
                "game_resumed"
            ]
        );
        assert!(
            lobby
                .iter()
                .all(|(_, s)| *s == format!("{schemas}GameSummary"))
        );
    }

    /// A tool pairing the n-th examples sends each append example to its own scenario's game.
    #[test]
    fn each_append_example_is_paired_with_its_scenarios_game() {
        let doc = serde_json::to_value(document()).unwrap();
        let append = &doc["paths"]["/v1/games/{id}/events"]["post"];
        let bodies = append["requestBody"]["content"]["application/json"]["examples"]
            .as_object()
            .unwrap();
        let ids = append["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "id")
            .map(|p| p["schema"]["examples"].as_array().unwrap().clone())
            .unwrap();
        let creations = doc["paths"]["/v1/games"]["post"]["requestBody"]["content"]
            ["application/json"]["examples"]
            .as_object()
            .unwrap();
        assert_eq!(bodies.len(), ids.len());
        for ((name, _), id) in bodies.iter().zip(&ids) {
            let scenario = name.rsplit_once(' ').unwrap().0;
            let created = &creations[scenario]["value"];
            assert_eq!(&created["id"], id, "{name}");
        }
    }

    /// A preset's `options` are the keys its game takes, and no others.
    #[test]
    fn each_games_preset_options_are_the_keys_the_game_takes() {
        let doc = serde_json::to_value(document()).unwrap();
        let shapes = doc["components"]["schemas"]["CreatePreset"]["oneOf"]
            .as_array()
            .unwrap();
        assert_eq!(shapes.len(), tabletally_domain::Game::ALL.len());
        for (shape, game) in shapes.iter().zip(tabletally_domain::Game::ALL) {
            assert_eq!(shape["properties"]["game"]["enum"], json!([game.id()]));
            let options = &shape["properties"]["options"];
            assert_eq!(options["additionalProperties"], json!(false));
            let mut documented: Vec<&String> =
                options["properties"].as_object().unwrap().keys().collect();
            let defaults = game.default_options();
            let mut taken: Vec<&String> = defaults.as_object().unwrap().keys().collect();
            documented.sort();
            taken.sort();
            assert_eq!(documented, taken, "{}", game.id());
            // Every default fits its own schema's type (the one check without a validator).
            for (key, value) in defaults.as_object().unwrap() {
                let types = &options["properties"][key]["type"];
                let kind = match value {
                    Value::Bool(_) => "boolean",
                    Value::Number(_) => "integer",
                    Value::String(_) => "string",
                    Value::Array(_) => "array",
                    Value::Object(_) => "object",
                    Value::Null => "null",
                };
                assert!(
                    *types == json!(kind)
                        || types.as_array().is_some_and(|t| t.contains(&json!(kind))),
                    "{} {key}: {value} is not {types}",
                    game.id()
                );
            }
        }
    }

    #[test]
    fn the_documented_variants_are_the_variants_there_are() {
        let doc = serde_json::to_value(document()).unwrap();
        let parameter = doc["paths"]["/v1/stats/leaderboard"]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "variant")
            .cloned()
            .unwrap();
        let variants: Vec<&str> = tabletally_domain::Game::ALL
            .iter()
            .flat_map(|g| g.variants())
            .map(|v| v.id)
            .collect();
        assert_eq!(parameter["schema"]["enum"], json!(variants));
    }
}
