//! An environment snapshot. Taken once at start (or built by a test) and used for every
//! look-up and every child process, so a run never depends on the live process environment.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: BTreeMap<OsString, OsString>,
}

impl Env {
    pub fn from_process() -> Self {
        Env { vars: std::env::vars_os().collect() }
    }

    pub fn from_pairs<K: Into<OsString>, V: Into<OsString>>(pairs: impl IntoIterator<Item = (K, V)>) -> Self {
        Env { vars: pairs.into_iter().map(|(k, v)| (k.into(), v.into())).collect() }
    }

    pub fn get_os(&self, key: &str) -> Option<&OsStr> {
        self.vars.get(OsStr::new(key)).map(|v| v.as_os_str())
    }

    /// The value if it is set and valid UTF-8 (a non-UTF-8 value is reported by callers that
    /// care through [`Env::get_os`]).
    pub fn get_str(&self, key: &str) -> Option<String> {
        self.get_os(key).and_then(|v| v.to_str()).map(str::to_owned)
    }

    /// Set and non-empty (after trimming white space).
    pub fn get_nonempty(&self, key: &str) -> Option<String> {
        self.get_str(key).filter(|v| !v.trim().is_empty())
    }

    pub fn is_set(&self, key: &str) -> bool {
        self.vars.contains_key(OsStr::new(key))
    }

    pub fn set(&mut self, key: impl Into<OsString>, value: impl Into<OsString>) {
        self.vars.insert(key.into(), value.into());
    }

    pub fn remove(&mut self, key: &str) {
        self.vars.remove(OsStr::new(key));
    }

    pub fn iter(&self) -> impl Iterator<Item = (&OsString, &OsString)> {
        self.vars.iter()
    }
}
