//! `gpu.visibility`: which agents HIP will see (`HIP_VISIBLE_DEVICES`, `ROCR_VISIBLE_DEVICES`,
//! ...), and mixed iGPU/dGPU machines.

use super::gate;
use crate::checks::Ctx;
use crate::gpu::{Agent, Topology, VisibilityReport};
use crate::report::{Finding, Fix};

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

pub(super) fn visibility(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.gpu();
    let v = &t.visibility;
    let any_var =
        v.rocr_value.is_some() || v.hip_variable.is_some() || v.gpu_device_ordinal.is_some();
    if let Some(g) = gate(ctx, t, false) {
        if any_var && t.environment.wsl.is_empty() {
            return vec![no_gpu_to_apply(v)];
        }
        return g;
    }
    let list = |nodes: &[u32]| node_list(t, nodes);
    let (ev, problems) = what_is_set(t);
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
    let base_fix = |value: &str| dgpu_fix(value, v.hip_variable.is_some());
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
            Finding::warn(format!(
                "a visibility variable is partly invalid; HIP sees \
                {summary_order}"
            ))
            .evidence_lines(ev.clone())
            .evidence_lines(problems)
            .fix(Fix::text(
                "Fix the list: indices are decimal positions in the list the \
                    variable filters, separated by commas without repeats; UUIDs are `GPU-` plus \
                    the hex unique id.",
            )),
        );
    }
    if igpu_visible {
        if let Some((value, igpus, dgpus)) = &selection {
            let first = visible.first().map(|a| a.integrated).unwrap_or(false);
            out.push(mixed_gpus(igpus, dgpus, first, &ev).fix(base_fix(value)));
        }
    }
    if out.is_empty() {
        out.push(Finding::pass(format!("HIP sees {summary_order}")).evidence_lines(ev));
    }
    out
}

/// Visibility variables set on a machine with no GPU: said, with their values.
fn no_gpu_to_apply(v: &VisibilityReport) -> Finding {
    let mut f = Finding::skip("visibility variables are set but there is no GPU to apply them to");
    f = f.evidence_lines(
        v.rocr_value
            .as_ref()
            .map(|x| format!("ROCR_VISIBLE_DEVICES={x:?}")),
    );
    f.evidence_lines(v.hip_variable.as_ref().map(|(k, x)| format!("{k}={x:?}")))
}

/// Select the discrete GPUs (`value`: their indices in ROCr's list); unset the HIP variables
/// when one is set (`hip_variable`).
fn dgpu_fix(value: &str, hip_variable: bool) -> Fix {
    let mut fx = Fix::text(format!(
        "Select the discrete GPU(s) by their index in ROCr's list ({value}); unset \
        HIP_VISIBLE_DEVICES/CUDA_VISIBLE_DEVICES so they do not re-filter it."
    ))
    .set_env("ROCR_VISIBLE_DEVICES", value);
    if hip_variable {
        fx = fx.command("unset HIP_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES");
    }
    fx
}

/// HIP sees the integrated GPU next to the discrete ones (`first`: the iGPU is device 0).
fn mixed_gpus(igpus: &[&Agent], dgpus: &[&Agent], first: bool, ev: &[String]) -> Finding {
    Finding::warn(format!(
        "HIP sees the integrated GPU {} next to the discrete GPU(s) {}{}",
        igpus
            .iter()
            .map(|a| a.gfx.clone().unwrap_or_default())
            .collect::<Vec<_>>()
            .join(","),
        dgpus
            .iter()
            .map(|a| a.gfx.clone().unwrap_or_default())
            .collect::<Vec<_>>()
            .join(","),
        if first {
            "; the iGPU is HIP device 0, which most programs use"
        } else {
            ""
        }
    ))
    .evidence_lines(ev.iter().cloned())
    .evidence(
        "programs built for the dGPU fail on the iGPU (`invalid device function`, \
        `hipErrorNoBinaryForGpu`)",
    )
}

/// `0=node 1 gfx1100, 1=node 2 gfx1036 (iGPU)`, or `none`.
fn node_list(t: &Topology, nodes: &[u32]) -> String {
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
}

/// What the variables select, step by step (evidence), and what is wrong in them (problems).
fn what_is_set(t: &Topology) -> (Vec<String>, Vec<String>) {
    let v = &t.visibility;
    let list = |nodes: &[u32]| node_list(t, nodes);
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
            problems.push(format!(
                "ROCR_VISIBLE_DEVICES: entries {:?} are ignored (ROCr reads at \
                most one entry per GPU)",
                v.rocr.ignored
            ));
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
    (ev, problems)
}
