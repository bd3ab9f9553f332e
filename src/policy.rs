//! The site's policy: thresholds that are a site's choice, findings to ignore, and severity or
//! repair-action overrides (`/etc/rocm-doctor/policy.toml`, or `--policy FILE`;
//! docs/fleet.md, "Site policy"). Operators asked node-scraper and NVIDIA's device plugin for
//! exactly these: a correctable-error count one fleet tolerates pages another; a GPU whose
//! firmware is known to differ should not drain its node every five minutes.
//!
//! The file is read once per run, through the trusted open (`host::trust`: as root only a
//! root-owned file on a root-owned path). Absent is the default policy; present but broken is
//! a usage error: a site that wrote a policy must not run without it unknowingly.
//!
//! This module parses and answers questions; the engine (`registry`) applies the rules to the
//! findings and the checks ask it for their thresholds.

use crate::checkdoc::{Action, CheckId};
use crate::host::trust::{self, Owners, Refusal};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where the site's policy lives when `--policy` is not given.
pub(crate) const SYSTEM_FILE: &str = "/etc/rocm-doctor/policy.toml";

/// A policy file larger than this is refused (a real one is a few hundred bytes).
const MAX_BYTES: u64 = 256 * 1024;

/// A threshold the site may set: its key in `[thresholds]`, what it means, its default and
/// the range it may take.
pub(crate) struct Threshold {
    /// The check that uses it; the key is `<check id>.<name>`.
    pub check: CheckId,
    pub name: &'static str,
    #[allow(dead_code)] // documents the threshold next to its figures
    pub meaning: &'static str,
    pub default: u64,
    pub min: u64,
    pub max: u64,
}

/// Every threshold a policy may set. The defaults are the checks' own (`gpu::health::Limits`,
/// where each one's source is cited); a unit test keeps the two equal.
pub(crate) const THRESHOLDS: &[Threshold] = &[
    Threshold {
        check: CheckId::HealthRas,
        name: "correctable",
        meaning: "correctable RAS errors of one block since the driver loaded above which the \
            check warns",
        default: 100,
        min: 0,
        max: u64::MAX,
    },
    Threshold {
        check: CheckId::HealthBadPages,
        name: "near-percent",
        meaning: "percentage of the bad-page threshold at which the check warns",
        default: 90,
        min: 1,
        max: 100,
    },
    Threshold {
        check: CheckId::HealthPcieErrors,
        name: "correctable",
        meaning: "correctable PCIe errors (ERR_COR of one function) or link replays since boot \
            above which the check warns",
        default: 100,
        min: 0,
        max: u64::MAX,
    },
    Threshold {
        check: CheckId::HealthThermal,
        name: "throttle-margin-celsius",
        meaning: "a temperature throttle bit counts only when its sensor is within this many °C \
            of its critical limit",
        default: 15,
        min: 0,
        max: 200,
    },
    Threshold {
        check: CheckId::HealthThermal,
        name: "idle-percent",
        meaning: "gfx activity (%) at or below which a GPU is idle (a throttle bit no sensor \
            confirms is not believed)",
        default: 5,
        min: 0,
        max: 100,
    },
    Threshold {
        check: CheckId::GpuLayers,
        name: "expect-gpus",
        meaning: "GPUs this node must show usable by ROCr (0: no expectation; `--expect-gpus N` \
            wins)",
        default: 0,
        min: 0,
        max: 4096,
    },
];

/// The severities a policy may give a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Severity {
    Pass,
    Warn,
    Fail,
}

/// Which findings a rule matches: a check id, a prefix ending in `.` or a family (as
/// `--only`), and optionally the event and the GPU (PCI address, matched against the finding's
/// subject, which may name several GPUs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Match<'a> {
    pub check: &'a str,
    pub event: Option<&'a str>,
    pub gpu: Option<&'a str>,
}

impl Match<'_> {
    /// Whether a finding of `id` about `subject` with `event` is matched.
    pub(crate) fn matches(&self, id: &str, event: Option<&str>, subject: Option<&str>) -> bool {
        let check = crate::checkdoc::selected(id, &[self.check.to_string()], &[]);
        let event_ok = self.event.is_none_or(|e| event == Some(e));
        let gpu_ok = self.gpu.is_none_or(|g| {
            subject.is_some_and(|s| s.split([',', ' ']).any(|part| part.trim() == g))
        });
        check && event_ok && gpu_ok
    }
}

/// `[[ignore]]`: matching warnings and failures become skips that say why.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Ignore {
    pub check: String,
    #[serde(default)]
    pub event: Option<String>,
    #[serde(default)]
    pub gpu: Option<String>,
    /// Why (a ticket, a known defect): printed beside the finding.
    pub reason: String,
}

impl Ignore {
    pub(crate) fn matching(&self) -> Match<'_> {
        Match {
            check: &self.check,
            event: self.event.as_deref(),
            gpu: self.gpu.as_deref(),
        }
    }
}

/// `[[override]]`: matching warnings and failures take this severity and/or action.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Override {
    pub check: String,
    #[serde(default)]
    pub event: Option<String>,
    #[serde(default)]
    pub gpu: Option<String>,
    #[serde(default)]
    pub status: Option<Severity>,
    #[serde(default)]
    pub action: Option<Action>,
    #[serde(default)]
    pub reason: Option<String>,
}

impl Override {
    pub(crate) fn matching(&self) -> Match<'_> {
        Match {
            check: &self.check,
            event: self.event.as_deref(),
            gpu: self.gpu.as_deref(),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    thresholds: BTreeMap<String, toml::Value>,
    #[serde(default)]
    ignore: Vec<Ignore>,
    #[serde(default, rename = "override")]
    overrides: Vec<Override>,
}

/// The run's policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Policy {
    /// The file it came from (`None`: the defaults).
    pub source: Option<PathBuf>,
    thresholds: BTreeMap<String, u64>,
    pub ignore: Vec<Ignore>,
    pub overrides: Vec<Override>,
}

impl Threshold {
    /// `health.ras.correctable`: how the policy file names it.
    pub(crate) fn key(&self) -> String {
        format!("{}.{}", self.check, self.name)
    }
}

impl Policy {
    /// The value of `check`'s threshold `name` (of [`THRESHOLDS`]): the site's, else its
    /// default.
    ///
    /// # Panics
    /// On a threshold that is not in [`THRESHOLDS`] (a bug caught by the tests).
    pub(crate) fn threshold(&self, check: CheckId, name: &str) -> u64 {
        let t = THRESHOLDS
            .iter()
            .find(|t| t.check == check && t.name == name)
            .unwrap_or_else(|| panic!("threshold {check}.{name} is not in policy::THRESHOLDS"));
        self.thresholds.get(&t.key()).copied().unwrap_or(t.default)
    }

    /// Parses a policy's text (`name` names it in errors).
    pub(crate) fn parse(name: &str, text: &str) -> Result<Policy, String> {
        let file: File = crate::data::load(name, text).map_err(|e| e.to_string())?;
        let mut thresholds = BTreeMap::new();
        for (k, v) in &file.thresholds {
            let Some(t) = THRESHOLDS.iter().find(|t| t.key() == *k) else {
                let known: Vec<String> = THRESHOLDS.iter().map(Threshold::key).collect();
                return Err(format!(
                    "{name}: [thresholds] {k:?} is not a threshold (known: {})",
                    known.join(", ")
                ));
            };
            let n = v
                .as_integer()
                .and_then(|n| u64::try_from(n).ok())
                .filter(|n| (t.min..=t.max).contains(n))
                .ok_or_else(|| {
                    format!(
                        "{name}: [thresholds] {k:?} = {v}: expected a whole number from {} to {}",
                        t.min, t.max
                    )
                })?;
            thresholds.insert(t.key(), n);
        }
        let rules = file
            .ignore
            .iter()
            .map(|i| ("ignore", i.matching()))
            .chain(file.overrides.iter().map(|o| ("override", o.matching())));
        for (kind, m) in rules {
            check_match(name, kind, &m)?;
        }
        for o in &file.overrides {
            if o.status.is_none() && o.action.is_none() {
                return Err(format!(
                    "{name}: [[override]] for {:?} sets neither `status` nor `action`",
                    o.check
                ));
            }
        }
        for i in &file.ignore {
            if i.reason.trim().is_empty() {
                return Err(format!(
                    "{name}: [[ignore]] for {:?}: `reason` is empty (say why: a ticket, a known \
                        defect)",
                    i.check
                ));
            }
        }
        Ok(Policy {
            source: None,
            thresholds,
            ignore: file.ignore,
            overrides: file.overrides,
        })
    }

    /// The run's policy: `explicit` (`--policy FILE`, which must exist), else [`SYSTEM_FILE`]
    /// when it exists, else the defaults. Both are this machine's files, opened as trusted.
    pub(crate) fn load(explicit: Option<&Path>) -> Result<Policy, String> {
        let (path, required) = match explicit {
            Some(p) => (p.to_path_buf(), true),
            None => (PathBuf::from(SYSTEM_FILE), false),
        };
        let shown = path.display().to_string();
        let opened = match trust::open_file(&path, Owners::current()) {
            Ok(f) => f,
            Err(Refusal::Missing(_)) if !required => return Ok(Policy::default()),
            Err(e) => return Err(format!("site policy {shown}: {e}")),
        };
        if opened.meta.len() > MAX_BYTES {
            return Err(format!(
                "site policy {shown}: {} bytes; at most {MAX_BYTES}",
                opened.meta.len()
            ));
        }
        let bytes = opened
            .read_capped(MAX_BYTES)
            .map_err(|e| format!("site policy {shown}: cannot read it: {e}"))?;
        let text =
            String::from_utf8(bytes).map_err(|_| format!("site policy {shown}: not UTF-8 text"))?;
        let mut p = Policy::parse(&format!("site policy {shown}"), &text)?;
        p.source = Some(path);
        Ok(p)
    }
}

/// A rule's check must name a check family, a prefix or an id in a known family (a typo would
/// silently ignore nothing); ids themselves are checked against the registry by `lint`.
fn check_match(name: &str, kind: &str, m: &Match<'_>) -> Result<(), String> {
    let c = m.check.trim();
    let family = c.split('.').next().unwrap_or("");
    let known_family = crate::checkdoc::Category::ALL
        .iter()
        .any(|cat| cat.as_str() == family)
        || matches!(family, "known-issues" | "packs" | "fleet")
        || c.contains('.');
    if c.is_empty() || !known_family {
        return Err(format!(
            "{name}: [[{kind}]] check {c:?} names no check family (a check id, a prefix ending in \
                a dot, or a family such as health)"
        ));
    }
    if let Some(g) = m.gpu {
        if !is_pci_address(g) {
            return Err(format!(
                "{name}: [[{kind}]] gpu {g:?} is not a PCI address (0000:2b:00.0)"
            ));
        }
    }
    Ok(())
}

/// `DDDD:BB:DD.F` in lowercase hex, as sysfs names PCI devices.
fn is_pci_address(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 12
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b':',
            10 => *c == b'.',
            11 => (b'0'..=b'7').contains(c),
            _ => c.is_ascii_digit() || (b'a'..=b'f').contains(c),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SITE: &str = r#"
[thresholds]
"health.ras.correctable" = 1000
"health.bad-pages.near-percent" = 80

[[ignore]]
check = "health.firmware"
gpu = "0000:43:00.0"
reason = "IFWI update scheduled, ticket 4711"

[[override]]
check = "health.pcie-link"
status = "fail"
action = "drain-and-inspect"

[[override]]
check = "kernel."
event = "ring-timeout"
action = "reset-gpu"
"#;

    #[test]
    fn a_site_policy_parses_and_answers() {
        let p = Policy::parse("p", SITE).unwrap();
        assert_eq!(p.threshold(CheckId::HealthRas, "correctable"), 1000);
        assert_eq!(p.threshold(CheckId::HealthBadPages, "near-percent"), 80);
        assert_eq!(p.threshold(CheckId::HealthPcieErrors, "correctable"), 100);
        assert_eq!(p.ignore.len(), 1);
        assert!(p.ignore[0].matching().matches(
            "health.firmware",
            Some("firmware-differs"),
            Some("0000:2b:00.0,0000:43:00.0")
        ));
        assert!(!p.ignore[0]
            .matching()
            .matches("health.firmware", None, Some("0000:2b:00.0")));
        assert!(p.overrides[1]
            .matching()
            .matches("kernel.hangs", Some("ring-timeout"), None));
        assert!(!p.overrides[1]
            .matching()
            .matches("kernel.hangs", Some("gpu-reset-failed"), None));
        assert!(!p.overrides[1]
            .matching()
            .matches("health.ras", Some("ring-timeout"), None));
    }

    #[test]
    fn mistakes_are_named_not_ignored() {
        for (text, says) in [
            (
                "[thresholds]\n\"health.ras.corectable\" = 5\n",
                "is not a threshold",
            ),
            (
                "[thresholds]\n\"health.bad-pages.near-percent\" = 0\n",
                "from 1 to 100",
            ),
            (
                "[thresholds]\n\"health.ras.correctable\" = -1\n",
                "whole number",
            ),
            (
                "[thresholds]\n\"health.ras.correctable\" = \"10\"\n",
                "whole number",
            ),
            (
                "[[ignore]]\ncheck = \"health.ras\"\n",
                "missing field `reason`",
            ),
            (
                "[[ignore]]\ncheck = \"health.ras\"\nreason = \" \"\n",
                "`reason` is empty",
            ),
            (
                "[[ignore]]\ncheck = \"helth\"\nreason = \"x\"\n",
                "names no check family",
            ),
            (
                "[[ignore]]\ncheck = \"health.ras\"\ngpu = \"2b:00.0\"\nreason = \"x\"\n",
                "not a PCI address",
            ),
            (
                "[[override]]\ncheck = \"health.ras\"\n",
                "neither `status` nor `action`",
            ),
            (
                "[[override]]\ncheck = \"health.ras\"\nstatus = \"error\"\n",
                "unknown variant `error`",
            ),
            (
                "[[override]]\ncheck = \"health.ras\"\naction = \"reboot\"\n",
                "reboot-node",
            ),
            (
                "[[overide]]\ncheck = \"health.ras\"\n",
                "unknown field `overide`",
            ),
        ] {
            let e = Policy::parse("site policy x", text).unwrap_err();
            assert!(
                e.starts_with("site policy x") && e.contains(says),
                "{text}: {e}"
            );
        }
    }

    #[test]
    fn the_defaults_are_the_checks_own() {
        let l = crate::gpu::health::Limits::default();
        let p = Policy::default();
        assert_eq!(p.threshold(CheckId::HealthRas, "correctable"), l.ce_warn);
        assert_eq!(
            p.threshold(CheckId::HealthBadPages, "near-percent"),
            l.bad_pages_near_pct
        );
        assert_eq!(
            p.threshold(CheckId::HealthPcieErrors, "correctable"),
            l.pcie_ce_warn
        );
        assert_eq!(
            p.threshold(CheckId::HealthThermal, "throttle-margin-celsius") as i64,
            l.throttle_margin_c
        );
        assert_eq!(
            p.threshold(CheckId::HealthThermal, "idle-percent"),
            u64::from(l.idle_activity_pct)
        );
    }

    #[test]
    fn pci_addresses() {
        assert!(is_pci_address("0000:2b:00.0"));
        assert!(!is_pci_address("0000:2B:00.0"));
        assert!(!is_pci_address("0000:2b:00.8"));
        assert!(!is_pci_address("0000:2b:00"));
    }
}
