//! The driver's own library, `jsonwebtoken` on its rust_crypto backend (../README.md).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde_json::{Map, Value};

use super::{Decode, Library, SignJws, VerifyJws, VerifyJwsSignature};
use crate::failure::{Failure, one_line};
use crate::jws::{Alg, split};
use crate::versions;

pub struct JsonWebToken;
pub static JSONWEBTOKEN: JsonWebToken = JsonWebToken;

/// ALG as jsonwebtoken's `Algorithm` (ES512, unsupported, never gets here).
fn algorithm(alg: Alg) -> Algorithm {
    alg.name().parse().expect("a JWS algorithm jsonwebtoken has")
}

/// The key of `alg` as `$key` (`EncodingKey` or `DecodingKey`): the secret, or a PEM parsed.
macro_rules! key {
    ($key:ident, $alg:expr, $bytes:expr, $path:expr, $what:expr) => {
        match algorithm($alg) {
            Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => Ok($key::from_secret($bytes)),
            Algorithm::ES256 | Algorithm::ES384 => $key::from_ec_pem($bytes),
            Algorithm::EdDSA => $key::from_ed_pem($bytes),
            _ => $key::from_rsa_pem($bytes),
        }
        .map_err(|e| super::key_error($path, $what, $alg, e))
    };
}

/// The verify policy, every item set explicitly (no `iat` check: driver.yaml, `verify.lacks`).
pub fn pinned_validation(alg: Algorithm) -> Validation {
    let mut validation = Validation::new(alg);
    validation.algorithms = vec![alg]; // alg: the header must name ALG, nothing else
    validation.validate_exp = true; // exp: rejected once now > exp
    validation.validate_nbf = true; // nbf: rejected while now < nbf (default off)
    validation.leeway = 0; // leeway: 0 s (default 60)
    validation.reject_tokens_expiring_in_less_than = 0;
    validation.required_spec_claims.clear(); // required_claims: none (default {"exp"})
    validation.validate_aud = false; // not in the policy: no audience, issuer or subject
    validation.aud = None;
    validation.iss = None;
    validation.sub = None;
    validation
}

/// The kinds jsonwebtoken documents for an invalid token are its verdict (exit 1); others exit 4.
fn verdict(error: jsonwebtoken::errors::Error) -> Failure {
    use jsonwebtoken::errors::ErrorKind as K;
    let debug = format!("{:?}", error.kind());
    let kind = debug.split(['(', ' ', '{']).next().unwrap_or("Error");
    let reason = one_line(&format!("{kind}: {error}"));
    match error.kind() {
        K::InvalidToken
        | K::InvalidSignature
        | K::InvalidAlgorithm
        | K::Base64(_)
        | K::Json(_)
        | K::Utf8(_)
        | K::ExpiredSignature
        | K::ImmatureSignature
        | K::InvalidClaimFormat(_)
        | K::MissingRequiredClaim(_)
        | K::InvalidIssuer
        | K::InvalidAudience
        | K::InvalidSubject => Failure::Invalid(reason),
        _ => Failure::Error(reason),
    }
}

struct Signing {
    header: Header,
    encoding: EncodingKey,
}

impl SignJws for Signing {
    fn sign(&self, claims: &Value) -> Result<String, String> {
        jsonwebtoken::encode(&self.header, claims, &self.encoding).map_err(|e| e.to_string())
    }
}

struct Verifying {
    decoding: DecodingKey,
    validation: Validation,
}

impl VerifyJws for Verifying {
    /// `decode` into a JSON object under `pinned_validation` (any other payload is invalid).
    fn verify(&self, token: &[u8]) -> Result<Value, Failure> {
        jsonwebtoken::decode::<Map<String, Value>>(token, &self.decoding, &self.validation)
            .map(|data| Value::Object(data.claims))
            .map_err(verdict)
    }
}

struct SignatureOnly {
    decoding: DecodingKey,
    alg: Algorithm,
}

impl VerifyJwsSignature for SignatureOnly {
    /// `decode_header`, then `crypto::verify` over the signing input: no claims parsed.
    fn verify_signature(&self, token: &str) -> Result<Vec<u8>, Failure> {
        let (header, payload, signature) = split(token)?;
        let alg = self.alg;
        match jsonwebtoken::decode_header(token) {
            Ok(parsed) if parsed.alg == alg => {}
            Ok(parsed) => {
                return Err(Failure::Invalid(format!("the header names {:?}, not {alg:?}", parsed.alg)));
            }
            Err(e) => return Err(Failure::Invalid(format!("bad header: {e}"))),
        }
        let signing_input = format!("{header}.{payload}");
        match jsonwebtoken::crypto::verify(signature, signing_input.as_bytes(), &self.decoding, alg) {
            Ok(true) => {}
            Ok(false) => return Err(Failure::Invalid("the signature does not verify".into())),
            Err(e) => return Err(Failure::Invalid(format!("the signature cannot be checked: {e}"))),
        }
        URL_SAFE_NO_PAD.decode(payload).map_err(|e| Failure::Invalid(format!("payload is not base64url: {e}")))
    }
}

fn decode(token: &str) -> Result<Value, Failure> {
    jsonwebtoken::dangerous::insecure_decode::<Value>(token)
        .map(|data| data.claims)
        .map_err(|e| Failure::Invalid(format!("cannot decode the token: {e}")))
}

impl Library for JsonWebToken {
    fn name(&self) -> &'static str {
        "jsonwebtoken"
    }

    fn version(&self) -> &'static str {
        versions::locked("jsonwebtoken")
    }

    fn unsupported(&self, alg: Alg) -> Option<&'static str> {
        (alg == Alg::ES512)
            .then_some("jsonwebtoken 11 has no ES512: its Algorithm enum has no P-521 (ES256 and ES384 only)")
    }

    fn signer(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn SignJws>, Failure> {
        Ok(Box::new(Signing {
            header: Header::new(algorithm(alg)),
            encoding: key!(EncodingKey, alg, key, path, "private key")?,
        }))
    }

    fn verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJws>, Failure> {
        Ok(Box::new(Verifying {
            decoding: key!(DecodingKey, alg, key, path, "public key")?,
            validation: pinned_validation(algorithm(alg)),
        }))
    }

    fn signature_verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJwsSignature>, Failure> {
        Ok(Box::new(SignatureOnly { decoding: key!(DecodingKey, alg, key, path, "public key")?, alg: algorithm(alg) }))
    }

    fn decoder(&self) -> Result<Decode, &'static str> {
        Ok(decode)
    }

    fn crypto_backend(&self) -> String {
        let crates = ["rsa", "p256", "p384", "ed25519-dalek", "hmac", "sha2"].map(versions::crate_version);
        format!("RustCrypto (jsonwebtoken feature rust_crypto): {}", crates.join(", "))
    }

    fn libraries(&self) -> Map<String, Value> {
        versions::libraries(
            "jsonwebtoken serde_json base64 sha2 sha1 md-5 hmac aes-gcm rsa p256 p384 p521 ed25519-dalek rand uuid",
        )
    }
}
