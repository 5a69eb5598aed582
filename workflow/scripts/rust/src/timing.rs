//! The contract's timing rules from the warm-up on: warm up each cell, calibrate its batch,
//! wait until it is steady, then sample every cell in interleaved rounds with
//! std::time::Instant (the monotonic clock) until the stopping rule (stopping.rs's `Rounds`)
//! or its time cap stops it; each round opens with a sample of the drift reference. A batch
//! folds every result into a value, and the driver prints the fold at the end (through
//! std::hint::black_box), so the optimiser cannot drop the work. `crosscheck` (crosscheck.rs)
//! times its driver blocks with the same cell: `prepare`, then `block`; `serve` (serve.rs)
//! times the batches the conductor asks for with it: `time`.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use sha2::{Digest, Sha256};

use crate::failure::Failure;
use crate::hashing;
use crate::raw_samples::{RawSamples, RowIdentity, Sample, Status};
use crate::spec::{Spec, Timing, counting_bytes};
use crate::stopping::{Rounds, Stop, halfwidth_pct};
use crate::versions;

/// The warm-up: whether a cell of this process has warmed up yet (the first one takes the
/// process's warm-up, `process_warmup_seconds`, as well as its own).
static PROCESS_WARMED_UP: AtomicBool = AtomicBool::new(false);

/// Runs `n` calls of a cell's operation and returns the fold of their results; an error
/// (e.g. a signature that no longer verifies) fails the cell.
pub type Batch<'a> = Box<dyn FnMut(u64) -> Result<u64, String> + 'a>;

pub struct TimedCell<'a> {
    /// The cell's position in the spec's `cells` (what the spec's `pairs` name).
    spec_index: usize,
    who: RowIdentity,
    output_bytes: u64,
    batch: Batch<'a>,
    /// Calls per pass through a cell's records: batches of at least one pass are whole passes.
    pass_length: u64,
    n: u64,
    spent_ns: u64,
    timeout: bool,
    /// ns per call of each calibration.
    per_call_ns: Vec<f64>,
    fold: u64,
}

impl<'a> TimedCell<'a> {
    pub fn new(
        spec_index: usize,
        who: RowIdentity,
        output_bytes: u64,
        pass_length: u64,
        batch: Batch<'a>,
    ) -> TimedCell<'a> {
        TimedCell {
            spec_index,
            who,
            output_bytes,
            batch,
            pass_length: pass_length.max(1),
            n: 1,
            spent_ns: 0,
            timeout: false,
            per_call_ns: Vec::new(),
            fold: 0,
        }
    }

    pub fn who(&self) -> &RowIdentity {
        &self.who
    }

    /// The rows' `output_bytes`.
    pub fn output_bytes(&self) -> u64 {
        self.output_bytes
    }

    /// Calls per pass through the cell's inputs (its records; else 1).
    pub fn pass_length(&self) -> u64 {
        self.pass_length
    }

    /// Every result of the cell's batches, folded (the sink).
    pub fn fold(&self) -> u64 {
        self.fold
    }

    pub fn label(&self) -> String {
        format!(
            "{} {}/{} {}",
            self.who.operation, self.who.algorithm, self.who.key_bits, self.who.input
        )
    }

    /// One sample of the rounds: a timed batch of the calibrated `n` calls, as its row.
    fn sample(&mut self, round: u64) -> Result<Sample, String> {
        let n = self.n;
        let elapsed = self.time(n)?;
        Ok(Sample {
            sample: round,
            iterations: n,
            elapsed_ns: elapsed,
            output_bytes: self.output_bytes,
            status: if self.timeout { Status::Timeout } else { Status::Ok },
        })
    }

    /// `crosscheck`'s driver block: batches of the calibrated `n` calls, each one a sample as
    /// the interleaved rounds take it (the same batch, clock and sink), until the block has
    /// lasted `seconds` and has at least `min_batches`; returns the median ns per call of its
    /// batches and how many there were.
    pub fn block(&mut self, seconds: f64, min_batches: usize) -> Result<(f64, usize), String> {
        let start = Instant::now();
        let mut per_call = Vec::new();
        while per_call.len() < min_batches || start.elapsed().as_secs_f64() < seconds {
            let n = self.n;
            per_call.push(self.time(n)? as f64 / n as f64);
        }
        Ok((median(&mut per_call), per_call.len()))
    }

    /// One timed batch of `n` calls: its duration, counted against the cell's budget. Never
    /// inlined: `bench`'s warm-up, calibration and samples, `crosscheck`'s blocks and the
    /// batches `serve` runs for the conductor are this one copy of the timed code.
    #[inline(never)]
    pub fn time(&mut self, n: u64) -> Result<u64, String> {
        let start = Instant::now();
        let folded = (self.batch)(black_box(n))?;
        let elapsed = start.elapsed().as_nanos() as u64;
        self.fold = self.fold.wrapping_add(black_box(folded));
        self.spent_ns += elapsed;
        Ok(elapsed)
    }

    fn over_budget(&self, timing: &Timing) -> bool {
        self.spent_ns as f64 > timing.max_cell_seconds * 1e9
    }

    /// The warm-up and calibration: warm-up, calibration, the steady windows (when the spec
    /// sets `warmup_max_seconds`), calibration again. The process's first warm-up lasts at
    /// least `process_warmup_seconds`.
    pub fn prepare(&mut self, timing: &Timing) -> Result<(), String> {
        let mut warmup_seconds = timing.warmup_seconds;
        if !PROCESS_WARMED_UP.swap(true, Ordering::Relaxed) {
            warmup_seconds = warmup_seconds.max(timing.process_warmup_seconds);
        }
        let mut n = 1;
        while (self.spent_ns as f64) < warmup_seconds * 1e9 || self.spent_ns == 0 {
            self.time(n)?;
            n = (n * 2).min(1 << 20);
            if self.over_budget(timing) {
                break;
            }
        }
        self.calibrate(timing)?;
        if timing.warmup_max_seconds > 0.0 && !self.over_budget(timing) {
            self.settle(timing)?;
            self.calibrate(timing)?;
        }
        eprintln!(
            "{}: batch of {} calls, ~{:.0} ns per call{}",
            self.label(),
            self.n,
            self.per_call_ns.last().copied().unwrap_or(0.0),
            if self.timeout {
                " (cannot fit the samples it needs: timeout cell)"
            } else {
                ""
            }
        );
        Ok(())
    }

    fn calibrate(&mut self, timing: &Timing) -> Result<(), String> {
        let target = (timing.target_sample_seconds * 1e9).max(1.0);
        let mut n: u64 = 1;
        loop {
            let elapsed = self.time(n)?.max(1) as f64;
            if elapsed >= target / 2.0 || self.over_budget(timing) || n >= 1 << 40 {
                let per_call = elapsed / n as f64;
                self.per_call_ns.push(per_call);
                n = ((target / per_call).round() as u64).max(1);
                break;
            }
            n = ((n as f64 * target / elapsed).ceil() as u64).clamp(n + 1, n.saturating_mul(10));
        }
        if n >= self.pass_length {
            n = ((n as f64 / self.pass_length as f64).round() as u64).max(1) * self.pass_length;
        }
        self.n = n;
        // A cell that stops at precision needs min_samples samples; with the rule off, samples.
        let rule = &timing.stopping;
        let batches = if rule.targets_precision() {
            rule.min_samples
        } else {
            rule.samples
        };
        let needed = batches as f64 * n as f64 * self.per_call_ns.last().copied().unwrap_or(0.0);
        let left = timing.max_cell_seconds * 1e9 - self.spent_ns as f64;
        self.timeout = needed > left;
        Ok(())
    }

    /// Untimed windows of batches until a window's median ns/call is within the tolerance
    /// of the previous window's, or the warm-up has lasted warmup_max_seconds.
    fn settle(&mut self, timing: &Timing) -> Result<(), String> {
        let limit = timing.warmup_max_seconds * 1e9;
        let mut previous: Option<f64> = None;
        loop {
            let mut window = Vec::new();
            for _ in 0..timing.steady_window {
                window.push(self.time(self.n)? as f64 / self.n as f64);
            }
            let current = median(&mut window);
            let seconds = self.spent_ns as f64 / 1e9;
            if let Some(before) = previous {
                let change = (current - before).abs() / before.max(1e-9);
                if change <= timing.steady_tolerance {
                    eprintln!("{}: steady after {seconds:.3} s", self.label());
                    return Ok(());
                }
                if self.spent_ns as f64 >= limit || self.over_budget(timing) {
                    eprintln!(
                        "{}: not steady after {seconds:.3} s (last change {:.1}%)",
                        self.label(),
                        change * 100.0
                    );
                    return Ok(());
                }
            } else if self.spent_ns as f64 >= limit || self.over_budget(timing) {
                eprintln!("{}: not steady after {seconds:.3} s (one window only)", self.label());
                return Ok(());
            }
            previous = Some(current);
        }
    }
}

/// A spec cell of a suite timed in rounds (jwt, hash, primitive, harness), prepared and
/// checked: `bench` times it in its rounds, `serve` in the batches the conductor asks for.
pub enum PreparedCell<'a> {
    Timed(TimedCell<'a>),
    /// Not timed (failed or unsupported): its one row, and why.
    NotTimed(RowIdentity, Status, String),
}

/// `bench` on a suite's prepared cells: the untimed cells' rows, then the timing rules from
/// the warm-up on for the others (`run_interleaved`), then the fold.
pub fn bench(cells: Vec<PreparedCell>, spec: &Spec, out: &mut RawSamples) -> Result<(), Failure> {
    let mut timed = Vec::new();
    for cell in cells {
        match cell {
            PreparedCell::Timed(cell) => timed.push(cell),
            PreparedCell::NotTimed(who, status, reason) => out.untimed(&who, status, &reason)?,
        }
    }
    let fold = run_interleaved(timed, spec, out)?;
    report_fold(fold);
    Ok(())
}

pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(|a, b| a.total_cmp(b));
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// The length of the drift reference's message, the bytes 00..3f.
pub const REFERENCE_BYTES: usize = 64;

/// The drift reference's operation as a timed cell: SHA-256 of the 64 bytes with sha2, a batch of
/// `reference_call` (suite hash's own `digest` call, as a hash cell naming `RustCrypto` makes it).
/// The rounds sample it as the drift reference; `crosscheck` times it as one more cell.
pub fn reference_cell<'a>(suite: &str) -> TimedCell<'a> {
    let message = counting_bytes(REFERENCE_BYTES);
    reference_timed_cell(suite, move |n| Ok(reference_batch(&message, n)))
}

/// `n` calls of `reference_call`, folded.
fn reference_batch(message: &[u8], n: u64) -> u64 {
    let mut fold = 0u64;
    for _ in 0..n {
        fold = fold.wrapping_add(reference_call(message));
    }
    fold
}

/// The page whose offsets the reference's data and frames are placed at (x86-64's and
/// aarch64 Linux's usual 4 KiB; what matters is the address bits below it).
pub const PAGE_BYTES: usize = 4096;
/// Where in its page the drift reference of `bench` keeps its message and makes its calls'
/// frames. A 64-byte SHA-256 here takes 75 ns or, at a few offsets of the message or of the
/// frame within their pages, 80-85 ns (docs/disturbances-rust.md); ASLR and each job's
/// allocations pick those offsets anew in every process, so one process in ten read its
/// reference 11% slower than the others for its whole life (quiet runs of 2026-11-28). At
/// fixed offsets every process reads the same level, and the reference measures the
/// machine again, not its layout.
const REFERENCE_FRAME_OFFSET: usize = 2048;

/// The stack moves in steps of its alignment (x86-64's and aarch64's 16 bytes), so a frame's
/// place in its page is matched to that step.
const STACK_ALIGN: usize = 16;

/// The bytes to lower the stack by (alloca) so that `reference_call`'s frame lands at the
/// offset of the address `target` within its page (to the stack's alignment): `probe(shift)`
/// makes reference calls with the stack lowered by `shift`, and the shift is corrected from
/// where they ran (`REFERENCE_STACK`), at most four times. None when they never land there.
pub fn stack_shift_to(
    target: usize,
    mut probe: impl FnMut(usize) -> Result<(), String>,
) -> Result<Option<usize>, String> {
    let mut shift = 0;
    for _ in 0..4 {
        probe(shift)?;
        let off = (REFERENCE_STACK.load(Ordering::Relaxed).wrapping_sub(target) % PAGE_BYTES) & !(STACK_ALIGN - 1);
        if off == 0 {
            return Ok(Some(shift));
        }
        shift = (shift + off) % PAGE_BYTES;
    }
    Ok(None)
}

/// A page holding the drift reference's message at its start.
#[repr(C, align(4096))]
struct ReferencePage([u8; PAGE_BYTES]);

/// The drift reference of `bench`: `reference_cell`'s calls with the message at the start of
/// a page of its own, and every batch run at a stack depth that puts `reference_call`'s frame
/// at REFERENCE_FRAME_OFFSET within its page (the shift for the batch's depth is found once by
/// single calls, `stack_shift_to`, as `crosscheck` lines its loops up).
pub fn fixed_layout_reference_cell<'a>(suite: &str) -> TimedCell<'a> {
    let mut page = Box::new(ReferencePage([0; PAGE_BYTES]));
    page.0[..REFERENCE_BYTES].copy_from_slice(&counting_bytes(REFERENCE_BYTES));
    let mut shifts: Vec<(usize, usize)> = Vec::new();
    reference_timed_cell(suite, move |n| {
        let message = &page.0[..REFERENCE_BYTES];
        let here = 0u8;
        let depth = black_box(&here) as *const u8 as usize;
        let shift = match shifts.iter().find(|(at, _)| *at == depth) {
            Some(&(_, shift)) => shift,
            None => {
                let probe = |shift| {
                    alloca::with_alloca(shift, |_| black_box(reference_call(message)));
                    Ok(())
                };
                let shift = stack_shift_to(REFERENCE_FRAME_OFFSET, probe)?
                    .ok_or("the drift reference's calls do not reach their fixed stack offset")?;
                shifts.push((depth, shift));
                shift
            }
        };
        Ok(alloca::with_alloca(shift, |_| reference_batch(message, n)))
    })
}

fn reference_timed_cell<'a>(suite: &str, mut batch: impl FnMut(u64) -> Result<u64, String> + 'a) -> TimedCell<'a> {
    let who = RowIdentity {
        implementation: versions::RUSTCRYPTO.into(),
        implementation_version: versions::SHA2.into(),
        suite: suite.into(),
        operation: "reference".into(),
        algorithm: "SHA-256".into(),
        key_bits: 0,
        input: "reference".into(),
        input_bytes: REFERENCE_BYTES as u64,
    };
    let batch: Batch<'a> = Box::new(move |n| batch(n));
    // Not in the spec's cells: its position is never looked up.
    TimedCell::new(usize::MAX, who, Sha256::output_size() as u64, 1, batch)
}

/// The stack address of the latest `reference_call`: `crosscheck` lines its two loops up by
/// it (a 64-byte SHA-256's time depends on its frame's offset within a page).
pub static REFERENCE_STACK: AtomicUsize = AtomicUsize::new(0);

/// One call of the reference: suite hash's SHA-256 `digest` call on the message
/// `counting_bytes(REFERENCE_BYTES)`, noting where on the stack it ran. Never inlined, so the
/// reference's batch and criterion's routine run the same code.
#[inline(never)]
pub fn reference_call(message: &[u8]) -> u64 {
    let here = 0u8;
    REFERENCE_STACK.store(black_box(&here) as *const u8 as usize, Ordering::Relaxed);
    hashing::digest_call::<Sha256>(message)
}

/// The drift reference, `reference_cell` sampled once per round. It is not a spec
/// cell: it has no budget and no steady windows, and never enters `Rounds`.
struct Reference<'a> {
    cell: TimedCell<'a>,
    /// The spec's timing without a cell's budget, the steady windows or the process's
    /// warm-up, as the contract's drift reference has it.
    timing: Timing,
    prepared: bool,
    /// ns per call of each round's sample, for the closing progress line.
    ns_per_call: Vec<f64>,
}

impl<'a> Reference<'a> {
    fn new(suite: &str, timing: &Timing) -> Reference<'a> {
        Reference {
            cell: fixed_layout_reference_cell(suite),
            timing: Timing {
                max_cell_seconds: f64::INFINITY,
                warmup_max_seconds: 0.0,
                // Not a cell: it warms up for warmup_seconds alone, after the cells (the warm-up rule).
                process_warmup_seconds: 0.0,
                ..*timing
            },
            prepared: false,
            ns_per_call: Vec::new(),
        }
    }

    /// The round's reference row, taken before the round's first cell sample. The first
    /// call warms the reference up and calibrates it: the rounds loop makes it in round 1,
    /// after every cell is calibrated, and only when a cell is timed in rounds.
    fn sample(&mut self, round: u64, out: &mut RawSamples) -> Result<(), Failure> {
        let failed = |reason: String| Failure::Invalid(format!("the drift reference failed: {reason}"));
        if !self.prepared {
            self.cell.prepare(&self.timing).map_err(failed)?;
            self.prepared = true;
        }
        let sample = self.cell.sample(round).map_err(failed)?;
        self.ns_per_call
            .push(sample.elapsed_ns as f64 / sample.iterations as f64);
        out.write(&self.cell.who, &sample)
    }
}

/// Takes a cell out of the rounds when its operation fails; a cell with no sample yet gets
/// its one `failed` row.
fn fail_cell(
    rounds: &mut Rounds,
    index: usize,
    cell: &TimedCell,
    out: &mut RawSamples,
    reason: &str,
) -> Result<(), Failure> {
    eprintln!("{}: failed while timed: {reason}", cell.label());
    if rounds.taken(index) == 0 {
        out.untimed(&cell.who, Status::Failed, reason)?;
    }
    rounds.stop(index, Stop::Failed);
    Ok(())
}

/// The timing rules from the warm-up on for `cells`, which have passed their checks, with the
/// stopping rule over the spec's pairs between them; returns the fold of every result.
pub fn run_interleaved(mut cells: Vec<TimedCell>, spec: &Spec, out: &mut RawSamples) -> Result<u64, Failure> {
    let timing = &spec.timing;
    // The spec's pairs name spec positions; the rule counts the timed cells. A pair with a
    // cell that is not timed here (failed, unsupported, per-iteration) never holds its
    // partner back, as for a partner that no longer samples.
    let mut position = vec![None; spec.cells.len()];
    for (index, cell) in cells.iter().enumerate() {
        position[cell.spec_index] = Some(index);
    }
    let pairs = spec
        .pairs
        .iter()
        .filter_map(|&(i, j)| Some((position[i]?, position[j]?)))
        .collect();
    let mut rounds = Rounds::new(cells.len(), pairs, timing.stopping);
    for (index, cell) in cells.iter_mut().enumerate() {
        if let Err(reason) = cell.prepare(timing) {
            fail_cell(&mut rounds, index, cell, out, &reason)?;
        }
    }
    let mut reference = Reference::new(&spec.suite, timing);
    let samples = timing.stopping.samples;
    for round in 1..=samples {
        let active = rounds.active();
        if active.is_empty() {
            break;
        }
        // The time cap first, so the reference samples only in rounds where a cell does.
        let (capped, sampling): (Vec<usize>, Vec<usize>) =
            active.into_iter().partition(|&index| cells[index].over_budget(timing));
        for index in capped {
            rounds.stop(index, Stop::TimeCap);
        }
        if !sampling.is_empty() {
            reference.sample(round, out)?;
        }
        for index in sampling {
            let cell = &mut cells[index];
            match cell.sample(round) {
                Ok(sample) => {
                    rounds.add(index, round, sample.elapsed_ns as f64 / sample.iterations as f64);
                    out.write(&cell.who, &sample)?;
                }
                Err(reason) => fail_cell(&mut rounds, index, cell, out, &reason)?,
            }
        }
        rounds.end_round();
        if round % 10 == 0 || round == samples {
            eprintln!("round {round}/{samples}: {} cells sampling", rounds.active().len());
        }
    }
    let mut fold = reference.cell.fold;
    if !reference.ns_per_call.is_empty() {
        eprintln!(
            "{}: median {:.0} ns per call over {} rounds (the drift reference)",
            reference.cell.label(),
            median(&mut reference.ns_per_call),
            reference.ns_per_call.len()
        );
    }
    for (index, cell) in cells.iter().enumerate() {
        fold = fold.wrapping_add(cell.fold);
        let taken = rounds.taken(index);
        match rounds.reason(index) {
            Some(Stop::Failed) if taken == 0 => {} // its `failed` row is written
            _ if taken == 0 => {
                // A timeout cell that got no sample: one row with the time it spent.
                out.write(&cell.who, &Sample::no_sample(Status::Timeout, cell.spent_ns))?;
                eprintln!(
                    "{}: timeout before its first sample ({:.3} s)",
                    cell.label(),
                    cell.spent_ns as f64 / 1e9
                );
            }
            reason => {
                let mut values = rounds.values(index);
                let halfwidth = halfwidth_pct(&values, timing.stopping.confidence);
                eprintln!(
                    "{}: median {:.0} ns per call (CI half-width {halfwidth:.2}%) over {taken} samples, stopped: {}",
                    cell.label(),
                    median(&mut values),
                    reason.map_or("-", Stop::describe)
                );
            }
        }
    }
    Ok(black_box(fold))
}

/// The fold printed at the end of a bench, so every result is consumed.
pub fn report_fold(fold: u64) {
    eprintln!("results fold: {:016x}", black_box(fold));
}
