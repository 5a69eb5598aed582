//! Suites jwt, percall and tokensize, and the JWS preparation transfer shares.

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::{Map, Value, json};

use crate::failure::{Failure, read_file};
use crate::jws::{self, Signer};
use crate::libraries;
use crate::spec::{Cell, Spec};
use crate::timing::{Calls, Prepared, Who, repeat};

/// A cell's claims: the claims file (one object) or a dataset's records (one per line).
pub struct Inputs {
    pub claims: Vec<Value>,
    pub sizes: Vec<u64>,
    pub records: bool,
}

/// `(2 * sum + n) // (2 * n)`: the mean rounded to the nearest integer, halves up.
fn rounded_mean(values: impl Iterator<Item = u64>) -> u64 {
    let (sum, n) = values.fold((0u64, 0u64), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0 } else { (2 * sum + n) / (2 * n) }
}

impl Inputs {
    pub fn load(cell: &Cell) -> Result<Inputs, Failure> {
        let path = cell.required("input_file")?;
        let bytes = read_file(path)?;
        if cell.input_kind() != "records" {
            return Ok(Inputs {
                claims: vec![jws::read_claims(path)?],
                sizes: vec![bytes.len() as u64],
                records: false,
            });
        }
        let (mut claims, mut sizes) = (Vec::new(), Vec::new());
        for (number, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if !line.is_empty() {
                let record = serde_json::from_slice(line)
                    .map_err(|e| Failure::Input(format!("{path}:{}: not a JSON record: {e}", number + 1)))?;
                claims.push(record);
                sizes.push(line.len() as u64);
            }
        }
        if claims.is_empty() {
            return Err(Failure::Input(format!("{path}: no records")));
        }
        Ok(Inputs { claims, sizes, records: true })
    }

    /// input_bytes: the claims file's size, or the records' mean size.
    pub fn input_bytes(&self) -> u64 {
        rounded_mean(self.sizes.iter().copied())
    }
}

/// One algorithm, key pair and input, checked: the pool of tokens its cells share.
pub struct JwsCase {
    pub signer: Signer,
    pub inputs: Inputs,
    pub tokens: Vec<String>,
}

impl JwsCase {
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

pub type NotTimed = (&'static str, String);

/// The case a cell needs (a token for every input, or the first): Ok(Err) if not timed.
pub fn prepare(cell: &Cell, every_input: bool) -> Result<Result<JwsCase, NotTimed>, Failure> {
    let alg = match jws::algorithm(&cell.algorithm) {
        Ok(alg) => alg,
        Err(Failure::Unsupported(reason)) => return Ok(Err(("unsupported", reason))),
        Err(other) => return Err(other),
    };
    let signer = Signer::load(alg, cell.required("private_key")?, cell.required("public_key")?)?;
    let inputs = Inputs::load(cell)?;
    let count = if every_input { inputs.claims.len() } else { 1 };
    let mut tokens = Vec::with_capacity(count);
    for claims in &inputs.claims[..count] {
        match signer.sign(claims) {
            Ok(token) => tokens.push(token),
            Err(e) => return Ok(Err(("failed", e.message().to_string()))),
        }
    }
    if let Err(e) = signer.check(&inputs.claims[0], &tokens[0]) {
        return Ok(Err(("failed", e.message().to_string())));
    }
    for (i, token) in tokens.iter().enumerate().skip(1) {
        if signer.verify(token).ok().as_ref() != Some(&inputs.claims[i]) {
            return Ok(Err(("failed", format!("pooled token {} does not verify to its record", i + 1))));
        }
    }
    Ok(Ok(JwsCase { signer, inputs, tokens }))
}

/// The hello entry's identity: `implementation` is the library timed (JWTBENCH_LIBRARY's).
pub fn who(input_bytes: u64) -> Who {
    let library = libraries::current();
    Who(library.name(), library.version().to_string(), input_bytes)
}

fn not_timed<'a>(cell: &Cell, status: &str, reason: impl Into<String>) -> Prepared<'a> {
    who(Inputs::load(cell).map_or(0, |i| i.input_bytes())).not_timed(status, reason)
}

/// `call(i)` on the inputs 0..count in order, wrapping around, batch to batch.
pub fn through<'a>(
    count: usize,
    call: impl Fn(usize) -> Result<u64, String> + 'a,
) -> impl FnMut() -> Result<u64, String> + 'a {
    let mut position = 0usize;
    move || {
        let consumed = call(position);
        position = (position + 1) % count;
        consumed
    }
}

/// Every cell of a jwt or percall spec, in spec order; cells of one case share it.
pub fn cells<'a>(spec: &Spec) -> Result<Vec<Prepared<'a>>, Failure> {
    let mut cases: HashMap<[Option<&str>; 4], Result<Rc<JwsCase>, NotTimed>> = HashMap::new();
    let mut prepared = Vec::new();
    for cell in &spec.cells {
        // A library without a documented decode has no decode cells (status unsupported).
        if let ("decode", Err(why)) = (cell.operation.as_str(), libraries::current().decoder()) {
            prepared.push(not_timed(cell, "unsupported", why));
            continue;
        }
        let key = ["algorithm", "private_key", "public_key", "input_file"].map(|k| cell.text(k));
        let case = match cases.get(&key) {
            Some(case) => case.clone(),
            None => {
                let case = prepare(cell, true)?.map(Rc::new);
                cases.insert(key, case.clone());
                case
            }
        };
        prepared.push(match case {
            Err((status, reason)) => not_timed(cell, status, reason),
            Ok(case) => {
                let count = case.inputs.claims.len();
                let calls = || {
                    let (case, operation) = (Rc::clone(&case), cell.operation.clone());
                    through(count, move |i| case.call(&operation, i))
                };
                let pass = if case.inputs.records { count as u64 } else { 1 };
                let output_bytes = rounded_mean(case.tokens.iter().map(|t| t.len() as u64));
                who(case.inputs.input_bytes()).timed(output_bytes, pass, repeat(calls())).with_native(Box::new(calls()))
            }
        });
    }
    Ok(prepared)
}

/// Suite tokensize: one call signs the next record; a batch of one answers both sizes.
struct Records {
    case: JwsCase,
    next: usize,
    last: (u64, u64),
}

impl Calls for Records {
    fn run(&mut self, n: u64) -> Result<u64, String> {
        let mut fold = 0u64;
        for _ in 0..n {
            let i = self.next;
            let token = self.case.signer.sign(&self.case.inputs.claims[i]).map_err(|e| e.message().to_string())?;
            self.last = (self.case.inputs.sizes[i], token.len() as u64);
            fold = fold.wrapping_add(self.last.1);
            self.next = (i + 1) % self.case.inputs.claims.len();
        }
        Ok(fold)
    }

    fn answer(&mut self, n: u64) -> Result<Map<String, Value>, String> {
        let Value::Object(sizes) = json!({"input_bytes": self.last.0, "output_bytes": self.last.1}) else {
            unreachable!()
        };
        Ok(if n == 1 { sizes } else { Map::new() })
    }
}

pub fn tokensize_cells<'a>(spec: &Spec) -> Result<Vec<Prepared<'a>>, Failure> {
    let mut prepared = Vec::new();
    for cell in &spec.cells {
        prepared.push(match prepare(cell, false)? {
            Err((status, reason)) => not_timed(cell, status, reason),
            Ok(case) => {
                let (records, output_bytes) = (case.inputs.claims.len() as u64, case.tokens[0].len() as u64);
                let who = who(case.inputs.input_bytes());
                who.timed(output_bytes, records, Box::new(Records { case, next: 0, last: (0, 0) }))
            }
        });
    }
    Ok(prepared)
}
