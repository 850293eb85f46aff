//! The equipment fields of `create` and `edit` as flags, and as a payload.

use crate::cli::context::Fail;
use clap::Args;
use serde_json::{Map, Value, json};

/// The equipment fields as flags; their help says what they do on `create`, and `edit` adds
/// what they do there ("" clears a text field).
#[derive(Debug, Args, Default)]
pub struct EquipmentFields {
    /// Manufacturer, e.g. Siemens.
    #[arg(long)]
    manufacturer: Option<String>,
    /// Model, e.g. Symbia.
    #[arg(long)]
    model: Option<String>,
    /// Serial number.
    #[arg(long)]
    serial_number: Option<String>,
    /// Patrimonial (asset) number.
    #[arg(long)]
    patrimonial_number: Option<String>,
    /// Where it stands, e.g. "Sala 2".
    #[arg(long)]
    localization: Option<String>,
    /// Type-specific data as KEY=VALUE (repeat); VALUE is read as JSON when it reads back as
    /// written (2, 2.5, true), else as text (2.0.1, 1e3, LEHR).
    #[arg(long = "attribute", value_parser = parse_attribute)]
    attributes: Vec<(String, Value)>,
    /// Type-specific data as one JSON object (merged under the --attribute flags).
    #[arg(long)]
    attributes_json: Option<String>,
}

fn parse_attribute(s: &str) -> Result<(String, Value), String> {
    let (key, value) = s
        .split_once('=')
        .ok_or("must be KEY=VALUE, e.g. detectors=2")?;
    let key = key.trim();
    if key.is_empty() {
        return Err("the KEY of KEY=VALUE is empty".into());
    }
    // As JSON only when nothing typed is lost: `1e3` stays the text `1e3`, not 1000.
    let value = serde_json::from_str::<Value>(value)
        .ok()
        .filter(|v| serde_json::to_string(v).is_ok_and(|written| written == value))
        .unwrap_or_else(|| json!(value));
    Ok((key.to_owned(), value))
}

/// Puts each given text into `obj` under its key: "" is left out, or sent as null with
/// `clear_empty` (edit). The text fields of QC test records go in the same way.
pub fn put_texts<'a>(
    obj: &mut Map<String, Value>,
    texts: impl IntoIterator<Item = (&'a str, &'a Option<String>)>,
    clear_empty: bool,
) {
    for (key, value) in texts {
        match value {
            Some(v) if v.is_empty() && clear_empty => {
                obj.insert(key.into(), Value::Null);
            }
            Some(v) if !v.is_empty() => {
                obj.insert(key.into(), json!(v));
            }
            _ => {}
        }
    }
}

impl EquipmentFields {
    /// Whether the attributes are given by `--attribute` flags alone: an edit merges them into
    /// the stored ones.
    pub fn merges_attributes(&self) -> bool {
        self.attributes_json.is_none() && !self.attributes.is_empty()
    }

    /// The payload of the fields given; `clear_empty` turns "" into null (edit), and removes
    /// an attribute given as `KEY=`. The `--attribute` flags go over `--attributes-json`, else
    /// over `stored` (an edit's stored attributes).
    pub fn payload(
        &self,
        clear_empty: bool,
        stored: Option<&Value>,
    ) -> Result<Map<String, Value>, Fail> {
        let mut obj = Map::new();
        put_texts(
            &mut obj,
            [
                ("manufacturer", &self.manufacturer),
                ("model", &self.model),
                ("serialNumber", &self.serial_number),
                ("patrimonialNumber", &self.patrimonial_number),
                ("localization", &self.localization),
            ],
            clear_empty,
        );
        let mut attributes = match &self.attributes_json {
            Some(text) => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(o)) => o,
                _ => {
                    return Err(Fail::Usage(
                        "--attributes-json must be one JSON object, e.g. '{\"detectors\": 2}'"
                            .into(),
                    ));
                }
            },
            None => stored
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        };
        for (k, v) in &self.attributes {
            if clear_empty && v.as_str() == Some("") {
                attributes.remove(k);
            } else {
                attributes.insert(k.clone(), v.clone());
            }
        }
        if self.attributes_json.is_some() || !self.attributes.is_empty() {
            obj.insert("attributes".into(), Value::Object(attributes));
        }
        Ok(obj)
    }
}
