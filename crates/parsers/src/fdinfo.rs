//! Pure parsers for `ps`: DRM fdinfo and the files of KFD's per-process sysfs.
//!
//! DRM fdinfo (`/proc/<pid>/fdinfo/<fd>` of a render node): one `key:<ws>value` per line
//! (kernel Documentation/gpu/drm-usage-stats.rst); `drm-client-id` identifies the open file
//! (dup'ed fds share it), `drm-pdev` the PCI device, memory keys `drm-memory-<region>` (legacy,
//! amdgpu only, = `drm-resident-<region>`) or `drm-resident-<region>`, values with an optional
//! `KiB`/`MiB` unit; amdgpu adds `pasid:` (drivers/gpu/drm/amd/amdgpu/amdgpu_fdinfo.c).
//! KFD (`/sys/class/kfd/kfd/proc/<pid>/`, drivers/gpu/drm/amd/amdkfd/kfd_process.c):
//! `pasid` `%d\n`, `vram_<gpuid>` `%llu\n` bytes, `queues/<qid>/gpuid` `%u` (no newline).

use serde::Serialize;

#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize)]
pub struct DrmFdinfo {
    pub driver: Option<String>,
    pub pdev: Option<String>,
    pub client_id: Option<u64>,
    pub pasid: Option<u32>,
    /// Resident VRAM in KiB (`drm-resident-vram`, else `drm-memory-vram`).
    pub vram_kib: Option<u64>,
    pub gtt_kib: Option<u64>,
}

/// A size value with an optional unit, in KiB (`123 KiB`, `4 MiB`, bare bytes).
pub fn kib(v: &str) -> Option<u64> {
    let mut it = v.split_whitespace();
    let n: u64 = it.next()?.parse().ok()?;
    match it.next() {
        Some("KiB") => Some(n),
        Some("MiB") => n.checked_mul(1024),
        Some("GiB") => n.checked_mul(1024 * 1024),
        None => Some(n / 1024),
        Some(_) => None,
    }
}

pub fn parse_fdinfo(text: &str) -> DrmFdinfo {
    let mut d = DrmFdinfo::default();
    let mut resident_vram = None;
    let mut memory_vram = None;
    let mut resident_gtt = None;
    let mut memory_gtt = None;
    for line in text.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        match k {
            "drm-driver" => d.driver = Some(v.to_string()),
            "drm-pdev" | "pdev" => d.pdev = Some(v.to_string()),
            "drm-client-id" => d.client_id = v.parse().ok(),
            "pasid" => d.pasid = v.parse().ok(),
            "drm-resident-vram" => resident_vram = kib(v),
            "drm-memory-vram" => memory_vram = kib(v),
            "drm-resident-gtt" => resident_gtt = kib(v),
            "drm-memory-gtt" => memory_gtt = kib(v),
            _ => {}
        }
    }
    d.vram_kib = resident_vram.or(memory_vram);
    d.gtt_kib = resident_gtt.or(memory_gtt);
    d
}

/// `Uid:` (real uid) and `NSpid:` (the pid in each nested namespace) of `/proc/<pid>/status`.
pub fn parse_status(text: &str) -> (Option<u32>, Vec<u32>) {
    let mut uid = None;
    let mut nspid = Vec::new();
    for line in text.lines() {
        if let Some(r) = line.strip_prefix("Uid:") {
            uid = r.split_whitespace().next().and_then(|u| u.parse().ok());
        } else if let Some(r) = line.strip_prefix("NSpid:") {
            nspid = r
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect();
        }
    }
    (uid, nspid)
}

/// A container hint from `/proc/<pid>/cgroup` (cgroup v2 `0::/path`): docker/containerd/podman
/// scopes and kubepods slices; `None` for host sessions and services.
pub fn container_of(cgroup: &str) -> Option<String> {
    let path = cgroup
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .or_else(|| cgroup.lines().next().and_then(|l| l.rsplit(':').next()))?;
    let known = [
        "docker",
        "containerd",
        "libpod",
        "kubepods",
        "crio",
        "lxc",
        "machine.slice",
    ];
    known
        .iter()
        .any(|k| path.contains(k))
        .then(|| path.trim().to_string())
}

/// The user name of `uid` from passwd text.
pub fn user_name(passwd: &str, uid: u32) -> Option<String> {
    passwd.lines().find_map(|l| {
        let mut f = l.split(':');
        let name = f.next()?;
        let _ = f.next();
        (f.next()?.parse::<u32>().ok()? == uid).then(|| name.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amdgpu_fdinfo_both_generations() {
        // Layout of amdgpu_show_fdinfo (drm_show_fdinfo common part since v6.5, legacy keys).
        let t = "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t42\ndrm-pdev:\t0000:03:00.0\npasid:\t32770\ndrm-total-vram:\t524288 \
            KiB\ndrm-resident-vram:\t262144 KiB\ndrm-memory-vram:\t262144 KiB\ndrm-memory-gtt: \
            \t2048 KiB\n";
        let d = parse_fdinfo(t);
        assert_eq!(d.driver.as_deref(), Some("amdgpu"));
        assert_eq!(d.client_id, Some(42));
        assert_eq!(d.pasid, Some(32770));
        assert_eq!(d.vram_kib, Some(262144));
        assert_eq!(d.gtt_kib, Some(2048));
        let old = parse_fdinfo("pdev:\t0000:03:00.0\ndrm-memory-vram:\t4 MiB\n");
        assert_eq!(old.vram_kib, Some(4096));
        assert_eq!(kib("x"), None);
    }

    #[test]
    fn status_cgroup_passwd() {
        assert_eq!(
            parse_status("Name:\tpython\nUid:\t1000\t1000\t1000\t1000\nNSpid:\t4242\t17\n"),
            (Some(1000), vec![4242, 17])
        );
        assert!(container_of("0::/system.slice/docker-abc.scope\n").is_some());
        assert!(container_of("0::/user.slice/user-1000.slice/session-2.scope\n").is_none());
        assert_eq!(
            user_name(
                "root:x:0:0::/root:/bin/sh\nal:x:1000:1000::/h:/bin/sh\n",
                1000
            )
            .as_deref(),
            Some("al")
        );
    }
}
