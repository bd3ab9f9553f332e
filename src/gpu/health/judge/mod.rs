//! Pure judgements over [`Health`]: what a cluster operator should act on, with the evidence.
//!
//! The checks (src/checks/) turn [`Problem`]s into findings; nothing here reads the machine.
//! Thresholds that are a site's choice, not the kernel's, are in [`Limits`]. One file per
//! family of files judged: RAS counters and bad pages ([`ras`]), the PCIe link and its errors
//! ([`link`], [`pcie`]), XGMI hives and links ([`xgmi`]), firmware and partitions of GPUs of one
//! model ([`board`]), temperatures and throttling ([`thermal`]), CPER records ([`cper`]).

mod board;
mod cper;
mod link;
mod pcie;
mod ras;
mod thermal;
mod xgmi;

pub(crate) use board::{firmware_problems, partition_problems};
pub use cper::cper_problems;
pub(crate) use link::link_problems;
pub use pcie::pcie_error_problems;
pub(crate) use ras::{bad_page_problems, ras_problems};
pub(crate) use thermal::thermal_problems;
pub use xgmi::{xgmi_link_problems, xgmi_problems};

use super::read::{DeviceHealth, Health};
use crate::checkdoc::Action;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing, nothing to do now.
    Info,
    Warn,
    Fail,
}

/// One thing wrong with one GPU (or a group of GPUs: `device` then names them all).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// PCI address(es), comma-separated.
    pub device: String,
    /// One line: what is wrong.
    pub what: String,
    /// The file values that show it (`path: value`).
    pub evidence: Vec<String>,
    pub fix: String,
    /// The event inside the check (stable kebab-case: `uncorrectable`, `link-degraded`).
    pub event: &'static str,
    /// The repair action when it differs from the check doc's default.
    pub action: Option<Action>,
    pub severity: Severity,
}

impl Problem {
    /// A problem with no evidence, no fix and the doc's default action; the builders below
    /// add them.
    fn new(
        device: impl Into<String>,
        severity: Severity,
        event: &'static str,
        what: impl Into<String>,
    ) -> Self {
        Problem {
            device: device.into(),
            what: what.into(),
            evidence: Vec::new(),
            fix: String::new(),
            event,
            action: None,
            severity,
        }
    }

    fn evidence(mut self, evidence: Vec<String>) -> Self {
        self.evidence = evidence;
        self
    }

    fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = fix.into();
        self
    }

    fn action(mut self, action: Action) -> Self {
        self.action = Some(action);
        self
    }
}

/// Site policy: thresholds not given by the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Correctable errors of one block since driver load above which to warn. The kernel has no
    /// such threshold (it corrects and counts); 100 is this tool's default.
    pub ce_warn: u64,
    /// Warn when the retired pages reach this percentage of the bad-page threshold: the kernel
    /// itself logs "RAS records:%u exceeds 90% of threshold:%d" from 6.15 (§1.1).
    pub bad_pages_near_pct: u64,
    /// Correctable PCIe errors (`TOTAL_ERR_COR` of one function, or amdgpu's replay count) above
    /// which to warn. The kernel keeps no threshold; a link replays a few packets during
    /// training and power-state changes, so a handful is noise. DCGM warns at 8 replays per
    /// minute (`DCGM_LIMIT_MAX_PCIREPLAY_RATE`, NVIDIA/DCGM `dcgm_gpu_hardware_limits.h`), a rate
    /// that needs two samples; one read since boot cannot give a rate, so this tool warns on a
    /// count: 100 by default, the same as `ce_warn`.
    pub pcie_ce_warn: u64,
    /// A temperature throttle bit is believed only when its sensor is within this many °C of
    /// its critical limit, or when no sensor can confirm it and the GPU is busy (item 7 of
    /// issue 26: firmware that sets TEMP_HOTSPOT at idle, rocm-systems#11781).
    pub throttle_margin_c: i64,
    /// gfx activity (%) at or below which a GPU is idle: not throttled by load.
    pub idle_activity_pct: u16,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            ce_warn: 100,
            bad_pages_near_pct: 90,
            pcie_ce_warn: 100,
            throttle_margin_c: 15,
            idle_activity_pct: 5,
        }
    }
}

/// Groups devices by model (PCI id, else product name); models with one GPU are left out.
fn by_model(devs: &[DeviceHealth]) -> BTreeMap<String, Vec<&DeviceHealth>> {
    let mut m: BTreeMap<String, Vec<&DeviceHealth>> = BTreeMap::new();
    for d in devs {
        if let Some(k) = d.model() {
            m.entry(k).or_default().push(d);
        }
    }
    m.retain(|_, v| v.len() > 1);
    m
}

/// `path: error` lines of files that could not be read.
fn unreadable_lines(issues: &[super::read::FileIssue]) -> Vec<String> {
    issues
        .iter()
        .map(|i| format!("{}: {}", i.path, i.error))
        .collect()
}

const FIX_MACHINE_UNREADABLE: &str = "Read them again; if the error stays, check the amdgpu \
     module's state (lsmod, dmesg).";
const FIX_DEVICE_UNREADABLE: &str = "EBUSY/EPERM: the GPU is in reset or runtime-suspended, \
     read again later; other errors: check the kernel log for this GPU.";

/// Health files that exist but could not be read or parsed (§0: EPERM/EBUSY during reset or
/// suspend; EINVAL when a PCI config read fails).
pub(crate) fn read_problems(h: &Health) -> Vec<Problem> {
    let mut out = Vec::new();
    if !h.issues.is_empty() {
        out.push(
            Problem::new(
                "",
                Severity::Info,
                "unreadable",
                "machine-wide amdgpu files could not be read",
            )
            .evidence(unreadable_lines(&h.issues))
            .fix(FIX_MACHINE_UNREADABLE),
        );
    }
    for d in h.devices.iter().filter(|d| !d.issues.is_empty()) {
        let what = format!(
            "{} health file(s) could not be read or parsed",
            d.issues.len()
        );
        out.push(
            Problem::new(d.pci.clone(), Severity::Info, "unreadable", what)
                .evidence(unreadable_lines(&d.issues))
                .fix(FIX_DEVICE_UNREADABLE),
        );
    }
    out
}

/// Every judgement, most severe first (stable within a severity).
pub fn all(h: &Health, limits: &Limits) -> Vec<Problem> {
    let d = &h.devices;
    let mut v = ras_problems(d, limits);
    v.extend(bad_page_problems(
        d,
        h.bad_page_threshold,
        h.kernel.as_deref(),
        limits,
    ));
    v.extend(link_problems(d));
    v.extend(xgmi_problems(d));
    v.extend(firmware_problems(d));
    v.extend(partition_problems(d));
    v.extend(thermal_problems(d, limits));
    v.extend(pcie_error_problems(d, limits));
    v.extend(xgmi_link_problems(d));
    v.extend(cper_problems(d));
    v.extend(read_problems(h));
    v.sort_by_key(|p| std::cmp::Reverse(p.severity));
    v
}

#[cfg(test)]
mod tests;
