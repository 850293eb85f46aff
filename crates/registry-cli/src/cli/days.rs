//! `--from` / `--to`, the day filters of the lists of dated records (`document list`, `test
//! history`): each read as a calendar day `YYYY-MM-DD` by the reader every date flag of the CLI
//! goes through (`registry_core::time::day`), so that a day that is not one (`2026-13-01`,
//! `2026-02-30`) is refused naming the flag, before anything is looked up, instead of reaching
//! the server and coming back named by the API's filter (`dateGte`).

use super::context::{Fail, invalid_value};
use clap::Args;
use registry_client::ListQuery;
use registry_core::{FieldCode, FieldError};

/// Why a value of `--from` / `--to` is refused: the words of the registry's other date fields.
const NOT_A_DAY: &str = "must be a date as YYYY-MM-DD";

#[derive(Debug, Args, Default)]
pub struct DayRange {
    /// Dated from this day on (YYYY-MM-DD), that day included.
    #[arg(long)]
    from: Option<String>,
    /// Dated before this day (YYYY-MM-DD), that day left out.
    #[arg(long)]
    to: Option<String>,
}

impl DayRange {
    /// The flags given, each with the API's filter it fills: `--from` → `dateGte`, `--to` →
    /// `dateLt`.
    fn given(&self) -> [(&'static str, &'static str, Option<&str>); 2] {
        [
            ("dateGte", "--from", self.from.as_deref()),
            ("dateLt", "--to", self.to.as_deref()),
        ]
    }

    /// `query` with the days given as the API's filters. A value that is not a calendar day is
    /// a validation error (exit 4) naming its flag and the value typed (``--from `2026-13-01`:
    /// must be a date as YYYY-MM-DD``), every refused one at once; the `-o json` envelope names
    /// the API's filter (`dateGte`, `dateLt`), as for the other filter flags
    /// ([`super::context::allowed_values`]).
    pub fn filters(&self, mut query: ListQuery) -> Result<ListQuery, Fail> {
        let mut api = Vec::new();
        let mut shown = Vec::new();
        for (filter, flag, value) in self.given() {
            let Some(value) = value else { continue };
            match registry_core::time::day(value.trim()) {
                Some(day) => query = query.filter(filter, day.to_string()),
                None => {
                    api.push(FieldError::new(filter, FieldCode::InvalidValue, NOT_A_DAY));
                    shown.push(invalid_value(flag, value, NOT_A_DAY.to_owned()));
                }
            }
        }
        if shown.is_empty() {
            Ok(query)
        } else {
            Err(Fail::Relabelled(Box::new(Fail::Invalid(api)), shown))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(from: Option<&str>, to: Option<&str>) -> DayRange {
        DayRange {
            from: from.map(str::to_owned),
            to: to.map(str::to_owned),
        }
    }

    #[test]
    fn calendar_days_become_the_api_filters() {
        let query = range(Some("2026-01-01"), Some(" 2026-02-28 "))
            .filters(ListQuery::default())
            .unwrap();
        let pairs = |p: &[(&str, &str)]| -> Vec<(String, String)> {
            p.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(
            query.filters,
            pairs(&[("dateGte", "2026-01-01"), ("dateLt", "2026-02-28")])
        );
    }

    #[test]
    fn every_day_that_is_not_one_is_named_by_its_flag() {
        for (from, to, refused) in [
            (Some("2026-13-01"), None, vec!["--from `2026-13-01`"]),
            (None, Some("2026-02-30"), vec!["--to `2026-02-30`"]),
            (
                Some("2026-1-5"),
                Some("amanhã"),
                vec!["--from `2026-1-5`", "--to `amanhã`"],
            ),
            (
                Some("2026-11-20T08:00:00Z"),
                None,
                vec!["--from `2026-11-20T08:00:00Z`"],
            ),
        ] {
            let Err(Fail::Relabelled(inner, shown)) = range(from, to).filters(ListQuery::default())
            else {
                panic!("{from:?} {to:?} accepted");
            };
            let named: Vec<&str> = shown.iter().map(|e| e.field.as_str()).collect();
            assert_eq!(named, refused);
            assert!(shown.iter().all(|e| e.message == NOT_A_DAY));
            assert_eq!(inner.exit_code(), 4);
            let envelope = inner.envelope();
            assert_eq!(envelope.code, "validation_failed");
            let fields: Vec<String> = envelope
                .errors
                .unwrap()
                .into_iter()
                .map(|e| e.field)
                .collect();
            assert!(fields.iter().all(|f| f == "dateGte" || f == "dateLt"));
        }
    }
}
