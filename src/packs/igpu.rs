//! Rules over the integrated GPUs and unbuilt ISAs a text names (issue 28, item 4). Pure.
//!
//! - "the enumeration shows the iGPU, not the discrete GPU": a GPU listing (amdgpu-arch's
//!   lines, rocminfo's and hipInfo's ISA names) that names only integrated GPUs' ISAs while the
//!   text names a discrete AMD GPU by its marketing name;
//! - "support asked for an ISA ROCm does not build": a text asking for (or not finding) support
//!   of an ISA, answered from the ISA facts of `checks/why-facts.toml` (`[[override]]`,
//!   `[[no_override]]`, the newest `[[release]]`): not supported, and the override value of its
//!   family with its risk, or that none helps.
//!
//! Each reasons from what the text states; this machine is not asked.

use super::facts::{
    isa_verdict, line_of, part_kind, re, rule_symptom, unsupported_words, Derived, Facts,
    IsaVerdict,
};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";
const ORIGIN: &str = "rule over the GPU facts of the text (src/packs/igpu.rs)";

fn is_apu(isa: &str) -> bool {
    crate::gpu::facts::is_apu_processor(isa)
}

/// The ISAs of a GPU listing in the text: lines that are only an ISA (amdgpu-arch prints one per
/// GPU), rocminfo's agent `Name:`, hipInfo's `gcnArchName:`, llama.cpp's device lines
/// (`Device 0: AMD Radeon Graphics, gfx1036 (0x1036)`) and ollama's discovery (`gpu_type=gfx...`);
/// known processors only.
fn listed(text: &str) -> Vec<(String, String)> {
    static LINE: OnceLock<Regex> = OnceLock::new();
    static INLINE: OnceLock<Regex> = OnceLock::new();
    let line = re(
        &LINE,
        concat!(
            r"^\s*(?:Name:\s*|gcnArchName:\s*)?(",
            isa_name!(),
            r")(?::[\w+:-]*)?\s*$"
        ),
    );
    let inline = re(
        &INLINE,
        concat!(
            r"\bDevice \d+: [^\n,]*, (",
            isa_name!(),
            r")\b|\bgpu_type=(",
            isa_name!(),
            r")\b"
        ),
    );
    let mut out: Vec<(String, String)> = Vec::new();
    for l in text.lines() {
        let c = line.captures(l).or_else(|| inline.captures(l));
        if let Some(c) = c.and_then(|c| c.get(1).or(c.get(2))) {
            let g = c.as_str().to_string();
            if crate::isa::processor(&g).is_some() && !out.iter().any(|(i, _)| *i == g) {
                out.push((g, l.trim().to_string()));
            }
        }
    }
    out
}

/// "The enumeration shows the iGPU, not the discrete GPU": every ISA the text's GPU listing
/// names is an integrated GPU's (`apu` of checks/gpu-facts.toml), and the text names a discrete
/// AMD GPU by marketing name (`[[name]]` of checks/why-facts.toml) whose ISA the listing lacks.
/// The tool or runtime sees the iGPU where the user meant the card: a program takes the iGPU as
/// its device (AMD's advice: hide it, in the BIOS or with HIP_VISIBLE_DEVICES /
/// ROCR_VISIBLE_DEVICES; ROCm#4390, where disabling the iGPU solved it). A driver, permission or
/// atomics cause of the missing card that a symptom names comes first.
fn listing_shows_only_igpu(text: &str, f: &Facts) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    let list = listed(text);
    if list.is_empty() || !list.iter().all(|(i, _)| is_apu(i)) {
        return None;
    }
    let (dg, name) = f.isas.iter().find_map(|(i, n)| {
        let n = n.as_ref()?;
        (!is_apu(i) && !list.iter().any(|(l, _)| l == i)).then_some((i, n))
    })?;
    let (ig, line) = &list[0];
    let sy = S.get_or_init(|| {
        rule_symptom(
            "igpu.listed-instead-of-dgpu",
            "the GPU listing shows the integrated GPU, not the discrete card",
            "gpu-igpu-interference",
            "The runtime's enumeration names only the processor's integrated GPU, so programs \
             take it as their device; ROCm does not build for it, and the discrete card the user \
             means is not the one in use.",
            "Disable the integrated GPU (in the BIOS/UEFI, or the device manager on Windows) or \
             hide it (HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES set to the discrete GPU's \
             index), then list the GPUs again; if the card is still missing, its driver is the \
             next question.",
            ORIGIN,
        )
    });
    Some(
        Derived::reasoned(
            sy,
            line.clone(),
            format!(
                "the listing names only {ig}, an integrated GPU, while the text names {name} \
                 ({dg}, a discrete GPU) that the listing lacks ({FROM})"
            ),
        )
        .deferring_to(&[
            "gpu-driver-missing",
            "gpu-kfd-permission",
            "gpu-pcie-atomics",
            "platform-wsl",
        ])
        .overruling(&["gpu-unsupported-asic", "codeobj-no-binary"]),
    )
}

/// The line of a text that asks for support of an ISA, or says its sources or build lack it,
/// with that ISA.
fn support_asked(text: &str) -> Option<(String, String)> {
    static ASK: OnceLock<Regex> = OnceLock::new();
    static ISA: OnceLock<Regex> = OnceLock::new();
    let ask = re(
        &ASK,
        concat!(
            r"(?i)\b(?:add|adding|request(?:ing)?|would like|I'?d like|want|plans?(?: to)?)\b",
            r"[^\n]{0,20}\bsupport(?:ing)?\b(?: for)?[^\n]{0,40}\b",
            isa_name!(),
            r"\b|\b(?:can'?t|cannot|could not|couldn't) find\b[^\n]{0,10}\b",
            isa_name!(),
            r"\b|\b(?:does|do|will|when will)\b[^\n]{0,30}\bsupport\b[^\n]{0,20}\b",
            isa_name!(),
            r"\b|\bis\s+",
            isa_name!(),
            r"\s+(?:officially\s+)?supported\b|^\s*",
            isa_name!(),
            r":\s*0 matches\b",
        ),
    );
    let line = line_of(text, ask)?;
    let isa = re(&ISA, concat!(r"\b", isa_name!(), r"\b")).find(&line)?;
    Some((isa.as_str().to_string(), line.clone()))
}

/// "Support asked for an ISA ROCm does not build": the text asks for support of an ISA (or
/// says the sources lack it) that the ISA facts call unsupported (`isa_verdict`: not in the
/// newest `[[release]]`'s ISAs, with its `[[override]]` family or `[[no_override]]` entry). A
/// text with a failure line is left to the rules over that line (the build at hand decides
/// there); a supported or unknown ISA gets nothing.
fn support_for_unbuilt_isa(text: &str) -> Option<Derived> {
    static S: OnceLock<Symptom> = OnceLock::new();
    static NO_CODE: OnceLock<Regex> = OnceLock::new();
    if re(&NO_CODE, super::facts::NO_CODE).is_match(text) {
        return None;
    }
    let (isa, line) = support_asked(text)?;
    let verdict = isa_verdict(&isa);
    let row = match verdict {
        IsaVerdict::Override { .. } => "[[override]]",
        _ => "[[no_override]]",
    };
    let reasoning = format!(
        "{isa}: {} {} (checks/why-facts.toml {row}; {FROM})",
        part_kind(&isa),
        unsupported_words(&verdict)?
    );
    let sy = S.get_or_init(|| {
        rule_symptom(
            "igpu.support-asked-unbuilt-isa",
            "support asked for an ISA that ROCm does not build",
            "gpu-unsupported-asic",
            "The ISA the text asks about is not one ROCm supports, so ROCm and its libraries \
             ship no kernels for it and their sources need not name it; the reasoning says \
             whether a same-family override runs it.",
            "See the reasoning: the exact HSA_OVERRIDE_GFX_VERSION of the same family, at its \
             risk, or what runs this ISA when no override does (an older release, a source or \
             community build).",
            ORIGIN,
        )
    });
    Some(Derived::reasoned(sy, line, reasoning))
}

/// The rules of this module that fire on a text, most deciding first.
pub(super) fn rules(text: &str, f: &Facts) -> Vec<Derived> {
    [
        listing_shows_only_igpu(text, f),
        support_for_unbuilt_isa(text),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired(text: &str) -> Vec<(String, String)> {
        rules(text, &Facts::of(text))
            .into_iter()
            .map(|d| (d.symptom.id.clone(), d.reasoning().to_string()))
            .collect()
    }

    #[test]
    fn a_listing_of_only_the_igpu_beside_a_named_card_is_the_igpu() {
        let t = "my RX 6800 XT does not work\n$ amdgpu-arch\ngfx1036\n";
        let f = fired(t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "igpu.listed-instead-of-dgpu");
        assert!(
            f[0].1.contains("gfx1036") && f[0].1.contains("gfx1030"),
            "{f:?}"
        );
        let rocminfo = "Radeon RX 7900 XTX not found\n  Name:                    gfx1036\n";
        assert_eq!(fired(rocminfo)[0].0, "igpu.listed-instead-of-dgpu");
        let llama = "RX 7800 XT\nggml_cuda_init: found 1 ROCm devices:\n  Device 0: AMD Radeon \
                     Graphics, gfx1036 (0x1036), VMM: no\n";
        assert_eq!(fired(llama)[0].0, "igpu.listed-instead-of-dgpu");
    }

    #[test]
    fn a_listing_with_the_card_or_without_a_named_card_is_not_this_rule() {
        // The card is listed too: the runtime sees it.
        let both = "RX 6800 XT\n$ amdgpu-arch\ngfx1036\ngfx1030\n";
        assert!(fired(both).is_empty());
        // No discrete card named: nothing to compare.
        assert!(fired("$ amdgpu-arch\ngfx1036\n").is_empty());
        // llama.cpp lists the card beside the iGPU: not this rule.
        let llama = "RX 7800 XT\n  Device 0: AMD Radeon RX 7800 XT, gfx1101 (0x1101)\n  Device 1: \
                     AMD Radeon Graphics, gfx1036 (0x1036)\n";
        assert!(fired(llama).is_empty());
        // A discrete ISA alone in the listing.
        assert!(fired("RX 6800 XT\n  Name:                    gfx1030\n").is_empty());
    }

    #[test]
    fn support_asked_for_an_unbuilt_isa_names_its_override_or_none() {
        let t = "Could you please add support for gfx1036?\n";
        let f = fired(t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "igpu.support-asked-unbuilt-isa");
        assert!(f[0].1.contains("HSA_OVERRIDE_GFX_VERSION=10.3.0"), "{f:?}");
        assert!(f[0].1.contains("an integrated GPU"), "{f:?}");
        let rdna1 = "I'd like support for my RX 5700 XT (gfx1010) in rocBLAS\n";
        let f = fired(rdna1);
        assert!(
            f[0].1.contains("no HSA_OVERRIDE_GFX_VERSION value helps"),
            "{f:?}"
        );
        let asked = "Will ROCm ever support the gfx1103 in my laptop?\n";
        assert_eq!(fired(asked)[0].0, "igpu.support-asked-unbuilt-isa");
        assert_eq!(
            fired("Is gfx90c supported?\n")[0].0,
            "igpu.support-asked-unbuilt-isa"
        );
        let counted = "gfx1035: 13 matches\ngfx1036: 0 matches\n";
        assert_eq!(fired(counted)[0].0, "igpu.support-asked-unbuilt-isa");
    }

    #[test]
    fn support_asked_for_a_supported_isa_or_beside_a_failure_is_not_this_rule() {
        assert!(fired("Please add support for gfx1100 in this app\n").is_empty());
        // A failure line: the rules over that line decide (the build at hand).
        let failing = "add support for gfx1036\nhipErrorNoBinaryForGpu: Unable to find code \
                       object for all current devices!\n";
        assert!(fired(failing).is_empty());
        // Prose about support without an ISA.
        assert!(fired("Would like support for more GPUs\n").is_empty());
    }
}
