//! Flags of the material and waste commands: ISO weeks and isotopes typed either way.

use crate::cli::context::Fail;
use registry_core::Radioisotope;
use registry_core::material::{IsoWeek, radioisotope};
use serde_json::json;

pub fn parse_week(s: &str) -> Result<String, String> {
    IsoWeek::parse(s)
        .map(|w| w.to_string())
        .ok_or_else(|| "must be an ISO week YYYY-Www, e.g. 2026-W05".into())
}

/// The spec's spelling of an isotope typed either way, or a usage error.
pub fn isotope_arg(s: &str, flag: &str) -> Result<Radioisotope, Fail> {
    radioisotope(&json!(s)).ok_or_else(|| {
        Fail::Usage(format!(
            "{flag} must be one of: {}",
            Radioisotope::allowed()
        ))
    })
}
