//! The msgpack reader and the metadata it yields (`amdhsa.target`, `amdhsa.kernels`...).
#![no_main]
use libfuzzer_sys::fuzz_target;
use rocm_doctor::codeobj::{amdgpu, msgpack};

fuzz_target!(|data: &[u8]| {
    if let Ok((v, used)) = msgpack::decode(data) {
        assert!(used <= data.len());
        let _ = v.get("amdhsa.target").and_then(|t| t.as_str());
        let _ = v.get("amdhsa.version").and_then(|t| t.as_array());
    }
    let _ = amdgpu::metadata_from_msgpack(data, true);
});
