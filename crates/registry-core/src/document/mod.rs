//! Documents (product.md §5): the status machine, the authenticity code, the signed payload and its
//! offline verification, the document's API shape, and the readers of the upload form (`draft`)
//! and of an e-mail schedule (`email`).

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;
use utoipa::ToSchema;

mod draft;
mod email;
pub use draft::{
    DocumentDraft, ascii_file_name, file_name, parse_date, read_document, validity_after_date,
};
pub use email::{EmailSchedule, FileLink, LINK_DAYS, read_email_schedule, uses_default_recipients};

/// Where a document is in its review: the exact Portuguese values of the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
pub enum DocumentStatus {
    #[serde(rename = "Em andamento")]
    InProgress,
    #[serde(rename = "Corrigir")]
    ToCorrect,
    #[serde(rename = "Falta assinar")]
    AwaitingSignature,
    #[serde(rename = "Assinado")]
    Signed,
    #[serde(rename = "Liberado")]
    Released,
}

impl DocumentStatus {
    pub const ALL: &'static [DocumentStatus] = &[
        DocumentStatus::InProgress,
        DocumentStatus::ToCorrect,
        DocumentStatus::AwaitingSignature,
        DocumentStatus::Signed,
        DocumentStatus::Released,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DocumentStatus::InProgress => "Em andamento",
            DocumentStatus::ToCorrect => "Corrigir",
            DocumentStatus::AwaitingSignature => "Falta assinar",
            DocumentStatus::Signed => "Assinado",
            DocumentStatus::Released => "Liberado",
        }
    }

    /// The URL form used by `GET /documents/:status`.
    pub fn slug(self) -> &'static str {
        match self {
            DocumentStatus::InProgress => "em-andamento",
            DocumentStatus::ToCorrect => "corrigir",
            DocumentStatus::AwaitingSignature => "falta-assinar",
            DocumentStatus::Signed => "assinado",
            DocumentStatus::Released => "liberado",
        }
    }

    /// The exact value.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.as_str() == s)
    }

    /// The value or its slug.
    pub fn parse_value_or_slug(s: &str) -> Option<Self> {
        let s = s.trim();
        Self::ALL
            .iter()
            .copied()
            .find(|v| v.as_str() == s || v.slug() == s)
    }

    /// As [`Self::parse_value_or_slug`], in any case and with or without accents
    /// (`falta assinar`): how the lists read their `status` filter, as the other lists' filters.
    pub fn parse_loosely(s: &str) -> Option<Self> {
        let wanted = crate::text::search_key(s.trim());
        Self::ALL.iter().copied().find(|v| {
            crate::text::search_key(v.as_str()) == wanted
                || crate::text::search_key(v.slug()) == wanted
        })
    }

    pub fn allowed() -> String {
        crate::values::names_of(Self::ALL, |v| format!("{} ({})", v.as_str(), v.slug()))
    }

    /// Signed and released documents are frozen: their file and metadata no longer change.
    pub fn is_frozen(self) -> bool {
        matches!(self, DocumentStatus::Signed | DocumentStatus::Released)
    }
}

impl fmt::Display for DocumentStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The ways a document's status may change, and who may make each one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// An edit hands the document in for signing (`Em andamento`/`Corrigir` → `Falta assinar`).
    Submit,
    /// A signer sends it back for correction (`Falta assinar` → `Corrigir`).
    SendBack,
    /// `Falta assinar` → `Assinado`.
    Sign,
    /// `Assinado` → `Liberado`.
    Liberate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a document in \"{from}\" {}", refusal(*to))]
pub struct InvalidTransition {
    pub from: DocumentStatus,
    pub to: DocumentStatus,
}

/// Why a move to `to` was refused, said as the rule (the moves of product.md §5).
fn refusal(to: DocumentStatus) -> &'static str {
    match to {
        DocumentStatus::Signed => "cannot be signed: only one in \"Falta assinar\" can",
        DocumentStatus::Released => "cannot be released: only one in \"Assinado\" can",
        DocumentStatus::AwaitingSignature => {
            "cannot be handed in for signing: only one in \"Em andamento\" or \"Corrigir\" can"
        }
        DocumentStatus::ToCorrect => {
            "cannot be sent back for correction: only one in \"Falta assinar\" can"
        }
        DocumentStatus::InProgress => "cannot be moved back to \"Em andamento\"",
    }
}

impl Move {
    pub fn target(self) -> DocumentStatus {
        match self {
            Move::Submit => DocumentStatus::AwaitingSignature,
            Move::SendBack => DocumentStatus::ToCorrect,
            Move::Sign => DocumentStatus::Signed,
            Move::Liberate => DocumentStatus::Released,
        }
    }

    /// The move an edit asks for when it sets `status` to `to`, if any move leads there.
    pub fn towards(to: DocumentStatus) -> Option<Move> {
        match to {
            DocumentStatus::AwaitingSignature => Some(Move::Submit),
            DocumentStatus::ToCorrect => Some(Move::SendBack),
            DocumentStatus::Signed => Some(Move::Sign),
            DocumentStatus::Released => Some(Move::Liberate),
            DocumentStatus::InProgress => None,
        }
    }
}

/// The status after `m` from `from`, or the refusal (409 `invalid_transition`).
pub fn transition(from: DocumentStatus, m: Move) -> Result<DocumentStatus, InvalidTransition> {
    use DocumentStatus::*;
    let allowed = match m {
        Move::Submit => matches!(from, InProgress | ToCorrect),
        Move::SendBack | Move::Sign => from == AwaitingSignature,
        Move::Liberate => from == Signed,
    };
    if allowed {
        Ok(m.target())
    } else {
        Err(InvalidTransition {
            from,
            to: m.target(),
        })
    }
}

/// Letters and digits that cannot be misread for one another (no 0/O, 1/I/L).
pub const CODE_ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
pub const CODE_LENGTH: usize = 8;

/// An authenticity code from 8 random bytes (each reduced to the alphabet; the slight bias of
/// 256 mod 31 does not matter for a lookup code, the signature carries the security).
pub fn authenticity_code(random: [u8; CODE_LENGTH]) -> String {
    random
        .iter()
        .map(|b| CODE_ALPHABET[*b as usize % CODE_ALPHABET.len()] as char)
        .collect()
}

pub fn is_authenticity_code(s: &str) -> bool {
    s.len() == CODE_LENGTH && s.bytes().all(|b| CODE_ALPHABET.contains(&b))
}

/// What a signature covers. `signer` is the signer's user `_id`; `signed_at` the stored RFC 3339 time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedClaim<'a> {
    pub file_sha256: &'a str,
    pub document_id: &'a str,
    pub signer: &'a str,
    pub signed_at: &'a str,
    pub code: &'a str,
}

impl SignedClaim<'_> {
    /// The exact bytes that are signed: one `key=value` line each, after a version line, so the
    /// payload can be rebuilt by anyone from the document's JSON.
    pub fn payload(&self) -> Vec<u8> {
        format!(
            "facility-registry-document-signature:v1\nsha256={}\ndocument={}\nsigner={}\nsignedAt={}\ncode={}\n",
            self.file_sha256.to_ascii_lowercase(),
            self.document_id,
            self.signer,
            self.signed_at,
            self.code
        )
        .into_bytes()
    }

    /// The base64 Ed25519 signature of the payload.
    pub fn sign(&self, key: &SigningKey) -> String {
        BASE64.encode(key.sign(&self.payload()).to_bytes())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("the document is not signed")]
    NotSigned,
    #[error("the file's SHA-256 is {actual}, but the document was signed over {signed}")]
    FileMismatch { actual: String, signed: String },
    #[error("the public key is not a valid Ed25519 key")]
    BadKey,
    #[error("the signature is malformed")]
    MalformedSignature,
    #[error("the signature does not match the document's data")]
    BadSignature,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The public key from its base64 form (as `GET /api/signing-key` gives it).
pub fn public_key_from_base64(s: &str) -> Result<VerifyingKey, VerifyError> {
    let raw = BASE64.decode(s.trim()).map_err(|_| VerifyError::BadKey)?;
    let raw: [u8; 32] = raw.try_into().map_err(|_| VerifyError::BadKey)?;
    VerifyingKey::from_bytes(&raw).map_err(|_| VerifyError::BadKey)
}

/// Checks that `file` is the file `document` was signed over, and that the signature over its
/// SHA-256, id, signer, time and code was made by `key`.
pub fn verify_document(
    file: &[u8],
    document: &Document,
    key: &VerifyingKey,
) -> Result<(), VerifyError> {
    verify_document_digest(&sha256_hex(file), document, key)
}

/// [`verify_document`] for a file whose SHA-256 (hex) was computed elsewhere, e.g. while
/// streaming a file too large to hold in memory.
pub fn verify_document_digest(
    file_sha256: &str,
    document: &Document,
    key: &VerifyingKey,
) -> Result<(), VerifyError> {
    let (Some(signer), Some(signed_at), Some(code), Some(signature)) = (
        &document.signed_by,
        &document.signed_at,
        &document.code,
        &document.signature,
    ) else {
        return Err(VerifyError::NotSigned);
    };
    let actual = file_sha256.to_ascii_lowercase();
    if !actual.eq_ignore_ascii_case(&document.file.sha256) {
        return Err(VerifyError::FileMismatch {
            actual,
            signed: document.file.sha256.clone(),
        });
    }
    let claim = SignedClaim {
        file_sha256: &actual,
        document_id: &document.id,
        signer: &signer.id,
        signed_at,
        code,
    };
    verify_claim(&claim, signature, key)
}

/// Checks a base64 Ed25519 signature against a claim.
pub fn verify_claim(
    claim: &SignedClaim<'_>,
    signature: &str,
    key: &VerifyingKey,
) -> Result<(), VerifyError> {
    let raw = BASE64
        .decode(signature.trim())
        .map_err(|_| VerifyError::MalformedSignature)?;
    let raw: [u8; 64] = raw
        .try_into()
        .map_err(|_| VerifyError::MalformedSignature)?;
    key.verify(&claim.payload(), &Signature::from_bytes(&raw))
        .map_err(|_| VerifyError::BadSignature)
}

/// A person on a document (uploader, signer, releaser, comment author).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Person {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
}

/// A referenced record: `{_id}` plus a readable name where the record has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RecordRef {
    #[serde(rename = "_id")]
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileInfo {
    pub name: String,
    pub content_type: String,
    pub size: i64,
    /// Lower-case hex.
    pub sha256: String,
}

/// One stored file of a document; the highest `version` is the current file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileVersion {
    pub version: i64,
    #[serde(flatten)]
    pub file: FileInfo,
    pub uploaded_by: Person,
    #[schema(format = DateTime)]
    pub uploaded_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    #[serde(rename = "_id")]
    pub id: String,
    pub author: Person,
    pub text: String,
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// State of the document's latest e-mail schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScheduledEmail {
    #[serde(rename = "_id")]
    pub id: String,
    #[schema(format = DateTime)]
    pub send_at: String,
    pub to: Vec<String>,
    /// `pending`, `sending`, `sent`, `failed` or `cancelled`.
    pub status: String,
    pub attempts: i64,
    #[schema(format = DateTime)]
    pub next_attempt_at: Option<String>,
    pub last_error: Option<String>,
    #[schema(format = DateTime)]
    pub sent_at: Option<String>,
}

/// The document's latest delivered e-mail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SentEmail {
    #[serde(rename = "_id")]
    pub id: String,
    #[schema(format = DateTime)]
    pub sent_at: String,
    pub to: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    pub facility: RecordRef,
    pub equipment: Option<RecordRef>,
    pub test: Option<RecordRef>,
    /// `YYYY-MM-DD`.
    #[schema(format = Date)]
    pub date: String,
    /// `YYYY-MM-DD`, after `date`.
    #[schema(format = Date)]
    pub validity: String,
    pub conclusion: Option<String>,
    pub status: DocumentStatus,
    pub file: FileInfo,
    pub uploaded_by: Person,
    #[schema(format = DateTime)]
    pub uploaded_at: String,
    pub signed_by: Option<Person>,
    #[schema(format = DateTime)]
    pub signed_at: Option<String>,
    /// The 8-character authenticity code, once signed.
    pub code: Option<String>,
    /// Base64 Ed25519 signature of [`SignedClaim::payload`].
    pub signature: Option<String>,
    pub liberated_by: Option<Person>,
    #[schema(format = DateTime)]
    pub liberated_at: Option<String>,
    pub comments: Vec<Comment>,
    pub scheduled_email: Option<ScheduledEmail>,
    pub sent_email: Option<SentEmail>,
    /// Every stored file, newest first.
    pub versions: Vec<FileVersion>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl Document {
    /// What a `Cliente` of the facility sees of a released document: the released file only
    /// (earlier versions were drafts, never released to them), and the comments written since
    /// its release (the review talk before it concerns those drafts).
    pub fn as_client_sees_it(mut self) -> Document {
        self.versions.truncate(1);
        let released = self.liberated_at.as_deref();
        self.comments
            .retain(|c| released.is_some_and(|at| c.created_at.as_str() >= at));
        self
    }
}

/// The server's public signing key, as `GET /api/signing-key` gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SigningKeyInfo {
    /// `Ed25519`.
    pub algorithm: String,
    /// The 32-byte public key, base64.
    pub public_key: String,
    /// How the signed payload is built from a document.
    pub payload: String,
}

#[cfg(test)]
mod tests;
