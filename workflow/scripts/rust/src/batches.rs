//! `sign-batch` and `verify-batch`, each case through its command's functions.

use std::io::Write;
use std::time::Instant;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use crate::failure::{Failure, catch_panic, one_line, read_file};
use crate::jws::{self, Verifier};

/// The cases of FILE, each made by `make` (its error names FILE and the case's index).
fn load_cases<T>(path: &str, make: impl Fn(&Value) -> Result<T, String>) -> Result<Vec<T>, Failure> {
    let bad = |what: String| Failure::Input(format!("{path}: {what}"));
    let file: Value = serde_json::from_slice(&read_file(path)?).map_err(|e| bad(format!("not JSON: {e}")))?;
    let cases = file.get("cases").and_then(Value::as_array).ok_or_else(|| bad("no \"cases\" array".into()))?;
    let made = cases.iter().enumerate().map(|(i, case)| make(case).map_err(|what| bad(format!("case {i} {what}"))));
    made.collect()
}

fn string(case: &Value, name: &str) -> Result<String, String> {
    case.get(name).and_then(Value::as_str).map(str::to_string).ok_or_else(|| format!("has no string {name:?}"))
}

fn flag(case: &Value, name: &str) -> Result<bool, String> {
    case.get(name).map_or(Ok(false), |v| v.as_bool().ok_or_else(|| format!("has a non-boolean {name:?}")))
}

fn write_line(out: &mut impl Write, line: &Value) -> Result<(), Failure> {
    writeln!(out, "{line}")
        .and_then(|_| out.flush())
        .map_err(|e| Failure::Input(format!("cannot write to stdout: {e}")))
}

/// A step's failure as `Kind: message`: unsupported stays exit 3, anything else is exit 4.
fn tagged(kind: &'static str) -> impl Fn(Failure) -> Failure {
    move |failure| match failure {
        Failure::Unsupported(m) => Failure::Unsupported(format!("UnsupportedAlgorithm: {m}")),
        other => Failure::Error(format!("{kind}: {}", other.message())),
    }
}

pub fn sign(path: &str) -> Result<(), Failure> {
    let cases = load_cases(path, |case| {
        Ok([string(case, "id")?, string(case, "alg")?, string(case, "key")?, string(case, "payload")?])
    })?;
    let mut stdout = std::io::stdout().lock();
    for [id, alg, key, payload] in &cases {
        let signed = catch_panic(|| {
            let alg = jws::algorithm(alg).map_err(tagged("AlgorithmError"))?;
            let claims = jws::read_claims(payload).map_err(tagged("PayloadError"))?;
            let signer = jws::signing_key(alg, key).map_err(tagged("KeyError"))?;
            jws::sign_claims(&*signer, alg, key, &claims).map_err(tagged("SignError"))
        });
        let (exit, token, reason) = match signed {
            Ok(token) => (0, token, String::new()),
            Err(failure @ Failure::Unsupported(_)) => (3, String::new(), one_line(failure.message())),
            Err(failure) => (4, String::new(), one_line(failure.message())),
        };
        write_line(&mut stdout, &json!({"id": id, "exit": exit, "token": token, "reason": reason}))?;
    }
    Ok(())
}

struct VerifyCase {
    id: String,
    alg: String,
    key: String,
    token: String,
    claims: bool,
    signature_only: bool,
}

enum Accepted {
    Claims(Value),
    Payload(Vec<u8>),
}

type Check<'a> = Box<dyn Fn() -> Result<Accepted, Failure> + 'a>;

/// A case's untimed part: ALG, key and token read as its command reads them.
fn prepare(case: &VerifyCase) -> Result<Check<'static>, Failure> {
    let alg = jws::algorithm(&case.alg).map_err(tagged("AlgorithmError"))?;
    let key_error = |e: Failure| Failure::Error(format!("KeyError: {}", e.message()));
    let file_error = |e: Failure| Failure::Error(format!("TokenFileError: {}", e.message()));
    if case.signature_only {
        let verifier = jws::signature_verifier(alg, &case.key).map_err(key_error)?;
        let token = jws::read_token_text(&case.token).map_err(|e| match e {
            // A token that is not UTF-8: `verify --signature-only`'s verdict too (exit 1).
            Failure::Invalid(m) => Failure::Invalid(format!("TokenError: {m}")),
            other => file_error(other),
        })?;
        return Ok(Box::new(move || catch_panic(|| verifier.verify_signature(&token)).map(Accepted::Payload)));
    }
    let verifier = Verifier::load(alg, &case.key).map_err(key_error)?;
    let token = read_file(&case.token).map_err(file_error)?.trim_ascii().to_vec();
    Ok(Box::new(move || verifier.verify(&token).map(Accepted::Claims)))
}

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// `verify-batch`: each case's one call timed after its peak RSS is reset.
pub fn verify(path: &str) -> Result<(), Failure> {
    let cases = load_cases(path, |case| {
        Ok(VerifyCase {
            id: string(case, "id")?,
            alg: string(case, "alg")?,
            key: string(case, "key")?,
            token: string(case, "token")?,
            claims: flag(case, "claims")?,
            signature_only: flag(case, "signature_only")?,
        })
    })?;
    let mut stdout = std::io::stdout().lock();
    for case in &cases {
        let prepared = catch_panic(|| prepare(case));
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let (result, elapsed_ns) = match prepared {
            Ok(check) => {
                let start = Instant::now();
                let result = check();
                (result, start.elapsed().as_nanos() as u64)
            }
            Err(failure) => (Err(failure), 0),
        };
        let (exit, outcome) = match &result {
            Ok(_) => (0, "accept"),
            Err(Failure::Invalid(_)) => (1, "reject"),
            Err(Failure::Unsupported(_)) => (3, "unsupported"),
            Err(Failure::Input(_) | Failure::Error(_)) => (4, "error"),
        };
        let mut line = json!({
            "id": case.id,
            "exit": exit,
            "outcome": outcome,
            "elapsed_ns": elapsed_ns,
            "peak_rss_kb": peak_rss_kb(),
            "reason": result.as_ref().err().map_or(String::new(), |f| one_line(f.message())),
        });
        // What the command prints, serialized after the timed call.
        match result {
            Ok(Accepted::Claims(claims)) if case.claims => line["claims"] = claims,
            Ok(Accepted::Payload(payload)) => line["payload_b64url"] = URL_SAFE_NO_PAD.encode(payload).into(),
            _ => {}
        }
        write_line(&mut stdout, &line)?;
    }
    Ok(())
}
