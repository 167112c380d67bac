//! BoardGameGeek's plays XML (as `https://boardgamegeek.com/xmlapi2/plays` serves it), in and
//! out.

use chrono::NaiveDate;
use tabletally_domain::Message;

use super::xml::{xml_elements, xml_escape};
use super::{
    NumberedSeat, OUR_GAME_ID, OUR_ID, Play, Seat, colour, finished_plays, first_plays,
    import_plays, in_seat_order, kind_title,
};
use crate::portability::{GameIds, ImportReport};
use crate::store::{Store, StoreError};

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
                        tabletally_domain::said!(
                            "server.api.import.play.quantity_too_high",
                            quantity = quantity,
                            most = MAX_QUANTITY
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
