//! `asm.*` without an assembler: not requested (the flag is opt-in), then requested on a root
//! where Tensile's search finds nothing.

use crate::checks::testkit::{judge_with, row, run_of, table, Row, NO_GPU};
use crate::checks::CheckId;
use crate::config::{AsmCompat, AsmRequest, Config};
use crate::report::Status::{self, *};

fn requested(c: &mut Config) {
    c.asm = Some(AsmRequest {
        assembler: None,
        serial: false,
        compat: AsmCompat::Current,
        expect: None,
    });
}

#[test]
fn not_requested_every_asm_check_says_how_to_ask() {
    for id in [CheckId::AsmAssembler, CheckId::AsmCaps, CheckId::AsmExpect] {
        table(
            id,
            &[row(
                "gfx1030-dgpu",
                &[],
                &[(
                    Skip,
                    "not requested: run with --asm-caps to probe the assembler",
                )],
            )],
        );
    }
}

#[test]
fn requested_without_an_assembler() {
    let with_request = |expect: &'static [(Status, &'static str)]| Row {
        setup: requested,
        ..row(NO_GPU, &[], expect)
    };
    table(
        CheckId::AsmAssembler,
        &[with_request(&[(
            Fail,
            "no assembler found: Tensile would find none either",
        )])],
    );
    table(
        CheckId::AsmCaps,
        &[with_request(&[(
            Skip,
            "no ISA probed: the assembler could not run (see asm.assembler)",
        )])],
    );
    table(
        CheckId::AsmExpect,
        &[with_request(&[(
            Skip,
            "no --expect FILE given: nothing to compare with",
        )])],
    );
    // The evidence is Tensile's search, step by step.
    let f = judge_with(NO_GPU, &[], requested, run_of(CheckId::AsmAssembler));
    assert!(
        f[0].evidence
            .iter()
            .any(|e| e == "TENSILE_ROCM_ASSEMBLER_PATH is not set"),
        "{:?}",
        f[0].evidence
    );
    assert!(f[0].evidence.iter().any(|e| e == "amdclang++: not on PATH"));
}
