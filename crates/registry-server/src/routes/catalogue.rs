//! Named catalogues — equipment types, test types, groups: records with a name and a description
//! among their own fields, that everyone lists and reads, staff register and edit, and
//! Administrators delete once nothing refers to them. Each resource keeps its handlers (their
//! paths and OpenAPI descriptions), which call the steps here; what differs between resources
//! (what a payload builds, where a name must be unique, what refers to a record) is its
//! [`Catalogue`] implementation.

use super::{archive, audited};
use crate::auth::Caller;
use crate::db::{Conn, new_id, now};
use crate::error::{ApiError, OrNotFound, Result};
use crate::extract::{JsonBody, ListParams};
use crate::state::AppState;
use crate::store::catalogue::{self as store, CatalogueFilter, Named, NamedRow, Stored};
use axum::Json;
use registry_core::api::{ListEnvelope, Message};
use registry_core::{FieldError, Role};
use serde::Serialize;
use serde_json::Value;

/// A resource served as a named catalogue.
pub(crate) trait Catalogue: Stored + Serialize + Clone + PartialEq + Send + Sync {
    /// What the audit log calls a record (`equipment_type`).
    const ENTITY: &'static str;
    /// Where a record is read: `{PATH}/{id}`.
    const PATH: &'static str;
    /// The table whose row an edit or a deletion locks.
    const TABLE: &'static str;
    /// What a 404 calls a record (`equipment type`).
    const WHAT: &'static str;
    /// The answer to a deletion.
    const DELETED: &'static str;

    /// A validated create or edit payload.
    type Changes: Send;

    /// Reads a create payload (`create`) or an edit one, with every field error at once.
    fn read(body: &Value, create: bool) -> Result<Self::Changes, Vec<FieldError>>;

    /// The record `id`, created `at`, that a create payload describes, checked against what is
    /// stored (references, a name taken).
    async fn create(
        conn: &mut Conn,
        changes: Self::Changes,
        id: String,
        at: String,
    ) -> Result<Self>;

    /// `before` with an edit payload applied (its times unchanged), checked against what is
    /// stored.
    async fn apply(conn: &mut Conn, before: &Self, changes: Self::Changes) -> Result<Self>;

    /// When a payload failed to read (`errors`): the errors of the references it names that name
    /// no record and, on an edit (not `create`), of the fields that may not change on the stored
    /// record, so that one answer reports every failing field (product.md §1).
    async fn missing_references(
        _conn: &mut Conn,
        _body: &Value,
        _errors: &[FieldError],
        _create: bool,
    ) -> Result<Vec<FieldError>> {
        Ok(Vec::new())
    }

    /// Runs in the deletion's transaction before the record `id` goes: refuses (409 `in_use`)
    /// while something that counts still refers to it, and lets go of what does not count.
    async fn before_delete(conn: &mut Conn, id: &str, caller: &Caller) -> Result<()>;
}

/// The record `id`, or 404.
pub(crate) async fn load<T: Catalogue>(conn: &mut Conn, id: &str) -> Result<T> {
    T::get(conn, id).await?.or_not_found(T::WHAT)
}

/// `GET /<resource>`: a page of the records.
pub(crate) async fn list<T: Catalogue>(
    state: &AppState,
    params: &ListParams,
) -> Result<Json<ListEnvelope<T>>> {
    let mut conn = state.db.read().await?;
    let filter = CatalogueFilter {
        q: params.text("q"),
        equipment_type_id: params.text("typeOfEquipment"),
    };
    let (list, total) = T::list(&mut conn, &filter, params.page_size, params.offset()).await?;
    Ok(params.page(list, total))
}

/// `GET /<resource>/{id}`: one record.
pub(crate) async fn show<T: Catalogue>(state: &AppState, id: &str) -> Result<Json<T>> {
    let mut conn = state.db.read().await?;
    Ok(Json(load(&mut conn, id).await?))
}

/// A create (`create`) or edit payload; when it fails, every failing field, the references that
/// name no record among them.
async fn read<T: Catalogue>(state: &AppState, body: &Value, create: bool) -> Result<T::Changes> {
    match T::read(body, create) {
        Ok(changes) => Ok(changes),
        Err(mut errors) => {
            let mut conn = state.db.read().await?;
            errors.extend(T::missing_references(&mut conn, body, &errors, create).await?);
            Err(ApiError::Validation(errors))
        }
    }
}

/// `POST /<resource>/register` (staff): creates a record and answers 201 with it.
pub(crate) async fn register<T: Catalogue>(
    state: &AppState,
    caller: &Caller,
    body: JsonBody,
) -> Result<audited::Created<T>> {
    caller.require_staff()?;
    let changes = read::<T>(state, &body.value()?, true).await?;
    let mut tx = state.db.begin().await?;
    let id = new_id();
    let record = T::create(&mut tx, changes, id.clone(), now()).await?;
    record.save(&mut tx, true).await?;
    audited::created(tx, caller, (T::ENTITY, T::PATH), &id, record).await
}

/// `POST /<resource>/edit` (staff): applies `{_id, …}`; a payload that changes nothing writes
/// nothing.
pub(crate) async fn edit<T: Catalogue>(
    state: &AppState,
    caller: &Caller,
    body: JsonBody,
) -> Result<Json<T>> {
    caller.require_staff()?;
    let value = body.value()?;
    let read = read::<T>(state, &value, false).await;
    let id = JsonBody::id_along(&value, || match &read {
        Err(ApiError::Validation(errors)) => errors.clone(),
        _ => Vec::new(),
    })?;
    let changes = read?;
    let mut tx = audited::locked(state, T::TABLE, &id).await?;
    let before = load::<T>(&mut tx, &id).await?;
    let record = T::apply(&mut tx, &before, changes).await?;
    audited::edited(tx, caller, T::ENTITY, &id, &before, record).await
}

/// `POST /<resource>/exclude` (Administrator): deletes `{_id}` unless something refers to it.
pub(crate) async fn exclude<T: Catalogue>(
    state: &AppState,
    caller: &Caller,
    body: JsonBody,
) -> Result<Json<Message>> {
    caller.require_any(&[Role::Administrator])?;
    let (mut tx, id) = archive::begin(state, body, T::TABLE).await?;
    let before = load::<T>(&mut tx, &id).await?;
    T::before_delete(&mut tx, &id, caller).await?;
    T::delete(&mut tx, &id).await?;
    archive::finish(tx, caller, T::ENTITY, &before, id, T::DELETED).await
}

/// [`Catalogue::create`] of a plain named catalogue, from the `name` and `description` of a create
/// payload: refuses a name taken (see [`ensure_unique_name`]).
pub(crate) async fn create_named<T: Named>(
    conn: &mut Conn,
    name: Option<String>,
    description: Option<Option<String>>,
    id: String,
    at: String,
    a_record: &str,
) -> Result<T> {
    let name = name.expect("required on create");
    ensure_unique_name::<T>(conn, &name, &id, a_record).await?;
    Ok(T::from_row(NamedRow {
        id,
        name,
        description: description.flatten(),
        created_at: at.clone(),
        updated_at: at,
    }))
}

/// Refuses (409 `conflict`) a name another record of a plain named catalogue has;
/// `a_record` starts the message (`A group`).
pub(crate) async fn ensure_unique_name<T: Named>(
    conn: &mut Conn,
    name: &str,
    id: &str,
    a_record: &str,
) -> Result<()> {
    if store::name_taken::<T>(conn, name, id).await? {
        return Err(ApiError::conflict(
            "conflict",
            format!("{a_record} named \"{name}\" already exists."),
        ));
    }
    Ok(())
}

/// Writes a resource's handler that is one of the steps above for its record type — `list`,
/// `show`, `register`, `edit` or `exclude` — under the `#[utoipa::path]` that routes and describes
/// it:
///
/// ```text
/// catalogue::handler! {
///     #[utoipa::path(get, path = "/api/group", tag = "groups", …)]
///     list = list::<Group>
/// }
/// ```
macro_rules! handler {
    ($(#[$($attr:tt)*])* $name:ident = list::<$t:ty>) => {
        $(#[$($attr)*])*
        async fn $name(
            axum::extract::State(state): axum::extract::State<$crate::state::AppState>,
            _caller: $crate::auth::Caller,
            params: $crate::extract::ListParams,
        ) -> $crate::error::Result<axum::Json<registry_core::api::ListEnvelope<$t>>> {
            $crate::routes::catalogue::list(&state, &params).await
        }
    };
    ($(#[$($attr:tt)*])* $name:ident = show::<$t:ty>) => {
        $(#[$($attr)*])*
        async fn $name(
            axum::extract::State(state): axum::extract::State<$crate::state::AppState>,
            _caller: $crate::auth::Caller,
            $crate::extract::Path(id): $crate::extract::Path<String>,
        ) -> $crate::error::Result<axum::Json<$t>> {
            $crate::routes::catalogue::show(&state, &id).await
        }
    };
    // `register`, `edit` and `exclude` read the caller and the body.
    ($(#[$($attr:tt)*])* $name:ident = $step:ident::<$t:ty>) => {
        $(#[$($attr)*])*
        async fn $name(
            axum::extract::State(state): axum::extract::State<$crate::state::AppState>,
            caller: $crate::auth::Caller,
            body: $crate::extract::JsonBody,
        ) -> axum::response::Response {
            let answer = $crate::routes::catalogue::$step::<$t>(&state, &caller, body).await;
            axum::response::IntoResponse::into_response(answer)
        }
    };
}
pub(crate) use handler;
