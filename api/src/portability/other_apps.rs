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

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tabletally_domain::log::{GAME_STARTED, RESULT_RECORDED};
use tabletally_domain::ruleset::Variant;
use tabletally_domain::setup::PlayerEntry;
use tabletally_domain::{Game, Message};

use super::{EXPORT_PAGE, FORMAT, GameIds, ImportFailure, ImportReport, derived_id, import_line};
use crate::records::to_log_event;
use crate::store::{Store, StoreError};

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
    fault: Option<String>,
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
        let refuse = |detail: String| ImportFailure {
            line: number,
            game_id: None,
            status: 422,
            detail: format!("play {}: {detail}", play.source_id),
        };
        if let Some(fault) = &play.fault {
            report.refuse(refuse(fault.clone()));
            continue;
        }
        if play.seats.is_empty() {
            report
                .failed
                .push(refuse("the play lists no players".into()));
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
                        detail: format!(
                            "game id {id} cannot be used here; to import a copy under new ids, \
                             send the file to POST {route}?new_ids=true"
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
fn as_line(id: &str, (kind, variant): Kind, play: &Play) -> Result<String, String> {
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
        .map_err(|e| e.rule)?;
    let mut totals = serde_json::Map::new();
    for seat in &play.seats {
        let score = seat
            .score
            .ok_or_else(|| format!("{} has no whole-number score", seat.name))?;
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

// ---------------------------------------------------------------------------------------------
// BG Stats

/// What every BG Stats export holds, as far as we read it: its lists of games, players and
/// plays (empty when it has none). The app writes more (locations, challenges, userInfo …),
/// which is read past.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BgStatsFile)]
pub struct BgStatsFile {
    games: Vec<BgStatsGameIn>,
    players: Vec<BgStatsPlayerIn>,
    plays: Vec<BgStatsPlayIn>,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BgStatsGame)]
struct BgStatsGameIn {
    id: i64,
    name: String,
    #[serde(default)]
    bgg_name: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BgStatsPlayer)]
struct BgStatsPlayerIn {
    id: i64,
    name: String,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BgStatsPlay)]
struct BgStatsPlayIn {
    #[serde(default)]
    uuid: Option<String>,
    play_date: String,
    game_ref_id: i64,
    #[serde(default)]
    player_scores: Vec<BgStatsScoreIn>,
    /// Files from our exports before 2026-12 wrote `tabletally:<game id>` here.
    #[serde(default)]
    comments: Option<String>,
    /// A JSON object in a string; our exports name our game id in it (`tabletallyGameId`).
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    meta_data: Option<Value>,
    /// A play its owner keeps out of the statistics.
    #[serde(default)]
    ignored: bool,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BgStatsScore)]
struct BgStatsScoreIn {
    player_ref_id: i64,
    /// BG Stats writes scores as text ("31"); absent or null when not recorded.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    score: Option<Value>,
    #[serde(default)]
    winner: bool,
    /// The player's colour (or role, or faction) as typed in.
    #[serde(default)]
    role: Option<String>,
    /// 1, 2, 3 … around the table; 0 when not set.
    #[serde(default)]
    seat_order: Option<i64>,
}

/// What some editors write before a file's first character.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// BG Stats dates are local times `2024-01-05 19:30:00` (or a date alone); read as UTC.
fn bgstats_date(text: &str) -> Option<DateTime<Utc>> {
    NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
        .ok()
        .or_else(|| {
            NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
        })
        .map(|t| t.and_utc())
}

/// A time as BG Stats writes it (our times are UTC).
fn bgstats_time(time: DateTime<Utc>) -> String {
    time.format("%Y-%m-%d %H:%M:%S").to_string()
}

fn whole_number(value: Option<&Value>) -> Option<i64> {
    match value? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The route that imports BG Stats files (named in a refusal's advice).
const BGSTATS_ROUTE: &str = "/v1/import/bgstats";

/// Imports a BG Stats export: its plays of our games become typed-in games. `ids` as for our
/// own files. `Err` when the file is not a BG Stats export at all (nothing was imported).
pub async fn import_bgstats(
    store: &dyn Store,
    club: &str,
    file: &[u8],
    ids: GameIds,
) -> Result<ImportReport, Message> {
    let mut report = ImportReport::default();
    // Some editors and phones save JSON with a byte-order mark first.
    let file = file.strip_prefix(UTF8_BOM).unwrap_or(file);
    let value: Value = serde_json::from_slice(file)
        .map_err(|e| tabletally_domain::said!("server.api.import.not_bgstats", why = e))?;
    let Some(object) = value.as_object() else {
        return Err(tabletally_domain::said!(
            "server.api.import.not_bgstats_object"
        ));
    };
    // Every BG Stats export lists its games, players and plays (empty lists when it has none).
    let missing: Vec<&str> = ["games", "players", "plays"]
        .into_iter()
        .filter(|key| !object.get(*key).is_some_and(Value::is_array))
        .collect();
    if !missing.is_empty() {
        return Err(tabletally_domain::said!(
            "server.api.import.bgstats_lists_missing",
            missing = missing.join(", ")
        ));
    }
    // `12.0` is a whole number to JSON Schema, and so to the tools that write such files.
    let export: BgStatsFile =
        serde_json::from_value(tabletally_domain::setup::whole_numbers(&value))
            .map_err(|e| tabletally_domain::said!("server.api.import.not_bgstats", why = e))?;
    let games: BTreeMap<i64, &BgStatsGameIn> = export.games.iter().map(|g| (g.id, g)).collect();
    let players: BTreeMap<i64, &str> = export
        .players
        .iter()
        .map(|p| (p.id, p.name.as_str()))
        .collect();
    let mut plays = Vec::with_capacity(export.plays.len());
    for (i, play) in export.plays.iter().enumerate() {
        let source_id = format!(
            "bgstats:{}",
            play.uuid
                .clone()
                .unwrap_or_else(|| format!("play-{}", i + 1))
        );
        let game = games.get(&play.game_ref_id);
        // Either name may be ours (a custom name in BG Stats, the BoardGameGeek one beside it).
        let game_name = game.map_or_else(
            || format!("game #{}", play.game_ref_id),
            |g| {
                g.bgg_name
                    .iter()
                    .chain(std::iter::once(&g.name))
                    .find(|n| game_named(n).is_some())
                    .unwrap_or(&g.name)
                    .clone()
            },
        );
        let mut fault = None;
        let mut seats = Vec::with_capacity(play.player_scores.len());
        for (at, s) in play.player_scores.iter().enumerate() {
            let Some(name) = players.get(&s.player_ref_id) else {
                fault.get_or_insert(format!(
                    "playerScores[{at}] names playerRefId {}, which the file's players do not list",
                    s.player_ref_id
                ));
                continue;
            };
            let seat = Seat {
                name: (*name).to_owned(),
                score: whole_number(s.score.as_ref()),
                winner: s.winner,
                color: colour(s.role.as_deref()),
            };
            seats.push((s.seat_order, seat));
        }
        plays.push(Play {
            place: i as u64 + 1,
            our_id: play
                .meta_data
                .as_ref()
                .and_then(Value::as_str)
                .and_then(|m| serde_json::from_str::<Value>(m).ok())
                .and_then(|m| m.get(OUR_GAME_ID)?.as_str().map(str::to_owned))
                .or_else(|| {
                    let legacy = play.comments.as_deref()?.strip_prefix(OUR_ID)?;
                    Some(legacy.to_owned())
                }),
            game_name,
            played_at: bgstats_date(&play.play_date).unwrap_or_default(),
            seats: in_seat_order(seats),
            source: "BG Stats",
            source_id,
            // BG Stats' `ignored` plays count in no statistics of its own either.
            in_statistics: !play.ignored,
            fault,
        });
    }
    import_plays(store, club, plays, &mut report, ids, BGSTATS_ROUTE).await;
    Ok(report)
}

/// A BG Stats export as the app writes one: its own file's fields, each with the type the app
/// gives it; what we do not know is empty or 0, as the app leaves it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BgStatsExport {
    tags: Vec<Value>,
    groups: Vec<Value>,
    challenges: Vec<Value>,
    deleted_objects: Vec<Value>,
    games: Vec<BgStatsGame>,
    locations: Vec<BgStatsLocation>,
    players: Vec<BgStatsPlayer>,
    plays: Vec<BgStatsPlay>,
    user_info: BgStatsUserInfo,
}

/// Whose file it is: BG Stats names one of its players as the phone's owner.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BgStatsUserInfo {
    me_ref_id: i64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BgStatsPlayer {
    uuid: String,
    id: i64,
    name: String,
    is_anonymous: bool,
    modification_date: String,
    bgg_username: String,
    /// A JSON object written as a string, as BG Stats writes it.
    meta_data: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BgStatsLocation {
    uuid: String,
    id: i64,
    name: String,
    modification_date: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BgStatsGame {
    uuid: String,
    id: i64,
    name: String,
    modification_date: String,
    cooperative: bool,
    /// BG Stats' own way to say which way a game is won: false for Mint Condition's damage.
    highest_wins: bool,
    no_points: bool,
    uses_teams: bool,
    url_thumb: String,
    url_image: String,
    bgg_name: String,
    bgg_year: i64,
    bgg_id: i64,
    designers: String,
    is_base_game: i64,
    is_expansion: i64,
    rating: i64,
    min_player_count: i64,
    max_player_count: i64,
    min_play_time: i64,
    max_play_time: i64,
    min_age: i64,
    preferred_image: i64,
    previously_played_amount: i64,
    tags: Vec<Value>,
    copies: Vec<Value>,
    /// A JSON object written as a string, as BG Stats writes it.
    meta_data: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BgStatsPlay {
    uuid: String,
    modification_date: String,
    entry_date: String,
    play_date: String,
    uses_teams: bool,
    duration_min: i64,
    ignored: bool,
    manual_winner: bool,
    rounds: i64,
    location_ref_id: i64,
    game_ref_id: i64,
    board: String,
    rating: i64,
    scoring_setting: i64,
    bgg_id: i64,
    nemestats_id: i64,
    import_play_id: i64,
    expansion_plays: Vec<Value>,
    player_scores: Vec<BgStatsScore>,
    comments: String,
    /// Where BG Stats notes a play's origin, as a JSON object in a string: ours names our game
    /// id (`tabletallyGameId`), so the game comes back as itself.
    meta_data: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BgStatsScore {
    score: String,
    winner: bool,
    new_player: bool,
    start_player: bool,
    player_ref_id: i64,
    /// The seat's colour, or empty.
    role: String,
    rank: i64,
    seat_order: i64,
    /// No teams: empty, as BG Stats leaves it.
    team: String,
}

/// The fewest and most players a kind seats.
fn player_counts((game, _): Kind) -> (i64, i64) {
    let seats = game.players();
    (*seats.start() as i64, *seats.end() as i64)
}

/// Our finished games as a BG Stats export: the kinds played, the club's players, the club as
/// the one location, and the plays. Every uuid is made from what it names, so exporting twice
/// gives the same file: a game's from the kind (the same in every club's file), a player's
/// from the club and the player's id, a play's is our game id.
pub async fn export_bgstats(store: &dyn Store, club: &str) -> Result<BgStatsExport, StoreError> {
    let club_name = store
        .club(club)
        .await?
        .map_or_else(|| club.to_owned(), |c| c.name);
    let plays = finished_plays(store, club).await?;
    let new = first_plays(&plays);
    let latest = plays.iter().map(|p| p.changed_at).max().unwrap_or_default();
    let mut export = BgStatsExport {
        tags: Vec::new(),
        groups: Vec::new(),
        challenges: Vec::new(),
        deleted_objects: Vec::new(),
        user_info: BgStatsUserInfo { me_ref_id: 0 },
        players: Vec::new(),
        locations: vec![BgStatsLocation {
            uuid: derived_id(club, "bgstats location"),
            id: 1,
            name: club_name,
            modification_date: bgstats_time(latest),
        }],
        games: Vec::new(),
        plays: Vec::with_capacity(plays.len()),
    };
    // A kind's id is its place among all kinds: the same in every file.
    let game_ref = |kind: Kind| kinds().position(|k| k == kind).unwrap_or(0) as i64 + 1;
    let mut player_refs: BTreeMap<String, usize> = BTreeMap::new();
    let mut game_refs: BTreeMap<i64, usize> = BTreeMap::new();
    for (play, new) in plays.iter().zip(new) {
        let changed = bgstats_time(play.changed_at);
        let game_ref_id = game_ref(play.kind);
        let at = *game_refs.entry(game_ref_id).or_insert_with(|| {
            let (game, variant) = play.kind;
            let (min_players, max_players) = player_counts(play.kind);
            let key = variant.map_or_else(
                || game.id().to_owned(),
                |v| format!("{}/{}", game.id(), v.id),
            );
            export.games.push(BgStatsGame {
                // From the kind alone: two clubs' files name one game in BG Stats.
                uuid: derived_id("tabletally", &format!("bgstats game {key}")),
                id: game_ref_id,
                name: kind_title(play.kind),
                modification_date: String::new(),
                cooperative: false,
                highest_wins: !game.lower_wins(variant),
                no_points: false,
                uses_teams: false,
                url_thumb: String::new(),
                url_image: String::new(),
                bgg_name: String::new(),
                bgg_year: 0,
                bgg_id: 0,
                designers: String::new(),
                is_base_game: 1,
                is_expansion: 0,
                rating: 0,
                min_player_count: min_players,
                max_player_count: max_players,
                min_play_time: 0,
                max_play_time: 0,
                min_age: 0,
                preferred_image: 0,
                previously_played_amount: 0,
                tags: Vec::new(),
                copies: Vec::new(),
                meta_data: "{}".into(),
            });
            export.games.len() - 1
        });
        // Plays are oldest first: the last play's date is the game's last change.
        export.games[at].modification_date = changed.clone();
        let mut scores = Vec::with_capacity(play.seats.len());
        for (seat, new_player) in play.seats.iter().zip(new) {
            let next = export.players.len();
            let at = *player_refs
                .entry(seat.player_id.clone())
                .or_insert_with(|| {
                    export.players.push(BgStatsPlayer {
                        uuid: derived_id(club, &format!("bgstats player {}", seat.player_id)),
                        id: next as i64 + 1,
                        name: String::new(),
                        is_anonymous: false,
                        modification_date: String::new(),
                        bgg_username: String::new(),
                        meta_data: "{}".into(),
                    });
                    next
                });
            // The name and date of the player's latest play.
            let player = &mut export.players[at];
            player.name = seat.name.clone();
            player.modification_date = changed.clone();
            scores.push(BgStatsScore {
                score: seat.total.to_string(),
                winner: seat.rank == 1,
                new_player,
                // Who began is not kept apart from the seats.
                start_player: false,
                player_ref_id: player.id,
                role: seat.color.clone().unwrap_or_default(),
                rank: i64::from(seat.rank),
                seat_order: i64::from(seat.seat),
                team: String::new(),
            });
        }
        export.plays.push(BgStatsPlay {
            uuid: play.id.clone(),
            modification_date: changed,
            entry_date: bgstats_time(play.entered_at),
            play_date: bgstats_time(play.started_at),
            uses_teams: false,
            duration_min: play.minutes(),
            ignored: false,
            manual_winner: false,
            rounds: 0,
            location_ref_id: 1,
            game_ref_id,
            board: String::new(),
            rating: 0,
            scoring_setting: 0,
            bgg_id: 0,
            nemestats_id: 0,
            import_play_id: 0,
            expansion_plays: Vec::new(),
            player_scores: scores,
            comments: String::new(),
            meta_data: json!({
                "MetaDataImportSourceName": "tabletally",
                "MetaDataImportSourceType": "tabletally",
                OUR_GAME_ID: play.id,
            })
            .to_string(),
        });
    }
    // The file's owner is one of its players; a club has none of its own, so its first.
    export.user_info.me_ref_id = export.players.first().map_or(0, |p| p.id);
    Ok(export)
}

// ---------------------------------------------------------------------------------------------
// BoardGameGeek plays XML (as `https://boardgamegeek.com/xmlapi2/plays` serves it)

/// An XML element's name and attributes.
type Element = (String, BTreeMap<String, String>);

/// The elements of a plays file with their attributes, in document order (a reader for the
/// small, flat XML that BoardGameGeek serves; no DTDs, no namespaces).
fn xml_elements(text: &str) -> Result<Vec<Element>, Message> {
    let mut elements = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        if let Some(after) = rest.strip_prefix("!--") {
            let end = after.find("-->").ok_or_else(|| {
                tabletally_domain::said!("server.api.import.xml_comment_not_closed")
            })?;
            rest = &after[end + 3..];
            continue;
        }
        let end = rest
            .find('>')
            .ok_or_else(|| tabletally_domain::said!("server.api.import.xml_tag_not_closed"))?;
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('/') || tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        let tag = tag.trim_end_matches('/').trim();
        let (name, mut attributes) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
        let mut parsed = BTreeMap::new();
        while let Some(eq) = attributes.find('=') {
            let key = attributes[..eq].trim().to_owned();
            let value_part = attributes[eq + 1..].trim_start();
            let quote = value_part.chars().next().ok_or_else(|| {
                tabletally_domain::said!("server.api.import.xml_attribute_no_value")
            })?;
            if quote != '"' && quote != '\'' {
                return Err(tabletally_domain::said!(
                    "server.api.import.xml_attribute_not_quoted",
                    key = key
                ));
            }
            let close = value_part[1..].find(quote).ok_or_else(|| {
                tabletally_domain::said!("server.api.import.xml_attribute_not_closed", key = &key)
            })?;
            parsed.insert(key, xml_unescape(&value_part[1..close + 1]));
            attributes = &value_part[close + 2..];
        }
        elements.push((name.to_owned(), parsed));
    }
    Ok(elements)
}

fn xml_unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let Some(semi) = rest.find(';') else { break };
        let entity = &rest[1..semi];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The most games one BoardGameGeek play of `quantity` > 1 becomes.
const MAX_QUANTITY: u32 = 100;

/// The route that imports BoardGameGeek files (named in a refusal's advice).
const BGG_ROUTE: &str = "/v1/import/bgg";

/// Imports a BoardGameGeek plays file: its plays of our games become typed-in games. `ids` as
/// for our own files. `Err` when the file is not a plays file at all (nothing was imported).
pub async fn import_bgg(
    store: &dyn Store,
    club: &str,
    file: &[u8],
    ids: GameIds,
) -> Result<ImportReport, Message> {
    let mut report = ImportReport::default();
    let elements = std::str::from_utf8(file)
        .map_err(|e| tabletally_domain::said!("server.api.import.not_utf8", why = e.to_string()))
        .and_then(xml_elements)
        .and_then(|elements| {
            // Any text would read as no elements at all: a plays file says it is one.
            if elements.iter().any(|(name, _)| name == "plays") {
                Ok(elements)
            } else {
                Err(tabletally_domain::said!(
                    "server.api.import.no_plays_element"
                ))
            }
        })
        .map_err(|detail| tabletally_domain::said!("server.api.import.not_bgg", why = detail))?;
    // Each play with its seats as `startposition` numbers them, and how many times it was played.
    let mut plays: Vec<(Play, Vec<NumberedSeat>, u32)> = Vec::new();
    let mut incomplete = false;
    for (name, attributes) in elements {
        let get = |key: &str| attributes.get(key).cloned().unwrap_or_default();
        match name.as_str() {
            "play" => {
                incomplete = get("incomplete") == "1";
                let location = get("location");
                // A play BoardGameGeek has not numbered (id 0 in our own files) by its place.
                let source_id = match get("id").trim() {
                    "" | "0" => format!("bgg:play-{}", plays.len() + 1),
                    id => format!("bgg:{id}"),
                };
                let quantity = get("quantity").trim().parse::<u32>().unwrap_or(1).max(1);
                let play = Play {
                    place: plays.len() as u64 + 1,
                    source_id,
                    our_id: attributes
                        .get(OUR_GAME_ID)
                        .cloned()
                        .or_else(|| location.strip_prefix(OUR_ID).map(str::to_owned)),
                    game_name: String::new(),
                    played_at: NaiveDate::parse_from_str(&get("date"), "%Y-%m-%d")
                        .ok()
                        .and_then(|d| d.and_hms_opt(0, 0, 0))
                        .map(|t| t.and_utc())
                        .unwrap_or_default(),
                    seats: Vec::new(),
                    source: "BoardGameGeek",
                    // BoardGameGeek leaves such a play out of its win statistics.
                    in_statistics: get("nowinstats") != "1",
                    fault: (quantity > MAX_QUANTITY).then(|| {
                        format!(
                            "quantity=\"{quantity}\" says the game was played {quantity} times \
                             with the same scores; at most {MAX_QUANTITY} are imported as \
                             separate games, so record them apart"
                        )
                    }),
                };
                plays.push((play, Vec::new(), quantity));
            }
            "item" => {
                if let Some((play, _, _)) = plays.last_mut() {
                    play.game_name = get("name");
                    // A play marked incomplete has no final scores: it is counted as skipped.
                    if incomplete {
                        play.game_name = format!("{} (incomplete)", play.game_name);
                    }
                }
            }
            "player" => {
                if let Some((_, seats, _)) = plays.last_mut() {
                    let seat = Seat {
                        name: get("name"),
                        score: get("score").trim().parse().ok(),
                        winner: get("win") == "1",
                        color: colour(attributes.get("color").map(String::as_str)),
                    };
                    seats.push((get("startposition").trim().parse().ok(), seat));
                }
            }
            _ => {}
        }
    }
    // A play of quantity 3 is three games with the same scores, each with an id of its own.
    let plays = plays
        .into_iter()
        .flat_map(|(play, seats, quantity)| {
            let play = Play {
                seats: in_seat_order(seats),
                ..play
            };
            let copies = if play.fault.is_some() { 1 } else { quantity };
            (1..=copies).map(move |n| match n {
                1 => play.clone(),
                n => Play {
                    source_id: format!("{}#{n}", play.source_id),
                    // Our exports write quantity 1: a copy is another app's play.
                    our_id: None,
                    ..play.clone()
                },
            })
        })
        .collect();
    import_plays(store, club, plays, &mut report, ids, BGG_ROUTE).await;
    Ok(report)
}

/// Our finished games as a BoardGameGeek plays file, with the attributes its XML API 2 writes.
/// BoardGameGeek's ids (of plays, games, users) are not ours to know, so they are 0 and the
/// item's name says which game it is; the club is where it was played, and an attribute of our
/// own (`tabletallyGameId`, which BoardGameGeek's readers ignore) holds our game id.
pub async fn export_bgg(store: &dyn Store, club: &str) -> Result<String, StoreError> {
    let club_name = store.club(club).await?.map_or_else(String::new, |c| c.name);
    let plays = finished_plays(store, club).await?;
    let new = first_plays(&plays);
    // A user's plays, as BoardGameGeek answers them; the user is nobody BoardGameGeek knows.
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<plays username=\"\" userid=\"0\" total=\"{}\" page=\"1\" termsofuse=\"https://boardgamegeek.com/xmlapi/termsofuse\">\n",
        plays.len()
    );
    for (play, new) in plays.iter().zip(new) {
        xml.push_str(&format!(
            "  <play id=\"0\" date=\"{}\" quantity=\"1\" length=\"{}\" incomplete=\"0\" nowinstats=\"0\" location=\"{}\" {OUR_GAME_ID}=\"{}\">\n",
            play.started_at.format("%Y-%m-%d"),
            play.minutes(),
            xml_escape(&club_name),
            play.id
        ));
        xml.push_str(&format!(
            "    <item name=\"{}\" objecttype=\"thing\" objectid=\"0\"><subtypes><subtype value=\"boardgame\"/></subtypes></item>\n    <players>\n",
            xml_escape(&kind_title(play.kind))
        ));
        for (seat, new) in play.seats.iter().zip(new) {
            xml.push_str(&format!(
                "      <player username=\"\" userid=\"0\" name=\"{}\" startposition=\"{}\" color=\"{}\" score=\"{}\" new=\"{}\" rating=\"0\" win=\"{}\"/>\n",
                xml_escape(&seat.name),
                seat.seat,
                xml_escape(seat.color.as_deref().unwrap_or_default()),
                seat.total,
                u8::from(new),
                u8::from(seat.rank == 1)
            ));
        }
        xml.push_str("    </players>\n  </play>\n");
    }
    xml.push_str("</plays>\n");
    Ok(xml)
}

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

    #[test]
    fn plays_xml_is_read_element_by_element_with_entities_decoded() {
        let xml = r#"<?xml version="1.0"?><plays><!-- a comment --><play id="7" date="2015-12-27">
            <item name="Tom &amp; Jerry&#39;s" objectid="5"/><players>
            <player name="Ann" score="41" win='1'/></players></play></plays>"#;

        let elements = xml_elements(xml).unwrap();

        let names: Vec<&str> = elements.iter().map(|e| e.0.as_str()).collect();
        assert_eq!(names, vec!["plays", "play", "item", "players", "player"]);
        assert_eq!(elements[2].1["name"], "Tom & Jerry's");
        assert_eq!(elements[4].1["win"], "1");
        assert_eq!(
            xml_escape("A&B \"C\" <D>"),
            "A&amp;B &quot;C&quot; &lt;D&gt;"
        );
    }
}
