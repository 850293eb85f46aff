//! Edits of equipment and QC test types: which stored fields an edit replaces, and what may not
//! change once QC tests were recorded. The handlers load, ask the database what these rules need
//! (are tests recorded? what is the new type called?), apply, and store.

use super::{Equipment, QcTest, Reference, TestType, parse_date, read::settle_tolerances};
use super::{EquipmentChanges, QcTestChanges, TestTypeChanges};
use crate::error::{FieldCode, FieldError};
use crate::payload::update;
use crate::qc::evaluate;
use crate::qc::read::measured_after;
use serde_json::Value;

impl EquipmentChanges {
    /// The equipment type the edit moves the equipment to, when it is another one.
    pub fn new_type(&self, before: &Equipment) -> Option<&str> {
        self.equipment_type_id
            .as_deref()
            .filter(|t| *t != before.type_of_equipment.id)
    }

    /// Every field the edit may not change: the facility never (register the equipment at the
    /// other facility instead), the type not once QC tests were `recorded` on it.
    pub fn check(&self, before: &Equipment, recorded: bool) -> Result<(), Vec<FieldError>> {
        let mut errors = Vec::new();
        if self
            .facility_id
            .as_ref()
            .is_some_and(|f| *f != before.facility.id)
        {
            errors.push(FieldError::new(
                "facility",
                FieldCode::InvalidValue,
                "cannot be changed: register the equipment at the other facility and archive this record",
            ));
        }
        if recorded && self.new_type(before).is_some() {
            errors.push(FieldError::new(
                "typeOfEquipment",
                FieldCode::InvalidValue,
                "cannot be changed: QC tests were already recorded on this equipment",
            ));
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// `before` with the fields present replaced (`attributes` as a whole object) and, when the
    /// type changes, `new_type`: the type [`new_type`](Self::new_type) names, resolved.
    pub fn apply_to(self, before: &Equipment, new_type: Option<Reference>) -> Equipment {
        let mut equipment = before.clone();
        update(&mut equipment.type_of_equipment, new_type);
        let fields = [
            (&mut equipment.manufacturer, self.manufacturer),
            (&mut equipment.model, self.model),
            (&mut equipment.serial_number, self.serial_number),
            (&mut equipment.patrimonial_number, self.patrimonial_number),
            (&mut equipment.localization, self.localization),
        ];
        for (field, change) in fields {
            update(field, change);
        }
        if let Some(attributes) = self.attributes {
            equipment.attributes = Value::Object(attributes);
        }
        update(&mut equipment.active, self.active);
        equipment
    }
}

impl TestTypeChanges {
    /// The equipment type the edit moves the test type to, when it is another one.
    pub fn new_equipment_type(&self, before: &TestType) -> Option<&str> {
        self.equipment_type_id
            .as_deref()
            .filter(|t| *t != before.type_of_equipment.id)
    }

    /// Whether the edit changes what recorded tests were judged under: the equipment type or the
    /// kind (only then does [`apply_to`](Self::apply_to) need to know whether any were recorded).
    pub fn moves_records(&self, before: &TestType) -> bool {
        self.new_equipment_type(before).is_some()
            || self.kind.is_some_and(|kind| kind != before.kind)
    }

    /// The fields of the edit that may not change `before` once QC tests of the type were
    /// `recorded`: its equipment type and its kind (what the recorded tests were judged under).
    pub fn locked_fields(&self, before: &TestType, recorded: bool) -> Vec<FieldError> {
        let moves = [
            ("typeOfEquipment", self.new_equipment_type(before).is_some()),
            ("kind", self.kind.is_some_and(|kind| kind != before.kind)),
        ];
        moves
            .into_iter()
            .filter(|(_, moved)| recorded && *moved)
            .map(|(field, _)| {
                FieldError::new(
                    field,
                    FieldCode::InvalidValue,
                    "cannot be changed: QC tests of this type were already recorded",
                )
            })
            .collect()
    }

    /// `before` with the fields present replaced and its tolerances settled against the kind it
    /// ends up with. `new_type` is the resolved [`new_equipment_type`](Self::new_equipment_type);
    /// once QC tests of the type were `recorded`, neither its equipment type nor its kind change.
    pub fn apply_to(
        self,
        before: &TestType,
        new_type: Option<Reference>,
        recorded: bool,
    ) -> Result<TestType, Vec<FieldError>> {
        let locked = self.locked_fields(before, recorded);
        if !locked.is_empty() {
            return Err(locked);
        }
        let mut t = before.clone();
        update(&mut t.type_of_equipment, new_type);
        update(&mut t.name, self.name);
        update(&mut t.expiration_in_days, self.expiration_in_days);
        update(&mut t.description, self.description);
        update(&mut t.kind, self.kind);
        t.tolerances = settle_tolerances(
            t.kind,
            before.kind,
            before.tolerances.as_ref(),
            self.tolerances.as_ref(),
        )?;
        Ok(t)
    }
}

impl QcTestChanges {
    /// Applies the changes to `record` (a blank record on create) once the handler has resolved
    /// and checked its references: the `equipment`, a `test_type` of that equipment's type, and
    /// the `performer` when the payload named one. A computed test is computed again when its
    /// readings or its test type change, or it has no figures yet; not when only its notes do
    /// (tolerances edited since do not rewrite a past verdict).
    pub fn apply_to(
        self,
        record: &mut QcTest,
        equipment: Equipment,
        test_type: TestType,
        performer: Option<Reference>,
    ) -> Result<(), Vec<FieldError>> {
        // A recorded test stays with the facility where it was made (docs/equipment.md): it may
        // move to another piece of equipment of that facility only.
        if !record.facility.id.is_empty() && equipment.facility.id != record.facility.id {
            return Err(vec![FieldError::new(
                "equipment",
                FieldCode::InvalidValue,
                format!(
                    "must be equipment of {}: a QC test stays with the facility where it was made",
                    record.facility.name
                ),
            )]);
        }
        let recompute = self.measurements.is_some()
            || test_type.id != record.type_of_test.id
            || record.figures.is_none();
        record.equipment = equipment.id;
        record.facility = equipment.facility;
        record.type_of_test = Reference {
            id: test_type.id,
            name: test_type.name,
        };
        update(&mut record.performed_by, performer);
        let redated = self.date.is_some();
        if let Some(date) = self.date {
            record.date = date.to_string();
        }
        update(&mut record.conclusion, self.conclusion);
        update(&mut record.measurements, self.measurements);
        update(&mut record.notes, self.notes);
        update(&mut record.document, self.document_id);
        match (test_type.kind, &test_type.tolerances) {
            (Some(kind), Some(tolerances)) => {
                let late = (recompute || redated)
                    .then(|| parse_date(&record.date))
                    .flatten()
                    .and_then(|d| measured_after(record.measurements.as_ref(), d));
                // Readings dated after the test and readings that do not compute, at once.
                let computed =
                    recompute.then(|| evaluate(kind, tolerances, record.measurements.as_ref()));
                match (late, computed) {
                    (None, None) => {}
                    (None, Some(Ok(computed))) => {
                        record.figures = Some(computed.figures);
                        record.conclusion = computed.conclusion;
                    }
                    (late, Some(Err(errors))) => {
                        return Err(late.into_iter().chain(errors).collect());
                    }
                    (Some(late), _) => return Err(vec![late]),
                }
            }
            _ => record.figures = None,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::Conclusion;
    use super::*;
    use crate::equipment::{read_equipment, read_test_type};
    use crate::error::assert_codes;
    use crate::qc::TestKind;
    use chrono::NaiveDate;
    use serde_json::json;

    fn r(id: &str) -> Reference {
        Reference {
            id: id.into(),
            name: id.to_uppercase(),
        }
    }

    fn camera() -> Equipment {
        Equipment {
            id: "e".into(),
            facility: r("f"),
            type_of_equipment: r("gamma"),
            manufacturer: Some("GE".into()),
            model: Some("Infinia".into()),
            serial_number: None,
            patrimonial_number: None,
            localization: Some("Sala 1".into()),
            attributes: json!({"detectors": 2}),
            active: true,
            created_at: "t".into(),
            updated_at: "t".into(),
        }
    }

    fn edit(body: serde_json::Value) -> EquipmentChanges {
        read_equipment(&body, false).unwrap()
    }

    #[test]
    fn an_equipment_edit_replaces_only_what_it_carries() {
        let before = camera();
        let after = edit(
            json!({"model": null, "serialNumber": "S1", "attributes": {"a": 1},
                                "active": false}),
        )
        .apply_to(&before, None);
        assert_eq!(after.model, None, "null clears");
        assert_eq!(after.serial_number.as_deref(), Some("S1"));
        assert_eq!(
            after.attributes,
            json!({"a": 1}),
            "attributes replaced whole"
        );
        assert!(!after.active);
        assert_eq!(
            (after.manufacturer, after.localization),
            (before.manufacturer.clone(), before.localization.clone())
        );
        assert_eq!(edit(json!({})).apply_to(&before, None), before);
        let moved = edit(json!({"typeOfEquipment": "pet"}));
        assert_eq!(moved.new_type(&before), Some("pet"));
        assert_eq!(
            moved.apply_to(&before, Some(r("pet"))).type_of_equipment,
            r("pet")
        );
        assert_eq!(
            edit(json!({"typeOfEquipment": "gamma"})).new_type(&before),
            None
        );
    }

    #[test]
    fn an_equipment_never_changes_facility_nor_type_once_tested() {
        let before = camera();
        let both = edit(json!({"facility": "g", "typeOfEquipment": "pet"}));
        assert_codes(
            both.check(&before, true),
            &[
                ("facility", FieldCode::InvalidValue),
                ("typeOfEquipment", FieldCode::InvalidValue),
            ],
        );
        assert_codes(
            both.check(&before, false),
            &[("facility", FieldCode::InvalidValue)],
        );
        // The same facility and type may be sent back unchanged.
        let same = edit(json!({"facility": "f", "typeOfEquipment": "gamma"}));
        assert!(same.check(&before, true).is_ok());
    }

    fn free_type() -> TestType {
        TestType {
            id: "tt".into(),
            name: "Uniformidade".into(),
            type_of_equipment: r("gamma"),
            expiration_in_days: 30,
            description: None,
            kind: None,
            tolerances: None,
            created_at: "t".into(),
            updated_at: "t".into(),
        }
    }

    fn type_edit(body: serde_json::Value) -> TestTypeChanges {
        read_test_type(&body, false).unwrap()
    }

    #[test]
    fn a_test_type_edit_settles_its_tolerances_and_locks_once_recorded() {
        let before = free_type();
        let renamed = type_edit(json!({"name": "Uniformidade intrínseca", "expirationInDays": 7}));
        assert!(!renamed.moves_records(&before));
        let after = renamed.apply_to(&before, None, true).unwrap();
        assert_eq!(
            (after.name.as_str(), after.expiration_in_days),
            ("Uniformidade intrínseca", 7)
        );
        // A kind brings its default tolerances while nothing is recorded; not after.
        let computed = type_edit(json!({"kind": "constancy"}));
        assert!(computed.moves_records(&before));
        let after = computed.clone().apply_to(&before, None, false).unwrap();
        assert_eq!(after.kind, Some(TestKind::Constancy));
        assert!(after.tolerances.is_some());
        assert_codes(
            computed.apply_to(&before, None, true),
            &[("kind", FieldCode::InvalidValue)],
        );
        let moved = type_edit(json!({"typeOfEquipment": "pet"}));
        assert_eq!(moved.new_equipment_type(&before), Some("pet"));
        assert_codes(
            moved.clone().apply_to(&before, Some(r("pet")), true),
            &[("typeOfEquipment", FieldCode::InvalidValue)],
        );
        let after = moved.apply_to(&before, Some(r("pet")), false).unwrap();
        assert_eq!(after.type_of_equipment, r("pet"));
    }

    fn readings(mbq: f64) -> serde_json::Value {
        // Co-57 of 370 MBq on 1 January 2026 measured 271.74 days later: 185 MBq expected.
        json!({"unit": "MBq", "measuredAt": "2026-09-29T14:45:36-03:00",
               "sources": [{"nuclide": "Co-57", "certificateActivity": 370,
                            "certificateDate": "2026-01-01T00:00:00Z", "readings": [mbq]}]})
    }

    #[test]
    fn a_computed_record_is_judged_again_only_when_its_readings_or_type_change() {
        let camera = camera();
        let mut constancy = free_type();
        constancy.kind = Some(TestKind::Constancy);
        constancy.tolerances = TestKind::Constancy.default_tolerances();
        let mut record = QcTest {
            id: "q".into(),
            equipment: String::new(),
            facility: r(""),
            type_of_test: r(""),
            date: String::new(),
            performed_by: r("caller"),
            conclusion: Conclusion::Satisfactory,
            measurements: None,
            figures: None,
            notes: None,
            document: None,
            created_at: "t".into(),
            updated_at: "t".into(),
        };
        let create = QcTestChanges {
            date: NaiveDate::from_ymd_opt(2026, 9, 29),
            measurements: Some(Some(readings(175.0))),
            ..QcTestChanges::default()
        };
        create
            .apply_to(&mut record, camera.clone(), constancy.clone(), None)
            .unwrap();
        assert_eq!(
            (record.equipment.as_str(), &record.facility),
            ("e", &camera.facility)
        );
        assert_eq!(record.type_of_test.name, "Uniformidade");
        assert_eq!(
            (record.date.as_str(), &record.performed_by),
            ("2026-09-29", &r("caller"))
        );
        assert_eq!(
            record.conclusion,
            Conclusion::Unsatisfactory,
            "−5.4 % is outside ±5 %"
        );
        let judged = record.figures.clone();
        assert!(judged.is_some());
        // Notes alone keep the verdict, even under tolerances edited since.
        let mut looser = constancy.clone();
        looser.tolerances = Some(crate::qc::Tolerances {
            limit_percent: Some(10.0),
            ..Default::default()
        });
        let notes = QcTestChanges {
            notes: Some(Some("fonte limpa".into())),
            performed_by: Some("p".into()),
            ..QcTestChanges::default()
        };
        notes
            .apply_to(&mut record, camera.clone(), looser.clone(), Some(r("p")))
            .unwrap();
        assert_eq!(
            (record.conclusion, &record.figures),
            (Conclusion::Unsatisfactory, &judged)
        );
        assert_eq!(
            (record.notes.as_deref(), &record.performed_by),
            (Some("fonte limpa"), &r("p"))
        );
        // New readings are judged under the tolerances of today.
        let again = QcTestChanges {
            measurements: Some(Some(readings(175.0))),
            ..QcTestChanges::default()
        };
        again
            .apply_to(&mut record, camera.clone(), looser, None)
            .unwrap();
        assert_eq!(record.conclusion, Conclusion::Satisfactory);
        // Readings a kind cannot judge are field errors; a free type keeps no figures.
        let broken = QcTestChanges {
            measurements: Some(Some(json!({"unit": "MBq"}))),
            ..QcTestChanges::default()
        };
        assert!(
            broken
                .apply_to(&mut record.clone(), camera.clone(), constancy.clone(), None)
                .is_err()
        );
        // A test is dated by the day of its readings: not before it (Brasília's calendar).
        let earlier = QcTestChanges {
            date: NaiveDate::from_ymd_opt(2026, 9, 28),
            ..QcTestChanges::default()
        };
        assert_codes(
            earlier.apply_to(&mut record.clone(), camera.clone(), constancy.clone(), None),
            &[("measurements.measuredAt", FieldCode::InvalidValue)],
        );
        let later = QcTestChanges {
            date: NaiveDate::from_ymd_opt(2026, 9, 30),
            ..QcTestChanges::default()
        };
        assert!(
            later
                .apply_to(&mut record.clone(), camera.clone(), constancy, None)
                .is_ok()
        );
        QcTestChanges::default()
            .apply_to(&mut record, camera, free_type(), None)
            .unwrap();
        assert_eq!(record.figures, None);
    }
}
