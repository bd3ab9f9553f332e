//! `rocm-doctor ps` and the `gpu.processes` check: which processes hold /dev/kfd or an AMD
//! render node, with user, command line, container and VRAM; what could not be seen and why.
//! `fdinfo` holds the pure parsers, `scan` the I/O. docs/ps.md.

// The fdinfo and /proc status parsers live in the parsers crate (crates/parsers).
pub(crate) use rocm_doctor_parsers::fdinfo;
pub(crate) mod scan;

use std::fmt::Write;

/// Why some holders may be missing, in words (empty when everything was visible).
pub(crate) fn explanations(s: &scan::Scan) -> Vec<String> {
    let mut v = Vec::new();
    if !s.unseen.unreadable.is_empty() {
        v.push(format!(
            "{} process(es) could not be inspected ({}): /proc/PID/fd of other users needs root \
                or CAP_SYS_PTRACE{}; lsof skips them silently",
            s.unseen.unreadable.len(),
            s.unseen
                .unreadable
                .first()
                .map_or(String::new(), |(p, e)| format!("e.g. pid {p}: {e}")),
            if s.unseen.not_root {
                " (the doctor is not root)"
            } else {
                ""
            }
        ));
    }
    if !s.unseen.kfd_not_in_proc.is_empty() {
        v.push(format!(
            "{} KFD process(es) (host pid {}; {:.1} MiB VRAM, {} queue(s)) are not in this /proc: \
                they run in another PID namespace (a container or pod). KFD lists them by host \
                pid in /sys/class/kfd/kfd/proc; a host-side `lsof /dev/kfd` misses processes in \
                containers because their /dev/kfd is another inode (the container runtime's mknod)",
            s.unseen.kfd_not_in_proc.len(),
            s.unseen
                .kfd_not_in_proc
                .iter()
                .take(8)
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(
                    ", \
                "
                ),
            s.unseen.kfd_not_in_proc_vram_bytes as f64 / 1048576.0,
            s.unseen.kfd_not_in_proc_queues
        ));
    }
    if s.unseen.hidepid {
        v.push("/proc is mounted with hidepid=: other users' processes are hidden".into());
    }
    if s.unseen.truncated {
        v.push("more than 65536 processes: the scan was cut".into());
    }
    v
}

pub(crate) fn render(s: &scan::Scan, verbose: u8) -> String {
    let mut o = String::new();
    if s.processes.is_empty() {
        let _ = writeln!(
            o,
            "no process holds /dev/kfd or a render node{}",
            if s.kfd_present || !s.render_nodes.is_empty() {
                ""
            } else {
                " (this machine shows no AMD GPU device node)"
            }
        );
    } else {
        let _ = writeln!(
            o,
            "{:>8} {:<10} {:<22} {:>10} {:>6}  command",
            "PID", "USER", "DEVICES", "VRAM", "QUEUES"
        );
    }
    for p in &s.processes {
        let devs: Vec<&str> = p
            .devices
            .iter()
            .map(|d| d.trim_start_matches("/dev/").trim_start_matches("dri/"))
            .collect();
        let vram = p
            .vram_kib
            .map(|k| k * 1024)
            .or_else(|| (!p.kfd_vram_bytes.is_empty()).then(|| p.kfd_vram_bytes.values().sum()))
            .map_or("-".to_string(), |b| {
                format!("{:.1} MiB", b as f64 / 1048576.0)
            });
        let cmd = p.cmdline.clone().or(p.comm.clone()).unwrap_or_default();
        let cmd = if verbose > 0 || cmd.chars().count() <= 60 {
            cmd
        } else {
            cmd.chars().take(59).collect::<String>() + "…"
        };
        let _ = writeln!(
            o,
            "{:>8} {:<10} {:<22} {:>10} {:>6}  {cmd}",
            p.pid,
            p.user
                .clone()
                .or(p.uid.map(|u| u.to_string()))
                .unwrap_or("?".into()),
            devs.join(","),
            vram,
            p.kfd_queues
        );
        if let Some(c) = &p.container {
            let _ = writeln!(
                o,
                "{:>8} container {c}{}",
                "",
                p.ns_pid
                    .map_or(String::new(), |n| format!(" (pid {n} inside)"))
            );
        }
        if let (Some(k), Some(how)) = (p.kfd_pid, p.kfd_match) {
            if k != p.pid {
                let _ = writeln!(o, "{:>8} host pid {k} (KFD entry matched by {how})", "");
            }
        }
    }
    for e in explanations(s) {
        let _ = writeln!(o, "note: {e}");
    }
    o
}
