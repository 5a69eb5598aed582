//! Suite percall, seed 001's own method: every cell prepared and checked first, then cell
//! after cell, `warmup_calls` untimed calls and `calls` calls each timed on its own.

use std::hint::black_box;
use std::time::Instant;

use crate::failure::Failure;
use crate::raw_samples::{RawSamples, Sample, Status};
use crate::spec::Spec;
use crate::suite_jwt::{self, Cases};
use crate::timing;

pub fn run(spec: &Spec, out: &mut RawSamples) -> Result<(), Failure> {
    let warmup_calls = spec.setting("percall", "warmup_calls")? as u64;
    let calls = spec.setting("percall", "calls")? as u64;
    let budget_ns = (spec.timing.max_cell_seconds * 1e9) as u128;
    let mut cases = Cases::default();
    let prepared = spec
        .cells
        .iter()
        .map(|cell| cases.get(cell))
        .collect::<Result<Vec<_>, _>>()?;
    let mut fold = 0u64;
    for (cell, case) in spec.cells.iter().zip(prepared) {
        let case = match case {
            Ok(case) => case,
            Err((status, reason)) => {
                let who = suite_jwt::identity(spec, cell, suite_jwt::untimed_input_bytes(cell));
                out.untimed(&who, status, &reason)?;
                continue;
            }
        };
        let who = suite_jwt::identity(spec, cell, case.inputs.input_bytes());
        let output_bytes = case.output_bytes();
        let started = Instant::now();
        let mut failure = None;
        for _ in 0..warmup_calls {
            match case.call(&cell.operation, 0) {
                Ok(n) => fold = fold.wrapping_add(n),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        let mut elapsed = Vec::with_capacity(calls as usize);
        let mut timed_out = false;
        while failure.is_none() && (elapsed.len() as u64) < calls {
            if started.elapsed().as_nanos() > budget_ns {
                timed_out = true;
                break;
            }
            let start = Instant::now();
            let result = case.call(&cell.operation, 0);
            let took = start.elapsed().as_nanos() as u64;
            match result {
                Ok(n) => fold = fold.wrapping_add(black_box(n)),
                Err(e) => failure = Some(e),
            }
            elapsed.push(took);
        }
        if let Some(reason) = failure {
            out.untimed(&who, Status::Failed, &reason)?;
            continue;
        }
        let status = if timed_out { Status::Timeout } else { Status::Ok };
        if elapsed.is_empty() {
            let spent = started.elapsed().as_nanos() as u64;
            out.write(&who, &Sample::no_sample(status, spent))?;
        }
        for (i, ns) in elapsed.iter().enumerate() {
            let sample = Sample {
                sample: i as u64 + 1,
                iterations: 1,
                elapsed_ns: *ns,
                output_bytes,
                status,
            };
            out.write(&who, &sample)?;
        }
        let mut per_call: Vec<f64> = elapsed.iter().map(|&ns| ns as f64).collect();
        eprintln!(
            "{}: {} calls, median {:.0} ns{}",
            cell.label(),
            per_call.len(),
            timing::median(&mut per_call),
            if timed_out { " (timeout)" } else { "" }
        );
    }
    timing::report_fold(fold);
    Ok(())
}
