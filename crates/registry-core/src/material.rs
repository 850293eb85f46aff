//! Receipts of radioactive material: the calendar week in Brasília they count in, the activity
//! they bring, and the margin left under a facility's authorised weekly quantity.

use crate::equipment::Reference;
use crate::error::{FieldCode, FieldError, FieldErrors};
use crate::nuclide::Nuclide;
use crate::payload::ObjectReader;
use crate::values::Radioisotope;
use chrono::{
    DateTime, Datelike, Duration, FixedOffset, NaiveDate, NaiveTime, TimeZone, Utc, Weekday,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;
use utoipa::ToSchema;

/// Brasília time, UTC−03:00. Brazil abolished daylight saving time in 2019 (Decree 9.772), so
/// the offset is fixed; dates before that are not the registry's concern.
pub fn brasilia() -> FixedOffset {
    FixedOffset::west_opt(3 * 3600).expect("valid offset")
}

/// The instant a day starts in Brasília.
pub fn day_start(day: NaiveDate) -> DateTime<Utc> {
    brasilia()
        .from_local_datetime(&day.and_time(NaiveTime::MIN))
        .single()
        .expect("a fixed offset has no gaps")
        .with_timezone(&Utc)
}

/// An ISO 8601 week (Monday to Sunday), written `YYYY-Www`, as lived in Brasília.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IsoWeek {
    year: i32,
    week: u32,
}

impl IsoWeek {
    /// `2026-W05` (four-digit ISO week-numbering year, two-digit week that exists in that year).
    pub fn parse(s: &str) -> Option<IsoWeek> {
        let (year, week) = s.trim().split_once("-W")?;
        if year.len() != 4 || week.len() != 2 {
            return None;
        }
        if !year.bytes().chain(week.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let (year, week) = (year.parse().ok()?, week.parse().ok()?);
        NaiveDate::from_isoywd_opt(year, week, Weekday::Mon)?;
        Some(IsoWeek { year, week })
    }

    /// The week a calendar day falls in.
    pub fn of_day(day: NaiveDate) -> IsoWeek {
        let w = day.iso_week();
        IsoWeek {
            year: w.year(),
            week: w.week(),
        }
    }

    /// The week an instant falls in, by the calendar of Brasília.
    pub fn containing(t: DateTime<Utc>) -> IsoWeek {
        IsoWeek::of_day(t.with_timezone(&brasilia()).date_naive())
    }

    pub fn monday(self) -> NaiveDate {
        NaiveDate::from_isoywd_opt(self.year, self.week, Weekday::Mon).expect("checked on parse")
    }

    pub fn sunday(self) -> NaiveDate {
        self.monday() + Duration::days(6)
    }

    /// Monday 00:00 in Brasília (03:00 UTC): the first instant of the week.
    pub fn start(self) -> DateTime<Utc> {
        day_start(self.monday())
    }

    /// The next Monday 00:00 in Brasília: the first instant *after* the week.
    pub fn end(self) -> DateTime<Utc> {
        self.start() + Duration::days(7)
    }

    pub fn previous(self) -> IsoWeek {
        IsoWeek::of_day(self.monday() - Duration::days(7))
    }

    pub fn next(self) -> IsoWeek {
        IsoWeek::of_day(self.monday() + Duration::days(7))
    }
}

impl fmt::Display for IsoWeek {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-W{:02}", self.year, self.week)
    }
}

/// The activity a receipt brings at the moment it arrives: the declared activity (mCi at its
/// reference time, as on the supplier's label) decayed — or, for a reference time after the
/// receipt, grown back — to the time of receipt.
pub fn activity_at_receipt(
    radioisotope: Radioisotope,
    activity: f64,
    reference: DateTime<Utc>,
    received: DateTime<Utc>,
) -> f64 {
    let elapsed = (received - reference).num_milliseconds() as f64 / 1000.0;
    Nuclide::from(radioisotope).decay(activity, elapsed)
}

/// Relative slack when comparing sums of activities with a quantity, so that receipts that add up
/// to the authorised quantity exactly are not flagged by a rounding error.
const SLACK: f64 = 1e-9;

/// Whether `received` (the week's total, this receipt included) goes over `authorised`.
/// Nothing is authorised for an isotope absent from the facility's list.
pub fn exceeds(authorised: Option<f64>, received: f64) -> bool {
    match authorised {
        Some(q) => received > q * (1.0 + SLACK),
        None => received > 0.0,
    }
}

/// One isotope's week: what is authorised, what came in, what is left.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IsotopeUsage {
    pub radioisotope: Radioisotope,
    /// Authorised weekly quantity in mCi; 0 for an isotope no longer authorised.
    pub authorised: f64,
    /// Sum of the week's receipts in mCi (activity at receipt).
    pub received: f64,
    /// `authorised − received`; negative when the week went over.
    pub remaining: f64,
    pub exceeded: bool,
    /// How many receipts the week has.
    pub receipts: i64,
}

/// The usage of every authorised isotope (in the order of the authorisation), followed by any
/// isotope received that week without being authorised now. `received` holds
/// `(isotope, total, count)` per isotope.
pub fn usage(
    authorised: &[(Radioisotope, f64)],
    received: &[(Radioisotope, f64, i64)],
) -> Vec<IsotopeUsage> {
    let line = |r: Radioisotope, q: Option<f64>| {
        let (total, count) = received
            .iter()
            .find(|(x, _, _)| *x == r)
            .map_or((0.0, 0), |(_, t, n)| (*t, *n));
        IsotopeUsage {
            radioisotope: r,
            authorised: q.unwrap_or(0.0),
            received: total,
            remaining: q.unwrap_or(0.0) - total,
            exceeded: exceeds(q, total),
            receipts: count,
        }
    };
    let mut lines: Vec<IsotopeUsage> = authorised.iter().map(|(r, q)| line(*r, Some(*q))).collect();
    for (r, _, _) in received {
        if !authorised.iter().any(|(a, _)| a == r) && !lines.iter().any(|l| l.radioisotope == *r) {
            lines.push(line(*r, None));
        }
    }
    lines
}

/// `GET /facility/:id/radioisotopes/usage?week=YYYY-Www`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WeeklyUsage {
    pub facility: Reference,
    /// `YYYY-Www`.
    pub week: String,
    /// Monday 00:00 in Brasília, as an RFC 3339 UTC instant.
    pub from: String,
    /// The next Monday 00:00 in Brasília (exclusive).
    pub to: String,
    pub radioisotopes: Vec<IsotopeUsage>,
}

/// A receipt of radioactive material at a facility.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Receipt {
    #[serde(rename = "_id")]
    pub id: String,
    pub facility: Reference,
    pub radioisotope: Radioisotope,
    /// Declared activity in mCi at `activityReferenceTime`.
    pub activity: f64,
    pub activity_reference_time: String,
    /// The declared activity decayed to `receivedAt`, in mCi: what counts against the week.
    pub activity_at_receipt: f64,
    pub supplier: String,
    pub lot: Option<String>,
    /// Who took delivery (a name; not necessarily a user of the registry).
    pub received_by: String,
    pub received_at: String,
    /// The ISO week (Brasília) the receipt counts in.
    pub week: String,
    /// The week's receipts of this isotope went over the authorised quantity with this one.
    pub over_quantity: bool,
    pub notes: Option<String>,
    pub created_by: Reference,
    pub created_at: String,
    pub updated_at: String,
}

/// A receipt as read from a request, before the facility's authorisation is checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ReceiptDraft {
    pub radioisotope: Radioisotope,
    pub activity: f64,
    pub activity_reference_time: DateTime<Utc>,
    pub supplier: String,
    pub lot: Option<String>,
    pub received_by: Option<String>,
    pub received_at: DateTime<Utc>,
    pub notes: Option<String>,
}

/// How far in the future a receipt may be dated: clocks of people and servers differ.
const CLOCK_SKEW_MINUTES: i64 = 5;

/// An instant: RFC 3339, or a bare `YYYY-MM-DD` taken as `at_day(day)`.
pub fn parse_instant(
    s: &str,
    at_day: impl Fn(NaiveDate) -> DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if s.len() == 10 {
        return NaiveDate::parse_from_str(s, "%Y-%m-%d").ok().map(at_day);
    }
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

pub(crate) fn object(body: &Value) -> Result<&Map<String, Value>, Vec<FieldError>> {
    body.as_object().ok_or_else(|| {
        vec![FieldError::new(
            "",
            FieldCode::InvalidValue,
            "the body must be a JSON object",
        )]
    })
}

/// A radioisotope of the spec's list (`Tc(99m)`); `Tc-99m` is accepted too.
pub fn radioisotope(v: &Value) -> Option<Radioisotope> {
    let s = v.as_str()?.trim();
    Radioisotope::parse(s).or_else(|| {
        let n = Nuclide::parse(s)?;
        Radioisotope::ALL
            .iter()
            .copied()
            .find(|r| Nuclide::from(*r) == n)
    })
}

pub(crate) fn required_radioisotope(
    r: &ObjectReader,
    key: &str,
    errs: &mut FieldErrors,
) -> Option<Radioisotope> {
    match r.get(key) {
        None | Some(Value::Null) => {
            errs.push(r.path(key), FieldCode::Required, "is required");
            None
        }
        Some(v) => radioisotope(v).or_else(|| {
            errs.push(
                r.path(key),
                FieldCode::InvalidRadioisotope,
                format!("must be one of: {}", Radioisotope::allowed()),
            );
            None
        }),
    }
}

/// A positive activity in mCi (a number, or digits with a dot).
pub(crate) fn required_activity(
    r: &ObjectReader,
    key: &str,
    errs: &mut FieldErrors,
) -> Option<f64> {
    match r.get(key) {
        None | Some(Value::Null) => {
            errs.push(r.path(key), FieldCode::Required, "is required");
            None
        }
        Some(v) => crate::values::positive_amount(v).or_else(|| {
            errs.push(
                r.path(key),
                FieldCode::InvalidQuantity,
                "must be a positive number of mCi, with a dot for decimals",
            );
            None
        }),
    }
}

/// An optional instant (RFC 3339 or `YYYY-MM-DD`) that may not lie in the future.
pub(crate) fn past_instant(
    r: &ObjectReader,
    key: &str,
    now: DateTime<Utc>,
    at_day: impl Fn(NaiveDate) -> DateTime<Utc>,
    errs: &mut FieldErrors,
) -> Option<DateTime<Utc>> {
    let v = r.get(key).filter(|v| !v.is_null())?;
    match v.as_str().and_then(|s| parse_instant(s, at_day)) {
        Some(t) if t > now + Duration::minutes(CLOCK_SKEW_MINUTES) => {
            errs.push(
                r.path(key),
                FieldCode::InvalidValue,
                "cannot be in the future",
            );
            None
        }
        Some(t) => Some(t),
        None => {
            errs.push(
                r.path(key),
                FieldCode::InvalidValue,
                "must be an RFC 3339 time (2026-03-02T09:30:00-03:00) or a date YYYY-MM-DD",
            );
            None
        }
    }
}

/// Reads a receipt. `receivedAt` defaults to `now`; a bare date means noon of that day in
/// Brasília. `activityReferenceTime` defaults to `receivedAt` and may lie in the future (a
/// generator calibrated for a later day).
pub fn read_receipt(body: &Value, now: DateTime<Utc>) -> Result<ReceiptDraft, Vec<FieldError>> {
    let r = ObjectReader::new(object(body)?, "");
    let mut errs = FieldErrors::default();
    let noon = |d: NaiveDate| day_start(d) + Duration::hours(12);
    let radioisotope = required_radioisotope(&r, "radioisotope", &mut errs);
    let activity = required_activity(&r, "activity", &mut errs);
    let received_at = past_instant(&r, "receivedAt", now, noon, &mut errs);
    let reference = match r.get("activityReferenceTime").filter(|v| !v.is_null()) {
        None => None,
        Some(v) => {
            let t = v.as_str().and_then(|s| parse_instant(s, noon));
            if t.is_none() {
                errs.push(
                    "activityReferenceTime",
                    FieldCode::InvalidValue,
                    "must be an RFC 3339 time or a date YYYY-MM-DD",
                );
            }
            t
        }
    };
    let supplier = r.required_string("supplier", &mut errs);
    let lot = r.clearable_string("lot", &mut errs).flatten();
    let received_by = r.clearable_string("receivedBy", &mut errs).flatten();
    let notes = r.clearable_string("notes", &mut errs).flatten();
    if !errs.is_empty() {
        return Err(errs.into_vec());
    }
    let received_at = received_at.unwrap_or(now);
    Ok(ReceiptDraft {
        radioisotope: radioisotope.expect("checked"),
        activity: activity.expect("checked"),
        activity_reference_time: reference.unwrap_or(received_at),
        supplier: supplier.expect("checked"),
        lot,
        received_by,
        received_at,
        notes,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    pub(crate) fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn weeks_parse_and_print() {
        let w = IsoWeek::parse("2026-W05").unwrap();
        assert_eq!(w.to_string(), "2026-W05");
        assert_eq!(w.monday(), NaiveDate::from_ymd_opt(2026, 1, 26).unwrap());
        assert_eq!(w.sunday(), NaiveDate::from_ymd_opt(2026, 2, 1).unwrap());
        // 2026 has 53 ISO weeks (it starts on a Thursday); 2025 has 52.
        assert!(IsoWeek::parse("2026-W53").is_some());
        assert!(IsoWeek::parse("2025-W53").is_none());
        for bad in [
            "2026-W00", "2026-W5", "2026W05", "26-W05", "2026-05", "2026-w05", "2026-W+5", "",
        ] {
            assert!(IsoWeek::parse(bad).is_none(), "{bad}");
        }
        // Week 1 of 2026 starts on Monday 29 December 2025.
        assert_eq!(
            IsoWeek::parse("2026-W01").unwrap().monday(),
            NaiveDate::from_ymd_opt(2025, 12, 29).unwrap()
        );
    }

    #[test]
    fn week_boundaries_are_midnight_in_brasilia() {
        let w = IsoWeek::parse("2026-W10").unwrap();
        assert_eq!(w.start(), utc("2026-03-02T03:00:00Z"));
        assert_eq!(w.end(), utc("2026-03-09T03:00:00Z"));
        // Sunday 23:59 in Brasília is Monday 02:59 UTC, still the old week.
        assert_eq!(IsoWeek::containing(utc("2026-03-09T02:59:59Z")), w);
        assert_eq!(IsoWeek::containing(utc("2026-03-09T03:00:00Z")), w.next());
        assert_eq!(
            IsoWeek::containing(utc("2026-03-02T02:59:59Z")),
            w.previous()
        );
    }

    #[test]
    fn receipts_decay_to_the_time_of_receipt() {
        let received = utc("2026-03-02T12:00:00Z");
        // Tc-99m calibrated one half-life before receipt: half is left.
        let reference = received - Duration::milliseconds((6.0067 * 3600.0 * 1000.0) as i64);
        let a = activity_at_receipt(Radioisotope::Tc99m, 100.0, reference, received);
        assert!((a - 50.0).abs() < 1e-6, "{a}");
        // Calibrated for a later time: more is there at receipt.
        let later = received + Duration::days(8) + Duration::minutes(36) + Duration::seconds(17);
        let a = activity_at_receipt(Radioisotope::I131, 10.0, later, received);
        assert!((a - 20.0).abs() < 0.01, "{a}");
        assert_eq!(
            activity_at_receipt(Radioisotope::F18, 7.0, received, received),
            7.0
        );
    }

    #[test]
    fn margins() {
        let lines = usage(
            &[(Radioisotope::Tc99m, 1500.0), (Radioisotope::I131, 200.0)],
            &[(Radioisotope::I131, 250.0, 2), (Radioisotope::F18, 10.0, 1)],
        );
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].radioisotope, Radioisotope::Tc99m);
        assert_eq!(
            (lines[0].received, lines[0].remaining, lines[0].exceeded),
            (0.0, 1500.0, false)
        );
        assert_eq!(
            (lines[1].remaining, lines[1].exceeded, lines[1].receipts),
            (-50.0, true, 2)
        );
        assert_eq!((lines[2].authorised, lines[2].exceeded), (0.0, true));
        // Exactly the quantity, reached by sums of decimals, is not over.
        assert!(!exceeds(Some(0.3), 0.1 + 0.2));
        assert!(exceeds(Some(0.3), 0.3001));
    }

    #[test]
    fn receipt_payloads() {
        let now = utc("2026-03-04T15:00:00Z");
        let d = read_receipt(
            &json!({"radioisotope": "Tc(99m)", "activity": "250.5", "supplier": "IPEN", "lot": "L-1",
                    "receivedAt": "2026-03-03"}),
            now,
        )
        .unwrap();
        assert_eq!(d.radioisotope, Radioisotope::Tc99m);
        assert_eq!(d.activity, 250.5);
        assert_eq!(d.received_at, utc("2026-03-03T15:00:00Z"));
        assert_eq!(d.activity_reference_time, d.received_at);
        let d = read_receipt(
            &json!({"radioisotope": "I-131", "activity": 5, "supplier": "IPEN"}),
            now,
        )
        .unwrap();
        assert_eq!((d.radioisotope, d.received_at), (Radioisotope::I131, now));
        let errs = read_receipt(
            &json!({"radioisotope": "Xx(1)", "activity": "1,5", "receivedAt": "2026-03-05T12:00:00Z"}),
            now,
        )
        .unwrap_err();
        let codes: Vec<(&str, FieldCode)> =
            errs.iter().map(|e| (e.field.as_str(), e.code)).collect();
        assert_eq!(
            codes,
            [
                ("radioisotope", FieldCode::InvalidRadioisotope),
                ("activity", FieldCode::InvalidQuantity),
                ("receivedAt", FieldCode::InvalidValue),
                ("supplier", FieldCode::Required),
            ]
        );
    }

    fn any_instant() -> impl Strategy<Value = DateTime<Utc>> {
        // 1990 to 2100.
        (631_152_000i64..4_102_444_800).prop_map(|s| DateTime::from_timestamp(s, 0).unwrap())
    }

    proptest! {
        #[test]
        fn every_instant_lies_in_its_week(t in any_instant()) {
            let w = IsoWeek::containing(t);
            prop_assert!(w.start() <= t && t < w.end());
            prop_assert_eq!(w.end() - w.start(), Duration::days(7));
            let local_start = w.start().with_timezone(&brasilia());
            prop_assert_eq!(local_start.weekday(), Weekday::Mon);
            prop_assert_eq!(local_start.time(), NaiveTime::MIN);
            prop_assert_eq!(w.start().time(), NaiveTime::from_hms_opt(3, 0, 0).unwrap());
            prop_assert_eq!(IsoWeek::parse(&w.to_string()), Some(w));
        }

        #[test]
        fn weeks_follow_each_other_without_gaps(t in any_instant()) {
            let w = IsoWeek::containing(t);
            prop_assert_eq!(w.next().start(), w.end());
            prop_assert_eq!(w.next().previous(), w);
            prop_assert!(w < w.next());
        }

        #[test]
        fn margin_plus_received_is_the_quantity(q in 0.001f64..1e6, parts in proptest::collection::vec(0.0f64..1e5, 0..8)) {
            let total: f64 = parts.iter().sum();
            let lines = usage(&[(Radioisotope::Tc99m, q)], &[(Radioisotope::Tc99m, total, parts.len() as i64)]);
            prop_assert_eq!(lines.len(), 1);
            let l = &lines[0];
            prop_assert!((l.remaining + l.received - q).abs() <= 1e-9 * q.max(total));
            prop_assert_eq!(l.exceeded, total > q * (1.0 + SLACK));
            if l.exceeded { prop_assert!(l.remaining < 0.0); }
        }

        #[test]
        fn a_receipt_counts_the_same_activity_in_both_directions(a in 0.001f64..1e4, half_lives in -20.0f64..20.0, i in 0usize..15) {
            let r = Radioisotope::ALL[i];
            let t0 = DateTime::from_timestamp(1_770_000_000, 0).unwrap();
            let ms = half_lives * Nuclide::from(r).half_life_seconds() * 1000.0;
            let t1 = t0 + Duration::milliseconds(ms as i64);
            let there = activity_at_receipt(r, a, t0, t1);
            let back = activity_at_receipt(r, there, t1, t0);
            prop_assert!(((back - a) / a).abs() < 1e-9);
        }
    }
}
