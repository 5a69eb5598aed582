//! JWTBENCH_LIBRARY=josekit, on the system's OpenSSL (josekit/README.md).

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
use crate::versions;

pub struct Josekit;
pub static JOSEKIT: Josekit = Josekit;

/// The kinds josekit reports for a bad token are its verdict (exit 1); others exit 4.
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

/// The verify policy, made per call because its times are instants (josekit has no leeway).
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
    /// `JwtPayload::from_map` (it checks the registered claims' types), `encode_with_signer`.
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
    /// `decode_with_verifier` (alg, signature, well-typed claims), then the validator.
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
    /// `jws::deserialize_compact` with the verifier: the payload's bytes, no claims parsed.
    fn verify_signature(&self, token: &str) -> Result<Vec<u8>, Failure> {
        let (payload, _header) = jws::deserialize_compact(token, &*self.verifier).map_err(verdict)?;
        Ok(payload)
    }
}

/// PS*: josekit's `*_from_pem` take only RSASSA-PSS or PKCS#1 PEMs, so `*_from_der` gets DER.
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

/// A josekit key of `alg`: `$bytes` for HS*, `$der` on the PEM as DER for PS*, else `$pem`.
macro_rules! key_of {
    ($alg:expr, $key:expr, $bytes:ident, $pem:ident, $der:ident, $to_der:ident) => {
        match $alg {
            Alg::HS256 => Box::new(HS256.$bytes($key)?),
            Alg::HS384 => Box::new(HS384.$bytes($key)?),
            Alg::HS512 => Box::new(HS512.$bytes($key)?),
            Alg::RS256 => Box::new(RS256.$pem($key)?),
            Alg::RS384 => Box::new(RS384.$pem($key)?),
            Alg::RS512 => Box::new(RS512.$pem($key)?),
            Alg::PS256 => Box::new(PS256.$der($to_der($key)?)?),
            Alg::PS384 => Box::new(PS384.$der($to_der($key)?)?),
            Alg::PS512 => Box::new(PS512.$der($to_der($key)?)?),
            Alg::ES256 => Box::new(ES256.$pem($key)?),
            Alg::ES384 => Box::new(ES384.$pem($key)?),
            Alg::ES512 => Box::new(ES512.$pem($key)?),
            Alg::EdDSA => Box::new(EdDSA.$pem($key)?),
        }
    };
}

fn verifier(alg: Alg, key: &[u8]) -> Result<Box<dyn JwsVerifier>, JoseError> {
    Ok(key_of!(alg, key, verifier_from_bytes, verifier_from_pem, verifier_from_der, pss_public_der))
}

fn signer(alg: Alg, key: &[u8]) -> Result<Box<dyn JwsSigner>, JoseError> {
    Ok(key_of!(alg, key, signer_from_bytes, signer_from_pem, signer_from_der, pss_private_der))
}

impl Library for Josekit {
    fn name(&self) -> &'static str {
        "josekit"
    }

    fn version(&self) -> &'static str {
        versions::locked("josekit")
    }

    fn unsupported(&self, _alg: Alg) -> Option<&'static str> {
        None
    }

    fn signer(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn SignJws>, Failure> {
        let mut header = JwsHeader::new();
        header.set_token_type("JWT");
        Ok(Box::new(Signing { header, signer: signer(alg, key).map_err(|e| key_error(path, "private key", alg, e))? }))
    }

    fn verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJws>, Failure> {
        Ok(Box::new(Verifying { verifier: verifier(alg, key).map_err(|e| key_error(path, "public key", alg, e))? }))
    }

    fn signature_verifier(&self, alg: Alg, key: &[u8], path: &str) -> Result<Box<dyn VerifyJwsSignature>, Failure> {
        Ok(Box::new(SignatureOnly { verifier: verifier(alg, key).map_err(|e| key_error(path, "public key", alg, e))? }))
    }

    fn decoder(&self) -> Result<Decode, &'static str> {
        Err("josekit 0.10 has no API that reads a signed token's claims without verifying it \
             (jwt::decode_unsecured accepts only alg none tokens, jwt::decode_header reads the header)")
    }

    fn crypto_backend(&self) -> String {
        format!(
            "{} (system libssl, through the openssl crate {})",
            openssl::version::version(),
            versions::locked("openssl")
        )
    }

    fn libraries(&self) -> Map<String, Value> {
        let mut libraries = versions::libraries("josekit openssl openssl-sys serde_json base64 sha2");
        let openssl = openssl::version::version();
        let number = openssl.split_whitespace().nth(1).unwrap_or(openssl);
        libraries.insert("OpenSSL".into(), Value::String(number.to_string()));
        libraries
    }
}
