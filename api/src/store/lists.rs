//! The SQL of the club's game list, written for the filters given: a filter left out is not in
//! the statement, so each combination is planned with the index that serves it (SQLite plans a
//! statement once, and cannot use an index for `$n IS NULL OR column = $n`). Each game comes
//! with its seats in the same statement, one row per seat.

use chrono::{DateTime, Utc};
use tabletally_domain::setup::name_key;

use super::types::GameFilter;

/// A value to bind, in the order of the statement's `$n`.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Param {
    Text(String),
    Time(DateTime<Utc>),
    Int(i64),
    Real(f64),
    OptText(Option<String>),
    OptTime(Option<DateTime<Utc>>),
    OptInt(Option<i64>),
    Bytes(Vec<u8>),
}

/// `Param::from` for each type a statement binds: the variant, and how the value is owned.
macro_rules! param_from {
    ($($type:ty => $variant:ident($v:ident) $owned:expr;)*) => {
        $(impl From<$type> for Param {
            fn from($v: $type) -> Self {
                Param::$variant($owned)
            }
        })*
    };
}

param_from! {
    &str => Text(v) v.to_owned();
    &String => Text(v) v.clone();
    String => Text(v) v;
    DateTime<Utc> => Time(v) v;
    i64 => Int(v) v;
    f64 => Real(v) v;
    Option<String> => OptText(v) v;
    &Option<String> => OptText(v) v.clone();
    Option<&str> => OptText(v) v.map(str::to_owned);
    Option<DateTime<Utc>> => OptTime(v) v;
    Option<i64> => OptInt(v) v;
    Vec<u8> => Bytes(v) v;
}

/// Binds [`Param`]s to a query, in order.
macro_rules! bind_params {
    ($query:expr, $params:expr) => {{
        let mut query = $query;
        for param in $params {
            query = match param {
                Param::Text(v) => query.bind(v),
                Param::Time(v) => query.bind(v),
                Param::Int(v) => query.bind(v),
                Param::Real(v) => query.bind(v),
                Param::OptText(v) => query.bind(v),
                Param::OptTime(v) => query.bind(v),
                Param::OptInt(v) => query.bind(v),
                Param::Bytes(v) => query.bind(v),
            };
        }
        query
    }};
}
pub(super) use bind_params;

/// Parameters collected while a statement is written: `bind` returns the placeholder.
#[derive(Default)]
pub(super) struct Params(pub(super) Vec<Param>);

impl Params {
    pub(super) fn bind(&mut self, value: Param) -> String {
        self.0.push(value);
        format!("${}", self.0.len())
    }
}

/// The statement and its parameters: a page of the club's games, newest first, each joined
/// with its seats (`seat`, `name`, `player_id`, `color`; NULL for a game without seats).
pub(super) fn game_list(club: &str, filter: &GameFilter) -> (String, Vec<Param>) {
    let mut params = Params::default();
    let club = params.bind(Param::Text(club.to_owned()));
    let mut conditions = vec![if filter.player.is_some() {
        // Not by the club's index: a player's games are found from their seats and sorted,
        // where SQLite's planner (it keeps no statistics) would walk the club's games.
        format!("g.club_id || '' = {club}")
    } else {
        format!("g.club_id = {club}")
    }];
    if let Some(game) = &filter.game {
        conditions.push(format!(
            "g.game = {}",
            params.bind(Param::Text(game.clone()))
        ));
    }
    if let Some(status) = &filter.status {
        conditions.push(format!(
            "g.status = {}",
            params.bind(Param::Text(status.clone()))
        ));
    }
    if let Some(from) = filter.from {
        conditions.push(format!(
            "g.started_at >= {}",
            params.bind(Param::Time(from))
        ));
    }
    if let Some(to) = filter.to {
        conditions.push(format!("g.started_at < {}", params.bind(Param::Time(to))));
    }
    if let Some(player) = &filter.player {
        // By id or by name (the one name rule): the player's seats lead, not the club's games.
        let id = params.bind(Param::Text(player.clone()));
        let key = params.bind(Param::Text(name_key(player)));
        conditions.push(format!(
            "g.id IN (SELECT gp.game_id FROM players p JOIN game_players gp ON gp.player_id = p.id \
             WHERE p.club_id = {club} AND (p.id = {id} OR p.name_key = {key}))"
        ));
    }
    if let Some((started_at, id)) = &filter.after {
        let started_at = params.bind(Param::Time(*started_at));
        let id = params.bind(Param::Text(id.clone()));
        conditions.push(format!("(g.started_at, g.id) < ({started_at}, {id})"));
    }
    let limit = params.bind(Param::Int(filter.limit));
    let sql = format!(
        "SELECT l.id, l.game, l.status, l.version, l.options, l.started_at, l.updated_at, \
                s.seat, s.name, s.player_id, s.color \
         FROM (SELECT g.id, g.game, g.status, g.version, g.options, g.started_at, g.updated_at \
               FROM games g WHERE {} ORDER BY g.started_at DESC, g.id DESC LIMIT {limit}) l \
         LEFT JOIN game_players s ON s.game_id = l.id \
         ORDER BY l.started_at DESC, l.id DESC, s.seat",
        conditions.join(" AND ")
    );
    (sql, params.0)
}

/// `($1, $2, …), ($k, …)` for `rows` rows of `columns` parameters.
pub(super) fn placeholders(rows: usize, columns: usize) -> String {
    (0..rows)
        .map(|r| {
            format!(
                "({})",
                (1..=columns)
                    .map(|c| format!("${}", r * columns + c))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_filters_given_are_in_the_statement_numbered_in_order() {
        let filter = GameFilter {
            status: Some("finished".into()),
            player: Some("Ann".into()),
            limit: 51,
            ..GameFilter::default()
        };

        let (sql, params) = game_list("club", &filter);

        assert!(sql.contains("g.club_id || '' = $1 AND g.status = $2 AND g.id IN"));
        assert!(sql.contains("(p.id = $3 OR p.name_key = $4)"));
        assert!(sql.contains("LIMIT $5"));
        assert!(!sql.contains("g.game ="));
        assert!(!sql.contains("IS NULL"));
        assert_eq!(
            params,
            vec![
                Param::Text("club".into()),
                Param::Text("finished".into()),
                Param::Text("Ann".into()),
                Param::Text("ann".into()),
                Param::Int(51),
            ]
        );
    }
}
