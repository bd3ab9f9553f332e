//! The kernel driver (`amdgpu`) and the execution environment (container, WSL).
//!
//! Driver facts (kfd-sysfs notes §5-6): `/sys/module/amdgpu/initstate` reads `live` for a loaded
//! module; a built-in driver has `/sys/module/amdgpu` but no `initstate` (rocminfo fixed its check
//! for that, ROCm/rocminfo#65) and is listed in `/lib/modules/<release>/modules.builtin`.
//! `/sys/module/amdgpu/version` exists only for the out-of-tree DKMS driver (MODULE_VERSION);
//! the in-tree driver has none, which is normal (ollama#3425 warned wrongly about it).

use crate::host::Host;
use serde::Serialize;
use std::path::Path;

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Driver {
    /// `/sys/module/amdgpu` exists.
    pub module_dir: bool,
    pub initstate: Option<String>,
    /// DKMS version (`/sys/module/amdgpu/version`).
    pub version: Option<String>,
    pub srcversion: Option<String>,
    /// `/sys/module/amdgpu/parameters/noretry` (-1 auto, 0 retry on = XNACK possible, 1 off).
    pub noretry: Option<i64>,
    /// `uname -r` as `/proc/sys/kernel/osrelease` says.
    pub kernel_release: Option<String>,
    /// Whether `modules.builtin` lists amdgpu (None when the file is unreadable).
    pub builtin_listed: Option<bool>,
}

fn trimmed(host: &Host, p: &str) -> Option<String> {
    host.fs
        .read_text(Path::new(p))
        .ok()
        .map(|s| s.trim().to_string())
}

pub(crate) fn driver(host: &Host) -> Driver {
    let kernel_release =
        trimmed(host, "/proc/sys/kernel/osrelease").filter(|s| !s.is_empty() && !s.contains('/'));
    let builtin_listed = kernel_release.as_ref().and_then(|r| {
        let text = host
            .fs
            .read_text(&Path::new("/lib/modules").join(r).join("modules.builtin"))
            .ok()?;
        Some(text.lines().any(|l| l.trim_end().ends_with("/amdgpu.ko")))
    });
    Driver {
        module_dir: host.fs.is_dir(Path::new("/sys/module/amdgpu")),
        initstate: trimmed(host, "/sys/module/amdgpu/initstate"),
        version: trimmed(host, "/sys/module/amdgpu/version"),
        srcversion: trimmed(host, "/sys/module/amdgpu/srcversion"),
        noretry: trimmed(host, "/sys/module/amdgpu/parameters/noretry")
            .and_then(|s| s.parse().ok()),
        kernel_release,
        builtin_listed,
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Environment {
    /// Evidence lines that say we run inside a container (empty: not detected).
    pub container: Vec<String>,
    /// Evidence lines for WSL.
    pub wsl: Vec<String>,
}

pub(crate) fn environment(host: &Host) -> Environment {
    let mut env = Environment::default();
    for marker in ["/.dockerenv", "/run/.containerenv"] {
        if host.fs.exists(Path::new(marker)) {
            env.container.push(format!("{marker} exists"));
        }
    }
    if let Ok(cg) = host.fs.read_text(Path::new("/proc/1/cgroup")) {
        if let Some(l) = cg.lines().find(|l| {
            ["docker", "kubepods", "containerd", "libpod", "lxc"]
                .iter()
                .any(|k| l.contains(k))
        }) {
            env.container.push(format!(
                "/proc/1/cgroup: {}",
                l.chars().take(120).collect::<String>()
            ));
        }
    }
    if let Some(v) = host.env.get_nonempty("container") {
        env.container
            .push(format!("container={v} in the environment"));
    }
    if let Ok(v) = host.fs.read_text(Path::new("/proc/version")) {
        if v.to_ascii_lowercase().contains("microsoft") {
            env.wsl.push(format!(
                "/proc/version: {}",
                v.trim().chars().take(120).collect::<String>()
            ));
        }
    }
    if host.fs.exists(Path::new("/dev/dxg")) {
        env.wsl.push("/dev/dxg exists".into());
    }
    env
}
