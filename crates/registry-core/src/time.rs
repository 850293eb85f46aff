//! Times as clients send them.

use chrono::{DateTime, FixedOffset, NaiveDate, TimeDelta, Timelike};

/// A calendar day written `YYYY-MM-DD`, both parts padded (chrono alone also reads `2027-1-5`
/// and `27-01-31`).
pub fn day(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .filter(|_| s.len() == 10)
}

/// An RFC 3339 time. A leap second (`23:59:60`) is read as the first instant of the next
/// minute, as PostgreSQL stores it, so that both databases keep the same time and every answer
/// writes a plain UTC instant.
pub fn rfc3339(s: &str) -> Option<DateTime<FixedOffset>> {
    let t = DateTime::parse_from_rfc3339(s).ok()?;
    match t.nanosecond().checked_sub(1_000_000_000) {
        Some(nanos) => Some(t.with_nanosecond(nanos)? + TimeDelta::seconds(1)),
        None => Some(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leap_second_is_the_next_minute() {
        let t = rfc3339("2026-12-31T23:59:60Z").unwrap();
        assert_eq!(t.to_rfc3339(), "2027-01-01T00:00:00+00:00");
        let t = rfc3339("2026-06-30T20:59:60.5-03:00").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-06-30T21:00:00.500-03:00");
        let t = rfc3339("2026-11-20T08:00:00-03:00").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-11-20T08:00:00-03:00");
        assert_eq!(rfc3339("2026-11-20"), None);
    }
}
