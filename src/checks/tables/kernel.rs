//! `kernel.*` on the fixture kernel logs (tests/fixtures/sysroots/kernlog-*, each with its
//! SOURCE.md; the parser and reader are tested in src/kernlog and tests/kernlog.rs): each kind
//! of event as a finding, a clean log as a pass, and no log as a skip.

use crate::checks::testkit::{row, table, NO_GPU};
use crate::checks::CheckId;
use crate::report::Status::{self, *};

/// A dmesg capture of an MI100 whose gpu_info firmware failed to load (4 events).
const MI100: &str = "kernlog-mi100-gpu-info";
/// A kern.log of a gfx1151 with one GPU page fault.
const GFX1151: &str = "kernlog-gfx1151-page-fault";
const NO_LOG: &str = "the kernel log cannot be read here (see kernel.log)";

#[test]
fn log_table() {
    table(
        CheckId::KernelLog,
        &[
            row(NO_GPU, &[], &[(Skip, "the kernel log of this boot cannot be read here")]),
            row(
                MI100,
                &[],
                &[(Pass, "read 13 line(s) of this boot from /var/log/rocm-doctor-dmesg.txt: 4 amdgpu/KFD event(s)")],
            ),
            row(
                GFX1151,
                &[],
                &[(Pass, "read 13 line(s) of this boot from /var/log/kern.log: 1 amdgpu/KFD event(s)")],
            ),
        ],
    );
}

#[test]
fn driver_init_table() {
    table(
        CheckId::KernelDriverInit,
        &[
            row(NO_GPU, &[], &[(Skip, NO_LOG)]),
            row(
                MI100,
                &[],
                &[
                    (Fail, "firmware-load-failed: Direct firmware load for amdgpu/arcturus_gpu_info.bin failed with error -2 (2 times"),
                    (Fail, "ip-init-failed: Fatal error during GPU init"),
                    (Fail, "probe-failed: probe of 0000:23:00.0 failed with error -2"),
                ],
            ),
            row(
                GFX1151,
                &[],
                &[(Pass, "no driver or KFD initialisation failure in the kernel log of this boot")],
            ),
        ],
    );
}

#[test]
fn page_faults_table() {
    table(
        CheckId::KernelPageFaults,
        &[
            row(NO_GPU, &[], &[(Skip, NO_LOG)]),
            row(
                GFX1151,
                &[],
                &[(
                    Warn,
                    "vm-page-fault: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32794)",
                )],
            ),
            row(
                MI100,
                &[],
                &[(Pass, "no GPU page fault in the kernel log of this boot")],
            ),
        ],
    );
}

#[test]
fn hangs_ras_smu_pass_on_logs_without_them() {
    let cases: [(CheckId, &[(Status, &str)]); 3] = [
        (
            CheckId::KernelHangs,
            &[(
                Pass,
                "no ring timeout, GPU hang or reset in the kernel log of this boot",
            )],
        ),
        (
            CheckId::KernelRas,
            &[(Pass, "no RAS (ECC) event in the kernel log of this boot")],
        ),
        (
            CheckId::KernelSmu,
            &[(
                Pass,
                "no SMU (power management) failure or throttling in the kernel log",
            )],
        ),
    ];
    for (id, pass) in cases {
        table(
            id,
            &[
                row(NO_GPU, &[], &[(Skip, NO_LOG)]),
                row(MI100, &[], pass),
                row(GFX1151, &[], pass),
            ],
        );
    }
}
