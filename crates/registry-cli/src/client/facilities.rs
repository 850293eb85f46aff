//! Facilities (spec §4.3).

use super::http::{Client, ListQuery, Result, api_path, id_body};
use registry_core::api::{
    AuditEvent, Facility, FacilityUserInput, FacilityUsersInput, ListEnvelope, Message,
};
use reqwest::Method;
use serde_json::Value;

impl Client {
    endpoints! {
        fn facilities(query: &ListQuery) -> ListEnvelope<Facility> = get("/facilities", query);
        fn facility(id: &str) -> Facility = fetch(&api_path(&["facility", id])?);
        /// `POST /facility/register/`. A facility already registered with this cnpj in this
        /// department answers [`ClientError::Conflict`] with code `duplicate_facility` and its
        /// `_id`.
        fn register_facility(payload: &Value) -> Facility = post("/facility/register/", payload);
        fn archive_facility(id: &str) -> Message = post("/facility/exclude", &id_body(id));
        fn facility_history(id: &str) -> Vec<AuditEvent> =
            all_pages(&api_path(&["facility", id, "history"])?, &ListQuery::default());
    }

    /// `PUT /facility/:id/edit`: keys present replace, absent keys stay. With `version`, the edit
    /// is refused (412 → [`ClientError::Conflict`]) when someone changed the facility meanwhile.
    pub async fn edit_facility(
        &self,
        id: &str,
        payload: &Value,
        version: Option<i64>,
    ) -> Result<Facility> {
        let path = api_path(&["facility", id, "edit"])?;
        let mut req = self.request(Method::PUT, &path).json(payload);
        if let Some(v) = version {
            req = req.header(reqwest::header::IF_MATCH, format!("W/\"{v}\""));
        }
        self.send(req, &path).await
    }

    /// `POST /facility/users/edit`: replaces the user links; a new holder of a main role
    /// replaces the previous one. Refused (412 → [`ClientError::Conflict`] `version_mismatch`)
    /// when the facility is no longer at `version`: the links were computed from that one.
    pub async fn edit_facility_users(
        &self,
        id: &str,
        users: &[FacilityUserInput],
        version: i64,
    ) -> Result<Facility> {
        let body = FacilityUsersInput {
            id: id.to_owned(),
            users: users.to_vec(),
        };
        let path = "/facility/users/edit";
        let req = self
            .request(Method::POST, path)
            .header(reqwest::header::IF_MATCH, format!("W/\"{version}\""))
            .json(&body);
        self.send(req, path).await
    }
}
