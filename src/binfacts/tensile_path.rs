//! Where a BLAS library's loader looks for its Tensile kernel library, as the loader does it.
//!
//! rocBLAS (`library/src/tensile_host.cpp`, `TensileHost::initialize`, shared-library build):
//! `ROCBLAS_TENSILE_LIBPATH` if set; else the directory of the loaded `librocblas.so`
//! (`dl_iterate_phdr`), then the first of `<dir>/../../Tensile/library`, `<dir>/library`,
//! `<dir>/../rocblas/library` that exists, else `<dir>/rocblas/library` unconditionally; then
//! `<path>/<processor>` when that sub-directory exists.
//! hipBLASLt (`tensile_host.cpp` of hipBLASLt): `HIPBLASLT_TENSILE_LIBPATH`, else
//! `<dir>/../Tensile/library`, `<dir>/library`, else `<dir>/hipblaslt/library`; same
//! `<processor>` sub-directory rule.
//!
//! Distributions patch the last candidate: Debian's rocBLAS looks in
//! `<dir>/rocblas/<version>/library` (measured: `librocblas.so.0.1` of Debian 13 embeds
//! `/rocblas/2.47.0/library`, `librocblas.so.4.4` of sid `/rocblas/4.4.1/library`). So the
//! doctor reads the candidates the library itself carries in `.rodata` and tries them before
//! the upstream fallback: it asks the binary rather than assuming a layout.

use crate::codeobj::elf;
use crate::host::Host;
use serde::Serialize;
use std::path::{Component, Path, PathBuf};

/// One loader's rules.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Loader {
    pub component: &'static str,
    pub env: &'static str,
    /// Suffixes tried in order (each appended to the library's directory).
    pub relative: &'static [&'static str],
    /// Used when none of the candidates exists.
    pub fallback: &'static str,
}

pub(crate) const ROCBLAS: Loader = Loader {
    component: "rocblas",
    env: "ROCBLAS_TENSILE_LIBPATH",
    relative: &["/../../Tensile/library", "/library", "/../rocblas/library"],
    fallback: "/rocblas/library",
};

pub(crate) const HIPBLASLT: Loader = Loader {
    component: "hipblaslt",
    env: "HIPBLASLT_TENSILE_LIBPATH",
    relative: &["/../Tensile/library", "/library"],
    fallback: "/hipblaslt/library",
};

pub(crate) fn loader_for(component: &str) -> Option<Loader> {
    [ROCBLAS, HIPBLASLT]
        .into_iter()
        .find(|l| l.component == component)
}

/// Where the loader would look, and how that was decided.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Located {
    pub dir: PathBuf,
    /// `ROCBLAS_TENSILE_LIBPATH`, `next to <lib>`, `built-in path of <lib>` ...
    pub how: String,
    pub exists: bool,
    /// Every candidate tried, in order, with whether it exists.
    pub tried: Vec<(PathBuf, bool)>,
}

/// The candidates the library carries for its own directory, besides the upstream ones: the
/// NUL-terminated `.rodata` strings that start with `/`, end with `/library` and name the
/// component. Pure; `b` is the library's bytes.
pub(crate) fn embedded_suffixes(b: &[u8], loader: &Loader) -> Vec<String> {
    let Ok(h) = elf::parse_header(b) else {
        return Vec::new();
    };
    let Ok(secs) = elf::sections(b, &h) else {
        return Vec::new();
    };
    let Some(data) = secs
        .iter()
        .find(|s| s.name == ".rodata")
        .and_then(|s| elf::section_data(b, s).ok())
    else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for end in memchr::memmem::find_iter(data, b"/library\0") {
        let stop = end + "/library".len();
        let start = data[..stop]
            .iter()
            .rposition(|&c| c == 0)
            .map_or(0, |i| i + 1);
        if stop - start > 256 {
            continue;
        }
        let Ok(s) = std::str::from_utf8(&data[start..stop]) else {
            continue;
        };
        let printable = s.bytes().all(|c| c.is_ascii_graphic());
        let relevant = s.contains(loader.component);
        let upstream = loader.relative.contains(&s) || s == loader.fallback;
        if s.starts_with('/') && printable && relevant && !upstream && !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    }
    out
}

/// Where the loader of `lib` (a machine path to the library as the dynamic linker opens it)
/// looks for its Tensile library.
pub(crate) fn locate(host: &Host, loader: &Loader, lib: &Path) -> Located {
    if let Some(v) = host.env.get_str(loader.env) {
        // The loader takes the value as it is, even empty (then relative to the cwd).
        let dir = PathBuf::from(if v.is_empty() { "." } else { v.as_str() });
        let exists = host.fs.is_dir(&dir);
        return Located {
            tried: vec![(dir.clone(), exists)],
            dir,
            how: format!("{} (environment)", loader.env),
            exists,
        };
    }
    let base = lib.parent().unwrap_or(Path::new("/")).to_path_buf();
    let embedded = read_embedded(host, lib, loader);
    let mut suffixes: Vec<(String, &str)> = loader
        .relative
        .iter()
        .map(|s| (s.to_string(), "upstream candidate"))
        .collect();
    suffixes.extend(
        embedded
            .iter()
            .map(|s| (s.clone(), "built into the library")),
    );
    suffixes.push((loader.fallback.to_string(), "upstream fallback"));
    let mut tried = Vec::new();
    for (s, why) in &suffixes {
        let dir = normalize(&PathBuf::from(format!("{}{s}", base.display())));
        let exists = host.fs.is_dir(&dir);
        tried.push((dir.clone(), exists));
        if exists {
            return Located {
                dir,
                how: format!("next to {} ({why} `<dir>{s}`)", lib.display()),
                exists: true,
                tried,
            };
        }
    }
    // None exists: the loader ends on its last candidate (a distribution's patched one first).
    let last = embedded
        .last()
        .cloned()
        .unwrap_or_else(|| loader.fallback.to_string());
    Located {
        dir: normalize(&PathBuf::from(format!("{}{last}", base.display()))),
        how: format!("next to {} (the loader's last candidate)", lib.display()),
        exists: false,
        tried,
    }
}

fn read_embedded(host: &Host, lib: &Path, loader: &Loader) -> Vec<String> {
    let Ok(file) = host.fs.open(lib) else {
        return Vec::new();
    };
    // Read-only, dropped before returning; only `.rodata` is touched; a file shrinking while
    // mapped reads as zeros past its end (host::map), not SIGBUS.
    match crate::host::map::SafeMap::map(&file) {
        Ok(map) => embedded_suffixes(&map, loader),
        Err(_) => Vec::new(),
    }
}

/// Lexical `..` removal for display and look-up (the loader's kernel resolves `..` after
/// links; the library directories here are real directories).
pub(crate) fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF64 with a `.rodata` holding `strings` (NUL-separated) and a `.shstrtab`.
    fn elf_with_rodata(strings: &[&str]) -> Vec<u8> {
        let mut rodata = vec![0u8];
        for s in strings {
            rodata.extend_from_slice(s.as_bytes());
            rodata.push(0);
        }
        let shstr = b"\0.rodata\0.shstrtab\0".to_vec();
        let ro_off = 64u64;
        let sh_off_str = ro_off + rodata.len() as u64;
        let shoff = sh_off_str + shstr.len() as u64;
        let mut b = vec![0u8; 64];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 2; // 64-bit
        b[5] = 1; // little endian
        b[6] = 1;
        b[16..18].copy_from_slice(&3u16.to_le_bytes()); // ET_DYN
        b[18..20].copy_from_slice(&62u16.to_le_bytes()); // x86-64
        b[20..24].copy_from_slice(&1u32.to_le_bytes());
        b[40..48].copy_from_slice(&shoff.to_le_bytes());
        b[52..54].copy_from_slice(&64u16.to_le_bytes());
        b[58..60].copy_from_slice(&64u16.to_le_bytes());
        b[60..62].copy_from_slice(&3u16.to_le_bytes()); // e_shnum
        b[62..64].copy_from_slice(&2u16.to_le_bytes()); // e_shstrndx
        b.extend_from_slice(&rodata);
        b.extend_from_slice(&shstr);
        let sh = |name: u32, ty: u32, off: u64, size: u64| {
            let mut s = vec![0u8; 64];
            s[0..4].copy_from_slice(&name.to_le_bytes());
            s[4..8].copy_from_slice(&ty.to_le_bytes());
            s[24..32].copy_from_slice(&off.to_le_bytes());
            s[32..40].copy_from_slice(&size.to_le_bytes());
            s
        };
        b.extend(sh(0, 0, 0, 0));
        b.extend(sh(1, 1, ro_off, rodata.len() as u64));
        b.extend(sh(9, 3, sh_off_str, shstr.len() as u64));
        b
    }

    #[test]
    fn finds_a_distributions_patched_candidate() {
        // The strings of Debian sid's librocblas.so.4.4 around the loader (measured).
        let b = elf_with_rodata(&[
            "/../../Tensile/library",
            "/../rocblas/library",
            "/rocblas/4.4.1/library",
            "rocBLAS error: Cannot read ",
            "/other/library",
        ]);
        assert_eq!(embedded_suffixes(&b, &ROCBLAS), ["/rocblas/4.4.1/library"]);
        assert!(embedded_suffixes(&b, &HIPBLASLT).is_empty());
    }

    #[test]
    fn non_elf_and_truncated_input_give_nothing() {
        assert!(embedded_suffixes(b"not an elf", &ROCBLAS).is_empty());
        let b = elf_with_rodata(&["/rocblas/9/library"]);
        for cut in [10, 64, 80, b.len() - 1] {
            let _ = embedded_suffixes(&b[..cut], &ROCBLAS);
        }
    }

    #[test]
    fn normalizes_parent_components() {
        assert_eq!(
            normalize(Path::new("/usr/lib/x86_64-linux-gnu/../../Tensile/library")),
            Path::new("/usr/Tensile/library")
        );
    }
}
