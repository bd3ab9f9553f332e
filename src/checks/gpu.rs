//! GPU checks: driver, /dev/kfd, render nodes, agents and their ISAs, visibility, overrides,
//! XNACK mode and runtime initialisation. Facts come from `inv.gpu()` (src/gpu); each check
//! only judges them.

use super::{CheckFn, Ctx};
use crate::config::Profile;
use crate::gpu::devnodes::{group_name, NodeInfo, NodeState};
use crate::gpu::overrides::{override_value_for, XnackRequest};
use crate::gpu::{hsa, Agent, Topology};
use crate::isa::processor;
use crate::report::{Finding, Fix};
use std::path::{Path, PathBuf};

pub const CHECKS: &[(&str, CheckFn)] = &[
    ("gpu.driver", driver),
    ("gpu.kfd", kfd),
    ("gpu.render", render),
    ("gpu.agents", agents),
    ("gpu.visibility", visibility),
    ("gpu.overrides", overrides),
    ("gpu.xnack", xnack),
    ("gpu.runtime-init", runtime_init),
];

const NO_GPU_FIX: &str = "Install a GPU supported by ROCm and load amdgpu (`sudo modprobe amdgpu`; check `dmesg | grep -i -e amdgpu -e kfd`). In a container, pass the devices: `--device=/dev/kfd --device=/dev/dri`.";

/// Why GPU checks stop early, or None to judge.
pub(crate) fn gate(ctx: &Ctx, t: &Topology, primary: bool) -> Option<Vec<Finding>> {
    if !t.environment.wsl.is_empty() {
        return Some(vec![Finding::skip(
            "WSL: ROCm on WSL drives the GPU through /dev/dxg, not KFD; KFD checks do not apply",
        )
        .evidence_lines(t.environment.wsl.clone())]);
    }
    if t.has_gpu_nodes() {
        return None;
    }
    let where_ = match &t.path {
        None => "no KFD topology (/sys/devices/virtual/kfd/kfd/topology and /sys/class/kfd/kfd/topology are absent)".to_string(),
        Some(p) => format!("KFD topology {} lists {} node(s), none of them a GPU (simd_count 0)", p.display(), t.node_count),
    };
    let f = match ctx.cfg.profile {
        Profile::Build if primary => Finding::skip(format!(
            "no GPU: {where_}; the build profile does not need one"
        )),
        Profile::Auto if primary => Finding::skip(format!(
            "no GPU to judge: {where_}; use --profile runtime to require one"
        )),
        Profile::Build | Profile::Auto => Finding::skip("no GPU to judge (see gpu.agents)"),
        Profile::Runtime if primary => {
            Finding::fail(format!("no usable GPU: {where_}")).fix_text(NO_GPU_FIX)
        }
        Profile::Runtime => Finding::skip(format!(
            "nothing to check without a GPU ({where_}); see gpu.agents"
        )),
    };
    Some(vec![f])
}

fn describe_node(i: &NodeInfo, host: &crate::host::Host) -> String {
    let gname = group_name(host, i.gid)
        .map(|n| format!(" ({n})"))
        .unwrap_or_default();
    format!(
        "{}: {} mode {:04o} owner uid {} gid {}{}{}{}",
        i.path.display(),
        if i.is_char {
            format!("character device {}:{}", i.major, i.minor)
        } else {
            format!("a {}, not a character device", i.kind)
        },
        i.mode,
        i.uid,
        i.gid,
        gname,
        if i.acl.is_some() { ", has an ACL" } else { "" },
        match (&i.open, i.open.errno()) {
            (crate::gpu::devnodes::Open::Opened, _) => ", open(O_RDWR) succeeded".to_string(),
            (crate::gpu::devnodes::Open::Failed(_), Some(e)) =>
                format!(", open(O_RDWR) failed: {e}"),
            (_, Some(e)) => format!(", predicted open(O_RDWR): {e}"),
            _ => ", predicted open(O_RDWR): success".to_string(),
        }
    )
}

fn cred_line(t: &Topology) -> String {
    match &t.devices {
        Some(d) => format!(
            "judged for uid {} gid {} groups {:?} (from the {})",
            d.cred.uid, d.cred.gid, d.cred.groups, d.cred_source
        ),
        None => "credentials unknown".to_string(),
    }
}

/// The fix for a permission denial on a device node.
fn access_fix(ctx: &Ctx, t: &Topology, info: &NodeInfo) -> Fix {
    let groups = match &info.decision {
        crate::gpu::access::Decision::Denied {
            groups_that_grant, ..
        } => groups_that_grant.clone(),
        _ => vec![],
    };
    let gid = groups.first().copied().unwrap_or(info.gid);
    let name = group_name(ctx.host, gid);
    if !t.environment.container.is_empty() {
        return Fix::text(format!(
            "Inside a container group names lie: add the numeric group that owns {} when starting the container, e.g. `docker run --group-add {gid} ...` (on the host: `stat -c %g {}`).",
            info.path.display(),
            info.path.display()
        ))
        .command(format!("docker run --group-add {gid} --device=/dev/kfd --device=/dev/dri ..."));
    }
    let label = name.clone().unwrap_or_else(|| gid.to_string());
    Fix::text(format!(
        "Add your user to the group that may open {} (gid {gid}{}) and log in again (group changes apply to new logins only; `newgrp {label}` for the current shell).",
        info.path.display(),
        name.map(|n| format!(", `{n}`")).unwrap_or_default()
    ))
    .command(format!("sudo usermod -aG {label} $USER"))
}

fn driver(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.gpu();
    if !t.environment.wsl.is_empty() {
        return gate(ctx, t, true).unwrap_or_default();
    }
    let d = &t.driver;
    let mut ev = Vec::new();
    if let Some(r) = &d.kernel_release {
        ev.push(format!("kernel {r}"));
    }
    let version_line = match &d.version {
        Some(v) => format!("/sys/module/amdgpu/version: {v} (out-of-tree DKMS driver)"),
        None => {
            "no /sys/module/amdgpu/version: the in-tree driver has none (normal, not a problem)"
                .to_string()
        }
    };
    if d.module_dir {
        ev.push(version_line);
        if let Some(s) = &d.srcversion {
            ev.push(format!("srcversion {s}"));
        }
        return match d.initstate.as_deref() {
            Some("live") => vec![Finding::pass(format!("amdgpu is loaded{}", d.version.as_ref().map(|v| format!(" (DKMS {v})")).unwrap_or_default()))
                .evidence("/sys/module/amdgpu/initstate: live")
                .evidence_lines(ev)],
            None => vec![Finding::pass("amdgpu is built into the kernel")
                .evidence("/sys/module/amdgpu exists without initstate: a built-in driver (rocminfo used to misreport this, ROCm/rocminfo#65)")
                .evidence_lines(d.builtin_listed.map(|b| format!("modules.builtin lists amdgpu: {b}")))
                .evidence_lines(ev)],
            Some(other) => vec![Finding::warn(format!("amdgpu is in state '{other}', not live"))
                .evidence(format!("/sys/module/amdgpu/initstate: {other}"))
                .evidence_lines(ev)
                .fix(Fix::text("The module is still loading or being removed; wait and re-run, or check `dmesg | grep -i amdgpu` for a failed probe."))],
        };
    }
    ev.push("/sys/module/amdgpu does not exist".into());
    let blacklist = blacklist_lines(ctx);
    ev.extend(blacklist.iter().cloned());
    let has_gpu = t.has_gpu_nodes() || !t.drm_cards.is_empty();
    let summary = "amdgpu is not loaded";
    let fix = Fix::text(if blacklist.is_empty() {
        "Load the driver (`sudo modprobe amdgpu`) and read `dmesg | grep -i amdgpu` if it fails (Secure Boot rejecting an unsigned DKMS module: `mokutil --sb-state`; failed DKMS build: `dkms status`)."
    } else {
        "Remove the amdgpu blacklist shown in the evidence, then `sudo modprobe amdgpu` (or reboot)."
    })
    .command("sudo modprobe amdgpu");
    match ctx.cfg.profile {
        Profile::Runtime => vec![Finding::fail(summary).evidence_lines(ev).fix(fix)],
        _ if has_gpu => vec![Finding::fail(summary).evidence_lines(ev).fix(fix)],
        Profile::Build => vec![Finding::skip(format!(
            "{summary}; the build profile does not need a GPU driver"
        ))
        .evidence_lines(ev)],
        Profile::Auto => vec![Finding::skip(format!(
            "{summary} and KFD shows no GPU: no GPU to judge here"
        ))
        .evidence_lines(ev)],
    }
}

/// `blacklist amdgpu` lines in modprobe.d and `modprobe.blacklist=` on the kernel command line.
fn blacklist_lines(ctx: &Ctx) -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["/etc/modprobe.d", "/usr/lib/modprobe.d", "/lib/modprobe.d"] {
        for name in ctx.host.fs.list_names(Path::new(dir)) {
            let p = Path::new(dir).join(&name);
            if let Ok(text) = ctx.host.fs.read_text(&p) {
                for l in text.lines() {
                    let w: Vec<&str> = l.split_whitespace().collect();
                    if w.first() == Some(&"blacklist") && w.get(1) == Some(&"amdgpu") {
                        out.push(format!("{}: {}", p.display(), l.trim()));
                    }
                }
            }
        }
    }
    if let Ok(cmd) = ctx.host.fs.read_text(Path::new("/proc/cmdline")) {
        for w in cmd.split_whitespace() {
            if (w.starts_with("modprobe.blacklist=") || w.starts_with("module_blacklist="))
                && w.contains("amdgpu")
            {
                out.push(format!("/proc/cmdline: {w}"));
            }
        }
    }
    out
}

fn kfd(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.gpu();
    if let Some(g) = gate(ctx, t, true) {
        return g;
    }
    let in_container = !t.environment.container.is_empty();
    let cred = cred_line(t);
    match t.kfd.as_ref().unwrap_or(&NodeState::Unknown) {
        NodeState::Unknown => vec![Finding::skip("this fixture sysroot does not describe device nodes (no /.rocm-doctor-fixture.toml): /dev/kfd not judged")],
        NodeState::Missing => {
            let mut f = Finding::fail("KFD lists GPUs but /dev/kfd does not exist").evidence(format!("KFD topology: {}", t.path.as_deref().unwrap_or(Path::new("?")).display()));
            if in_container {
                f = f.evidence_lines(t.environment.container.clone()).fix(
                    Fix::text("This container was started without the compute device: pass it (and the render nodes) to the container.")
                        .command("docker run --device=/dev/kfd --device=/dev/dri ..."),
                );
            } else {
                f = f.fix(Fix::text("The node is created by udev when amdkfd initialises; check `dmesg | grep -i kfd` and that udev runs (`udevadm trigger`)."));
            }
            vec![f]
        }
        NodeState::Error(e) => vec![Finding::fail(format!("/dev/kfd cannot be examined: {e}")).fix_text("Check the path with `ls -l /dev/kfd`; a broken /dev mount in a container shows up this way.")],
        NodeState::Present(info) => {
            let line = describe_node(info, ctx.host);
            if !info.is_char {
                return vec![Finding::fail("/dev/kfd is not a character device").evidence(line).fix_text(
                    "Something replaced the device node (a bind mount of a directory or file); remove it and let udev recreate it, or pass `--device=/dev/kfd` to the container.",
                )];
            }
            match info.open.errno() {
                None => vec![Finding::pass(format!("/dev/kfd opens read-write ({})", match &info.decision {
                    crate::gpu::access::Decision::Granted(why) => why.clone(),
                    _ => "granted".into(),
                }))
                .evidence(line)
                .evidence(cred)],
                Some(e @ ("EACCES" | "EPERM")) => {
                    let mut f = Finding::fail(format!("this process cannot open /dev/kfd read-write ({e})")).evidence(line).evidence(cred);
                    if let crate::gpu::access::Decision::Denied { reason, .. } = &info.decision {
                        f = f.evidence(reason.clone());
                        f = f.fix(access_fix(ctx, t, info));
                    } else {
                        f = f.evidence("mode, owner and ACL grant access, so a security module or the device cgroup refuses it").fix(Fix::text(
                            "Check the container's device cgroup (`--device=/dev/kfd`) and LSM denials (`dmesg | grep -i -e apparmor -e selinux`).",
                        ));
                    }
                    if in_container {
                        f = f.evidence_lines(t.environment.container.clone());
                    }
                    vec![f]
                }
                Some(e) => vec![Finding::fail(format!("/dev/kfd refuses a read-write open: {e}"))
                    .evidence(line)
                    .evidence(cred)
                    .evidence(if e == "EINVAL" {
                        "EINVAL comes from KFD itself, not from permissions (seen with mismatched kernel driver / ROCm userspace and in some containers)".to_string()
                    } else {
                        format!("errno {e} is not a permission problem")
                    })
                    .fix(Fix::text("Read `dmesg | grep -i kfd` and compare the kernel driver (gpu.driver) with the ROCm release; a DKMS driver matching ROCm, or a newer kernel, usually resolves it.")
                        .command("dmesg | grep -i kfd"))],
            }
        }
    }
}

fn render(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.gpu();
    if let Some(g) = gate(ctx, t, false) {
        return g;
    }
    let mut out = Vec::new();
    let in_container = !t.environment.container.is_empty();
    let all_missing = !t.agents.is_empty()
        && t.agents
            .iter()
            .all(|a| matches!(a.render, Some(NodeState::Missing)));
    for a in &t.agents {
        let subject = format!("node {}", a.node);
        let Some(minor) = a.render_minor else {
            out.push(
                Finding::fail(format!("KFD node {} has no drm_render_minor", a.node))
                    .subject(subject)
                    .evidence("libhsakmt requires a render node for every GPU node and fails initialisation without one")
                    .fix_text("Update the kernel / amdgpu driver; a GPU node without a render minor is a driver bug."),
            );
            continue;
        };
        let path = PathBuf::from(format!("/dev/dri/renderD{minor}"));
        match a.render.as_ref().unwrap_or(&NodeState::Unknown) {
            NodeState::Unknown => out.push(
                Finding::skip(format!("{}: not described by this fixture", path.display()))
                    .subject(subject),
            ),
            NodeState::Missing => {
                let mut f = Finding::fail(format!(
                    "{} (KFD node {}, {}) does not exist",
                    path.display(),
                    a.node,
                    a.gfx.as_deref().unwrap_or("?")
                ))
                .subject(subject);
                f = f.evidence(
                    "libhsakmt silently skips a GPU whose render node is missing (ENOENT)",
                );
                f = if all_missing || in_container {
                    f.evidence_lines(t.environment.container.clone()).fix(
                        Fix::text("KFD nodes are visible but the device files are not: a container started without GPU passthrough.").command("docker run --device=/dev/kfd --device=/dev/dri ..."),
                    )
                } else {
                    f.fix_text("udev did not create the render node; check `ls -l /dev/dri` and `dmesg | grep -i drm`.")
                };
                out.push(f);
            }
            NodeState::Error(e) => out.push(
                Finding::fail(format!("{} cannot be examined: {e}", path.display()))
                    .subject(subject)
                    .fix_text("Check `ls -l /dev/dri`."),
            ),
            NodeState::Present(info) => {
                let line = describe_node(info, ctx.host);
                match info.open.errno() {
                    None if info.is_char => out.push(Finding::pass(format!("{} opens read-write", path.display())).subject(subject).evidence(line)),
                    Some(e @ ("EACCES" | "EPERM")) => out.push(
                        Finding::fail(format!("this process cannot open {} read-write ({e})", path.display()))
                            .subject(subject)
                            .evidence(line)
                            .evidence(cred_line(t))
                            .evidence(if e == "EPERM" {
                                "EPERM: libhsakmt skips the GPU (device cgroup)".to_string()
                            } else {
                                "libhsakmt treats this as fatal: `Failed to open /dev/dri/renderD…: Permission denied`, topology initialisation fails for every GPU".to_string()
                            })
                            .fix(access_fix(ctx, t, info)),
                    ),
                    _ => out.push(
                        Finding::fail(format!("{} is unusable: {}", path.display(), info.open.errno().unwrap_or("not a character device")))
                            .subject(subject)
                            .evidence(line)
                            .fix_text("Let udev recreate the node (`udevadm trigger`), or pass `--device=/dev/dri` to the container."),
                    ),
                }
            }
        }
    }
    if out.is_empty() {
        out.push(Finding::skip(
            "no readable GPU node to check the render node of",
        ));
    }
    out
}

fn gib(b: u64) -> String {
    format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
}

fn agent_line(a: &Agent) -> String {
    format!(
        "node {}: {} ({}) device 0x{:04x} at {} {} CUs wave{} VRAM {} renderD{}{}{}{}",
        a.node,
        a.gfx.as_deref().unwrap_or("gfx?"),
        a.target
            .as_ref()
            .map(|t| t.to_string())
            .unwrap_or_else(|| "target unknown".into()),
        a.device_id.unwrap_or(0),
        a.location.as_deref().unwrap_or("?"),
        a.compute_units
            .map(|c| c.to_string())
            .unwrap_or_else(|| "?".into()),
        a.wave_front_size
            .map(|c| c.to_string())
            .unwrap_or_else(|| "?".into()),
        a.vram_bytes.map(gib).unwrap_or_else(|| "unknown".into()),
        a.render_minor
            .map(|m| m.to_string())
            .unwrap_or_else(|| "?".into()),
        a.num_xcc
            .filter(|x| *x != 1)
            .map(|x| format!(" {x} XCCs"))
            .unwrap_or_default(),
        if a.integrated { " integrated" } else { "" },
        match (a.visible, a.hip_index) {
            (true, Some(i)) => format!(" -> HIP device {i}"),
            _ => " (not visible to HIP)".into(),
        }
    )
}

/// Bitcode directories where `oclc_isa_version_*.bc` may live: the one clang really links
/// (toolchain.device-libs), then every other complete directory the inventory found.
fn bitcode_dirs(ctx: &Ctx) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = ctx.inv.hip_driver().bitcode_dir().into_iter().collect();
    for d in &ctx.inv.device_libs().dirs {
        if d.has_ocml && !v.contains(&d.path) {
            v.push(d.path.clone());
        }
    }
    v
}

/// The AMDGPU processors the judged clang accepts (asked once, by the inventory).
fn clang_processors(ctx: &Ctx) -> Option<(String, Vec<String>)> {
    let c = ctx.inv.clang()?;
    let cmd = c
        .commands
        .first()
        .cloned()
        .unwrap_or_else(|| c.path.display().to_string());
    (c.amdgpu_registered && !c.amdgpu_processors.is_empty())
        .then(|| (cmd, c.amdgpu_processors.clone()))
}

fn agents(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.gpu();
    if let Some(g) = gate(ctx, t, true) {
        return g;
    }
    let mut out = Vec::new();
    let hidden: Vec<String> = t
        .unreadable_nodes
        .iter()
        .map(|(n, e)| format!("node {n}: {e}"))
        .collect();
    if t.agents.is_empty() {
        let f = Finding::fail(format!("every GPU node is unreadable to this process ({} node(s))", hidden.len()))
            .evidence_lines(hidden.clone())
            .evidence("EPERM on a KFD node = the device cgroup denies that GPU (kfd_devcgroup_check_permission); libhsakmt skips it")
            .fix(Fix::text("Pass the GPU's render node into the container (`--device=/dev/dri/renderD<minor>` or all of `/dev/dri`) together with `/dev/kfd`.").command("docker run --device=/dev/kfd --device=/dev/dri ..."));
        return vec![f];
    }
    let visible = t.agents.iter().filter(|a| a.visible).count();
    let mut table = Finding::pass(format!(
        "{} GPU agent(s) in KFD{}{}, {} visible to HIP",
        t.agents.len(),
        if hidden.is_empty() {
            String::new()
        } else {
            format!(
                ", {} more hidden by the device cgroup (EPERM)",
                hidden.len()
            )
        },
        t.path
            .as_ref()
            .map(|p| format!(" ({})", p.display()))
            .unwrap_or_default(),
        visible
    ))
    .evidence_lines(t.agents.iter().map(agent_line));
    if !hidden.is_empty() {
        table = table.evidence(format!("hidden from this process by the device cgroup (EPERM), skipped like libhsakmt does: {}", hidden.join(", ")));
    }
    for b in &t.runtime_blocked {
        table = table.evidence(format!("ROCr would fail to initialise: {b}"));
    }
    if !t.problems.is_empty() {
        table = table.evidence_lines(t.problems.iter().take(8).map(|p| format!("sysfs: {p}")));
    }
    if let Some(e) = &t.fixture_error {
        table = table.evidence(format!("fixture manifest ignored: {e}"));
    }
    if visible == 0 && ctx.cfg.profile == Profile::Runtime {
        table.status = crate::report::Status::Fail;
        table.summary = format!(
            "{} GPU agent(s) in KFD but none usable by HIP",
            t.agents.len()
        );
        table = table.fix_text("See gpu.kfd, gpu.render, gpu.overrides and gpu.visibility for the reason each GPU is unusable.");
    }
    out.push(table);

    // Nodes from older kernels: no gfx_target_version.
    for a in t.agents.iter().filter(|a| a.gfx_target_version.is_none()) {
        out.push(
            Finding::warn(format!("KFD node {} has no gfx_target_version (older kernel): its ISA is not known from sysfs", a.node))
                .subject(format!("node {}", a.node))
                .evidence(format!("device id 0x{:04x}; libhsakmt falls back to its built-in device-id table for such kernels", a.device_id.unwrap_or(0)))
                .fix_text("Name the ISA explicitly for builds (`--isa gfx…`, AMDGPU_TARGETS); a kernel from 2019 or later publishes gfx_target_version."),
        );
    }

    // DRM cards without a KFD node.
    let agent_slots: Vec<String> = t
        .agents
        .iter()
        .filter_map(|a| {
            a.location
                .as_deref()
                .map(|l| l[..l.len().saturating_sub(2)].to_string())
        })
        .collect();
    for c in &t.drm_cards {
        let Some(slot) = &c.pci_slot else { continue };
        let dev = &slot[..slot.len().saturating_sub(2)];
        if agent_slots.iter().any(|s| s == dev) || !t.unreadable_nodes.is_empty() {
            continue;
        }
        out.push(
            Finding::warn(format!("AMD GPU {} (1002:{:04x} at {slot}) has no KFD node: no compute on it", c.card, c.device_id.unwrap_or(0)))
                .subject(c.card.clone())
                .evidence("KFD skips a GPU it cannot support: `kfd: skipped device 1002:…, PCI rejects atomics` (gfx8 needs PCIe atomics), `GC IP … not supported in kfd`, or amdgpu.kfd disabled")
                .fix(Fix::text("Read why KFD skipped it; for PCIe atomics, use a slot/CPU with atomics support or a gfx9+ GPU.").command("dmesg | grep -i kfd")),
        );
    }

    // ISA support in the toolchain, per distinct target processor.
    let mut procs: Vec<String> = t
        .agents
        .iter()
        .filter_map(|a| a.target.as_ref().map(|t| t.processor.clone()))
        .collect();
    procs.sort();
    procs.dedup();
    if procs.is_empty() {
        return out;
    }
    let dirs = bitcode_dirs(ctx);
    let clang = clang_processors(ctx);
    for p in procs {
        let mut ev = Vec::new();
        let mut missing = Vec::new();
        match processor(&p) {
            Some(info) => ev.push(format!("rocm-doctor's ISA table knows {p} (family {}, KFD {:?})", info.family, info.kfd)),
            None => missing.push(format!("{p} is not in rocm-doctor's ISA table (checks/isa.toml): ROCr probably does not know it either")),
        }
        let suffix = p.trim_start_matches("gfx");
        if dirs.is_empty() {
            ev.push(
                "device-libs: no bitcode directory found (toolchain checks report that)".into(),
            );
        } else {
            let file = format!("oclc_isa_version_{suffix}.bc");
            match dirs
                .iter()
                .map(|d| d.join(&file))
                .find(|f| ctx.host.fs.is_file(f))
            {
                Some(f) => ev.push(format!("device-libs: {} exists", f.display())),
                None => missing.push(format!(
                    "device-libs: no {file} in {}",
                    dirs.iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
        }
        match &clang {
            Some((cmd, list)) if list.contains(&p) => {
                ev.push(format!("clang accepts {p} (`{cmd}`)"))
            }
            Some((cmd, _)) => missing.push(format!("clang does not list {p} (`{cmd}`)")),
            None => {
                ev.push("clang: not found or -print-supported-cpus failed; not judged here".into())
            }
        }
        ev.push("comgr's ISA list: not probed by this check".into());
        let gpus: Vec<String> = t
            .agents
            .iter()
            .filter(|a| a.target.as_ref().is_some_and(|t| t.processor == p))
            .map(|a| format!("node {}", a.node))
            .collect();
        let f = if missing.is_empty() {
            Finding::pass(format!("the toolchain knows {p} ({})", gpus.join(", ")))
        } else {
            Finding::fail(format!("the installed toolchain cannot build for {p} ({})", gpus.join(", ")))
                .fix_text(format!("Install a ROCm / LLVM release that supports {p} (clang and device-libs of the same release), or build for an ISA-compatible target."))
        };
        out.push(
            f.subject(p.clone())
                .evidence_lines(ev)
                .evidence_lines(missing),
        );
    }
    out
}

/// Indices (in ROCr's base list) of the discrete GPUs, when the machine has both kinds.
fn dgpu_selection(t: &Topology) -> Option<(String, Vec<&Agent>, Vec<&Agent>)> {
    let base: Vec<&Agent> = t.agents.iter().filter(|a| a.rocr_index.is_some()).collect();
    let igpus: Vec<&Agent> = base.iter().copied().filter(|a| a.integrated).collect();
    let dgpus: Vec<&Agent> = base.iter().copied().filter(|a| !a.integrated).collect();
    if igpus.is_empty() || dgpus.is_empty() {
        return None;
    }
    let value = dgpus
        .iter()
        .filter_map(|a| a.rocr_index)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",");
    Some((value, igpus, dgpus))
}

fn visibility(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.gpu();
    let v = &t.visibility;
    let any_var =
        v.rocr_value.is_some() || v.hip_variable.is_some() || v.gpu_device_ordinal.is_some();
    if let Some(g) = gate(ctx, t, false) {
        if any_var && t.environment.wsl.is_empty() {
            let mut f =
                Finding::skip("visibility variables are set but there is no GPU to apply them to");
            f = f.evidence_lines(
                v.rocr_value
                    .as_ref()
                    .map(|x| format!("ROCR_VISIBLE_DEVICES={x:?}")),
            );
            f = f.evidence_lines(v.hip_variable.as_ref().map(|(k, x)| format!("{k}={x:?}")));
            return vec![f];
        }
        return g;
    }
    let name_of = |node: u32| {
        t.agents
            .iter()
            .find(|a| a.node == node)
            .map(|a| {
                format!(
                    "node {node} {}{}",
                    a.gfx.as_deref().unwrap_or("gfx?"),
                    if a.integrated { " (iGPU)" } else { "" }
                )
            })
            .unwrap_or_else(|| format!("node {node}"))
    };
    let list = |nodes: &[u32]| {
        if nodes.is_empty() {
            "none".to_string()
        } else {
            nodes
                .iter()
                .enumerate()
                .map(|(i, n)| format!("{i}={}", name_of(*n)))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let mut ev = vec![format!(
        "ROCr's GPU list (KFD order, usable nodes): {}",
        list(&v.rocr_base)
    )];
    let mut problems: Vec<String> = Vec::new();
    if let Some(val) = &v.rocr_value {
        ev.push(format!(
            "ROCR_VISIBLE_DEVICES={val:?} -> {}",
            list(&v.after_rocr)
        ));
        if let Some(s) = &v.rocr.stop {
            problems.push(format!(
                "ROCR_VISIBLE_DEVICES: entry {:?} ends the list: {}",
                s.token, s.reason
            ));
        }
        if !v.rocr.ignored.is_empty() {
            problems.push(format!("ROCR_VISIBLE_DEVICES: entries {:?} are ignored (ROCr reads at most one entry per GPU)", v.rocr.ignored));
        }
        if val.is_empty() {
            problems.push(
                "ROCR_VISIBLE_DEVICES is set but empty: ROCr then exposes no GPU at all".into(),
            );
        }
    }
    if let Some((k, val)) = &v.hip_variable {
        ev.push(format!(
            "{k}={val:?} (applied to ROCr's list) -> HIP devices {}",
            list(&v.hip_order)
        ));
        if let Some(s) = &v.hip.stop {
            problems.push(format!(
                "{k}: entry {:?} ends the list: {}",
                s.token, s.reason
            ));
        }
        if !v.hip.duplicates.is_empty() {
            problems.push(format!(
                "{k}: repeated entries {:?} are skipped",
                v.hip.duplicates
            ));
        }
    } else {
        ev.push(format!("HIP devices: {}", list(&v.hip_order)));
    }
    if let Some(c) = &v.cuda_shadowed {
        ev.push(format!(
            "CUDA_VISIBLE_DEVICES={c:?} is ignored because HIP_VISIBLE_DEVICES is set"
        ));
    }
    if let Some(g) = &v.gpu_device_ordinal {
        ev.push(format!(
            "GPU_DEVICE_ORDINAL={g:?} applies to OpenCL programs only (CLR), not to HIP"
        ));
    }
    if !t.runtime_blocked.is_empty() {
        return vec![Finding::skip(format!(
            "HIP would see no GPU: ROCr cannot initialise ({}); with that fixed it would see {}",
            t.runtime_blocked.join("; "),
            list(&v.hip_order)
        ))
        .evidence_lines(ev)
        .evidence_lines(problems)];
    }
    let selection = dgpu_selection(t);
    let mut out = Vec::new();
    let visible: Vec<&Agent> = t.agents.iter().filter(|a| a.hip_index.is_some()).collect();
    let igpu_visible =
        visible.iter().any(|a| a.integrated) && visible.iter().any(|a| !a.integrated);
    let summary_order = list(&v.hip_order);
    let base_fix = |value: &str| {
        let mut fx = Fix::text(format!("Select the discrete GPU(s) by their index in ROCr's list ({value}); unset HIP_VISIBLE_DEVICES/CUDA_VISIBLE_DEVICES so they do not re-filter it.")).set_env("ROCR_VISIBLE_DEVICES", value);
        if v.hip_variable.is_some() {
            fx = fx.command("unset HIP_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES");
        }
        fx
    };
    if v.hip_order.is_empty() && !v.rocr_base.is_empty() && t.runtime_blocked.is_empty() {
        let mut f = Finding::fail("the visibility variables hide every GPU from HIP")
            .evidence_lines(ev)
            .evidence_lines(problems);
        f = match &selection {
            Some((value, _, _)) => f.fix(base_fix(value)),
            None => f.fix(
                Fix::text("Unset the variables, or list valid indices / GPU- UUIDs.")
                    .command("unset ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES"),
            ),
        };
        out.push(f);
        return out;
    }
    if !problems.is_empty() {
        out.push(
            Finding::warn(format!("a visibility variable is partly invalid; HIP sees {summary_order}"))
                .evidence_lines(ev.clone())
                .evidence_lines(problems)
                .fix(Fix::text("Fix the list: indices are decimal positions in the list the variable filters, separated by commas without repeats; UUIDs are `GPU-` plus the hex unique id.")),
        );
    }
    if igpu_visible {
        if let Some((value, igpus, dgpus)) = &selection {
            let first = visible.first().map(|a| a.integrated).unwrap_or(false);
            let mut f = Finding::warn(format!(
                "HIP sees the integrated GPU {} next to the discrete GPU(s) {}{}",
                igpus.iter().map(|a| a.gfx.clone().unwrap_or_default()).collect::<Vec<_>>().join(","),
                dgpus.iter().map(|a| a.gfx.clone().unwrap_or_default()).collect::<Vec<_>>().join(","),
                if first { "; the iGPU is HIP device 0, which most programs use" } else { "" }
            ))
            .evidence_lines(ev.clone())
            .evidence("programs built for the dGPU fail on the iGPU (`invalid device function`, `hipErrorNoBinaryForGpu`)");
            f = f.fix(base_fix(value));
            out.push(f);
        }
    }
    if out.is_empty() {
        out.push(Finding::pass(format!("HIP sees {summary_order}")).evidence_lines(ev));
    }
    out
}

fn overrides(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.gpu();
    let vars: Vec<(String, String)> = ctx
        .host
        .env
        .iter()
        .filter_map(|(k, v)| {
            let k = k.to_str()?;
            k.starts_with("HSA_OVERRIDE_GFX_VERSION")
                .then(|| (k.to_string(), v.to_string_lossy().into_owned()))
        })
        .collect();
    if let Some(g) = gate(ctx, t, false) {
        if vars.is_empty() || !t.environment.wsl.is_empty() {
            return g;
        }
        // No GPU: still check the format (a bad value breaks the runtime wherever it runs).
        let mut out = Vec::new();
        for (k, v) in &vars {
            match crate::gpu::overrides::parse_override(v) {
                Ok(p) => out.push(Finding::skip(format!("{k}={v:?} is well-formed ({}) but there is no GPU to apply it to", p.gfx().unwrap_or_else(|| "no LLVM processor".into()))).subject(k.clone())),
                Err(e) => out.push(
                    Finding::warn(format!("{k}={v:?} is invalid: {e}"))
                        .subject(k.clone())
                        .evidence("libhsakmt rejects it (`HSA_OVERRIDE_GFX_VERSION … is invalid`) and HSA initialisation fails on any GPU machine")
                        .fix(Fix::text("Unset it, or use three decimal numbers such as 10.3.0.").command(format!("unset {k}"))),
                ),
            }
        }
        return out;
    }
    if vars.is_empty() {
        return vec![Finding::pass(
            "no HSA_OVERRIDE_GFX_VERSION: ROCr loads code for each GPU's own ISA",
        )];
    }
    let mut out = Vec::new();
    // Per-node variables that match no GPU node.
    let user_nodes: Vec<u32> = t.agents.iter().filter_map(|a| a.user_node).collect();
    for (k, v) in &vars {
        if let Some(n) = k.strip_prefix("HSA_OVERRIDE_GFX_VERSION_") {
            let ok = n
                .parse::<u32>()
                .ok()
                .is_some_and(|n| user_nodes.contains(&n));
            if !ok {
                out.push(
                    Finding::warn(format!("{k}={v:?} names no GPU node"))
                        .subject(k.clone())
                        .evidence(format!("the suffix is libhsakmt's node id counting CPU nodes; GPU node ids here: {user_nodes:?}"))
                        .fix(Fix::text("Use the node id of the GPU, or unset the variable.").command(format!("unset {k}"))),
                );
            }
        }
    }
    let natives: Vec<String> = {
        let mut n: Vec<String> = t
            .agents
            .iter()
            .filter(|a| a.excluded.is_none())
            .filter_map(|a| a.gfx.clone())
            .collect();
        n.sort();
        n.dedup();
        n
    };
    let mut global_mixed_done = false;
    for a in t.agents.iter().filter(|a| a.excluded.is_none()) {
        let Some(o) = &a.override_ else { continue };
        let subject = format!("node {}", a.node);
        let native = a.gfx.clone().unwrap_or_else(|| "gfx?".into());
        let head = format!("{}={:?} on node {} ({native})", o.variable, o.value, a.node);
        if let Some(err) = &o.error {
            let mut fx = Fix::text("Use three decimal numbers without quotes; every part is decimal (gfx90a is 9.0.10).");
            if let Some(sug) = a.gfx.as_deref().and_then(override_value_for) {
                fx = fx.command(format!(
                    "unset {}   # or, only for an ISA-compatible sibling: export {}={sug}",
                    o.variable, o.variable
                ));
            } else {
                fx = fx.command(format!("unset {}", o.variable));
            }
            out.push(Finding::fail(format!("{head} is invalid: {err}")).subject(subject).evidence("libhsakmt: `HSA_OVERRIDE_GFX_VERSION … is invalid`, and HSA initialisation fails").fix(fx));
            continue;
        }
        let Some(ovr) = o.gfx.clone() else {
            out.push(
                Finding::fail(format!(
                    "{head} names no ISA ROCr knows (minor and stepping must be 0..15)"
                ))
                .subject(subject)
                .evidence("ROCr: `Agent creation failed. The GPU node has an unrecognized id.`")
                .fix(Fix::text("Unset it.").command(format!("unset {}", o.variable))),
            );
            continue;
        };
        let ni = processor(&native);
        let oi = processor(&ovr);
        if ovr == native {
            out.push(
                Finding::warn(format!(
                    "{head} repeats the GPU's own ISA: it has no effect"
                ))
                .subject(subject)
                .fix(
                    Fix::text("Remove it so it cannot mislead after a GPU change.")
                        .command(format!("unset {}", o.variable)),
                ),
            );
        } else if ni.and_then(|i| i.generic.clone()).is_some()
            && ni.and_then(|i| i.generic.clone()) == oi.and_then(|i| i.generic.clone())
        {
            out.push(
                Finding::pass(format!("{head}: ROCr loads {ovr} code on this {native}, an ISA-compatible sibling (same {} family)", ni.and_then(|i| i.generic.clone()).unwrap_or_default()))
                    .subject(subject)
                    .evidence("the usual workaround for libraries shipped without this GPU's ISA; not an official configuration"),
            );
        } else if crate::isa::TargetId::plain(&native).major()
            == crate::isa::TargetId::plain(&ovr).major()
        {
            out.push(
                Finding::warn(format!("{head}: {ovr} and {native} share a major version but not an ISA-compatible generic family"))
                    .subject(subject)
                    .evidence("code for another generation of the same major version may use instructions this GPU lacks")
                    .fix(Fix::text(format!("Prefer a build that includes {native}; if you keep the override, test it.")).command(format!("unset {}", o.variable))),
            );
        } else {
            out.push(
                Finding::fail(format!("{head} crosses GPU families: ROCr would run {ovr} code on a {native}"))
                    .subject(subject)
                    .evidence("code built for another family faults or hangs; overrides only work between ISA-compatible siblings (e.g. gfx1031 -> 10.3.0)")
                    .fix(Fix::text(format!("Unset it, or use the value of this GPU's family ({}).", a.gfx.as_deref().and_then(override_value_for).unwrap_or_else(|| "?".into()))).command(format!("unset {}", o.variable))),
            );
        }
        if o.variable == "HSA_OVERRIDE_GFX_VERSION" && natives.len() > 1 && !global_mixed_done {
            global_mixed_done = true;
            let mut fx = Fix::text("Replace the global variable by per-node variables for the GPUs that need it (the suffix is libhsakmt's node id, counting CPU nodes).").command("unset HSA_OVERRIDE_GFX_VERSION");
            for b in t
                .agents
                .iter()
                .filter(|b| b.user_node.is_some() && b.gfx.as_deref() != Some(ovr.as_str()))
            {
                let same_family = processor(b.gfx.as_deref().unwrap_or(""))
                    .and_then(|i| i.generic.clone())
                    .is_some_and(|g| Some(g) == oi.and_then(|i| i.generic.clone()));
                if same_family {
                    if let Some(un) = b.user_node {
                        fx = fx.set_env(format!("HSA_OVERRIDE_GFX_VERSION_{un}"), o.value.clone());
                    }
                }
            }
            out.push(
                Finding::warn(format!("one global HSA_OVERRIDE_GFX_VERSION applies to every GPU of a mixed machine ({})", natives.join(", ")))
                    .subject("HSA_OVERRIDE_GFX_VERSION")
                    .evidence_lines(t.agents.iter().filter(|b| b.user_node.is_some()).map(|b| format!("node {} (libhsakmt node {}): {}", b.node, b.user_node.unwrap_or(0), b.gfx.as_deref().unwrap_or("?"))))
                    .fix(fx),
            );
        }
    }
    if out.is_empty() {
        out.push(Finding::pass("overrides are well-formed"));
    }
    out
}

fn xnack(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.gpu();
    let req = t.xnack_request.unwrap_or(XnackRequest::Unset);
    let raw = ctx.host.env.get_str("HSA_XNACK");
    let noretry = t.driver.noretry;
    let noretry_line = match noretry {
        Some(n) => format!(
            "/sys/module/amdgpu/parameters/noretry: {n} ({})",
            match n {
                0 => "retry on: XNACK can be enabled",
                1 => "retry off: XNACK cannot be enabled",
                _ => "per-ASIC default",
            }
        ),
        None => "/sys/module/amdgpu/parameters/noretry: not readable".into(),
    };
    if req == XnackRequest::Ignored {
        return vec![Finding::warn(format!(
            "HSA_XNACK={:?} is ignored: ROCr only reads 0 or 1",
            raw.unwrap_or_default()
        ))
        .fix(
            Fix::text("Set HSA_XNACK=1 (XNACK on) or HSA_XNACK=0 (off), or unset it.")
                .command("unset HSA_XNACK"),
        )];
    }
    if let Some(g) = gate(ctx, t, false) {
        return g;
    }
    let capable: Vec<&Agent> = t
        .agents
        .iter()
        .filter(|a| {
            a.target
                .as_ref()
                .and_then(|t| t.info())
                .is_some_and(|i| i.xnack)
        })
        .collect();
    let modes: Vec<String> = t
        .agents
        .iter()
        .filter_map(|a| a.target.as_ref().map(|t| format!("node {}: {t}", a.node)))
        .collect();
    match req {
        XnackRequest::On if noretry == Some(1) && !capable.is_empty() => vec![Finding::warn("HSA_XNACK=1 but the kernel runs with amdgpu.noretry=1: XNACK stays off")
            .evidence(noretry_line)
            .evidence_lines(modes)
            .evidence("code objects built `xnack+` do not load on a GPU running xnack-: `hipErrorNoBinaryForGpu`")
            .fix(Fix::text("Boot with `amdgpu.noretry=0` to allow XNACK, or unset HSA_XNACK and use xnack- / xnack-any builds.").command("unset HSA_XNACK"))],
        XnackRequest::On if capable.is_empty() => vec![Finding::warn("HSA_XNACK=1 has no effect: no GPU here supports XNACK")
            .evidence_lines(modes)
            .fix(Fix::text("Unset it.").command("unset HSA_XNACK"))],
        _ => vec![Finding::pass(format!(
            "XNACK mode: {}",
            match req {
                XnackRequest::On => "on (HSA_XNACK=1)",
                XnackRequest::Off => "off (HSA_XNACK=0)",
                _ => "the kernel's default (HSA_XNACK unset)",
            }
        ))
        .evidence(noretry_line)
        .evidence_lines(modes)],
    }
}

fn runtime_init(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.gpu();
    if !t.environment.wsl.is_empty() {
        return gate(ctx, t, false).unwrap_or_default();
    }
    let has_gpu = t.has_gpu_nodes();
    let runtime = ctx.cfg.profile == Profile::Runtime;
    if !ctx.host.fs.is_real_root() {
        return vec![Finding::skip("HSA runtime initialisation is only probed on the real root (--sysroot is a fixture or another tree)")];
    }
    let preferred = ctx
        .inv
        .libraries()
        .iter()
        .find(|l| l.name == "hsa-runtime64")
        .and_then(|l| l.path.clone());
    let Some(lib) = hsa::find_library(ctx.host, preferred.as_deref()) else {
        let msg = "libhsa-runtime64 is not installed where the loader looks";
        return vec![if runtime || has_gpu {
            Finding::fail(msg).fix_text("Install the HSA runtime (package hsa-rocr / libhsa-runtime64-1 / rocm-hip-runtime), or add its directory to LD_LIBRARY_PATH.")
        } else {
            Finding::skip(format!("{msg}; no GPU here either"))
        }];
    };
    let (run, line) = hsa::run_probe(ctx.host, &lib);
    let cmd = format!("$ {}", run.command);
    let Some(line) = line else {
        let mut f = if runtime || has_gpu {
            Finding::fail(format!("the HSA probe did not report: {}", run.outcome()))
        } else {
            Finding::warn(format!("the HSA probe did not report: {}", run.outcome()))
        };
        if run.timed_out {
            f.status = crate::report::Status::Error;
        }
        let tail: Vec<String> = run
            .stderr_text()
            .lines()
            .rev()
            .take(5)
            .map(str::to_string)
            .collect();
        return vec![f
            .evidence(cmd)
            .evidence_lines(tail.into_iter().rev())
            .fix_text("Run `rocminfo` to see the runtime's own error; a crash or hang in hsa_init usually means a kernel driver / ROCm release mismatch (see gpu.driver).")];
    };
    let ev_lib = format!("library {}", lib.display());
    if !line.loaded {
        let err = line.error.unwrap_or_default();
        let f = Finding::new(
            if runtime || has_gpu {
                crate::report::Status::Fail
            } else {
                crate::report::Status::Warn
            },
            format!("libhsa-runtime64 cannot be loaded: {err}"),
        );
        return vec![f.evidence(ev_lib).evidence(cmd).fix_text("Install the library's missing dependencies (`ldd` on it lists them, libhsakmt and libnuma are the usual ones).")];
    }
    let st = line.init_status.unwrap_or(u32::MAX);
    if st != 0 {
        let label = hsa::status_label(st);
        let text = line.status_string.clone().unwrap_or_default();
        if !has_gpu && !runtime {
            return vec![Finding::skip(format!(
                "hsa_init returned {label}: expected here, KFD shows no GPU{}",
                if matches!(t.kfd, Some(NodeState::Missing)) {
                    " and /dev/kfd does not exist"
                } else {
                    ""
                }
            ))
            .evidence(ev_lib)
            .evidence(cmd)
            .evidence(text)];
        }
        let mut f = Finding::fail(format!("hsa_init failed: {label}"))
            .evidence(ev_lib)
            .evidence(cmd)
            .evidence(text);
        for b in &t.runtime_blocked {
            f = f.evidence(format!("likely cause: {b}"));
        }
        return vec![f.fix_text(if t.runtime_blocked.is_empty() && has_gpu {
            "Run `rocminfo` for the runtime's own message; compare the kernel driver with the ROCm release (gpu.driver), and check RLIMIT_MEMLOCK (`ulimit -l`)."
        } else {
            "Fix what gpu.kfd, gpu.render and gpu.overrides report; hsa_init fails until /dev/kfd and the render nodes open."
        })];
    }
    let gpus: Vec<String> = line
        .agents
        .iter()
        .filter(|a| a.device_type == serde_json::json!("gpu"))
        .filter_map(|a| a.name.clone())
        .collect();
    let predicted = t
        .agents
        .iter()
        .filter(|a| a.rocr_index.is_some() && t.visibility.after_rocr.contains(&a.node))
        .count();
    let summary = format!(
        "hsa_init succeeded: {} GPU agent(s) {}",
        gpus.len(),
        gpus.join(", ")
    );
    let agents_line = format!(
        "agents: {}",
        line.agents
            .iter()
            .map(|a| format!("{}({})", a.name.clone().unwrap_or_default(), a.device_type))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if gpus.is_empty() && (runtime || has_gpu) {
        return vec![Finding::fail("hsa_init succeeded but the runtime exposes no GPU agent").evidence(ev_lib).evidence(cmd).evidence(agents_line).fix_text("Check ROCR_VISIBLE_DEVICES (gpu.visibility) and the render nodes (gpu.render).")];
    }
    let mut f = Finding::pass(summary)
        .evidence(ev_lib)
        .evidence(cmd)
        .evidence(agents_line);
    if has_gpu && gpus.len() != predicted {
        f = Finding::warn(format!("the runtime shows {} GPU agent(s), KFD sysfs predicts {predicted}", gpus.len()))
            .evidence_lines(f.evidence.clone())
            .fix_text("Compare `rocminfo` with gpu.agents; a difference means a node the doctor considered usable is not (or the reverse).");
    }
    vec![f]
}
