//! `registry document download`: a document's file, streamed to disk and checked against its
//! SHA-256.

use crate::cli::context::{Ctx, Fail, refuse_to_overwrite};
use crate::cli::{cancel, output, resolve};
use clap::Args;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use tokio::io::AsyncWriteExt;

#[derive(Debug, Args)]
pub struct DownloadArgs {
    /// The document's _id.
    document: String,
    /// Where to write it ("-" for stdout); default: the stored file name in this folder.
    #[arg(long)]
    file: Option<PathBuf>,
    /// An older version of the file (see `document show`).
    #[arg(long, allow_negative_numbers = true)]
    version: Option<i64>,
    /// Overwrite an existing file.
    #[arg(long)]
    force: bool,
}

pub async fn run(ctx: &Ctx, a: DownloadArgs) -> Result<(), Fail> {
    let d = resolve::document(ctx, &a.document).await?;
    let expected = match a.version {
        None => d.file.clone(),
        Some(v) => d
            .versions
            .iter()
            .find(|x| x.version == v)
            .map(|x| x.file.clone())
            .ok_or_else(|| {
                Fail::NotFound(format!(
                    "{} has no file version {v} (it has {})",
                    d.name,
                    d.versions
                        .iter()
                        .map(|x| x.version.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?,
    };
    let target = match a.file {
        Some(p) => p,
        // Only the last component of the stored name: a name is never a path to write through.
        None => PathBuf::from(
            Path::new(&expected.name)
                .file_name()
                .map(|n| n.to_os_string())
                .unwrap_or_else(|| format!("{}.bin", d.id).into()),
        ),
    };
    let to_stdout = target.as_os_str() == "-";
    if !to_stdout {
        refuse_to_overwrite(&target, a.force)?;
    }
    let mut stream = ctx.client.document_file(&d.id, a.version).await?;
    let bar = output::byte_bar(
        stream
            .content_length()
            .or(u64::try_from(expected.size).ok()),
    );
    // Written beside the target and renamed at the end, so an interrupted or corrupt download
    // never leaves a truncated file under the real name.
    let partial = partial_path(&target);
    let mut out: Box<dyn tokio::io::AsyncWrite + Unpin> = if to_stdout {
        Box::new(output::async_stdout())
    } else {
        let file = tokio::fs::File::create(&partial).await.map_err(|e| {
            Fail::Other(anyhow::anyhow!("cannot create {}: {e}", partial.display()))
        })?;
        // Ctrl-C removes it too.
        cancel::unfinished(partial.clone());
        Box::new(file)
    };
    let mut hasher = Sha256::new();
    let mut written = 0u64;
    let result: Result<(), Fail> = async {
        while let Some(chunk) = stream.chunk().await? {
            out.write_all(&chunk).await?;
            hasher.update(&chunk);
            written += chunk.len() as u64;
            bar.set_position(written);
        }
        out.flush().await?;
        Ok(())
    }
    .await;
    bar.finish_and_clear();
    drop(out);
    let actual = hex::encode(hasher.finalize());
    let result = result.and_then(|()| {
        if actual.eq_ignore_ascii_case(&expected.sha256) {
            Ok(())
        } else {
            Err(Fail::Other(anyhow::anyhow!(
                "the downloaded file's SHA-256 is {actual}, but the document's is {}",
                expected.sha256
            )))
        }
    });
    if to_stdout {
        return result;
    }
    if let Err(e) = result {
        let _ = tokio::fs::remove_file(&partial).await;
        cancel::finished(&partial);
        return Err(e);
    }
    let renamed = tokio::fs::rename(&partial, &target).await;
    cancel::finished(&partial);
    renamed?;
    output::note(format!(
        "Saved {} ({written} bytes, SHA-256 checked) to {}",
        d.name,
        target.display()
    ));
    Ok(())
}

fn partial_path(target: &Path) -> PathBuf {
    let mut name = target
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".part");
    target.with_file_name(name)
}
