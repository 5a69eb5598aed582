//! Suite hash (seed 002) with the RustCrypto hash crates through their `Digest` trait.

use std::time::{SystemTime, UNIX_EPOCH};

use md5::Md5;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};
use uuid::Uuid;

use crate::failure::Failure;
use crate::spec::{Cell, Spec, counting_bytes, hex_encode};
use crate::timing::{Calls, Prepared, Who, repeat};
use crate::versions;

enum Part {
    Cached(String),
    Fresh,
    TimeMs,
}

struct Message {
    parts: Vec<Part>,
}

impl Message {
    fn parse(cell: &Cell) -> Result<Message, Failure> {
        let bad = |what: String| Failure::Input(format!("cell {}: {what}", cell.label()));
        let parts = cell.get("message").and_then(|m| m.as_array()).ok_or_else(|| bad("no message parts".into()))?;
        let parts = parts
            .iter()
            .map(|part| match part.as_str() {
                Some("cached-uuid") => Ok(Part::Cached(Uuid::new_v4().to_string())),
                Some("fresh-uuid") => Ok(Part::Fresh),
                Some("time-ms") => Ok(Part::TimeMs),
                _ => Err(bad(format!("unknown message part {part}"))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if parts.is_empty() {
            return Err(bad("no message parts".into()));
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
        self.parts.iter().map(|p| if matches!(p, Part::TimeMs) { 13 } else { 36 }).sum()
    }

    /// One message: a fresh UUID (one for every fresh part) and the wall clock's milliseconds.
    fn build(&self) -> String {
        let mut fresh: Option<String> = None;
        let mut message = String::with_capacity(self.expected_length());
        for part in &self.parts {
            match part {
                Part::Cached(uuid) => message.push_str(uuid),
                Part::Fresh => message.push_str(fresh.get_or_insert_with(|| Uuid::new_v4().to_string())),
                Part::TimeMs => {
                    let millis = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
                    message.push_str(&millis.to_string());
                }
            }
        }
        message
    }

    fn check(&self) -> Result<usize, String> {
        let built = self.single_cached().map_or_else(|| self.build().len(), str::len);
        match built == self.expected_length() {
            true => Ok(built),
            false => Err(format!("built message has {built} bytes, not {}", self.expected_length())),
        }
    }
}

fn hex_digest<D: Digest>(bytes: &[u8]) -> String {
    hex_encode(&D::digest(bytes))
}

fn hex_digest_batch<'a, D: Digest>(message: Message) -> Box<dyn Calls + 'a> {
    repeat(move || {
        let hex = match message.single_cached() {
            Some(uuid) => hex_digest::<D>(uuid.as_bytes()),
            None => hex_digest::<D>(message.build().as_bytes()),
        };
        Ok(hex.len() as u64 + hex.as_bytes()[0] as u64)
    })
}

fn digest_batch<'a, D: Digest>(bytes: Vec<u8>) -> Box<dyn Calls + 'a> {
    repeat(move || Ok(digest_call::<D>(&bytes)))
}

/// One call of the digest batch (and of the drift reference): the raw digest, consumed.
pub fn digest_call<D: Digest>(bytes: &[u8]) -> u64 {
    let digest = D::digest(bytes);
    digest[0] as u64 + digest.len() as u64
}

struct Hasher {
    crate_name: &'static str,
    bytes: u64,
    hex: fn(&[u8]) -> String,
    hex_batch: fn(Message) -> Box<dyn Calls + 'static>,
    digest_batch: fn(Vec<u8>) -> Box<dyn Calls + 'static>,
}

fn hasher<D: Digest>(crate_name: &'static str) -> Hasher {
    Hasher {
        crate_name,
        bytes: <D as Digest>::output_size() as u64,
        hex: hex_digest::<D>,
        hex_batch: hex_digest_batch::<D>,
        digest_batch: digest_batch::<D>,
    }
}

fn hasher_of(algorithm: &str) -> Option<Hasher> {
    match algorithm {
        "MD5" => Some(hasher::<Md5>("md-5")),
        "SHA-1" => Some(hasher::<Sha1>("sha1")),
        "SHA-256" => Some(hasher::<Sha256>("sha2")),
        "SHA-512" => Some(hasher::<Sha512>("sha2")),
        _ => None,
    }
}

/// An implementation a cell names must be ours; another is an input error.
pub fn check_implementation(cell: &Cell) -> Result<(), Failure> {
    match cell.text("implementation") {
        None | Some(versions::RUSTCRYPTO) => Ok(()),
        Some(other) => Err(Failure::Input(format!(
            "cell {}: unknown implementation {other:?} (this driver has {:?})",
            cell.label(),
            versions::RUSTCRYPTO
        ))),
    }
}

type Ready = Result<(u64, u64, Box<dyn Calls + 'static>), String>;

fn prepare(cell: &Cell, hasher: Option<Hasher>) -> Result<Ready, Failure> {
    if cell.operation == "generate" {
        let message = Message::parse(cell)?;
        return Ok(message.check().map(|built| {
            let calls = repeat(move || Ok(message.build().len() as u64));
            (built as u64, built as u64, calls)
        }));
    }
    let bad = |what: &str| Failure::Input(format!("cell {}: {what}", cell.label()));
    let hasher = hasher.ok_or_else(|| bad("unknown hash algorithm"))?;
    if let (Some(message), Some(expected)) = (cell.known("message"), cell.known("digest_hex")) {
        let got = (hasher.hex)(message.as_bytes());
        if got != expected {
            let reason = format!("known answer: {} of {message:?} is {got}, not {expected}", cell.algorithm);
            return Ok(Err(reason));
        }
    }
    match cell.operation.as_str() {
        "hex-digest" => {
            let message = Message::parse(cell)?;
            Ok(message.check().map(|built| (built as u64, 2 * hasher.bytes, (hasher.hex_batch)(message))))
        }
        "digest" => {
            let length = cell.message_bytes().ok_or_else(|| bad("no message_bytes"))?;
            Ok(Ok((length as u64, hasher.bytes, (hasher.digest_batch)(counting_bytes(length)))))
        }
        other => Err(bad(&format!("unknown hash operation {other:?}"))),
    }
}

pub fn cells<'a>(spec: &Spec) -> Result<Vec<Prepared<'a>>, Failure> {
    let mut prepared = Vec::new();
    for cell in &spec.cells {
        check_implementation(cell)?;
        let hasher = hasher_of(&cell.algorithm); // none for `generate`: the uuid crate's work
        let crate_name = hasher.as_ref().map_or("uuid", |h| h.crate_name);
        prepared.push(match prepare(cell, hasher)? {
            Ok((input_bytes, output_bytes, calls)) => {
                Who::rustcrypto(crate_name, input_bytes).timed(output_bytes, 1, calls)
            }
            Err(reason) => Who::rustcrypto(crate_name, 0).not_timed("failed", reason),
        });
    }
    Ok(prepared)
}
