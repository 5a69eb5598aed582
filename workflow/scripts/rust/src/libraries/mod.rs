//! The JWS libraries the harness can time, each behind the same small adapter: its keys
//! parsed once into the library's own key objects, `sign`, `verify` under the verify
//! policy, `verify --signature-only` through the library's JWS layer, and `decode` where
//! the library documents one. `JWTBENCH_LIBRARY` picks the adapter (workflow/scripts/README.md,
//! "A further library of a language"); unset, it is the driver's own library, jsonwebtoken.

mod josekit;
mod jsonwebtoken;
mod jwt_simple;

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::failure::Failure;
use crate::jws::Alg;

/// A signing key of one algorithm, parsed once.
pub trait SignJws: Send + Sync {
    /// The claims as a compact JWS, signed through the library's ordinary API; the error is
    /// the library's message.
    fn sign(&self, claims: &Value) -> Result<String, String>;
}

/// A verifying key of one algorithm, parsed once, with the verify policy configured.
pub trait VerifyJws: Send + Sync {
    /// The verified claims, or the library's verdict (`Failure::Invalid`, exit 1) or another
    /// failure of the library (`Failure::Error`, exit 4).
    fn verify(&self, token: &[u8]) -> Result<Value, Failure>;
}

/// A verifying key of one algorithm, parsed once, for `verify --signature-only`: the JWS
/// alone through the library's JWS layer.
pub trait VerifyJwsSignature: Send + Sync {
    /// The header must name the key's algorithm and the signature over the signing input must
    /// verify; returns the payload segment's bytes as signed (no claims parsed, no `exp`).
    fn verify_signature(&self, token: &str) -> Result<Vec<u8>, Failure>;
}

/// `decode`: the claims of a compact JWS without checking its signature.
pub type Decode = fn(&str) -> Result<Value, Failure>;

pub trait Library: Sync {
    /// The rows' `implementation` and `implementation_version`.
    fn name(&self) -> &'static str;
    fn version(&self) -> &'static str;
    /// Why the library cannot do `alg` (its driver.yaml's `unsupported` says the same).
    fn unsupported(&self, alg: Alg) -> Option<&'static str>;
    /// The signing key of `alg` from the bytes of `path` (the HMAC secret or a PKCS#8 PEM).
    fn signer(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn SignJws>, Failure>;
    /// The verifying key of `alg` from the bytes of `path` (the HMAC secret or an SPKI PEM).
    fn verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJws>, Failure>;
    /// The key of `verify --signature-only` (the HMAC secret or an SPKI PEM), parsed once.
    fn signature_verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJwsSignature>, Failure>;
    /// The library's documented decode without verification, or why it has none.
    fn decoder(&self) -> Result<Decode, &'static str>;
    /// `versions`: the crypto backend and every library the driver loads for it.
    fn crypto_backend(&self) -> String;
    fn libraries(&self) -> Map<String, Value>;
}

static LIBRARIES: [&dyn Library; 3] = [&jsonwebtoken::JSONWEBTOKEN, &jwt_simple::JWT_SIMPLE, &josekit::JOSEKIT];

/// The library `JWTBENCH_LIBRARY` names (unset or empty: jsonwebtoken); an unknown name is
/// an input error (exit 2).
pub fn select() -> Result<&'static dyn Library, Failure> {
    static SELECTED: OnceLock<Result<&'static dyn Library, String>> = OnceLock::new();
    SELECTED
        .get_or_init(|| {
            let wanted = std::env::var("JWTBENCH_LIBRARY").unwrap_or_default();
            if wanted.is_empty() {
                return Ok(LIBRARIES[0]);
            }
            LIBRARIES.iter().copied().find(|l| l.name() == wanted).ok_or_else(|| {
                let known: Vec<&str> = LIBRARIES.iter().map(|l| l.name()).collect();
                format!("JWTBENCH_LIBRARY={wanted:?} is not one of {}", known.join(", "))
            })
        })
        .clone()
        .map_err(Failure::Input)
}

/// The selected library; `select` has been called (main does, before any command).
pub fn current() -> &'static dyn Library {
    select().unwrap_or(LIBRARIES[0])
}

/// A key that the library cannot parse as `what` for `alg`: an input error naming the file.
pub fn key_error(path: &str, what: &str, alg: Alg, error: impl std::fmt::Display) -> Failure {
    Failure::Input(format!("{path}: not a {what} for {alg:?}: {error}"))
}

/// A key file's bytes as the PEM text the library's PEM parsers take.
pub fn pem_text<'a>(key: &'a [u8], path: &str) -> Result<&'a str, Failure> {
    std::str::from_utf8(key).map_err(|_| Failure::Input(format!("{path}: not a PEM file (not UTF-8)")))
}

/// The library's error as one line, `Kind: message`.
pub fn reason(kind: &str, message: impl std::fmt::Display) -> String {
    crate::failure::one_line(&format!("{kind}: {message}"))
}

/// The crate versions build.rs baked in (read from Cargo.lock).
#[macro_export]
macro_rules! crate_versions {
    ($($name:literal => $env:literal),* $(,)?) => {{
        let mut map = serde_json::Map::new();
        $(map.insert($name.to_string(), serde_json::Value::String(env!($env).to_string()));)*
        map
    }};
}
