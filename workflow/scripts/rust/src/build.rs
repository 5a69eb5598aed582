// Bakes what `versions` reports into the binary: the rustc that compiled it (Cargo's
// RUSTC) and the exact version of each crate the driver uses, read from Cargo.lock, so
// the reported versions are the locked ones and cannot drift from them. A crate locked in
// two versions is named `name@prefix` for the one whose version starts with the prefix
// (`p256@0.14`: JWTBENCH_CRATE_P256_0_14); a bare name takes the first in the lock.
use std::{env, fs, path::Path, process::Command};

const CRATES: &[&str] = &[
    "jsonwebtoken",
    "serde_json",
    "base64",
    "sha2",
    "sha1",
    "md-5",
    "hmac",
    "aes-gcm",
    "rsa",
    "p256",
    "p384",
    "p521",
    "ed25519-dalek",
    "rand",
    "uuid",
    // the crosscheck command's native harness
    "criterion",
    // JWTBENCH_LIBRARY=jwt-simple (pure-rust feature) and the crates it signs with
    "jwt-simple",
    "superboring",
    "p256@0.14",
    "p384@0.14",
    "ed25519-compact",
    "hmac-sha256",
    "hmac-sha512",
    "coarsetime",
    // JWTBENCH_LIBRARY=josekit, on the openssl crate
    "josekit",
    "openssl",
    "openssl-sys",
];

fn main() {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map(|text| text.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=JWTBENCH_RUSTC_VERSION={version}");

    let manifest_dir = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let lock_path = Path::new(&manifest_dir).join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    let lock = fs::read_to_string(&lock_path).expect("Cargo.lock beside Cargo.toml");
    let mut locked: Vec<(String, String)> = Vec::new();
    let mut name: Option<&str> = None;
    for line in lock.lines() {
        if let Some(value) = line.strip_prefix("name = ") {
            name = Some(value.trim_matches('"'));
        } else if let (Some(crate_name), Some(value)) = (name, line.strip_prefix("version = ")) {
            locked.push((crate_name.to_string(), value.trim_matches('"').to_string()));
            name = None;
        }
    }
    for wanted in CRATES {
        let (crate_name, prefix) = wanted.split_once('@').unwrap_or((wanted, ""));
        let version = locked
            .iter()
            .find(|(n, v)| n == crate_name && v.starts_with(prefix))
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("{wanted} is not in Cargo.lock"));
        let key = wanted.to_uppercase().replace(['-', '@', '.'], "_");
        println!("cargo:rustc-env=JWTBENCH_CRATE_{key}={version}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
