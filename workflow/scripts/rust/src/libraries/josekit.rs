//! JWTBENCH_LIBRARY=josekit: the `josekit` crate on the `openssl` crate (the system's
//! OpenSSL), its keys parsed once into its signer and verifier objects
//! (`HS256.signer_from_bytes`, `RS256.verifier_from_pem`, ...), signed with
//! `jwt::encode_with_signer`, verified with `jwt::decode_with_verifier` and then
//! `JwtPayloadValidator` (the verify policy, `pinned_validator`).

use std::time::SystemTime;

use josekit::JoseError;
use josekit::jws::{
    self, ES256, ES384, ES512, EdDSA, HS256, HS384, HS512, JwsHeader, JwsSigner, JwsVerifier, PS256, PS384, PS512,
    RS256, RS384, RS512,
};
use josekit::jwt::{self, JwtPayload, JwtPayloadValidator};
use serde_json::{Map, Value};

use super::{Decode, Library, SignJws, VerifyJws, VerifyJwsSignature, key_error, reason};
use crate::failure::Failure;
use crate::jws::Alg;

pub struct Josekit;
pub static JOSEKIT: Josekit = Josekit;

/// The library's error as a `Failure`: the kinds its JWS/JWT decoding and validation report
/// for a token are its verdict (exit 1); the others (a key, an algorithm it does not
/// support) are not (exit 4). One line, `Kind: message`.
fn verdict(error: JoseError) -> Failure {
    let debug = format!("{error:?}");
    let kind = debug.split(['(', ' ', '{']).next().unwrap_or("JoseError").to_string();
    let message = reason(&kind, &error);
    match error {
        JoseError::InvalidJwtFormat(_)
        | JoseError::InvalidJwsFormat(_)
        | JoseError::InvalidJweFormat(_) // what josekit 0.10 reports for some JWS header errors
        | JoseError::InvalidJson(_)
        | JoseError::InvalidClaim(_)
        | JoseError::InvalidSignature(_) => Failure::Invalid(message),
        _ => Failure::Error(message),
    }
}

/// The verify policy, set explicitly on the library's `JwtPayloadValidator`, made per call
/// because its times are instants: the base time (exp and nbf) and the latest accepted
/// issue time (iat) are now. josekit compares with no leeway at all (it has no leeway
/// setting), requires no claim, rejects `exp <= now` (the policy's `now >= exp`) and
/// `nbf > now`. Issuer, subject, audience, jti and claim values are not in the policy: unset.
fn pinned_validator() -> JwtPayloadValidator {
    let now = SystemTime::now();
    let mut validator = JwtPayloadValidator::new();
    validator.set_base_time(now); // exp, nbf: against now, leeway 0
    validator.set_max_issued_time(now); // iat: not after now
    validator
}

struct Signing {
    header: JwsHeader,
    signer: Box<dyn JwsSigner>,
}

impl SignJws for Signing {
    /// The claims as the library's `JwtPayload` (`from_map`, which checks the registered
    /// claims' types), then `encode_with_signer` with the header `{"typ":"JWT"}` (it adds
    /// `alg`). josekit adds no claim.
    fn sign(&self, claims: &Value) -> Result<String, String> {
        let object = claims.as_object().ok_or("the claims are not a JSON object")?;
        let payload = JwtPayload::from_map(object.clone()).map_err(|e| e.to_string())?;
        jwt::encode_with_signer(&payload, &self.header, &*self.signer).map_err(|e| e.to_string())
    }
}

struct Verifying {
    verifier: Box<dyn JwsVerifier>,
}

impl VerifyJws for Verifying {
    /// `decode_with_verifier` (the header's `alg` must be the verifier's, the signature must
    /// verify, the payload must be a JSON object with well-typed registered claims), then
    /// the validator.
    fn verify(&self, token: &[u8]) -> Result<Value, Failure> {
        let (payload, _header) = jwt::decode_with_verifier(token, &*self.verifier).map_err(verdict)?;
        pinned_validator().validate(&payload).map_err(verdict)?;
        let claims: Map<String, Value> = payload.into();
        Ok(Value::Object(claims))
    }
}

struct SignatureOnly {
    verifier: Box<dyn JwsVerifier>,
}

impl VerifyJwsSignature for SignatureOnly {
    /// The JWS alone through josekit's JWS layer, `jws::deserialize_compact` with the
    /// verifier: the header's `alg` must be the verifier's and the signature must verify; it
    /// returns the payload's bytes and parses no claims.
    fn verify_signature(&self, token: &str) -> Result<Vec<u8>, Failure> {
        let (payload, _header) = jws::deserialize_compact(token, &*self.verifier).map_err(verdict)?;
        Ok(payload)
    }
}

/// josekit's PS* `signer_from_pem` / `verifier_from_pem` take only RSASSA-PSS or PKCS#1
/// PEMs; its `signer_from_der` / `verifier_from_der` also take the benchmark's rsaEncryption
/// PKCS#8 / SPKI keys, so the PEM goes to them as DER (converted once, untimed, with the
/// openssl crate josekit runs on).
fn pss_public_der(pem: &[u8]) -> Result<Vec<u8>, JoseError> {
    openssl::pkey::PKey::public_key_from_pem(pem)
        .and_then(|key| key.public_key_to_der())
        .map_err(|e| JoseError::InvalidKeyFormat(e.into()))
}

fn pss_private_der(pem: &[u8]) -> Result<Vec<u8>, JoseError> {
    openssl::pkey::PKey::private_key_from_pem(pem)
        .and_then(|key| key.private_key_to_pkcs8())
        .map_err(|e| JoseError::InvalidKeyFormat(e.into()))
}

fn verifier(alg: Alg, key: &[u8]) -> Result<Box<dyn JwsVerifier>, JoseError> {
    let verifier: Box<dyn JwsVerifier> = match alg {
        Alg::HS256 => Box::new(HS256.verifier_from_bytes(key)?),
        Alg::HS384 => Box::new(HS384.verifier_from_bytes(key)?),
        Alg::HS512 => Box::new(HS512.verifier_from_bytes(key)?),
        Alg::RS256 => Box::new(RS256.verifier_from_pem(key)?),
        Alg::RS384 => Box::new(RS384.verifier_from_pem(key)?),
        Alg::RS512 => Box::new(RS512.verifier_from_pem(key)?),
        Alg::PS256 => Box::new(PS256.verifier_from_der(pss_public_der(key)?)?),
        Alg::PS384 => Box::new(PS384.verifier_from_der(pss_public_der(key)?)?),
        Alg::PS512 => Box::new(PS512.verifier_from_der(pss_public_der(key)?)?),
        Alg::ES256 => Box::new(ES256.verifier_from_pem(key)?),
        Alg::ES384 => Box::new(ES384.verifier_from_pem(key)?),
        Alg::ES512 => Box::new(ES512.verifier_from_pem(key)?),
        Alg::EdDSA => Box::new(EdDSA.verifier_from_pem(key)?),
    };
    Ok(verifier)
}

fn signer(alg: Alg, key: &[u8]) -> Result<Box<dyn JwsSigner>, JoseError> {
    let signer: Box<dyn JwsSigner> = match alg {
        Alg::HS256 => Box::new(HS256.signer_from_bytes(key)?),
        Alg::HS384 => Box::new(HS384.signer_from_bytes(key)?),
        Alg::HS512 => Box::new(HS512.signer_from_bytes(key)?),
        Alg::RS256 => Box::new(RS256.signer_from_pem(key)?),
        Alg::RS384 => Box::new(RS384.signer_from_pem(key)?),
        Alg::RS512 => Box::new(RS512.signer_from_pem(key)?),
        Alg::PS256 => Box::new(PS256.signer_from_der(pss_private_der(key)?)?),
        Alg::PS384 => Box::new(PS384.signer_from_der(pss_private_der(key)?)?),
        Alg::PS512 => Box::new(PS512.signer_from_der(pss_private_der(key)?)?),
        Alg::ES256 => Box::new(ES256.signer_from_pem(key)?),
        Alg::ES384 => Box::new(ES384.signer_from_pem(key)?),
        Alg::ES512 => Box::new(ES512.signer_from_pem(key)?),
        Alg::EdDSA => Box::new(EdDSA.signer_from_pem(key)?),
    };
    Ok(signer)
}

impl Library for Josekit {
    fn name(&self) -> &'static str {
        "josekit"
    }

    fn version(&self) -> &'static str {
        env!("JWTBENCH_CRATE_JOSEKIT")
    }

    fn unsupported(&self, _alg: Alg) -> Option<&'static str> {
        None
    }

    fn signer(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn SignJws>, Failure> {
        let mut header = JwsHeader::new();
        header.set_token_type("JWT");
        Ok(Box::new(Signing {
            header,
            signer: signer(alg, key).map_err(|e| key_error(path, "private key", alg, e))?,
        }))
    }

    fn verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJws>, Failure> {
        Ok(Box::new(Verifying {
            verifier: verifier(alg, key).map_err(|e| key_error(path, "public key", alg, e))?,
        }))
    }

    fn signature_verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJwsSignature>, Failure> {
        Ok(Box::new(SignatureOnly {
            verifier: verifier(alg, key).map_err(|e| key_error(path, "public key", alg, e))?,
        }))
    }

    fn decoder(&self) -> Result<Decode, &'static str> {
        Err(
            "josekit 0.10 has no API that reads a signed token's claims without verifying it \
             (jwt::decode_unsecured accepts only alg none tokens, jwt::decode_header reads the header)",
        )
    }

    fn crypto_backend(&self) -> String {
        format!(
            "{} (system libssl, through the openssl crate {})",
            openssl::version::version(),
            env!("JWTBENCH_CRATE_OPENSSL")
        )
    }

    fn libraries(&self) -> Map<String, Value> {
        let mut libraries = crate::crate_versions! {
            "josekit" => "JWTBENCH_CRATE_JOSEKIT",
            "openssl" => "JWTBENCH_CRATE_OPENSSL",
            "openssl-sys" => "JWTBENCH_CRATE_OPENSSL_SYS",
            "serde_json" => "JWTBENCH_CRATE_SERDE_JSON",
            "base64" => "JWTBENCH_CRATE_BASE64",
            "sha2" => "JWTBENCH_CRATE_SHA2",
        };
        let openssl = openssl::version::version();
        let number = openssl.split_whitespace().nth(1).unwrap_or(openssl);
        libraries.insert("OpenSSL".into(), Value::String(number.to_string()));
        libraries
    }
}
