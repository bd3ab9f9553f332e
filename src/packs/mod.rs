//! Declarative check packs (docs/check-packs.md): checks written as TOML, run by one engine.
//!
//! `compile` (pure) turns a pack's text into typed checks or `file:line:column` errors;
//! `sources` finds pack files (built-in, checks.d, `--checks`) and refuses unsafe ones;
//! `probe` gathers each probe's raw value through the `Host` and the inventory (the only I/O);
//! `eval` (pure) applies regexes, token relations and rules to give one finding per check;
//! `why` recognises pasted error messages by the packs' `[[symptom]]` sections.

/// An ISA name as the stack prints it, for the rules' patterns (`concat!`): `gfx`, then three or
/// four characters, digits but for a last hex letter (gfx906, gfx90a, gfx90c, gfx1030, gfx1151;
/// the processor names of LLVM's AMDGPUUsage). The earlier `gfx[0-9]{3,4}[a-f]?` missed gfx90a
/// and gfx90c, whose third character is a letter.
macro_rules! isa_name {
    () => {
        "gfx[0-9]{2,3}[0-9a-f]"
    };
}

pub(crate) mod asicnames;
pub(crate) mod builds;
pub mod causes;
pub mod compile;
mod context;
pub(crate) mod eval;
pub(crate) mod facts;
pub(crate) mod gcversions;
pub(crate) mod gpu_rules;
pub(crate) mod gpunames;
pub(crate) mod here;
pub(crate) mod hip_since;
/// The glob matcher lives low (`crate::glob`) so the inventory can use it too.
pub(crate) use crate::glob;
pub(crate) mod model;
pub mod origins;
pub mod paths;
pub(crate) mod probe;
mod release;
mod stack;
pub(crate) mod template;
pub(crate) mod vendors;
pub mod why;
// Rules over families of lines (issue 28, item 4).
mod driver;
pub(crate) mod libfamilies;
// issue 28, tuning cases not recognised (h-r5).
mod bitcode;
mod bnb_binary;
mod cmake_packages;
mod devgroups;
mod dkms;
mod docker_gpus;
mod igpu;
pub(crate) mod internal_checks;
mod kernel_age;
mod kfd_refused;
mod leftovers;
mod link_libs;
mod modload;
mod origin_causes;
mod pkgmanager;
pub(crate) mod pkgnames;
mod sonames;
mod strace_loads;
mod symbol_versions;
mod tool_tracebacks;
mod windows_dlls;

use crate::checkdoc::CheckDoc;
use crate::report::Status;
use model::Profile;
use regex::Regex;
use std::time::Duration;
use template::Template;

/// A validated pack.
#[derive(Debug)]
pub struct Pack {
    pub name: String,
    pub version: String,
    pub source: String,
    pub description: String,
    pub checks: Vec<Check>,
    pub symptoms: Vec<Symptom>,
}

#[derive(Debug, Default)]
pub struct Check {
    pub doc: CheckDoc,
    pub when: When,
    pub probes: Vec<Probe>,
    pub rules: Vec<Rule>,
}

#[derive(Debug, Default)]
pub struct When {
    pub profile: Vec<Profile>,
    pub gpu: Option<bool>,
    pub isa_family: Vec<String>,
    /// (component, version range)
    pub component: Option<(String, crate::version::VersionRange)>,
}

#[derive(Debug)]
pub struct Probe {
    pub name: String,
    pub spec: ProbeSpec,
    pub regex: Option<Regex>,
    pub split: Option<String>,
    /// Relation of this probe's tokens to another probe's (by index).
    pub relation: Option<(Relation, usize)>,
    pub as_indices: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    SubsetOf,
    Covers,
}

#[derive(Debug)]
pub enum ProbeSpec {
    Env(String),
    File {
        path: String,
        read: bool,
    },
    Glob {
        path: String,
        read: bool,
    },
    Command {
        argv: Vec<String>,
        timeout: Duration,
    },
    Fact(Fact),
    Library(String),
    Kfd(String),
    /// Whether the `python3` on `PATH` may import this package, read from its site
    /// directories without running it (`inventory::python`).
    PythonPackage(String),
    /// What the device code of these libraries carries: one `PATH: FLAG` item per flag of
    /// each file (`file.ccob`, `file.uncompressed-bundle`, ...; `crate::binfacts::flags::Flag`).
    CodeObjects(Vec<String>),
    /// Undefined symbols of an inspected file (`inspect --symbols`): bound in memory by the
    /// known-issue evaluation only; a run on the machine does not read them.
    UndefinedSymbols,
}

/// Inventory facts a probe can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fact {
    RocmRoot,
    RocmVersion,
    HipVersion,
    ClangPath,
    ClangVersion,
    GpuCount,
    GpuIsas,
    Profile,
    Sysroot,
}

impl Fact {
    pub(crate) const NAMES: &'static [&'static str] = &[
        "rocm.root",
        "rocm.version",
        "hip.version",
        "clang.path",
        "clang.version",
        "gpu.count",
        "gpu.isas",
        "profile",
        "sysroot",
    ];
    pub(crate) fn parse(s: &str) -> Option<Self> {
        use Fact::*;
        let all = [
            RocmRoot,
            RocmVersion,
            HipVersion,
            ClangPath,
            ClangVersion,
            GpuCount,
            GpuIsas,
            Profile,
            Sysroot,
        ];
        Self::NAMES.iter().position(|n| *n == s).map(|i| all[i])
    }
}

#[derive(Debug)]
pub struct Rule {
    pub terms: Vec<Term>,
    pub status: Status,
    pub message: Template,
    pub fix: Option<Template>,
    pub action: Option<crate::report::Action>,
}

/// One condition of a rule: a probe's state, maybe negated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Term {
    pub probe: usize,
    pub negate: bool,
    /// The probe must have found a value ...
    pub found: bool,
    /// ... and/or its regex / relation must hold.
    pub matched: bool,
}

/// A recognisable error message and the checks that confirm its cause.
#[derive(Debug)]
pub struct Symptom {
    pub id: String,
    pub title: String,
    /// The regexes as written (`patterns`, `needs`, `unless`).
    pub sources: MatcherSources,
    /// Their compiled form: at load for a pack file, on first use for a built-in pack.
    pub matchers: std::sync::OnceLock<Matchers>,
    pub text: String,
    pub source: String,
    pub cause: String,
    pub fix: String,
    pub checks: Vec<String>,
    /// The checks whose pass rules the cause out: `None` any of `checks`, `Some([])` none.
    pub rule_out_by: Option<Vec<String>>,
    /// `[symptom.with] isa`: the named group whose captured value is judged as an `--isa`.
    pub with_isa: Option<String>,
    /// `differ`: the named group two matches must capture different versions in.
    pub differ: Option<String>,
    /// The cause id (`checks/causes.toml`); `None` for packs that name none.
    pub class: Option<String>,
    pub rank: u8,
    /// The class is harmless noise (`checks/causes.toml`).
    pub harmless: bool,
    /// Its checks run under `--profile runtime` (absent GPUs fail).
    pub runtime_profile: bool,
    /// A skip whose summary matches `confirm_if` confirms (`confirm_skipped`).
    pub confirm_skipped: bool,
    /// Where each of `checks` is written in the pack's file, for the reference check at load.
    pub check_locations: Vec<crate::data::Position>,
}

/// A symptom's regexes as written.
#[derive(Debug, Clone, Default)]
pub struct MatcherSources {
    pub patterns: Vec<String>,
    pub needs: Vec<String>,
    pub unless: Vec<String>,
    pub confirm_if: Vec<String>,
}

/// A symptom's compiled regexes.
#[derive(Debug)]
pub struct Matchers {
    pub patterns: Vec<Regex>,
    pub needs: Vec<Regex>,
    pub unless: Vec<Regex>,
    pub confirm_if: Vec<Regex>,
}

impl Symptom {
    /// The compiled regexes (compiled now if the pack was built in; a regex that does not
    /// compile, which the built-in packs' tests rule out, is left out).
    pub(crate) fn matchers(&self) -> &Matchers {
        self.matchers.get_or_init(|| {
            let all = |v: &[String]| -> Vec<Regex> {
                v.iter().filter_map(|p| compile::regex(p).ok()).collect()
            };
            Matchers {
                patterns: all(&self.sources.patterns),
                needs: all(&self.sources.needs),
                unless: all(&self.sources.unless),
                confirm_if: all(&self.sources.confirm_if),
            }
        })
    }
}

/// Where a pack came from (shown by --list-checks and explain).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    BuiltIn(&'static str),
    File(std::path::PathBuf),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::BuiltIn(n) => write!(f, "built-in {n}"),
            Origin::File(p) => write!(f, "{}", p.display()),
        }
    }
}

impl Origin {
    /// The file's name as the compiler was given it (errors and findings name it so).
    pub(crate) fn file(&self) -> String {
        match self {
            Origin::BuiltIn(n) => n.to_string(),
            Origin::File(p) => p.display().to_string(),
        }
    }
}

/// A pack with its origin, or why its file could not be used.
#[derive(Debug)]
pub enum Loaded {
    Ok {
        origin: Origin,
        pack: Pack,
    },
    Broken {
        origin: Origin,
        errors: Vec<crate::data::DataError>,
    },
}

/// Every pack of a run, in load order.
#[derive(Debug, Default)]
pub struct PackSet {
    pub loaded: Vec<Loaded>,
}

impl PackSet {
    pub(crate) fn packs(&self) -> impl Iterator<Item = (&Origin, &Pack)> {
        self.loaded.iter().filter_map(|l| match l {
            Loaded::Ok { origin, pack } => Some((origin, pack)),
            Loaded::Broken { .. } => None,
        })
    }

    pub(crate) fn checks(&self) -> impl Iterator<Item = (&Origin, &Check)> {
        self.packs()
            .flat_map(|(o, p)| p.checks.iter().map(move |c| (o, c)))
    }

    pub(crate) fn check(&self, id: &str) -> Option<(&Origin, &Check)> {
        self.checks().find(|(_, c)| c.doc.id == id)
    }

    pub fn symptoms(&self) -> impl Iterator<Item = &Symptom> {
        self.packs().flat_map(|(_, p)| p.symptoms.iter())
    }
}

/// The id of the finding a broken pack file becomes.
pub(crate) const LOAD_ERROR_ID: &str = "packs.load";

/// The built-in symptom packs (`checks/packs/symptoms*.toml`): the one catalogue `why`, `log`
/// and the kernel-log checks share (docs/check-packs.md).
pub(crate) const SYMPTOM_PACKS: &[(&str, &str)] = &[
    (
        "checks/packs/symptoms.toml",
        include_str!("../../checks/packs/symptoms.toml"),
    ),
    (
        "checks/packs/symptoms-gpu.toml",
        include_str!("../../checks/packs/symptoms-gpu.toml"),
    ),
    (
        "checks/packs/symptoms-libs.toml",
        include_str!("../../checks/packs/symptoms-libs.toml"),
    ),
];

/// The built-in symptoms alone, compiled once, for the checks and readers that recognise a
/// line without a run's packs (the kernel-log checks, `log`). A table that does not compile is
/// a bug of this build: its symptoms are left out (a unit test keeps that from shipping).
pub(crate) fn catalogue() -> &'static PackSet {
    static SET: std::sync::OnceLock<PackSet> = std::sync::OnceLock::new();
    SET.get_or_init(|| {
        let mut set = PackSet::default();
        for (name, text) in SYMPTOM_PACKS {
            if let Ok(pack) = compile::compile_trusted(name, text) {
                set.loaded.push(Loaded::Ok {
                    origin: Origin::BuiltIn(name),
                    pack,
                });
            }
        }
        set
    })
}

#[cfg(test)]
mod catalogue_tests {
    #[test]
    fn every_symptom_pack_compiles_into_the_catalogue() {
        assert_eq!(
            super::catalogue().packs().count(),
            super::SYMPTOM_PACKS.len()
        );
        assert!(super::catalogue().symptoms().count() >= 60);
    }
}
