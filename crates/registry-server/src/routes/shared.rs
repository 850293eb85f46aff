//! Error responses and query parameters that several `#[utoipa::path]` attributes share, written
//! once: `responses((status = 200, body = Equipment), Forbidden, NotFound)`,
//! `params(("id" = String, Path), PageParams)`.
//!
//! Each response stands for the tuple `(status = …, description = …, body = ErrorBody)`: the field
//! makes the body a `$ref` to `ErrorBody` (`openapi.rs` sets that body on every error status
//! anyway). A doc comment would become the description, so the types have none. They list no
//! schema: `ErrorBody` reaches the components through the tuples that still name it.
//!
//! An attribute names only the errors its handler decides. `openapi.rs` adds to every operation
//! those that the shared extractors and layers give: 401 wherever a token is read, 400/413/422
//! wherever a body or query parameters are read, 404 wherever the path names a record, 429 and 503.
//!
//! Each parameter set stands for a run of `(name = Option<…>, Query)` tuples, in field order; a
//! field's doc comment is the parameter's description (one line, as the tuples' strings are).

use registry_core::ErrorBody;
use utoipa::{IntoParams, IntoResponses};

/// Declares each `Name = status;` or `Name = status, "description";` as a response type.
macro_rules! error_responses {
    ($($name:ident = $status:tt $(, $description:tt)?;)*) => {$(
        #[derive(IntoResponses)]
        #[response(status = $status $(, description = $description)?)]
        pub struct $name(pub ErrorBody);
    )*};
}

error_responses! {
    BadRequest = 400, "Malformed JSON, wrong content type or an unreadable parameter";
    Forbidden = 403, "The role may not do this";
    NotFound = 404, "No such record, or not visible to the caller";
    Conflict = 409;
    Unprocessable = 422, "Field errors, all at once";
    UnknownFacility = 404, "facilityId names no facility the caller can read";
    DuplicateFacility = 409, "duplicate_facility";
    InvalidTransition = 409, "`invalid_transition`";
    VersionMismatch = 412, "version_mismatch";
}

/// The `If-Match` header of a write to a facility, refused on a stale copy (`VersionMismatch`).
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IfMatch {
    /// W/"version" from the ETag
    #[param(rename = "If-Match")]
    pub if_match: Option<String>,
}

/// `pageNum` and `pageSize` (`ListParams` reads them), without descriptions.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct PageParams {
    pub page_num: Option<i64>,
    pub page_size: Option<i64>,
}

/// The filters of the document lists, as plain parameters or inside `filters`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct DocumentQuery {
    /// JSON object with pageNum, pageSize (or limit) and filter keys
    pub filters: Option<String>,
    /// The facility's `_id`
    pub facility_id: Option<String>,
    /// Another name of `facilityId`
    pub facility: Option<String>,
    /// The equipment's `_id`
    pub equipment_id: Option<String>,
    /// Another name of `equipmentId`
    pub equipment: Option<String>,
    /// The QC test's `_id`
    pub test_id: Option<String>,
    /// Another name of `testId`
    pub test: Option<String>,
    /// Documents dated on or after this day (YYYY-MM-DD)
    pub date_gte: Option<String>,
    /// Documents dated before this day (YYYY-MM-DD)
    pub date_lt: Option<String>,
    /// Text in the name, conclusion or verification code (case and accents ignored)
    pub q: Option<String>,
}

/// The paging and the search text of the user and group lists.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct SearchParams {
    /// JSON object with pageNum, pageSize (or limit) and filter keys
    pub filters: Option<String>,
    /// 1-based page
    pub page_num: Option<i64>,
    /// 20 by default, at most 200
    pub page_size: Option<i64>,
    /// search text
    pub q: Option<String>,
}

/// The paging and the filters of the facility lists.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct FacilityFilters {
    /// JSON object with pageNum, pageSize (or limit) and filter keys
    pub filters: Option<String>,
    pub page_num: Option<i64>,
    pub page_size: Option<i64>,
    /// name, company name, cnpj (bare or in its display form) or city
    pub q: Option<String>,
    /// `Medicina Nuclear` or `Radiodiagnóstico` (the department lists imply theirs)
    pub department: Option<String>,
    pub state: Option<String>,
    pub city: Option<String>,
    pub group: Option<String>,
    pub radioisotope: Option<String>,
    pub practice: Option<String>,
    pub user_id: Option<String>,
}

/// The filters and the paging of the receipt lists (after the facility's `id` or `facilityId`).
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ReceiptFilters {
    /// YYYY-Www
    pub week: Option<String>,
    pub radioisotope: Option<String>,
    pub over_quantity: Option<bool>,
    pub page_num: Option<i64>,
    pub page_size: Option<i64>,
}

/// The filters and the paging of the waste lists (after the facility's `id` or `facilityId`).
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct WasteFilters {
    /// Only packages that may (true) or may not (false) be released today
    pub releasable: Option<bool>,
    pub released: Option<bool>,
    pub radioisotope: Option<String>,
    pub page_num: Option<i64>,
    pub page_size: Option<i64>,
}
