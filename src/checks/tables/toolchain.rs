//! `toolchain.*` on fixture trees without a clang (tests/fixtures/toolchains, see its SOURCE.md):
//! the roots, variables and versions are judged from files; every check that needs clang skips,
//! pointing at `toolchain.clang`, which fails with a fix.

use crate::checks::testkit::{row, table, NO_GPU};
use crate::checks::CheckId;
use crate::report::Status::*;

const OPT_ROCM: &str = "toolchains/opt-rocm-6.2.2";
const THEROCK: &str = "toolchains/therock";
const NIX: &str = "toolchains/nix-split";
const DEBIAN13: &str = "runtime-debian13-stale-hip";

#[test]
fn rocm_root_table() {
    table(
        CheckId::ToolchainRocmRoot,
        &[
            row(NO_GPU, &[], &[(Fail, "no ROCm installation found")]),
            row(
                OPT_ROCM,
                &[],
                &[(Pass, "ROCm root /opt/rocm (AMD packages (/opt/rocm-X.Y.Z))")],
            ),
            // HIP_PATH names the versioned directory: that is the root judged.
            row(
                OPT_ROCM,
                &[("HIP_PATH", "/opt/rocm-6.2.2")],
                &[(Pass, "ROCm root /opt/rocm-6.2.2 (AMD packages")],
            ),
            row(
                THEROCK,
                &[("ROCM_PATH", "/home/user/therock-tarball/install")],
                &[(
                    Pass,
                    "ROCm root /home/user/therock-tarball/install (TheRock)",
                )],
            ),
            row(
                NIX,
                &[(
                    "ROCM_PATH",
                    "/nix/store/cccccccccccccccccccccccccccccccc-rocm-path",
                )],
                &[(Pass, "(Nix symlinkJoin tree)")],
            ),
            // Debian's runtime libraries alone: /usr is a root without headers or bitcode.
            row(
                DEBIAN13,
                &[],
                &[(
                    Warn,
                    "ROCm root /usr lacks HIP headers (include/hip/hip_runtime.h) and \
                        device-library bitcode",
                )],
            ),
        ],
    );
}

#[test]
fn env_table() {
    table(
        CheckId::ToolchainEnv,
        &[
            row(OPT_ROCM, &[], &[(Pass, "no ROCm variables set")]),
            row(
                OPT_ROCM,
                &[("ROCM_PATH", "/opt/rocm")],
                &[(Pass, "ROCm variables point at real, agreeing places")],
            ),
            // A release that is not installed.
            row(
                OPT_ROCM,
                &[("ROCM_PATH", "/opt/rocm-5.7.1")],
                &[(Fail, "ROCM_PATH=/opt/rocm-5.7.1 cannot be used: ENOENT")],
            ),
            row(
                OPT_ROCM,
                &[("HIP_DEVICE_LIB_PATH", "/nowhere")],
                &[(Fail, "HIP_DEVICE_LIB_PATH=/nowhere cannot be used: ENOENT")],
            ),
            row(
                THEROCK,
                &[("ROCM_PATH", "/home/user/therock-tarball/install")],
                &[(Pass, "ROCm variables point at real, agreeing places")],
            ),
        ],
    );
}

#[test]
fn versions_table() {
    table(
        CheckId::ToolchainVersions,
        &[
            row(
                NO_GPU,
                &[],
                &[(Skip, "no version information found (no .info/version")],
            ),
            row(
                OPT_ROCM,
                &[],
                &[(
                    Pass,
                    "one release: ROCm (root) 6.2.2, HIP headers 6.2.41134",
                )],
            ),
            row(
                THEROCK,
                &[("ROCM_PATH", "/home/user/therock-tarball/install")],
                &[(Pass, "one release: HIP headers 7.0.51830")],
            ),
            row(
                NIX,
                &[(
                    "ROCM_PATH",
                    "/nix/store/cccccccccccccccccccccccccccccccc-rocm-path",
                )],
                &[(Pass, "one release: HIP headers 6.0.32831")],
            ),
            // From the runtime library's file name, the copy the loader picks.
            row(
                DEBIAN13,
                &[],
                &[(Pass, "one release: HIP runtime (default dirs) 5.7.31921")],
            ),
            row(
                DEBIAN13,
                &[("LD_LIBRARY_PATH", "/usr/lib")],
                &[(Pass, "one release: HIP runtime (LD_LIBRARY_PATH) 5.2.21153")],
            ),
        ],
    );
}

#[test]
fn without_clang_the_clang_check_fails_and_the_others_skip_to_it() {
    table(
        CheckId::ToolchainClang,
        &[
            row(NO_GPU, &[], &[(Fail, "no clang found to compile HIP")]),
            // A root's lib/llvm without bin/clang is no compiler.
            row(OPT_ROCM, &[], &[(Fail, "no clang found to compile HIP")]),
        ],
    );
    for id in [
        CheckId::ToolchainResourceDir,
        CheckId::ToolchainDeviceLibs,
        CheckId::ToolchainLld,
        CheckId::ToolchainLink,
    ] {
        table(
            id,
            &[
                row(
                    OPT_ROCM,
                    &[("ROCM_PATH", "/opt/rocm")],
                    &[(Skip, "no clang to check with (see toolchain.clang)")],
                ),
                row(
                    NO_GPU,
                    &[],
                    &[(Skip, "no clang to check with (see toolchain.clang)")],
                ),
            ],
        );
    }
}

#[test]
fn hip_compile_table() {
    table(
        CheckId::ToolchainHipCompile,
        &[
            // No ISA and no GPU: nothing to compile, whatever the compiler.
            row(
                OPT_ROCM,
                &[],
                &[(
                    Skip,
                    "no target ISA (--isa, AMDGPU_TARGETS, GPU_TARGETS, PYTORCH_ROCM_ARCH) \
                    and no GPU: nothing to compile",
                )],
            ),
            // An ISA (from the variable, or the GPU of the fixture) but no clang.
            row(
                NO_GPU,
                &[("AMDGPU_TARGETS", "gfx1030")],
                &[(Skip, "no clang to check with (see toolchain.clang)")],
            ),
            row(
                "gfx1030-dgpu",
                &[],
                &[(Skip, "no clang to check with (see toolchain.clang)")],
            ),
        ],
    );
}
