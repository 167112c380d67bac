//! The club's players and presets as lines of an export (`tabletally.player/1`,
//! `tabletally.preset/1`), written before the games so that an import knows every player a
//! game seats by id before it reads the game.

use chrono::{DateTime, SubsecRound, Utc};
use serde::Serialize;
use serde_json::{Map, Value};
use tabletally_domain::setup::PlayerName;
use tabletally_domain::{Game, Message, said};

use super::shape::Fields;
use super::{GameIds, ImportReport, LineError, derived_id};
use crate::store::{ClubPlayer, PlayerImport, PresetRecord, Store, StoreError};

/// The format of one exported player.
pub const PLAYER_FORMAT: &str = "tabletally.player/1";

/// The format of one exported table preset.
pub const PRESET_FORMAT: &str = "tabletally.preset/1";

#[derive(Debug, Serialize)]
struct PlayerLine<'a> {
    format: &'static str,
    player: PlayerOut<'a>,
}

#[derive(Debug, Serialize)]
struct PlayerOut<'a> {
    id: &'a str,
    name: &'a str,
    /// The other names their games seat them under (renamed, merged).
    former_names: &'a [String],
    created_at: DateTime<Utc>,
}

#[derive(Debug, Serialize)]
struct PresetLine<'a> {
    format: &'static str,
    preset: PresetOut<'a>,
}

#[derive(Debug, Serialize)]
struct PresetOut<'a> {
    id: &'a str,
    name: &'a str,
    game: &'a str,
    options: &'a Value,
    created_at: DateTime<Utc>,
}

fn ndjson(line: &impl Serialize, what: &str) -> Result<Vec<u8>, StoreError> {
    let mut bytes =
        serde_json::to_vec(line).map_err(|e| StoreError::Corrupt(format!("{what}: {e}")))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// The club's players by name, then its presets by game and name, one NDJSON line each.
pub(super) async fn lines(store: &dyn Store, club: &str) -> Result<Vec<Vec<u8>>, StoreError> {
    let mut lines = Vec::new();
    for player in store.club_players(club).await? {
        let line = PlayerLine {
            format: PLAYER_FORMAT,
            player: PlayerOut {
                id: &player.id,
                name: &player.name,
                former_names: &player.former_names,
                created_at: player.created_at,
            },
        };
        lines.push(ndjson(&line, &format!("player {}", player.id))?);
    }
    for preset in store.presets(club, None).await? {
        let line = PresetLine {
            format: PRESET_FORMAT,
            preset: PresetOut {
                id: &preset.id,
                name: &preset.name,
                game: &preset.game,
                options: &preset.options,
                created_at: preset.created_at,
            },
        };
        lines.push(ndjson(&line, &format!("preset {}", preset.id))?);
    }
    Ok(lines)
}

/// A player's id as `ids` says: the file's, or one made from the club and it.
pub(super) fn player_id(club: &str, id: &str, ids: GameIds) -> String {
    match ids {
        GameIds::Kept => id.to_owned(),
        GameIds::New => derived_id(club, &format!("tabletally player:{id}")),
    }
}

fn unprocessable(detail: Message) -> LineError {
    (None, 422, detail)
}

fn unreadable(detail: Message) -> LineError {
    (None, 400, detail)
}

/// `Err(refusal)` unless `id` is a UUID.
fn uuid(id: &str, refusal: impl FnOnce(String) -> Message) -> Result<(), LineError> {
    uuid::Uuid::parse_str(id)
        .map(drop)
        .map_err(|_| unprocessable(refusal(format!("{id:?}"))))
}

/// Imports a `tabletally.player/1` line: the player with their id (or one made from it).
pub(super) async fn import_player(
    store: &dyn Store,
    club: &str,
    line: &Map<String, Value>,
    report: &mut ImportReport,
    ids: GameIds,
) -> Result<(), LineError> {
    let mut player = read_player(line)?;
    player.id = player_id(club, &player.id, ids);
    match store.import_player(club, &player).await {
        Ok(PlayerImport::Imported) => report.players.imported += 1,
        Ok(PlayerImport::AlreadyPresent) => report.players.already_present += 1,
        Ok(PlayerImport::Conflict(detail)) | Err(StoreError::Conflict(detail)) => {
            return Err((None, 409, detail));
        }
        Err(e) => {
            tracing::error!(error = %e, player = %player.id, "import failed");
            return Err((None, 500, said!("server.api.import.player.not_stored")));
        }
    }
    Ok(())
}

/// A `tabletally.player/1` line's player, or the first field that is not what it must be.
pub(super) fn read_player(line: &Map<String, Value>) -> Result<ClubPlayer, LineError> {
    let line = Fields::new(line, said!("server.api.import.whose.line"));
    let player = line
        .object(
            "player",
            said!("server.api.import.what.player"),
            said!("server.api.import.whose.the_player"),
        )
        .map_err(unreadable)?;
    let read = || -> Result<ClubPlayer, Message> {
        let mut former_names = Vec::new();
        for name in
            player.optional_list("former_names", said!("server.api.import.what.former_names"))?
        {
            match name {
                Value::String(name) => former_names.push(name.clone()),
                other => {
                    return Err(said!(
                        "server.api.import.player.former_name_not_text",
                        found = super::shape::describe(other)
                    ));
                }
            }
        }
        Ok(ClubPlayer {
            id: player
                .text("id", said!("server.api.import.what.player_id"))?
                .to_owned(),
            name: player
                .text("name", said!("server.api.import.what.current_name"))?
                .to_owned(),
            created_at: player
                .time("created_at", said!("server.api.import.what.first_seated"))?
                .trunc_subsecs(6),
            former_names,
        })
    };
    let mut player = read().map_err(unreadable)?;
    uuid(&player.id, |id| {
        said!("server.api.import.player.id_not_uuid", id = id)
    })?;
    let name = PlayerName::parse(&player.name).map_err(|rule| {
        unprocessable(said!(
            "server.api.import.player.refused",
            id = &player.id,
            rule = rule.player()
        ))
    })?;
    player.name = name.as_str().to_owned();
    Ok(player)
}

/// Imports a `tabletally.preset/1` line: the preset with its id (or one made from it), checked
/// as `POST /v1/presets` checks one.
pub(super) async fn import_preset(
    store: &dyn Store,
    club: &str,
    line: &Map<String, Value>,
    report: &mut ImportReport,
    ids: GameIds,
) -> Result<(), LineError> {
    let (mut record, kind) = read_preset(line)?;
    let file_id = record.id.clone();
    record.id = match ids {
        GameIds::Kept => file_id.clone(),
        GameIds::New => derived_id(club, &format!("tabletally preset:{file_id}")),
    };
    match store.create_preset(club, &record).await {
        Ok(Ok(())) => report.presets.imported += 1,
        Ok(Err(existing)) if existing == record => report.presets.already_present += 1,
        Ok(Err(existing)) => {
            return Err((
                None,
                409,
                if existing.id == record.id {
                    said!(
                        "server.api.import.preset.differs",
                        id = &existing.id,
                        name = format!("{:?}", existing.name)
                    )
                } else {
                    said!(
                        "server.api.import.preset.name_taken",
                        game = kind.title(),
                        name = format!("{:?}", existing.name),
                        id = &existing.id,
                        file_id = &file_id
                    )
                },
            ));
        }
        // The id is already another preset's, of this club or another.
        Err(StoreError::Database(sqlx::Error::Database(db))) if db.is_unique_violation() => {
            return Err((
                None,
                409,
                said!("server.api.import.preset.id_elsewhere", id = &file_id),
            ));
        }
        Err(StoreError::Conflict(detail)) => return Err((None, 409, detail)),
        Err(e) => {
            tracing::error!(error = %e, preset = %record.id, "import failed");
            return Err((None, 500, said!("server.api.import.preset.not_stored")));
        }
    }
    Ok(())
}

/// A `tabletally.preset/1` line's preset and its game, checked as `POST /v1/presets` checks
/// one, or the first thing that is not what it must be.
pub(super) fn read_preset(line: &Map<String, Value>) -> Result<(PresetRecord, Game), LineError> {
    let line = Fields::new(line, said!("server.api.import.whose.line"));
    let preset = line
        .object(
            "preset",
            said!("server.api.import.what.preset"),
            said!("server.api.import.whose.the_preset"),
        )
        .map_err(unreadable)?;
    let read = || -> Result<PresetRecord, Message> {
        Ok(PresetRecord {
            id: preset
                .text("id", said!("server.api.import.what.preset_id"))?
                .to_owned(),
            game: preset
                .text("game", said!("server.api.import.what.preset_game"))?
                .to_owned(),
            name: preset
                .text("name", said!("server.api.import.what.preset_name"))?
                .to_owned(),
            options: preset
                .object_value("options", said!("server.api.import.what.preset_options"))?
                .clone(),
            created_at: preset
                .time("created_at", said!("server.api.import.what.saved_at"))?
                .trunc_subsecs(6),
        })
    };
    let mut record = read().map_err(unreadable)?;
    uuid(&record.id, |id| {
        said!("server.api.import.preset.id_not_uuid", id = id)
    })?;
    let name = PlayerName::parse(&record.name).map_err(|rule| {
        unprocessable(said!(
            "server.api.import.preset.refused",
            id = &record.id,
            rule = rule.preset()
        ))
    })?;
    record.name = name.as_str().to_owned();
    let kind = Game::from_id(&record.game).ok_or_else(|| {
        unprocessable(said!(
            "server.api.import.preset.unknown_game",
            id = &record.id,
            game = format!("{:?}", record.game),
            games = tabletally_domain::games::known_ids()
        ))
    })?;
    kind.check_options(&record.options).map_err(|e| {
        unprocessable(said!(
            "server.api.import.preset.options_refused",
            id = &record.id,
            name = format!("{:?}", record.name),
            rule = e.said,
            at = format!("/preset{}", e.pointer)
        ))
    })?;
    Ok((record, kind))
}
