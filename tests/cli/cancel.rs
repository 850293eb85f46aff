//! Ctrl-C at a prompt cancels the command: "Cancelled." on stderr, exit code 130, nothing sent.

use crate::harness::{ADMIN_EMAIL, Env, dialogue, facility_flags, reply, spawn, strs};

/// Reads until the command says "Cancelled." and ends, with exit code 130: what it said after.
fn ends_cancelled(p: &mut rexpect::session::PtySession) -> Result<String, rexpect::error::Error> {
    p.exp_string("Cancelled.")?;
    let after = p.exp_eof()?;
    let status = format!("{:?}", p.process.wait()?);
    assert!(status.ends_with(", 130)"), "{status}");
    Ok(after)
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_at_a_prompt_says_cancelled_and_exits_130() {
    let env = Env::logged_in().await;
    let create = env.at_terminal(&["facility", "create"]);
    // A password prompt reads a cooked line (Ctrl-C is a signal there), a wizard's in raw mode.
    let login = env.at_terminal(&["login", "--server", &env.server, "--email", ADMIN_EMAIL]);
    let json_login = env.at_terminal(&[
        "login",
        "--server",
        &env.server,
        "--email",
        ADMIN_EMAIL,
        "-o",
        "json",
    ]);
    dialogue("Ctrl-C at prompts", move || {
        for (cmd, prompt) in [(create, "Company name"), (login, "Password")] {
            let mut p = spawn(cmd)?;
            if prompt == "Company name" {
                reply(&mut p, "Name", "Clinica Cancelada")?;
            }
            p.exp_string(prompt)?;
            p.send_control('c')?;
            ends_cancelled(&mut p)?;
        }
        // With `-o json` the envelope follows, whichever thread saw the Ctrl-C.
        let mut p = spawn(json_login)?;
        p.exp_string("Password")?;
        p.send_control('c')?;
        let after = ends_cancelled(&mut p)?;
        assert_eq!(
            after.matches(r#""code": "cancelled""#).count(),
            1,
            "{after}"
        );
        Ok(())
    })
    .await;
    assert_eq!(env.facility_count().await, 0, "nothing was sent");
}

/// Ctrl-C at a yes/no question, which hides the cursor, shows it again; with `-o json` the
/// envelope comes once, though the key reaches the question and the signal the watcher.
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_at_a_question_shows_the_cursor_and_answers_once() {
    let env = Env::logged_in().await;
    let cnpj = crate::harness::cnpj(92);
    env.run(&strs(&facility_flags("Pergunta", &cnpj)))
        .await
        .expect(0);
    let archive = env.at_terminal(&["facility", "archive", &cnpj, "-o", "json"]);
    dialogue("Ctrl-C at a question", move || {
        let mut p = spawn(archive)?;
        p.exp_string("(y/n)")?;
        p.send_control('c')?;
        let before = p.exp_string("Cancelled.")?;
        let after = p.exp_eof()?;
        let status = format!("{:?}", p.process.wait()?);
        assert!(status.ends_with(", 130)"), "{status}");
        assert!(
            before.contains("\u{1b}[?25h"),
            "the cursor stays hidden: {before:?}"
        );
        // Once, in the order of every other envelope.
        let envelope = "{\n  \"message\": \"Cancelled.\",\n  \"code\": \"cancelled\"\n}";
        let after = after.replace("\r\n", "\n");
        assert_eq!(after.matches(envelope).count(), 1, "{after}");
        Ok(())
    })
    .await;
    assert_eq!(env.facility_count().await, 1, "nothing was archived");
}

/// Ctrl-D on an empty answer cancels like Ctrl-C; Ctrl-U erases a value offered to correct, so
/// that what is typed next replaces it instead of being appended to it.
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_d_on_an_empty_answer_cancels_and_ctrl_u_erases() {
    let env = Env::logged_in().await;
    let valid = crate::harness::cnpj(91);
    // A cnpj with wrong check digits, given as a flag: asked for at once, with it as the text.
    let create = env.at_terminal(&["facility", "create", "--cnpj", "11222333000182"]);
    let login = env.at_terminal(&["login", "--server", &env.server]);
    let password = env.at_terminal(&["login", "--server", &env.server, "--email", "x@example.com"]);
    dialogue("Ctrl-D and Ctrl-U at prompts", move || {
        let mut p = spawn(create)?;
        // Named by its flag, as the person gave it.
        p.exp_string("--cnpj")?;
        p.exp_string("check digits do not match")?;
        // Asked for first, before the wizard's own questions.
        p.exp_string("CNPJ")?;
        p.send_control('u')?;
        p.send_line("")?;
        // Erased and left blank: asked again saying why, the value given offered again.
        p.exp_string("is required")?;
        p.exp_string("11222333000182")?;
        p.send_control('u')?;
        p.send_line(&valid)?;
        // Accepted (not appended to the wrong one): the wizard goes on to the name.
        reply(&mut p, "Name", "Clinica Corrigida")?;
        reply(&mut p, "Company name", "Corrigida Ltda")?;
        p.exp_string("Telephone")?;
        p.send_control('d')?;
        ends_cancelled(&mut p)?;

        let mut p = spawn(login)?;
        p.exp_string("E-mail")?;
        p.send_control('d')?;
        ends_cancelled(&mut p)?;

        // A hidden prompt too: Ctrl-D on an empty password cancels.
        let mut p = spawn(password)?;
        p.exp_string("Password")?;
        p.send_control('d')?;
        ends_cancelled(&mut p)?;
        Ok(())
    })
    .await;
    assert_eq!(env.facility_count().await, 0, "nothing was sent");
}

/// Ctrl-C during an import says how far it got (a re-run skips what was registered).
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_during_an_import_says_what_was_registered() {
    let env = Env::logged_in().await;
    let mut csv = String::from("name,companyName,cnpj,telephone,department,street,city,state\n");
    for n in 0..2000 {
        csv.push_str(&format!(
            "Cancelada {n},X Ltda,{},(81) 3333-4444,Medicina Nuclear,Rua,Recife,PE\n",
            crate::harness::cnpj(5000 + n)
        ));
    }
    let path = env.write("muitas.csv", &csv);
    let import = env.at_terminal(&["facility", "import", &path, "--concurrency", "1"]);
    let said = dialogue("Ctrl-C during an import", move || {
        let mut p = spawn(import)?;
        p.exp_string("facilities (")?;
        p.send_control('c')?;
        let said = ends_cancelled(&mut p)?;
        assert!(
            said.contains("import stopped: ") && said.contains("a re-run skips them"),
            "{said}"
        );
        Ok(said)
    })
    .await;
    // What it says it created, and what it had sent without an answer (which may have been
    // registered too), bound what the server holds.
    let number_before = |said: &str, words: &str| -> usize {
        let at = said.find(words).map_or(0, |i| i);
        let digits: String = said[..at]
            .trim_end()
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect();
        digits
            .chars()
            .rev()
            .collect::<String>()
            .parse()
            .unwrap_or(0)
    };
    let created = number_before(&said, " created");
    let unanswered = number_before(&said, " sent without an answer");
    let registered = env.facility_count().await as usize;
    assert!(registered > 0 && registered < 2000, "{registered}");
    assert!(
        (created..=created + unanswered).contains(&registered),
        "{registered} registered; said: {said}"
    );
}
