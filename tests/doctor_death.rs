//! A doctor killed mid-probe leaves no process behind: SIGKILL to the doctor, SIGTERM to the
//! doctor, and SIGTERM to its whole process group (what GNU `timeout`, slurmd and
//! node-problem-detector's rule timeout do). The probe is a clang wrapper that hangs in a
//! grandchild (`sleep` started by the shell), so the whole tree must go, not only the child.

use crate::common::write_script;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

enum Kill {
    SigkillDoctor,
    SigtermDoctor,
    SigtermGroup,
}

fn killed_doctor_leaves_nothing(how: Kill, secs: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mark = dir.path().join("started");
    let clang = dir.path().join("clang");
    // The shell forks `sleep` (a grandchild of the doctor) and waits for it.
    write_script(
        &clang,
        &format!(
            "#!/bin/sh\nsleep {secs} &\ntouch '{}'\nwait\n",
            mark.display()
        ),
    );
    // The doctor's temp dir goes into a directory of the test's own, to see that it is gone.
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rocm-doctor"));
    cmd.env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("TMPDIR", &tmp)
        .args(["--json", "--only", "toolchain.clang", "--clang"])
        .arg(&clang)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    {
        use std::os::unix::process::CommandExt;
        // Its own group, as `timeout` gives the command it runs.
        cmd.process_group(0);
    }
    let mut doctor = cmd.spawn().expect("doctor starts");
    let t0 = Instant::now();
    while !mark.exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the doctor never started the probe"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        crate::common::sleepers(secs).len(),
        1,
        "the probe's grandchild runs"
    );
    let pid = nix::unistd::Pid::from_raw(doctor.id() as i32);
    use nix::sys::signal::{kill, killpg, Signal};
    match how {
        Kill::SigkillDoctor => kill(pid, Signal::SIGKILL).unwrap(),
        Kill::SigtermDoctor => kill(pid, Signal::SIGTERM).unwrap(),
        Kill::SigtermGroup => killpg(pid, Signal::SIGTERM).unwrap(),
    }
    let status = doctor.wait().unwrap();
    assert!(!status.success(), "the doctor was killed: {status:?}");
    // The reaper acts on end-of-file right away; give a loaded machine some slack.
    let t1 = Instant::now();
    while !crate::common::sleepers(secs).is_empty() && t1.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = crate::common::sleepers(secs);
    for p in &left {
        let _ = kill(nix::unistd::Pid::from_raw(*p), Signal::SIGKILL);
    }
    assert!(
        left.is_empty(),
        "processes left behind by the killed doctor: {left:?}"
    );
    assert!(Path::new(&mark).exists());
    let t2 = Instant::now();
    while std::fs::read_dir(&tmp).unwrap().next().is_some() && t2.elapsed() < Duration::from_secs(5)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let kept: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        kept.is_empty(),
        "the killed doctor's temp dir was left: {kept:?}"
    );
}

// Distinct durations so that the three tests, run in parallel, look for their own sleeper.
#[test]
fn sigkill_leaves_no_probe_behind() {
    killed_doctor_leaves_nothing(Kill::SigkillDoctor, "86401");
}

#[test]
fn sigterm_leaves_no_probe_behind() {
    killed_doctor_leaves_nothing(Kill::SigtermDoctor, "86402");
}

#[test]
fn sigterm_to_the_group_leaves_no_probe_behind() {
    killed_doctor_leaves_nothing(Kill::SigtermGroup, "86403");
}
