//! Authentication, users and groups (spec §4.1, §4.2, §4.7).

use super::http::{Client, ListQuery, Result, id_body};
use registry_core::api::{
    ChangePasswordInput, Facility, Group, ListEnvelope, LoginRequest, LoginResponse, Message,
    PasswordRecoverInput, User, UserInput,
};
use serde_json::{Value, json};

impl Client {
    pub async fn login(&self, email: &str, password: &str) -> Result<LoginResponse> {
        let body = LoginRequest {
            email: email.to_owned(),
            password: password.to_owned(),
        };
        self.post("/login/", &body).await
    }

    /// `POST /register/`: `{name, email, password, roles?, telephone?, cpf?, licences...}`.
    pub async fn register_user(&self, body: &UserInput) -> Result<User> {
        self.post("/register/", body).await
    }

    /// `POST /edit/`: the fields present replace the stored ones.
    pub async fn edit_user(&self, body: &UserInput) -> Result<User> {
        self.post("/edit/", body).await
    }

    pub async fn deactivate_user(&self, id: &str) -> Result<Message> {
        self.post("/exclude/", &id_body(id)).await
    }

    /// Own password (`current` given) or, for an Administrator, another user's (`user_id` given).
    pub async fn change_password(
        &self,
        user_id: Option<&str>,
        current: Option<&str>,
        new: &str,
    ) -> Result<Message> {
        let body = ChangePasswordInput {
            id: user_id.map(str::to_owned),
            current_password: current.map(str::to_owned),
            new_password: new.to_owned(),
        };
        self.post("/changePassword/", &body).await
    }

    pub async fn request_password_recovery(&self, email: &str) -> Result<Message> {
        let body = PasswordRecoverInput {
            email: Some(email.to_owned()),
            token: None,
            new_password: None,
        };
        self.post("/password_recover/", &body).await
    }

    pub async fn reset_password(&self, token: &str, new: &str) -> Result<Message> {
        let body = PasswordRecoverInput {
            email: None,
            token: Some(token.to_owned()),
            new_password: Some(new.to_owned()),
        };
        self.post("/password_recover/", &body).await
    }

    pub async fn users(&self, query: &ListQuery) -> Result<ListEnvelope<User>> {
        self.get("/users", query).await
    }

    pub async fn user(&self, id: &str) -> Result<User> {
        self.fetch(&format!("/user/{id}")).await
    }

    pub async fn user_facilities(&self, id: &str) -> Result<Vec<Facility>> {
        self.all_pages(&format!("/user/{id}/facilities"), &ListQuery::default())
            .await
    }

    pub async fn groups(&self, query: &ListQuery) -> Result<ListEnvelope<Group>> {
        self.get("/group", query).await
    }

    pub async fn group(&self, id: &str) -> Result<Group> {
        self.fetch(&format!("/group/{id}")).await
    }

    pub async fn register_group(&self, name: &str, description: Option<&str>) -> Result<Group> {
        self.post(
            "/group/register",
            &json!({"name": name, "description": description}),
        )
        .await
    }

    /// `POST /group/edit`: `body` carries `_id` and the fields to change.
    pub async fn edit_group(&self, body: &Value) -> Result<Group> {
        self.post("/group/edit", body).await
    }

    pub async fn delete_group(&self, id: &str) -> Result<Message> {
        self.post("/group/exclude", &id_body(id)).await
    }
}
