//! Rules over the release facts of `checks/why-facts.toml` (issue 28, items 2 and 4). Pure.
//!
//! Each rule holds for every tool that prints a variant of one failure, and reasons from what
//! the text states about the user's machine (this machine is not asked; the reasoning says so):
//! - "driver vs DKMS": an amdgpu(-dkms)/rock-dkms module build failed; the kernel the text names
//!   against the newest kernel series of the ROCm release it names (`[[release]] kernel`, the
//!   release read from the package's own version stamp where it has one);
//! - "wrong platform: distribution": a package install failed on a distribution, or a release of
//!   it, that the ROCm release's packages are not built for (`[[release]] distros`);
//! - "two package sources": a ROCm package at the distribution's version number blocks AMD's
//!   (whose versions carry the release stamp, `1.0.0.60200`);
//! - "two releases mixed": a PyTorch wheel of one ROCm release with the system ROCm of another.
//!
//! `why::recognise` joins them to the answer beside [`super::facts::rules`].

use super::facts::{line_of, re, table, Derived, Release};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

/// The release rules' symptom: [`super::facts::rule_symptom`] naming the release facts.
fn new_symptom(id: &str, title: &str, class: &str, cause: &str, fix: &str) -> Symptom {
    super::facts::rule_symptom(
        id,
        title,
        class,
        cause,
        fix,
        "rule over the release facts of the text (checks/why-facts.toml [[release]], [[dkms]])",
    )
}

/// `major.minor` of a version string (`6.4.1` -> (6, 4)).
fn mm(v: &str) -> Option<(u32, u32)> {
    let mut it = v.split(['.', '-', '+', '~']);
    let a = it.next()?.parse().ok()?;
    let b = it.next()?.parse().ok()?;
    Some((a, b))
}

/// Where a rule's facts come from, as its reasoning says.
const FROM_TEXT: &str = "from the text; this machine was not asked";

fn show((a, b): (u32, u32)) -> String {
    format!("{a}.{b}")
}

/// The table's entry for a release (major.minor).
fn release(v: (u32, u32)) -> Option<&'static Release> {
    table().release.iter().find(|r| mm(&r.rocm) == Some(v))
}

/// The oldest and newest releases the table knows.
fn table_span() -> String {
    let t = &table().release;
    match (t.first(), t.last()) {
        (Some(a), Some(b)) => format!("{}-{}", a.rocm, b.rocm),
        _ => String::new(),
    }
}

/// The ROCm release a text names for the system: a package's release stamp
/// (`1.0.0.60200-66~24.04`, `6.10.5.60300`: the last dotted field, MMmmpp), an `/opt/rocm-X.Y`
/// path, or "ROCm X.Y".
fn text_release(text: &str) -> Option<(u32, u32)> {
    static STAMP: OnceLock<Regex> = OnceLock::new();
    static WORD: OnceLock<Regex> = OnceLock::new();
    let stamp = re(&STAMP, r"\b\d+\.\d+\.\d+\.([1-9])(\d\d)\d\d(?:-|\b)");
    if let Some(c) = stamp.captures(text) {
        let a = c[1].parse().ok()?;
        let b: u32 = c[2].parse().ok()?;
        return Some((a, b));
    }
    let word = re(
        &WORD,
        r"(?i)/opt/rocm-(\d+\.\d+)|\bROCm[ -]?(?:version:?\s*)?v?(\d+\.\d+)",
    );
    let c = word.captures(text)?;
    mm(c.get(1).or(c.get(2))?.as_str())
}

/// "driver vs DKMS": the amdgpu (or old rock) DKMS module did not build. The kernel it was built
/// for (DKMS's own lines) against the release's newest kernel series.
fn dkms(text: &str) -> Option<Derived> {
    static AMD: OnceLock<Regex> = OnceLock::new();
    let line = dkms_failure_line(text)?;
    if !re(&AMD, r"(?i)amdgpu|rock-dkms|/amd\.\w+/").is_match(text) {
        return None;
    }
    let kernel = dkms_kernel(text);
    let rel = dkms_release(text);
    let sy = dkms_symptom();
    let reasoning = dkms_reasoning(rel, kernel.as_deref())?;
    Some(Derived::reasoned(sy, line, reasoning).overruling(&["gpu-driver-missing"]))
}

/// The line of a text that says a DKMS build of the module failed.
pub(super) fn dkms_failure_line(text: &str) -> Option<String> {
    static FAIL: OnceLock<Regex> = OnceLock::new();
    // DKMS's messages (dkms `dkms.in`: "Bad return status for module build on kernel", the
    // apport hook's "kernel package ... is not supported", autoinstall's "failed for"), the
    // Ubuntu crash report's title, and compiler errors inside the module's build tree.
    let fail = re(
        &FAIL,
        concat!(
            r"(?i)Bad return status for module build on kernel",
            r"|ERROR \(dkms apport\): kernel package \S+ is not supported",
            r"|amdgpu kernel module failed to build|dkms autoinstall .{0,40}failed for amdgpu",
            r"|(?:amdgpu|rock)-dkms\b.{0,80}\b(?:fail|error|no longer (?:compiles|builds))",
            r"|/var/lib/dkms/amdgpu[-/]\S+.{0,200}\berror\b",
            r"|DKMS (?:\([^)]*\) )?make\.log for amdgpu|/var/tmp/amd\.\w+\S*\] Error \d",
        ),
    );
    line_of(text, fail).or_else(|| {
        // A module build tree named with a failure said in words ("cannot build", "fails").
        static TREE: OnceLock<Regex> = OnceLock::new();
        static WORDS: OnceLock<Regex> = OnceLock::new();
        let words = re(
            &WORDS,
            r"(?i)\b(?:fails?|failed|cannot build|can't build)\b",
        );
        if !words.is_match(text) {
            return None;
        }
        line_of(text, re(&TREE, r"/var/lib/dkms/amdgpu[-/]"))
    })
}

/// The kernel a DKMS build was for, as DKMS, the package manager or the crash report name it.
fn dkms_kernel(text: &str) -> Option<String> {
    static KERNEL: OnceLock<Regex> = OnceLock::new();
    re(
        &KERNEL,
        concat!(
            r"(?:on kernel:? |linux-headers-|KERNELVER=|KERNELRELEASE=|for kernel |Building for ",
            r"|/lib/modules/|DKMSKernelVersion: )(\d+\.\d+(?:\.\d+)?[\w.-]*)",
        ),
    )
    .captures(text)
    .map(|c| c[1].to_string())
}

/// The ROCm release of a DKMS build: the driver's stamp in amdgpu-dkms' package version, the
/// release the text names, or the release whose module version the text names.
fn dkms_release(text: &str) -> Option<(u32, u32)> {
    static MODULE: OnceLock<Regex> = OnceLock::new();
    static DRIVER: OnceLock<Regex> = OnceLock::new();
    let module = re(&MODULE, r"\bamdgpu[/-](\d+\.\d+)\.\d+-\d+")
        .captures(text)
        .and_then(|c| mm(&c[1]))
        .and_then(|m| {
            table()
                .dkms
                .iter()
                .find(|d| mm(&d.module) == Some(m))
                .and_then(|d| mm(&d.rocm))
        });
    // AMD GPU driver 30.x (the compatibility matrix's "AMD GPU Driver" row: 30.10 = ROCm 7.0,
    // 30.20 = 7.1, 30.30 = 7.2) stamped in amdgpu-dkms' package version (`6.16.13.30300400`).
    let driver = re(&DRIVER, r"\b\d+\.\d+\.\d+\.30([123])0\d{3}\b")
        .captures(text)
        .and_then(|c| c[1].parse::<u32>().ok())
        .map(|n| (7, n - 1));
    driver.or_else(|| text_release(text)).or(module)
}

pub(super) fn dkms_symptom() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        new_symptom(
            "facts.dkms-kernel",
            "the amdgpu DKMS module does not build for this kernel",
            "platform-dkms-kernel",
            "The amdgpu kernel module of the ROCm packages (amdgpu-dkms, rock-dkms before it) \
             failed to build for the kernel the text names: each release's module builds only \
             for the kernels of the distributions it supports, so a newer kernel (a mainline or \
             HWE kernel, a distribution upgrade) or a kernel update that changed an interface \
             breaks it, and the GPU has no driver of that release.",
            "Use a ROCm release whose amdgpu-dkms supports the kernel, boot a kernel the release \
             supports, or use the kernel's own amdgpu (amdgpu-install --no-dkms; the \
             distribution kernel already carries amdgpu and KFD).",
        )
    })
}

/// What a DKMS failure's release and kernel say: the kernel against the release's newest kernel
/// series. `None` where the table's kernel of the release does not read as a version.
pub(super) fn dkms_reasoning(rel: Option<(u32, u32)>, kernel: Option<&str>) -> Option<String> {
    let from = FROM_TEXT;
    let k = kernel.and_then(mm);
    let kernel = kernel.unwrap_or_default();
    Some(match (rel, k) {
        (Some(r), Some(kv)) => match release(r) {
            Some(entry) => {
                let newest = mm(&entry.kernel)?;
                if kv > newest {
                    format!(
                        "kernel {kernel} and ROCm {} ({from}): the kernel is newer than {}, the \
                         newest kernel series ROCm {} is built for (checks/why-facts.toml \
                         [[release]]); {}",
                        show(r),
                        entry.kernel,
                        show(r),
                        first_release_for_kernel(r, kv)
                    )
                } else {
                    format!(
                        "kernel {kernel} and ROCm {} ({from}): the kernel series is one ROCm {} \
                         supports (up to {}, checks/why-facts.toml [[release]]), so an update of \
                         that kernel changed what the module builds against: a later point \
                         release of amdgpu-dkms builds on it",
                        show(r),
                        show(r),
                        entry.kernel
                    )
                }
            }
            None => format!(
                "kernel {kernel} and ROCm {} ({from}); the release is outside the table \
                 (ROCm {}), so its kernel list was not checked",
                show(r),
                table_span()
            ),
        },
        (None, Some(_)) => format!(
            "kernel {kernel} ({from}); the text names no ROCm release, so the kernel was not \
             checked against one"
        ),
        _ => format!("a DKMS build failure of the amdgpu module ({from})"),
    })
}

/// The first release after `r` whose distributions have a kernel as new as `kv`, said as a
/// clause of the reasoning.
fn first_release_for_kernel(r: (u32, u32), kv: (u32, u32)) -> String {
    table()
        .release
        .iter()
        .find(|e| mm(&e.kernel).is_some_and(|n| n >= kv) && mm(&e.rocm) > Some(r))
        .map(|e| {
            format!(
                "ROCm {} is the first release whose distributions have a kernel that new",
                e.rocm
            )
        })
        .unwrap_or_else(|| {
            "no release of the table lists a distribution kernel that new: a newer amdgpu-dkms \
             may build on it, or the kernel's own amdgpu (--no-dkms) serves"
                .to_string()
        })
}

/// A distribution the text names: `(family, release)`, the release normalised to the form of
/// `[[release]] distros` (`ubuntu 24.04`, `rhel 9.2`, `debian 11`).
fn distro(text: &str) -> Option<(&'static str, Option<String>)> {
    static D: OnceLock<Regex> = OnceLock::new();
    let d = re(
        &D,
        r"(?ix)
          \bUbuntu\s+(?P<ubuntu>\d{2}\.\d{1,2})
        | \b(?:RHEL|Red\ Hat\ Enterprise\ Linux(?:\ Server)?(?:\ release)?)\s*(?P<rhel>\d+\.\d+)
        | \bCentOS(?:\ Linux)?(?:\ release)?\s*(?P<centos>\d+\.\d+)
        | \bRocky(?:\ Linux)?\s*(?P<rocky>\d+)
        | \bDebian\s+(?P<debian>\d+|bullseye|buster|bookworm|trixie|stretch)
        | \b(?P<debcode>bullseye|buster|stretch)\b
        | (?P<fedora>\bFedora\b|\bFC\d{2}\b|\.fc\d{2}\b)
        | (?P<opensuse>\bopenSUSE\s+(?:Tumbleweed|Leap))
        | (?P<pop>\bPop!?_?\s?OS\b|\bID\ '?pop'?)
        | (?P<neon>\bKDE\ neon\b|\bID=neon\b)
        | (?P<mint>\bLinux\ Mint\b)
        | (?P<arch>\bArch\ Linux\b|\bManjaro\b|\bEndeavourOS\b)
        | (?P<gentoo>\bGentoo\b)
        ",
    );
    let c = d.captures(text)?;
    let debian = |v: &str| match v.to_lowercase().as_str() {
        "stretch" => "9".to_string(),
        "buster" => "10".to_string(),
        "bullseye" => "11".to_string(),
        "bookworm" => "12".to_string(),
        "trixie" => "13".to_string(),
        n => n.to_string(),
    };
    if let Some(v) = c.name("ubuntu") {
        // "24.4" is how some write 24.04.
        let (a, b) = v.as_str().split_once('.')?;
        return Some(("ubuntu", Some(format!("{a}.{b:0>2}"))));
    }
    for (g, fam) in [("rhel", "rhel"), ("centos", "centos"), ("rocky", "rocky")] {
        if let Some(v) = c.name(g) {
            return Some((fam, Some(v.as_str().to_string())));
        }
    }
    if let Some(v) = c.name("debian").or(c.name("debcode")) {
        return Some(("debian", Some(debian(v.as_str()))));
    }
    for (g, fam) in [
        ("fedora", "fedora"),
        ("opensuse", "opensuse"),
        ("pop", "pop"),
        ("neon", "neon"),
        ("mint", "mint"),
        ("arch", "arch"),
        ("gentoo", "gentoo"),
    ] {
        if c.name(g).is_some() {
            return Some((fam, None));
        }
    }
    None
}

/// The name a reasoning shows for a distribution family.
fn family_name(f: &str) -> &'static str {
    match f {
        "ubuntu" => "Ubuntu",
        "rhel" => "RHEL",
        "centos" => "CentOS",
        "rocky" => "Rocky Linux",
        "debian" => "Debian",
        "fedora" => "Fedora",
        "opensuse" => "openSUSE",
        "pop" => "Pop!_OS (an Ubuntu derivative)",
        "neon" => "KDE neon (an Ubuntu derivative)",
        "mint" => "Linux Mint (an Ubuntu derivative)",
        "arch" => "Arch Linux (or a derivative)",
        _ => "Gentoo",
    }
}

/// Whether `distro` (`ubuntu 24.04`, `rhel 9.4`) is in a release's list: the same family and
/// release, or a listed release that is its prefix (`sles 15` for `sles 15.5`, `oracle 9`).
fn listed(list: &[String], family: &str, rel: &str) -> bool {
    list.iter().any(|d| {
        d.split_once(' ')
            .is_some_and(|(f, r)| f == family && (r == rel || rel.starts_with(&format!("{r}."))))
    })
}

/// A dependency that AMD's RHEL packages take from EPEL (the Perl modules of hipcc and
/// hip-base; AMD's install guide enables EPEL and CRB first).
const EPEL_SRC: &str =
    r"(?i)nothing provides perl-|Requires: perl|perl-\S+.{0,40}(?:EPEL|PowerTools|CodeReady)|EPEL";

/// "wrong platform: distribution": a package install failed (apt, dnf/yum, zypper or
/// amdgpu-install's own check) on a distribution, or a release of one, the ROCm packages are not
/// built for; or on a supported one whose packages need a repository that is not enabled.
fn distribution(text: &str) -> Option<Derived> {
    let line = install_failure_line(text)?;
    let sy = distribution_symptom();
    let reasoning = match missing_repository_or_library(text) {
        Some(r) => r,
        None => {
            let (family, rel) = distro(text)?;
            distribution_reasoning(text, family, rel.as_deref())?
        }
    };
    Some(Derived::reasoned(sy, line, reasoning).deferring_to(&["platform-package-conflict"]))
}

/// The line of a text where a package install failed on its dependencies or the installer
/// refused the distribution.
fn install_failure_line(text: &str) -> Option<String> {
    static FAIL: OnceLock<Regex> = OnceLock::new();
    let fail = re(
        &FAIL,
        concat!(
            r"(?i)but (?:it )?is not installable|nothing provides \S+ needed by|^\s*Requires: \S+",
            r"|No match for argument: \S*rocm|Unsupported (?:DEB|RPM)-based OS",
            r"|Valid metadata not found at specified URL",
            r"|Unable to locate package \S*(?:rocm|hip|amdgpu)|ubuntu\|linuxmint\|debian",
            r"|checks the distribution via the `?/etc/os-release|dependency errors",
            r"|\brequires\b.{0,20}perl-",
        ),
    );
    // A dependency on NVIDIA's CUDA packages (hip-nvcc) is another question: which CUDA
    // packages HIP's NVIDIA path needs, not the distribution release.
    text.lines()
        .find(|l| fail.is_match(l) && !l.to_lowercase().contains("cuda"))
        .map(|l| l.trim().chars().take(300).collect::<String>())
}

fn distribution_symptom() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        new_symptom(
            "facts.distribution",
            "the distribution or its release is not one the ROCm packages are built for",
            "platform-unsupported-os",
            "A package install failed on a distribution (or a release of it) that the ROCm \
             release's packages are not built for, or whose repositories the packages need are \
             not enabled: the dependencies name libraries of another distribution release, or \
             the installer refuses the distribution's ID.",
            "Install on a distribution release the ROCm release lists (its system requirements \
             page), use the ROCm release built for yours, use the distribution's own ROCm \
             packages, or enable the repositories the install guide names (EPEL/CRB on RHEL).",
        )
    })
}

/// Whether a text names a dependency AMD's RHEL packages take from EPEL ([`EPEL_SRC`]).
fn needs_epel(text: &str) -> bool {
    static EPEL: OnceLock<Regex> = OnceLock::new();
    re(&EPEL, EPEL_SRC).is_match(text)
}

/// The failures whose dependency itself says what is missing, whatever the distribution's
/// release: a Perl module of EPEL on the RHEL family, a library Ubuntu 24.04 no longer ships.
fn missing_repository_or_library(text: &str) -> Option<String> {
    let from = FROM_TEXT;
    // RHEL-family packages (`.el9`, yum/dnf, CentOS/RHEL named) missing a Perl module: AMD's
    // install guide enables EPEL and CodeReady Builder/PowerTools first, which carry them.
    static RPM: OnceLock<Regex> = OnceLock::new();
    if needs_epel(text)
        && re(
            &RPM,
            r"(?i)\.el\d+\b|\b(?:yum|dnf)\b|\bCentOS\b|\bRHEL\b|Red Hat",
        )
        .is_match(text)
    {
        return Some(format!(
            "RHEL-family packages missing a Perl module ({from}): the ROCm packages take it from \
             the repositories AMD's install guide requires to be enabled first (EPEL, and \
             CodeReady Builder or PowerTools/CRB)"
        ));
    }
    // Libraries Ubuntu 22.04 (jammy) and older ship and 24.04 (noble) does not (the Ubuntu
    // archive, packages.ubuntu.com: libtinfo5 and libncurses5 end with jammy, noble has
    // libcholmod5 and libsuitesparseconfig7, and libpython3.12 instead of 3.10): packages
    // built for 22.04 asked for on a newer release.
    static JAMMY: OnceLock<Regex> = OnceLock::new();
    let m = re(
        &JAMMY,
        concat!(
            r"\b(libtinfo5|libncurses5|libcholmod3|libsuitesparseconfig5|libpython3\.10)\b",
            r".{0,40}not installable",
        ),
    )
    .captures(text)?;
    Some(format!(
        "{} is not installable ({from}): a library of Ubuntu 22.04 and older that 24.04 no \
         longer ships, so packages built for 22.04 were asked for on a newer release \
         (Ubuntu 24.04 is built for from ROCm 6.2, checks/why-facts.toml [[release]]): use \
         AMD's repository for the running release, or add the older release's archive",
        &m[1]
    ))
}

/// What the distribution a text names (and its release) says against the release tables.
fn distribution_reasoning(text: &str, family: &str, rel: Option<&str>) -> Option<String> {
    let from = FROM_TEXT;
    let name = family_name(family);
    match (family, rel) {
        ("fedora" | "opensuse" | "pop" | "neon" | "mint" | "arch" | "gentoo", _) => Some(format!(
            "{name} ({from}) is in no release's list of distributions (ROCm {}, \
             checks/why-facts.toml [[release]]): AMD's packages and amdgpu-install are built for \
             Ubuntu LTS, RHEL, SLES, Oracle, Rocky and Debian releases only, so their \
             dependencies or the installer's distribution check fail there; the distribution's \
             own ROCm packages, or a supported distribution, are the ways that work",
            table_span()
        )),
        (fam, Some(r)) => release_of_distribution(text, fam, r),
        _ => None,
    }
}

/// A distribution's release against the releases that list it and the release the text names.
fn release_of_distribution(text: &str, fam: &str, r: &str) -> Option<String> {
    let from = FROM_TEXT;
    let name = family_name(fam);
    let listing: Vec<&str> = table()
        .release
        .iter()
        .filter(|e| listed(&e.distros, fam, r))
        .map(|e| e.rocm.as_str())
        .collect();
    let here = text_release(text).and_then(release);
    Some(match here {
        Some(e) if listed(&e.distros, fam, r) => {
            if !needs_epel(text) && fam == "ubuntu" {
                format!(
                    "{name} {r} and ROCm {} ({from}): the release is built for it, yet its \
                     dependencies are not installable: the repository configured is AMD's for \
                     another Ubuntu release (its packages depend on that release's libraries); \
                     register the repository of {name} {r}",
                    e.rocm
                )
            } else {
                format!(
                    "{name} {r} and ROCm {} ({from}): the release is built for it; the \
                     dependency missing comes from the repositories AMD's install guide requires \
                     to be enabled first (EPEL, and CodeReady Builder or PowerTools/CRB)",
                    e.rocm
                )
            }
        }
        Some(e) => format!(
            "{name} {r} and ROCm {} ({from}): {name} {r} is not among the distributions ROCm {} \
             is built for ({}); {}",
            e.rocm,
            e.rocm,
            e.distros
                .iter()
                .filter(|d| d.starts_with(fam))
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
            match listing.first() {
                Some(f) => format!("ROCm {f} is the first release built for it"),
                None => "no release of the table is built for it".to_string(),
            }
        ),
        None if listing.is_empty() => format!(
            "{name} {r} ({from}) is in no release's list of distributions (ROCm {}, \
             checks/why-facts.toml [[release]]){}: the packages were built for other releases, \
             whose libraries this one does not have",
            table_span(),
            if fam == "ubuntu" {
                "; ROCm is built for Ubuntu LTS releases only"
            } else {
                ""
            }
        ),
        None if fam != "ubuntu" && needs_epel(text) => format!(
            "{name} {r} ({from}) is built for by ROCm {}; the dependency missing comes from the \
             repositories AMD's install guide requires to be enabled first (EPEL, and CodeReady \
             Builder or PowerTools/CRB)",
            listing.join(", ")
        ),
        None if fam == "ubuntu" => format!(
            "{name} {r} ({from}) is built for only by ROCm {} (checks/why-facts.toml \
             [[release]]); packages whose dependencies are not installable there come from a \
             repository (or an installer) of another Ubuntu release: register AMD's repository \
             of one of those releases for {name} {r}",
            listing.join(", ")
        ),
        None => return None,
    })
}

/// "two package sources": AMD's ROCm packages carry the component's own version with the
/// release stamp (`rocminfo 1.0.0.60200-66~24.04`, `rocm-device-libs 1.0.0.50600-67~22.04`);
/// the distributions' packages (Debian, Ubuntu) carry the ROCm release as their version
/// (`5.7.1-3build1`), which dpkg ranks higher (Debian bug #1028307). A package at the
/// distribution's version where AMD's is asked for blocks the install.
fn package_sources(text: &str) -> Option<Derived> {
    let (pkg, version, line) = apt_depends_unstamped(text)
        .or_else(|| apt_broken_unstamped(text))
        .or_else(|| version_order(text))
        .or_else(|| offered_at_both_versions(text))?;
    Some(Derived {
        symptom: package_sources_symptom(),
        line: line.chars().take(300).collect(),
        captures: vec![(
            "reasoning".into(),
            format!(
                "{pkg} at {version}, a version without AMD's release stamp, where AMD's package \
                 is required (from the text; this machine was not asked)"
            ),
        )],
        defers_to: &[],
        overrules: &["platform-unsupported-os"],
    })
}

/// A package found at the distribution's version: (package, version, the text's line).
type Unstamped = (String, String, String);

/// Whether a package version carries AMD's release stamp (`1.0.0.60200-66`).
fn stamped(v: &str) -> bool {
    static ST: OnceLock<Regex> = OnceLock::new();
    re(&ST, r"\.\d{5}-").is_match(v)
}

/// apt: "Depends: hipcc (= 1.1.1.70204-93~24.04) but 5.7.1-3 is to be installed".
fn apt_depends_unstamped(text: &str) -> Option<Unstamped> {
    static APT: OnceLock<Regex> = OnceLock::new();
    re(
        &APT,
        r"Depends:? (?:on )?([\w.+-]+) \(= ([^)\s]+)\) but ([^\s]+) is to be installed",
    )
    .captures_iter(text)
    .find(|c| stamped(&c[2]) && !stamped(&c[3]))
    .map(|c| (c[1].to_string(), c[3].to_string(), c[0].to_string()))
}

/// apt's resolver debug: "Broken rocm:amd64 Depends on rocminfo:amd64 < 5.7.1-3build1 @ii ...
/// > (= 1.0.0.70001-42~24.04)".
fn apt_broken_unstamped(text: &str) -> Option<Unstamped> {
    static BROKEN: OnceLock<Regex> = OnceLock::new();
    let c = re(
        &BROKEN,
        r"Broken \S+ Depends on ([\w.+-]+)(?::\w+)? < ([^\s|]+) @ii[^>]*> \(= ([^)\s]+)\)",
    )
    .captures(text)?;
    (!stamped(&c[2]) && stamped(&c[3]))
        .then(|| (c[1].to_string(), c[2].to_string(), c[0].to_string()))
}

/// The version order itself, as a packager writes it: "1.0.0.50400-72~20.04 < 5.2.3-2".
fn version_order(text: &str) -> Option<Unstamped> {
    static ORDER: OnceLock<Regex> = OnceLock::new();
    let c = re(
        &ORDER,
        r"\b\d+\.\d+\.\d+\.\d{5}-\S+\s*<\s*(\d+\.\d+\.\d+-\S+)",
    )
    .captures(text)?;
    Some((
        "the ROCm packages".into(),
        c[1].to_string(),
        c[0].to_string(),
    ))
}

/// The same ROCm package offered at both kinds of version ("rocminfo amd64 5.7.1-3build1" from
/// the distribution's archive, "rocminfo amd64 1.0.0.60200-66~24.04" from AMD's) in a text whose
/// install fails.
fn offered_at_both_versions(text: &str) -> Option<Unstamped> {
    static DISTRO_PKG: OnceLock<Regex> = OnceLock::new();
    static INSTALL_FAIL: OnceLock<Regex> = OnceLock::new();
    static AMD_PKG: OnceLock<Regex> = OnceLock::new();
    let fails = re(
        &INSTALL_FAIL,
        concat!(
            r"(?i)unmet dependencies|not going to be installed|held broken packages",
            r"|no longer installs|(?:cannot|can't|fails? to|unable to) install",
        ),
    )
    .is_match(text);
    if !fails {
        return None;
    }
    re(
        &DISTRO_PKG,
        concat!(
            r"\b(rocminfo|hipcc|rocm-[\w-]+|hip-[\w-]+)\s+(?:amd64\s+)?",
            r"(\d+\.\d+\.\d+-\d+(?:build\d+|ubuntu\d*)?)(?:\s|$)",
        ),
    )
    .captures_iter(text)
    .find(|c| {
        re(
            &AMD_PKG,
            r"\b(rocminfo|hipcc|rocm-[\w-]+|hip-[\w-]+)\s+(?:amd64\s+)?\d+\.\d+\.\d+\.\d{5}-",
        )
        .captures_iter(text)
        .any(|a| a[1] == c[1])
    })
    .map(|c| (c[1].to_string(), c[2].to_string(), c[0].trim().to_string()))
}

fn package_sources_symptom() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        new_symptom(
            "facts.package-sources",
            "a distribution's ROCm package blocks AMD's",
            "platform-package-conflict",
            "AMD's ROCm packages carry each component's own version with the release stamp \
             (1.0.0.60200 = ROCm 6.2.0), while the distribution's packages carry the ROCm release \
             as their version (5.7.1-3): the package manager ranks the distribution's (or a \
             leftover's) higher and keeps it where AMD's is required, so the install breaks.",
            "Remove the distribution's ROCm packages (or the leftover), then install AMD's; and \
             pin repo.radeon.com above the distribution (an /etc/apt/preferences.d entry, as \
             AMD's install guide writes it), or use one source only.",
        )
    })
}

/// "two releases mixed": a PyTorch wheel built for one ROCm release (`torch 2.x+rocmX.Y`, or the
/// wheel index `whl/rocmX.Y`) run with the system ROCm of another (`/opt/rocm-X.Y`), and a
/// failure of the kinds such a mix gives (a missing or wrong library, a symbol, no kernel).
fn mixed(text: &str) -> Option<Derived> {
    static TORCH: OnceLock<Regex> = OnceLock::new();
    static SYSTEM: OnceLock<Regex> = OnceLock::new();
    static FAIL: OnceLock<Regex> = OnceLock::new();
    static S: OnceLock<Symptom> = OnceLock::new();
    let torch = re(
        &TORCH,
        concat!(
            r"(?i)\btorch[\w.=: -]{0,12}\d+\.\d+\.\d+(?:\.dev\d+)?\+rocm(\d+\.\d+)",
            r"|/whl/(?:nightly/)?rocm(\d+\.\d+)",
        ),
    )
    .captures(text)
    .and_then(|c| mm(c.get(1).or(c.get(2))?.as_str()))?;
    // The system's release: an `/opt/rocm-X.Y` path, or hipconfig's "HIP version: X.Y".
    let system = re(
        &SYSTEM,
        r"/opt/rocm-(\d+\.\d+)|HIP version\s*:?\s*(\d+\.\d+)",
    )
    .captures_iter(text)
    .find_map(|c| {
        let v = mm(c.get(1).or(c.get(2))?.as_str())?;
        (v != torch).then_some(v)
    })?;
    let fail = re(
        &FAIL,
        concat!(
            r"(?i)undefined symbol|symbol lookup error|cannot open shared object|no kernel image",
            r"|Could not load \S*Tensile|Could not initialize Tensile|hipErrorNoBinaryForGpu",
            r"|invalid device function|HIP error",
        ),
    );
    let line = line_of(text, fail)?;
    let sy = S.get_or_init(|| {
        new_symptom(
            "facts.mixed-releases",
            "a PyTorch wheel of one ROCm release runs with the system ROCm of another",
            "lib-mixed-releases",
            "The PyTorch wheel carries the ROCm libraries of the release it was built for; the \
             text shows it with the system ROCm of another release in the same process (a \
             library path, an extension built against the system), so libraries, their data \
             files or symbols of two releases meet.",
            "Use one release: the wheel built for the installed ROCm (the rocmX.Y index of the \
             same release), or let the wheel use its bundled libraries (no /opt/rocm in \
             LD_LIBRARY_PATH) and build extensions against the wheel's ROCm.",
        )
    });
    Some(Derived {
        symptom: sy,
        line,
        captures: vec![(
            "reasoning".into(),
            format!(
                "PyTorch built for ROCm {} and the system ROCm {} in one text (from the text; \
                 this machine was not asked)",
                show(torch),
                show(system)
            ),
        )],
        defers_to: &[],
        overrules: &["codeobj-no-binary", "lib-missing", "lib-rocblas-data"],
    })
}

/// The kernel's own verdict: KFD has no entry for the GPU's ASIC (`kfd_device.c`,
/// `kgd2kfd_probe`: "kfd not supported on this ASIC"), so no ROCm release can use it for compute
/// whatever the user space; only the ISA decides, and the kernel has said it. Where the text's
/// one GPU is one a later kernel's KFD knows, kernel_age.rs answers instead (the kernel's age).
fn kfd_asic(text: &str) -> Option<Derived> {
    static LINE: OnceLock<Regex> = OnceLock::new();
    static S: OnceLock<Symptom> = OnceLock::new();
    let line = line_of(text, re(&LINE, r"kfd not supported on this ASIC"))?;
    // The one GPU of the text is one a later kernel's KFD knows: the kernel's age answers
    // (kernel_age.rs), not this.
    let facts = super::facts::Facts::of(text);
    if super::kernel_age::refused_by_an_older_kfd(text, &facts).is_some() {
        return None;
    }
    let sy = S.get_or_init(|| {
        new_symptom(
            "facts.kfd-asic",
            "the kernel's KFD does not support this GPU",
            "gpu-unsupported-asic",
            "The amdgpu driver found the GPU, but the running kernel's compute driver (KFD) has \
             no entry for its ASIC, so no /dev/kfd node serves it and ROCm cannot compute on it.",
            "For a GPU no ROCm release supports, use OpenCL or Vulkan through the graphics \
             driver; for one a release supports, a kernel (or amdgpu-dkms) whose KFD knows it.",
        )
    });
    Some(Derived {
        symptom: sy,
        line,
        captures: vec![(
            "reasoning".into(),
            "the running kernel's KFD device table has no entry for this ASIC (its own message, \
             from the text; this machine was not asked): ROCm cannot compute on it with this \
             kernel; if the GPU is one a ROCm release supports, the kernel predates its KFD \
             support (a newer kernel, or the release's amdgpu-dkms), else the GPU is not supported"
                .into(),
        )],
        defers_to: &[],
        overrules: &["gpu-driver-missing", "gpu-kfd-permission"],
    })
}

/// The rules of this module that fire on a text, most deciding first.
pub(super) fn rules(text: &str) -> Vec<Derived> {
    [
        dkms(text),
        package_sources(text),
        distribution(text),
        mixed(text),
        kfd_asic(text),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of these tests, one after another (the timing test repeats them).
    pub(super) const SAMPLE: &str = concat!(
        "[    9.545686] amdgpu 0000:01:00.0: enabling device (0006 -> 0007)\n",
        "Building for 6.8.0-44-generic\nBuilding for architecture x86_64\n",
        "Get:1 http://archive.ubuntu.com/ubuntu noble/universe amd64 rocminfo amd64 5.7.1-3build1\n",
        ":3:rocdevice.cpp            :468 : 1234 us: [pid:1 tid:0x1] Initializing HSA stack.\n",
        "rocBLAS error: Could not initialize Tensile library\n",
        "torch 2.1.0 (ROCm 6.0), Ubuntu 22.04.4 LTS, HIP version: 6.0.32830\n",
    );

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

    #[test]
    fn the_release_tables_load_and_agree() {
        let t = table();
        assert!(!t.release.is_empty() && !t.dkms.is_empty());
        let mut last = (0, 0);
        for r in &t.release {
            let v = mm(&r.rocm).expect("a release is major.minor");
            assert!(v > last, "releases in order: {}", r.rocm);
            last = v;
            assert!(mm(&r.kernel).is_some(), "{}: kernel", r.rocm);
            for d in &r.distros {
                assert!(d.split_once(' ').is_some(), "{}: {d}", r.rocm);
            }
        }
        for d in &t.dkms {
            assert!(release(mm(&d.rocm).unwrap()).is_some(), "{}", d.rocm);
        }
    }

    /// tests/corpus/field-platform.toml, https://github.com/ROCm/legacy-rocm-build/issues/5624
    /// (lines of the paste): ROCm 6.4.4's amdgpu-dkms on Ubuntu 25.10's kernel 6.17.
    const ROCM_5624: &str = "Per the title - after upgrading to Ubuntu 25.10 from Ubuntu 25.04, \
        the amdgpu-dkms no longer compiles via DKMS. The compilation worked perfectly for the \
        6.14 kernel. \n\nROCm 6.4.4.60404-129~24.04\n\nDKMS (dkms-3.2.0) make.log for \
        amdgpu/6.12.12-2202139.24.04 for kernel 6.17.0-6-generic (x86_64)\n";

    /// tests/corpus/field-platform.toml, https://github.com/ROCm/legacy-rocm-build/issues/3701
    /// (lines of the paste): ROCm 6.2.0's amdgpu-dkms on Ubuntu 22.04's HWE update 6.8.0-44.
    const ROCM_3701: &str = "Error! Bad return status for module build on kernel: \
        6.8.0-44-generic (x86_64)\nConsult /var/lib/dkms/amdgpu/6.7.0-1787201.22.04/build/make.log \
        for more information.\ndkms autoinstall on 6.8.0-44-generic/x86_64 failed for \
        amdgpu(10)\n";

    #[test]
    fn a_dkms_build_failure_is_judged_against_the_releases_kernels() {
        assert_eq!(classes(ROCM_5624), ["platform-dkms-kernel"]);
        let r = reasoning(ROCM_5624, "platform-dkms-kernel");
        assert!(r.contains("kernel 6.17.0-6-generic and ROCm 6.4"), "{r}");
        assert!(r.contains("newer than 6.11"), "{r}");
        assert!(r.contains("this machine was not asked"), "{r}");
        // Within the release's series: a kernel update, fixed by a point release (as the
        // thread's AMD developer says of 6.2.1). The release comes from the module version.
        let r = reasoning(ROCM_3701, "platform-dkms-kernel");
        assert!(
            r.contains("ROCm 6.2") && r.contains("one ROCm 6.2 supports"),
            "{r}"
        );
        // It overrules "no driver": the failed build is why there is none.
        assert_eq!(rules(ROCM_3701)[0].overrules, ["gpu-driver-missing"]);
    }

    /// A DKMS failure of another vendor's module (NVIDIA's, as DKMS prints it) is no amdgpu
    /// question.
    #[test]
    fn another_modules_dkms_failure_is_not_amdgpus() {
        let t = "Error! Bad return status for module build on kernel: 6.8.0-45-generic \
            (x86_64)\nConsult /var/lib/dkms/nvidia/550.120/build/make.log for more information.\n";
        assert!(classes(t).is_empty());
    }

    /// tests/corpus/field-more.toml, https://github.com/ROCm/legacy-rocm-build/issues/1125, and
    /// tests/corpus/field-platform.toml, https://github.com/system76/docs/issues/490 (lines of
    /// the pastes).
    #[test]
    fn an_install_on_a_distribution_release_no_rocm_is_built_for() {
        let bullseye = "Trying to install rocm-dev on Debian Bullseye (Testing) fails due to \
            unmet dependencies.\n llvm-amdgpu : Depends: libstdc++-5-dev but it is not \
            installable or\n";
        assert_eq!(classes(bullseye), ["platform-unsupported-os"]);
        let r = reasoning(bullseye, "platform-unsupported-os");
        assert!(
            r.contains("Debian 11") && r.contains("no release's list"),
            "{r}"
        );
        let pop = "$ sudo ./amdgpu-pro-install -y --opencl=legacy,pal\nUnsupported DEB-based OS: \
            /etc/os-release ID 'pop'\n";
        let r = reasoning(pop, "platform-unsupported-os");
        assert!(r.contains("Pop!_OS"), "{r}");
    }

    /// tests/corpus/field-stack.toml, https://github.com/ROCm/legacy-rocm-build/issues/2381, and
    /// tests/corpus/field-libs.toml, https://github.com/nktice/AMD-AI/issues/3 (lines of the
    /// pastes): a supported distribution without EPEL; 22.04's libraries asked for on 24.04.
    #[test]
    fn missing_dependencies_say_which_repository_or_release() {
        let rhel = "Error:\n Problem: package rocm-hip-sdk-5.6.0.50600-67.el9.x86_64 requires \
            rocm-hip-runtime-devel = 5.6.0.50600-67.el9, but none of the providers can be \
            installed\n  - nothing provides perl-File-BaseDir needed by \
            hipcc-1.0.0.50600-67.el9.x86_64\n";
        let r = reasoning(rhel, "platform-unsupported-os");
        assert!(r.contains("EPEL"), "{r}");
        let noble = " hipsolver : Depends on: libcholmod3 but is not installable\n rocm-gdb : \
            Depends on: libtinfo5 but is not installable\n";
        let r = reasoning(noble, "platform-unsupported-os");
        assert!(r.contains("libcholmod3") && r.contains("22.04"), "{r}");
    }

    /// tests/corpus/field-stack.toml, https://github.com/ROCm/hip/issues/2099 (line of the
    /// paste): a dependency on NVIDIA's CUDA package on Debian buster is not the distribution
    /// question; and a supported release with no install failure says nothing.
    #[test]
    fn not_every_dependency_or_distribution_is_the_wrong_platform() {
        let cuda = "Debian buster\n hip-nvcc : Depends: cuda (>= 7.5) but it is not \
            installable\n";
        assert!(classes(cuda).is_empty());
        let fine = "Ubuntu 22.04.4 LTS\nROCm 6.2.0\nrocminfo: HSA_STATUS_ERROR_OUT_OF_RESOURCES\n";
        assert!(classes(fine).is_empty());
    }

    /// tests/corpus/field-platform.toml, https://github.com/ROCm/legacy-rocm-build/issues/2378,
    /// https://github.com/ROCm/rocm-install-on-linux/issues/583, and tests/corpus/
    /// field-stack.toml, https://bugs.debian.org/1028307 (lines of the pastes).
    #[test]
    fn a_distribution_package_blocking_amds_is_two_package_sources() {
        let apt = " rocm-hip-runtime-dev : Depends: rocm-device-libs (= 1.0.0.50600-67~22.04) \
            but 5.0.0-1 is to be installed\n";
        assert_eq!(classes(apt), ["platform-package-conflict"]);
        assert!(reasoning(apt, "platform-package-conflict").contains("rocm-device-libs at 5.0.0-1"));
        let broken = "Broken rocm:amd64 Depends on rocminfo:amd64 < 5.7.1-3build1 @ii mK > (= \
            1.0.0.70001-42~24.04)\n";
        assert_eq!(classes(broken), ["platform-package-conflict"]);
        let order = "\t1.0.0.50400-72~20.04 < 5.2.3-2\n";
        assert_eq!(classes(order), ["platform-package-conflict"]);
        // Two of AMD's releases (a leftover of an older one) are not the distribution's package.
        let leftover = " rocm-hip-runtime : Depends: hip-runtime-amd (= 6.2.41133.60200-66~22.04) \
            but 6.1.40093.60103-122~22.04 is to be installed\n";
        assert!(!classes(leftover).contains(&"platform-package-conflict".to_string()));
    }

    /// The mix of issue 28's example: a torch wheel of one release, the system ROCm of another.
    /// No tuning case shows both versions in its text (ROCm/pytorch#1340's paste has only the
    /// system path; its title names torch rocm5.6): the first line below is made up, the rest
    /// is that paste.
    #[test]
    fn a_wheel_of_one_release_with_the_system_rocm_of_another_is_a_mix() {
        let t = "torch 2.1.0+rocm5.6\nrocBLAS error: Could not load \
            /opt/rocm-6.0.0/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat\nrocBLAS error: \
            Could not initialize Tensile library\n";
        assert_eq!(classes(t), ["lib-mixed-releases"]);
        let r = reasoning(t, "lib-mixed-releases");
        assert!(
            r.contains("ROCm 5.6") && r.contains("system ROCm 6.0"),
            "{r}"
        );
        let same = "torch 2.3.0+rocm6.0\nrocBLAS error: Could not load \
            /opt/rocm-6.0.0/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat\n";
        assert!(classes(same).is_empty());
    }

    /// tests/corpus/field-stack.toml, https://github.com/ROCm/legacy-rocm-build/issues/538 (lines
    /// of the paste); a KFD that initialised says nothing.
    #[test]
    fn the_kernels_kfd_refusing_the_asic() {
        let t = "littlelailo@littlelailo-ubuntu:~$ dmesg | grep kfd\n[    1.171875] kfd kfd: \
            Initialized module\n[    1.172206] kfd2kgd: kfd not supported on this ASIC\n";
        assert_eq!(classes(t), ["gpu-unsupported-asic"]);
        assert!(classes("[    1.171875] kfd kfd: Initialized module\n").is_empty());
    }
}

#[cfg(test)]
mod timing {
    /// What the rules cost on a 10,000-line text, beside the facts' rules `why` already ran
    /// (`cargo test --release --lib packs::release::timing -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn rules_on_ten_thousand_lines() {
        let lines: Vec<&str> = super::tests::SAMPLE.lines().collect();
        let text: String = (0..10_000)
            .map(|i| lines[i % lines.len()])
            .collect::<Vec<_>>()
            .join("\n");
        let time = |f: &dyn Fn(&str) -> usize| {
            let t = std::time::Instant::now();
            let n = f(&text);
            (t.elapsed().as_secs_f64() * 1000.0, n)
        };
        let (a, n) = time(&|t| super::super::facts::rules(t).len());
        let (b, m) = time(&|t| super::rules(t).len());
        println!("facts::rules {a:.1} ms ({n} fired), release::rules {b:.1} ms ({m} fired)");
    }
}
