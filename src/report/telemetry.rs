//! Per-GPU telemetry (issue 26, item 5): the numbers behind the health verdicts, one value that
//! `--json` (the `telemetry` section, serde) and `--prometheus` (`prometheus::render`) both
//! print, so the two can never disagree. Nothing here reads the machine: the value is built by
//! `inventory::telemetry` from what the run's health and kernel-log checks already read
//! (`gpu::health::read`, `kernlog`), and is absent when they did not run.
//!
//! Units in JSON are the ones a reader expects (°C, GT/s, lanes, counts); `--prometheus`
//! converts to base units where Prometheus' naming practice asks for them
//! (prometheus.io/docs/practices/naming: transfers per second, not GT/s; °C is node_exporter's
//! hwmon unit). The field names are stable (docs/json.md, "telemetry").

use serde::Serialize;

/// Every GPU the health reader found, in its order (DRM cards, then KFD-only devices).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Telemetry {
    pub gpus: Vec<GpuTelemetry>,
}

/// One amdgpu PCI device.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct GpuTelemetry {
    /// PCI address `dddd:bb:dd.f`.
    pub pci: String,
    /// PCI `vendor:device` (`1002:740f`), when readable.
    pub model: Option<String>,
    /// The board's FRU `product_name` (untrusted text from an EEPROM), when it has one.
    pub product: Option<String>,
    /// The ISA of the KFD agent at this PCI address (`gfx90a`), when the GPU checks ran.
    pub gfx: Option<String>,
    /// `cardN`, when found through DRM.
    pub card: Option<String>,
    /// RAS counters per block (`ras/<blk>_err_count` or `ras/aca_<blk>`), since driver load.
    pub ras: Vec<RasBlock>,
    /// `ras/gpu_vram_bad_pages` and the driver's threshold; None when the file is absent.
    pub bad_pages: Option<BadPages>,
    pub pcie: Pcie,
    /// hwmon temperatures with their limits, by sensor.
    pub temperatures: Vec<Temperature>,
    /// The throttlers set in `gpu_metrics`; None when the sample has no throttle bitmap.
    pub throttle: Option<Throttle>,
    /// GPU resets in the kernel log of this boot; None when the log was not read in this run.
    pub resets: Option<Resets>,
}

/// One RAS block's counters.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct RasBlock {
    /// `umc`, `gfx`, `xgmi_wafl`, `mca.mp0`, ...
    pub block: String,
    /// `err_count` or `aca` (the file form).
    pub source: String,
    /// False when the file read `Query currently inaccessible` (the counts are then null).
    pub accessible: bool,
    pub correctable: Option<u64>,
    pub uncorrectable: Option<u64>,
    /// Only where the kernel prints a `de:` line (UMC from ≈6.11, every `aca_*` file).
    pub deferred: Option<u64>,
}

/// Retired VRAM pages by state, and the threshold the driver compares them with.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct BadPages {
    /// `R` lines: reserved (retired).
    pub retired: u64,
    /// `P` lines: pending reservation.
    pub pending: u64,
    /// `F` lines: could not be reserved.
    pub failed: u64,
    /// The number of retired pages the driver acts at, when userspace can know it.
    pub threshold: Option<u64>,
    /// How `threshold` was obtained (or why it is unknown).
    pub threshold_basis: Option<String>,
}

/// The PCIe link to the platform and the error counters of the GPU's path to the root port.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Pcie {
    /// Negotiated link where the GPU package meets the platform (GT/s, lanes).
    pub current_gts: Option<f64>,
    pub current_width: Option<u32>,
    /// What that link could run at (the lower of its two ends).
    pub max_gts: Option<f64>,
    pub max_width: Option<u32>,
    /// The upstream port the link was read at (None: the GPU's own files).
    pub link_port: Option<String>,
    /// AER totals of the GPU function and every port above it with AER files, nearest first.
    pub aer: Vec<Aer>,
    /// amdgpu's `pcie_replay_count`.
    pub replays: Option<u64>,
    /// `gpu_metrics` v1_4/v1_5: `pcie_replay_count_acc`, `pcie_l0_to_recov_count_acc`,
    /// `pcie_nak_sent_count_acc`, `pcie_nak_rcvd_count_acc` (firmware-accumulated).
    pub metrics_replays: Option<u64>,
    pub metrics_recoveries: Option<u64>,
    pub naks_sent: Option<u64>,
    pub naks_received: Option<u64>,
}

/// The `TOTAL_ERR_*` lines of one function's `aer_dev_*` files (None: that file absent).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Aer {
    /// PCI address of the function.
    pub port: String,
    /// The GPU function itself (else a bridge or port above it).
    pub gpu: bool,
    pub correctable: Option<u64>,
    pub nonfatal: Option<u64>,
    pub fatal: Option<u64>,
}

/// One hwmon temperature sensor, °C.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Temperature {
    /// The hwmon label (`edge`, `junction`, `mem`), else `tempN`.
    pub sensor: String,
    pub celsius: Option<f64>,
    pub crit_celsius: Option<f64>,
    pub emergency_celsius: Option<f64>,
}

/// The throttle bitmap of one `gpu_metrics` sample.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Throttle {
    /// `gpu_metrics` version, `1_3`.
    pub metrics_version: String,
    /// The throttlers set, decoded (`TEMP_HOTSPOT`), each with its kind.
    pub active: Vec<Throttler>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Throttler {
    pub name: String,
    /// `power`, `current`, `temperature` or `other`.
    pub kind: String,
}

/// GPU resets of this boot, from the kernel log (`amdgpu_device.c` messages, kernlog §8.4).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Resets {
    /// `GPU reset begin!` (and `GPU jobs stop begin!`).
    pub started: u64,
    /// `GPU reset(N) succeeded!`.
    pub succeeded: u64,
    /// `GPU reset(N) failed`, `GPU Recovery Failed`, `ASIC reset failed`, `mode1 reset failed`,
    /// `GPU recovery disabled`.
    pub failed: u64,
}
