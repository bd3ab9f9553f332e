//! The gfx decoder against every processor of LLVM's AMDGPUUsage "AMDGPU Processors" table.
//!
//! Data: llvm/llvm-project @001388cf, llvm/docs/AMDGPUUsage.rst, tables "AMDGPU Processors" (GCN
//! rows; the r600 rows have no gfx name) and "AMDGPU Generic Processors". For each processor the
//! KFD-style number is written out by hand (major*10000 + minor*100 + stepping, where minor and
//! stepping are the hex digits of the name), together with the table's "dGPU/APU" column and its
//! `xnack` / `sramecc` target features.

use rocm_doctor::isa::{
    decode_gfx_target_version, encode_gfx_target_version, is_processor_syntax, processor,
};

// (name, kfd-style number, APU?, xnack, sramecc)
const PROCESSORS: &[(&str, u64, bool, bool, bool)] = &[
    ("gfx600", 60000, false, false, false),
    ("gfx601", 60001, false, false, false),
    ("gfx602", 60002, false, false, false),
    ("gfx700", 70000, true, false, false),
    ("gfx701", 70001, false, false, false),
    ("gfx702", 70002, false, false, false),
    ("gfx703", 70003, true, false, false),
    ("gfx704", 70004, false, false, false),
    ("gfx705", 70005, true, false, false),
    ("gfx801", 80001, true, true, false),
    ("gfx802", 80002, false, false, false),
    ("gfx803", 80003, false, false, false),
    ("gfx805", 80005, false, false, false),
    ("gfx810", 80100, true, true, false),
    ("gfx900", 90000, false, true, false),
    ("gfx902", 90002, true, true, false),
    ("gfx904", 90004, false, true, false),
    ("gfx906", 90006, false, true, true),
    ("gfx908", 90008, false, true, true),
    ("gfx909", 90009, true, true, false),
    ("gfx90a", 90010, false, true, true),
    ("gfx90c", 90012, true, true, false),
    ("gfx940", 90400, false, true, true),
    ("gfx941", 90401, false, true, true),
    ("gfx942", 90402, false, true, true),
    ("gfx950", 90500, false, true, true),
    ("gfx1010", 100100, false, true, false),
    ("gfx1011", 100101, false, true, false),
    ("gfx1012", 100102, false, true, false),
    ("gfx1013", 100103, true, true, false),
    ("gfx1030", 100300, false, false, false),
    ("gfx1031", 100301, false, false, false),
    ("gfx1032", 100302, false, false, false),
    ("gfx1033", 100303, true, false, false),
    ("gfx1034", 100304, false, false, false),
    ("gfx1035", 100305, true, false, false),
    ("gfx1036", 100306, true, false, false),
    ("gfx1100", 110000, false, false, false),
    ("gfx1101", 110001, false, false, false),
    ("gfx1102", 110002, false, false, false),
    ("gfx1103", 110003, true, false, false),
    ("gfx1150", 110500, true, false, false),
    ("gfx1151", 110501, true, false, false),
    ("gfx1152", 110502, true, false, false),
    ("gfx1200", 120000, false, false, false),
    ("gfx1201", 120001, false, false, false),
    ("gfx1210", 120100, true, false, false),
];

const GENERIC: &[&str] = &[
    "gfx9-generic",
    "gfx10-1-generic",
    "gfx10-3-generic",
    "gfx11-generic",
];

#[test]
fn every_llvm_processor_decodes_from_its_kfd_number_and_back() {
    for (name, v, ..) in PROCESSORS {
        assert_eq!(decode_gfx_target_version(*v).as_deref(), Some(*name), "{v}");
        assert_eq!(encode_gfx_target_version(name), Some(*v as u32), "{name}");
        assert!(is_processor_syntax(name), "{name}");
    }
    for g in GENERIC {
        assert!(is_processor_syntax(g), "{g}");
        assert_eq!(encode_gfx_target_version(g), None, "{g} has no KFD number");
    }
}

#[test]
fn the_isa_table_agrees_with_llvm_on_features() {
    // Rows the doctor's table lacks are listed here explicitly, so a change shows up.
    let mut missing = Vec::new();
    for (name, _, _, xnack, sramecc) in PROCESSORS {
        match processor(name) {
            Some(p) => {
                assert_eq!(p.xnack, *xnack, "{name}: xnack");
                assert_eq!(p.sramecc, *sramecc, "{name}: sramecc");
            }
            None => missing.push(*name),
        }
    }
    for g in GENERIC {
        if processor(g).is_none() {
            missing.push(g);
        }
    }
    assert!(
        missing.is_empty(),
        "processors of AMDGPUUsage missing from checks/isa.toml: {missing:?}"
    );
}

#[test]
fn the_apu_list_is_llvms_apu_column() {
    for (name, _, apu, ..) in PROCESSORS {
        assert_eq!(
            rocm_doctor::gpu::facts::is_apu_processor(name),
            *apu,
            "{name}"
        );
    }
}

#[test]
fn kfd_values_in_the_isa_table_match_the_name() {
    // checks/isa.toml's `kfd` column (kernel kgd2kfd_probe) must be the name's own number.
    for (name, v, ..) in PROCESSORS {
        if let Some(k) = processor(name).and_then(|p| p.kfd) {
            assert_eq!(k as u64, *v, "{name}");
        }
    }
}
