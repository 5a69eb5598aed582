//! `verify-batch --cases FILE` (workflow/scripts/README.md): every case of FILE through the
//! very `Verifier::verify` the `verify` command uses, one JSON line per case.

use std::io::Write;
use std::time::Instant;

use serde_json::{Value, json};

use crate::failure::{Failure, catch_panic, one_line, read_file};
use crate::jws::{self, Verifier};

struct Case {
    id: String,
    alg: String,
    key: String,
    token: String,
    /// `"claims": true`: an `accept` line also carries the verified claims.
    claims: bool,
}

/// The cases of FILE, all of them checked before the first runs (exit 2 names FILE).
fn load_cases(path: &str) -> Result<Vec<Case>, Failure> {
    let bad = |what: String| Failure::Input(format!("{path}: {what}"));
    let file: Value = serde_json::from_slice(&read_file(path)?).map_err(|e| bad(format!("not JSON: {e}")))?;
    let cases = file
        .get("cases")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no \"cases\" array".into()))?;
    cases
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let field = |name: &str| {
                case.get(name)
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| bad(format!("case {i} has no string {name:?}")))
            };
            let claims = match case.get("claims") {
                None => false,
                Some(flag) => flag
                    .as_bool()
                    .ok_or_else(|| bad(format!("case {i} has a non-boolean \"claims\"")))?,
            };
            Ok(Case {
                id: field("id")?,
                alg: field("alg")?,
                key: field("key")?,
                token: field("token")?,
                claims,
            })
        })
        .collect()
}

/// The untimed part of a case: the algorithm, its key and the token's bytes (surrounding
/// whitespace dropped). A key or token file that cannot be used is not the library's
/// verdict: exit 4, the reason naming the file's problem.
fn prepare(case: &Case) -> Result<(Verifier, Vec<u8>), Failure> {
    let alg = jws::algorithm(&case.alg).map_err(|e| match e {
        Failure::Unsupported(m) => Failure::Unsupported(format!("UnsupportedAlgorithm: {m}")),
        other => Failure::Error(format!("AlgorithmError: {}", other.message())),
    })?;
    let verifier = Verifier::load(alg, &case.key).map_err(|e| Failure::Error(format!("KeyError: {}", e.message())))?;
    let token = read_file(&case.token).map_err(|e| Failure::Error(format!("TokenFileError: {}", e.message())))?;
    Ok((verifier, token.trim_ascii().to_vec()))
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
    let cases = load_cases(path)?;
    let mut stdout = std::io::stdout().lock();
    for case in &cases {
        let prepared = catch_panic(|| prepare(case));
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let (result, elapsed_ns) = match &prepared {
            Ok((verifier, token)) => {
                let start = Instant::now();
                let result = verifier.verify(token);
                let elapsed_ns = start.elapsed().as_nanos() as u64;
                (result, elapsed_ns)
            }
            Err(_) => (Ok(Value::Null), 0),
        };
        let (claims, failure) = match prepared.and(result) {
            Ok(claims) => (Some(claims), None),
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
        // The `Value` `verify` prints, serialized after the timed call.
        if let Some(claims) = claims.filter(|_| case.claims) {
            line["claims"] = claims;
        }
        writeln!(stdout, "{line}")
            .and_then(|_| stdout.flush())
            .map_err(|e| Failure::Input(format!("cannot write to stdout: {e}")))?;
    }
    Ok(())
}
