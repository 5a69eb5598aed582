//! `versions`: the toolchain and every crate as compiled in (build.rs reads Cargo.lock).

use serde_json::json;

/// The name suites hash, primitive and keygen write for the raw primitives: the RustCrypto
/// crates, the very ones jsonwebtoken's `rust_crypto` backend signs with.
pub const RUSTCRYPTO: &str = "RustCrypto";

/// `name version` of one crate as locked, for the rows' implementation_version column.
macro_rules! crate_version {
    ($name:literal, $env:literal) => {
        concat!($name, " ", env!($env))
    };
}
pub const SHA2: &str = crate_version!("sha2", "JWTBENCH_CRATE_SHA2");
pub const SHA1: &str = crate_version!("sha1", "JWTBENCH_CRATE_SHA1");
pub const MD5: &str = crate_version!("md-5", "JWTBENCH_CRATE_MD_5");
pub const HMAC: &str = crate_version!("hmac", "JWTBENCH_CRATE_HMAC");
pub const AES_GCM: &str = crate_version!("aes-gcm", "JWTBENCH_CRATE_AES_GCM");
pub const RSA: &str = crate_version!("rsa", "JWTBENCH_CRATE_RSA");
pub const P256: &str = crate_version!("p256", "JWTBENCH_CRATE_P256");
pub const P384: &str = crate_version!("p384", "JWTBENCH_CRATE_P384");
pub const P521: &str = crate_version!("p521", "JWTBENCH_CRATE_P521");
pub const ED25519: &str = crate_version!("ed25519-dalek", "JWTBENCH_CRATE_ED25519_DALEK");
pub const UUID: &str = crate_version!("uuid", "JWTBENCH_CRATE_UUID");

/// `versions` of the selected library (JWTBENCH_LIBRARY): its name and version are the
/// rows' `implementation` columns; `libraries` lists every crate the driver loads for it.
pub fn report() -> String {
    let library = crate::libraries::current();
    let rustc = env!("JWTBENCH_RUSTC_VERSION");
    let runtime_version = rustc.split_whitespace().nth(1).unwrap_or("unknown");
    json!({
        "language": "rust",
        "runtime": "rustc",
        "runtime_version": runtime_version,
        "compiler": rustc,
        "build_profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "implementation": library.name(),
        "implementation_version": library.version(),
        "crypto_backend": library.crypto_backend(),
        "libraries": library.libraries(),
    })
    .to_string()
}
