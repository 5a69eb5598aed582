//! `verify-batch --cases FILE` (workflow/scripts/README.md): every case of FILE through the
//! very `Verifier::verify` the `verify` command uses, one JSON line per case; a case with
//! `"signature_only": true` through the `SignatureVerifier::verify` of
//! `verify --signature-only` instead.

use std::time::Instant;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use crate::batch::{Fields, load_cases, write_line};
use crate::failure::{Failure, catch_panic, one_line, read_file};
use crate::jws::{self, SignatureVerifier, Verifier};

struct Case {
    id: String,
    alg: String,
    key: String,
    token: String,
    /// `"claims": true`: an `accept` line also carries the verified claims.
    claims: bool,
    /// `"signature_only": true`: the check of `verify --signature-only`; an `accept` line
    /// also carries the payload's bytes (`payload_b64url`).
    signature_only: bool,
}

impl Case {
    fn from_fields(fields: &Fields) -> Result<Case, Failure> {
        let claims = fields.flag("claims")?;
        let signature_only = fields.flag("signature_only")?;
        Ok(Case {
            id: fields.string("id")?,
            alg: fields.string("alg")?,
            key: fields.string("key")?,
            token: fields.string("token")?,
            claims,
            signature_only,
        })
    }
}

/// A case's key parsed and its token read, ready for the timed call.
enum Check {
    /// `verify`'s: the token's bytes, surrounding whitespace dropped.
    Claims(Verifier, Vec<u8>),
    /// `verify --signature-only`'s: the token's text, surrounding whitespace dropped.
    Signature(SignatureVerifier, String),
}

/// What an accepted case yields: `verify`'s claims or `verify --signature-only`'s payload.
enum Accepted {
    Claims(Value),
    Payload(Vec<u8>),
}

/// The untimed part of a case: the algorithm, its key and the token (read as the command the
/// case stands for reads it). A key or token file that cannot be used is not the library's
/// verdict: exit 4, the reason naming the file's problem.
fn prepare(case: &Case) -> Result<Check, Failure> {
    let alg = jws::algorithm(&case.alg).map_err(|e| match e {
        Failure::Unsupported(m) => Failure::Unsupported(format!("UnsupportedAlgorithm: {m}")),
        other => Failure::Error(format!("AlgorithmError: {}", other.message())),
    })?;
    let key_error = |e: Failure| Failure::Error(format!("KeyError: {}", e.message()));
    if case.signature_only {
        let verifier = SignatureVerifier::load(alg, &case.key).map_err(key_error)?;
        let token = jws::read_token_text(&case.token).map_err(|e| match e {
            // A token that is not UTF-8: `verify --signature-only`'s verdict too (exit 1).
            Failure::Invalid(m) => Failure::Invalid(format!("TokenError: {m}")),
            other => Failure::Error(format!("TokenFileError: {}", other.message())),
        })?;
        return Ok(Check::Signature(verifier, token));
    }
    let verifier = Verifier::load(alg, &case.key).map_err(key_error)?;
    let token = read_file(&case.token).map_err(|e| Failure::Error(format!("TokenFileError: {}", e.message())))?;
    Ok(Check::Claims(verifier, token.trim_ascii().to_vec()))
}

/// One call timed with the monotonic clock.
fn timed<T>(call: impl FnOnce() -> T) -> (T, u64) {
    let start = Instant::now();
    let result = call();
    (result, start.elapsed().as_nanos() as u64)
}

/// VmHWM of /proc/self/status in kB (0 when unreadable).
fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

pub fn command(path: &str) -> Result<(), Failure> {
    let cases = load_cases(path, Case::from_fields)?;
    let mut stdout = std::io::stdout().lock();
    for case in &cases {
        let prepared = catch_panic(|| prepare(case));
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let (result, elapsed_ns) = match &prepared {
            Ok(Check::Claims(verifier, token)) => timed(|| verifier.verify(token).map(Accepted::Claims)),
            Ok(Check::Signature(verifier, token)) => timed(|| verifier.verify(token).map(Accepted::Payload)),
            Err(_) => (Ok(Accepted::Claims(Value::Null)), 0),
        };
        let (accepted, failure) = match prepared.and(result) {
            Ok(accepted) => (Some(accepted), None),
            Err(failure) => (None, Some(failure)),
        };
        let (exit, outcome) = match &failure {
            None => (0, "accept"),
            Some(Failure::Invalid(_)) => (1, "reject"),
            Some(Failure::Unsupported(_)) => (3, "unsupported"),
            Some(Failure::Input(_) | Failure::Error(_)) => (4, "error"),
        };
        let mut line = json!({
            "id": case.id,
            "exit": exit,
            "outcome": outcome,
            "elapsed_ns": elapsed_ns,
            "peak_rss_kb": peak_rss_kb(),
            "reason": failure.as_ref().map_or(String::new(), |f| one_line(f.message())),
        });
        // What the command prints, serialized after the timed call: `verify`'s claims (on
        // request), `verify --signature-only`'s payload bytes as base64url.
        match accepted {
            Some(Accepted::Claims(claims)) if case.claims => line["claims"] = claims,
            Some(Accepted::Payload(payload)) => line["payload_b64url"] = URL_SAFE_NO_PAD.encode(payload).into(),
            _ => {}
        }
        write_line(&mut stdout, &line)?;
    }
    Ok(())
}
