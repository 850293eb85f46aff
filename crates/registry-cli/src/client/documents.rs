//! Documents (spec §4.5): streamed uploads and downloads, signatures, release, e-mail.

use super::http::{Activity, Client, FileDownload, ListQuery, Result, api_path, id_body};
use crate::error::ClientError;
use futures::StreamExt;
use registry_core::api::{ListEnvelope, Message};
use registry_core::document::{Document, DocumentStatus, SigningKeyInfo};
use reqwest::multipart::{Form, Part};
use reqwest::{Body, Method};
use serde_json::{Value, json};
use std::path::Path;

impl Client {
    endpoints! {
        /// One page of documents; filters `status` (value or slug), `facilityId`, `equipmentId`,
        /// `testId`, `dateGte`, `dateLt`, `q`.
        fn documents(query: &ListQuery) -> ListEnvelope<Document> = get("/documents", query);
        fn document(id: &str) -> Document = fetch(&api_path(&["document", id])?);
        fn sign_document(id: &str) -> Document = post("/document/sign/", &id_body(id));
        fn release_document(id: &str) -> Document = post("/document/liberate/", &id_body(id));
        /// `POST /document/edit/` with only a `status`: hand a draft in for signing (`Em
        /// andamento`/`Corrigir` → `Falta assinar`), or, by a signer, send it back (`Falta
        /// assinar` → `Corrigir`).
        fn move_document(id: &str, status: DocumentStatus) -> Document =
            post("/document/edit/", &json!({"_id": id, "status": status.as_str()}));
        fn archive_document(id: &str) -> Message = post("/document/exclude", &id_body(id));
        fn comment_document(id: &str, text: &str) -> Document =
            post(&api_path(&["document", id, "comment"])?, &json!({"text": text}));
        /// The server's Ed25519 public key that document signatures are checked with.
        fn signing_key() -> SigningKeyInfo = fetch("/signing-key");
    }

    /// `POST /document/register/`: the fields as one `data` JSON part and the file streamed
    /// from disk (never held in memory); `progress` is called with the bytes sent so far.
    pub async fn upload_document(
        &self,
        fields: &Value,
        file: &Path,
        progress: impl Fn(u64) + Send + Sync + 'static,
    ) -> Result<Document> {
        let path = "/document/register/";
        // The answer is waited for from the last piece of the file the server took: a long
        // upload that keeps moving never times out, one the server stopped taking does.
        let activity = Activity::new();
        let moved = activity.clone();
        let part = file_part(file, move |sent| {
            moved.touch();
            progress(sent)
        })
        .await?;
        let form = Form::new()
            .text("data", fields.to_string())
            .part("file", part);
        let request = self.request(Method::POST, path).multipart(form);
        let sent = self.send_tracked(request, path, Some(&activity));
        sent.await.map_err(upload_cut)
    }

    /// `GET /document/:id/file[?version=N]` (default the current file), to be read chunk by
    /// chunk so a large file is never held in memory.
    pub async fn document_file(&self, id: &str, version: Option<i64>) -> Result<FileDownload> {
        let query = ListQuery::default().filter_opt("version", version.map(|v| v.to_string()));
        self.download(&api_path(&["document", id, "file"])?, &query)
            .await
    }

    /// `POST /document/scheduleEmail/`: at `send_at` (RFC 3339; default now) to `to` (default the
    /// facility's active users). Only released documents.
    pub async fn schedule_document_email(
        &self,
        id: &str,
        send_at: Option<&str>,
        to: &[String],
    ) -> Result<Document> {
        let mut body = json!({"_id": id});
        if let Some(at) = send_at {
            body["sendAt"] = json!(at);
        }
        if !to.is_empty() {
            body["to"] = json!(to);
        }
        self.post("/document/scheduleEmail/", &body).await
    }
}

/// The declared type of an upload from its extension; the server decides by the first bytes
/// anyway, so this only keeps the stored `contentType` readable.
fn content_type(file: &Path) -> &'static str {
    let ext = file
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    match ext.as_str() {
        "pdf" => "application/pdf",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        _ => "application/octet-stream",
    }
}

/// A multipart part that reads `file` as it is sent, with its length so the server and the
/// progress bar know the size up front.
async fn file_part(file: &Path, progress: impl Fn(u64) + Send + Sync + 'static) -> Result<Part> {
    let io = |source| ClientError::Io {
        what: format!("reading {}", file.display()),
        source,
    };
    let handle = tokio::fs::File::open(file).await.map_err(io)?;
    let len = handle.metadata().await.map_err(io)?.len();
    let mut sent = 0u64;
    let stream = tokio_util::io::ReaderStream::new(handle).inspect(move |chunk| {
        if let Ok(bytes) = chunk {
            sent += bytes.len() as u64;
            progress(sent);
        }
    });
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    Ok(Part::stream_with_length(Body::wrap_stream(stream), len)
        .file_name(name)
        .mime_str(content_type(file))
        .expect("the MIME types of content_type are valid"))
}

/// A server that refuses an upload over its limit may answer 413 and close the connection while
/// the file is still being sent; the client then sees only the broken connection. Said as the
/// refusal it most likely is (exit 4, with the upload-limit hint), naming what was seen.
fn upload_cut(error: ClientError) -> ClientError {
    match error {
        ClientError::Connection { source, .. } if cut_by_the_server(&source) => {
            ClientError::Server {
                status: reqwest::StatusCode::PAYLOAD_TOO_LARGE,
                body: registry_core::ErrorBody {
                    message: "the server closed the connection before the whole file was sent"
                        .into(),
                    code: "payload_too_large".into(),
                    errors: None,
                    id: None,
                },
            }
        }
        other => other,
    }
}

/// Whether the connection broke under the request because the server closed it (a broken pipe
/// or a reset while the body was still being written).
fn cut_by_the_server(error: &reqwest::Error) -> bool {
    use std::io::ErrorKind::{BrokenPipe, ConnectionReset};
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = cause {
        if let Some(io) = e.downcast_ref::<std::io::Error>()
            && matches!(io.kind(), BrokenPipe | ConnectionReset)
        {
            return error.is_request();
        }
        cause = e.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::cut_by_the_server;
    use tokio::io::AsyncReadExt;

    /// A server that reads the start of a request and closes the connection: the client's error
    /// is recognised as the cut; a refused connection is not.
    #[tokio::test]
    async fn a_body_cut_by_the_server_is_recognised() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/upload", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut start = [0u8; 1024];
            let _ = socket.read(&mut start).await;
        });
        let client = reqwest::Client::new();
        let error = client
            .post(&url)
            .body(vec![b'x'; 64 * 1024 * 1024])
            .send()
            .await
            .unwrap_err();
        assert!(cut_by_the_server(&error), "{error:?}");
        let refused = client.post(&url).body("x").send().await.unwrap_err();
        assert!(!cut_by_the_server(&refused), "{refused:?}");
    }
}
