//! The contrib/slurm scripts under real Slurm (Debian 12's `slurm-wlm` 22.05.8 with `munge`): a
//! one-node cluster on localhost, every daemon and file under one temp dir (munged with its own
//! key and socket, `slurmctld -D`, `slurmd -D`, unused ports), driving the unmodified scripts
//! as `HealthCheckProgram` and `Prolog` through the pass, undecided (error-only report, usage
//! error), killed, fail, resume, admin-drain and prolog cases, in that order, in one test: one
//! cluster per test binary, the cases share it.
//!
//! slurmd gives `HealthCheckProgram` an environment of only `SLURMD_NODENAME` (checked below),
//! so the test cannot point the scripts at its settings file through the environment, and
//! writing the machine's `/etc/default/rocm-doctor` would change the host (and race another
//! run of the suite). `HealthCheckProgram` and `Prolog` are therefore two-line wrappers in the
//! temp dir: they record the environment Slurm gave them, export `ROCM_DOCTOR_CONFIG` (the
//! settings file the test rewrites per case) and `exec` the unmodified contrib script, which
//! then runs with exactly Slurm's environment plus that variable. The settings file sets
//! `SLURM_CONF` for the script's `scontrol` (exported: the scripts read it with `set -a`).
//!
//! The scripts' decisions are read from slurmd's log (`SlurmdDebug=debug2`: slurmd logs the
//! health check's output there), the node's state and reason from `scontrol show node`.

use crate::common::{find_tool, need_tool, toolchain_required, write_script};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const NODE: &str = "rdnode";
/// The longest any one case may take to show its effect (several health-check rounds).
const WAIT: Duration = Duration::from_secs(30);

struct Cluster {
    dir: tempfile::TempDir,
    conf: PathBuf,
    /// (name, process), in start order: munged, slurmctld, slurmd.
    daemons: Vec<(&'static str, Child)>,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // slurmd first, munged last; SIGTERM, then SIGKILL after a bounded wait.
        for (_, child) in self.daemons.iter_mut().rev() {
            let pid = nix::unistd::Pid::from_raw(child.id() as i32);
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
            let t = Instant::now();
            while t.elapsed() < Duration::from_secs(5) {
                if let Ok(Some(_)) = child.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        // Health checks or prologs slurmd started and left running: exactly the processes
        // carrying this cluster's settings file in their environment (the wrappers export it).
        let mark = format!("ROCM_DOCTOR_CONFIG={}", self.settings().display());
        // SIGTERM first (the scripts' traps then remove their temp file), SIGKILL after 3 s.
        let t = Instant::now();
        loop {
            let left = processes_with_env(&mark);
            if left.is_empty() || t.elapsed() > Duration::from_secs(6) {
                break;
            }
            let sig = if t.elapsed() < Duration::from_secs(3) {
                nix::sys::signal::Signal::SIGTERM
            } else {
                nix::sys::signal::Signal::SIGKILL
            };
            for pid in left {
                let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), sig);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Live processes whose environment holds `entry` (a `NAME=value` string).
fn processes_with_env(entry: &str) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in rd.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if let Ok(env) = std::fs::read(e.path().join("environ")) {
            if env.split(|&b| b == 0).any(|v| v == entry.as_bytes()) {
                out.push(pid);
            }
        }
    }
    out
}

/// A daemon from PATH, else from /usr/sbin (not on a user's PATH on Debian).
fn daemon(name: &str) -> Option<PathBuf> {
    find_tool(name).or_else(|| need_tool(&format!("/usr/sbin/{name}")))
}

/// Two TCP ports nobody listens on now.
fn free_ports() -> (u16, u16) {
    let a = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let b = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    (
        a.local_addr().unwrap().port(),
        b.local_addr().unwrap().port(),
    )
}

/// Polls `f` every 200 ms until it returns `Some`, or panics after `WAIT` with `what` and
/// `context()`.
fn wait_for<T>(what: &str, mut f: impl FnMut() -> Option<T>, context: impl Fn() -> String) -> T {
    let t = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        if t.elapsed() > WAIT {
            panic!("{what}: not within {WAIT:?}\n{}", context());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

impl Cluster {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn settings(&self) -> PathBuf {
        self.path("settings")
    }

    /// Starts munged, slurmctld and slurmd; `None` (after a notice) when Slurm or munge is
    /// missing or we are not root, unless the toolchain is required.
    fn start() -> Option<Self> {
        let munged = daemon("munged")?;
        let slurmctld = daemon("slurmctld")?;
        let slurmd = daemon("slurmd")?;
        need_tool("scontrol")?;
        need_tool("sbatch")?;
        if !nix::unistd::geteuid().is_root() {
            if toolchain_required() {
                panic!("real Slurm needs root (slurmd runs as root) under ROCM_DOCTOR_REQUIRE_TOOLCHAIN=1");
            }
            eprintln!("skipped: real Slurm needs root");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_path_buf();
        let mut c = Cluster {
            conf: d.join("slurm.conf"),
            dir,
            daemons: Vec::new(),
        };
        for sub in ["state", "spool"] {
            std::fs::create_dir(d.join(sub)).unwrap();
        }
        // munge: a 1 KiB random key, readable by root only.
        let mut key = [0u8; 1024];
        std::fs::File::open("/dev/urandom")
            .unwrap()
            .read_exact(&mut key)
            .unwrap();
        let key_path = d.join("munge.key");
        std::fs::write(&key_path, key).unwrap();
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&key_path, std::fs::Permissions::from_mode(0o400)).unwrap();
        }
        let sock = d.join("munge.sock");
        let mut m = Command::new(munged);
        m.arg("-F")
            .arg("-f")
            .arg(format!("--key-file={}", key_path.display()))
            .arg(format!("--socket={}", sock.display()))
            .arg(format!("--pid-file={}", d.join("munged.pid").display()))
            .arg(format!("--log-file={}", d.join("munged.log").display()))
            .arg(format!("--seed-file={}", d.join("munged.seed").display()));
        c.spawn("munged", m);
        wait_for(
            "munged's socket",
            || sock.exists().then_some(()),
            || std::fs::read_to_string(d.join("munged.log")).unwrap_or_default(),
        );

        // The wrappers slurmd runs (see the module doc), and the test's doctors and clang.
        let contrib = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/slurm");
        for (name, script) in [
            ("hc.sh", "rocm-doctor-healthcheck.sh"),
            ("prolog.sh", "rocm-doctor-prolog.sh"),
        ] {
            write_script(
                &d.join(name),
                &format!(
                    "#!/bin/sh\n/usr/bin/tr '\\0' '\\n' </proc/$$/environ >{env}\nexport ROCM_DOCTOR_CONFIG={settings}\nexec {script}\n",
                    env = d.join(format!("{name}.env")).display(),
                    settings = c.settings().display(),
                    script = contrib.join(script).display(),
                ),
            );
        }
        write_script(&d.join("slow-doctor"), "#!/bin/sh\nexec sleep 48\n");
        write_script(&d.join("hung-clang"), "#!/bin/sh\nexec sleep 48\n");
        c.set(&[("ROCM_DOCTOR_ARGS", &healthy_args())]);

        let (ctld_port, d_port) = free_ports();
        let conf = format!(
            "ClusterName=rdtest
SlurmctldHost=localhost
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
SlurmctldDebug=info
SlurmdDebug=debug2
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
HealthCheckProgram={d}/hc.sh
HealthCheckInterval=2
Prolog={d}/prolog.sh
NodeName={NODE} NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=rdpart Nodes={NODE} Default=YES MaxTime=INFINITE State=UP
",
            sock = sock.display(),
            d = d.display(),
        );
        std::fs::write(&c.conf, conf).unwrap();
        let mut ctld = Command::new(slurmctld);
        ctld.arg("-D").arg("-f").arg(&c.conf);
        c.spawn("slurmctld", ctld);
        let mut sd = Command::new(slurmd);
        sd.arg("-D").arg("-f").arg(&c.conf).args(["-N", NODE]);
        c.spawn("slurmd", sd);
        wait_for(
            "the node registers and is IDLE",
            || {
                let (st, _) = c.node();
                (st.starts_with("IDLE") && !st.contains('*') && !st.contains("NOT_RESPONDING"))
                    .then_some(())
            },
            || c.logs(),
        );
        Some(c)
    }

    fn spawn(&mut self, name: &'static str, mut cmd: Command) {
        let out = std::fs::File::create(self.path(&format!("{name}.out"))).unwrap();
        // Should the test process die without running Drop (killed), the daemons die with it.
        // SAFETY: prctl is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(|| {
                nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
                    .map_err(std::io::Error::from)
            });
        }
        let child = cmd
            .env("SLURM_CONF", &self.conf)
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap_or_else(|e| panic!("start {name}: {e}"));
        self.daemons.push((name, child));
    }

    /// Rewrites the settings file (atomically): the test's doctor, SLURM_CONF, and `vars`.
    fn set(&self, vars: &[(&str, &str)]) {
        let mut s = format!(
            "# written by tests/slurm_real.rs\nSLURM_CONF={}\nROCM_DOCTOR={}\n",
            self.conf.display(),
            env!("CARGO_BIN_EXE_rocm-doctor")
        );
        for (k, v) in vars {
            s.push_str(&format!("{k}=\"{v}\"\n"));
        }
        let tmp = self.path("settings.new");
        std::fs::write(&tmp, s).unwrap();
        std::fs::rename(&tmp, self.settings()).unwrap();
    }

    /// A Slurm command against this cluster, bounded in time; its stdout.
    fn slurm(&self, args: &[&str]) -> String {
        let out = Command::new("timeout")
            .arg("20")
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The node's State and Reason (without its `[user@time]` suffix), from `scontrol show node`.
    fn node(&self) -> (String, String) {
        let text = self.slurm(&["scontrol", "show", "node", NODE]);
        let mut state = String::new();
        let mut reason = String::new();
        for line in text.lines().map(str::trim) {
            if let Some(rest) = line.strip_prefix("State=") {
                state = rest.split_whitespace().next().unwrap_or("").to_string();
            }
            if let Some(rest) = line.strip_prefix("Reason=") {
                reason = match rest.rfind(" [") {
                    Some(i) => rest[..i].to_string(),
                    None => rest.to_string(),
                };
            }
        }
        (state, reason)
    }

    fn slurmd_log(&self) -> String {
        std::fs::read_to_string(self.path("slurmd.log")).unwrap_or_default()
    }

    /// Waits for `needle` in slurmd's log after byte `since`; returns the log's new length.
    fn wait_log(&self, since: usize, needle: &str) -> usize {
        wait_for(
            &format!("{needle:?} in slurmd's log"),
            || {
                let log = self.slurmd_log();
                log.get(since..)
                    .and_then(|tail| tail.find(needle))
                    .map(|i| since + i + needle.len())
            },
            || self.logs(),
        )
    }

    fn logs(&self) -> String {
        let tail = |f: &str| {
            let s = std::fs::read_to_string(self.path(f)).unwrap_or_default();
            let lines: Vec<&str> = s.lines().collect();
            lines[lines.len().saturating_sub(40)..].join("\n")
        };
        format!(
            "node: {:?}\n--- slurmd.log\n{}\n--- slurmctld.log\n{}\n--- settings\n{}",
            self.node(),
            tail("slurmd.log"),
            tail("slurmctld.log"),
            std::fs::read_to_string(self.settings()).unwrap_or_default()
        )
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysroots")
        .join(name)
}

/// Passes on the MI210 fixture, and repeats the scripts' own --profile and --deadline: they
/// must drop theirs, not make it a usage error.
fn healthy_args() -> String {
    format!(
        "--sysroot {} --only gpu.agents --profile runtime --deadline 20",
        fixture("k8s-mi210x8-gfx90a-xgmi").display()
    )
}

/// Fails on the MI210 fixture: gpu.driver.
fn failing_args() -> String {
    format!(
        "--sysroot {} --only gpu.",
        fixture("k8s-mi210x8-gfx90a-xgmi").display()
    )
}

#[test]
fn slurm_real_cluster_health_check_and_prolog() {
    let started = Instant::now();
    let Some(c) = Cluster::start() else { return };
    eprintln!("cluster up in {:?}", started.elapsed());

    // What slurmd gives HealthCheckProgram: SLURMD_NODENAME, nothing else (no PATH).
    let env = wait_for(
        "the health check ran",
        || std::fs::read_to_string(c.path("hc.sh.env")).ok(),
        || c.logs(),
    );
    assert_eq!(
        env.lines().collect::<Vec<_>>(),
        [format!("SLURMD_NODENAME={NODE}")]
    );

    // pass: the script finds the doctor and scontrol without PATH, and the repeated options are
    // no usage error.
    let mut at = c.wait_log(
        0,
        &format!("rocm-doctor-healthcheck: healthy; {NODE} IDLE: nothing to do"),
    );
    assert_eq!(c.node(), ("IDLE".to_string(), String::new()));

    // undecided: only an `error` finding (the clang probe hung and timed out): exit 1, but the
    // healthy node is not drained, and the decision is in the log.
    let hung = format!(
        "--only toolchain.clang --clang {} --timeout 1",
        c.path("hung-clang").display()
    );
    c.set(&[("ROCM_DOCTOR_ARGS", &hung)]);
    at = c.wait_log(
        at,
        &format!(
            "could not decide: no failure, only errors (toolchain.clang); {NODE} left as it is"
        ),
    );
    assert_eq!(c.node(), ("IDLE".to_string(), String::new()));

    // usage error: no check ran; logged loudly, the node untouched.
    c.set(&[("ROCM_DOCTOR_ARGS", "--no-such-option")]);
    at = c.wait_log(at, "usage error (exit 2), NO CHECK RAN");
    assert_eq!(c.node(), ("IDLE".to_string(), String::new()));

    // killed: the doctor outlives the script's limit; killed by `timeout`, node untouched.
    c.set(&[
        ("ROCM_DOCTOR", &c.path("slow-doctor").display().to_string()),
        ("ROCM_DOCTOR_TIMEOUT", "3"),
    ]);
    at = c.wait_log(at, "killed after 3 s (ROCM_DOCTOR_TIMEOUT)");
    assert_eq!(c.node(), ("IDLE".to_string(), String::new()));

    // fail: drained, the repair action and the failing check ids as the reason.
    c.set(&[("ROCM_DOCTOR_ARGS", &failing_args())]);
    let (st, reason) = wait_for(
        "drained by the health check",
        || {
            let (st, r) = c.node();
            st.contains("DRAIN").then_some((st, r))
        },
        || c.logs(),
    );
    assert_eq!(reason, "rocm-doctor: fix-config: gpu.driver", "state {st}");
    at = c.wait_log(
        at,
        &format!("draining {NODE}: rocm-doctor: fix-config: gpu.driver"),
    );

    // resume: healthy again, and the drain is ours.
    c.set(&[("ROCM_DOCTOR_ARGS", &healthy_args())]);
    at = c.wait_log(
        at,
        &format!("healthy again: resuming {NODE} (was: rocm-doctor: gpu.driver)"),
    );
    wait_for(
        "resumed",
        || (c.node() == ("IDLE".to_string(), String::new())).then_some(()),
        || c.logs(),
    );

    // admin drain: never resumed while healthy, never taken over while failing.
    c.slurm(&[
        "scontrol",
        "update",
        &format!("NodeName={NODE}"),
        "State=DRAIN",
        "Reason=maintenance by admin",
    ]);
    at = c.wait_log(
        at,
        &format!("healthy; {NODE} is drained by someone else (maintenance by admin): left alone"),
    );
    c.set(&[("ROCM_DOCTOR_ARGS", &failing_args())]);
    at = c.wait_log(at, "with another reason (maintenance by admin): left alone");
    let (st, reason) = c.node();
    assert!(st.contains("DRAIN"), "{st}");
    assert_eq!(reason, "maintenance by admin");
    c.slurm(&[
        "scontrol",
        "update",
        &format!("NodeName={NODE}"),
        "State=RESUME",
    ]);

    // prolog: the health check passes, the job's GPU check fails: the prolog exits 1, Slurm
    // drains the node with "Prolog error" and requeues the batch job held.
    c.set(&[
        ("ROCM_DOCTOR_ARGS", &healthy_args()),
        ("ROCM_DOCTOR_PROLOG_ARGS", &failing_args()),
    ]);
    at = c.wait_log(at, &format!("healthy; {NODE} IDLE: nothing to do"));
    let job = c
        .slurm(&[
            "sbatch",
            "--parsable",
            "-J",
            "rd-prolog",
            "-o",
            "/dev/null",
            "-e",
            "/dev/null",
            &format!("--chdir={}", c.dir.path().display()),
            "--wrap",
            "true",
        ])
        .trim()
        .to_string();
    assert!(job.parse::<u32>().is_ok(), "sbatch: {job:?}\n{}", c.logs());
    let reason = wait_for(
        "the prolog failure drains the node",
        || {
            let (st, r) = c.node();
            st.contains("DRAIN").then_some(r)
        },
        || c.logs(),
    );
    assert_eq!(reason, "Prolog error");
    at = c.wait_log(
        at,
        &format!("rocm-doctor-prolog: job {job} GPUs all: FAIL gpu.driver"),
    );
    let show = wait_for(
        "the job requeued and held",
        || {
            let s = c.slurm(&["scontrol", "show", "job", &job]);
            s.contains("Reason=launch_failed_requeued_held")
                .then_some(s)
        },
        || c.logs(),
    );
    assert!(show.contains("JobState=PENDING"), "{show}");
    // The prolog's environment: the job's variables, no PATH.
    let penv = std::fs::read_to_string(c.path("prolog.sh.env")).unwrap();
    assert!(
        penv.lines().any(|l| l == format!("SLURM_JOB_ID={job}")),
        "{penv}"
    );
    assert!(!penv.lines().any(|l| l.starts_with("PATH=")), "{penv}");
    // Nothing resumes a "Prolog error" drain: the health check, healthy, leaves it alone.
    c.wait_log(
        at,
        &format!("healthy; {NODE} is drained by someone else (Prolog error): left alone"),
    );
    assert_eq!(c.node().1, "Prolog error");
    c.slurm(&["scancel", &job]);
    eprintln!("all cases in {:?}", started.elapsed());
}
