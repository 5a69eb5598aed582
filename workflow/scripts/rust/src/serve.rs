//! `serve --spec FILE`: the conductor's worker (workflow/scripts/README.md, "serve").

use std::fs::File;
use std::hint::black_box;
use std::io::{BufRead, BufWriter, Write};
use std::os::fd::FromRawFd;

use serde_json::{Value, json};

use crate::criterion_harness::{self, Harness};
use crate::failure::{self, Failure};
use crate::spec::Spec;
use crate::timing::{self, Prepared, Timed};
use crate::{harness, hashing, keygen, primitive, suite_jwt, transfer};

const PROTOCOL: &str = "jwtbench-worker/1";

pub fn command(spec_path: &str) -> Result<(), Failure> {
    let mut answers = Answers::take_stdout()?;
    let spec = Spec::load(spec_path)?;
    let cells = match spec.suite.as_str() {
        "jwt" | "percall" => suite_jwt::cells(&spec)?,
        "tokensize" => suite_jwt::tokensize_cells(&spec)?,
        "transfer" => transfer::cells(&spec)?,
        "hash" => hashing::cells(&spec)?,
        "primitive" => primitive::cells(&spec)?,
        "harness" => harness::cells(&spec)?,
        "keygen" => keygen::cells(&spec)?,
        other => return Err(Failure::Input(format!("{spec_path}: unknown suite {other:?}"))),
    };
    let (count, mut entries, mut timed) = (cells.len(), Vec::new(), Vec::new());
    for (index, cell) in cells.into_iter().enumerate() {
        let label = format!("[{}/{count}] {}", index + 1, spec.cells[index].label());
        match cell {
            Prepared::Timed(cell) => {
                eprintln!("{label}: ok");
                entries.push(cell.entry.clone());
                timed.push(Some(cell));
            }
            Prepared::NotTimed(entry) => {
                eprintln!("{label}: {}: {}", entry["status"], entry["reason"]);
                entries.push(entry);
                timed.push(None);
            }
        }
    }
    // The drift reference, for the suites whose cells are sampled in rounds.
    let reference = (!matches!(spec.suite.as_str(), "percall" | "tokensize" | "transfer")).then(timing::reference_cell);
    let mut hello = json!({"protocol": PROTOCOL, "cells": entries, "reference": reference.as_ref().map(|r| &r.entry)});
    let crosscheck = spec.raw.get("crosscheck").is_some();
    if crosscheck {
        hello["harness"] = json!({"name": criterion_harness::NAME, "version": crate::versions::locked("criterion")});
    }
    // criterion's files go to the spec's crosscheck.scratch (a container's one writable place).
    let scratch = spec.raw.pointer("/crosscheck/scratch").and_then(|dir| dir.as_str()).map(std::path::PathBuf::from);
    let harness = if crosscheck { Some(Harness::new(scratch)?) } else { None };
    answers.send(&hello)?;
    Worker { cells: timed, reference, harness }.serve(std::io::stdin().lock(), &mut answers)
}

struct Answers(BufWriter<File>);

impl Answers {
    /// A duplicate of standard output, which then points at stderr (criterion prints there).
    fn take_stdout() -> Result<Answers, Failure> {
        // SAFETY: dup and dup2 on the process's own standard descriptors; the duplicate is
        // a fresh descriptor that the File alone owns.
        let fd = unsafe { libc::dup(1) };
        if fd < 0 || unsafe { libc::dup2(2, 1) } < 0 {
            return Err(Failure::Error("serve: cannot set standard output aside".into()));
        }
        Ok(Answers(BufWriter::new(unsafe { File::from_raw_fd(fd) })))
    }

    fn send(&mut self, message: &Value) -> Result<(), Failure> {
        writeln!(self.0, "{message}")
            .and_then(|()| self.0.flush())
            .map_err(|e| Failure::Error(format!("serve: cannot write to the conductor: {e}")))
    }
}

/// The prepared cells (None: not timed), the drift reference, and criterion (cross-check specs).
struct Worker<'a> {
    cells: Vec<Option<Timed<'a>>>,
    reference: Option<Timed<'a>>,
    harness: Option<Harness>,
}

impl<'a> Worker<'a> {
    /// Each request in order, its answers as each batch ends; Ok at the end request.
    fn serve(&mut self, requests: impl BufRead, answers: &mut Answers) -> Result<(), Failure> {
        let mut served = 0u64;
        for line in requests.lines() {
            let line = line.map_err(|e| Failure::Input(format!("serve: cannot read a request: {e}")))?;
            let bad = |what: &str| Failure::Input(format!("serve: {what}: {line:.200}"));
            let request: Value = serde_json::from_str(&line).map_err(|_| bad("a request that is not JSON"))?;
            if request.get("end") == Some(&Value::Bool(true)) {
                let sink = black_box(
                    self.cells.iter().flatten().chain(&self.reference).fold(0u64, |s, c| s.wrapping_add(c.fold)),
                );
                answers.send(&json!({"sink": sink}))?;
                eprintln!("serve: {served} batches (sink {sink:016x})");
                return Ok(());
            }
            if let Some(Value::Array(native)) = request.get("native") {
                let (Some(key), Some(seconds)) = (native.first(), native.get(1).and_then(Value::as_f64)) else {
                    return Err(bad("not a native request [cell, seconds]"));
                };
                let answer = match (self.harness.as_mut(), cell(&mut self.cells, &mut self.reference, key)) {
                    (None, _) => Err("native requests need a cross-check spec".into()),
                    (_, None) => Err(format!("{key} is not a timed cell")),
                    (Some(harness), Some(cell)) => match cell.native.as_mut() {
                        None => Err("this cell has no native call".into()),
                        Some(call) => harness.time(seconds, call, *key == "reference"),
                    },
                };
                answers.send(&match answer {
                    Ok(figure) => json!({"ns_per_op": figure.ns_per_op, "samples": figure.samples}),
                    Err(reason) => json!({"error": failure::one_line(&reason)}),
                })?;
                continue;
            }
            let batches = request.get("batches").and_then(Value::as_array).ok_or_else(|| bad("an unknown request"))?;
            for batch in batches {
                let bad = || Failure::Input(format!("serve: {batch} is not a batch [cell, n] of a timed cell"));
                let Some([key, n]) = batch.as_array().map(Vec::as_slice) else {
                    return Err(bad());
                };
                let n = n.as_u64().filter(|&n| n >= 1).ok_or_else(bad)?;
                let cell = cell(&mut self.cells, &mut self.reference, key).ok_or_else(bad)?;
                served += 1;
                // A panic is caught outside the timed region, as an Err of the batch is.
                match failure::catch_panic(|| cell.time(n).map_err(Failure::Invalid)) {
                    Ok(answer) => answers.send(&Value::Object(answer))?,
                    Err(failed) => {
                        eprintln!("cell {key}: a batch of {n} failed: {}", failed.message());
                        answers.send(&json!({"error": failure::one_line(failed.message())}))?;
                        break; // the request's later batches are not run
                    }
                }
            }
        }
        Err(Failure::Input("serve: the conductor closed the pipe without an end request".into()))
    }
}

/// The timed cell a request names: a spec index or "reference".
fn cell<'c, 'a>(
    cells: &'c mut [Option<Timed<'a>>],
    reference: &'c mut Option<Timed<'a>>,
    key: &Value,
) -> Option<&'c mut Timed<'a>> {
    match key {
        Value::String(name) if name == "reference" => reference.as_mut(),
        key => cells.get_mut(key.as_u64()? as usize)?.as_mut(),
    }
}
