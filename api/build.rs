// `sqlx::migrate!` embeds the SQL files at compile time; rebuild when they change. The message
// catalogues (`i18n/*.json`) are embedded too (`include_str!`, see `language.rs`).
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
    println!("cargo:rerun-if-changed=../i18n");
}
