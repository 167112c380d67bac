//! What a statistics query names, checked: the game, and the variant whose figures it counts.

use tabletally_domain::Game;

use crate::error::ApiError;

pub(super) fn check_game(game: Option<&str>) -> Result<(), ApiError> {
    match game {
        Some(id) if Game::from_id(id).is_none() => Err(ApiError::bad_parameter(
            "game",
            tabletally_domain::said!(
                "server.api.query.unknown_game",
                game = format!("{id:?}"),
                known = tabletally_domain::games::known_ids()
            ),
        )),
        _ => Ok(()),
    }
}

/// The stored variant a query selects (`""`: the published rules), checked against the game's
/// variants. `None`: every variant, which only a query without a game may ask for.
/// `published_by_default`: without `variant`, a game's figures are its published rules' ones.
pub(super) fn select_variant(
    game: Option<&str>,
    variant: Option<&str>,
    published_by_default: bool,
) -> Result<Option<String>, ApiError> {
    let Some(game) = game.and_then(Game::from_id) else {
        return match variant {
            Some(_) => Err(ApiError::bad_parameter(
                "variant",
                tabletally_domain::said!("server.api.stats.variant_needs_game"),
            )),
            None => Ok(None),
        };
    };
    match variant {
        None => Ok(published_by_default.then(String::new)),
        Some(id) => match game.variant_by_id(id) {
            Some(v) => Ok(Some(v.id.to_owned())),
            None => Err(ApiError::bad_parameter(
                "variant",
                match game.variants() {
                    [] => tabletally_domain::said!(
                        "server.api.stats.no_variants",
                        game = game.title()
                    ),
                    known => tabletally_domain::said!(
                        "server.api.stats.unknown_variant",
                        variant = format!("{id:?}"),
                        game = game.title(),
                        variants = known.iter().map(|v| v.id).collect::<Vec<_>>().join(", ")
                    ),
                },
            )),
        },
    }
}

/// The variants the statistics count apart, of every game (`Game::variants`).
#[derive(utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)] // a name for the document only: queries read the variant as text
pub enum VariantId {
    /// Mint Condition's "Heavily Used": the highest total wins.
    HeavilyUsed,
}
