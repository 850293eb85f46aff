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
