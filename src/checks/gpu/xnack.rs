//! `gpu.xnack`: the XNACK mode the runtime will use (`HSA_XNACK`) against the agents.

use super::gate;
use crate::checks::Ctx;
use crate::gpu::overrides::XnackRequest;
use crate::gpu::Agent;
use crate::report::{Finding, Fix};

pub(super) fn xnack(ctx: &Ctx) -> Vec<Finding> {
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
        XnackRequest::On if noretry == Some(1) && !capable.is_empty() => vec![Finding::warn(
            "HSA_XNACK=1 \
            but the kernel runs with amdgpu.noretry=1: XNACK stays off",
        )
        .evidence(noretry_line)
        .evidence_lines(modes)
        .evidence(
            "code objects built `xnack+` do not load on a GPU running xnack-: \
                `hipErrorNoBinaryForGpu`",
        )
        .fix(
            Fix::text(
                "Boot with `amdgpu.noretry=0` to allow XNACK, or unset HSA_XNACK and \
                use xnack- / xnack-any builds.",
            )
            .command("unset HSA_XNACK"),
        )],
        XnackRequest::On if capable.is_empty() => vec![Finding::warn(
            "HSA_XNACK=1 has no effect: \
            no GPU here supports XNACK",
        )
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
