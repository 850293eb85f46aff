//! Authentication, users and groups (spec §4.1, §4.2, §4.7).

use super::http::{Client, ListQuery, Result, api_path, id_body};
use registry_core::api::{
    ChangePasswordInput, Facility, Group, ListEnvelope, LoginRequest, LoginResponse, Message,
    PasswordRecoverInput, User, UserInput,
};
use serde_json::{Value, json};

impl Client {
    endpoints! {
        /// `POST /register/`: `{name, email, password, roles?, telephone?, cpf?, licences...}`.
        fn register_user(body: &UserInput) -> User = post("/register/", body);
        /// `POST /register/` without a token (self-registration): 202 with a message that says
        /// the same whether the e-mail was new or taken.
        fn register_self(body: &UserInput) -> Message = post("/register/", body);
        /// `POST /edit/`: the fields present replace the stored ones.
        fn edit_user(body: &UserInput) -> User = post("/edit/", body);
        fn deactivate_user(id: &str) -> Message = post("/exclude/", &id_body(id));
        fn users(query: &ListQuery) -> ListEnvelope<User> = get("/users", query);
        fn user(id: &str) -> User = fetch(&api_path(&["user", id])?);
        fn user_facilities(id: &str) -> Vec<Facility> =
            all_pages(&api_path(&["user", id, "facilities"])?, &ListQuery::default());
        fn groups(query: &ListQuery) -> ListEnvelope<Group> = get("/group", query);
        fn group(id: &str) -> Group = fetch(&api_path(&["group", id])?);
        fn register_group(name: &str, description: Option<&str>) -> Group =
            post("/group/register", &json!({"name": name, "description": description}));
        /// `POST /group/edit`: `body` carries `_id` and the fields to change.
        fn edit_group(body: &Value) -> Group = post("/group/edit", body);
        fn delete_group(id: &str) -> Message = post("/group/exclude", &id_body(id));
    }

    pub async fn login(&self, email: &str, password: &str) -> Result<LoginResponse> {
        let body = LoginRequest {
            email: email.to_owned(),
            password: password.to_owned(),
        };
        self.post("/login/", &body).await
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
}
