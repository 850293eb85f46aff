//! Who may run a command (product.md §3, permissions), for the hint after a 403: `group delete`
//! needs the Administrator role (you are Físico).

const STAFF: &str = "a staff role (Administrator, Admin, Físico or Laudos)";

/// The roles that may run `command` (`group delete`), where the permissions table says.
pub fn needed(command: &str) -> Option<&'static str> {
    Some(match command {
        "group delete" => "the Administrator role",
        "document sign" | "document return" => "the Administrator or Físico role",
        "document release" => "the Administrator, Admin or Físico role",
        "facility create"
        | "facility edit"
        | "facility archive"
        | "facility assign"
        | "facility unassign"
        | "facility import"
        | "group create"
        | "group edit"
        | "equipment create"
        | "equipment edit"
        | "equipment archive"
        | "test record"
        | "test edit"
        | "test delete"
        | "document upload"
        | "document submit"
        | "document archive"
        | "document schedule-email"
        | "user list"
        | "user deactivate" => STAFF,
        _ => return None,
    })
}

/// The hint after a 403 of `command`: the roles it needs, and the caller's (`roles`, from the
/// token), when known.
pub fn hint(command: &str, roles: Option<Vec<String>>) -> Option<String> {
    let needed = needed(command)?;
    let yours = match roles {
        Some(r) if !r.is_empty() => format!(" (you are {})", r.join(", ")),
        _ => String::new(),
    };
    Some(format!("`{command}` needs {needed}{yours}"))
}

#[cfg(test)]
mod tests {
    use super::hint;

    #[test]
    fn a_refusal_says_which_roles_may() {
        assert_eq!(
            hint("group delete", Some(vec!["Físico".into()])).as_deref(),
            Some("`group delete` needs the Administrator role (you are Físico)")
        );
        assert!(hint("facility create", None).unwrap().contains("Laudos"));
        assert_eq!(hint("material list", None), None);
    }
}
