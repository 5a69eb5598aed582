//! Suite harness: a sign cell's batch (`repeat` over `suite_jwt::through`) on a no-op signer.

use serde_json::Value;
use subtle::ConstantTimeEq;

use crate::failure::Failure;
use crate::libraries::SignJws;
use crate::spec::{Spec, counting_bytes};
use crate::suite_jwt;
use crate::timing::{Prepared, repeat};

struct Empty;

impl SignJws for Empty {
    fn sign(&self, _claims: &Value) -> Result<String, String> {
        Ok(String::new())
    }
}

/// `trivial`: subtle's constant-time comparison of two 32-byte buffers, "1" when equal.
struct Trivial(Vec<u8>, Vec<u8>);

impl SignJws for Trivial {
    fn sign(&self, _claims: &Value) -> Result<String, String> {
        let equal: bool = self.0[..].ct_eq(&self.1[..]).into();
        Ok(if equal { "1" } else { "0" }.to_string())
    }
}

/// Every cell of the spec, in spec order (`trivial` checked on equal and unequal buffers).
pub fn cells<'a>(spec: &Spec) -> Result<Vec<Prepared<'a>>, Failure> {
    let mut prepared = Vec::new();
    for cell in &spec.cells {
        // The library's name and version, as its sign cells' rows: the loop is theirs.
        let who = suite_jwt::who(0);
        let signing: Box<dyn SignJws> = match cell.operation.as_str() {
            "empty" => Box::new(Empty),
            "trivial" => {
                let mut apart = counting_bytes(32);
                apart[31] ^= 1;
                let (one, zero) = (Trivial(counting_bytes(32), counting_bytes(32)), Trivial(counting_bytes(32), apart));
                if one.sign(&Value::Null).as_deref() != Ok("1") || zero.sign(&Value::Null).as_deref() != Ok("0") {
                    let reason = "subtle's ct_eq: equal buffers must give 1, buffers one byte apart 0";
                    prepared.push(who.not_timed("failed", reason));
                    continue;
                }
                Box::new(one)
            }
            other => return Err(Failure::Input(format!("suite harness has no operation {other:?}"))),
        };
        let output_bytes = signing.sign(&Value::Null).map_or(0, |token| token.len() as u64);
        // One claims value (the call ignores it), as a sign cell on a claims file has.
        let claims = vec![Value::Null];
        let calls = suite_jwt::through(claims.len(), move |i| signing.sign(&claims[i]).map(|t| t.len() as u64));
        prepared.push(who.timed(output_bytes, 1, repeat(calls)));
    }
    Ok(prepared)
}
