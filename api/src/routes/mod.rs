//! One module per resource. Handlers are thin: read the request, call the store and the
//! domain, answer. The response shapes they share are in `crate::views`, the refusals their
//! documents list in `problems`, where a read was made in `read_from`.

pub mod access;
pub mod clubs;
mod cursor;
pub mod events;
mod filters;
pub mod games;
pub mod health;
pub mod live;
pub mod players;
pub mod portability;
pub mod presets;
mod problems;
pub mod ratings;
pub mod read_from;
pub mod scores;
pub mod stats;

use utoipa_actix_web::service_config::ServiceConfig;

/// Registers every route (the OpenAPI paths are collected from the same calls).
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(health::healthz)
        .service(health::readyz)
        .service(health::metrics)
        .service(clubs::create_club)
        .service(clubs::get_club)
        .service(games::create_game)
        .service(games::list_games)
        .service(games::get_game)
        .service(events::append_events)
        .service(events::list_events)
        .service(scores::get_score)
        .service(presets::create_preset)
        .service(presets::list_presets)
        .service(presets::delete_preset)
        .service(live::game_stream)
        .service(live::lobby_stream)
        .service(live::club_events)
        .service(access::create_token)
        .service(access::list_tokens)
        .service(access::revoke_token)
        .service(access::replace_club_token)
        .service(access::create_share)
        .service(access::list_shares)
        .service(access::revoke_share)
        .service(players::list_players)
        .service(players::get_player)
        .service(players::rename_player)
        .service(players::merge_player)
        .service(players::player_stats)
        .service(players::player_games)
        .service(stats::leaderboard)
        .service(stats::head_to_head)
        .service(stats::game_stats)
        .service(ratings::ratings)
        .service(ratings::player_ratings)
        .service(ratings::game_ratings)
        .service(portability::export)
        .service(portability::import)
        .service(portability::import_bgstats)
        .service(portability::import_bgg)
        .service(portability::export_bgstats)
        .service(portability::export_bgg);
}

/// A score's entity tag: the game's version, which every append raises (and `at` for a past
/// score, which never changes); a score shows names, not player ids, so a merge leaves it.
pub fn game_etag(version: i64, at: Option<i64>) -> String {
    match at {
        Some(at) => format!("\"{version}-at-{at}\""),
        None => format!("\"{version}\""),
    }
}

/// A game summary's entity tag: the game's version and a fingerprint of the body, which also
/// changes without an append when one of its players is merged into another (a seat's
/// `player_id`). Writes compare only the version before the `-` (`If-Match`).
pub fn summary_etag(version: i64, body: &[u8]) -> String {
    format!("\"{version}-{:016x}\"", fnv1a(body))
}

/// FNV-1a (64 bits): the same bytes give the same tag on every server and every build, which
/// the standard library's hasher does not promise.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// True when the request's `If-None-Match` names `etag` (or `*`): answer `304`.
pub fn not_modified(request: &actix_web::HttpRequest, etag: &str) -> bool {
    request
        .headers()
        .get_all(actix_web::http::header::IF_NONE_MATCH)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|tag| tag.trim().trim_start_matches("W/"))
        .any(|tag| tag == etag || tag == "*")
}

/// `304 Not Modified` with the tag, no body.
pub fn not_modified_response(etag: &str) -> actix_web::HttpResponse {
    actix_web::HttpResponse::NotModified()
        .insert_header((actix_web::http::header::ETAG, etag.to_owned()))
        .finish()
}
