//! Issue 25, item 1. Root never runs another user's pack (or settings file): open once, fstat the descriptor, vet the directories.
//!
//! The files are made by root and then given to `nobody` (uid 65534) with chown, which is what
//! another local user could have made themselves; the cases that need two users are skipped
//! when the tests do not run as root.

use crate::common::{doctor, findings, json_of, pack_dir, write_script};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const NOBODY: u32 = 65534;

/// A pack whose one check, `site.run`, runs `sh -c SCRIPT` (its rule needs the probe, so the
/// command runs whenever the check does).
fn command_pack(script: &str) -> String {
    format!(
        "[pack]\nname = \"site\"\nversion = \"1\"\nsource = \"tests\"\n\n\
         [[check]]\nid = \"site.run\"\ntitle = \"t\"\nwhat = \"w\"\nwhy = \"y\"\nfix = \"f\"\n\n\
         [[check.probe]]\nname = \"cmd\"\nkind = \"command\"\nargv = [\"sh\", \"-c\", {script:?}]\ntimeout = 5\n\n\
         [[check.rule]]\nif = [\"cmd\"]\nstatus = \"pass\"\nmessage = \"ran\"\n\
         [[check.rule]]\nstatus = \"pass\"\nmessage = \"did not run\"\n"
    )
}

fn write(p: &Path, text: &str, mode: u32) {
    std::fs::write(p, text).unwrap();
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn give_to_nobody(p: &Path) {
    std::os::unix::fs::chown(p, Some(NOBODY), Some(NOBODY)).unwrap();
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

fn skip_unless_root() -> bool {
    if !is_root() {
        eprintln!("skipped: needs root to make files of another user");
    }
    !is_root()
}

/// `rocm-doctor --json ARGS` (every check, so a loaded `site.run` runs) with the clean
/// environment plus `env`: the document, and the packs.load findings as one string.
fn run(args: &[&std::ffi::OsStr], env: &[(&str, &Path)]) -> (serde_json::Value, String) {
    let mut c = doctor();
    c.args(["--json", "--timeout", "5"]).args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    let doc = json_of(&out);
    let load = findings(&doc, "packs.load")
        .iter()
        .map(|f| f.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    (doc, load)
}

#[test]
fn a_group_writable_pack_is_refused_even_when_root_owns_it() {
    let t = pack_dir();
    let marker = t.path().join("ran");
    let p = t.path().join("g.toml");
    write(
        &p,
        &command_pack(&format!("touch {}", marker.display())),
        0o664,
    );
    let out = doctor().args(["checks", "lint"]).arg(&p).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("writable by its group or by others (mode 664")
            && text.contains("chmod go-w"),
        "{text}"
    );
    let (doc, load) = run(&["--checks".as_ref(), p.as_os_str()], &[]);
    assert!(load.contains("mode 664"), "{doc:#}");
    assert!(findings(&doc, "site.run").is_empty(), "{doc:#}");
    assert!(!marker.exists(), "the group-writable pack's command ran");
}

#[test]
fn a_root_owned_pack_in_a_directory_of_another_user_is_refused_for_root() {
    if skip_unless_root() {
        return;
    }
    let t = pack_dir();
    let marker = t.path().join("ran");
    let d = t.path().join("theirs");
    std::fs::create_dir(&d).unwrap();
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
    give_to_nobody(&d);
    let p = d.join("p.toml");
    write(
        &p,
        &command_pack(&format!("touch {}", marker.display())),
        0o644,
    );
    for arg in [&p, &d] {
        let (doc, load) = run(&["--checks".as_ref(), arg.as_os_str()], &[]);
        assert!(
            load.contains(&format!(
                "the directory {} on the path is owned by uid {NOBODY}",
                d.display()
            )),
            "{doc:#}"
        );
        assert!(findings(&doc, "site.run").is_empty(), "{doc:#}");
    }
    assert!(!marker.exists(), "root ran a pack from nobody's directory");
    let out = doctor().args(["checks", "lint"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("owned by uid 65534"));
}

#[test]
fn as_root_another_users_xdg_config_is_skipped_with_a_note() {
    if skip_unless_root() {
        return;
    }
    let t = pack_dir();
    let marker = t.path().join("ran");
    // nobody's ~/.config, as `sudo -E` keeps XDG_CONFIG_HOME. The pack itself is root's (as a
    // file left there by an earlier `sudo -E` run is), but nobody may replace it at will.
    let cfg = t.path().join("config");
    let d = cfg.join("rocm-doctor/checks.d");
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join("site.toml");
    write(
        &p,
        &command_pack(&format!("touch {}", marker.display())),
        0o644,
    );
    for x in [&cfg, &cfg.join("rocm-doctor"), &d] {
        give_to_nobody(x);
    }
    let (doc, load) = run(&[], &[("XDG_CONFIG_HOME", &cfg)]);
    assert!(
        !marker.exists(),
        "root ran nobody's pack from XDG_CONFIG_HOME"
    );
    assert!(findings(&doc, "site.run").is_empty(), "{doc:#}");
    assert!(
        load.contains("skipped: as root") && load.contains(&format!("owned by uid {NOBODY}")),
        "the skip is said, not silent: {doc:#}"
    );
    // The same pack is run for root when root owns it all (the rule, not the place, decides).
    for x in [&cfg, &cfg.join("rocm-doctor"), &d, &p] {
        std::os::unix::fs::chown(x, Some(0), Some(0)).unwrap();
    }
    let (doc, _) = run(&[], &[("XDG_CONFIG_HOME", &cfg)]);
    assert_eq!(findings(&doc, "site.run")[0]["summary"], "ran", "{doc:#}");
    assert!(marker.exists());
}

/// THE RACE. nobody owns the directory and flips `p.toml` between a link to root's harmless
/// pack and a link to their own pack, whose command leaves a marker. Root runs the doctor on
/// `p.toml` again and again for 60 s: the marker must never appear. (The code before the fix
/// checked the file with `stat` and read it by path again, and lost within seconds.)
#[test]
fn root_never_runs_a_pack_swapped_under_it_60_s_of_flipping() {
    if skip_unless_root() {
        return;
    }
    let t = pack_dir();
    let marker = t.path().join("attacker-ran");
    let benign = t.path().join("benign.toml");
    write(&benign, &command_pack("true"), 0o644);
    let d = t.path().join("race");
    std::fs::create_dir(&d).unwrap();
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
    give_to_nobody(&d);
    let evil = d.join("evil.toml");
    write(
        &evil,
        &command_pack(&format!("touch {}", marker.display())),
        0o644,
    );
    give_to_nobody(&evil);
    let p = d.join("p.toml");
    std::os::unix::fs::symlink(&benign, &p).unwrap();

    // The adversary: atomic renames of fresh links over p.toml, as fast as it can.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flipper = {
        let (stop, d, p, benign, evil) = (
            stop.clone(),
            d.clone(),
            p.clone(),
            benign.clone(),
            evil.clone(),
        );
        std::thread::spawn(move || {
            let tmp: PathBuf = d.join("p.tmp");
            let mut flips = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                for target in [&benign, &evil] {
                    let _ = std::fs::remove_file(&tmp);
                    if std::os::unix::fs::symlink(target, &tmp).is_ok()
                        && std::fs::rename(&tmp, &p).is_ok()
                    {
                        flips += 1;
                    }
                }
            }
            flips
        })
    };
    let start = Instant::now();
    let mut runs = 0;
    while start.elapsed() < Duration::from_secs(60) && !marker.exists() {
        let out = doctor()
            .args([
                "--json",
                "--timeout",
                "5",
                "--only",
                "site,packs",
                "--checks",
            ])
            .arg(&p)
            .output()
            .unwrap();
        assert!(
            out.status.code().is_some(),
            "the doctor was killed: {out:?}"
        );
        runs += 1;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let flips = flipper.join().unwrap();
    eprintln!(
        "{runs} runs, {flips} flips in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert!(
        !marker.exists(),
        "root ran nobody's pack after {runs} runs ({:.1} s, {flips} flips)",
        start.elapsed().as_secs_f64()
    );
    assert!(
        runs >= 10 && flips >= 1000,
        "too little tried: {runs} runs, {flips} flips"
    );
}

/// The Slurm scripts source their settings file as root: not one that its group may write or
/// that another user owns (they log why and go on with the defaults).
#[test]
fn the_slurm_scripts_do_not_source_a_settings_file_another_user_can_write() {
    let t = pack_dir();
    let marker = t.path().join("sourced");
    let settings = t.path().join("settings");
    // A doctor and an scontrol that do nothing: only the settings matter here.
    let bin = t.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    write_script(&bin.join("rocm-doctor"), "#!/bin/sh\nexit 0\n");
    write_script(&bin.join("scontrol"), "#!/bin/sh\nexit 0\n");
    let script_run = |script: &str| {
        let _ = std::fs::remove_file(&marker);
        let out = std::process::Command::new("/bin/bash")
            .arg(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("contrib/slurm")
                    .join(script),
            )
            .env_clear()
            .env("TMPDIR", std::env::temp_dir())
            .env("ROCM_DOCTOR_CONFIG", &settings)
            .env("ROCM_DOCTOR_SCONTROL", bin.join("scontrol"))
            .env("ROCM_DOCTOR", bin.join("rocm-doctor"))
            .env("SLURMD_NODENAME", "gpu-07")
            .env("SLURM_JOB_ID", "7")
            .output()
            .unwrap();
        (
            marker.exists(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let body = format!("touch {}\n", marker.display());
    for script in ["rocm-doctor-healthcheck.sh", "rocm-doctor-prolog.sh"] {
        // The control: a file only its owner may write is sourced.
        write(&settings, &body, 0o644);
        let (sourced, err) = script_run(script);
        assert!(
            sourced,
            "{script}: a safe settings file was not sourced: {err}"
        );

        write(&settings, &body, 0o664);
        let (sourced, err) = script_run(script);
        assert!(!sourced, "{script} sourced a group-writable settings file");
        assert!(
            err.contains("refused the settings file") && err.contains("mode 664"),
            "{script}: {err}"
        );

        if is_root() {
            write(&settings, &body, 0o644);
            give_to_nobody(&settings);
            let (sourced, err) = script_run(script);
            assert!(!sourced, "{script} sourced nobody's settings file");
            assert!(err.contains("owned by uid 65534"), "{script}: {err}");
            std::os::unix::fs::chown(&settings, Some(0), Some(0)).unwrap();
            // A root-owned file in nobody's directory.
            std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
            give_to_nobody(t.path());
            let (sourced, err) = script_run(script);
            std::os::unix::fs::chown(t.path(), Some(0), Some(0)).unwrap();
            assert!(!sourced, "{script} sourced a file in nobody's directory");
            assert!(
                err.contains("its directory") && err.contains("uid 65534"),
                "{script}: {err}"
            );
        }
    }
}
