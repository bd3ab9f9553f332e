//! amdgpu health binaries of any kernel: the CPER ring of debugfs `amdgpu_ring_cper` (records
//! found by signature and bounded by their own lengths), a `gpu_metrics` sample of any version
//! (header, throttle, PCIe counters, XGMI link states), and the `xgmi_num_links` text.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rocm_doctor_parsers::gpu_health::{cper, parse};

fuzz_target!(|data: &[u8]| {
    let log = cper::parse_cper_ring(data);
    assert!(log.records.len() <= cper::MAX_RECORDS);
    for r in &log.records {
        assert!(r.offset + cper::HDR_LEN <= data.len());
        assert!(r.sections.len() <= cper::MAX_SECTIONS);
    }
    let _ = serde_json::to_string(&log);
    if let Ok(m) = parse::parse_gpu_metrics(data) {
        let _ = parse::active_throttlers(&m);
        let _ = serde_json::to_string(&m);
    }
    let _ = parse::parse_xgmi_num_links(&String::from_utf8_lossy(data));
});
