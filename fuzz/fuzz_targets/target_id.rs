//! Bundle entry ids (`hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`) and target ids
//! (`gfx90a:xnack+`, `--isa` values, `amdhsa.target` strings).
#![no_main]
use libfuzzer_sys::fuzz_target;
use rocm_doctor::codeobj::entry_id;
use rocm_doctor::isa::{self, TargetId};

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let e = entry_id::parse(s);
    let _ = e.is_device();
    let _ = isa::is_processor_syntax(s);
    if let Ok(t) = TargetId::parse(s) {
        let _ = t.info();
        let _ = t.major();
        let _ = t.to_string();
        let _ = isa::encode_gfx_target_version(&t.processor);
    }
});
