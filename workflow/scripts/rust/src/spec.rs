//! The bench spec the workflow writes (workflow/scripts/README.md, "bench"): the timing
//! budget, per-suite settings and the cells, read once before anything is timed.

use serde_json::Value;

use crate::failure::{Failure, read_file};
use crate::stopping::{self, Target};

pub struct Timing {
    pub warmup_seconds: f64,
    /// The stopping rule's keys: `samples` (the cap), `min_samples`, `target_ci_pct`, `confidence`.
    pub stopping: Target,
    pub target_sample_seconds: f64,
    pub max_cell_seconds: f64,
    pub warmup_max_seconds: f64,
    /// The warm-up: the first cell a process warms up does so for at least this long.
    pub process_warmup_seconds: f64,
    pub steady_window: u64,
    pub steady_tolerance: f64,
}

#[derive(Clone)]
pub struct Cell {
    pub operation: String,
    pub algorithm: String,
    pub key_bits: i64,
    pub input: String,
    pub private_key: Option<String>,
    pub public_key: Option<String>,
    pub input_file: Option<String>,
    pub input_kind: String,
    pub implementation: Option<String>,
    pub family: Option<String>,
    pub message: Vec<String>,
    pub message_bytes: Option<usize>,
    pub known_answer: Option<Value>,
}

pub struct Spec {
    pub path: String,
    pub suite: String,
    pub timing: Timing,
    pub cells: Vec<Cell>,
    /// The stopping rule's pairs: `[i, j]` indexes into `cells`, a ratio i / j a verdict rests on.
    pub pairs: Vec<(usize, usize)>,
    raw: Value,
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

impl Spec {
    pub fn load(path: &str) -> Result<Spec, Failure> {
        let bad = |what: String| Failure::Input(format!("{path}: {what}"));
        let raw: Value = serde_json::from_slice(&read_file(path)?).map_err(|e| bad(format!("not JSON: {e}")))?;
        let suite = text(&raw, "suite").ok_or_else(|| bad("no \"suite\"".into()))?;
        let timing_value = raw.get("timing").cloned().unwrap_or(Value::Null);
        let number = |key: &str, default: Option<f64>| -> Result<f64, Failure> {
            match timing_value.get(key).and_then(Value::as_f64).or(default) {
                Some(n) if n >= 0.0 => Ok(n),
                _ => Err(bad(format!("timing.{key} is missing or negative"))),
            }
        };
        let timing = Timing {
            warmup_seconds: number("warmup_seconds", Some(0.0))?,
            stopping: Target::from_timing(&timing_value, Some(1)).map_err(bad)?,
            target_sample_seconds: number("target_sample_seconds", Some(0.025))?,
            max_cell_seconds: number("max_cell_seconds", Some(120.0))?,
            warmup_max_seconds: number("warmup_max_seconds", Some(0.0))?,
            process_warmup_seconds: number("process_warmup_seconds", Some(0.0))?,
            steady_window: (number("steady_window", Some(5.0))? as u64).max(1),
            steady_tolerance: number("steady_tolerance", Some(0.05))?,
        };
        let cells = raw
            .get("cells")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("no \"cells\" list".into()))?
            .iter()
            .enumerate()
            .map(|(i, cell)| Cell::parse(cell).map_err(|what| bad(format!("cell {i}: {what}"))))
            .collect::<Result<Vec<_>, _>>()?;
        let pairs = stopping::parse_pairs(raw.get("pairs"), cells.len()).map_err(bad)?;
        Ok(Spec {
            path: path.to_string(),
            suite,
            timing,
            cells,
            pairs,
            raw,
        })
    }

    /// A number from a suite's settings block, e.g. ("percall", "calls"); a spec without
    /// it is an input error naming it.
    pub fn setting(&self, block: &str, key: &str) -> Result<f64, Failure> {
        match self.raw.get(block).and_then(|b| b.get(key)).and_then(Value::as_f64) {
            Some(n) if n >= 0.0 => Ok(n),
            _ => Err(Failure::Input(format!(
                "{}: no {block}.{key} (a number >= 0) in the spec",
                self.path
            ))),
        }
    }
}

impl Cell {
    fn parse(value: &Value) -> Result<Cell, String> {
        let required = |key: &str| text(value, key).ok_or_else(|| format!("no {key:?}"));
        Ok(Cell {
            operation: required("operation")?,
            algorithm: required("algorithm")?,
            key_bits: value.get("key_bits").and_then(Value::as_i64).unwrap_or(0),
            input: required("input")?,
            private_key: text(value, "private_key"),
            public_key: text(value, "public_key"),
            input_file: text(value, "input_file"),
            input_kind: text(value, "input_kind").unwrap_or_else(|| "claims".into()),
            implementation: text(value, "implementation"),
            family: text(value, "family"),
            message: value
                .get("message")
                .and_then(Value::as_array)
                .map(|parts| parts.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default(),
            message_bytes: value.get("message_bytes").and_then(Value::as_u64).map(|n| n as usize),
            known_answer: value.get("known_answer").cloned(),
        })
    }

    pub fn private_key(&self) -> Result<&str, Failure> {
        self.private_key
            .as_deref()
            .ok_or_else(|| Failure::Input(format!("cell {}: no private_key", self.label())))
    }

    pub fn public_key(&self) -> Result<&str, Failure> {
        self.public_key
            .as_deref()
            .ok_or_else(|| Failure::Input(format!("cell {}: no public_key", self.label())))
    }

    pub fn input_file(&self) -> Result<&str, Failure> {
        self.input_file
            .as_deref()
            .ok_or_else(|| Failure::Input(format!("cell {}: no input_file", self.label())))
    }

    /// `operation algorithm[-bits] input` for progress lines.
    pub fn label(&self) -> String {
        let bits = if self.algorithm.starts_with("RS")
            || self.algorithm.starts_with("PS")
            || self.algorithm.starts_with("RSA-")
            || self.algorithm.starts_with("ECDSA-")
        {
            format!("-{}", self.key_bits)
        } else {
            String::new()
        };
        format!("{} {}{} {}", self.operation, self.algorithm, bits, self.input)
    }

    /// A known-answer field as bytes (hex fields), or a plain string field's UTF-8 bytes.
    pub fn known_hex(&self, key: &str) -> Option<Result<Vec<u8>, String>> {
        let text = self.known_answer.as_ref()?.get(key)?.as_str()?;
        Some(hex_decode(text))
    }

    pub fn known_text(&self, key: &str) -> Option<String> {
        self.known_answer.as_ref()?.get(key)?.as_str().map(str::to_string)
    }
}

pub fn hex_decode(text: &str) -> Result<Vec<u8>, String> {
    if text.len() % 2 != 0 {
        return Err(format!("odd-length hex {text:?}"));
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).map_err(|_| format!("bad hex {text:?}")))
        .collect()
}

pub fn hex_encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(DIGITS[(byte >> 4) as usize] as char);
        out.push(DIGITS[(byte & 15) as usize] as char);
    }
    out
}

/// The contract's test message: `length` bytes, byte i = i mod 256.
pub fn counting_bytes(length: usize) -> Vec<u8> {
    (0..length).map(|i| (i % 256) as u8).collect()
}
