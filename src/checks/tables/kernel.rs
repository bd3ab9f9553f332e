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
            row(
                NO_GPU,
                &[],
                &[(Skip, "the kernel log of this boot cannot be read here")],
            ),
            row(
                MI100,
                &[],
                &[(
                    Pass,
                    "read 13 line(s) of this boot from /var/log/rocm-doctor-dmesg.txt: 4 \
                    amdgpu/KFD event(s)",
                )],
            ),
            row(
                GFX1151,
                &[],
                &[(
                    Pass,
                    "read 13 line(s) of this boot from /var/log/kern.log: 1 amdgpu/KFD \
                    event(s)",
                )],
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
                    (
                        Fail,
                        "firmware-load-failed: Direct firmware load for \
                        amdgpu/arcturus_gpu_info.bin failed with error -2 (2 times",
                    ),
                    (Fail, "ip-init-failed: Fatal error during GPU init"),
                    (
                        Fail,
                        "probe-failed: probe of 0000:23:00.0 failed with error -2",
                    ),
                ],
            ),
            row(
                GFX1151,
                &[],
                &[(
                    Pass,
                    "no driver or KFD initialisation failure in the kernel log of this boot",
                )],
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

/// `kernel.history` on the fixture logs with `--boots N` (tests/fixtures/sysroots/
/// kernlog-history-*, each with its SOURCE.md).
fn history(name: &str, boots: usize) -> Vec<crate::report::Finding> {
    let f = crate::checks::kernel::CHECKS
        .iter()
        .find(|(id, _)| *id == CheckId::KernelHistory)
        .map(|(_, f)| *f)
        .expect("kernel.history is registered");
    crate::checks::testkit::judge_with(name, &[], |c| c.boots = boots, f)
}

#[test]
fn history_escalates_a_gpu_reset_in_three_of_four_boots() {
    let out = history("kernlog-history-recurring", 5);
    assert_eq!(out.len(), 1, "{out:#?}");
    let f = &out[0];
    assert_eq!(f.status, Fail);
    assert_eq!(f.subject.as_deref(), Some("0000:03:00.0"));
    assert_eq!(
        f.summary,
        "0000:03:00.0: ring timeout and GPU reset in 3 of the last 4 boots (boots 0, -1, -3)"
    );
    assert!(
        f.evidence
            .iter()
            .any(|e| e == "this boot: gpu-reset-begin 1, ring-timeout 1"),
        "{:?}",
        f.evidence
    );
    assert!(
        f.evidence
            .iter()
            .any(|e| e.starts_with("boot -2 (Jan 25 09:01:15")),
        "{:?}",
        f.evidence
    );
    assert!(f.fix.is_some());
    assert_eq!(f.event.as_deref(), Some("recurring"));
    assert_eq!(f.action, Some(crate::report::Action::DrainAndInspect));
}

#[test]
fn history_of_two_boots_only_warns() {
    // --boots 3: this boot and two earlier (-1, -2): resets in 0 and -1.
    let out = history("kernlog-history-recurring", 3);
    assert_eq!(out[0].status, Warn, "{out:#?}");
    assert_eq!(out[0].action, Some(crate::report::Action::RebootNode));
    assert_eq!(out[0].event.as_deref(), Some("recurred-after-reboot"));
    assert!(
        out[0]
            .summary
            .ends_with("in 2 of the last 3 boots (boots 0, -1)"),
        "{}",
        out[0].summary
    );
}

#[test]
fn history_of_a_reset_before_the_reboot_passes() {
    let out = history("kernlog-history-previous", 5);
    assert_eq!(out.len(), 1, "{out:#?}");
    assert_eq!(out[0].status, Pass);
    assert_eq!(
        out[0].summary,
        "0000:28:00.0: ring timeout and GPU reset in the previous boot, none in this one"
    );
}

#[test]
fn history_without_earlier_boots_or_not_asked_is_a_skip() {
    let out = history(NO_GPU, 5);
    assert_eq!(out[0].status, Skip);
    assert!(out[0]
        .summary
        .starts_with("no earlier boot's kernel log is kept here"));
    assert!(out[0]
        .evidence
        .iter()
        .any(|e| e.starts_with("/var/log/kern.log: ENOENT")));
    // The existing one-boot fixture holds two boots: the earlier one's ring timeout is history.
    let out = history(GFX1151, 5);
    assert!(
        out.iter().any(|f| f
            .summary
            .starts_with("0000:64:00.0: ring timeout in the previous boot")),
        "{out:#?}"
    );
    let out = history(GFX1151, 0);
    assert_eq!(out[0].status, Skip);
    assert!(out[0].summary.contains("--boots N"));
}
