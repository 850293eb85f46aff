//! What a request answered, and the assertions tests make on it.

use reqwest::StatusCode;
use serde_json::Value;

/// A JSON answer: status, headers and body.
pub struct Answer {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Answer {
    /// The answer of a response: its body as JSON (a string when it is not JSON, null when empty).
    pub async fn read(res: reqwest::Response) -> Answer {
        let status = res.status();
        let headers = res.headers().clone();
        let text = res.text().await.expect("body read");
        let body = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        Answer {
            status,
            headers,
            body,
        }
    }

    /// The field error codes, as `(field, code)`.
    pub fn field_errors(&self) -> Vec<(String, String)> {
        self.body["errors"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|e| {
                        (
                            e["field"].as_str().unwrap().to_owned(),
                            e["code"].as_str().unwrap().to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn has_field_error(&self, field: &str, code: &str) -> bool {
        self.field_errors()
            .iter()
            .any(|(f, c)| f == field && c == code)
    }

    #[track_caller]
    pub fn expect(self, status: u16) -> Value {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected status; body: {}",
            self.body
        );
        self.body
    }

    #[track_caller]
    pub fn expect_error(self, status: u16, code: &str) -> Self {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected status; body: {}",
            self.body
        );
        assert_eq!(
            self.body["code"], code,
            "unexpected code; body: {}",
            self.body
        );
        assert!(
            self.body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "error without message: {}",
            self.body
        );
        self
    }

    /// Asserts that the answer names each `(field, code)` error.
    #[track_caller]
    pub fn assert_field_errors(&self, expected: &[(&str, &str)]) {
        for (field, code) in expected {
            assert!(
                self.has_field_error(field, code),
                "{field} {code}: {}",
                self.body
            );
        }
    }

    /// Asserts a 422 `validation_failed` answer naming each `(field, code)` error.
    #[track_caller]
    pub fn expect_field_errors(self, expected: &[(&str, &str)]) -> Self {
        let answer = self.expect_error(422, "validation_failed");
        answer.assert_field_errors(expected);
        answer
    }

    /// Asserts a 422 `validation_failed` answer naming `code` on `field`.
    #[track_caller]
    pub fn expect_field_error(self, field: &str, code: &str) -> Self {
        let answer = self.expect_error(422, "validation_failed");
        assert!(
            answer.has_field_error(field, code),
            "no {code} error on {field}; body: {}",
            answer.body
        );
        answer
    }
}
