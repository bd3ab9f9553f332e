//! What hipcc really runs: asked from hipcc itself, never assumed.
//!
//! `HIPCC_VERBOSE=1 hipcc -### --offload-arch=<isa> --cuda-device-only -c probe.hip -o probe.o`
//! prints the clang command it builds (`hipcc-cmd: <clang> <flags...>`) and then clang, given
//! `-###`, only lists its jobs. Both hipcc generations do this: the Perl `hipcc.pl` of HIP 5.x
//! (`$verbose & 0x1` prints `hipcc-cmd: ` before running the command) and the C++ hipcc of
//! ROCm 6+/7 (same line, `HIPCC_VERBOSE` bit 0), as measured on Debian 12 (HIP 5.2.3),
//! Debian 13 (5.7.1) and sid (hipcc 7.0.2). The flags hipcc adds around our own arguments are
//! exactly what a user's `hipcc` build passes to clang: `--rocm-path`, `--hip-device-lib-path`,
//! `-isystem` header dirs, `-O3`, `-mllvm` options, depending on the release.

use super::Inventory;
use crate::host::CommandSpec;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct HipccView {
    /// The hipcc asked (machine path).
    pub path: PathBuf,
    /// The clang hipcc runs, as its `hipcc-cmd:` line names it.
    pub clang: Option<PathBuf>,
    /// The arguments hipcc adds to ours, in its order.
    pub flags: Vec<String>,
    /// The exact command run, and its outcome.
    pub command: String,
    pub outcome: String,
    /// Why hipcc could not be asked (it failed, hung, or printed no `hipcc-cmd:` line).
    pub error: Option<String>,
}

/// The arguments the doctor gives hipcc; everything else on the `hipcc-cmd:` line is hipcc's.
const PROBE_SOURCE: &str = "probe.hip";
const PROBE_OUTPUT: &str = "probe.o";

/// The hipcc a user's build would run: the primary root's, else the first on PATH.
pub(crate) fn find(inv: &Inventory) -> Option<PathBuf> {
    inv.primary_root()
        .and_then(|r| r.parts.hipcc.clone())
        .or_else(|| inv.host.which("hipcc"))
}

pub(crate) fn discover(inv: &Inventory) -> Option<HipccView> {
    let path = find(inv)?;
    let isa = inv.probe_isa();
    let mut v = HipccView {
        path: path.clone(),
        ..Default::default()
    };
    if let Some(why) = inv.host.root_programs_refused() {
        v.error = Some(format!("not run: {why}"));
        return Some(v);
    }
    if let Some(e) = inv.cannot_run_here() {
        v.error = Some(format!(
            "not run: this root's programs cannot run here ({e})"
        ));
        return Some(v);
    }
    let dir = match inv.host.scratch_dir("hipcc") {
        Ok(d) => d,
        Err(e) => {
            v.error = Some(format!("no temp dir: {e}"));
            return Some(v);
        }
    };
    if let Err(e) = std::fs::write(dir.join(PROBE_SOURCE), b"") {
        v.error = Some(format!("cannot write the probe source: {e}"));
        return Some(v);
    }
    let cmd = CommandSpec::new(&path)
        .env("HIPCC_VERBOSE", "1")
        .args([
            "-###",
            &format!("--offload-arch={isa}"),
            "--cuda-device-only",
        ])
        .args(["-c", PROBE_SOURCE, "-o", PROBE_OUTPUT])
        .cwd(&dir);
    let out = inv.host.run(&cmd);
    v.command = out.command.clone();
    v.outcome = out.outcome();
    let text = out.combined_text();
    match parse_hipcc_cmd(&text, &isa) {
        Some((clang, flags)) => {
            v.clang = Some(clang);
            v.flags = flags;
        }
        None => {
            v.error = Some(format!(
                "hipcc printed no `hipcc-cmd:` line ({}): {}",
                v.outcome,
                out.tail(4)
            ))
        }
    }
    Some(v)
}

/// Pure: the clang and the flags hipcc added, from the `hipcc-cmd:` line of a verbose run
/// whose own arguments were `-### --offload-arch=<isa> --cuda-device-only -c probe.hip -o
/// probe.o` (hipcc itself adds `-x hip` before the source).
pub(crate) fn parse_hipcc_cmd(text: &str, isa: &str) -> Option<(PathBuf, Vec<String>)> {
    let line = text
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("hipcc-cmd:"))?;
    let mut words = shell_words(line).into_iter();
    let clang = PathBuf::from(words.next()?);
    let mut ours: Vec<String> = [
        "-###",
        &format!("--offload-arch={isa}"),
        "--cuda-device-only",
        "-c",
        PROBE_SOURCE,
        "-o",
        PROBE_OUTPUT,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut flags = Vec::new();
    let mut rest: Vec<String> = words.collect();
    // `-x hip` is how hipcc marks the source; the doctor passes its own language flag.
    if let Some(i) = rest.windows(2).position(|w| w[0] == "-x" && w[1] == "hip") {
        rest.drain(i..i + 2);
    }
    for w in rest {
        if let Some(i) = ours.iter().position(|o| *o == w) {
            ours.remove(i);
        } else {
            flags.push(w);
        }
    }
    Some((clang, flags))
}

/// Splits a command line as a POSIX shell would for plain words: double and single quotes,
/// backslash escapes; no expansion.
pub(crate) fn shell_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            '"' => {
                in_word = true;
                while let Some(n) = chars.next() {
                    match n {
                        '"' => break,
                        '\\' => {
                            if let Some(m) = chars.next() {
                                if !matches!(m, '"' | '\\' | '$' | '`') {
                                    cur.push('\\');
                                }
                                cur.push(m);
                            }
                        }
                        n => cur.push(n),
                    }
                }
            }
            '\'' => {
                in_word = true;
                for n in chars.by_ref() {
                    if n == '\'' {
                        break;
                    }
                    cur.push(n);
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Real `hipcc-cmd:` lines (HIPCC_VERBOSE=1 hipcc -### ...), one per stack of the test bed.
    const DEBIAN12: &str = r#"hipcc-cmd: /usr/bin/clang++-15  -std=c++11 -isystem "/usr/lib/llvm-15/lib/clang/15.0.6/include/.." -isystem /usr/hsa/include --hip-version=5.2.21153 --rocm-path=/usr --offload-arch=gfx1030 -O3 -mllvm -amdgpu-early-inline-all=true -mllvm -amdgpu-function-calls=false --hip-device-lib-path="/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"  -\#\#\# --cuda-device-only -c -x hip probe.hip -o "probe.o"
Debian clang version 15.0.6"#;
    const TRIXIE: &str = r#"hipcc-cmd: /usr/bin/clang++-17  --offload-arch=gfx1030 -O3 -mllvm -amdgpu-early-inline-all=true -mllvm -amdgpu-function-calls=false  -\#\#\# --cuda-device-only -c -x hip probe.hip -o "probe.o""#;
    const SID: &str = "Debian clang version 21.1.8 (14)\nhipcc-cmd: /usr/lib/llvm-21/bin/clang++  \
        --offload-arch=gfx1030 -O3  -\\#\\#\\# --cuda-device-only -c -x hip probe.hip -o \
        \"probe.o\"";

    #[test]
    fn hipcc_flags_of_each_release() {
        let (c, f) = parse_hipcc_cmd(DEBIAN12, "gfx1030").unwrap();
        assert_eq!(c, PathBuf::from("/usr/bin/clang++-15"));
        assert_eq!(
            f,
            [
                "-std=c++11",
                "-isystem",
                "/usr/lib/llvm-15/lib/clang/15.0.6/include/..",
                "-isystem",
                "/usr/hsa/include",
                "--hip-version=5.2.21153",
                "--rocm-path=/usr",
                "-O3",
                "-mllvm",
                "-amdgpu-early-inline-all=true",
                "-mllvm",
                "-amdgpu-function-calls=false",
                "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
            ]
        );
        let (c, f) = parse_hipcc_cmd(TRIXIE, "gfx1030").unwrap();
        assert_eq!(c, PathBuf::from("/usr/bin/clang++-17"));
        assert_eq!(
            f,
            [
                "-O3",
                "-mllvm",
                "-amdgpu-early-inline-all=true",
                "-mllvm",
                "-amdgpu-function-calls=false"
            ]
        );
        let (c, f) = parse_hipcc_cmd(SID, "gfx1030").unwrap();
        assert_eq!(c, PathBuf::from("/usr/lib/llvm-21/bin/clang++"));
        assert_eq!(f, ["-O3"]);
    }

    #[test]
    fn no_line_no_answer() {
        assert!(parse_hipcc_cmd("perl: not found", "gfx1030").is_none());
        assert!(parse_hipcc_cmd("hipcc-cmd:", "gfx1030").is_none());
    }

    #[test]
    fn shell_words_quotes_and_escapes() {
        assert_eq!(
            shell_words(r#"a "b c" 'd e' f\ g -\#\# "h\"i" "j\k""#),
            ["a", "b c", "d e", "f g", "-##", "h\"i", "j\\k"]
        );
    }
}
