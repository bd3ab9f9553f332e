//! The `key value` files of KFD sysfs (`nodes/N/properties`, `mem_banks/i/properties`, ...).
//!
//! Format (Linux `drivers/gpu/drm/amd/amdkfd/kfd_topology.c`, `sysfs_show_32bit_prop` /
//! `sysfs_show_64bit_prop`): one `name value\n` line per property, values printed with `%u` /
//! `%llu`. libhsakmt (`topology.c`) reads them with `sscanf("%s %llu")` in a loop and ignores keys
//! it does not know; older kernels simply lack newer keys. We do the same: split on white
//! space, keep u64 values, remember (rather than fail on) lines that do not parse.

use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Properties {
    values: BTreeMap<String, u64>,
    /// Lines that were not `key <u64>` (kept for evidence; at most 16).
    pub malformed: Vec<String>,
}

impl Properties {
    pub fn get(&self, key: &str) -> Option<u64> {
        self.values.get(key).copied()
    }

    /// The value, or 0 when the key is missing (libhsakmt zero-initialises its struct).
    pub fn get_or_zero(&self, key: &str) -> u64 {
        self.get(key).unwrap_or(0)
    }

    pub fn has(&self, key: &str) -> bool {
        self.values.contains_key(key)
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// Parses a properties file. Never fails: unknown keys are kept, malformed lines recorded.
pub fn parse(text: &str) -> Properties {
    let mut p = Properties::default();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let Some(key) = it.next() else { continue };
        let value = it.next().and_then(|v| v.parse::<u64>().ok());
        match (value, it.next()) {
            (Some(v), None) => {
                p.values.insert(key.to_string(), v);
            }
            _ => {
                if p.malformed.len() < 16 {
                    p.malformed.push(line.chars().take(120).collect());
                }
            }
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_key_value_lines_and_tolerates_junk() {
        let p = parse(
            "cpu_cores_count 0\nsimd_count 80\n\nhive_id 2095653680343411291\nbogus\nx -1\ny 1 2\n",
        );
        assert_eq!(p.get("simd_count"), Some(80));
        assert_eq!(p.get("hive_id"), Some(2095653680343411291));
        assert_eq!(p.get("gfx_target_version"), None);
        assert_eq!(p.get_or_zero("gfx_target_version"), 0);
        assert_eq!(p.len(), 3);
        assert_eq!(p.malformed, vec!["bogus", "x -1", "y 1 2"]);
    }

    #[test]
    fn u64_extremes_and_overflow() {
        let p = parse("unique_id 18446744073709551615\nbig 18446744073709551616\n");
        assert_eq!(p.get("unique_id"), Some(u64::MAX));
        assert_eq!(p.get("big"), None);
        assert_eq!(p.malformed.len(), 1);
    }

    #[test]
    fn empty_and_binary_input_do_not_panic() {
        assert!(parse("").is_empty());
        let p = parse("\u{0}\u{1} \u{fffd}\n");
        assert!(p.is_empty());
    }
}
