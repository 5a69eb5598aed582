//! Suite harness: what the timing loop itself costs. Each cell is timed through suite jwt's
//! batch (`suite_jwt::batch`: the same loop, clock and fold as a sign cell), calling in
//! place of the library's signer a `SignJws` that does no cryptography.

use serde_json::Value;
use subtle::ConstantTimeEq;

use crate::failure::Failure;
use crate::libraries::SignJws;
use crate::raw_samples::{RawSamples, Status};
use crate::spec::{Cell, Spec, counting_bytes};
use crate::suite_jwt;
use crate::timing::{self, PreparedCell, TimedCell};

/// The length of the two buffers `trivial` compares.
const BUFFER_BYTES: usize = 32;

/// `empty`: returns the empty string (no allocation) and does nothing else.
struct Empty;

impl SignJws for Empty {
    fn sign(&self, _claims: &Value) -> Result<String, String> {
        Ok(String::new())
    }
}

/// `trivial`: subtle's constant-time comparison of two buffers made before timing; "1" when
/// equal, as an owned one-byte String (the signer's shape returns an owned token).
struct Trivial {
    left: Vec<u8>,
    right: Vec<u8>,
}

impl SignJws for Trivial {
    fn sign(&self, _claims: &Value) -> Result<String, String> {
        let equal: bool = self.left[..].ct_eq(&self.right[..]).into();
        Ok(if equal { "1" } else { "0" }.to_string())
    }
}

/// The cell's call, or why the cell fails its check (trivial must say equal on two equal
/// buffers and not equal on two buffers one byte apart); a cell this suite cannot have is an
/// input error.
fn call(cell: &Cell) -> Result<Result<Box<dyn SignJws>, String>, Failure> {
    if cell.algorithm != "none" || cell.key_bits != 0 || cell.input != "none" {
        return Err(Failure::Input(format!(
            "cell {}: suite harness takes algorithm, input \"none\" and key_bits 0",
            cell.label()
        )));
    }
    match cell.operation.as_str() {
        "empty" => Ok(Ok(Box::new(Empty))),
        "trivial" => {
            let trivial = Trivial {
                left: counting_bytes(BUFFER_BYTES),
                right: counting_bytes(BUFFER_BYTES),
            };
            let mut different = counting_bytes(BUFFER_BYTES);
            different[BUFFER_BYTES - 1] ^= 1;
            let apart = Trivial {
                left: counting_bytes(BUFFER_BYTES),
                right: different,
            };
            if trivial.sign(&Value::Null).as_deref() != Ok("1") || apart.sign(&Value::Null).as_deref() != Ok("0") {
                return Ok(Err(
                    "subtle's ct_eq: equal buffers must give 1, buffers one byte apart 0".into(),
                ));
            }
            Ok(Ok(Box::new(trivial)))
        }
        other => Err(Failure::Input(format!(
            "cell {}: suite harness has no operation {other:?} (empty, trivial)",
            cell.label()
        ))),
    }
}

/// Every cell of the spec as `bench` and `serve` time it: prepared and checked, in spec order.
pub fn cells<'a>(spec: &Spec) -> Result<Vec<PreparedCell<'a>>, Failure> {
    let mut prepared = Vec::new();
    for (index, cell) in spec.cells.iter().enumerate() {
        // The library's name and version, as its sign cells' rows: the loop is theirs.
        let who = suite_jwt::identity(spec, cell, 0);
        prepared.push(match call(cell)? {
            Ok(signing) => {
                let output_bytes = signing.sign(&Value::Null).map_or(0, |token| token.len() as u64);
                // One claims value (the call ignores it), as a sign cell on a claims file has.
                let claims = vec![Value::Null];
                let count = claims.len();
                let batch = suite_jwt::batch(count, move |i| signing.sign(&claims[i]).map(|token| token.len() as u64));
                PreparedCell::Timed(TimedCell::new(index, who, output_bytes, 1, batch))
            }
            Err(reason) => PreparedCell::NotTimed(who, Status::Failed, reason),
        });
    }
    Ok(prepared)
}

pub fn run(spec: &Spec, out: &mut RawSamples) -> Result<(), Failure> {
    timing::bench(cells(spec)?, spec, out)
}
