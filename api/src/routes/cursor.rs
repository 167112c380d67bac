//! Pages of lists: their size (`limit`), and their cursors, opaque to clients (hex of a small
//! text) and checked when they come back.

use chrono::{DateTime, Utc};

use crate::error::ApiError;

/// A page's size: `limit` if given (1 to `most`), else `default`.
pub fn page_limit(limit: Option<i64>, default: i64, most: i64) -> Result<i64, ApiError> {
    let limit = limit.unwrap_or(default);
    if !(1..=most).contains(&limit) {
        return Err(ApiError::bad_parameter(
            "limit",
            tabletally_domain::said!("server.api.query.limit", most = most, got = limit),
        ));
    }
    Ok(limit)
}

fn bad() -> ApiError {
    ApiError::bad_parameter(
        "cursor",
        tabletally_domain::said!("server.api.cursor.not_ours"),
    )
}

fn encode(text: &str) -> String {
    crate::auth::hex(text.as_bytes())
}

fn decode(cursor: &str) -> Result<String, ApiError> {
    // Hex digits only (`from_str_radix` alone would also read a sign: "+f").
    if !cursor.len().is_multiple_of(2) || !cursor.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let bytes: Vec<u8> = (0..cursor.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&cursor[i..i + 2], 16))
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    String::from_utf8(bytes).map_err(|_| bad())
}

/// After a game `(started_at, id)` in newest-first order.
pub fn encode_game(started_at: DateTime<Utc>, id: &str) -> String {
    encode(&format!("{}|{id}", started_at.to_rfc3339()))
}

pub fn decode_game(cursor: &str) -> Result<(DateTime<Utc>, String), ApiError> {
    let text = decode(cursor)?;
    let (at, id) = text.split_once('|').ok_or_else(bad)?;
    let at = DateTime::parse_from_rfc3339(at)
        .map_err(|_| bad())?
        .with_timezone(&Utc);
    Ok((at, id.to_owned()))
}

/// After a player of a ratings table ranked by `ordinal` (highest first), then by id.
pub fn encode_rating(ordinal: f64, id: &str) -> String {
    encode(&format!("{ordinal:e}|{id}"))
}

pub fn decode_rating(cursor: &str) -> Result<(f64, String), ApiError> {
    let text = decode(cursor)?;
    let (ordinal, id) = text.split_once('|').ok_or_else(bad)?;
    let ordinal: f64 = ordinal.parse().map_err(|_| bad())?;
    if !ordinal.is_finite() {
        return Err(bad());
    }
    Ok((ordinal, id.to_owned()))
}

/// After a player name (compared lower-cased).
pub fn encode_name(name: &str) -> String {
    encode(&name.to_lowercase())
}

pub fn decode_name(cursor: &str) -> Result<String, ApiError> {
    decode(cursor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_cursor_decodes_to_what_was_encoded() {
        let at = DateTime::parse_from_rfc3339("2026-11-30T19:00:00.5Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(
            decode_game(&encode_game(at, "abc")).unwrap(),
            (at, "abc".to_owned())
        );
        assert_eq!(decode_name(&encode_name("Ann")).unwrap(), "ann");
    }

    #[test]
    fn a_forged_cursor_is_a_bad_request() {
        assert!(matches!(
            decode_game("zz"),
            Err(ApiError::Unreadable { .. })
        ));
        assert!(matches!(
            decode_game("616263"),
            Err(ApiError::Unreadable { .. })
        ));
        assert!(matches!(decode_name("6"), Err(ApiError::Unreadable { .. })));
    }
}
