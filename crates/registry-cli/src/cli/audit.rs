//! How a person reads an audit event (`facility history`): one line per field that changed,
//! `field: before → after`, from the event's before and after snapshots, and the main roles
//! that changed holder, by name. `-o json` keeps the events as the API gives them.

use super::output::{self, Column};
use registry_core::api::AuditEvent;
use serde_json::Value;

/// Fields every record carries that say nothing about what changed.
const BOOKKEEPING: &[&str] = &["_id", "version", "createdAt", "updatedAt"];

/// How an absent, null or empty value reads.
const NONE: &str = "(none)";

/// The most characters of one value in a line; a longer one is cut with `…`.
const VALUE_WIDTH: usize = 80;

/// The columns of a history table: when, what, who, the fields changed, the role holders changed.
pub const COLUMNS: &[Column<AuditEvent>] = &[
    ("at", |e| output::brasilia(&e.at)),
    ("action", |e| e.action.clone()),
    ("by", |e| {
        e.actor.as_ref().map(|a| a.name.clone()).unwrap_or_default()
    }),
    ("changes", |e| changed_fields(e).join("\n")),
    ("roleChanges", |e| role_changes(e).join("\n")),
];

/// On a narrow terminal, what changed is kept before who changed it: it is what a history is
/// read for.
pub const RANK: &[&str] = &["at", "changes", "action", "roleChanges"];

/// One line per field `e` changed, `path: before → after` (`address[0].city: Recife → Olinda`;
/// a linked record such as a facility's user, `users: (none) → Ana Souza (Titular)`); for a new
/// record, `path: value` of each field it was given; nothing for an archive.
pub fn changed_fields(e: &AuditEvent) -> Vec<String> {
    let mut lines = Vec::new();
    match (&e.before, &e.after) {
        (Some(before), Some(after)) => diff("", before, after, &mut lines),
        (None, Some(Value::Object(created))) => {
            for (key, value) in created {
                if !BOOKKEEPING.contains(&key.as_str()) && compact(value) != NONE {
                    lines.push(format!("{key}: {}", compact(value)));
                }
            }
        }
        _ => {}
    }
    lines
}

/// The main roles whose holder changed: `Responsável Técnico: Ana Souza → Bruno Lima`, each user
/// named as the event's snapshots name them.
pub fn role_changes(e: &AuditEvent) -> Vec<String> {
    let name = |id: &Option<String>| -> String {
        let Some(id) = id else {
            return NONE.to_owned();
        };
        [&e.before, &e.after]
            .into_iter()
            .flatten()
            .filter_map(|snapshot| snapshot["users"].as_array())
            .flatten()
            .find(|u| u["_id"] == id.as_str())
            .and_then(|u| u["name"].as_str())
            .unwrap_or(id)
            .to_owned()
    };
    e.role_changes
        .iter()
        .map(|c| format!("{}: {} → {}", c.role.as_str(), name(&c.from), name(&c.to)))
        .collect()
}

/// A record of another kind inside the one the event is about: named (a group, a radioisotope) or linked by
/// `_id` (a facility's user). It reads as one value, not field by field.
fn is_whole(v: &Value) -> bool {
    v.get("name").is_some() || v.get("_id").is_some()
}

/// Adds to `out` a line for each field under `path` that differs between `before` and `after`.
fn diff(path: &str, before: &Value, after: &Value, out: &mut Vec<String>) {
    if before == after {
        return;
    }
    let line = |b: &Value, a: &Value| format!("{path}: {} → {}", compact(b), compact(a));
    match (before, after) {
        (Value::Object(b), Value::Object(a))
            if path.is_empty() || !(is_whole(before) || is_whole(after)) =>
        {
            let new_keys = a.keys().filter(|k| !b.contains_key(*k));
            for key in b.keys().chain(new_keys) {
                if BOOKKEEPING.contains(&key.as_str()) {
                    continue;
                }
                let field = match path {
                    "" => key.clone(),
                    _ => format!("{path}.{key}"),
                };
                let (b, a) = (&b.get(key), &a.get(key));
                diff(
                    &field,
                    b.unwrap_or(&Value::Null),
                    a.unwrap_or(&Value::Null),
                    out,
                );
            }
        }
        (Value::Array(b), Value::Array(a)) if b.iter().chain(a).all(|v| v.get("_id").is_some()) => {
            // Records linked by `_id`: a line for each one that came, went or changed.
            fn find<'a>(list: &'a [Value], id: &Value) -> Option<&'a Value> {
                list.iter().find(|v| v["_id"] == *id)
            }
            let ids = b.iter().chain(a).map(|v| &v["_id"]);
            let mut seen = Vec::new();
            for id in ids {
                if seen.contains(&id) {
                    continue;
                }
                seen.push(id);
                let (old, new) = (find(b, id), find(a, id));
                if old != new {
                    out.push(line(
                        old.unwrap_or(&Value::Null),
                        new.unwrap_or(&Value::Null),
                    ));
                }
            }
        }
        (Value::Array(b), Value::Array(a))
            if b.iter().chain(a).all(|v| v.is_object() && !is_whole(v)) =>
        {
            // Place by place (addresses): a line for each that changed, came or went.
            for i in 0..b.len().max(a.len()) {
                let at = |list: &Vec<Value>| list.get(i).cloned().unwrap_or(Value::Null);
                diff(&format!("{path}[{i}]"), &at(b), &at(a), out);
            }
        }
        _ => out.push(line(before, after)),
    }
}

/// A value in a line: text as it is (on one line), a list joined with commas, a named record by
/// its name (`Tc(99m)=1500`, a user with their responsibilities), another object as
/// `key=value; …`; `(none)` when absent or empty; cut at [`VALUE_WIDTH`] characters.
fn compact(v: &Value) -> String {
    let text = match v {
        Value::Null => NONE.to_owned(),
        Value::String(s) => s.split_whitespace().collect::<Vec<_>>().join(" "),
        Value::Array(items) => items.iter().map(compact).collect::<Vec<_>>().join(", "),
        Value::Object(o) => match (o.get("name"), o.get("quantity"), o.get("responsabilities")) {
            (Some(name), Some(q), _) => format!("{}={}", compact(name), compact(q)),
            (Some(name), _, Some(roles)) => match compact(roles).as_str() {
                NONE => format!("{} (no responsibility)", compact(name)),
                roles => format!("{} ({roles})", compact(name)),
            },
            (Some(name), _, _) => compact(name),
            _ => o
                .iter()
                .filter(|(k, v)| !BOOKKEEPING.contains(&k.as_str()) && compact(v) != NONE)
                .map(|(k, v)| format!("{k}={}", compact(v)))
                .collect::<Vec<_>>()
                .join("; "),
        },
        // 1500.0 mCi reads as 1500.
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
            _ => n.to_string(),
        },
        other => other.to_string(),
    };
    if text.is_empty() {
        NONE.to_owned()
    } else if text.chars().count() > VALUE_WIDTH {
        let cut: String = text.chars().take(VALUE_WIDTH - 1).collect();
        format!("{cut}…")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(before: Option<Value>, after: Option<Value>) -> AuditEvent {
        serde_json::from_value(json!({
            "_id": "e", "entity": "facility", "entityId": "f", "action": "edit", "actor": null,
            "at": "t", "createdAt": "t", "updatedAt": "t", "before": before, "after": after,
        }))
        .expect("an event")
    }

    #[test]
    fn an_edit_reads_as_one_line_per_changed_field() {
        let ana = json!({"_id": "u1", "name": "Ana", "responsabilities": ["Titular"]});
        let before = json!({
            "_id": "f", "version": 1, "updatedAt": "a", "name": "Clínica", "CNENregistry": null,
            "group": null, "practices": ["Diagnóstico"],
            "address": [{"street": "Rua A", "city": "Recife", "state": "PE"}],
            "radioisotopes": [{"name": "Tc(99m)", "quantity": 1500.0}], "users": [ana],
        });
        let after = json!({
            "_id": "f", "version": 2, "updatedAt": "b", "name": "Clínica", "CNENregistry": "X-1",
            "group": {"_id": "g", "name": "Rede Sul"}, "practices": [],
            "address": [{"street": "Rua A", "city": "Olinda", "state": "PE"}],
            "radioisotopes": [{"name": "Tc(99m)", "quantity": 1200.5}],
            "users": [{"_id": "u1", "name": "Ana", "responsabilities": []},
                      {"_id": "u2", "name": "Bruno", "responsabilities": ["Titular"]}],
        });
        assert_eq!(
            changed_fields(&event(Some(before), Some(after))),
            [
                "CNENregistry: (none) → X-1",
                "address[0].city: Recife → Olinda",
                "group: (none) → Rede Sul",
                "practices: Diagnóstico → (none)",
                "radioisotopes: Tc(99m)=1500 → Tc(99m)=1200.5",
                "users: Ana (Titular) → Ana (no responsibility)",
                "users: (none) → Bruno (Titular)",
            ]
        );
    }

    #[test]
    fn a_narrow_terminal_keeps_what_changed() {
        let mut e = event(
            Some(json!({"city": "Recife"})),
            Some(json!({"city": "Olinda"})),
        );
        e.at = "2026-11-29T12:00:00Z".into();
        e.actor = Some(registry_core::api::Actor {
            id: "u".into(),
            name: "Administrator Principal".into(),
        });
        let text = crate::cli::output::table_at(60, &[e], COLUMNS, RANK);
        assert!(
            text.contains("changes") && text.contains("city: Recife"),
            "{text}"
        );
    }

    #[test]
    fn an_address_that_came_or_went_has_a_line() {
        let one = json!({"street": "Rua A", "city": "Recife", "state": "PE"});
        let two = json!({"street": "Rua B", "city": "Olinda", "state": "PE"});
        let before = json!({"address": [one.clone(), two]});
        let after = json!({"address": [{"street": "Rua A", "city": "Paulista", "state": "PE"}]});
        assert_eq!(
            changed_fields(&event(Some(before.clone()), Some(after.clone()))),
            [
                "address[0].city: Recife → Paulista",
                "address[1]: city=Olinda; state=PE; street=Rua B → (none)",
            ]
        );
        assert_eq!(
            changed_fields(&event(Some(after), Some(before)))[1],
            "address[1]: (none) → city=Olinda; state=PE; street=Rua B"
        );
    }

    #[test]
    fn a_creation_lists_what_was_given_and_an_archive_nothing() {
        let record = json!({"_id": "f", "version": 1, "name": "Clínica", "CNENregistry": null,
                            "notes": "linha 1\nlinha 2", "attributes": {"detectors": 2}});
        assert_eq!(
            changed_fields(&event(None, Some(record.clone()))),
            [
                "attributes: detectors=2",
                "name: Clínica",
                "notes: linha 1 linha 2"
            ]
        );
        assert!(changed_fields(&event(Some(record), None)).is_empty());
        let long = "x".repeat(200);
        assert_eq!(compact(&json!(long)).chars().count(), VALUE_WIDTH);
    }

    #[test]
    fn role_changes_name_the_holders() {
        let mut e = event(
            Some(json!({"users": [{"_id": "u1", "name": "Ana"}]})),
            Some(json!({"users": [{"_id": "u2", "name": "Bruno"}]})),
        );
        e.role_changes = serde_json::from_value(json!([
            {"role": "Responsável Técnico", "from": "u1", "to": "u2"},
            {"role": "Titular", "from": null, "to": "u9"},
        ]))
        .unwrap();
        assert_eq!(
            role_changes(&e),
            ["Responsável Técnico: Ana → Bruno", "Titular: (none) → u9"]
        );
    }
}
