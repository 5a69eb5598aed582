//! Suite primitive (seed 003): the RustCrypto crates under jsonwebtoken, plus aes-gcm.

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256, Sha512};

use crate::failure::{Failure, read_file};
use crate::spec::{Cell, Spec, counting_bytes, hex_decode, hex_encode};
use crate::timing::{Calls, Prepared, Who, repeat};

pub mod signatures {
    //! The signature schemes of suites primitive and keygen, and their sign and verify cells.

    use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey};
    use rsa::pkcs1v15;
    use rsa::signature::{RandomizedSigner, SignatureEncoding, Signer, Verifier};
    use sha2::Sha256;

    use crate::timing::{Calls, repeat};

    pub trait Scheme {
        fn sign(&self, message: &[u8]) -> Result<Vec<u8>, String>;
        fn verify(&self, message: &[u8], signature: &[u8]) -> bool;
    }

    /// RSA PKCS#1 v1.5 with SHA-256, signed with blinding (as jsonwebtoken's RS256 does).
    struct RsaSha256(pkcs1v15::SigningKey<Sha256>, pkcs1v15::VerifyingKey<Sha256>);

    impl Scheme for RsaSha256 {
        fn sign(&self, message: &[u8]) -> Result<Vec<u8>, String> {
            Ok(self.0.sign_with_rng(&mut rand::thread_rng(), message).to_vec())
        }
        fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
            pkcs1v15::Signature::try_from(signature).is_ok_and(|s| self.1.verify(message, &s).is_ok())
        }
    }

    /// ECDSA P-256 with SHA-256, RFC 6979 nonces (as jsonwebtoken's ES256 signs), r || s.
    struct EcdsaP256(p256::ecdsa::SigningKey, p256::ecdsa::VerifyingKey);

    impl Scheme for EcdsaP256 {
        fn sign(&self, message: &[u8]) -> Result<Vec<u8>, String> {
            let signature: p256::ecdsa::Signature = self.0.sign(message);
            Ok(signature.to_vec())
        }
        fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
            p256::ecdsa::Signature::from_slice(signature).is_ok_and(|s| self.1.verify(message, &s).is_ok())
        }
    }

    struct Ed25519(ed25519_dalek::SigningKey, ed25519_dalek::VerifyingKey);

    impl Scheme for Ed25519 {
        fn sign(&self, message: &[u8]) -> Result<Vec<u8>, String> {
            Ok(self.0.sign(message).to_vec())
        }
        fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
            ed25519_dalek::Signature::from_slice(signature).is_ok_and(|s| self.1.verify(message, &s).is_ok())
        }
    }

    pub fn load(algorithm: &str, private_pem: &str, public_pem: &str) -> Result<Box<dyn Scheme>, String> {
        let text = |e: &dyn std::fmt::Display| e.to_string();
        Ok(match algorithm {
            "RSA-SHA256" => {
                use rsa::pkcs8::{DecodePrivateKey, DecodePublicKey};
                let private = rsa::RsaPrivateKey::from_pkcs8_pem(private_pem).map_err(|e| text(&e))?;
                let public = rsa::RsaPublicKey::from_public_key_pem(public_pem).map_err(|e| text(&e))?;
                Box::new(RsaSha256(pkcs1v15::SigningKey::new(private), pkcs1v15::VerifyingKey::new(public)))
            }
            "ECDSA-SHA256" => Box::new(EcdsaP256(
                p256::ecdsa::SigningKey::from_pkcs8_pem(private_pem).map_err(|e| text(&e))?,
                p256::ecdsa::VerifyingKey::from_public_key_pem(public_pem).map_err(|e| text(&e))?,
            )),
            "Ed25519" => Box::new(Ed25519(
                ed25519_dalek::SigningKey::from_pkcs8_pem(private_pem).map_err(|e| text(&e))?,
                ed25519_dalek::VerifyingKey::from_public_key_pem(public_pem).map_err(|e| text(&e))?,
            )),
            other => return Err(format!("unknown signature algorithm {other:?}")),
        })
    }

    /// A signature verifies and it with a flipped bit does not: the signature.
    pub fn check<S: Scheme + ?Sized>(scheme: &S, message: &[u8]) -> Result<Vec<u8>, String> {
        let signature = scheme.sign(message)?;
        if !scheme.verify(message, &signature) {
            return Err("a fresh signature does not verify".into());
        }
        let mut flipped = signature.clone();
        flipped[0] ^= 1;
        if scheme.verify(message, &flipped) {
            return Err("a signature with a flipped bit verifies".into());
        }
        Ok(signature)
    }

    pub fn cell<S: Scheme + ?Sized + 'static>(
        operation: &str,
        scheme: Box<S>,
        message: Vec<u8>,
    ) -> Result<(u64, Box<dyn Calls>), String> {
        let signature = check(scheme.as_ref(), &message)?;
        let output_bytes = signature.len() as u64;
        let calls = match operation {
            "sign" => repeat(move || Ok(scheme.sign(&message)?[0] as u64)),
            _ => repeat(move || match scheme.verify(&message, &signature) {
                true => Ok(signature.len() as u64),
                false => Err("the signature stopped verifying".into()),
            }),
        };
        Ok((output_bytes, calls))
    }
}

type Ready = Result<(u64, Box<dyn Calls>), String>;

fn known(cell: &Cell, key: &str) -> Result<Vec<u8>, String> {
    hex_decode(cell.known(key).ok_or_else(|| format!("no known_answer.{key}"))?)
}

/// The cell's call path on its known answer's inputs gave `got`: it must be `output_hex`.
fn expect(cell: &Cell, got: &[u8]) -> Result<(), String> {
    match got == known(cell, "output_hex")?.as_slice() {
        true => Ok(()),
        false => Err(format!("known answer: {} gave {}", cell.algorithm, hex_encode(got))),
    }
}

fn digest<D: Digest + 'static>(cell: &Cell, message: Vec<u8>) -> Ready {
    expect(cell, &D::digest(known(cell, "message_hex")?))?;
    Ok((<D as Digest>::output_size() as u64, repeat(move || Ok(D::digest(&message)[0] as u64))))
}

fn hmac_sha256(key: &[u8]) -> Result<Hmac<Sha256>, String> {
    <Hmac<Sha256> as Mac>::new_from_slice(key).map_err(|e| e.to_string())
}

fn mac(cell: &Cell, secret: &[u8], message: Vec<u8>) -> Ready {
    let sample = hmac_sha256(&known(cell, "key_hex")?)?.chain_update(known(cell, "message_hex")?);
    expect(cell, &sample.finalize().into_bytes())?;
    let keyed = hmac_sha256(secret)?;
    let calls = repeat(move || {
        let mut mac = keyed.clone();
        mac.update(&message);
        Ok(mac.finalize().into_bytes()[0] as u64)
    });
    Ok((32, calls))
}

fn nonce(counter: u128) -> [u8; 12] {
    counter.to_be_bytes()[4..].try_into().expect("12 bytes")
}

fn seal(cipher: &Aes256Gcm, nonce_bytes: &[u8; 12], message: &[u8]) -> Result<Vec<u8>, String> {
    cipher.encrypt(&Nonce::from(*nonce_bytes), message).map_err(|e| e.to_string())
}

fn encrypt(cell: &Cell, secret: &[u8], message: Vec<u8>) -> Ready {
    let sample = Aes256Gcm::new_from_slice(&known(cell, "key_hex")?).map_err(|e| e.to_string())?;
    let sample_nonce: [u8; 12] = known(cell, "nonce_hex")?.try_into().map_err(|_| "nonce_hex is not 12 bytes")?;
    expect(cell, &seal(&sample, &sample_nonce, &known(cell, "message_hex")?)?)?;
    let cipher = Aes256Gcm::new_from_slice(secret).map_err(|_| "the secret is not 32 bytes".to_string())?;
    let first = seal(&cipher, &nonce(0), &message)?;
    let opened = cipher.decrypt(&Nonce::from(nonce(0)), first.as_slice()).map_err(|e| e.to_string())?;
    if opened != message {
        return Err("decrypting an output does not give the message back".into());
    }
    let mut counter: u128 = 1;
    let calls = repeat(move || {
        let sealed = seal(&cipher, &nonce(counter), &message)?;
        counter += 1;
        Ok(sealed[0] as u64 + sealed.len() as u64)
    });
    Ok((first.len() as u64, calls))
}

fn prepare(cell: &Cell, message: Vec<u8>) -> Result<Ready, Failure> {
    let file = |key| read_file(cell.required(key)?);
    Ok(match (cell.operation.as_str(), cell.algorithm.as_str()) {
        ("digest", "SHA-256") => digest::<Sha256>(cell, message),
        ("digest", "SHA-512") => digest::<Sha512>(cell, message),
        ("mac", "HMAC-SHA256") => mac(cell, &file("private_key")?, message),
        ("encrypt", "AES-256-GCM") => encrypt(cell, &file("private_key")?, message),
        (operation @ ("sign" | "verify"), algorithm @ ("RSA-SHA256" | "ECDSA-SHA256" | "Ed25519")) => {
            let pem = |key| file(key).map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
            let scheme = signatures::load(algorithm, &pem("private_key")?, &pem("public_key")?)
                .map_err(|e| Failure::Input(format!("cell {}: keys: {e}", cell.label())))?;
            signatures::cell(operation, scheme, message)
        }
        (operation, algorithm) => {
            let label = cell.label();
            return Err(Failure::Input(format!("cell {label}: unknown primitive {operation} {algorithm}")));
        }
    })
}

pub fn cells<'a>(spec: &Spec) -> Result<Vec<Prepared<'a>>, Failure> {
    let mut prepared = Vec::new();
    for cell in &spec.cells {
        crate::hashing::check_implementation(cell)?;
        let message = match (cell.message_bytes(), cell.input_kind()) {
            (_, "bytes") => read_file(cell.required("input_file")?)?,
            (Some(length), _) => counting_bytes(length),
            _ => {
                return Err(Failure::Input(format!("cell {}: no message_bytes or bytes input_file", cell.label())));
            }
        };
        let crate_name = match cell.algorithm.as_str() {
            "HMAC-SHA256" => "hmac",
            "AES-256-GCM" => "aes-gcm",
            "RSA-SHA256" => "rsa",
            "ECDSA-SHA256" => "p256",
            "Ed25519" => "ed25519-dalek",
            _ => "sha2",
        };
        let who = Who::rustcrypto(crate_name, message.len() as u64);
        prepared.push(match prepare(cell, message)? {
            Ok((output_bytes, calls)) => who.timed(output_bytes, 1, calls),
            Err(reason) => who.not_timed("failed", reason),
        });
    }
    Ok(prepared)
}
