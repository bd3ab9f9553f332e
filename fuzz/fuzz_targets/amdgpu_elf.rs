//! An AMDGPU code object: ELF header and `e_flags`, sections, segments, notes and the
//! `NT_AMDGPU_METADATA` msgpack note, kernel names.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rocm_doctor::codeobj::{amdgpu, elf};

fuzz_target!(|data: &[u8]| {
    if let Ok(co) = amdgpu::parse(data, true) {
        let _ = co.target_id();
        let _ = co.target();
        let _ = co.metadata_agrees();
        let _ = serde_json::to_string(&co);
    }
    if let Ok(h) = elf::parse_header(data) {
        let _ = elf::segments(data, &h);
        if let Ok(secs) = elf::sections(data, &h) {
            for s in secs.iter().take(64) {
                if let Ok(d) = elf::section_data(data, s) {
                    let _ = elf::notes(d);
                }
            }
        }
    }
    let _ = elf::notes(data);
});
