//! `ROCM_DOCTOR_RUSAGE=1` makes the doctor report its own peak RSS apart from its children's
//! (scripts/bench-doctor.sh reads it); without it, stderr carries no such line.

use crate::common;

#[test]
fn rusage_line_only_when_asked() {
    let out = common::doctor().arg("--list-checks").output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("rusage:"));
    let out = common::doctor()
        .arg("--list-checks")
        .env("ROCM_DOCTOR_RUSAGE", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("rusage: "))
        .expect("line");
    let own: u64 = line
        .split("self maxrss_kb=")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(own > 0, "{line}");
    assert!(line.contains("; children maxrss_kb="), "{line}");
}
