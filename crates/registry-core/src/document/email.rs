//! Reading a request to e-mail a released document (`POST /document/scheduleEmail`): when to send
//! (`sendAt`, default now) and to whom (`to`, default the facility's active users), reporting
//! every failing field at once.

use crate::error::{FieldCode, FieldError, FieldErrors};
use crate::qc::read::MAX_YEAR;
use crate::values::Email;
use chrono::{DateTime, Datelike, Utc};
use serde_json::Value;

/// A valid schedule: its time and its recipients (at least one, repeated neighbours removed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailSchedule {
    pub send_at: DateTime<Utc>,
    pub recipients: Vec<String>,
}

/// Whether `body` leaves the recipients to the default (the facility's active users): `to` absent,
/// `null` or not a list of addresses. The caller loads the facility's users only then.
pub fn uses_default_recipients(body: &Value) -> bool {
    !matches!(body.get("to"), Some(Value::String(_) | Value::Array(_)))
}

/// Reads `sendAt` and `to` from a request body. `now` is the default time; `facility_users`
/// are the recipients when `to` is absent or `null`.
pub fn read_email_schedule(
    body: &Value,
    now: DateTime<Utc>,
    facility_users: Vec<String>,
) -> Result<EmailSchedule, Vec<FieldError>> {
    let mut errs = FieldErrors::default();
    let send_at = read_send_at(body.get("sendAt"), &mut errs).unwrap_or(now);
    let mut recipients = match read_to(body.get("to"), &mut errs) {
        // A `to` of the wrong type is named once, not also as missing recipients.
        None if errs.has("to") => Vec::new(),
        None if facility_users.is_empty() => {
            errs.push(
                "to",
                FieldCode::Required,
                "is required: the facility has no active users to send to",
            );
            Vec::new()
        }
        None => facility_users,
        Some(given) if given.is_empty() && errs.is_empty() => {
            errs.push("to", FieldCode::Required, "needs at least one address");
            given
        }
        Some(given) => given,
    };
    recipients.dedup();
    errs.finish(EmailSchedule {
        send_at,
        recipients,
    })
}

/// `sendAt`: an RFC 3339 time; absent, `null` or blank is `None` (now).
fn read_send_at(v: Option<&Value>, errs: &mut FieldErrors) -> Option<DateTime<Utc>> {
    match v {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => match crate::time::rfc3339(s.trim()) {
            // A year like 9999 is a typing slip: nothing would ever be sent.
            Some(t) if t.with_timezone(&Utc).year() > MAX_YEAR => {
                errs.push(
                    "sendAt",
                    FieldCode::InvalidValue,
                    format!("must be a time before the year {}", MAX_YEAR + 1),
                );
                None
            }
            Some(t) => Some(t.with_timezone(&Utc)),
            None => {
                errs.push(
                    "sendAt",
                    FieldCode::InvalidValue,
                    "must be an RFC 3339 time, e.g. 2026-11-21T09:00:00Z",
                );
                None
            }
        },
        Some(_) => {
            errs.push(
                "sendAt",
                FieldCode::InvalidValue,
                "must be an RFC 3339 time string",
            );
            None
        }
    }
}

/// `to`: an array of addresses or one string of addresses separated by `,` or `;`. `None` when
/// absent or `null` (or not a list); otherwise the valid addresses, each invalid one reported.
fn read_to(v: Option<&Value>, errs: &mut FieldErrors) -> Option<Vec<String>> {
    let given: Vec<String> = match v {
        None | Some(Value::Null) => return None,
        Some(Value::String(s)) => s
            .split([',', ';'])
            .map(|a| a.trim().to_owned())
            .filter(|a| !a.is_empty())
            .collect(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(i, v)| match v.as_str() {
                Some(s) => Some(s.trim().to_owned()),
                None => {
                    errs.push(
                        format!("to[{i}]"),
                        FieldCode::InvalidEmail,
                        "must be an e-mail address",
                    );
                    None
                }
            })
            .collect(),
        Some(_) => {
            errs.push(
                "to",
                FieldCode::InvalidValue,
                "must be a list of e-mail addresses, or one string of them separated by commas or semicolons",
            );
            return None;
        }
    };
    let mut recipients = Vec::new();
    for (i, raw) in given.iter().enumerate() {
        match Email::parse(raw) {
            Some(e) => recipients.push(e.as_str().to_owned()),
            None => errs.push(
                format!("to[{i}]"),
                FieldCode::InvalidEmail,
                "is not a valid e-mail address",
            ),
        }
    }
    Some(recipients)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::assert_codes;
    use serde_json::json;

    fn now() -> DateTime<Utc> {
        "2026-11-20T12:00:00Z".parse().unwrap()
    }

    fn users() -> Vec<String> {
        vec!["a@example.com".into(), "b@example.com".into()]
    }

    #[test]
    fn only_a_missing_or_unusable_to_asks_for_the_facility_users() {
        assert!(uses_default_recipients(&json!({})));
        assert!(uses_default_recipients(&json!({"to": null})));
        assert!(uses_default_recipients(&json!({"to": 7})));
        assert!(!uses_default_recipients(&json!({"to": "a@example.com"})));
        assert!(!uses_default_recipients(&json!({"to": []})));
    }

    #[test]
    fn defaults_to_now_and_the_facility_users() {
        let s = read_email_schedule(&json!({"_id": "d"}), now(), users()).unwrap();
        assert_eq!(s.send_at, now());
        assert_eq!(s.recipients, users());
        let s = read_email_schedule(&json!({"sendAt": " ", "to": null}), now(), users()).unwrap();
        assert_eq!((s.send_at, s.recipients), (now(), users()));
    }

    #[test]
    fn reads_send_at_in_any_offset_as_utc() {
        let s = read_email_schedule(
            &json!({"sendAt": "2026-11-21T09:00:00-03:00"}),
            now(),
            users(),
        )
        .unwrap();
        assert_eq!(s.send_at.to_rfc3339(), "2026-11-21T12:00:00+00:00");
    }

    #[test]
    fn reads_to_as_a_list_or_a_separated_string() {
        let s = read_email_schedule(
            &json!({"to": "x@example.com; y@example.com,,y@example.com"}),
            now(),
            vec![],
        )
        .unwrap();
        assert_eq!(s.recipients, ["x@example.com", "y@example.com"]);
        let s = read_email_schedule(&json!({"to": [" x@example.com "]}), now(), vec![]).unwrap();
        assert_eq!(s.recipients, ["x@example.com"]);
    }

    #[test]
    fn a_send_time_past_the_registrys_years_is_refused() {
        let e = assert_codes(
            read_email_schedule(&json!({"sendAt": "9999-12-31T23:59:59Z"}), now(), users()),
            &[("sendAt", FieldCode::InvalidValue)],
        );
        assert_eq!(e[0].message, "must be a time before the year 2101");
        let late = read_email_schedule(&json!({"sendAt": "2100-12-31T23:00:00Z"}), now(), users());
        assert!(late.is_ok());
        // The instant counts, not the year it is written in.
        for (written, ok) in [
            ("2100-12-31T23:59:59-03:00", false),
            ("2101-01-01T01:00:00+05:00", true),
        ] {
            let read = read_email_schedule(&json!({ "sendAt": written }), now(), users());
            assert_eq!(read.is_ok(), ok, "{written}");
        }
    }

    #[test]
    fn reports_every_field_at_once() {
        let e = assert_codes(
            read_email_schedule(
                &json!({"sendAt": "tomorrow", "to": ["ok@example.com", "nope", 5]}),
                now(),
                users(),
            ),
            &[
                ("sendAt", FieldCode::InvalidValue),
                ("to[2]", FieldCode::InvalidEmail),
                ("to[1]", FieldCode::InvalidEmail),
            ],
        );
        assert_eq!(e[1].message, "must be an e-mail address");
        assert_eq!(e[2].message, "is not a valid e-mail address");
        let e = assert_codes(
            read_email_schedule(&json!({"sendAt": 5, "to": 5}), now(), vec![]),
            &[
                ("sendAt", FieldCode::InvalidValue),
                ("to", FieldCode::InvalidValue),
            ],
        );
        assert_eq!(e[0].message, "must be an RFC 3339 time string");
    }

    #[test]
    fn needs_someone_to_send_to() {
        let e = assert_codes(
            read_email_schedule(&json!({}), now(), vec![]),
            &[("to", FieldCode::Required)],
        );
        assert_eq!(
            e[0].message,
            "is required: the facility has no active users to send to"
        );
        let e = assert_codes(
            read_email_schedule(&json!({"to": " , "}), now(), users()),
            &[("to", FieldCode::Required)],
        );
        assert_eq!(e[0].message, "needs at least one address");
        let e = read_email_schedule(&json!({"to": []}), now(), users()).unwrap_err();
        assert_eq!(e[0].message, "needs at least one address");
    }
}

/// How long the download link of an e-mailed document works: the recipients named in `to` often
/// have no account, so the link itself carries the permission, for this long.
pub const LINK_DAYS: i64 = 7;

/// The signed part of an e-mailed document's download link: file `version` of document `id`,
/// until `expires` (Unix seconds). `signature` is the base64url Ed25519 signature of
/// [`FileLink::payload`] by the registry's signing key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLink<'a> {
    pub id: &'a str,
    pub version: i64,
    pub expires: i64,
}

impl FileLink<'_> {
    fn payload(&self) -> Vec<u8> {
        format!(
            "facility-registry-file-link:v1\ndocument={}\nversion={}\nexpires={}\n",
            self.id, self.version, self.expires
        )
        .into_bytes()
    }

    /// The link's query string: `version=…&expires=…&signature=…`.
    pub fn query(&self, key: &ed25519_dalek::SigningKey) -> String {
        use base64::Engine as _;
        use ed25519_dalek::Signer as _;
        let signature = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(key.sign(&self.payload()).to_bytes());
        format!(
            "version={}&expires={}&signature={signature}",
            self.version, self.expires
        )
    }

    /// Whether `signature` is this link's, by `key`, and the link has not expired at `now`.
    pub fn holds(
        &self,
        signature: &str,
        key: &ed25519_dalek::VerifyingKey,
        now: DateTime<Utc>,
    ) -> bool {
        use base64::Engine as _;
        use ed25519_dalek::Verifier as _;
        let Ok(raw) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(signature.trim())
        else {
            return false;
        };
        let Ok(raw) = <[u8; 64]>::try_from(raw) else {
            return false;
        };
        now.timestamp() < self.expires
            && key
                .verify(&self.payload(), &ed25519_dalek::Signature::from_bytes(&raw))
                .is_ok()
    }
}
