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
        Env {
            vars: std::env::vars_os().collect(),
        }
    }

    #[cfg(test)]
    pub(crate) fn from_pairs<K: Into<OsString>, V: Into<OsString>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Env {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }

    pub(crate) fn get_os(&self, key: &str) -> Option<&OsStr> {
        self.vars.get(OsStr::new(key)).map(|v| v.as_os_str())
    }

    /// The value if it is set and valid UTF-8 (a non-UTF-8 value is reported by callers that
    /// care through [`Env::get_os`]).
    pub(crate) fn get_str(&self, key: &str) -> Option<String> {
        self.get_os(key).and_then(|v| v.to_str()).map(str::to_owned)
    }

    /// Set and non-empty (after trimming white space).
    pub(crate) fn get_nonempty(&self, key: &str) -> Option<String> {
        self.get_str(key).filter(|v| !v.trim().is_empty())
    }

    pub(crate) fn is_set(&self, key: &str) -> bool {
        self.vars.contains_key(OsStr::new(key))
    }

    /// The environment a child gets on another root (`--sysroot`, `--host-root`; issue 25,
    /// item 3, docs/security.md): only [`FOREIGN_CHILD_VARS`] and the variables that begin with
    /// [`FOREIGN_CHILD_PREFIXES`], and of those none whose name says it holds a secret
    /// ([`names_a_secret`]). Tokens, keys and passwords in the caller's environment
    /// (`HF_TOKEN`, `AWS_SECRET_ACCESS_KEY`) never reach another root's programs; on this
    /// machine a child keeps the snapshot (the user's own programs, the user's own variables).
    pub(crate) fn for_foreign_child(&self) -> Env {
        Env {
            vars: self
                .vars
                .iter()
                .filter(|(k, _)| {
                    k.to_str().is_some_and(|k| {
                        (FOREIGN_CHILD_VARS.contains(&k)
                            || FOREIGN_CHILD_PREFIXES.iter().any(|p| k.starts_with(p)))
                            && !names_a_secret(k)
                    })
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&OsString, &OsString)> {
        self.vars.iter()
    }
}

/// Variables a child on another root keeps: the search path and locale, and what the ROCm
/// tools read and the checks judge (hipcc's and clang's roots and flags, the target lists,
/// device visibility, the loader's path).
pub(crate) const FOREIGN_CHILD_VARS: &[&str] = &[
    "PATH",
    "LANG",
    "LANGUAGE",
    "TZ",
    "LD_LIBRARY_PATH",
    "DEVICE_LIB_PATH",
    "LLVM_PATH",
    "AMDGPU_TARGETS",
    "GPU_TARGETS",
    "PYTORCH_ROCM_ARCH",
    "GPU_DEVICE_ORDINAL",
    "CUDA_VISIBLE_DEVICES",
];

/// Prefixes of the variables a child on another root keeps: locale, ROCm, HIP, HSA, ROCr.
pub(crate) const FOREIGN_CHILD_PREFIXES: &[&str] = &[
    "LC_", "ROCM_", "HIP_", "HIPCC_", "HSA_", "ROCR_", "AMD_", "HCC_",
];

/// Whether a variable, option or key name names a secret: it contains `PASSWORD`, `PASSWD`,
/// `PASSPHRASE`, `SECRET`, `TOKEN`, `CREDENTIAL`, `AUTH`, `KEY`, `COOKIE` or `SESSION`, or one
/// of its parts (split at `_`, `-`, `.`) is `PASS` or `PW` (ASCII case ignored: `db_pass`,
/// `DB_PASS`); but not when its last part is `FILE`, `PATH` or `DIR` (`--token-file`,
/// `SSL_KEY_PATH`: where a secret is kept, not the secret). The one rule for both uses: such a
/// variable never reaches another root's programs even when its prefix is allowed
/// (`HIP_API_TOKEN`), and `report` writes its value as `<redacted>` (bugreport::redact).
pub fn names_a_secret(name: &str) -> bool {
    const PARTS: &[&str] = &[
        "PASSWORD",
        "PASSWD",
        "PASSPHRASE",
        "SECRET",
        "TOKEN",
        "CREDENTIAL",
        "AUTH",
        "KEY",
        "COOKIE",
        "SESSION",
    ];
    let upper = name.to_ascii_uppercase();
    let last = upper.rsplit(['_', '-', '.']).next().unwrap_or("");
    if matches!(last, "FILE" | "PATH" | "DIR") {
        return false;
    }
    PARTS.iter().any(|p| upper.contains(p))
        || upper
            .split(['_', '-', '.'])
            .any(|w| w == "PASS" || w == "PW")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_foreign_child_gets_the_allow_list_only() {
        let e = Env::from_pairs([
            ("PATH", "/usr/bin"),
            ("HF_TOKEN", "secret"),
            ("AWS_SECRET_ACCESS_KEY", "secret"),
            ("HIP_PATH", "/opt/rocm"),
            ("HIP_API_TOKEN", "secret"),
            ("LC_ALL", "C"),
            ("HOME", "/root"),
            ("LD_PRELOAD", "/x.so"),
            ("HSA_OVERRIDE_GFX_VERSION", "10.3.0"),
        ]);
        let kept: Vec<String> = e
            .for_foreign_child()
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            kept,
            ["HIP_PATH", "HSA_OVERRIDE_GFX_VERSION", "LC_ALL", "PATH"]
        );
    }
}
