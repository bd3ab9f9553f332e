//! Answers from where a line comes from (issue 28, item 1): a line attributed to a harvested
//! format (`checks/origins.toml`) whose family names a cause (`checks/origin-causes.toml`) is an
//! answer of that cause, for every tool that prints the message, whether or not a symptom was
//! ever written for its text. Pure.
//!
//! These answers read one line and what its printing code does; symptoms and the rules over
//! facts read more of the text (the GPU, the release, the platform). So they come after every
//! other answer, and add nothing when another answer already names the same cause.

use super::facts::{isa_reading, rule_symptom, verdict_symptoms, Derived, Facts, ISA_DECIDES};
use super::origins::{families, table, Family};
use super::Symptom;
use std::sync::OnceLock;

/// The symptoms of a family: its own, and, for a family of a cause whose message says a build
/// has no code for the GPU's ISA (`missing_isa_code` in checks/causes.toml), one per verdict of
/// the ISA its line names (supported, not built), in [`verdict_symptoms`]' order.
struct Symptoms {
    own: Symptom,
    by_verdict: Option<[Symptom; 2]>,
}

/// The symptoms of each family, in the table's order.
fn symptoms() -> &'static [Symptoms] {
    static S: OnceLock<Vec<Symptoms>> = OnceLock::new();
    S.get_or_init(|| {
        families()
            .iter()
            .map(|f| {
                let no_code = super::causes::get(&f.cause).is_some_and(|c| c.missing_isa_code);
                Symptoms {
                    own: symptom_of(
                        f,
                        &f.cause,
                        &f.fix,
                        "the line's origin (checks/origins.toml) and its family \
                         (checks/origin-causes.toml)",
                    ),
                    by_verdict: no_code.then(|| verdict_symptoms().map(|v| verdict_of(f, v))),
                }
            })
            .collect()
    })
}

/// Id `origin.<class>`, the cause's title, the family's reason and `fix`, harmless when the
/// cause is; `source` says what the answer reads.
fn symptom_of(f: &Family, class: &str, fix: &str, source: &str) -> Symptom {
    let cause = super::causes::get(class);
    let mut s = rule_symptom(
        &format!("origin.{class}"),
        cause.map_or(class, |c| c.title.as_str()),
        class,
        &f.reason,
        fix,
        source,
    );
    s.harmless = cause.is_some_and(|c| c.harmless);
    s
}

/// A family's symptom when its line names an ISA whose verdict is `v`: the verdict's fix (the
/// one wording of what to do for a supported ISA and for one ROCm does not build); the family's
/// cause, unless it is one of the causes the ISA facts decide between (an unsupported GPU or a
/// program without its code), where the verdict's cause is the answer.
fn verdict_of(f: &Family, v: &Symptom) -> Symptom {
    let decided = ISA_DECIDES.contains(&f.cause.as_str());
    let class = match v.class.as_deref() {
        Some(c) if decided => c,
        _ => f.cause.as_str(),
    };
    symptom_of(
        f,
        class,
        &v.fix,
        "the line's origin (checks/origins.toml), its family (checks/origin-causes.toml) and the \
         ISA facts of the ISA it names (checks/why-facts.toml)",
    )
}

/// The ISA a line of a family names as missing: the first open part of the line (a capture of
/// its format, or the rest after the match, `Table::open_parts`) that names exactly one processor
/// `crate::isa` knows. A part naming several, or a bracketed list, is a list of what a build has
/// (ollama's supported types), not the GPU's.
fn missing_isa(parts: &[String]) -> Option<String> {
    parts.iter().find_map(|p| {
        if p.trim_start().starts_with('[') {
            return None;
        }
        let mut found: Vec<&str> = isas_in(p)
            .filter(|g| crate::isa::processor(g).is_some())
            .collect();
        found.dedup();
        match found.as_slice() {
            [one] => Some(one.to_string()),
            _ => None,
        }
    })
}

/// The `gfx` names in `s` that stand alone: no letter or digit right before or after them (an
/// `_`, `*`, `-` or `.` may be: `TensileLibrary_lazy_gfx1151.dat`, `*gfx906*co`).
fn isas_in(s: &str) -> impl Iterator<Item = &str> {
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    let re = super::facts::re(&RE, isa_name!());
    let b = s.as_bytes();
    re.find_iter(s).filter_map(move |m| {
        let alnum = |i: Option<usize>| {
            i.and_then(|i| b.get(i))
                .is_some_and(u8::is_ascii_alphanumeric)
        };
        (!alnum(m.start().checked_sub(1)) && !alnum(Some(m.end()))).then_some(m.as_str())
    })
}

/// One answer per cause, from the first line of the text whose family names it. A line of a
/// family of a "no code for this ISA" cause that names the ISA carries the ISA's reasoning
/// ([`isa_reading`], with the release facts `f` of the text) and its verdict's fix, and takes the
/// place of an earlier answer of the same cause from a line that named none (rocBLAS prints
/// "Could not initialize Tensile library" without the ISA, and its glob with it).
pub(crate) fn rules(text: &str, f: &Facts) -> Vec<Derived> {
    let fams = families();
    let mut out: Vec<Derived> = Vec::new();
    for a in table().attribute(text) {
        let Some(fam) = a.cause() else { continue };
        if fam.not_on_nvidia
            && super::stack::nvidia_machine(text)
            && !f.shows(super::vendors::Vendor::Amd)
        {
            continue;
        }
        let Some(i) = fams.iter().position(|g| std::ptr::eq(g, fam)) else {
            continue;
        };
        let s = &symptoms()[i];
        // A line whose every possible answer is given already, with the ISA where it can carry
        // one, adds nothing (a log repeats its lines).
        let given = |sy: &Symptom| {
            out.iter()
                .any(|d| d.symptom.class == sy.class && (s.by_verdict.is_none() || has_isa(d)))
        };
        if given(&s.own) && s.by_verdict.iter().flatten().all(given) {
            continue;
        }
        let why = format!(
            "line {} is printed by {}: {}",
            a.line_no,
            a.printed_by(),
            fam.reason
        );
        let read = s.by_verdict.as_ref().and_then(|v| {
            let isa = missing_isa(&table().open_parts(a.origin, a.line))?;
            let named = format!("{isa} (named in line {} as missing)", a.line_no);
            let r = isa_reading(text, a.line, &isa, &named, f)?;
            Some((&v[usize::from(!r.supported)], isa, r.reasoning))
        });
        let (sy, captures) = match read {
            Some((sy, isa, r)) => (
                sy,
                vec![
                    ("isa".to_string(), isa),
                    ("reasoning".to_string(), format!("{why}; {r} ({FROM})")),
                ],
            ),
            None => (
                &s.own,
                vec![("reasoning".to_string(), format!("{why} ({FROM})"))],
            ),
        };
        let d = Derived {
            symptom: sy,
            line: a.line.chars().take(300).collect(),
            captures,
            defers_to: &[],
            overrules: &[],
        };
        match out.iter().position(|e| e.symptom.class == sy.class) {
            Some(j) if has_isa(&d) && !has_isa(&out[j]) => out[j] = d,
            Some(_) => {}
            None => out.push(d),
        }
    }
    out
}

/// Whether an answer carries the ISA its line names.
fn has_isa(d: &Derived) -> bool {
    d.captures.iter().any(|(k, _)| k == "isa")
}

const FROM: &str = "from the text; this machine was not asked";

#[cfg(test)]
mod tests {
    use super::super::why::recognise;
    use super::test_support::{answers, family_causes};
    use super::*;
    use crate::registry::sources;

    fn answer(text: &str) -> Vec<(String, String)> {
        recognise(&sources::built_in(), text)
            .iter()
            .map(|h| {
                let class = h.symptom.class.clone().unwrap_or_default();
                (h.symptom.id.clone(), class)
            })
            .collect()
    }

    /// rocBLAS's "Cannot read" with an ISA the symptoms do not name: the family answers.
    /// The line as ollama's Windows build printed it (ollama/ollama#3107, in tests/corpus).
    #[test]
    fn a_line_of_a_family_is_an_answer_of_its_cause() {
        let t = "rocBLAS error: Cannot read C:\\Users\\user\\AppData\\Local\\Programs\\Ollama\\\
                 rocm\\/rocblas/library/TensileLibrary.dat: No such file or directory for GPU \
                 arch : gfx1032.\n";
        let d = answers(t);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].symptom.id, "origin.lib-rocblas-data");
        let why = d[0].reasoning();
        assert!(why.contains("tensile_host.cpp"), "{why}");
        assert!(answer(t).iter().any(|(_, c)| c == "lib-rocblas-data"));
    }

    /// The part of the line the format leaves open decides: rocminfo's `/dev/kfd` open failing
    /// with EINVAL is not a permission (rocminfo.cc prints the errno's text).
    #[test]
    fn the_open_part_of_the_line_decides_the_family() {
        let denied = "Unable to open /dev/kfd read-write: Permission denied\n";
        assert_eq!(answers(denied).len(), 1);
        assert_eq!(answers(denied)[0].symptom.id, "origin.gpu-kfd-permission");
        let invalid = "Unable to open /dev/kfd read-write: Invalid argument\n";
        assert!(answers(invalid).is_empty());
    }

    /// An answer that reads more of the text keeps its place; the family's answer of another
    /// cause follows it, and one of the same cause adds nothing.
    #[test]
    fn family_answers_come_after_the_answers_that_read_more() {
        let t = "ROCk module is NOT loaded, possibly no GPU devices\n\
                 hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n";
        let a = answer(t);
        assert!(!a.is_empty());
        let fam: Vec<usize> = a
            .iter()
            .enumerate()
            .filter(|(_, (id, _))| id.starts_with("origin."))
            .map(|(i, _)| i)
            .collect();
        let others = a.len() - fam.len();
        assert!(fam.iter().all(|&i| i >= others), "{a:?}");
        let mut classes: Vec<&str> = a.iter().map(|(_, c)| c.as_str()).collect();
        let n = classes.len();
        classes.sort();
        classes.dedup();
        assert_eq!(classes.len(), n, "one answer per cause: {a:?}");
    }

    /// A harmless family (MIOpen compiling the kernels it has no database for) is harmless.
    #[test]
    fn a_harmless_cause_stays_harmless() {
        for (f, s) in families().iter().zip(symptoms()) {
            let harmless = super::super::causes::get(&f.cause).is_some_and(|c| c.harmless);
            assert_eq!(s.own.harmless, harmless, "{}", f.contains);
            assert!(!s.own.fix.trim().is_empty(), "{} has no fix", f.contains);
        }
        assert!(symptoms().iter().any(|s| s.own.harmless));
    }

    /// Real printed lines of the runtime, driver and toolchain families (each with where it was
    /// printed) and the cause each gives: a line of every row of that section of
    /// checks/origin-causes.toml.
    const RUNTIME_LINES: &[(&str, &str)] = &[
        // https://github.com/ROCm/ROCm/issues/6143 (Strix Halo, amdgpu.gttsize=98304 with a
        // smaller TTM limit)
        ("[    3.539803] amdgpu 0000:c5:00.0: amdgpu: [drm] GTT size has been set as \
          103079215104 but TTM size has been set as 16638816256, this is unusual",
         "mem-apu-gtt"),
        // tests/corpus (tuning): co-miopen-84-gfx803-bwd-wrw-fault (ROCm/MIOpen#84)
        ("Memory access fault by GPU node-1 (Agent handle: 0x1f3c420) on address 0xa9be14000. \
          Reason: Page not present or supervisor privilege.", "mem-access-fault"),
        // tests/corpus (tuning): stack-rocm-1583-radeon-pro-vii-dkms-added-only
        ("HSA Error:  Incompatible kernel and userspace, Vega 20 WKS GL-XE [Radeon Pro VII] \
          disabled. Upgrade amdgpu.", "gpu-driver-missing"),
        // https://github.com/ROCm/legacy-rocm-build/issues/6137 (W7900, AMR-Wind)
        ("HW Exception by GPU node-1 (Agent handle: 0x1b0fc990) reason :GPU Hang",
         "gpu-hang-reset"),
        // https://github.com/lamikr/rocm_sdk_builder/issues/141 (gfx1103, PyTorch)
        ("HW Exception by GPU node-1 (Agent handle: 0x5ab48bbcc960) reason :GPU Hang",
         "gpu-hang-reset"),
        // printed by hipcc of Debian sid's HIP 6.4 (scripts/in-root.sh, `--offload-arch=gfx90a:foo+`)
        ("Warning: The Feature: foo+ is unknown. Correct compilation is not guaranteed.",
         "codeobj-xnack-sramecc"),
        // tests/corpus (tuning): gpu-rocm-2232-pitcairn-not-supported-in-kfd
        ("[    3.548555] kfd kfd: amdgpu: PITCAIRN  not supported in kfd", "gpu-unsupported-asic"),
        // https://github.com/ROCm/legacy-rocm-build/issues/3265
        ("May 26 18:09:55 fedora kernel: amdgpu 0000:03:00.0: amdgpu: MES might be in \
          unrecoverable state, issue a GPU reset", "gpu-hang-reset"),
        // https://github.com/ollama/ollama/issues/738
        ("[75287.322365] amdgpu 0000:03:00.0: amdgpu: HIQ MQD's queue_doorbell_id0 is not 0, \
          Queue preemption time out", "gpu-hang-reset"),
        // tests/corpus (tuning): gpu-rocmlibs-1132-gfx1151-hang-page-fault
        ("Aug 08 22:35:13 ultrabook-jaap kernel: amdgpu 0000:c3:00.0: amdgpu: [gfxhub] page \
          fault (src_id:0 ring:24 vmid:8 pasid:32794)", "mem-access-fault"),
        // tests/corpus (tuning): co-rocm-5616-mes-firmware-fault
        ("[   67.058812] amdgpu 0000:c4:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00800932",
         "mem-access-fault"),
        // https://github.com/ROCm/legacy-rocm-build/issues/759 (gmc_v8, RX 580)
        ("[  +0.000002] amdgpu 0000:20:00.0:   VM_CONTEXT1_PROTECTION_FAULT_STATUS 0x12048001",
         "mem-access-fault"),
        // https://github.com/pop-os/cosmic-epoch/issues/3764
        ("[  312.774536] amdgpu 0000:28:00.0: GPU reset begin!. Source:  1", "gpu-hang-reset"),
        // https://github.com/ROCm/legacy-rocm-build/issues/6018
        ("[73328.543914] amdgpu 0000:c5:00.0: amdgpu: GPU reset(2) succeeded!", "gpu-hang-reset"),
        // https://github.com/ROCm/legacy-rocm-build/issues/3265
        ("May 26 18:09:57 fedora kernel: amdgpu 0000:03:00.0: amdgpu: IP block:gfx_v11_0 is hung!",
         "gpu-hang-reset"),
        // tests/corpus (tuning): fresh6-legacy-rocm-build-909-rocprof-tracer-tool-roctracer-dev
        ("Tool lib \"/opt/rocm/roctracer/tool/libtracer_tool.so\" failed to load.",
         "lib-missing"),
        // https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/331
        ("[    4.825578] [drm:gmc_v8_0_sw_init [amdgpu]] *ERROR* Failed to load mc firmware!",
         "gpu-firmware"),
        ("[    4.825152] amdgpu: mc: Failed to load firmware \"amdgpu/polaris12_mc.bin\"",
         "gpu-firmware"),
        // tests/corpus (tuning): gpu-rocm-1357-mi100-arcturus-gpu-info-missing
        ("[    9.605988] amdgpu 0000:23:00.0: Failed to load gpu_info firmware \
          \"amdgpu/arcturus_gpu_info.bin\"", "gpu-firmware"),
        // https://github.com/freebsd/drm-kmod-firmware/issues/27
        ("May 15 22:34:16 Home kernel: drmn0: failed to init sos firmware", "gpu-firmware"),
        // printed by Debian 12's clang-15 (`-x hip --rocm-path=/nonexistent`)
        ("clang: error: cannot find ROCm device library; provide its path via '--rocm-path' or \
          '--rocm-device-lib-path', or pass '-nogpulib' to build without ROCm device library",
         "build-device-libs"),
        // tests/corpus (tuning): build-onemath-687-abi-version-6-rocm-6-2
        ("clang++: error: cannot find ROCm device library for ABI version 6, which requires ROCm \
          6.3 or higher; provide its path via '--rocm-path' or '--rocm-device-lib-path', or pass \
          '-nogpulib' to build without ROCm device library", "build-device-libs-abi"),
        // printed by Debian 12's clang-15 (`-x hip --rocm-path=/nonexistent`)
        ("clang: error: cannot find HIP runtime; provide its path via '--rocm-path', or pass \
          '-nogpuinc' to build without HIP runtime", "build-hipcc-config"),
        // printed by Debian 12's clang-15 (`-x hip --offload-arch=gfx1200`)
        ("clang: error: invalid target ID 'gfx1200'; format is a processor name followed by an \
          optional colon-delimited list of features followed by an enable/disable sign (e.g., \
          'gfx908:sramecc+:xnack-')", "build-unknown-target"),
        // printed by Debian 12's clang-15 (`--offload-arch=gfx90a:xnack+ --offload-arch=gfx90a`)
        ("clang: error: invalid offload arch combinations: 'gfx90a' and 'gfx90a:xnack+' (for a \
          specific processor, a feature should either exist in all offload archs, or not exist \
          in any offload archs)", "codeobj-xnack-sramecc"),
        // https://github.com/ROCm/legacy-rocm-build/issues/5595 (Strix Halo, GTT limited)
        ("[    3.646006] amdgpu 0000:c6:00.0: amdgpu: [drm] Configuring gttsize via module \
          parameter is deprecated, please use ttm.pages_limit", "mem-apu-gtt"),
        // https://github.com/kernelci/kernelci-core/pull/2238 (the TOC blob missing from the
        // image; adding it was the fix)
        ("[    3.586367] amdgpu 0000:04:00.0: amdgpu: fail to request/validate toc microcode",
         "gpu-firmware"),
        ("[    3.576634] amdgpu 0000:04:00.0: Direct firmware load for amdgpu/psp_13_0_8_toc.bin \
          failed with error -2", "gpu-firmware"),
        // AMD's "[PATCH 0/2] Recover from failure to probe GPU", its sample of missing firmware:
        // https://lore.kernel.org/dri-devel/20221222183012.1046-1-mario.limonciello@amd.com/
        ("[    5.955502] amdgpu 0000:63:00.0: Direct firmware load for amdgpu/yellow_carp_toc.bin \
          failed with error -2", "gpu-firmware"),
    ];

    #[test]
    fn runtime_driver_and_toolchain_lines_give_their_cause() {
        for (line, cause) in RUNTIME_LINES {
            let got = family_causes(&format!("{line}\n"));
            assert_eq!(got, vec![cause.to_string()], "{line}");
        }
        // Every row of the section is exercised by one of the lines above.
        let fams = families();
        let start = fams
            .iter()
            .position(|f| f.contains == "Memory access fault by GPU node")
            .expect("the section's first row");
        // The section ends where the libraries' section (library_families.rs) starts.
        let end = fams
            .iter()
            .position(|f| f.component == "rocblas" && f.contains == "No paths matched ")
            .unwrap_or(fams.len());
        for f in &fams[start..end] {
            let hit = RUNTIME_LINES.iter().any(|(line, _)| {
                table()
                    .attribute(line)
                    .iter()
                    .any(|a| a.cause().is_some_and(|g| std::ptr::eq(g, f)))
            });
            assert!(hit, "no real line for the row {:?}", f.contains);
        }
    }

    /// Lines of close formats whose code does not decide these causes give no family answer:
    /// the optional PSP TA firmware (the driver goes on without it:
    /// ROCm/legacy-rocm-build#912), the kernel loader's own line for it, HIP compiled as CUDA
    /// (stable-diffusion.cpp#464), rocminfo naming the platform, and rocminfo's `/dev/kfd` open
    /// failing with an errno other than a permission's.
    #[test]
    fn close_lines_that_decide_nothing_give_no_family() {
        for line in [
            "[    3.353886] amdgpu 0000:19:00.0: psp v11.0: Failed to load firmware \
             \"amdgpu/vega20_ta.bin\"",
            "[    3.353884] amdgpu 0000:19:00.0: Direct firmware load for amdgpu/vega20_ta.bin \
             failed with error -2",
            "clang++: error: unsupported CUDA gpu architecture: gfx1100",
            "WSL environment detected.",
            // https://github.com/ROCm/legacy-rocm-build/issues/1204 (EFAULT, not a permission)
            "Unable to open /dev/kfd read-write: Bad address",
        ] {
            assert!(family_causes(&format!("{line}\n")).is_empty(), "{line}");
        }
    }

    /// Real lines of harvested formats judged to have no single cause (the header of
    /// checks/origin-causes.toml says why for each): each is attributed to its format, and no
    /// family answers it.
    #[test]
    fn attributed_lines_of_several_causes_give_no_family() {
        for line in [
            // https://github.com/ROCm/legacy-rocm-build/issues/1318 (Navi 14 under a KFD without
            // gfx10); legacy-rocm-build#719 prints the same for a Picasso APU under a kernel
            // older than it: two causes
            "[    2.244241] kfd kfd: DID 7340 is missing in supported_devices",
            "[    2.244243] kfd kfd: kgd2kfd_probe failed",
            // the end of every init failure: the TOC missing (kernelci/kernelci-core#2238)
            // here, a driver without a firmware type (FreeBSDDesktop/kms-drm#206) elsewhere
            "[    3.600359] [drm:amdgpu_device_ip_init] *ERROR* sw_init of IP block <psp> \
             failed -2",
            // https://github.com/ROCm/legacy-rocm-build/issues/384
            "[    1.492690] [drm:psp_hw_init [amdgpu]] *ERROR* PSP firmware loading failed",
            "[    1.492719] [drm:amdgpu_device_init [amdgpu]] *ERROR* hw_init of IP block <psp> \
             failed -22",
            // https://github.com/ROCm/legacy-rocm-build/issues/2747 (a defective bridge)
            "[Mon Dec 18 08:34:36 2023] [drm:psp_hw_start [amdgpu]] *ERROR* PSP create ring \
             failed!",
            // https://github.com/ROCm/legacy-rocm-build/issues/1320 (Radeon VII, hardware)
            "[drm:atom_op_jump [amdgpu]] *ERROR* atombios stuck in loop for more than 5secs \
             aborting",
            "amdgpu 0000:67:00.0: gpu post error!",
            // https://github.com/ROCm/TheRock/issues/3942 (caught, and the tests pass)
            "MIOpen(HIP): Error [C:/home/runner/_work/TheRock/TheRock/rocm-libraries/projects/\
             miopen/src/include\\miopen/conv/heuristics/ai_heuristics.hpp:62] Unable to load \
             file: gfx908_metadata.tn.model",
            // https://github.com/pytorch/pytorch/pull/126942 (a kdb journalled in WAL mode, not
            // writable by the CI user; ROCm/MIOpen#2214 is a locking protocol on a shared disk)
            "MIOpen Error: /long_pathname_so_that_rpms_can_package_the_debug_info/src/extlibs/\
             MLOpen/src/sqlite_db.cpp:229: Internal error while accessing SQLite database: \
             unable to open database file",
            // https://github.com/ROCm/amdsmi/issues/172 (amdgpu built in), the same lines under
            // WSL in https://github.com/ROCm/amdsmi/issues/75
            "ERROR:root:Unable to get devices, driver not initialized (amdgpu not found in \
             modules)",
            "ERROR:root:Unable to detect any GPU devices, check amdgpu version and module status \
             (sudo modprobe amdgpu)",
            // https://github.com/ROCm/legacy-rocm-build/issues/2767 (the DKMS module not loaded)
            "ERROR:root:Driver not initialized (amdgpu not found in modules)",
            // https://github.com/JuliaGPU/AMDGPU.jl/pull/95 (harmless)
            "'+fp64-fp16-denormals' is not a recognized feature for this target (ignoring \
             feature)",
        ] {
            let attributed = table().attribute(line);
            assert!(!attributed.is_empty(), "not attributed: {line}");
            assert!(attributed.iter().all(|a| a.cause().is_none()), "{line}");
            assert!(family_causes(&format!("{line}\n")).is_empty(), "{line}");
        }
    }

    /// No harvested format is claimed by two families of different causes, unless the earlier
    /// one asks the line for more (`line_has`), so that the order of the rows decides nothing
    /// else.
    #[test]
    fn no_format_has_two_families_of_different_causes() {
        for o in &table().origins {
            let fams: Vec<&Family> = families()
                .iter()
                .filter(|f| f.component == o.component && o.format.contains(f.contains.as_str()))
                .collect();
            for (i, f) in fams.iter().enumerate() {
                for g in &fams[i + 1..] {
                    assert!(
                        f.cause == g.cause || !f.line_has.is_empty(),
                        "{:?} is claimed by {:?} ({}) and {:?} ({})",
                        o.format,
                        f.contains,
                        f.cause,
                        g.contains,
                        g.cause
                    );
                }
            }
        }
    }
}

/// The families of the libraries and applications (rocBLAS, hipBLASLt, MIOpen, ollama), each
/// against lines their programs printed in public threads.
#[cfg(test)]
mod library_families;

/// A family line naming the ISA it has no code for, against the ISA facts.
#[cfg(test)]
mod isa_families;

/// What the tests of the family answers share.
#[cfg(test)]
mod test_support;
