//! `serve --spec FILE`: the worker of the conductor's protocol, jwtbench-worker/1
//! (workflow/scripts/README.md, "serve"; schema: workflow/schemas/protocol/worker.schema.yaml).
//! The cells are prepared and checked as `bench` prepares them (each suite's `cells`); then
//! the worker only runs the batches it is asked for, each one `TimedCell::time`, the code
//! `bench`'s rounds time (the same batch, the same `Instant` around it, the same fold). The
//! conductor decides everything else: warm-up, calibration, rounds, when a cell is done.
//! Standard output carries the protocol's lines only, each flushed; progress goes to stderr.

use std::hint::black_box;
use std::io::{BufRead, Write};

use serde_json::{Value, json};

use crate::failure::{self, Failure};
use crate::spec::Spec;
use crate::timing::{self, PreparedCell, TimedCell};
use crate::{harness, hashing, primitive, suite_jwt};

const PROTOCOL: &str = "jwtbench-worker/1";
/// The suites the conductor times (its `SUITES`): those sampled in rounds.
const SUITES: [&str; 4] = ["jwt", "hash", "primitive", "harness"];
/// A batch's key for the drift reference (else a spec index).
const REFERENCE: &str = "reference";

pub fn command(spec_path: &str) -> Result<(), Failure> {
    let spec = Spec::load(spec_path)?;
    let cells = match spec.suite.as_str() {
        "jwt" => suite_jwt::cells(&spec)?,
        "hash" => hashing::cells(&spec)?,
        "primitive" => primitive::cells(&spec)?,
        "harness" => harness::cells(&spec)?,
        other => {
            return Err(Failure::Input(format!(
                "{spec_path}: suite {other:?} is not served (serve times {})",
                SUITES.join(", ")
            )));
        }
    };
    let count = cells.len();
    let mut entries = Vec::with_capacity(count);
    let mut timed: Vec<Option<TimedCell>> = Vec::with_capacity(count);
    for (index, cell) in cells.into_iter().enumerate() {
        let label = format!("[{}/{count}] {}", index + 1, spec.cells[index].label());
        match cell {
            PreparedCell::Timed(cell) => {
                eprintln!("{label}: ok");
                entries.push(entry(&cell));
                timed.push(Some(cell));
            }
            PreparedCell::NotTimed(who, status, reason) => {
                eprintln!("{label}: {}: {reason}", status.name());
                entries.push(json!({
                    "status": status.name(),
                    "reason": reason,
                    "implementation": who.implementation,
                    "implementation_version": who.implementation_version,
                    "input_bytes": who.input_bytes,
                }));
                timed.push(None);
            }
        }
    }
    // The drift reference of `bench`, at its fixed layout (timing.rs): its batch finds the
    // stack shift for the depth it is called from, as in `bench`.
    let reference = timing::fixed_layout_reference_cell(&spec.suite);
    let mut answers = Answers(std::io::stdout().lock());
    answers.send(&json!({"protocol": PROTOCOL, "cells": entries, "reference": entry(&reference)}))?;
    let mut worker = Worker {
        cells: timed,
        reference,
    };
    worker.serve(std::io::stdin().lock(), &mut answers)
}

/// A timed cell's entry in the first line: what its raw rows carry.
fn entry(cell: &TimedCell) -> Value {
    let who = cell.who();
    json!({
        "status": "ok",
        "implementation": who.implementation,
        "implementation_version": who.implementation_version,
        "input_bytes": who.input_bytes,
        "output_bytes": cell.output_bytes(),
        "pass_length": cell.pass_length(),
    })
}

/// The protocol's side of standard output: one JSON line per message, flushed.
struct Answers<W: Write>(W);

impl<W: Write> Answers<W> {
    fn send(&mut self, message: &Value) -> Result<(), Failure> {
        writeln!(self.0, "{message}")
            .and_then(|()| self.0.flush())
            .map_err(|e| Failure::Error(format!("serve: cannot write to the conductor: {e}")))
    }
}

/// The prepared cells (None: not timed) and the drift reference, with the batches they run.
struct Worker<'a> {
    cells: Vec<Option<TimedCell<'a>>>,
    reference: TimedCell<'a>,
}

impl<'a> Worker<'a> {
    /// Each request's batches in order, one answer as each ends; Ok at the end request.
    fn serve(&mut self, requests: impl BufRead, answers: &mut Answers<impl Write>) -> Result<(), Failure> {
        let mut served = 0u64;
        for line in requests.lines() {
            let line = line.map_err(|e| Failure::Input(format!("serve: cannot read a request: {e}")))?;
            let request: Value = serde_json::from_str(&line)
                .map_err(|e| Failure::Input(format!("serve: a request that is not JSON ({e}): {line:.200}")))?;
            if request.get("end") == Some(&Value::Bool(true)) {
                let sink = self.sink();
                answers.send(&json!({"sink": sink}))?;
                eprintln!("serve: {served} batches (sink {sink:016x})");
                return Ok(());
            }
            let batches = request
                .get("batches")
                .and_then(Value::as_array)
                .ok_or_else(|| Failure::Input(format!("serve: a request with no \"batches\" list: {line:.200}")))?;
            for batch in batches {
                let (cell, n) = self.cell_of(batch)?;
                served += 1;
                // A panic is caught outside the timed region, as an Err of the batch is.
                match failure::catch_panic(|| cell.time(n).map_err(Failure::Invalid)) {
                    Ok(elapsed) => answers.send(&json!({"elapsed_ns": elapsed.max(1)}))?,
                    Err(failed) => {
                        eprintln!("{}: a batch of {n} failed: {}", cell.label(), failed.message());
                        answers.send(&json!({"error": failure::one_line(failed.message())}))?;
                        break; // the request's later batches are not run
                    }
                }
            }
        }
        Err(Failure::Input(
            "serve: the conductor closed the pipe without an end request".into(),
        ))
    }

    /// The cell and call count a batch `[cell, n]` names: a timed spec cell or the reference.
    fn cell_of(&mut self, batch: &Value) -> Result<(&mut TimedCell<'a>, u64), Failure> {
        let bad = || Failure::Input(format!("serve: {batch} is not a batch [cell, n] of a timed cell"));
        let (key, n) = match batch.as_array().map(Vec::as_slice) {
            Some([key, n]) => (key, n.as_u64().filter(|&n| n >= 1).ok_or_else(bad)?),
            _ => return Err(bad()),
        };
        let cell = match key {
            Value::String(name) if name == REFERENCE => Some(&mut self.reference),
            key => key
                .as_u64()
                .and_then(|index| self.cells.get_mut(index as usize))
                .and_then(Option::as_mut),
        };
        Ok((cell.ok_or_else(bad)?, n))
    }

    /// Every batch's results, folded, as `bench`'s closing fold.
    fn sink(&self) -> u64 {
        let cells = self.cells.iter().flatten();
        black_box(cells.fold(self.reference.fold(), |sink, cell| sink.wrapping_add(cell.fold())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw_samples::RowIdentity;

    fn cell<'a>(batch: impl FnMut(u64) -> Result<u64, String> + 'a) -> TimedCell<'a> {
        let who = RowIdentity {
            implementation: "test".into(),
            implementation_version: "0".into(),
            suite: "jwt".into(),
            operation: "sign".into(),
            algorithm: "HS256".into(),
            key_bits: 256,
            input: "claims-001".into(),
            input_bytes: 10,
        };
        TimedCell::new(0, who, 20, 1, Box::new(batch))
    }

    /// The worker's answers (one JSON value per line) to `requests`, and how it ended.
    fn serve(worker: &mut Worker, requests: &str) -> (Vec<Value>, Result<(), Failure>) {
        let mut answers = Answers(Vec::new());
        let ended = worker.serve(requests.as_bytes(), &mut answers);
        let lines = String::from_utf8(answers.0).unwrap();
        (
            lines.lines().map(|line| serde_json::from_str(line).unwrap()).collect(),
            ended,
        )
    }

    #[test]
    fn answers_each_batch_and_the_end() {
        let mut worker = Worker {
            cells: vec![Some(cell(Ok)), None],
            reference: cell(|n| Ok(2 * n)),
        };
        let (answers, ended) = serve(
            &mut worker,
            "{\"batches\": [[0, 3], [\"reference\", 5]]}\n{\"batches\": [[0, 1]]}\n{\"end\": true}\n",
        );
        assert!(ended.is_ok());
        assert_eq!(answers.len(), 4);
        assert!(answers[..3].iter().all(|a| a["elapsed_ns"].as_u64() >= Some(1)));
        assert_eq!(answers[3], json!({"sink": 3 + 10 + 1}));
    }

    #[test]
    fn a_failed_batch_ends_its_request_only() {
        let mut worker = Worker {
            cells: vec![
                Some(cell(|_| Err("the signature stopped verifying".into()))),
                Some(cell(|_| panic!("deep inside"))),
                Some(cell(Ok)),
            ],
            reference: cell(Ok),
        };
        let (answers, ended) = serve(
            &mut worker,
            "{\"batches\": [[0, 1], [2, 1]]}\n{\"batches\": [[1, 1], [2, 1]]}\n{\"batches\": [[2, 4]]}\n{\"end\": true}\n",
        );
        assert!(ended.is_ok());
        assert_eq!(answers[0], json!({"error": "the signature stopped verifying"}));
        assert_eq!(answers[1], json!({"error": "panic: deep inside"}));
        assert!(answers[2]["elapsed_ns"].is_u64());
        assert_eq!(answers[3], json!({"sink": 4}));
    }

    #[test]
    fn the_pipe_closed_without_end_or_a_batch_of_no_timed_cell_is_an_error() {
        let mut worker = Worker {
            cells: vec![Some(cell(Ok)), None],
            reference: cell(Ok),
        };
        let (answers, ended) = serve(&mut worker, "{\"batches\": [[0, 2]]}\n");
        assert_eq!(answers.len(), 1);
        assert!(matches!(ended, Err(Failure::Input(_))));
        for request in [
            "{\"batches\": [[1, 1]]}",
            "{\"batches\": [[2, 1]]}",
            "{\"batches\": [[0, 0]]}",
            "[]",
        ] {
            let (answers, ended) = serve(&mut worker, request);
            assert!(
                answers.is_empty() && matches!(ended, Err(Failure::Input(_))),
                "{request}"
            );
        }
    }
}
