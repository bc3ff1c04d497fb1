//! Hand-rolled `--name value` argument parsing, so the programs need no argument crate.
//!
//! Shared by the echo programs and the http-order Rust client: each crate has a symlink to
//! this file (`src/options.rs`), so a suite's folder still holds all it builds from.

use std::collections::HashMap;
use std::str::FromStr;

/// Exit status for a bad command line.
pub const EXIT_USAGE: i32 = 2;

/// Options given as `--name value` or `--name=value`, each at most once.
pub struct Options {
    values: HashMap<String, String>,
}

impl Options {
    /// Parses `args` (without the program name), accepting only the names in `known`.
    pub fn parse(args: impl IntoIterator<Item = String>, known: &[&str]) -> Result<Self, String> {
        let mut values = HashMap::new();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let Some(flag) = arg.strip_prefix("--") else {
                return Err(format!("unexpected argument '{arg}'"));
            };
            let (name, value) = match flag.split_once('=') {
                Some((name, value)) => (name.to_string(), value.to_string()),
                None => {
                    let value = args
                        .next()
                        .ok_or_else(|| format!("--{flag} needs a value"))?;
                    (flag.to_string(), value)
                }
            };
            if !known.contains(&name.as_str()) {
                return Err(format!("unknown option --{name}"));
            }
            if values.insert(name.clone(), value).is_some() {
                return Err(format!("--{name} given twice"));
            }
        }
        Ok(Self { values })
    }

    /// The value of `--name`, parsed, or `None` when it was not given.
    pub fn optional<T: FromStr>(&self, name: &str) -> Result<Option<T>, String>
    where
        T::Err: std::fmt::Display,
    {
        self.values
            .get(name)
            .map(|raw| {
                raw.trim()
                    .parse()
                    .map_err(|err| format!("--{name} '{raw}': {err}"))
            })
            .transpose()
    }

    /// The value of `--name`, parsed; an error when it was not given.
    #[allow(dead_code)] // the http-order client has defaults for every option but --url
    pub fn required<T: FromStr>(&self, name: &str) -> Result<T, String>
    where
        T::Err: std::fmt::Display,
    {
        self.optional(name)?
            .ok_or_else(|| format!("--{name} is required"))
    }
}

/// True when the command line asks for help (`-h` or `--help` anywhere).
pub fn wants_help(args: &[String]) -> bool {
    args.iter().any(|arg| arg == "-h" || arg == "--help")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| arg.to_string()).collect()
    }

    #[test]
    fn reads_both_spellings() {
        let options =
            Options::parse(args(&["--count", "5", "--size=64"]), &["count", "size"]).unwrap();
        assert_eq!(options.required::<u64>("count").unwrap(), 5);
        assert_eq!(options.required::<usize>("size").unwrap(), 64);
        assert_eq!(options.optional::<u64>("missing").unwrap(), None);
    }

    #[test]
    fn refuses_unknown_repeated_and_valueless_options() {
        assert!(Options::parse(args(&["--rate", "5"]), &["count"]).is_err());
        assert!(Options::parse(args(&["--count", "1", "--count", "2"]), &["count"]).is_err());
        assert!(Options::parse(args(&["--count"]), &["count"]).is_err());
        assert!(Options::parse(args(&["count"]), &["count"]).is_err());
    }
}
