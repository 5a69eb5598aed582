//! The cross-check's native harness: criterion as a library, one `bench_function` per
//! `native` request, its median read back from `estimates.json`.

use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use criterion::Criterion;
use serde_json::Value;

use crate::failure::{Failure, catch_panic};
use crate::timing::{self, Call};

pub const NAME: &str = "criterion";

/// criterion's own warm-up (its sampling plan needs one), a fraction of the request's seconds.
const WARM_UP_FRACTION: f64 = 0.1;
/// Samples per block: criterion's minimum, so a block of a millisecond-long call stays short.
const SAMPLE_SIZE: usize = 10;
/// Bootstrap resamples: the median does not depend on them (above 1000, where criterion warns).
const NRESAMPLES: usize = 2000;

pub struct Figure {
    pub ns_per_op: f64,
    pub samples: usize,
}

/// criterion's fresh output directory under crosscheck.scratch (else $TMPDIR), removed on drop.
pub struct Harness {
    dir: PathBuf,
    blocks: u64,
    /// The stack shift that puts the reference's calls at their fixed offset (timing.rs).
    shift: Option<usize>,
}

impl Harness {
    pub fn new(scratch: Option<PathBuf>) -> Result<Harness, Failure> {
        let parent = scratch.unwrap_or_else(std::env::temp_dir);
        for attempt in 0..100 {
            let dir = parent.join(format!(".criterion-{}-{attempt}", std::process::id()));
            match fs::create_dir(&dir) {
                Ok(()) => {
                    return Ok(Harness { dir, blocks: 0, shift: None });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Failure::Input(format!("cannot create {}: {e}", dir.display()))),
            }
        }
        Err(Failure::Input(format!("cannot create a fresh .criterion-* directory in {}", parent.display())))
    }

    /// criterion times `call` for about `seconds`; the reference's at its batches' stack offset.
    pub fn time(&mut self, seconds: f64, call: &mut Call, reference: bool) -> Result<Figure, String> {
        if !reference {
            return self.block(seconds, call);
        }
        let shift = match self.shift {
            Some(shift) => shift,
            None => {
                let probe = |shift| alloca::with_alloca(shift, |_| self.block(1e-3, call)).map(|_| ());
                let shift =
                    timing::stack_shift(probe)?.ok_or("criterion's calls do not reach the reference's offset")?;
                *self.shift.insert(shift)
            }
        };
        alloca::with_alloca(shift, |_| self.block(seconds, call))
    }

    /// One block; an error of the call or a panic in criterion fails it.
    fn block(&mut self, seconds: f64, call: &mut Call) -> Result<Figure, String> {
        self.blocks += 1;
        let id = format!("block-{}", self.blocks);
        let mut criterion = Criterion::default()
            .without_plots()
            .output_directory(&self.dir)
            .sample_size(SAMPLE_SIZE)
            .nresamples(NRESAMPLES)
            .warm_up_time(Duration::from_secs_f64(seconds * WARM_UP_FRACTION).max(Duration::from_micros(1)))
            .measurement_time(Duration::from_secs_f64(seconds).max(Duration::from_micros(1)));
        let mut error = None;
        let mut routine = || {
            call().unwrap_or_else(|e| {
                error.get_or_insert(e);
                0
            })
        };
        catch_panic(|| {
            criterion.bench_function(&id, |bencher| bencher.iter(&mut routine));
            Ok(())
        })
        .map_err(|e| format!("criterion: {}", e.message()))?;
        match error {
            Some(reason) => Err(reason),
            None => self.figure(&id),
        }
    }

    /// The block's `median.point_estimate` (estimates.json) and sample count (sample.json).
    fn figure(&self, id: &str) -> Result<Figure, String> {
        let new = self.dir.join(id).join("new");
        let read = |name: &str| -> Result<Value, String> {
            let path = new.join(name);
            let text = fs::read(&path).map_err(|e| format!("criterion wrote no {}: {e}", path.display()))?;
            serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))
        };
        let ns_per_op = read("estimates.json")?
            .pointer("/median/point_estimate")
            .and_then(Value::as_f64)
            .filter(|ns| *ns > 0.0)
            .ok_or_else(|| format!("{id}: no positive median.point_estimate in estimates.json"))?;
        let samples = read("sample.json")?.get("iters").and_then(Value::as_array).map_or(0, Vec::len);
        Ok(Figure { ns_per_op, samples })
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}
