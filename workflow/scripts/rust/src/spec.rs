//! The spec (workflow/scripts/README.md, "Specs"), read once; the conductor validates it.

use serde_json::Value;

use crate::failure::{Failure, read_file};

pub struct Cell {
    pub operation: String,
    pub algorithm: String,
    pub key_bits: i64,
    pub input: String,
    raw: Value,
}

pub struct Spec {
    pub suite: String,
    pub cells: Vec<Cell>,
    pub raw: Value,
    path: String,
}

impl Spec {
    pub fn load(path: &str) -> Result<Spec, Failure> {
        let bad = |what: String| Failure::Input(format!("{path}: {what}"));
        let raw: Value = serde_json::from_slice(&read_file(path)?).map_err(|e| bad(format!("not JSON: {e}")))?;
        let suite = raw.get("suite").and_then(Value::as_str).ok_or_else(|| bad("no \"suite\"".into()))?;
        let cells = raw
            .get("cells")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("no \"cells\" list".into()))?
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                Cell::parse(cell).ok_or_else(|| bad(format!("cell {i}: no operation, algorithm or input")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Spec { suite: suite.to_string(), cells, path: path.to_string(), raw })
    }

    pub fn setting(&self, block: &str, key: &str) -> Result<f64, Failure> {
        match self.raw.get(block).and_then(|b| b.get(key)).and_then(Value::as_f64) {
            Some(n) if n >= 0.0 => Ok(n),
            _ => Err(Failure::Input(format!("{}: no {block}.{key} (a number >= 0)", self.path))),
        }
    }
}

impl Cell {
    fn parse(value: &Value) -> Option<Cell> {
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
        Some(Cell {
            operation: text("operation")?,
            algorithm: text("algorithm")?,
            key_bits: value.get("key_bits").and_then(Value::as_i64).unwrap_or(0),
            input: text("input")?,
            raw: value.clone(),
        })
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.raw.get(key)
    }

    pub fn text(&self, key: &str) -> Option<&str> {
        self.raw.get(key)?.as_str()
    }

    /// A string field the cell's suite needs: an input error naming the cell without it.
    pub fn required(&self, key: &str) -> Result<&str, Failure> {
        self.text(key).ok_or_else(|| Failure::Input(format!("cell {}: no {key}", self.label())))
    }

    pub fn input_kind(&self) -> &str {
        self.text("input_kind").unwrap_or("claims")
    }

    pub fn message_bytes(&self) -> Option<usize> {
        self.raw.get("message_bytes")?.as_u64().map(|n| n as usize)
    }

    pub fn known(&self, key: &str) -> Option<&str> {
        self.raw.get("known_answer")?.get(key)?.as_str()
    }

    /// `operation algorithm[-bits] input`, for progress lines and errors.
    pub fn label(&self) -> String {
        let sized = ["RS", "PS", "RSA-", "ECDSA-"].iter().any(|p| self.algorithm.starts_with(p));
        let bits = if sized { format!("-{}", self.key_bits) } else { String::new() };
        format!("{} {}{} {}", self.operation, self.algorithm, bits, self.input)
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
