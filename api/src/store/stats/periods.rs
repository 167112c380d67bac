//! A period of the statistics split into what it is read from: whole months, whole days, and
//! the seats of the partial days at its edges.

use chrono::{DateTime, Datelike, Days, Months, NaiveTime, Utc};

/// `[start, end)`; `None`: unbounded on that side.
pub(super) type Range = (Option<DateTime<Utc>>, Option<DateTime<Utc>>);

/// How a period (`from` inclusive, `to` exclusive, any instants) is read: whole UTC months
/// from the month buckets, whole UTC days at its edges from the day buckets, and the games of
/// the partial days at its very edges (at most two, or one stretch shorter than two days) from
/// their seats. A period of years thus reads some 70 months, up to 60 days and a few hundred
/// seats, never every game in it.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Period {
    pub(super) months: Option<Range>,
    pub(super) days: Vec<Range>,
    pub(super) seats: Vec<Range>,
}

pub(super) fn day_start(t: DateTime<Utc>) -> DateTime<Utc> {
    t.date_naive().and_time(NaiveTime::MIN).and_utc()
}

pub(in crate::store) fn month_start(t: DateTime<Utc>) -> DateTime<Utc> {
    let first = t
        .date_naive()
        .with_day(1)
        .expect("every month has a first day");
    first.and_time(NaiveTime::MIN).and_utc()
}

pub(super) fn next_day(t: DateTime<Utc>) -> Option<DateTime<Utc>> {
    t.checked_add_days(Days::new(1))
}

pub(super) fn next_month(t: DateTime<Utc>) -> Option<DateTime<Utc>> {
    t.checked_add_months(Months::new(1))
}

/// The first start of a span at or after `t` (`None` past the calendar's end).
fn ceil(
    t: DateTime<Utc>,
    start: fn(DateTime<Utc>) -> DateTime<Utc>,
    next: fn(DateTime<Utc>) -> Option<DateTime<Utc>>,
) -> Option<DateTime<Utc>> {
    let floor = start(t);
    if floor == t { Some(t) } else { next(floor) }
}

impl Period {
    pub(super) fn split(from: Option<DateTime<Utc>>, to: Option<DateTime<Utc>>) -> Period {
        let mut period = Period::default();
        if let (Some(from), Some(to)) = (from, to)
            && from >= to
        {
            return period;
        }
        let Some(days) = whole_spans((from, to), day_start, next_day, &mut period.seats) else {
            return period;
        };
        period.months = whole_spans(days, month_start, next_month, &mut period.days);
        period
    }
}

/// The whole spans (days, or months) inside `range`, as one range, its parts before and after
/// them added to `rest`; `None` when no whole span fits (or the calendar ends): all of
/// `range` is then added to `rest`. `None` as a bound is unbounded on that side.
fn whole_spans(
    range: Range,
    start: fn(DateTime<Utc>) -> DateTime<Utc>,
    next: fn(DateTime<Utc>) -> Option<DateTime<Utc>>,
    rest: &mut Vec<Range>,
) -> Option<Range> {
    let (from, to) = range;
    let first = match from {
        Some(from) => match ceil(from, start, next) {
            Some(first) => Some(first),
            None => {
                rest.push(range);
                return None;
            }
        },
        None => None,
    };
    let end = to.map(start);
    if let (Some(first), Some(end)) = (first, end)
        && first >= end
    {
        rest.push(range);
        return None;
    }
    if let (Some(from), Some(first)) = (from, first)
        && from < first
    {
        rest.push((Some(from), Some(first)));
    }
    if let (Some(end), Some(to)) = (end, to)
        && end < to
    {
        rest.push((Some(end), Some(to)));
    }
    Some((first, end))
}
