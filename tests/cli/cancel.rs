//! Ctrl-C at a prompt cancels the command: "Cancelled." on stderr, exit code 130, nothing sent.

use crate::harness::{ADMIN_EMAIL, Env, dialogue, reply, spawn};

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_at_a_prompt_says_cancelled_and_exits_130() {
    let env = Env::logged_in().await;
    let create = env.at_terminal(&["facility", "create"]);
    // A password prompt reads a cooked line (Ctrl-C is a signal there), a wizard's in raw mode.
    let login = env.at_terminal(&["login", "--server", &env.server, "--email", ADMIN_EMAIL]);
    dialogue("Ctrl-C at prompts", move || {
        for (cmd, prompt) in [(create, "Company name"), (login, "Password")] {
            let mut p = spawn(cmd)?;
            if prompt == "Company name" {
                reply(&mut p, "Name", "Clinica Cancelada")?;
            }
            p.exp_string(prompt)?;
            p.send_control('c')?;
            p.exp_string("Cancelled.")?;
            p.exp_eof()?;
            let status = format!("{:?}", p.process.wait()?);
            assert!(status.ends_with(", 130)"), "{prompt}: {status}");
        }
        Ok(())
    })
    .await;
    assert_eq!(env.facility_count().await, 0, "nothing was sent");
}
