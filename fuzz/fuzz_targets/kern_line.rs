//! Kernel logs (`dmesg`, `journalctl -k`, kern.log, `/dev/kmsg` records, pasted lines): the whole
//! input through the text parser, the amdgpu/KFD event classifier and the per-kind fold, and the
//! input as one `/dev/kmsg` record (`read(2)` on /dev/kmsg returns one record per call).
#![no_main]
use libfuzzer_sys::fuzz_target;
use rocm_doctor_parsers::kernlog;

fuzz_target!(|data: &[u8]| {
    let lines = kernlog::parse_text(data);
    for l in &lines {
        let _ = l.pci_device();
        let _ = l.is_kernel();
    }
    let events = kernlog::amdgpu_events(&lines);
    let _ = kernlog::summarize(&events);
    if let Some(l) = kernlog::parse_kmsg_record(data) {
        let _ = kernlog::classify(&l);
    }
});
