//! `registry user …`: list, show, create, edit, deactivate, facilities, passwords; and finding a
//! user by _id, e-mail or name for the other commands.

use super::output::{self, Rows};
use super::{Ctx, Fail, facility, prompt};
use clap::{Args, Subcommand};
use registry_client::{ClientError, ListQuery};
use registry_core::Role;
use registry_core::api::User;
use registry_core::user::read_user;
use serde_json::{Map, Value, json};

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// List users (staff).
    List {
        /// Text in the name or e-mail.
        #[arg(long)]
        q: Option<String>,
        #[arg(long, value_parser = parse_role)]
        role: Option<Role>,
        /// Only active (true) or only deactivated (false) users.
        #[arg(long)]
        active: Option<bool>,
    },
    /// Show a user (by _id, e-mail or name).
    Show { user: String },
    /// Create a user; the password is prompted, or read with --password-stdin.
    Create(CreateArgs),
    /// Edit a user: only the fields given change.
    Edit(EditArgs),
    /// Deactivate a user (their tokens stop working; history is kept).
    Deactivate {
        user: String,
        #[arg(long, short)]
        yes: bool,
    },
    /// The facilities a user is linked to.
    Facilities { user: String },
    /// Change your password, or (Administrator) another user's with --user.
    Password {
        #[arg(long)]
        user: Option<String>,
        /// Read the new password from stdin (your current one first, on its own line, when
        /// changing your own).
        #[arg(long)]
        password_stdin: bool,
    },
    /// Ask for a password recovery e-mail.
    Recover { email: String },
    /// Set a new password with the code of a recovery e-mail.
    ResetPassword {
        #[arg(long)]
        token: String,
        #[arg(long)]
        password_stdin: bool,
    },
}

#[derive(Debug, Args)]
pub struct UserFields {
    #[arg(long)]
    name: Option<String>,
    #[arg(long)]
    email: Option<String>,
    #[arg(long)]
    telephone: Option<String>,
    #[arg(long)]
    cpf: Option<String>,
    /// A role (repeat for several): Administrator, Admin, Físico, Laudos, Cliente.
    #[arg(long = "role", value_parser = parse_role)]
    roles: Vec<Role>,
    #[arg(long = "an-license-number")]
    an_number: Option<String>,
    #[arg(long = "an-license-validity")]
    an_validity: Option<String>,
    #[arg(long = "fm-license-number")]
    fm_number: Option<String>,
    #[arg(long = "fm-license-validity")]
    fm_validity: Option<String>,
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[command(flatten)]
    fields: UserFields,
    #[arg(long)]
    password_stdin: bool,
}

#[derive(Debug, Args)]
pub struct EditArgs {
    user: String,
    #[command(flatten)]
    fields: UserFields,
    /// Reactivate (true) or deactivate (false).
    #[arg(long)]
    active: Option<bool>,
}

fn parse_role(s: &str) -> Result<Role, String> {
    Role::parse(s).ok_or_else(|| format!("must be one of: {}", Role::allowed()))
}

impl UserFields {
    fn payload(&self) -> Map<String, Value> {
        let mut obj = Map::new();
        for (key, value) in [
            ("name", &self.name),
            ("email", &self.email),
            ("telephone", &self.telephone),
            ("cpf", &self.cpf),
            ("ANLicenseNumber", &self.an_number),
            ("ANLicenseValidity", &self.an_validity),
            ("FMLicenseNumber", &self.fm_number),
            ("FMLicenseValidity", &self.fm_validity),
        ] {
            if let Some(v) = value {
                obj.insert(key.into(), json!(v));
            }
        }
        if !self.roles.is_empty() {
            obj.insert("roles".into(), json!(self.roles));
        }
        obj
    }
}

pub async fn run(ctx: &Ctx, command: UserCommand) -> Result<(), Fail> {
    match command {
        UserCommand::List { q, role, active } => {
            let mut query = ListQuery::default();
            if let Some(q) = q {
                query = query.filter("q", q);
            }
            if let Some(r) = role {
                query = query.filter("role", r.as_str());
            }
            if let Some(a) = active {
                query = query.filter("active", a.to_string());
            }
            let users: Vec<User> = ctx.client.all_pages("/users", &query).await?;
            print_list(ctx, &users)
        }
        UserCommand::Show { user } => show(ctx, &resolve(ctx, &user).await?),
        UserCommand::Create(a) => create(ctx, a).await,
        UserCommand::Edit(a) => edit(ctx, a).await,
        UserCommand::Deactivate { user, yes } => {
            let u = resolve(ctx, &user).await?;
            if !prompt::confirm(
                ctx.interactive,
                yes,
                &format!("Deactivate {} <{}>?", u.name, u.email),
            )? {
                output::note("Not deactivated.");
                return Ok(());
            }
            let m = ctx.client.deactivate_user(&u.id).await?;
            output::note(format!("{} {} <{}>", m.message, u.name, u.email));
            Ok(())
        }
        UserCommand::Facilities { user } => {
            let u = resolve(ctx, &user).await?;
            let list = ctx.client.user_facilities(&u.id).await?;
            facility::print_list(ctx.format, &list)
        }
        UserCommand::Password {
            user,
            password_stdin,
        } => {
            let target = match user {
                Some(u) => Some(resolve(ctx, &u).await?),
                None => None,
            };
            let current = match &target {
                Some(_) => None,
                None => Some(prompt::password(
                    password_stdin,
                    ctx.interactive,
                    "Current password",
                    false,
                )?),
            };
            let new = prompt::password(password_stdin, ctx.interactive, "New password", true)?;
            let m = ctx
                .client
                .change_password(
                    target.as_ref().map(|u| u.id.as_str()),
                    current.as_deref(),
                    &new,
                )
                .await?;
            output::note(&m.message);
            if m.token.is_some() {
                output::note("Log in again with `registry login` (older sessions were ended).");
            }
            Ok(())
        }
        UserCommand::Recover { email } => {
            let m = ctx.client.request_password_recovery(&email).await?;
            output::note(m.message);
            Ok(())
        }
        UserCommand::ResetPassword {
            token,
            password_stdin,
        } => {
            let new = prompt::password(password_stdin, ctx.interactive, "New password", true)?;
            let m = ctx.client.reset_password(&token, &new).await?;
            output::note(m.message);
            Ok(())
        }
    }
}

fn roles(u: &User) -> String {
    u.roles
        .iter()
        .map(|r| r.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn print_list(ctx: &Ctx, users: &[User]) -> Result<(), Fail> {
    let cells = users
        .iter()
        .map(|u| {
            vec![
                u.id.clone(),
                u.name.clone(),
                u.email.clone(),
                roles(u),
                if u.active { "yes" } else { "no" }.into(),
            ]
        })
        .collect();
    output::print_rows(
        ctx.format,
        Rows {
            records: users,
            headers: &["_id", "name", "email", "roles", "active"],
            cells,
        },
    )?;
    Ok(())
}

fn show(ctx: &Ctx, u: &User) -> Result<(), Fail> {
    let l = &u.licences;
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    output::print_record(
        ctx.format,
        u,
        vec![
            ("_id", u.id.clone()),
            ("name", u.name.clone()),
            ("email", u.email.clone()),
            ("telephone", opt(&u.telephone)),
            ("cpf", opt(&u.cpf)),
            ("roles", roles(u)),
            ("active", u.active.to_string()),
            ("ANLicenseNumber", opt(&l.an_number)),
            ("ANLicenseValidity", opt(&l.an_validity)),
            ("FMLicenseNumber", opt(&l.fm_number)),
            ("FMLicenseValidity", opt(&l.fm_validity)),
        ],
    )?;
    Ok(())
}

async fn create(ctx: &Ctx, a: CreateArgs) -> Result<(), Fail> {
    let mut obj = a.fields.payload();
    for (key, flag, label) in [("name", "--name", "Name"), ("email", "--email", "E-mail")] {
        if !obj.contains_key(key) {
            let v = prompt::text_or_ask(None, ctx.interactive, flag, label)?;
            obj.insert(key.into(), json!(v));
        }
    }
    let password = prompt::password(a.password_stdin, ctx.interactive, "Password", true)?;
    obj.insert("password".into(), json!(password));
    let payload = Value::Object(obj);
    read_user(&payload, true).map_err(Fail::Invalid)?;
    let u = ctx.client.register_user(&payload).await?;
    output::note(format!("Created {} <{}> ({})", u.name, u.email, u.id));
    show(ctx, &u)
}

async fn edit(ctx: &Ctx, a: EditArgs) -> Result<(), Fail> {
    let u = resolve(ctx, &a.user).await?;
    let mut obj = a.fields.payload();
    if let Some(active) = a.active {
        obj.insert("active".into(), json!(active));
    }
    if obj.is_empty() {
        return Err(Fail::Usage(
            "nothing to change: give fields as flags (see --help)".into(),
        ));
    }
    read_user(&Value::Object(obj.clone()), false).map_err(Fail::Invalid)?;
    obj.insert("_id".into(), json!(u.id));
    let u = ctx.client.edit_user(&Value::Object(obj)).await?;
    output::note(format!("Saved {} <{}>", u.name, u.email));
    show(ctx, &u)
}

/// A user by `_id`, else by exact e-mail, else by the one name or e-mail containing `text`.
pub async fn resolve(ctx: &Ctx, text: &str) -> Result<User, Fail> {
    match ctx.client.user(text).await {
        Ok(u) => return Ok(u),
        Err(ClientError::NotFound(_)) => {}
        Err(e) => return Err(e.into()),
    }
    let found: Vec<User> = ctx
        .client
        .all_pages("/users", &ListQuery::default().filter("q", text))
        .await?;
    if let Some(u) = found
        .iter()
        .find(|u| u.email.eq_ignore_ascii_case(text.trim()))
    {
        return Ok(u.clone());
    }
    match found.len() {
        0 => Err(Fail::NotFound(format!(
            "no user with _id, e-mail or name `{text}`"
        ))),
        1 => Ok(found.into_iter().next().expect("one")),
        _ if ctx.interactive => {
            let labels: Vec<String> = found.iter().map(label).collect();
            let i = prompt::fuzzy_pick(&format!("Which `{text}`?"), &labels)?;
            Ok(found.into_iter().nth(i).expect("picked from the list"))
        }
        n => Err(Fail::NotFound(format!(
            "`{text}` matches {n} users ({}); give the e-mail or _id",
            found.iter().map(label).collect::<Vec<_>>().join("; ")
        ))),
    }
}

pub fn label(u: &User) -> String {
    format!("{} <{}>", u.name, u.email)
}

/// A fuzzy pick among the active users, by name or e-mail.
pub async fn pick(ctx: &Ctx, question: &str) -> Result<User, Fail> {
    let users: Vec<User> = ctx
        .client
        .all_pages("/users", &ListQuery::default().filter("active", "true"))
        .await?;
    if users.is_empty() {
        return Err(Fail::NotFound("there are no active users to pick".into()));
    }
    let labels: Vec<String> = users.iter().map(label).collect();
    let i = prompt::fuzzy_pick(question, &labels)?;
    Ok(users.into_iter().nth(i).expect("picked from the list"))
}
