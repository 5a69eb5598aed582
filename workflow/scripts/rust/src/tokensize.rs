//! Suite tokensize: after the checks on the first record, every record signed once in file
//! order, each call timed alone; the sizes are the result.

use std::time::Instant;

use crate::failure::Failure;
use crate::raw_samples::{RawSamples, Sample, Status};
use crate::spec::Spec;
use crate::suite_jwt;
use crate::timing;

pub fn run(spec: &Spec, out: &mut RawSamples) -> Result<(), Failure> {
    let budget_ns = (spec.timing.max_cell_seconds * 1e9) as u128;
    let mut fold = 0u64;
    for cell in &spec.cells {
        let case = match suite_jwt::prepare(cell, false)? {
            Ok(case) => case,
            Err((status, reason)) => {
                let who = suite_jwt::identity(spec, cell, suite_jwt::untimed_input_bytes(cell));
                out.untimed(&who, status, &reason)?;
                continue;
            }
        };
        let total = case.inputs.claims.len();
        let started = Instant::now();
        let mut rows = Vec::with_capacity(total);
        let mut failure = None;
        let mut timed_out = false;
        let mut next_progress = 0.0;
        for (i, claims) in case.inputs.claims.iter().enumerate() {
            if started.elapsed().as_nanos() > budget_ns {
                timed_out = true;
                break;
            }
            let start = Instant::now();
            let token = case.signer.sign(claims);
            let took = start.elapsed().as_nanos() as u64;
            match token {
                Ok(token) => {
                    fold = fold.wrapping_add(token.len() as u64);
                    rows.push((i as u64 + 1, case.inputs.sizes[i], took, token.len() as u64));
                }
                Err(e) => {
                    failure = Some(e.message().to_string());
                    break;
                }
            }
            if (i + 1) as f64 >= next_progress {
                eprintln!("{}: {}/{total} records", cell.label(), i + 1);
                next_progress += (total as f64 / 10.0).max(1.0);
            }
        }
        let who = suite_jwt::identity(spec, cell, case.inputs.input_bytes());
        if let Some(reason) = failure {
            out.untimed(&who, Status::Failed, &reason)?;
            continue;
        }
        let status = if timed_out { Status::Timeout } else { Status::Ok };
        if rows.is_empty() {
            let spent = started.elapsed().as_nanos() as u64;
            out.write(&who, &Sample::no_sample(status, spent))?;
        }
        for (line, record_bytes, ns, token_bytes) in rows {
            let mut row = who.clone();
            row.input_bytes = record_bytes;
            out.write(
                &row,
                &Sample {
                    sample: line,
                    iterations: 1,
                    elapsed_ns: ns,
                    output_bytes: token_bytes,
                    status,
                },
            )?;
        }
    }
    timing::report_fold(fold);
    Ok(())
}
