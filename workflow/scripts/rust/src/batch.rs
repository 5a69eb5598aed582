//! What `verify-batch` and `sign-batch` share (workflow/scripts/README.md): FILE's cases,
//! all of them checked before the first runs (exit 2 naming FILE and the case index), and
//! the one JSON line per case, flushed at once.

use std::io::Write;

use serde_json::Value;

use crate::failure::{Failure, read_file};

/// One case of FILE, read field by field; a missing or mistyped field is an input error
/// naming FILE and the case's index.
pub struct Fields<'a> {
    path: &'a str,
    index: usize,
    case: &'a Value,
}

impl Fields<'_> {
    fn bad(&self, what: String) -> Failure {
        Failure::Input(format!("{}: case {} {what}", self.path, self.index))
    }

    /// A required string field.
    pub fn string(&self, name: &str) -> Result<String, Failure> {
        self.case
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| self.bad(format!("has no string {name:?}")))
    }

    /// An optional boolean field (absent: false).
    pub fn flag(&self, name: &str) -> Result<bool, Failure> {
        match self.case.get(name) {
            None => Ok(false),
            Some(flag) => flag
                .as_bool()
                .ok_or_else(|| self.bad(format!("has a non-boolean {name:?}"))),
        }
    }
}

/// The cases of FILE (`{"cases": [...]}`), each made by `make` from its fields.
pub fn load_cases<T>(path: &str, make: impl Fn(&Fields) -> Result<T, Failure>) -> Result<Vec<T>, Failure> {
    let bad = |what: String| Failure::Input(format!("{path}: {what}"));
    let file: Value = serde_json::from_slice(&read_file(path)?).map_err(|e| bad(format!("not JSON: {e}")))?;
    let cases = file
        .get("cases")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no \"cases\" array".into()))?;
    cases
        .iter()
        .enumerate()
        .map(|(index, case)| make(&Fields { path, index, case }))
        .collect()
}

/// A case's line on stdout, flushed at once so a crash or a timeout later loses nothing.
pub fn write_line(out: &mut impl Write, line: &Value) -> Result<(), Failure> {
    writeln!(out, "{line}")
        .and_then(|_| out.flush())
        .map_err(|e| Failure::Input(format!("cannot write to stdout: {e}")))
}
