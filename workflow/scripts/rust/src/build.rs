// Bakes the rustc (Cargo's RUSTC) and Cargo.lock's crate versions (`$OUT_DIR/locked.rs`)
// into the binary for `versions`.
use std::{env, fs, path::Path, process::Command};

fn main() {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map_or_else(|| "unknown".into(), |text| text.trim().to_string());
    println!("cargo:rustc-env=JWTBENCH_RUSTC_VERSION={version}");

    let manifest_dir = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let lock_path = Path::new(&manifest_dir).join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    println!("cargo:rerun-if-changed=build.rs");
    let lock = fs::read_to_string(&lock_path).expect("Cargo.lock beside Cargo.toml");
    // Cargo.lock's `name = "..."` and `version = "..."` lines are Rust string literals already.
    let mut table = String::from("&[\n");
    let mut name = None;
    for line in lock.lines() {
        if let Some(value) = line.strip_prefix("name = ") {
            name = Some(value);
        } else if let (Some(crate_name), Some(value)) = (name, line.strip_prefix("version = ")) {
            table.push_str(&format!("    ({crate_name}, {value}),\n"));
            name = None;
        }
    }
    table.push(']');
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("locked.rs");
    fs::write(out, table).expect("OUT_DIR is writable");
}
