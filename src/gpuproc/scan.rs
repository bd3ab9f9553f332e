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
pub(crate) struct GpuProcess {
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
    /// The KFD entry's name: the process's global (host) pid, which differs from `pid` when the
    /// doctor runs inside a container.
    pub kfd_pid: Option<u32>,
    /// How the KFD entry was tied to this process: `pasid` (its render fd's `pasid:` equals the
    /// entry's `pasid`, valid across PID namespaces) or `pid` (same number, no PASID to compare).
    pub kfd_match: Option<&'static str>,
}

#[derive(Debug, Default, Clone, Serialize)]
pub(crate) struct Unseen {
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
pub(crate) struct Scan {
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

/// One `/sys/class/kfd/kfd/proc/<global pid>/` directory.
#[derive(Debug, Default, Clone)]
struct KfdEntry {
    pid: u32,
    pasid: Option<u32>,
    vram_bytes: BTreeMap<String, u64>,
    queues: u64,
}

fn kfd_entries(host: &Host) -> Vec<KfdEntry> {
    let root = Path::new("/sys/class/kfd/kfd/proc");
    let mut v: Vec<KfdEntry> = host
        .fs
        .list_names(root)
        .iter()
        .filter_map(|n| n.to_str()?.parse::<u32>().ok())
        .take(MAX_PROCS)
        .map(|pid| {
            let dir = root.join(pid.to_string());
            let mut e = KfdEntry {
                pid,
                pasid: num(host, &dir.join("pasid")).and_then(|p| u32::try_from(p).ok()),
                queues: host.fs.list_names(&dir.join("queues")).len() as u64,
                ..KfdEntry::default()
            };
            for name in host.fs.list_names(&dir) {
                let name = name.to_string_lossy();
                if let Some(gpu) = name.strip_prefix("vram_") {
                    if let Some(b) = num(host, &dir.join(&*name)) {
                        e.vram_bytes.insert(gpu.to_string(), b);
                    }
                }
            }
            e
        })
        .collect();
    v.sort_by_key(|e| e.pid);
    v
}

/// The KFD entry of a process seen in our `/proc`: by PASID when its render fds carry one (the
/// only join that holds across PID namespaces: KFD names entries by global pid, a container's
/// `/proc` by its own pids), else by pid when the entry has no PASID to contradict it.
/// Reference: shared `gpu-processes.md` section 2 (`kfd_process.c`, `amdgpu_fdinfo.c`).
fn kfd_match(p: &GpuProcess, kfd: &[KfdEntry]) -> Option<(usize, &'static str)> {
    let pasids: BTreeSet<u32> = p.drm.iter().filter_map(|d| d.pasid).collect();
    if let Some(i) = kfd
        .iter()
        .position(|e| e.pasid.is_some_and(|x| pasids.contains(&x)))
    {
        return Some((i, "pasid"));
    }
    let i = kfd.iter().position(|e| e.pid == p.pid)?;
    let contradicted = !pasids.is_empty() && kfd[i].pasid.is_some();
    (!contradicted).then_some((i, "pid"))
}

/// The GPU device nodes process `pid` holds open (its fd directory `rd`), with the DRM
/// fdinfo of each DRM client.
fn gpu_fds(host: &Host, pid: u32, base: &Path, rd: std::fs::ReadDir) -> GpuProcess {
    let fd_dir = base.join("fd");
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
    p
}

/// Who a GPU process is: VRAM, user, namespace pid, name, command line, container.
fn describe(host: &Host, p: &mut GpuProcess, base: &Path, passwd: &str) {
    let vram: Vec<u64> = p.drm.iter().filter_map(|d| d.vram_kib).collect();
    p.vram_kib = (!vram.is_empty()).then(|| vram.iter().sum());
    if let Some(st) = text(host, &base.join("status")) {
        let (uid, nspid) = fdinfo::parse_status(&st);
        p.uid = uid;
        p.user = uid.and_then(|u| fdinfo::user_name(passwd, u));
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
}

/// Whether /proc is mounted with `hidepid=` (other users' processes hidden); `None` when the
/// mount table cannot be read.
fn proc_hides_pids(host: &Host) -> Option<bool> {
    let m = text(host, Path::new("/proc/self/mountinfo"))
        .or_else(|| text(host, Path::new("/proc/mounts")))?;
    Some(
        m.lines()
            .any(|l| l.split_whitespace().any(|f| f == "/proc") && l.contains("hidepid=")),
    )
}

/// Scans the machine. `self_uid` is the doctor's real uid (0 = root).
pub(crate) fn scan(host: &Host, self_uid: u32) -> Scan {
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
    s.unseen.hidepid = proc_hides_pids(host).unwrap_or(s.unseen.hidepid);
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
    let kfd = kfd_entries(host);
    let mut matched = BTreeSet::new();
    // Pids whose fd directory was read (holding a GPU node or not).
    let mut scanned = BTreeSet::new();
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
        scanned.insert(pid);
        let mut p = gpu_fds(host, pid, &base, rd);
        if p.devices.is_empty() {
            continue;
        }
        describe(host, &mut p, &base, &passwd);
        if let Some((i, how)) = kfd_match(&p, &kfd) {
            let e = &kfd[i];
            p.kfd_pid = Some(e.pid);
            p.kfd_match = Some(how);
            p.kfd_vram_bytes = e.vram_bytes.clone();
            p.kfd_queues = e.queues;
            matched.insert(e.pid);
        }
        s.processes.push(p);
    }
    // KFD entries tied to no process we saw belong to another PID namespace: a number absent
    // from our /proc, or a GPU process of ours whose PASID says it is not this entry. A pid of
    // ours that could not be examined (unreadable fds, reported as such) or that holds no GPU
    // node now (KFD keeps a process's entry until it exits) is left out.
    for e in &kfd {
        if matched.contains(&e.pid) {
            continue;
        }
        if visible.contains(&e.pid) && !s.processes.iter().any(|p| p.pid == e.pid) {
            continue;
        }
        s.unseen.kfd_not_in_proc.push(e.pid);
        s.unseen.kfd_not_in_proc_vram_bytes += e.vram_bytes.values().sum::<u64>();
        s.unseen.kfd_not_in_proc_queues += e.queues;
    }
    s
}
