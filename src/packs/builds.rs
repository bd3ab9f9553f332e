//! Which ISAs a library build ships (`checks/builds.toml`), and whether the build a pasted text
//! is about covers the ISA it names (issue 28, items 2 and 4: "whether the build at hand covers
//! it"). Pure: the text is all it reads; the rows marked `measured` are measured again from the
//! real roots by tests/builds_measured.rs.

use regex::Regex;
use serde::Deserialize;
use std::sync::OnceLock;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Table {
    pub(crate) build: Vec<Build>,
    /// Libraries whose callers fall back to another where they have no kernels for a GPU.
    #[serde(default)]
    pub(crate) fallback: Vec<Fallback>,
}

/// A library whose callers use another one on a GPU it has no kernels for (`[[fallback]]`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Fallback {
    pub(crate) library: Library,
    pub(crate) caller: String,
    pub(crate) instead: String,
    pub(crate) warning: String,
    #[allow(dead_code)]
    pub(crate) source: String,
}

impl Fallback {
    /// The library's name as users read it (`hipBLASLt`).
    pub(crate) fn name(&self) -> &'static str {
        self.library.name()
    }
}

/// The fallback of the library whose Tensile directory is `component` (`hipblaslt`), if its
/// callers have one.
pub(crate) fn fallback_of(component: &str) -> Option<&'static Fallback> {
    table()
        .fallback
        .iter()
        .find(|f| f.library.dir() == component)
}

/// One build of a library and the processors it has code for.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Build {
    pub(crate) library: Library,
    pub(crate) provider: Provider,
    pub(crate) of: Selector,
    pub(crate) range: String,
    pub(crate) isas: Vec<String>,
    pub(crate) how: How,
    /// The real root a measured row was read from (tests/real_roots.rs measures it again).
    #[serde(default)]
    #[allow(dead_code)]
    pub(crate) measured_in: Option<String>,
    #[serde(default)]
    pub(crate) path: Option<String>,
    pub(crate) source: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Library {
    Rocblas,
    Hipblaslt,
}

impl Library {
    fn name(self) -> &'static str {
        match self {
            Library::Rocblas => "rocBLAS",
            Library::Hipblaslt => "hipBLASLt",
        }
    }

    fn dir(self) -> &'static str {
        match self {
            Library::Rocblas => "rocblas",
            Library::Hipblaslt => "hipblaslt",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Provider {
    Amd,
    Debian,
}

/// Which version of the text selects a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Selector {
    Rocm,
    Library,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum How {
    Cited,
    Measured,
}

pub(crate) fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        crate::data::embedded(
            "checks/builds.toml",
            include_str!("../../checks/builds.toml"),
        )
    })
}

/// The build a text is about: the library its deciding line names (else the text), who made it
/// (a Debian multiarch path says Debian; anything else is read as AMD's packages), and the
/// version that selects the row.
struct Identified {
    library: Library,
    provider: Provider,
    rocm: Option<String>,
    library_version: Option<String>,
}

fn library_in(s: &str) -> Option<Library> {
    let l = s.to_ascii_lowercase();
    // hipBLASLt first: its messages and paths name Tensile files too.
    if l.contains("hipblaslt") {
        Some(Library::Hipblaslt)
    } else if l.contains("rocblas") || l.contains("tensilelibrary") {
        Some(Library::Rocblas)
    } else {
        None
    }
}

fn identify(text: &str, line: &str, rocm: Option<&str>) -> Option<Identified> {
    static DEBIAN: OnceLock<Regex> = OnceLock::new();
    static OPT: OnceLock<Regex> = OnceLock::new();
    let library = library_in(line).or_else(|| library_in(text))?;
    // A Debian (or Ubuntu universe) install: /usr/lib/<multiarch>/<library>/[<version>/]library.
    let debian = DEBIAN.get_or_init(|| {
        Regex::new(
            r"/usr/lib/[a-z0-9_]+-linux-gnu/(rocblas|hipblaslt)/(?:(\d+\.\d+\.\d+)/)?library",
        )
        .expect("a fixed regex compiles")
    });
    let mut provider = Provider::Amd;
    let mut library_version = None;
    if let Some(c) = debian.captures_iter(text).find(|c| &c[1] == library.dir()) {
        provider = Provider::Debian;
        library_version = c.get(2).map(|m| m.as_str().to_string());
    }
    let opt = OPT.get_or_init(|| {
        Regex::new(r"/opt/rocm-(\d+\.\d+(?:\.\d+)?)\b").expect("a fixed regex compiles")
    });
    let rocm = rocm
        .map(str::to_string)
        .or_else(|| opt.captures(text).map(|c| c[1].to_string()));
    Some(Identified {
        library,
        provider,
        rocm,
        library_version,
    })
}

/// The row of `table` for a build, if one is recorded.
fn row<'t>(table: &'t Table, id: &Identified) -> Option<&'t Build> {
    table.build.iter().find(|b| {
        b.library == id.library
            && b.provider == id.provider
            && match b.of {
                Selector::Rocm => id.rocm.as_deref(),
                Selector::Library => id.library_version.as_deref(),
            }
            .and_then(|v| crate::version::in_range(v, &b.range))
                == Some(true)
    })
}

/// A processor without its features (`gfx90a:xnack-` -> `gfx90a`).
fn base(isa: &str) -> &str {
    isa.split(':').next().unwrap_or(isa)
}

/// What the build the text is about ships for `isa`, as one sentence for the answer's reasoning,
/// or `None` when the text names no library build the table records. `line` is the line that
/// decided the answer (its library wins over others the text names); `rocm`, the ROCm release
/// the text names, if any (else a `/opt/rocm-X.Y` path of the text is read).
pub(crate) fn coverage(text: &str, line: &str, isa: &str, rocm: Option<&str>) -> Option<String> {
    let id = identify(text, line, rocm)?;
    let b = row(table(), &id)?;
    let who = match (b.provider, &id.library_version, &id.rocm) {
        (Provider::Debian, Some(v), _) => format!("Debian's {} {v}", b.library.name()),
        (Provider::Debian, None, Some(r)) => format!("Debian's {} of ROCm {r}", b.library.name()),
        (Provider::Debian, None, None) => format!("Debian's {}", b.library.name()),
        (Provider::Amd, _, Some(r)) => format!("AMD's {} for ROCm {r}", b.library.name()),
        (Provider::Amd, _, None) => format!("AMD's {}", b.library.name()),
    };
    let how = match (b.how, &b.path) {
        (How::Measured, Some(p)) => format!("as `rocm-doctor inspect` measured in /{p}"),
        _ => "as its build lists".to_string(),
    };
    let list = b.isas.join(", ");
    let covered = b.isas.iter().any(|i| base(i) == base(isa));
    Some(if covered {
        format!(
            "{who} ships code for {isa} ({how}: {list}; {}), so the build covers it: its files \
             are missing or unreadable where it looked",
            b.source
        )
    } else {
        format!("{who} has no code for {isa} ({how}: {list}; {})", b.source)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The release as the tests' texts write it ("ROCm 6.2.4"); `facts` reads it in `why`.
    fn cov(text: &str, isa: &str) -> Option<String> {
        let line = text.lines().next().unwrap_or("");
        let rocm = Regex::new(r"ROCm (\d+\.\d+(?:\.\d+)?)").unwrap();
        let named = rocm.captures(text).map(|c| c[1].to_string());
        coverage(text, line, isa, named.as_deref())
    }

    #[test]
    fn hipblaslt_alone_has_a_fallback_and_its_warning_is_the_harmless_symptom() {
        let fb = fallback_of("hipblaslt").expect("hipBLASLt's callers fall back");
        assert_eq!(fb.name(), "hipBLASLt");
        assert!(fallback_of("rocblas").is_none());
        assert!(fallback_of("tensile").is_none());
        // The warning as PyTorch prints it is what `why` answers as harmless.
        let line = format!(
            "UserWarning: {}! Overriding blas backend to hipblas",
            fb.warning
        );
        let hits = super::super::why::recognise(super::super::catalogue(), &line);
        let first = hits.first().expect("the fallback's warning is recognised");
        assert_eq!(first.symptom.id, "hipblaslt-unsupported-arch");
        assert!(first.symptom.harmless);
    }

    #[test]
    fn every_row_names_known_processors_and_a_valid_range() {
        for b in &table().build {
            assert!(
                crate::version::VersionRange::parse(&b.range).is_ok(),
                "{}: range {}",
                b.source,
                b.range
            );
            for i in &b.isas {
                assert!(crate::isa::processor(i).is_some(), "{}: {i}", b.source);
            }
            assert_eq!(
                b.how == How::Measured,
                b.measured_in.is_some() && b.path.is_some(),
                "{}: a measured row names its root and path, a cited one does not",
                b.source
            );
        }
    }

    #[test]
    fn amd_rocblas_of_the_named_release_has_no_gfx1031_but_has_gfx1030() {
        let t = "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: \
                 No such file or directory for GPU arch : gfx1031\nROCm 6.2.4";
        let no = cov(t, "gfx1031").expect("a build is identified");
        assert!(
            no.starts_with("AMD's rocBLAS for ROCm 6.2.4 has no code for gfx1031"),
            "{no}"
        );
        assert!(
            no.contains("TARGET_LIST") || no.contains("CMakeLists"),
            "{no}"
        );
        let yes = cov(t, "gfx1030").expect("a build is identified");
        assert!(yes.contains("ships code for gfx1030"), "{yes}");
    }

    #[test]
    fn the_release_picks_the_row_gfx803_left_rocblas_in_6_0() {
        let old = "rocBLAS warning: No paths matched /opt/rocm-5.7.1/lib/rocblas/library/*gfx803*";
        assert!(cov(old, "gfx803")
            .unwrap()
            .contains("ships code for gfx803"));
        let new = "rocBLAS warning: No paths matched /opt/rocm-6.1.0/lib/rocblas/library/*gfx803*";
        assert!(cov(new, "gfx803")
            .unwrap()
            .contains("has no code for gfx803"));
    }

    #[test]
    fn a_debian_path_selects_the_measured_debian_build() {
        let t = "rocBLAS error: Cannot read \
                 /usr/lib/x86_64-linux-gnu/rocblas/4.4.1/library/TensileLibrary.dat: Illegal seek \
                 for GPU arch : gfx1031";
        let c = cov(t, "gfx1031").expect("Debian's build is recorded");
        assert!(
            c.starts_with("Debian's rocBLAS 4.4.1 has no code for gfx1031"),
            "{c}"
        );
        assert!(c.contains("measured"), "{c}");
    }

    #[test]
    fn hipblaslt_lines_are_judged_against_hipblaslt_not_rocblas() {
        let t = "hipBLASLt error: Cannot read /opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1030.dat\nROCm 6.2.0";
        let c = cov(t, "gfx1030").expect("a build is identified");
        assert!(
            c.starts_with("AMD's hipBLASLt for ROCm 6.2.0 has no code for gfx1030"),
            "{c}"
        );
    }

    #[test]
    fn no_library_no_release_or_an_unrecorded_build_says_nothing() {
        // No library named.
        assert_eq!(cov("hipErrorNoBinaryForGpu\nROCm 6.2", "gfx1031"), None);
        // A library but no version that selects a row.
        assert_eq!(
            cov("rocBLAS error: Cannot read TensileLibrary.dat", "gfx1031"),
            None
        );
        // A release before the table's first row.
        assert_eq!(cov("rocBLAS error: x\nROCm 5.2.3", "gfx1031"), None);
        // A Debian version the table does not record.
        assert_eq!(
            cov(
                "rocBLAS error: /usr/lib/x86_64-linux-gnu/rocblas/9.9.9/library/x",
                "gfx1031"
            ),
            None
        );
    }
}
