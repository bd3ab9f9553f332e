//! `runtime.*` on a fixture tree of runtime library names (tests/fixtures/sysroots/
//! runtime-debian13-stale-hip, see its SOURCE.md): which copy the loader picks, the other copies,
//! the versions from the file names; a fixture's libraries are never loaded.

use crate::checks::testkit::{find, judge, row, table, NO_GPU};
use crate::checks::CheckId;
use crate::config::Profile;
use crate::report::Status::*;

const DEBIAN13: &str = "runtime-debian13-stale-hip";

#[test]
fn libraries_table() {
    table(
        CheckId::RuntimeLibraries,
        &[
            row(
                NO_GPU,
                &[],
                &[
                    (Fail, "libamdhip64 is not on the loader's search path"),
                    (Fail, "libhsa-runtime64 is not on the loader's search path"),
                    (Fail, "libamd_comgr is not on the loader's search path"),
                ],
            ),
            row(
                DEBIAN13,
                &[],
                &[
                    (
                        Warn,
                        "libamdhip64: 1 more copy besides the one the loader picks",
                    ),
                    (
                        Pass,
                        "libhsa-runtime64 1.13.0 (/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so)",
                    ),
                    (
                        Pass,
                        "libamd_comgr 2.6.0 (/usr/lib/x86_64-linux-gnu/libamd_comgr.so)",
                    ),
                ],
            ),
            row(
                DEBIAN13,
                &[("LD_LIBRARY_PATH", "/usr/lib")],
                &[
                    (
                        Warn,
                        "libamdhip64: 1 more copy besides the one the loader picks",
                    ),
                    (Pass, "libhsa-runtime64 1.13.0"),
                    (Pass, "libamd_comgr 2.6.0"),
                ],
            ),
        ],
    );
}

#[test]
fn the_copy_the_loader_picks_follows_ld_library_path() {
    let run = |env: &[(&str, &str)]| {
        let fs = judge(
            DEBIAN13,
            env,
            Profile::Auto,
            crate::checks::testkit::run_of(CheckId::RuntimeLibraries),
        );
        find(&fs, "libamdhip64").evidence.clone()
    };
    assert_eq!(
        run(&[]),
        [
            "loader picks: /usr/lib/x86_64-linux-gnu/libamdhip64.so (via default dirs)",
            "also: /usr/lib/libamdhip64.so.5"
        ]
    );
    assert_eq!(
        run(&[("LD_LIBRARY_PATH", "/usr/lib")]),
        [
            "loader picks: /usr/lib/libamdhip64.so.5 (via LD_LIBRARY_PATH)",
            "also: /usr/lib/x86_64-linux-gnu/libamdhip64.so"
        ]
    );
}

#[test]
fn load_table() {
    table(
        CheckId::RuntimeLoad,
        &[row(
            DEBIAN13,
            &[],
            &[(
                Skip,
                "the libraries of another root (--sysroot) are not loaded; only their files are \
                    judged (runtime.libraries)",
            )],
        )],
    );
}
