//! The `libs` family (docs: `checks/libs.toml`). `libs.code-objects`: the key ROCm libraries
//! found on the machine, against the GPUs' (or `--isa`) target ids, plus the known issues for
//! what they carry. The reading and judging is `crate::inspect`'s, shared with `inspect`.

use super::{CheckFn, CheckId, Ctx};
use crate::binfacts::{file, runtime, tensile, tensile_path};
use crate::codeobj::blob;
use crate::inspect::judge;
use crate::inspect::targets;
use crate::report::Finding;

pub(crate) const CHECKS: &[(CheckId, CheckFn)] = &[(CheckId::LibsCodeObjects, code_objects)];

/// Libraries whose device code matters, by file stem: the one list, shared with the known
/// issues' `code-objects` probe.
use crate::known_issues::{Flag, KEY_LIBS};

/// The key libraries that ship a Tensile library directory named after them.
const WITH_TENSILE: &[&str] = &["rocblas", "hipblaslt"];

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
    for stem in KEY_LIBS {
        let tensile_name = WITH_TENSILE.contains(stem).then_some(*stem);
        let Some(lib) = runtime::find_lib(host, &dirs, stem) else {
            continue;
        };
        found_any = true;
        let r = file::inspect_file_shared(host, &lib.realpath);
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
        let mut where_looked: Vec<String> = Vec::new();
        if let Some(loader) = tensile_name.and_then(tensile_path::loader_for) {
            // Where this library's loader really looks (environment, its own candidates).
            let loc = tensile_path::locate(host, &loader, &lib.path);
            where_looked.push(format!(
                "{} looks in {} ({})",
                lib.path.display(),
                loc.dir.display(),
                loc.how
            ));
            where_looked.extend(loc.tried.iter().map(|(p, e)| {
                format!(
                    "  {} {}",
                    if *e { "exists " } else { "missing" },
                    p.display()
                )
            }));
            let mut t = tensile::inspect_dir(host, &loc.dir, loader.component, &bo);
            if t.version.is_none() {
                t.version = lib.version.clone();
            }
            if t.is_empty() {
                if loader.component == "rocblas" {
                    extra.push(Flag::TensileMissing);
                } else {
                    out.push(
                        Finding::fail(format!(
                            "{} has no Tensile library in {}",
                            loader.component,
                            loc.dir.display()
                        ))
                        .subject(subject.clone())
                        .evidence_lines(where_looked.clone())
                        .fix_text(format!(
                            "install {}'s kernel library where lib{stem} looks for \
                            it, or point {} at it",
                            loader.component, loader.env
                        )),
                    );
                }
            } else if !tg.is_empty() {
                out.extend(
                    judge::tensile_against_targets(&t, &tg)
                        .into_iter()
                        .map(|f| f.evidence_lines(where_looked.clone())),
                );
            }
        }
        out.extend(
            // Issues about what a file carries and the environment are the default run's
            // `known-issues.*` pack checks; the ones that need the Tensile directory stay here.
            judge::known_issues_where(&r, &extra, &versions, &env, &[], &|i| {
                !crate::known_issues::runs_on_machine(i)
            })
            .into_iter()
            .map(|f| {
                f.evidence_lines(where_looked.clone())
                    .evidence_lines(version_evidence.clone())
            }),
        );
    }
    if !found_any {
        out.push(
            Finding::skip(format!(
                "no key ROCm library ({}) found",
                KEY_LIBS
                    .iter()
                    .map(|s| format!("lib{s}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .evidence(format!(
                "searched: {}",
                dirs.paths()
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        );
    }
    // The engine stamps the findings with this check's id (`runner::guarded`).
    out
}
