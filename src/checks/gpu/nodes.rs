//! Device-node wording shared by `gpu.kfd` and `gpu.render`: a node described for evidence, the
//! credentials it was judged for, and the fix for a denial.

use crate::checks::Ctx;
use crate::gpu::devnodes::{group_name, NodeInfo};
use crate::gpu::Topology;
use crate::report::Fix;

pub(super) fn describe_node(i: &NodeInfo, host: &crate::host::Host) -> String {
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

pub(super) fn cred_line(t: &Topology) -> String {
    match &t.devices {
        Some(d) => format!(
            "judged for uid {} gid {} groups {:?} (from the {})",
            d.cred.uid, d.cred.gid, d.cred.groups, d.cred_source
        ),
        None => "credentials unknown".to_string(),
    }
}

/// The fix for a permission denial on a device node.
pub(super) fn access_fix(ctx: &Ctx, t: &Topology, info: &NodeInfo) -> Fix {
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
            "Inside a container group names lie: add the numeric group that owns {} when starting \
                the container, e.g. `docker run --group-add {gid} ...` (on the host: `stat -c %g \
                {}`).",
            info.path.display(),
            info.path.display()
        ))
        .command(format!(
            "docker run --group-add {gid} --device=/dev/kfd --device=/dev/dri ..."
        ));
    }
    let label = name.clone().unwrap_or_else(|| gid.to_string());
    Fix::text(format!(
        "Add your user to the group that may open {} (gid {gid}{}) and log in again (group \
            changes apply to new logins only; `newgrp {label}` for the current shell).",
        info.path.display(),
        name.map(|n| format!(", `{n}`")).unwrap_or_default()
    ))
    .command(format!("sudo usermod -aG {label} $USER"))
}
