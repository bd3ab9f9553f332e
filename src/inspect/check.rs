//! The default-run check `libs.code-objects`: the key ROCm libraries found on the machine,
//! against the GPUs' (or `--isa`) target ids, plus the known issues for what they carry.

use super::judge::{self, stamp};
use super::{file, runtime, targets, tensile};
use crate::checks::{CheckFn, Ctx};
use crate::codeobj::blob;
use crate::report::Finding;

pub const CHECKS: &[(&str, CheckFn)] = &[(judge::ID, code_objects)];

/// Libraries whose device code matters, by file stem, with their Tensile directory if any.
const KEY_LIBS: &[(&str, Option<&str>)] = &[
    ("rocblas", Some("rocblas")),
    ("hipblaslt", Some("hipblaslt")),
    ("MIOpen", None),
    ("amdhip64", None),
];

fn code_objects(ctx: &Ctx) -> Vec<Finding> {
    let inv = ctx.inv;
    let host = ctx.host;
    let tg = targets(inv);
    let dirs = runtime::library_dirs(inv);
    let (versions, version_evidence) = runtime::versions(inv);
    let env = |k: &str| host.env.get_str(k);
    let bo = blob::Options::default();
    let mut out = Vec::new();
    let mut found_any = false;
    for (stem, tensile_name) in KEY_LIBS {
        let Some(lib) = runtime::find_lib(host, &dirs, stem) else {
            continue;
        };
        found_any = true;
        let r = file::inspect_file(host, &lib.realpath, &bo);
        let subject = lib.realpath.display().to_string();
        if let Some(e) = &r.error {
            out.push(Finding::error(format!("cannot inspect lib{stem}: {e}")).subject(subject));
            continue;
        }
        out.extend(judge::read_problems(&r));
        if !r.has_device_code() {
            out.push(
                Finding::skip(format!("lib{stem} carries no HIP device code of its own"))
                    .subject(subject.clone()),
            );
        } else if tg.is_empty() {
            out.push(
                Finding::skip(format!(
                    "lib{stem} carries {}; no GPU agents or --isa to match against",
                    r.isas.join(", ")
                ))
                .subject(subject.clone()),
            );
        } else {
            out.extend(judge::file_against_targets(&r, &tg));
        }
        let mut extra = Vec::new();
        if let Some(tn) = tensile_name {
            let dir = lib.path.parent().map(|p| p.join(tn).join("library"));
            if let Some(dir) = dir {
                let t = tensile::inspect_dir(host, &dir, tn, &bo);
                if t.is_empty() {
                    if *tn == "rocblas" {
                        extra.push("dir.tensile-missing");
                    } else {
                        out.push(
                            Finding::fail(format!(
                                "{tn} has no Tensile library in {}",
                                dir.display()
                            ))
                            .subject(subject.clone())
                            .fix_text(format!("install {tn}'s kernel library next to lib{stem}")),
                        );
                    }
                } else if !tg.is_empty() {
                    out.extend(judge::tensile_against_targets(&t, &tg));
                }
            }
        }
        out.extend(
            judge::known_issues_for(&r, &extra, &versions, &env, &[])
                .into_iter()
                .map(|f| f.evidence_lines(version_evidence.clone())),
        );
    }
    if !found_any {
        out.push(
            Finding::skip(
                "no key ROCm library (librocblas, libhipblaslt, libMIOpen, libamdhip64) found",
            )
            .evidence(format!(
                "searched: {}",
                dirs.iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        );
    }
    out.into_iter().map(stamp).collect()
}
