//! The `libs` family (docs: `checks/libs.toml`). `libs.code-objects`: the key ROCm libraries
//! found on the machine, against the GPUs' (or `--isa`) target ids, plus the known issues for
//! what they carry. The reading and judging is `crate::inspect`'s, shared with `inspect`.

use super::{CheckFn, CheckId, Ctx};
use crate::binfacts::runtime::FoundLib;
use crate::binfacts::tensile_path::Loader;
use crate::binfacts::{file, runtime, tensile, tensile_path};
use crate::codeobj::blob;
use crate::host::Host;
use crate::inspect::judge;
use crate::inspect::targets;
use crate::inspect::Target;
use crate::report::{Finding, Fix};
use std::collections::BTreeSet;

pub(crate) const CHECKS: &[(CheckId, CheckFn)] = &[
    (CheckId::LibsCodeObjects, code_objects),
    (CheckId::LibsPythonEnvs, python_envs),
];

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
        let (where_looked, extra) = match tensile_name.and_then(tensile_path::loader_for) {
            Some(loader) => judge_tensile(host, &loader, stem, &lib, &subject, &tg, &mut out),
            None => (Vec::new(), Vec::new()),
        };
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

/// `libs.python-envs`: every ROCm-bearing Python environment found by file reads
/// (`binfacts::pyenv`), and whether each ships kernels for every GPU's ISA.
fn python_envs(ctx: &Ctx) -> Vec<Finding> {
    use crate::binfacts::pyenv;
    let scan = pyenv::scan(ctx.host);
    let mut out: Vec<Finding> = scan
        .problems
        .iter()
        .map(|p| Finding::skip(format!("a Python site directory could not be read: {p}")))
        .collect();
    if scan.envs.is_empty() {
        out.push(Finding::skip(format!(
            "no ROCm-bearing Python environment found (looked in {} site directories, by file \
             reads)",
            scan.site_dirs
        )));
        return out;
    }
    let t = ctx.inv.gpu();
    // The ISA ROCr loads code for on each GPU: its own, or the override's.
    let mut gpus: Vec<(String, String, Option<String>)> = t
        .agents
        .iter()
        .filter(|a| a.excluded.is_none())
        .filter_map(|a| {
            let own = a.gfx.clone()?;
            let ovr = a.override_.as_ref().and_then(|o| {
                o.gfx
                    .clone()
                    .map(|g| (g, format!("{}={}", o.variable, o.value)))
            });
            Some(match ovr {
                Some((g, how)) => (own, g, Some(how)),
                None => (own.clone(), own, None),
            })
        })
        .collect();
    gpus.sort();
    gpus.dedup();
    for env in &scan.envs {
        out.extend(judge_env(env, &gpus, !t.environment.wsl.is_empty()));
    }
    out
}

/// The lines that say what an environment is and ships (evidence; `-v` and `--json`).
fn env_evidence(env: &crate::binfacts::pyenv::PyEnv) -> Vec<String> {
    let mut v = vec![format!("site directory {}", env.site.display())];
    if let Some(t) = &env.torch {
        v.push(format!(
            "torch/version.py: __version__ {}, hip {}{}{}",
            t.version.as_deref().unwrap_or("?"),
            t.hip.as_deref().unwrap_or("None"),
            t.rocm
                .as_deref()
                .map(|r| format!(", rocm {r}"))
                .unwrap_or_default(),
            if t.therock_based {
                " (torch/_rocm_init.py: ROCm from TheRock's rocm_sdk packages)"
            } else {
                ""
            }
        ));
    }
    if let Some(r) = &env.therock {
        v.push(format!(
            "TheRock rocm_sdk {} (nonce {:?}), target families [{}], dist_amdgpu_targets [{}], \
             device packages [{}]",
            r.version.as_deref().unwrap_or("?"),
            r.nonce.as_deref().unwrap_or(""),
            r.target_families.join(", "),
            r.dist_targets.join(", "),
            r.device_packages.join(", ")
        ));
    }
    for (n, ver) in &env.rocm_dists {
        v.push(format!("dist {n} {ver}"));
    }
    for k in &env.kernels {
        v.push(format!(
            "{} {}: {} files{}, kernels for [{}]",
            k.component,
            k.dir.display(),
            k.files,
            if k.truncated { " (listing capped)" } else { "" },
            isa_order(&k.isas).join(", ")
        ));
    }
    v.extend(env.problems.iter().map(|p| format!("could not read {p}")));
    v
}

/// ISAs in the order of their numbers (`gfx900` before `gfx1030`).
fn isa_order(isas: &BTreeSet<String>) -> Vec<String> {
    let mut v: Vec<String> = isas.iter().cloned().collect();
    v.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
    v
}

/// Which ISAs an environment ships kernels for, and the source that says so: its rocBLAS
/// kernel library, else TheRock's device packages, else its `dist_amdgpu_targets`.
fn shipped(env: &crate::binfacts::pyenv::PyEnv) -> Option<(String, BTreeSet<String>, bool)> {
    if let Some(k) = env.kernels_of("rocBLAS") {
        return Some(("rocBLAS kernels".into(), k.isas.clone(), k.truncated));
    }
    let r = env.therock.as_ref()?;
    if !r.device_packages.is_empty() {
        let s = r.device_packages.iter().cloned().collect();
        return Some(("device package (rocm-sdk-device-<gfx>)".into(), s, false));
    }
    if !r.dist_targets.is_empty() {
        let s = r.dist_targets.iter().cloned().collect();
        return Some(("kernels (dist_amdgpu_targets)".into(), s, false));
    }
    None
}

/// One Python environment's kernels against the GPUs (`(own ISA, ISA it runs as, how)`).
fn judge_env(
    env: &crate::binfacts::pyenv::PyEnv,
    gpus: &[(String, String, Option<String>)],
    wsl: bool,
) -> Vec<Finding> {
    let what = env.describe();
    let place = env.prefix.display().to_string();
    let ev = env_evidence(env);
    let mut out: Vec<Finding> = env
        .problems
        .iter()
        .map(|p| Finding::skip(format!("the {what}: could not read {p}")).subject(place.clone()))
        .collect();
    out.extend(mixed_builds(env, &place, &ev));
    if wsl || gpus.is_empty() {
        out.push(
            Finding::skip(format!(
                "the {what}: no GPU agent to judge its kernels against{}",
                if wsl { " (WSL)" } else { "" }
            ))
            .subject(place)
            .evidence_lines(ev),
        );
        return out;
    }
    let Some((source, isas, truncated)) = shipped(env) else {
        out.push(
            Finding::skip(format!(
                "the {what}: which ISAs it ships kernels for is not written in its files \
                 (no rocBLAS kernel library, device package or dist_amdgpu_targets)"
            ))
            .subject(place)
            .evidence_lines(ev),
        );
        return out;
    };
    let shipped = Shipped {
        what: &what,
        source: &source,
        isas: &isas,
        list: isa_order(&isas).join(", "),
    };
    let mut missing = false;
    for (own, runs, how) in gpus {
        if shipped.covers(runs) {
            continue;
        }
        missing = true;
        if truncated {
            out.push(
                Finding::skip(format!(
                    "the {what}: the {source} listing stopped at {} entries before \
                     showing {runs}; not judged",
                    crate::binfacts::pyenv::MAX_LISTING
                ))
                .subject(place.clone())
                .evidence_lines(ev.clone()),
            );
            continue;
        }
        let (summary, fix) = shipped.no_kernels(own, runs, how.as_deref());
        out.push(
            Finding::fail(summary)
                .subject(place.clone())
                .evidence_lines(ev.clone())
                .fix(fix),
        );
    }
    if !missing {
        out.push(shipped.every_gpu(gpus).subject(place).evidence_lines(ev));
    }
    out
}

/// The warning for an environment whose rocm wheels are of different builds.
fn mixed_builds(
    env: &crate::binfacts::pyenv::PyEnv,
    place: &str,
    ev: &[String],
) -> Option<Finding> {
    let versions = env.dist_versions();
    if versions.len() <= 1 {
        return None;
    }
    Some(
        Finding::warn(format!(
            "the rocm wheels in {place} are of different builds ({}): mixed versions break \
             the libraries' soname links (TheRock#1057)",
            versions.iter().copied().collect::<Vec<_>>().join(", ")
        ))
        .subject(place.to_string())
        .evidence_lines(ev.to_vec())
        .fix_text(
            "Install every rocm package from one build: pip install --force-reinstall \
             \"rocm[libraries]==<one version>\" with the same version for each \
             rocm-sdk-device-* package.",
        ),
    )
}

/// What an environment ships kernels for, as [`judge_env`] words it.
struct Shipped<'a> {
    /// The environment, described.
    what: &'a str,
    /// Where the ISAs were read ([`shipped`]).
    source: &'a str,
    isas: &'a BTreeSet<String>,
    /// `isas` in order, joined.
    list: String,
}

impl Shipped<'_> {
    /// Whether the environment has kernels an `isa` GPU runs: its own or its generic target's.
    fn covers(&self, isa: &str) -> bool {
        self.isas.contains(isa)
            || crate::isa::processor(isa)
                .and_then(|p| p.generic.as_deref())
                .is_some_and(|g| self.isas.contains(g))
    }

    /// The pass for an environment with kernels for every GPU.
    fn every_gpu(&self, gpus: &[(String, String, Option<String>)]) -> Finding {
        let list: Vec<String> = gpus
            .iter()
            .map(|(own, runs, how)| match how {
                Some(h) => format!("{own} as {runs} ({h})"),
                None => own.clone(),
            })
            .collect();
        Finding::pass(format!(
            "the {} ships {} for every GPU ({})",
            self.what,
            self.source,
            list.join(", ")
        ))
    }

    /// The summary and fix for a GPU (`own`, run as `runs`, an override said by `how`) the
    /// environment has no kernels for.
    fn no_kernels(&self, own: &str, runs: &str, how: Option<&str>) -> (String, Fix) {
        use crate::packs::facts::{isa_verdict, IsaVerdict};
        let (what, source, shipped_list) = (self.what, self.source, &self.list);
        let head = format!("the {what} ships no {source} for {runs}");
        if let Some(how) = how {
            return (
                format!("{head}, the ISA {how} makes the {own} GPU use"),
                Fix::text(format!(
                    "Set HSA_OVERRIDE_GFX_VERSION to an ISA this build ships ({shipped_list}) \
                     that runs on {own}, or unset it and install a build that has {own} kernels."
                )),
            );
        }
        match isa_verdict(own) {
            IsaVerdict::Override {
                runs: r,
                value,
                risk,
            } if self.covers(&r) => (
                format!(
                    "{head}: set HSA_OVERRIDE_GFX_VERSION={value} (its {r} kernels, at your \
                     own risk) or install a build that has them"
                ),
                Fix::text(format!(
                    "Either run with HSA_OVERRIDE_GFX_VERSION={value} ({risk}), or install \
                     a build of this framework that ships {own} kernels."
                ))
                .set_env("HSA_OVERRIDE_GFX_VERSION", value),
            ),
            IsaVerdict::Override { runs: r, .. } => (
                format!(
                    "{head}: no override works with this build (the same-family target {r} \
                     is not shipped either); install a build that has them"
                ),
                Fix::text(format!(
                    "Install a build that ships {own} or {r} kernels (this one ships \
                     {shipped_list})."
                )),
            ),
            IsaVerdict::NoOverride { instead } => (
                format!("{head}: no HSA_OVERRIDE_GFX_VERSION value works for {own}"),
                Fix::text(instead),
            ),
            IsaVerdict::Supported | IsaVerdict::Unknown => (
                format!("{head}: install a build that has them"),
                Fix::text(format!(
                    "Install a build of this framework that ships {own} kernels (this one \
                     ships {shipped_list}); no override is needed for a build that has them."
                )),
            ),
        }
    }
}

/// The Tensile library directory a key library's loader reads: where it looks, and its
/// kernels against the targets (failures into `out`). Returns where it looked and the flags
/// for the known issues (a missing rocBLAS Tensile directory is one of them).
fn judge_tensile(
    host: &Host,
    loader: &Loader,
    stem: &str,
    lib: &FoundLib,
    subject: &str,
    tg: &[Target],
    out: &mut Vec<Finding>,
) -> (Vec<String>, Vec<Flag>) {
    // Which targets the kernel files serve is all this judges: their entry ids, not their code.
    let bo = blob::Options {
        targets_only: true,
        ..Default::default()
    };
    let mut extra = Vec::new();
    let mut where_looked: Vec<String> = Vec::new();
    // Where this library's loader really looks (environment, its own candidates).
    let loc = tensile_path::locate(host, loader, &lib.path);
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
                .subject(subject)
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
            judge::tensile_against_targets(&t, tg)
                .into_iter()
                .map(|f| f.evidence_lines(where_looked.clone())),
        );
    }
    (where_looked, extra)
}
