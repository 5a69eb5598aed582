//! Suite keygen (seed 004): generate a key pair, sign, verify, per iteration, with the
//! RustCrypto crates (rsa; p256, p384, p521). Key generation runs in a child process of
//! this same binary (`keygen-worker`), which the driver kills when a cell's budget ends
//! mid-generation: a thread could not be stopped, a process can. Every iteration is timed;
//! the key pair of a cell's first iteration is checked right after it, outside its timed
//! region, and the run's PEM pair once before its key's first cell: no key pair is
//! generated for a check alone.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rsa::traits::PublicKeyParts;
use rsa::{Pkcs1v15Sign, RsaPrivateKey, RsaPublicKey};
use sha2::{Digest, Sha256, Sha512};

use crate::failure::{Failure, read_file};
use crate::raw_samples::{RawSamples, RowIdentity, Sample, Status};
use crate::spec::{Cell, Spec};
use crate::timing::{self, Batch, TimedCell};
use crate::versions;

pub const WORKER_COMMAND: &str = "keygen-worker";

#[derive(Clone, Copy)]
enum Hash {
    Sha256,
    Sha512,
}

impl Hash {
    fn of(algorithm: &str) -> Result<Hash, String> {
        match algorithm {
            "RSA-SHA256" | "ECDSA-SHA256" => Ok(Hash::Sha256),
            "RSA-SHA512" | "ECDSA-SHA512" => Ok(Hash::Sha512),
            other => Err(format!("unknown keygen algorithm {other:?}")),
        }
    }

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

/// A key pair, generated or the run's PEM pair; `sign` is absent-safe only for pairs with
/// a private half (all of ours have one).
trait KeyPair {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, String>;
    fn verify(&self, message: &[u8], signature: &[u8]) -> bool;
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

impl KeyPair for RsaPair {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, String> {
        self.private
            .sign_with_rng(
                &mut rand::thread_rng(),
                self.hash.pkcs1v15(),
                &self.hash.digest(message),
            )
            .map_err(|e| e.to_string())
    }
    fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        self.public
            .verify(self.hash.pkcs1v15(), &self.hash.digest(message), signature)
            .is_ok()
    }
    fn public_der_bytes(&self) -> usize {
        use rsa::pkcs8::EncodePublicKey;
        self.public.to_public_key_der().map_or(0, |der| der.as_bytes().len())
    }
    fn size_bits(&self) -> u64 {
        self.public.n().bits() as u64
    }
}

/// ECDSA with random k (RFC 6979 hedged with fresh randomness: the crates' randomized
/// signer) over the message's SHA-256 or SHA-512, the signature as r || s.
macro_rules! ecdsa_pair {
    ($pair:ident, $curve:ident, $bits:expr, $signing:expr, $verifying:expr) => {
        struct $pair {
            signing: $curve::ecdsa::SigningKey,
            verifying: $curve::ecdsa::VerifyingKey,
            public: $curve::PublicKey,
            hash: Hash,
        }

        impl $pair {
            fn generate(hash: Hash) -> $pair {
                let secret = $curve::SecretKey::random(&mut rand::rngs::OsRng);
                Self::from_keys(&secret, secret.public_key(), hash)
            }

            fn from_keys(secret: &$curve::SecretKey, public: $curve::PublicKey, hash: Hash) -> $pair {
                let signing_of: fn(&$curve::SecretKey) -> $curve::ecdsa::SigningKey = $signing;
                let verifying_of: fn(&$curve::PublicKey) -> $curve::ecdsa::VerifyingKey = $verifying;
                $pair {
                    signing: signing_of(secret),
                    verifying: verifying_of(&public),
                    public,
                    hash,
                }
            }

            fn from_pem(private_pem: &str, public_pem: &str, hash: Hash) -> Result<$pair, String> {
                use $curve::pkcs8::{DecodePrivateKey, DecodePublicKey};
                let secret = $curve::SecretKey::from_pkcs8_pem(private_pem).map_err(|e| e.to_string())?;
                let public = $curve::PublicKey::from_public_key_pem(public_pem).map_err(|e| e.to_string())?;
                Ok(Self::from_keys(&secret, public, hash))
            }
        }

        impl KeyPair for $pair {
            fn sign(&self, message: &[u8]) -> Result<Vec<u8>, String> {
                use $curve::ecdsa::signature::hazmat::RandomizedPrehashSigner;
                let signature: $curve::ecdsa::Signature = self
                    .signing
                    .sign_prehash_with_rng(&mut rand::thread_rng(), &self.hash.digest(message))
                    .map_err(|e| e.to_string())?;
                Ok(signature.to_bytes().to_vec())
            }
            fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
                use $curve::ecdsa::signature::hazmat::PrehashVerifier;
                $curve::ecdsa::Signature::from_slice(signature).is_ok_and(|s| {
                    self.verifying
                        .verify_prehash(&self.hash.digest(message), &s)
                        .is_ok()
                })
            }
            fn public_der_bytes(&self) -> usize {
                use $curve::pkcs8::EncodePublicKey;
                self.public
                    .to_public_key_der()
                    .map_or(0, |der| der.as_bytes().len())
            }
            fn size_bits(&self) -> u64 {
                // The curve is the type's; its field size shows in the SEC1 point's length.
                let point = self.public.to_sec1_bytes().len() as u64;
                if point == 1 + 2 * (($bits + 7) / 8) {
                    $bits
                } else {
                    0
                }
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

fn generate(family: &str, bits: u64, hash: Hash) -> Result<Box<dyn KeyPair>, String> {
    Ok(match (family, bits) {
        ("RSA", _) => {
            let private = RsaPrivateKey::new(&mut rand::thread_rng(), bits as usize).map_err(|e| e.to_string())?;
            let public = private.to_public_key();
            Box::new(RsaPair { private, public, hash })
        }
        ("ECDSA", 256) => Box::new(P256Pair::generate(hash)),
        ("ECDSA", 384) => Box::new(P384Pair::generate(hash)),
        ("ECDSA", 521) => Box::new(P521Pair::generate(hash)),
        _ => return Err(format!("no key family {family} of {bits} bits")),
    })
}

/// An SPKI PEM RSA public key of any size up to 16384 bits: the rsa crate's own decoder
/// refuses moduli over RsaPublicKey::MAX_SIZE (4096 bits), which would rule out seed 004's
/// RSA-7680 run key, so the SPKI is unwrapped here and the key built with a larger limit.
fn rsa_public_key_from_pem(pem: &str) -> Result<RsaPublicKey, String> {
    use rsa::pkcs8::der::{Decode, Document};
    let (_, document) = Document::from_pem(pem).map_err(|e| e.to_string())?;
    let spki = rsa::pkcs8::SubjectPublicKeyInfoRef::from_der(document.as_bytes()).map_err(|e| e.to_string())?;
    let bits = spki
        .subject_public_key
        .as_bytes()
        .ok_or("the SPKI key is not whole bytes")?;
    let key = rsa::pkcs1::RsaPublicKey::from_der(bits).map_err(|e| e.to_string())?;
    let n = rsa::BigUint::from_bytes_be(key.modulus.as_bytes());
    let e = rsa::BigUint::from_bytes_be(key.public_exponent.as_bytes());
    RsaPublicKey::new_with_max_size(n, e, 16384).map_err(|e| e.to_string())
}

fn load(family: &str, bits: u64, hash: Hash, private_pem: &str, public_pem: &str) -> Result<Box<dyn KeyPair>, String> {
    Ok(match (family, bits) {
        ("RSA", _) => {
            use rsa::pkcs8::DecodePrivateKey;
            let private = RsaPrivateKey::from_pkcs8_pem(private_pem).map_err(|e| e.to_string())?;
            let public = rsa_public_key_from_pem(public_pem)?;
            Box::new(RsaPair { private, public, hash })
        }
        ("ECDSA", 256) => Box::new(P256Pair::from_pem(private_pem, public_pem, hash)?),
        ("ECDSA", 384) => Box::new(P384Pair::from_pem(private_pem, public_pem, hash)?),
        ("ECDSA", 521) => Box::new(P521Pair::from_pem(private_pem, public_pem, hash)?),
        _ => return Err(format!("no key family {family} of {bits} bits")),
    })
}

/// Sign, verify, and reject the signature with its first byte's lowest bit flipped.
fn sign_verify_flip(pair: &dyn KeyPair, message: &[u8]) -> Result<Vec<u8>, String> {
    let signature = pair.sign(message)?;
    if !pair.verify(message, &signature) {
        return Err("a fresh signature does not verify".into());
    }
    let mut flipped = signature.clone();
    flipped[0] ^= 1;
    if pair.verify(message, &flipped) {
        return Err("a signature with a flipped bit verifies".into());
    }
    Ok(signature)
}

/// The check of a cell's first generated key pair: its size or curve, then
/// `sign_verify_flip` over a 10-byte message.
fn check_generated(pair: &dyn KeyPair, bits: u64) -> Result<(), String> {
    if pair.size_bits() != bits {
        return Err(format!("a generated key has {} bits, not {bits}", pair.size_bits()));
    }
    sign_verify_flip(pair, &digits(10)).map(|_| ())
}

/// Seed 004's message: the ASCII digits 0123456789 repeated to `length` bytes.
fn digits(length: usize) -> Vec<u8> {
    (0..length).map(|i| b'0' + (i % 10) as u8).collect()
}

fn version_of(family: &str, bits: i64) -> &'static str {
    match (family, bits) {
        ("ECDSA", 256) => versions::P256,
        ("ECDSA", 384) => versions::P384,
        ("ECDSA", 521) => versions::P521,
        _ => versions::RSA,
    }
}

/// The child: `keygen-worker FAMILY BITS ALGORITHM MESSAGE_BYTES OPERATION`, OPERATION
/// `keygen` or `keygen+sign+verify`. It runs timed iterations until killed, one line
/// `elapsed_ns output_bytes` each. The first iteration's key pair is checked after its
/// timed region and before its line; a pair that fails the check ends the worker with one
/// line `failed: reason` instead.
pub fn worker(args: &[String]) -> Result<(), Failure> {
    let [family, bits, algorithm, message_bytes, operation] = args else {
        return Err(Failure::Input(format!(
            "{WORKER_COMMAND} FAMILY BITS ALGORITHM MESSAGE_BYTES OPERATION"
        )));
    };
    let bad = |what: String| Failure::Input(format!("{WORKER_COMMAND}: {what}"));
    let bits: u64 = bits.parse().map_err(|_| bad(format!("bits {bits:?}")))?;
    let hash = Hash::of(algorithm).map_err(bad)?;
    let message = digits(
        message_bytes
            .parse()
            .map_err(|_| bad(format!("message bytes {message_bytes:?}")))?,
    );
    let mut stdout = std::io::stdout().lock();
    let mut say = |line: String| writeln!(stdout, "{line}").and_then(|_| stdout.flush()).is_ok();
    let with_signature = match operation.as_str() {
        "keygen" => false,
        "keygen+sign+verify" => true,
        other => return Err(bad(format!("operation {other:?}"))),
    };
    let mut first = true;
    loop {
        let start = Instant::now();
        let pair = generate(family, bits, hash).map_err(|e| Failure::Invalid(e))?;
        let output = if with_signature {
            let signature = pair.sign(&message).map_err(Failure::Invalid)?;
            if !pair.verify(&message, std::hint::black_box(&signature)) {
                return Err(Failure::Invalid("a signature did not verify".into()));
            }
            signature.len()
        } else {
            std::hint::black_box(&pair);
            0
        };
        let elapsed = start.elapsed().as_nanos();
        let output = if with_signature {
            output
        } else {
            pair.public_der_bytes()
        };
        if std::mem::take(&mut first) {
            if let Err(reason) = check_generated(pair.as_ref(), bits) {
                say(format!("failed: {reason}"));
                return Ok(());
            }
        }
        if !say(format!("{elapsed} {output}")) {
            return Ok(()); // the parent is gone
        }
    }
}

/// A worker child and its lines, read on a thread so the parent can wait with a deadline.
struct WorkerRun {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl WorkerRun {
    fn start(cell: &Cell, family: &str, message_bytes: usize, operation: &str) -> Result<WorkerRun, Failure> {
        let exe =
            std::env::current_exe().map_err(|e| Failure::Input(format!("cannot find this driver's binary: {e}")))?;
        let mut child = Command::new(exe)
            .args([
                WORKER_COMMAND,
                family,
                &cell.key_bits.to_string(),
                &cell.algorithm,
                &message_bytes.to_string(),
                operation,
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| Failure::Input(format!("cannot start the keygen worker: {e}")))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(WorkerRun { child, lines })
    }

    /// The next line, or None when the deadline passes first or the worker ended.
    fn next_line(&self, deadline: Instant) -> Option<String> {
        let left = deadline.saturating_duration_since(Instant::now());
        self.lines.recv_timeout(left.max(Duration::from_millis(1))).ok()
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Settings {
    iterations: u64,
    target: Duration,
    max_iterations: u64,
    budget: Duration,
}

fn family_of(cell: &Cell) -> Result<String, Failure> {
    cell.family
        .clone()
        .ok_or_else(|| Failure::Input(format!("cell {}: no family", cell.label())))
}

/// The check before a key's first cell: the run's PEM pair, when the cell names one, must
/// sign and verify, and reject a flipped signature. None when there is no pair to check.
fn check_key(cell: &Cell, family: &str) -> Result<Option<Result<(), String>>, Failure> {
    let hash = Hash::of(&cell.algorithm).map_err(Failure::Input)?;
    let (Some(private), Some(public)) = (&cell.private_key, &cell.public_key) else {
        return Ok(None);
    };
    let private_pem = String::from_utf8_lossy(&read_file(private)?).into_owned();
    let public_pem = String::from_utf8_lossy(&read_file(public)?).into_owned();
    let pair = load(family, cell.key_bits as u64, hash, &private_pem, &public_pem)
        .map_err(|e| Failure::Input(format!("cell {}: keys: {e}", cell.label())))?;
    Ok(Some(
        sign_verify_flip(pair.as_ref(), &digits(10))
            .map(|_| ())
            .map_err(|reason| format!("the run's key pair: {reason}")),
    ))
}

/// One per-iteration cell: at least `iterations` timed iterations, the first too, more
/// while under `target_cell_seconds`, up to `max_iterations`, within the budget counted
/// from the first iteration's start (the worker's start). The worker checks the first
/// iteration's key pair; a failed check fails the cell.
fn run_iterations(
    cell: &Cell,
    family: &str,
    who: &RowIdentity,
    settings: &Settings,
    out: &mut RawSamples,
) -> Result<(), Failure> {
    let message_bytes = if cell.operation == "keygen" {
        0
    } else {
        cell.message_bytes.unwrap_or(0)
    };
    let started = Instant::now();
    let deadline = started + settings.budget;
    let run = WorkerRun::start(cell, family, message_bytes, &cell.operation)?;
    let mut timed: Vec<(u64, u64)> = Vec::new();
    let mut check_failed = None;
    let mut ended_early = false;
    let mut timed_out = false;
    loop {
        let Some(line) = run.next_line(deadline) else {
            if Instant::now() >= deadline {
                timed_out = true
            } else {
                ended_early = true
            }
            break;
        };
        if let Some(reason) = line.strip_prefix("failed: ") {
            check_failed = Some(reason.to_string());
            break;
        }
        let mut fields = line.split_whitespace().map(str::parse::<u64>);
        let (Some(Ok(ns)), Some(Ok(output))) = (fields.next(), fields.next()) else {
            ended_early = true;
            break;
        };
        timed.push((ns, output));
        let count = timed.len() as u64;
        if count >= settings.max_iterations || (count >= settings.iterations && started.elapsed() >= settings.target) {
            break;
        }
    }
    run.stop();
    if let Some(reason) = check_failed {
        let reason = format!("the key pair of its first iteration: {reason}");
        out.untimed(who, Status::Failed, &reason)?;
        return Ok(());
    }
    if ended_early {
        out.untimed(who, Status::Failed, "the keygen worker failed (see its error above)")?;
        return Ok(());
    }
    let status = if timed_out && (timed.len() as u64) < settings.iterations {
        Status::Timeout
    } else {
        Status::Ok
    };
    if timed.is_empty() {
        let spent = started.elapsed().as_nanos() as u64;
        out.write(who, &Sample::no_sample(Status::Timeout, spent))?;
        eprintln!(
            "{}: no iteration within {:.1} s (timeout)",
            cell.label(),
            settings.budget.as_secs_f64()
        );
        return Ok(());
    }
    for (i, (ns, output)) in timed.iter().enumerate() {
        out.write(
            who,
            &Sample {
                sample: i as u64 + 1,
                iterations: 1,
                elapsed_ns: *ns,
                output_bytes: *output,
                status,
            },
        )?;
    }
    let mut values: Vec<f64> = timed.iter().map(|(ns, _)| *ns as f64).collect();
    eprintln!(
        "{}: {} iterations, median {:.0} ns{}",
        cell.label(),
        values.len(),
        timing::median(&mut values),
        if status == Status::Timeout { " (timeout)" } else { "" }
    );
    Ok(())
}

/// A sign or verify cell with the run's PEM pair, for the interleaved rounds.
fn signing_cell<'a>(cell: &Cell, family: &str) -> Result<Result<(u64, Batch<'a>), String>, Failure> {
    let hash = Hash::of(&cell.algorithm).map_err(Failure::Input)?;
    let private_pem = String::from_utf8_lossy(&read_file(cell.private_key()?)?).into_owned();
    let public_pem = String::from_utf8_lossy(&read_file(cell.public_key()?)?).into_owned();
    let pair = load(family, cell.key_bits as u64, hash, &private_pem, &public_pem)
        .map_err(|e| Failure::Input(format!("cell {}: keys: {e}", cell.label())))?;
    let message = digits(cell.message_bytes.unwrap_or(0));
    let signature = match sign_verify_flip(pair.as_ref(), &message) {
        Ok(signature) => signature,
        Err(reason) => return Ok(Err(reason)),
    };
    let output_bytes = signature.len() as u64;
    let batch: Batch = match cell.operation.as_str() {
        "sign" => Box::new(move |n| {
            let mut fold = 0u64;
            for _ in 0..n {
                fold = fold.wrapping_add(pair.sign(&message)?[0] as u64);
            }
            Ok(fold)
        }),
        _ => Box::new(move |n| {
            let mut fold = 0u64;
            for _ in 0..n {
                if !pair.verify(&message, &signature) {
                    return Err("the signature stopped verifying".into());
                }
                fold = fold.wrapping_add(signature.len() as u64);
            }
            Ok(fold)
        }),
    };
    Ok(Ok((output_bytes, batch)))
}

pub fn run(spec: &Spec, out: &mut RawSamples) -> Result<(), Failure> {
    let settings = Settings {
        iterations: spec.setting("keygen", "iterations")? as u64,
        target: Duration::from_secs_f64(spec.setting("keygen", "target_cell_seconds")?),
        max_iterations: spec.setting("keygen", "max_iterations")? as u64,
        budget: Duration::from_secs_f64(spec.setting("keygen", "max_cell_seconds")?),
    };
    let mut checks: Vec<((String, i64, Option<String>), Result<(), String>)> = Vec::new();
    let mut interleaved = Vec::new();
    for (index, cell) in spec.cells.iter().enumerate() {
        crate::hashing::check_implementation(cell)?;
        let family = family_of(cell)?;
        let key = (family.clone(), cell.key_bits, cell.implementation.clone());
        if !checks.iter().any(|(k, _)| *k == key) {
            let verdict = check_key(cell, &family)?;
            match &verdict {
                Some(Ok(())) => eprintln!("{family}-{}: the run's key pair checked", cell.key_bits),
                Some(Err(reason)) => eprintln!("{family}-{}: check failed: {reason}", cell.key_bits),
                None => {}
            }
            checks.push((key.clone(), verdict.unwrap_or(Ok(()))));
        }
        let verdict = &checks.iter().find(|(k, _)| *k == key).expect("checked above").1;
        let input_bytes = if cell.operation == "keygen" {
            0
        } else {
            cell.message_bytes.unwrap_or(0) as u64
        };
        let who = RowIdentity::new(
            &spec.suite,
            cell,
            versions::RUSTCRYPTO,
            version_of(&family, cell.key_bits),
            input_bytes,
        );
        let per_iteration = matches!(cell.operation.as_str(), "keygen" | "keygen+sign+verify");
        match verdict {
            Err(reason) => out.untimed(&who, Status::Failed, reason)?,
            _ if per_iteration => run_iterations(cell, &family, &who, &settings, out)?,
            _ => match signing_cell(cell, &family)? {
                Ok((output_bytes, batch)) => interleaved.push(TimedCell::new(index, who, output_bytes, 1, batch)),
                Err(reason) => out.untimed(&who, Status::Failed, &reason)?,
            },
        }
    }
    let fold = timing::run_interleaved(interleaved, spec, out)?;
    timing::report_fold(fold);
    Ok(())
}
