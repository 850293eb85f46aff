//! Document file storage: content-addressed by SHA-256 in an `object_store` — a local folder
//! (`<data>/objects`) by default, an S3-compatible bucket when `REGISTRY_OBJECT_STORE_URL` is set —
//! and the streaming intake that stages an upload in a temporary file while hashing it.
//!
//! A store that cannot be reached or used right now (connection failures, timeouts and server
//! errors of S3 once its few retries are spent; I/O errors of the folder other than a missing file)
//! is answered 503 `unavailable` with `Retry-After`, as a database outage is
//! ([`ApiError::StorageUnavailable`]); any other failure, a missing object included, stays an
//! internal error.

use crate::error::ApiError;
use anyhow::Context;
use axum::body::Bytes;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::client::{HttpError, HttpErrorKind};
use object_store::local::LocalFileSystem;
use object_store::path::Path as ObjectPath;
use object_store::prefix::PrefixStore;
use object_store::{
    BackoffConfig, ClientOptions, ObjectStore, ObjectStoreExt, PutPayload, RetryConfig,
    WriteMultipart,
};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Parts of a multipart upload to the store. S3 needs at least 5 MiB per part; one part in
/// flight at a time keeps memory flat whatever the file size.
const PART_SIZE: usize = 5 * 1024 * 1024;

pub struct Objects {
    store: Arc<dyn ObjectStore>,
    description: String,
    staging: PathBuf,
}

impl Objects {
    /// The store named by `url` (`s3://bucket[/prefix]?endpoint=…&region=…`), or `<data>/objects`.
    pub fn open(url: Option<&str>, data_dir: &Path) -> anyhow::Result<Objects> {
        let staging = data_dir.join("uploads");
        std::fs::create_dir_all(&staging)
            .with_context(|| format!("cannot create {}", staging.display()))?;
        remove_abandoned_uploads(&staging, STAGED_FOR_AT_MOST);
        let (store, description): (Arc<dyn ObjectStore>, String) = match url {
            None => {
                let dir = data_dir.join("objects");
                std::fs::create_dir_all(&dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
                let store = LocalFileSystem::new_with_prefix(&dir)?;
                (Arc::new(store), format!("folder {}", dir.display()))
            }
            Some(url) => s3_store(url)?,
        };
        Ok(Objects {
            store,
            description,
            staging,
        })
    }

    pub fn describe(&self) -> &str {
        &self.description
    }

    fn location(sha256: &str) -> ObjectPath {
        ObjectPath::from(format!("sha256/{}/{sha256}", &sha256[..2]))
    }

    /// Stores a staged file under its hash; an identical file already stored is not sent again.
    pub async fn put_staged(&self, staged: &StagedFile) -> Result<(), ApiError> {
        let location = Self::location(&staged.sha256);
        match self.store.head(&location).await {
            Ok(_) => return Ok(()),
            // Unreachable now: the put would fail the same way, after its own retries.
            Err(e) if is_unavailable(&e) => return Err(failure(e, "cannot look for the file")),
            // Not stored yet (or the head is not allowed): the put says.
            Err(_) => {}
        }
        let mut file = tokio::fs::File::open(staged.path())
            .await
            .context("cannot reopen the staged upload")?;
        if (staged.size as usize) <= PART_SIZE {
            let mut bytes = Vec::with_capacity(staged.size as usize);
            file.read_to_end(&mut bytes)
                .await
                .context("cannot read the staged upload")?;
            self.store
                .put(&location, PutPayload::from(bytes))
                .await
                .map_err(|e| failure(e, "cannot store the file"))?;
            return Ok(());
        }
        let upload = self
            .store
            .put_multipart(&location)
            .await
            .map_err(|e| failure(e, "cannot start storing the file"))?;
        let mut writer = WriteMultipart::new_with_chunk_size(upload, PART_SIZE);
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            let n = file
                .read(&mut buf)
                .await
                .context("cannot read the staged upload")?;
            if n == 0 {
                break;
            }
            writer
                .wait_for_capacity(1)
                .await
                .map_err(|e| failure(e, "cannot store the file"))?;
            writer.write(&buf[..n]);
        }
        writer
            .finish()
            .await
            .map_err(|e| failure(e, "cannot store the file"))?;
        Ok(())
    }

    /// The stored bytes as a stream (a failure once it has begun ends the stream).
    pub async fn stream(
        &self,
        sha256: &str,
    ) -> Result<BoxStream<'static, Result<Bytes, object_store::Error>>, ApiError> {
        let result = self
            .store
            .get(&Self::location(sha256))
            .await
            .map_err(|e| failure(e, &format!("cannot read stored file {sha256}")))?;
        Ok(result.into_stream())
    }

    /// The whole file, for e-mail attachments (bounded by the caller).
    pub async fn read(&self, sha256: &str) -> anyhow::Result<Vec<u8>> {
        let chunks: Vec<Bytes> = self.stream(sha256).await?.try_collect().await?;
        Ok(chunks.concat())
    }

    pub fn staging_dir(&self) -> &Path {
        &self.staging
    }
}

/// `s3://bucket[/prefix]?key=value…`: every query key is an `object_store` S3 option
/// (`endpoint`, `region`, `allow_http`, `access_key_id`, `secret_access_key`…); the standard
/// `AWS_*` environment variables fill in what the URL leaves out.
fn s3_store(raw: &str) -> anyhow::Result<(Arc<dyn ObjectStore>, String)> {
    let url = url::Url::parse(raw).context("REGISTRY_OBJECT_STORE_URL is not a URL")?;
    anyhow::ensure!(
        url.scheme() == "s3",
        "REGISTRY_OBJECT_STORE_URL must start with s3:// (got {}://)",
        url.scheme()
    );
    let bucket = url
        .host_str()
        .filter(|b| !b.is_empty())
        .context("REGISTRY_OBJECT_STORE_URL names no bucket (s3://BUCKET)")?;
    // A request waits for an unreachable store about as long as for an unreachable database
    // (2 s), then is answered 503; the URL may set its own `connect_timeout`/`timeout`.
    let mut builder = AmazonS3Builder::from_env()
        .with_bucket_name(bucket)
        .with_client_options(ClientOptions::new().with_connect_timeout(Duration::from_secs(2)))
        .with_retry(RetryConfig {
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(1),
                base: 2.0,
            },
            max_retries: 3,
            retry_timeout: Duration::from_secs(5),
        });
    for (key, value) in url.query_pairs() {
        let key: AmazonS3ConfigKey = key
            .parse()
            .with_context(|| format!("REGISTRY_OBJECT_STORE_URL: unknown S3 option {key:?}"))?;
        builder = builder.with_config(key, value.into_owned());
    }
    let store = builder
        .build()
        .context("REGISTRY_OBJECT_STORE_URL: cannot configure the S3 store")?;
    let prefix = url.path().trim_matches('/').to_owned();
    let description = format!("S3 bucket {bucket}");
    if prefix.is_empty() {
        Ok((Arc::new(store), description))
    } else {
        Ok((
            Arc::new(PrefixStore::new(store, prefix.as_str())),
            format!("{description}, prefix {prefix}"),
        ))
    }
}

/// Whether `e` says that the store cannot be reached or used right now (so that retrying later
/// may work): a connection failure, a timeout, a broken or unreadable response or a server error
/// (5xx) of S3 after its retries, an I/O error of the folder other than a missing file. A missing
/// object (`NotFound`), a refused request (403, 401) or a bad path are not.
fn is_unavailable(e: &object_store::Error) -> bool {
    if !matches!(e, object_store::Error::Generic { .. }) {
        return false;
    }
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(cause) = next {
        if let Some(http) = cause.downcast_ref::<HttpError>() {
            return matches!(
                http.kind(),
                HttpErrorKind::Connect
                    | HttpErrorKind::Request
                    | HttpErrorKind::Timeout
                    | HttpErrorKind::Interrupted
                    | HttpErrorKind::Decode
            );
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return io.kind() != std::io::ErrorKind::NotFound;
        }
        // `object_store` keeps the HTTP status of a failed S3 request in a private type: its
        // message is the only public trace of it.
        if cause
            .to_string()
            .starts_with("Server returned non-2xx status code: 5")
        {
            return true;
        }
        next = cause.source();
    }
    false
}

/// A store failure while `doing`: 503 when the store is unavailable ([`is_unavailable`]), else
/// an internal error. Either way the details are logged, never answered.
fn failure(e: object_store::Error, doing: &str) -> ApiError {
    if is_unavailable(&e) {
        ApiError::StorageUnavailable(format!("{doing}: {e}"))
    } else {
        ApiError::Internal(anyhow::Error::new(e).context(doing.to_owned()))
    }
}

/// An upload written to a temporary file (removed on drop), with what was learnt on the way.
pub struct StagedFile {
    file: tempfile::TempPath,
    pub sha256: String,
    pub size: u64,
    pub head: Vec<u8>,
}

impl StagedFile {
    pub fn path(&self) -> &Path {
        &self.file
    }
}

/// How long an upload may stay staged: one older than this at start was left by a process that
/// ended while receiving it (a staged file is removed when its request ends, unless the
/// process is killed). Another instance sharing the folder stages nothing for this long (the
/// body timeout ends an upload much sooner).
const STAGED_FOR_AT_MOST: Duration = Duration::from_secs(3600);

/// Removes the staged uploads in `dir` older than `age`.
fn remove_abandoned_uploads(dir: &Path, age: Duration) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let abandoned = entry.file_name().to_string_lossy().starts_with("upload-")
            && entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|elapsed| elapsed > age));
        if abandoned && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    if removed > 0 {
        tracing::info!(removed, folder = %dir.display(), "removed uploads abandoned by an earlier process");
    }
}

/// How many leading bytes are kept to recognise the file type.
const HEAD_BYTES: usize = 16;

/// Streams `chunks` to a temporary file in `dir`, hashing as it goes; past `limit` bytes the
/// upload is abandoned with 413 without reading the rest.
pub async fn stage<S, E>(dir: &Path, mut chunks: S, limit: u64) -> Result<StagedFile, ApiError>
where
    S: futures::Stream<Item = Result<Bytes, E>> + Unpin,
    ApiError: From<E>,
{
    let temp = tempfile::Builder::new()
        .prefix("upload-")
        .tempfile_in(dir)
        .context("cannot create a temporary file")?;
    let (std_file, path) = temp.into_parts();
    let mut file = tokio::fs::File::from_std(std_file);
    let mut hasher = Sha256::new();
    let mut size = 0u64;
    let mut head = Vec::with_capacity(HEAD_BYTES);
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk?;
        size += chunk.len() as u64;
        if size > limit {
            return Err(ApiError::PayloadTooLarge(format!(
                "The file is larger than the upload limit of {} MiB.",
                limit / (1024 * 1024)
            )));
        }
        if head.len() < HEAD_BYTES {
            let take = (HEAD_BYTES - head.len()).min(chunk.len());
            head.extend_from_slice(&chunk[..take]);
        }
        hasher.update(&chunk);
        file.write_all(&chunk)
            .await
            .context("cannot write the upload")?;
    }
    file.flush().await.context("cannot write the upload")?;
    Ok(StagedFile {
        file: path,
        sha256: hex::encode(hasher.finalize()),
        size,
        head,
    })
}

/// The accepted document types, by magic bytes: PDF or an image.
pub fn sniff_document(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"%PDF-") {
        Some("application/pdf")
    } else {
        sniff_image(head)
    }
}

/// The image type from its first bytes.
pub fn sniff_image(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]) {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn staged(objects: &Objects, bytes: &'static [u8]) -> StagedFile {
        let chunks = futures::stream::iter([Ok::<_, ApiError>(Bytes::from_static(bytes))]);
        stage(objects.staging_dir(), chunks, 1024).await.unwrap()
    }

    #[test]
    fn uploads_left_by_an_ended_process_are_removed_at_start() {
        let data = tempfile::tempdir().unwrap();
        let staging = data.path().join("uploads");
        std::fs::create_dir_all(&staging).unwrap();
        let two_hours_ago = std::time::SystemTime::now() - Duration::from_secs(7200);
        for (name, old) in [
            ("upload-old", true),
            ("upload-new", false),
            ("kept-old", true),
        ] {
            let file = std::fs::File::create(staging.join(name)).unwrap();
            if old {
                file.set_modified(two_hours_ago).unwrap();
            }
        }
        Objects::open(None, data.path()).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(&staging)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["kept-old", "upload-new"]);
    }

    #[tokio::test]
    async fn a_broken_folder_is_unavailable_and_a_missing_file_is_not() {
        let data = tempfile::tempdir().unwrap();
        let objects = Objects::open(None, data.path()).unwrap();
        let file = staged(&objects, b"%PDF-1.4 one").await;
        // Not stored (yet): an internal error, as before.
        assert!(matches!(
            objects.stream(&file.sha256).await.err(),
            Some(ApiError::Internal(_))
        ));
        objects.put_staged(&file).await.unwrap();
        assert_eq!(objects.read(&file.sha256).await.unwrap(), b"%PDF-1.4 one");
        // The folder replaced by a file: every access is an I/O error other than "not found".
        let dir = data.path().join("objects");
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::write(&dir, b"not a folder").unwrap();
        assert!(matches!(
            objects.stream(&file.sha256).await.err(),
            Some(ApiError::StorageUnavailable(_))
        ));
        let other = staged(&objects, b"%PDF-1.4 two").await;
        assert!(matches!(
            objects.put_staged(&other).await,
            Err(ApiError::StorageUnavailable(_))
        ));
    }
}
