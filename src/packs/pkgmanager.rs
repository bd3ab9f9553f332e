//! Rules over what package managers print about ROCm's packages (issue 28, item 4: "wrong
//! platform", "two sources", "two releases mixed"). Pure.
//!
//! Each rule reads a package manager's own message, whose format its source fixes, and asks
//! which packages it names (`checks/rocm-packages.toml`, [`super::pkgnames`]):
//! - a file two packages ship (dpkg, rpm, pacman), one of them ROCm's: two builds of the same
//!   component from two sources;
//! - a dependency of a ROCm package that no configured repository provides (apt, libsolv's dnf
//!   and zypper, yum), itself not ROCm's: the packages were built for another distribution
//!   release, or a repository they rely on is not enabled;
//! - apt offering a ROCm package at a version another ROCm package cannot take: the
//!   distribution's build ranked above AMD's, or two ROCm releases' repositories.
//!
//! Each reasons from what the text states; this machine is not asked.

use super::facts::{re, rule_symptom, Derived};
use super::pkgnames::{amd_release, from_archive, from_nevra, is_rocm};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";
const ORIGIN: &str = "rule over package managers' messages and ROCm's package names \
                      (src/packs/pkgmanager.rs, checks/rocm-packages.toml)";

/// Two packages that ship the same file, as a package manager reports it.
#[derive(Debug, PartialEq)]
struct FileConflict {
    /// The package being installed, where the text names it.
    new: Option<String>,
    /// The package that owns the file already.
    owner: String,
    path: String,
    line: String,
}

/// The file conflicts of a text:
/// - dpkg (`src/main/archives.c`): "dpkg: error processing archive ARCHIVE (--unpack):" then
///   " trying to overwrite 'PATH', which is also in package OWNER VERSION" (measured with dpkg
///   1.21.22: tests/fixtures/packages/SOURCE.md);
/// - rpm (`lib/rpmprob.c`, RPMPROB_FILE_CONFLICT and RPMPROB_NEW_FILE_CONFLICT): "file PATH from
///   install of NEW conflicts with file from package OWNER", "file PATH conflicts between
///   attempted installs of A and B";
/// - pacman (`src/pacman/sync.c`, ALPM_FILECONFLICT_FILESYSTEM): "NEW: PATH exists in filesystem
///   (owned by OWNER)" (without an owner, the file belongs to no package: not a conflict of two).
fn file_conflicts(text: &str) -> Vec<FileConflict> {
    static ARCHIVE: OnceLock<Regex> = OnceLock::new();
    static DPKG: OnceLock<Regex> = OnceLock::new();
    static RPM: OnceLock<Regex> = OnceLock::new();
    static RPM_NEW: OnceLock<Regex> = OnceLock::new();
    static PACMAN: OnceLock<Regex> = OnceLock::new();
    let archive = re(
        &ARCHIVE,
        r"dpkg: error processing archive (\S+) \(--(?:unpack|install)\):",
    );
    let dpkg = re(
        &DPKG,
        r"trying to overwrite '([^']+)', which is also in package (\S+)",
    );
    let rpm = re(
        &RPM,
        r"file (\S+) from install of (\S+) conflicts with file from package (\S+)",
    );
    let rpm_new = re(
        &RPM_NEW,
        r"file (\S+) conflicts between attempted installs of (\S+) and (\S+)",
    );
    let pacman = re(
        &PACMAN,
        r"^\s*(?:error: )?([\w.+@-]+): (/\S.*?) exists in filesystem \(owned by ([\w.+@-]+)\)",
    );
    // The words every form holds, read before any line is matched (most texts have none).
    let words = [
        "trying to overwrite",
        "conflicts with file from package",
        "conflicts between attempted installs",
        "exists in filesystem",
    ];
    if !words.iter().any(|w| text.contains(w)) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut archive_now: Option<String> = None;
    for l in unwrapped_dpkg_lines(text) {
        let l = l.as_str();
        if !l.contains("dpkg: error processing archive")
            && !l.contains("trying to overwrite")
            && !l.contains("conflicts")
            && !l.contains("exists in filesystem")
        {
            continue;
        }
        let trimmed: String = l.trim().chars().take(300).collect();
        if let Some(c) = archive.captures(l) {
            archive_now = from_archive(&c[1]).map(str::to_string);
        } else if let Some(c) = dpkg.captures(l) {
            out.push(FileConflict {
                new: archive_now.clone(),
                owner: c[2].to_string(),
                path: c[1].to_string(),
                line: trimmed,
            });
        } else if let Some(c) = rpm.captures(l) {
            out.push(FileConflict {
                new: Some(from_nevra(&c[2]).to_string()),
                owner: from_nevra(&c[3]).to_string(),
                path: c[1].to_string(),
                line: trimmed,
            });
        } else if let Some(c) = rpm_new.captures(l) {
            out.push(FileConflict {
                new: Some(from_nevra(&c[2]).to_string()),
                owner: from_nevra(&c[3]).to_string(),
                path: c[1].to_string(),
                line: trimmed,
            });
        } else if let Some(c) = pacman.captures(l) {
            out.push(FileConflict {
                new: Some(c[1].to_string()),
                owner: c[3].to_string(),
                path: c[2].to_string(),
                line: trimmed,
            });
        }
    }
    out
}

/// The lines of `text`, with dpkg's two conflict lines put back together where a terminal of
/// 80 columns hard-wrapped them: a line of exactly 80 characters that holds "dpkg: error
/// processing archive" or "trying to overwrite" and does not end its sentence there (no
/// `(--unpack):`, no `which is also in package`) is joined with the next line, as the copy from
/// such a terminal split it (ROCm/legacy-rocm-build#1543's paste).
fn unwrapped_dpkg_lines(text: &str) -> Vec<String> {
    const WIDTH: usize = 80;
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let cut = l.chars().count() == WIDTH
            && ((l.contains("dpkg: error processing archive") && !l.contains("(--"))
                || (l.contains("trying to overwrite") && !l.contains("also in package")));
        if cut && i + 1 < lines.len() {
            out.push(format!("{l}{}", lines[i + 1]));
            i += 2;
        } else {
            out.push(l.to_string());
            i += 1;
        }
    }
    out
}

/// The name of a package without the release a side-by-side name carries (`rocblas-dev6.0.0`:
/// `rocblas-dev`), so AMD's versioned and unversioned packages of one component compare equal.
fn without_release(name: &str) -> &str {
    name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
}

/// "Two packages ship one file, one of them ROCm's": two builds of the same component from two
/// sources (AMD's repository and the distribution's archive or the AUR; ROCm's kernel driver
/// package and the graphics driver's; AMD's side-by-side `<name><release>` package and the
/// single-release one), which the package manager refuses to install over each other.
fn file_conflict(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    let conflicts = file_conflicts(text);
    let c = conflicts
        .iter()
        .find(|c| is_rocm(&c.owner) || c.new.as_deref().is_some_and(is_rocm))?;
    let new = c.new.as_deref().unwrap_or("the package being installed");
    let how = match c.new.as_deref() {
        Some(n) if n != c.owner && without_release(n) == without_release(&c.owner) => {
            "the same package once under AMD's side-by-side name (with its release) and once \
             under the single-release name: AMD's repository has both, and one installation \
             takes only one kind"
        }
        _ => {
            "two builds of the same component from two sources (AMD's repository beside the \
              distribution's or another packager's, or ROCm's kernel driver package beside the \
              graphics driver's)"
        }
    };
    let sy = S.get_or_init(|| {
        rule_symptom(
            "pkgmanager.file-conflict",
            "two packages ship the same file, one of them ROCm's",
            "platform-package-conflict",
            "The package manager refuses to install a ROCm package over a file another \
             installed package owns: two builds of one component from two sources (AMD's \
             repository and the distribution's, AMD's side-by-side and single-release \
             packages, ROCm's and the graphics driver's kernel module packages).",
            "Keep one source: remove the package that owns the file (apt purge / dnf remove / \
             pacman -R it, or amdgpu-install --uninstall for AMD's driver packages), then \
             install again. Do not force the overwrite: the package database would then lie \
             about who owns the file.",
            ORIGIN,
        )
    });
    Some(Derived::reasoned(
        sy,
        c.line.clone(),
        format!(
            "{new} and {} both ship {}: {how}{} ({FROM})",
            c.owner,
            c.path,
            match conflicts.len() {
                1 => String::new(),
                n => format!("; the text lists {n} files in conflict"),
            }
        ),
    ))
}

/// A dependency the package manager cannot satisfy: (the package, the dependency, the line).
type Unmet = (String, String, String);

/// The dependencies that no configured repository provides:
/// - apt (`apt-private/private-output.cc`, ShowBroken): " PKG : Depends: DEP [(OP V)] but it
///   is not installable", further dependencies of PKG on indented lines, alternatives after
///   "or"; apt 3's solver (`apt-pkg/solver3.cc`): "PKG:ARCH Depends DEP [(OP V)]" then "but
///   none of the choices are installable" (both measured with apt 2.6.1, 3.0.4 and 3.3.5:
///   tests/fixtures/packages/SOURCE.md);
/// - libsolv (`src/problems.c`, SOLVER_RULE_PKG_NOTHING_PROVIDES_DEP), as dnf prints it and
///   as zypper (libzypp) words it: "nothing provides DEP needed by NEVRA", "nothing provides
///   'DEP' needed by the to be installed NEVRA";
/// - yum 3: "Error: Package: NEVRA (REPO)" then "Requires: DEP".
fn unmet(text: &str) -> Vec<Unmet> {
    static APT_PKG: OnceLock<Regex> = OnceLock::new();
    static APT_DEP: OnceLock<Regex> = OnceLock::new();
    static APT3: OnceLock<Regex> = OnceLock::new();
    static SOLV: OnceLock<Regex> = OnceLock::new();
    static YUM_PKG: OnceLock<Regex> = OnceLock::new();
    static YUM_REQ: OnceLock<Regex> = OnceLock::new();
    let apt_pkg = re(&APT_PKG, r"^\s*([\w.+:-]+) : (?:Pre)?Depends(?: on)?: ");
    let apt_dep = re(
        &APT_DEP,
        r"(?:Depends(?: on)?: |^\s+)([\w.+:-]+)(?: \([^)]*\))? but (?:it )?is not installable",
    );
    let apt3 = re(
        &APT3,
        r"^\s*\d+\. ([\w.+-]+)(?::\w+)?=?\S* (?:Pre)?Depends ([\w.+-]+)",
    );
    let solv = re(
        &SOLV,
        r"nothing provides '?([^\s']+)(?: [<>=]+ [^\s']+)?'? needed by (?:the to be installed )?(\S+)",
    );
    let yum_pkg = re(&YUM_PKG, r"Error: Package: (\S+) \(");
    let yum_req = re(&YUM_REQ, r"^\s*Requires: (\S+)");
    if !["Depends", "nothing provides", "Requires: "]
        .iter()
        .any(|w| text.contains(w))
    {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut apt_now: Option<String> = None;
    let mut yum_now: Option<String> = None;
    let lines: Vec<&str> = text.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        let line = || l.trim().chars().take(300).collect::<String>();
        let depends = l.contains("Depends");
        if let Some(c) = depends.then(|| apt_pkg.captures(l)).flatten() {
            apt_now = Some(c[1].split(':').next().unwrap_or("").to_string());
        } else if !l.starts_with(char::is_whitespace) {
            apt_now = None;
        }
        let installable = l.contains("is not installable");
        if let (Some(p), Some(c)) = (&apt_now, installable.then(|| apt_dep.captures(l)).flatten()) {
            out.push((p.clone(), c[1].to_string(), line()));
        }
        if let Some(c) = depends.then(|| apt3.captures(l)).flatten() {
            let next = lines.get(i + 1).copied().unwrap_or("");
            if next.contains("none of the choices are installable") {
                out.push((c[1].to_string(), c[2].to_string(), line()));
            }
        }
        if !l.contains("nothing provides")
            && !l.contains("Error: Package:")
            && !l.contains("Requires:")
        {
            continue;
        }
        if let Some(c) = solv.captures(l) {
            out.push((from_nevra(&c[2]).to_string(), c[1].to_string(), line()));
        }
        if let Some(c) = yum_pkg.captures(l) {
            yum_now = Some(from_nevra(&c[1]).to_string());
        } else if let (Some(p), Some(c)) = (&yum_now, yum_req.captures(l)) {
            out.push((p.clone(), c[1].to_string(), line()));
        }
    }
    out
}

/// "A ROCm package needs what this distribution does not have": a dependency, itself not
/// ROCm's, that no configured repository provides. ROCm's packages are built per distribution
/// release and depend on that release's libraries by name (a Python, ncurses or GCC of that
/// release: libpython3.10, libtinfo5, libstdc++-7-dev), and on repositories the guide enables
/// (Ubuntu's universe, EPEL and CRB on RHEL, SUSE's modules). A dependency that is itself
/// ROCm's is the ROCm repository's own gap: not this rule.
fn unmet_dependency(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    let found: Vec<Unmet> = unmet(text)
        .into_iter()
        // The kernel's own packages (linux-headers-*, linux-modules-extra-*) are the DKMS
        // rules' (dkms.rs): the running kernel's, not the distribution release's.
        .filter(|(p, d, _)| is_rocm(p) && !is_rocm(d) && !d.starts_with("linux-"))
        .collect();
    let first = found.first()?;
    let mut pairs: Vec<String> = Vec::new();
    for (p, d, _) in &found {
        let s = format!("{p} needs {d}");
        if !pairs.contains(&s) {
            pairs.push(s);
        }
    }
    let more = pairs.len().saturating_sub(4);
    pairs.truncate(4);
    let sy = S.get_or_init(|| {
        rule_symptom(
            "pkgmanager.unmet-dependency",
            "a ROCm package needs a package that no configured repository provides",
            "platform-unsupported-os",
            "A ROCm package depends on a library package of the distribution release it was \
             built for; this machine's repositories have none of that name: the ROCm \
             repository configured is for another release of the distribution (or another \
             distribution), or a repository the packages rely on is not enabled.",
            "Use the ROCm repository for this distribution release (the codename in the \
             repository line must be this system's), or a ROCm release whose support list has \
             it; enable the repositories AMD's install guide names (Ubuntu's universe, EPEL and \
             CRB on RHEL, SUSE's development modules). Installing another release's library \
             packages by hand works around it at your own risk.",
            ORIGIN,
        )
    });
    Some(Derived::reasoned(
        sy,
        first.2.clone(),
        format!(
            "{}{}: no configured repository provides {}, and {} ({FROM})",
            pairs.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            },
            if found.len() == 1 { "it" } else { "them" },
            if found.len() == 1 {
                "it is not a ROCm package"
            } else {
                "none is a ROCm package"
            }
        ),
    ))
}

/// apt offering one ROCm package at a version another cannot take: " PKG : Depends: DEP (=
/// WANTED) but OFFERED is to be installed" (`apt-private/private-output.cc`), and the same in
/// apt's resolver debugging, "Broken PKG:ARCH Depends on DEP:ARCH < INSTALLED | CANDIDATE @.. >
/// (= WANTED)" (`apt-pkg/algorithms.cc`, ROCm/rocm-install-on-linux#583).
fn version_clash(text: &str) -> Option<(String, String, String, String, String)> {
    static APT: OnceLock<Regex> = OnceLock::new();
    static BROKEN: OnceLock<Regex> = OnceLock::new();
    let apt = re(
        &APT,
        r"([\w.+-]+)(?::\w+)? : (?:Pre)?Depends(?: on)?: ([\w.+-]+)(?::\w+)? \(= ([^)\s]+)\) but (\S+) is to be installed",
    );
    let broken = re(
        &BROKEN,
        r"Broken ([\w.+-]+)(?::\w+)? (?:Pre)?Depends on ([\w.+-]+)(?::\w+)? < (\S+)(?: \| (\S+))? @[^>]*> \(= ([^)\s]+)\)",
    );
    if !text.contains("Depends") {
        return None;
    }
    for l in text.lines().filter(|l| l.contains("Depends")) {
        let line: String = l.trim().chars().take(300).collect();
        if let Some(c) = apt.captures(l) {
            return Some((
                c[1].to_string(),
                c[2].to_string(),
                c[3].to_string(),
                c[4].to_string(),
                line,
            ));
        }
        if let Some(c) = broken.captures(l) {
            // The version apt holds: the candidate, or the installed one.
            let offered = c.get(4).map_or(&c[3], |m| m.as_str());
            if offered != "none" {
                return Some((
                    c[1].to_string(),
                    c[2].to_string(),
                    c[5].to_string(),
                    offered.to_string(),
                    line,
                ));
            }
        }
    }
    None
}

/// "apt holds a ROCm package of another source or release": the version one ROCm package
/// requires carries AMD's release stamp, the version apt holds of the other either has none
/// (the distribution's build, whose number ranks above AMD's: the same fact as
/// `stack::both_sources`) or the stamp of another ROCm release (two releases' repositories, or
/// a package held back from an earlier one).
fn version_mismatch(text: &str) -> Option<Derived> {
    static SOURCES: OnceLock<Symptom> = OnceLock::new();
    static RELEASES: OnceLock<Symptom> = OnceLock::new();
    let (pkg, dep, wanted, offered, line) = version_clash(text)?;
    if !is_rocm(&pkg) || !is_rocm(&dep) {
        return None;
    }
    let w = amd_release(&wanted)?;
    let rel = |r: (u32, u32, u32)| format!("{}.{}.{}", r.0, r.1, r.2);
    match amd_release(&offered) {
        None => {
            let sy = SOURCES.get_or_init(|| {
                rule_symptom(
                    "pkgmanager.distribution-build-ranked-higher",
                    "apt holds the distribution's build of a ROCm package where AMD's is needed",
                    "platform-package-conflict",
                    "AMD's ROCm packages require each other at AMD's exact versions; apt holds \
                     the distribution's build of one of them (or has it installed), whose \
                     version number ranks above AMD's, so AMD's packages cannot be installed.",
                    "Pin repo.radeon.com above the distribution (the /etc/apt/preferences.d \
                     entry of AMD's install guide), remove the distribution's ROCm packages \
                     (apt purge), then install AMD's again; or use the distribution's ROCm \
                     packages only.",
                    ORIGIN,
                )
            });
            Some(Derived::reasoned(
                sy,
                line,
                format!(
                    "{pkg} (ROCm {}) needs {dep} {wanted}; apt holds {dep} {offered}, which \
                     has no AMD release stamp: the distribution's build ({FROM})",
                    rel(w)
                ),
            ))
        }
        Some(o) if o != w => {
            let sy = RELEASES.get_or_init(|| {
                rule_symptom(
                    "pkgmanager.two-releases",
                    "apt holds ROCm packages of two releases",
                    "lib-mixed-releases",
                    "AMD's ROCm packages require each other at one release's exact versions; \
                     apt holds a package of another ROCm release (two releases' repositories \
                     configured, a pin, or a package held back from an earlier installation).",
                    "Configure one ROCm release's repository (check /etc/apt/sources.list.d \
                     and the pins), upgrade or remove the packages of the other release \
                     (apt list --installed | grep rocm), then install again.",
                    ORIGIN,
                )
            });
            Some(Derived::reasoned(
                sy,
                line,
                format!(
                    "{pkg} is of ROCm {} and needs {dep} {wanted}; apt holds {dep} {offered}, \
                     of ROCm {} ({FROM})",
                    rel(w),
                    rel(o)
                ),
            ))
        }
        Some(_) => None,
    }
}

/// The rules of this module that fire on a text.
pub(super) fn rules(text: &str) -> Vec<Derived> {
    [
        file_conflict(text),
        version_mismatch(text),
        unmet_dependency(text),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired(text: &str) -> Vec<(String, String)> {
        super::super::facts::class_and_reasoning(rules(text))
    }

    #[test]
    fn dpkg_refusing_a_rocm_package_over_another_packages_file() {
        // Printed by dpkg 1.21.22 here (SOURCE.md).
        let f = fired(&super::super::facts::package_fixture("dpkg-overwrite.txt"));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "platform-package-conflict");
        assert!(
            f[0].1
                .contains("rock-dkms-firmware and amdgpu-dkms-firmware both ship"),
            "{f:?}"
        );
        // The same dpkg output copied from an 80-column terminal, hard-wrapped (what `fold -w 80`
        // does to it, and what ROCm/legacy-rocm-build#1543's paste shows): read as one.
        let dpkg = super::super::facts::package_fixture("dpkg-overwrite.txt");
        let folded: String = dpkg
            .lines()
            .flat_map(|l| {
                let c: Vec<char> = l.chars().collect();
                c.chunks(80)
                    .map(|p| p.iter().collect::<String>() + "\n")
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_ne!(folded, dpkg, "the fixture has lines longer than 80 columns");
        let f = fired(&folded);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].1
                .contains("rock-dkms-firmware and amdgpu-dkms-firmware both ship"),
            "{f:?}"
        );
        // ROCm/MIOpen#2706: AMD's side-by-side package and the single-release one.
        let multi = "dpkg: error processing archive /tmp/apt-dpkg-install-sZnI2A/13-rocblas-dev_4.0.0.60000-91~22.04_amd64.deb (--unpack):\n\
                     trying to overwrite '/opt/rocm-6.0.0/include/rocblas/internal/rocblas-auxiliary.h', which is also in package rocblas-dev6.0.0 4.0.0.60000-91~22.04\n";
        let f = fired(multi);
        assert!(f[0].1.contains("side-by-side name"), "{f:?}");
        // Two packages that are not ROCm's: not this rule.
        let other =
            "dpkg: error processing archive /var/cache/apt/archives/foo_1_all.deb (--unpack):\n \
                     trying to overwrite '/usr/bin/x', which is also in package bar 1.0\n";
        assert!(fired(other).is_empty());
    }

    #[test]
    fn rpm_and_pacman_file_conflicts() {
        // rocm-arch/rocm-arch#127 (pacman).
        let pacman = "error: failed to commit transaction (conflicting files)\n\
                      comgr: /opt/rocm/include/amd_comgr.h exists in filesystem (owned by rocm-comgr)\n";
        let f = fired(pacman);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0]
            .1
            .contains("comgr and rocm-comgr both ship /opt/rocm/include/amd_comgr.h"));
        // A file no package owns: not two packages.
        let unowned = "hsakmt-roct: /opt/rocm/include/hsakmt.h exists in filesystem\n";
        assert!(fired(unowned).is_empty());
        // rpm's wording, as dnf passes it on (ROCm's HIPIFY release notes name this pair).
        let rpm = "  file /usr/bin/hipify-perl from install of hipify-clang-14.0.0.50200-65.el8.x86_64 conflicts with file from package hip-base-5.2.0.50200-65.el8.x86_64\n";
        let f = fired(rpm);
        assert!(
            f[0].1.contains("hipify-clang and hip-base both ship"),
            "{f:?}"
        );
        let docker = "file /usr/bin/docker from install of docker-ce-17.12.0.ce-1.el7.centos.x86_64 conflicts with file from package docker-common-2:1.12.6-68.gitec8512b.el7.centos.x86_64\n";
        assert!(fired(docker).is_empty());
    }

    #[test]
    fn apt_unmet_dependencies_of_a_rocm_package_in_all_three_apts() {
        for (file, n) in [
            ("apt-2.6.1-unmet.txt", 1),
            ("apt-3.0.4-unmet.txt", 2),
            ("apt-3.3.5-unmet.txt", 2),
        ] {
            let f = fired(&super::super::facts::package_fixture(file));
            assert_eq!(f.len(), 1, "{file}: {f:?}");
            assert_eq!(f[0].0, "platform-unsupported-os", "{file}");
            assert!(
                f[0].1.contains("rocm-gdb needs libpython3.10"),
                "{file}: {f:?}"
            );
            assert_eq!(f[0].1.matches("rocm-gdb needs").count(), n, "{file}: {f:?}");
        }
    }

    #[test]
    fn field_pastes_of_unmet_dependencies() {
        // ROCm/legacy-rocm-build#4042 (Ubuntu 24.04 with a 22.04 repository).
        let noble = "The following packages have unmet dependencies:\n \
                     hipsolver : Depends: libcholmod3 but it is not installable\n             \
                     Depends: libsuitesparseconfig5 but it is not installable\n \
                     rocm-gdb : Depends: libpython3.10 (>= 3.10.0) but it is not installable\n";
        let f = fired(noble);
        assert!(
            f[0].1.contains(
                "hipsolver needs libcholmod3, hipsolver needs libsuitesparseconfig5, rocm-gdb needs libpython3.10"
            ),
            "{f:?}"
        );
        // ROCm/legacy-rocm-build#1999 (zypper on SLES 15 SP4).
        let sles = "Problem: nothing provides 'libLLVM7 >= 7.0.1' needed by the to be installed rocblas-2.46.0.50400-sles153.72.x86_64\n";
        assert!(
            fired(sles)[0].1.contains("rocblas needs libLLVM7"),
            "{:?}",
            fired(sles)
        );
        // ROCm/legacy-rocm-build#1644 (dnf on EL7).
        let el7 = "  - nothing provides perl-File-BaseDir needed by hip-base-4.2.21155.5900.40200-21.el7.x86_64\n";
        assert!(fired(el7)[0].1.contains("hip-base needs perl-File-BaseDir"));
        // ROCm/legacy-rocm-build#94 (yum on CentOS 7.3).
        let yum = "Error: Package: llvm-amdgpu-3.9.dev-1.x86_64 (remote)\n           Requires: libclang.so.40()(64bit)\n";
        assert!(fired(yum)[0]
            .1
            .contains("llvm-amdgpu needs libclang.so.40()(64bit)"));
        // A ROCm package missing from the ROCm repository itself (legacy-rocm-build#1614):
        // the repository's own gap, not this rule.
        let gap = " rocm-dkms : Depends: rock-dkms but it is not installable\n";
        assert!(fired(gap).is_empty());
        // Cascades and packages that are not ROCm's: nothing.
        let cascade = " rocm-dkms : Depends: rocm-dev but it is not going to be installed\n";
        assert!(fired(cascade).is_empty());
        let other = " libzstd-dev : Depends: libzstd1 (= 1.5.5) but it is not installable\n";
        assert!(fired(other).is_empty());
        let kernel =
            " amdgpu-dkms : Depends: linux-headers-6.8.0-45-generic but it is not installable\n";
        assert!(fired(kernel).is_empty());
    }

    #[test]
    fn apt_holding_a_rocm_package_of_another_source_or_release() {
        // ROCm/rocm-install-on-linux#583: the distribution's rocminfo installed.
        let distro = "Broken rocm:amd64 Depends on rocminfo:amd64 < 5.7.1-3build1 @ii mK > (= 1.0.0.70001-42~24.04)\n";
        let f = fired(distro);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "platform-package-conflict");
        assert!(f[0].1.contains("rocm (ROCm 7.0.1) needs rocminfo"), "{f:?}");
        let plain = " rocm-hip-runtime : Depends: rocminfo (= 1.0.0.60200-66~24.04) but 5.7.1-3build1 is to be installed\n";
        assert_eq!(fired(plain)[0].0, "platform-package-conflict");
        // Two AMD releases.
        let two = " hip-runtime-amd : Depends: hsa-rocr (= 1.14.0.60200-66~22.04) but 1.12.0.60000-91~22.04 is to be installed\n";
        let f = fired(two);
        assert_eq!(f[0].0, "lib-mixed-releases", "{f:?}");
        assert!(f[0].1.contains("of ROCm 6.0.0"), "{f:?}");
        // The same release on both sides, or not ROCm's: nothing.
        let same = " rocm : Depends: rocminfo (= 1.0.0.60200-66~22.04) but 1.0.0.60200-67~22.04 is to be installed\n";
        assert!(fired(same).is_empty());
        let other = " python3-dev : Depends: python3 (= 3.12.3-0ubuntu1) but 3.12.3-0ubuntu2 is to be installed\n";
        assert!(fired(other).is_empty());
    }
}
