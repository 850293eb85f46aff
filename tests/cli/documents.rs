//! Documents through the CLI: upload → sign → release → download (the same bytes), verify the
//! good file and tampered copies (file and metadata), permissions, comments, e-mail, archive.

use crate::harness::{Env, PASSWORD};
use registry_client::Client;

/// A PDF-looking file of `n` bytes whose content varies, so a swapped chunk would show.
fn pdf(n: usize) -> Vec<u8> {
    let mut bytes = b"%PDF-1.7\n".to_vec();
    bytes.extend((0..n.saturating_sub(9)).map(|i| (i as u8).wrapping_mul(31) ^ (i >> 11) as u8));
    bytes
}

/// `registry document upload` of `file` as `name` for `facility`, dated 2026-11-01, then `rest`.
fn upload_args<'a>(
    file: &'a str,
    name: &'a str,
    facility: &'a str,
    rest: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "document",
        "upload",
        file,
        "--name",
        name,
        "--facility",
        facility,
        "--date",
        "2026-11-01",
    ];
    args.extend_from_slice(rest);
    args
}

#[tokio::test(flavor = "multi_thread")]
async fn upload_sign_release_download_and_verify() {
    let env = Env::logged_in().await;
    let facility = env.facility("Clinica Laudos", 21).await;

    // Several MiB, so the upload and the download go through many chunks.
    let original = pdf(3 * 1024 * 1024 + 17);
    let source = env.work.path().join("relatorio.pdf");
    std::fs::write(&source, &original).unwrap();
    let uploaded = env
        .json(&upload_args(
            "relatorio.pdf",
            "Relatório anual",
            &facility,
            &["--validity", "2027-11-01", "--conclusion", "Conforme"],
        ))
        .await;
    assert_eq!(uploaded["status"], "Falta assinar");
    assert_eq!(uploaded["file"]["size"], original.len() as u64);
    assert_eq!(
        uploaded["file"]["sha256"],
        registry_core::document::sha256_hex(&original)
    );
    let id = uploaded["_id"].as_str().unwrap().to_owned();

    // Missing input without a terminal, and a refused file type.
    env.run(&upload_args("relatorio.pdf", "X", &facility, &[]))
        .await
        .expect(2)
        .says("--validity");
    let text = env.write("notas.txt", "not a pdf");
    env.run(&upload_args(
        &text,
        "Notas",
        &facility,
        &["--validity", "2027-11-01"],
    ))
    .await
    .expect(4)
    .says("- file:");
    // A refusal that names another field names it by its flag too.
    env.run(&upload_args(
        "relatorio.pdf",
        "X",
        &facility,
        &["--validity", "2026-10-01"],
    ))
    .await
    .expect(4)
    .says("--validity: must be after --date (2026-11-01)");

    // A Laudos user may upload but not sign: exit 3.
    let (_, laudos) = env.user("Lia Laudos", &["Laudos"]).await;
    let token = Client::new(&env.server)
        .unwrap()
        .login(&laudos, PASSWORD)
        .await
        .unwrap()
        .token;
    env.run_with(
        &["document", "sign", &id],
        "",
        &[("REGISTRY_TOKEN", &token)],
    )
    .await
    .expect(3)
    .says("permission denied");

    // Release before signing is a conflict (5); then sign and release.
    env.run(&["document", "release", &id]).await.expect(5);
    let signed = env
        .run(&["document", "sign", &id, "-o", "json"])
        .await
        .expect(0)
        .says("authenticity code")
        .json();
    assert_eq!(signed["status"], "Assinado");
    assert_eq!(signed["code"].as_str().unwrap().len(), 8);
    let released = env.json(&["document", "release", &id]).await;
    assert_eq!(released["status"], "Liberado");
    let listed = env
        .json(&["document", "list", "--status", "liberado"])
        .await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["_id"], id.as_str());

    // Download: the same bytes, under the stored name by default; no silent overwrite.
    std::fs::remove_file(&source).unwrap();
    env.run(&["document", "download", &id]).await.expect(0);
    assert_eq!(std::fs::read(&source).unwrap(), original);
    env.run(&["document", "download", &id]).await.expect(2);
    env.run(&["document", "download", &id, "--file", "copia.pdf"])
        .await
        .expect(0);
    let copy = env.work.path().join("copia.pdf");
    assert_eq!(std::fs::read(&copy).unwrap(), original);
    assert!(!env.work.path().join("copia.pdf.part").exists());
    let piped =
        tokio::process::Command::from(env.command(&["document", "download", &id, "--file", "-"]))
            .output()
            .await
            .unwrap();
    assert_eq!(piped.status.code(), Some(0));
    assert!(piped.stdout == original, "stdout carries the file's bytes");
    // `… --file - | head -c 100`: the reader gone, the download stops quietly (exit 0).
    let out = env
        .run_into_closed_pipe(&["document", "download", &id, "--file", "-"])
        .await
        .expect(0);
    assert_eq!(out.stderr, "");

    // Verify the good file (0) and a copy with one byte changed (4).
    let out = env
        .run(&["document", "verify", "copia.pdf", "--document", &id])
        .await
        .expect(0);
    assert!(out.stdout.starts_with("OK:"), "{}", out.stdout);
    let mut tampered = original.clone();
    tampered[original.len() / 2] ^= 1;
    std::fs::write(env.work.path().join("adulterado.pdf"), &tampered).unwrap();
    env.run(&["document", "verify", "adulterado.pdf", "--document", &id])
        .await
        .expect(4)
        .says("SHA-256");
    let verify_tampered_json = [
        "document",
        "verify",
        "adulterado.pdf",
        "--document",
        &id,
        "-o",
        "json",
    ];
    let report = env.run(&verify_tampered_json).await.expect(4).json();
    // The verdict outranks a closed stdout: `verify … -o json | head -0` still exits 4.
    env.run_into_closed_pipe(&verify_tampered_json)
        .await
        .expect(4);
    assert_eq!(report["valid"], false);

    // Fully offline: the document's JSON and the key, no server configured at all.
    let json = env
        .run(&["document", "show", &id, "-o", "json"])
        .await
        .expect(0)
        .stdout;
    env.write("documento.json", &json);
    let key = env
        .run(&["document", "signing-key"])
        .await
        .expect(0)
        .stdout
        .trim()
        .to_owned();
    assert_eq!(key, env.admin.signing_key().await.unwrap().public_key);
    let offline = |file: &'static str, doc: &'static str| {
        let mut cmd = env.command(&[
            "document",
            "verify",
            file,
            "--document-json",
            doc,
            "--key",
            &key,
        ]);
        cmd.env("REGISTRY_CONFIG_DIR", env.work.path().join("no-profiles"));
        cmd.output().unwrap()
    };
    assert_eq!(
        offline("copia.pdf", "documento.json").status.code(),
        Some(0)
    );
    // Names are not signed: offline, a JSON with other names still verifies, and the output
    // vouches only for what the signature covers.
    let mut renamed: serde_json::Value = serde_json::from_str(&json).unwrap();
    renamed["name"] = "Contrato falso".into();
    renamed["signedBy"]["name"] = "Mallory".into();
    env.write("renomeado.json", &renamed.to_string());
    let out = offline("copia.pdf", "renomeado.json");
    assert_eq!(out.status.code(), Some(0));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        !stdout.contains("Mallory") && !stdout.contains("Contrato falso"),
        "{stdout}"
    );
    assert!(
        stderr.contains("\"Mallory\"")
            && stderr.contains("note: the names in renomeado.json (document \"Contrato falso\""),
        "{stderr}"
    );
    // Nor does a refusal name the document by a name the signature does not cover.
    let out = offline("adulterado.pdf", "renomeado.json");
    assert_eq!(out.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("does not verify against document {id}:"))
            && !stderr.contains("Contrato falso"),
        "{stderr}"
    );
    assert_eq!(
        offline("adulterado.pdf", "documento.json").status.code(),
        Some(4)
    );
    // Metadata tampered with (another signing time): the signature no longer matches.
    let mut doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    doc["signedAt"] = "2026-01-01T00:00:00.000000Z".into();
    env.write("alterado.json", &doc.to_string());
    let out = offline("copia.pdf", "alterado.json");
    assert_eq!(out.status.code(), Some(4));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("signature"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Comment, e-mail, archive.
    let commented = env
        .run(&[
            "document",
            "comment",
            &id,
            "--text",
            "Conferido",
            "-o",
            "json",
        ])
        .await
        .expect(0)
        .says("(1 comment)");
    assert_eq!(commented.json()["comments"][0]["text"], "Conferido");
    env.run(&["document", "comment", &id, "--text", "Visto"])
        .await
        .expect(0)
        .says("(2 comments)");
    let scheduled = env
        .json(&[
            "document",
            "schedule-email",
            &id,
            "--to",
            "fisica@example.com",
        ])
        .await;
    assert_eq!(scheduled["scheduledEmail"]["to"][0], "fisica@example.com");
    // Refused values are named by their flags, not by the API's fields.
    env.run(&["document", "schedule-email", &id, "--at", "amanhã"])
        .await
        .expect(4)
        .says("  - --at:");
    // The `-o json` envelope keeps the API's field, as every other envelope does.
    let refused = env
        .run(&[
            "document",
            "schedule-email",
            &id,
            "--at",
            "amanhã",
            "-o",
            "json",
        ])
        .await
        .expect(4);
    assert_eq!(
        refused.json()["errors"][0]["field"],
        "sendAt",
        "{}",
        refused.stdout
    );
    env.run(&["document", "schedule-email", &id, "--to", "x"])
        .await
        .expect(4)
        .says("  - --to `x`:");
    env.run(&["document", "archive", &id, "--yes"])
        .await
        .expect(0);
    env.run(&["document", "show", &id]).await.expect(5);
}

/// A draft is handed in for signing with `submit`, sent back with `return --text` (a comment
/// saying why), handed in again and signed: the review's moves through the document edit.
#[tokio::test(flavor = "multi_thread")]
async fn a_draft_is_submitted_returned_and_signed() {
    let env = Env::logged_in().await;
    let facility = env.facility("Clinica Rascunho", 22).await;
    std::fs::write(env.work.path().join("rascunho.pdf"), pdf(2048)).unwrap();
    let draft = env
        .json(&upload_args(
            "rascunho.pdf",
            "Rascunho",
            &facility,
            &["--validity", "2027-11-01", "--draft"],
        ))
        .await;
    assert_eq!(draft["status"], "Em andamento");
    let id = draft["_id"].as_str().unwrap().to_owned();
    env.run(&["document", "sign", &id]).await.expect(5);

    let submitted = env.json(&["document", "submit", &id]).await;
    assert_eq!(submitted["status"], "Falta assinar");
    // Only from "Em andamento" or "Corrigir": a second submit is a conflict, not "is now".
    env.run(&["document", "submit", &id])
        .await
        .expect(5)
        .says("is in \"Falta assinar\": only a document in \"Em andamento\" or \"Corrigir\"");
    let returned = env
        .json(&["document", "return", &id, "--text", "Falta a tabela 2"])
        .await;
    assert_eq!(returned["status"], "Corrigir");
    assert_eq!(returned["comments"][0]["text"], "Falta a tabela 2");
    // Only from "Falta assinar": a second return is a conflict.
    env.run(&["document", "return", &id, "--text", "de novo"])
        .await
        .expect(5);

    env.run(&["document", "submit", &id]).await.expect(0);
    let signed = env.json(&["document", "sign", &id]).await;
    assert_eq!(signed["status"], "Assinado");
}

/// An upload over the server's limit is refused input: exit 4, saying why.
#[tokio::test(flavor = "multi_thread")]
async fn an_upload_over_the_limit_is_refused_input() {
    let env = Env::start_configured(|c| c.documents.upload_limit = 64 * 1024).await;
    env.login_admin().await;
    let facility = env.facility("Clinica Limite", 23).await;
    std::fs::write(env.work.path().join("grande.pdf"), pdf(256 * 1024)).unwrap();
    env.run(&upload_args(
        "grande.pdf",
        "Grande",
        &facility,
        &["--validity", "2027-11-01"],
    ))
    .await
    .expect(4)
    .says("upload limit");
}

/// `document show` tells the latest schedule (`scheduledEmail`) from the last delivery
/// (`sentEmail`): while the latest is the one delivered it says `sent`; a newer schedule that
/// is failing (here: the facility's only linked user unlinked before it is sent, so it has
/// nobody to go to) shows its state, attempts and last error, and the last delivery after it.
#[tokio::test(flavor = "multi_thread")]
async fn document_show_tells_a_newer_schedule_from_the_last_delivery() {
    let env = Env::start_configured(|c| {
        c.documents.email_poll_interval = std::time::Duration::from_millis(200);
        c.documents.email_retry_base = std::time::Duration::from_secs(3600);
    })
    .await;
    env.login_admin().await;
    let facility = env.facility("Clinica Correio", 24).await;
    std::fs::write(env.work.path().join("laudo.pdf"), pdf(2048)).unwrap();
    let id = env
        .run(&upload_args(
            "laudo.pdf",
            "Laudo",
            &facility,
            &["--validity", "2027-11-01", "-o", "json"],
        ))
        .await
        .expect(0)
        .id();
    env.run(&["document", "sign", &id]).await.expect(0);
    env.run(&["document", "release", &id]).await.expect(0);

    let show = ["document", "show", id.as_str()];

    // The first schedule goes out: the latest schedule is the one delivered.
    env.run(&[
        "document",
        "schedule-email",
        &id,
        "--to",
        "fisica@example.com",
    ])
    .await
    .expect(0);
    shown_once(&env, &id, "the first e-mail sent", |d| {
        d["sentEmail"].is_object()
    })
    .await;
    let shown = env.run(&show).await.expect(0).stdout;
    assert!(shown.contains("sent ") && shown.contains("to fisica@example.com"));
    assert!(!shown.contains("scheduled for"), "{shown}");

    // A second one, to the facility's users, a few seconds ahead; its only user is unlinked
    // before then, so each attempt fails (retried in an hour).
    let (_, titular) = env.user("Tito Correio", &["Cliente"]).await;
    env.assign(&facility, &titular, "Titular").await;
    let at = (chrono::Utc::now() + chrono::TimeDelta::seconds(5)).to_rfc3339();
    env.run(&["document", "schedule-email", &id, "--at", &at])
        .await
        .expect(0);
    env.run(&["facility", "unassign", &facility, "--user", &titular])
        .await
        .expect(0);
    let d = shown_once(&env, &id, "the second e-mail tried", |d| {
        d["scheduledEmail"]["attempts"].as_i64() >= Some(1)
    })
    .await;
    assert_eq!(d["scheduledEmail"]["status"], "pending", "{d:#}");
    assert_ne!(d["scheduledEmail"]["_id"], d["sentEmail"]["_id"], "{d:#}");

    let shown = env.run(&show).await.expect(0).stdout;
    for said in [
        "pending, scheduled for ",
        "1 attempt, the next at ",
        "last error: ",
        "no active users",
        "last sent ",
        "to fisica@example.com",
    ] {
        assert!(shown.contains(said), "{said:?} not in:\n{shown}");
    }
}

/// `document show ID -o json` once `done` holds of it (the e-mail worker runs on its own), within
/// a minute; `what` says what was waited for.
async fn shown_once(
    env: &Env,
    id: &str,
    what: &str,
    done: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let d = env.json(&["document", "show", id]).await;
        if done(&d) {
            return d;
        }
        assert!(std::time::Instant::now() < deadline, "{what}: {d:#}");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}
