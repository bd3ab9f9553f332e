//! The classifier against real clang 15 / 19 output (tests/fixtures/clang-output, see its
//! SOURCE.md for how each file was captured).
use super::*;

macro_rules! fixture {
    ($name:literal) => {
        include_str!(concat!("../../tests/fixtures/clang-output/", $name))
    };
}

fn kinds(text: &str) -> Vec<ProblemKind> {
    classify(text).into_iter().map(|p| p.kind).collect()
}

#[test]
fn invalid_target_id_from_both_clangs() {
    assert_eq!(
        kinds(fixture!("clang15-invalid-target-id.txt")),
        [ProblemKind::InvalidTargetId {
            target: "gfx942".into()
        }]
    );
    assert_eq!(
        kinds(fixture!("clang19-invalid-target-id.txt")),
        [ProblemKind::InvalidTargetId {
            target: "gfx950".into()
        }]
    );
}

#[test]
fn unknown_target_cpu_at_cc1_level() {
    for t in [
        fixture!("clang15-cc1-unknown-target-cpu.txt"),
        fixture!("clang19-cc1-unknown-target-cpu.txt"),
    ] {
        assert_eq!(
            kinds(t),
            [ProblemKind::UnknownTargetCpu {
                cpu: "gfx9999".into()
            }]
        );
    }
}

#[test]
fn linker_missing_names_the_executable() {
    assert_eq!(
        kinds(fixture!("clang15-copy-without-ld.lld.txt")),
        [
            ProblemKind::ExecutableNotFound {
                name: "ld.lld".into()
            },
            ProblemKind::ToolFailed {
                tool: "ld.lld".into(),
                code: Some(1)
            }
        ]
    );
}

#[test]
fn incompatible_library_extracts_the_path() {
    let k = kinds(fixture!("clang15-wrapper-incompatible-libunwind.txt"));
    match &k[0] {
        ProblemKind::IncompatibleLibrary { library, object } => {
            assert_eq!(
                library,
                std::path::Path::new("/tmp/rd-fixture/lib/libunwind.so")
            );
            assert!(
                object.starts_with("/tmp/--") && object.ends_with(".o"),
                "{object}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(k.len(), 2);
}

#[test]
fn undefined_symbols_from_lld_and_gnu_ld() {
    for t in [
        fixture!("clang15-lld-undefined.txt"),
        fixture!("clang19-lld-undefined.txt"),
        fixture!("clang15-gnu-ld-undefined.txt"),
        fixture!("clang19-gnu-ld-undefined.txt"),
    ] {
        let k = kinds(t);
        assert_eq!(
            k[0],
            ProblemKind::UndefinedSymbol { symbol: "f".into() },
            "{t}"
        );
        assert_eq!(
            k[1],
            ProblemKind::ToolFailed {
                tool: "linker".into(),
                code: Some(1)
            }
        );
    }
}

#[test]
fn library_not_found() {
    for t in [
        fixture!("clang15-lld-no-library.txt"),
        fixture!("clang19-lld-no-library.txt"),
    ] {
        assert_eq!(
            kinds(t)[0],
            ProblemKind::LibraryNotFound {
                name: "-lnosuchlib".into()
            }
        );
    }
}

#[test]
fn hip_without_rocm() {
    // clang-15 repeats the HIP runtime line; duplicates are folded.
    assert_eq!(
        kinds(fixture!("clang15-hip-no-rocm.txt")),
        [
            ProblemKind::DeviceLibraryMissing,
            ProblemKind::HipRuntimeMissing
        ]
    );
    assert_eq!(
        kinds(fixture!("clang19-hip-no-rocm.txt")),
        [ProblemKind::DeviceLibraryMissing]
    );
}

#[test]
fn missing_header_in_both_echo_styles() {
    for t in [
        fixture!("clang15-missing-header.txt"),
        fixture!("clang19-missing-header.txt"),
    ] {
        assert_eq!(
            kinds(t),
            [ProblemKind::MissingHeader {
                header: "rocm_doctor_absent.h".into()
            }]
        );
    }
}

#[test]
fn noise_and_garbage_give_nothing() {
    assert!(classify("").is_empty());
    assert!(classify("1 error generated.\n>>> referenced by -\n^~~~\n").is_empty());
    assert!(classify("invalid target ID 'unterminated").len() <= 1);
    let junk: String = (0..2000)
        .map(|i| char::from_u32(i * 37 % 0x2FFF + 1).unwrap_or('x'))
        .collect();
    let _ = classify(&junk);
}

#[test]
fn lib_flag_names() {
    assert_eq!(
        lib_flag_name(std::path::Path::new("/x/libunwind.so")).as_deref(),
        Some("unwind")
    );
    assert_eq!(
        lib_flag_name(std::path::Path::new("/x/libunwind.so.1.0")).as_deref(),
        Some("unwind")
    );
    assert_eq!(
        lib_flag_name(std::path::Path::new("/x/libc++.a")).as_deref(),
        Some("c++")
    );
    assert_eq!(lib_flag_name(std::path::Path::new("/x/crt1.o")), None);
}
