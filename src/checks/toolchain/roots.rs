//! `toolchain.rocm-root` and `toolchain.versions`.

use crate::checks::Ctx;
use crate::inventory::roots::{Layout, RocmRoot};
use crate::inventory::versions::{major_minor, VersionFact};
use crate::report::{Finding, Fix};

pub(crate) fn rocm_root(ctx: &Ctx) -> Vec<Finding> {
    let roots = ctx.inv.roots();
    let Some(primary) = roots.first() else {
        return vec![Finding::fail("no ROCm installation found")
            .evidence(
                "looked at: --rocm-path, ROCM_PATH, HIP_PATH, ROCM_HOME, HIP_CLANG_PATH, \
                HIP_DEVICE_LIB_PATH, DEVICE_LIB_PATH, hipcc/hipconfig/amdclang++ on PATH, \
                /opt/rocm*, /usr",
            )
            .fix(
                Fix::text(
                    "Install ROCm (AMD's packages, or your distribution's: on \
                Debian/Ubuntu `apt install hipcc rocm-device-libs libamdhip64-dev`), or point \
                ROCM_PATH at an existing install root.",
                )
                .command(
                    "sudo apt install hipcc rocm-device-libs libamdhip64-dev libamd-comgr-dev",
                ),
            )];
    };
    let mut out = Vec::new();
    let p = &primary.parts;
    let mut missing = Vec::new();
    if p.hip_headers.is_none() {
        missing.push("HIP headers (include/hip/hip_runtime.h)");
    }
    // Bitcode need not sit under the root: current LLVM keeps it in clang's resource dir
    // (Debian 13 and later). Only when clang links none either is it missing from the install.
    let clang_bitcode = if p.bitcode_dirs.is_empty() && primary.layout != Layout::NixSplit {
        // A clang that cannot run here (another root) is not asked: its bitcode is found as files.
        let d = ctx.inv.hip_driver().bitcode_dir().or_else(|| {
            ctx.inv.cannot_run_here()?;
            ctx.inv
                .device_libs()
                .dirs
                .iter()
                .find(|d| d.is_complete())
                .map(|d| d.path.clone())
        });
        if d.is_none() {
            missing.push("device-library bitcode (amdgcn/bitcode)");
        }
        d
    } else {
        None
    };
    let mut f = if missing.is_empty() || primary.layout == Layout::NixSplit {
        Finding::pass(format!(
            "ROCm root {} ({})",
            primary.path.display(),
            primary.layout.describe()
        ))
    } else {
        Finding::warn(format!(
            "ROCm root {} lacks {}",
            primary.path.display(),
            missing.join(" and ")
        ))
        .fix(Fix::text(format!(
            "Point ROCM_PATH at a root that holds the whole toolchain, or install the missing \
                    parts ({}). In Nix, use a symlinkJoin of clr, rocm-device-libs and the \
                    compiler as ROCM_PATH.",
            missing.join(", ")
        )))
    };
    f = f.evidence(root_evidence(primary));
    if let Some(d) = clang_bitcode {
        f = f.evidence(format!(
            "device-library bitcode: clang's own {} (not under the root)",
            d.display()
        ));
    }
    for r in roots.iter().skip(1) {
        f = f.evidence(format!("also found: {}", root_evidence(r)));
    }
    out.push(f);
    out
}

fn root_evidence(r: &RocmRoot) -> String {
    let p = &r.parts;
    let mut s = format!(
        "{} [{}; from {}]",
        r.path.display(),
        r.layout.describe(),
        r.sources.join(", ")
    );
    if r.canonical != r.path {
        s.push_str(&format!(" -> {}", r.canonical.display()));
    }
    if let Some(v) = &r.versions.rocm {
        s.push_str(&format!("; ROCm {} ({})", v.version, v.source.display()));
    }
    if let Some(v) = &r.versions.hip {
        s.push_str(&format!("; HIP {} ({})", v.version, v.source.display()));
    }
    if !p.bitcode_dirs.is_empty() {
        s.push_str(&format!(
            "; bitcode {}",
            p.bitcode_dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(c) = &p.clang {
        s.push_str(&format!("; clang {}", c.display()));
    }
    s
}

/// Components of one install must come from one release: ROCm's version file, HIP's version
/// header, the HIP runtime the loader resolves, and every ROCm root the environment points at.
pub(crate) fn versions(ctx: &Ctx) -> Vec<Finding> {
    let roots = ctx.inv.roots();
    let facts = version_facts(ctx);
    if facts.is_empty() {
        return vec![from_hipconfig(ctx)];
    }
    let mut out = Vec::new();
    let evidence: Vec<String> = facts
        .iter()
        .map(|(what, f)| format!("{what}: {} ({})", f.version, f.source.display()))
        .collect();
    // HIP's major.minor equals ROCm's (code-objects.md §5); compare major.minor only.
    let mm: Vec<(u32, u32)> = facts
        .iter()
        .filter_map(|(_, f)| major_minor(&f.version))
        .collect();
    let distinct: std::collections::BTreeSet<_> = mm.iter().collect();
    if distinct.len() > 1 {
        out.push(
            Finding::fail(format!(
                "components of different releases: {}",
                facts
                    .iter()
                    .map(|(w, f)| format!("{w} {}", f.version))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .evidence_lines(evidence)
            .fix(Fix::text(
                "Use one release everywhere: point ROCM_PATH (and HIP_PATH) at the \
                install whose runtime the loader resolves, or fix LD_LIBRARY_PATH / ld.so.conf so \
                the runtime comes from the same root. Remove stale installs.",
            )),
        );
    } else {
        out.push(
            Finding::pass(format!(
                "one release: {}",
                facts
                    .iter()
                    .map(|(w, f)| format!("{w} {}", f.version))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .evidence_lines(evidence),
        );
    }
    out.extend(several_releases(roots));
    out
}

/// The versions the install states: ROCm's version file and HIP's version header (of the
/// primary root), and the HIP runtime the loader resolves.
fn version_facts(ctx: &Ctx) -> Vec<(String, VersionFact)> {
    let roots = ctx.inv.roots();
    let mut facts: Vec<(String, VersionFact)> = Vec::new();
    if let Some(r) = roots.first() {
        if let Some(v) = &r.versions.rocm {
            facts.push(("ROCm (root)".into(), v.clone()));
        }
        if let Some(v) = &r.versions.hip {
            facts.push(("HIP headers".into(), v.clone()));
        }
    }
    let libs = ctx.inv.libraries();
    if let Some(h) = libs.iter().find(|l| l.name == "amdhip64") {
        if let (Some(v), Some(p)) = (&h.version, &h.realpath) {
            facts.push((
                format!("HIP runtime ({})", h.how),
                VersionFact {
                    version: v.clone(),
                    source: p.clone(),
                },
            ));
        }
    }
    facts
}

/// No version file: hipconfig prints the HIP version, else nothing is known.
fn from_hipconfig(ctx: &Ctx) -> Finding {
    // Tools second: hipconfig prints the HIP version (`5.2.21153-0`).
    if let Some(hc) = ctx
        .inv
        .primary_root()
        .and_then(|r| r.parts.hipconfig.clone())
        .or_else(|| ctx.host.which("hipconfig"))
    {
        let o = ctx
            .host
            .run(&crate::host::CommandSpec::new(&hc).arg("--version"));
        let v = o
            .stdout_text()
            .trim()
            .split('-')
            .next()
            .unwrap_or("")
            .to_string();
        if o.success() && major_minor(&v).is_some() {
            return Finding::pass(format!(
                "HIP {v} (from `hipconfig --version`; no version files found)"
            ))
            .evidence(format!("$ {}", o.command));
        }
    }
    Finding::skip(
        "no version information found (no .info/version, hip_version.h, \
        share/hip/version or versioned libamdhip64)",
    )
}

/// Several versioned installs side by side are normal, but say which one is judged.
fn several_releases(roots: &[RocmRoot]) -> Option<Finding> {
    let versions: Vec<String> = roots
        .iter()
        .filter_map(|r| {
            r.versions
                .rocm
                .as_ref()
                .map(|v| format!("{} = {}", r.path.display(), v.version))
        })
        .collect();
    if versions.len() > 1 {
        let distinct: std::collections::BTreeSet<_> = roots
            .iter()
            .filter_map(|r| r.versions.rocm.as_ref().map(|v| v.version.clone()))
            .collect();
        if distinct.len() > 1 {
            return Some(
                Finding::warn(format!(
                    "{} ROCm releases installed; judging {}",
                    distinct.len(),
                    roots[0].path.display()
                ))
                .evidence_lines(versions)
                .fix(Fix::text(
                    "Make sure every tool uses the same one: set ROCM_PATH \
                        explicitly, and check `/opt/rocm` points at it.",
                )),
            );
        }
    }
    None
}
