//! BG Stats' JSON export, in and out.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tabletally_domain::Message;

use super::{
    Kind, OUR_GAME_ID, OUR_ID, Play, Seat, colour, finished_plays, first_plays, game_named,
    import_plays, in_seat_order, kind_title, kinds,
};
use crate::portability::{GameIds, ImportReport, derived_id};
use crate::store::{Store, StoreError};

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
    #[serde(deserialize_with = "whole")]
    id: i64,
    name: String,
    #[serde(default)]
    bgg_name: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BgStatsPlayer)]
struct BgStatsPlayerIn {
    #[serde(deserialize_with = "whole")]
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
    #[serde(deserialize_with = "whole")]
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
    #[serde(deserialize_with = "whole")]
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
    #[serde(default, deserialize_with = "whole_or_null")]
    seat_order: Option<i64>,
}

/// A whole number, written as JSON Schema's `integer` allows: `7` or `7.0` (a file rewritten by
/// a tool that keeps numbers as floats; the OpenAPI document promises both).
fn whole<'de, D: serde::Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    let n = serde_json::Number::deserialize(d)?;
    n.as_i64()
        .or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.2e18)
                .map(|f| f as i64)
        })
        .ok_or_else(|| serde::de::Error::custom(format!("{n} is not a whole number")))
}

/// [`whole`], or null.
fn whole_or_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    #[derive(Deserialize)]
    struct Whole(#[serde(deserialize_with = "whole")] i64);
    Ok(Option::<Whole>::deserialize(d)?.map(|Whole(n)| n))
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
                fault.get_or_insert(tabletally_domain::said!(
                    "server.api.import.play.unknown_player_ref",
                    at = at,
                    id = s.player_ref_id
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
