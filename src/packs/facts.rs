//! Facts in a pasted text and rules over them (issue 28, items 2-4, first slice). Pure.
//!
//! [`Facts::of`] reads the entities a text states about the user's machine: ISAs (`gfxNNNN`, and
//! marketing names mapped to ISAs by `checks/why-facts.toml`), versions (ROCm, HIP, torch
//! `+rocmX.Y`, kernel, distribution release), the platform (WSL, a container, a Kubernetes pod, a
//! Slurm job, Nix), errno names and the GPUs it shows by vendor (`super::vendors`). [`rules`] applies the rules that hold for every tool printing
//! a variant of one failure ("no code for ISA X", "wrong platform") and answers with a cause
//! class and a reasoning built from the facts: the exact override of the same family and its
//! risk, or that none works. `why::recognise` calls it at one place; what the text says about
//! the user's machine is what these rules use (this machine is not asked here), and the
//! reasoning says so.

use super::Symptom;
use regex::bytes::Regex as BytesRegex;
use regex::Regex;
use serde::Deserialize;
use std::sync::OnceLock;

/// `checks/why-facts.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Table {
    pub datacenter: Vec<String>,
    #[serde(rename = "override")]
    pub overrides: Vec<Override>,
    pub no_override: Vec<NoOverride>,
    pub name: Vec<Name>,
    pub(crate) release: Vec<Release>,
    pub(crate) retired: Vec<Retired>,
    pub(crate) dkms: Vec<Dkms>,
    /// `[gpu]`: the facts of the GPU rules, read by src/packs/gpu_rules.rs.
    #[allow(dead_code)]
    gpu: serde::de::IgnoredAny,
    pub(crate) since: Vec<Since>,
    pub(crate) cuda_library: Vec<CudaLibrary>,
    pub(crate) cuda_print: Vec<CudaPrint>,
    pub(crate) informational: Vec<Informational>,
    /// `[context]`: the facts of the rules of src/packs/context.rs, read there.
    #[allow(dead_code)]
    context: serde::de::IgnoredAny,
    /// `[[wsl]]`: ROCm on WSL per release (the WSL rule).
    #[serde(default)]
    pub(crate) wsl: Vec<WslRelease>,
    /// `[[kfd_since]]`: GPUs older kernels' KFD does not know (src/packs/kernel_age.rs).
    #[serde(default)]
    pub(crate) kfd_since: Vec<KfdSince>,
}

/// One `[[kfd_since]]` row: ISAs, the newest kernel series read whose KFD lacks them, the series
/// read whose KFD has them, and where that was read (src/packs/kernel_age.rs).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct KfdSince {
    pub isas: Vec<String>,
    pub lacks: String,
    pub has: String,
    pub source: String,
}

/// ROCm on WSL for one release (major.minor), as AMD's WSL compatibility matrix and its
/// sources say (`[[wsl]]` of `checks/why-facts.toml`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WslRelease {
    pub rocm: String,
    /// False where AMD said there is no WSL runtime of this release.
    #[serde(default = "yes")]
    pub runtime: bool,
    /// The point release published for WSL.
    #[serde(default)]
    pub release: String,
    /// The Windows driver (AMD Software: Adrenalin Edition) it needs; empty where not read.
    #[serde(default)]
    pub driver: String,
    #[serde(default)]
    pub ubuntu: Vec<String>,
    /// The ISAs of the GPUs it lists; empty where the list was not read.
    #[serde(default)]
    pub isas: Vec<String>,
    #[allow(dead_code)]
    pub source: String,
}

fn yes() -> bool {
    true
}

/// One ROCm release (major.minor): the ISAs it supports, the distribution releases it is built
/// for (`ubuntu 22.04`, `rhel 9.4`, `sles 15`), the newest kernel series among them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Release {
    pub rocm: String,
    pub isas: Vec<String>,
    pub distros: Vec<String>,
    pub kernel: String,
}

/// An ISA dropped before the releases of the table, and the last release that supported it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Retired {
    pub isa: String,
    pub until: String,
}

/// An amdgpu-dkms module version (major.minor) and the ROCm release that ships it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Dkms {
    pub module: String,
    pub rocm: String,
}

/// A file ROCm ships only from a release on (`[[since]]` of `checks/why-facts.toml`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Since {
    /// `header` (as an `#include` names it) or `cmake-package` (as `find_package` names it).
    pub kind: String,
    pub name: String,
    /// The first ROCm release (major.minor) that ships it.
    pub rocm: String,
    pub source: String,
}

/// A library of NVIDIA's CUDA toolkit, by its soname's stem (`[[cuda_library]]`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CudaLibrary {
    pub name: String,
}

/// A line only a build without ROCm prints (`[[cuda_print]]`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CudaPrint {
    /// A regex over the text: the printed form, across the printer's own line breaks.
    pub pattern: String,
    pub printer: String,
    /// `CUDA` or `CPU-only`.
    pub build: String,
    pub when: String,
    /// Why the ROCm build of the same code never prints it.
    pub rocm: String,
    /// The line itself names what was asked of an AMD GPU (ONNX Runtime's ROCm provider), so the
    /// text is about an AMD GPU even where it names none.
    #[serde(default)]
    pub asks_amd: bool,
    /// Where the facts of the entry are read: for the table's readers (the answer names the
    /// table), checked non-empty by stack.rs's tests.
    #[allow(dead_code)]
    pub source: String,
}

/// A message its own source prints as information (`[[informational]]`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Informational {
    pub pattern: String,
    pub origin: String,
    pub level: String,
    pub reason: String,
    pub source: String,
}

/// The ISAs ROCm supports now: the newest release's.
pub(crate) fn supported() -> &'static [String] {
    table().release.last().map_or(&[], |r| r.isas.as_slice())
}

/// ISAs that run the kernels of `runs` with `HSA_OVERRIDE_GFX_VERSION`, at `risk`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Override {
    pub isas: Vec<String>,
    pub runs: String,
    pub risk: String,
}

/// ISAs no override value helps, and what does.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoOverride {
    pub isas: Vec<String>,
    pub instead: String,
}

/// A marketing name (a regex) and its ISA.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Name {
    pub pattern: String,
    pub isa: String,
}

pub(crate) fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        crate::data::embedded(
            "checks/why-facts.toml",
            include_str!("../../checks/why-facts.toml"),
        )
    })
}

fn names() -> &'static [(Regex, String)] {
    static N: OnceLock<Vec<(Regex, String)>> = OnceLock::new();
    N.get_or_init(|| {
        table()
            .name
            .iter()
            .map(|n| {
                let re = Regex::new(&n.pattern)
                    .unwrap_or_else(|e| panic!("checks/why-facts.toml: {}: {e}", n.pattern));
                (re, n.isa.clone())
            })
            .collect()
    })
}

/// The marketing names' patterns as one set, in the table's order: a filter, whose matches
/// each name's own regex then confirms line by line. It is compiled without Unicode (`\b`, `\s`
/// and case folding of ASCII only), because a Unicode `\b` stops the fast search at the first
/// non-ASCII byte of a paste and a set over a whole 10,000-line log then runs in the slowest
/// engine (5 billion instructions on the corpus log, callgrind). Each name starts and ends with an
/// ASCII letter or digit, where an ASCII `\b` holds wherever a Unicode one does, so the filter
/// keeps every line a name's own regex matches (but for the Unicode case folds of `k` and `s`,
/// the Kelvin sign and the long s, which no product name is written with).
fn names_set() -> &'static regex::RegexSet {
    static S: OnceLock<regex::RegexSet> = OnceLock::new();
    S.get_or_init(|| {
        regex::RegexSetBuilder::new(names().iter().map(|(r, _)| r.as_str()))
            .unicode(false)
            .build()
            .unwrap_or_else(|e| panic!("checks/why-facts.toml: a name is not ASCII-only: {e}"))
    })
}

/// The headlines that say HIP found no device it may use, whichever program prints them (one
/// list for the rules that read them; the packs' symptoms list the same): PyTorch's "No HIP GPUs
/// are available", HIP's `hipErrorNoDevice` and its string "no ROCm-capable device is detected"
/// (CLR hip_error.cpp), the Python bindings' `HIP_ERROR_NoDevice`, and rocBLAS's and hipBLASLt's
/// "Could not initialize Tensile host: No devices found", printed when hipGetDeviceCount fails
/// (tensile_host.cpp of each, at the commits checks/origins.toml pins). A regex alternation,
/// case-insensitive where the caller's regex is.
pub(super) const HIP_NO_DEVICE: &str =
    "No HIP GPUs are available|hipErrorNoDevice|HIP_ERROR_NoDevice\
     |no ROCm-capable device|Could not initialize Tensile host: No devices found";

pub(super) fn re(cell: &'static OnceLock<Regex>, src: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(&ascii_boundaries(src)).expect("a fixed regex compiles"))
}

/// `src` with each word boundary (`\b`, `\B`) made an ASCII one (`(?-u:\b)`). The rules run
/// their regexes over whole texts, and a Unicode word boundary stops the fast search at the
/// first non-ASCII byte of a paste: the whole text then goes through the slowest engine (the
/// release rules took 290 million instructions that way on the corpus log, callgrind:
/// docs/benchmarks.md). Everything else stays Unicode; what these regexes bound is ASCII words
/// (versions, package and tool names), where a boundary next to a non-ASCII letter counts.
pub(super) fn ascii_boundaries(src: &str) -> String {
    let mut out = String::with_capacity(src.len() + 16);
    let mut it = src.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some(b @ ('b' | 'B')) => {
                out.push_str("(?-u:\\");
                out.push(b);
                out.push(')');
            }
            Some(n) => {
                out.push('\\');
                out.push(n);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// A fixed regex run over a whole text, compiled ASCII-only (`\b`, `\w`, `\s`, `\d` and case
/// folding of ASCII): with Unicode word boundaries, the first non-ASCII byte of a paste sends a
/// search of the whole text to the slowest engine (280 million instructions for one regex over
/// the corpus log, callgrind: docs/benchmarks.md). What these regexes look for (versions,
/// errno names, platform words and paths) is ASCII, and a boundary between it and a non-ASCII
/// letter counts as one, which reads a version next to a letter of another script as a version.
fn ascii(cell: &'static OnceLock<BytesRegex>, src: &str) -> &'static BytesRegex {
    cell.get_or_init(|| {
        regex::bytes::RegexBuilder::new(src)
            .unicode(false)
            .build()
            .expect("a fixed regex compiles")
    })
}

/// The text of a match of an [`ascii`] regex (every match of theirs starts and ends at an ASCII
/// byte, so on a character boundary; `""` if not).
fn text_of<'t>(text: &'t str, m: regex::bytes::Match<'_>) -> &'t str {
    text.get(m.range()).unwrap_or("")
}

/// Where the text says it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Platform {
    Wsl,
    Container,
    Kubernetes,
    Slurm,
    Nix,
}

/// What a text states about the machine it came from.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    /// The ISAs named (known processors only), in order of first mention, with where each came
    /// from: the ISA itself (`None`), or a marketing name, PCI id or kernel chip name (what the
    /// text wrote: `RX 6800 XT`, `PCI id 1002:73bf`, `kernel chip POLARIS10`).
    pub isas: Vec<(String, Option<String>)>,
    /// `(what, version)`: `rocm`, `hip`, `torch`, `torch-rocm`, `kernel`, `ubuntu`, ...
    pub versions: Vec<(String, String)>,
    pub platforms: Vec<Platform>,
    pub errnos: Vec<String>,
    /// Where the text states an ISA (`gfx...`) and also names a product or PCI id that reads as
    /// another: (what it wrote, that ISA). The stated ISAs come first in `isas`.
    pub differs: Vec<(String, String)>,
    /// The GPUs the text shows by vendor, in the forms tools print them
    /// ([`super::vendors::shown`]); an AMD GPU is also shown by `isas` ([`Facts::shows`]).
    pub vendors: Vec<super::vendors::Shown>,
}

impl Facts {
    pub(crate) fn of(text: &str) -> Facts {
        static VER: OnceLock<BytesRegex> = OnceLock::new();
        static ERRNO: OnceLock<BytesRegex> = OnceLock::new();
        let mut f = Facts::default();
        f.add_isas(text);
        f.add_products(text);
        let ver = ascii(
            &VER,
            concat!(
                r"(?i)\b(?:(?P<rocm>ROCm)[ -]?(?:version:?\s*)?v?(?P<rv>\d+\.\d+(?:\.\d+)?)|",
                r"(?P<hip>HIP) version:?\s*(?P<hv>\d+\.\d+[\w.-]*)|(?P<torch>torch)[ =:-]*",
                r"(?P<tv>\d+\.\d+\.\d+)(?:\+rocm(?P<trv>\d+\.\d+(?:\.\d+)?))?|",
                r"(?P<kernel>Linux \S+ |kernel:?\s*)(?P<kv>\d+\.\d+\.\d+[\w.-]*)|",
                // `uname -srmv` (and -a without the host name): the release, then the build's
                // `#N` (AMD's prerequisites page shows `Linux 5.15.0-46-generic #44~20.04.5-Ubuntu
                // SMP ...`); a bare "Linux 21.40.1" (Radeon Software for Linux) is no kernel.
                r"(?P<uname>Linux )(?P<ukv>\d+\.\d+\.\d+[\w.-]*) #\d|(?P<distro>Ubuntu",
                r"|Debian|Fedora|RHEL|Rocky Linux|openSUSE Leap|SLES)\s+(?P<dv>\d+(?:\.\d+)?))",
            ),
        );
        for c in ver.captures_iter(text.as_bytes()) {
            let mut push = |k: &str, v: Option<regex::bytes::Match>| {
                if let Some(v) = v {
                    let e = (k.to_string(), text_of(text, v).to_string());
                    if !f.versions.contains(&e) {
                        f.versions.push(e);
                    }
                }
            };
            if c.name("rocm").is_some() {
                push("rocm", c.name("rv"));
            } else if c.name("hip").is_some() {
                push("hip", c.name("hv"));
            } else if c.name("torch").is_some() {
                push("torch", c.name("tv"));
                push("torch-rocm", c.name("trv"));
            } else if c.name("kernel").is_some() {
                push("kernel", c.name("kv"));
            } else if c.name("uname").is_some() {
                push("kernel", c.name("ukv"));
            } else if let Some(d) = c.name("distro") {
                push(&text_of(text, d).to_lowercase(), c.name("dv"));
            }
        }
        f.platforms = platforms(text);
        f.vendors = super::vendors::shown(text);
        let errno = ascii(
            &ERRNO,
            concat!(
                r"\b(E(?:NOENT|ACCES|PERM|NODEV|NXIO|INVAL|NOMEM|BUSY|AGAIN|IO|FAULT|NOSPC|NOEXEC",
                r"|TIMEDOUT))\b",
            ),
        );
        for m in errno.find_iter(text.as_bytes()) {
            let m = text_of(text, m);
            if !f.errnos.iter().any(|e| e == m) {
                f.errnos.push(m.to_string());
            }
        }
        f
    }

    /// The ISAs the text states (`gfx...`, not in a list of three or more on one line, nor in
    /// rocBLAS's list of its Tensile files) and those of the hand-written names of
    /// `checks/why-facts.toml`, in order of lines.
    fn add_isas(&mut self, text: &str) {
        static ISA: OnceLock<Regex> = OnceLock::new();
        // Speed (a 10,000-line log): one pass over the whole text tells which marketing names
        // occur at all, and only lines that can name an ISA are searched line by line.
        let named: Vec<&(Regex, String)> = names_set()
            .matches(text)
            .iter()
            .map(|i| &names()[i])
            .collect();
        let has_gfx = text.contains("gfx");
        // A line naming three or more ISAs is a list (a build's targets, "supported types"), not
        // the GPU at hand.
        for line in text.lines().filter(|_| has_gfx || !named.is_empty()) {
            let isa = re(&ISA, concat!(r"\b", isa_name!(), r"\b"));
            let found: Vec<&str> = if line.contains("gfx") && !is_tensile_file_line(line) {
                isa.find_iter(line).map(|m| m.as_str()).collect()
            } else {
                Vec::new()
            };
            if found.len() >= 3 {
                // TensorFlow names the device's ISA before the list it supports
                // (`gpu_device.cc`: "... with AMDGPU version : gfx1032. The supported AMDGPU
                // versions are gfx900, ...").
                static LEAD: OnceLock<Regex> = OnceLock::new();
                let lead = re(
                    &LEAD,
                    concat!(r"with AMDGPU (?:ISA|version)\s*:?\s*(", isa_name!(), r")\b"),
                );
                if let Some(c) = lead.captures(line) {
                    let g = &c[1];
                    if crate::isa::processor(g).is_some() && !self.isas.iter().any(|(i, _)| i == g)
                    {
                        self.isas.push((g.to_string(), None));
                    }
                }
                continue;
            }
            for g in found {
                if crate::isa::processor(g).is_some() && !self.isas.iter().any(|(i, _)| i == g) {
                    self.isas.push((g.to_string(), None));
                }
            }
            for (n, g) in named.iter().copied() {
                if let Some(m) = n.find(line) {
                    if !self.isas.iter().any(|(i, _)| i == g) {
                        self.isas.push((g.clone(), Some(m.as_str().to_string())));
                    }
                }
            }
        }
    }

    /// The ISAs of the product names, PCI ids and kernel chip names of the text
    /// and GC versions KFD prints (`checks/gpu-names.toml`; [`super::asicnames`],
    /// [`super::gcversions`]), after those found so far; then the ISAs the text states (`gfx...`) before the ones only a name
    /// or id gives, and each name or id that reads as an ISA the text does not state, when it
    /// states one, in `differs` (the stated ISA wins: it is what the runtime printed).
    fn add_products(&mut self, text: &str) {
        // A kernel chip name first: where pci.ids writes the same word as a product name
        // (`Polaris10`), the stable sort keeps it as the kernel's.
        let mut found = super::asicnames::chips_in(text);
        found.extend(super::gcversions::gcs_in(text));
        found.extend(super::gpunames::names_in(text));
        found.extend(super::gpunames::ids_in(text));
        found.sort_by_key(|x| x.at);
        // As for ISAs, a line naming three or more is a list (supported GPUs), not the GPU at
        // hand.
        let (mut line, mut upto) = (0, 0);
        let lines: Vec<usize> = found
            .iter()
            .map(|x| {
                line += text.as_bytes()[upto..x.at]
                    .iter()
                    .filter(|b| **b == b'\n')
                    .count();
                upto = x.at;
                line
            })
            .collect();
        for (k, x) in found.iter().enumerate() {
            let mut isas: Vec<&str> = (0..found.len())
                .filter(|j| lines[*j] == lines[k])
                .map(|j| found[j].isa.as_str())
                .collect();
            isas.sort_unstable();
            isas.dedup();
            if isas.len() < 3 && !self.isas.iter().any(|(i, _)| *i == x.isa) {
                self.isas.push((x.isa.clone(), Some(x.said.clone())));
            }
        }
        let stated: Vec<String> = self
            .isas
            .iter()
            .filter(|(_, n)| n.is_none())
            .map(|(i, _)| i.clone())
            .collect();
        if stated.is_empty() {
            return;
        }
        self.isas.sort_by_key(|(_, n)| n.is_some());
        self.differs = self
            .isas
            .iter()
            .filter(|(i, n)| n.is_some() && !stated.contains(i))
            .map(|(i, n)| (n.clone().unwrap_or_default(), i.clone()))
            .collect();
    }

    pub(crate) fn on(&self, p: Platform) -> bool {
        self.platforms.contains(&p)
    }

    /// Whether the text shows a GPU of `v`: a tool's printed form of it, or, for AMD, an ISA,
    /// product name or PCI id of its GPUs.
    pub(crate) fn shows(&self, v: super::vendors::Vendor) -> bool {
        self.shown(v).is_some() || (v == super::vendors::Vendor::Amd && !self.isas.is_empty())
    }

    /// The printed form that shows a GPU of `v`, the first in the text.
    pub(crate) fn shown(&self, v: super::vendors::Vendor) -> Option<&super::vendors::Shown> {
        self.vendors.iter().find(|s| s.vendor == v)
    }
}

/// A line that is only a Tensile library file's name (`"/opt/rocm/lib/rocblas/library/
/// TensileLibrary_lazy_gfx1030.dat"`), as rocBLAS lists the files it ships, one per line, after
/// "List of available TensileLibrary Files" (`tensile_host.cpp`): what the build has, not a GPU.
fn is_tensile_file_line(line: &str) -> bool {
    static FILE: OnceLock<Regex> = OnceLock::new();
    line.contains("TensileLibrary")
        && re(
            &FILE,
            r#"^\s*"?[^\s"]*TensileLibrary[^\s"]*gfx[0-9a-f]+[^\s"]*"?\s*$"#,
        )
        .is_match(line)
}

/// What names WSL in a text (its device, library, kernel or message): a platform fact and the
/// WSL rule's line.
const WSL_SRC: &str = concat!(
    r"(?i)/dev/dxg|librocdxg|microsoft-standard-WSL|/usr/lib/wsl/|WSL environment detected",
    r"|\bWSL ?2?\b|\bWLS2\b",
);

/// The platforms a text says it ran on. WSL: its kernel's release string
/// (`microsoft-standard-WSL2`), its GPU device (`/dev/dxg`), the WSL runtime library
/// (`librocdxg`, `/usr/lib/wsl`), rocminfo's "WSL environment detected", or the name itself.
fn platforms(text: &str) -> Vec<Platform> {
    static WSL: OnceLock<BytesRegex> = OnceLock::new();
    static CONTAINER: OnceLock<BytesRegex> = OnceLock::new();
    static POD: OnceLock<BytesRegex> = OnceLock::new();
    static SLURM: OnceLock<BytesRegex> = OnceLock::new();
    static NIX: OnceLock<BytesRegex> = OnceLock::new();
    let table: [(&'static OnceLock<BytesRegex>, &str, Platform); 5] = [
        (&WSL, WSL_SRC, Platform::Wsl),
        (
            &CONTAINER,
            concat!(
                r"(?i)\bdocker (?:run|exec|compose)|\bpodman\b|/\.dockerenv|\bdocker-compose\b",
                r"|\bapptainer\b|\bsingularity\b",
            ),
            Platform::Container,
        ),
        (
            &POD,
            r"(?i)\bkubectl\b|\bkind: Pod\b|\bamd\.com/gpu\b",
            Platform::Kubernetes,
        ),
        (
            &SLURM,
            r"\bsrun\b|\bsbatch\b|\bSLURM_[A-Z_]+",
            Platform::Slurm,
        ),
        (&NIX, r"/nix/store/|\bnixpkgs\b|\bNixOS\b", Platform::Nix),
    ];
    static WINDOWS: OnceLock<BytesRegex> = OnceLock::new();
    let mut found: Vec<Platform> = table
        .iter()
        .filter(|(cell, src, _)| ascii(cell, src).is_match(text.as_bytes()))
        .map(|(_, _, p)| *p)
        .collect();
    // Docker on a Windows host (a `C:\Users\...` path beside a docker command) runs its Linux
    // containers in WSL 2 (Docker Desktop's WSL 2 backend, docs.docker.com/desktop/features/wsl/).
    if found.contains(&Platform::Container)
        && !found.contains(&Platform::Wsl)
        && ascii(&WINDOWS, r"(?i)\b[A-Z]:\\(?:Users|Windows)\\").is_match(text.as_bytes())
    {
        found.insert(0, Platform::Wsl);
    }
    found
}

/// What the facts say about an ISA.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum IsaVerdict {
    /// ROCm supports it: a build without its code is a build problem.
    Supported,
    /// Not supported; `value` of the same family runs it, at `risk`.
    Override {
        runs: String,
        value: String,
        risk: String,
    },
    /// Not supported and no override works; `instead` says what does.
    NoOverride { instead: String },
    /// Not in the tables.
    Unknown,
}

pub(crate) fn isa_verdict(isa: &str) -> IsaVerdict {
    let t = table();
    if supported().iter().any(|s| s == isa) {
        return IsaVerdict::Supported;
    }
    if let Some(o) = t.overrides.iter().find(|o| o.isas.iter().any(|i| i == isa)) {
        if let Some(value) = crate::gpu::overrides::override_value_for(&o.runs) {
            return IsaVerdict::Override {
                runs: o.runs.clone(),
                value,
                risk: o.risk.clone(),
            };
        }
    }
    if let Some(n) = t
        .no_override
        .iter()
        .find(|n| n.isas.iter().any(|i| i == isa))
    {
        return IsaVerdict::NoOverride {
            instead: n.instead.clone(),
        };
    }
    IsaVerdict::Unknown
}

/// Whether a ROCm release (`6.4.1`, `4.0`) officially supported an ISA: the release's entry of
/// `[[release]]`, else, for an older release, `[[retired]]`; `None` when the table does not say.
pub(crate) fn supported_in(isa: &str, release: &str) -> Option<bool> {
    let mm = |v: &str| -> Option<(u32, u32)> {
        let mut it = v.split('.');
        Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
    };
    let r = mm(release)?;
    let t = table();
    if let Some(e) = t.release.iter().find(|e| mm(&e.rocm) == Some(r)) {
        return Some(e.isas.iter().any(|i| i == isa));
    }
    let oldest = t.release.first().and_then(|e| mm(&e.rocm))?;
    if r > oldest {
        return None;
    }
    t.retired
        .iter()
        .find(|x| x.isa == isa)
        .and_then(|x| Some(r <= mm(&x.until)?))
}

/// Whether an ISA is an Instinct (datacenter) part.
pub(crate) fn is_datacenter(isa: &str) -> bool {
    table().datacenter.iter().any(|s| s == isa)
}

/// The line of the text a rule fired on, and the rule's reasoning.
pub(crate) struct Derived {
    pub symptom: &'static Symptom,
    pub line: String,
    pub captures: Vec<(String, String)>,
    /// Causes this rule does not displace when a symptom already answers one of them first
    /// (a more specific reading of the same failure).
    pub defers_to: &'static [&'static str],
    /// Causes the facts decide against: a symptom of one of them never comes before this one
    /// (a "no code" message reads as either a build without the ISA or an ISA nobody builds; the
    /// ISA's support decides which). The rule's own cause here: its answer is more specific than
    /// a symptom of that cause, so it stands on its own before it instead of lending it its
    /// reasoning (`why::add_derived`).
    pub overrules: &'static [&'static str],
}

impl Derived {
    /// The usual answer of a rule: its symptom, the line it read and its reasoning, displacing
    /// nothing in particular (see [`Derived::overruling`]).
    pub(super) fn reasoned(symptom: &'static Symptom, line: String, reasoning: String) -> Self {
        Derived {
            symptom,
            line,
            captures: vec![("reasoning".into(), reasoning)],
            defers_to: &[],
            overrules: &[],
        }
    }

    /// The same answer, with the causes its facts decide against.
    pub(super) fn overruling(self, overrules: &'static [&'static str]) -> Self {
        Derived { overrules, ..self }
    }

    /// Its reasoning capture ("" without one): what the rules' tests read.
    #[cfg(test)]
    pub(super) fn reasoning(&self) -> &str {
        self.captures
            .iter()
            .find(|(k, _)| k == "reasoning")
            .map_or("", |(_, v)| v.as_str())
    }

    /// The same answer, with the more specific causes it does not displace.
    pub(super) fn deferring_to(self, defers_to: &'static [&'static str]) -> Self {
        Derived { defers_to, ..self }
    }
}

/// A rule's symptom: its id, class and the text `why` shows (the reasoning is a capture).
fn symptom(
    cell: &'static OnceLock<Symptom>,
    id: &str,
    title: &str,
    class: &str,
    cause: &str,
    fix: &str,
) -> &'static Symptom {
    cached_symptom(cell, [id, title, class, cause, fix, FACTS_SOURCE])
}

const FACTS_SOURCE: &str = "rule over the facts of the text (checks/why-facts.toml)";

fn new_symptom(id: &str, title: &str, class: &str, cause: &str, fix: &str) -> Symptom {
    rule_symptom(id, title, class, cause, fix, FACTS_SOURCE)
}

/// The one cache of the rules' symptoms (every file of rules keeps a cell per symptom and calls
/// this): built by [`rule_symptom`] on first use from `[id, title, class, cause, fix, source]`.
pub(super) fn cached_symptom(cell: &'static OnceLock<Symptom>, s: [&str; 6]) -> &'static Symptom {
    cell.get_or_init(|| rule_symptom(s[0], s[1], s[2], s[3], s[4], s[5]))
}

/// What the rules' tests read of each answer: its cause class and its reasoning.
#[cfg(test)]
pub(super) fn class_and_reasoning(derived: Vec<Derived>) -> Vec<(String, String)> {
    derived
        .into_iter()
        .map(|d| {
            (
                d.symptom.class.clone().unwrap_or_default(),
                d.reasoning().to_string(),
            )
        })
        .collect()
}

/// A file of tests/fixtures/packages (what package managers and the loader printed), for the
/// rules' tests.
#[cfg(test)]
pub(super) fn package_fixture(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/packages")
        .join(name);
    std::fs::read_to_string(p).unwrap()
}

/// The symptom a rule over the text's facts answers with (no pattern of its own; `source`
/// names the facts it reasons from). Shared with the release rules.
pub(super) fn rule_symptom(
    id: &str,
    title: &str,
    class: &str,
    cause: &str,
    fix: &str,
    source: &str,
) -> Symptom {
    Symptom {
        id: id.to_string(),
        title: title.to_string(),
        sources: Default::default(),
        matchers: OnceLock::new(),
        text: String::new(),
        source: source.to_string(),
        cause: cause.to_string(),
        fix: fix.to_string(),
        checks: Vec::new(),
        rule_out_by: Some(Vec::new()),
        with_isa: None,
        differ: None,
        class: Some(class.to_string()),
        rank: 90,
        harmless: false,
        runtime_profile: false,
        confirm_skipped: false,
        check_locations: Vec::new(),
    }
}

pub(super) fn line_of(text: &str, re: &Regex) -> Option<String> {
    text.lines()
        .find(|l| re.is_match(l))
        .map(|l| l.trim().chars().take(300).collect())
}

/// The line of `text` around byte `at` (a match's start), trimmed, at most 300 characters.
pub(super) use super::vendors::line_at;

/// The "wrong platform: WSL" rule. ROCm on WSL runs through the Windows driver and the WSL
/// runtime (librocdxg, /dev/dxg): there is no /dev/kfd and no render group to join, and only the
/// releases, distributions and GPUs of AMD's WSL support matrix work (AMD, "Install Radeon
/// software for WSL with ROCm", rocm.docs.amd.com/projects/radeon).
fn wsl(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static LINE: OnceLock<Regex> = OnceLock::new();
    if !f.on(Platform::Wsl) {
        return None;
    }
    let sy = symptom(
        &S,
        "facts.wsl",
        "the text comes from WSL, where ROCm works unlike native Linux",
        "platform-wsl",
        "The text says it ran under WSL. There ROCm reaches the GPU through the Windows driver and \
         the WSL runtime (librocdxg, /dev/dxg): /dev/kfd does not exist, the render group and the \
         amdgpu module do not apply, and only the ROCm releases, distributions, GPUs and Windows \
         drivers of AMD's WSL support matrix work (a framework's bundled native runtime does not).",
        "Install ROCm for WSL as AMD documents it (a supported Windows Adrenalin driver, then the \
         WSL runtime package of a release that lists WSL support), use a GPU on that list, and \
         pass /dev/dxg (not /dev/kfd) to containers; or run on a native Linux host.",
    );
    // amd-smi is not available on WSL (AMD's WSL limitations list it); PyTorch only warns that it
    // cannot initialise it and goes on, so that warning alone is harmless there.
    static SMI: OnceLock<Symptom> = OnceLock::new();
    static SMI_WARN: OnceLock<Regex> = OnceLock::new();
    let warn = re(&SMI_WARN, r"UserWarning: Can't initialize amdsmi");
    if let Some(line) = line_of(text, warn) {
        let sy = SMI.get_or_init(|| Symptom {
            harmless: true,
            ..new_symptom(
                "facts.wsl-amdsmi-warning",
                "PyTorch cannot initialise amd-smi under WSL: harmless",
                "benign-other",
                "amd-smi is not available under WSL; PyTorch warns that it cannot initialise it \
                 and uses the GPU through the WSL runtime all the same.",
                "Nothing to fix; the warning can be ignored under WSL.",
            )
        });
        return Some(Derived {
            symptom: sy,
            line,
            captures: vec![(
                "reasoning".into(),
                "platform WSL, from the text (this machine was not asked)".into(),
            )],
            defers_to: &[],
            overrules: &[],
        });
    }
    if let Some(d) = wsl_matrix(text, f) {
        return Some(d);
    }
    let l = re(&LINE, WSL_SRC);
    Some(Derived {
        symptom: sy,
        line: line_of(text, l).unwrap_or_default(),
        captures: vec![(
            "reasoning".into(),
            "platform WSL, from the text (this machine was not asked)".into(),
        )],
        defers_to: &[],
        overrules: &[],
    })
}

/// A dotted version's numbers (`24.12.1` -> [24, 12, 1]), for ordering versions.
fn numbers(v: &str) -> Vec<u32> {
    v.split('.').map_while(|p| p.parse().ok()).collect()
}

/// The `[[wsl]]` row of the release a text names (`ROCm X.Y`, `/opt/rocm-X.Y.Z`), with the
/// version as the text writes it; a release older than every row counts as the first row (no
/// WSL runtime before it).
fn wsl_row(f: &Facts) -> Option<(&'static WslRelease, String)> {
    let rows = &table().wsl;
    let v = f.versions.iter().find(|(w, _)| w == "rocm")?.1.clone();
    let mm: Vec<u32> = numbers(&v).into_iter().take(2).collect();
    let row = rows.iter().find(|r| numbers(&r.rocm) == mm).or_else(|| {
        rows.first()
            .filter(|first| mm < numbers(&first.rocm) && !first.runtime)
    })?;
    Some((row, v))
}

/// The Windows driver the text names (`Adrenalin 24.9.1`, `AMD Software: Adrenalin Edition
/// 25.3.1`) and its line.
fn adrenalin(text: &str) -> Option<(String, String)> {
    static DRV: OnceLock<Regex> = OnceLock::new();
    let d = re(
        &DRV,
        r"(?i)\bAdrenalin(?:\s+Edition)?(?:\s+Software)?\s*:?\s*v?(\d{2}\.\d{1,2}\.\d{1,2})\b",
    );
    text.lines().find_map(|l| {
        d.captures(l)
            .map(|c| (c[1].to_string(), l.trim().to_string()))
    })
}

/// The releases with a WSL runtime, as the answers name them (`6.2.3 (Adrenalin 24.12.1)`).
fn wsl_releases() -> String {
    let named: Vec<String> = table()
        .wsl
        .iter()
        .filter(|r| r.runtime)
        .map(|r| match r.driver.as_str() {
            "" => r.release.clone(),
            d => format!("{} (Adrenalin {d})", r.release),
        })
        .collect();
    named.join(", ")
}

/// What AMD's WSL matrix decides for a WSL text (`[[wsl]]`): a ROCm release without a WSL
/// runtime, a GPU the matrix does not list, or a Windows driver older than the release needs.
/// Each answer names the exact release and driver to install. Facts from the text (this machine
/// was not asked) and from the matrix's sources, cited per row in `checks/why-facts.toml`.
fn wsl_matrix(text: &str, f: &Facts) -> Option<Derived> {
    let row = wsl_row(f);
    if let Some((r, v)) = row.as_ref().filter(|(r, _)| !r.runtime) {
        return Some(wsl_answer(
            WslVerdict::NoRuntime,
            format!(
                "ROCm {v} (from the text) has no WSL runtime: AMD publishes none for {}.x. The \
                 WSL releases are {}",
                r.rocm,
                wsl_releases()
            ),
            text,
        ));
    }
    let listed: Vec<&String> = match row.as_ref() {
        Some((r, _)) if !r.isas.is_empty() => r.isas.iter().collect(),
        _ => table().wsl.iter().flat_map(|r| &r.isas).collect(),
    };
    let on_list = f.isas.iter().any(|(i, _)| listed.contains(&i));
    if let Some((isa, named)) = f.isas.first().filter(|_| !on_list && !listed.is_empty()) {
        let which = row
            .as_ref()
            .map_or("any release".to_string(), |(_, v)| format!("ROCm {v}"));
        let named = named.as_ref().map_or(String::new(), |n| format!(" ({n})"));
        let mut l: Vec<&str> = listed.iter().map(|s| s.as_str()).collect();
        l.sort_unstable();
        l.dedup();
        let why = format!(
            "{isa}{named}, from the text, is not among the GPUs AMD's WSL matrix lists for \
             {which} ({}); under WSL ROCm reaches only those through the Windows driver",
            l.join(", ")
        );
        return Some(wsl_answer(WslVerdict::Gpu, why, text));
    }
    wsl_distro(text, f, row.as_ref()).or_else(|| wsl_driver(text, row.as_ref()))
}

/// The distribution half of [`wsl_matrix`]: an Ubuntu release the text's ROCm release has no
/// WSL packages for (6.1.3's are for 22.04 only).
fn wsl_distro(text: &str, f: &Facts, row: Option<&(&WslRelease, String)>) -> Option<Derived> {
    let (r, v) = row?;
    let ubuntu = &f.versions.iter().find(|(w, _)| w == "ubuntu")?.1;
    let mm: Vec<u32> = numbers(ubuntu).into_iter().take(2).collect();
    if r.ubuntu.is_empty() || r.ubuntu.iter().any(|u| numbers(u) == mm) {
        return None;
    }
    let others: Vec<&str> = table()
        .wsl
        .iter()
        .filter(|o| o.ubuntu.iter().any(|u| numbers(u) == mm))
        .map(|o| o.release.as_str())
        .collect();
    let why = format!(
        "ROCm {v} (from the text) has WSL packages for Ubuntu {} only, and the text runs Ubuntu \
         {ubuntu}; the WSL releases built for Ubuntu {ubuntu} are {}",
        r.ubuntu.join(" and "),
        others.join(", ")
    );
    Some(wsl_answer(WslVerdict::Distro, why, text))
}

/// The driver half of [`wsl_matrix`]: the text's Adrenalin older than its release's (or, with
/// no release named, older than every WSL release's).
fn wsl_driver(text: &str, row: Option<&(&WslRelease, String)>) -> Option<Derived> {
    let (drv, _) = adrenalin(text)?;
    let rows = &table().wsl;
    let need = match row {
        Some((r, v)) if !r.driver.is_empty() => (r.driver.clone(), format!("ROCm {v}")),
        Some(_) => return None,
        None => {
            let oldest = rows.iter().find(|r| !r.driver.is_empty())?;
            if numbers(&drv) >= numbers(&oldest.driver) {
                return None;
            }
            let newest = rows.iter().rev().find(|r| !r.driver.is_empty())?;
            (
                newest.driver.clone(),
                format!("any WSL release (newest: ROCm {})", newest.release),
            )
        }
    };
    if numbers(&drv) >= numbers(&need.0) {
        return None;
    }
    let why = format!(
        "the Windows driver is Adrenalin {drv} (from the text); {} on WSL needs AMD Software: \
         Adrenalin Edition {} or newer (AMD's WSL matrix). The WSL releases are {}",
        need.1,
        need.0,
        wsl_releases()
    );
    Some(wsl_answer(WslVerdict::Driver, why, text))
}

/// What AMD's WSL matrix rules out.
#[derive(Clone, Copy)]
enum WslVerdict {
    NoRuntime,
    Gpu,
    Distro,
    Driver,
}

/// The answer of [`wsl_matrix`] for `verdict`, with its reasoning `why`.
fn wsl_answer(verdict: WslVerdict, why: String, text: &str) -> Derived {
    static NONE: OnceLock<Symptom> = OnceLock::new();
    static GPU: OnceLock<Symptom> = OnceLock::new();
    static DRV: OnceLock<Symptom> = OnceLock::new();
    static DIST: OnceLock<Symptom> = OnceLock::new();
    static LINE: OnceLock<Regex> = OnceLock::new();
    let sy = match verdict {
        WslVerdict::NoRuntime => symptom(
            &NONE,
            "facts.wsl-no-runtime",
            "this ROCm release has no WSL runtime",
            "platform-wsl",
            "The text runs under WSL a ROCm release AMD published no WSL runtime for (its \
             installer has no hsa-runtime-rocr4wsl-amdgpu, or the release predates librocdxg), \
             so ROCm cannot reach the GPU there whatever else is right.",
            "Install a ROCm release that has a WSL runtime, with the Windows driver the \
             reasoning names for it (AMD's WSL compatibility matrix).",
        ),
        WslVerdict::Gpu => symptom(
            &GPU,
            "facts.wsl-gpu",
            "the GPU is not one ROCm supports under WSL",
            "platform-wsl",
            "Under WSL ROCm reaches the GPU through the Windows driver, and only the GPUs AMD's \
             WSL compatibility matrix lists are enabled there; the text's GPU is not among them.",
            "Use ROCm on native Linux for this GPU, or a GPU the WSL matrix lists (see the \
             reasoning) with the Windows driver of that release.",
        ),
        WslVerdict::Distro => symptom(
            &DIST,
            "facts.wsl-distro",
            "this ROCm release has no WSL packages for the distribution",
            "platform-wsl",
            "AMD builds each WSL release of ROCm for the Ubuntu releases its WSL matrix lists; \
             the text installs it on another, where its packages do not resolve or its runtime \
             does not match the system's libraries.",
            "Use the Ubuntu release the reasoning names for this ROCm release under WSL, or a \
             ROCm WSL release built for the distribution you run.",
        ),
        WslVerdict::Driver => symptom(
            &DRV,
            "facts.wsl-driver",
            "the Windows driver is older than this ROCm release needs under WSL",
            "platform-wsl",
            "ROCm on WSL runs through the Windows driver, and each WSL release of ROCm needs the \
             AMD Software: Adrenalin Edition release AMD's WSL matrix names for it or newer; the \
             text's driver is older.",
            "Install on Windows the Adrenalin driver the reasoning names (or newer), restart WSL \
             (wsl --shutdown), and run the check again.",
        ),
    };
    let line = line_of(text, re(&LINE, WSL_SRC)).unwrap_or_default();
    Derived::reasoned(
        sy,
        line,
        format!("{why}; platform WSL, from the text (this machine was not asked)"),
    )
}

/// "A container started without the GPU's devices (or their groups)": a text from a container
/// (not WSL's, whose answer is the WSL one) that shows the GPU device missing or closed, and no
/// `/dev/kfd` passed in what it shows of the container's command. ROCm in a container needs
/// /dev/kfd and /dev/dri (or the render node) passed, and the groups owning them (AMD, "Running
/// ROCm Docker containers", rocm.docs.amd.com/projects/install-on-linux, docker.md).
fn container(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static FAIL: OnceLock<Regex> = OnceLock::new();
    static PASSED: OnceLock<Regex> = OnceLock::new();
    if !f.on(Platform::Container) || f.on(Platform::Wsl) {
        return None;
    }
    if re(
        &PASSED,
        r"--device[= ]/dev/kfd|/dev/kfd:/dev/kfd|-\s*/dev/kfd\b|--rocm\b",
    )
    .is_match(text)
    {
        return None;
    }
    let fail = re(
        &FAIL,
        &format!(
            "{}{HIP_NO_DEVICE}",
            concat!(
                r"(?i)Unable to open /dev/kfd",
                r"|/dev/kfd\S*:? (?:No such file|Permission denied|not found|is missing",
                r"|does not exist)",
                r"|missing\b.{0,60}/dev/kfd|",
            )
        ),
    );
    let line = line_of(text, fail)?;
    let sy = symptom(
        &S,
        "facts.container-devices",
        "the container was started without the GPU's devices",
        "gpu-container-devices",
        "The text comes from a container, the GPU device is missing or closed in it, and what it \
         shows of the container's command passes no /dev/kfd: ROCm in a container needs /dev/kfd \
         and /dev/dri passed, and the groups that own them.",
        "Start the container with --device=/dev/kfd --device=/dev/dri and --group-add for the \
         groups owning them on the host (video, render); for a rootless engine, the user's own \
         access to them (or keep-groups).",
    );
    Some(Derived {
        symptom: sy,
        line,
        captures: vec![(
            "reasoning".into(),
            "platform container, from the text, with no /dev/kfd passed in what it shows (this \
             machine was not asked)"
                .into(),
        )],
        defers_to: &["gpu-kfd-permission"],
        overrules: &[],
    })
}

/// Any tool's "this build has no code for the GPU's ISA" (rocBLAS, hipBLASLt, MIOpen, PyTorch,
/// ollama, llama.cpp variants): the message formats as their sources print them
/// (rocBLAS `tensile_host.cpp` "Cannot read ... TensileLibrary", HIP's
/// `hipErrorNoBinaryForGpu` and "invalid device function", ollama's `amdgpu is not supported`,
/// PyTorch's "no kernel image is available"), TensorFlow's `gpu_device.cc` "Ignoring visible gpu
/// device ... with AMDGPU ISA", LM Studio's engine survey "No ROCm GPUs detected of supported
/// targets").
pub(super) const NO_CODE: &str = concat!(
    r"(?i)invalid device function|no kernel image is available|hipErrorNoBinaryForGpu",
    r"|no compatible code object|Cannot read \S*TensileLibrary",
    r"|TensileLibrary\S*\s*(?:not found|: No such file)|No Tensile library",
    r"|amdgpu is not supported|unsupported (?:gpu|arch|isa|target)\b",
    r"|gfx\w+ (?:is )?not supported|not supported on (?:this )?(?:gpu|device|arch)",
    r"|Device-side assertion|HIP_ERROR_NoBinaryForGpu|does not support (?:the )?gfx",
    r"|Ignoring visible gpu device|No ROCm GPUs detected of supported targets",
    r"|noSupportedGpus",
    r"|not recogni[sz](?:ed by ROCm|ing (?:my |the |an? )?(?:amd |radeon |instinct )*",
    r"(?:gpu|card|mi\d+|rx))",
);

/// The symptom of an ISA ROCm does not build (its reasoning says what runs it).
fn unsupported() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    symptom(
        &S,
        "facts.isa-unsupported",
        "the GPU's ISA is not one ROCm builds",
        "gpu-unsupported-asic",
        "The ISA the text names is not one ROCm or the library builds, so no kernels exist for \
         it; the reasoning says whether a same-family override runs it or what does.",
        "See the reasoning: the exact HSA_OVERRIDE_GFX_VERSION of the same family, at its risk, \
         or what runs this ISA when no override does.",
    )
}

/// The release the text names for the build (a wheel's `+rocmX.Y` first, else "ROCm X.Y") and
/// whether it supported `isa`: an ISA that release supported is a build problem whatever later
/// releases dropped.
pub(crate) fn release_then(f: &Facts, isa: &str) -> Option<(String, bool)> {
    let named_release = ["torch-rocm", "rocm"].iter().find_map(|k| {
        f.versions
            .iter()
            .find(|(w, _)| w == k)
            .map(|(_, v)| v.clone())
    });
    named_release
        .as_deref()
        .and_then(|v| supported_in(isa, v).map(|s| (v.to_string(), s)))
}

/// The causes the ISA facts decide between (a "no code" message reads as either a build without
/// the ISA or an ISA nobody builds; the ISA's support decides which): the classes of
/// [`supported_no_code`] and [`unsupported`].
pub(crate) const ISA_DECIDES: &[&str] = &["gpu-unsupported-asic", "codeobj-no-binary"];

/// The symptom of a build without the code of an ISA ROCm supports.
fn supported_no_code() -> &'static Symptom {
    static SUP: OnceLock<Symptom> = OnceLock::new();
    symptom(
        &SUP,
        "facts.isa-no-code",
        "the build has no code for a supported ISA",
        "codeobj-no-binary",
        "The ISA the text names is one ROCm supports, so the runtime is not at fault: the \
         program, library or wheel that printed this was built without code for it.",
        "Install a build that covers this ISA (a wheel or package for your ROCm release \
         that lists it), or rebuild with it in the targets (AMDGPU_TARGETS / \
         PYTORCH_ROCM_ARCH). An override is not needed for a supported ISA.",
    )
}

/// The two symptoms of an ISA's verdict: a build without the code of a supported ISA, and an ISA
/// ROCm does not build (their fixes are the one wording of what to do for each).
pub(crate) fn verdict_symptoms() -> [&'static Symptom; 2] {
    [supported_no_code(), unsupported()]
}

/// The words of an unsupported ISA's verdict, after "<the ISA>: <what part it is> ": the
/// same-family override with its exact value and risk, or what runs the ISA when no override
/// does; `None` for a supported ISA or one the tables do not know. The one wording of that
/// advice (the "no code" rule, the BLAS rule, the families' answers).
pub(crate) fn unsupported_words(v: &IsaVerdict) -> Option<String> {
    match v {
        IsaVerdict::Override { runs, value, risk } => Some(format!(
            "not supported by ROCm; the kernels of {runs} (same ISA family) run on it with \
             HSA_OVERRIDE_GFX_VERSION={value}, at your own risk: {risk}"
        )),
        IsaVerdict::NoOverride { instead } => Some(format!(
            "not supported by ROCm, and no HSA_OVERRIDE_GFX_VERSION value helps: {instead}"
        )),
        IsaVerdict::Supported | IsaVerdict::Unknown => None,
    }
}

/// `isa_reading`'s symptom and reasoning for `isa` (`named` as the answer says it, of `kind`),
/// given the release the text names and whether it supported the ISA (`then`); `None` for an ISA
/// the tables do not know.
fn no_code_reasoning(
    isa: &str,
    named: &str,
    kind: &str,
    then: Option<&(String, bool)>,
) -> Option<(&'static Symptom, String)> {
    let verdict = match (isa_verdict(isa), then) {
        (IsaVerdict::Override { .. } | IsaVerdict::NoOverride { .. }, Some((_, true))) => {
            IsaVerdict::Supported
        }
        (v, _) => v,
    };
    let release_note = match then {
        Some((v, true)) => format!(" (ROCm {v}, named in the text, supported it)"),
        Some((v, false)) => {
            format!(" (though not in the list of ROCm {v}, the release the text names)")
        }
        None => String::new(),
    };
    Some(match verdict {
        IsaVerdict::Supported => (
            supported_no_code(),
            format!(
                "{named}: {kind} that ROCm supports{release_note}; the build at hand lacks its \
                 code"
            ),
        ),
        IsaVerdict::Unknown => return None,
        v => (
            unsupported(),
            format!("{named}: {kind} {}", unsupported_words(&v)?),
        ),
    })
}

/// What part `isa` is, as the answers word it: an Instinct (datacenter) part, an integrated GPU
/// (checks/gpu-facts.toml `apu`) or a discrete Radeon part.
pub(crate) fn part_kind(isa: &str) -> &'static str {
    if is_datacenter(isa) {
        "an Instinct (datacenter) part"
    } else if crate::gpu::facts::is_apu_processor(isa) {
        "an integrated GPU"
    } else {
        "a discrete Radeon part"
    }
}

/// What the ISA facts say of an ISA that a line names as missing from a build.
pub(crate) struct IsaReading {
    /// The verdict's symptom ([`verdict_symptoms`]): its class and fix.
    pub symptom: &'static Symptom,
    pub reasoning: String,
    /// Whether the ISA is supported (by ROCm, or by the release the text names): the build at
    /// hand lacks its code, and no override is advised.
    pub supported: bool,
}

/// The ISA reasoning any answer calls: `isa`, named as missing by `line` of `text` (`named`: how
/// the answer names it), read against the ISA facts (`checks/why-facts.toml`: supported, the
/// same-family override and its risk, or what runs it instead), the release the text names
/// (`f`'s versions: an ISA that release supported is a build problem whatever later releases
/// dropped) and what the library build the text is about ships (`checks/builds.toml`). `None`
/// for an ISA the tables do not know.
pub(crate) fn isa_reading(
    text: &str,
    line: &str,
    isa: &str,
    named: &str,
    f: &Facts,
) -> Option<IsaReading> {
    let kind = part_kind(isa);
    let then = release_then(f, isa);
    let (symptom, reasoning) = no_code_reasoning(isa, named, kind, then.as_ref())?;
    // Whether the library build the text is about covers the ISA (checks/builds.toml).
    let rocm = f.versions.iter().find(|(w, _)| w == "rocm");
    let rocm = rocm.map(|(_, v)| v.as_str());
    let reasoning = match super::builds::coverage(text, line, isa, rocm) {
        Some(build) => format!("{reasoning}; {build}"),
        None => reasoning,
    };
    Some(IsaReading {
        supported: std::ptr::eq(symptom, supported_no_code()),
        symptom,
        reasoning,
    })
}

fn no_code(text: &str, f: &Facts, here: &super::here::Here) -> Option<Derived> {
    static TRIGGER: OnceLock<Regex> = OnceLock::new();
    let trigger = re(&TRIGGER, NO_CODE);
    let line = line_of(text, trigger)?;
    // The text's ISA, else this machine's (issue 28, item 3: the text wins, the answer says which).
    let gpu = super::here::gpu_of(&f.isas, here)?;
    let (isa, named) = (gpu.isa.as_str(), gpu.named);
    let IsaReading {
        symptom: sy,
        reasoning,
        ..
    } = isa_reading(text, &line, isa, &named, f)?;
    let reasoning = match f.differs.first() {
        Some((said, other)) if f.isas.iter().any(|(i, n)| i == isa && n.is_none()) => format!(
            "{reasoning}; the text also names {said}, which reads as {other}: the ISA it \
             states, {isa}, is the one answered for"
        ),
        _ => reasoning,
    };
    Some(Derived {
        symptom: sy,
        line,
        captures: vec![
            ("isa".into(), isa.to_string()),
            ("reasoning".into(), reasoning),
        ],
        defers_to: &[
            "lib-rocblas-data",
            "lib-hipblaslt-data",
            "lib-miopen-data",
            "gpu-igpu-interference",
            "gpu-override-misuse",
            "codeobj-xnack-sramecc",
            "codeobj-invalid-image",
            "lib-mixed-releases",
            "tensile-assembler",
            "lib-stale-path",
        ],
        overrules: ISA_DECIDES,
    })
}

/// The rules that fire on a text, most deciding first: the platform before the ISA (a WSL text's
/// missing code is a WSL question first).
#[cfg(test)]
pub(crate) fn rules(text: &str) -> Vec<Derived> {
    rules_of(text, &Facts::of(text), &super::here::Here::text_only())
}

/// [`rules`] over the facts `f` of `text`, with what this machine says about its GPUs (`here`).
pub(crate) fn rules_of(text: &str, f: &Facts, here: &super::here::Here) -> Vec<Derived> {
    [wsl(text, f), container(text, f), no_code(text, f, here)]
        .into_iter()
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(text: &str) -> Vec<String> {
        rules(text)
            .iter()
            .filter_map(|d| d.symptom.class.clone())
            .collect()
    }

    fn reasoning(text: &str, class: &str) -> String {
        rules(text)
            .into_iter()
            .find(|d| d.symptom.class.as_deref() == Some(class))
            .and_then(|d| {
                d.captures
                    .into_iter()
                    .find(|(k, _)| k == "reasoning")
                    .map(|(_, v)| v)
            })
            .unwrap_or_default()
    }

    /// tests/corpus/field-platform.toml, https://github.com/unslothai/unsloth/issues/9729 (lines of
    /// the paste)
    const UNSLOTH_9729: &str = "unset HSA_ENABLE_DXG_DETECTION\nrocminfo\n# WSL environment \
        detected.\n# hsa_init Failed, possibly no supported GPU devices\n# exit 1\n";

    /// tests/corpus/field-apps.toml, https://github.com/ollama/ollama/issues/3189
    const OLLAMA_3189: &str = "Not working (\"amdgpu [0] gfx1103 is not supported\"):\n";

    /// tests/corpus/codeobj-memory.toml, https://github.com/ROCm/legacy-rocm-build/issues/1525 (lines
    /// of the paste, each verbatim)
    const ROCM_1525: &str = "ERROR：\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"\n\nDEVICE\n**********************************\nName:                            gfx1012                            \nMarketing Name:          Navi 14 [Radeon RX 5500/5500M / Pro 5500M]\n";

    /// tests/corpus/field-apps.toml, https://github.com/jax-ml/jax/issues/13006 (lines of the paste)
    const JAX_13006: &str = "After the compilation, JAX worked on MI100 (gfx908) but not on MI210 \
        (gfx90a). \n\nWhen I run the code, I get \"hipErrorNoBinaryForGPU: Unable to find code \
        object for all current devices!\"\n";

    /// tests/corpus/gpu.toml, https://github.com/ggml-org/llama.cpp/issues/19949 (lines of the paste)
    const LLAMACPP_19949: &str = "ggml_cuda_init: found 1 ROCm devices:\n  Device 0: AMD Radeon \
        Graphics, gfx1152 (0x1152), VMM: no, Wave Size: 32\n:1:hip_fatbin.cpp           :687 : \
        114369963532 us:  No compatible code objects found for: gfx1152, value of \
        HIP_FORCE_SPIRV_CODEOBJECT: 0\n";

    #[test]
    fn the_table_loads_and_names_known_processors() {
        let t = table();
        let all = supported()
            .iter()
            .chain(&t.datacenter)
            .chain(t.release.iter().flat_map(|r| &r.isas))
            .chain(t.retired.iter().map(|r| &r.isa))
            .chain(
                t.overrides
                    .iter()
                    .flat_map(|o| o.isas.iter().chain([&o.runs])),
            )
            .chain(t.no_override.iter().flat_map(|n| &n.isas))
            .chain(t.name.iter().map(|n| &n.isa));
        for isa in all {
            assert!(
                crate::isa::processor(isa).is_some(),
                "{isa} is no processor"
            );
        }
        // An override target is itself one a build ships, never an ISA listed as unfixable.
        for o in &t.overrides {
            assert!(!o.isas.contains(&o.runs));
            assert!(!t.no_override.iter().any(|n| n.isas.contains(&o.runs)));
        }
        assert_eq!(names().len(), t.name.len());
    }

    #[test]
    fn a_wsl_text_gets_the_wsl_answer() {
        let f = Facts::of(UNSLOTH_9729);
        assert!(f.on(Platform::Wsl));
        assert_eq!(classes(UNSLOTH_9729), ["platform-wsl"]);
        assert!(reasoning(UNSLOTH_9729, "platform-wsl").contains("from the text"));
        for t in [
            "Linux host 5.15.153.1-microsoft-standard-WSL2 #1 SMP",
            "ls: cannot access '/dev/dxg'",
            "/opt/rocm/lib/librocdxg.so",
        ] {
            assert_eq!(classes(t), ["platform-wsl"], "{t}");
        }
    }

    /// tests/corpus/gpu.toml, https://github.com/ROCm/legacy-rocm-build/issues/1088
    /// (gpu-kfd-permission, native Ubuntu), then a made-up native paste whose words hold "wsl"
    /// inside others.
    /// gfx90a and gfx90c (a letter third) are ISAs of the text like gfx906 and gfx1030; a family
    /// name (`gfx9`, `gfx10`) is not. Lines in the formats CLR's `hip_code_object.cpp` and
    /// llama.cpp's `ggml_cuda_init` print ("  Device %d: %s, %s (0x%x), VMM: %s").
    #[test]
    fn isas_with_a_letter_are_named_and_family_names_are_not() {
        let t = "  Device 0: AMD Instinct MI210, gfx90a:sramecc+:xnack- (0x90a), VMM: no\n\
                 :1:hip_code_object.cpp      :516 : 2541 us:     amdgcn-amd-amdhsa--gfx90c - [Not Found]\n\
                 the gfx9 and gfx10 families\n";
        let f = Facts::of(t);
        let isas: Vec<&str> = f.isas.iter().map(|(i, _)| i.as_str()).collect();
        assert!(
            isas.contains(&"gfx90a") && isas.contains(&"gfx90c"),
            "{isas:?}"
        );
        assert!(
            !isas.iter().any(|i| *i == "gfx9" || *i == "gfx10"),
            "{isas:?}"
        );
    }

    #[test]
    fn a_native_linux_text_does_not_get_the_wsl_answer() {
        let rocm_1088 = "My system is a fresh Ubuntu 18.04.4 LTS install with Ubuntu's upstream \
            kernel \"Linux 5.3.0-050300-generic #201909152230 SMP Sun Sep 15 22:32:54 UTC 2019 \
            x86_64 x86_64 x86_64 GNU/Linux\" installed. Then rocm 3.3.0 installed via apt-get \
            install rocm-dev. Then rocminfo only works for root but not regular user. As a \
            regular user rocminfo reports the dreaded HSA_STATUS_ERROR_OUT_OF_RESOURCES message \
            and fails.\n";
        let f = Facts::of(rocm_1088);
        assert!(!f.on(Platform::Wsl) && f.platforms.is_empty());
        assert!(
            f.versions.contains(&("ubuntu".into(), "18.04".into())),
            "{:?}",
            f.versions
        );
        assert!(classes(rocm_1088).is_empty());
        let native = "Unable to open /dev/kfd read-write: Permission denied\nuser is not member \
            of \"render\" group, the default DRM access group in ROCm\nLinux box 6.8.0-45-generic \
            #45-Ubuntu SMP\n/usr/lib/x86_64-linux-gnu/libwslay.so\n";
        assert!(!Facts::of(native).on(Platform::Wsl));
        assert!(classes(native).is_empty());
    }

    /// tests/corpus/field-libs.toml, https://github.com/ROCm/legacy-rocm-build/issues/5000
    /// (lines of the paste): on WSL, PyTorch's amd-smi warning is harmless, not a WSL fault.
    #[test]
    fn pytorchs_amdsmi_warning_on_wsl_is_harmless() {
        let t = "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:736: UserWarning: \
            Can't initialize amdsmi - Error code: 34\nDevice: cuda:0 AMD Radeon RX 7900 XTX : \
            native\n\nWSL environment detected.\n";
        let d = rules(t);
        assert_eq!(d.len(), 1);
        assert!(d[0].symptom.harmless);
        assert_eq!(d[0].symptom.class.as_deref(), Some("benign-other"));
    }

    /// tests/corpus/gpu.toml, https://github.com/SirUli/homeassistant-ollama-addon/issues/309
    /// and https://github.com/ollama/ollama/issues/6685 (lines of the paste); then the same
    /// failure with /dev/kfd passed, and from Docker on a Windows host (WSL's answer).
    #[test]
    fn a_container_without_dev_kfd_gets_the_device_passing_answer() {
        let haollama = "Looking at your config.yaml and Ollama's official docker-compose that \
            does allow my Vega 56 to utilized, the only thing missing that I can see is the \
            existence of /dev/kfd\n";
        assert_eq!(classes(haollama), ["gpu-container-devices"]);
        let ollama = "(base) steven@LinuxPC:~$ docker exec -it ollama rocminfo\nROCk module \
            version 6.8.5 is loaded\nUnable to open /dev/kfd read-write: Permission denied\n";
        assert_eq!(classes(ollama), ["gpu-container-devices"]);
        let passed = "docker run --device=/dev/kfd --device=/dev/dri rocm/pytorch\nUnable to open \
            /dev/kfd read-write: Permission denied\n";
        assert!(classes(passed).is_empty());
        let native = "Unable to open /dev/kfd read-write: Permission denied\n";
        assert!(classes(native).is_empty());
        let windows = "(.venv) C:\\Users\\me\\pytorch>docker run --device=/dev/dri \
            rocm/pytorch\nUnable to open /dev/kfd read-write: No such file or directory\n";
        assert_eq!(classes(windows), ["platform-wsl"]);
    }

    #[test]
    fn an_unsupported_igpu_gets_the_exact_override_of_its_family() {
        assert_eq!(classes(OLLAMA_3189), ["gpu-unsupported-asic"]);
        let r = reasoning(OLLAMA_3189, "gpu-unsupported-asic");
        assert!(r.contains("HSA_OVERRIDE_GFX_VERSION=11.0.0"), "{r}");
        assert!(
            r.contains("an integrated GPU") && r.contains("own risk"),
            "{r}"
        );
        let r = reasoning(LLAMACPP_19949, "gpu-unsupported-asic");
        assert!(r.contains("HSA_OVERRIDE_GFX_VERSION=11.5.1"), "{r}");
    }

    #[test]
    fn a_generation_with_no_working_override_is_never_told_to_set_one() {
        assert_eq!(classes(ROCM_1525), ["gpu-unsupported-asic"]);
        let r = reasoning(ROCM_1525, "gpu-unsupported-asic");
        assert!(r.starts_with("gfx1012"), "{r}");
        assert!(r.contains("no HSA_OVERRIDE_GFX_VERSION value helps"), "{r}");
        assert!(!r.contains("HSA_OVERRIDE_GFX_VERSION="), "{r}");
        // Every unfixable ISA, asked through any tool's variant of the message.
        for n in &table().no_override {
            for isa in &n.isas {
                let t = format!(
                    "rocBLAS error: Cannot read \
                    /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory \
                    for GPU arch : {isa}"
                );
                let r = reasoning(&t, "gpu-unsupported-asic");
                assert!(!r.contains("VERSION="), "{isa}: {r}");
            }
        }
    }

    /// rocBLAS' own format (`tensile_host.cpp`, checks/origins.toml: "rocBLAS error: Cannot read
    /// {}: {} for GPU arch : {}") with AMD's and Debian's paths: the answer says whether the build
    /// the text is about covers the ISA (checks/builds.toml), and says nothing of a build it
    /// cannot identify.
    #[test]
    fn the_reasoning_says_whether_the_named_build_covers_the_isa() {
        let amd =
            "rocBLAS error: Cannot read /opt/rocm-6.2.4/lib/rocblas/library/TensileLibrary.dat: \
                   No such file or directory for GPU arch : gfx1031";
        let r = reasoning(amd, "gpu-unsupported-asic");
        assert!(
            r.contains("AMD's rocBLAS for ROCm 6.2.4 has no code for gfx1031"),
            "{r}"
        );
        let debian = "rocBLAS error: Cannot read \
                      /usr/lib/x86_64-linux-gnu/rocblas/4.4.1/library/TensileLibrary.dat: Illegal \
                      seek for GPU arch : gfx1030";
        let r = reasoning(debian, "codeobj-no-binary");
        assert!(
            r.contains("Debian's rocBLAS 4.4.1 ships code for gfx1030"),
            "{r}"
        );
        let bare =
            "rocBLAS error: Cannot read TensileLibrary.dat: Illegal seek for GPU arch : gfx1031";
        let r = reasoning(bare, "gpu-unsupported-asic");
        assert!(!r.is_empty() && !r.contains("rocBLAS"), "{r}");
    }

    #[test]
    fn a_supported_datacenter_part_is_a_build_without_its_code() {
        assert_eq!(classes(JAX_13006), ["codeobj-no-binary"]);
        let r = reasoning(JAX_13006, "codeobj-no-binary");
        assert!(r.contains("an Instinct (datacenter) part"), "{r}");
        assert!(!r.contains("consumer") && !r.contains("VERSION="), "{r}");
    }

    /// tests/corpus/field-apps.toml, https://github.com/pytorch/pytorch/issues/53738 (lines of the
    /// paste), with the wheel's release changed to ROCm 3.10 (PyTorch 1.8.0 was published for
    /// rocm3.10 and rocm4.0.1): gfx803 under a release that supported it is a build without its
    /// code; under the thread's own 4.0.1, which dropped gfx803 from the support list, and with a
    /// current release, it is an ISA the release does not support.
    #[test]
    fn an_isa_the_named_release_supported_is_a_build_without_its_code() {
        let t = "Using pytorch or using the official install instructions result in \
            ``hipErrorNoBinaryForGpu: Coudn't find binary for current devices!`` for the rocm \
            version of pytorch.\n\n- PyTorch Version: 1.8 \
            (https://download.pytorch.org/whl/rocm4.0.1/torch-1.8.0%2Brocm4.0.1-cp39-cp39-linux_x86_64.whl)\n\
            - RX470 (gfx803)+ I7 4770\n";
        assert_eq!(classes(t), ["gpu-unsupported-asic"]);
        let older = t.replace("4.0.1", "3.10");
        assert_eq!(classes(&older), ["codeobj-no-binary"]);
        let r = reasoning(&older, "codeobj-no-binary");
        assert!(
            r.contains("ROCm 3.10, named in the text, supported it"),
            "{r}"
        );
        let now = "ROCm 6.2.0\nhipErrorNoBinaryForGpu: Unable to find code object for all \
            current devices!\nName: gfx803\n";
        assert_eq!(classes(now), ["gpu-unsupported-asic"]);
        assert_eq!(supported_in("gfx803", "3.10"), Some(true));
        assert_eq!(supported_in("gfx803", "3.9.1"), Some(true));
        assert_eq!(supported_in("gfx803", "4.0"), Some(false));
        assert_eq!(supported_in("gfx803", "6.2"), Some(false));
        assert_eq!(supported_in("gfx1201", "6.3"), Some(false));
        assert_eq!(supported_in("gfx1201", "6.4.1"), Some(true));
        assert_eq!(supported_in("gfx1100", "3.5"), None);
    }

    #[test]
    fn a_marketing_name_says_the_isa() {
        let t = "RuntimeError: HIP error: invalid device function\nGPU: AMD Radeon RX 6700 XT\n";
        let f = Facts::of(t);
        assert_eq!(
            f.isas,
            [("gfx1031".to_string(), Some("RX 6700 XT".to_string()))]
        );
        let r = reasoning(t, "gpu-unsupported-asic");
        assert!(r.contains("RX 6700 XT") && r.contains("=10.3.0"), "{r}");
    }

    /// The ISA a text states wins over a product name that reads as another, and the answer
    /// says so: rocminfo's agent lines (ROCm/rocminfo rocminfo.cc, "Name:" and "Marketing
    /// Name:") as an RX 6700 XT prints them under HSA_OVERRIDE_GFX_VERSION=10.3.0, then CLR's
    /// hipErrorNoBinaryForGpu.
    #[test]
    fn a_stated_isa_wins_over_a_name_and_the_answer_says_so() {
        let t = "  Name:                    gfx1030                            \n  \
                 Marketing Name:          AMD Radeon RX 6700 XT              \n\
                 \"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"\n";
        let f = Facts::of(t);
        assert_eq!(f.isas[0], ("gfx1030".to_string(), None));
        assert_eq!(
            f.differs,
            [("RX 6700 XT".to_string(), "gfx1031".to_string())]
        );
        let r = reasoning(t, "codeobj-no-binary");
        assert!(
            r.starts_with("gfx1030") && r.contains("RX 6700 XT, which reads as gfx1031"),
            "{r}"
        );
        // Without a stated ISA, the name is the fact; a PCI id in lspci's form too.
        let f = Facts::of("Marketing Name:          AMD Radeon RX 6700 XT\n");
        assert_eq!(
            f.isas,
            [("gfx1031".to_string(), Some("RX 6700 XT".to_string()))]
        );
        assert!(f.differs.is_empty());
        let lspci = "03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. \
                     [AMD/ATI] Device [1002:7550] (rev c0)\n";
        assert_eq!(
            Facts::of(lspci).isas,
            [("gfx1201".to_string(), Some("PCI id 1002:7550".to_string()))]
        );
    }

    /// The kernel's chip name and the ids of its modesetting line are ISA facts, named as the
    /// text wrote them; since IP discovery the ids alone decide; a chip name that reads as
    /// another ISA than the one the text states is in `differs`; prose is no fact.
    #[test]
    fn the_kernels_chip_names_and_ids_are_isa_facts() {
        // https://github.com/ollama/ollama/issues/2453
        let t = "amdgpu 0000:01:00.0: amdgpu: initializing kernel modesetting (POLARIS10 \
                 0x1002:0x67DF 0x1DA2:0xE366 0xE7).\n";
        assert_eq!(
            Facts::of(t).isas,
            [(
                "gfx803".to_string(),
                Some("kernel chip POLARIS10".to_string())
            )]
        );
        // https://github.com/CachyOS/linux-cachyos/issues/643
        let t = "[    4.314385] amdgpu 0000:2f:00.0: amdgpu: initializing kernel modesetting \
                 (IP DISCOVERY 0x1002:0x744C 0x148C:0x2422 0xC8).\n";
        assert_eq!(
            Facts::of(t).isas,
            [("gfx1100".to_string(), Some("PCI id 1002:744c".to_string()))]
        );
        let t = "  Name:                    gfx1030\n\
                 [    3.548555] kfd kfd: amdgpu: PITCAIRN  not supported in kfd\n";
        let f = Facts::of(t);
        assert_eq!(f.isas[0], ("gfx1030".to_string(), None));
        assert_eq!(
            f.differs,
            [("kernel chip PITCAIRN".to_string(), "gfx601".to_string())]
        );
        assert!(Facts::of("my old Hawaii card, a hawaii FirePro\n")
            .isas
            .is_empty());
        // https://lore.kernel.org/stable/ZCLsHCq46XBG1ZW3@kroah.com/: KFD's GC form (GC 11.0.4)
        let t = "kfd kfd: amdgpu: GC IP 0b0004  not supported in kfd\n";
        assert_eq!(
            Facts::of(t).isas,
            [(
                "gfx1103".to_string(),
                Some("GC IP 0b0004 = GC 11.0.4".to_string())
            )]
        );
    }

    /// A line naming three or more products is a list (what a tool supports), not the GPU at
    /// hand, as for ISAs.
    #[test]
    fn a_list_of_products_is_not_the_gpu_at_hand() {
        let t = "Supported GPUs: RX 7900 XTX, RX 6800 XT, RX 9070 XT, MI300X\n";
        assert!(Facts::of(t).isas.is_empty(), "{:?}", Facts::of(t));
    }

    #[test]
    fn word_boundaries_become_ascii_ones_and_nothing_else_changes() {
        assert_eq!(ascii_boundaries(r"\bgfx\d+\b"), r"(?-u:\b)gfx\d+(?-u:\b)");
        assert_eq!(ascii_boundaries(r"a\\b\Bc\s"), r"a\\b(?-u:\B)c\s");
        let r = Regex::new(&ascii_boundaries(r"(?i)\bROCm (\d+\.\d+)\b")).unwrap();
        assert_eq!(&r.captures("Gerät — ROCm 6.2 läuft").unwrap()[1], "6.2");
        assert!(!r.is_match("xROCm 6.2"));
    }

    #[test]
    fn the_ascii_name_filter_keeps_what_each_name_matches() {
        // Every alternative of every name starts and ends at a word boundary, the condition
        // under which the ASCII filter (names_set) is a superset of the Unicode regexes.
        for (re, isa) in names() {
            let p = re.as_str().strip_prefix("(?i)").expect("case-insensitive");
            let (mut depth, mut parts, mut cur) = (0i32, Vec::new(), String::new());
            for c in p.chars() {
                depth += i32::from(c == '(') - i32::from(c == ')');
                if c == '|' && depth == 0 {
                    parts.push(std::mem::take(&mut cur));
                } else {
                    cur.push(c);
                }
            }
            parts.push(cur);
            for a in parts {
                assert!(a.starts_with(r"\b") && a.ends_with(r"\b"), "{isa}: {a}");
            }
        }
        // A paste with non-ASCII text around the name still names it, in order of mention.
        let t = "Gerät: AMD Radeon RX 7900 XTX — “gfx1100” läuft nicht\nzweite: Radeon 780M\n";
        let f = Facts::of(t);
        let isas: Vec<&str> = f.isas.iter().map(|(i, _)| i.as_str()).collect();
        assert_eq!(isas, ["gfx1100", "gfx1103"], "{f:?}");
        // No name and no gfx: nothing, without a line-by-line search.
        assert!(Facts::of("plain text — ohne GPU\n").isas.is_empty());
    }

    #[test]
    fn a_list_of_targets_is_not_the_gpu_at_hand() {
        let t = "amdgpu is not supported (supported types:[gfx1030 gfx1100 gfx1101 gfx1102 gfx900 \
            gfx906 gfx908 gfx90a gfx942])\n";
        assert!(Facts::of(t).isas.is_empty());
        assert!(classes(t).is_empty());
        // And without a failure, an ISA is only a fact.
        assert!(classes("Name: gfx1035\nMarketing Name: AMD Radeon 680M").is_empty());
    }

    #[test]
    fn versions_platforms_and_errnos_are_entities() {
        let t = "torch 2.6.0+rocm6.4.1\nROCm version: 6.4.1\nHIP version: 6.4.43482\nLinux gpu1 \
            6.8.0-45-generic x86_64\nUbuntu 24.04 LTS\nsrun -N1 ./a.out\nopen /dev/kfd failed: \
            EACCES\n/nix/store/abc-rocm-runtime/lib\ndocker run --device=/dev/kfd rocm/pytorch\n";
        let f = Facts::of(t);
        let has = |k: &str, v: &str| f.versions.contains(&(k.to_string(), v.to_string()));
        assert!(
            has("torch", "2.6.0") && has("torch-rocm", "6.4.1"),
            "{:?}",
            f.versions
        );
        assert!(
            has("rocm", "6.4.1") && has("hip", "6.4.43482"),
            "{:?}",
            f.versions
        );
        assert!(
            has("kernel", "6.8.0-45-generic") && has("ubuntu", "24.04"),
            "{:?}",
            f.versions
        );
        assert_eq!(
            f.platforms,
            [Platform::Container, Platform::Slurm, Platform::Nix]
        );
        assert_eq!(f.errnos, ["EACCES"]);
    }

    fn wsl_answer_of(text: &str) -> (String, String) {
        let d = rules(text)
            .into_iter()
            .find(|d| d.symptom.class.as_deref() == Some("platform-wsl"))
            .expect("a WSL answer");
        let why = d
            .captures
            .into_iter()
            .find(|(k, _)| k == "reasoning")
            .map(|(_, v)| v)
            .unwrap_or_default();
        (d.symptom.id.clone(), why)
    }

    /// tests/corpus/field-fresh.toml, https://github.com/ROCm/ROCm/issues/3015 (lines of the
    /// paste): the files rocBLAS lists after "List of available TensileLibrary Files" are what
    /// the build ships, not GPUs of the machine; the ISA its error names is.
    #[test]
    fn rocblas_list_of_tensile_files_names_no_gpu() {
        let t = "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No \
            such file or directory for GPU arch : gfx1036\n List of available TensileLibrary Files \
            : \n\"/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat\"\n\"/opt/rocm/lib/\
            rocblas/library/TensileLibrary_lazy_gfx1100.dat\"\n";
        let isas: Vec<String> = Facts::of(t).isas.into_iter().map(|(i, _)| i).collect();
        assert_eq!(isas, ["gfx1036"]);
        // A line that says more than a file name still names its ISA.
        let used =
            "using /opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat for gfx1030\n";
        assert_eq!(Facts::of(used).isas.len(), 1);
    }

    /// Every `[[wsl]]` row cites its source, and a row with a runtime names its point release.
    #[test]
    fn the_wsl_matrix_rows_cite_their_sources() {
        let rows = &table().wsl;
        assert!(rows.len() >= 5);
        for r in rows {
            assert!(r.source.len() > 40, "{}", r.rocm);
            assert!(!r.runtime || !r.release.is_empty(), "{}", r.rocm);
        }
        assert!(rows.iter().any(|r| r.isas.contains(&"gfx1201".to_string())));
    }

    /// Made-up WSL pastes (rocminfo's agent lines): a GPU the WSL matrix does not list gets the
    /// WSL GPU answer naming the listed ISAs; a listed one (by ISA or by marketing name) does not.
    #[test]
    fn a_gpu_the_wsl_matrix_does_not_list_is_the_answer() {
        let rdna2 = "WSL environment detected.\n  Name: gfx1030\n  Marketing Name: AMD \
            Radeon RX 6800 XT\nhsa_init Failed, possibly no supported GPU devices\n";
        let (id, why) = wsl_answer_of(rdna2);
        assert_eq!(id, "facts.wsl-gpu");
        assert!(why.contains("gfx1030") && why.contains("gfx1100"), "{why}");
        assert!(why.contains("from the text"), "{why}");
        let listed = rdna2.replace("gfx1030", "gfx1100");
        assert_eq!(wsl_answer_of(&listed).0, "facts.wsl");
        let by_name = "Linux 6.6.87.2-microsoft-standard-WSL2\nGPU: AMD Radeon RX 9070 XT\n";
        assert_eq!(wsl_answer_of(by_name).0, "facts.wsl");
        // Strix Halo is listed for 7.2 only: with ROCm 6.2.3 it is not a WSL GPU.
        let halo = "WSL2 Ubuntu 24.04, ROCm 6.2.3\n  Name: gfx1151\n";
        assert_eq!(wsl_answer_of(halo).0, "facts.wsl-gpu");
        assert_eq!(
            wsl_answer_of(&halo.replace("6.2.3", "7.2.0")).0,
            "facts.wsl"
        );
    }

    /// A ROCm release AMD published no WSL runtime for (7.0: ROCm/legacy-rocm-build#5361's
    /// installer error, here in a made-up paste) gets the releases that have one; 6.2.3 does not.
    #[test]
    fn a_release_without_a_wsl_runtime_is_the_answer() {
        let t = "Linux u24 6.6.87.2-microsoft-standard-WSL2\nROCm 7.0.2\nE: Unable to locate \
            package hsa-runtime-rocr4wsl-amdgpu\n";
        let (id, why) = wsl_answer_of(t);
        assert_eq!(id, "facts.wsl-no-runtime");
        assert!(
            why.contains("ROCm 7.0.2") && why.contains("7.2 (Adrenalin 26.1.1)"),
            "{why}"
        );
        assert_eq!(
            wsl_answer_of(&t.replace("7.0.2", "5.7.1")).0,
            "facts.wsl-no-runtime"
        );
        assert_eq!(wsl_answer_of(&t.replace("7.0.2", "6.2.3")).0, "facts.wsl");
        // Not WSL: the matrix says nothing.
        assert!(
            rules("ROCm 7.0.2\nE: Unable to locate package rocm-hip-runtime\n")
                .iter()
                .all(|d| !d.symptom.id.starts_with("facts.wsl"))
        );
    }

    /// An Ubuntu release the WSL packages of the text's ROCm release are not built for (6.1.3:
    /// 22.04 only, AMD on ROCm/legacy-rocm-build#4064; a made-up paste in that thread's words).
    #[test]
    fn an_ubuntu_release_without_wsl_packages_is_the_answer() {
        let t = "WSL2 Ubuntu 24.04\nROCm 6.1.3\nE: Unable to locate package \
            hsa-runtime-rocr4wsl-amdgpu\n";
        let (id, why) = wsl_answer_of(t);
        assert_eq!(id, "facts.wsl-distro");
        assert!(why.contains("22.04 only") && why.contains("6.2.3"), "{why}");
        assert_eq!(wsl_answer_of(&t.replace("24.04", "22.04")).0, "facts.wsl");
        assert_eq!(wsl_answer_of(&t.replace("6.1.3", "6.2.3")).0, "facts.wsl");
    }

    /// A Windows driver older than the release's WSL driver gets the exact driver to install; the
    /// same driver or newer, or a release whose driver the table does not know, does not.
    #[test]
    fn a_windows_driver_older_than_the_release_needs_is_the_answer() {
        let t = "Windows 11, WSL2 Ubuntu 22.04, ROCm 6.2.3\nGPU Driver: AMD Software: Adrenalin \
            Edition 24.9.1\nrocminfo: hsa_init Failed\n";
        let (id, why) = wsl_answer_of(t);
        assert_eq!(id, "facts.wsl-driver");
        assert!(
            why.contains("Adrenalin 24.9.1") && why.contains("Edition 24.12.1"),
            "{why}"
        );
        assert_eq!(
            wsl_answer_of(&t.replace("24.9.1", "24.12.1")).0,
            "facts.wsl"
        );
        assert_eq!(wsl_answer_of(&t.replace("24.9.1", "25.3.1")).0, "facts.wsl");
        assert_eq!(wsl_answer_of(&t.replace("6.2.3", "6.3.4")).0, "facts.wsl");
        // No release named: a driver older than every WSL release's gets the newest one's.
        let old = "WSL2\nAdrenalin 23.12.1\nrocminfo: hsa_init Failed\n";
        let (id, why) = wsl_answer_of(old);
        assert_eq!(id, "facts.wsl-driver");
        assert!(why.contains("26.1.1") && why.contains("ROCm 7.2"), "{why}");
        assert_eq!(
            wsl_answer_of(&old.replace("23.12.1", "24.6.1")).0,
            "facts.wsl"
        );
    }
}
