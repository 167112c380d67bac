//! Embeds the SQL migrations in the binary: `migrations.rs` in `OUT_DIR` lists every file of
//! `migrations/<backend>/` with its text (`store::migrations` turns them into sqlx's
//! `Migrator`). Written here rather than with `sqlx::migrate!` so the server's build needs no
//! sqlx macros (their own copy of sqlx and both drivers, compiled for the build).
use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // The message catalogues are embedded too (`include_str!` in `language.rs` and `pad.rs`).
    println!("cargo:rerun-if-changed=../i18n");
    // Read when the script runs, not baked in when it is compiled: a build script compiled for
    // one checkout is reused by another that shares the target directory.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("../migrations");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut out = String::new();
    for backend in ["sqlite", "postgres"] {
        let dir = root.join(backend);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("a readable migrations folder").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "sql"))
            .collect();
        files.sort();
        writeln!(
            out,
            "pub const {}: &[(&str, &str)] = &[",
            backend.to_uppercase()
        )
        .unwrap();
        for path in files {
            println!("cargo:rerun-if-changed={}", path.display());
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .expect("a UTF-8 file name");
            writeln!(
                out,
                "    ({name:?}, include_str!({:?})),",
                path.display().to_string()
            )
            .unwrap();
        }
        writeln!(out, "];").unwrap();
    }
    let target = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("migrations.rs");
    std::fs::write(target, out).expect("OUT_DIR is writable");
}
