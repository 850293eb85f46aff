//! The API's field paths (`address[0].street`, `radioisotopes[1].quantity`, `roles[0]`) in the
//! terms of the flags that gave them (`--street`, ``--isotope `Xx(1)=1,5` ``, ``--role
//! `Fisico` ``), so that a refusal — the CLI's own check or the server's 422 — names what the
//! person typed. A field no flag gave (one of a `--from-file`) keeps its path.

use super::context::Fail;
use registry_client::ClientError;
use registry_core::{FieldCode, FieldError};

#[derive(Debug, Default)]
pub struct FlagTerms(Vec<(String, String)>);

impl FlagTerms {
    /// `path`, and every path under it (`path.x`, `path[0]`), was given by `label`.
    pub fn given(&mut self, path: impl Into<String>, label: impl Into<String>) -> &mut Self {
        self.0.push((path.into(), label.into()));
        self
    }

    /// The flags of `table` (`API_PATH --flag`, one pair a line) whose field `payload` holds:
    /// the payload made of the flags alone, so every field in it was given by its flag.
    pub fn given_in_table(&mut self, table: &str, payload: &serde_json::Value) -> &mut Self {
        for (path, flag) in table.lines().filter_map(|l| l.trim().split_once(' ')) {
            let pointer = format!("/{}", path.replace("[0].", "/0/"));
            if payload.pointer(&pointer).is_some_and(|v| !v.is_null()) {
                self.given(path, flag.trim());
            }
        }
        self
    }

    /// A repeated flag, one item each: `path[i]` → ``flag `value` ``.
    pub fn each<S: AsRef<str>>(
        &mut self,
        path: &str,
        flag: &str,
        values: impl IntoIterator<Item = S>,
    ) -> &mut Self {
        for (i, v) in values.into_iter().enumerate() {
            self.given(format!("{path}[{i}]"), format!("{flag} `{}`", v.as_ref()));
        }
        self
    }

    /// The label of `field` when a flag gave it (the path itself or one under it).
    pub fn label(&self, field: &str) -> Option<&str> {
        self.0.iter().find_map(|(path, label)| {
            let under = field
                .strip_prefix(path.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']));
            under.then_some(label.as_str())
        })
    }

    /// `errors` with the fields a flag gave named by the flag, in the field's place and where a
    /// message names one in backquotes (``must be after `date` ``).
    pub fn relabel(&self, errors: Vec<FieldError>) -> Vec<FieldError> {
        errors
            .into_iter()
            .map(|mut e| {
                if let Some(label) = self.label(&e.field) {
                    e.field = label.to_owned();
                }
                for (path, label) in &self.0 {
                    e.message = e.message.replace(&format!("`{path}`"), label);
                }
                e
            })
            .collect()
    }

    /// The refusal of values given (`errors`, exit 4) together with the required flags that
    /// are missing (`(API path, flag)`), so that one run without a terminal names both: printed
    /// in the flags' terms, the `-o json` envelope with the API's paths.
    pub fn refused_with_missing(&self, errors: Vec<FieldError>, missing: &[(&str, &str)]) -> Fail {
        const REQUIRED: &str = "is required (no prompt without a terminal or with --no-input)";
        let mut api = errors;
        let mut shown = self.relabel(api.clone());
        for (path, flag) in missing {
            api.push(FieldError::new(*path, FieldCode::Required, REQUIRED));
            shown.push(FieldError::new(*flag, FieldCode::Required, REQUIRED));
        }
        Fail::Relabelled(Box::new(Fail::Invalid(api)), shown)
    }

    /// `fail` in the flags' terms when a flag gave one of its fields (the CLI's own refusal, or
    /// the server's 422): printed with the flags, while its exit code and `-o json` envelope
    /// stay the failure's own, with the API's paths for scripts. Any other failure is returned
    /// as it is.
    pub fn apply(&self, fail: Fail) -> Fail {
        let errors = match &fail {
            Fail::Invalid(errors) => errors.clone(),
            Fail::Client(ClientError::Validation(body)) => body.errors.clone().unwrap_or_default(),
            _ => return fail,
        };
        if errors.iter().any(|e| self.label(&e.field).is_some()) {
            Fail::Relabelled(Box::new(fail), self.relabel(errors))
        } else {
            fail
        }
    }
}

/// The flags typed on a command line, `(arg id, long name)`, in terms of the API fields they
/// fill: a flag's field is its id in camelCase (`serial_number` → `serialNumber`), or the field
/// of the few flags named otherwise (`--type` of equipment → `typeOfEquipment`). For commands
/// without terms of their own, so that a refusal of a field a flag gave names the flag.
pub fn typed(flags: &[(String, String)]) -> FlagTerms {
    const RENAMED: &[(&str, &str)] = &[
        ("equipment_type", "typeOfEquipment"),
        ("test_type", "typeOfTest"),
        ("cnen_registry", "CNENregistry"),
    ];
    let mut terms = FlagTerms::default();
    for (id, long) in flags {
        let field = match RENAMED.iter().find(|(flag, _)| flag == id) {
            Some((_, field)) => (*field).to_owned(),
            None => camel_case(id),
        };
        terms.given(field, format!("--{long}"));
    }
    terms
}

/// `serial_number` → `serialNumber`.
fn camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.extend(c.to_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// The refusals of several flags gathered so that one run names them all (exit 4): each with
/// the API's field (the `-o json` envelope) and as shown (the flag that gave it).
#[derive(Debug, Default)]
pub struct Refusals {
    api: Vec<FieldError>,
    shown: Vec<FieldError>,
}

impl Refusals {
    /// A validation failure of one check ([`invalid_flag`], a relabelled refusal) joins the
    /// others; any other failure (a usage error) is returned, to stop the command at once.
    pub fn add(&mut self, fail: Fail) -> Result<(), Fail> {
        match fail {
            Fail::Invalid(api) => {
                self.shown.extend(api.iter().cloned());
                self.api.extend(api);
                Ok(())
            }
            Fail::Relabelled(inner, shown) => match *inner {
                Fail::Invalid(api) => {
                    self.api.extend(api);
                    self.shown.extend(shown);
                    Ok(())
                }
                other => Err(Fail::Relabelled(Box::new(other), shown)),
            },
            other => Err(other),
        }
    }

    /// A reader's refusals of `payload` (made of the flags given) that are about a field it
    /// holds — a field no flag gave is asked for later, or was refused already — shown in the
    /// flags' `terms`.
    pub fn add_given(
        &mut self,
        errors: Vec<FieldError>,
        payload: &serde_json::Map<String, serde_json::Value>,
        terms: &FlagTerms,
    ) {
        let errors: Vec<FieldError> = errors
            .into_iter()
            .filter(|e| payload.contains_key(e.field.split(['.', '[']).next().unwrap_or("")))
            .collect();
        self.shown.extend(terms.relabel(errors.clone()));
        self.api.extend(errors);
    }

    /// Whether `field` (an API path) was refused already.
    pub fn has(&self, field: &str) -> bool {
        self.api.iter().any(|e| e.field == field)
    }

    /// Ok when nothing was refused; else every refusal at once (exit 4).
    pub fn into_result(self) -> Result<(), Fail> {
        if self.api.is_empty() {
            Ok(())
        } else {
            Err(Fail::Relabelled(
                Box::new(Fail::Invalid(self.api)),
                self.shown,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use registry_core::FieldCode;

    #[test]
    fn paths_a_flag_gave_are_named_by_the_flag() {
        let mut terms = FlagTerms::default();
        let given = serde_json::json!({"cnpj": "1", "name": null, "address": [{"street": ""}]});
        terms
            .given_in_table(
                "cnpj --cnpj\n name --name\n address[0].street --street",
                &given,
            )
            .each("radioisotopes", "--isotope", ["Tc(99m)=1", "Xx(1)=1,5"]);
        let error = |field: &str| FieldError::new(field, FieldCode::InvalidValue, "no");
        let fields: Vec<String> = terms
            .relabel(vec![
                error("cnpj"),
                error("name"),
                error("address[0].street"),
                error("address[0].city"),
                error("radioisotopes[1].quantity"),
                error("radioisotopes[10].name"),
            ])
            .into_iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(
            fields,
            [
                "--cnpj",
                "name",
                "--street",
                "address[0].city",
                "--isotope `Xx(1)=1,5`",
                "radioisotopes[10].name"
            ]
        );
    }

    #[test]
    fn typed_flags_name_the_fields_they_fill() {
        let typed = |pairs: &[(&str, &str)]| {
            let flags: Vec<(String, String)> = pairs
                .iter()
                .map(|(id, long)| (id.to_string(), long.to_string()))
                .collect();
            typed(&flags)
        };
        let terms = typed(&[
            ("date", "date"),
            ("measurements", "measurements"),
            ("serial_number", "serial-number"),
            ("equipment_type", "type"),
        ]);
        assert_eq!(terms.label("date"), Some("--date"));
        assert_eq!(
            terms.label("measurements.values.integralUfov"),
            Some("--measurements")
        );
        assert_eq!(terms.label("serialNumber"), Some("--serial-number"));
        assert_eq!(terms.label("typeOfEquipment"), Some("--type"));
        assert_eq!(terms.label("conclusion"), None, "not typed");
        assert_eq!(terms.label("dateGte"), None);
    }
}
