//! JWTBENCH_LIBRARY=jwt-simple: the `jwt-simple` crate with its `pure-rust` feature (RSA
//! through `superboring`, a BoringSSL-style API over the RustCrypto `rsa` crate; ECDSA on
//! RustCrypto's p256/p384 0.14; Ed25519 on ed25519-compact; HMAC on hmac-sha256/512), its
//! keys parsed once into the library's key types (`HS256Key`, `RS256KeyPair`,
//! `ES256PublicKey`, ...), signed with `authenticate` / `sign`, verified with
//! `verify_token` under `pinned_options`.

use jwt_simple::JWTError;
use jwt_simple::prelude::*;
use jwt_simple::reexports::ct_codecs;
use p256_jwt_simple::ecdsa::signature::Verifier as _;
use serde_json::{Map, Value};

use super::{Decode, Library, SignJws, VerifyJws, VerifyJwsSignature, key_error, pem_text, reason};
use crate::failure::Failure;
use crate::jws::{Alg, split};

pub struct JwtSimple;
pub static JWT_SIMPLE: JwtSimple = JwtSimple;

type Claims = JWTClaims<Map<String, Value>>;

/// The verify policy, every item set explicitly in the library's `VerificationOptions`
/// (its defaults allow 15 minutes of clock drift). `exp` has no switch: jwt-simple checks it
/// whenever the claim is present. The issuer, subject, audience, nonce, key id, type and
/// content-type requirements are not in the policy: unset (their default).
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

/// The claims object as the library's claims type, built the ordinary way
/// (`Claims::with_custom_claims`), told not to add `iat`, `exp` and `nbf` (it sets all three
/// to now): the object's own registered claims travel in it, as they are.
fn jwt_claims(claims: &Value) -> Result<Claims, String> {
    let object = claims.as_object().ok_or("the claims are not a JSON object")?;
    let mut claims = jwt_simple::claims::Claims::with_custom_claims(object.clone(), Duration::from_secs(0));
    claims.issued_at = None;
    claims.expires_at = None;
    claims.invalid_before = None;
    Ok(claims)
}

/// The library's error: the kinds its verify reports for a token (`JWTError`, and the
/// base64, JSON and Ed25519 decoding errors it passes on) are its verdict (exit 1); anything
/// else (a backend error) is not (exit 4). One line, `Kind: message`.
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

enum Signing {
    HS256(HS256Key),
    HS384(HS384Key),
    HS512(HS512Key),
    RS256(RS256KeyPair),
    RS384(RS384KeyPair),
    RS512(RS512KeyPair),
    PS256(PS256KeyPair),
    PS384(PS384KeyPair),
    PS512(PS512KeyPair),
    ES256(ES256KeyPair),
    ES384(ES384KeyPair),
    EdDSA(Ed25519KeyPair),
}

impl SignJws for Signing {
    fn sign(&self, claims: &Value) -> Result<String, String> {
        let claims = jwt_claims(claims)?;
        match self {
            Signing::HS256(key) => key.authenticate(claims),
            Signing::HS384(key) => key.authenticate(claims),
            Signing::HS512(key) => key.authenticate(claims),
            Signing::RS256(key) => key.sign(claims),
            Signing::RS384(key) => key.sign(claims),
            Signing::RS512(key) => key.sign(claims),
            Signing::PS256(key) => key.sign(claims),
            Signing::PS384(key) => key.sign(claims),
            Signing::PS512(key) => key.sign(claims),
            Signing::ES256(key) => key.sign(claims),
            Signing::ES384(key) => key.sign(claims),
            Signing::EdDSA(key) => key.sign(claims),
        }
        .map_err(|e| e.to_string())
    }
}

enum Key {
    HS256(HS256Key),
    HS384(HS384Key),
    HS512(HS512Key),
    RS256(RS256PublicKey),
    RS384(RS384PublicKey),
    RS512(RS512PublicKey),
    PS256(PS256PublicKey),
    PS384(PS384PublicKey),
    PS512(PS512PublicKey),
    ES256(ES256PublicKey),
    ES384(ES384PublicKey),
    EdDSA(Ed25519PublicKey),
}

struct Verifying {
    key: Key,
    options: VerificationOptions,
}

impl VerifyJws for Verifying {
    /// `verify_token` into the library's claims type with a JSON object as its custom
    /// claims (so a payload that is not a JSON object is invalid), then as a JSON value.
    fn verify(&self, token: &[u8]) -> Result<Value, Failure> {
        let token = std::str::from_utf8(token).map_err(|e| Failure::Invalid(reason("Utf8", e)))?;
        let options = Some(self.options.clone());
        let claims: Claims = match &self.key {
            Key::HS256(key) => key.verify_token(token, options),
            Key::HS384(key) => key.verify_token(token, options),
            Key::HS512(key) => key.verify_token(token, options),
            Key::RS256(key) => key.verify_token(token, options),
            Key::RS384(key) => key.verify_token(token, options),
            Key::RS512(key) => key.verify_token(token, options),
            Key::PS256(key) => key.verify_token(token, options),
            Key::PS384(key) => key.verify_token(token, options),
            Key::PS512(key) => key.verify_token(token, options),
            Key::ES256(key) => key.verify_token(token, options),
            Key::ES384(key) => key.verify_token(token, options),
            Key::EdDSA(key) => key.verify_token(token, options),
        }
        .map_err(verdict)?;
        serde_json::to_value(claims).map_err(|e| Failure::Error(reason("Json", e)))
    }
}

fn public_key(alg: Alg, key: &[u8], path: &str) -> Result<Key, Failure> {
    let bad = |e: jwt_simple::Error| key_error(path, "public key", alg, e);
    Ok(match alg {
        Alg::HS256 => Key::HS256(HS256Key::from_bytes(key)),
        Alg::HS384 => Key::HS384(HS384Key::from_bytes(key)),
        Alg::HS512 => Key::HS512(HS512Key::from_bytes(key)),
        _ => {
            let pem = pem_text(key, path)?;
            match alg {
                Alg::RS256 => Key::RS256(RS256PublicKey::from_pem(pem).map_err(bad)?),
                Alg::RS384 => Key::RS384(RS384PublicKey::from_pem(pem).map_err(bad)?),
                Alg::RS512 => Key::RS512(RS512PublicKey::from_pem(pem).map_err(bad)?),
                Alg::PS256 => Key::PS256(PS256PublicKey::from_pem(pem).map_err(bad)?),
                Alg::PS384 => Key::PS384(PS384PublicKey::from_pem(pem).map_err(bad)?),
                Alg::PS512 => Key::PS512(PS512PublicKey::from_pem(pem).map_err(bad)?),
                Alg::ES256 => Key::ES256(ES256PublicKey::from_pem(pem).map_err(bad)?),
                Alg::ES384 => Key::ES384(ES384PublicKey::from_pem(pem).map_err(bad)?),
                Alg::EdDSA => Key::EdDSA(Ed25519PublicKey::from_pem(pem).map_err(bad)?),
                _ => return Err(Failure::Unsupported(format!("{}: {NO_ES512}", alg.name()))),
            }
        }
    })
}

const NO_ES512: &str = "jwt-simple 0.15 has no ES512 (P-521): its ECDSA key types are ES256, ES256K and ES384 only";

/// An RSA signature checked the way jwt-simple's own `verify_token` checks it: superboring's
/// `Verifier` with the key type's digest and padding.
fn rsa_signature<K: RSAPublicKeyLike>(key: &K, input: &[u8], signature: &[u8]) -> Result<bool, Failure> {
    use superboring::{pkey::PKey, sign::Verifier};
    let library_error = |e: superboring::error::ErrorStack| Failure::Error(reason("ErrorStack", e));
    let pkey = PKey::from_rsa(RSAPublicKeyLike::public_key(key).as_ref().clone()).map_err(library_error)?;
    let mut verifier = Verifier::new(K::hash(), &pkey).map_err(library_error)?;
    verifier.set_rsa_padding(key.padding_scheme()).map_err(library_error)?;
    verifier.update(input).map_err(library_error)?;
    Ok(verifier.verify(signature).unwrap_or(false))
}

/// The signature over `input`, checked as each of jwt-simple's `verify_token` closures
/// checks it, on the library's parsed key (its public accessors to the backend key).
fn signature_verifies(key: &Key, input: &[u8], signature: &[u8]) -> Result<bool, Failure> {
    let mac = |tag: Vec<u8>| -> Result<bool, Failure> { Ok(ct_codecs::verify(&tag, signature)) };
    match key {
        Key::HS256(key) => mac(key.authentication_tag(input)),
        Key::HS384(key) => mac(key.authentication_tag(input)),
        Key::HS512(key) => mac(key.authentication_tag(input)),
        Key::RS256(key) => rsa_signature(key, input, signature),
        Key::RS384(key) => rsa_signature(key, input, signature),
        Key::RS512(key) => rsa_signature(key, input, signature),
        Key::PS256(key) => rsa_signature(key, input, signature),
        Key::PS384(key) => rsa_signature(key, input, signature),
        Key::PS512(key) => rsa_signature(key, input, signature),
        Key::ES256(key) => Ok(p256_jwt_simple::ecdsa::Signature::try_from(signature).is_ok_and(|s| {
            ECDSAP256PublicKeyLike::public_key(key)
                .as_ref()
                .verify(input, &s)
                .is_ok()
        })),
        Key::ES384(key) => Ok(p384_jwt_simple::ecdsa::Signature::try_from(signature).is_ok_and(|s| {
            ECDSAP384PublicKeyLike::public_key(key)
                .as_ref()
                .verify(input, &s)
                .is_ok()
        })),
        Key::EdDSA(key) => Ok(ed25519_compact::Signature::from_slice(signature)
            .is_ok_and(|s| EdDSAPublicKeyLike::public_key(key).as_ref().verify(input, &s).is_ok())),
    }
}

struct SignatureOnly {
    alg: Alg,
    key: Key,
}

impl VerifyJwsSignature for SignatureOnly {
    /// jwt-simple's JWS layer (`Token::verify`) is private and always goes on to the claims,
    /// so this runs its parts one by one: `Token::decode_metadata` for the header's `alg`
    /// (the names its `verify_token` accepts: ALG, and for EdDSA also `Ed25519`), then the
    /// signature as its `verify_token` checks it, on the same parsed key.
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
        if !signature_verifies(&self.key, signing_input.as_bytes(), &decode(signature)?)? {
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
        env!("JWTBENCH_CRATE_JWT_SIMPLE")
    }

    fn unsupported(&self, alg: Alg) -> Option<&'static str> {
        (alg == Alg::ES512).then_some(NO_ES512)
    }

    fn signer(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn SignJws>, Failure> {
        let bad = |e: jwt_simple::Error| key_error(path, "private key", alg, e);
        let signing = match alg {
            Alg::HS256 => Signing::HS256(HS256Key::from_bytes(key)),
            Alg::HS384 => Signing::HS384(HS384Key::from_bytes(key)),
            Alg::HS512 => Signing::HS512(HS512Key::from_bytes(key)),
            _ => {
                let pem = pem_text(key, path)?;
                match alg {
                    Alg::RS256 => Signing::RS256(RS256KeyPair::from_pem(pem).map_err(bad)?),
                    Alg::RS384 => Signing::RS384(RS384KeyPair::from_pem(pem).map_err(bad)?),
                    Alg::RS512 => Signing::RS512(RS512KeyPair::from_pem(pem).map_err(bad)?),
                    Alg::PS256 => Signing::PS256(PS256KeyPair::from_pem(pem).map_err(bad)?),
                    Alg::PS384 => Signing::PS384(PS384KeyPair::from_pem(pem).map_err(bad)?),
                    Alg::PS512 => Signing::PS512(PS512KeyPair::from_pem(pem).map_err(bad)?),
                    Alg::ES256 => Signing::ES256(ES256KeyPair::from_pem(pem).map_err(bad)?),
                    Alg::ES384 => Signing::ES384(ES384KeyPair::from_pem(pem).map_err(bad)?),
                    Alg::EdDSA => Signing::EdDSA(Ed25519KeyPair::from_pem(pem).map_err(bad)?),
                    _ => return Err(Failure::Unsupported(format!("{}: {NO_ES512}", alg.name()))),
                }
            }
        };
        Ok(Box::new(signing))
    }

    fn verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJws>, Failure> {
        Ok(Box::new(Verifying {
            key: public_key(alg, key, path)?,
            options: pinned_options(),
        }))
    }

    fn signature_verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJwsSignature>, Failure> {
        Ok(Box::new(SignatureOnly {
            alg,
            key: public_key(alg, key, path)?,
        }))
    }

    fn decoder(&self) -> Result<Decode, &'static str> {
        Err(
            "jwt-simple 0.15 has no API that reads a token's claims without verifying it \
             (Token::decode_metadata reads the header only)",
        )
    }

    fn crypto_backend(&self) -> String {
        format!(
            "pure Rust (jwt-simple feature pure-rust): superboring {} over rsa {}, p256 {}, p384 {}, \
             ed25519-compact {}, hmac-sha256 {}, hmac-sha512 {}",
            env!("JWTBENCH_CRATE_SUPERBORING"),
            env!("JWTBENCH_CRATE_RSA"),
            env!("JWTBENCH_CRATE_P256_0_14"),
            env!("JWTBENCH_CRATE_P384_0_14"),
            env!("JWTBENCH_CRATE_ED25519_COMPACT"),
            env!("JWTBENCH_CRATE_HMAC_SHA256"),
            env!("JWTBENCH_CRATE_HMAC_SHA512"),
        )
    }

    fn libraries(&self) -> Map<String, Value> {
        crate::crate_versions! {
            "jwt-simple" => "JWTBENCH_CRATE_JWT_SIMPLE",
            "superboring" => "JWTBENCH_CRATE_SUPERBORING",
            "rsa" => "JWTBENCH_CRATE_RSA",
            "p256" => "JWTBENCH_CRATE_P256_0_14",
            "p384" => "JWTBENCH_CRATE_P384_0_14",
            "ed25519-compact" => "JWTBENCH_CRATE_ED25519_COMPACT",
            "hmac-sha256" => "JWTBENCH_CRATE_HMAC_SHA256",
            "hmac-sha512" => "JWTBENCH_CRATE_HMAC_SHA512",
            "coarsetime" => "JWTBENCH_CRATE_COARSETIME",
            "serde_json" => "JWTBENCH_CRATE_SERDE_JSON",
            "base64" => "JWTBENCH_CRATE_BASE64",
            "sha2" => "JWTBENCH_CRATE_SHA2",
        }
    }
}
