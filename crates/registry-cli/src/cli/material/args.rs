//! Flags of the material and waste commands: ISO weeks and isotopes typed either way.

use crate::cli::context::{Fail, invalid_flag};
use registry_core::Radioisotope;
use registry_core::material::{IsoWeek, radioisotope};
use serde_json::json;

pub fn parse_week(s: &str) -> Result<String, String> {
    IsoWeek::parse(s)
        .map(|w| w.to_string())
        .ok_or_else(|| "must be an ISO week YYYY-Www, e.g. 2026-W05".into())
}

/// The spec's spelling of an isotope typed either way (`Tc(99m)`, `Tc-99m`, `99mTc`…), or why
/// not.
pub fn parse_isotope(s: &str) -> Result<Radioisotope, String> {
    radioisotope(&json!(s)).ok_or_else(|| format!("must be one of: {}", Radioisotope::allowed()))
}

/// [`parse_isotope`] of the value of `flag`: outside the allowed set, a validation error naming
/// the flag, and the API's `field` in the `-o json` envelope (exit 4).
pub fn isotope_arg(s: &str, flag: &str, field: &str) -> Result<Radioisotope, Fail> {
    parse_isotope(s).map_err(|m| invalid_flag(field, flag, s, m))
}
