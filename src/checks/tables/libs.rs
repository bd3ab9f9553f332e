//! `libs.code-objects` without a readable library: none found, or one that is empty (a
//! truncated install: the fixture's runtime libraries are empty stand-ins, see
//! tests/fixtures/sysroots/runtime-debian13-stale-hip/SOURCE.md).

use crate::checks::testkit::{row, table, NO_GPU};
use crate::checks::CheckId;
use crate::report::Status::*;

#[test]
fn code_objects_table() {
    table(
        CheckId::LibsCodeObjects,
        &[
            row(
                NO_GPU,
                &[],
                &[(
                    Skip,
                    "no key ROCm library (librocblas, libhipblaslt, libMIOpen, libamdhip64) found",
                )],
            ),
            row(
                "runtime-debian13-stale-hip",
                &[],
                &[(Error, "cannot inspect libamdhip64: empty file")],
            ),
        ],
    );
}

/// `libs.python-envs` on a root without Python: skipped, never a warning (the environments
/// themselves are tested through the binary, tests/python_envs.rs).
#[test]
fn python_envs_table() {
    table(
        CheckId::LibsPythonEnvs,
        &[row(
            NO_GPU,
            &[("HOME", "/home/u"), ("VIRTUAL_ENV", "/home/u/venv")],
            &[(
                Skip,
                "no ROCm-bearing Python environment found (looked in 0 site directories",
            )],
        )],
    );
}
