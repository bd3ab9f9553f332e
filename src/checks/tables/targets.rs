//! `targets.isa`: where the ISAs judged come from (`--isa`, the build variables, the GPUs), the
//! invalid ones, and a GPU the build's list leaves out.

use crate::checks::testkit::{row, table, Row, NO_GPU};
use crate::checks::CheckId;
use crate::isa::TargetId;
use crate::report::Status::*;

#[test]
fn isa_table() {
    table(
        CheckId::TargetsIsa,
        &[
            row(
                NO_GPU,
                &[],
                &[(
                    Skip,
                    "no target ISA: give --isa, set AMDGPU_TARGETS/GPU_TARGETS",
                )],
            ),
            // CMake's list separator is ';', PyTorch's ','.
            row(
                NO_GPU,
                &[("AMDGPU_TARGETS", "gfx1030;gfx90a")],
                &[
                    (Pass, "target gfx1030 (from AMDGPU_TARGETS)"),
                    (Pass, "target gfx90a (from AMDGPU_TARGETS)"),
                ],
            ),
            row(
                NO_GPU,
                &[("PYTORCH_ROCM_ARCH", "gfx90a,gfx942")],
                &[
                    (Pass, "target gfx90a (from PYTORCH_ROCM_ARCH)"),
                    (Pass, "target gfx942 (from PYTORCH_ROCM_ARCH)"),
                ],
            ),
            // A CUDA architecture in the list is refused, the rest is judged.
            row(
                NO_GPU,
                &[("AMDGPU_TARGETS", "gfx1030;sm_80")],
                &[
                    (Warn, "AMDGPU_TARGETS holds an invalid ISA 'sm_80'"),
                    (Pass, "target gfx1030 (from AMDGPU_TARGETS)"),
                ],
            ),
            // The GPUs' own ISAs, with the features KFD reports.
            row(
                "gfx1030-dgpu",
                &[],
                &[(Pass, "target gfx1030 (from agent 1)")],
            ),
            row(
                "k8s-mi300x-cpx-gfx942",
                &[],
                &[(Pass, "target gfx942:sramecc+ (from agent 2)")],
            ),
            // The build's list leaves out the machine's GPU.
            row(
                "gfx1030-dgpu",
                &[("AMDGPU_TARGETS", "gfx90a")],
                &[
                    (Pass, "target gfx90a (from AMDGPU_TARGETS)"),
                    (Warn, "AMDGPU_TARGETS lacks gfx1030 (agent 1)"),
                ],
            ),
            Row {
                setup: |c| c.isas = vec![TargetId::parse("gfx908:xnack-").expect("a target id")],
                ..row(NO_GPU, &[], &[(Pass, "target gfx908:xnack- (from --isa)")])
            },
        ],
    );
}
