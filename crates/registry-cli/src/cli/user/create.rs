//! `registry user create`: the password is prompted, or read with --password-stdin; at the
//! terminal the roles are picked from those the caller may grant.

use super::fields::UserFields;
use super::{view, wizard};
use crate::cli::context::{Ctx, Fail};
use crate::cli::prompt::PasswordKind;
use crate::cli::{output, prompt, rules};
use clap::Args;
use registry_core::user::read_user;
use serde_json::json;

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[command(flatten)]
    fields: UserFields,
    /// Read the password from the first line of stdin instead of prompting.
    #[arg(long)]
    password_stdin: bool,
}

pub async fn run(ctx: &Ctx, a: CreateArgs) -> Result<(), Fail> {
    let terms = a.fields.terms();
    let refused = |errors| terms.apply(Fail::Invalid(errors));
    // The fields given, an unknown --role among them, so that one check names every refused one.
    let given = a.fields.given();
    // Without a terminal: a value given that the checks refuse is refused first, with every
    // other one (exit 4), then every missing flag is named at once (exit 2), the password's
    // among them — one run tells a script everything it lacks.
    let required = [
        ("--name", !given["name"].is_null()),
        ("--email", !given["email"].is_null()),
        ("--password-stdin", a.password_stdin),
    ];
    if !ctx.interactive && required.iter().any(|(_, given)| !given) {
        if let Err(errors) = read_user(&given, false) {
            let missing: Vec<(&str, &str)> = [("name", "--name"), ("email", "--email")]
                .into_iter()
                .chain([("password", "--password-stdin")])
                .zip(&required)
                .filter(|(_, (_, given))| !given)
                .map(|(pair, _)| pair)
                .collect();
            return Err(terms.refused_with_missing(errors, &missing));
        }
        prompt::require(false, &required)?;
    }
    // An unknown --role is refused before anything is asked, with every other refused flag —
    // and a weak password read from stdin (--password-stdin), so one run names them all.
    if !a.fields.roles_known() && a.password_stdin {
        let mut given = given;
        given["password"] = json!(prompt::password(
            true,
            ctx.interactive,
            "Password",
            PasswordKind::New
        )?);
        return Err(refused(read_user(&given, true).err().unwrap_or_default()));
    }
    let mut input = a.fields.input()?;
    let name_rule: prompt::Check = &rules::not_empty;
    let email_rule: prompt::Check = &rules::email;
    let telephone_rule = rules::user_field("telephone");
    let cpf_rule = rules::user_field("cpf");
    let an_rule = rules::user_field("ANLicenseValidity");
    let fm_rule = rules::user_field("FMLicenseValidity");
    let (an, fm) = ("AN licence valid until", "FM licence valid until");
    // The values given as flags are checked first (at a terminal, a wrong one is asked for again
    // before any other question), then the missing required ones are asked for.
    for given in [true, false] {
        let l = &mut input.licences;
        for (value, flag, label, rule) in [
            (&mut input.name, "--name", "Name", name_rule),
            (&mut input.email, "--email", "E-mail", email_rule),
            (
                &mut input.telephone,
                "--telephone",
                "Telephone",
                &telephone_rule,
            ),
            (&mut input.cpf, "--cpf", "CPF", &cpf_rule),
            (&mut l.an_validity, "--an-license-validity", an, &an_rule),
            (&mut l.fm_validity, "--fm-license-validity", fm, &fm_rule),
        ] {
            let required = matches!(flag, "--name" | "--email");
            if value.is_some() == given && (given || required) {
                *value = Some(prompt::checked(
                    value.take(),
                    ctx.interactive,
                    flag,
                    label,
                    None,
                    Some(rule),
                )?);
            }
        }
    }
    if input.roles.is_none() && ctx.interactive {
        input.roles = wizard::ask_roles(ctx, &[]).await?;
    }
    // A value the checks refuse went on as given: it is refused with every other field (exit
    // 4) — the password from --password-stdin among them, else before one is asked for.
    if !a.password_stdin {
        let fields = serde_json::to_value(&input).map_err(anyhow::Error::from)?;
        read_user(&fields, false).map_err(refused)?;
    }
    let password = prompt::password(
        a.password_stdin,
        ctx.interactive,
        "Password",
        PasswordKind::New,
    )?;
    input.password = Some(password);
    let payload = serde_json::to_value(&input).map_err(anyhow::Error::from)?;
    read_user(&payload, true).map_err(refused)?;
    if ctx.client.token().is_none() {
        // Self-registration: the server answers the same whether the e-mail was taken or not.
        let m = ctx
            .client
            .register_self(&input)
            .await
            .map_err(|e| terms.apply(e.into()))?;
        return Ok(output::message(ctx.format, &m)?);
    }
    let u = ctx
        .client
        .register_user(&input)
        .await
        .map_err(|e| terms.apply(e.into()))?;
    output::note(format!("Created {} <{}> ({})", u.name, u.email, u.id));
    view::show(ctx, &u)
}
