//! The software-stack fingerprint written into every `--json` report (schema 2): the facts a
//! fleet must agree on (HIP runtime, driver, GPU firmware, GPU count, agent ISAs) and a stable
//! hash of them. Pure: it reads the report's own sections, so the same report always gives the
//! same fingerprint, on any machine and any version of the doctor that writes schema 2.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The fields `merge` compares across nodes. `None` / empty: not known in this run (the check
/// that discovers it was not selected, or the machine does not show it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// `fnv1a64:<16 hex digits>` over the canonical text of the fields below.
    pub id: String,
    /// Version of the `libamdhip64` the loader would pick.
    pub hip_runtime: Option<String>,
    /// `amdgpu` DKMS version, else `in-tree <kernel release>`.
    pub driver: Option<String>,
    /// Distinct `fw_version/sdma_fw_version` pairs of the GPU agents, sorted.
    pub firmware: Vec<String>,
    /// GPU agents in KFD (None when the GPU checks did not run).
    pub gpu_count: Option<u64>,
    /// Distinct agent target ids (`gfx942:sramecc+`; the processor when the target is not
    /// known), sorted.
    pub isas: Vec<String>,
}

/// The names `merge` uses for the compared fields, in display order.
pub(crate) const FIELDS: [&str; 5] = ["hip_runtime", "driver", "firmware", "gpu_count", "isas"];

impl Fingerprint {
    /// From the report's `inventory` and `agents` sections and the driver facts.
    pub(crate) fn from_report(
        inventory: Option<&Value>,
        agents: Option<&Value>,
        driver_version: Option<&str>,
        kernel_release: Option<&str>,
    ) -> Self {
        let hip_runtime = inventory
            .and_then(|i| i.get("libraries"))
            .and_then(Value::as_array)
            .and_then(|libs| {
                libs.iter()
                    .find(|l| l.get("name").and_then(Value::as_str) == Some("amdhip64"))
            })
            .and_then(|l| l.get("version"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let driver = match (driver_version, kernel_release) {
            (Some(v), _) => Some(v.to_string()),
            (None, Some(k)) => Some(format!("in-tree {k}")),
            (None, None) => None,
        };
        let list = agents.and_then(Value::as_array);
        let mut firmware: Vec<String> = Vec::new();
        let mut isas: Vec<String> = Vec::new();
        for a in list.into_iter().flatten() {
            let fw = a.get("fw_version").and_then(Value::as_u64);
            let sdma = a.get("sdma_fw_version").and_then(Value::as_u64);
            if fw.is_some() || sdma.is_some() {
                let show = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
                firmware.push(format!("{}/{}", show(fw), show(sdma)));
            }
            let isa = a.get("target").or_else(|| a.get("gfx"));
            if let Some(t) = isa.and_then(Value::as_str) {
                isas.push(t.to_string());
            }
        }
        firmware.sort();
        firmware.dedup();
        isas.sort();
        isas.dedup();
        let mut fp = Fingerprint {
            id: String::new(),
            hip_runtime,
            driver,
            firmware,
            gpu_count: list.map(|l| l.len() as u64),
            isas,
        };
        fp.id = fp.compute_id();
        fp
    }

    /// The canonical text of one compared field (`-` when unknown), as `merge` shows it.
    pub(crate) fn field(&self, name: &str) -> String {
        let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        let list = |v: &Vec<String>| {
            if v.is_empty() {
                "-".to_string()
            } else {
                v.join(",")
            }
        };
        match name {
            "hip_runtime" => opt(&self.hip_runtime),
            "driver" => opt(&self.driver),
            "firmware" => list(&self.firmware),
            "gpu_count" => self.gpu_count.map_or("-".into(), |n| n.to_string()),
            "isas" => list(&self.isas),
            _ => "-".into(),
        }
    }

    /// FNV-1a 64 over `field=value\n` lines: stable across Rust releases and platforms (the
    /// standard library's hasher is not).
    pub fn compute_id(&self) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for name in FIELDS {
            for b in name
                .bytes()
                .chain(std::iter::once(b'='))
                .chain(self.field(name).into_bytes())
                .chain(std::iter::once(b'\n'))
            {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        format!("fnv1a64:{h:016x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn same_stack_same_id_and_order_does_not_matter() {
        let inv = json!({"libraries":[{"name":"amdhip64","version":"6.2.41133"}]});
        let a = json!([{"target":"gfx90a:sramecc+:xnack-","fw_version":92,"sdma_fw_version":9},
                       {"target":"gfx90a:sramecc+:xnack-","fw_version":92,"sdma_fw_version":9}]);
        let f1 = Fingerprint::from_report(Some(&inv), Some(&a), None, Some("6.8.0"));
        let f2 = Fingerprint::from_report(Some(&inv), Some(&a), None, Some("6.8.0"));
        assert_eq!(f1, f2);
        assert_eq!(f1.gpu_count, Some(2));
        assert_eq!(f1.firmware, vec!["92/9".to_string()]);
        assert_eq!(f1.driver.as_deref(), Some("in-tree 6.8.0"));
        let f3 = Fingerprint::from_report(Some(&inv), Some(&a), Some("6.10.5"), Some("6.8.0"));
        assert_ne!(f1.id, f3.id);
        assert!(f1.id.starts_with("fnv1a64:") && f1.id.len() == 24);
    }

    #[test]
    fn nothing_known_is_still_a_fingerprint() {
        let f = Fingerprint::from_report(None, None, None, None);
        assert_eq!(f.field("gpu_count"), "-");
        assert_eq!(f.id, Fingerprint::default().compute_id());
    }
}
