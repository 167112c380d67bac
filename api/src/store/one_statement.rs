//! PostgreSQL: writes that read nothing another of them writes, sent as one statement that
//! writes them only if a first part finds what they were decided on. Two such writes:
//!
//! - **A game's first finish** decided from the held state, as a plain append is
//!   ([`super::plain`]): its row moved on with its facts, its seats' results, the statistics'
//!   and the ratings' notes, its event and the lobby's change ([`once_moved`]). The locked way
//!   takes four round trips (`BEGIN`, the row's lock, the writes, `COMMIT`) and keeps the row
//!   locked across them. The statement moves the game's row on only while it is at the version
//!   the append was decided at, in the club (as [`super::plain::PLAIN_APPEND`] does). The row's
//!   lock comes first, as on the locked way: the other writes lock rows only after it.
//! - **A game's creation** whose every player this server has seen by name
//!   ([`once_checked`]): its row, its seats, its first event and the lobby's change. The
//!   statement checks that the id is new and that each name is still its player's, where the
//!   usual creation reads them first: one round trip where it took two.
//!
//! Then the statement takes the club's positions lock, shared (`in_flight`), and every other
//! write applies only once `in_flight` has its row. When the first part finds nothing (the row
//! moved on, the id taken, a name now another player's) nothing is written and the caller goes
//! the longer way.

use super::backend::event_with_change;
use super::lists::Param;
use super::sole::WRITES_LOCK;
use super::together::{Statement, renumbered};

/// The event and the lobby's change, written once `in_flight` has its row.
const EVENT_AND_CHANGE: &str = event_with_change!("in_flight");

/// A first finish: `row`, the `UPDATE` of the game's row ending in its `WHERE`, moves the row on
/// only while it is at version `at` in `club`; each of `rest` writes only once it has; then the
/// event and the lobby's change (`event_and_change`: the values of
/// [`super::backend::Backend::EVENT_WITH_CHANGE`]), answering the event's position. `alone`: this
/// server is the database's only writer ([`super::sole`]); else the statement takes the servers'
/// writes lock, shared. `None` when a part of `rest` has a shape [`once_in_flight`] does not take.
pub(super) fn once_moved(
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
    let head = format!(
        "WITH moved AS ({row} AND club_id || '' = ${} AND version = ${} RETURNING club_id), \
         in_flight AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(7461626, hashtext(club_id)){writes_lock} \
         FROM moved), ",
        n + 1,
        n + 2
    );
    values.extend([Param::from(club), Param::from(at)]);
    once_in_flight_all(head, values, rest, event_and_change)
}

/// A creation of known players: `game` is no game's id yet, and each `(name key, player)` of
/// `seated` is still that player's in `club`; then `rest` and the event and the lobby's change,
/// as [`once_moved`] writes them.
pub(super) fn once_checked(
    club: &str,
    game: &str,
    seated: &[(String, String)],
    rest: Vec<Statement>,
    event_and_change: Vec<Param>,
) -> Option<Statement> {
    let mut values = vec![Param::from(club), Param::from(game)];
    let mut checks = vec!["NOT EXISTS (SELECT 1 FROM games WHERE id = $2)".to_owned()];
    for (key, player) in seated {
        checks.push(format!(
            "EXISTS (SELECT 1 FROM players WHERE club_id = $1 AND name_key = ${} AND id = ${})",
            values.len() + 1,
            values.len() + 2
        ));
        values.extend([Param::from(key), Param::from(player)]);
    }
    let head = format!(
        "WITH in_flight AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(7461626, hashtext($1)) \
         WHERE {}), ",
        checks.join(" AND ")
    );
    once_in_flight_all(head, values, rest, event_and_change)
}

/// `head` (ending in `in_flight`'s part, `values` its values), each of `rest` written once
/// `in_flight` has its row, then the event and the lobby's change.
fn once_in_flight_all(
    mut sql: String,
    mut values: Vec<Param>,
    rest: Vec<Statement>,
    event_and_change: Vec<Param>,
) -> Option<Statement> {
    for (i, (part, part_values)) in rest.into_iter().enumerate() {
        let once = once_in_flight(&part)?;
        sql.push_str(&format!("s{i} AS ({}), ", renumbered(&once, values.len())));
        values.extend(part_values);
    }
    let last = EVENT_AND_CHANGE.strip_prefix("WITH ")?;
    sql.push_str(&renumbered(last, values.len()));
    values.extend(event_and_change);
    Some((sql, values))
}

/// `sql` written only once `in_flight` has its row: an `UPDATE`'s condition gets
/// `EXISTS (SELECT 1 FROM in_flight)` first; an `INSERT … VALUES (…)` selects its row from
/// `in_flight`, and one of several rows selects them where `in_flight` has its row. `None` for
/// any other shape.
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
        let head = &sql[..at];
        let rows_from = at + " VALUES ".len();
        // Each row's closing parenthesis is the first one outside parentheses and quotes after
        // its opening one; the rows end where no `, (` follows.
        let mut end = rows_from;
        let mut rows = 0;
        loop {
            let open = end + 1;
            end = open + outside_parentheses(&sql[open..], ")")? + 1;
            rows += 1;
            match sql[end..].strip_prefix(", (") {
                Some(_) => end += ", ".len(),
                None => break,
            }
        }
        let (values, tail) = (&sql[rows_from..end], &sql[end..]);
        if rows == 1 {
            let row = &values[1..values.len() - 1];
            return Some(format!("{head} SELECT {row} FROM in_flight{tail}"));
        }
        return Some(format!(
            "{head} SELECT v.* FROM (VALUES {values}) AS v WHERE EXISTS (SELECT 1 FROM in_flight){tail}"
        ));
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
    fn an_insert_of_several_rows_selects_them_once_the_positions_lock_is_held() {
        assert_eq!(
            once_in_flight(
                "INSERT INTO game_players (game_id, seat) VALUES ($1, $2), ($3, lower(')'))"
            )
            .as_deref(),
            Some(
                "INSERT INTO game_players (game_id, seat) SELECT v.* FROM (VALUES ($1, $2), ($3, lower(')'))) \
                 AS v WHERE EXISTS (SELECT 1 FROM in_flight)"
            )
        );
    }

    #[test]
    fn other_shapes_are_left_to_the_locked_way() {
        for sql in [
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
        let (sql, values) = once_moved(row, ("c", 4), false, rest, event).unwrap();
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
        let (alone, _) = once_moved(
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
