//! Outgoing e-mail: through SMTP when `REGISTRY_SMTP_URL` is set, otherwise as `.eml` files in the
//! data folder's outbox (so a fresh install works without a mail server).

use anyhow::Context;
use lettre::message::{Mailbox, Message, MessageBuilder, header::ContentType};
use lettre::{AsyncFileTransport, AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use std::path::PathBuf;
use std::sync::Arc;

/// The longest a background message (a recovery code, a registration notice) may take to send.
const BACKGROUND_SEND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

pub enum Transport {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    Outbox(AsyncFileTransport<Tokio1Executor>, PathBuf),
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
                Transport::Outbox(AsyncFileTransport::new(&outbox), outbox)
            }
        };
        Ok(Mailer { transport, from })
    }

    pub fn describe(&self) -> String {
        match &self.transport {
            Transport::Smtp(_) => "SMTP".into(),
            Transport::Outbox(_, dir) => format!("outbox folder {}", dir.display()),
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
        self.deliver(message).await
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

    pub async fn deliver(&self, message: Message) -> anyhow::Result<()> {
        match &self.transport {
            // The outermost context is what a document's `lastError` shows (email_worker): the
            // server's reply code, never its host or text (those go to the log).
            Transport::Smtp(t) => t.send(message).await.map(|_| ()).map_err(|e| {
                let what = match e.status() {
                    Some(code) => format!("the mail server refused the message (SMTP {code})"),
                    None => "the mail server could not be reached".to_owned(),
                };
                anyhow::Error::new(e).context(what)
            }),
            Transport::Outbox(t, _) => t
                .send(message)
                .await
                .map(|_| ())
                .context("cannot write to the outbox"),
        }
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
