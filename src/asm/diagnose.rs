//! Why an ISA came out unsupported (or every capability false): the assembler could not run,
//! this clang does not know the ISA, the linker is missing, or the link pulls in a library
//! for another machine (seed 001). Each cause becomes one finding for all ISAs it hits, with
//! the fix.

use super::runner::IsaResult;
use crate::diag::{self, ProblemKind};
use crate::host::{CommandSpec, Host, RunOutput};
use crate::report::{Finding, Fix};
use std::path::{Path, PathBuf};

/// The cause of a failed empty-input probe, from its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cause {
    /// The assembler could not be started (ENOENT, EACCES, ENOEXEC...).
    NotStarted {
        errno: String,
        message: String,
    },
    /// A shell wrapper could not run its command (exit 126/127).
    WrapperBroken {
        code: i32,
    },
    TimedOut,
    Signal(i32),
    /// `invalid target ID` / `unknown target CPU`.
    UnknownIsa,
    /// Tensile's placeholder `gfx000`, unknown to every clang (expected).
    PseudoIsa,
    /// `Executable "ld.lld" doesn't exist!`
    LinkerMissing {
        name: String,
    },
    /// `ld.lld: error: <lib> is incompatible with ...`
    IncompatibleLibrary {
        lib: PathBuf,
    },
    /// `unable to find library -lX`
    LibraryNotFound {
        name: String,
    },
    Other,
}

pub(crate) fn cause_of(o: &RunOutput) -> Cause {
    if let Some(f) = &o.spawn_error {
        return Cause::NotStarted {
            errno: f.errno.clone(),
            message: f.message.clone(),
        };
    }
    if o.timed_out {
        return Cause::TimedOut;
    }
    if let Some(s) = o.signal {
        return Cause::Signal(s);
    }
    let problems = diag::classify(&o.combined_text());
    for p in &problems {
        match &p.kind {
            ProblemKind::InvalidTargetId { .. } | ProblemKind::UnknownTargetCpu { .. } => {
                return Cause::UnknownIsa
            }
            ProblemKind::ExecutableNotFound { name } => {
                return Cause::LinkerMissing { name: name.clone() }
            }
            ProblemKind::IncompatibleLibrary { library, .. } => {
                return Cause::IncompatibleLibrary {
                    lib: library.clone(),
                }
            }
            ProblemKind::LibraryNotFound { name } => {
                return Cause::LibraryNotFound { name: name.clone() }
            }
            _ => {}
        }
    }
    match o.code {
        Some(c @ (126 | 127)) => Cause::WrapperBroken { code: c },
        _ => Cause::Other,
    }
}

/// What the diagnosis needs to know about the run.
pub(crate) struct Context<'a> {
    pub host: &'a Host,
    pub asm: &'a Path,
    /// ISAs the user asked for (`--isa`, the GPUs), as opposed to Tensile's list.
    pub explicit: &'a [String],
    pub pseudo_isa: &'a str,
}

fn output_lines(o: &RunOutput, n: usize) -> Vec<String> {
    let mut v = vec![
        format!("$ echo -n '' | {}", o.command),
        format!("-> {}", o.outcome()),
    ];
    v.extend(o.combined_text().lines().take(n).map(|l| format!("   {l}")));
    v
}

/// Findings (id `asm.caps`) for the ISAs whose empty-input probe failed or whose every probe
/// failed, one per cause.
pub(crate) fn findings(cx: &Context, results: &[IsaResult]) -> Vec<Finding> {
    let mut groups: Vec<(Cause, Vec<&IsaResult>, &RunOutput)> = Vec::new();
    for r in results {
        let Some(o) = r
            .supported_failure
            .as_ref()
            .or(r.all_failed_sample.as_ref())
        else {
            continue;
        };
        let mut c = cause_of(o);
        if c == Cause::UnknownIsa && r.isa == cx.pseudo_isa {
            c = Cause::PseudoIsa;
        }
        match groups.iter_mut().find(|(g, _, _)| *g == c) {
            Some(g) => g.1.push(r),
            None => groups.push((c, vec![r], o)),
        }
    }
    let mut out = Vec::new();
    for (cause, isas, sample) in groups {
        let names: Vec<&str> = isas.iter().map(|r| r.isa.as_str()).collect();
        let every_key = isas.iter().any(|r| r.supported_failure.is_none());
        let verdict = if every_key {
            "every capability probe fails"
        } else {
            "Tensile would mark it unsupported"
        };
        let f = cause_finding(cx, &cause, &names, sample, every_key, verdict);
        let f = if matches!(cause, Cause::UnknownIsa | Cause::PseudoIsa) {
            f
        } else {
            f.evidence_lines(output_lines(sample, 6))
        };
        out.push(f.subject(names.join(", ")));
    }
    out
}

/// The finding for one cause of failed probes (`names`: the ISAs; `every_key`: every probe
/// failed, not only the empty input's; `verdict`: what Tensile makes of it).
fn cause_finding(
    cx: &Context,
    cause: &Cause,
    names: &[&str],
    sample: &RunOutput,
    every_key: bool,
    verdict: &str,
) -> Finding {
    match cause {
        Cause::UnknownIsa => unknown_isa(cx, names, sample),
        Cause::PseudoIsa => Finding::pass(format!(
            "{} is Tensile's placeholder ISA: unsupported, as Tensile expects",
            cx.pseudo_isa
        )),
        Cause::NotStarted { errno, message } => Finding::fail(format!(
            "the assembler {} cannot be started ({errno}): the tool is broken, not the ISAs; \
             {verdict}",
            cx.asm.display()
        ))
        .evidence(message.clone())
        .fix(fix_use_real_clang(
            cx,
            "point the assembler at an existing, executable clang++",
        )),
        Cause::WrapperBroken { code } => Finding::fail(format!(
            "the assembler {} exits {code} (a wrapper script could not run its compiler): the \
             tool is broken, not the ISAs; {verdict}",
            cx.asm.display()
        ))
        .fix(fix_use_real_clang(
            cx,
            "repair the wrapper script, or bypass it",
        )),
        Cause::TimedOut => Finding::error(format!(
            "the assembler {} did not finish in time: no answer",
            cx.asm.display()
        ))
        .fix(Fix::text(
            "Run the command shown with -v by hand; if it hangs, repair or replace the \
             assembler (a wrapper waiting for input, a network file system); or raise --timeout.",
        )),
        Cause::Signal(s) => Finding::fail(format!(
            "the assembler {} was killed by signal {s}: {verdict}",
            cx.asm.display()
        ))
        .fix(fix_use_real_clang(
            cx,
            "the assembler crashes; use another clang",
        )),
        Cause::LinkerMissing { name } => linker_missing(cx, name, verdict),
        Cause::IncompatibleLibrary { lib } => incompatible(cx, lib, verdict),
        Cause::LibraryNotFound { name } => Finding::fail(format!(
            "the link step after assembling asks for a library that does not exist ({name}): \
             {verdict}"
        ))
        .fix(fix_use_real_clang(
            cx,
            &format!(
                "remove {name} from the flags the assembler adds (wrapper script, clang config \
                 file, NIX_LDFLAGS), or bypass the wrapper"
            ),
        )),
        Cause::Other => other_failure(cx, sample, every_key, verdict),
    }
}

/// A failure of no known cause: the problems `diag` recognises in its output, if any.
fn other_failure(cx: &Context, sample: &RunOutput, every_key: bool, verdict: &str) -> Finding {
    let labels: Vec<&str> = diag::classify(&sample.combined_text())
        .iter()
        .map(|p| p.kind.label())
        .collect();
    Finding::fail(format!(
        "the assembler {} fails{}: {verdict}",
        cx.asm.display(),
        if every_key {
            " on every probe"
        } else {
            " on the empty input"
        }
    ))
    .evidence(if labels.is_empty() {
        "no known problem pattern in the output".to_string()
    } else {
        format!("problems seen: {}", labels.join(", "))
    })
    .fix(fix_use_real_clang(
        cx,
        "run the command shown with -v by hand and repair what it prints",
    ))
}

fn fix_use_real_clang(cx: &Context, what: &str) -> Fix {
    let real = super::assembler::newest_llvm_clang(cx.host).filter(|p| p != cx.asm);
    let mut f = Fix::text(format!(
        "{what}. Tensile ≤ rocm-6.3 reads TENSILE_ROCM_ASSEMBLER_PATH; \
        current Tensile takes --assembler."
    ));
    if let Some(p) = real {
        f = f.set_env("TENSILE_ROCM_ASSEMBLER_PATH", p.to_string_lossy());
    }
    f
}

/// Processors this clang knows, from `-print-supported-cpus` (pure parser).
pub fn parse_supported_cpus(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for l in text.lines() {
        if l.starts_with("Available CPUs for this target") {
            inside = true;
            continue;
        }
        if inside {
            let t = l.trim();
            if t.is_empty() && out.is_empty() {
                continue;
            }
            if t.is_empty() || !(l.starts_with('\t') || l.starts_with(' ')) {
                break;
            }
            out.push(t.to_string());
        }
    }
    out
}

fn known_processors(cx: &Context) -> Option<Vec<String>> {
    let spec = CommandSpec::new(cx.asm).args([
        "--target=amdgcn-amd-amdhsa",
        "-nogpulib",
        "-print-supported-cpus",
    ]);
    let o = cx.host.run(&spec);
    let v = parse_supported_cpus(&o.combined_text());
    (!v.is_empty()).then_some(v)
}

fn unknown_isa(cx: &Context, names: &[&str], sample: &RunOutput) -> Finding {
    let real = names;
    let requested = real.iter().any(|n| cx.explicit.iter().any(|e| e == n));
    let summary = format!(
        "{} does not know {}: Tensile drops {} from SupportedISA",
        cx.asm.display(),
        real.join(", "),
        if real.len() == 1 { "it" } else { "them" }
    );
    let mut f = if requested {
        Finding::fail(summary)
    } else {
        Finding::warn(summary)
    };
    f = f.evidence_lines(output_lines(sample, 2));
    if let Some(known) = known_processors(cx) {
        let gfx: Vec<&str> = known
            .iter()
            .map(String::as_str)
            .filter(|n| n.starts_with("gfx"))
            .collect();
        f = f.evidence(format!("this clang knows: {}", gfx.join(" ")));
    }
    let need = real
        .iter()
        .filter_map(|n| crate::isa::processor(n))
        .map(|p| p.llvm)
        .max();
    let text = match need {
        Some(v) => format!(
            "Use a clang that knows the ISA (LLVM {v} or newer, or ROCm's \
            amdclang++) as Tensile's assembler."
        ),
        None => "Use a newer clang (ROCm's amdclang++) that knows the ISA as Tensile's assembler, \
            or drop the ISA."
            .to_string(),
    };
    f.fix(Fix::text(text))
}

fn llvm_major(host: &Host, asm: &Path, real: &Path) -> Option<u32> {
    for p in [real, asm] {
        let s = p.to_string_lossy();
        if let Some(i) = s.find("/llvm-") {
            let n: String = s[i + 6..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if let Ok(v) = n.parse() {
                return Some(v);
            }
        }
    }
    let o = host.run(&CommandSpec::new(asm).arg("--version"));
    let t = o.combined_text();
    let i = t.find("clang version ")?;
    t[i + 14..].split('.').next()?.trim().parse().ok()
}

fn linker_missing(cx: &Context, name: &str, verdict: &str) -> Finding {
    let real = cx
        .host
        .fs
        .canonicalize(cx.asm)
        .unwrap_or_else(|_| cx.asm.to_path_buf());
    let dir = real.parent().unwrap_or(Path::new("/")).to_path_buf();
    let mut f = Finding::fail(format!(
        "clang cannot link: `{name}` is neither next to {} nor on PATH; {verdict}",
        real.display()
    ))
    .evidence(format!(
        "clang looks for the exact name `{name}` in {} (its own directory) and then on PATH",
        dir.display()
    ));
    let versioned: Vec<String> = cx
        .host
        .fs
        .list_names(Path::new("/usr/bin"))
        .into_iter()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("{name}-")))
        .collect();
    if !versioned.is_empty() {
        f = f.evidence(format!(
            "versioned names in /usr/bin, which clang does not look for: {}",
            versioned.join(" ")
        ));
    }
    let major = llvm_major(cx.host, cx.asm, &real);
    let installed = major
        .map(|v| format!("{name}-{v}"))
        .filter(|n| versioned.contains(n));
    let fix = match installed {
        // lld of this version is installed, only not where clang looks (a copied or
        // relocated clang): link it in.
        Some(v) => Fix::text(format!(
            "lld is installed as /usr/bin/{v}, but clang only looks for \
            `{name}` in {} and on PATH: link it there.",
            dir.display()
        ))
        .command(format!("ln -s /usr/bin/{v} {}/{name}", dir.display())),
        None => {
            let mut fix = Fix::text(format!(
                "Install lld for this LLVM so that {}/{name} exists (Debian's clang-N package \
                    does not depend on lld-N), or put an `{name}` on PATH.",
                dir.display()
            ));
            if let Some(v) = major.filter(|_| cx.host.fs.exists(Path::new("/etc/debian_version"))) {
                fix = fix.command(format!("sudo apt install lld-{v}"));
            }
            fix
        }
    };
    f.fix(fix)
}

fn incompatible(cx: &Context, lib: &Path, verdict: &str) -> Finding {
    let x = diag::link::explain_incompatible(cx.host, cx.asm, lib);
    let what = x
        .elf_machine
        .as_deref()
        .map(|m| format!(" ({m})"))
        .unwrap_or_default();
    let mut f = Finding::fail(format!(
        "the assembler's link step pulls in {}{what}, which cannot link into an AMDGPU object: \
            {verdict}",
        lib.display()
    ));
    if let Some(r) = &x.resolved {
        f = f.evidence(format!(
            "{} is a linker script for {}",
            lib.display(),
            r.display()
        ));
    }
    if x.origins.is_empty() {
        f = f.evidence(
            "where the flag comes from: not found in the wrapper, \
            NIX_LDFLAGS/NIX_CFLAGS_LINK/LDFLAGS/CCC_OVERRIDE_OPTIONS or clang config files",
        );
    }
    for o in &x.origins {
        f = f.evidence(format!("added by {}: {}", o.place, o.text));
    }
    f = f.evidence_lines(x.notes.iter().cloned());
    let fix = match &x.unwrapped {
        Some(u) => Fix::text(format!(
            "{} is a wrapper that adds host link flags; give Tensile the compiler it wraps \
                (Tensile ≤ rocm-6.3: TENSILE_ROCM_ASSEMBLER_PATH; current: --assembler {}).",
            cx.asm.display(),
            u.display()
        ))
        .set_env("TENSILE_ROCM_ASSEMBLER_PATH", u.to_string_lossy()),
        None => {
            let place = x
                .origins
                .first()
                .map(|o| o.place.clone())
                .unwrap_or_else(|| {
                    "wherever \
                the assembler gets its link flags"
                        .into()
                });
            fix_use_real_clang(
                cx,
                &format!(
                    "remove the flag that adds {} from {place}, or use an \
                unwrapped clang",
                    lib.display()
                ),
            )
        }
    };
    f.fix(fix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supported_cpus_are_parsed_from_real_output() {
        // Shape of `/usr/lib/llvm-15/bin/clang++ --target=amdgcn-amd-amdhsa -nogpulib -print-supported-cpus` (abridged).
        let t = "Debian clang version 15.0.6\nTarget: amdgcn-amd-amdhsa\nThread model: \
            posix\nInstalledDir: /usr/lib/llvm-15/bin\nAvailable CPUs for this \
            target:\n\n\tbonaire\n\tgfx1030\n\tgfx90a\n\tverde\n\nUse -mcpu or -mtune to specify \
            the target's processor.\n";
        assert_eq!(
            parse_supported_cpus(t),
            ["bonaire", "gfx1030", "gfx90a", "verde"]
        );
        assert!(parse_supported_cpus("garbage\n").is_empty());
    }

    #[test]
    fn causes_from_outputs() {
        let mk = |text: &str, code| RunOutput {
            command: "c".into(),
            code: Some(code),
            signal: None,
            stdout: Vec::new(),
            stderr: text.as_bytes().to_vec(),
            timed_out: false,
            spawn_error: None,
            duration: Default::default(),
            truncated: false,
        };
        assert_eq!(
            cause_of(&mk(
                include_str!("../../tests/fixtures/clang-output/clang15-invalid-target-id.txt"),
                1
            )),
            Cause::UnknownIsa
        );
        assert_eq!(
            cause_of(&mk(
                include_str!("../../tests/fixtures/clang-output/clang15-copy-without-ld.lld.txt"),
                1
            )),
            Cause::LinkerMissing {
                name: "ld.lld".into()
            }
        );
        assert!(matches!(
            cause_of(&mk(
                include_str!(
                    "../../tests/fixtures/clang-output/clang15-wrapper-incompatible-libunwind.txt"
                ),
                1
            )),
            Cause::IncompatibleLibrary { .. }
        ));
        assert_eq!(
            cause_of(&mk("sh: 1: exec: /x: not found\n", 127)),
            Cause::WrapperBroken { code: 127 }
        );
        assert_eq!(cause_of(&mk("weird\n", 1)), Cause::Other);
    }
}
