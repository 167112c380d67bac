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

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tabletally_domain::Game;
use tabletally_domain::log::{GAME_STARTED, RESULT_RECORDED};
use tabletally_domain::ruleset::Variant;
use tabletally_domain::setup::PlayerEntry;

use super::{EXPORT_PAGE, FORMAT, ImportFailure, ImportReport, derived_id, import_line};
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
    /// The app and its id for the play, e.g. `bgstats:6F1…`; our game id when it is one of ours.
    source_id: String,
    our_id: Option<String>,
    game_name: String,
    played_at: DateTime<Utc>,
    /// `(name, score, winner)` in seat order.
    players: Vec<(String, Option<i64>, bool)>,
    source: &'static str,
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

/// Imports the plays, counting what happened in `report`; `line` is the play's place in the file.
async fn import_plays(store: &dyn Store, club: &str, plays: Vec<Play>, report: &mut ImportReport) {
    let mut skipped: BTreeMap<String, u64> = BTreeMap::new();
    for (i, play) in plays.into_iter().enumerate() {
        let number = i as u64 + 1;
        let Some((kind, variant)) = game_named(&play.game_name) else {
            *skipped.entry(play.game_name).or_default() += 1;
            continue;
        };
        // One of our own games come back: its play is a summary of the stored log, so the
        // game's id alone says it is present.
        if let Some(id) = &play.our_id
            && matches!(store.game(club, id).await, Ok(Some(_)))
        {
            report.already_present += 1;
            continue;
        }
        match as_line(club, (kind, variant), &play) {
            Ok(line) => import_line(store, club, number, &line, report).await,
            Err(detail) => report.failed.push(ImportFailure {
                line: number,
                game_id: None,
                status: 422,
                detail: format!("play {}: {detail}", play.source_id),
            }),
        }
    }
    report.skipped = skipped
        .into_iter()
        .map(|(game, plays)| Skipped { game, plays })
        .collect();
}

/// The play as a line of our own export: `game_started` and `result_recorded`.
fn as_line(club: &str, (kind, variant): Kind, play: &Play) -> Result<String, String> {
    let entries: Vec<PlayerEntry> = play
        .players
        .iter()
        .map(|(name, ..)| PlayerEntry {
            name: name.clone(),
            color: None,
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
    for (name, score, _) in &play.players {
        let score = score.ok_or_else(|| format!("{name} has no whole-number score"))?;
        totals.insert(name.clone(), json!(score));
    }
    let mut winners: Vec<&str> = play
        .players
        .iter()
        .filter(|p| p.2)
        .map(|p| p.0.as_str())
        .collect();
    if winners.is_empty() {
        // Not marked: the best score wins, in the game's own direction.
        let lower = kind.lower_wins(variant);
        let best = play
            .players
            .iter()
            .filter_map(|p| p.1)
            .reduce(|a, b| if (b < a) == lower { b } else { a });
        winners = play
            .players
            .iter()
            .filter(|p| p.1 == best)
            .map(|p| p.0.as_str())
            .collect();
    }
    let id = play
        .our_id
        .clone()
        .unwrap_or_else(|| derived_id(club, &play.source_id));
    let line = json!({
        "format": FORMAT,
        "game": {"id": id, "game": kind.id(), "started_at": play.played_at},
        "events": [
            {"seq": 1, "id": id, "type": GAME_STARTED, "recorded_at": play.played_at,
             "data": {"game": kind.id(), "players": setup.players, "options": setup.options,
                      "started_at": play.played_at}},
            {"seq": 2, "id": derived_id(&id, "result_recorded"),
             "type": RESULT_RECORDED, "recorded_at": play.played_at,
             "data": {"totals": totals, "winners": winners, "source": play.source}},
        ]
    });
    Ok(line.to_string())
}

/// Our finished games as plays, oldest first: `(game id, game, start, [(name, total, winner)])`.
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
            let Some((game, log)) = store.events(club, &id).await? else {
                continue;
            };
            let Some(kind) = Game::from_id(&game.game) else {
                continue;
            };
            let log: Vec<_> = log.iter().map(to_log_event).collect();
            let evaluation = kind
                .evaluate(&log)
                .map_err(|e| StoreError::Corrupt(format!("game {id}: {e}")))?;
            if evaluation.status != tabletally_domain::Status::Finished {
                continue;
            }
            let mut players: Vec<_> = evaluation.scoreboard.players;
            players.sort_by_key(|p| p.seat);
            plays.push(OurPlay {
                id,
                kind: (kind, kind.variant(&game.options)),
                started_at: game.started_at,
                players: players
                    .into_iter()
                    .map(|p| (p.name, p.total, p.rank == 1))
                    .collect(),
            });
        }
    }
    plays.sort_by(|a, b| (a.started_at, &a.id).cmp(&(b.started_at, &b.id)));
    Ok(plays)
}

struct OurPlay {
    id: String,
    kind: Kind,
    started_at: DateTime<Utc>,
    players: Vec<(String, i64, bool)>,
}

// ---------------------------------------------------------------------------------------------
// BG Stats

/// The parts of a BG Stats export we read (it holds much more: locations, expansions …).
#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BgStats {
    #[serde(default)]
    games: Vec<BgStatsGame>,
    #[serde(default)]
    players: Vec<BgStatsPlayer>,
    #[serde(default)]
    plays: Vec<BgStatsPlay>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct BgStatsGame {
    id: i64,
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bgg_name: Option<String>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct BgStatsPlayer {
    id: i64,
    name: String,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct BgStatsPlay {
    #[serde(default)]
    uuid: Option<String>,
    play_date: String,
    game_ref_id: i64,
    #[serde(default)]
    player_scores: Vec<BgStatsScore>,
    /// Our export writes `tabletally:<game id>` here, so the game comes back as itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    comments: Option<String>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct BgStatsScore {
    player_ref_id: i64,
    /// BG Stats writes scores as text ("31"); absent when not recorded.
    #[serde(default)]
    score: Option<Value>,
    #[serde(default)]
    winner: bool,
}

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

fn whole_number(value: Option<&Value>) -> Option<i64> {
    match value? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Imports a BG Stats export: its plays of our games become typed-in games.
/// `Err` when the file is not a BG Stats export at all (nothing was imported).
pub async fn import_bgstats(
    store: &dyn Store,
    club: &str,
    file: &[u8],
) -> Result<ImportReport, String> {
    let mut report = ImportReport::default();
    let value: Value =
        serde_json::from_slice(file).map_err(|e| format!("not a BG Stats export: {e}"))?;
    if !value.is_object() {
        return Err(
            "not a BG Stats export: it must be a JSON object with games, players and plays".into(),
        );
    }
    let export: BgStats =
        serde_json::from_value(value).map_err(|e| format!("not a BG Stats export: {e}"))?;
    let games: BTreeMap<i64, &BgStatsGame> = export.games.iter().map(|g| (g.id, g)).collect();
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
        plays.push(Play {
            our_id: play
                .comments
                .as_deref()
                .and_then(|c| c.strip_prefix(OUR_ID))
                .map(str::to_owned),
            game_name,
            played_at: bgstats_date(&play.play_date).unwrap_or_default(),
            players: play
                .player_scores
                .iter()
                .map(|s| {
                    let name = players.get(&s.player_ref_id).map_or_else(
                        || format!("player #{}", s.player_ref_id),
                        |n| (*n).to_owned(),
                    );
                    (name, whole_number(s.score.as_ref()), s.winner)
                })
                .collect(),
            source: "BG Stats",
            source_id,
        });
    }
    import_plays(store, club, plays, &mut report).await;
    Ok(report)
}

/// Our finished games as a BG Stats export (games, players and plays).
pub async fn export_bgstats(store: &dyn Store, club: &str) -> Result<BgStats, StoreError> {
    let plays = finished_plays(store, club).await?;
    let mut player_ids: BTreeMap<String, i64> = BTreeMap::new();
    let mut export = BgStats {
        games: kinds()
            .enumerate()
            .map(|(i, kind)| BgStatsGame {
                id: i as i64 + 1,
                name: kind_title(kind),
                bgg_name: None,
            })
            .collect(),
        players: Vec::new(),
        plays: Vec::with_capacity(plays.len()),
    };
    for play in plays {
        let mut scores = Vec::with_capacity(play.players.len());
        for (name, total, winner) in play.players {
            let next = player_ids.len() as i64 + 1;
            let id = *player_ids.entry(name.clone()).or_insert_with(|| {
                export.players.push(BgStatsPlayer {
                    id: next,
                    name: name.clone(),
                });
                next
            });
            scores.push(BgStatsScore {
                player_ref_id: id,
                score: Some(json!(total.to_string())),
                winner,
            });
        }
        export.plays.push(BgStatsPlay {
            comments: Some(format!("{OUR_ID}{}", play.id)),
            uuid: Some(play.id),
            play_date: play.started_at.format("%Y-%m-%d %H:%M:%S").to_string(),
            game_ref_id: kinds().position(|kind| kind == play.kind).unwrap_or(0) as i64 + 1,
            player_scores: scores,
        });
    }
    Ok(export)
}

// ---------------------------------------------------------------------------------------------
// BoardGameGeek plays XML (as `https://boardgamegeek.com/xmlapi2/plays` serves it)

/// An XML element's name and attributes.
type Element = (String, BTreeMap<String, String>);

/// The elements of a plays file with their attributes, in document order (a reader for the
/// small, flat XML that BoardGameGeek serves; no DTDs, no namespaces).
fn xml_elements(text: &str) -> Result<Vec<Element>, String> {
    let mut elements = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        if let Some(after) = rest.strip_prefix("!--") {
            let end = after.find("-->").ok_or("a comment is not closed")?;
            rest = &after[end + 3..];
            continue;
        }
        let end = rest.find('>').ok_or("a tag is not closed")?;
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
            let quote = value_part
                .chars()
                .next()
                .ok_or("an attribute has no value")?;
            if quote != '"' && quote != '\'' {
                return Err(format!("attribute {key} is not quoted"));
            }
            let close = value_part[1..]
                .find(quote)
                .ok_or_else(|| format!("attribute {key} is not closed"))?;
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

/// The marker our exports put in a play (BG Stats: its comments; BoardGameGeek: its location)
/// so its game id comes back on import.
const OUR_ID: &str = "tabletally:";

/// Imports a BoardGameGeek plays file: its plays of our games become typed-in games.
/// `Err` when the file is not a plays file at all (nothing was imported).
pub async fn import_bgg(
    store: &dyn Store,
    club: &str,
    file: &[u8],
) -> Result<ImportReport, String> {
    let mut report = ImportReport::default();
    let elements = std::str::from_utf8(file)
        .map_err(|e| e.to_string())
        .and_then(xml_elements)
        .and_then(|elements| {
            // Any text would read as no elements at all: a plays file says it is one.
            if elements.iter().any(|(name, _)| name == "plays") {
                Ok(elements)
            } else {
                Err("it has no <plays> element".to_owned())
            }
        })
        .map_err(|detail| format!("not a BoardGameGeek plays file: {detail}"))?;
    let mut plays: Vec<Play> = Vec::new();
    let mut incomplete = false;
    for (name, attributes) in elements {
        let get = |key: &str| attributes.get(key).cloned().unwrap_or_default();
        match name.as_str() {
            "play" => {
                incomplete = get("incomplete") == "1";
                let location = get("location");
                plays.push(Play {
                    source_id: format!("bgg:{}", get("id")),
                    our_id: location.strip_prefix(OUR_ID).map(str::to_owned),
                    game_name: String::new(),
                    played_at: NaiveDate::parse_from_str(&get("date"), "%Y-%m-%d")
                        .ok()
                        .and_then(|d| d.and_hms_opt(0, 0, 0))
                        .map(|t| t.and_utc())
                        .unwrap_or_default(),
                    players: Vec::new(),
                    source: "BoardGameGeek",
                });
            }
            "item" => {
                if let Some(play) = plays.last_mut() {
                    play.game_name = get("name");
                    // A play marked incomplete has no final scores: it is counted as skipped.
                    if incomplete {
                        play.game_name = format!("{} (incomplete)", play.game_name);
                    }
                }
            }
            "player" => {
                if let Some(play) = plays.last_mut() {
                    let score = get("score").trim().parse().ok();
                    play.players.push((get("name"), score, get("win") == "1"));
                }
            }
            _ => {}
        }
    }
    import_plays(store, club, plays, &mut report).await;
    Ok(report)
}

/// Our finished games as a BoardGameGeek plays file. BoardGameGeek's ids of our games are not
/// ours to know, so `objectid` is 0 and the name says which game it is; the play's location
/// holds our game id.
pub async fn export_bgg(store: &dyn Store, club: &str) -> Result<String, StoreError> {
    let plays = finished_plays(store, club).await?;
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<plays total=\"{}\" page=\"1\">\n",
        plays.len()
    );
    for play in plays {
        xml.push_str(&format!(
            "  <play id=\"0\" date=\"{}\" quantity=\"1\" length=\"0\" incomplete=\"0\" nowinstats=\"0\" location=\"{OUR_ID}{}\">\n",
            play.started_at.format("%Y-%m-%d"),
            play.id
        ));
        xml.push_str(&format!(
            "    <item name=\"{}\" objecttype=\"thing\" objectid=\"0\"><subtypes><subtype value=\"boardgame\"/></subtypes></item>\n    <players>\n",
            xml_escape(&kind_title(play.kind))
        ));
        for (seat, (name, total, winner)) in play.players.iter().enumerate() {
            xml.push_str(&format!(
                "      <player username=\"\" userid=\"0\" name=\"{}\" startposition=\"{}\" color=\"\" score=\"{total}\" new=\"0\" rating=\"0\" win=\"{}\"/>\n",
                xml_escape(name),
                seat + 1,
                u8::from(*winner)
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
