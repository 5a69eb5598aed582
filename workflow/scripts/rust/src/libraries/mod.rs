//! The JWS libraries the driver can time, each behind the same adapter.

mod josekit;
mod jsonwebtoken;
mod jwt_simple;

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::failure::Failure;
use crate::jws::Alg;

pub trait SignJws: Send + Sync {
    /// The claims as a compact JWS through the library's ordinary API, or its error message.
    fn sign(&self, claims: &Value) -> Result<String, String>;
}

/// A verifying key of one algorithm, parsed once, with the verify policy configured.
pub trait VerifyJws: Send + Sync {
    /// The verified claims, the library's verdict (`Invalid`, exit 1) or its failure (`Error`, 4).
    fn verify(&self, token: &[u8]) -> Result<Value, Failure>;
}

/// A verifying key for `verify --signature-only`, through the library's JWS layer.
pub trait VerifyJwsSignature: Send + Sync {
    fn verify_signature(&self, token: &str) -> Result<Vec<u8>, Failure>;
}

pub type Decode = fn(&str) -> Result<Value, Failure>;

pub trait Library: Sync {
    /// The rows' `implementation` and `implementation_version`.
    fn name(&self) -> &'static str;
    fn version(&self) -> &'static str;
    /// Why the library cannot do `alg` (its driver.yaml's `unsupported` says the same).
    fn unsupported(&self, alg: Alg) -> Option<&'static str>;
    /// The keys of `alg` from file `path`'s bytes: HMAC secret, PKCS#8 or SPKI PEM.
    fn signer(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn SignJws>, Failure>;
    fn verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJws>, Failure>;
    fn signature_verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJwsSignature>, Failure>;
    /// The library's documented decode without verification, or why it has none.
    fn decoder(&self) -> Result<Decode, &'static str>;
    /// `versions`: the crypto backend and every library the driver loads for it.
    fn crypto_backend(&self) -> String;
    fn libraries(&self) -> Map<String, Value>;
}

static LIBRARIES: [&dyn Library; 3] = [&jsonwebtoken::JSONWEBTOKEN, &jwt_simple::JWT_SIMPLE, &josekit::JOSEKIT];

/// The library `JWTBENCH_LIBRARY` names (unset or empty: jsonwebtoken; unknown: exit 2).
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

pub fn current() -> &'static dyn Library {
    select().unwrap_or(LIBRARIES[0])
}

/// A key that the library cannot parse as `what` for `alg`: an input error naming the file.
pub fn key_error(path: &str, what: &str, alg: Alg, error: impl std::fmt::Display) -> Failure {
    Failure::Input(format!("{path}: not a {what} for {alg:?}: {error}"))
}

pub fn pem_text<'a>(key: &'a [u8], path: &str) -> Result<&'a str, Failure> {
    std::str::from_utf8(key).map_err(|_| Failure::Input(format!("{path}: not a PEM file (not UTF-8)")))
}

pub fn reason(kind: &str, message: impl std::fmt::Display) -> String {
    crate::failure::one_line(&format!("{kind}: {message}"))
}
