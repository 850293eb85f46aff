//! Outgoing e-mail: through SMTP when `REGISTRY_SMTP_URL` is set, otherwise as `.eml` files in the
//! data folder's outbox (so a fresh install works without a mail server).

use anyhow::Context;
use lettre::address::Envelope;
use lettre::message::{Mailbox, Message, MessageBuilder, header::ContentType};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The longest a background message (a recovery code, a registration notice) may take to send.
const BACKGROUND_SEND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

pub enum Transport {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    Outbox(PathBuf),
}

pub struct Mailer {
    transport: Transport,
    from: Mailbox,
}

impl Mailer {
    pub fn new(smtp_url: Option<&str>, outbox: PathBuf, from: &str) -> anyhow::Result<Self> {
        let from: Mailbox = from
            .parse()
            .context("REGISTRY_MAIL_FROM is not a valid address")?;
        let transport = match smtp_url {
            Some(url) => Transport::Smtp(
                AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
                    .context("REGISTRY_SMTP_URL is not a valid SMTP URL")?
                    .build(),
            ),
            None => {
                std::fs::create_dir_all(&outbox).with_context(|| {
                    format!("cannot create the outbox folder {}", outbox.display())
                })?;
                Transport::Outbox(outbox)
            }
        };
        Ok(Mailer { transport, from })
    }

    pub fn describe(&self) -> String {
        match &self.transport {
            Transport::Smtp(_) => "SMTP".into(),
            Transport::Outbox(dir) => format!("outbox folder {}", dir.display()),
        }
    }

    pub async fn send(&self, to: &str, subject: &str, body: String) -> anyhow::Result<()> {
        let to: Mailbox = to
            .parse()
            .with_context(|| format!("invalid recipient {to}"))?;
        let message = self
            .message()
            .to(to)
            .subject(subject)
            .header(ContentType::TEXT_PLAIN)
            .body(body)
            .context("cannot build the message")?;
        self.deliver(message).await.map(drop)
    }

    /// Sends in a background task, so that the request's answer neither waits for the mail
    /// server (a slow or unreachable one would show in the answer's timing which addresses have
    /// accounts) nor tells of a failure, which is logged as `what`.
    pub fn send_in_background(
        self: &Arc<Self>,
        to: String,
        subject: &'static str,
        body: String,
        what: &'static str,
    ) {
        let mailer = self.clone();
        tokio::spawn(async move {
            // Bounded as the worker's sends are: lettre's own timeout covers connecting only, and
            // a mail server gone silent would keep the task and its connection forever.
            match tokio::time::timeout(BACKGROUND_SEND_TIMEOUT, mailer.send(&to, subject, body))
                .await
            {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::error!(error = format!("{e:#}"), "{what} not sent"),
                Err(_) => {
                    tracing::error!("{what} not sent: the mail server did not answer in time")
                }
            }
        });
    }

    /// Sends `message` to every recipient of its envelope. When the mail server refuses a
    /// message to several recipients for good (an SMTP 5xx reply, such as one address it does
    /// not know), each recipient is tried alone: the message goes to those it takes, and the
    /// answer lists the others, each with the server's reply code ([`Refused`]). Fails when no
    /// recipient took it.
    pub async fn deliver(&self, message: Message) -> anyhow::Result<Vec<Refused>> {
        let t = match &self.transport {
            Transport::Smtp(t) => t,
            Transport::Outbox(dir) => {
                write_to_outbox(dir, &message.formatted())
                    .await
                    .context("cannot write to the outbox")?;
                return Ok(Vec::new());
            }
        };
        let (envelope, bytes) = (message.envelope(), message.formatted());
        let whole = match t.send_raw(envelope, &bytes).await {
            Ok(_) => return Ok(Vec::new()),
            Err(e) if e.is_permanent() && envelope.to().len() > 1 => e,
            Err(e) => return Err(smtp_failure(e)),
        };
        let mut refused = Vec::new();
        for to in envelope.to() {
            let alone = Envelope::new(envelope.from().cloned(), vec![to.clone()])?;
            if let Err(e) = t.send_raw(&alone, &bytes).await {
                let e = smtp_failure(e);
                tracing::warn!(error = format!("{e:#}"), %to, "the mail server refused a recipient");
                refused.push(Refused {
                    to: to.to_string(),
                    why: e.to_string(),
                });
            }
        }
        if refused.len() == envelope.to().len() {
            return Err(smtp_failure(whole));
        }
        Ok(refused)
    }

    /// A message from the service's sender, with its own `Message-ID` (RFC 5322 §3.6.4) in the
    /// sender's domain: the machine's host name stays inside.
    pub fn message(&self) -> MessageBuilder {
        let id = format!("<{}@{}>", uuid::Uuid::now_v7(), self.from.email.domain());
        Message::builder()
            .message_id(Some(id))
            .from(self.from.clone())
    }
}

/// A recipient that a message was not delivered to while others took it, and why (what
/// [`smtp_failure`] says).
#[derive(Debug)]
pub struct Refused {
    pub to: String,
    pub why: String,
}

/// An SMTP error as what a document's `lastError` shows (email_worker): the outermost context is
/// the server's reply code, never its host or text (those stay in the chain, for the log).
fn smtp_failure(e: lettre::transport::smtp::Error) -> anyhow::Error {
    let what = match e.status() {
        Some(code) => format!("the mail server refused the message (SMTP {code})"),
        None => "the mail server could not be reached".to_owned(),
    };
    anyhow::Error::new(e).context(what)
}

/// Writes one message to the outbox as `<uuid>.eml`, whole or not at all: it is written under a
/// hidden name first and then renamed, so that whoever reads the folder never sees half a message.
async fn write_to_outbox(dir: &Path, message: &[u8]) -> std::io::Result<()> {
    let name = uuid::Uuid::new_v4();
    let part = dir.join(format!(".{name}.part"));
    if let Err(e) = tokio::fs::write(&part, message).await {
        let _ = tokio::fs::remove_file(&part).await;
        return Err(e);
    }
    tokio::fs::rename(&part, dir.join(format!("{name}.eml"))).await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader polling the outbox while messages are written finds each one whole or not at
    /// all (a test reading the outbox once met a message half written).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_outbox_shows_only_whole_messages() {
        let dir = tempfile::tempdir().unwrap();
        let message = vec![b'x'; 4 << 20];
        let writer = {
            let (dir, message) = (dir.path().to_owned(), message.clone());
            tokio::spawn(async move {
                for _ in 0..12 {
                    write_to_outbox(&dir, &message).await.unwrap();
                }
            })
        };
        let mut seen = 0;
        while !writer.is_finished() {
            for entry in std::fs::read_dir(dir.path()).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|x| x == "eml") {
                    let read = std::fs::read(&path).unwrap();
                    assert_eq!(
                        read.len(),
                        message.len(),
                        "{} is half written",
                        path.display()
                    );
                    seen += 1;
                }
            }
        }
        writer.await.unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 12, "{names:?}");
        assert!(names.iter().all(|n| n.ends_with(".eml")), "{names:?}");
        assert!(seen > 0, "the reader looked while messages were written");
    }
}
