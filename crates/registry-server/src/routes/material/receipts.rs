//! Receipts, checked against the facility's authorisation, and the weekly usage against the
//! authorised quantities.

use super::{Of, bad_filter, facility_ref, scope};
use crate::access::visible;
use crate::access::visible_record;
use crate::auth::{Caller, Staff};
use crate::db::{new_id, timestamp};
use crate::error::{ApiError, Result};
use crate::extract::Path;
use crate::extract::{JsonBody, ListParams};
use crate::routes::audited;
use crate::routes::shared::{Forbidden, ReceiptFilters, UnknownFacility};
use crate::state::AppState;
use crate::store::material as store;
use axum::Json;
use axum::extract::State;
use chrono::Utc;
use registry_core::api::ListEnvelope;
use registry_core::equipment::Reference;
use registry_core::inputs::ReceiptInput;
use registry_core::material::{
    IsoWeek, Receipt, WeeklyUsage, activity_at_receipt, exceeds, radioisotope, read_receipt, usage,
};
use registry_core::{FieldCode, FieldError, Radioisotope};

fn week_filter(params: &ListParams) -> Result<Option<IsoWeek>> {
    params
        .text("week")
        .map(|w| {
            IsoWeek::parse(&w)
                .ok_or_else(|| bad_filter("week", "an ISO week YYYY-Www, e.g. 2026-W05"))
        })
        .transpose()
}

fn unauthorised(r: Radioisotope) -> FieldError {
    FieldError::new(
        "radioisotope",
        FieldCode::InvalidRadioisotope,
        format!("{r} is not among the facility's authorised radioisotopes"),
    )
}

#[utoipa::path(
    post, path = "/api/facility/{id}/receipts", tag = "radioactive material",
    params(("id" = String, Path, description = "The facility")),
    request_body(content = ReceiptInput, description = "The isotope \
        must be authorised at the facility (`invalid_radioisotope`). A receipt that takes its week \
        over the authorised quantity is stored with `overQuantity: true`."),
    responses((status = 201, headers(("Location" = String, description = "The created record's path")), body = Receipt), Forbidden)
)]
pub(super) async fn receive(
    State(state): State<AppState>,
    Staff(caller): Staff,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<audited::Created<Receipt>> {
    let value = body.value()?;
    let mut tx = state.db.begin().await?;
    store::lock_facility(&mut tx, &id).await?;
    // Taken once the facility is held: receipts are stamped in the order their week's sums are
    // made, so the one that goes over is the later one by `receivedAt` too.
    let at = Utc::now();
    let facility = facility_ref(&mut tx, &id).await?;
    let authorised = store::authorised(&mut tx, &id).await?;
    let quantity = |r: Radioisotope| authorised.iter().find(|(a, _)| *a == r).map(|(_, q)| *q);
    let draft = match read_receipt(&value, at) {
        Ok(d) if quantity(d.radioisotope).is_none() => {
            return Err(ApiError::Validation(vec![unauthorised(d.radioisotope)]));
        }
        Ok(d) => d,
        Err(mut errors) => {
            if let Some(r) = value.get("radioisotope").and_then(radioisotope)
                && quantity(r).is_none()
            {
                errors.insert(0, unauthorised(r));
            }
            return Err(ApiError::Validation(errors));
        }
    };
    let week = IsoWeek::containing(draft.received_at).to_string();
    let received = activity_at_receipt(
        draft.radioisotope,
        draft.activity,
        draft.activity_reference_time,
        draft.received_at,
    );
    let before: f64 = store::week_totals(&mut tx, &id, &week)
        .await?
        .iter()
        .filter(|(r, _, _)| *r == draft.radioisotope)
        .map(|(_, total, _)| total)
        .sum();
    let stamp = timestamp(at);
    let receipt = Receipt {
        id: new_id(),
        facility,
        radioisotope: draft.radioisotope,
        activity: draft.activity,
        activity_reference_time: timestamp(draft.activity_reference_time),
        activity_at_receipt: received,
        supplier: draft.supplier,
        lot: draft.lot,
        received_by: draft.received_by.unwrap_or_else(|| caller.name.clone()),
        received_at: timestamp(draft.received_at),
        week,
        over_quantity: exceeds(quantity(draft.radioisotope), before + received),
        notes: draft.notes,
        created_by: caller.reference(),
        created_at: stamp.clone(),
        updated_at: stamp,
    };
    store::insert_receipt(&mut tx, &receipt).await?;
    let id = receipt.id.clone();
    audited::created(tx, &caller, ("receipt", "/api/receipt"), &id, receipt).await
}

async fn receipts(
    state: &AppState,
    caller: &Caller,
    of: Of,
    params: &ListParams,
) -> Result<Json<ListEnvelope<Receipt>>> {
    let week = week_filter(params)?.map(|w| w.to_string());
    let isotope = params.radioisotope()?;
    let over = params.flag("overQuantity")?;
    let mut conn = state.db.read().await?;
    let scope = scope(&mut conn, caller, of).await?;
    let (list, total) = store::receipts(
        &mut conn,
        &scope,
        week.as_deref(),
        isotope,
        over,
        params.page_size,
        params.offset(),
    )
    .await?;
    Ok(params.page(list, total))
}

#[utoipa::path(
    get, path = "/api/facility/{id}/receipts", tag = "radioactive material",
    params(("id" = String, Path, description = "The facility"), ReceiptFilters),
    responses(
        (status = 200, description = "Latest received first", body = ListEnvelope<Receipt>)
    )
)]
pub(super) async fn list_for_facility(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Json<ListEnvelope<Receipt>>> {
    receipts(&state, &caller, Of::Path(id), &params).await
}

#[utoipa::path(
    get, path = "/api/receipts", tag = "radioactive material",
    params(("facilityId" = Option<String>, Query), ReceiptFilters),
    responses(
        (status = 200, description = "Receipts of every facility the caller can read, latest \
            received first", body = ListEnvelope<Receipt>),
        UnknownFacility
    )
)]
pub(super) async fn list_all(
    State(state): State<AppState>,
    caller: Caller,
    params: ListParams,
) -> Result<Json<ListEnvelope<Receipt>>> {
    receipts(
        &state,
        &caller,
        Of::Filter(params.text("facilityId")),
        &params,
    )
    .await
}

#[utoipa::path(
    get, path = "/api/receipt/{id}", tag = "radioactive material",
    params(("id" = String, Path)),
    responses((status = 200, body = Receipt))
)]
pub(super) async fn show_receipt(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Receipt>> {
    let mut conn = state.db.read().await?;
    let found = store::receipt(&mut conn, &id).await?;
    let receipt = visible_record(&mut conn, &caller, found, "receipt", |r| &r.facility.id).await?;
    Ok(Json(receipt))
}

#[utoipa::path(
    get, path = "/api/facility/{id}/radioisotopes/usage", tag = "radioactive material",
    params(
        ("id" = String, Path, description = "The facility"),
        ("week" = Option<String>, Query, description = "YYYY-Www (Monday to Sunday, Brasília \
            time); default the current week")
    ),
    responses(
        (status = 200, description = "Per isotope: authorised weekly quantity, received total and \
            remaining margin (mCi)", body = WeeklyUsage)
    )
)]
pub(super) async fn weekly_usage(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Json<WeeklyUsage>> {
    let week = week_filter(&params)?.unwrap_or_else(|| IsoWeek::containing(Utc::now()));
    let mut conn = state.db.read().await?;
    let facility = visible(&mut conn, &caller, &id).await?;
    let authorised: Vec<(Radioisotope, f64)> = facility
        .radioisotopes
        .iter()
        .map(|r| (r.name, r.quantity))
        .collect();
    let received = store::week_totals(&mut conn, &id, &week.to_string()).await?;
    Ok(Json(WeeklyUsage {
        facility: Reference {
            id: facility.id,
            name: facility.name,
        },
        week: week.to_string(),
        from: timestamp(week.start()),
        to: timestamp(week.end()),
        radioisotopes: usage(&authorised, &received),
    }))
}
