//! Equipment endpoints (spec §4.4): details, a facility's equipment, register (both paths), edit,
//! archive and history. A `Cliente` sees only the equipment of facilities they are linked to.

use crate::access::{visible, visible_equipment};
use crate::auth::{Caller, Reader, Staff};
use crate::db::Conn;
use crate::db::{new_id, now};
use crate::error::{ApiError, OrNotFound, Result, no_such};
use crate::extract::Path;
use crate::extract::{JsonBody, ListParams};
use crate::routes::describe::{Routes, route, routes};
use crate::routes::shared::{Forbidden, NotFound, PageParams};
use crate::routes::{archive, audited};
use crate::state::AppState;
use crate::store::{equipment as store, equipment_types, facilities};
use axum::Json;
use axum::extract::State;
use registry_core::api::{AuditEvent, IdInput, ListEnvelope, Message};
use registry_core::equipment::{Equipment, Reference, read_equipment};
use registry_core::inputs::EquipmentInput;
use registry_core::payload::{unflagged_reference, without_failing};
use registry_core::{FieldError, FieldErrors};
use serde_json::Value;

pub fn routes() -> Routes {
    routes![edit, exclude, show, history, list_for_facility]
        .route(route!(register).documented_also_at("/api/facility/equipment/register"))
}

#[utoipa::path(
    get, path = "/api/equipment/{id}", tag = "equipment",
    params(("id" = String, Path)),
    responses((status = 200, body = Equipment))
)]
async fn show(
    Reader { caller, mut conn }: Reader,
    Path(id): Path<String>,
) -> Result<Json<Equipment>> {
    Ok(Json(visible_equipment(&mut conn, &caller, &id).await?))
}

#[utoipa::path(
    get, path = "/api/facility/{id}/equipments", tag = "equipment",
    params(
        ("id" = String, Path, description = "The facility"),
        ("typeOfEquipment" = Option<String>, Query),
        ("active" = Option<bool>, Query),
        ("q" = Option<String>, Query, description = "Manufacturer, model, serial or patrimonial \
            number, localization"),
        PageParams
    ),
    responses((status = 200, description = "Newest first", body = ListEnvelope<Equipment>))
)]
async fn list_for_facility(
    Reader { caller, mut conn }: Reader,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Json<ListEnvelope<Equipment>>> {
    visible(&mut conn, &caller, &id).await?;
    let filter = store::EquipmentFilter {
        equipment_type_id: params.text("typeOfEquipment"),
        active: params.flag("active")?,
        q: params.text("q"),
    };
    let (list, total) =
        store::list_for_facility(&mut conn, &id, &filter, params.page_size, params.offset())
            .await?;
    Ok(params.page(list, total))
}

/// Resolves the facility and equipment type an equipment payload names, reporting both.
async fn references(
    conn: &mut Conn,
    facility_id: Option<&str>,
    equipment_type_id: Option<&str>,
) -> Result<(Option<Reference>, Option<Reference>)> {
    let mut errors = Vec::new();
    let mut known = |found: Option<Reference>, field: &str, what: &str, id: &str| {
        if found.is_none() {
            errors.push(no_such(field, what, id));
        }
        found
    };
    let facility = match facility_id {
        Some(id) => {
            let found = facilities::hold_live(conn, id).await?;
            known(found, "facility", "facility", id)
        }
        None => None,
    };
    let equipment_type = match equipment_type_id {
        Some(id) => {
            let found = equipment_types::type_reference(conn, id).await?;
            known(found, "typeOfEquipment", "equipment type", id)
        }
        None => None,
    };
    if errors.is_empty() {
        Ok((facility, equipment_type))
    } else {
        Err(ApiError::Validation(errors))
    }
}

/// The answer to an equipment payload whose reader found `errors`: they, and the facility and
/// equipment type it names that do not exist, in one 422.
async fn refused(conn: &mut Conn, value: &Value, errors: Vec<FieldError>) -> ApiError {
    let errors = FieldErrors::from(errors);
    let named = |field| unflagged_reference(&errors, field, value.get(field));
    let (facility, equipment_type) = (named("facility"), named("typeOfEquipment"));
    let found = references(conn, facility.as_deref(), equipment_type.as_deref()).await;
    ApiError::with_reference_errors(errors, found)
}

/// `errors` of an edit of the equipment `id`, with those of the fields that did read but may not
/// change on the stored record (its facility; its type once tests were recorded): every failing
/// field at once.
async fn with_fixed_fields(
    conn: &mut Conn,
    id: &str,
    value: &Value,
    mut errors: Vec<FieldError>,
) -> Result<Vec<FieldError>> {
    let Some(fields) = value.as_object() else {
        return Ok(errors);
    };
    let rest = Value::Object(without_failing(fields, &errors));
    if let (Ok(partial), Some(before)) = (read_equipment(&rest, false), store::get(conn, id).await?)
    {
        let recorded = partial.new_type(&before).is_some() && store::has_tests(conn, id).await?;
        errors.extend(partial.check(&before, recorded).err().unwrap_or_default());
    }
    Ok(errors)
}

/// Registers the equipment a payload describes (staff; both register paths), answering 201 with it.
#[utoipa::path(
    post, path = "/api/equipment/register", tag = "equipment",
    request_body = EquipmentInput,
    responses((status = 201, headers(("Location" = String, description = "The created record's path")), body = Equipment), Forbidden)
)]
async fn register(
    State(state): State<AppState>,
    Staff(caller): Staff,
    body: JsonBody,
) -> Result<audited::Created<Equipment>> {
    let value = body.value()?;
    let mut tx = state.db.begin().await?;
    let changes = match read_equipment(&value, true) {
        Ok(changes) => changes,
        Err(errors) => return Err(refused(&mut tx, &value, errors).await),
    };
    let (Some(facility), Some(type_of_equipment)) = references(
        &mut tx,
        changes.facility_id.as_deref(),
        changes.equipment_type_id.as_deref(),
    )
    .await?
    else {
        unreachable!("both are required on create");
    };
    let at = now();
    let equipment = Equipment {
        id: new_id(),
        facility,
        type_of_equipment,
        manufacturer: changes.manufacturer.flatten(),
        model: changes.model.flatten(),
        serial_number: changes.serial_number.flatten(),
        patrimonial_number: changes.patrimonial_number.flatten(),
        localization: changes.localization.flatten(),
        attributes: Value::Object(changes.attributes.unwrap_or_default()),
        active: changes.active.unwrap_or(true),
        created_at: at.clone(),
        updated_at: at,
    };
    store::save(&mut tx, &equipment, true).await?;
    let id = equipment.id.clone();
    audited::created(tx, &caller, ("equipment", "/api/equipment"), &id, equipment).await
}

#[utoipa::path(
    post, path = "/api/facility/equipment/edit", tag = "equipment",
    request_body(content = EquipmentInput, description = "`{_id, ...}`: fields present replace the stored \
        ones; `attributes` replaces the whole object. The facility cannot change, nor the type \
        once QC tests were recorded."),
    responses((status = 200, body = Equipment), Forbidden, NotFound)
)]
async fn edit(
    State(state): State<AppState>,
    Staff(caller): Staff,
    body: JsonBody,
) -> Result<Json<Equipment>> {
    let value = body.value()?;
    let read = read_equipment(&value, false);
    let id = JsonBody::id_along(&value, || read.as_ref().err().cloned().unwrap_or_default())?;
    let changes = match read {
        Ok(changes) => changes,
        Err(errors) => {
            let mut conn = state.db.read().await?;
            let errors = with_fixed_fields(&mut conn, &id, &value, errors).await?;
            return Err(refused(&mut conn, &value, errors).await);
        }
    };
    let mut tx = audited::locked(&state, "equipment", &id).await?;
    let before = store::get(&mut tx, &id).await?.or_not_found("equipment")?;
    let recorded = changes.new_type(&before).is_some() && store::has_tests(&mut tx, &id).await?;
    changes
        .check(&before, recorded)
        .map_err(ApiError::Validation)?;
    let (_, new_type) = references(&mut tx, None, changes.new_type(&before)).await?;
    let equipment = changes.apply_to(&before, new_type);
    audited::edited(tx, &caller, "equipment", &id, &before, equipment).await
}

#[utoipa::path(
    post, path = "/api/facility/equipment/exclude", tag = "equipment",
    request_body(content = IdInput, description = "Archives the equipment; its QC tests stay as \
        history"),
    responses((status = 200, body = Message), Forbidden, NotFound)
)]
async fn exclude(
    State(state): State<AppState>,
    Staff(caller): Staff,
    body: JsonBody,
) -> Result<Json<Message>> {
    let (mut tx, id) = archive::begin(&state, body, "equipment").await?;
    let before = store::get(&mut tx, &id).await?.or_not_found("equipment")?;
    store::archive(&mut tx, &id, &now()).await?;
    archive::finish(tx, &caller, "equipment", &before, id, "Equipment archived.").await
}

#[utoipa::path(
    get, path = "/api/equipment/{id}/history", tag = "equipment",
    params(("id" = String, Path), PageParams),
    responses(
        (status = 200, description = "Audit events of the equipment, newest first",
            body = ListEnvelope<AuditEvent>),
        Forbidden
    )
)]
async fn history(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Json<ListEnvelope<AuditEvent>>> {
    audited::history(&state, &caller, "equipment", &id, &params).await
}
