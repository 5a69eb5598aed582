//! The raw-sample CSV: one row per sample, written and flushed as soon as it is measured.

use std::fs::File;
use std::io::{BufWriter, Write};

use crate::failure::Failure;
use crate::spec::Cell;

const HEADER: &str = "language,implementation,implementation_version,suite,operation,algorithm,\
key_bits,input,input_bytes,sample,iterations,elapsed_ns,output_bytes,status";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    Ok,
    Timeout,
    Failed,
    Unsupported,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Timeout => "timeout",
            Status::Failed => "failed",
            Status::Unsupported => "unsupported",
        }
    }
}

/// Everything a cell's rows share.
#[derive(Clone)]
pub struct RowIdentity {
    pub implementation: String,
    pub implementation_version: String,
    pub suite: String,
    pub operation: String,
    pub algorithm: String,
    pub key_bits: i64,
    pub input: String,
    pub input_bytes: u64,
}

impl RowIdentity {
    pub fn new(suite: &str, cell: &Cell, implementation: &str, version: &str, input_bytes: u64) -> RowIdentity {
        RowIdentity {
            implementation: implementation.into(),
            implementation_version: version.into(),
            suite: suite.into(),
            operation: cell.operation.clone(),
            algorithm: cell.algorithm.clone(),
            key_bits: cell.key_bits,
            input: cell.input.clone(),
            input_bytes,
        }
    }

    pub fn with_operation(&self, operation: &str) -> RowIdentity {
        RowIdentity {
            operation: operation.into(),
            ..self.clone()
        }
    }
}

pub struct Sample {
    pub sample: u64,
    pub iterations: u64,
    pub elapsed_ns: u64,
    pub output_bytes: u64,
    pub status: Status,
}

impl Sample {
    /// The one row of a cell that was not timed (failed, unsupported).
    pub fn untimed(status: Status) -> Sample {
        Sample {
            sample: 0,
            iterations: 0,
            elapsed_ns: 0,
            output_bytes: 0,
            status,
        }
    }

    /// The one row of a cell that got no sample (a timeout): the time it spent.
    pub fn no_sample(status: Status, spent_ns: u64) -> Sample {
        Sample {
            elapsed_ns: spent_ns,
            ..Sample::untimed(status)
        }
    }
}

pub struct RawSamples {
    csv: CsvFile,
}

/// A CSV file written line by line, each line flushed as soon as it is written (a crash
/// loses nothing already measured): the raw samples' and `crosscheck`'s blocks'.
pub struct CsvFile {
    path: String,
    file: BufWriter<File>,
}

impl CsvFile {
    /// Creates `path` and writes its header line.
    pub fn create(path: &str, header: &str) -> Result<CsvFile, Failure> {
        let file = File::create(path).map_err(|e| Failure::Input(format!("cannot write {path}: {e}")))?;
        let mut out = CsvFile {
            path: path.to_string(),
            file: BufWriter::new(file),
        };
        out.line(header)?;
        Ok(out)
    }

    pub fn line(&mut self, line: &str) -> Result<(), Failure> {
        writeln!(self.file, "{line}")
            .and_then(|_| self.file.flush())
            .map_err(|e| Failure::Input(format!("cannot write {}: {e}", self.path)))
    }
}

/// A CSV field, quoted when it needs to be.
pub fn field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

impl RawSamples {
    pub fn create(path: &str) -> Result<RawSamples, Failure> {
        Ok(RawSamples {
            csv: CsvFile::create(path, HEADER)?,
        })
    }

    pub fn write(&mut self, who: &RowIdentity, sample: &Sample) -> Result<(), Failure> {
        let line = format!(
            "rust,{},{},{},{},{},{},{},{},{},{},{},{},{}",
            field(&who.implementation),
            field(&who.implementation_version),
            who.suite,
            field(&who.operation),
            field(&who.algorithm),
            who.key_bits,
            field(&who.input),
            who.input_bytes,
            sample.sample,
            sample.iterations,
            sample.elapsed_ns,
            sample.output_bytes,
            sample.status.name()
        );
        self.csv.line(&line)
    }

    /// A cell that is not timed: one row, the reason on stderr.
    pub fn untimed(&mut self, who: &RowIdentity, status: Status, reason: &str) -> Result<(), Failure> {
        eprintln!(
            "{} {} {}: {:?}: {reason}",
            who.operation, who.algorithm, who.input, status
        );
        self.write(who, &Sample::untimed(status))
    }
}
