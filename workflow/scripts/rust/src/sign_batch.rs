//! `sign-batch --cases FILE` (workflow/scripts/README.md): every case of FILE through the
//! very functions the `sign` command calls (`jws::algorithm`, `read_claims`, `signing_key`,
//! `sign_claims`), one JSON line per case: `{"id", "exit", "token", "reason"}`.

use serde_json::json;

use crate::batch::{Fields, load_cases, write_line};
use crate::failure::{Failure, catch_panic, one_line};
use crate::jws;

struct Case {
    id: String,
    alg: String,
    key: String,
    payload: String,
}

impl Case {
    fn from_fields(fields: &Fields) -> Result<Case, Failure> {
        Ok(Case {
            id: fields.string("id")?,
            alg: fields.string("alg")?,
            key: fields.string("key")?,
            payload: fields.string("payload")?,
        })
    }
}

/// A step's failure as sign-batch reports it: the library lacking the algorithm stays
/// `unsupported` (exit 3, `sign`'s message); anything else is this case's error (exit 4),
/// named `Kind: message`. The messages name files, never their bytes.
fn tagged(kind: &'static str) -> impl Fn(Failure) -> Failure {
    move |failure| match failure {
        Failure::Unsupported(m) => Failure::Unsupported(format!("UnsupportedAlgorithm: {m}")),
        other => Failure::Error(format!("{kind}: {}", other.message())),
    }
}

/// What `sign --alg ALG --key KEY --payload PAYLOAD` does, step by step as `sign_command`.
fn sign_case(case: &Case) -> Result<String, Failure> {
    let alg = jws::algorithm(&case.alg).map_err(tagged("AlgorithmError"))?;
    let claims = jws::read_claims(&case.payload).map_err(tagged("PayloadError"))?;
    let signer = jws::signing_key(alg, &case.key).map_err(tagged("KeyError"))?;
    jws::sign_claims(&*signer, alg, &case.key, &claims).map_err(tagged("SignError"))
}

pub fn command(path: &str) -> Result<(), Failure> {
    let cases = load_cases(path, Case::from_fields)?;
    let mut stdout = std::io::stdout().lock();
    for case in &cases {
        // A panic anywhere in the case is its error (exit 4), never the end of the process.
        let (exit, token, reason) = match catch_panic(|| sign_case(case)) {
            Ok(token) => (0, token, String::new()),
            Err(failure @ Failure::Unsupported(_)) => (3, String::new(), one_line(failure.message())),
            Err(failure) => (4, String::new(), one_line(failure.message())),
        };
        let line = json!({"id": case.id, "exit": exit, "token": token, "reason": reason});
        write_line(&mut stdout, &line)?;
    }
    Ok(())
}
