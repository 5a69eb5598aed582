//! The driver's own library: the `jsonwebtoken` crate (rust_crypto backend) through its
//! ordinary API (`encode`, `decode`, `dangerous::insecure_decode`), the keys parsed once
//! into its `EncodingKey` / `DecodingKey`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde_json::{Map, Value};

use super::{Decode, Library, SignJws, VerifyJws, VerifyJwsSignature};
use crate::failure::{Failure, one_line};
use crate::jws::{Alg, split};
use crate::versions::{ED25519, HMAC, P256, P384, RSA, SHA2};

pub struct JsonWebToken;
pub static JSONWEBTOKEN: JsonWebToken = JsonWebToken;

fn algorithm(alg: Alg) -> Algorithm {
    match alg {
        Alg::HS256 => Algorithm::HS256,
        Alg::HS384 => Algorithm::HS384,
        Alg::HS512 => Algorithm::HS512,
        Alg::RS256 => Algorithm::RS256,
        Alg::RS384 => Algorithm::RS384,
        Alg::RS512 => Algorithm::RS512,
        Alg::PS256 => Algorithm::PS256,
        Alg::PS384 => Algorithm::PS384,
        Alg::PS512 => Algorithm::PS512,
        Alg::ES256 => Algorithm::ES256,
        Alg::ES384 | Alg::ES512 => Algorithm::ES384, // ES512 is unsupported (never reaches here)
        Alg::EdDSA => Algorithm::EdDSA,
    }
}

fn encoding_key(alg: Alg, bytes: &[u8], path: &str) -> Result<EncodingKey, Failure> {
    let parsed = match algorithm(alg) {
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => return Ok(EncodingKey::from_secret(bytes)),
        Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(bytes),
        Algorithm::EdDSA => EncodingKey::from_ed_pem(bytes),
        _ => EncodingKey::from_rsa_pem(bytes),
    };
    parsed.map_err(|e| super::key_error(path, "private key", alg, e))
}

fn decoding_key(alg: Alg, bytes: &[u8], path: &str) -> Result<DecodingKey, Failure> {
    let parsed = match algorithm(alg) {
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => return Ok(DecodingKey::from_secret(bytes)),
        Algorithm::ES256 | Algorithm::ES384 => DecodingKey::from_ec_pem(bytes),
        Algorithm::EdDSA => DecodingKey::from_ed_pem(bytes),
        _ => DecodingKey::from_rsa_pem(bytes),
    };
    parsed.map_err(|e| super::key_error(path, "public key", alg, e))
}

/// The verify policy (workflow/scripts/README.md), every item set explicitly rather than
/// trusting `Validation::new`'s defaults (which require `exp`, allow 60 s of leeway and
/// leave `nbf` unchecked). jsonwebtoken 11 has no `iat` check at all: driver.yaml declares
/// it under `verify.lacks`.
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

/// The library's error as a `Failure`: the kinds it documents for an invalid token are its
/// verdict (exit 1); any other kind (a key the backend cannot use, a provider error) is not
/// (exit 4). The message is one line, `Kind: message`.
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
    /// jsonwebtoken's `decode` under `pinned_validation`. The claims type is a JSON object,
    /// so any other payload is invalid.
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
    /// The JWS alone, through jsonwebtoken's own JWS layer (`decode_header`, then
    /// `crypto::verify` over the signing input): no claims parsed, no `exp` checked.
    fn verify_signature(&self, token: &str) -> Result<Vec<u8>, Failure> {
        let (header, payload, signature) = split(token)?;
        let alg = self.alg;
        match jsonwebtoken::decode_header(token) {
            Ok(parsed) if parsed.alg == alg => {}
            Ok(parsed) => {
                return Err(Failure::Invalid(format!(
                    "the header names {:?}, not {alg:?}",
                    parsed.alg
                )));
            }
            Err(e) => return Err(Failure::Invalid(format!("bad header: {e}"))),
        }
        let signing_input = format!("{header}.{payload}");
        match jsonwebtoken::crypto::verify(signature, signing_input.as_bytes(), &self.decoding, alg) {
            Ok(true) => {}
            Ok(false) => return Err(Failure::Invalid("the signature does not verify".into())),
            Err(e) => return Err(Failure::Invalid(format!("the signature cannot be checked: {e}"))),
        }
        URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|e| Failure::Invalid(format!("payload is not base64url: {e}")))
    }
}

/// `jsonwebtoken::dangerous::insecure_decode`.
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
        env!("JWTBENCH_CRATE_JSONWEBTOKEN")
    }

    fn unsupported(&self, alg: Alg) -> Option<&'static str> {
        (alg == Alg::ES512)
            .then_some("jsonwebtoken 11 has no ES512: its Algorithm enum has no P-521 (ES256 and ES384 only)")
    }

    fn signer(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn SignJws>, Failure> {
        Ok(Box::new(Signing {
            header: Header::new(algorithm(alg)),
            encoding: encoding_key(alg, key, path)?,
        }))
    }

    fn verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJws>, Failure> {
        Ok(Box::new(Verifying {
            decoding: decoding_key(alg, key, path)?,
            validation: pinned_validation(algorithm(alg)),
        }))
    }

    fn signature_verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJwsSignature>, Failure> {
        Ok(Box::new(SignatureOnly {
            decoding: decoding_key(alg, key, path)?,
            alg: algorithm(alg),
        }))
    }

    fn decoder(&self) -> Result<Decode, &'static str> {
        Ok(decode)
    }

    fn crypto_backend(&self) -> String {
        format!("RustCrypto (jsonwebtoken feature rust_crypto): {RSA}, {P256}, {P384}, {ED25519}, {HMAC}, {SHA2}")
    }

    fn libraries(&self) -> Map<String, Value> {
        crate::crate_versions! {
            "jsonwebtoken" => "JWTBENCH_CRATE_JSONWEBTOKEN",
            "serde_json" => "JWTBENCH_CRATE_SERDE_JSON",
            "base64" => "JWTBENCH_CRATE_BASE64",
            "sha2" => "JWTBENCH_CRATE_SHA2",
            "sha1" => "JWTBENCH_CRATE_SHA1",
            "md-5" => "JWTBENCH_CRATE_MD_5",
            "hmac" => "JWTBENCH_CRATE_HMAC",
            "aes-gcm" => "JWTBENCH_CRATE_AES_GCM",
            "rsa" => "JWTBENCH_CRATE_RSA",
            "p256" => "JWTBENCH_CRATE_P256",
            "p384" => "JWTBENCH_CRATE_P384",
            "p521" => "JWTBENCH_CRATE_P521",
            "ed25519-dalek" => "JWTBENCH_CRATE_ED25519_DALEK",
            "rand" => "JWTBENCH_CRATE_RAND",
            "uuid" => "JWTBENCH_CRATE_UUID",
        }
    }
}
