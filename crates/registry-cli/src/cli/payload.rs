//! The JSON bodies the commands send: the optional fields given as flags.

use serde::Serialize;
use serde_json::{Map, Value, json};

/// An object of the fields `fields`, in their order.
pub fn object<'a>(fields: impl IntoIterator<Item = (&'a str, Value)>) -> Map<String, Value> {
    fields.into_iter().map(|(k, v)| (k.into(), v)).collect()
}

/// Sets each field of `fields` that was given in `obj`; the absent ones stay unset.
pub fn insert_given<'a, T: Serialize>(
    obj: &mut Map<String, Value>,
    fields: impl IntoIterator<Item = (&'a str, Option<T>)>,
) {
    for (key, value) in fields {
        if let Some(v) = value {
            obj.insert(key.into(), json!(v));
        }
    }
}
