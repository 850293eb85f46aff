//! Facilities (spec §4.3).

use super::http::{Client, ListQuery, Result, id_body};
use registry_core::api::{
    AuditEvent, Facility, FacilityUserInput, FacilityUsersInput, ListEnvelope, Message,
};
use reqwest::Method;
use serde_json::Value;

impl Client {
    pub async fn facilities(&self, query: &ListQuery) -> Result<ListEnvelope<Facility>> {
        self.get("/facilities", query).await
    }

    pub async fn facility(&self, id: &str) -> Result<Facility> {
        self.fetch(&format!("/facility/{id}")).await
    }

    /// `POST /facility/register/`. A facility already registered with this cnpj in this
    /// department answers [`ClientError::Conflict`] with code `duplicate_facility` and its `_id`.
    pub async fn register_facility(&self, payload: &Value) -> Result<Facility> {
        self.post("/facility/register/", payload).await
    }

    /// `PUT /facility/:id/edit`: keys present replace, absent keys stay. With `version`, the edit
    /// is refused (412 → [`ClientError::Conflict`]) when someone changed the facility meanwhile.
    pub async fn edit_facility(
        &self,
        id: &str,
        payload: &Value,
        version: Option<i64>,
    ) -> Result<Facility> {
        let path = format!("/facility/{id}/edit");
        let mut req = self.request(Method::PUT, &path).json(payload);
        if let Some(v) = version {
            req = req.header(reqwest::header::IF_MATCH, format!("W/\"{v}\""));
        }
        self.send(req, &path).await
    }

    /// `POST /facility/users/edit`: replaces the user links; a new holder of a main role
    /// replaces the previous one.
    pub async fn edit_facility_users(
        &self,
        id: &str,
        users: &[FacilityUserInput],
    ) -> Result<Facility> {
        let body = FacilityUsersInput {
            id: id.to_owned(),
            users: users.to_vec(),
        };
        self.post("/facility/users/edit", &body).await
    }

    pub async fn archive_facility(&self, id: &str) -> Result<Message> {
        self.post("/facility/exclude", &id_body(id)).await
    }

    pub async fn facility_history(&self, id: &str) -> Result<Vec<AuditEvent>> {
        self.all_pages(&format!("/facility/{id}/history"), &ListQuery::default())
            .await
    }
}
