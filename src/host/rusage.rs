//! The doctor's own resource use, apart from its children's: `ROCM_DOCTOR_RUSAGE=1` prints one
//! line on stderr at exit (scripts/bench-doctor.sh). `getrusage(2)`: `RUSAGE_SELF` is this
//! process (all threads); `RUSAGE_CHILDREN` covers the children waited for, whose `ru_maxrss`
//! is that of the largest one (clang, a vendor-library probe), not a sum.

use nix::sys::resource::{getrusage, UsageWho};

/// `rusage: self maxrss_kb=... user_ms=... sys_ms=...; children maxrss_kb=... user_ms=... sys_ms=...`
pub(crate) fn line() -> String {
    let part = |who| match getrusage(who) {
        Ok(u) => {
            let ms = |t: nix::sys::time::TimeVal| t.tv_sec() * 1000 + t.tv_usec() / 1000;
            format!(
                "maxrss_kb={} user_ms={} sys_ms={}",
                u.max_rss(),
                ms(u.user_time()),
                ms(u.system_time())
            )
        }
        Err(e) => format!("unavailable ({e})"),
    };
    format!(
        "rusage: self {}; children {}",
        part(UsageWho::RUSAGE_SELF),
        part(UsageWho::RUSAGE_CHILDREN)
    )
}
