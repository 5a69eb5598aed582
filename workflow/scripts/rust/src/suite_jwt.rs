//! Suite jwt (on the claims file or on a dataset's records), and the JWS preparation that
//! suites percall, tokensize and transfer share: the key pair parsed once, the inputs
//! parsed before timing, one pool of tokens per algorithm, key pair and input, checked.

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value;

use crate::failure::{Failure, read_file};
use crate::jws::{self, Signer};
use crate::libraries;
use crate::raw_samples::{RawSamples, RowIdentity, Status};
use crate::spec::{Cell, Spec};
use crate::timing::{self, Batch, PreparedCell, TimedCell};

/// A cell's claims: the claims file (one object) or a dataset's records (one per line).
pub struct Inputs {
    pub claims: Vec<Value>,
    pub sizes: Vec<u64>,
    pub file_bytes: u64,
    pub records: bool,
}

/// `(2 * sum + n) // (2 * n)`: the mean rounded to the nearest integer, halves up.
pub fn rounded_mean(values: impl Iterator<Item = u64>) -> u64 {
    let (sum, n) = values.fold((0u64, 0u64), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0 } else { (2 * sum + n) / (2 * n) }
}

impl Inputs {
    pub fn load(cell: &Cell) -> Result<Inputs, Failure> {
        let path = cell.input_file()?;
        let bytes = read_file(path)?;
        match cell.input_kind.as_str() {
            "claims" => {
                let claims = jws::read_claims(path)?;
                Ok(Inputs {
                    claims: vec![claims],
                    sizes: vec![bytes.len() as u64],
                    file_bytes: bytes.len() as u64,
                    records: false,
                })
            }
            "records" => {
                let mut claims = Vec::new();
                let mut sizes = Vec::new();
                for (number, line) in bytes.split(|&b| b == b'\n').enumerate() {
                    if line.is_empty() {
                        continue;
                    }
                    let record: Value = serde_json::from_slice(line)
                        .map_err(|e| Failure::Input(format!("{path}:{}: not a JSON record: {e}", number + 1)))?;
                    claims.push(record);
                    sizes.push(line.len() as u64);
                }
                if claims.is_empty() {
                    return Err(Failure::Input(format!("{path}: no records")));
                }
                Ok(Inputs {
                    claims,
                    sizes,
                    file_bytes: bytes.len() as u64,
                    records: true,
                })
            }
            other => Err(Failure::Input(format!(
                "{path}: input_kind {other:?} is not claims or records"
            ))),
        }
    }

    /// input_bytes: the claims file's size, or the records' mean size.
    pub fn input_bytes(&self) -> u64 {
        if self.records {
            rounded_mean(self.sizes.iter().copied())
        } else {
            self.file_bytes
        }
    }
}

/// One algorithm, key pair and input, prepared and checked: the pool of tokens the sign,
/// verify and decode cells of that algorithm share.
pub struct JwsCase {
    pub signer: Signer,
    pub inputs: Inputs,
    pub tokens: Vec<String>,
}

impl JwsCase {
    pub fn output_bytes(&self) -> u64 {
        rounded_mean(self.tokens.iter().map(|t| t.len() as u64))
    }

    /// One call of `operation` on input `i`, returning what it consumed.
    pub fn call(&self, operation: &str, i: usize) -> Result<u64, String> {
        let consumed = match operation {
            "sign" => self.signer.sign(&self.inputs.claims[i]).map(|t| t.len()),
            "verify" => self.signer.verify(&self.tokens[i]).map(|c| claims_size(&c)),
            "decode" => jws::decode(&self.tokens[i]).map(|c| claims_size(&c)),
            other => return Err(format!("unknown operation {other:?}")),
        };
        consumed.map(|n| n as u64).map_err(|e| e.message().to_string())
    }
}

fn claims_size(claims: &Value) -> usize {
    claims.as_object().map_or(0, |o| o.len())
}

/// Why a cell is not timed.
pub type NotTimed = (Status, String);

/// Prepares the case a cell needs: Ok(Err(..)) when the cell is failed or unsupported,
/// Err(..) for an input error that stops the bench (exit 2).
pub fn prepare(cell: &Cell, check_every_token: bool) -> Result<Result<JwsCase, NotTimed>, Failure> {
    let alg = match jws::algorithm(&cell.algorithm) {
        Ok(alg) => alg,
        Err(Failure::Unsupported(reason)) => return Ok(Err((Status::Unsupported, reason))),
        Err(other) => return Err(other),
    };
    let signer = Signer::load(alg, cell.private_key()?, cell.public_key()?)?;
    let inputs = Inputs::load(cell)?;
    let mut tokens = Vec::with_capacity(inputs.claims.len());
    for claims in &inputs.claims {
        match signer.sign(claims) {
            Ok(token) => tokens.push(token),
            Err(e) => return Ok(Err((Status::Failed, e.message().to_string()))),
        }
        if !check_every_token {
            break;
        }
    }
    if let Err(e) = signer.check(&inputs.claims[0], &tokens[0]) {
        return Ok(Err((Status::Failed, e.message().to_string())));
    }
    for (i, token) in tokens.iter().enumerate().skip(1) {
        match signer.verify(token) {
            Ok(claims) if claims == inputs.claims[i] => {}
            _ => {
                return Ok(Err((
                    Status::Failed,
                    format!("pooled token {} does not verify to its record", i + 1),
                )));
            }
        }
    }
    Ok(Ok(JwsCase { signer, inputs, tokens }))
}

/// Cases keyed by algorithm, key pair and input file, so a pool is made and checked once.
#[derive(Default)]
pub struct Cases {
    made: HashMap<(String, Option<String>, Option<String>, Option<String>), Result<Rc<JwsCase>, NotTimed>>,
}

impl Cases {
    pub fn get(&mut self, cell: &Cell) -> Result<Result<Rc<JwsCase>, NotTimed>, Failure> {
        let key = (
            cell.algorithm.clone(),
            cell.private_key.clone(),
            cell.public_key.clone(),
            cell.input_file.clone(),
        );
        if let Some(found) = self.made.get(&key) {
            return Ok(found.clone());
        }
        let made = prepare(cell, true)?.map(Rc::new);
        self.made.insert(key, made.clone());
        Ok(made)
    }
}

/// The rows' identity: `implementation` is the library timed (JWTBENCH_LIBRARY's).
pub fn identity(spec: &Spec, cell: &Cell, input_bytes: u64) -> RowIdentity {
    let library = libraries::current();
    RowIdentity::new(&spec.suite, cell, library.name(), library.version(), input_bytes)
}

/// input_bytes of a cell that could not be prepared: its input file's size where readable.
pub fn untimed_input_bytes(cell: &Cell) -> u64 {
    Inputs::load(cell).map(|i| i.input_bytes()).unwrap_or(0)
}

/// A checked cell as the rounds time it: batches of `n` calls of `JwsCase::call`, through
/// the pool's inputs in order (a batch of at least one pass is whole passes).
pub fn timed_cell<'a>(spec: &Spec, index: usize, cell: &Cell, case: Rc<JwsCase>) -> TimedCell<'a> {
    let who = identity(spec, cell, case.inputs.input_bytes());
    let operation = cell.operation.clone();
    let count = case.inputs.claims.len();
    let pass = if case.inputs.records { count as u64 } else { 1 };
    let output_bytes = case.output_bytes();
    let calls = batch(count, move |i| case.call(&operation, i));
    TimedCell::new(index, who, output_bytes, pass, calls)
}

/// The batch of suite jwt's cells (and of suite harness's, harness.rs): `n` calls of
/// `call` on the inputs 0..count in order, wrapping around (the position carries over from
/// batch to batch), each call's result folded into the batch's.
pub fn batch<'a>(count: usize, call: impl Fn(usize) -> Result<u64, String> + 'a) -> Batch<'a> {
    let mut position = 0usize;
    Box::new(move |n: u64| -> Result<u64, String> {
        let mut fold = 0u64;
        for _ in 0..n {
            fold = fold.wrapping_add(call(position)?);
            position = (position + 1) % count;
        }
        Ok(fold)
    })
}

/// Every cell of the spec as `bench` and `serve` time it: prepared and checked, in spec order.
pub fn cells<'a>(spec: &Spec) -> Result<Vec<PreparedCell<'a>>, Failure> {
    let mut cases = Cases::default();
    let mut prepared = Vec::new();
    for (index, cell) in spec.cells.iter().enumerate() {
        // A library without a documented decode has no decode cells (status unsupported).
        if let ("decode", Err(why)) = (cell.operation.as_str(), libraries::current().decoder()) {
            let who = identity(spec, cell, untimed_input_bytes(cell));
            prepared.push(PreparedCell::NotTimed(who, Status::Unsupported, why.into()));
            continue;
        }
        prepared.push(match cases.get(cell)? {
            Err((status, reason)) => {
                PreparedCell::NotTimed(identity(spec, cell, untimed_input_bytes(cell)), status, reason)
            }
            Ok(case) => PreparedCell::Timed(timed_cell(spec, index, cell, case)),
        });
    }
    Ok(prepared)
}

pub fn run(spec: &Spec, out: &mut RawSamples) -> Result<(), Failure> {
    timing::bench(cells(spec)?, spec, out)
}
