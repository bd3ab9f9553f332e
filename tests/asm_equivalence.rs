//! The batched probe gives exactly the answers of Tensile's serial method, key by key, for
//! every ISA Debian's clang-15 and clang-19 know and for some they do not.
//! Slow (several hundred assembler calls per clang): one test per clang.

use rocm_doctor::asm::catalog::{catalog, Compat};
use rocm_doctor::asm::diagnose::parse_supported_cpus;
use rocm_doctor::asm::runner::{probe_all, probe_serial, IsaResult, Method};
use rocm_doctor::host::{CommandSpec, Env, Host, Limits};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn host() -> Host {
    Host::new(
        PathBuf::from("/"),
        Env::from_process(),
        Limits::new(Duration::from_secs(60), Duration::from_secs(1800)),
    )
}

fn known_gfx(h: &Host, clang: &Path) -> Vec<String> {
    let o = h.run(&CommandSpec::new(clang).args([
        "--target=amdgcn-amd-amdhsa",
        "-nogpulib",
        "-print-supported-cpus",
    ]));
    parse_supported_cpus(&o.combined_text())
        .into_iter()
        .filter(|n| n.starts_with("gfx"))
        .collect()
}

/// Tensile's serial method per ISA; ISAs spread over two threads (the order of ISAs does
/// not matter to the answers, the order of probes within an ISA is Tensile's).
fn serial(h: &Host, clang: &Path, compat: Compat, isas: &[String]) -> Vec<IsaResult> {
    let cat = catalog(compat);
    type Part<'a> = Vec<(usize, &'a String)>;
    let (a, b): (Part, Part) = isas.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let mut out: Vec<(usize, IsaResult)> = std::thread::scope(|s| {
        let ta = s.spawn(|| {
            a.iter()
                .map(|(i, g)| (*i, probe_serial(h, clang, cat, g)))
                .collect::<Vec<_>>()
        });
        let tb = s.spawn(|| {
            b.iter()
                .map(|(i, g)| (*i, probe_serial(h, clang, cat, g)))
                .collect::<Vec<_>>()
        });
        let mut v = ta.join().unwrap();
        v.extend(tb.join().unwrap());
        v
    });
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

fn assert_same(clang: &Path, batched: &[IsaResult], serial: &[IsaResult]) {
    assert_eq!(batched.len(), serial.len());
    let mut diffs = Vec::new();
    for (b, s) in batched.iter().zip(serial) {
        assert_eq!(b.isa, s.isa);
        assert!(!b.timed_out && !s.timed_out, "{}: a call timed out", b.isa);
        assert_eq!(b.values.len(), 44);
        for ((kb, vb), (ks, vs)) in b.values.iter().zip(&s.values) {
            assert_eq!(kb, ks);
            if vb != vs {
                diffs.push(format!(
                    "{} {}: batched {:?}, serial {:?}",
                    b.isa, kb, vb, vs
                ));
            }
        }
        assert!(
            b.calls < s.calls,
            "{}: batched {} calls, serial {}",
            b.isa,
            b.calls,
            s.calls
        );
        // The batch was attributed, not replaced by the per-snippet fallback: 1 call for a
        // known ISA (the batch; plus the one shared empty-input probe, run by one ISA only),
        // 2 for an unknown one (the batch, then its own empty-input probe).
        assert_eq!(b.method, Method::Batched { fallback: None }, "{}", b.isa);
        let want: &[usize] = if b.supported() { &[1, 2] } else { &[2] };
        assert!(want.contains(&b.calls), "{}: {} calls", b.isa, b.calls);
    }
    let shared_probes = batched
        .iter()
        .filter(|b| b.supported() && b.calls == 2)
        .count();
    assert!(
        shared_probes <= 1,
        "the empty-input probe ran {shared_probes} times for known ISAs"
    );
    assert!(
        diffs.is_empty(),
        "{}: batched != serial:\n{}",
        clang.display(),
        diffs.join("\n")
    );
}

fn check(version: u32, unknown: &[&str]) -> Vec<IsaResult> {
    let Some(clang) = crate::common::need_tool(&format!("/usr/lib/llvm-{version}/bin/clang++"))
    else {
        return Vec::new();
    };
    let h = host();
    let mut isas = known_gfx(&h, &clang);
    assert!(isas.len() > 20, "{} knows only {:?}", clang.display(), isas);
    for u in unknown {
        assert!(
            !isas.iter().any(|k| k == u),
            "{u} is known to clang-{version}"
        );
        isas.push(u.to_string());
    }
    let batched = probe_all(&h, &clang, catalog(Compat::Current), &isas, false);
    let reference = serial(&h, &clang, Compat::Current, &isas);
    assert_same(&clang, &batched, &reference);
    // Known ISAs are supported, unknown ones are not, and nothing else is true for them.
    for r in &batched {
        let expect_known = !unknown.contains(&r.isa.as_str());
        assert_eq!(r.supported(), expect_known, "{}", r.isa);
    }
    // A real ISA that each clang knows: the values Tensile's cache has for it (reference
    // tensile-asm-caps.md §4: gfx803's MaxVmcnt is 15; gfx90a has MFMA; gfx1030 has no MFMA).
    let get = |isa: &str, key: &str| {
        batched
            .iter()
            .find(|r| r.isa == isa)
            .and_then(|r| r.get(key))
            .map(|v| v.to_json())
    };
    assert_eq!(get("gfx803", "MaxVmcnt"), Some(serde_json::json!(15)));
    assert_eq!(get("gfx90a", "HasMFMA"), Some(serde_json::json!(true)));
    assert_eq!(get("gfx1030", "HasMFMA"), Some(serde_json::json!(false)));
    assert_eq!(get("gfx1030", "MaxLgkmcnt"), Some(serde_json::json!(15)));
    batched
}

#[test]
fn batched_equals_serial_with_clang_15() {
    let r = check(15, &["gfx941", "gfx942", "gfx1151", "gfx1200", "gfx000"]);
    // clang-15 lacks the kernarg-preload directives (reference §4, key 43).
    assert!(
        r.iter()
            .all(|r| r.get("KernargPreloading").map(|v| v.to_json())
                == Some(serde_json::json!(false)))
    );
}

#[test]
fn batched_equals_serial_with_clang_19() {
    let r = check(19, &["gfx950", "gfx1250", "gfx000"]);
    // Values of Tensile's own cache (ROCm/Tensile Tensile/AsmCaps.py, getCapabilitiesCache,
    // entries (9,0,10) and (9,4,2)), which Debian clang-19 reproduces (reference §5).
    let get = |isa: &str, key: &str| {
        r.iter()
            .find(|x| x.isa == isa)
            .and_then(|x| x.get(key))
            .map(|v| v.to_json())
    };
    for (isa, key, v) in [
        ("gfx90a", "KernargPreloading", true),
        ("gfx942", "KernargPreloading", true),
        ("gfx942", "v_mov_b64", true),
        ("gfx942", "HasGLCModifier", false),
        ("gfx942", "HasNTModifier", true),
        ("gfx942", "HasMFMA_bf16_original", false),
        ("gfx942", "v_mac_f32", false),
        ("gfx1030", "KernargPreloading", false),
    ] {
        assert_eq!(get(isa, key), Some(serde_json::json!(v)), "{isa} {key}");
    }
}

/// The rocm-6.2 WMMA operands: clang-19 rejects `v[0:7]` in wave64, so Tensile 6.2 says
/// HasWMMA=False on gfx110x where current Tensile says True (reference §4, key 9); both
/// methods agree on it.
#[test]
fn tensile_6_2_wmma_variant_with_clang_19() {
    let Some(clang) = crate::common::need_tool("/usr/lib/llvm-19/bin/clang++") else {
        return;
    };
    let h = host();
    let isas: Vec<String> = ["gfx1100", "gfx1101", "gfx1030"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let old = probe_all(&h, &clang, catalog(Compat::V6_2), &isas, false);
    let new = probe_all(&h, &clang, catalog(Compat::Current), &isas, false);
    assert_same(&clang, &old, &serial(&h, &clang, Compat::V6_2, &isas));
    let wmma = |rs: &[IsaResult], i: usize| rs[i].get("HasWMMA").map(|v| v.to_json());
    assert_eq!(wmma(&new, 0), Some(serde_json::json!(true)));
    assert_eq!(wmma(&old, 0), Some(serde_json::json!(false)));
    assert_eq!(wmma(&old, 2), Some(serde_json::json!(false)));
}
