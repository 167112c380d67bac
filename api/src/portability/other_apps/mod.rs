//! History from other apps, and back: BG Stats' JSON export and BoardGameGeek's plays XML.
//!
//! Those apps know a play by its final scores only, so each play of one of our games becomes a
//! game of two events — `game_started` and `result_recorded` — imported like a line of our own
//! export (checked, stored whole, its id derived from the club and the play's own id, so
//! importing the same file twice changes nothing). Games are matched by name ignoring case, spaces and punctuation
//! (`Mind Up!` = `mindup`), a variant counted apart by the game's name followed by the variant's
//! (`Mint Condition (Heavily Used)`, so that a Heavily Used play comes back as one, scored
//! highest first); plays of other games are counted as skipped. Players are matched by
//! name within the club. Our exports carry our finished games the same way, with our game id in
//! the play, so a file taken out and brought back in changes nothing either.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Value, json};
use tabletally_domain::log::{GAME_STARTED, RESULT_RECORDED};
use tabletally_domain::ruleset::Variant;
use tabletally_domain::setup::PlayerEntry;
use tabletally_domain::{Game, Message, said};

use super::{EXPORT_PAGE, FORMAT, GameIds, ImportFailure, ImportReport, derived_id, import_line};
use crate::records::to_log_event;
use crate::store::{Store, StoreError};

mod bgg;
mod bgstats;
mod xml;

pub use bgg::{export_bgg, import_bgg};
pub use bgstats::{BgStatsExport, BgStatsFile, export_bgstats, import_bgstats};

/// Plays of games tabletally does not keep, by name.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Skipped {
    pub game: String,
    pub plays: u64,
}

/// One play as another app knows it.
#[derive(Debug, Clone)]
struct Play {
    /// Its place in the file, from 1 (what its report line names).
    place: u64,
    /// The app and its id for the play, e.g. `bgstats:6F1…`; our game id when it is one of ours.
    source_id: String,
    our_id: Option<String>,
    game_name: String,
    played_at: DateTime<Utc>,
    /// In seat order.
    seats: Vec<Seat>,
    source: &'static str,
    /// False for a play its app keeps out of win statistics (BoardGameGeek's `nowinstats`).
    in_statistics: bool,
    /// Why the play cannot be imported although its game is ours (a player it names that the
    /// file does not list), said in its report line.
    fault: Option<Message>,
}

/// A player's place at a play as another app knows it.
#[derive(Debug, Clone)]
struct Seat {
    name: String,
    /// `None` when the file has no whole number for it.
    score: Option<i64>,
    winner: bool,
    color: Option<String>,
}

/// A seat and the number the file gives its place, if any.
type NumberedSeat = (Option<i64>, Seat);

/// The seats in the order the file lists them, unless it numbers every seat with a different
/// number from 1 up: then in that order (BG Stats' `seatOrder`, BoardGameGeek's
/// `startposition`; both may be left empty or 0).
fn in_seat_order(mut seats: Vec<NumberedSeat>) -> Vec<Seat> {
    let numbers: BTreeSet<i64> = seats.iter().filter_map(|(n, _)| *n).collect();
    if numbers.len() == seats.len() && numbers.iter().all(|n| *n > 0) {
        seats.sort_by_key(|(n, _)| *n);
    }
    seats.into_iter().map(|(_, seat)| seat).collect()
}

/// A colour as the file writes it; the apps write an empty one for none.
fn colour(text: Option<&str>) -> Option<String> {
    text.map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
}

/// A game, and the variant it plays if one is counted apart.
type Kind = (Game, Option<&'static Variant>);

/// Every kind of play our files name: each game, then each of its variants.
fn kinds() -> impl Iterator<Item = Kind> {
    Game::ALL.into_iter().flat_map(|game| {
        std::iter::once((game, None)).chain(game.variants().iter().map(move |v| (game, Some(v))))
    })
}

/// How our files name a kind of play: `Mint Condition`, `Mint Condition (Heavily Used)`.
fn kind_title((game, variant): Kind) -> String {
    match variant {
        Some(v) => format!("{} ({})", game.title(), v.title),
        None => game.title().to_owned(),
    }
}

/// A kind of play by its name as another app writes it.
fn game_named(name: &str) -> Option<Kind> {
    let key = |s: &str| {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect::<String>()
    };
    kinds().find(|kind| key(&kind_title(*kind)) == key(name))
}

/// The id a play's game gets in the club.
fn game_id(club: &str, play: &Play, ids: GameIds) -> String {
    match (&play.our_id, ids) {
        (Some(id), GameIds::Kept) => id.clone(),
        // A copy of one of our games gets the id `POST /v1/import?new_ids=true` gives it, so
        // a club that copies the same game both ways has it once.
        (Some(id), GameIds::New) => derived_id(club, &format!("{OUR_ID}{id}")),
        // Another app's play: its id is made from this club already.
        (None, _) => derived_id(club, &play.source_id),
    }
}

/// Imports the plays, counting what happened in `report`. `line` is the play's place in the
/// file, from 1; `route` names the import a refusal advises to send the file to again.
async fn import_plays(
    store: &dyn Store,
    club: &str,
    plays: Vec<Play>,
    report: &mut ImportReport,
    ids: GameIds,
    route: &str,
) {
    let mut skipped: BTreeMap<String, u64> = BTreeMap::new();
    for play in plays {
        // The worker's other requests (a table's append) go first between two plays.
        tokio::task::yield_now().await;
        let number = play.place;
        let Some((kind, variant)) = game_named(&play.game_name) else {
            *skipped.entry(play.game_name).or_default() += 1;
            continue;
        };
        let refuse = |detail: Message| ImportFailure {
            line: number,
            game_id: None,
            status: 422,
            detail: said!(
                "server.api.import.play.refused",
                play = &play.source_id,
                detail = detail
            ),
        };
        if let Some(fault) = &play.fault {
            report.refuse(refuse(fault.clone()));
            continue;
        }
        if play.seats.is_empty() {
            report
                .failed
                .push(refuse(said!("server.api.import.play.no_players")));
            continue;
        }
        let id = game_id(club, &play, ids);
        // One of our own games come back: its play is a summary of the stored log, so the
        // game's id alone says it is present. In another club it is a copy to make.
        if play.our_id.is_some() {
            match store.club_of_game(&id).await {
                Ok(Some(owner)) if owner == club => {
                    report.already_present += 1;
                    continue;
                }
                Ok(Some(_)) => {
                    report.refuse(ImportFailure {
                        line: number,
                        game_id: Some(id.clone()),
                        status: 409,
                        detail: said!(
                            "server.api.import.play.game_id_elsewhere",
                            id = &id,
                            route = route
                        ),
                    });
                    continue;
                }
                // Not stored yet; a store that cannot answer fails again as the game is stored.
                _ => {}
            }
        }
        match as_line(&id, (kind, variant), &play) {
            Ok(line) => import_line(store, club, number, &line, report).await,
            Err(detail) => report.refuse(refuse(detail)),
        }
    }
    report.skipped = skipped
        .into_iter()
        .map(|(game, plays)| Skipped { game, plays })
        .collect();
}

/// The play as a line of our own export, game `id`: `game_started` and `result_recorded`.
fn as_line(id: &str, (kind, variant): Kind, play: &Play) -> Result<String, Message> {
    let entries: Vec<PlayerEntry> = play
        .seats
        .iter()
        .map(|seat| PlayerEntry {
            name: seat.name.trim().to_owned(),
            color: seat.color.clone(),
        })
        .collect();
    // Typed-in totals play no rule: the options a table must otherwise give take their
    // empty defaults (Vintage's prizes: none).
    let defaults = kind.default_options();
    let mut options: serde_json::Map<String, Value> = kind
        .required_options()
        .iter()
        .map(|(key, _)| ((*key).to_owned(), defaults[*key].clone()))
        .collect();
    if let Some(variant) = variant {
        options.insert(variant.option.to_owned(), Value::Bool(true));
    }
    let setup = kind
        .start(&entries, &Value::Object(options))
        .map_err(|e| e.said)?;
    let mut totals = serde_json::Map::new();
    for seat in &play.seats {
        let score = seat
            .score
            .ok_or_else(|| said!("server.api.import.play.no_whole_score", name = &seat.name))?;
        totals.insert(seat.name.trim().to_owned(), json!(score));
    }
    let mut winners: Vec<&str> = play
        .seats
        .iter()
        .filter(|s| s.winner)
        .map(|s| s.name.trim())
        .collect();
    if winners.is_empty() {
        // Not marked: the best score wins, in the game's own direction.
        let lower = kind.lower_wins(variant);
        let best = play
            .seats
            .iter()
            .filter_map(|s| s.score)
            .reduce(|a, b| if (b < a) == lower { b } else { a });
        winners = play
            .seats
            .iter()
            .filter(|s| s.score == best)
            .map(|s| s.name.trim())
            .collect();
    }
    let mut result = json!({"totals": totals, "winners": winners, "source": play.source});
    // Said only when false: a file imported before the field existed reads the same.
    if !play.in_statistics {
        result["in_statistics"] = Value::Bool(false);
    }
    let line = json!({
        "format": FORMAT,
        "game": {"id": id, "game": kind.id(), "started_at": play.played_at},
        "events": [
            {"seq": 1, "id": id, "type": GAME_STARTED, "recorded_at": play.played_at,
             "data": {"game": kind.id(), "players": setup.players, "options": setup.options,
                      "started_at": play.played_at}},
            {"seq": 2, "id": derived_id(id, "result_recorded"),
             "type": RESULT_RECORDED, "recorded_at": play.played_at,
             "data": result},
        ]
    });
    Ok(line.to_string())
}

/// One of our finished games as a play.
struct OurPlay {
    id: String,
    kind: Kind,
    started_at: DateTime<Utc>,
    /// When its first event was recorded (the play was entered) and its last (last changed).
    entered_at: DateTime<Utc>,
    changed_at: DateTime<Utc>,
    /// In seat order.
    seats: Vec<OurSeat>,
}

struct OurSeat {
    seat: u32,
    name: String,
    player_id: String,
    color: Option<String>,
    total: i64,
    rank: u32,
}

impl OurPlay {
    /// Whole minutes from the first event to the last (0 for a result typed in at once).
    fn minutes(&self) -> i64 {
        (self.changed_at - self.entered_at).num_minutes().max(0)
    }
}

/// Our finished games as plays, oldest first.
async fn finished_plays(store: &dyn Store, club: &str) -> Result<Vec<OurPlay>, StoreError> {
    let mut plays = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let ids = store
            .club_game_ids(club, after.as_deref(), EXPORT_PAGE)
            .await?;
        let Some(last) = ids.last() else { break };
        after = Some(last.clone());
        for id in ids {
            let Some((game, stored)) = store.events(club, &id).await? else {
                continue;
            };
            let Some(kind) = Game::from_id(&game.game) else {
                continue;
            };
            let (Some(first), Some(latest)) = (stored.first(), stored.last()) else {
                continue;
            };
            let (entered_at, changed_at) = (first.recorded_at, latest.recorded_at);
            let log: Vec<_> = stored.iter().map(to_log_event).collect();
            let evaluation = kind
                .evaluate(&log)
                .map_err(|e| StoreError::Corrupt(format!("game {id}: {e}")))?;
            if evaluation.status != tabletally_domain::Status::Finished {
                continue;
            }
            let mut seats: Vec<OurSeat> = evaluation
                .scoreboard
                .players
                .into_iter()
                .map(|p| {
                    let record = game.players.iter().find(|s| s.seat == i64::from(p.seat));
                    OurSeat {
                        seat: p.seat,
                        player_id: record.map(|s| s.player_id.clone()).unwrap_or_default(),
                        color: record.and_then(|s| s.color.clone()),
                        name: p.name,
                        total: p.total,
                        rank: p.rank,
                    }
                })
                .collect();
            seats.sort_by_key(|s| s.seat);
            plays.push(OurPlay {
                id,
                kind: (kind, kind.variant(&game.options)),
                started_at: game.started_at,
                entered_at,
                changed_at,
                seats,
            });
        }
    }
    plays.sort_by(|a, b| (a.started_at, &a.id).cmp(&(b.started_at, &b.id)));
    // Each seat by its player's name today: a renamed or merged player is one person.
    let ids: Vec<String> = plays
        .iter()
        .flat_map(|p| p.seats.iter().map(|s| s.player_id.clone()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for chunk in ids.chunks(500) {
        names.extend(store.players_by_id(club, chunk).await?);
    }
    for seat in plays.iter_mut().flat_map(|p| p.seats.iter_mut()) {
        if let Some(name) = names.get(&seat.player_id) {
            seat.name.clone_from(name);
        }
    }
    Ok(plays)
}

/// For each play, whether each seat plays that kind for the first time in the file (both apps
/// mark a player new to the game). `plays` are oldest first.
fn first_plays(plays: &[OurPlay]) -> Vec<Vec<bool>> {
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    plays
        .iter()
        .map(|play| {
            play.seats
                .iter()
                .map(|s| seen.insert((kind_title(play.kind), s.player_id.clone())))
                .collect()
        })
        .collect()
}

/// Where our exports keep a play's game id, so it comes back on import: BG Stats' play
/// `metaData` and BoardGameGeek's `<play>` attribute of this name (both apps ignore it).
const OUR_GAME_ID: &str = "tabletallyGameId";

/// The marker our exports before 2026-12 put in a play (BG Stats: its comments; BoardGameGeek:
/// its location), still read on import.
const OUR_ID: &str = "tabletally:";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_is_matched_by_its_name_ignoring_case_spaces_and_punctuation() {
        assert_eq!(game_named("Mind Up!"), Some((Game::MindUp, None)));
        assert_eq!(game_named("MINDUP"), Some((Game::MindUp, None)));
        assert_eq!(
            game_named("mint-condition"),
            Some((Game::MintCondition, None))
        );
        assert_eq!(game_named("Mint Julep"), Some((Game::MintJulep, None)));
        assert_eq!(game_named("Coloretto"), None);
    }

    #[test]
    fn a_variant_counted_apart_is_named_after_its_game_and_read_back_as_itself() {
        let heavily_used = Game::MintCondition.variant_by_id("heavily-used");
        let kind = (Game::MintCondition, heavily_used);
        assert_eq!(kind_title(kind), "Mint Condition (Heavily Used)");
        assert_eq!(game_named("Mint Condition (Heavily Used)"), Some(kind));
        assert_eq!(game_named("mint condition heavily used"), Some(kind));
        // Its option plays it: the game started from the line is of the variant again.
        let variant = heavily_used.unwrap();
        let options = json!({ variant.option: true });
        let setup = Game::MintCondition
            .start(
                &[
                    PlayerEntry {
                        name: "Ann".into(),
                        color: None,
                    },
                    PlayerEntry {
                        name: "Bo".into(),
                        color: None,
                    },
                ],
                &options,
            )
            .unwrap();
        assert_eq!(Game::MintCondition.variant(&setup.options), heavily_used);
    }

    #[test]
    fn the_same_play_in_the_same_club_always_derives_the_same_game_id() {
        let id = derived_id("club-a", "bgg:16980939");
        assert_eq!(id, derived_id("club-a", "bgg:16980939"));
        assert_ne!(id, derived_id("club-a", "bgg:16980940"));
        assert_ne!(id, derived_id("club-b", "bgg:16980939"));
        assert_eq!(uuid::Uuid::parse_str(&id).unwrap().get_version_num(), 8);
    }

    #[test]
    fn seats_go_by_the_files_numbers_only_when_every_seat_has_its_own() {
        let seat = |name: &str| Seat {
            name: name.into(),
            score: None,
            winner: false,
            color: None,
        };
        let order = |numbers: [Option<i64>; 3]| -> Vec<String> {
            let seats = numbers
                .into_iter()
                .zip(["Ann", "Bo", "Cy"].map(seat))
                .collect();
            in_seat_order(seats).into_iter().map(|s| s.name).collect()
        };

        assert_eq!(order([Some(2), Some(3), Some(1)]), ["Cy", "Ann", "Bo"]);
        // BG Stats' 0 is "not set"; BoardGameGeek may leave a position empty or repeat one.
        assert_eq!(order([Some(0), Some(0), Some(0)]), ["Ann", "Bo", "Cy"]);
        assert_eq!(order([Some(2), None, Some(1)]), ["Ann", "Bo", "Cy"]);
        assert_eq!(order([Some(1), Some(1), Some(2)]), ["Ann", "Bo", "Cy"]);
        assert_eq!(colour(Some("  ")), None);
        assert_eq!(colour(Some(" Red ")), Some("Red".into()));
    }
}
