//! Why a command or a cell did not succeed, and its exit status.

#[derive(Debug)]
pub enum Failure {
    /// Bad usage or unreadable input (exit 2): the message names the flag or file.
    Input(String),
    /// The library lacks the algorithm (exit 3, status `unsupported`).
    Unsupported(String),
    /// The token or the check did not hold (exit 1, status `failed`).
    Invalid(String),
    /// A failure that is not the library's verdict on a token, or a caught panic (exit 4).
    Error(String),
}

impl Failure {
    pub fn message(&self) -> &str {
        match self {
            Failure::Input(m) | Failure::Unsupported(m) | Failure::Invalid(m) | Failure::Error(m) => m,
        }
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Input(_) => 2,
            Failure::Unsupported(_) => 3,
            Failure::Invalid(_) => 1,
            Failure::Error(_) => 4,
        }
    }
}

pub fn read_file(path: &str) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::Input(format!("cannot read {path}: {e}")))
}

/// A reason as one line of at most 300 characters (newlines become spaces).
pub fn one_line(text: &str) -> String {
    text.chars().take(300).map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).collect()
}

/// Runs `f`; a panic inside it becomes `Failure::Error` ("panic: <its message>", exit 4).
pub fn catch_panic<T>(f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".into());
        Err(Failure::Error(one_line(&format!("panic: {message}"))))
    })
}

/// A panic hook that prints nothing: `catch_panic` reports the panic instead.
pub fn silence_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}
