//! Runs the probes: Tensile's exact method (one call per probe, in order) and the batched
//! method (every single-line snippet plus the multi-line block last in one input, and
//! Tensile's empty-input probe once per assembler), ISAs in parallel.
//!
//! Why the empty input runs once, not once per ISA: it decides `SupportedISA`, which holds iff
//! the driver accepts `-mcpu=<gfx>` (and `-mwavefrontsize64`) and the link of the assembled
//! object works. A batch whose every diagnostic is located at a `<stdin>` line shows the driver
//! accepted the ISA; and the link step is `ld.lld <obj> -shared -o a.out` with no processor
//! option (tensile-asm-caps.md §10, `-###`), so its verdict is the same for every ISA. The empty
//! input is still run per ISA whenever the batch shows anything else (an unknown ISA, a broken
//! driver), exactly as Tensile would. tests/asm_equivalence.rs checks the answers against
//! Tensile's method for every ISA clang-15 and clang-19 know.
//!
//! One call is Tensile's `tryAssembler`: argv `<asm> -x assembler -target amdgcn-amdhsa
//! -mcpu=<gfx> [-mwavefrontsize64 when major >= 10] -`, the snippet on stdin, success iff the
//! exit code is 0 and stdout+stderr are empty (reference tensile-asm-caps.md §1). There is no
//! `-c`, so clang links and writes `a.out`: every call runs in a scratch directory of ours, with
//! TMPDIR pointing there too.

use super::catalog::{Catalog, Value};
use super::parse::{self, Batch};
use crate::host::{CommandSpec, Host, RunOutput};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// How an ISA's answers were obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    /// One call per probe, Tensile's order.
    Serial,
    /// Batched; `fallback` says why single-line snippets were run one by one instead.
    Batched { fallback: Option<String> },
}

/// One ISA's result.
#[derive(Debug, Clone)]
pub struct IsaResult {
    pub isa: String,
    /// Every key in Tensile's order.
    pub values: Vec<(String, Value)>,
    pub calls: usize,
    pub method: Method,
    /// The output of the empty-input probe when it failed (what explains "unsupported").
    pub supported_failure: Option<RunOutput>,
    /// A failing probe's output when every probed key failed although SupportedISA passed.
    pub all_failed_sample: Option<RunOutput>,
    /// A call timed out: answers are incomplete.
    pub timed_out: bool,
    /// We could not even set up the call (no scratch dir).
    pub setup_error: Option<String>,
}

impl IsaResult {
    pub fn get(&self, key: &str) -> Option<Value> {
        self.values.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
    pub fn supported(&self) -> bool {
        self.get("SupportedISA") == Some(Value::Bool(true))
    }
}

/// Tensile's argv after the program, for `-mcpu=<gfx>`.
pub(crate) fn argv(gfx: &str) -> Vec<String> {
    let mut v: Vec<String> = ["-x", "assembler", "-target", "amdgcn-amdhsa"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    v.push(format!("-mcpu={gfx}"));
    if crate::isa::TargetId::plain(gfx)
        .major()
        .is_some_and(|m| m >= 10)
    {
        v.push("-mwavefrontsize64".into());
    }
    v.push("-".into());
    v
}

/// Tensile's success rule.
pub(crate) fn tensile_ok(o: &RunOutput) -> bool {
    o.spawn_error.is_none()
        && !o.timed_out
        && o.code == Some(0)
        && o.stdout.is_empty()
        && o.stderr.is_empty()
}

struct Caller<'a> {
    host: &'a Host,
    asm: &'a Path,
    gfx: &'a str,
    dir: PathBuf,
    calls: usize,
}

impl Caller<'_> {
    fn call(&mut self, input: &str) -> RunOutput {
        self.calls += 1;
        let spec = CommandSpec::new(self.asm)
            .args(argv(self.gfx))
            .stdin(input.as_bytes().to_vec())
            .cwd(&self.dir)
            .env("TMPDIR", &self.dir);
        self.host.run(&spec)
    }
}

fn setup_failed(cat: &Catalog, gfx: &str, method: Method, e: String) -> IsaResult {
    IsaResult {
        isa: gfx.to_string(),
        values: cat.all_failed(),
        calls: 0,
        method,
        supported_failure: None,
        all_failed_sample: None,
        timed_out: false,
        setup_error: Some(e),
    }
}

/// Tensile's method: every probe in order, alternatives short-circuited, no shortcuts.
/// (Tensile has no timeout; after a call times out the remaining probes of the ISA are not
/// run and count as failed.)
pub fn probe_serial(host: &Host, asm: &Path, cat: &Catalog, gfx: &str) -> IsaResult {
    let dir = match host.scratch_dir(&format!("asm-{gfx}")) {
        Ok(d) => d,
        Err(e) => {
            return setup_failed(
                cat,
                gfx,
                Method::Serial,
                format!("no scratch directory: {e}"),
            )
        }
    };
    let mut c = Caller {
        host,
        asm,
        gfx,
        dir,
        calls: 0,
    };
    let mut timed_out = false;
    let mut supported_failure = None;
    let mut sample = None;
    let values = cat.derive(|snippet| {
        if timed_out {
            return false;
        }
        let out = c.call(snippet);
        let ok = tensile_ok(&out);
        timed_out |= out.timed_out;
        if snippet.is_empty() && !ok {
            supported_failure = Some(out.clone());
        } else if !ok && sample.is_none() {
            sample = Some(out.clone());
        }
        ok
    });
    let calls = c.calls;
    finish(
        gfx,
        values,
        calls,
        Method::Serial,
        supported_failure,
        sample,
        timed_out,
    )
}

/// Tensile's empty-input probe, run once per assembler and shared by every ISA (see the module
/// docs for why that gives Tensile's answer).
#[derive(Default)]
pub(crate) struct LinkOnce {
    verdict: Mutex<Option<(bool, RunOutput)>>,
}

impl LinkOnce {
    /// The shared verdict, running the probe with this ISA's argv if no ISA has yet.
    fn get(&self, c: &mut Caller) -> (bool, RunOutput) {
        let mut guard = match self.verdict.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if let Some(v) = guard.as_ref() {
            return v.clone();
        }
        let out = c.call("");
        let v = (tensile_ok(&out), out);
        *guard = Some(v.clone());
        v
    }
}

/// The batched method (reference §11's recipe), with the same answers as [`probe_serial`].
pub(crate) fn probe_batched(
    host: &Host,
    asm: &Path,
    cat: &Catalog,
    gfx: &str,
    link: &LinkOnce,
) -> IsaResult {
    let method = Method::Batched { fallback: None };
    let dir = match host.scratch_dir(&format!("asm-{gfx}")) {
        Ok(d) => d,
        Err(e) => return setup_failed(cat, gfx, method, format!("no scratch directory: {e}")),
    };
    let mut c = Caller {
        host,
        asm,
        gfx,
        dir,
        calls: 0,
    };
    let snippets = cat.distinct_snippets();
    let BatchPlan {
        singles,
        tail,
        alone,
        lines,
        tail_range,
    } = BatchPlan::of(&snippets);
    if lines.is_empty() {
        // Nothing to batch (a catalog of the empty probe only): Tensile's probe decides.
        let first = c.call("");
        if !tensile_ok(&first) {
            let t = first.timed_out;
            return finish(gfx, cat.all_failed(), c.calls, method, Some(first), None, t);
        }
    }
    let mut verdict: HashMap<&str, bool> = HashMap::new();
    verdict.insert("", true);
    let mut timed_out = false;
    let mut fallback = None;
    let mut sample = None;
    let mut run_alone: Vec<&str> = alone;
    // 2. All single-line snippets (and the block) in one input.
    if !lines.is_empty() {
        let out = c.call(&lines.join("\n"));
        timed_out |= out.timed_out;
        let attributed = attribute_batch(&lines, &out);
        if let Some(first) = batch_unsupported(&mut c, link, &attributed) {
            let timed_out = timed_out || first.timed_out;
            let calls = c.calls;
            return finish(
                gfx,
                cat.all_failed(),
                calls,
                method,
                Some(first),
                None,
                timed_out,
            );
        }
        match attributed {
            Ok(failed) => {
                if record_batch(&mut verdict, &singles, tail, tail_range, &failed) {
                    sample = Some(out);
                }
            }
            Err(why) => {
                fallback = Some(why);
                run_alone.extend(singles.iter().copied());
                run_alone.extend(tail);
            }
        }
    }
    // 3. Fallback: one call per snippet (and blocks that did not fit the batch).
    one_by_one(&mut c, run_alone, &mut verdict, &mut timed_out, &mut sample);
    let values = cat.derive(|s| verdict.get(s).copied().unwrap_or(false));
    let all_probed_failed = values_all_probed_failed(cat, &values);
    let calls = c.calls;
    finish(
        gfx,
        values,
        calls,
        Method::Batched { fallback },
        None,
        sample.filter(|_| all_probed_failed),
        timed_out,
    )
}

/// The verdict of each snippet of the batch from its failed lines (the single lines, then the
/// tail block's range). True when every single line failed.
fn record_batch<'a>(
    verdict: &mut HashMap<&'a str, bool>,
    singles: &[&'a str],
    tail: Option<&'a str>,
    tail_range: Option<(usize, usize)>,
    failed: &BTreeSet<usize>,
) -> bool {
    for (i, s) in singles.iter().enumerate() {
        verdict.insert(s, !failed.contains(&(i + 1)));
    }
    if let (Some(b), Some((lo, hi))) = (tail, tail_range) {
        verdict.insert(b, failed.range(lo..=hi).next().is_none());
    }
    singles.iter().all(|s| verdict.get(s) == Some(&false))
}

/// One call per snippet; after a timeout the rest are not run (and fail). The first failing
/// single line's output is kept as the `sample`.
fn one_by_one<'a>(
    c: &mut Caller,
    snippets: Vec<&'a str>,
    verdict: &mut HashMap<&'a str, bool>,
    timed_out: &mut bool,
    sample: &mut Option<RunOutput>,
) {
    for s in snippets {
        if *timed_out {
            verdict.insert(s, false);
            continue;
        }
        let o = c.call(s);
        *timed_out |= o.timed_out;
        let ok = tensile_ok(&o);
        if !ok && sample.is_none() && !s.contains('\n') {
            *sample = Some(o);
        }
        verdict.insert(s, ok);
    }
}

/// How the distinct snippets go into the batched call: the single lines, then the first
/// multi-line block (its 1-based line range in `lines`); further blocks run alone.
struct BatchPlan<'a> {
    singles: Vec<&'a str>,
    tail: Option<&'a str>,
    alone: Vec<&'a str>,
    lines: Vec<&'a str>,
    tail_range: Option<(usize, usize)>,
}

impl<'a> BatchPlan<'a> {
    fn of(snippets: &[&'a str]) -> Self {
        let singles: Vec<&str> = snippets
            .iter()
            .copied()
            .filter(|s| !s.is_empty() && !s.contains('\n'))
            .collect();
        let blocks: Vec<&str> = snippets
            .iter()
            .copied()
            .filter(|s| s.contains('\n'))
            .collect();
        // The first multi-line block goes last in the batch: a failing directive inside it
        // cascades only into its own later lines, never back into the single lines before it.
        // Any further block runs alone.
        let (tail, alone) = match blocks.split_first() {
            Some((b, rest)) => (Some(*b), rest.to_vec()),
            None => (None, Vec::new()),
        };
        let mut lines: Vec<&str> = singles.clone();
        let tail_range = tail.map(|b| {
            let start = lines.len() + 1;
            lines.extend(b.split('\n'));
            (start, lines.len())
        });
        BatchPlan {
            singles,
            tail,
            alone,
            lines,
            tail_range,
        }
    }
}

/// The batched call's failed input lines, or why they cannot be told apart.
fn attribute_batch(lines: &[&str], out: &RunOutput) -> Result<BTreeSet<usize>, String> {
    if tensile_ok(out) {
        Ok(Default::default())
    } else if out.spawn_error.is_some() || out.timed_out || out.signal.is_some() || out.truncated {
        Err(format!(
            "the batched call did not finish normally: {}",
            out.outcome()
        ))
    } else {
        match parse::attribute(lines, &out.combined_text(), out.code == Some(0)) {
            Batch::Lines(l) => Ok(l),
            Batch::Unattributable(why) => Err(why),
        }
    }
}

/// SupportedISA: a clean batch linked, so it holds; a batch with only located diagnostics
/// shows the driver accepted the ISA, and the shared link verdict decides; anything else is
/// settled by this ISA's own empty-input probe, as Tensile does it. The call that says the ISA
/// is not supported, if one does.
fn batch_unsupported(
    c: &mut Caller,
    link: &LinkOnce,
    attributed: &Result<BTreeSet<usize>, String>,
) -> Option<RunOutput> {
    match attributed {
        Ok(failed) if failed.is_empty() => None,
        Ok(_) => match link.get(c) {
            (true, _) => None,
            (false, o) => Some(o),
        },
        Err(_) => {
            let first = c.call("");
            if tensile_ok(&first) {
                None
            } else {
                Some(first)
            }
        }
    }
}

fn values_all_probed_failed(cat: &Catalog, values: &[(String, Value)]) -> bool {
    use super::catalog::Rule;
    cat.keys
        .iter()
        .zip(values)
        .filter(|(k, _)| !matches!(k.rule, Rule::Const(_)) && k.name != "SupportedISA")
        .all(|(_, (_, v))| matches!(v, Value::Bool(false) | Value::Int(0)))
}

fn finish(
    gfx: &str,
    values: Vec<(String, Value)>,
    calls: usize,
    method: Method,
    supported_failure: Option<RunOutput>,
    sample: Option<RunOutput>,
    timed_out: bool,
) -> IsaResult {
    IsaResult {
        isa: gfx.to_string(),
        values,
        calls,
        method,
        supported_failure,
        all_failed_sample: sample,
        timed_out,
        setup_error: None,
    }
}

/// Probes every ISA: batched ones in parallel (bounded by the cores), `serial` ones one after
/// the other exactly as Tensile does. Results come back in the order of `isas`.
pub fn probe_all(
    host: &Host,
    asm: &Path,
    cat: &Catalog,
    isas: &[String],
    serial: bool,
) -> Vec<IsaResult> {
    if serial {
        let mut out: Vec<IsaResult> = isas
            .iter()
            .map(|g| probe_serial(host, asm, cat, g))
            .collect();
        for r in &mut out {
            if !r.supported() {
                // Keep the first failure of the empty input for the diagnosis (Tensile runs
                // every probe anyway).
                r.all_failed_sample = None;
            } else if !values_all_probed_failed(cat, &r.values) {
                r.all_failed_sample = None;
            }
        }
        return out;
    }
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    let workers = (cores * 2).clamp(1, 32).min(isas.len().max(1));
    let next = AtomicUsize::new(0);
    let link = LinkOnce::default();
    let slots: Vec<Mutex<Option<IsaResult>>> = isas.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(gfx) = isas.get(i) else { break };
                let r = probe_batched(host, asm, cat, gfx, &link);
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some(r);
                }
            });
        }
    });
    slots
        .into_iter()
        .zip(isas)
        .map(|(m, g)| {
            m.into_inner().ok().flatten().unwrap_or_else(|| {
                setup_failed(
                    cat,
                    g,
                    Method::Batched { fallback: None },
                    "the probe's thread died (a bug in rocm-doctor)".into(),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argv_is_tensiles() {
        assert_eq!(
            argv("gfx90a").join(" "),
            "-x assembler -target amdgcn-amdhsa -mcpu=gfx90a -"
        );
        assert_eq!(
            argv("gfx1030").join(" "),
            "-x assembler -target amdgcn-amdhsa -mcpu=gfx1030 -mwavefrontsize64 -"
        );
        assert_eq!(
            argv("gfx1201").join(" "),
            "-x assembler -target amdgcn-amdhsa -mcpu=gfx1201 -mwavefrontsize64 -"
        );
        assert_eq!(
            argv("gfx000").join(" "),
            "-x assembler -target amdgcn-amdhsa -mcpu=gfx000 -"
        );
        assert_eq!(
            argv("gfx803").join(" "),
            "-x assembler -target amdgcn-amdhsa -mcpu=gfx803 -"
        );
    }
}
