//! Rule over a library the loader searched for and never found, read from `strace` output
//! (issue 28, item 4: one rule for every program whose trace a user pastes). Pure.
//!
//! glibc's dynamic loader (and `dlopen`) tries a library name in each directory of its search
//! order (RPATH/RUNPATH, `LD_LIBRARY_PATH`, the ld.so cache, the default directories) and opens
//! each candidate path; `strace` prints every attempt as `openat(AT_FDCWD, "<dir>/<name>",
//! O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)` and the one that works as
//! `= <fd>` (strace's `openat` decoding; the search itself is glibc `elf/dl-load.c`,
//! `open_path`). The default directories (`/lib`, `/usr/lib`, `/lib64`, `/usr/lib64` and their
//! multiarch and hwcaps subdirectories) come last, after the ld.so cache, which opens a library
//! it lists at once: a name tried in two or more directories, a default one among them, and
//! opened in none is a library the search ended without: `lib-missing`, naming it. A name tried
//! only in RPATH/LD_LIBRARY_PATH directories may still be found further down a trace the paste
//! cut (ROCm/legacy-rocm-build#1088: libelf.so.1 missed in the RPATH, found later), so it is
//! not read; nor are names opened somewhere, or files that are not shared libraries.

use super::facts::{re, rule_symptom, Derived};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

fn symptom() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "strace.library-never-found",
            "The trace shows the loader searching for a library it never finds",
            "lib-missing",
            "The process looked for a shared library in every directory of its search path \
             (the trace's openat attempts, each ENOENT) and opened it in none: the library is \
             not installed, or not where this process looks.",
            "Install the package that ships the library the trace names (for an old soname \
             such as libtinfo.so.5, the distribution's compatibility package, e.g. \
             libtinfo5/ncurses-compat-libs), or add its directory to the loader's path \
             (/etc/ld.so.conf.d/ and ldconfig, or LD_LIBRARY_PATH).",
            "rule over strace's openat lines (src/packs/strace_loads.rs; glibc elf/dl-load.c \
             open_path)",
        )
    })
}

/// The first shared library (`lib*.so[.N]`) the trace tried in two or more directories and
/// never opened: its name, the attempts, and the line of its first attempt.
pub(crate) fn rules(text: &str) -> Vec<Derived> {
    if !text.contains("ENOENT") {
        return Vec::new();
    }
    static RE: OnceLock<Regex> = OnceLock::new();
    let open = re(
        &RE,
        concat!(
            r#"(?m)open(?:at)?\((?:AT_FDCWD, )?"(?P<path>[^"]*/)?(?P<name>lib[\w+.-]*\.so(?:\.[\d.]+)?)""#,
            r#"[^)]*\)\s*=\s*(?P<ret>-1 ENOENT|\d+)"#,
        ),
    );
    // name -> (attempts that failed, opened, first line, a default directory tried)
    let mut seen: Vec<(String, usize, bool, String, bool)> = Vec::new();
    for line in text.lines() {
        let Some(c) = open.captures(line) else {
            continue;
        };
        let name = c["name"].to_string();
        let ok = !c["ret"].starts_with('-');
        let default = c.name("path").is_some_and(|p| in_default_dir(p.as_str()));
        match seen.iter_mut().find(|s| s.0 == name) {
            Some(s) => {
                s.1 += usize::from(!ok);
                s.2 |= ok;
                s.4 |= default;
            }
            None => seen.push((name, usize::from(!ok), ok, line.to_string(), default)),
        }
    }
    let Some((name, tries, _, line, _)) = seen.into_iter().find(|s| !s.2 && s.1 >= 2 && s.4) else {
        return Vec::new();
    };
    vec![Derived::reasoned(
        symptom(),
        line.chars().take(300).collect(),
        format!(
            "the trace tries {name} in {tries} directories and opens it in none (from the \
             text; this machine was not asked)"
        ),
    )]
}

/// Whether a directory (as strace prints it, `.` and `..` resolved) is one of glibc's default
/// directories or below one (multiarch, `glibc-hwcaps/`, `tls/`).
fn in_default_dir(dir: &str) -> bool {
    let mut parts: Vec<&str> = Vec::new();
    for p in dir.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    matches!(
        parts.as_slice(),
        ["lib" | "lib64", ..] | ["usr", "lib" | "lib64", ..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// strace 6.1 of Debian 12 tracing `/usr/bin/python3 -c 'import ctypes;
    /// ctypes.CDLL("libtinfo.so.5")'` on a machine without libtinfo5 (lines of its output, the
    /// loader's walk through the cache's directory and its subdirectories).
    const NEVER_FOUND: &str = "openat(AT_FDCWD, \"/lib/x86_64-linux-gnu/tls/x86_64/x86_64/\
        libtinfo.so.5\", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)\n\
        openat(AT_FDCWD, \"/lib/x86_64-linux-gnu/tls/x86_64/libtinfo.so.5\", O_RDONLY|O_CLOEXEC) \
        = -1 ENOENT (No such file or directory)\n\
        openat(AT_FDCWD, \"/lib/x86_64-linux-gnu/tls/libtinfo.so.5\", O_RDONLY|O_CLOEXEC) = -1 \
        ENOENT (No such file or directory)\n\
        openat(AT_FDCWD, \"/lib/x86_64-linux-gnu/x86_64/libtinfo.so.5\", O_RDONLY|O_CLOEXEC) = -1 \
        ENOENT (No such file or directory)\n";

    #[test]
    fn a_library_tried_everywhere_and_opened_nowhere_is_missing() {
        let got = rules(NEVER_FOUND);
        assert_eq!(got.len(), 1);
        assert!(
            got[0].reasoning().contains("libtinfo.so.5 in 4"),
            "{}",
            got[0].reasoning()
        );
        // strace -f prefixes each line with the thread's pid.
        let threads: String = NEVER_FOUND
            .lines()
            .map(|l| format!("[pid 23183] {l}\n"))
            .collect();
        assert_eq!(rules(&threads).len(), 1);
    }

    #[test]
    fn a_library_found_in_the_end_or_tried_once_is_not_missing() {
        // The same strace with LD_LIBRARY_PATH=/usr/local/lib loading libnuma.so.1: not in the
        // first directory, then the cache's copy opens.
        let found = "openat(AT_FDCWD, \"/usr/local/lib/libnuma.so.1\", O_RDONLY|O_CLOEXEC) = -1 \
                     ENOENT (No such file or directory)\nopenat(AT_FDCWD, \
                     \"/lib/x86_64-linux-gnu/libnuma.so.1\", O_RDONLY|O_CLOEXEC) = 3\n";
        assert!(rules(found).is_empty());
        let once = "openat(AT_FDCWD, \"/usr/local/lib/libnuma.so.1\", O_RDONLY|O_CLOEXEC) = -1 \
                    ENOENT (No such file or directory)\n";
        assert!(rules(once).is_empty());
        // Tried only in an RPATH's directories: the paste may stop before the cache opens it
        // (legacy-rocm-build#1088's libelf.so.1, found further down its trace).
        let rpath_only = "openat(AT_FDCWD, \"/opt/rocm/lib/tls/libelf.so.1\", O_RDONLY|O_CLOEXEC) \
                          = -1 ENOENT (No such file or directory)\nopenat(AT_FDCWD, \
                          \"/opt/rocm/lib/libelf.so.1\", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such \
                          file or directory)\n";
        assert!(rules(rpath_only).is_empty());
        // A relative RPATH that climbs to /lib64 reaches a default directory.
        assert!(in_default_dir("/opt/rocm-3.3.0/lib/./../../../lib64/"));
        assert!(!in_default_dir("/opt/rocm-3.3.0/lib/./../lib/"));
    }
}
