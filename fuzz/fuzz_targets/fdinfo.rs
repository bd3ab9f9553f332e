//! `/proc/PID/fdinfo/FD` of a DRM file, `/proc/PID/status`, `/proc/PID/cgroup`, `/etc/passwd`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rocm_doctor_parsers::fdinfo;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = fdinfo::parse_fdinfo(&text);
    let _ = fdinfo::parse_status(&text);
    let _ = fdinfo::container_of(&text);
    let _ = fdinfo::user_name(&text, 1000);
    let _ = fdinfo::kib(&text);
});
