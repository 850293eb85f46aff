//! Groups of facilities: reading a create or edit payload, and applying an edit.

use crate::api::Group;
use crate::error::{FieldError, FieldErrors};
use crate::payload::{ObjectReader, update};
use serde_json::Value;

/// A validated group payload. On create `name` is `Some`; on edit an absent key is `None` and
/// leaves the stored value unchanged, and `Some(None)` clears the description.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupChanges {
    pub name: Option<String>,
    pub description: Option<Option<String>>,
}

/// Reads `{name, description}`; on edit both are optional.
pub fn read_group(body: &Value, create: bool) -> Result<GroupChanges, Vec<FieldError>> {
    let r = ObjectReader::body(body)?;
    let mut errs = FieldErrors::default();
    let name = r.string_required_if(create, "name", &mut errs);
    let description = r.clearable_string("description", &mut errs);
    errs.finish(GroupChanges { name, description })
}

impl GroupChanges {
    /// `group` with the changes applied (its times unchanged).
    pub fn apply_to(self, group: &Group) -> Group {
        let mut out = group.clone();
        update(&mut out.name, self.name);
        update(&mut out.description, self.description);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::FieldCode;
    use crate::error::assert_codes;
    use serde_json::json;

    fn group() -> Group {
        Group {
            id: "g".into(),
            name: "Rede Sul".into(),
            description: Some("Clínicas do Sul".into()),
            facilities: None,
            created_at: "2026-11-01T10:00:00.000000Z".into(),
            updated_at: "2026-11-01T10:00:00.000000Z".into(),
        }
    }

    #[test]
    fn create_needs_a_name_and_the_description_is_optional() {
        let read = read_group(&json!({"name": " Rede Sul "}), true).unwrap();
        assert_eq!(read.name.as_deref(), Some("Rede Sul"));
        assert_eq!(read.description, None);
        assert_codes(
            read_group(&json!({"description": "x"}), true),
            &[("name", FieldCode::Required)],
        );
        assert_codes(
            read_group(&json!([]), true),
            &[("", FieldCode::InvalidValue)],
        );
    }

    #[test]
    fn edit_keeps_absent_fields_and_clears_a_null_description() {
        assert_eq!(
            read_group(&json!({}), false).unwrap(),
            GroupChanges::default()
        );
        assert_codes(
            read_group(&json!({"name": ""}), false),
            &[("name", FieldCode::Required)],
        );
        let keep = read_group(&json!({"description": "Nova"}), false).unwrap();
        let edited = keep.apply_to(&group());
        assert_eq!(edited.name, "Rede Sul");
        assert_eq!(edited.description.as_deref(), Some("Nova"));
        let clear = read_group(&json!({"name": "Rede", "description": null}), false).unwrap();
        let edited = clear.apply_to(&group());
        assert_eq!((edited.name.as_str(), edited.description), ("Rede", None));
        assert_eq!(GroupChanges::default().apply_to(&group()), group());
    }
}
