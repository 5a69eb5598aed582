//! `--flag value` pairs of one subcommand; an unknown or missing flag is a usage error.

use crate::failure::Failure;

pub struct Flags {
    pairs: Vec<(String, String)>,
}

impl Flags {
    pub fn parse(args: &[String], known: &[&str]) -> Result<Flags, Failure> {
        let mut pairs = Vec::new();
        let mut rest = args.iter();
        while let Some(flag) = rest.next() {
            if !known.contains(&flag.as_str()) {
                return Err(Failure::Input(format!("unknown flag {flag:?} (expected one of {known:?})")));
            }
            let value = rest.next().ok_or_else(|| Failure::Input(format!("{flag} needs a value")))?;
            pairs.push((flag.clone(), value.clone()));
        }
        Ok(Flags { pairs })
    }

    pub fn get(&self, flag: &str) -> Result<&str, Failure> {
        self.pairs
            .iter()
            .find(|(name, _)| name == flag)
            .map(|(_, value)| value.as_str())
            .ok_or_else(|| Failure::Input(format!("missing {flag}")))
    }
}
