//! PostgreSQL: an append that moves a game's status (its finish, mostly) in one statement.
//!
//! Decided from the held state, as a plain append is ([`super::plain`]), a first finish's writes
//! (its row moved on with its facts, its seats' results, the statistics' and the ratings' notes,
//! its event and the lobby's change) read nothing another of them writes. So they are sent as one
//! statement in a transaction of its own: one round trip, where the locked way takes four
//! (`BEGIN`, the row's lock, the writes, `COMMIT`) and keeps the row locked across all of them.
//!
//! The statement moves the game's row on only while it is at the version the append was decided
//! at, in the club (`moved`, as [`super::plain::PLAIN_APPEND`] does); then takes the club's
//! positions lock, shared (`in_flight`). Every other write applies only once `in_flight` has its
//! row. A row that moved on meanwhile writes nothing, and the append goes the locked way. The
//! row's lock comes first, as on the locked way: the other writes lock rows only after it.

use super::backend::event_with_change;
use super::lists::Param;
use super::sole::WRITES_LOCK;
use super::together::{Statement, renumbered};

/// The event and the lobby's change, written once `in_flight` has its row.
const EVENT_AND_CHANGE: &str = event_with_change!("in_flight");

/// The one statement: `row`, the `UPDATE` of the game's row ending in its `WHERE`, moves the row
/// on only while it is at version `at` in `club`; each of `rest` (an `UPDATE … WHERE …` or a
/// one-row `INSERT … VALUES (…)`) writes only once it has; then the event and the lobby's change
/// (`event_and_change`: the values of [`super::backend::Backend::EVENT_WITH_CHANGE`]), answering
/// the event's position. `alone`: this server is the database's only writer ([`super::sole`]);
/// else the statement takes the servers' writes lock, shared. `None` when a part of `rest` has
/// another shape.
pub(super) fn one_statement(
    (row, mut values): Statement,
    (club, at): (&str, i64),
    alone: bool,
    rest: Vec<Statement>,
    event_and_change: Vec<Param>,
) -> Option<Statement> {
    let n = values.len();
    let writes_lock = match WRITES_LOCK.strip_prefix("SELECT ") {
        Some(lock) if !alone => format!(", {lock}"),
        _ => String::new(),
    };
    let mut sql = format!(
        "WITH moved AS ({row} AND club_id || '' = ${} AND version = ${} RETURNING club_id), \
         in_flight AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(7461626, hashtext(club_id)){writes_lock} \
         FROM moved), ",
        n + 1,
        n + 2
    );
    values.extend([Param::from(club), Param::from(at)]);
    for (i, (part, part_values)) in rest.into_iter().enumerate() {
        let once_moved = once_in_flight(&part)?;
        sql.push_str(&format!(
            "s{i} AS ({}), ",
            renumbered(&once_moved, values.len())
        ));
        values.extend(part_values);
    }
    let last = EVENT_AND_CHANGE.strip_prefix("WITH ")?;
    sql.push_str(&renumbered(last, values.len()));
    values.extend(event_and_change);
    Some((sql, values))
}

/// `sql` written only once `in_flight` has its row: an `UPDATE`'s condition gets
/// `EXISTS (SELECT 1 FROM in_flight)` first; a one-row `INSERT … VALUES (…)` selects its row
/// from `in_flight`. `None` for any other shape.
fn once_in_flight(sql: &str) -> Option<String> {
    if sql.starts_with("UPDATE ") && !sql.contains(" RETURNING ") {
        let at = outside_parentheses(sql, " WHERE ")?;
        let (head, condition) = (&sql[..at], &sql[at + " WHERE ".len()..]);
        return Some(format!(
            "{head} WHERE EXISTS (SELECT 1 FROM in_flight) AND ({condition})"
        ));
    }
    if sql.starts_with("INSERT INTO ") {
        let at = outside_parentheses(sql, " VALUES (")?;
        let values = &sql[at + " VALUES (".len()..];
        // The row's closing parenthesis: the first one outside parentheses and quotes.
        let close = outside_parentheses(values, ")")?;
        let (row, tail) = (&values[..close], &values[close + 1..]);
        if tail.trim_start().starts_with(',') {
            return None;
        }
        let head = &sql[..at];
        return Some(format!("{head} SELECT {row} FROM in_flight{tail}"));
    }
    None
}

/// Where `needle` first starts in `sql` outside parentheses and quoted text.
fn outside_parentheses(sql: &str, needle: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quoted = false;
    for (i, c) in sql.char_indices() {
        if !quoted && depth == 0 && sql[i..].starts_with(needle) {
            return Some(i);
        }
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth = depth.checked_sub(1)?,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::writes::args;

    #[test]
    fn an_update_writes_only_once_the_row_has_moved_on() {
        assert_eq!(
            once_in_flight("UPDATE game_players SET rank = CASE seat WHEN $2 THEN $3 END WHERE game_id = $1 OR seat = 0")
                .as_deref(),
            Some(
                "UPDATE game_players SET rank = CASE seat WHEN $2 THEN $3 END \
                 WHERE EXISTS (SELECT 1 FROM in_flight) AND (game_id = $1 OR seat = 0)"
            )
        );
    }

    #[test]
    fn a_one_row_insert_selects_its_row_from_the_positions_lock() {
        assert_eq!(
            once_in_flight(
                "INSERT INTO statistics_pending (club_id, game_id) VALUES ($1, lower('a)b')) ON CONFLICT DO NOTHING"
            )
            .as_deref(),
            Some(
                "INSERT INTO statistics_pending (club_id, game_id) SELECT $1, lower('a)b') \
                 FROM in_flight ON CONFLICT DO NOTHING"
            )
        );
    }

    #[test]
    fn other_shapes_are_left_to_the_locked_way() {
        for sql in [
            "INSERT INTO t (a) VALUES ($1), ($2)",
            "UPDATE t SET a = $1",
            "UPDATE t SET a = $1 WHERE b = $2 RETURNING a",
            "DELETE FROM t WHERE a = $1",
        ] {
            assert_eq!(once_in_flight(sql), None, "{sql}");
        }
    }

    #[test]
    fn the_statement_moves_the_row_first_and_numbers_each_parts_values_after_the_last() {
        let row = (
            "UPDATE games SET version = $1 WHERE id = $2".to_owned(),
            args![5_i64, "g"],
        );
        let rest = vec![(
            "INSERT INTO rating_changes (club_id, game_id) VALUES ($1, $2)".to_owned(),
            args!["c", "g"],
        )];
        let event: Vec<Param> = (0..14).map(|n| Param::from(n as i64)).collect();
        let (sql, values) = one_statement(row, ("c", 4), false, rest, event).unwrap();
        assert!(sql.starts_with(
            "WITH moved AS (UPDATE games SET version = $1 WHERE id = $2 AND club_id || '' = $3 \
             AND version = $4 RETURNING club_id), in_flight AS MATERIALIZED \
             (SELECT pg_advisory_xact_lock_shared(7461626, hashtext(club_id)), \
             pg_advisory_xact_lock_shared(7461627, 2) FROM moved), \
             s0 AS (INSERT INTO rating_changes (club_id, game_id) SELECT $5, $6 FROM in_flight), \
             e AS ("
        ));
        assert!(sql.contains(
            "SELECT $7, $8, $9, $10, $11, $12, $13, $14 FROM in_flight RETURNING position"
        ));
        assert!(
            sql.ends_with(
                "SELECT position, $15, $16, $17, $18, $19, $20 FROM e RETURNING position"
            )
        );
        assert_eq!(values.len(), 20);
        let (alone, _) = one_statement(
            (
                "UPDATE games SET version = $1 WHERE id = $2".to_owned(),
                args![5_i64, "g"],
            ),
            ("c", 4),
            true,
            Vec::new(),
            (0..14).map(|n| Param::from(n as i64)).collect(),
        )
        .unwrap();
        assert!(!alone.contains("7461627"));
    }
}
