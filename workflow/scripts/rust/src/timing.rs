//! A prepared cell as the worker times it (`Timed::time`), and the drift reference.

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::{Map, Value, json};

use crate::spec::counting_bytes;
use crate::{hashing, versions};

/// A cell's calls: `run` is the timed batch; `answer`, untimed, adds to its answer line.
pub trait Calls {
    fn run(&mut self, n: u64) -> Result<u64, String>;
    fn answer(&mut self, _n: u64) -> Result<Map<String, Value>, String> {
        Ok(Map::new())
    }
}

impl<F: FnMut(u64) -> Result<u64, String>> Calls for F {
    fn run(&mut self, n: u64) -> Result<u64, String> {
        self(n)
    }
}

/// One call, returning what it consumed (the native harness's routine).
pub type Call<'a> = Box<dyn FnMut() -> Result<u64, String> + 'a>;

/// The batch of `n` calls of `call`, each result folded in (`call` inlines into the loop).
pub fn repeat<'a>(mut call: impl FnMut() -> Result<u64, String> + 'a) -> Box<dyn Calls + 'a> {
    Box::new(move |n: u64| {
        let mut fold = 0u64;
        for _ in 0..n {
            fold = fold.wrapping_add(call()?);
        }
        Ok(fold)
    })
}

/// What a cell's hello entry names: implementation, implementation_version, input_bytes.
pub struct Who(pub &'static str, pub String, pub u64);

impl Who {
    pub fn rustcrypto(crate_name: &str, input_bytes: u64) -> Who {
        Who(versions::RUSTCRYPTO, versions::crate_version(crate_name), input_bytes)
    }

    fn entry(self, status: &str) -> Map<String, Value> {
        let Value::Object(entry) = json!({"status": status, "implementation": self.0,
            "implementation_version": self.1, "input_bytes": self.2})
        else {
            unreachable!()
        };
        entry
    }

    pub fn timed<'a>(self, output_bytes: u64, pass_length: u64, calls: Box<dyn Calls + 'a>) -> Prepared<'a> {
        let mut entry = self.entry("ok");
        entry.insert("output_bytes".into(), output_bytes.into());
        entry.insert("pass_length".into(), pass_length.max(1).into());
        Prepared::Timed(Timed { entry: Value::Object(entry), calls, native: None, fold: 0 })
    }

    pub fn not_timed<'a>(self, status: &str, reason: impl Into<String>) -> Prepared<'a> {
        let mut entry = self.entry(status);
        entry.insert("reason".into(), reason.into().into());
        Prepared::NotTimed(Value::Object(entry))
    }
}

/// A spec cell prepared and checked: timed, or its hello entry saying why not.
pub enum Prepared<'a> {
    Timed(Timed<'a>),
    NotTimed(Value),
}

impl<'a> Prepared<'a> {
    pub fn with_native(mut self, call: Call<'a>) -> Prepared<'a> {
        if let Prepared::Timed(timed) = &mut self {
            timed.native = Some(call);
        }
        self
    }
}

pub struct Timed<'a> {
    pub entry: Value,
    calls: Box<dyn Calls + 'a>,
    pub native: Option<Call<'a>>,
    /// Every result of the cell's batches, folded (the sink).
    pub fold: u64,
}

impl Timed<'_> {
    /// One timed batch of `n` calls: its answer line (never inlined: one copy for every cell).
    #[inline(never)]
    pub fn time(&mut self, n: u64) -> Result<Map<String, Value>, String> {
        let start = Instant::now();
        let folded = self.calls.run(black_box(n))?;
        let elapsed = start.elapsed().as_nanos() as u64;
        self.fold = self.fold.wrapping_add(black_box(folded));
        let mut answer = Map::new();
        answer.insert("elapsed_ns".into(), elapsed.max(1).into());
        answer.extend(self.calls.answer(n)?);
        Ok(answer)
    }
}

/// The drift reference's message: the 64 bytes 00..3f.
const REFERENCE_BYTES: usize = 64;
/// The page size whose offsets matter (x86-64's and aarch64 Linux's usual 4 KiB).
const PAGE_BYTES: usize = 4096;
/// Where the reference's frames sit in their page (ASLR: docs/disturbances-rust.md).
const REFERENCE_FRAME_OFFSET: usize = 2048;
/// The stack moves in steps of its alignment (x86-64's and aarch64's 16 bytes).
const STACK_ALIGN: usize = 16;

static REFERENCE_STACK: AtomicUsize = AtomicUsize::new(0);

/// One call of the reference, noting where on the stack it ran (never inlined).
#[inline(never)]
pub fn reference_call(message: &[u8]) -> u64 {
    let here = 0u8;
    REFERENCE_STACK.store(black_box(&here) as *const u8 as usize, Ordering::Relaxed);
    hashing::digest_call::<sha2::Sha256>(message)
}

/// The alloca shift that puts `reference_call`'s frame at REFERENCE_FRAME_OFFSET: `probe(shift)`
/// makes reference calls at that shift, corrected from where they ran, at most four times.
pub fn stack_shift(mut probe: impl FnMut(usize) -> Result<(), String>) -> Result<Option<usize>, String> {
    let mut shift = 0;
    for _ in 0..4 {
        probe(shift)?;
        let at = REFERENCE_STACK.load(Ordering::Relaxed);
        let off = (at.wrapping_sub(REFERENCE_FRAME_OFFSET) % PAGE_BYTES) & !(STACK_ALIGN - 1);
        if off == 0 {
            return Ok(Some(shift));
        }
        shift = (shift + off) % PAGE_BYTES;
    }
    Ok(None)
}

#[repr(C, align(4096))]
struct ReferencePage([u8; PAGE_BYTES]);

/// The drift reference: its message at the start of a page, its frames at their fixed offset.
pub fn reference_cell<'a>() -> Timed<'a> {
    let mut page = Box::new(ReferencePage([0; PAGE_BYTES]));
    page.0[..REFERENCE_BYTES].copy_from_slice(&counting_bytes(REFERENCE_BYTES));
    let page: &'static ReferencePage = Box::leak(page);
    let message = &page.0[..REFERENCE_BYTES];
    let mut shifts: Vec<(usize, usize)> = Vec::new();
    let batch = move |n: u64| {
        let here = 0u8;
        let depth = black_box(&here) as *const u8 as usize;
        let shift = match shifts.iter().find(|(at, _)| *at == depth) {
            Some(&(_, shift)) => shift,
            None => {
                let probe = |shift| {
                    alloca::with_alloca(shift, |_| black_box(reference_call(message)));
                    Ok(())
                };
                let shift =
                    stack_shift(probe)?.ok_or("the drift reference's calls do not reach their fixed stack offset")?;
                shifts.push((depth, shift));
                shift
            }
        };
        Ok(alloca::with_alloca(shift, |_| {
            let mut fold = 0u64;
            for _ in 0..n {
                fold = fold.wrapping_add(reference_call(message));
            }
            fold
        }))
    };
    let who = Who::rustcrypto("sha2", REFERENCE_BYTES as u64);
    match who.timed(32, 1, Box::new(batch)).with_native(Box::new(move || Ok(reference_call(message)))) {
        Prepared::Timed(timed) => timed,
        Prepared::NotTimed(_) => unreachable!(),
    }
}
