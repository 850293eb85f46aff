// `sqlx::migrate!` embeds the migrations when the crate compiles: a migration added or changed
// must recompile it.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
