//! The I/O of `ps`: scans `/proc/*/fd` and `/sys/class/kfd/kfd/proc/*` through the Host's rooted
//! filesystem (so `--sysroot` fixtures work) and records what could not be seen, and why.
//! Formats: docs/ps.md and [`super::fdinfo`].

use super::fdinfo::{self, DrmFdinfo};
use crate::host::{errno_name, Host};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Processes examined at most (a /proc with more entries is cut, and says so).
const MAX_PROCS: usize = 65_536;
/// fds examined per process at most.
const MAX_FDS: usize = 65_536;

#[derive(Debug, Default, Clone, Serialize)]
pub struct GpuProcess {
    pub pid: u32,
    pub uid: Option<u32>,
    pub user: Option<String>,
    pub comm: Option<String>,
    pub cmdline: Option<String>,
    /// cgroup path when it names a container runtime or pod.
    pub container: Option<String>,
    /// The pid inside the process's own PID namespace, when nested (from `NSpid:`).
    pub ns_pid: Option<u32>,
    /// Device nodes held: `/dev/kfd`, `/dev/dri/renderD128`, ...
    pub devices: BTreeSet<String>,
    /// Render-node clients, deduplicated by `drm-client-id`.
    pub drm: Vec<DrmFdinfo>,
    /// Resident VRAM in KiB summed over distinct DRM clients.
    pub vram_kib: Option<u64>,
    /// KFD's view: VRAM bytes by gpu_id and queue count (from /sys/class/kfd/kfd/proc/<pid>).
    pub kfd_vram_bytes: BTreeMap<String, u64>,
    pub kfd_queues: u64,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct Unseen {
    /// Processes whose fd directory could not be read, with the errno name.
    pub unreadable: Vec<(u32, String)>,
    /// KFD processes (global pids) absent from this /proc: another PID namespace.
    pub kfd_not_in_proc: Vec<u32>,
    /// Their VRAM (bytes, KFD `vram_<gpuid>` summed) and user queues.
    pub kfd_not_in_proc_vram_bytes: u64,
    pub kfd_not_in_proc_queues: u64,
    /// `/proc` is mounted with hidepid.
    pub hidepid: bool,
    /// The doctor runs without root (uid != 0).
    pub not_root: bool,
    pub truncated: bool,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct Scan {
    pub processes: Vec<GpuProcess>,
    pub unseen: Unseen,
    /// `/dev/kfd` exists on this machine.
    pub kfd_present: bool,
    pub render_nodes: Vec<String>,
}

fn is_gpu_node(target: &str) -> bool {
    target == "/dev/kfd"
        || target.starts_with("/dev/dri/renderD")
        || target.starts_with("/dev/dri/card")
}

fn text(host: &Host, p: &Path) -> Option<String> {
    host.fs.read_text(p).ok()
}

fn num(host: &Host, p: &Path) -> Option<u64> {
    text(host, p)?.trim().parse().ok()
}

fn kfd_proc(host: &Host, pid: &str, p: &mut GpuProcess) {
    let dir = PathBuf::from("/sys/class/kfd/kfd/proc").join(pid);
    for name in host.fs.list_names(&dir) {
        let name = name.to_string_lossy();
        if let Some(gpu) = name.strip_prefix("vram_") {
            if let Some(v) = num(host, &dir.join(&*name)) {
                p.kfd_vram_bytes.insert(gpu.to_string(), v);
            }
        }
    }
    p.kfd_queues = host.fs.list_names(&dir.join("queues")).len() as u64;
}

/// Scans the machine. `self_uid` is the doctor's real uid (0 = root).
pub fn scan(host: &Host, self_uid: u32) -> Scan {
    let mut s = Scan {
        kfd_present: host.fs.exists(Path::new("/dev/kfd")),
        ..Scan::default()
    };
    s.unseen.not_root = self_uid != 0;
    s.render_nodes = host
        .fs
        .list_names(Path::new("/dev/dri"))
        .into_iter()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n.starts_with("renderD"))
        .collect();
    if let Some(m) = text(host, Path::new("/proc/self/mountinfo"))
        .or_else(|| text(host, Path::new("/proc/mounts")))
    {
        s.unseen.hidepid = m
            .lines()
            .any(|l| l.split_whitespace().any(|f| f == "/proc") && l.contains("hidepid="));
    }
    let passwd = text(host, Path::new("/etc/passwd")).unwrap_or_default();
    let mut pids: Vec<u32> = host
        .fs
        .list_names(Path::new("/proc"))
        .iter()
        .filter_map(|n| n.to_str()?.parse().ok())
        .collect();
    pids.sort_unstable();
    if pids.len() > MAX_PROCS {
        pids.truncate(MAX_PROCS);
        s.unseen.truncated = true;
    }
    let visible: BTreeSet<u32> = pids.iter().copied().collect();
    for pid in pids {
        let base = PathBuf::from(format!("/proc/{pid}"));
        let fd_dir = base.join("fd");
        let rd = match host.fs.read_dir(&fd_dir) {
            Ok(rd) => rd,
            Err(e) => {
                // A process that exits mid-scan is ENOENT: not "unseen".
                if e.kind() != std::io::ErrorKind::NotFound {
                    s.unseen.unreadable.push((pid, errno_name(&e)));
                }
                continue;
            }
        };
        let mut p = GpuProcess {
            pid,
            ..GpuProcess::default()
        };
        let mut clients = BTreeSet::new();
        for ent in rd.filter_map(Result::ok).take(MAX_FDS) {
            let fd = ent.file_name();
            let Ok(target) = host.fs.read_link(&fd_dir.join(&fd)) else {
                continue;
            };
            let t = target.to_string_lossy();
            if !is_gpu_node(&t) {
                continue;
            }
            p.devices.insert(t.to_string());
            if t.starts_with("/dev/dri/") {
                if let Some(info) = text(host, &base.join("fdinfo").join(&fd)) {
                    let d = fdinfo::parse_fdinfo(&info);
                    if d.client_id.is_none_or(|c| clients.insert(c)) {
                        p.drm.push(d);
                    }
                }
            }
        }
        if p.devices.is_empty() {
            continue;
        }
        let vram: Vec<u64> = p.drm.iter().filter_map(|d| d.vram_kib).collect();
        p.vram_kib = (!vram.is_empty()).then(|| vram.iter().sum());
        if let Some(st) = text(host, &base.join("status")) {
            let (uid, nspid) = fdinfo::parse_status(&st);
            p.uid = uid;
            p.user = uid.and_then(|u| fdinfo::user_name(&passwd, u));
            p.ns_pid = (nspid.len() > 1).then(|| nspid[nspid.len() - 1]);
        }
        p.comm = text(host, &base.join("comm")).map(|c| c.trim().to_string());
        p.cmdline = host
            .fs
            .read_bytes_limited(&base.join("cmdline"), 4096)
            .ok()
            .map(|b| {
                String::from_utf8_lossy(&b)
                    .replace('\0', " ")
                    .trim()
                    .to_string()
            })
            .filter(|c| !c.is_empty());
        p.container = text(host, &base.join("cgroup")).and_then(|c| fdinfo::container_of(&c));
        kfd_proc(host, &pid.to_string(), &mut p);
        s.processes.push(p);
    }
    for name in host.fs.list_names(Path::new("/sys/class/kfd/kfd/proc")) {
        if let Some(pid) = name.to_str().and_then(|n| n.parse::<u32>().ok()) {
            if !visible.contains(&pid) && s.unseen.kfd_not_in_proc.len() < MAX_PROCS {
                s.unseen.kfd_not_in_proc.push(pid);
                let mut p = GpuProcess::default();
                kfd_proc(host, &pid.to_string(), &mut p);
                s.unseen.kfd_not_in_proc_vram_bytes += p.kfd_vram_bytes.values().sum::<u64>();
                s.unseen.kfd_not_in_proc_queues += p.kfd_queues;
            }
        }
    }
    s
}
