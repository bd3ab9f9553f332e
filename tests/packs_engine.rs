//! Check packs: the format's errors (file:line:column, did-you-mean), hostile packs, where packs
//! come from, and each probe kind against real files, the real toolchain and GPU fixtures.

use crate::common::*;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysroots")
        .join(name)
}

/// Writes a pack file (mode 0644, owned by us) and returns its path.
fn pack(dir: &Path, name: &str, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
    p
}

fn lint(p: &Path) -> (i32, String) {
    let out = doctor().args(["checks", "lint"]).arg(p).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

const HEAD: &str = "[pack]\nname = \"site\"\nversion = \"1\"\nsource = \"tests\"\n";

fn one_check(probe: &str, rules: &str) -> String {
    format!(
        "{HEAD}\n[[check]]\nid = \"site.c\"\ntitle = \"t\"\nwhat = \"w\"\nwhy = \"y\"\nfix = \"f\"\n\n{probe}\n{rules}"
    )
}

/// Runs one pack check and returns its finding.
fn run_pack(p: &Path, id: &str, extra: &[&str], env: &[(&str, &str)]) -> serde_json::Value {
    let mut c = doctor();
    c.args(["--json", "--only", id, "--checks"])
        .arg(p)
        .args(extra);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    let doc = json_of(&out);
    let f = findings(&doc, id);
    assert_eq!(f.len(), 1, "{doc:#}");
    f[0].clone()
}

#[test]
fn unknown_keys_give_line_column_and_did_you_mean() {
    let t = pack_dir();
    let text = one_check(
        "[[check.probe]]\nname = \"a\"\nkind = \"env\"\nvar = \"X\"\n",
        "[[check.rule]]\nstatus = \"pass\"\nmesage = \"hi\"\n",
    );
    let p = pack(t.path(), "typo.toml", &text);
    let (code, out) = lint(&p);
    assert_eq!(code, 1, "{out}");
    let line = text.lines().position(|l| l.starts_with("mesage")).unwrap() + 1;
    assert!(
        out.contains(&format!("typo.toml:{line}:1: unknown field `mesage`"))
            && out.contains("did you mean `message`?"),
        "{out}"
    );
}

#[test]
fn misspelt_enums_and_wrong_types_are_located() {
    let t = pack_dir();
    let text = one_check(
        "[[check.probe]]\nname = \"a\"\nkind = \"evn\"\nvar = \"X\"\n",
        "[[check.rule]]\nstatus = \"pass\"\nmessage = \"hi\"\n",
    );
    let (code, out) = lint(&pack(t.path(), "enum.toml", &text));
    let line = text.lines().position(|l| l.contains("\"evn\"")).unwrap() + 1;
    assert_eq!(code, 1);
    assert!(
        out.contains(&format!("enum.toml:{line}:8:")) && out.contains("did you mean `env`?"),
        "{out}"
    );

    let text = one_check(
        "[[check.probe]]\nname = \"a\"\nkind = \"command\"\nargv = [\"true\"]\ntimeout = \"5\"\n",
        "[[check.rule]]\nstatus = \"pass\"\nmessage = \"hi\"\n",
    );
    let (code, out) = lint(&pack(t.path(), "type.toml", &text));
    let line = text.lines().position(|l| l.starts_with("timeout")).unwrap() + 1;
    assert_eq!(code, 1);
    assert!(
        out.contains(&format!("type.toml:{line}:")) && out.contains("invalid type: string"),
        "{out}"
    );
}

#[test]
fn semantic_errors_name_the_place() {
    let t = pack_dir();
    let text = one_check(
        "[[check.probe]]\nname = \"arch\"\nkind = \"env\"\nvar = \"X\"\nregex = 'v(\\d+)'\n\n[[check.probe]]\nname = \"f\"\nkind = \"fact\"\nfact = \"gpu.isa\"\n",
        "[[check.rule]]\nif = [\"!acrh.found\"]\nstatus = \"fail\"\nmessage = \"bad {arch.2}\"\n",
    );
    let (code, out) = lint(&pack(t.path(), "sem.toml", &text));
    assert_eq!(code, 1, "{out}");
    let at = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    assert!(
        out.contains(&format!("sem.toml:{}:", at("gpu.isa\"")))
            && out.contains("did you mean `gpu.isas`?"),
        "{out}"
    );
    assert!(
        out.contains(&format!("sem.toml:{}:", at("acrh"))) && out.contains("did you mean `arch`?"),
        "{out}"
    );
    assert!(
        out.contains(&format!("sem.toml:{}:", at("bad {arch.2}")))
            && out.contains("no such capture group"),
        "{out}"
    );
}

#[test]
fn huge_and_deeply_nested_packs_are_refused_quickly() {
    let t = pack_dir();
    let huge = format!("{HEAD}# {}\n", "x".repeat(400 * 1024));
    let (code, out) = lint(&pack(t.path(), "huge.toml", &huge));
    assert_eq!(code, 1);
    assert!(out.contains("at most 262144"), "{out}");

    let deep = format!("{HEAD}x = {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let (code, out) = lint(&pack(t.path(), "deep.toml", &deep));
    assert_eq!(code, 1);
    assert!(
        out.contains("deep.toml:5:") && out.contains("nest deeper than 16"),
        "{out}"
    );

    let many: String = (0..300)
        .map(|i| format!("\n[[check]]\nid = \"site.c{i}\"\ntitle = \"t\"\nwhat = \"w\"\nwhy = \"y\"\nfix = \"f\"\n[[check.rule]]\nstatus = \"pass\"\nmessage = \"m\"\n"))
        .collect();
    let (code, out) = lint(&pack(t.path(), "many.toml", &format!("{HEAD}{many}")));
    assert_eq!(code, 1);
    assert!(
        out.contains("300 checks; a pack may have at most 256"),
        "{out}"
    );
}

#[test]
fn regex_bombs_are_rejected_or_run_in_linear_time() {
    let t = pack_dir();
    // Too big to compile within the size limit: a clear error, not minutes of work.
    let text = one_check(
        "[[check.probe]]\nname = \"a\"\nkind = \"env\"\nvar = \"X\"\nregex = '((((a{100}){100}){100}){100})'\n",
        "[[check.rule]]\nstatus = \"pass\"\nmessage = \"m\"\n",
    );
    let (code, out) = lint(&pack(t.path(), "bomb.toml", &text));
    assert_eq!(code, 1);
    assert!(
        out.contains("bad regex") && out.contains("size limit"),
        "{out}"
    );
    // Catastrophic backtracking in other engines: linear here, on a long hostile value.
    let text = one_check(
        "[[check.probe]]\nname = \"a\"\nkind = \"env\"\nvar = \"X\"\nregex = '^(x+x+)+y$'\n",
        "[[check.rule]]\nif = [\"a\"]\nstatus = \"fail\"\nmessage = \"matched\"\n[[check.rule]]\nstatus = \"pass\"\nmessage = \"no match\"\n",
    );
    let p = pack(t.path(), "evil.toml", &text);
    let value = "x".repeat(100_000);
    let f = run_pack(&p, "site.c", &[], &[("X", &value)]);
    assert_eq!(f["status"], "pass", "{f:#}");
    assert_eq!(f["summary"], "no match");
}

#[test]
fn a_hanging_command_is_killed_by_its_timeout() {
    let t = pack_dir();
    let text = one_check(
        "[[check.probe]]\nname = \"slow\"\nkind = \"command\"\nargv = [\"sleep\", \"600\"]\ntimeout = 1\n",
        "[[check.rule]]\nif = [\"!slow.found\"]\nstatus = \"warn\"\nmessage = \"slow did not finish\"\n[[check.rule]]\nstatus = \"pass\"\nmessage = \"done\"\n",
    );
    let p = pack(t.path(), "hang.toml", &text);
    let f = run_pack(&p, "site.c", &[], &[]);
    assert_eq!(f["status"], "warn", "{f:#}");
    let ev = f["evidence"].to_string();
    assert!(ev.contains("sleep 600") && ev.contains("timed out"), "{ev}");
}

#[test]
fn a_broken_pack_becomes_an_error_finding_and_the_rest_still_runs() {
    let t = pack_dir();
    let p = pack(
        t.path(),
        "broken.toml",
        "[pack]\nname = 'x'\n[[check]]\nid = 3\n",
    );
    let out = doctor()
        .args(["--json", "--only", "toolchain.env,packs", "--checks"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "an error finding fails the run");
    let doc = json_of(&out);
    let f = findings(&doc, "packs.load");
    assert_eq!(f.len(), 1, "{doc:#}");
    assert_eq!(f[0]["status"], "error");
    assert!(f[0]["summary"].as_str().unwrap().contains("broken.toml"));
    assert!(
        f[0]["evidence"].to_string().contains("broken.toml:"),
        "{:#}",
        f[0]
    );
    assert_eq!(
        findings(&doc, "toolchain.env").len(),
        1,
        "built-in checks still ran"
    );
}

#[test]
fn unsafe_pack_files_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let t = pack_dir();
    let text = one_check("", "[[check.rule]]\nstatus = \"pass\"\nmessage = \"m\"\n");
    let p = pack(t.path(), "ww.toml", &text);
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o666)).unwrap();
    let (code, out) = lint(&p);
    assert_eq!(code, 1);
    assert!(
        out.contains("mode 666") && out.contains("chmod go-w"),
        "{out}"
    );
    if nix::unistd::geteuid().is_root() {
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::os::unix::fs::chown(&p, Some(4321), None).unwrap();
        let (code, out) = lint(&p);
        assert_eq!(code, 1);
        assert!(out.contains("owned by uid 4321"), "{out}");
        // In a run it is an error finding, not a crash, and the check is absent.
        let out = doctor()
            .args(["--list-checks", "--checks"])
            .arg(&p)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("NOT LOADED") && !text.contains("site.c "),
            "{text}"
        );
    }
}

#[test]
fn packs_come_from_xdg_config_and_show_their_origin() {
    let t = pack_dir();
    let d = t.path().join("rocm-doctor/checks.d");
    std::fs::create_dir_all(&d).unwrap();
    let text = one_check(
        "[[check.probe]]\nname = \"a\"\nkind = \"env\"\nvar = \"SITE_VAR\"\nregex = '^v(?P<major>\\d+)'\n",
        "[[check.rule]]\nif = [\"a\"]\nstatus = \"warn\"\nmessage = \"site major {a.major}\"\nfix = \"unset SITE_VAR ({a})\"\n[[check.rule]]\nstatus = \"pass\"\nmessage = \"fine\"\n",
    );
    let p = pack(&d, "site.toml", &text);
    let out = doctor()
        .arg("--list-checks")
        .env("XDG_CONFIG_HOME", t.path())
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(
        list.contains("site.c") && list.contains(&p.display().to_string()),
        "{list}"
    );
    let out = doctor()
        .args(["explain", "site.c"])
        .env("XDG_CONFIG_HOME", t.path())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("from check pack {}", p.display()))
    );
    // The env probe's named capture fills the message and the fix.
    let out = doctor()
        .args(["--json", "--only", "site.c"])
        .env("XDG_CONFIG_HOME", t.path())
        .env("SITE_VAR", "v7.1")
        .output()
        .unwrap();
    let doc = json_of(&out);
    let f = findings(&doc, "site.c")[0];
    assert_eq!(f["status"], "warn");
    assert_eq!(f["summary"], "site major 7");
    assert_eq!(f["fix"]["text"], "unset SITE_VAR (v7.1)");
    // HOME alone: ~/.config is used; neither: nothing to read, no error.
    let out = doctor()
        .arg("--list-checks")
        .env("HOME", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("NOT LOADED"));
}

#[test]
fn file_glob_and_kfd_probes_read_the_sysroot() {
    let t = pack_dir();
    let text = format!(
        "{HEAD}
[[check]]
id = \"site.kfd\"
title = \"t\"
what = \"w\"
why = \"y\"
fix = \"f\"
[check.when]
isa_family = [\"gfx10\"]
[[check.probe]]
name = \"gtv\"
kind = \"kfd\"
property = \"gfx_target_version\"
[[check.probe]]
name = \"os\"
kind = \"file\"
path = \"/proc/sys/kernel/osrelease\"
read = true
regex = '^(?P<major>\\d+)\\.'
[[check.probe]]
name = \"cards\"
kind = \"glob\"
path = \"/sys/class/drm/card*\"
[[check.probe]]
name = \"isas\"
kind = \"fact\"
fact = \"gpu.isas\"
[[check.rule]]
if = [\"gtv\", \"os\", \"cards\"]
status = \"pass\"
message = \"gfx_target_version {{gtv}} on {{isas}}, kernel {{os.major}}, {{cards.count}} card(s): {{cards}}\"
"
    );
    let p = pack(t.path(), "kfd.toml", &text);
    let f = run_pack(
        &p,
        "site.kfd",
        &["--sysroot", fixture("gfx1030-dgpu").to_str().unwrap()],
        &[],
    );
    assert_eq!(f["status"], "pass", "{f:#}");
    let kernel =
        std::fs::read_to_string(fixture("gfx1030-dgpu/proc/sys/kernel/osrelease")).unwrap();
    let major = kernel.split('.').next().unwrap();
    assert_eq!(
        f["summary"],
        format!(
            "gfx_target_version 100300 on gfx1030, kernel {major}, 1 card(s): /sys/class/drm/card0"
        )
    );
    // The same pack on a machine without that GPU family does not apply.
    let f = run_pack(
        &p,
        "site.kfd",
        &["--sysroot", fixture("k8s-vega10-gfx900").to_str().unwrap()],
        &[],
    );
    assert_eq!(f["status"], "skip");
    assert!(
        f["summary"]
            .as_str()
            .unwrap()
            .contains("no GPU of family gfx10"),
        "{f:#}"
    );
}

#[test]
fn command_library_and_version_probes_use_the_real_toolchain() {
    let Some(clang) = need_tool("clang-15") else {
        return;
    };
    if need_tool("hipcc").is_none() {
        return;
    }
    let t = pack_dir();
    let text = format!(
        "{HEAD}
[[check]]
id = \"site.tools\"
title = \"t\"
what = \"w\"
why = \"y\"
fix = \"f\"
[check.when]
component = \"amdhip64\"
versions = \">=5.0, <7\"
[[check.probe]]
name = \"cc\"
kind = \"command\"
argv = [\"{}\", \"--version\"]
regex = 'clang version (?P<v>\\d+)\\.'
[[check.probe]]
name = \"hip\"
kind = \"library\"
library = \"amdhip64\"
regex = '^(\\d+\\.\\d+)'
[[check.probe]]
name = \"root\"
kind = \"fact\"
fact = \"hip.version\"
regex = '^(\\d+\\.\\d+)'
subset_of = \"hip\"
[[check.rule]]
if = [\"cc\", \"hip\", \"root\"]
status = \"pass\"
message = \"clang {{cc.v}}, libamdhip64 {{hip}} agrees with the root's HIP {{root}}\"
[[check.rule]]
status = \"fail\"
message = \"cc={{cc}} hip={{hip}} root={{root}} missing={{root.missing}}\"
",
        clang.display()
    );
    let p = pack(t.path(), "tools.toml", &text);
    let f = run_pack(&p, "site.tools", &[], &[]);
    let real = std::fs::canonicalize("/usr/lib/x86_64-linux-gnu/libamdhip64.so").unwrap();
    let v = real
        .file_name()
        .unwrap()
        .to_string_lossy()
        .trim_start_matches("libamdhip64.so.")
        .to_string();
    assert_eq!(f["status"], "pass", "{f:#}");
    assert_eq!(
        f["summary"],
        format!("clang 15, libamdhip64 {v} agrees with the root's HIP {v}")
    );
}

#[test]
fn globs_support_double_star_classes_and_braces_and_survive_loops() {
    use std::os::unix::fs::symlink;
    let t = pack_dir();
    let root = t.path().join("root");
    let touch = |rel: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, b"x").unwrap();
    };
    touch("usr/lib/x86_64-linux-gnu/cmake/hip-lang/hip-lang-config.cmake");
    touch("opt/rocm-6.2.0/lib/libamdhip64.so.6");
    touch("opt/rocm-6.2.0/lib/llvm/lib/libLLVM.so");
    touch("opt/rocm-dev/lib/libamdhip64.so.6");
    touch("opt/amd/lib/x.so");
    touch("opt/rocm-6.2.0/.cache/hidden.so");
    // A loop (a link to its own parent) and a link to a directory: `**` follows neither.
    symlink("..", root.join("opt/rocm-6.2.0/lib/loop")).unwrap();
    symlink("/opt/amd", root.join("opt/amd-link")).unwrap();
    // 21 levels: beyond the walk's depth bound of 16; a file at level 10 is within it.
    let mut deep = String::from("opt/deep");
    for i in 0..21 {
        deep.push_str(&format!("/d{i}"));
        if i == 9 {
            touch(&format!("{deep}/ten.so"));
        }
    }
    touch(&format!("{deep}/far.so"));
    let probe = |name: &str, path: &str| {
        format!("[[check.probe]]\nname = \"{name}\"\nkind = \"glob\"\npath = '{path}'\n")
    };
    let text = one_check(
        &[
            probe("so", "/opt/**/*.so*"),
            probe("cm", "/{usr,opt}/lib{,/x86_64-linux-gnu}/cmake/hip-lang/*.cmake"),
            probe("cls", "/opt/rocm-[0-9]*/lib/libamdhip64.so.[0-9]"),
            probe("neg", "/opt/rocm-[!0-9]*/lib/libamdhip64.so.?"),
            probe("ten", "/opt/deep/**/ten.so"),
            probe("far", "/opt/deep/**/far.so"),
        ]
        .concat(),
        "[[check.rule]]\nstatus = \"pass\"\nmessage = \"{so.count} {cm.count} {cls.count} {neg.count} {ten.count} {far.count}: {cls} {neg}\"\n",
    );
    let p = pack(t.path(), "g.toml", &text);
    let f = run_pack(&p, "site.c", &["--sysroot", root.to_str().unwrap()], &[]);
    assert_eq!(
        f["summary"],
        "5 1 1 1 1 0: /opt/rocm-6.2.0/lib/libamdhip64.so.6 /opt/rocm-dev/lib/libamdhip64.so.6",
        "{f:#}"
    );
    // Five shared objects (ten.so among them): none twice through the loop or the link, none
    // hidden or beyond the depth bound (far.so).
    let ev = f["evidence"].to_string();
    assert!(ev.contains("so: /opt/amd/lib/x.so"), "{ev}");
    // Bad patterns are load errors with their place.
    for (bad, want) in [
        ("/x/[abc", "unclosed '['"),
        ("/x/{a,b", "unclosed '{'"),
        ("/x/{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}", "more than 64"),
        ("relative/*", "must be an absolute path"),
    ] {
        let p = pack(
            t.path(),
            "bad.toml",
            &one_check(
                &probe("g", bad),
                "[[check.rule]]\nstatus = \"pass\"\nmessage = \"m\"\n",
            ),
        );
        let (code, out) = lint(&p);
        assert_eq!(code, 1, "{out}");
        assert!(
            out.contains("bad.toml:") && out.contains(want),
            "{bad}: {out}"
        );
    }
}

#[test]
fn a_symptoms_carried_group_must_exist_and_come_from_its_own_text() {
    let t = pack_dir();
    let sym = |with: &str, text: &str| {
        format!(
            "{HEAD}\n[[symptom]]\nid = \"s\"\ntitle = \"t\"\npatterns = [\"invalid target ID '(?P<isa>[^']*)'\"]\ntext = \"{text}\"\nsource = \"s\"\ncause = \"c\"\nfix = \"f\"\nchecks = [\"targets.isa\"]\nwith = {{ isa = \"{with}\" }}\n"
        )
    };
    let p = pack(
        t.path(),
        "s.toml",
        &sym("isa", "invalid target ID 'gfx1200'"),
    );
    assert_eq!(lint(&p).0, 0, "{}", lint(&p).1);
    let p = pack(
        t.path(),
        "s.toml",
        &sym("iza", "invalid target ID 'gfx1200'"),
    );
    let (code, out) = lint(&p);
    assert_eq!(code, 1);
    assert!(
        out.contains("s.toml:15:16:") && out.contains("did you mean `isa`?"),
        "{out}"
    );
    let p = pack(t.path(), "s.toml", &sym("isa", "invalid target ID ''"));
    let (code, out) = lint(&p);
    assert_eq!(code, 1);
    assert!(out.contains("gives no value for group 'isa'"), "{out}");
}

#[test]
fn a_symptoms_differing_group_must_exist_and_differ_in_its_own_text() {
    let t = pack_dir();
    let sym = |differ: &str, text: &str| {
        format!(
            "{HEAD}\n[[symptom]]\nid = \"s\"\ntitle = \"t\"\npatterns = ['(?P<lib>lib\\w+)\\.so\\.(?P<ver>[\\d.]+)']\ntext = \"{text}\"\nsource = \"s\"\ncause = \"c\"\nfix = \"f\"\nchecks = [\"runtime.load\"]\ndiffer = \"{differ}\"\n"
        )
    };
    let p = pack(t.path(), "s.toml", &sym("ver", "libx.so.1.2 libx.so.1.3"));
    assert_eq!(lint(&p).0, 0, "{}", lint(&p).1);
    let p = pack(t.path(), "s.toml", &sym("vers", "libx.so.1.2 libx.so.1.3"));
    let (code, out) = lint(&p);
    assert_eq!(code, 1);
    assert!(out.contains("differ names group 'vers'"), "{out}");
    let p = pack(t.path(), "s.toml", &sym("ver", "libx.so.1 libx.so.1.3"));
    let (code, out) = lint(&p);
    assert_eq!(code, 1);
    assert!(out.contains("no two matches with different 'ver'"), "{out}");
}

#[test]
fn a_misspelt_check_in_a_symptom_breaks_its_pack_with_file_line_and_a_suggestion() {
    let dir = pack_dir();
    let pack = dir.path().join("site.toml");
    std::fs::write(
        &pack,
        "[pack]\nname = \"site\"\nversion = \"1\"\nsource = \"t\"\ndescription = \"d\"\n\n\
         [[symptom]]\nid = \"site-x\"\ntitle = \"x\"\npatterns = ['boom']\ntext = \"boom\"\n\
         source = \"here\"\ncause = \"c\"\nfix = \"f\"\nchecks = [\"toolchain.lldd\"]\n",
    )
    .unwrap();
    let out = crate::common::doctor()
        .args(["checks", "lint"])
        .arg(&pack)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("site.toml:15:11: symptom 'site-x' names check 'toolchain.lldd'")
            && text.contains("did you mean `toolchain.lld`?"),
        "{text}"
    );
    // In a run the pack is not loaded (a `packs.load` error), never silently half-used.
    let out = crate::common::doctor()
        .arg("--checks")
        .arg(&pack)
        .arg("--list-checks")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("NOT LOADED") && text.contains("toolchain.lldd"),
        "{text}"
    );
}

#[test]
fn pack_checks_are_in_the_generated_docs_and_selectable_with_suggestions() {
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/checks.md"),
    )
    .unwrap();
    for id in [
        "pytorch.rocm-arch",
        "slurm.kfd-cgroup",
        "known-issues.ccob-runtime-too-old",
    ] {
        assert!(
            docs.contains(&format!("### `{id}`")),
            "{id} missing from docs/checks.md"
        );
    }
    let out = crate::common::doctor()
        .args(["--only", "pytorch.rocm-arc"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean `pytorch.rocm-arch`?"), "{err}");
}

#[test]
fn a_rule_may_not_say_error_which_is_the_doctors_own() {
    let dir = pack_dir();
    let pack = dir.path().join("site.toml");
    std::fs::write(
        &pack,
        "[pack]\nname = \"site\"\nversion = \"1\"\nsource = \"t\"\ndescription = \"d\"\n\n\
         [[check]]\nid = \"site.x\"\ntitle = \"x\"\nwhat = \"w\"\nwhy = \"y\"\nfix = \"f\"\n\n\
         [[check.probe]]\nname = \"f\"\nkind = \"glob\"\npath = \"/etc/os-release\"\n\n\
         [[check.rule]]\nstatus = \"error\"\nmessage = \"m\"\n",
    )
    .unwrap();
    let out = crate::common::doctor()
        .args(["checks", "lint"])
        .arg(&pack)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("site.toml:20:10: a rule's status is pass, warn, fail or skip"),
        "{text}"
    );
}
