//! `why` with this machine's GPUs beside the text (issue 28, item 3): the rules over facts use
//! the GPUs the doctor measured on the root when the text names no ISA, and say so; when the text
//! names another ISA, the text wins and the answer says it answers for the text. Fixture roots
//! stand for the machine (tests/fixtures/sysroots/*/SOURCE.md).

use crate::common::{fixture, why_json_on};
use std::path::Path;

/// The `reasoning` of every recognised symptom of `why --json` for `text` on `root`, with its
/// class.
fn reasonings(root: &Path, text: &str) -> Vec<(String, String)> {
    let doc = why_json_on(root, text);
    doc["recognised"]
        .as_array()
        .unwrap_or_else(|| panic!("no answer: {doc:#}"))
        .iter()
        .map(|r| {
            (
                r["class"].as_str().unwrap_or("-").to_string(),
                r["captures"]["reasoning"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect()
}

/// A HIP runtime's "no code object" line, naming no GPU (HIP's `hip_code_object.cpp`).
const NO_ISA: &str =
    "\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"\nAborted (core dumped)\n";

/// rocBLAS `tensile_host.cpp`'s message, naming gfx1031 (ROCm/rocBLAS#1339's shape).
const GFX1031: &str =
    "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: \
    No such file or directory for GPU arch : gfx1031\nAborted (core dumped)\n";

#[test]
fn a_text_naming_no_isa_is_answered_for_the_gpu_measured_here() {
    let r = reasonings(&fixture("sysroots", "gfx1030-dgpu"), NO_ISA);
    assert!(
        r.iter().any(|(c, w)| c == "codeobj-no-binary"
            && w.contains("gfx1030 (measured on this machine; the text names no ISA)")
            && w.contains("ROCm supports")),
        "{r:?}"
    );
    // On a root without GPUs nothing is measured, and no ISA is claimed.
    let empty = tempfile::tempdir().unwrap();
    let r = reasonings(empty.path(), NO_ISA);
    assert!(
        r.iter()
            .all(|(_, w)| !w.contains("measured on this machine")),
        "{r:?}"
    );
}

#[test]
fn a_text_naming_another_isa_wins_and_the_answer_says_so() {
    let r = reasonings(&fixture("sysroots", "gfx1030-dgpu"), GFX1031);
    let (_, why) = r
        .iter()
        .find(|(c, _)| c == "gpu-unsupported-asic")
        .unwrap_or_else(|| panic!("{r:?}"));
    assert!(
        why.contains(
            "gfx1031 (named in the text; this machine has gfx1030: answering for the text)"
        ),
        "{why}"
    );
    assert!(why.contains("HSA_OVERRIDE_GFX_VERSION=10.3.0"), "{why}");
    // The same text on a machine with that GPU says so.
    let r = reasonings(&fixture("sysroots", "gfx1036-igpu-gfx1031-dgpu"), GFX1031);
    assert!(
        r.iter()
            .any(|(_, w)| w.contains("gfx1031 (named in the text; this machine has it too")),
        "{r:?}"
    );
}

#[test]
fn the_display_igpu_measured_here_answers_a_text_naming_no_gpu() {
    let text = "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No \
        such file or directory\nAborted (core dumped)\n";
    let r = reasonings(&fixture("sysroots", "gfx1036-igpu-gfx1031-dgpu"), text);
    assert!(
        r.iter().any(|(c, w)| c == "gpu-igpu-interference"
            && w.contains("gfx1036 (measured on this machine")
            && w.contains("beside gfx1031")),
        "{r:?}"
    );
    // A machine with the discrete GPU only: not the iGPU's answer.
    let r = reasonings(&fixture("sysroots", "gfx1030-dgpu"), text);
    assert!(r.iter().all(|(c, _)| c != "gpu-igpu-interference"), "{r:?}");
}
