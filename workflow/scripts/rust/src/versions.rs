//! `versions`: the toolchain and the crates as compiled in (build.rs reads Cargo.lock).

use serde_json::{Map, Value, json};

const LOCKED: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/locked.rs"));

/// The implementation of suites hash, primitive and keygen (jsonwebtoken's own backend).
pub const RUSTCRYPTO: &str = "RustCrypto";

/// The locked version of crate `name`; `name@prefix` picks, of a crate locked in two
/// versions, the one starting with the prefix (`p256@0.14`).
pub fn locked(wanted: &str) -> &'static str {
    let (name, prefix) = wanted.split_once('@').unwrap_or((wanted, ""));
    LOCKED.iter().find(|(n, v)| *n == name && v.starts_with(prefix)).map_or("unknown", |(_, v)| v)
}

pub fn crate_version(name: &str) -> String {
    format!("{name} {}", locked(name))
}

pub fn libraries(names: &str) -> Map<String, Value> {
    let entry = |name: &str| (name.split('@').next().unwrap_or(name).to_string(), locked(name).into());
    names.split_whitespace().map(entry).collect()
}

pub fn report() -> String {
    let library = crate::libraries::current();
    let rustc = env!("JWTBENCH_RUSTC_VERSION");
    json!({
        "language": "rust",
        "runtime": "rustc",
        "runtime_version": rustc.split_whitespace().nth(1).unwrap_or("unknown"),
        "compiler": rustc,
        "build_profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "implementation": library.name(),
        "implementation_version": library.version(),
        "crypto_backend": library.crypto_backend(),
        "libraries": library.libraries(),
    })
    .to_string()
}
