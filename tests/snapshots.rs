//! Exact-output tests of the screens people read (insta snapshots under tests/snapshots/): the
//! default report, `--asm-caps`, `inspect`, `log`, `why` and `merge`, each on fixed input
//! (fixture machines, a committed real log, a bundle written by the test, the real clang-15
//! assembler). Paths of this checkout are replaced by `[ROOT]` and temp dirs by `[TMP]`. A
//! change to a screen shows as a diff; `INSTA_UPDATE=always cargo test --test integration
//! snapshots` rewrites them for review (`cargo insta review` if installed).

use crate::common::{doctor, fixture, need_tool};
use std::path::Path;

fn screen(args: &[&str], stdin: Option<&str>) -> String {
    let mut c = doctor();
    c.args(["--color", "never"]).args(args);
    if let Some(s) = stdin {
        c.write_stdin(s);
    }
    let out = c.output().unwrap();
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&format!("\n[exit {}]\n", out.status.code().unwrap_or(-1)));
    text
}

fn settings(tmp: Option<&Path>) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s.add_filter(&regex::escape(env!("CARGO_MANIFEST_DIR")), "[ROOT]");
    if let Some(t) = tmp {
        s.add_filter(&regex::escape(&t.display().to_string()), "[TMP]");
    }
    // Timings are not part of a screen's contract.
    s.add_filter(r"\b\d+(\.\d+)? ?(ms|s)\b", "[TIME]");
    s
}

#[test]
fn default_report_of_a_machine_with_an_igpu_and_a_dgpu() {
    let root = fixture("sysroots", "gfx1036-igpu-gfx1031-dgpu");
    let text = screen(
        &[
            "--sysroot",
            root.to_str().unwrap(),
            "--only",
            "gpu.,health.",
            "--skip",
            "gpu.processes",
        ],
        None,
    );
    settings(None).bind(|| insta::assert_snapshot!("default_report_igpu_dgpu", text));
}

/// The GPU lines (`-vv`: a passing finding's evidence): each agent's product from its PCI id
/// and revision, the PCI id, and where the names came from.
#[test]
fn gpu_lines_name_the_products() {
    let root = fixture("sysroots", "gfx1036-igpu-gfx1031-dgpu");
    let text = screen(
        &[
            "-vv",
            "--sysroot",
            root.to_str().unwrap(),
            "--only",
            "gpu.agents",
        ],
        None,
    );
    settings(None).bind(|| insta::assert_snapshot!("gpu_lines_igpu_dgpu", text));
}

#[test]
fn default_report_verbose_of_a_degraded_node() {
    let root = fixture("sysroots", "health-mi210-degraded");
    let text = screen(
        &[
            "-v",
            "--sysroot",
            root.to_str().unwrap(),
            "--only",
            "health.",
        ],
        None,
    );
    settings(None).bind(|| insta::assert_snapshot!("default_report_health_degraded", text));
}

#[test]
fn why_on_a_paste_with_noise_and_a_group_line() {
    // An empty root: the machine's own GPU, kernel log and tools must not change the screen.
    let root = tempfile::tempdir().unwrap();
    let text = screen(
        &[
            "--sysroot",
            root.path().to_str().unwrap(),
            "--only",
            "toolchain.env",
            "why",
            "-",
        ],
        Some(
            "/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or directory\n\
             Unable to open /dev/kfd read-write: Cannot allocate memory\n\
             igor is member of render group\n\
             [    3.548555] kfd kfd: amdgpu: PITCAIRN  not supported in kfd\n",
        ),
    );
    settings(Some(root.path())).bind(|| insta::assert_snapshot!("why_group_line_and_noise", text));
}

#[test]
fn why_on_unrecognised_text() {
    let text = screen(
        &["--only", "toolchain.env", "why", "the printer is on fire"],
        None,
    );
    settings(None).bind(|| insta::assert_snapshot!("why_unrecognised", text));
}

#[test]
fn log_of_the_real_hip_5_7_runtime_failing_to_initialise() {
    let log = fixture("logs", "hip-5.7.1-trixie-level3.log");
    let text = screen(&["log", log.to_str().unwrap()], None);
    settings(None).bind(|| insta::assert_snapshot!("log_hip_5_7_init_failure", text));
}

#[test]
fn inspect_of_a_bundle_without_code_for_the_gpu() {
    use rocm_doctor::codeobj::bundle;
    let t = tempfile::tempdir().unwrap();
    let b = bundle::write(
        &[
            ("host-x86_64-unknown-linux-gnu-", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx1030", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", b""),
        ],
        8,
    );
    let f = t.path().join("kernels.hipfb");
    std::fs::write(&f, &b).unwrap();
    let text = screen(&["--isa", "gfx1100", "inspect", f.to_str().unwrap()], None);
    settings(Some(t.path())).bind(|| insta::assert_snapshot!("inspect_bundle_no_gfx1100", text));
}

#[test]
fn merge_of_two_fixture_nodes() {
    let t = tempfile::tempdir().unwrap();
    for (name, fx) in [("node-a", "gfx1030-dgpu"), ("node-b", "kfd-group-missing")] {
        let out = doctor()
            .args([
                "--json",
                "--profile",
                "runtime",
                "--only",
                "gpu.",
                "--sysroot",
            ])
            .arg(fixture("sysroots", fx))
            .env("ROCM_DOCTOR_HOST", name)
            .output()
            .unwrap();
        std::fs::write(t.path().join(format!("{name}.json")), &out.stdout).unwrap();
    }
    let text = screen(&["merge", t.path().to_str().unwrap()], None);
    settings(Some(t.path())).bind(|| insta::assert_snapshot!("merge_two_nodes", text));
}

#[test]
fn asm_caps_matrix_of_the_real_clang_15() {
    let Some(clang) = need_tool("/usr/lib/llvm-15/bin/clang") else {
        return;
    };
    let text = screen(
        &[
            "--asm-caps",
            "--isa",
            "gfx90a,gfx1030",
            "--only",
            "asm.caps",
            "--assembler",
            clang.to_str().unwrap(),
        ],
        None,
    );
    settings(None).bind(|| insta::assert_snapshot!("asm_caps_clang15", text));
}
