//! `gpu.overrides`: `HSA_OVERRIDE_GFX_VERSION` and friends against the real agents.

use super::gate;
use crate::checks::Ctx;
use crate::gpu::overrides::override_value_for;
use crate::gpu::{Agent, AgentOverride, Topology};
use crate::isa::processor;
use crate::report::{Finding, Fix};

pub(super) fn overrides(ctx: &Ctx) -> Vec<Finding> {
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
        return well_formed(&vars);
    }
    if vars.is_empty() {
        return vec![Finding::pass(
            "no HSA_OVERRIDE_GFX_VERSION: ROCr loads code for each GPU's own ISA",
        )];
    }
    // Per-node variables that match no GPU node.
    let mut out = unmatched_node_vars(t, &vars);
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
        let (f, ovr) = judge_override(a, o);
        out.push(f);
        let Some(ovr) = ovr else { continue };
        if o.variable == "HSA_OVERRIDE_GFX_VERSION" && natives.len() > 1 && !global_mixed_done {
            global_mixed_done = true;
            out.push(global_on_mixed(t, o, &ovr, &natives));
        }
    }
    if out.is_empty() {
        out.push(Finding::pass("overrides are well-formed"));
    }
    out
}

/// Without a GPU: each override's format only.
fn well_formed(vars: &[(String, String)]) -> Vec<Finding> {
    let mut out = Vec::new();
    for (k, v) in vars {
        match crate::gpu::overrides::parse_override(v) {
            Ok(p) => out.push(
                Finding::skip(format!(
                    "{k}={v:?} is well-formed ({}) but there is no GPU to apply it to",
                    p.gfx().unwrap_or_else(|| "no LLVM processor".into())
                ))
                .subject(k.clone()),
            ),
            Err(e) => out.push(
                Finding::warn(format!("{k}={v:?} is invalid: {e}"))
                    .subject(k.clone())
                    .evidence(
                        "libhsakmt rejects it (`HSA_OVERRIDE_GFX_VERSION … is invalid`) and \
                        HSA initialisation fails on any GPU machine",
                    )
                    .fix(
                        Fix::text("Unset it, or use three decimal numbers such as 10.3.0.")
                            .command(format!("unset {k}")),
                    ),
            ),
        }
    }
    out
}

/// `HSA_OVERRIDE_GFX_VERSION_<n>` whose `<n>` is no GPU's libhsakmt node id.
fn unmatched_node_vars(t: &Topology, vars: &[(String, String)]) -> Vec<Finding> {
    let mut out = Vec::new();
    let user_nodes: Vec<u32> = t.agents.iter().filter_map(|a| a.user_node).collect();
    for (k, v) in vars {
        if let Some(n) = k.strip_prefix("HSA_OVERRIDE_GFX_VERSION_") {
            let ok = n
                .parse::<u32>()
                .ok()
                .is_some_and(|n| user_nodes.contains(&n));
            if !ok {
                out.push(
                    Finding::warn(format!("{k}={v:?} names no GPU node"))
                        .subject(k.clone())
                        .evidence(format!(
                            "the suffix is libhsakmt's node id counting CPU nodes; \
                            GPU node ids here: {user_nodes:?}"
                        ))
                        .fix(
                            Fix::text("Use the node id of the GPU, or unset the variable.")
                                .command(format!("unset {k}")),
                        ),
                );
            }
        }
    }
    out
}

/// One agent's override against its own ISA: invalid, unknown, no effect, an ISA-compatible
/// sibling, the same major version, or another family. The override's processor is returned
/// when it names one.
fn judge_override(a: &Agent, o: &AgentOverride) -> (Finding, Option<String>) {
    let subject = format!("node {}", a.node);
    let native = a.gfx.clone().unwrap_or_else(|| "gfx?".into());
    let head = format!("{}={:?} on node {} ({native})", o.variable, o.value, a.node);
    if let Some(err) = &o.error {
        return (invalid_override(a, o, &head, subject, err), None);
    }
    let Some(ovr) = o.gfx.clone() else {
        return (
            Finding::fail(format!(
                "{head} names no ISA ROCr knows (minor and stepping must be 0..15)"
            ))
            .subject(subject)
            .evidence("ROCr: `Agent creation failed. The GPU node has an unrecognized id.`")
            .fix(Fix::text("Unset it.").command(format!("unset {}", o.variable))),
            None,
        );
    };
    let f = against_own_isa(a, o, &head, subject, &native, &ovr);
    (f, Some(ovr))
}

/// A valid override (`ovr`) against the GPU's own ISA (`native`): no effect, an ISA-compatible
/// sibling, the same major version, or another family.
fn against_own_isa(
    a: &Agent,
    o: &AgentOverride,
    head: &str,
    subject: String,
    native: &str,
    ovr: &str,
) -> Finding {
    let ni = processor(native);
    let oi = processor(ovr);
    if ovr == native {
        Finding::warn(format!(
            "{head} repeats the GPU's own ISA: it has no effect"
        ))
        .subject(subject)
        .fix(
            Fix::text("Remove it so it cannot mislead after a GPU change.")
                .command(format!("unset {}", o.variable)),
        )
    } else if ni.and_then(|i| i.generic.clone()).is_some()
        && ni.and_then(|i| i.generic.clone()) == oi.and_then(|i| i.generic.clone())
    {
        Finding::pass(format!(
            "{head}: ROCr loads {ovr} code on this {native}, an ISA-compatible \
            sibling (same {} family)",
            ni.and_then(|i| i.generic.clone()).unwrap_or_default()
        ))
        .subject(subject)
        .evidence(
            "the usual workaround for libraries shipped without this GPU's ISA; not an \
                official configuration",
        )
    } else if crate::isa::TargetId::plain(native).major()
        == crate::isa::TargetId::plain(ovr).major()
    {
        Finding::warn(format!(
            "{head}: {ovr} and {native} share a major version but not an \
            ISA-compatible generic family"
        ))
        .subject(subject)
        .evidence(
            "code for another generation of the same major version may use instructions \
                this GPU lacks",
        )
        .fix(
            Fix::text(format!(
                "Prefer a build that includes {native}; if you keep the override, test it."
            ))
            .command(format!("unset {}", o.variable)),
        )
    } else {
        Finding::fail(format!(
            "{head} crosses GPU families: ROCr would run {ovr} code on a \
            {native}"
        ))
        .subject(subject)
        .evidence(
            "code built for another family faults or hangs; overrides only work between \
                ISA-compatible siblings (e.g. gfx1031 -> 10.3.0)",
        )
        .fix(
            Fix::text(format!(
                "Unset it, or use the value of this GPU's family ({}).",
                a.gfx
                    .as_deref()
                    .and_then(override_value_for)
                    .unwrap_or_else(|| "?".into())
            ))
            .command(format!("unset {}", o.variable)),
        )
    }
}

/// The override's value is not three decimal numbers: HSA initialisation fails.
fn invalid_override(
    a: &Agent,
    o: &AgentOverride,
    head: &str,
    subject: String,
    err: &str,
) -> Finding {
    let mut fx = Fix::text(
        "Use three decimal numbers without quotes; every part is decimal (gfx90a is 9.0.10).",
    );
    if let Some(sug) = a.gfx.as_deref().and_then(override_value_for) {
        fx = fx.command(format!(
            "unset {}   # or, only for an ISA-compatible sibling: export {}={sug}",
            o.variable, o.variable
        ));
    } else {
        fx = fx.command(format!("unset {}", o.variable));
    }
    Finding::fail(format!("{head} is invalid: {err}"))
        .subject(subject)
        .evidence(
            "libhsakmt: \
        `HSA_OVERRIDE_GFX_VERSION … is invalid`, and HSA initialisation fails",
        )
        .fix(fx)
}

/// One global override on a machine with several GPU ISAs: it applies to all of them.
fn global_on_mixed(t: &Topology, o: &AgentOverride, ovr: &str, natives: &[String]) -> Finding {
    let oi = processor(ovr);
    let mut fx = Fix::text(
        "Replace the global variable by per-node variables for the GPUs that \
        need it (the suffix is libhsakmt's node id, counting CPU nodes).",
    )
    .command("unset HSA_OVERRIDE_GFX_VERSION");
    for b in t
        .agents
        .iter()
        .filter(|b| b.user_node.is_some() && b.gfx.as_deref() != Some(ovr))
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
    Finding::warn(format!(
        "one global HSA_OVERRIDE_GFX_VERSION applies to every GPU of a mixed machine ({})",
        natives.join(", ")
    ))
    .subject("HSA_OVERRIDE_GFX_VERSION")
    .evidence_lines(t.agents.iter().filter(|b| b.user_node.is_some()).map(|b| {
        format!(
            "node {} (libhsakmt node {}): {}",
            b.node,
            b.user_node.unwrap_or(0),
            b.gfx.as_deref().unwrap_or("?")
        )
    }))
    .fix(fx)
}
