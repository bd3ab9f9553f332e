//! Table tests for the GPU checks' judging, in process: a fixture sysroot from
//! `tests/fixtures/sysroots` (its `.rocm-doctor-fixture.toml` manifest supplies what a tree cannot
//! hold: device nodes, the identity judged as, failing reads; `src/gpu/fixture.rs`) plus
//! environment pairs, run through one check function. No child process is started: a fixture
//! root has no PATH, so the inventory finds no clang and the checks judge files only.

use super::*;
use crate::checks::{AsmSlot, Ctx};
use crate::config::Config;
use crate::host::{Env, Host, Limits};
use crate::inventory::Inventory;
use crate::report::{Finding, Status};
use std::path::Path;
use std::time::Duration;

/// The findings of `check` on fixture `name` (or [`NO_GPU`]) with environment `env` and `profile`.
pub(crate) fn judge(
    name: &str,
    env: &[(&str, &str)],
    profile: Profile,
    check: CheckFn,
) -> Vec<Finding> {
    // An empty root: a machine without any GPU (removed when the test ends).
    let empty = tempfile::tempdir().expect("temp dir");
    let root = if name == NO_GPU {
        empty.path().to_path_buf()
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/sysroots")
            .join(name)
    };
    assert!(root.is_dir(), "no fixture {}", root.display());
    let host = Host::new(
        root,
        Env::from_pairs(env.iter().copied()),
        Limits::new(Duration::from_secs(5), Duration::from_secs(20)),
    );
    let mut cfg = Config::default_for_tests();
    cfg.profile = profile;
    let inv = Inventory::new(&host, &cfg);
    let asm = AsmSlot::new();
    let ctx = Ctx {
        host: &host,
        inv: &inv,
        cfg: &cfg,
        asm: &asm,
    };
    check(&ctx)
}

/// One row: a fixture and environment, and the verdicts expected, in order, each as a status
/// and a fragment of the summary.
struct Row {
    fixture: &'static str,
    env: &'static [(&'static str, &'static str)],
    profile: Profile,
    expect: &'static [(Status, &'static str)],
}

const fn row(
    fixture: &'static str,
    env: &'static [(&'static str, &'static str)],
    expect: &'static [(Status, &'static str)],
) -> Row {
    Row {
        fixture,
        env,
        profile: Profile::Auto,
        expect,
    }
}

fn check_table(name: &str, check: CheckFn, rows: &[Row]) {
    for r in rows {
        let got = judge(r.fixture, r.env, r.profile, check);
        let shown: Vec<(Status, &str)> =
            got.iter().map(|f| (f.status, f.summary.as_str())).collect();
        assert_eq!(
            got.len(),
            r.expect.len(),
            "{name} on {} with {:?}: {shown:#?}",
            r.fixture,
            r.env
        );
        for (f, (status, fragment)) in got.iter().zip(r.expect) {
            assert!(
                f.status == *status && f.summary.contains(fragment),
                "{name} on {} with {:?}: expected {status:?} containing {fragment:?}, got {shown:#?}",
                r.fixture,
                r.env
            );
            if matches!(f.status, Status::Warn | Status::Fail) {
                assert!(
                    f.fix.is_some(),
                    "{name}: a problem without a fix: {}",
                    f.summary
                );
            }
        }
    }
}

/// The fix's environment assignments of the finding that contains `fragment`.
fn fix_env(fs: &[Finding], fragment: &str) -> Vec<(String, String)> {
    let f = fs
        .iter()
        .find(|f| f.summary.contains(fragment))
        .unwrap_or_else(|| panic!("no finding with {fragment:?}"));
    f.fix
        .as_ref()
        .map(|x| x.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

fn fix_commands(fs: &[Finding], fragment: &str) -> Vec<String> {
    let f = fs
        .iter()
        .find(|f| f.summary.contains(fragment))
        .unwrap_or_else(|| panic!("no finding with {fragment:?}"));
    f.fix
        .as_ref()
        .map(|x| x.commands.clone())
        .unwrap_or_default()
}

const MIXED: &str = "gfx1036-igpu-gfx1031-dgpu";
const DGPU: &str = "gfx1030-dgpu";
/// Not a fixture: an empty directory, a machine without a GPU.
const NO_GPU: &str = "(empty root)";

#[test]
fn visibility_table() {
    use Status::*;
    check_table(
        "gpu.visibility",
        visibility::visibility,
        &[
            // The iGPU is HIP device 0 on a mixed machine unless something selects the dGPU.
            row(
                MIXED,
                &[],
                &[(
                    Warn,
                    "HIP sees the integrated GPU gfx1036 next to the discrete GPU(s) gfx1031",
                )],
            ),
            row(
                MIXED,
                &[("HIP_VISIBLE_DEVICES", "1")],
                &[(Pass, "HIP sees 0=node 2 gfx1031")],
            ),
            row(
                MIXED,
                &[("ROCR_VISIBLE_DEVICES", "1")],
                &[(Pass, "HIP sees 0=node 2 gfx1031")],
            ),
            // An index past the end hides everything.
            row(
                MIXED,
                &[("HIP_VISIBLE_DEVICES", "5")],
                &[(Fail, "hide every GPU")],
            ),
            row(
                DGPU,
                &[("CUDA_VISIBLE_DEVICES", "3")],
                &[(Fail, "hide every GPU")],
            ),
            row(DGPU, &[], &[(Pass, "HIP sees 0=node 1 gfx1030")]),
            row(
                DGPU,
                &[("HIP_VISIBLE_DEVICES", "0")],
                &[(Pass, "HIP sees 0=node 1 gfx1030")],
            ),
            // Variables on a machine without a GPU: a skip that names them, not a failure.
            row(
                NO_GPU,
                &[("HIP_VISIBLE_DEVICES", "0")],
                &[(Skip, "visibility variables are set but there is no GPU")],
            ),
            row(NO_GPU, &[], &[(Skip, "no GPU")]),
        ],
    );
    // The fixes: select the dGPU by its index in ROCr's list; with no dGPU/iGPU choice, unset.
    let f = judge(MIXED, &[], Profile::Auto, visibility::visibility);
    assert_eq!(
        fix_env(&f, "integrated"),
        [("ROCR_VISIBLE_DEVICES".to_string(), "1".to_string())]
    );
    let f = judge(
        MIXED,
        &[("HIP_VISIBLE_DEVICES", "5")],
        Profile::Auto,
        visibility::visibility,
    );
    assert_eq!(
        fix_env(&f, "hide every GPU"),
        [("ROCR_VISIBLE_DEVICES".to_string(), "1".to_string())]
    );
    assert_eq!(
        fix_commands(&f, "hide every GPU"),
        ["unset HIP_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES"]
    );
    let f = judge(
        DGPU,
        &[("CUDA_VISIBLE_DEVICES", "3")],
        Profile::Auto,
        visibility::visibility,
    );
    assert!(fix_env(&f, "hide every GPU").is_empty());
    assert_eq!(
        fix_commands(&f, "hide every GPU"),
        ["unset ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES"]
    );
}

#[test]
fn overrides_table() {
    use Status::*;
    const OVR: &str = "HSA_OVERRIDE_GFX_VERSION";
    check_table(
        "gpu.overrides",
        overrides::overrides,
        &[
            row(DGPU, &[], &[(Pass, "no HSA_OVERRIDE_GFX_VERSION")]),
            row(
                DGPU,
                &[(OVR, "10.3.0")],
                &[(Warn, "repeats the GPU's own ISA")],
            ),
            // gfx1031 code on gfx1030: same generic family.
            row(
                DGPU,
                &[(OVR, "10.3.1")],
                &[(Pass, "an ISA-compatible sibling")],
            ),
            row(DGPU, &[(OVR, "9.0.0")], &[(Fail, "crosses GPU families")]),
            row(
                DGPU,
                &[(OVR, "10.1.0")],
                &[(
                    Warn,
                    "share a major version but not an ISA-compatible generic family",
                )],
            ),
            row(DGPU, &[(OVR, "ten")], &[(Fail, "is invalid")]),
            row(
                DGPU,
                &[("HSA_OVERRIDE_GFX_VERSION_7", "10.3.0")],
                &[(Warn, "names no GPU node")],
            ),
            // One global value on a mixed machine: each GPU judged, plus the advice to split it.
            row(
                MIXED,
                &[(OVR, "10.3.0")],
                &[
                    (Pass, "node 1 (gfx1036)"),
                    (Warn, "one global HSA_OVERRIDE_GFX_VERSION"),
                    (Pass, "node 2 (gfx1031)"),
                ],
            ),
            row(
                NO_GPU,
                &[(OVR, "10.3.0")],
                &[(Skip, "well-formed (gfx1030) but there is no GPU")],
            ),
            row(NO_GPU, &[(OVR, "x")], &[(Warn, "is invalid")]),
        ],
    );
    let f = judge(
        MIXED,
        &[(OVR, "10.3.0")],
        Profile::Auto,
        overrides::overrides,
    );
    let mut env = fix_env(&f, "one global");
    env.sort();
    assert_eq!(
        env,
        [
            (
                "HSA_OVERRIDE_GFX_VERSION_1".to_string(),
                "10.3.0".to_string()
            ),
            (
                "HSA_OVERRIDE_GFX_VERSION_2".to_string(),
                "10.3.0".to_string()
            )
        ]
    );
    assert_eq!(
        fix_commands(&f, "one global"),
        ["unset HSA_OVERRIDE_GFX_VERSION"]
    );
}

#[test]
fn kfd_table() {
    use Status::*;
    check_table(
        "gpu.kfd",
        kfd::kfd,
        &[
            row(DGPU, &[], &[(Pass, "/dev/kfd opens read-write")]),
            row(
                "kfd-group-missing",
                &[],
                &[(Fail, "cannot open /dev/kfd read-write (EACCES)")],
            ),
            row(
                "container-no-devices",
                &[],
                &[(Fail, "/dev/kfd does not exist")],
            ),
            // A capture without a manifest says what it cannot judge.
            row(
                "k8s-vega10-gfx900",
                &[],
                &[(Skip, "does not describe device nodes")],
            ),
            row(
                NO_GPU,
                &[],
                &[(Skip, "use --profile runtime to require one")],
            ),
            Row {
                profile: Profile::Build,
                ..row(
                    NO_GPU,
                    &[],
                    &[(Skip, "the build profile does not need one")],
                )
            },
            Row {
                profile: Profile::Runtime,
                ..row(NO_GPU, &[], &[(Fail, "no usable GPU")])
            },
            row("wsl", &[], &[(Skip, "WSL")]),
        ],
    );
    // The group that owns the node, by name from the fixture's /etc/group.
    let f = judge("kfd-group-missing", &[], Profile::Auto, kfd::kfd);
    assert_eq!(
        fix_commands(&f, "EACCES"),
        ["sudo usermod -aG render $USER"]
    );
    let f = judge("container-no-devices", &[], Profile::Auto, kfd::kfd);
    assert!(fix_commands(&f, "does not exist")[0].contains("--device=/dev/kfd"));
}

#[test]
fn xnack_table() {
    use Status::*;
    check_table(
        "gpu.xnack",
        xnack::xnack,
        &[
            row(
                "gfx90c-apu",
                &[],
                &[(Pass, "the kernel's default (HSA_XNACK unset)")],
            ),
            row(
                "gfx90c-apu",
                &[("HSA_XNACK", "1")],
                &[(Pass, "on (HSA_XNACK=1)")],
            ),
            row(
                "gfx90c-apu",
                &[("HSA_XNACK", "0")],
                &[(Pass, "off (HSA_XNACK=0)")],
            ),
            // ROCr reads only "0" and "1".
            row(
                "gfx90c-apu",
                &[("HSA_XNACK", "yes")],
                &[(Warn, "is ignored")],
            ),
            // gfx1030 has no XNACK.
            row(
                DGPU,
                &[("HSA_XNACK", "1")],
                &[(Warn, "no GPU here supports XNACK")],
            ),
            row(NO_GPU, &[("HSA_XNACK", "1")], &[(Skip, "no GPU to judge")]),
        ],
    );
}

#[test]
fn agents_table() {
    use Status::*;
    check_table(
        "gpu.agents",
        agents::agents,
        &[
            row(
                DGPU,
                &[],
                &[(Pass, "1 GPU agent(s) in KFD"), (Pass, "knows gfx1030")],
            ),
            Row {
                profile: Profile::Runtime,
                ..row(NO_GPU, &[], &[(Fail, "no usable GPU")])
            },
        ],
    );
}
