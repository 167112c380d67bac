//! Writes sent together: on PostgreSQL a statement costs a round trip whatever it writes, and
//! at a busy club night the round trips are what the server and the database spend their CPU on
//! (a game's creation and its finish were 27 of a game's 29). Statements that do not depend on
//! each other are therefore sent as one: each but the last becomes a data-modifying `WITH` of
//! the last (PostgreSQL runs all of them, referenced or not). SQLite has no such `WITH`, and
//! nothing to gain: its statements are calls within the process, run one after the other.
//!
//! What "do not depend on each other" means: the parts of one statement all read the database
//! as it was before the statement, so none may read what another writes, and no two may change
//! the same row. Reads (`SELECT`, a lock) cannot be sent this way: a `WITH` that is only a read
//! runs only when the statement reads it.

use super::lists::Param;

/// One statement and its values, in placeholder order.
pub(super) type Statement = (String, Vec<Param>);

/// The statements as one, for PostgreSQL: `WITH s0 AS (first), s1 AS (second) last`, each one's
/// placeholders moved past the ones before it. A last statement that has a `WITH` of its own
/// keeps it, after the others.
pub(super) fn together(statements: Vec<Statement>) -> Statement {
    let mut parts = Vec::with_capacity(statements.len());
    let mut args = Vec::new();
    for (sql, values) in statements {
        parts.push(renumbered(&sql, args.len()));
        args.extend(values);
    }
    let Some(last) = parts.pop() else {
        return (String::new(), args);
    };
    if parts.is_empty() {
        return (last, args);
    }
    let mut sql = String::from("WITH ");
    for (i, part) in parts.iter().enumerate() {
        debug_assert!(
            !starts_with_with(part),
            "only the last statement may have a WITH"
        );
        sql.push_str(&format!("s{i} AS ({part}), "));
    }
    match last.strip_prefix("WITH ") {
        Some(rest) => sql.push_str(rest),
        None => {
            sql.truncate(sql.len() - 2);
            sql.push(' ');
            sql.push_str(&last);
        }
    }
    (sql, args)
}

fn starts_with_with(sql: &str) -> bool {
    sql.trim_start().starts_with("WITH ")
}

/// `sql` with every placeholder `$n` written `$(n + by)`; quoted text is left as it is.
pub(super) fn renumbered(sql: &str, by: usize) -> String {
    if by == 0 {
        return sql.to_owned();
    }
    let mut out = String::with_capacity(sql.len() + 16);
    let mut chars = sql.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '\'' {
            quoted = !quoted;
        } else if c == '$' && !quoted && chars.peek().is_some_and(char::is_ascii_digit) {
            let mut n = 0usize;
            while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                n = n * 10 + d as usize;
                chars.next();
            }
            out.push_str(&(n + by).to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::writes::args;

    fn sql_of(statements: Vec<Statement>) -> String {
        together(statements).0
    }

    #[test]
    fn each_statements_placeholders_follow_the_ones_before_it() {
        let (sql, args) = together(vec![
            (
                "UPDATE a SET x = $1 WHERE id = $2".into(),
                args![1_i64, "g"],
            ),
            (
                "INSERT INTO b VALUES ($1, $2, $3)".into(),
                args![2_i64, 3_i64, 4_i64],
            ),
            ("DELETE FROM c WHERE id = $1".into(), args!["h"]),
        ]);
        assert_eq!(
            sql,
            "WITH s0 AS (UPDATE a SET x = $1 WHERE id = $2), \
             s1 AS (INSERT INTO b VALUES ($3, $4, $5)) DELETE FROM c WHERE id = $6"
        );
        assert_eq!(args.len(), 6);
    }

    #[test]
    fn a_last_statement_with_its_own_with_keeps_it_after_the_others() {
        assert_eq!(
            sql_of(vec![
                ("UPDATE a SET x = $1".into(), args![1_i64]),
                (
                    "WITH e AS (INSERT INTO b VALUES ($1) RETURNING p) INSERT INTO c SELECT p, $2 FROM e"
                        .into(),
                    args![2_i64, 3_i64]
                ),
            ]),
            "WITH s0 AS (UPDATE a SET x = $1), e AS (INSERT INTO b VALUES ($2) RETURNING p) \
             INSERT INTO c SELECT p, $3 FROM e"
        );
    }

    #[test]
    fn quoted_text_and_numbers_past_nine_are_renumbered_right() {
        assert_eq!(
            renumbered("SELECT '$1', $10, $2::text[] FROM t WHERE '{}' = $1", 3),
            "SELECT '$1', $13, $5::text[] FROM t WHERE '{}' = $4"
        );
    }

    #[test]
    fn one_statement_is_sent_as_it_is() {
        assert_eq!(
            sql_of(vec![("UPDATE a SET x = $1".into(), args![1_i64])]),
            "UPDATE a SET x = $1"
        );
    }
}
