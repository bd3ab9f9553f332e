//! `EF_AMDGPU_MACH` values to processor names, from `checks/elf-mach.toml`.

use serde::Deserialize;
use std::sync::OnceLock;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Mach {
    pub value: u32,
    pub name: String,
    #[serde(default)]
    #[allow(dead_code)] // a key of the table (deny_unknown_fields): it documents the value
    pub note: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    mach: Vec<Mach>,
}

pub(crate) fn table() -> &'static [Mach] {
    static T: OnceLock<Vec<Mach>> = OnceLock::new();
    T.get_or_init(|| {
        crate::data::embedded::<Table>(
            "checks/elf-mach.toml",
            include_str!("../../checks/elf-mach.toml"),
        )
        .mach
    })
}

/// The processor for a mach value (`0x36` -> `gfx1030`).
pub(crate) fn processor(mach: u32) -> Option<&'static str> {
    table()
        .iter()
        .find(|m| m.value == mach)
        .map(|m| m.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_is_unique_and_knows_the_measured_values() {
        let t = table();
        assert!(t.len() > 60);
        let mut v: Vec<u32> = t.iter().map(|m| m.value).collect();
        v.sort();
        v.dedup();
        assert_eq!(v.len(), t.len(), "duplicate values");
        assert_eq!(processor(0x36), Some("gfx1030"));
        assert_eq!(processor(0x3f), Some("gfx90a"));
        assert_eq!(processor(0x53), Some("gfx10-3-generic"));
        assert_eq!(processor(0x5f), Some("gfx9-4-generic"));
        assert_eq!(processor(0xee), None);
        // Every concrete AMDGCN name the ISA table knows is reachable from some mach value
        // (except processors LLVM never gave an e_flags value).
        // AMDGPUUsage @001388cf lists gfx1210, but no ELF.h revision read gives its
        // EF_AMDGPU_MACH value: an unverified value is left out rather than guessed.
        const NO_VERIFIED_MACH: &[&str] = &["gfx1210"];
        for p in crate::isa::processors()
            .iter()
            .filter(|p| !NO_VERIFIED_MACH.contains(&p.name.as_str()))
        {
            assert!(
                t.iter().any(|m| m.name == p.name),
                "{} has no EF_AMDGPU_MACH value",
                p.name
            );
        }
    }
}
