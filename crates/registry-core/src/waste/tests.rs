//! Unit tests and property tests of the clearance, release-date and payload rules.

use super::*;
use crate::error::assert_codes;
use crate::material::tests::utc;
use proptest::prelude::*;
use serde_json::json;

fn one(r: Radioisotope, mci: f64) -> Vec<WasteContent> {
    vec![WasteContent {
        radioisotope: r,
        activity: mci,
    }]
}

#[test]
fn the_form_is_read_exactly_in_a_body_and_loosely_at_the_cli() {
    for (written, form) in [
        ("Sólido", WasteForm::Solid),
        (" Líquido ", WasteForm::Liquid),
        ("solid", WasteForm::Solid),
        ("liquid", WasteForm::Liquid),
    ] {
        assert_eq!(WasteForm::read(written), Some(form), "{written}");
    }
    for written in ["SOLID", "sólido", "Solido", "LIQUIDO", "Liquid"] {
        assert_eq!(WasteForm::read(written), None, "{written}");
        assert!(WasteForm::read_loosely(written).is_some(), "{written}");
    }
}

#[test]
fn a_single_isotope_needs_log2_of_its_ratio_in_half_lives() {
    let levels = ClearanceLevels::default();
    // 1 mCi of I-131 in 10 kg: 37e6 Bq / 1e4 g = 3700 Bq/g, 50 × 74 Bq/g.
    let s = seconds_to_clearance(&one(Radioisotope::I131, 1.0), 10.0, &levels);
    let expected = 8.0252 * 86_400.0 * 50f64.log2();
    assert!((s - expected).abs() < 1.0, "{s} vs {expected}");
    // Already below the level: at closure.
    assert_eq!(
        seconds_to_clearance(&one(Radioisotope::Tc99m, 1e-6), 10.0, &levels),
        0.0
    );
}

#[test]
fn release_dates_worked_example() {
    let levels = ClearanceLevels::default();
    // 50 × the level of I-131: 5.644 half-lives = 45.29 days after closure at 12:00 Brasília
    // on 2 March 2026 → 16 April 2026 at about 19:00, so the 17th.
    let closed = utc("2026-03-02T15:00:00Z");
    let d = release_date(&one(Radioisotope::I131, 1.0), 10.0, closed, &levels);
    assert_eq!(d, NaiveDate::from_ymd_opt(2026, 4, 17).unwrap());
    // Below clearance at closure on a day already begun: the next day.
    let d = release_date(&one(Radioisotope::Tc99m, 1e-6), 10.0, closed, &levels);
    assert_eq!(d, NaiveDate::from_ymd_opt(2026, 3, 3).unwrap());
    // Closed exactly at midnight in Brasília and already clear: that very day.
    let d = release_date(
        &one(Radioisotope::Tc99m, 1e-6),
        10.0,
        utc("2026-03-02T03:00:00Z"),
        &levels,
    );
    assert_eq!(d, NaiveDate::from_ymd_opt(2026, 3, 2).unwrap());
    // A higher clearance level releases sooner.
    let relaxed = ClearanceLevels::parse("I(131)=740").unwrap();
    let d = release_date(&one(Radioisotope::I131, 1.0), 10.0, closed, &relaxed);
    assert!(d < NaiveDate::from_ymd_opt(2026, 4, 17).unwrap());
}

#[test]
fn mixtures_follow_the_sum_rule() {
    let levels = ClearanceLevels::default();
    let i131 = WasteContent {
        radioisotope: Radioisotope::I131,
        activity: 1.0,
    };
    let i125 = WasteContent {
        radioisotope: Radioisotope::I125,
        activity: 0.1,
    };
    let s = seconds_to_clearance(&[i131, i125], 10.0, &levels);
    let a = seconds_to_clearance(&[i131], 10.0, &levels);
    let b = seconds_to_clearance(&[i125], 10.0, &levels);
    // Longer than either alone, shorter than both brought to half the level.
    assert!(s > a.max(b), "{s} {a} {b}");
    let half = ClearanceLevels::parse("I(131)=37, I(125)=37").unwrap();
    let a2 = seconds_to_clearance(&[i131], 10.0, &half);
    let b2 = seconds_to_clearance(&[i125], 10.0, &half);
    assert!(s <= a2.max(b2) + 1.0, "{s} {a2} {b2}");
}

#[test]
fn clearance_settings() {
    let l = ClearanceLevels::parse(" I(131)=100 , Tc-99m=1000 ").unwrap();
    assert_eq!(l.level(Radioisotope::I131), 100.0);
    assert_eq!(l.level(Radioisotope::Tc99m), 1000.0);
    assert_eq!(l.level(Radioisotope::F18), DEFAULT_CLEARANCE_BQ_PER_G);
    assert!(ClearanceLevels::parse("I(131)").is_err());
    assert!(ClearanceLevels::parse("Xx=1").is_err());
    assert!(ClearanceLevels::parse("I(131)=0").is_err());
    assert_eq!(
        ClearanceLevels::parse("").unwrap(),
        ClearanceLevels::default()
    );
}

#[test]
fn waste_payloads() {
    let now = utc("2026-03-04T15:00:00Z");
    let c = read_waste(
        &json!({"form": "solid", "contents": [{"radioisotope": "I(131)", "activity": 2}],
                "mass": "3.5", "closedAt": "2026-03-03", "location": "Sala de decaimento, prateleira 2"}),
        true,
        now,
    )
    .unwrap();
    assert_eq!(c.form, Some(WasteForm::Solid));
    assert_eq!(c.mass, Some(3.5));
    assert_eq!(c.closed_at, Some(utc("2026-03-04T03:00:00Z")));
    assert_codes(
        read_waste(
            &json!({"form": "gas", "contents": [{"radioisotope": "I(131)", "activity": 1}, {"radioisotope": "I-131", "activity": 1},
                {"radioisotope": "Xx", "activity": -1}], "mass": 0}),
            true,
            now,
        ),
        &[
            ("form", FieldCode::InvalidValue),
            ("contents[1].radioisotope", FieldCode::DuplicateRadioisotope),
            ("contents[2].radioisotope", FieldCode::InvalidRadioisotope),
            ("contents[2].activity", FieldCode::InvalidQuantity),
            ("mass", FieldCode::InvalidValue),
            ("location", FieldCode::Required),
        ],
    );
    // A second entry of an isotope is named even when the first one's activity is refused.
    assert_codes(
        read_waste(
            &json!({"contents": [{"radioisotope": "I(131)", "activity": -1},
                {"radioisotope": "I(131)", "activity": 1}]}),
            false,
            now,
        ),
        &[
            ("contents[0].activity", FieldCode::InvalidQuantity),
            ("contents[1].radioisotope", FieldCode::DuplicateRadioisotope),
        ],
    );
    // Packages closed before Brasília's fixed offset are refused (their days had other rules).
    for early in ["0001-01-01", "2019-02-16", "2019-02-17T02:59:59Z"] {
        assert_codes(
            read_waste(&json!({"closedAt": early}), false, now),
            &[("closedAt", FieldCode::InvalidValue)],
        );
    }
    assert!(read_waste(&json!({"closedAt": "2019-02-17"}), false, now).is_ok());
    // An edit reads only what is there.
    assert_eq!(
        read_waste(&json!({"location": "B"}), false, now)
            .unwrap()
            .location
            .as_deref(),
        Some("B")
    );
    assert_eq!(read_release(&json!({"doseRate": 0}), now).unwrap().0, 0.0);
    for zero in ["0", "0.0", " 0.00 "] {
        assert_eq!(
            read_release(&json!({"doseRate": zero}), now).unwrap().0,
            0.0
        );
    }
    let negative_zero = read_release(&json!({"doseRate": -0.0}), now).unwrap().0;
    assert!(negative_zero == 0.0 && negative_zero.is_sign_positive());
    assert!(read_release(&json!({"doseRate": -1}), now).is_err());
    assert!(read_release(&json!({}), now).is_err());
}

fn package(contents: Vec<WasteContent>, closed_at: DateTime<Utc>) -> WastePackage {
    let someone = Reference {
        id: "u".into(),
        name: "U".into(),
    };
    let mut package = WastePackage {
        id: "w".into(),
        facility: someone.clone(),
        form: WasteForm::Solid,
        contents,
        mass: 10.0,
        closed_at: String::new(),
        location: "Abrigo".into(),
        description: Some("lixo".into()),
        release_date: String::new(),
        releasable: false,
        release: None,
        created_by: someone,
        created_at: "2026-03-02T15:00:00.000000Z".into(),
        updated_at: "2026-03-02T15:00:00.000000Z".into(),
    };
    package.close_at(closed_at, &ClearanceLevels::default(), day(2026, 3, 2));
    package
}

fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

#[test]
fn closing_a_package_dates_its_release() {
    let p = package(one(Radioisotope::I131, 1.0), utc("2026-03-02T15:00:00Z"));
    assert_eq!(p.closed_at, "2026-03-02T15:00:00.000000Z");
    assert_eq!(p.release_date, "2026-04-17", "the worked example");
    assert!(!p.releasable);
    let mut later = p.clone();
    later.close_at(
        utc("2026-03-02T15:00:00Z"),
        &ClearanceLevels::default(),
        day(2026, 4, 17),
    );
    assert!(later.releasable, "on the release date itself");
}

#[test]
fn an_edit_replaces_what_it_carries_and_dates_the_release_again() {
    let levels = ClearanceLevels::default();
    let p = package(one(Radioisotope::I131, 1.0), utc("2026-03-02T15:00:00Z"));
    // Nothing carried: nothing changes.
    let same = WasteChanges::default()
        .apply_to(&p, &levels, day(2026, 3, 2))
        .unwrap();
    assert_eq!(same, p);
    // New contents, closure kept: the release date follows the contents.
    let tc = WasteChanges {
        contents: Some(one(Radioisotope::Tc99m, 1e-6)),
        description: Some(None),
        ..WasteChanges::default()
    }
    .apply_to(&p, &levels, day(2026, 3, 10))
    .unwrap();
    assert_eq!(tc.contents, one(Radioisotope::Tc99m, 1e-6));
    assert_eq!(
        (tc.closed_at.as_str(), tc.release_date.as_str()),
        (p.closed_at.as_str(), "2026-03-03")
    );
    assert!(tc.releasable);
    assert_eq!(
        (tc.description, tc.location, tc.mass),
        (None, p.location.clone(), p.mass)
    );
    // A new closure moves the release date with it; more mass dilutes to an earlier one.
    let moved = WasteChanges {
        closed_at: Some(utc("2026-03-12T15:00:00Z")),
        ..WasteChanges::default()
    }
    .apply_to(&p, &levels, day(2026, 3, 12))
    .unwrap();
    assert_eq!(moved.release_date, "2026-04-27");
    let diluted = WasteChanges {
        mass: Some(100.0),
        form: Some(WasteForm::Liquid),
        location: Some("Tanque".into()),
        ..WasteChanges::default()
    }
    .apply_to(&p, &levels, day(2026, 3, 2))
    .unwrap();
    assert!(diluted.release_date < p.release_date);
    assert_eq!(
        (diluted.form, diluted.location.as_str()),
        (WasteForm::Liquid, "Tanque")
    );
    // A stored closure that is not RFC 3339 is an error, not a guess.
    let broken = WastePackage {
        closed_at: "yesterday".into(),
        ..p
    };
    assert!(
        WasteChanges::default()
            .apply_to(&broken, &levels, day(2026, 3, 2))
            .is_err()
    );
}

fn contents() -> impl Strategy<Value = Vec<WasteContent>> {
    proptest::collection::vec((0usize..15, 1e-6f64..1e3), 1..4).prop_map(|items| {
        let mut list: Vec<WasteContent> = Vec::new();
        for (i, a) in items {
            let r = Radioisotope::ALL[i];
            if !list.iter().any(|c| c.radioisotope == r) {
                list.push(WasteContent {
                    radioisotope: r,
                    activity: a,
                });
            }
        }
        list
    })
}

fn ratio_sum(contents: &[WasteContent], mass: f64, t: f64, levels: &ClearanceLevels) -> f64 {
    contents
        .iter()
        .map(|c| {
            let c0 = c.activity * 37e6 / (mass * 1000.0);
            Nuclide::from(c.radioisotope).decay(c0, t) / levels.level(c.radioisotope)
        })
        .sum()
}

proptest! {
    #[test]
    fn clear_at_the_computed_time_and_not_a_second_before(list in contents(), mass in 0.1f64..100.0) {
        let levels = ClearanceLevels::default();
        let s = seconds_to_clearance(&list, mass, &levels);
        prop_assert!(ratio_sum(&list, mass, s, &levels) <= 1.0 + 1e-9);
        if s > 1.0 {
            prop_assert!(ratio_sum(&list, mass, s - 1.0, &levels) > 1.0);
        }
    }

    #[test]
    fn more_activity_never_releases_sooner(list in contents(), mass in 0.1f64..100.0, factor in 1.0f64..100.0, day in 0i64..20_000) {
        let levels = ClearanceLevels::default();
        let closed = DateTime::from_timestamp(946_684_800 + day * 86_400, 0).unwrap();
        let more: Vec<WasteContent> = list.iter().map(|c| WasteContent { activity: c.activity * factor, ..*c }).collect();
        let d = release_date(&list, mass, closed, &levels);
        prop_assert!(release_date(&more, mass, closed, &levels) >= d);
        // Never before the closure day, and the day begins after the package is clear.
        prop_assert!(d >= closed.with_timezone(&brasilia()).date_naive());
        let elapsed = (day_start(d) - closed).num_milliseconds() as f64 / 1000.0;
        prop_assert!(ratio_sum(&list, mass, elapsed, &levels) <= 1.0 + 1e-9);
    }
}

/// Today's bare date is accepted for every recorded moment, whatever the hour (09:00 in Brasília
/// here, before the noon and the day's end a bare date stands for); tomorrow's is refused.
#[test]
fn todays_bare_date_is_not_in_the_future() {
    let now = utc("2026-03-04T12:00:00Z");
    let waste = |day: &str| {
        read_waste(
            &json!({"form": "solid", "contents": [{"radioisotope": "I(131)", "activity": 1}],
                    "mass": 1, "closedAt": day, "location": "A"}),
            true,
            now,
        )
    };
    let receipt = |day: &str| {
        crate::material::read_receipt(
            &json!({"radioisotope": "I(131)", "activity": 1, "supplier": "IPEN", "receivedAt": day}),
            now,
        )
    };
    let release = |day: &str| read_release(&json!({"doseRate": 0, "releasedAt": day}), now);
    assert_eq!(
        waste("2026-03-04").unwrap().closed_at,
        Some(utc("2026-03-05T03:00:00Z"))
    );
    assert!(receipt("2026-03-04").is_ok());
    assert!(release("2026-03-04").is_ok());
    assert_codes(
        waste("2026-03-05"),
        &[("closedAt", FieldCode::InvalidValue)],
    );
    assert_codes(
        receipt("2026-03-05"),
        &[("receivedAt", FieldCode::InvalidValue)],
    );
    assert_codes(
        release("2026-03-05"),
        &[("releasedAt", FieldCode::InvalidValue)],
    );
    // A time keeps its minutes of tolerance, no more.
    assert!(release("2026-03-04T12:04:00Z").is_ok());
    assert_codes(
        release("2026-03-04T12:06:00Z"),
        &[("releasedAt", FieldCode::InvalidValue)],
    );
}
