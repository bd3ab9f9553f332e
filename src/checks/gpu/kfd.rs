//! `gpu.kfd`: `/dev/kfd` exists, is the right device and can be opened.

use super::gate;
use super::nodes::{access_fix, cred_line, describe_node};
use crate::checks::{CheckId, Ctx};
use crate::gpu::devnodes::{NodeInfo, NodeState};
use crate::gpu::Topology;
use crate::report::{Finding, Fix};
use std::path::Path;

pub(super) fn kfd(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.gpu();
    if let Some(g) = gate(ctx, t, true) {
        return g;
    }
    let in_container = !t.environment.container.is_empty();
    let cred = cred_line(t);
    match t.kfd.as_ref().unwrap_or(&NodeState::Unknown) {
        NodeState::Unknown => vec![Finding::skip(
            "this fixture sysroot does not describe device \
            nodes (no /.rocm-doctor-fixture.toml): /dev/kfd not judged",
        )],
        NodeState::Missing => {
            let mut f =
                Finding::fail("KFD lists GPUs but /dev/kfd does not exist").evidence(format!(
                    "KFD topology: {}",
                    t.path.as_deref().unwrap_or(Path::new("?")).display()
                ));
            if in_container {
                f = f.evidence_lines(t.environment.container.clone()).fix(
                    Fix::text(
                        "This container was started without the compute device: pass it \
                        (and the render nodes) to the container.",
                    )
                    .command("docker run --device=/dev/kfd --device=/dev/dri ..."),
                );
            } else {
                f = f.fix(Fix::text(
                    "The node is created by udev when amdkfd initialises; check \
                    `dmesg | grep -i kfd` and that udev runs (`udevadm trigger`).",
                ));
            }
            vec![f]
        }
        NodeState::Error(e) => vec![Finding::fail(format!("/dev/kfd cannot be examined: {e}"))
            .fix_text(
                "Check the path with `ls -l \
            /dev/kfd`; a broken /dev mount in a container shows up this way.",
            )],
        NodeState::Present(info) => vec![present(ctx, t, info, cred, in_container)],
    }
}

/// /dev/kfd exists: a character device this process opens read-write, or why not.
fn present(ctx: &Ctx, t: &Topology, info: &NodeInfo, cred: String, in_container: bool) -> Finding {
    let line = describe_node(info, ctx.host);
    if !info.is_char {
        return Finding::fail("/dev/kfd is not a character device")
            .evidence(line)
            .fix_text(
                "Something replaced the device node (a bind mount of a directory or file); \
                remove it and let udev recreate it, or pass `--device=/dev/kfd` to the \
                container.",
            );
    }
    match info.open.errno() {
        None => Finding::pass(format!(
            "/dev/kfd opens read-write ({})",
            match &info.decision {
                crate::gpu::access::Decision::Granted(why) => why.clone(),
                _ => "granted".into(),
            }
        ))
        .evidence(line)
        .evidence(cred),
        Some(e @ ("EACCES" | "EPERM")) => {
            let mut f = Finding::fail(format!(
                "this process cannot open /dev/kfd \
                read-write ({e})"
            ))
            .evidence(line)
            .evidence(cred);
            if let crate::gpu::access::Decision::Denied { reason, .. } = &info.decision {
                f = f.evidence(reason.clone());
                f = f.fix(access_fix(ctx, t, info));
            } else {
                f = f
                    .evidence(
                        "mode, owner and ACL grant access, so a security module or \
                    the device cgroup refuses it",
                    )
                    .fix(Fix::text(
                        "Check the container's device cgroup (`--device=/dev/kfd`) and LSM \
                        denials (`dmesg | grep -i -e apparmor -e selinux`).",
                    ));
            }
            if in_container {
                f = f.evidence_lines(t.environment.container.clone());
            }
            f
        }
        Some(e) => Finding::fail(format!("/dev/kfd refuses a read-write open: {e}"))
            .evidence(line)
            .evidence(cred)
            .evidence(if e == "EINVAL" {
                "EINVAL comes from KFD itself, not from permissions (seen with mismatched \
                    kernel driver / ROCm userspace and in some containers)"
                    .to_string()
            } else {
                format!("errno {e} is not a permission problem")
            })
            .fix(
                Fix::text(format!(
                    "Read `dmesg | grep -i kfd` and compare the kernel \
                driver ({}) with the ROCm release; a DKMS driver matching ROCm, or a \
                newer kernel, usually resolves it.",
                    CheckId::GpuDriver
                ))
                .command("dmesg | grep -i kfd"),
            ),
    }
}
