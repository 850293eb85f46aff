//! User payloads (register and edit) and who may create, edit or grant roles to whom.

use crate::api::User;
use crate::error::{FieldCode, FieldError, FieldErrors};
use crate::payload::{ObjectReader, update};
use crate::qc::read::MIN_YEAR;
use crate::values::{Cpf, Email, Role, Telephone, password_problem};
use chrono::Datelike;
use serde_json::Value;

/// Licence data of a user (two kinds: AN and FM). Validity dates are `YYYY-MM-DD`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LicenceChanges {
    pub an_number: Option<Option<String>>,
    pub an_validity: Option<Option<String>>,
    pub fm_number: Option<Option<String>>,
    pub fm_validity: Option<Option<String>>,
}

/// A validated user payload. On register, name, email and password are `Some`.
#[derive(Debug, Clone, Default)]
pub struct UserChanges {
    pub name: Option<String>,
    pub email: Option<Email>,
    pub password: Option<String>,
    /// `Some(None)` clears it.
    pub telephone: Option<Option<Telephone>>,
    pub cpf: Option<Option<Cpf>>,
    pub roles: Option<Vec<Role>>,
    pub active: Option<bool>,
    pub licences: LicenceChanges,
}

/// An edit that gives or takes away roles its editor may not grant ([`may_grant`]).
#[derive(Debug, PartialEq, Eq)]
pub struct RolesNotGrantable;

impl UserChanges {
    /// `before` with the fields present replaced (the password aside: the handler hashes it). An
    /// empty role list means `Cliente`; a change of roles needs an `editor` who may grant every
    /// role given and every role taken away.
    pub fn apply_to(self, before: &User, editor: &[Role]) -> Result<User, RolesNotGrantable> {
        let mut user = before.clone();
        if let Some(roles) = self.roles {
            let roles = or_client(roles);
            if !may_change_roles(editor, &user.roles, &roles) {
                return Err(RolesNotGrantable);
            }
            user.roles = roles;
        }
        update(&mut user.active, self.active);
        update(&mut user.name, self.name);
        update(&mut user.email, self.email.map(|e| e.as_str().to_owned()));
        let telephone = self.telephone.map(|t| t.map(|t| t.as_str().to_owned()));
        update(&mut user.telephone, telephone);
        update(
            &mut user.cpf,
            self.cpf.map(|c| c.map(|c| c.as_str().to_owned())),
        );
        let l = self.licences;
        for (change, slot) in [
            (l.an_number, &mut user.licences.an_number),
            (l.an_validity, &mut user.licences.an_validity),
            (l.fm_number, &mut user.licences.fm_number),
            (l.fm_validity, &mut user.licences.fm_validity),
        ] {
            update(slot, change);
        }
        Ok(user)
    }
}

pub fn read_user(body: &Value, register: bool) -> Result<UserChanges, Vec<FieldError>> {
    let r = ObjectReader::body(body)?;
    let mut errs = FieldErrors::default();
    let string = |key: &str, errs: &mut FieldErrors| r.string_required_if(register, key, errs);
    let mut out = UserChanges {
        name: string("name", &mut errs),
        ..Default::default()
    };
    out.email = string("email", &mut errs).and_then(|raw| {
        errs.check(
            Email::parse(&raw),
            "email",
            FieldCode::InvalidEmail,
            "is not a valid e-mail address",
        )
    });
    if register {
        out.password = match r.get("password") {
            Some(Value::String(p)) => match password_problem(p) {
                Some(problem) => {
                    errs.push("password", FieldCode::WeakPassword, problem);
                    None
                }
                None => Some(p.clone()),
            },
            None | Some(Value::Null) => {
                errs.push("password", FieldCode::Required, "is required");
                None
            }
            Some(_) => {
                errs.push("password", FieldCode::InvalidValue, "must be a string");
                None
            }
        };
    } else if r.get("password").is_some_and(|p| !p.is_null()) {
        // Refused rather than ignored: a 200 would look like a password set.
        errs.push(
            "password",
            FieldCode::InvalidValue,
            "cannot be changed by an edit: use POST /changePassword/ ({_id, newPassword} for another user)",
        );
    }
    out.telephone = clearable_parsed(
        &r,
        "telephone",
        &mut errs,
        Telephone::parse,
        FieldCode::InvalidTelephone,
        "must include the area code, e.g. (11) 98765-4321",
    );
    out.cpf = clearable_parsed(
        &r,
        "cpf",
        &mut errs,
        Cpf::parse,
        FieldCode::InvalidValue,
        "is not a valid CPF",
    );
    out.roles = r.array_if_present("roles", &mut errs).map(|items| {
        let mut roles = Vec::new();
        for (i, v) in items.iter().enumerate() {
            match v.as_str().and_then(Role::parse) {
                Some(role) if !roles.contains(&role) => roles.push(role),
                Some(_) => {}
                None => errs.push(
                    format!("roles[{i}]"),
                    FieldCode::InvalidValue,
                    format!("must be one of: {}", Role::allowed()),
                ),
            }
        }
        // One side or the other: a token's `type` (and the web client) takes one role, and a
        // staff member sees every facility anyway.
        if roles.contains(&Role::Client) && roles.iter().any(|r| r.is_staff()) {
            errs.push(
                "roles",
                FieldCode::InvalidValue,
                "Cliente (facility side) cannot be combined with the staff roles",
            );
        }
        roles
    });
    out.active = r.bool_if_present("active", &mut errs);
    let date = |key: &str, errs: &mut FieldErrors| {
        let day = |s: &str| {
            crate::time::day(s)
                .filter(|d| d.year() >= MIN_YEAR)
                .map(|_| s.to_string())
        };
        let message = "must be a date YYYY-MM-DD, in the year 1900 or later";
        clearable_parsed(&r, key, errs, day, FieldCode::InvalidValue, message)
    };
    out.licences = LicenceChanges {
        an_number: r.clearable_string("ANLicenseNumber", &mut errs),
        an_validity: date("ANLicenseValidity", &mut errs),
        fm_number: r.clearable_string("FMLicenseNumber", &mut errs),
        fm_validity: date("FMLicenseValidity", &mut errs),
    };
    errs.finish(out)
}

/// A clearable string that must also parse: absent → `None` (unchanged), null or blank →
/// `Some(None)` (cleared); a value `parse` refuses is reported under `key` and gives `Some(None)`.
fn clearable_parsed<T>(
    r: &ObjectReader,
    key: &str,
    errs: &mut FieldErrors,
    parse: impl FnOnce(&str) -> Option<T>,
    code: FieldCode,
    message: &str,
) -> Option<Option<T>> {
    let raw = r.clearable_string(key, errs)?;
    Some(raw.and_then(|raw| errs.check(parse(&raw), key, code, message)))
}

/// An empty role list means `Cliente`.
fn or_client(roles: Vec<Role>) -> Vec<Role> {
    if roles.is_empty() {
        vec![Role::Client]
    } else {
        roles
    }
}

/// Whether `editor` may turn a user's roles `before` into `after`: no change, or every role
/// given and every role taken away is one `editor` may grant.
fn may_change_roles(editor: &[Role], before: &[Role], after: &[Role]) -> bool {
    after == before || after.iter().chain(before).all(|r| may_grant(editor, *r))
}

/// The roles a payload asks for: the known role names of its `roles` list (an empty or absent
/// list: `Cliente`; items that are no role name are [`read_user`]'s to report); `None` when the
/// field is not a list.
/// Read before the other fields, so that asking for a role the caller may not grant is a 403
/// whatever else is wrong (the check order: permission before validation).
pub fn requested_roles(body: &Value) -> Option<Vec<Role>> {
    let roles = match body.get("roles") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            let mut roles = Vec::new();
            for role in items
                .iter()
                .filter_map(|item| item.as_str().and_then(Role::parse))
            {
                if !roles.contains(&role) {
                    roles.push(role);
                }
            }
            // Nothing but items that are no role name asks for nothing to judge.
            if roles.is_empty() && !items.is_empty() {
                return None;
            }
            roles
        }
        Some(_) => return None,
    };
    Some(or_client(roles))
}

/// Whether `editor` may create a user with `roles` ([`requested_roles`]); without an editor (a
/// self-registration) only `Cliente`.
pub fn may_create_with(editor: Option<&[Role]>, roles: &[Role]) -> bool {
    match editor {
        None => roles == [Role::Client],
        Some(editor) => roles.iter().all(|r| may_grant(editor, *r)),
    }
}

/// Whether `editor` may set the roles a payload asks for ([`requested_roles`]) on a user holding
/// `before`; `true` when the payload asks for none or its `roles` is not a list (then
/// [`read_user`] reports it).
pub fn may_set_requested_roles(editor: &[Role], before: &[Role], body: &Value) -> bool {
    match body.get("roles") {
        None | Some(Value::Null) => true,
        _ => requested_roles(body).is_none_or(|after| may_change_roles(editor, before, &after)),
    }
}

/// Roles a caller may give to a user they create or edit (product.md §3): an Administrator any
/// role; the other staff roles only `Cliente`; a `Cliente` none.
pub fn may_grant(caller: &[Role], role: Role) -> bool {
    if caller.contains(&Role::Administrator) {
        true
    } else {
        role == Role::Client && caller.iter().any(|r| r.is_staff())
    }
}

/// Whether a caller may edit or deactivate a user holding `target_roles` (themself aside).
pub fn may_manage(caller: &[Role], target_roles: &[Role]) -> bool {
    target_roles.iter().all(|&r| may_grant(caller, r)) && caller.iter().any(|r| r.is_staff())
}

pub fn is_staff(roles: &[Role]) -> bool {
    roles.iter().any(|r| r.is_staff())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::assert_codes;
    use serde_json::json;

    #[test]
    fn register_requires_name_email_password_and_reports_all() {
        assert_codes(
            read_user(
                &json!({"email": "bad", "password": "short", "cpf": "123", "roles": ["Chefe"], "ANLicenseValidity": "31/12/2026"}),
                true,
            ),
            &[
                ("name", FieldCode::Required),
                ("email", FieldCode::InvalidEmail),
                ("password", FieldCode::WeakPassword),
                ("cpf", FieldCode::InvalidValue),
                ("roles[0]", FieldCode::InvalidValue),
                ("ANLicenseValidity", FieldCode::InvalidValue),
            ],
        );
    }

    #[test]
    fn register_reads_a_full_user() {
        let u = read_user(
            &json!({"name": "Ana", "email": "Ana@X.com", "password": "12345678", "roles": ["Físico"], "telephone": "(11) 3333-4444", "ANLicenseNumber": "AN-1", "ANLicenseValidity": "2027-01-31"}),
            true,
        )
        .unwrap();
        assert_eq!(u.email.unwrap().as_str(), "ana@x.com");
        assert_eq!(u.roles, Some(vec![Role::Physicist]));
        assert_eq!(u.licences.an_validity, Some(Some("2027-01-31".into())));
    }

    #[test]
    fn licence_validities_are_written_yyyy_mm_dd() {
        // Days before 1900, as the other dates of the registry, are typing mistakes.
        for day in [
            "2027-1-5",
            "27-01-31",
            "2027-01-5",
            "+2027-01-05",
            "0000-01-01",
            "1899-12-31",
        ] {
            assert_codes(
                read_user(&json!({"FMLicenseValidity": day}), false),
                &[("FMLicenseValidity", FieldCode::InvalidValue)],
            );
        }
        assert!(read_user(&json!({"FMLicenseValidity": "1900-01-01"}), false).is_ok());
    }

    #[test]
    fn requested_roles_are_judged_before_the_other_fields() {
        let asks = |body| requested_roles(&body);
        assert_eq!(asks(json!({})), Some(vec![Role::Client]));
        assert_eq!(asks(json!({"roles": []})), Some(vec![Role::Client]));
        assert_eq!(
            asks(json!({"roles": ["Cliente", "Administrator", "Cliente"], "email": 5})),
            Some(vec![Role::Client, Role::Administrator])
        );
        assert_eq!(asks(json!({"roles": ["Chefe"]})), None);
        assert_eq!(
            asks(json!({"roles": ["Físico", 5]})),
            Some(vec![Role::Physicist])
        );
        assert_eq!(asks(json!({"roles": "Administrator"})), None);
        assert!(!may_create_with(None, &[Role::Client, Role::Administrator]));
        assert!(may_create_with(None, &[Role::Client]));
        assert!(!may_create_with(
            Some(&[Role::Physicist]),
            &[Role::Physicist]
        ));
        let fisico = [Role::Physicist];
        let body = json!({"roles": ["Físico"], "email": "bad"});
        assert!(!may_set_requested_roles(&fisico, &[Role::Client], &body));
        assert!(may_set_requested_roles(
            &fisico,
            &[Role::Client],
            &json!({"roles": ["Cliente"]})
        ));
        assert!(may_set_requested_roles(
            &fisico,
            &[Role::Client],
            &json!({"roles": [5]})
        ));
        assert!(may_set_requested_roles(
            &fisico,
            &[Role::Client],
            &json!({"name": "X"})
        ));
        let mixed = json!({"roles": ["Físico", 5]});
        assert!(!may_set_requested_roles(&fisico, &[Role::Client], &mixed));
    }

    #[test]
    fn edit_leaves_absent_fields_alone() {
        let u = read_user(&json!({"telephone": null}), false).unwrap();
        assert!(u.name.is_none() && u.email.is_none() && u.roles.is_none());
        assert_eq!(u.telephone, Some(None));
        // A password is never set by an edit: refused, not ignored.
        assert_codes(
            read_user(&json!({"password": "new-password-1", "name": ""}), false),
            &[
                ("name", FieldCode::Required),
                ("password", FieldCode::InvalidValue),
            ],
        );
        assert!(read_user(&json!({"password": null}), false).is_ok());
    }

    fn physicist() -> User {
        User {
            id: "u".into(),
            name: "Ana".into(),
            email: "ana@example.com".into(),
            telephone: Some("+55 11 99999-0000".into()),
            cpf: None,
            roles: vec![Role::Physicist],
            active: true,
            licences: Default::default(),
            created_at: "t".into(),
            updated_at: "t".into(),
        }
    }

    #[test]
    fn an_edit_replaces_what_it_carries_and_roles_only_when_grantable() {
        use Role::*;
        let before = physicist();
        let edit = |body| read_user(&body, false).unwrap();
        let after = edit(
            json!({"name": "Ana Maria", "telephone": null, "ANLicenseNumber": "AN-1",
                                "email": "ANA.M@example.com", "active": false}),
        )
        .apply_to(&before, &[Client])
        .unwrap();
        assert_eq!(
            (after.name.as_str(), after.email.as_str()),
            ("Ana Maria", "ana.m@example.com")
        );
        assert_eq!((after.telephone, after.active), (None, false));
        assert_eq!(after.licences.an_number.as_deref(), Some("AN-1"));
        assert_eq!((after.roles, after.cpf), (before.roles.clone(), None));
        assert_eq!(edit(json!({})).apply_to(&before, &[]).unwrap(), before);
        // The same roles sent back need no grant; new ones do, taken away ones too.
        let same = edit(json!({"roles": ["Físico"]}));
        assert!(same.apply_to(&before, &[Admin]).is_ok());
        let to_client = edit(json!({"roles": []}));
        assert_eq!(
            to_client.clone().apply_to(&before, &[Admin]),
            Err(RolesNotGrantable),
            "an Admin may not take Físico away"
        );
        let cleared = to_client.apply_to(&before, &[Administrator]).unwrap();
        assert_eq!(cleared.roles, [Client], "no roles means Cliente");
    }

    #[test]
    fn grant_rules_follow_the_permission_table() {
        use Role::*;
        assert!(may_grant(&[Administrator], Admin));
        assert!(may_grant(&[Admin], Client));
        assert!(!may_grant(&[Admin], Physicist));
        assert!(!may_grant(&[Reports], Administrator));
        assert!(!may_grant(&[Client], Client));
        assert!(may_manage(&[Physicist], &[Client]));
        assert!(!may_manage(&[Physicist], &[Client, Reports]));
        assert!(!may_manage(&[Client], &[Client]));
    }
}
