//! The statistics' sums and periods, by hand-computed examples.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::records::{GameRecord, GameResult};

use super::rows::FactTotal;

use super::periods::*;
use super::summary::*;

fn seat(
    game: &str,
    day: u32,
    seat: i64,
    total: i64,
    facts: &str,
    game_facts: Option<&str>,
) -> SeatResult {
    SeatResult {
        game_id: game.into(),
        seat,
        played_at: format!("2026-01-{day:02}T19:00:00Z").parse().unwrap(),
        total,
        lower_wins: true,
        facts: Some(facts.into()),
        game_facts: game_facts.map(Into::into),
    }
}

#[test]
fn a_games_seats_are_summed_into_plays_records_and_facts_by_key_and_kind() {
    let mut summary = GameSummary::default();
    for s in [
        seat(
            "g2",
            5,
            1,
            4,
            r#"{"damage:fine-wine": 4}"#,
            Some(r#"{"be_careful_decided": 1}"#),
        ),
        seat(
            "g2",
            5,
            2,
            9,
            r#"{"damage:fine-wine": 2, "damage:be-careful": 7}"#,
            None,
        ),
        seat("g1", 3, 2, 9, r#"{"damage:fine-wine": 6}"#, None),
        seat("g1", 3, 1, 4, r#"{}"#, Some(r#"{"be_careful_decided": 0}"#)),
    ] {
        summary.add(s).unwrap();
    }

    // Ties on the total go to the earlier game: g1 (3 January) holds both records, in
    // seat 1 (Di's 4) and seat 2 (Cy's 9).
    assert_eq!(
        (summary.plays, summary.results, summary.total_sum),
        (2, 4, 26)
    );
    let lowest = summary.lowest.as_ref().unwrap();
    let highest = summary.highest.as_ref().unwrap();
    assert_eq!(
        (lowest.total, lowest.game_id.as_str(), lowest.seat),
        (4, "g1", 1)
    );
    assert_eq!(
        (highest.total, highest.game_id.as_str(), highest.seat),
        (9, "g1", 2)
    );
    let fact = |key: &str, per_player, sum, count| FactTotal {
        key: key.into(),
        per_player,
        sum,
        count,
    };
    assert_eq!(
        summary.facts(),
        vec![
            fact("be_careful_decided", false, 1, 2),
            fact("damage:be-careful", true, 7, 1),
            fact("damage:fine-wine", true, 12, 3),
        ]
    );
}

#[test]
fn a_record_shared_within_one_game_goes_to_the_lower_seat_whatever_the_row_order() {
    let mut summary = GameSummary::default();
    for s in [
        seat("g1", 3, 2, 7, "{}", None),
        seat("g1", 3, 1, 7, "{}", None),
    ] {
        summary.add(s).unwrap();
    }

    assert_eq!(summary.lowest.as_ref().unwrap().seat, 1);
    assert_eq!(summary.highest.as_ref().unwrap().seat, 1);
}

#[test]
fn facts_are_stored_per_seat_and_for_the_whole_game_with_repeated_keys_added() {
    let seat = |n: i64, id: &str| crate::store::SeatRecord {
        seat: n,
        name: id.into(),
        player_id: id.into(),
        color: None,
    };
    let game = GameRecord {
        id: "g".into(),
        game: "mint-condition".into(),
        status: "finished".into(),
        version: 4,
        options: serde_json::json!({}).into(),
        players: vec![seat(1, "ann"), seat(2, "bo")],
        started_at: Utc::now(),
        updated_at: Utc::now(),
    };
    let result = GameResult {
        players: Vec::new(),
        facts: vec![
            (Some("bo".into()), "damage:fine-wine".into(), 2),
            (None, "be_careful_decided".into(), 1),
            (Some("bo".into()), "damage:fine-wine".into(), 3),
        ],
        variant: None,
        lower_wins: true,
    };

    let facts = FactsBySeat::new(&game, &result).unwrap();

    assert_eq!(facts.of_seat(1), None);
    assert_eq!(
        facts.of_seat(2).as_deref(),
        Some(r#"{"damage:fine-wine":5}"#)
    );
    assert_eq!(
        facts.whole_game().as_deref(),
        Some(r#"{"be_careful_decided":1}"#)
    );
}

#[test]
fn sums_of_days_merged_equal_the_sum_of_their_seats_records_and_facts_included() {
    let seats = || {
        vec![
            seat(
                "g1",
                3,
                1,
                9,
                r#"{"damage:fine-wine": 6}"#,
                Some(r#"{"be_careful_decided": 1}"#),
            ),
            seat("g1", 3, 2, 4, r#"{"damage:fine-wine": 2}"#, None),
            seat(
                "g2",
                5,
                1,
                4,
                r#"{"damage:be-careful": 3}"#,
                Some(r#"{"be_careful_decided": 0}"#),
            ),
            seat("g2", 5, 2, 12, "{}", None),
        ]
    };
    let mut whole = GameSummary::default();
    for s in seats() {
        whole.add(s).unwrap();
    }
    // Two days as a bucket stores them (facts as JSON), merged in the later-first order.
    let (mut day_3, mut day_5) = (GameSummary::default(), GameSummary::default());
    for (i, s) in seats().into_iter().enumerate() {
        if i < 2 {
            day_3.add(s).unwrap()
        } else {
            day_5.add(s).unwrap()
        }
    }
    let stored = |day: &GameSummary| {
        let mut read = GameSummary {
            facts: BTreeMap::new(),
            ..day.clone()
        };
        read.add_facts_json(&day.facts_json(true), true).unwrap();
        read.add_facts_json(&day.facts_json(false), false).unwrap();
        read
    };
    let mut merged = stored(&day_5);
    merged.merge(stored(&day_3));

    assert_eq!(merged, whole);
    // 9 + 4 + 4 + 12 = 29 over 4 seats of 2 games; the 4 of g1 (3 January) is the lowest.
    assert_eq!((merged.plays, merged.results, merged.total_sum), (2, 4, 29));
    assert_eq!(
        merged.lowest.as_ref().map(|r| (r.game_id.as_str(), r.seat)),
        Some(("g1", 2))
    );
    assert_eq!(
        merged
            .highest
            .as_ref()
            .map(|r| (r.game_id.as_str(), r.seat)),
        Some(("g2", 2))
    );
    assert_eq!(day_3.facts_json(false), r#"{"be_careful_decided":[1,1]}"#);
    assert_eq!(merged.lower_wins(), Some(true));
    assert_eq!(GameSummary::default().lower_wins(), None);
}

fn at(t: &str) -> DateTime<Utc> {
    t.parse().unwrap()
}

#[test]
fn a_period_reads_whole_months_then_whole_days_then_the_seats_of_partial_days() {
    let period = Period::split(
        Some(at("2025-11-20T18:30:00Z")),
        Some(at("2026-03-02T09:00:00Z")),
    );

    assert_eq!(
        period,
        Period {
            months: Some((
                Some(at("2025-12-01T00:00:00Z")),
                Some(at("2026-03-01T00:00:00Z"))
            )),
            days: vec![
                (
                    Some(at("2025-11-21T00:00:00Z")),
                    Some(at("2025-12-01T00:00:00Z"))
                ),
                (
                    Some(at("2026-03-01T00:00:00Z")),
                    Some(at("2026-03-02T00:00:00Z"))
                ),
            ],
            seats: vec![
                (
                    Some(at("2025-11-20T18:30:00Z")),
                    Some(at("2025-11-21T00:00:00Z"))
                ),
                (
                    Some(at("2026-03-02T00:00:00Z")),
                    Some(at("2026-03-02T09:00:00Z"))
                ),
            ],
        }
    );
}

#[test]
fn a_period_on_whole_months_reads_months_only_and_an_open_side_is_unbounded() {
    let whole = Period::split(
        Some(at("2026-01-01T00:00:00Z")),
        Some(at("2026-03-01T00:00:00Z")),
    );
    let since = Period::split(Some(at("2026-01-31T00:00:00Z")), None);
    let ever = Period::split(None, None);

    assert_eq!(
        whole,
        Period {
            months: Some((
                Some(at("2026-01-01T00:00:00Z")),
                Some(at("2026-03-01T00:00:00Z"))
            )),
            ..Period::default()
        }
    );
    assert_eq!(
        since,
        Period {
            months: Some((Some(at("2026-02-01T00:00:00Z")), None)),
            days: vec![(
                Some(at("2026-01-31T00:00:00Z")),
                Some(at("2026-02-01T00:00:00Z"))
            )],
            seats: vec![],
        }
    );
    assert_eq!(
        ever,
        Period {
            months: Some((None, None)),
            ..Period::default()
        }
    );
}

#[test]
fn a_short_or_empty_period_reads_days_or_seats_only() {
    let hours = Period::split(
        Some(at("2026-01-10T18:00:00Z")),
        Some(at("2026-01-11T02:00:00Z")),
    );
    let days = Period::split(
        Some(at("2026-01-10T00:00:00Z")),
        Some(at("2026-01-12T06:00:00Z")),
    );
    let backwards = Period::split(
        Some(at("2026-02-01T00:00:00Z")),
        Some(at("2026-01-01T00:00:00Z")),
    );
    let end_of_time = Period::split(Some(DateTime::<Utc>::MAX_UTC), None);

    assert_eq!(
        hours,
        Period {
            seats: vec![(
                Some(at("2026-01-10T18:00:00Z")),
                Some(at("2026-01-11T02:00:00Z"))
            )],
            ..Period::default()
        }
    );
    assert_eq!(
        days,
        Period {
            days: vec![(
                Some(at("2026-01-10T00:00:00Z")),
                Some(at("2026-01-12T00:00:00Z"))
            )],
            seats: vec![(
                Some(at("2026-01-12T00:00:00Z")),
                Some(at("2026-01-12T06:00:00Z"))
            )],
            ..Period::default()
        }
    );
    assert_eq!(backwards, Period::default());
    assert_eq!(
        end_of_time,
        Period {
            seats: vec![(Some(DateTime::<Utc>::MAX_UTC), None)],
            ..Period::default()
        }
    );
}
