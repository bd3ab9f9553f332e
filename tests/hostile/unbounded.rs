//! Issue 25, item 5. Nothing hangs or grows without bound: FIFOs, endless streams, shrinking maps, decompression bombs.
//!
//! Every run here is bounded by [`run_bounded`]: a child that outlives its limit, or whose peak
//! resident set passes its bound, is killed and the test fails, instead of hanging CI or
//! taking the machine's memory.

use crate::common;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

struct Ran {
    code: Option<i32>,
    signal: Option<i32>,
    stdout: String,
    stderr: String,
    /// Peak resident set of the program, KiB (VmHWM sampled every 20 ms after `exec`; wait4's
    /// ru_maxrss would count the process before `exec` too).
    maxrss_kb: u64,
    elapsed: Duration,
    /// Why it was killed by us (time or memory), if it was.
    killed: Option<String>,
}

impl std::fmt::Debug for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "code {:?} signal {:?} killed {:?} after {:?}, maxrss {} KiB\nstdout: {}\nstderr: {}",
            self.code,
            self.signal,
            self.killed,
            self.elapsed,
            self.maxrss_kb,
            self.stdout.chars().take(3000).collect::<String>(),
            self.stderr.chars().take(3000).collect::<String>()
        )
    }
}

type Feed = Box<dyn FnOnce(ChildStdin) + Send>;

/// The doctor with the clean environment of `common::doctor`.
fn doctor_cmd(args: &[&str]) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("rocm-doctor"));
    c.env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("TMPDIR", std::env::temp_dir())
        .args(args);
    c
}

fn vm_hwm_kb(pid: i32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let l = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    l.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `cmd` (stdin fed by `feed`, else /dev/null), killing it after `limit` or when its peak
/// RSS passes `max_rss_kb`.
// The child is reaped by `wait4` (for its status), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run_bounded(mut cmd: Command, feed: Option<Feed>, limit: Duration, max_rss_kb: u64) -> Ran {
    use std::io::Read;
    cmd.stdin(if feed.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let program = std::fs::canonicalize(cmd.get_program()).unwrap();
    let start = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let pid = child.id() as i32;
    let feeder = feed.map(|f| {
        let w = child.stdin.take().unwrap();
        std::thread::spawn(move || f(w))
    });
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let ot = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = so.read_to_end(&mut v);
        v
    });
    let et = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = se.read_to_end(&mut v);
        v
    });
    let mut killed = None;
    let mut hwm = 0;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid out-parameter.
    let mut ru: nix::libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: plain wait4 on our own child.
        let r = unsafe { nix::libc::wait4(pid, &mut status, nix::libc::WNOHANG, &mut ru) };
        if r == pid {
            break;
        }
        // Only once the child runs the program: before `exec` (vfork) /proc shows the test
        // process's own memory.
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
        if exe.as_deref() == Some(program.as_path()) {
            if let Some(k) = vm_hwm_kb(pid) {
                hwm = hwm.max(k);
            }
        }
        let why = if start.elapsed() > limit {
            Some(format!("still running after {limit:?}"))
        } else if hwm > max_rss_kb {
            Some(format!("peak RSS {hwm} KiB above {max_rss_kb} KiB"))
        } else {
            None
        };
        if let Some(w) = why {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
            // SAFETY: as above, blocking.
            unsafe { nix::libc::wait4(pid, &mut status, 0, &mut ru) };
            killed = Some(w);
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let elapsed = start.elapsed();
    // A feeder still writing (or holding stdin open) ends on its own once the child is gone:
    // it is not waited for.
    drop(feeder);
    let stdout = String::from_utf8_lossy(&ot.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&et.join().unwrap()).into_owned();
    let (code, signal) = if nix::libc::WIFEXITED(status) {
        (Some(nix::libc::WEXITSTATUS(status)), None)
    } else if nix::libc::WIFSIGNALED(status) {
        (None, Some(nix::libc::WTERMSIG(status)))
    } else {
        (None, None)
    };
    Ran {
        code,
        signal,
        stdout,
        stderr,
        maxrss_kb: hwm,
        elapsed,
        killed,
    }
}

/// Endless bytes `b` (no newline) until the reader goes away.
fn endless(b: u8) -> Feed {
    Box::new(move |mut w: ChildStdin| {
        let chunk = vec![b; 1 << 20];
        while w.write_all(&chunk).is_ok() {}
    })
}

/// Stdin held open without a byte, for `secs` seconds.
fn silent(secs: u64) -> Feed {
    Box::new(move |w: ChildStdin| {
        std::thread::sleep(Duration::from_secs(secs));
        drop(w);
    })
}

fn fifo(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    nix::unistd::mkfifo(&p, nix::sys::stat::Mode::from_bits_truncate(0o644)).unwrap();
    p
}

const LIMIT: Duration = Duration::from_secs(60);
/// Peak RSS bound for the stream cases: one 64 MiB document/line plus the program.
const RSS_KB: u64 = 256 * 1024;

fn assert_finished(r: &Ran) {
    assert!(r.killed.is_none(), "{r:?}");
    assert!(r.signal.is_none(), "{r:?}");
}

/// A FIFO named as a FILE argument (`--baseline`, `merge`, `merge --expect`, `log`, `inspect`,
/// `--expect`) is refused at once as "not a regular file: a FIFO" (before: the open blocked
/// until a writer came, for ever).
#[test]
fn a_fifo_as_a_file_argument_is_refused_not_waited_for() {
    let t = tempfile::tempdir().unwrap();
    let f = fifo(t.path(), "in.json");
    let fs = f.to_str().unwrap();
    let good = t.path().join("good.json");
    std::fs::write(&good, "{}").unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["--only", "toolchain.env", "--baseline", fs],
        vec!["merge", fs],
        vec!["merge", "--expect", fs, good.to_str().unwrap()],
        vec!["log", fs],
        vec!["inspect", fs],
        vec!["--asm-caps", "--expect", fs, "--only", "toolchain.env"],
    ];
    for args in cases {
        let r = run_bounded(doctor_cmd(&args), None, LIMIT, RSS_KB);
        assert_finished(&r);
        let all = format!("{}{}", r.stdout, r.stderr);
        assert!(
            all.contains("not a regular file: a FIFO"),
            "{args:?}: {r:?}"
        );
        assert_ne!(r.code, Some(0), "{args:?}: {r:?}");
    }
}

/// A FIFO where a sysroot's version file or `ld.so.conf` should be: the run finishes, well
/// within its deadline.
#[test]
fn a_fifo_in_a_sysroot_does_not_hang_the_run() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    for d in [
        "opt/rocm-6.2.0/lib",
        "opt/rocm-6.2.0/include/hip",
        "usr/bin",
        "etc",
    ] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::os::unix::fs::symlink("rocm-6.2.0", root.join("opt/rocm")).unwrap();
    fifo(root, "opt/rocm-6.2.0/.info/version");
    fifo(root, "opt/rocm-6.2.0/include/hip/hip_version.h");
    fifo(root, "etc/ld.so.conf");
    let r = run_bounded(
        doctor_cmd(&[
            "--sysroot",
            root.to_str().unwrap(),
            "--json",
            "--deadline",
            "30",
        ]),
        None,
        LIMIT,
        512 * 1024,
    );
    assert_finished(&r);
    assert!(r.elapsed < Duration::from_secs(40), "{r:?}");
    let doc: serde_json::Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {r:?}"));
    assert!(doc["findings"].is_array(), "{r:?}");
}

/// `merge -` fed a newline-less stream (300 MiB of `x`, then /dev/zero without end): the
/// over-long line is skipped as it is read, the peak RSS stays bounded (before: the whole
/// stream was held, ~1 GB per 300 MiB read).
#[test]
fn an_endless_line_into_merge_stays_bounded() {
    let r = run_bounded(
        doctor_cmd(&["merge", "-"]),
        Some(Box::new(|mut w: ChildStdin| {
            let chunk = vec![b'x'; 1 << 20];
            for _ in 0..300 {
                if w.write_all(&chunk).is_err() {
                    return;
                }
            }
        })),
        LIMIT,
        RSS_KB,
    );
    assert_finished(&r);
    assert!(r.stdout.contains("skipped"), "{r:?}");
    // /dev/zero's stream never ends: it is read for 5 s, with bounded memory.
    let c = doctor_cmd(&["merge", "-"]);
    let r = run_bounded(c, Some(endless(0)), Duration::from_secs(5), RSS_KB);
    assert_eq!(r.killed.as_deref(), Some("still running after 5s"), "{r:?}");
}

/// `--baseline /dev/stdin` (a pipe) and `--baseline /dev/zero` (a device): refused at once with
/// what they are, memory bounded (before: read without limit until the machine ran out).
#[test]
fn a_stream_as_the_baseline_is_refused_with_bounded_memory() {
    for (arg, feed, what) in [
        ("/dev/stdin", Some(endless(0)), "a FIFO"),
        ("/dev/zero", None, "a character device"),
    ] {
        let r = run_bounded(
            doctor_cmd(&["--only", "toolchain.env", "--baseline", arg]),
            feed,
            LIMIT,
            RSS_KB,
        );
        assert_finished(&r);
        assert!(
            r.stderr.contains(what) || r.stdout.contains(what),
            "{arg}: {r:?}"
        );
    }
}

/// `why -`: a symptom line after 20 MiB of filler is recognised (before: only the first 16 MiB
/// were read, "not recognised").
#[test]
fn why_reads_the_whole_stream() {
    let r = run_bounded(
        doctor_cmd(&["--only", "toolchain.env", "why", "--json", "-"]),
        Some(Box::new(|mut w: ChildStdin| {
            let line = b"make[2]: building object 0000 of a very large project, nothing to see\n";
            let mut chunk = Vec::new();
            while chunk.len() < 1 << 20 {
                chunk.extend_from_slice(line);
            }
            for _ in 0..20 {
                if w.write_all(&chunk).is_err() {
                    return;
                }
            }
            let _ = w.write_all(
                b"\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"\n",
            );
        })),
        LIMIT,
        RSS_KB,
    );
    assert_finished(&r);
    let doc: serde_json::Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {r:?}"));
    let rec = doc["recognised"].as_array().cloned().unwrap_or_default();
    assert!(!rec.is_empty(), "{r:?}");
    assert!(r.stderr.contains("beyond the first 16 MiB"), "{r:?}");
}

/// `why -` on a stdin that never ends (a stalled pipe): the deadline ends the doctor's own
/// wait, naming it, with the exit code of a run that could not decide (before: for ever).
#[test]
fn the_deadline_ends_a_stalled_read() {
    let r = run_bounded(
        doctor_cmd(&["--deadline", "2", "why", "-"]),
        Some(silent(60)),
        Duration::from_secs(30),
        RSS_KB,
    );
    assert_finished(&r);
    assert_eq!(r.code, Some(1), "{r:?}");
    assert!(r.stderr.contains("--deadline"), "{r:?}");
    assert!(r.stderr.contains("standard input"), "{r:?}");
    let r = run_bounded(
        doctor_cmd(&["--npd", "--deadline", "2", "why", "-"]),
        Some(silent(60)),
        Duration::from_secs(30),
        RSS_KB,
    );
    assert_finished(&r);
    assert_eq!(r.code, Some(2), "--npd: Unknown, never NonOK: {r:?}");
    assert!(r.stdout.starts_with("UNKNOWN"), "{r:?}");
}

/// An uncompressed offload bundle of `size` bytes (sparse) whose `n` entries are spread over
/// the whole file, so that reading them touches every part of it.
fn spread_bundle(p: &Path, n: u64, size: u64) {
    let id = b"hipv4-amdgcn-amd-amdhsa--gfx90a";
    let mut b = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    b.extend_from_slice(&n.to_le_bytes());
    let table = 24 + 8 + n * (24 + id.len() as u64);
    let step = (size - table) / n;
    for i in 0..n {
        b.extend_from_slice(&(table + i * step).to_le_bytes());
        b.extend_from_slice(&4096u64.to_le_bytes());
        b.extend_from_slice(&(id.len() as u64).to_le_bytes());
        b.extend_from_slice(id);
    }
    let mut f = std::fs::File::create(p).unwrap();
    f.write_all(&b).unwrap();
    f.set_len(size).unwrap();
}

/// A file truncated while `inspect` maps it: no SIGBUS, and the report says the file shrank
/// (before: killed by SIGBUS on every try).
#[test]
fn a_file_shrinking_under_inspect_is_no_sigbus() {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("big.bin");
    let mut shrank = 0;
    for delay_ms in [100u64, 200, 300, 400, 600] {
        spread_bundle(&p, 20_000, 256 << 20);
        let c = doctor_cmd(&["inspect", "--json", p.to_str().unwrap()]);
        let path = p.clone();
        let cutter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(delay_ms));
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(4096)
                .unwrap();
        });
        let r = run_bounded(c, None, LIMIT, 1 << 20);
        cutter.join().unwrap();
        assert_finished(&r);
        if r.stdout.contains("the file shrank while it was read") {
            shrank += 1;
        }
    }
    eprintln!("{shrank} of 5 runs saw the file shrink while mapped");
}

/// A 250 KB ELF whose `.hip_fatbin` holds 16 CCOB bundles of 512 MiB of zeros each (8 GiB in
/// all): decompression stops at the per-file cap, says "capped", and memory stays bounded by
/// one bundle (before: all 8 GiB decompressed, nothing said).
#[test]
fn a_decompression_bomb_is_capped() {
    let Some(clang) = common::need_tool("clang-15") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let unc: u64 = 512 << 20;
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..(unc >> 20) {
        enc.write_all(&zeros).unwrap();
    }
    let z = enc.finish().unwrap();
    let mut one = b"CCOB".to_vec();
    one.extend_from_slice(&3u16.to_le_bytes());
    one.extend_from_slice(&1u16.to_le_bytes());
    one.extend_from_slice(&(32 + z.len() as u64).to_le_bytes());
    one.extend_from_slice(&unc.to_le_bytes());
    one.extend_from_slice(&0u64.to_le_bytes());
    one.extend_from_slice(&z);
    one.resize(one.len().div_ceil(4096) * 4096, 0);
    let bin = t.path().join("bomb.bin");
    std::fs::write(&bin, one.repeat(16)).unwrap();
    let s = t.path().join("bomb.s");
    std::fs::write(
        &s,
        format!(
            ".section .hip_fatbin,\"a\",@progbits\n.p2align 12\n.incbin \"{}\"\n",
            bin.display()
        ),
    )
    .unwrap();
    let o = t.path().join("bomb.o");
    let st = Command::new(clang)
        .args(["-c", s.to_str().unwrap(), "-o", o.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(st.success());
    assert!(std::fs::metadata(&o).unwrap().len() < 1 << 20);
    let r = run_bounded(
        doctor_cmd(&["inspect", "--json", o.to_str().unwrap()]),
        None,
        Duration::from_secs(180),
        1536 * 1024,
    );
    assert_finished(&r);
    assert!(r.stdout.contains("decompression capped"), "{r:?}");
    assert!(r.stdout.contains("not decompressed (capped)"), "{r:?}");
}
