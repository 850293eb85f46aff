//! The arguments of the `registry` commands the tests run most: a valid facility's flags, a
//! login's, a responsibility's, an equipment's or a QC test's; valid CNPJs.

use crate::common;

/// A valid numeric CNPJ built from `n`, unique per `n`.
pub fn cnpj(n: u64) -> String {
    let base = format!("{:012}", 10_000_000_000 + n);
    common::cnpj_of(base.as_bytes().try_into().expect("12 digits"))
}

/// A CNPJ written with its punctuation: `12.345.678/0001-95`.
pub fn punctuated(cnpj: &str) -> String {
    format!(
        "{}.{}.{}/{}-{}",
        &cnpj[..2],
        &cnpj[2..5],
        &cnpj[5..8],
        &cnpj[8..12],
        &cnpj[12..]
    )
}

/// `registry facility create` flags for a valid facility.
pub fn facility_flags(name: &str, cnpj: &str) -> Vec<String> {
    [
        "facility",
        "create",
        "--name",
        name,
        "--company-name",
        &format!("{name} Ltda"),
        "--cnpj",
        cnpj,
        "--telephone",
        "(81) 3333-4444",
        "--department",
        "Medicina Nuclear",
        "--street",
        "Rua da Aurora, 100",
        "--city",
        "Recife",
        "--state",
        "PE",
        "--practice",
        "Diagnóstico",
        "--isotope",
        "Tc(99m)=1500",
        "--isotope",
        "I(131)=200.5",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// `registry [--profile PROFILE] login` at `server` as `email`, the password read from stdin.
pub fn login_args<'a>(server: &'a str, profile: Option<&'a str>, email: &'a str) -> Vec<&'a str> {
    let mut args = Vec::new();
    if let Some(p) = profile {
        args.extend(["--profile", p]);
    }
    args.extend([
        "login",
        "--server",
        server,
        "--email",
        email,
        "--password-stdin",
    ]);
    args
}

/// `registry facility assign|unassign` (`verb`) of `role` at facility `id` to or from `user`.
pub fn role_args<'a>(verb: &'a str, id: &'a str, user: &'a str, role: &'a str) -> [&'a str; 7] {
    ["facility", verb, id, "--user", user, "--role", role]
}

/// `registry equipment create --facility FACILITY`, then `rest`.
pub fn equipment_args<'a>(facility: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["equipment", "create", "--facility", facility];
    args.extend_from_slice(rest);
    args
}

/// `registry test record` of `test_type` on `equipment`, then `rest`.
pub fn record_args<'a>(equipment: &'a str, test_type: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "test",
        "record",
        "--equipment",
        equipment,
        "--test-type",
        test_type,
    ];
    args.extend_from_slice(rest);
    args
}

pub fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}
