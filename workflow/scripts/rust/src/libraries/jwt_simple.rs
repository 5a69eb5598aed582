//! JWTBENCH_LIBRARY=jwt-simple with its `pure-rust` feature (jwt-simple/README.md).

use std::sync::Arc;

use jwt_simple::JWTError;
use jwt_simple::prelude::*;
use jwt_simple::reexports::ct_codecs;
use p256_jwt_simple::ecdsa::signature::Verifier as _;
use serde_json::{Map, Value};

use super::{Decode, Library, SignJws, VerifyJws, VerifyJwsSignature, key_error, pem_text, reason};
use crate::failure::Failure;
use crate::jws::{Alg, split};
use crate::versions;

pub struct JwtSimple;
pub static JWT_SIMPLE: JwtSimple = JwtSimple;

type Claims = JWTClaims<Map<String, Value>>;

/// The verify policy, every item set explicitly (`exp` has no switch: it is always checked).
fn pinned_options() -> VerificationOptions {
    let mut options = VerificationOptions::default();
    options.time_tolerance = Some(Duration::from_secs(0)); // leeway: 0 s (default 15 min)
    options.accept_future = false; // iat and nbf: a token issued or valid only in the future is rejected
    options.reject_before = None; // required_claims: none (reject_before and max_validity
    options.max_validity = None; //   would require iat)
    options.required_subject = None;
    options.required_nonce = None;
    options.allowed_issuers = None;
    options.allowed_audiences = None;
    options.required_key_id = None;
    options.artificial_time = None; // now: the library's clock (coarsetime, whole seconds)
    options
}

/// The claims as `Claims::with_custom_claims`, without the `iat`, `exp`, `nbf` it would add.
fn jwt_claims(claims: &Value) -> Result<Claims, String> {
    let object = claims.as_object().ok_or("the claims are not a JSON object")?;
    let mut claims = jwt_simple::claims::Claims::with_custom_claims(object.clone(), Duration::from_secs(0));
    claims.issued_at = None;
    claims.expires_at = None;
    claims.invalid_before = None;
    Ok(claims)
}

/// `JWTError` and the base64, JSON and Ed25519 errors are the verdict (exit 1); others exit 4.
fn verdict(error: jwt_simple::Error) -> Failure {
    if let Some(e) = error.downcast_ref::<JWTError>() {
        let debug = format!("{e:?}");
        let kind = debug.split(['(', ' ', '{']).next().unwrap_or("JWTError");
        Failure::Invalid(reason(kind, e))
    } else if let Some(e) = error.downcast_ref::<serde_json::Error>() {
        Failure::Invalid(reason("Json", e))
    } else if let Some(e) = error.downcast_ref::<ct_codecs::Error>() {
        Failure::Invalid(reason("Base64", e))
    } else if let Some(e) = error.downcast_ref::<ed25519_compact::Error>() {
        Failure::Invalid(reason("Ed25519", e))
    } else {
        Failure::Error(reason("Error", error))
    }
}

/// A signing key parsed once, and its call on the claims: `authenticate` (HS*) or `sign`.
struct Signing(Box<dyn Fn(Claims) -> Result<String, jwt_simple::Error> + Send + Sync>);

impl SignJws for Signing {
    fn sign(&self, claims: &Value) -> Result<String, String> {
        (self.0)(jwt_claims(claims)?).map_err(|e| e.to_string())
    }
}

/// A verifying key parsed once: its `verify_token`, and `--signature-only`'s check on it.
struct PublicKey {
    verify_token: Box<dyn Fn(&str, VerificationOptions) -> Result<Claims, jwt_simple::Error> + Send + Sync>,
    signature: Box<dyn Fn(&[u8], &[u8]) -> Result<bool, Failure> + Send + Sync>,
}

const NO_ES512: &str = "jwt-simple 0.15 has no ES512 (P-521): its ECDSA key types are ES256, ES256K and ES384 only";

fn public_key(alg: Alg, key: &[u8], path: &str) -> Result<PublicKey, Failure> {
    let pem = || pem_text(key, path);
    let bad = |e: jwt_simple::Error| key_error(path, "public key", alg, e);
    macro_rules! public {
        ($key:expr, $check:ident) => {{
            let key = Arc::new($key);
            let checked = Arc::clone(&key);
            PublicKey {
                verify_token: Box::new(move |token: &str, options| {
                    key.verify_token::<Map<String, Value>>(token, Some(options))
                }),
                signature: Box::new(move |input: &[u8], signature: &[u8]| $check(&*checked, input, signature)),
            }
        }};
    }
    Ok(match alg {
        Alg::HS256 => public!(HS256Key::from_bytes(key), mac_signature),
        Alg::HS384 => public!(HS384Key::from_bytes(key), mac_signature),
        Alg::HS512 => public!(HS512Key::from_bytes(key), mac_signature),
        Alg::RS256 => public!(RS256PublicKey::from_pem(pem()?).map_err(bad)?, rsa_signature),
        Alg::RS384 => public!(RS384PublicKey::from_pem(pem()?).map_err(bad)?, rsa_signature),
        Alg::RS512 => public!(RS512PublicKey::from_pem(pem()?).map_err(bad)?, rsa_signature),
        Alg::PS256 => public!(PS256PublicKey::from_pem(pem()?).map_err(bad)?, rsa_signature),
        Alg::PS384 => public!(PS384PublicKey::from_pem(pem()?).map_err(bad)?, rsa_signature),
        Alg::PS512 => public!(PS512PublicKey::from_pem(pem()?).map_err(bad)?, rsa_signature),
        Alg::ES256 => public!(ES256PublicKey::from_pem(pem()?).map_err(bad)?, es256_signature),
        Alg::ES384 => public!(ES384PublicKey::from_pem(pem()?).map_err(bad)?, es384_signature),
        Alg::EdDSA => public!(Ed25519PublicKey::from_pem(pem()?).map_err(bad)?, ed25519_signature),
        Alg::ES512 => return Err(Failure::Unsupported(format!("ES512: {NO_ES512}"))),
    })
}

// A signature over `input`, checked as `verify_token` checks it, on the parsed key.

fn mac_signature<K: MACLike>(key: &K, input: &[u8], signature: &[u8]) -> Result<bool, Failure> {
    Ok(ct_codecs::verify(&key.authentication_tag(input), signature))
}

/// superboring's `Verifier` with the key type's digest and padding.
fn rsa_signature<K: RSAPublicKeyLike>(key: &K, input: &[u8], signature: &[u8]) -> Result<bool, Failure> {
    use superboring::{pkey::PKey, sign::Verifier};
    let library_error = |e: superboring::error::ErrorStack| Failure::Error(reason("ErrorStack", e));
    let pkey = PKey::from_rsa(RSAPublicKeyLike::public_key(key).as_ref().clone()).map_err(library_error)?;
    let mut verifier = Verifier::new(K::hash(), &pkey).map_err(library_error)?;
    verifier.set_rsa_padding(key.padding_scheme()).map_err(library_error)?;
    verifier.update(input).map_err(library_error)?;
    Ok(verifier.verify(signature).unwrap_or(false))
}

fn es256_signature(key: &ES256PublicKey, input: &[u8], signature: &[u8]) -> Result<bool, Failure> {
    let verifying = ECDSAP256PublicKeyLike::public_key(key);
    Ok(p256_jwt_simple::ecdsa::Signature::try_from(signature)
        .is_ok_and(|s| verifying.as_ref().verify(input, &s).is_ok()))
}

fn es384_signature(key: &ES384PublicKey, input: &[u8], signature: &[u8]) -> Result<bool, Failure> {
    let verifying = ECDSAP384PublicKeyLike::public_key(key);
    Ok(p384_jwt_simple::ecdsa::Signature::try_from(signature)
        .is_ok_and(|s| verifying.as_ref().verify(input, &s).is_ok()))
}

fn ed25519_signature(key: &Ed25519PublicKey, input: &[u8], signature: &[u8]) -> Result<bool, Failure> {
    let verifying = EdDSAPublicKeyLike::public_key(key);
    Ok(ed25519_compact::Signature::from_slice(signature).is_ok_and(|s| verifying.as_ref().verify(input, &s).is_ok()))
}

struct Verifying {
    key: PublicKey,
    options: VerificationOptions,
}

impl VerifyJws for Verifying {
    /// `verify_token` with a JSON object as the custom claims (any other payload is invalid).
    fn verify(&self, token: &[u8]) -> Result<Value, Failure> {
        let token = std::str::from_utf8(token).map_err(|e| Failure::Invalid(reason("Utf8", e)))?;
        let claims = (self.key.verify_token)(token, self.options.clone()).map_err(verdict)?;
        serde_json::to_value(claims).map_err(|e| Failure::Error(reason("Json", e)))
    }
}

struct SignatureOnly {
    alg: Alg,
    key: PublicKey,
}

impl VerifyJwsSignature for SignatureOnly {
    /// jwt-simple's JWS layer is private, so its steps run here (EdDSA also as `Ed25519`).
    fn verify_signature(&self, token: &str) -> Result<Vec<u8>, Failure> {
        let alg = self.alg;
        let (header, payload, signature) = split(token)?;
        let metadata = Token::decode_metadata(token).map_err(verdict)?;
        let named = metadata.algorithm();
        if named != alg.name() && !(alg == Alg::EdDSA && named == "Ed25519") {
            return Err(Failure::Invalid(format!("the header names {named:?}, not {alg:?}")));
        }
        let decode = |part: &str| {
            use ct_codecs::{Base64UrlSafeNoPadding, Decoder};
            Base64UrlSafeNoPadding::decode_to_vec(part, None).map_err(|e| Failure::Invalid(reason("Base64", e)))
        };
        let signing_input = format!("{header}.{payload}");
        if !(self.key.signature)(signing_input.as_bytes(), &decode(signature)?)? {
            return Err(Failure::Invalid("the signature does not verify".into()));
        }
        decode(payload)
    }
}

impl Library for JwtSimple {
    fn name(&self) -> &'static str {
        "jwt-simple"
    }

    fn version(&self) -> &'static str {
        versions::locked("jwt-simple")
    }

    fn unsupported(&self, alg: Alg) -> Option<&'static str> {
        (alg == Alg::ES512).then_some(NO_ES512)
    }

    fn signer(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn SignJws>, Failure> {
        let pem = || pem_text(key, path);
        let bad = |e: jwt_simple::Error| key_error(path, "private key", alg, e);
        macro_rules! signing {
            ($key:expr, $call:ident) => {{
                let key = $key;
                Signing(Box::new(move |claims| key.$call(claims)))
            }};
        }
        Ok(Box::new(match alg {
            Alg::HS256 => signing!(HS256Key::from_bytes(key), authenticate),
            Alg::HS384 => signing!(HS384Key::from_bytes(key), authenticate),
            Alg::HS512 => signing!(HS512Key::from_bytes(key), authenticate),
            Alg::RS256 => signing!(RS256KeyPair::from_pem(pem()?).map_err(bad)?, sign),
            Alg::RS384 => signing!(RS384KeyPair::from_pem(pem()?).map_err(bad)?, sign),
            Alg::RS512 => signing!(RS512KeyPair::from_pem(pem()?).map_err(bad)?, sign),
            Alg::PS256 => signing!(PS256KeyPair::from_pem(pem()?).map_err(bad)?, sign),
            Alg::PS384 => signing!(PS384KeyPair::from_pem(pem()?).map_err(bad)?, sign),
            Alg::PS512 => signing!(PS512KeyPair::from_pem(pem()?).map_err(bad)?, sign),
            Alg::ES256 => signing!(ES256KeyPair::from_pem(pem()?).map_err(bad)?, sign),
            Alg::ES384 => signing!(ES384KeyPair::from_pem(pem()?).map_err(bad)?, sign),
            Alg::EdDSA => signing!(Ed25519KeyPair::from_pem(pem()?).map_err(bad)?, sign),
            Alg::ES512 => return Err(Failure::Unsupported(format!("ES512: {NO_ES512}"))),
        }))
    }

    fn verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJws>, Failure> {
        Ok(Box::new(Verifying { key: public_key(alg, key, path)?, options: pinned_options() }))
    }

    fn signature_verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJwsSignature>, Failure> {
        Ok(Box::new(SignatureOnly { alg, key: public_key(alg, key, path)? }))
    }

    fn decoder(&self) -> Result<Decode, &'static str> {
        Err("jwt-simple 0.15 has no API that reads a token's claims without verifying it \
             (Token::decode_metadata reads the header only)")
    }

    fn crypto_backend(&self) -> String {
        let crates = ["rsa", "p256@0.14", "p384@0.14", "ed25519-compact", "hmac-sha256", "hmac-sha512"];
        let crates =
            crates.map(|name| format!("{} {}", name.split('@').next().unwrap_or(name), versions::locked(name)));
        format!(
            "pure Rust (jwt-simple feature pure-rust): superboring {} over {}",
            versions::locked("superboring"),
            crates.join(", ")
        )
    }

    fn libraries(&self) -> Map<String, Value> {
        versions::libraries(
            "jwt-simple superboring rsa p256@0.14 p384@0.14 ed25519-compact hmac-sha256 hmac-sha512 coarsetime \
             serde_json base64 sha2",
        )
    }
}
