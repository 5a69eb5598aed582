//! The JWS side of the driver (algorithms, keys, commands, checks), whichever library.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::{Sha256, Sha384};

use crate::failure::{Failure, catch_panic, read_file};
use crate::libraries::{self, SignJws, VerifyJws, VerifyJwsSignature};

/// The contract's JWS algorithms (workflow/scripts/README.md, `ALG`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alg {
    HS256,
    HS384,
    HS512,
    RS256,
    RS384,
    RS512,
    PS256,
    PS384,
    PS512,
    ES256,
    ES384,
    ES512,
    EdDSA,
}

use Alg::*;

impl Alg {
    const ALL: [Alg; 13] = [HS256, HS384, HS512, RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA];
    const NAMES: [&str; 13] = [
        "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512",
        "EdDSA",
    ];

    pub fn name(self) -> &'static str {
        Alg::NAMES[self as usize]
    }
}

/// ALG for the selected library: unsupported (exit 3) if it lacks it, exit 2 if no JWS ALG.
pub fn algorithm(name: &str) -> Result<Alg, Failure> {
    let Some(alg) = Alg::ALL.into_iter().find(|alg| alg.name() == name) else {
        return Err(Failure::Input(format!("unknown JWS algorithm {name:?}")));
    };
    match libraries::current().unsupported(alg) {
        Some(reason) => Err(Failure::Unsupported(format!("{name}: {reason}"))),
        None => Ok(alg),
    }
}

pub struct Signer {
    pub alg: Alg,
    signing: Box<dyn SignJws>,
    pub verifier: Verifier,
}

pub struct Verifier {
    verifying: Box<dyn VerifyJws>,
    /// The verifying key file's bytes: the HMAC key of the key-confusion forgery.
    key_bytes: Vec<u8>,
}

impl Verifier {
    pub fn load(alg: Alg, path: &str) -> Result<Verifier, Failure> {
        let key_bytes = read_file(path)?;
        let verifying = libraries::current().verifier(alg, &key_bytes, path)?;
        Ok(Verifier { verifying, key_bytes })
    }

    /// The one verify of this driver (commands, cells, transfer); a panic in it is caught.
    pub fn verify(&self, token: impl AsRef<[u8]>) -> Result<Value, Failure> {
        catch_panic(|| self.verifying.verify(token.as_ref()))
    }
}

impl Signer {
    pub fn load(alg: Alg, private_path: &str, public_path: &str) -> Result<Signer, Failure> {
        Ok(Signer {
            alg,
            signing: libraries::current().signer(alg, &read_file(private_path)?, private_path)?,
            verifier: Verifier::load(alg, public_path)?,
        })
    }

    pub fn sign(&self, claims: &Value) -> Result<String, Failure> {
        self.signing.sign(claims).map_err(|e| Failure::Invalid(format!("signing with {:?} failed: {e}", self.alg)))
    }

    pub fn verify(&self, token: &str) -> Result<Value, Failure> {
        self.verifier.verify(token)
    }

    /// The contract's checks before timing on one signed token of `claims`.
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
        let Ok(decode) = libraries::current().decoder() else {
            return Ok(());
        };
        match decode(token) {
            Ok(decoded) if &decoded == claims => Ok(()),
            _ => fail("decode does not yield the input claims"),
        }
    }

    /// The claims HMAC'd under another algorithm with the verifying key file's bytes.
    fn other_algorithm_twin(&self, claims: &Value) -> Result<String, Failure> {
        let other = if self.alg == Alg::HS256 { Alg::HS384 } else { Alg::HS256 };
        let header = format!(r#"{{"typ":"JWT","alg":"{}"}}"#, other.name());
        let payload =
            serde_json::to_vec(claims).map_err(|e| Failure::Invalid(format!("cannot build the twin: {e}")))?;
        let signing_input = format!("{}.{}", URL_SAFE_NO_PAD.encode(header), URL_SAFE_NO_PAD.encode(payload));
        let key = &self.verifier.key_bytes;
        let tag = match other {
            Alg::HS384 => Hmac::<Sha384>::new_from_slice(key)
                .map(|m| m.chain_update(&signing_input).finalize().into_bytes().to_vec()),
            _ => Hmac::<Sha256>::new_from_slice(key)
                .map(|m| m.chain_update(&signing_input).finalize().into_bytes().to_vec()),
        }
        .map_err(|e| Failure::Invalid(format!("cannot build the {other:?} twin: {e}")))?;
        Ok(format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(tag)))
    }
}

pub fn decode(token: &str) -> Result<Value, Failure> {
    let decode = libraries::current().decoder().map_err(|why| Failure::Unsupported(why.to_string()))?;
    decode(token)
}

pub fn split(token: &str) -> Result<(&str, &str, &str), Failure> {
    let mut parts = token.split('.');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(h), Some(p), Some(s), None) => Ok((h, p, s)),
        _ => Err(Failure::Invalid("not a compact JWS".into())),
    }
}

pub fn flip_signature_bit(token: &str) -> Result<String, Failure> {
    let (header, payload, signature) = split(token)?;
    let mut raw =
        URL_SAFE_NO_PAD.decode(signature).map_err(|e| Failure::Invalid(format!("signature is not base64url: {e}")))?;
    if let Some(first) = raw.first_mut() {
        *first ^= 1;
    }
    Ok(format!("{header}.{payload}.{}", URL_SAFE_NO_PAD.encode(raw)))
}

/// The same payload under header {"alg":"none","typ":"JWT"} with an empty signature.
pub fn unsigned_twin(token: &str) -> Result<String, Failure> {
    let (_, payload, _) = split(token)?;
    Ok(format!("{}.{payload}.", URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#)))
}

pub fn read_claims(path: &str) -> Result<Value, Failure> {
    let bytes = read_file(path)?;
    let claims: Value = serde_json::from_slice(&bytes).map_err(|e| Failure::Input(format!("{path}: not JSON: {e}")))?;
    if !claims.is_object() {
        return Err(Failure::Input(format!("{path}: the payload is not a JSON object")));
    }
    Ok(claims)
}

/// A token file as text, surrounding whitespace dropped (`verify --signature-only`).
pub fn read_token_text(path: &str) -> Result<String, Failure> {
    let text = String::from_utf8(read_file(path)?).map_err(|_| Failure::Invalid(format!("{path}: not UTF-8")))?;
    Ok(text.trim().to_string())
}

pub fn sign_command(alg: &str, key: &str, payload: &str) -> Result<String, Failure> {
    let alg = algorithm(alg)?;
    let claims = read_claims(payload)?;
    sign_claims(&*signing_key(alg, key)?, alg, key, &claims)
}

pub fn signing_key(alg: Alg, path: &str) -> Result<Box<dyn SignJws>, Failure> {
    libraries::current().signer(alg, &read_file(path)?, path)
}

/// `sign`'s signing (`sign`, `sign-batch`); `key`, the key file's path, is named in errors.
pub fn sign_claims(signer: &dyn SignJws, alg: Alg, key: &str, claims: &Value) -> Result<String, Failure> {
    signer.sign(claims).map_err(|e| Failure::Input(format!("{key}: cannot sign with {alg:?}: {e}")))
}

pub fn verify_command(alg: &str, key: &str, token: &str) -> Result<String, Failure> {
    let alg = algorithm(alg)?;
    let verifier = Verifier::load(alg, key)?;
    Ok(verifier.verify(read_file(token)?.trim_ascii())?.to_string())
}

pub fn verify_signature_only(alg: &str, key: &str, token: &str) -> Result<Vec<u8>, Failure> {
    signature_verifier(algorithm(alg)?, key)?.verify_signature(&read_token_text(token)?)
}

/// The key of `verify --signature-only` (and of `verify-batch`'s `signature_only` cases).
pub fn signature_verifier(alg: Alg, path: &str) -> Result<Box<dyn VerifyJwsSignature>, Failure> {
    libraries::current().signature_verifier(alg, &read_file(path)?, path)
}

pub fn coldstart_command(hmac: &str, rsa: &str, payload: &str) -> Result<Vec<String>, Failure> {
    Ok(vec![sign_command("HS256", hmac, payload)?, sign_command("RS256", rsa, payload)?])
}
