//! Why a command or a cell did not succeed, and the exit status each reason maps to.

#[derive(Debug)]
pub enum Failure {
    /// Bad usage or unreadable input (exit 2): the message names the flag or file.
    Input(String),
    /// The library lacks the algorithm (exit 3, status `unsupported`).
    Unsupported(String),
    /// The token or the check did not hold (exit 1, status `failed`).
    Invalid(String),
}

impl Failure {
    pub fn message(&self) -> &str {
        match self {
            Failure::Input(m) | Failure::Unsupported(m) | Failure::Invalid(m) => m,
        }
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Input(_) => 2,
            Failure::Unsupported(_) => 3,
            Failure::Invalid(_) => 1,
        }
    }
}

/// Reads a file, naming it when it cannot be read.
pub fn read_file(path: &str) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::Input(format!("cannot read {path}: {e}")))
}
