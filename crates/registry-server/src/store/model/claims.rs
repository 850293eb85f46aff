//! The types of `store::claims` (the storage interface) that its backends' queries (`sql/`)
//! take and return.

/// A queue table; the rows of both have the same claim and outcome columns.
#[derive(Debug, Clone, Copy)]
pub enum Queue {
    EmailSchedules,
    NoticeDigests,
}

impl Queue {
    pub(crate) fn table(self) -> &'static str {
        match self {
            Queue::EmailSchedules => "email_schedules",
            Queue::NoticeDigests => "notice_digests",
        }
    }
}

/// What one attempt at a queued e-mail came to, as its row records it.
#[derive(Debug, Clone, Copy)]
pub struct Outcome<'a> {
    /// Why it was not sent (none: sent).
    pub error: Option<&'a str>,
    /// Of a message sent, the recipients the mail server refused, for `last_error`.
    pub not_delivered: Option<&'a str>,
    /// When to try again (none after an error: failed for good).
    pub retry_at: Option<&'a str>,
}

impl Outcome<'_> {
    pub(crate) fn status(&self) -> &'static str {
        match (self.error, self.retry_at) {
            (None, _) => "sent",
            (Some(_), Some(_)) => "pending",
            (Some(_), None) => "failed",
        }
    }
}
