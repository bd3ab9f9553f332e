//! Which package names are ROCm's, and what a ROCm package's version says of its source
//! (`checks/rocm-packages.toml`). Pure.

use serde::Deserialize;
use std::sync::OnceLock;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    stems: Vec<String>,
    /// CMake package names of ROCm components that are no package's name (lower case).
    #[serde(default)]
    cmake_only: Vec<String>,
}

fn file() -> &'static File {
    static F: OnceLock<File> = OnceLock::new();
    F.get_or_init(|| {
        crate::data::embedded(
            "checks/rocm-packages.toml",
            include_str!("../../checks/rocm-packages.toml"),
        )
    })
}

/// How many stems the table has, for the embedded-table test.
#[cfg(test)]
pub(crate) fn rows() -> usize {
    file().stems.len()
}

/// Whether `name`, as a package manager prints it, is one of ROCm's packages: in lower case,
/// without a Gentoo category, an architecture (`:amd64`) or a leading "lib", the name is a stem
/// or a stem followed by a digit, '-', '.', '_' or '+'.
pub(crate) fn is_rocm(name: &str) -> bool {
    let name = name.trim().to_ascii_lowercase();
    let name = name.rsplit('/').next().unwrap_or(&name);
    let name = name.split(':').next().unwrap_or(name);
    let bare = name.strip_prefix("lib").unwrap_or(name);
    file().stems.iter().any(|s| {
        bare.strip_prefix(s.as_str()).is_some_and(|rest| {
            rest.is_empty() || rest.starts_with(|c: char| c.is_ascii_digit() || "-._+".contains(c))
        })
    })
}

/// Whether `name`, a CMake package name as `find_package` prints it (`hiprand`, `amd_comgr`,
/// `AMDDeviceLibs`), is a ROCm component's: a package-name stem with '_' read as '-', or one of
/// the CMake-only names.
pub(crate) fn is_rocm_cmake_package(name: &str) -> bool {
    let lower = name.trim().to_ascii_lowercase();
    file().cmake_only.contains(&lower) || is_rocm_library(&lower)
}

/// Whether `name`, a library as a linker's `-l` names it (`amdhip64`, `amd_comgr`,
/// `rocm_smi64`, `MIOpen`), is a ROCm component's: a package-name stem with '_' read as '-'.
pub(crate) fn is_rocm_library(name: &str) -> bool {
    is_rocm(&name.trim().replace('_', "-"))
}

/// The ROCm release AMD's repository stamps into a package's version: the component's own
/// version, then the release as five digits (`1.0.0.70001-42~24.04`: ROCm 7.0.1;
/// `4.0.0.60000-91~22.04`: 6.0.0), as AMD's packages are numbered since ROCm 4 (the versions
/// users paste from repo.radeon.com, e.g. ROCm/MIOpen#2706, ROCm/rocm-install-on-linux#583).
/// The distribution's builds have none (`5.7.1-3build1`).
pub(crate) fn amd_release(version: &str) -> Option<(u32, u32, u32)> {
    let v = version.split_once(':').map_or(version, |(_, v)| v);
    let upstream = v.split('-').next()?;
    let last = upstream.rsplit('.').next()?;
    if last.len() != 5 || !last.bytes().all(|b| b.is_ascii_digit()) || upstream == last {
        return None;
    }
    let n: u32 = last.parse().ok()?;
    let (major, minor, patch) = (n / 10000, n / 100 % 100, n % 100);
    (major >= 4).then_some((major, minor, patch))
}

/// A package's name from the file name of its archive, as dpkg and apt print it:
/// `/var/cache/apt/archives/rock-dkms_3.1-44_all.deb`, apt's numbered copies
/// `/tmp/apt-dpkg-install-sZnI2A/13-rocblas-dev_4.0.0.60000-91~22.04_amd64.deb`.
pub(crate) fn from_archive(path: &str) -> Option<&str> {
    let base = path.rsplit('/').next()?;
    let base = base.strip_suffix(".deb")?;
    let name = base.split('_').next()?;
    let name = match name.split_once('-') {
        Some((n, rest)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => rest,
        _ => name,
    };
    (!name.is_empty()).then_some(name)
}

/// A package's name from an RPM "name-version-release.arch" (`hip-base-4.2.21155.5900.40200-21.el7.x86_64`,
/// `amdgpu-dkms-1:5.18.13.50400-1510348.noarch`): everything before the first '-' that a digit
/// follows.
pub(crate) fn from_nevra(nevra: &str) -> &str {
    let b = nevra.as_bytes();
    (1..b.len())
        .find(|&i| b[i - 1] == b'-' && b[i].is_ascii_digit())
        .map_or(nevra, |i| &nevra[..i - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(file: &str) -> Vec<String> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/packages")
            .join(file);
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn every_gpu_stack_package_of_debians_rocm_team_is_rocm() {
        // The team also packages libraries beside the GPU stack: half-precision floats
        // (libhalf), the OAM and E-SMI management libraries, and the project's own tooling and
        // documentation. Not read as ROCm's: a conflict or dependency on them is not the stack's.
        let beside = [
            "libhalf-dev",
            "liboam-dev",
            "liboam1",
            "libe-smi64-1",
            "libesmi-dev",
            "libgoamdsmi-shim64-1",
            "libgoamdsmi-shim64-dev",
            "pkg-rocm-tools",
            "python-rocm-docs-doc",
            "python3-rocm-docs",
        ];
        let team = names("debian-sid-rocm-team.txt");
        assert!(team.len() > 100, "{}", team.len());
        for n in &team {
            if !beside.contains(&n.as_str()) {
                assert!(is_rocm(n), "{n} is a ROCm package of Debian");
            }
        }
        for n in names("debian-sid-not-rocm.txt") {
            assert!(!is_rocm(&n), "{n} is not ROCm's");
        }
    }

    #[test]
    fn names_of_amds_repository_and_other_distributions() {
        for n in [
            "rocm-gdb5.2.3",
            "rocblas-dev6.0.0",
            "rock-dkms",
            "rock-dkms-firmware",
            "amdgpu-dkms-firmware",
            "hip_base",
            "hip-runtime-amd",
            "hsakmt-roct",
            "rocm-dkms",
            "opencl-amd",
            "roct-thunk-interface",
            "dev-libs/rocr-runtime",
            "rocminfo:amd64",
            "miopen-hip",
        ] {
            assert!(is_rocm(n), "{n}");
        }
        for n in [
            "libpython3.10",
            "libtinfo5",
            "gcc",
            "perl-File-BaseDir",
            "rocksdb",
            "hippo",
        ] {
            assert!(!is_rocm(n), "{n}");
        }
    }

    #[test]
    fn amds_release_stamp() {
        assert_eq!(amd_release("1.0.0.70001-42~24.04"), Some((7, 0, 1)));
        assert_eq!(amd_release("4.0.0.60000-91~22.04"), Some((6, 0, 0)));
        assert_eq!(amd_release("1:5.18.13.50400-1510348"), Some((5, 4, 0)));
        assert_eq!(amd_release("5.7.1-3build1"), None);
        assert_eq!(amd_release("1:4.3-52"), None);
        assert_eq!(amd_release("60200"), None);
        assert_eq!(amd_release(""), None);
    }

    #[test]
    fn names_from_archives_and_nevras() {
        assert_eq!(
            from_archive("/var/cache/apt/archives/rock-dkms_3.1-44_all.deb"),
            Some("rock-dkms")
        );
        assert_eq!(
            from_archive(
                "/tmp/apt-dpkg-install-sZnI2A/13-rocblas-dev_4.0.0.60000-91~22.04_amd64.deb"
            ),
            Some("rocblas-dev")
        );
        assert_eq!(from_archive("rocm-gdb.tar"), None);
        assert_eq!(
            from_nevra("hip-base-4.2.21155.5900.40200-21.el7.x86_64"),
            "hip-base"
        );
        assert_eq!(
            from_nevra("amdgpu-dkms-1:5.18.13.50400-1510348.noarch"),
            "amdgpu-dkms"
        );
        assert_eq!(from_nevra("gcc"), "gcc");
    }
}
