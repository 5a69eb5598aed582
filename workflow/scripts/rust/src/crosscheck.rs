//! `crosscheck --spec FILE --out FILE` (workflow/scripts/README.md, "crosscheck"): in one
//! process, the driver's own timing loop and criterion time the very same call in short
//! alternating blocks, cell by cell, then the drift reference as one more cell.
//!
//! - The driver: the cell `bench` would time (`suite_jwt::timed_cell`, its batch of
//!   `JwsCase::call`; `timing::reference_cell`), warmed up and calibrated by
//!   `TimedCell::prepare` (the warm-up and calibration, the steady windows too), timed in
//!   `TimedCell::block`s of the batches the interleaved rounds sample.
//! - The native harness (criterion_harness.rs): one call of the same function on the same
//!   prepared keys and inputs in the same order (`JwsCase::call`; `timing::reference_call`).

use std::hint::black_box;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::criterion_harness::{self, Harness};
use crate::crosscheck_rows::{Block, BlockRows, DRIVER_HARNESS, Timer};
use crate::failure::Failure;
use crate::raw_samples::Status;
use crate::spec::{Spec, Timing, counting_bytes};
use crate::suite_jwt::{self, Cases, JwsCase};
use crate::timing::{self, TimedCell, median};

/// A driver block has at least this many batches, however short `block_seconds` is.
const MIN_BLOCK_BATCHES: usize = 3;
/// criterion's warm-up of a cell's later native blocks, as a fraction of `block_seconds`:
/// the call is warm by then (its first block warmed it up for `warmup_seconds`), but
/// criterion needs a warm-up of its own to estimate the call's time for its sampling plan.
const LATER_WARM_UP_FRACTION: f64 = 0.1;

pub fn command(spec_path: &str, out_path: &str) -> Result<(), Failure> {
    let spec = Spec::load(spec_path)?;
    let bad = |what: String| Failure::Input(format!("{spec_path}: {what}"));
    if spec.suite != "jwt" {
        return Err(bad(format!(
            "crosscheck needs a spec of suite jwt, not {:?}",
            spec.suite
        )));
    }
    if let Some((i, cell)) = spec
        .cells
        .iter()
        .enumerate()
        .find(|(_, cell)| !matches!(cell.operation.as_str(), "sign" | "verify"))
    {
        return Err(bad(format!(
            "cell {i}: crosscheck times sign and verify cells only, not {:?}",
            cell.operation
        )));
    }
    let alternations = spec.setting("crosscheck", "alternations")?;
    let block_seconds = spec.setting("crosscheck", "block_seconds")?;
    if alternations < 1.0 || alternations.fract() != 0.0 || block_seconds <= 0.0 {
        return Err(bad(
            "crosscheck.alternations must be a whole number >= 1 and crosscheck.block_seconds > 0".into(),
        ));
    }
    let mut session = Session {
        // The warm-up and calibration as in `bench` (the steady windows too), and no cell
        // budget: the blocks bound the time.
        timing: Timing {
            max_cell_seconds: f64::INFINITY,
            ..spec.timing
        },
        alternations: alternations as u64,
        block_seconds,
        out: BlockRows::create(out_path)?,
        native: Harness::beside(out_path)?,
        native_warmed_up: false,
        align_stack: false,
    };
    let mut cases = Cases::default();
    let mut fold = 0u64;
    for (index, cell) in spec.cells.iter().enumerate() {
        match cases.get(cell)? {
            Err((status, reason)) => {
                let who = suite_jwt::identity(&spec, cell, suite_jwt::untimed_input_bytes(cell));
                session.out.untimed(&who, status, &reason)?;
            }
            Ok(case) => {
                let driver = suite_jwt::timed_cell(&spec, index, cell, case.clone());
                fold = fold.wrapping_add(session.cell(driver, jws_call(case, cell.operation.clone()))?);
            }
        }
    }
    let message = counting_bytes(timing::REFERENCE_BYTES);
    let reference = timing::reference_cell(&spec.suite);
    session.align_stack = true;
    fold = fold.wrapping_add(session.cell(reference, || Ok(timing::reference_call(&message)))?);
    timing::report_fold(fold);
    Ok(())
}

/// One call of what the cell's batch calls once per iteration (`JwsCase::call`), through
/// the pool's inputs in the batch's order.
fn jws_call(case: Rc<JwsCase>, operation: String) -> impl FnMut() -> Result<u64, String> {
    let count = case.inputs.claims.len();
    let mut position = 0usize;
    move || {
        let consumed = case.call(black_box(&operation), black_box(position));
        position = (position + 1) % count;
        consumed
    }
}

/// What every cell's blocks share.
struct Session {
    timing: Timing,
    alternations: u64,
    block_seconds: f64,
    out: BlockRows,
    native: Harness,
    /// The warm-up rule for the native harness too: its first block in the process warms up for
    /// at least `process_warmup_seconds`.
    native_warmed_up: bool,
    /// The reference's cell: the driver's blocks run at the stack offset (within a page) of
    /// criterion's calls (`stack_shift`).
    align_stack: bool,
}

impl Session {
    /// One cell: its rows, or a `failed` row when a block fails; returns the driver's fold.
    fn cell(&mut self, mut driver: TimedCell, mut call: impl FnMut() -> Result<u64, String>) -> Result<u64, Failure> {
        match self.alternate(&mut driver, &mut call)? {
            Ok((ratio, driver_ns, native_ns)) => eprintln!(
                "{}: jwtbench / criterion {ratio:.3} (median of {} alternations; medians {driver_ns:.0} and \
                 {native_ns:.0} ns per call)",
                driver.label(),
                self.alternations
            ),
            Err(reason) => self.out.untimed(driver.who(), Status::Failed, &reason)?,
        }
        Ok(driver.fold())
    }

    /// The driver's warm-up and calibration, then alternation k = 1.. : a driver block and
    /// a native block, the driver's first when k is odd. Returns the median of the
    /// per-alternation ratios (driver / native) and each timer's median figure.
    fn alternate(
        &mut self,
        driver: &mut TimedCell,
        call: &mut impl FnMut() -> Result<u64, String>,
    ) -> Result<Result<(f64, f64, f64), String>, Failure> {
        if let Err(reason) = driver.prepare(&self.timing) {
            return Ok(Err(reason));
        }
        let mut warm_up = self.timing.warmup_seconds;
        if !self.native_warmed_up {
            warm_up = warm_up.max(self.timing.process_warmup_seconds);
            self.native_warmed_up = true;
        }
        let mut shift = 0;
        if self.align_stack {
            match self.stack_shift(driver, warm_up, call) {
                Ok(bytes) => shift = bytes,
                Err(reason) => return Ok(Err(format!("failed while lining up the stack: {reason}"))),
            }
            warm_up = self.block_seconds * LATER_WARM_UP_FRACTION;
        }
        let (mut ratios, mut driver_ns, mut native_ns) = (Vec::new(), Vec::new(), Vec::new());
        for k in 1..=self.alternations {
            let order = if k % 2 == 1 {
                [Timer::Driver, Timer::Native]
            } else {
                [Timer::Native, Timer::Driver]
            };
            for timer in order {
                let measured = match timer {
                    Timer::Driver => {
                        alloca::with_alloca(shift, |_| driver.block(self.block_seconds, MIN_BLOCK_BATCHES))
                    }
                    Timer::Native => self.native_block(warm_up, call),
                };
                let (ns_per_op, samples) = match measured {
                    Ok(figure) => figure,
                    Err(reason) => return Ok(Err(format!("failed while timed ({timer:?} block {k}): {reason}"))),
                };
                let (harness, harness_version) = match timer {
                    Timer::Driver => (DRIVER_HARNESS, ""),
                    Timer::Native => (criterion_harness::NAME, criterion_harness::VERSION),
                };
                let block = Block {
                    alternation: k,
                    timer,
                    harness,
                    harness_version,
                    samples,
                    ns_per_op: Some(ns_per_op),
                    status: Status::Ok,
                };
                self.out.write(driver.who(), &block)?;
                match timer {
                    Timer::Driver => driver_ns.push(ns_per_op),
                    Timer::Native => native_ns.push(ns_per_op),
                }
            }
            warm_up = self.block_seconds * LATER_WARM_UP_FRACTION;
            let this = (k - 1) as usize;
            ratios.push(driver_ns[this] / native_ns[this]);
        }
        Ok(Ok((
            median(&mut ratios),
            median(&mut driver_ns),
            median(&mut native_ns),
        )))
    }

    /// The bytes by which the reference's driver blocks lower the stack so that its calls run
    /// at the same offset within a page as criterion's: a SHA-256 of 64 bytes is up to 12%
    /// slower at some offsets (docs/disturbances-rust.md), and the kernel places the stack at
    /// random. One native block (not recorded) tells where criterion's calls run
    /// (`timing::REFERENCE_STACK`); single driver batches, lowered until the driver's run there.
    fn stack_shift(
        &mut self,
        driver: &mut TimedCell,
        warm_up_seconds: f64,
        call: &mut impl FnMut() -> Result<u64, String>,
    ) -> Result<usize, String> {
        self.native_block(warm_up_seconds, call)?;
        let native_at = timing::REFERENCE_STACK.load(Ordering::Relaxed);
        let probe = |shift| alloca::with_alloca(shift, |_| driver.block(0.0, 1)).map(|_| ());
        timing::stack_shift_to(native_at, probe)?
            .ok_or_else(|| "the driver's calls do not reach criterion's stack offset".into())
    }

    /// A native block of `call`; an error of the call (e.g. a token that no longer
    /// verifies) fails it.
    fn native_block(
        &mut self,
        warm_up_seconds: f64,
        call: &mut impl FnMut() -> Result<u64, String>,
    ) -> Result<(f64, usize), String> {
        let mut error = None;
        let figure = self.native.block(
            Duration::from_secs_f64(warm_up_seconds),
            Duration::from_secs_f64(self.block_seconds),
            || match call() {
                Ok(consumed) => consumed,
                Err(reason) => {
                    error.get_or_insert(reason);
                    0
                }
            },
        );
        match error {
            Some(reason) => Err(reason),
            None => figure.map(|f| (f.ns_per_op, f.samples)),
        }
    }
}
