//! `crosscheck`'s CSV (workflow/scripts/README.md, "crosscheck"): one row per block, written
//! and flushed as soon as it is measured.

use crate::failure::Failure;
use crate::raw_samples::{CsvFile, RowIdentity, Status, field};

const HEADER: &str = "language,implementation,implementation_version,operation,algorithm,key_bits,\
input,input_bytes,alternation,timer,harness,harness_version,samples,ns_per_op,status";

/// Who timed a block: the driver's own loop, or the language's native harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    Driver,
    Native,
}

/// One block: its alternation (0 for a cell that was not timed), timer, harness and figure.
pub struct Block<'a> {
    pub alternation: u64,
    pub timer: Timer,
    pub harness: &'a str,
    pub harness_version: &'a str,
    pub samples: usize,
    pub ns_per_op: Option<f64>,
    pub status: Status,
}

pub struct BlockRows {
    csv: CsvFile,
}

impl BlockRows {
    pub fn create(path: &str) -> Result<BlockRows, Failure> {
        Ok(BlockRows {
            csv: CsvFile::create(path, HEADER)?,
        })
    }

    pub fn write(&mut self, who: &RowIdentity, block: &Block) -> Result<(), Failure> {
        let line = format!(
            "rust,{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            field(&who.implementation),
            field(&who.implementation_version),
            field(&who.operation),
            field(&who.algorithm),
            who.key_bits,
            field(&who.input),
            who.input_bytes,
            block.alternation,
            match block.timer {
                Timer::Driver => "driver",
                Timer::Native => "native",
            },
            field(block.harness),
            field(block.harness_version),
            block.samples,
            block.ns_per_op.map_or(String::new(), |ns| format!("{ns:.3}")),
            block.status.name()
        );
        self.csv.line(&line)
    }

    /// A cell that is not timed (unsupported, failed): one row, alternation 0, the reason on
    /// stderr.
    pub fn untimed(&mut self, who: &RowIdentity, status: Status, reason: &str) -> Result<(), Failure> {
        eprintln!(
            "{} {} {}: {:?}: {reason}",
            who.operation, who.algorithm, who.input, status
        );
        let block = Block {
            alternation: 0,
            timer: Timer::Driver,
            harness: DRIVER_HARNESS,
            harness_version: "",
            samples: 0,
            ns_per_op: None,
            status,
        };
        self.write(who, &block)
    }
}

/// The `harness` column of the driver's blocks.
pub const DRIVER_HARNESS: &str = "jwtbench";
