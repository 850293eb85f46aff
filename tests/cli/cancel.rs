//! Ctrl-C at a prompt cancels the command: "Cancelled." on stderr, exit code 130, nothing sent.

use crate::harness::{ADMIN_EMAIL, Env, dialogue, reply, spawn};

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_at_a_prompt_says_cancelled_and_exits_130() {
    let env = Env::logged_in().await;
    let create = env.at_terminal(&["facility", "create"]);
    dialogue("Ctrl-C in the wizard", move || {
        let mut p = spawn(create)?;
        reply(&mut p, "Name", "Clinica Cancelada")?;
        p.exp_string("Company name")?;
        p.send_control('c')?;
        p.exp_string("Cancelled.")?;
        p.exp_eof()?;
        let status = format!("{:?}", p.process.wait()?);
        assert!(
            status.contains("Exited(") && status.ends_with(", 130)"),
            "{status}"
        );
        Ok(())
    })
    .await;
    assert_eq!(env.facility_count().await, 0, "nothing was sent");
}
