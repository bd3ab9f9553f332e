//! `gpu.render`: the DRM render node of every GPU can be opened.

use super::gate;
use super::nodes::{access_fix, cred_line, describe_node};
use crate::checks::Ctx;
use crate::gpu::devnodes::{NodeInfo, NodeState};
use crate::gpu::{Agent, Topology};
use crate::report::{Finding, Fix};
use std::path::{Path, PathBuf};

pub(super) fn render(ctx: &Ctx) -> Vec<Finding> {
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
                    .evidence(
                        "libhsakmt requires a render node for every GPU node and fails \
                        initialisation without one",
                    )
                    .fix_text(
                        "Update the kernel / amdgpu driver; a GPU node without a render \
                        minor is a driver bug.",
                    ),
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
                out.push(missing(t, a, &path, subject, all_missing || in_container))
            }
            NodeState::Error(e) => out.push(
                Finding::fail(format!("{} cannot be examined: {e}", path.display()))
                    .subject(subject)
                    .fix_text("Check `ls -l /dev/dri`."),
            ),
            NodeState::Present(info) => out.push(present(ctx, t, info, &path, subject)),
        }
    }
    if out.is_empty() {
        out.push(Finding::skip(
            "no readable GPU node to check the render node of",
        ));
    }
    out
}

/// The render node KFD names does not exist.
fn missing(t: &Topology, a: &Agent, path: &Path, subject: String, passthrough: bool) -> Finding {
    let mut f = Finding::fail(format!(
        "{} (KFD node {}, {}) does not exist",
        path.display(),
        a.node,
        a.gfx.as_deref().unwrap_or("?")
    ))
    .subject(subject);
    f = f.evidence("libhsakmt silently skips a GPU whose render node is missing (ENOENT)");
    f = if passthrough {
        f.evidence_lines(t.environment.container.clone()).fix(
            Fix::text(
                "KFD nodes are visible but the device files are not: a container started \
                without GPU passthrough.",
            )
            .command("docker run --device=/dev/kfd --device=/dev/dri ..."),
        )
    } else {
        f.fix_text(
            "udev did not create the render node; check `ls -l /dev/dri` and \
            `dmesg | grep -i drm`.",
        )
    };
    f
}

/// The render node exists: opened read-write, refused, or unusable.
fn present(ctx: &Ctx, t: &Topology, info: &NodeInfo, path: &Path, subject: String) -> Finding {
    let line = describe_node(info, ctx.host);
    match info.open.errno() {
        None if info.is_char => Finding::pass(format!("{} opens read-write", path.display()))
            .subject(subject)
            .evidence(line),
        Some(e @ ("EACCES" | "EPERM")) => Finding::fail(format!(
            "this process cannot open {} read-write ({e})",
            path.display()
        ))
        .subject(subject)
        .evidence(line)
        .evidence(cred_line(t))
        .evidence(if e == "EPERM" {
            "EPERM: libhsakmt skips the GPU (device cgroup)".to_string()
        } else {
            "libhsakmt treats this as fatal: `Failed to open \
                        /dev/dri/renderD…: Permission denied`, topology \
                        initialisation fails for every GPU"
                .to_string()
        })
        .fix(access_fix(ctx, t, info)),
        _ => Finding::fail(format!(
            "{} is unusable: {}",
            path.display(),
            info.open.errno().unwrap_or("not a character device")
        ))
        .subject(subject)
        .evidence(line)
        .fix_text(
            "Let udev recreate the node (`udevadm trigger`), or pass \
                    `--device=/dev/dri` to the container.",
        ),
    }
}
