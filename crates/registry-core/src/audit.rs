//! The audit log's vocabulary: what a person did to a record, one name per kind of change for
//! every resource (`GET /facility/{id}/history` and `GET /equipment/{id}/history` show them as
//! `action`). Outcomes of the e-mail queues are the server's own events, not actions, and are
//! named by the queue (`email_sent`, `digest_retry`, …).

use crate::document::DocumentStatus;
use std::borrow::Cow;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// A new record (a registration, an upload).
    Create,
    /// A change of the record's fields.
    Edit,
    /// A facility's linked users replaced (`POST /facility/users/edit`).
    EditUsers,
    /// A user account deactivated.
    Deactivate,
    /// A user's password changed or reset.
    ChangePassword,
    /// A soft delete: the record leaves lists and reads but stays in the database and the log.
    Archive,
    /// A waste package released.
    Release,
    /// A document's file replaced by a new version.
    ReplaceFile,
    /// A document moved to this status by an edit.
    Status(DocumentStatus),
    /// A document signed.
    Sign,
    /// A document released to the facility.
    Liberate,
    /// A comment on a document.
    Comment,
    /// A document's e-mail scheduled.
    ScheduleEmail,
    /// A facility's logo or background image set (`{kind, contentType, size}` after).
    SetImage,
    /// A facility's logo or background image removed (`{kind}` before).
    RemoveImage,
}

impl Action {
    /// The name stored in the log.
    pub fn name(self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            Action::Create => "create",
            Action::Edit => "edit",
            Action::EditUsers => "edit_users",
            Action::Deactivate => "deactivate",
            Action::ChangePassword => "change_password",
            Action::Archive => "archive",
            Action::Release => "release",
            Action::ReplaceFile => "replace_file",
            Action::Status(s) => return Cow::Owned(format!("status:{}", s.slug())),
            Action::Sign => "sign",
            Action::Liberate => "liberate",
            Action::Comment => "comment",
            Action::ScheduleEmail => "schedule_email",
            Action::SetImage => "image_set",
            Action::RemoveImage => "image_removed",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_has_its_own_name() {
        let mut all = vec![
            Action::Create,
            Action::Edit,
            Action::EditUsers,
            Action::Deactivate,
            Action::ChangePassword,
            Action::Archive,
            Action::Release,
            Action::ReplaceFile,
            Action::Sign,
            Action::Liberate,
            Action::Comment,
            Action::ScheduleEmail,
            Action::SetImage,
            Action::RemoveImage,
        ];
        all.extend(DocumentStatus::ALL.iter().map(|s| Action::Status(*s)));
        let mut names: Vec<_> = all.iter().map(|a| a.name()).collect();
        assert_eq!(names[5], "archive");
        assert_eq!(
            Action::Status(DocumentStatus::Signed).name(),
            "status:assinado"
        );
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
    }
}
