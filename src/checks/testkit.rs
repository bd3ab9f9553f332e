//! The in-process table-test harness of every check family: a fixture tree from
//! `tests/fixtures` (a sysroot's `.rocm-doctor-fixture.toml` manifest supplies what a tree cannot
//! hold: device nodes, the identity judged as, failing reads; `src/gpu/fixture.rs`) plus
//! environment pairs and a configuration, run through one check function. No child process is
//! started unless the environment names a PATH: a fixture root has none, so the inventory finds no
//! clang and the checks judge files only. Each family's rows live beside it
//! (`src/checks/<family>/tests.rs` or `src/checks/tests/<family>.rs`).

use super::{AsmSlot, CheckFn, Ctx};
use crate::config::{Config, Profile};
use crate::host::{Env, Host, Limits};
use crate::inventory::Inventory;
use crate::report::{Finding, Status};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Not a fixture: an empty directory, a machine without a GPU, a toolchain or a kernel log.
pub(crate) const NO_GPU: &str = "(empty root)";

/// The root of fixture `name`: under `tests/fixtures/sysroots`, or under `tests/fixtures` when
/// the name has a `/` (`toolchains/opt-rocm-6.2.2`).
pub(crate) fn fixture_root(name: &str) -> PathBuf {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    if name.contains('/') {
        base.join(name)
    } else {
        base.join("sysroots").join(name)
    }
}

/// The findings of `check` on fixture `name` (or [`NO_GPU`]) with environment `env` and `profile`.
pub(crate) fn judge(
    name: &str,
    env: &[(&str, &str)],
    profile: Profile,
    check: CheckFn,
) -> Vec<Finding> {
    judge_with(name, env, |c| c.profile = profile, check)
}

/// [`judge`] with the configuration set by `setup` (from `Config::default_for_tests`).
pub(crate) fn judge_with(
    name: &str,
    env: &[(&str, &str)],
    setup: impl FnOnce(&mut Config),
    check: CheckFn,
) -> Vec<Finding> {
    // An empty root (removed when the test ends).
    let empty = tempfile::tempdir().expect("temp dir");
    let root = if name == NO_GPU {
        empty.path().to_path_buf()
    } else {
        fixture_root(name)
    };
    assert!(root.is_dir(), "no fixture {}", root.display());
    let host = Host::new(
        root,
        Env::from_pairs(env.iter().copied()),
        Limits::new(Duration::from_secs(5), Duration::from_secs(20)),
    );
    let mut cfg = Config::default_for_tests();
    setup(&mut cfg);
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

/// One row: a fixture and environment (and profile, and any other configuration), and the
/// verdicts expected, in order, each as a status and a fragment of the summary.
#[derive(Clone, Copy)]
pub(crate) struct Row {
    pub fixture: &'static str,
    pub env: &'static [(&'static str, &'static str)],
    pub profile: Profile,
    /// Further configuration (`--isa`, `--asm-caps`), applied after the profile.
    pub setup: fn(&mut Config),
    pub expect: &'static [(Status, &'static str)],
}

pub(crate) const fn row(
    fixture: &'static str,
    env: &'static [(&'static str, &'static str)],
    expect: &'static [(Status, &'static str)],
) -> Row {
    Row {
        fixture,
        env,
        profile: Profile::Auto,
        setup: |_| {},
        expect,
    }
}

/// Runs every row through `check` and fails naming the check, the row and what it said. Every
/// warn or fail must carry a fix.
pub(crate) fn check_table(name: &str, check: CheckFn, rows: &[Row]) {
    for r in rows {
        let got = judge_with(
            r.fixture,
            r.env,
            |c| {
                c.profile = r.profile;
                (r.setup)(c);
            },
            check,
        );
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
                "{name} on {} with {:?}: expected {status:?} containing {fragment:?}, got \
                    {shown:#?}",
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

/// The finding whose summary contains `fragment` (the test fails without one).
pub(crate) fn find<'a>(fs: &'a [Finding], fragment: &str) -> &'a Finding {
    fs.iter()
        .find(|f| f.summary.contains(fragment))
        .unwrap_or_else(|| {
            let shown: Vec<&str> = fs.iter().map(|f| f.summary.as_str()).collect();
            panic!("no finding with {fragment:?} in {shown:#?}")
        })
}

/// The fix's environment assignments of the finding that contains `fragment`.
pub(crate) fn fix_env(fs: &[Finding], fragment: &str) -> Vec<(String, String)> {
    find(fs, fragment)
        .fix
        .as_ref()
        .map(|x| x.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

/// The fix's commands of the finding that contains `fragment`.
pub(crate) fn fix_commands(fs: &[Finding], fragment: &str) -> Vec<String> {
    find(fs, fragment)
        .fix
        .as_ref()
        .map(|x| x.commands.clone())
        .unwrap_or_default()
}

/// The implementation of a Rust check, from the family tables (`CHECKS`).
pub(crate) fn run_of(id: super::CheckId) -> CheckFn {
    super::implementations()
        .into_iter()
        .find(|(i, _)| *i == id)
        .map(|(_, f)| f)
        .unwrap_or_else(|| panic!("{id} has no implementation"))
}

/// [`check_table`] for the check `id`.
pub(crate) fn table(id: super::CheckId, rows: &[Row]) {
    check_table(id.as_str(), run_of(id), rows);
}
