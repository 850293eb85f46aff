//! The types of `store::documents` (the storage interface) that its backends' queries (`sql/`)
//! take and return.

use crate::db::contains_pattern;
use crate::store::types::Param;
use registry_core::document::{Document, DocumentStatus, RecordRef};
/// What the handlers need to decide on a change.
#[derive(Debug, Clone)]
pub struct DocumentState {
    pub facility_id: String,
    pub equipment_id: Option<String>,
    pub test_id: Option<String>,
    pub status: DocumentStatus,
    pub file_version: i64,
    pub sha256: String,
    pub size: i64,
    pub name: String,
    pub facility_name: String,
    pub date: String,
    pub validity: String,
}

pub struct NewDocument<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub facility_id: &'a str,
    pub equipment_id: Option<&'a str>,
    pub test_id: Option<&'a str>,
    pub date: &'a str,
    pub validity: &'a str,
    pub conclusion: Option<&'a str>,
    pub status: DocumentStatus,
    pub by: &'a str,
    pub at: &'a str,
}

/// The metadata an edit may change; `None` leaves a field as it is.
#[derive(Debug, Default)]
pub struct MetadataChanges {
    pub name: Option<String>,
    pub equipment_id: Option<Option<String>>,
    pub test_id: Option<Option<String>>,
    pub date: Option<String>,
    pub validity: Option<String>,
    pub conclusion: Option<Option<String>>,
    pub status: Option<DocumentStatus>,
}

impl MetadataChanges {
    /// Whether applying these changes would leave `doc` as it is (an edit to the current values:
    /// nothing to write, no `updatedAt` bump, no audit event).
    pub fn leave(&self, doc: &Document) -> bool {
        fn same<T: PartialEq>(change: &Option<T>, current: &T) -> bool {
            change.as_ref().is_none_or(|c| c == current)
        }
        let reference = |r: &Option<RecordRef>| r.as_ref().map(|r| r.id.clone());
        same(&self.name, &doc.name)
            && same(&self.equipment_id, &reference(&doc.equipment))
            && same(&self.test_id, &reference(&doc.test))
            && same(&self.date, &doc.date)
            && same(&self.validity, &doc.validity)
            && same(&self.conclusion, &doc.conclusion)
            && same(&self.status, &doc.status)
    }
}

pub struct Signing<'a> {
    pub signer: &'a str,
    pub at: &'a str,
    pub code: &'a str,
    pub signature: &'a str,
}

/// Who may see what: staff see every live document; a `Cliente` only released ones of the
/// facilities they are linked to.
#[derive(Debug, Clone, Default)]
pub struct DocumentFilter {
    pub client: Option<String>,
    pub status: Option<DocumentStatus>,
    pub facility_id: Option<String>,
    pub equipment_id: Option<String>,
    pub test_id: Option<String>,
    pub date_gte: Option<String>,
    pub date_lt: Option<String>,
    pub q: Option<String>,
}

impl DocumentFilter {
    /// The WHERE clause (after `LIVE`) and its text parameters, numbered from `$first`.
    pub(crate) fn clause(&self, first: usize) -> (String, Vec<Param>) {
        let mut sql = String::new();
        let mut binds = Vec::new();
        let mut add = |cond: &str, value: Param, binds: &mut Vec<Param>| {
            binds.push(value);
            sql.push_str(&format!(
                " AND {}",
                cond.replace('?', &format!("${}", first + binds.len() - 1))
            ));
        };
        if let Some(client) = &self.client {
            add(
                "d.facility_id IN (SELECT facility_id FROM facility_users WHERE user_id = ?)",
                Param::text(client),
                &mut binds,
            );
            add(
                "d.status = ?",
                Param::text(DocumentStatus::Released.as_str()),
                &mut binds,
            );
        }
        if let Some(s) = self.status {
            add("d.status = ?", Param::text(s.as_str()), &mut binds);
        }
        if let Some(v) = &self.facility_id {
            add("d.facility_id = ?", Param::text(v), &mut binds);
        }
        if let Some(v) = &self.equipment_id {
            add("d.equipment_id = ?", Param::text(v), &mut binds);
        }
        if let Some(v) = &self.test_id {
            add("d.test_id = ?", Param::text(v), &mut binds);
        }
        if let Some(v) = &self.date_gte {
            add("d.date >= ?", Param::Day(v.clone()), &mut binds);
        }
        if let Some(v) = &self.date_lt {
            add("d.date < ?", Param::Day(v.clone()), &mut binds);
        }
        if let Some(q) = &self.q {
            add(
                "d.search_text LIKE ? ESCAPE '\\'",
                Param::Text(Some(contains_pattern(q))),
                &mut binds,
            );
        }
        (sql, binds)
    }
}

pub struct NewSchedule<'a> {
    pub id: &'a str,
    pub document_id: &'a str,
    pub recipients: &'a [String],
    /// No `to` was given: the worker sends to the facility's active users at the time it sends.
    pub to_facility_users: bool,
    pub send_at: &'a str,
    pub by: &'a str,
    pub at: &'a str,
}

/// A schedule claimed by this instance for sending.
#[derive(Debug, Clone)]
pub struct ClaimedEmail {
    pub id: String,
    pub document_id: String,
    pub recipients: Vec<String>,
    /// Sent to the facility's active users: `recipients` are those at the time of the claim.
    pub to_facility_users: bool,
    pub attempts: i64,
}
