//! Column types whose stored form differs per backend. The registry holds timestamps as RFC 3339
//! UTC text, dates as `YYYY-MM-DD` and JSON as text; PostgreSQL stores them natively
//! (`timestamptz`, `date`, `jsonb`), SQLite as text. Bind a value through [`Ts`], [`Day`] or
//! [`JsonText`], and read one back as a [`Stamp`], [`DayText`] or [`JsonString`] — or, for the
//! decoders the SQLite reader threads share with sqlx, through [`Columns`].

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::postgres::{PgArgumentBuffer, PgTypeInfo, PgValueFormat, PgValueRef};
use sqlx::sqlite::{SqliteArgumentsBuffer, SqliteTypeInfo, SqliteValueRef};
use sqlx::{Decode, Encode, Postgres, Sqlite, Type, ValueRef};

/// A value bound into a query built at run time (filters, multi-row inserts).
#[derive(Debug, Clone)]
pub enum Param {
    Text(Option<String>),
    Int(i64),
    Real(f64),
    Bool(bool),
    /// RFC 3339 text, stored as the backend's timestamp.
    Ts(String),
    /// `YYYY-MM-DD`, stored as the backend's date.
    Day(String),
    /// JSON text, stored as the backend's JSON.
    Json(String),
}

impl Param {
    pub fn text(s: &str) -> Param {
        Param::Text(Some(s.to_owned()))
    }
}

/// One row's columns, read by name in the registry's forms (timestamps as RFC 3339 text, dates as
/// `YYYY-MM-DD`, JSON as text): implemented by both sqlx drivers' rows (`sql/row.rs`) and by a
/// rusqlite row ([`crate::store::sqlite_reads`]), so that the hot reads have one decoder whichever
/// driver read them.
pub trait Columns {
    fn text(&self, col: &str) -> Result<String, sqlx::Error>;
    fn text_opt(&self, col: &str) -> Result<Option<String>, sqlx::Error>;
    fn int(&self, col: &str) -> Result<i64, sqlx::Error>;
    fn boolean(&self, col: &str) -> Result<bool, sqlx::Error>;
    fn stamp(&self, col: &str) -> Result<String, sqlx::Error>;
    fn day_opt(&self, col: &str) -> Result<Option<String>, sqlx::Error>;
    fn json(&self, col: &str) -> Result<String, sqlx::Error>;
}

/// A timestamp to bind (RFC 3339 text).
#[derive(Debug, Clone, Copy)]
pub struct Ts<S>(pub S);

/// A date to bind (`YYYY-MM-DD`).
#[derive(Debug, Clone, Copy)]
pub struct Day<S>(pub S);

/// JSON text to bind.
#[derive(Debug, Clone, Copy)]
pub struct JsonText<S>(pub S);

/// A timestamp read back, as RFC 3339 UTC text with microseconds.
#[derive(Debug, Clone)]
pub struct Stamp(pub String);

/// A date read back, as `YYYY-MM-DD`.
#[derive(Debug, Clone)]
pub struct DayText(pub String);

/// JSON read back, as text.
#[derive(Debug, Clone)]
pub struct JsonString(pub String);

fn parse_ts(s: &str) -> Result<DateTime<Utc>, BoxDynError> {
    Ok(DateTime::parse_from_rfc3339(s)
        .map_err(|e| format!("timestamp {s:?}: {e}"))?
        .with_timezone(&Utc))
}

fn parse_day(s: &str) -> Result<NaiveDate, BoxDynError> {
    Ok(NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|e| format!("date {s:?}: {e}"))?)
}

/// SQLite: every one of these is text.
macro_rules! sqlite_text {
    ($($bind:ident),* ; $($read:ident),*) => {
        $(
            impl<S: AsRef<str>> Type<Sqlite> for $bind<S> {
                fn type_info() -> SqliteTypeInfo {
                    <String as Type<Sqlite>>::type_info()
                }
            }
            impl<'q, S: AsRef<str>> Encode<'q, Sqlite> for $bind<S> {
                fn encode_by_ref(&self, buf: &mut SqliteArgumentsBuffer) -> Result<IsNull, BoxDynError> {
                    <String as Encode<'q, Sqlite>>::encode(self.0.as_ref().to_owned(), buf)
                }
            }
        )*
        $(
            impl Type<Sqlite> for $read {
                fn type_info() -> SqliteTypeInfo {
                    <String as Type<Sqlite>>::type_info()
                }
                fn compatible(ty: &SqliteTypeInfo) -> bool {
                    <String as Type<Sqlite>>::compatible(ty)
                }
            }
            impl<'r> Decode<'r, Sqlite> for $read {
                fn decode(value: SqliteValueRef<'r>) -> Result<Self, BoxDynError> {
                    Ok($read(<String as Decode<'r, Sqlite>>::decode(value)?))
                }
            }
        )*
    };
}
sqlite_text!(Ts, Day, JsonText; Stamp, DayText, JsonString);

impl<S: AsRef<str>> Type<Postgres> for Ts<S> {
    fn type_info() -> PgTypeInfo {
        <DateTime<Utc> as Type<Postgres>>::type_info()
    }
}

impl<S: AsRef<str>> Encode<'_, Postgres> for Ts<S> {
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
        <DateTime<Utc> as Encode<Postgres>>::encode(parse_ts(self.0.as_ref())?, buf)
    }
}

impl Type<Postgres> for Stamp {
    fn type_info() -> PgTypeInfo {
        <DateTime<Utc> as Type<Postgres>>::type_info()
    }
    fn compatible(ty: &PgTypeInfo) -> bool {
        <DateTime<Utc> as Type<Postgres>>::compatible(ty)
    }
}

impl<'r> Decode<'r, Postgres> for Stamp {
    fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
        let t = <DateTime<Utc> as Decode<'r, Postgres>>::decode(value)?;
        Ok(Stamp(crate::db::timestamp(t)))
    }
}

impl<S: AsRef<str>> Type<Postgres> for Day<S> {
    fn type_info() -> PgTypeInfo {
        <NaiveDate as Type<Postgres>>::type_info()
    }
}

impl<S: AsRef<str>> Encode<'_, Postgres> for Day<S> {
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
        <NaiveDate as Encode<Postgres>>::encode(parse_day(self.0.as_ref())?, buf)
    }
}

impl Type<Postgres> for DayText {
    fn type_info() -> PgTypeInfo {
        <NaiveDate as Type<Postgres>>::type_info()
    }
    fn compatible(ty: &PgTypeInfo) -> bool {
        <NaiveDate as Type<Postgres>>::compatible(ty)
    }
}

impl<'r> Decode<'r, Postgres> for DayText {
    fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
        let d = <NaiveDate as Decode<'r, Postgres>>::decode(value)?;
        Ok(DayText(d.format("%Y-%m-%d").to_string()))
    }
}

fn jsonb() -> PgTypeInfo {
    <sqlx::types::Json<()> as Type<Postgres>>::type_info()
}

impl<S: AsRef<str>> Type<Postgres> for JsonText<S> {
    fn type_info() -> PgTypeInfo {
        jsonb()
    }
}

impl<S: AsRef<str>> Encode<'_, Postgres> for JsonText<S> {
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
        // The binary `jsonb` form: a version byte, then the JSON text.
        buf.push(1);
        buf.extend_from_slice(self.0.as_ref().as_bytes());
        Ok(IsNull::No)
    }
}

impl Type<Postgres> for JsonString {
    fn type_info() -> PgTypeInfo {
        jsonb()
    }
    fn compatible(ty: &PgTypeInfo) -> bool {
        <sqlx::types::Json<()> as Type<Postgres>>::compatible(ty)
    }
}

impl<'r> Decode<'r, Postgres> for JsonString {
    fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
        let binary_jsonb = value.format() == PgValueFormat::Binary && *value.type_info() == jsonb();
        let mut bytes = value.as_bytes()?;
        if binary_jsonb {
            match bytes.split_first() {
                Some((1, rest)) => bytes = rest,
                _ => return Err("unsupported jsonb format version".into()),
            }
        }
        Ok(JsonString(std::str::from_utf8(bytes)?.to_owned()))
    }
}
