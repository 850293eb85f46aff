//! Equipment types (spec §4.4, product.md §4) and the QC test types of each: everyone reads, staff
//! create and edit, Administrators delete what nothing uses.

use super::catalogue::{self, Catalogue, ensure_unique_name};
use crate::auth::Caller;
use crate::db::Conn;
use crate::error::{ApiError, Result, no_such};
use crate::routes::describe::{Routes, routes};
use crate::routes::shared::{Conflict, Forbidden, NotFound, PageParams};
use crate::store::equipment_types as store;
use registry_core::api::{IdInput, ListEnvelope, Message};
use registry_core::equipment::{
    EquipmentType, EquipmentTypeChanges, Reference, TestType, TestTypeChanges, read_equipment_type,
    read_test_type, settle_tolerances,
};
use registry_core::inputs::{CatalogueInput, TestTypeInput};
use registry_core::payload::{reference_id, without_failing};
use registry_core::text::count;
use registry_core::{ErrorBody, FieldError};
use serde_json::Value;

pub fn routes() -> Routes {
    routes![
        list_types,
        register_type,
        edit_type,
        exclude_type,
        show_type,
        list_test_types,
        register_test_type,
        edit_test_type,
        exclude_test_type,
        show_test_type
    ]
}

/// How a name conflict starts its message.
const A_TYPE: &str = "An equipment type";

impl Catalogue for EquipmentType {
    const ENTITY: &'static str = "equipment_type";
    const PATH: &'static str = "/api/typeOfEquipment";
    const TABLE: &'static str = "equipment_types";
    const WHAT: &'static str = "equipment type";
    const DELETED: &'static str = "Equipment type deleted.";
    type Changes = EquipmentTypeChanges;

    fn read(body: &Value, create: bool) -> Result<EquipmentTypeChanges, Vec<FieldError>> {
        read_equipment_type(body, create)
    }

    async fn create(
        conn: &mut Conn,
        changes: EquipmentTypeChanges,
        id: String,
        at: String,
    ) -> Result<Self> {
        catalogue::create_named(conn, changes.name, changes.description, id, at, A_TYPE).await
    }

    async fn apply(conn: &mut Conn, before: &Self, changes: EquipmentTypeChanges) -> Result<Self> {
        let mut t = before.clone();
        if let Some(name) = changes.name {
            ensure_unique_name::<Self>(conn, &name, &t.id, A_TYPE).await?;
            t.name = name;
        }
        if let Some(description) = changes.description {
            t.description = description;
        }
        Ok(t)
    }

    async fn before_delete(conn: &mut Conn, id: &str, _: &Caller) -> Result<()> {
        let (equipment, test_types) = store::type_users(conn, id).await?;
        if equipment + test_types > 0 {
            return Err(ApiError::conflict(
                "in_use",
                format!(
                    "The equipment type is used by {equipment} equipment (archived equipment included: its \
                     history keeps the type) and {}; it can be renamed, but not deleted \
                     while they refer to it.",
                    count(test_types as u64, "test type", "test types")
                ),
            ));
        }
        Ok(())
    }
}

catalogue::handler! {
    #[utoipa::path(
        get, path = "/api/typeOfEquipment", tag = "equipment types",
        params(("q" = Option<String>, Query, description = "Part of the name"), PageParams),
        responses(
            (status = 200, description = "Equipment types, newest first", body = ListEnvelope<EquipmentType>),
            (status = 401, body = ErrorBody)
        )
    )]
    list_types = list::<EquipmentType>
}

catalogue::handler! {
    #[utoipa::path(
        get, path = "/api/typeOfEquipment/{id}", tag = "equipment types",
        params(("id" = String, Path)),
        responses((status = 200, body = EquipmentType))
    )]
    show_type = show::<EquipmentType>
}

catalogue::handler! {
    #[utoipa::path(
        post, path = "/api/typeOfEquipment/register", tag = "equipment types",
        request_body = CatalogueInput,
        responses(
            (status = 201, headers(("Location" = String, description = "The created record's path")), body = EquipmentType), Forbidden,
            (status = 409, description = "Name taken", body = ErrorBody)
        )
    )]
    register_type = register::<EquipmentType>
}

catalogue::handler! {
    #[utoipa::path(
        post, path = "/api/typeOfEquipment/edit", tag = "equipment types",
        request_body(content = CatalogueInput, description = "`_id` required"),
        responses((status = 200, body = EquipmentType), Forbidden, NotFound, Conflict)
    )]
    edit_type = edit::<EquipmentType>
}

catalogue::handler! {
    #[utoipa::path(
        post, path = "/api/typeOfEquipment/exclude", tag = "equipment types",
        request_body = IdInput,
        responses(
            (status = 200, body = Message),
            (status = 403, description = "Administrator only", body = ErrorBody), NotFound,
            (status = 409, description = "`in_use`", body = ErrorBody)
        )
    )]
    exclude_type = exclude::<EquipmentType>
}

/// The equipment type a test type payload names, as a reference, or a field error.
async fn equipment_type_ref(conn: &mut Conn, id: &str) -> Result<Reference> {
    let found = store::type_reference(conn, id).await?;
    found
        .ok_or_else(|| ApiError::Validation(vec![no_such("typeOfEquipment", "equipment type", id)]))
}

/// One 422 of a reference's error (when it is one) and `others` (one error a field: the
/// reference's first); any other error as it is.
fn together(reference: Option<ApiError>, others: Vec<FieldError>) -> ApiError {
    match reference {
        Some(ApiError::Validation(mut errors)) => {
            let others: Vec<FieldError> = (others.into_iter())
                .filter(|o| !errors.iter().any(|e| e.field == o.field))
                .collect();
            errors.extend(others);
            ApiError::Validation(errors)
        }
        Some(other) => other,
        None => ApiError::Validation(others),
    }
}

async fn ensure_unique_test_name(conn: &mut Conn, t: &TestType) -> Result<()> {
    if store::test_type_name_taken(conn, &t.type_of_equipment.id, &t.name, &t.id).await? {
        return Err(ApiError::conflict(
            "conflict",
            format!(
                "{} already has a test type named \"{}\".",
                t.type_of_equipment.name, t.name
            ),
        ));
    }
    Ok(())
}

impl Catalogue for TestType {
    const ENTITY: &'static str = "test_type";
    const PATH: &'static str = "/api/typeOfTest";
    const TABLE: &'static str = "test_types";
    const WHAT: &'static str = "test type";
    const DELETED: &'static str = "Test type deleted.";
    type Changes = TestTypeChanges;

    fn read(body: &Value, create: bool) -> Result<TestTypeChanges, Vec<FieldError>> {
        read_test_type(body, create)
    }

    async fn create(
        conn: &mut Conn,
        changes: TestTypeChanges,
        id: String,
        at: String,
    ) -> Result<Self> {
        let type_id = changes.equipment_type_id.as_deref();
        let reference = equipment_type_ref(conn, type_id.expect("required on create")).await;
        let kind = changes.kind.flatten();
        let tolerances = settle_tolerances(kind, None, None, changes.tolerances.as_ref());
        // Every failing field at once: the reference that names nothing and the tolerances.
        let (type_of_equipment, tolerances) = match (reference, tolerances) {
            (Ok(reference), Ok(tolerances)) => (reference, tolerances),
            (reference, tolerances) => {
                return Err(together(
                    reference.err(),
                    tolerances.err().unwrap_or_default(),
                ));
            }
        };
        let t = TestType {
            id,
            name: changes.name.expect("required on create"),
            type_of_equipment,
            expiration_in_days: changes.expiration_in_days.expect("required on create"),
            description: changes.description.flatten(),
            kind,
            tolerances,
            created_at: at.clone(),
            updated_at: at,
        };
        ensure_unique_test_name(conn, &t).await?;
        Ok(t)
    }

    async fn apply(conn: &mut Conn, before: &Self, changes: TestTypeChanges) -> Result<Self> {
        let new_type = match changes.new_equipment_type(before).map(str::to_owned) {
            Some(type_id) => Some(equipment_type_ref(conn, &type_id).await),
            None => None,
        };
        let recorded =
            changes.moves_records(before) && store::test_type_records(conn, &before.id).await? > 0;
        let t = match new_type.transpose() {
            Ok(new_type) => changes
                .apply_to(before, new_type, recorded)
                .map_err(ApiError::Validation)?,
            // Every failing field at once: the reference that names nothing and the others.
            Err(missing) => {
                let others = changes.apply_to(before, None, recorded).err();
                return Err(together(Some(missing), others.unwrap_or_default()));
            }
        };
        if t != *before {
            ensure_unique_test_name(conn, &t).await?;
        }
        Ok(t)
    }

    async fn missing_references(
        conn: &mut Conn,
        body: &Value,
        errors: &[FieldError],
        create: bool,
    ) -> Result<Vec<FieldError>> {
        const FIELD: &str = "typeOfEquipment";
        let mut found = Vec::new();
        // The fields that did read but may not change once tests of the type were recorded.
        let stored = match (create, body.get("_id").and_then(reference_id)) {
            (false, Some(id)) => store::get_test_type(conn, &id).await?,
            _ => None,
        };
        if let (Some(before), Some(fields)) = (stored, body.as_object()) {
            let rest = Value::Object(without_failing(fields, errors));
            if let Ok(partial) = read_test_type(&rest, false) {
                let recorded = partial.moves_records(&before)
                    && store::test_type_records(conn, &before.id).await? > 0;
                found.extend(partial.locked_fields(&before, recorded));
            }
        }
        let named = body.get(FIELD).and_then(reference_id);
        let flagged = |field: &str| errors.iter().chain(&found).any(|e| e.field == field);
        if let Some(id) = named.filter(|_| !flagged(FIELD))
            && store::type_reference(conn, &id).await?.is_none()
        {
            found.push(no_such(FIELD, "equipment type", &id));
        }
        Ok(found)
    }

    async fn before_delete(conn: &mut Conn, id: &str, _: &Caller) -> Result<()> {
        let records = store::test_type_records(conn, id).await?;
        if records > 0 {
            return Err(ApiError::conflict(
                "in_use",
                format!(
                    "{} of this type {} recorded; the type cannot be deleted.",
                    count(records as u64, "QC test", "QC tests"),
                    if records == 1 { "was" } else { "were" }
                ),
            ));
        }
        Ok(())
    }
}

catalogue::handler! {
    #[utoipa::path(
        get, path = "/api/typeOfTest", tag = "equipment types",
        params(
            ("typeOfEquipment" = Option<String>, Query, description = "Only the test types of this equipment type"),
            ("q" = Option<String>, Query),
            PageParams
        ),
        responses((status = 200, body = ListEnvelope<TestType>), (status = 401, body = ErrorBody))
    )]
    list_test_types = list::<TestType>
}

catalogue::handler! {
    #[utoipa::path(
        get, path = "/api/typeOfTest/{id}", tag = "equipment types",
        params(("id" = String, Path)),
        responses((status = 200, body = TestType))
    )]
    show_test_type = show::<TestType>
}

catalogue::handler! {
    #[utoipa::path(
        post, path = "/api/typeOfTest/register", tag = "equipment types",
        request_body(content = TestTypeInput, description = "`name`, `typeOfEquipment` and `expirationInDays` required: \
            `kind` (constancy, accuracy, precision, linearity, geometry, reproducibility, recorded) makes the registry compute \
            the records' verdict; `tolerances` default to the kind's (docs/qc.md)"),
        responses((status = 201, headers(("Location" = String, description = "The created record's path")), body = TestType), Forbidden, Conflict)
    )]
    register_test_type = register::<TestType>
}

catalogue::handler! {
    #[utoipa::path(
        post, path = "/api/typeOfTest/edit", tag = "equipment types",
        request_body(content = TestTypeInput, description = "`_id` required; \
            the equipment type and the kind cannot change once tests were recorded"),
        responses((status = 200, body = TestType), Forbidden, NotFound, Conflict)
    )]
    edit_test_type = edit::<TestType>
}

catalogue::handler! {
    #[utoipa::path(
        post, path = "/api/typeOfTest/exclude", tag = "equipment types",
        request_body = IdInput,
        responses(
            (status = 200, body = Message),
            (status = 403, description = "Administrator only", body = ErrorBody), NotFound,
            (status = 409, description = "`in_use`: tests were recorded", body = ErrorBody)
        )
    )]
    exclude_test_type = exclude::<TestType>
}
