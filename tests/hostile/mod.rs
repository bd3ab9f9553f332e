//! Issue 25: the doctor under hostile input, one module per item of the threat model in
//! docs/security.md. Each test was written to fail on the code before the fix. They run in CI
//! as root, with `nobody` (setpriv) as the second, unprivileged user where one is needed, and
//! with mount namespaces (`unshare -m`) for full or read-only temp dirs.

mod foreign_root;
mod host_root_paths;
mod pack_trust;
mod report_leaks;
mod small;
mod small_reap;
mod temp_dir;
mod unbounded;
