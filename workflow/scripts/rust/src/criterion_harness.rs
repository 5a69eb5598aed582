//! `crosscheck`'s native harness: criterion, the benchmark harness Rust's community trusts,
//! used as a library (no `cargo bench`, no command line). Each native block is one
//! `bench_function` with criterion's own warm-up, clock (`Instant`), calibration (its
//! sampling mode picks the iterations per sample from the warm-up) and statistic; its figure
//! is criterion's median estimate, read back from the `estimates.json` criterion writes. It
//! shares no timing code with the driver (timing.rs).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::Criterion;
use serde_json::Value;

use crate::failure::{Failure, catch_panic};

pub const NAME: &str = "criterion";
/// The locked criterion version (build.rs reads it from Cargo.lock).
pub const VERSION: &str = env!("JWTBENCH_CRATE_CRITERION");

/// Samples per block: criterion's minimum, so that a block of a millisecond-long call
/// stays near `block_seconds` (criterion's linear sampling takes 1 + 2 + ... + 10 = 55
/// iterations at least).
const SAMPLE_SIZE: usize = 10;
/// Bootstrap resamples behind criterion's confidence intervals (default 100 000). The
/// median's point estimate does not depend on them; few keep criterion's analysis between
/// blocks to about a millisecond. Above 1000, where criterion warns on stderr.
const NRESAMPLES: usize = 2000;

/// A block's figure: criterion's median ns per call, over `samples` samples.
pub struct Figure {
    pub ns_per_op: f64,
    pub samples: usize,
}

/// criterion's output directory, beside `--out` (a driver writes only there; in the image
/// it is the one writable directory), removed when the harness is dropped.
pub struct Harness {
    dir: PathBuf,
    blocks: u64,
}

impl Harness {
    pub fn beside(out_path: &str) -> Result<Harness, Failure> {
        let parent = match Path::new(out_path).parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        for attempt in 0..100 {
            let dir = parent.join(format!(".criterion-{}-{attempt}", std::process::id()));
            match fs::create_dir(&dir) {
                Ok(()) => return Ok(Harness { dir, blocks: 0 }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Failure::Input(format!("cannot create {}: {e}", dir.display()))),
            }
        }
        Err(Failure::Input(format!(
            "cannot create a fresh .criterion-* directory in {}",
            parent.display()
        )))
    }

    /// One native block: criterion warms `routine` up for `warm_up`, then takes its samples
    /// for about `measurement` (each sample a loop of `routine` calls, every result through
    /// `black_box`) and analyses them. A panic in criterion fails the block.
    pub fn block(
        &mut self,
        warm_up: Duration,
        measurement: Duration,
        mut routine: impl FnMut() -> u64,
    ) -> Result<Figure, String> {
        self.blocks += 1;
        let id = format!("block-{}", self.blocks);
        let mut criterion = Criterion::default()
            .without_plots()
            .output_directory(&self.dir)
            .sample_size(SAMPLE_SIZE)
            .nresamples(NRESAMPLES)
            .warm_up_time(warm_up.max(Duration::from_micros(1)))
            .measurement_time(measurement.max(Duration::from_micros(1)));
        catch_panic(|| {
            criterion.bench_function(&id, |bencher| bencher.iter(&mut routine));
            Ok(())
        })
        .map_err(|e| format!("criterion: {}", e.message()))?;
        self.figure(&id)
    }

    /// The block's median (criterion's `median.point_estimate`, ns per call, in
    /// `<id>/new/estimates.json`) and its sample count (`iters` in `sample.json`).
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
        let samples = read("sample.json")?
            .get("iters")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        Ok(Figure { ns_per_op, samples })
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}
