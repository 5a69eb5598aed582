//! Suite keygen (seed 004) with the RustCrypto crates (rsa; p256, p384, p521).

use std::hint::black_box;

use rsa::traits::PublicKeyParts;
use rsa::{Pkcs1v15Sign, RsaPrivateKey, RsaPublicKey};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256, Sha512};

use crate::failure::{Failure, read_file};
use crate::primitive::signatures::{self, Scheme};
use crate::spec::{Cell, Spec};
use crate::timing::{Calls, Prepared, Who};

#[derive(Clone, Copy)]
enum Hash {
    Sha256,
    Sha512,
}

impl Hash {
    fn digest(self, message: &[u8]) -> Vec<u8> {
        match self {
            Hash::Sha256 => Sha256::digest(message).to_vec(),
            Hash::Sha512 => Sha512::digest(message).to_vec(),
        }
    }

    fn pkcs1v15(self) -> Pkcs1v15Sign {
        match self {
            Hash::Sha256 => Pkcs1v15Sign::new::<Sha256>(),
            Hash::Sha512 => Pkcs1v15Sign::new::<Sha512>(),
        }
    }
}

trait KeyPair: Scheme {
    fn public_der_bytes(&self) -> usize;
    /// The modulus bit length or the curve's field size, to check a generated key.
    fn size_bits(&self) -> u64;
}

/// RSA PKCS#1 v1.5, public exponent 65537, signed with blinding.
struct RsaPair {
    private: RsaPrivateKey,
    public: RsaPublicKey,
    hash: Hash,
}

impl Scheme for RsaPair {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, String> {
        let digest = self.hash.digest(message);
        let rng = &mut rand::thread_rng();
        self.private.sign_with_rng(rng, self.hash.pkcs1v15(), &digest).map_err(|e| e.to_string())
    }
    fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        self.public.verify(self.hash.pkcs1v15(), &self.hash.digest(message), signature).is_ok()
    }
}

impl KeyPair for RsaPair {
    fn public_der_bytes(&self) -> usize {
        use rsa::pkcs8::EncodePublicKey;
        self.public.to_public_key_der().map_or(0, |der| der.as_bytes().len())
    }
    fn size_bits(&self) -> u64 {
        self.public.n().bits() as u64
    }
}

/// ECDSA with the crates' randomized signer (RFC 6979 hedged), the signature as r || s.
macro_rules! ecdsa_pair {
    ($pair:ident, $curve:ident, $bits:expr, $signing:expr, $verifying:expr) => {
        struct $pair {
            signing: $curve::ecdsa::SigningKey,
            verifying: $curve::ecdsa::VerifyingKey,
            public: $curve::PublicKey,
            hash: Hash,
        }

        impl $pair {
            fn new(pems: Option<(&str, &str)>, hash: Hash) -> Result<$pair, String> {
                use $curve::pkcs8::{DecodePrivateKey, DecodePublicKey};
                let (secret, public) = match pems {
                    None => {
                        let secret = $curve::SecretKey::random(&mut rand::rngs::OsRng);
                        let public = secret.public_key();
                        (secret, public)
                    }
                    Some((private, public)) => (
                        $curve::SecretKey::from_pkcs8_pem(private).map_err(|e| e.to_string())?,
                        $curve::PublicKey::from_public_key_pem(public).map_err(|e| e.to_string())?,
                    ),
                };
                let signing_of: fn(&$curve::SecretKey) -> $curve::ecdsa::SigningKey = $signing;
                let verifying_of: fn(&$curve::PublicKey) -> $curve::ecdsa::VerifyingKey = $verifying;
                Ok($pair { signing: signing_of(&secret), verifying: verifying_of(&public), public, hash })
            }
        }

        impl Scheme for $pair {
            fn sign(&self, message: &[u8]) -> Result<Vec<u8>, String> {
                use $curve::ecdsa::signature::hazmat::RandomizedPrehashSigner;
                let digest = self.hash.digest(message);
                let signature: $curve::ecdsa::Signature =
                    self.signing.sign_prehash_with_rng(&mut rand::thread_rng(), &digest).map_err(|e| e.to_string())?;
                Ok(signature.to_bytes().to_vec())
            }
            fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
                use $curve::ecdsa::signature::hazmat::PrehashVerifier;
                $curve::ecdsa::Signature::from_slice(signature)
                    .is_ok_and(|s| self.verifying.verify_prehash(&self.hash.digest(message), &s).is_ok())
            }
        }

        impl KeyPair for $pair {
            fn public_der_bytes(&self) -> usize {
                use $curve::pkcs8::EncodePublicKey;
                self.public.to_public_key_der().map_or(0, |der| der.as_bytes().len())
            }
            fn size_bits(&self) -> u64 {
                // The curve is the type's; its field size shows in the SEC1 point's length.
                let point = self.public.to_sec1_bytes().len() as u64;
                if point == 1 + 2 * (($bits + 7) / 8) { $bits } else { 0 }
            }
        }
    };
}

ecdsa_pair!(P256Pair, p256, 256, |s| s.into(), |p| (*p).into());
ecdsa_pair!(P384Pair, p384, 384, |s| s.into(), |p| (*p).into());
ecdsa_pair!(
    P521Pair,
    p521,
    521,
    |s| p521::ecdsa::SigningKey::from_slice(&s.to_bytes()).expect("a valid P-521 scalar"),
    |p| p521::ecdsa::VerifyingKey::from_affine(*p.as_affine()).expect("a valid P-521 point")
);

/// An SPKI PEM RSA key up to 16384 bits (the rsa crate's decoder refuses seed 004's RSA-7680).
fn rsa_public_key_from_pem(pem: &str) -> Result<RsaPublicKey, String> {
    use rsa::pkcs8::der::{Decode, Document};
    let (_, document) = Document::from_pem(pem).map_err(|e| e.to_string())?;
    let spki = rsa::pkcs8::SubjectPublicKeyInfoRef::from_der(document.as_bytes()).map_err(|e| e.to_string())?;
    let bits = spki.subject_public_key.as_bytes().ok_or("the SPKI key is not whole bytes")?;
    let key = rsa::pkcs1::RsaPublicKey::from_der(bits).map_err(|e| e.to_string())?;
    let n = rsa::BigUint::from_bytes_be(key.modulus.as_bytes());
    let e = rsa::BigUint::from_bytes_be(key.public_exponent.as_bytes());
    RsaPublicKey::new_with_max_size(n, e, 16384).map_err(|e| e.to_string())
}

fn key_pair(family: &str, bits: u64, hash: Hash, pems: Option<(&str, &str)>) -> Result<Box<dyn KeyPair>, String> {
    Ok(match (family, bits) {
        ("RSA", _) => {
            let (private, public) = match pems {
                None => {
                    let private =
                        RsaPrivateKey::new(&mut rand::thread_rng(), bits as usize).map_err(|e| e.to_string())?;
                    let public = private.to_public_key();
                    (private, public)
                }
                Some((private, public)) => {
                    use rsa::pkcs8::DecodePrivateKey;
                    let private = RsaPrivateKey::from_pkcs8_pem(private).map_err(|e| e.to_string())?;
                    (private, rsa_public_key_from_pem(public)?)
                }
            };
            Box::new(RsaPair { private, public, hash })
        }
        ("ECDSA", 256) => Box::new(P256Pair::new(pems, hash)?),
        ("ECDSA", 384) => Box::new(P384Pair::new(pems, hash)?),
        ("ECDSA", 521) => Box::new(P521Pair::new(pems, hash)?),
        _ => return Err(format!("no key family {family} of {bits} bits")),
    })
}

/// Seed 004's message: the ASCII digits 0123456789 repeated to `length` bytes.
fn digits(length: usize) -> Vec<u8> {
    (0..length).map(|i| b'0' + (i % 10) as u8).collect()
}

/// A per-iteration cell's calls; the answer checks the process's first generated pair.
struct Iterations {
    family: String,
    bits: u64,
    hash: Hash,
    message: Vec<u8>,
    sign: bool,
    last: Option<(Box<dyn KeyPair>, usize)>,
    checked: bool,
}

impl Calls for Iterations {
    fn run(&mut self, n: u64) -> Result<u64, String> {
        let mut fold = 0u64;
        for _ in 0..n {
            let pair = key_pair(&self.family, self.bits, self.hash, None)?;
            let mut output = 0;
            if self.sign {
                let signature = pair.sign(&self.message)?;
                if !pair.verify(&self.message, black_box(&signature)) {
                    return Err("a signature did not verify".into());
                }
                output = signature.len();
            }
            black_box(&pair);
            fold = fold.wrapping_add(output as u64);
            self.last = Some((pair, output));
        }
        Ok(fold)
    }

    fn answer(&mut self, _n: u64) -> Result<Map<String, Value>, String> {
        let (pair, output) = self.last.take().ok_or("no key pair was generated")?;
        if !self.checked {
            let first = |e| format!("the key pair of its first iteration: {e}");
            if pair.size_bits() != self.bits {
                return Err(first(format!("a generated key has {} bits, not {}", pair.size_bits(), self.bits)));
            }
            signatures::check(pair.as_ref(), &digits(10)).map_err(first)?;
            self.checked = true;
        }
        let output = if self.sign { output } else { pair.public_der_bytes() };
        Ok(Map::from_iter([("output_bytes".to_string(), output.into())]))
    }
}

fn prepare<'a>(cell: &Cell) -> Result<Prepared<'a>, Failure> {
    crate::hashing::check_implementation(cell)?;
    let bad = |what: String| Failure::Input(format!("cell {}: {what}", cell.label()));
    let family = cell.required("family")?.to_string();
    let bits = cell.key_bits as u64;
    let hash = match cell.algorithm.as_str() {
        "RSA-SHA256" | "ECDSA-SHA256" => Hash::Sha256,
        "RSA-SHA512" | "ECDSA-SHA512" => Hash::Sha512,
        other => return Err(bad(format!("unknown keygen algorithm {other:?}"))),
    };
    let per_iteration = matches!(cell.operation.as_str(), "keygen" | "keygen+sign+verify");
    let message = digits(if cell.operation == "keygen" { 0 } else { cell.message_bytes().unwrap_or(0) });
    let crate_name = match (family.as_str(), bits) {
        ("ECDSA", 256) => "p256",
        ("ECDSA", 384) => "p384",
        ("ECDSA", 521) => "p521",
        _ => "rsa",
    };
    let who = Who::rustcrypto(crate_name, message.len() as u64);
    let pair = match (cell.text("private_key"), cell.text("public_key")) {
        (Some(private), Some(public)) => {
            let pem = |path| read_file(path).map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
            let pair = key_pair(&family, bits, hash, Some((&pem(private)?, &pem(public)?)))
                .map_err(|e| bad(format!("keys: {e}")))?;
            if let Err(reason) = signatures::check(pair.as_ref(), &digits(10)) {
                return Ok(who.not_timed("failed", format!("the run's key pair: {reason}")));
            }
            Some(pair)
        }
        _ if per_iteration => None,
        _ => return Err(bad("no key pair".into())),
    };
    if !per_iteration {
        let pair = pair.expect("a sign or verify cell has its key pair");
        return Ok(match signatures::cell(&cell.operation, pair, message) {
            Ok((output_bytes, calls)) => who.timed(output_bytes, 1, calls),
            Err(reason) => who.not_timed("failed", reason),
        });
    }
    // The output's size as the PEM pair of the same size gives it.
    let output_bytes = match (&pair, cell.operation.as_str()) {
        (Some(pair), "keygen") => pair.public_der_bytes(),
        (Some(pair), _) => pair.sign(&message).map_or(0, |s| s.len()),
        (None, _) => 0,
    };
    let sign = cell.operation != "keygen";
    let calls = Iterations { family, bits, hash, message, sign, last: None, checked: false };
    Ok(who.timed(output_bytes as u64, 1, Box::new(calls)))
}

pub fn cells<'a>(spec: &Spec) -> Result<Vec<Prepared<'a>>, Failure> {
    spec.cells.iter().map(prepare).collect()
}
