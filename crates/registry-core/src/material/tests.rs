//! Unit tests and property tests of the week, activity, usage and receipt rules.

use super::*;
use crate::error::assert_codes;
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
    // Sums are shown without binary noise, whatever order a database added them in.
    for total in [0.1 + 0.2 + 0.001, 0.001 + 0.2 + 0.1, 0.30100000000000005] {
        let line = &usage(
            &[(Radioisotope::I131, 0.3)],
            &[(Radioisotope::I131, total, 3)],
        )[0];
        assert_eq!((line.received, line.remaining), (0.301, -0.001), "{total}");
    }
    // All of it used, by sums of decimals: nothing remains, not −0.
    let line = &usage(
        &[(Radioisotope::I131, 0.3)],
        &[(Radioisotope::I131, 0.1 + 0.2, 2)],
    )[0];
    assert!(line.remaining == 0.0 && line.remaining.is_sign_positive());
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
    assert_codes(
        read_receipt(
            &json!({"radioisotope": "Xx(1)", "activity": "1,5", "receivedAt": "2026-03-05T12:00:00Z"}),
            now,
        ),
        &[
            ("radioisotope", FieldCode::InvalidRadioisotope),
            ("activity", FieldCode::InvalidQuantity),
            ("receivedAt", FieldCode::InvalidValue),
            ("supplier", FieldCode::Required),
        ],
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
        prop_assert!((l.remaining + l.received - q).abs() <= 1e-9 * q.max(total) + 2e-9);
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

#[test]
fn a_label_dated_past_twenty_half_lives_from_the_receipt_is_refused() {
    let now = utc("2026-03-04T15:00:00Z");
    let receipt = |iso: &str, reference: &str| {
        read_receipt(
            &json!({"radioisotope": iso, "activity": 10, "supplier": "IPEN",
                    "receivedAt": "2026-03-04T12:00:00Z", "activityReferenceTime": reference}),
            now,
        )
    };
    // Tc-99m: 20 half-lives are 120.1 h; I-131: 160.4 days; either way round.
    assert!(receipt("Tc(99m)", "2026-03-09T11:00:00Z").is_ok());
    assert!(receipt("Tc(99m)", "2026-02-27T13:00:00Z").is_ok());
    for (iso, reference) in [
        ("Tc(99m)", "2026-03-09T13:00:00Z"),
        ("Tc(99m)", "2026-02-27T11:00:00Z"),
        ("Tc(99m)", "2030-01-01T00:00:00Z"),
        ("I(131)", "1990-01-01"),
    ] {
        assert_codes(
            receipt(iso, reference),
            &[("activityReferenceTime", FieldCode::InvalidValue)],
        );
    }
    assert!(receipt("I(131)", "2026-08-01").is_ok());
    // The refusal says which time of receipt the label was held against.
    let message =
        |body: serde_json::Value| read_receipt(&body, now).unwrap_err()[0].message.clone();
    let given = message(
        json!({"radioisotope": "Tc(99m)", "activity": 10, "supplier": "IPEN",
        "receivedAt": "2026-03-04T12:00:00Z", "activityReferenceTime": "2030-01-01"}),
    );
    assert!(
        given.ends_with("from `receivedAt` (2026-03-04T12:00:00+00:00): check the label's date"),
        "{given}"
    );
    let defaulted = message(
        json!({"radioisotope": "Tc(99m)", "activity": 10, "supplier": "IPEN",
        "activityReferenceTime": "2030-01-01"}),
    );
    assert!(
        defaulted.contains("from now (`receivedAt` not given)"),
        "{defaulted}"
    );
}

#[test]
fn receipts_dated_before_the_fixed_offset_are_refused() {
    let now = utc("2026-03-04T15:00:00Z");
    let at = |received: &str| {
        read_receipt(
            &json!({"radioisotope": "Tc(99m)", "activity": 10, "supplier": "IPEN",
                    "receivedAt": received}),
            now,
        )
    };
    // 2018-11-05T02:30Z was Monday 00:30 in Brasília's summer time (W45), Sunday at UTC−03:00.
    for early in ["0001-01-01T00:00:00Z", "2018-11-05T02:30:00Z", "2019-02-16"] {
        assert_codes(at(early), &[("receivedAt", FieldCode::InvalidValue)]);
    }
    assert!(at("2019-02-17").is_ok());
    assert!(at("2019-02-17T03:00:00Z").is_ok());
}

#[test]
fn an_unreadable_receipt_time_is_the_only_error_it_causes() {
    // The label's date is not judged against a time that could not be read (nor against now).
    assert_codes(
        read_receipt(
            &json!({"radioisotope": "Tc(99m)", "activity": 1, "supplier": "x",
                    "receivedAt": "bad", "activityReferenceTime": "2020-01-01"}),
            utc("2026-03-04T15:00:00Z"),
        ),
        &[("receivedAt", FieldCode::InvalidValue)],
    );
}
