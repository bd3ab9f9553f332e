//! A family line that names the GPU's ISA as missing from a build joins the ISA facts: the same
//! reasoning and fix as the "no code" rule gives the same ISA (`facts::isa_reading`), whichever
//! line names it. Each line as a public thread shows it (the thread above it).

use super::super::facts::{self, isa_verdict, unsupported_words, verdict_symptoms};
use super::test_support::answers;

/// The one answer of a one-line text: its class, the ISA it names, its reasoning and fix.
fn one(text: &str) -> (String, Option<String>, String, String) {
    let d = answers(text);
    assert_eq!(d.len(), 1, "{text}");
    let cap = |k: &str| {
        d[0].captures
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
    };
    (
        d[0].symptom.class.clone().unwrap_or_default(),
        cap("isa"),
        cap("reasoning").unwrap_or_default(),
        d[0].symptom.fix.clone(),
    )
}

/// The override advice, as the ISA facts word it for `isa`.
fn words(isa: &str) -> String {
    unsupported_words(&isa_verdict(isa)).expect("an ISA ROCm does not build")
}

/// An RDNA2 sibling in rocBLAS's glob: the exact override value and its risk, as the "Cannot
/// read" line of the same ISA gets them from the "no code" rule.
#[test]
fn an_rdna2_sibling_in_the_glob_gets_the_same_family_override() {
    // https://github.com/JuliaGPU/AMDGPU.jl/issues/314
    let t = "rocBLAS warning: No paths matched /home/leios/.julia/artifacts/\
             1fd1782850f6482c5bdbeec69cb3d1e43d949a3c/lib/rocblas/library/*gfx1031*co. Make sure \
             that ROCBLAS_TENSILE_LIBPATH is set correctly.\n";
    let (class, isa, why, fix) = one(t);
    assert_eq!(class, "lib-rocblas-data");
    assert_eq!(isa.as_deref(), Some("gfx1031"));
    assert!(why.contains("HSA_OVERRIDE_GFX_VERSION=10.3.0"), "{why}");
    assert!(why.contains(&words("gfx1031")), "{why}");
    assert!(why.contains("tensile_host.cpp"), "{why}");
    assert_eq!(fix, verdict_symptoms()[1].fix);
    // https://github.com/leejet/stable-diffusion.cpp/issues/160: the "Cannot read" line of the
    // same ISA, through the "no code" rule; the same words.
    let cannot = "rocBLAS error: Cannot read C:\\Program Files\\AMD\\ROCm\\5.7\\bin\\/rocblas/\
                  library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1031\n";
    let r = facts::rules(cannot);
    let no_code = r
        .iter()
        .find(|d| d.symptom.id == "facts.isa-unsupported")
        .expect("the no-code rule answers");
    assert!(no_code.reasoning().contains(&words("gfx1031")));
}

/// ollama names the GPU in a logger attribute after its message, and the list it does support
/// inside it: the GPU's ISA is read, the list is not (its family's cause is the one the ISA
/// facts decide).
#[test]
fn ollamas_unsupported_gpu_gets_the_override_of_its_own_isa() {
    // https://github.com/ollama/ollama/issues/8772
    let t = "time=2025-02-02T19:28:37.628+08:00 level=WARN source=amd_linux.go:378 msg=\"amdgpu is \
             not supported (supported types:[gfx1030 gfx1100 gfx1101 gfx1102 gfx900 gfx906 gfx908 \
             gfx90a gfx940 gfx941 gfx942])\" gpu_type=gfx1031 gpu=0 library=/usr/local/lib/ollama\n";
    let (class, isa, why, _) = one(t);
    assert_eq!(class, "gpu-unsupported-asic");
    assert_eq!(isa.as_deref(), Some("gfx1031"));
    assert!(why.contains(&words("gfx1031")), "{why}");
    // https://github.com/ollama/ollama/issues/4099: an RDNA3 sibling, before the list.
    let t = "time=2024-05-02T12:17:03.657Z level=WARN source=amd_linux.go:116 msg=\"amdgpu [0] \
             gfx1103 is not supported by /tmp/ollama2145067703/rocm [gfx1030 gfx1100 gfx1101 \
             gfx1102 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942]\"\n";
    let (_, isa, why, _) = one(t);
    assert_eq!(isa.as_deref(), Some("gfx1103"));
    assert!(why.contains("HSA_OVERRIDE_GFX_VERSION=11.0.0"), "{why}");
}

/// Vega (`[[no_override]]`): no value is advised; what runs it instead is, and a release the
/// text names that built it makes the missing files that build's problem.
#[test]
fn a_vega_isa_gets_what_runs_it_instead_of_an_override() {
    // https://github.com/justxi/rocm/issues/182 and https://github.com/ROCm/hipBLASLt/issues/251
    for (t, class) in [
        (
            "rocBLAS warning: No paths matched /usr/lib64/library/*gfx906*co. Make sure that \
             ROCBLAS_TENSILE_LIBPATH is set correctly.\n",
            "lib-rocblas-data",
        ),
        (
            "rocblaslt warning: No paths matched /opt/hipBLASLt/build/release/library/../Tensile/\
             library/*gfx906*co. Make sure that HIPBLASLT_TENSILE_LIBPATH is set correctly.\n",
            "lib-hipblaslt-data",
        ),
    ] {
        let (c, isa, why, fix) = one(t);
        assert_eq!(c, class);
        assert_eq!(isa.as_deref(), Some("gfx906"));
        assert!(why.contains(&words("gfx906")), "{why}");
        assert!(!why.contains("HSA_OVERRIDE_GFX_VERSION="), "{why}");
        assert_eq!(fix, verdict_symptoms()[1].fix);
    }
    // The same glob in a text that names a release whose support table lists gfx906.
    assert_eq!(facts::supported_in("gfx906", "6.2"), Some(true));
    let t =
        "ROCm 6.2.0\nrocBLAS warning: No paths matched /usr/lib64/library/*gfx906*co. Make sure \
             that ROCBLAS_TENSILE_LIBPATH is set correctly.\n";
    let (_, _, why, fix) = one(t);
    assert!(why.contains("named in the text, supported it"), "{why}");
    assert_eq!(fix, verdict_symptoms()[0].fix);
}

/// A supported ISA: the build lacks it, and nothing advises an override; a family whose cause
/// the ISA facts decide (a program without code, an unsupported GPU) takes the verdict's cause.
#[test]
fn a_supported_isa_gets_no_override_advice() {
    // https://github.com/ROCm/AMDMIGraphX/pull/3517
    let t = "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: Illegal \
             seek for GPU arch : gfx1201\n";
    // https://github.com/lamikr/rocm_sdk_builder/issues/246
    let co = ":1:hip_fatbin.cpp           :272 : 3169196830 us: [pid:9111  tid:0x79a41865cb80] \
              Cannot find CO in the bundle /opt/rocm_sdk_612/lib/libmagma.so for ISA: \
              amdgcn-amd-amdhsa--gfx1101\n";
    for (t, isa, class) in [
        (t, "gfx1201", "lib-rocblas-data"),
        (co, "gfx1101", "codeobj-no-binary"),
    ] {
        assert_eq!(isa_verdict(isa), facts::IsaVerdict::Supported);
        let (c, got, why, fix) = one(t);
        assert_eq!(c, class, "{t}");
        assert_eq!(got.as_deref(), Some(isa));
        assert!(why.contains("that ROCm supports"), "{why}");
        assert_eq!(fix, verdict_symptoms()[0].fix);
        for s in [&why, &fix] {
            assert!(!s.contains("HSA_OVERRIDE_GFX_VERSION="), "{s}");
            assert!(!s.contains("same-family"), "{s}");
        }
    }
}

/// A line that names no ISA keeps its family's own answer and fix; so does an ISA the tables do
/// not know.
#[test]
fn a_line_without_an_isa_keeps_the_familys_answer() {
    // https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU/issues/12
    let t = "rocBLAS error: Could not initialize Tensile library\n";
    let (class, isa, why, fix) = one(t);
    assert_eq!(class, "lib-rocblas-data");
    assert_eq!(isa, None);
    assert!(why.contains("is printed by"), "{why}");
    let own = super::super::origins::families()
        .iter()
        .find(|f| f.contains == "Could not initialize Tensile library")
        .expect("the row");
    assert_eq!(fix, own.fix);
    // The same glob as above with a name that is no processor.
    let t = "rocBLAS warning: No paths matched /usr/lib64/library/*gfx999*co. Make sure that \
             ROCBLAS_TENSILE_LIBPATH is set correctly.\n";
    assert!(crate::isa::processor("gfx999").is_none());
    assert_eq!(one(t).1, None);
}

/// The causes the ISA facts decide between are the classes of their two verdicts, and those
/// are causes whose message says a build has no code for the ISA.
#[test]
fn the_decided_causes_are_the_verdicts_classes() {
    let classes: Vec<&str> = verdict_symptoms()
        .iter()
        .filter_map(|s| s.class.as_deref())
        .collect();
    let mut decided = facts::ISA_DECIDES.to_vec();
    decided.sort_unstable();
    let mut sorted = classes.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, decided);
    for c in classes {
        assert!(
            super::super::causes::get(c).is_some_and(|c| c.missing_isa_code),
            "{c}"
        );
    }
}

/// Of two lines of one cause, the one that names the ISA answers, in either order.
#[test]
fn the_line_that_names_the_isa_answers_for_its_cause() {
    // https://github.com/justxi/rocm/issues/182 (two lines of the paste, in its order)
    let glob = "rocBLAS warning: No paths matched /usr/lib64/library/*gfx906*co. Make sure that \
                ROCBLAS_TENSILE_LIBPATH is set correctly.\n";
    let read = "rocBLAS error: Cannot read /usr/lib64/library/TensileLibrary.dat: No such file or \
                directory\n";
    for t in [format!("{glob}\n{read}"), format!("{read}\n{glob}")] {
        let (class, isa, why, _) = one(&t);
        assert_eq!(class, "lib-rocblas-data");
        assert_eq!(isa.as_deref(), Some("gfx906"), "{t}");
        assert!(why.contains(&words("gfx906")), "{why}");
    }
    // A log repeating the lines gives the same one answer.
    assert_eq!(
        one(&format!("{read}{glob}").repeat(50)).1.as_deref(),
        Some("gfx906")
    );
}
