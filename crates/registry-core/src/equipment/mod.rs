//! Equipment, equipment types, QC test types and QC test records: their API types, the rule that
//! says when a QC test falls due, and (in `read`) the payload readers that report every failing
//! field at once.

mod edit;
mod read;
#[cfg(test)]
mod tests;

pub use read::{
    EquipmentChanges, EquipmentTypeChanges, QcTestChanges, TestTypeChanges, read_equipment,
    read_equipment_type, read_qc_test, read_qc_test_of, read_test_type, settle_tolerances,
};

pub use crate::qc::Conclusion;
use crate::qc::{TestKind, Tolerances};
use chrono::{DateTime, Days, FixedOffset, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// Where a QC test stands on a given day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DueState {
    /// Done, and not due within the next `DUE_SOON_DAYS` days.
    Ok,
    /// Falls due today or within the next `DUE_SOON_DAYS` days.
    DueSoon,
    /// Its due date has passed.
    Overdue,
    /// Never recorded on this equipment.
    NeverDone,
}

impl DueState {
    pub const ALL: &'static [DueState] = &[
        DueState::Ok,
        DueState::DueSoon,
        DueState::Overdue,
        DueState::NeverDone,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DueState::Ok => "ok",
            DueState::DueSoon => "due_soon",
            DueState::Overdue => "overdue",
            DueState::NeverDone => "never_done",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|d| d.as_str() == s)
    }
}

/// A test due within this many days is `due_soon` (product.md §4).
pub const DUE_SOON_DAYS: u64 = 14;

/// The longest period a test type may have: ten years.
pub const MAX_EXPIRATION_DAYS: i64 = 3650;

/// The day a test done on `last` falls due again.
pub fn next_due(last: NaiveDate, expiration_in_days: i64) -> NaiveDate {
    last + Days::new(expiration_in_days.clamp(0, MAX_EXPIRATION_DAYS) as u64)
}

/// The last day that still counts as `due_soon` when seen on `today`.
pub fn due_soon_limit(today: NaiveDate) -> NaiveDate {
    today + Days::new(DUE_SOON_DAYS)
}

/// The due-state rule. A test is due *on* its next due date (still `due_soon` that day) and
/// `overdue` from the day after; the database queries apply the same comparisons.
pub fn due_state(last: Option<NaiveDate>, expiration_in_days: i64, today: NaiveDate) -> DueState {
    let Some(last) = last else {
        return DueState::NeverDone;
    };
    let due = next_due(last, expiration_in_days);
    if due < today {
        DueState::Overdue
    } else if due <= due_soon_limit(today) {
        DueState::DueSoon
    } else {
        DueState::Ok
    }
}

/// The calendar day in Brasília (UTC−03:00; Brazil has kept no daylight saving time since 2019),
/// the day in which the registry's facilities record and plan their tests.
pub fn local_date(now: DateTime<Utc>) -> NaiveDate {
    let brasilia = FixedOffset::west_opt(3 * 3600).expect("valid offset");
    now.with_timezone(&brasilia).date_naive()
}

/// A calendar date (of a QC test, a document): `YYYY-MM-DD` with both padded, or an RFC 3339
/// timestamp (clients send both) taken as its day in Brasília.
/// What a refused day of [`parse_date`] is told: the forms it reads.
pub const DAY_FORMS: &str =
    "must be a date in the form YYYY-MM-DD (or an RFC 3339 time, whose day in Brasília counts)";

pub fn parse_date(s: &str) -> Option<NaiveDate> {
    let s = s.trim();
    crate::time::day(s)
        .or_else(|| crate::time::rfc3339(s).map(|t| local_date(t.with_timezone(&Utc))))
}

/// A reference to another record, with its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Reference {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EquipmentType {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

/// A kind of QC test on one equipment type, and how often it falls due.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestType {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    pub type_of_equipment: Reference,
    /// Days after a test until the next one is due.
    pub expiration_in_days: i64,
    pub description: Option<String>,
    /// How the registry computes its records (docs/qc.md); absent: free `measurements` and a
    /// conclusion chosen by whoever records the test.
    #[serde(default)]
    pub kind: Option<TestKind>,
    /// The limits the computed verdict is judged by; present exactly when `kind` is.
    #[serde(default)]
    pub tolerances: Option<Tolerances>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Equipment {
    #[serde(rename = "_id")]
    pub id: String,
    pub facility: Reference,
    pub type_of_equipment: Reference,
    pub manufacturer: Option<String>,
    pub model: Option<String>,
    pub serial_number: Option<String>,
    pub patrimonial_number: Option<String>,
    pub localization: Option<String>,
    /// Type-specific data (number of detectors, collimators, probe kind…), a free JSON object.
    pub attributes: Value,
    /// False while the equipment is out of service; it then leaves the due lists.
    pub active: bool,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

/// One QC test done on one equipment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QcTest {
    #[serde(rename = "_id")]
    pub id: String,
    /// The equipment's `_id`.
    pub equipment: String,
    pub facility: Reference,
    pub type_of_test: Reference,
    /// The day the test was done (`YYYY-MM-DD`).
    #[schema(format = Date)]
    pub date: String,
    pub performed_by: Reference,
    pub conclusion: Conclusion,
    pub measurements: Option<Value>,
    /// What the registry computed from `measurements` for a test type with a `kind`: every
    /// intermediate figure and the verdict (docs/qc.md); `null` for other test types.
    #[serde(default)]
    pub figures: Option<Value>,
    pub notes: Option<String>,
    /// The `_id` of the report document, when there is one.
    pub document: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

/// The equipment a due entry is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EquipmentSummary {
    #[serde(rename = "_id")]
    pub id: String,
    pub manufacturer: Option<String>,
    pub model: Option<String>,
    pub serial_number: Option<String>,
    pub localization: Option<String>,
}

/// One test type on one equipment: when it was last done, when it falls due, and its state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DueTest {
    pub equipment: EquipmentSummary,
    pub facility: Reference,
    pub type_of_equipment: Reference,
    pub type_of_test: Reference,
    pub expiration_in_days: i64,
    #[schema(format = Date)]
    pub last_date: Option<String>,
    #[schema(format = Date)]
    pub next_due: Option<String>,
    pub state: DueState,
    /// The conclusion of the latest test; `null` when never done.
    #[serde(default)]
    pub last_conclusion: Option<Conclusion>,
}
