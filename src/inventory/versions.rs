//! Component versions, read from files (no tool is run): `.info/version`,
//! `include/rocm-core/rocm_version.h`, `include/hip/hip_version.h`, `share/hip/version`.
//! Formats: shared/reference/code-objects.md §5.

use crate::host::Host;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct VersionFact {
    /// `6.2.2`, `5.2.21153` (HIP's patch is a build number).
    pub version: String,
    /// The file it was read from (machine path).
    pub source: PathBuf,
}

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct RootVersions {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rocm: Option<VersionFact>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hip: Option<VersionFact>,
}

pub fn major_minor(v: &str) -> Option<(u32, u32)> {
    let mut it = v.split(['.', '-']);
    Some((
        it.next()?.trim().parse().ok()?,
        it.next()?.trim().parse().ok()?,
    ))
}

pub(crate) fn read_root_versions(host: &Host, root: &Path) -> RootVersions {
    let mut v = RootVersions::default();
    let info = root.join(".info/version");
    if let Some(ver) = host
        .fs
        .read_text(&info)
        .ok()
        .and_then(|t| parse_info_version(&t))
    {
        v.rocm = Some(VersionFact {
            version: ver,
            source: info,
        });
    }
    if v.rocm.is_none() {
        for rel in [
            "include/rocm-core/rocm_version.h",
            "include/rocm_version.h",
            "include/rocm/rocm_version.h",
        ] {
            let p = root.join(rel);
            if let Some(ver) = host
                .fs
                .read_text(&p)
                .ok()
                .and_then(|t| parse_header_version(&t, "ROCM_VERSION"))
            {
                v.rocm = Some(VersionFact {
                    version: ver,
                    source: p,
                });
                break;
            }
        }
    }
    let hh = root.join("include/hip/hip_version.h");
    if let Some(ver) = host
        .fs
        .read_text(&hh)
        .ok()
        .and_then(|t| parse_header_version(&t, "HIP_VERSION"))
    {
        v.hip = Some(VersionFact {
            version: ver,
            source: hh,
        });
    }
    if v.hip.is_none() {
        for rel in [
            "share/hip/version",
            "bin/.hipVersion",
            "hip/bin/.hipVersion",
        ] {
            let p = root.join(rel);
            if let Some(ver) = host
                .fs
                .read_text(&p)
                .ok()
                .and_then(|t| parse_hip_version_file(&t))
            {
                v.hip = Some(VersionFact {
                    version: ver,
                    source: p,
                });
                break;
            }
        }
    }
    v
}

/// `.info/version`: `6.2.2` or older `6.1.2-119`; returns `6.1.2`.
pub fn parse_info_version(text: &str) -> Option<String> {
    let line = text.lines().next()?.trim();
    let core = line.split('-').next()?;
    let nums: Vec<&str> = core.split('.').collect();
    if nums.len() < 2
        || nums
            .iter()
            .any(|n| n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    Some(nums.iter().take(3).copied().collect::<Vec<_>>().join("."))
}

/// `#define <PREFIX>_MAJOR 6` / `_MINOR` / `_PATCH` -> `6.2.2`.
pub fn parse_header_version(text: &str, prefix: &str) -> Option<String> {
    let get = |suffix: &str| -> Option<u64> {
        let name = format!("{prefix}_{suffix}");
        text.lines().find_map(|l| {
            let mut w = l.split_whitespace();
            (w.next()? == "#define" && w.next()? == name).then_some(())?;
            w.next()?
                .trim_end_matches(['u', 'U', 'l', 'L'])
                .parse()
                .ok()
        })
    };
    Some(format!(
        "{}.{}.{}",
        get("MAJOR")?,
        get("MINOR")?,
        get("PATCH").unwrap_or(0)
    ))
}

/// `HIP_VERSION_MAJOR=5` lines (`share/hip/version`, `.hipVersion`).
pub fn parse_hip_version_file(text: &str) -> Option<String> {
    let get = |k: &str| -> Option<String> {
        text.lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix(k)?
                    .strip_prefix('=')
                    .map(|v| v.trim().to_string())
            })
            .filter(|v| !v.is_empty())
    };
    Some(format!(
        "{}.{}.{}",
        get("HIP_VERSION_MAJOR")?,
        get("HIP_VERSION_MINOR")?,
        get("HIP_VERSION_PATCH").unwrap_or_else(|| "0".into())
    ))
}

/// The clang version from `clang --version`'s first line (`Debian clang version 15.0.6`,
/// `AMD clang version 18.0.0git (...)`, `clang version 19.1.7`).
pub fn parse_clang_version(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.contains("clang version"))?;
    let after = line.split("clang version").nth(1)?.trim_start();
    let v: String = after
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let v = v.trim_end_matches('.').to_string();
    (v.split('.').count() >= 2).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_version_forms() {
        assert_eq!(parse_info_version("6.2.2\n").as_deref(), Some("6.2.2"));
        assert_eq!(parse_info_version("6.1.2-119\n").as_deref(), Some("6.1.2"));
        assert_eq!(
            parse_info_version("7.0.0.70000-17").as_deref(),
            Some("7.0.0")
        );
        assert_eq!(parse_info_version("garbage"), None);
        assert_eq!(parse_info_version(""), None);
    }

    #[test]
    fn header_versions() {
        let h = "#ifndef X\n#define HIP_VERSION_MAJOR 6\n#define HIP_VERSION_MINOR 2\n#define \
            HIP_VERSION_PATCH 41134\n";
        assert_eq!(
            parse_header_version(h, "HIP_VERSION").as_deref(),
            Some("6.2.41134")
        );
        assert_eq!(
            parse_header_version("#define ROCM_VERSION_MAJOR 6", "ROCM_VERSION"),
            None
        );
    }

    #[test]
    fn debian_hip_version_file() {
        let t = "# Auto-generated by \
            cmake\nHIP_PACKAGING_VERSION_PATCH=0\nHIP_VERSION_MAJOR=5\nHIP_VERSION_MINOR=2\nHIP_VERSION_PATCH=21153\nHIP_VERSION_GITHASH=\n";
        assert_eq!(parse_hip_version_file(t).as_deref(), Some("5.2.21153"));
    }

    #[test]
    fn clang_versions() {
        assert_eq!(
            parse_clang_version("Debian clang version 15.0.6\nTarget: x").as_deref(),
            Some("15.0.6")
        );
        assert_eq!(
            parse_clang_version("Debian clang version 19.1.7 (3~deb12u1)").as_deref(),
            Some("19.1.7")
        );
        assert_eq!(parse_clang_version("AMD clang version 18.0.0git (https://github.com/RadeonOpenCompute/llvm-project roc-6.2.2 24355 77cf9ad00e298ed06e06aec0f81009510f545714)").as_deref(), Some("18.0.0"));
        assert_eq!(parse_clang_version("gcc (Debian 12.2.0-14) 12.2.0"), None);
    }
}
