//! `health.*` on the fixture sysroots of amdgpu sysfs (tests/fixtures/sysroots/health-*, each
//! with its SOURCE.md; the evidence layer itself is tested in tests/health.rs): what each check
//! reports of a healthy node, of a degraded one, and where there is nothing to read.

use crate::checks::testkit::{row, table, Row, NO_GPU};
use crate::checks::CheckId;
use crate::report::Status::*;

const OK4: &str = "health-mi210x4-ok";
const DEGRADED: &str = "health-mi210-degraded";
const NO_DEVICE: &str = "no amdgpu device to judge (no DRM card bound to amdgpu, no KFD GPU node)";
/// KFD sysfs only (the GPU fixtures): no PCI device directory to read health from.
const KFD_ONLY: &str = "KFD lists GPUs, but no amdgpu PCI device directory is readable here";

/// The rows every health check shares: no device, and a KFD-only tree.
fn nothing_to_read() -> [Row; 2] {
    [
        row(NO_GPU, &[], &[(Skip, NO_DEVICE)]),
        row("gfx1030-dgpu", &[], &[(Skip, KFD_ONLY)]),
    ]
}

fn with(rows: &[Row], more: [Row; 2]) -> Vec<Row> {
    more.into_iter().chain(rows.iter().copied()).collect()
}

#[test]
fn ras_table() {
    table(
        CheckId::HealthRas,
        &with(
            &[
                row(
                    OK4,
                    &[],
                    &[(
                        Pass,
                        "4 amdgpu devices: no uncorrectable or deferred RAS errors",
                    )],
                ),
                row(
                    DEGRADED,
                    &[],
                    &[(
                        Fail,
                        "uncorrectable hardware errors in umc since the driver loaded",
                    )],
                ),
                // MI300X: the counters of the ACA interface.
                row(
                    "health-mi300x-aca",
                    &[],
                    &[(Fail, "uncorrectable hardware errors in umc")],
                ),
                // A GPU whose RAS is not ready yet: said, not failed.
                row(
                    "health-empty-bad-pages",
                    &[],
                    &[
                        (
                            Pass,
                            "1 amdgpu device: no uncorrectable or deferred RAS errors",
                        ),
                        (Pass, "RAS counters not readable yet (RAS not ready)"),
                    ],
                ),
            ],
            nothing_to_read(),
        ),
    );
}

#[test]
fn bad_pages_table() {
    table(
        CheckId::HealthBadPages,
        &with(
            &[
                row(
                    OK4,
                    &[],
                    &[(
                        Pass,
                        "4 amdgpu devices: retired VRAM pages well below the driver's threshold",
                    )],
                ),
                row(
                    DEGRADED,
                    &[],
                    &[(
                        Warn,
                        "9 retired VRAM pages, 90% of the bad-page threshold 10",
                    )],
                ),
                row(
                    "health-empty-bad-pages",
                    &[],
                    &[(Pass, "1 amdgpu device: retired VRAM pages well below")],
                ),
            ],
            nothing_to_read(),
        ),
    );
}

#[test]
fn pcie_link_table() {
    table(
        CheckId::HealthPcieLink,
        &with(
            &[
                // The partner is the board switch's port: the link judged is that one.
                row(
                    OK4,
                    &[],
                    &[(
                        Pass,
                        "4 amdgpu devices: every PCIe link runs at its maximum \
                    width and speed",
                    )],
                ),
                row(
                    DEGRADED,
                    &[],
                    &[(
                        Warn,
                        "PCIe link between 0000:42:00.0 and 0000:43:00.0 runs at 16.0 GT/s \
                        x8 instead of 16.0 GT/s x16",
                    )],
                ),
                row(
                    "health-navi-internal-switch",
                    &[],
                    &[(
                        Warn,
                        "PCIe link between 0000:00:01.1 and 0000:01:00.0 runs at 16.0 GT/s \
                        x4 instead of 16.0 GT/s x16",
                    )],
                ),
            ],
            nothing_to_read(),
        ),
    );
}

#[test]
fn xgmi_partitions_table() {
    table(
        CheckId::HealthXgmi,
        &with(
            &[
                row(
                    OK4,
                    &[],
                    &[(Pass, "4 amdgpu devices: XGMI hives consistent (or no hive)")],
                ),
                row(
                    DEGRADED,
                    &[],
                    &[(Pass, "2 amdgpu devices: XGMI hives consistent")],
                ),
            ],
            nothing_to_read(),
        ),
    );
    table(
        CheckId::HealthPartitions,
        &with(
            &[row(
                "health-mi300x-aca",
                &[],
                &[(
                    Pass,
                    "2 amdgpu devices: compute and memory partition modes equal across GPUs \
                    of one model",
                )],
            )],
            nothing_to_read(),
        ),
    );
}

#[test]
fn firmware_table() {
    table(
        CheckId::HealthFirmware,
        &with(
            &[
                row(
                    OK4,
                    &[],
                    &[(
                        Pass,
                        "4 amdgpu devices: firmware versions equal across GPUs of one model",
                    )],
                ),
                row(
                    DEGRADED,
                    &[],
                    &[(Warn, "smc firmware differs between 1002:740f GPUs")],
                ),
            ],
            nothing_to_read(),
        ),
    );
}

#[test]
fn thermal_table() {
    table(
        CheckId::HealthThermal,
        &with(
            &[
                row(
                    OK4,
                    &[],
                    &[(
                        Pass,
                        "4 amdgpu devices: temperatures below their critical \
                    limits, no thermal throttling",
                    )],
                ),
                row(
                    DEGRADED,
                    &[],
                    &[
                        (
                            Warn,
                            "junction temperature 111.0 °C at or above its critical limit \
                            110.0 °C",
                        ),
                        (Warn, "thermal throttling: TEMP_HOTSPOT"),
                    ],
                ),
                // A health file that does not parse is reported, not failed.
                row(
                    "health-empty-bad-pages",
                    &[],
                    &[
                        (
                            Pass,
                            "1 amdgpu device: temperatures below their critical limits",
                        ),
                        (Pass, "1 health file(s) could not be read or parsed"),
                    ],
                ),
            ],
            nothing_to_read(),
        ),
    );
}

/// AER counters of the GPU and the ports above it, and amdgpu's replay count (issue 26, item
/// 3). `health-pcie-aer`: a non-fatal error counted only at GPU A's root port, a fatal one on
/// GPU B, 250 correctable errors on GPU C's switch port and 320 replays, GPU D healthy with two
/// reads the kernel refuses (EOPNOTSUPP, EINVAL: not problems). Where no AER file exists (old
/// kernels, no AER capability: the MI210 fixtures) there is nothing to report.
#[test]
fn pcie_errors_table() {
    table(
        CheckId::HealthPcieErrors,
        &with(
            &[
                row(
                    "health-pcie-aer",
                    &[],
                    &[
                        (
                            Warn,
                            "uncorrectable non-fatal PCIe errors (ERR_NONFATAL) since boot on \
                            port 0000:00:01.1 above the GPU: 2",
                        ),
                        (
                            Fail,
                            "fatal PCIe errors (ERR_FATAL) since boot on the GPU 0000:23:00.0: \
                            1",
                        ),
                        (
                            Warn,
                            "more than 100 correctable PCIe errors (ERR_COR) since boot on \
                            port 0000:42:00.0 above the GPU: 250",
                        ),
                        (
                            Warn,
                            "320 PCIe replays on the GPU's link since the driver loaded",
                        ),
                    ],
                ),
                // No AER files at all: absent is not a problem.
                row(
                    OK4,
                    &[],
                    &[(
                        Pass,
                        "4 amdgpu devices: no fatal or non-fatal PCIe AER errors",
                    )],
                ),
                row(
                    DEGRADED,
                    &[],
                    &[(
                        Pass,
                        "2 amdgpu devices: no fatal or non-fatal PCIe AER \
                    errors",
                    )],
                ),
            ],
            nothing_to_read(),
        ),
    );
}

/// A throttle bit the same sample contradicts is not throttling (issue 26, item 7):
/// `health-r9700-throttle` holds three Radeon AI PRO R9700 whose firmware keeps TEMP_HOTSPOT
/// set (ROCm/rocm-systems#11781): idle at 37 °C, at its power cap at 72 °C, and hot (107 °C
/// of 110 °C) under load. Only the last one warns.
#[test]
fn thermal_throttle_bit_table() {
    table(
        CheckId::HealthThermal,
        &[row(
            "health-r9700-throttle",
            &[],
            &[
                (
                    Pass,
                    "temperature throttle bit not taken as throttling: TEMP_HOTSPOT with the \
                    sensor at 37 °C, 73 °C below its 110 °C limit while the GPU is idle (gfx \
                    activity 0%)",
                ),
                (Pass, "throttling at a power/current limit: PPT0"),
                (
                    Pass,
                    "temperature throttle bit not taken as throttling: TEMP_HOTSPOT with the \
                    sensor at 72 °C, 38 °C below its 110 °C limit (the firmware",
                ),
                (Warn, "thermal throttling: TEMP_HOTSPOT"),
            ],
        )],
    );
}

/// `health-mi300x-xgmi-cper` (issue 26, item 3): two MI300X whose `gpu_metrics` v1_8 carry
/// per-link XGMI states and whose `xgmi_num_links` count 2 links to the other GPU. GPU A has
/// link 1 down (fail, named); GPU B has both up. `health-mi300x-aca` has v1_8 samples with
/// every link slot all-ones and no `xgmi_num_links`: nothing down, nothing to say. MI210
/// (v1_3, no per-link state) passes.
#[test]
fn xgmi_links_table() {
    table(
        CheckId::HealthXgmiLinks,
        &with(
            &[
                row(
                    "health-mi300x-xgmi-cper",
                    &[],
                    &[(
                        Fail,
                        "XGMI link 1 down: 1 of the 2 link(s) the hive's topology counts are up",
                    )],
                ),
                row(
                    "health-mi300x-aca",
                    &[],
                    &[(
                        Pass,
                        "2 amdgpu devices: every XGMI link the hive's topology counts is up",
                    )],
                ),
                row(OK4, &[], &[(Pass, "4 amdgpu devices: every XGMI link")]),
            ],
            nothing_to_read(),
        ),
    );
}

/// amdgpu's CPER ring in debugfs (issue 26, item 3): GPU A's ring holds a fatal crashdump
/// record (warn) and a corrected one (information), GPU B's a bad-page-threshold record
/// (fail). Without debugfs (`health-mi300x-aca`, the MI210 fixtures) there is nothing to read
/// and nothing to say.
#[test]
fn cper_table() {
    table(
        CheckId::HealthCper,
        &with(
            &[
                row(
                    "health-mi300x-xgmi-cper",
                    &[],
                    &[
                        (
                            Warn,
                            "CPER: 1 fatal error record(s) since the driver loaded",
                        ),
                        (Pass, "CPER: 1 corrected error record(s)"),
                        (
                            Fail,
                            "CPER: the bad-page threshold was exceeded (1 record(s))",
                        ),
                    ],
                ),
                row(
                    "health-mi300x-aca",
                    &[],
                    &[(
                        Pass,
                        "2 amdgpu devices: no fatal, uncorrected or \
                    bad-page-threshold CPER records",
                    )],
                ),
                row(OK4, &[], &[(Pass, "4 amdgpu devices: no fatal")]),
            ],
            nothing_to_read(),
        ),
    );
}

/// `gpu_metrics` v1_8's PCIe counters feed `health.pcie-errors` (issue 26, item 3): GPU A's
/// sample counts 140 replays (warn), with its recoveries, NAKs and the link partner's
/// recoveries as evidence; GPU B's 3 are below the level.
#[test]
fn pcie_errors_from_gpu_metrics_v1_8_table() {
    table(
        CheckId::HealthPcieErrors,
        &[row(
            "health-mi300x-xgmi-cper",
            &[],
            &[(
                Warn,
                "140 PCIe replays on the GPU's link since the driver loaded",
            )],
        )],
    );
}
