//! The server's public signing key.

use crate::auth::Caller;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use base64::Engine;
use registry_core::document::SigningKeyInfo;

#[utoipa::path(
    get, path = "/api/signing-key", tag = "documents",
    description = "The server's Ed25519 public key, to verify document signatures offline.",
    responses((status = 200, body = SigningKeyInfo))
)]
pub(super) async fn signing_key(
    State(state): State<AppState>,
    _caller: Caller,
) -> Json<SigningKeyInfo> {
    Json(SigningKeyInfo {
        algorithm: "Ed25519".into(),
        public_key: base64::engine::general_purpose::STANDARD
            .encode(state.signing_key.verifying_key().to_bytes()),
        payload: "facility-registry-document-signature:v1\nsha256=<file.sha256>\ndocument=<_id>\nsigner=<signedBy._id>\nsignedAt=<signedAt>\ncode=<code>\n".into(),
    })
}
