//! Suite hash (seed 002): hex digests of short strings built per call, the generation of
//! those strings alone, and raw digests over a length sweep, all with the RustCrypto hash
//! crates (md-5, sha1, sha2) through their common `Digest` trait.

use std::time::{SystemTime, UNIX_EPOCH};

use md5::Md5;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};
use uuid::Uuid;

use crate::failure::Failure;
use crate::raw_samples::{RawSamples, RowIdentity, Status};
use crate::spec::{Cell, Spec, counting_bytes, hex_encode};
use crate::timing::{self, Batch, PreparedCell, TimedCell};
use crate::versions;

enum Part {
    Cached(String),
    Fresh,
    TimeMs,
}

/// A case's message, built as one call builds it.
struct Message {
    parts: Vec<Part>,
}

impl Message {
    fn parse(cell: &Cell) -> Result<Message, Failure> {
        let parts = cell
            .message
            .iter()
            .map(|part| match part.as_str() {
                "cached-uuid" => Ok(Part::Cached(Uuid::new_v4().to_string())),
                "fresh-uuid" => Ok(Part::Fresh),
                "time-ms" => Ok(Part::TimeMs),
                other => Err(Failure::Input(format!(
                    "cell {}: unknown message part {other:?}",
                    cell.label()
                ))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if parts.is_empty() {
            return Err(Failure::Input(format!("cell {}: no message parts", cell.label())));
        }
        Ok(Message { parts })
    }

    /// The cached UUID itself when it is the whole message (used as it is, no copy).
    fn single_cached(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [Part::Cached(uuid)] => Some(uuid),
            _ => None,
        }
    }

    fn expected_length(&self) -> usize {
        self.parts
            .iter()
            .map(|p| if matches!(p, Part::TimeMs) { 13 } else { 36 })
            .sum()
    }

    /// One message as a call builds it: a fresh UUID (the same one for every fresh part)
    /// and the wall clock's milliseconds read now.
    fn build(&self) -> String {
        let mut fresh: Option<String> = None;
        let mut message = String::with_capacity(self.expected_length());
        for part in &self.parts {
            match part {
                Part::Cached(uuid) => message.push_str(uuid),
                Part::Fresh => message.push_str(fresh.get_or_insert_with(|| Uuid::new_v4().to_string())),
                Part::TimeMs => {
                    let millis = SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .map_or(0, |d| d.as_millis());
                    message.push_str(&millis.to_string());
                }
            }
        }
        message
    }
}

fn hex_digest<D: Digest>(bytes: &[u8]) -> String {
    hex_encode(&D::digest(bytes))
}

/// hex-digest: build the message (or take the cached UUID), hash it, hex-encode; the hex
/// string is consumed.
fn hex_digest_batch<'a, D: Digest>(message: Message) -> Batch<'a> {
    Box::new(move |n| {
        let mut fold = 0u64;
        for _ in 0..n {
            let hex = match message.single_cached() {
                Some(uuid) => hex_digest::<D>(uuid.as_bytes()),
                None => hex_digest::<D>(message.build().as_bytes()),
            };
            fold = fold.wrapping_add(hex.len() as u64 + hex.as_bytes()[0] as u64);
        }
        Ok(fold)
    })
}

/// digest: the raw digest of the prepared bytes is consumed (also the drift reference's
/// call, SHA-256 of 64 bytes).
pub fn digest_batch<'a, D: Digest>(bytes: Vec<u8>) -> Batch<'a> {
    Box::new(move |n| {
        let mut fold = 0u64;
        for _ in 0..n {
            fold = fold.wrapping_add(digest_call::<D>(&bytes));
        }
        Ok(fold)
    })
}

/// One call of the digest batch: the raw digest, consumed (its first byte and length).
pub fn digest_call<D: Digest>(bytes: &[u8]) -> u64 {
    let digest = D::digest(bytes);
    digest[0] as u64 + digest.len() as u64
}

fn generate_batch<'a>(message: Message) -> Batch<'a> {
    Box::new(move |n| {
        let mut fold = 0u64;
        for _ in 0..n {
            fold = fold.wrapping_add(message.build().len() as u64);
        }
        Ok(fold)
    })
}

/// The crate that hashes `algorithm`, and its digest function for the check.
fn hasher(algorithm: &str) -> Option<(&'static str, fn(&[u8]) -> String, usize)> {
    match algorithm {
        "MD5" => Some((versions::MD5, hex_digest::<Md5>, 16)),
        "SHA-1" => Some((versions::SHA1, hex_digest::<Sha1>, 20)),
        "SHA-256" => Some((versions::SHA2, hex_digest::<Sha256>, 32)),
        "SHA-512" => Some((versions::SHA2, hex_digest::<Sha512>, 64)),
        _ => None,
    }
}

/// An implementation a cell names must be ours (the RustCrypto crates); another is an
/// input error, not `unsupported`.
pub fn check_implementation(cell: &Cell) -> Result<(), Failure> {
    match cell.implementation.as_deref() {
        None | Some(versions::RUSTCRYPTO) => Ok(()),
        Some(other) => Err(Failure::Input(format!(
            "cell {}: unknown implementation {other:?} (this driver has {:?})",
            cell.label(),
            versions::RUSTCRYPTO
        ))),
    }
}

struct Prepared<'a> {
    version: &'static str,
    input_bytes: u64,
    output_bytes: u64,
    batch: Batch<'a>,
}

fn prepare<'a>(cell: &Cell) -> Result<Result<Prepared<'a>, String>, Failure> {
    check_implementation(cell)?;
    if cell.operation == "generate" {
        let message = Message::parse(cell)?;
        let built = message.build().len();
        if built != message.expected_length() {
            return Ok(Err(format!(
                "built message has {built} bytes, not {}",
                message.expected_length()
            )));
        }
        let (bytes, out) = (built as u64, built as u64);
        return Ok(Ok(Prepared {
            version: versions::UUID,
            input_bytes: bytes,
            output_bytes: out,
            batch: generate_batch(message),
        }));
    }
    let Some((version, check_digest, digest_bytes)) = hasher(&cell.algorithm) else {
        return Err(Failure::Input(format!(
            "cell {}: unknown hash algorithm {:?}",
            cell.label(),
            cell.algorithm
        )));
    };
    if let (Some(message), Some(expected)) = (cell.known_text("message"), cell.known_text("digest_hex")) {
        let got = check_digest(message.as_bytes());
        if got != expected {
            return Ok(Err(format!(
                "known answer: {} of {message:?} is {got}, not {expected}",
                cell.algorithm
            )));
        }
    }
    match cell.operation.as_str() {
        "hex-digest" => {
            let message = Message::parse(cell)?;
            let built = message.single_cached().map_or_else(|| message.build().len(), str::len);
            if built != message.expected_length() {
                return Ok(Err(format!(
                    "built message has {built} bytes, not {}",
                    message.expected_length()
                )));
            }
            let batch = match cell.algorithm.as_str() {
                "MD5" => hex_digest_batch::<Md5>(message),
                "SHA-1" => hex_digest_batch::<Sha1>(message),
                "SHA-256" => hex_digest_batch::<Sha256>(message),
                _ => hex_digest_batch::<Sha512>(message),
            };
            Ok(Ok(Prepared {
                version,
                input_bytes: built as u64,
                output_bytes: 2 * digest_bytes as u64,
                batch,
            }))
        }
        "digest" => {
            let length = cell
                .message_bytes
                .ok_or_else(|| Failure::Input(format!("cell {}: no message_bytes", cell.label())))?;
            let bytes = counting_bytes(length);
            let batch = match cell.algorithm.as_str() {
                "MD5" => digest_batch::<Md5>(bytes),
                "SHA-1" => digest_batch::<Sha1>(bytes),
                "SHA-256" => digest_batch::<Sha256>(bytes),
                _ => digest_batch::<Sha512>(bytes),
            };
            Ok(Ok(Prepared {
                version,
                input_bytes: length as u64,
                output_bytes: digest_bytes as u64,
                batch,
            }))
        }
        other => Err(Failure::Input(format!(
            "cell {}: unknown hash operation {other:?}",
            cell.label()
        ))),
    }
}

/// Every cell of the spec as `bench` and `serve` time it: prepared and checked, in spec order.
pub fn cells<'a>(spec: &Spec) -> Result<Vec<PreparedCell<'a>>, Failure> {
    let mut prepared = Vec::new();
    for (index, cell) in spec.cells.iter().enumerate() {
        prepared.push(match prepare(cell)? {
            Ok(p) => {
                let who = RowIdentity::new(&spec.suite, cell, versions::RUSTCRYPTO, p.version, p.input_bytes);
                PreparedCell::Timed(TimedCell::new(index, who, p.output_bytes, 1, p.batch))
            }
            Err(reason) => {
                let version = hasher(&cell.algorithm).map_or(versions::UUID, |h| h.0);
                let who = RowIdentity::new(&spec.suite, cell, versions::RUSTCRYPTO, version, 0);
                PreparedCell::NotTimed(who, Status::Failed, reason)
            }
        });
    }
    Ok(prepared)
}

pub fn run(spec: &Spec, out: &mut RawSamples) -> Result<(), Failure> {
    timing::bench(cells(spec)?, spec, out)
}
