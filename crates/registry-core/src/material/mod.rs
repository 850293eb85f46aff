//! Receipts of radioactive material: the calendar week in Brasília they count in, the activity
//! they bring, and the margin left under a facility's authorised weekly quantity.

#[cfg(test)]
pub(crate) mod tests;

use crate::equipment::Reference;
use crate::error::{FieldCode, FieldError, FieldErrors};
use crate::nuclide::{MAX_DECAY_HALF_LIVES, Nuclide};
use crate::payload::ObjectReader;
use crate::values::Radioisotope;
use chrono::{
    DateTime, Datelike, Duration, FixedOffset, NaiveDate, NaiveTime, TimeZone, Utc, Weekday,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use utoipa::ToSchema;

/// Brasília time, UTC−03:00. Brazil abolished daylight saving time in 2019 (Decree 9.772), so
/// the offset is fixed from [`FIXED_OFFSET_SINCE`] on; material records before it are refused.
pub fn brasilia() -> FixedOffset {
    FixedOffset::west_opt(3 * 3600).expect("valid offset")
}

/// The first day of Brasília's fixed offset: the last daylight-saving period ended on
/// 2019-02-17. Weeks and days before it would need the old rules, so receipts, packages and
/// releases dated earlier are refused.
pub const FIXED_OFFSET_SINCE: &str = "2019-02-17";

fn fixed_offset_day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2019, 2, 17).expect("valid date")
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
        // Sums of decimals carry binary noise (0.1 + 0.2 = 0.30000000000000004), different by
        // the order each database adds in: shown to the nano-mCi that activities are kept to.
        IsotopeUsage {
            radioisotope: r,
            authorised: q.unwrap_or(0.0),
            received: nano(total),
            remaining: nano(q.unwrap_or(0.0) - total),
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

/// `x` rounded to 9 decimal places (1e-9 mCi, the smallest activity a receipt holds).
pub fn nano(x: f64) -> f64 {
    // `+ 0.0` turns the −0 of a tiny negative rounding error into 0.
    (x * 1e9).round() / 1e9 + 0.0
}

/// `GET /facility/:id/radioisotopes/usage?week=YYYY-Www`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WeeklyUsage {
    pub facility: Reference,
    /// `YYYY-Www`.
    pub week: String,
    /// Monday 00:00 in Brasília, as an RFC 3339 UTC instant.
    #[schema(format = DateTime)]
    pub from: String,
    /// The next Monday 00:00 in Brasília (exclusive).
    #[schema(format = DateTime)]
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
    #[schema(format = DateTime)]
    pub activity_reference_time: String,
    /// The declared activity decayed to `receivedAt`, in mCi: what counts against the week.
    pub activity_at_receipt: f64,
    pub supplier: String,
    pub lot: Option<String>,
    /// Who took delivery (a name; not necessarily a user of the registry).
    pub received_by: String,
    #[schema(format = DateTime)]
    pub received_at: String,
    /// The ISO week (Brasília) the receipt counts in.
    pub week: String,
    /// The week's receipts of this isotope went over the authorised quantity with this one.
    pub over_quantity: bool,
    pub notes: Option<String>,
    pub created_by: Reference,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
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
        return crate::time::day(s).map(at_day);
    }
    crate::time::rfc3339(s).map(|t| t.with_timezone(&Utc))
}

/// A radioisotope named in a list filter: either spelling (`Tc(99m)`, `Tc-99m`) in any case,
/// accents and surrounding blanks ignored.
pub fn radioisotope_filter(s: &str) -> Option<Radioisotope> {
    let key = crate::text::search_key(s);
    Radioisotope::ALL.iter().copied().find(|r| {
        [r.as_str(), Nuclide::from(*r).as_str()]
            .iter()
            .any(|n| crate::text::search_key(n) == key)
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
    r.parsed_if(
        true,
        key,
        radioisotope,
        FieldCode::InvalidRadioisotope,
        format!("must be one of: {}", Radioisotope::allowed()),
        errs,
    )
}

/// A positive activity in mCi (a number, or digits with a dot).
pub(crate) fn required_activity(
    r: &ObjectReader,
    key: &str,
    errs: &mut FieldErrors,
) -> Option<f64> {
    r.parsed_if(
        true,
        key,
        crate::values::positive_amount,
        FieldCode::InvalidQuantity,
        "must be a positive number of mCi from 0.000000001 to 1000000000, with a dot for decimals",
        errs,
    )
}

/// An optional instant (RFC 3339 or `YYYY-MM-DD`) that may not lie in the future nor before
/// [`FIXED_OFFSET_SINCE`]. A bare date is in the future only from tomorrow (Brasília): today's
/// stands for some time of today, which `at_day` places (noon, the day's end) even when that
/// hour has not come yet.
pub(crate) fn past_instant(
    r: &ObjectReader,
    key: &str,
    now: DateTime<Utc>,
    at_day: impl Fn(NaiveDate) -> DateTime<Utc>,
    errs: &mut FieldErrors,
) -> Option<DateTime<Utc>> {
    let v = r.get(key).filter(|v| !v.is_null())?;
    let text = v.as_str().map(str::trim);
    let future = |t: DateTime<Utc>| match text.and_then(crate::time::day) {
        Some(day) => day > now.with_timezone(&brasilia()).date_naive(),
        None => t > now + Duration::minutes(CLOCK_SKEW_MINUTES),
    };
    // A bare date by its day (`at_day` may place it at the day's end, past the boundary).
    let early = |t: DateTime<Utc>| match text.and_then(crate::time::day) {
        Some(day) => day < fixed_offset_day(),
        None => t < day_start(fixed_offset_day()),
    };
    match text.and_then(|s| parse_instant(s, at_day)) {
        Some(t) if future(t) => {
            errs.push(
                r.path(key),
                FieldCode::InvalidValue,
                "cannot be in the future",
            );
            None
        }
        Some(t) if early(t) => {
            errs.push(
                r.path(key),
                FieldCode::InvalidValue,
                format!(
                    "cannot be before {FIXED_OFFSET_SINCE} (Brasília time has had no daylight saving since then; \
                     earlier days would need the old rules)"
                ),
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
    let r = ObjectReader::body(body)?;
    let mut errs = FieldErrors::default();
    let noon = |d: NaiveDate| day_start(d) + Duration::hours(12);
    let radioisotope = required_radioisotope(&r, "radioisotope", &mut errs);
    let activity = required_activity(&r, "activity", &mut errs);
    let received_at = past_instant(&r, "receivedAt", now, noon, &mut errs);
    let received_read = !errs.has("receivedAt");
    let reference = match r.get("activityReferenceTime").filter(|v| !v.is_null()) {
        None => None,
        Some(v) => errs.check(
            v.as_str().and_then(|s| parse_instant(s, noon)),
            "activityReferenceTime",
            FieldCode::InvalidValue,
            "must be an RFC 3339 time or a date YYYY-MM-DD",
        ),
    };
    let supplier = r.required_string("supplier", &mut errs);
    let lot = r.clearable_string("lot", &mut errs).flatten();
    let received_by = r.clearable_string("receivedBy", &mut errs).flatten();
    let notes = r.clearable_string("notes", &mut errs).flatten();
    let received_given = received_at.is_some();
    let received_at = received_at.unwrap_or(now);
    // Judged against the receipt's time only when that could be read.
    if let (Some(isotope), Some(reference), true) = (radioisotope, reference, received_read)
        && Nuclide::from(isotope).too_many_half_lives(received_at - reference)
    {
        let received = if received_given {
            format!("`receivedAt` ({})", received_at.to_rfc3339())
        } else {
            "now (`receivedAt` not given)".to_owned()
        };
        errs.push(
            "activityReferenceTime",
            FieldCode::InvalidValue,
            format!(
                "is more than {MAX_DECAY_HALF_LIVES} half-lives of {isotope} away from {received}: check the label's date"
            ),
        );
    }
    if !errs.is_empty() {
        return Err(errs.into_vec());
    }
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
