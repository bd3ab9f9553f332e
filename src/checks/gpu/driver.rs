//! `gpu.driver`: amdgpu loaded (or why not: blacklists, WSL, containers).

use super::gate;
use crate::checks::Ctx;
use crate::config::Profile;
use crate::report::{Finding, Fix};
use std::path::Path;

pub(super) fn driver(ctx: &Ctx) -> Vec<Finding> {
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
        return vec![loaded(d, ev)];
    }
    ev.push("/sys/module/amdgpu does not exist".into());
    let blacklist = blacklist_lines(ctx);
    ev.extend(blacklist.iter().cloned());
    let has_gpu = t.has_gpu_nodes() || !t.drm_cards.is_empty();
    let summary = "amdgpu is not loaded";
    let fix = Fix::text(if blacklist.is_empty() {
        "Load the driver (`sudo modprobe amdgpu`) and read `dmesg | grep -i amdgpu` if it fails \
            (Secure Boot rejecting an unsigned DKMS module: `mokutil --sb-state`; failed DKMS \
            build: `dkms status`)."
    } else {
        "Remove the amdgpu blacklist shown in the evidence, then `sudo modprobe amdgpu` (or \
            reboot)."
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

/// The amdgpu module is there (`/sys/module/amdgpu`): live, built in, or in another state.
fn loaded(d: &crate::gpu::platform::Driver, ev: Vec<String>) -> Finding {
    match d.initstate.as_deref() {
        Some("live") => Finding::pass(format!(
            "amdgpu is loaded{}",
            d.version
                .as_ref()
                .map(|v| format!(" (DKMS {v})"))
                .unwrap_or_default()
        ))
        .evidence("/sys/module/amdgpu/initstate: live")
        .evidence_lines(ev),
        None => Finding::pass("amdgpu is built into the kernel")
            .evidence(
                "/sys/module/amdgpu exists without initstate: a built-in driver \
                (rocminfo used to misreport this, ROCm/rocminfo#65)",
            )
            .evidence_lines(d.builtin_listed.map(|b| {
                format!(
                    "modules.builtin lists amdgpu: \
                {b}"
                )
            }))
            .evidence_lines(ev),
        Some(other) => Finding::warn(format!("amdgpu is in state '{other}', not live"))
            .evidence(format!("/sys/module/amdgpu/initstate: {other}"))
            .evidence_lines(ev)
            .fix(Fix::text(
                "The module is still loading or being removed; wait and re-run, or \
                check `dmesg | grep -i amdgpu` for a failed probe.",
            )),
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
