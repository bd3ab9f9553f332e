//! I/O behind an "incompatible library" link failure: what the library really is (ELF machine,
//! after following a linker script) and where the flag that pulled it in came from (a shell
//! wrapper around clang, Nix's `nix-support` flag files, link-flag variables, clang config
//! files, `CCC_OVERRIDE_OPTIONS`). Everything goes through [`Host`].
//!
//! Facts used: clang reads default config files named `<triple>-<driver>.cfg`, `<triple>.cfg`
//! and `<driver>.cfg` from its own directory and the configured user/system dirs (clang
//! docs, "Configuration files"); `CCC_OVERRIDE_OPTIONS` edits the driver's argv (clang
//! Driver.cpp, applyOverrideOptions); Nix's cc-wrapper adds `nix-support/cc-ldflags` and
//! `libcxx-ldflags` and reads `NIX_LDFLAGS*` (nixpkgs pkgs/build-support/cc-wrapper).

use crate::codeobj::elf;
use crate::host::Host;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Where a flag that adds the library was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Origin {
    /// `wrapper script /x/clang++`, `environment NIX_LDFLAGS`, `clang config file /x/clang++.cfg`.
    pub place: String,
    /// The line or value that carries the flag.
    pub text: String,
}

/// What [`explain_incompatible`] learned about one library the linker rejected.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct LinkInjection {
    /// The library as the linker named it.
    pub lib: PathBuf,
    /// The file actually read when `lib` is a linker script (`INPUT(...)`/`GROUP(...)`).
    pub resolved: Option<PathBuf>,
    /// `x86-64`, `AMDGPU`, ... (None when it is not ELF or cannot be read).
    pub elf_machine: Option<String>,
    /// Where the flag came from (empty when nothing was found).
    pub origins: Vec<Origin>,
    /// When `clang` is a wrapper script: the real compiler it runs.
    pub unwrapped: Option<PathBuf>,
    /// Read problems met on the way (evidence, not errors).
    pub notes: Vec<String>,
}

const SCRIPT_LIMIT: u64 = 1 << 20;
const ENV_VARS: &[&str] = &[
    "NIX_LDFLAGS",
    "NIX_CFLAGS_LINK",
    "LDFLAGS",
    "CCC_OVERRIDE_OPTIONS",
];

/// Explains why `lib` ended up in a link driven by `clang` (the path that was run).
pub(crate) fn explain_incompatible(host: &Host, clang: &Path, lib: &Path) -> LinkInjection {
    let mut r = LinkInjection {
        lib: lib.to_path_buf(),
        ..Default::default()
    };
    let (machine, resolved) = elf_machine_following_scripts(host, lib, &mut r.notes);
    r.elf_machine = machine;
    r.resolved = resolved.filter(|p| p != lib);
    let needles = Needles::for_lib(lib);

    // 1. clang itself is a shell script.
    if let Some(text) = script_text(host, clang) {
        r.origins
            .extend(needles.scan(&text, &format!("wrapper script {}", clang.display())));
        r.unwrapped = wrapped_compiler(host, &text, clang);
        // Nix cc-wrapper: flags live in nix-support files next to the wrapper.
        for dir in nix_support_dirs(&text, clang) {
            for name in host.fs.list_names(&dir) {
                let f = dir.join(&name);
                if let Ok(t) = host.fs.read_bytes_limited(&f, SCRIPT_LIMIT) {
                    r.origins.extend(needles.scan(
                        &String::from_utf8_lossy(&t),
                        &format!("Nix wrapper flag file {}", f.display()),
                    ));
                }
            }
        }
    }
    // 2. Variables that wrappers (Nix: NIX_LDFLAGS*, NIX_CFLAGS_LINK*), build systems (LDFLAGS)
    //    or clang itself (CCC_OVERRIDE_OPTIONS) read.
    let mut names: Vec<String> = ENV_VARS.iter().map(|s| s.to_string()).collect();
    for (k, _) in host.env.iter() {
        let k = k.to_string_lossy();
        if (k.starts_with("NIX_LDFLAGS") || k.starts_with("NIX_CFLAGS_LINK"))
            && !names.iter().any(|n| *n == k)
        {
            names.push(k.into_owned());
        }
    }
    for n in names {
        if let Some(v) = host.env.get_str(&n) {
            if needles.matches(&v) {
                r.origins.push(Origin {
                    place: format!("environment {n}"),
                    text: v,
                });
            }
        }
    }
    // 3. clang config files.
    for f in config_file_candidates(host, clang, r.unwrapped.as_deref()) {
        if let Ok(t) = host.fs.read_bytes_limited(&f, SCRIPT_LIMIT) {
            r.origins.extend(needles.scan(
                &String::from_utf8_lossy(&t),
                &format!("clang config file {}", f.display()),
            ));
        }
    }
    r
}

/// What to look for: `-l<name>`, the library's directory, the library's path.
struct Needles {
    lflag: Option<String>,
    dir: Option<String>,
    path: String,
}

impl Needles {
    fn for_lib(lib: &Path) -> Self {
        Needles {
            lflag: super::lib_flag_name(lib).map(|n| format!("-l{n}")),
            dir: lib
                .parent()
                .map(|d| d.to_string_lossy().into_owned())
                .filter(|d| d.len() > 1),
            path: lib.to_string_lossy().into_owned(),
        }
    }

    fn matches(&self, text: &str) -> bool {
        if text.contains(&self.path) {
            return true;
        }
        if let Some(d) = &self.dir {
            if text.contains(&format!("-L{d}")) || text.contains(&format!("-L {d}")) {
                return true;
            }
        }
        if let Some(l) = &self.lflag {
            let mut from = 0;
            while let Some(i) = text[from..].find(l.as_str()) {
                let end = from + i + l.len();
                let next = text[end..].chars().next();
                if !next.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '+' || c == '-') {
                    return true;
                }
                from = end;
            }
        }
        false
    }

    fn scan(&self, text: &str, place: &str) -> Vec<Origin> {
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim_start().starts_with('#') || l.starts_with("#!"))
            .filter(|(_, l)| self.matches(l))
            .take(5)
            .map(|(i, l)| Origin {
                place: format!("{place} line {}", i + 1),
                text: l.trim().chars().take(300).collect(),
            })
            .collect()
    }
}

/// The text of `p` if it is a script (`#!`), else None.
fn script_text(host: &Host, p: &Path) -> Option<String> {
    // The first two bytes decide; a compiler binary is not read further.
    if !host.fs.read_head(p, 2).ok()?.starts_with(b"#!") {
        return None;
    }
    let bytes = host.fs.read_bytes_limited(p, SCRIPT_LIMIT).ok()?;
    bytes
        .starts_with(b"#!")
        .then(|| String::from_utf8_lossy(&bytes).into_owned())
}

/// Absolute paths in a wrapper script whose name starts with `clang` (or is `amdclang++`)
/// and that are executables but not scripts: the compiler the wrapper runs.
fn wrapped_compiler(host: &Host, text: &str, wrapper: &Path) -> Option<PathBuf> {
    let mut seen = Vec::new();
    for tok in text.split(|c: char| {
        c.is_whitespace() || c == '"' || c == '\'' || c == '=' || c == ';' || c == '(' || c == ')'
    }) {
        if !tok.starts_with('/') || tok.contains('$') {
            continue;
        }
        let p = PathBuf::from(tok);
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !(name.starts_with("clang") || name.starts_with("amdclang"))
            || p == wrapper
            || seen.contains(&p)
        {
            continue;
        }
        seen.push(p.clone());
        let is_file = host.fs.metadata(&p).map(|m| m.is_file()).unwrap_or(false);
        if is_file && script_text(host, &p).is_none() {
            return Some(p);
        }
    }
    None
}

fn nix_support_dirs(text: &str, wrapper: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for tok in
        text.split(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == '=' || c == ';')
    {
        if let Some(i) = tok.find("/nix-support") {
            if tok.starts_with('/') && !tok.contains('$') {
                let d = PathBuf::from(&tok[..i + "/nix-support".len()]);
                if !dirs.contains(&d) {
                    dirs.push(d);
                }
            }
        }
    }
    if let Some(d) = wrapper
        .parent()
        .and_then(Path::parent)
        .map(|p| p.join("nix-support"))
    {
        if !dirs.contains(&d) {
            dirs.push(d);
        }
    }
    dirs
}

/// Config files clang would read for `clang++ --target=amdgcn-amd-amdhsa`, by directory.
fn config_file_candidates(host: &Host, clang: &Path, unwrapped: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut drivers: Vec<String> = vec!["clang++".into(), "clang".into()];
    for c in [Some(clang), unwrapped].into_iter().flatten() {
        if let Some(n) = c.file_name() {
            let n = n.to_string_lossy().into_owned();
            if !drivers.contains(&n) {
                drivers.push(n);
            }
        }
        for p in [Some(c.to_path_buf()), host.fs.canonicalize(c).ok()]
            .into_iter()
            .flatten()
        {
            if let Some(d) = p.parent() {
                if !dirs.iter().any(|x| x == d) {
                    dirs.push(d.to_path_buf());
                }
            }
        }
    }
    for v in ["CLANG_CONFIG_FILE_SYSTEM_DIR", "CLANG_CONFIG_FILE_USER_DIR"] {
        if let Some(d) = host.env.get_nonempty(v) {
            dirs.push(PathBuf::from(d));
        }
    }
    dirs.push(PathBuf::from("/etc/clang"));
    let mut out = Vec::new();
    for d in &dirs {
        for triple in ["amdgcn-amd-amdhsa", "amdgcn-amdhsa"] {
            for drv in &drivers {
                out.push(d.join(format!("{triple}-{drv}.cfg")));
            }
            out.push(d.join(format!("{triple}.cfg")));
        }
        for drv in &drivers {
            out.push(d.join(format!("{drv}.cfg")));
        }
    }
    out
}

/// The ELF machine of `lib`, following up to 4 linker scripts. Returns (machine, file read).
fn elf_machine_following_scripts(
    host: &Host,
    lib: &Path,
    notes: &mut Vec<String>,
) -> (Option<String>, Option<PathBuf>) {
    let mut cur = lib.to_path_buf();
    for _ in 0..5 {
        let bytes = match host.fs.read_bytes_limited(&cur, 64 << 10) {
            Ok(b) => b,
            Err(e) => {
                notes.push(format!(
                    "cannot read {}: {}",
                    cur.display(),
                    crate::host::io_error_text(&e)
                ));
                return (None, Some(cur));
            }
        };
        if bytes.starts_with(b"\x7fELF") {
            return (elf_machine(&bytes), Some(cur));
        }
        match linker_script_input(&String::from_utf8_lossy(&bytes)) {
            Some(next) => {
                let next = if next.is_absolute() {
                    next
                } else {
                    cur.parent().unwrap_or(Path::new("/")).join(next)
                };
                notes.push(format!(
                    "{} is a linker script naming {}",
                    cur.display(),
                    next.display()
                ));
                cur = next;
            }
            None => {
                notes.push(format!(
                    "{} is neither ELF nor a linker script with INPUT/GROUP",
                    cur.display()
                ));
                return (None, Some(cur));
            }
        }
    }
    notes.push("linker scripts nest too deep".into());
    (None, Some(cur))
}

/// The ELF header's `e_machine`, named (`x86-64`, `AMDGPU`, else `EM_<n>`).
pub(crate) fn elf_machine(bytes: &[u8]) -> Option<String> {
    elf::machine(bytes).map(elf::machine_name)
}

/// The first file a GNU linker script's `INPUT(...)` or `GROUP(...)` names (pure).
pub(crate) fn linker_script_input(text: &str) -> Option<PathBuf> {
    // Comments are /* ... */ in linker scripts.
    let mut clean = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("/*") {
        clean.push_str(&rest[..i]);
        rest = rest[i + 2..].split_once("*/").map(|(_, r)| r).unwrap_or("");
    }
    clean.push_str(rest);
    for kw in ["INPUT", "GROUP"] {
        let mut from = 0;
        while let Some(i) = clean[from..].find(kw) {
            let after = clean[from + i + kw.len()..].trim_start();
            from += i + kw.len();
            let Some(inner) = after.strip_prefix('(') else {
                continue;
            };
            for tok in inner.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
            {
                if tok.is_empty() || tok == "AS_NEEDED" || tok.starts_with("-l") {
                    continue;
                }
                return Some(PathBuf::from(tok));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{Env, Limits};
    use std::time::Duration;

    fn host(env: Env) -> Host {
        Host::new(
            PathBuf::from("/"),
            env,
            Limits::new(Duration::from_secs(5), Duration::from_secs(30)),
        )
    }

    #[test]
    fn linker_scripts() {
        assert_eq!(
            linker_script_input("/* GNU ld script */\nINPUT(libunwind.so.1)\n"),
            Some(PathBuf::from("libunwind.so.1"))
        );
        assert_eq!(
            linker_script_input(
                "OUTPUT_FORMAT(elf64-x86-64)\nGROUP ( \
                /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc_nonshared.a  \
                AS_NEEDED ( /lib64/ld-linux-x86-64.so.2 ) )"
            ),
            Some(PathBuf::from("/lib/x86_64-linux-gnu/libc.so.6"))
        );
        assert_eq!(linker_script_input("INPUT(-lfoo)"), None);
        assert_eq!(linker_script_input("garbage"), None);
    }

    #[test]
    fn needles_match_flags_not_lookalikes() {
        let n = Needles::for_lib(Path::new("/opt/x/lib/libunwind.so"));
        assert!(n.matches("exec clang \"$@\" -Wl,-lunwind"));
        assert!(n.matches("-L/opt/x/lib -lfoo"));
        assert!(!n.matches("-lunwinder -L/usr/lib"));
    }

    /// Seed 001 rebuilt: a wrapper that adds an x86-64 libunwind through a linker script, and
    /// the same flag in NIX_LDFLAGS and a clang config file next to the wrapper.
    #[test]
    fn finds_elf_machine_and_every_origin() {
        let real_lib = Path::new("/usr/lib/llvm-15/lib/libunwind.so.1");
        if !real_lib.exists() {
            eprintln!("skipped: {} not installed", real_lib.display());
            return;
        }
        let d = tempfile::tempdir().unwrap();
        let lib = d.path().join("lib");
        std::fs::create_dir(&lib).unwrap();
        std::fs::copy(real_lib, lib.join("libunwind.so.1")).unwrap();
        std::fs::write(
            lib.join("libunwind.so"),
            "/* ld script */\nINPUT(libunwind.so.1)\n",
        )
        .unwrap();
        let wrapper = d.path().join("clang++");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nexec /usr/lib/llvm-15/bin/clang++ \"$@\" -Wl,-L{} -Wl,-lunwind\n",
                lib.display()
            ),
        )
        .unwrap();
        std::fs::write(d.path().join("clang++.cfg"), "-lunwind\n").unwrap();
        let env = Env::from_pairs([
            ("NIX_LDFLAGS_FOR_TARGET", format!("-L{}", lib.display())),
            ("PATH", "/usr/bin".into()),
        ]);
        let r = explain_incompatible(&host(env), &wrapper, &lib.join("libunwind.so"));
        assert_eq!(r.elf_machine.as_deref(), Some("x86-64"));
        assert_eq!(
            r.resolved.as_deref(),
            Some(lib.join("libunwind.so.1").as_path())
        );
        let places: Vec<&str> = r.origins.iter().map(|o| o.place.as_str()).collect();
        assert!(
            places
                .iter()
                .any(|p| p.starts_with("wrapper script") && p.ends_with("line 2")),
            "{places:?}"
        );
        assert!(
            places.contains(&"environment NIX_LDFLAGS_FOR_TARGET"),
            "{places:?}"
        );
        assert!(
            places
                .iter()
                .any(|p| p.starts_with("clang config file") && p.contains("clang++.cfg")),
            "{places:?}"
        );
        if Path::new("/usr/lib/llvm-15/bin/clang++").exists() {
            assert_eq!(
                r.unwrapped.as_deref(),
                Some(Path::new("/usr/lib/llvm-15/bin/clang++"))
            );
        }
    }

    #[test]
    fn unreadable_library_is_a_note_not_a_crash() {
        let r = explain_incompatible(
            &host(Env::default()),
            Path::new("/nonexistent/clang"),
            Path::new("/nonexistent/libx.so"),
        );
        assert!(r.elf_machine.is_none() && r.origins.is_empty());
        assert!(
            r.notes[0].contains("ENOENT") || r.notes[0].contains("No such file"),
            "{:?}",
            r.notes
        );
    }
}
