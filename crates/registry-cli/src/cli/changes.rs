//! The walk of an edit wizard (`facility edit`, `user edit`, `group edit`, `equipment edit` at a
//! terminal without field flags): every field is asked with its stored value as the answer to
//! keep or change, each answer checked as it is typed (`rules`), and only the fields whose answer
//! differs from the stored value are kept. When none does, nothing is sent: "Nothing changed."

use super::context::Fail;
use super::{output, prompt};
use serde_json::{Map, Value, json};

/// The fields an edit wizard changed, as the API's edit payload takes them.
#[derive(Default)]
pub struct Changes(Map<String, Value>);

impl Changes {
    /// `key` becomes `new` when that differs from the stored `old`.
    pub fn compare(&mut self, key: &str, old: Value, new: Value) {
        if old != new {
            self.0.insert(key.into(), new);
        }
    }

    /// `key` becomes `new` when `changed` (for values compared otherwise than as they are sent,
    /// such as sets).
    pub fn put_if(&mut self, changed: bool, key: &str, new: Value) {
        if changed {
            self.0.insert(key.into(), new);
        }
    }

    /// A required text, asked with `stored` to keep or change, checked by `check`.
    pub fn text(
        &mut self,
        key: &str,
        label: &str,
        stored: &str,
        check: prompt::Check,
    ) -> Result<(), Fail> {
        let answer = prompt::edit_text(label, stored, check)?;
        self.compare(key, json!(stored), json!(answer));
        Ok(())
    }

    /// An optional text, asked with `stored` to keep or change; with `check`, an answer that is
    /// not empty is checked. Emptied, the field is cleared: sent as "", which every edit reader
    /// takes as clearing it (and which, unlike null, the typed payloads such as `UserInput`
    /// carry).
    pub fn optional(
        &mut self,
        key: &str,
        label: &str,
        stored: Option<&str>,
        check: Option<prompt::Check>,
    ) -> Result<(), Fail> {
        let stored = stored.unwrap_or_default();
        let answer = prompt::optional_text(&format!("{label} (optional)"), stored, check)?;
        self.compare(key, json!(stored), json!(answer.unwrap_or_default()));
        Ok(())
    }

    /// A yes/no question, `stored` the answer offered.
    pub fn yes_no(&mut self, key: &str, label: &str, stored: bool) -> Result<(), Fail> {
        let answer = prompt::yes_no(label, stored)?;
        self.compare(key, json!(stored), json!(answer));
        Ok(())
    }

    /// The fields that changed; `None`, after saying "Nothing changed." on stderr, when no
    /// answer differs from the stored value (the command then sends nothing and shows the
    /// record as it is).
    pub fn finish(self) -> Option<Map<String, Value>> {
        if self.0.is_empty() {
            output::note("Nothing changed.");
            None
        } else {
            Some(self.0)
        }
    }
}
