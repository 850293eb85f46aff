//! Groups of facilities (spec §4.7): staff create and edit, Administrators delete, and a group
//! still used by live facilities cannot be deleted.

use super::catalogue::{self, Catalogue, ensure_unique_name};
use crate::access::scope_for;
use crate::auth::Caller;
use crate::db::Conn;
use crate::error::{ApiError, Result};
use crate::extract::Path;
use crate::routes::describe::{Routes, routes};
use crate::routes::shared::{Forbidden, NotFound, SearchParams};
use crate::state::AppState;
use crate::store::{audit, groups};
use axum::Json;
use axum::extract::State;
use registry_core::api::{Group, ListEnvelope, Message};
use registry_core::api::{GroupInput, IdInput};
use registry_core::audit::Action;
use registry_core::group::{GroupChanges, read_group};
use registry_core::text::count;
use registry_core::{ErrorBody, FieldError};
use serde_json::{Value, json};

pub fn routes() -> Routes {
    routes![list, register, edit, exclude, show]
}

/// How a name conflict starts its message.
const A_GROUP: &str = "A group";

impl Catalogue for Group {
    const ENTITY: &'static str = "group";
    const PATH: &'static str = "/api/group";
    const TABLE: &'static str = "facility_groups";
    const WHAT: &'static str = "group";
    const DELETED: &'static str = "Group deleted.";
    type Changes = GroupChanges;

    fn read(body: &Value, create: bool) -> Result<GroupChanges, Vec<FieldError>> {
        read_group(body, create)
    }

    async fn create(
        conn: &mut Conn,
        changes: GroupChanges,
        id: String,
        at: String,
    ) -> Result<Self> {
        catalogue::create_named(conn, changes.name, changes.description, id, at, A_GROUP).await
    }

    async fn apply(conn: &mut Conn, before: &Self, changes: GroupChanges) -> Result<Self> {
        if let Some(name) = &changes.name {
            ensure_unique_name::<Self>(conn, name, &before.id, A_GROUP).await?;
        }
        Ok(changes.apply_to(before))
    }

    /// A group still used by live facilities stays; archived ones that name it are detached,
    /// each with its audit event (an archived facility's history goes on).
    async fn before_delete(conn: &mut Conn, id: &str, caller: &Caller) -> Result<()> {
        let used_by = groups::facilities(conn, id, None).await?.len();
        if used_by > 0 {
            return Err(ApiError::conflict(
                "in_use",
                format!(
                    "The group is used by {}; move {} to another group first.",
                    count(used_by as u64, "facility", "facilities"),
                    if used_by == 1 { "it" } else { "them" }
                ),
            ));
        }
        let group = catalogue::load::<Self>(conn, id).await?;
        let (before, after) = (
            json!({"group": {"_id": id, "name": group.name}}),
            json!({"group": null}),
        );
        for facility in groups::detach_archived_facilities(conn, id).await? {
            let actor = Some(caller.id.as_str());
            let (before, after) = (Some(&before), Some(&after));
            audit::record_change(
                conn,
                actor,
                "facility",
                &facility,
                Action::Edit,
                before,
                after,
            )
            .await?;
        }
        Ok(())
    }
}

catalogue::handler! {
    #[utoipa::path(
        get, path = "/api/group", tag = "groups", summary = "List groups",
        params(SearchParams),
        responses((status = 200, description = "OK", body = ListEnvelope<Group>))
    )]
    list = list::<Group>
}

#[utoipa::path(
    get, path = "/api/group/{id}", tag = "groups", summary = "One group",
    params(("id" = String, Path)),
    responses((status = 200, description = "The group with its facilities", body = Group))
)]
async fn show(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Group>> {
    let mut conn = state.db.read().await?;
    let mut group = catalogue::load::<Group>(&mut conn, &id).await?;
    group.facilities =
        Some(groups::facilities(&mut conn, &id, scope_for(&caller).as_deref()).await?);
    Ok(Json(group))
}

catalogue::handler! {
    #[utoipa::path(
        post, path = "/api/group/register", tag = "groups", summary = "Create a group",
        request_body = GroupInput,
        responses(
            (status = 201, headers(("Location" = String, description = "The created record's path")), description = "Created", body = Group), Forbidden,
            (status = 409, description = "Name already used", body = ErrorBody)
        )
    )]
    register = register::<Group>
}

catalogue::handler! {
    #[utoipa::path(
        post, path = "/api/group/edit", tag = "groups", summary = "Edit a group",
        request_body = GroupInput,
        responses(
            (status = 200, description = "OK", body = Group), Forbidden, NotFound,
            (status = 409, description = "Name already used", body = ErrorBody)
        )
    )]
    edit = edit::<Group>
}

catalogue::handler! {
    #[utoipa::path(
        post, path = "/api/group/exclude", tag = "groups",
        summary = "Delete a group (Administrator)",
        request_body = IdInput,
        responses(
            (status = 200, description = "Deleted", body = Message), Forbidden, NotFound,
            (status = 409, description = "in_use: facilities still use the group", body = ErrorBody)
        )
    )]
    exclude = exclude::<Group>
}
