//! A KFD topology `properties` file (`/sys/class/kfd/kfd/topology/nodes/N/properties`) of any
//! kernel, and the `gfx_target_version` values it carries.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rocm_doctor_parsers::kfd_props as props;
use rocm_doctor_parsers::gfx as isa;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let p = props::parse(&text);
    if let Some(v) = p.get("gfx_target_version") {
        if let Some(name) = isa::decode_gfx_target_version(v) {
            let _ = isa::encode_gfx_target_version(&name);
        }
    }
    let _ = p.get_or_zero("simd_count");
    let _ = p.len();
});
