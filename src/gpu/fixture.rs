//! The fixture manifest: what a fixture sysroot cannot hold as real files.
//!
//! A fixture tree cannot contain character devices, cannot make a sysfs read fail with EPERM
//! for root, and runs as whoever runs the tests. `<sysroot>/.rocm-doctor-fixture.toml` describes
//! those parts; it is read only when `--sysroot` is not `/`, so it can never change a verdict
//! about a real machine. Format (documented in docs/gpu.md):
//!
//! ```toml
//! [process]                 # optional: judge access as this identity instead of the doctor's own
//! uid = 1000
//! gid = 1000
//! groups = [1000, 44]
//!
//! [[device]]                # a device node; nodes not listed do not exist (ENOENT)
//! path = "/dev/kfd"
//! type = "char"             # char (default), dir or file
//! major = 510
//! minor = 0
//! mode = "0660"             # permission bits, octal
//! uid = 0
//! gid = 992
//! acl = ["user::rw", "group::rw", "group:44:rw", "mask::rw", "other::"]   # optional POSIX ACL
//! open_errno = "EINVAL"     # optional: what open(O_RDWR) returns even with permission
//!
//! [[deny]]                  # reads at or below this machine path fail with errno
//! path = "/sys/devices/virtual/kfd/kfd/topology/nodes/2"
//! errno = "EPERM"
//! ```

use super::access::{parse_acl_text, AclEntry, Credentials};
use crate::host::Host;
use serde::Deserialize;
use std::io;
use std::path::{Path, PathBuf};

pub(crate) const MANIFEST: &str = "/.rocm-doctor-fixture.toml";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    process: Option<RawProcess>,
    #[serde(default)]
    device: Vec<RawDevice>,
    #[serde(default)]
    deny: Vec<RawDeny>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProcess {
    uid: u32,
    gid: u32,
    #[serde(default)]
    groups: Vec<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDevice {
    path: String,
    #[serde(default = "default_type", rename = "type")]
    kind: String,
    #[serde(default)]
    major: u32,
    #[serde(default)]
    minor: u32,
    mode: String,
    #[serde(default)]
    uid: u32,
    #[serde(default)]
    gid: u32,
    #[serde(default)]
    acl: Option<Vec<String>>,
    #[serde(default)]
    open_errno: Option<String>,
}

fn default_type() -> String {
    "char".into()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeny {
    path: String,
    errno: String,
}

/// A device node as the manifest describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FixtureDevice {
    pub path: PathBuf,
    pub kind: String,
    pub major: u32,
    pub minor: u32,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub acl: Option<Vec<AclEntry>>,
    pub open_errno: Option<i32>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Fixture {
    /// Whether a manifest was found (then unlisted devices are absent).
    pub present: bool,
    pub process: Option<Credentials>,
    pub devices: Vec<FixtureDevice>,
    pub deny: Vec<(PathBuf, i32)>,
    /// A manifest that could not be used, with the reason.
    pub error: Option<String>,
}

/// errno names the manifest may use.
pub(crate) fn errno_from_name(name: &str) -> Option<i32> {
    use nix::errno::Errno::*;
    let e = match name {
        "EPERM" => EPERM,
        "ENOENT" => ENOENT,
        "EIO" => EIO,
        "ENXIO" => ENXIO,
        "EACCES" => EACCES,
        "EBUSY" => EBUSY,
        "ENODEV" => ENODEV,
        "EINVAL" => EINVAL,
        "ENOTDIR" => ENOTDIR,
        "EROFS" => EROFS,
        "EOPNOTSUPP" => EOPNOTSUPP,
        "ENODATA" => ENODATA,
        _ => return None,
    };
    Some(e as i32)
}

/// Parses a manifest text.
pub(crate) fn parse(text: &str) -> Result<Fixture, crate::data::DataError> {
    let raw: RawManifest = crate::data::load(MANIFEST, text)?;
    build(raw).map_err(|e| crate::data::DataError::whole(MANIFEST, e))
}

/// The manifest's meaning: paths absolute, modes octal, errnos known.
fn build(raw: RawManifest) -> Result<Fixture, String> {
    let mut f = Fixture {
        present: true,
        ..Default::default()
    };
    f.process = raw.process.map(|p| Credentials {
        uid: p.uid,
        gid: p.gid,
        groups: p.groups,
    });
    for d in raw.device {
        if !d.path.starts_with('/') {
            return Err(format!("device path '{}' must be absolute", d.path));
        }
        if !matches!(d.kind.as_str(), "char" | "dir" | "file") {
            return Err(format!(
                "device '{}': type must be char, dir or file",
                d.path
            ));
        }
        let mode = u32::from_str_radix(d.mode.trim_start_matches("0o"), 8)
            .ok()
            .filter(|m| *m <= 0o7777)
            .ok_or_else(|| {
                format!(
                    "device '{}': mode '{}' is not octal permission bits",
                    d.path, d.mode
                )
            })?;
        let acl = match &d.acl {
            Some(a) => Some(parse_acl_text(a).map_err(|e| format!("device '{}': {e}", d.path))?),
            None => None,
        };
        let open_errno = match &d.open_errno {
            Some(n) => Some(
                errno_from_name(n)
                    .ok_or_else(|| format!("device '{}': unknown errno '{n}'", d.path))?,
            ),
            None => None,
        };
        f.devices.push(FixtureDevice {
            path: PathBuf::from(&d.path),
            kind: d.kind,
            major: d.major,
            minor: d.minor,
            mode,
            uid: d.uid,
            gid: d.gid,
            acl,
            open_errno,
        });
    }
    for d in raw.deny {
        let e = errno_from_name(&d.errno)
            .ok_or_else(|| format!("deny '{}': unknown errno '{}'", d.path, d.errno))?;
        f.deny.push((PathBuf::from(d.path), e));
    }
    Ok(f)
}

/// Loads the manifest of a fixture sysroot (nothing on the real root).
pub(crate) fn load(host: &Host) -> Fixture {
    // Only a fixture has a manifest: on a live host root a file of that name decides nothing.
    if !host.fs.is_fixture() {
        return Fixture::default();
    }
    match host.fs.read_text(Path::new(MANIFEST)) {
        Ok(text) => parse(&text).unwrap_or_else(|e| Fixture {
            error: Some(e.to_string()),
            ..Default::default()
        }),
        Err(_) => Fixture::default(),
    }
}

impl Fixture {
    /// The errno a read of `path` must fail with, if a deny rule covers it.
    pub(crate) fn denied(&self, path: &Path) -> Option<io::Error> {
        self.deny
            .iter()
            .find(|(p, _)| path.starts_with(p))
            .map(|(_, e)| io::Error::from_raw_os_error(*e))
    }

    pub(crate) fn device(&self, path: &Path) -> Option<&FixtureDevice> {
        self.devices.iter().find(|d| d.path == path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_full_manifest() {
        let f = parse(
            r#"
[process]
uid = 1000
gid = 1000
groups = [1000, 44]
[[device]]
path = "/dev/kfd"
major = 510
mode = "0660"
gid = 992
open_errno = "EINVAL"
[[deny]]
path = "/sys/x/nodes/2"
errno = "EPERM"
"#,
        )
        .unwrap();
        assert_eq!(f.process.as_ref().unwrap().groups, vec![1000, 44]);
        let d = f.device(Path::new("/dev/kfd")).unwrap();
        assert_eq!(
            (d.mode, d.gid, d.kind.as_str(), d.open_errno),
            (0o660, 992, "char", Some(nix::libc::EINVAL))
        );
        assert_eq!(
            f.denied(Path::new("/sys/x/nodes/2/properties"))
                .unwrap()
                .raw_os_error(),
            Some(nix::libc::EPERM)
        );
        assert!(f.denied(Path::new("/sys/x/nodes/20/properties")).is_none());
    }

    #[test]
    fn rejects_bad_manifests_with_a_reason() {
        let e = parse("[[device]]\npath = \"dev/kfd\"\nmode = \"0660\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{MANIFEST}: device path 'dev/kfd' must be absolute")
        );
        assert!(parse("[[device]]\npath = \"/dev/kfd\"\nmode = \"rw\"\n")
            .unwrap_err()
            .message
            .contains("octal"));
        assert!(parse("[[deny]]\npath = \"/x\"\nerrno = \"EWHAT\"\n")
            .unwrap_err()
            .message
            .contains("EWHAT"));
        // A key the manifest does not have: located, named once.
        let e = parse("surprise = 1\n").unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{MANIFEST}:1:1: unknown field `surprise`")),
            "{e}"
        );
    }
}
