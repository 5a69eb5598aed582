//! Suite primitive (seed 003): the raw primitives under jsonwebtoken, from the same
//! RustCrypto crates its `rust_crypto` backend signs with (sha2, hmac, rsa, p256,
//! ed25519-dalek), plus aes-gcm, at openssl speed's block sizes.

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256, Sha512};

use crate::failure::{Failure, read_file};
use crate::raw_samples::{RawSamples, RowIdentity, Status};
use crate::spec::{Cell, Spec, counting_bytes, hex_encode};
use crate::timing::{self, Batch, PreparedCell, TimedCell};
use crate::versions;

pub mod signatures {
    //! The three signature schemes of suites primitive and keygen, behind one trait.

    use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey};
    use rsa::pkcs1v15;
    use rsa::signature::{RandomizedSigner, SignatureEncoding, Signer, Verifier};
    use sha2::Sha256;

    pub trait Scheme {
        fn sign(&self, message: &[u8]) -> Vec<u8>;
        fn verify(&self, message: &[u8], signature: &[u8]) -> bool;
    }

    /// RSA PKCS#1 v1.5 with SHA-256, signed with blinding (as jsonwebtoken's RS256 does).
    pub struct RsaSha256 {
        pub signing: Option<pkcs1v15::SigningKey<Sha256>>,
        pub verifying: pkcs1v15::VerifyingKey<Sha256>,
    }

    impl Scheme for RsaSha256 {
        fn sign(&self, message: &[u8]) -> Vec<u8> {
            let key = self.signing.as_ref().expect("a signing key");
            key.sign_with_rng(&mut rand::thread_rng(), message).to_vec()
        }
        fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
            pkcs1v15::Signature::try_from(signature).is_ok_and(|s| self.verifying.verify(message, &s).is_ok())
        }
    }

    /// ECDSA P-256 with SHA-256, RFC 6979 nonces (as jsonwebtoken's ES256 signs), r || s.
    pub struct EcdsaP256 {
        pub signing: Option<p256::ecdsa::SigningKey>,
        pub verifying: p256::ecdsa::VerifyingKey,
    }

    impl Scheme for EcdsaP256 {
        fn sign(&self, message: &[u8]) -> Vec<u8> {
            let key = self.signing.as_ref().expect("a signing key");
            let signature: p256::ecdsa::Signature = key.sign(message);
            signature.to_vec()
        }
        fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
            p256::ecdsa::Signature::from_slice(signature).is_ok_and(|s| self.verifying.verify(message, &s).is_ok())
        }
    }

    pub struct Ed25519 {
        pub signing: Option<ed25519_dalek::SigningKey>,
        pub verifying: ed25519_dalek::VerifyingKey,
    }

    impl Scheme for Ed25519 {
        fn sign(&self, message: &[u8]) -> Vec<u8> {
            self.signing.as_ref().expect("a signing key").sign(message).to_vec()
        }
        fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
            ed25519_dalek::Signature::from_slice(signature).is_ok_and(|s| self.verifying.verify(message, &s).is_ok())
        }
    }

    /// The scheme of `algorithm` with the run's PEM keys, parsed once.
    pub fn load(algorithm: &str, private_pem: &str, public_pem: &str) -> Result<Box<dyn Scheme>, String> {
        let bad = |e: &dyn std::fmt::Display| e.to_string();
        Ok(match algorithm {
            "RSA-SHA256" => {
                use rsa::pkcs8::{DecodePrivateKey, DecodePublicKey};
                let private = rsa::RsaPrivateKey::from_pkcs8_pem(private_pem).map_err(|e| bad(&e))?;
                let public = rsa::RsaPublicKey::from_public_key_pem(public_pem).map_err(|e| bad(&e))?;
                Box::new(RsaSha256 {
                    signing: Some(pkcs1v15::SigningKey::new(private)),
                    verifying: pkcs1v15::VerifyingKey::new(public),
                })
            }
            "ECDSA-SHA256" => Box::new(EcdsaP256 {
                signing: Some(p256::ecdsa::SigningKey::from_pkcs8_pem(private_pem).map_err(|e| bad(&e))?),
                verifying: p256::ecdsa::VerifyingKey::from_public_key_pem(public_pem).map_err(|e| bad(&e))?,
            }),
            "Ed25519" => Box::new(Ed25519 {
                signing: Some(ed25519_dalek::SigningKey::from_pkcs8_pem(private_pem).map_err(|e| bad(&e))?),
                verifying: ed25519_dalek::VerifyingKey::from_public_key_pem(public_pem).map_err(|e| bad(&e))?,
            }),
            other => return Err(format!("unknown signature algorithm {other:?}")),
        })
    }

    /// A signature of the message verifies and the same signature with the lowest bit of
    /// its first byte flipped does not.
    pub fn check(scheme: &dyn Scheme, message: &[u8]) -> Result<Vec<u8>, String> {
        let signature = scheme.sign(message);
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
}

fn message_of(cell: &Cell) -> Result<Vec<u8>, Failure> {
    match (cell.message_bytes, cell.input_kind.as_str()) {
        (_, "bytes") => read_file(cell.input_file()?),
        (Some(length), _) => Ok(counting_bytes(length)),
        _ => Err(Failure::Input(format!(
            "cell {}: neither message_bytes nor a bytes input_file",
            cell.label()
        ))),
    }
}

fn secret_of(cell: &Cell) -> Result<Vec<u8>, Failure> {
    read_file(cell.private_key()?)
}

fn known(cell: &Cell, key: &str) -> Result<Vec<u8>, String> {
    cell.known_hex(key)
        .unwrap_or_else(|| Err(format!("no known_answer.{key}")))
}

fn expect(what: &str, got: &[u8], cell: &Cell) -> Result<(), String> {
    let wanted = known(cell, "output_hex")?;
    if got == wanted.as_slice() {
        Ok(())
    } else {
        Err(format!("known answer: {what} gave {}", hex_encode(got)))
    }
}

fn hmac_sha256(key: &[u8]) -> Result<Hmac<Sha256>, String> {
    <Hmac<Sha256> as Mac>::new_from_slice(key).map_err(|e| e.to_string())
}

fn nonce(counter: u128) -> [u8; 12] {
    counter.to_be_bytes()[4..].try_into().expect("12 bytes")
}

fn seal(cipher: &Aes256Gcm, nonce_bytes: &[u8; 12], message: &[u8]) -> Result<Vec<u8>, String> {
    cipher
        .encrypt(&Nonce::from(*nonce_bytes), message)
        .map_err(|e| e.to_string())
}

struct Prepared<'a> {
    version: &'static str,
    output_bytes: u64,
    batch: Batch<'a>,
}

fn digest_batch<'a, D: Digest>(message: Vec<u8>) -> Batch<'a> {
    Box::new(move |n| {
        let mut fold = 0u64;
        for _ in 0..n {
            fold = fold.wrapping_add(D::digest(&message)[0] as u64);
        }
        Ok(fold)
    })
}

/// The crate that does a primitive cell's work.
fn version_of(cell: &Cell) -> &'static str {
    match cell.algorithm.as_str() {
        "HMAC-SHA256" => versions::HMAC,
        "AES-256-GCM" => versions::AES_GCM,
        "RSA-SHA256" => versions::RSA,
        "ECDSA-SHA256" => versions::P256,
        "Ed25519" => versions::ED25519,
        _ => versions::SHA2,
    }
}

fn prepare<'a>(cell: &Cell, message: Vec<u8>) -> Result<Result<Prepared<'a>, String>, Failure> {
    crate::hashing::check_implementation(cell)?;
    let checked = |r: Result<Prepared<'a>, String>| Ok(r);
    match (cell.operation.as_str(), cell.algorithm.as_str()) {
        ("digest", algorithm @ ("SHA-256" | "SHA-512")) => checked((|| {
            let sample = known(cell, "message_hex")?;
            let (got, size, batch) = if algorithm == "SHA-256" {
                (Sha256::digest(&sample).to_vec(), 32, digest_batch::<Sha256>(message))
            } else {
                (Sha512::digest(&sample).to_vec(), 64, digest_batch::<Sha512>(message))
            };
            expect(algorithm, &got, cell)?;
            Ok(Prepared {
                version: versions::SHA2,
                output_bytes: size,
                batch,
            })
        })()),
        ("mac", "HMAC-SHA256") => {
            let secret = secret_of(cell)?;
            checked((|| {
                let sample = hmac_sha256(&known(cell, "key_hex")?)?.chain_update(known(cell, "message_hex")?);
                expect("HMAC-SHA256", &sample.finalize().into_bytes(), cell)?;
                let keyed = hmac_sha256(&secret)?;
                let batch: Batch = Box::new(move |n| {
                    let mut fold = 0u64;
                    for _ in 0..n {
                        let mut mac = keyed.clone();
                        mac.update(&message);
                        fold = fold.wrapping_add(mac.finalize().into_bytes()[0] as u64);
                    }
                    Ok(fold)
                });
                Ok(Prepared {
                    version: versions::HMAC,
                    output_bytes: 32,
                    batch,
                })
            })())
        }
        ("encrypt", "AES-256-GCM") => {
            let secret = secret_of(cell)?;
            checked((|| {
                let sample = Aes256Gcm::new_from_slice(&known(cell, "key_hex")?).map_err(|e| e.to_string())?;
                let sample_nonce: [u8; 12] = known(cell, "nonce_hex")?
                    .try_into()
                    .map_err(|_| "nonce_hex is not 12 bytes")?;
                expect(
                    "AES-256-GCM",
                    &seal(&sample, &sample_nonce, &known(cell, "message_hex")?)?,
                    cell,
                )?;
                let cipher =
                    Aes256Gcm::new_from_slice(&secret).map_err(|_| "the secret is not 32 bytes".to_string())?;
                let first = seal(&cipher, &nonce(0), &message)?;
                let opened = cipher
                    .decrypt(&Nonce::from(nonce(0)), first.as_slice())
                    .map_err(|e| e.to_string())?;
                if opened != message {
                    return Err("decrypting an output does not give the message back".into());
                }
                let output_bytes = first.len() as u64;
                let mut counter: u128 = 1;
                let batch: Batch = Box::new(move |n| {
                    let mut fold = 0u64;
                    for _ in 0..n {
                        let sealed = seal(&cipher, &nonce(counter), &message)?;
                        counter += 1;
                        fold = fold.wrapping_add(sealed[0] as u64 + sealed.len() as u64);
                    }
                    Ok(fold)
                });
                Ok(Prepared {
                    version: versions::AES_GCM,
                    output_bytes,
                    batch,
                })
            })())
        }
        (operation @ ("sign" | "verify"), algorithm @ ("RSA-SHA256" | "ECDSA-SHA256" | "Ed25519")) => {
            let private_pem = String::from_utf8_lossy(&read_file(cell.private_key()?)?).into_owned();
            let public_pem = String::from_utf8_lossy(&read_file(cell.public_key()?)?).into_owned();
            let version = version_of(cell);
            let scheme = match signatures::load(algorithm, &private_pem, &public_pem) {
                Ok(scheme) => scheme,
                Err(e) => return Err(Failure::Input(format!("cell {}: keys: {e}", cell.label()))),
            };
            checked((|| {
                let signature = signatures::check(scheme.as_ref(), &message)?;
                let output_bytes = signature.len() as u64;
                let batch: Batch = if operation == "sign" {
                    Box::new(move |n| {
                        let mut fold = 0u64;
                        for _ in 0..n {
                            fold = fold.wrapping_add(scheme.sign(&message)[0] as u64);
                        }
                        Ok(fold)
                    })
                } else {
                    Box::new(move |n| {
                        let mut fold = 0u64;
                        for _ in 0..n {
                            if !scheme.verify(&message, &signature) {
                                return Err("the signature stopped verifying".into());
                            }
                            fold = fold.wrapping_add(signature.len() as u64);
                        }
                        Ok(fold)
                    })
                };
                Ok(Prepared {
                    version,
                    output_bytes,
                    batch,
                })
            })())
        }
        (operation, algorithm) => Err(Failure::Input(format!(
            "cell {}: unknown primitive {operation} {algorithm}",
            cell.label()
        ))),
    }
}

/// Every cell of the spec as `bench` and `serve` time it: prepared and checked, in spec order.
pub fn cells<'a>(spec: &Spec) -> Result<Vec<PreparedCell<'a>>, Failure> {
    let mut prepared = Vec::new();
    for (index, cell) in spec.cells.iter().enumerate() {
        let message = message_of(cell)?;
        let input_bytes = message.len() as u64;
        prepared.push(match prepare(cell, message)? {
            Ok(p) => {
                let who = RowIdentity::new(&spec.suite, cell, versions::RUSTCRYPTO, p.version, input_bytes);
                PreparedCell::Timed(TimedCell::new(index, who, p.output_bytes, 1, p.batch))
            }
            Err(reason) => {
                let who = RowIdentity::new(&spec.suite, cell, versions::RUSTCRYPTO, version_of(cell), input_bytes);
                PreparedCell::NotTimed(who, Status::Failed, reason)
            }
        });
    }
    Ok(prepared)
}

pub fn run(spec: &Spec, out: &mut RawSamples) -> Result<(), Failure> {
    timing::bench(cells(spec)?, spec, out)
}
