//! The corpus against machines whose truth is known: every case's text is given to `why` on
//! fixture machines, and no answer may state something false about the machine. On a healthy
//! GPU machine (`gfx1030-dgpu`: amdgpu loaded, /dev/kfd and the render node open, a supported
//! ISA, no override) no GPU cause may be CONFIRMED; on a machine whose only fault is that the
//! user may not open /dev/kfd (`kfd-group-missing`) no GPU cause but that one may be. (The
//! text-only ranking is tests/corpus_recall.rs.)

use crate::common::{fixture, why_json_on};
use serde::Deserialize;
use std::path::Path;

#[derive(Deserialize)]
struct File {
    case: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    text: String,
}

fn cases() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "toml") {
            let name = e.path().display().to_string();
            let text = std::fs::read_to_string(e.path()).unwrap();
            let f: File = rocm_doctor::data::load(&name, &text).unwrap_or_else(|e| panic!("{e}"));
            out.extend(f.case);
        }
    }
    out
}

/// The classes `why` confirmed for `text` on `root`.
fn confirmed(root: &Path, text: &str) -> Vec<String> {
    let doc = why_json_on(root, text);
    doc["recognised"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|r| r["answer"] == "confirmed")
                .map(|r| r["class"].as_str().unwrap_or("-").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Causes about the GPU that a healthy GPU machine refutes.
const GPU_CAUSES: &[&str] = &[
    "gpu-no-amd-gpu",
    "gpu-kfd-permission",
    "gpu-container-devices",
    "gpu-unsupported-asic",
    "gpu-igpu-interference",
    "gpu-driver-missing",
    "gpu-pcie-atomics",
    "gpu-override-misuse",
    "gpu-firmware",
];

#[test]
fn no_case_gets_a_false_statement_about_a_known_machine() {
    let healthy = fixture("sysroots", "gfx1030-dgpu");
    let no_access = fixture("sysroots", "kfd-group-missing");
    let mut wrong = Vec::new();
    for c in cases() {
        for class in confirmed(&healthy, &c.text) {
            if GPU_CAUSES.contains(&class.as_str()) {
                wrong.push(format!(
                    "{}: {class} confirmed on a healthy gfx1030 machine",
                    c.id
                ));
            }
        }
        for class in confirmed(&no_access, &c.text) {
            if GPU_CAUSES.contains(&class.as_str()) && class != "gpu-kfd-permission" {
                wrong.push(format!(
                    "{}: {class} confirmed on a machine whose only fault is /dev/kfd access",
                    c.id
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "false statements:\n{}", wrong.join("\n"));
}
