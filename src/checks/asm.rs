//! The `asm` family (docs: `checks/asm.toml`): Tensile's assembler capability probe
//! (`crate::asm`), as three checks. They are opt-in: `Config` selects them only with
//! `--asm-caps` (and `asm.expect` only with `--expect`); named by `--only` without the flag they
//! say so. The probe runs once per run, by whichever of them runs first ([`super::AsmSlot`]).

use super::{CheckFn, CheckId, Ctx};
use crate::report::Finding;

pub(crate) const CHECKS: &[(CheckId, CheckFn)] = &[
    (CheckId::AsmAssembler, assembler),
    (CheckId::AsmCaps, caps),
    (CheckId::AsmExpect, expect),
];

fn assembler(ctx: &Ctx) -> Vec<Finding> {
    findings_for(ctx, CheckId::AsmAssembler, String::new())
}

fn caps(ctx: &Ctx) -> Vec<Finding> {
    findings_for(
        ctx,
        CheckId::AsmCaps,
        format!(
            "no ISA probed: the assembler could not run ({})",
            CheckId::AsmAssembler.see()
        ),
    )
}

fn expect(ctx: &Ctx) -> Vec<Finding> {
    let why = if ctx.cfg.asm.as_ref().is_some_and(|r| r.expect.is_none()) {
        "no --expect FILE given: nothing to compare with".to_string()
    } else {
        format!(
            "no answers to compare: the assembler could not run ({})",
            CheckId::AsmAssembler.see()
        )
    };
    findings_for(ctx, CheckId::AsmExpect, why)
}

/// The probe's findings for `id`, or one skip saying why there are none.
fn findings_for(ctx: &Ctx, id: CheckId, why_none: String) -> Vec<Finding> {
    let Some(req) = &ctx.cfg.asm else {
        return vec![Finding::skip(
            "not requested: run with --asm-caps to probe the assembler",
        )];
    };
    let out = ctx
        .asm
        .get_or_init(|| crate::asm::run(ctx.host, ctx.cfg, ctx.inv, req));
    let mine: Vec<Finding> = out
        .findings
        .iter()
        .filter(|(of, _)| *of == id)
        .map(|(_, f)| f.clone())
        .collect();
    if mine.is_empty() {
        vec![Finding::skip(why_none)]
    } else {
        mine
    }
}
