//! JWS through the `jsonwebtoken` crate's ordinary API (`encode`, `decode`,
//! `dangerous::insecure_decode`), the keys parsed once into its `EncodingKey` /
//! `DecodingKey`, and the forgery checks of the contract's rule 2.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde_json::{Map, Value};

use crate::failure::{Failure, catch_panic, one_line, read_file};

/// The JWS algorithms jsonwebtoken 11 cannot do, with the reason (driver.yaml lists the same).
const UNSUPPORTED: &[(&str, &str)] = &[(
    "ES512",
    "jsonwebtoken 11 has no ES512: its Algorithm enum has no P-521 (ES256 and ES384 only)",
)];

pub fn algorithm(name: &str) -> Result<Algorithm, Failure> {
    if let Some((_, reason)) = UNSUPPORTED.iter().find(|(alg, _)| *alg == name) {
        return Err(Failure::Unsupported(format!("{name}: {reason}")));
    }
    Ok(match name {
        "HS256" => Algorithm::HS256,
        "HS384" => Algorithm::HS384,
        "HS512" => Algorithm::HS512,
        "RS256" => Algorithm::RS256,
        "RS384" => Algorithm::RS384,
        "RS512" => Algorithm::RS512,
        "PS256" => Algorithm::PS256,
        "PS384" => Algorithm::PS384,
        "PS512" => Algorithm::PS512,
        "ES256" => Algorithm::ES256,
        "ES384" => Algorithm::ES384,
        "EdDSA" => Algorithm::EdDSA,
        other => return Err(Failure::Input(format!("unknown JWS algorithm {other:?}"))),
    })
}

fn is_hmac(alg: Algorithm) -> bool {
    matches!(alg, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512)
}

fn encoding_key(alg: Algorithm, path: &str) -> Result<EncodingKey, Failure> {
    let bytes = read_file(path)?;
    let parsed = match alg {
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => return Ok(EncodingKey::from_secret(&bytes)),
        Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(&bytes),
        Algorithm::EdDSA => EncodingKey::from_ed_pem(&bytes),
        _ => EncodingKey::from_rsa_pem(&bytes),
    };
    parsed.map_err(|e| Failure::Input(format!("{path}: not a private key for {alg:?}: {e}")))
}

fn decoding_key(alg: Algorithm, bytes: &[u8], path: &str) -> Result<DecodingKey, Failure> {
    let parsed = match alg {
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => return Ok(DecodingKey::from_secret(bytes)),
        Algorithm::ES256 | Algorithm::ES384 => DecodingKey::from_ec_pem(bytes),
        Algorithm::EdDSA => DecodingKey::from_ed_pem(bytes),
        _ => DecodingKey::from_rsa_pem(bytes),
    };
    parsed.map_err(|e| Failure::Input(format!("{path}: not a public key for {alg:?}: {e}")))
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

/// A JWS algorithm with its key pair, parsed once.
pub struct Signer {
    pub alg: Algorithm,
    header: Header,
    encoding: EncodingKey,
    pub verifier: Verifier,
}

pub struct Verifier {
    decoding: DecodingKey,
    validation: Validation,
    /// The verifying key file's bytes: the HMAC key of the key-confusion forgery.
    key_bytes: Vec<u8>,
}

impl Verifier {
    pub fn load(alg: Algorithm, path: &str) -> Result<Verifier, Failure> {
        let key_bytes = read_file(path)?;
        let decoding = decoding_key(alg, &key_bytes, path)?;
        Ok(Verifier {
            decoding,
            validation: pinned_validation(alg),
            key_bytes,
        })
    }

    /// The one verify of this driver (`verify`, `verify-batch`, the timed `verify` cells,
    /// transfer): jsonwebtoken's `decode` under `pinned_validation`. The claims type is a
    /// JSON object, so any other payload is invalid. A panic in the library is caught
    /// (`Failure::Error`).
    pub fn verify(&self, token: impl AsRef<[u8]>) -> Result<Value, Failure> {
        catch_panic(|| {
            jsonwebtoken::decode::<Map<String, Value>>(token, &self.decoding, &self.validation)
                .map(|data| Value::Object(data.claims))
                .map_err(verdict)
        })
    }
}

impl Signer {
    pub fn load(alg: Algorithm, private_path: &str, public_path: &str) -> Result<Signer, Failure> {
        Ok(Signer {
            alg,
            header: Header::new(alg),
            encoding: encoding_key(alg, private_path)?,
            verifier: Verifier::load(alg, public_path)?,
        })
    }

    pub fn sign(&self, claims: &Value) -> Result<String, Failure> {
        jsonwebtoken::encode(&self.header, claims, &self.encoding)
            .map_err(|e| Failure::Invalid(format!("signing with {:?} failed: {e}", self.alg)))
    }

    pub fn verify(&self, token: &str) -> Result<Value, Failure> {
        self.verifier.verify(token)
    }

    /// Rule 2 of the contract on one signed token of `claims`.
    pub fn check(&self, claims: &Value, token: &str) -> Result<(), Failure> {
        let fail = |what: &str| Err(Failure::Invalid(format!("{:?} check failed: {what}", self.alg)));
        match self.verify(token) {
            Ok(verified) if &verified == claims => {}
            Ok(_) => return fail("the verified claims differ from the input"),
            Err(e) => return fail(&format!("its own token does not verify ({})", e.message())),
        }
        if self.verify(&flip_signature_bit(token)?).is_ok() {
            return fail("a token with a flipped signature bit verifies");
        }
        if self.verify(&unsigned_twin(token)?).is_ok() {
            return fail("an alg:none token verifies");
        }
        if self.verify(&self.other_algorithm_twin(claims)?).is_ok() {
            return fail("a token naming another algorithm verifies");
        }
        match decode(token) {
            Ok(decoded) if &decoded == claims => Ok(()),
            _ => fail("decode does not yield the input claims"),
        }
    }

    /// The same claims validly HMAC'd under another algorithm: HS384 (for HS256) or HS256
    /// with the same secret, or for public-key algorithms HS256 keyed with the public PEM
    /// (the key-confusion attack).
    fn other_algorithm_twin(&self, claims: &Value) -> Result<String, Failure> {
        let other = if self.alg == Algorithm::HS256 {
            Algorithm::HS384
        } else {
            Algorithm::HS256
        };
        let key = EncodingKey::from_secret(&self.verifier.key_bytes);
        debug_assert!(is_hmac(other));
        jsonwebtoken::encode(&Header::new(other), claims, &key)
            .map_err(|e| Failure::Invalid(format!("cannot build the {other:?} twin: {e}")))
    }
}

/// The claims of a compact JWS without checking its signature (jsonwebtoken's
/// `dangerous::insecure_decode`).
pub fn decode(token: &str) -> Result<Value, Failure> {
    jsonwebtoken::dangerous::insecure_decode::<Value>(token)
        .map(|data| data.claims)
        .map_err(|e| Failure::Invalid(format!("cannot decode the token: {e}")))
}

fn split(token: &str) -> Result<(&str, &str, &str), Failure> {
    let mut parts = token.split('.');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(h), Some(p), Some(s), None) => Ok((h, p, s)),
        _ => Err(Failure::Invalid("not a compact JWS".into())),
    }
}

/// The token with the lowest bit of its first signature byte flipped.
pub fn flip_signature_bit(token: &str) -> Result<String, Failure> {
    let (header, payload, signature) = split(token)?;
    let mut raw = URL_SAFE_NO_PAD
        .decode(signature)
        .map_err(|e| Failure::Invalid(format!("signature is not base64url: {e}")))?;
    if let Some(first) = raw.first_mut() {
        *first ^= 1;
    }
    Ok(format!("{header}.{payload}.{}", URL_SAFE_NO_PAD.encode(raw)))
}

/// The same payload under header {"alg":"none","typ":"JWT"} with an empty signature.
pub fn unsigned_twin(token: &str) -> Result<String, Failure> {
    let (_, payload, _) = split(token)?;
    Ok(format!(
        "{}.{payload}.",
        URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#)
    ))
}

pub fn read_claims(path: &str) -> Result<Value, Failure> {
    let bytes = read_file(path)?;
    let claims: Value = serde_json::from_slice(&bytes).map_err(|e| Failure::Input(format!("{path}: not JSON: {e}")))?;
    if !claims.is_object() {
        return Err(Failure::Input(format!("{path}: the payload is not a JSON object")));
    }
    Ok(claims)
}

pub fn sign_command(alg: &str, key: &str, payload: &str) -> Result<String, Failure> {
    let alg = algorithm(alg)?;
    let claims = read_claims(payload)?;
    let encoding = encoding_key(alg, key)?;
    jsonwebtoken::encode(&Header::new(alg), &claims, &encoding)
        .map_err(|e| Failure::Input(format!("{key}: cannot sign with {alg:?}: {e}")))
}

pub fn verify_command(alg: &str, key: &str, token: &str) -> Result<String, Failure> {
    let alg = algorithm(alg)?;
    let verifier = Verifier::load(alg, key)?;
    Ok(verifier.verify(read_file(token)?.trim_ascii())?.to_string())
}

/// `verify --signature-only`: the JWS alone, through jsonwebtoken's own JWS layer
/// (`decode_header`, then `crypto::verify` over the signing input): the header must name
/// ALG and the signature must verify; no claims are parsed, no `exp` checked. Returns the
/// payload segment's bytes as signed.
pub fn verify_signature_only(alg: &str, key: &str, token: &str) -> Result<Vec<u8>, Failure> {
    let alg = algorithm(alg)?;
    let decoding = decoding_key(alg, &read_file(key)?, key)?;
    let text = String::from_utf8(read_file(token)?).map_err(|_| Failure::Invalid(format!("{token}: not UTF-8")))?;
    let text = text.trim();
    let (header, payload, signature) = split(text)?;
    match jsonwebtoken::decode_header(text) {
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
    match jsonwebtoken::crypto::verify(signature, signing_input.as_bytes(), &decoding, alg) {
        Ok(true) => {}
        Ok(false) => return Err(Failure::Invalid("the signature does not verify".into())),
        Err(e) => return Err(Failure::Invalid(format!("the signature cannot be checked: {e}"))),
    }
    URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|e| Failure::Invalid(format!("payload is not base64url: {e}")))
}

/// One cold process's work: an HS256 token and an RS256 token of the payload.
pub fn coldstart_command(hmac: &str, rsa: &str, payload: &str) -> Result<Vec<String>, Failure> {
    Ok(vec![
        sign_command("HS256", hmac, payload)?,
        sign_command("RS256", rsa, payload)?,
    ])
}
