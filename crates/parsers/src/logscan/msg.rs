//! What one runtime message says, recognised from the CLR format strings (pure, no allocation).
//!
//! Sources (ROCm/clr and ROCm/rocm-systems `projects/clr`; details in docs/log.md):
//! - API trace, `hipamd/src/hip_internal.hpp`: `HIP_API_PRINT` = `"%s %s ( %s ) %s"` with the
//!   green/reset ANSI codes around it; `HIP_ERROR_PRINT`/`HIP_RETURN_DURATION` =
//!   `"%s: Returned %s : %s"` plus `": duration: %lu us"` (`rocclr/utils/debug.cpp` log_printf)
//! - `rocvirtual.cpp`: `"ShaderName : %s"`, AQL `"SWq=0x%zx, HWq=0x%zx, id=%d, Dispatch Header = ..."`
//! - `platform/command.cpp`: `"Command (%s) enqueued: %p"` (6.x) / `"... to queue: %p"` (7.x)
//! - `rocdevice.cpp`: `"Created SWq=%p to map on HWq=%p with size %u with priority %d, cooperative: %d"`,
//!   `"Enumerated GPU agents = %lu"` (prefixed `"Initalizing runtime stack, "` from 6.4),
//!   `"Gfx Major/Minor/Stepping: %d/%d/%d"`, `"HMM support: %d, XNACK: %d, Direct host access: %d"`,
//!   `"populateOCLDeviceConstants failed for HSA device %s (PCI ID %x)"`,
//!   `"Callback: Queue %p aborting with error : %s code: 0x%x"` (level 0, then abort)
//! - `hip_context.cpp` `"HIP Version: %s, Direct Dispatch: %d"`, `os_posix.cpp` `"HIP Library Path: %s"`,
//!   `comgrctx.cpp` `"Loaded COMGR library version %zu.%zu."`
//! - `hip_fatbin.cpp`: `"Cannot find CO in the bundle %s for ISA: %s"` (6.x),
//!   `"No compatible code objects found for: %s, value of HIP_FORCE_SPIRV_CODEOBJECT: %d"` (7.x);
//!   `hip_code_object.cpp` `"[Code Object V%d, target id:%s]"`; `devprogram.cpp` `"Using Code Object V%d."`
//! - initialisation, `rocdevice.cpp` `"Initializing HSA stack."`, `"hsa_init failed."` (5.x) /
//!   `"hsa_init failed with %x"` (6.x), `runtime.cpp` `"Runtime initialization failed"`: strings of
//!   Debian's libamdhip64 5.2.3, 5.7.1 and 6.4.3, and the logs they print on a machine without a
//!   GPU (tests/fixtures/logs/hip-*-level*.log)
//! - ROCr `runtime.cpp` (foreign lines): `"Memory access fault by GPU node-%u ..."`,
//!   `"HW Exception by GPU node-%u ..."`, `"Memory critical error by agent node-%u ..."`

use memchr::memmem;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<'a> {
    ApiCall {
        api: &'a [u8],
        args: &'a [u8],
    },
    ApiReturn {
        api: &'a [u8],
        result: &'a [u8],
        rest: &'a [u8],
        duration_us: Option<u64>,
    },
    Kernel(&'a [u8]),
    Command(&'a [u8]),
    /// An AQL packet: `true` for a kernel dispatch (type=2), `false` for a barrier.
    Packet(bool),
    QueueCreated {
        hwq: &'a [u8],
        size: Option<u64>,
    },
    AgentsEnumerated(u64),
    Gfx {
        major: u32,
        minor: u32,
        stepping: u32,
    },
    Xnack(bool),
    DeviceFailed(&'a [u8]),
    HipVersion(&'a [u8]),
    HipLibrary(&'a [u8]),
    Comgr(&'a [u8]),
    /// No code object for an ISA: (library or empty, ISA).
    NoCodeObject {
        bundle: &'a [u8],
        isa: &'a [u8],
    },
    CodeObjectTarget(&'a [u8]),
    CodeObjectVersion(&'a [u8]),
    /// The runtime or ROCr announces an abort (queue error, memory fault, HW exception).
    Fatal,
    /// The runtime starts initialising ROCr (`Initializing HSA stack.`).
    InitStart,
    /// The runtime could not initialise (`hsa_init failed...`, `Runtime initialization failed`).
    InitFailed,
    Other,
}

/// Strips the ANSI colour codes and the blanks the API trace puts around its text.
#[inline]
pub fn strip(msg: &[u8]) -> &[u8] {
    // Most messages need nothing stripped: no blank or ESC at the start, and neither a blank
    // nor the `m` of an SGR code at the end.
    match (msg.first(), msg.last()) {
        (Some(&f), Some(&l)) if f != b' ' && f != 0x1b && l != b' ' && l != b'm' => msg,
        _ => strip_codes(msg),
    }
}

/// [`strip`] for a message that starts or ends with a blank or a colour code.
fn strip_codes(msg: &[u8]) -> &[u8] {
    // The API trace's own shape: green, text, reset (`KGRN`/`KNRM` in hip_internal.hpp).
    if let Some(inner) = msg
        .strip_prefix(b"\x1b[32m")
        .and_then(|r| r.strip_suffix(b"\x1b[0m"))
    {
        let t = trim(inner);
        if t.first() != Some(&0x1b) && t.last() != Some(&b'm') {
            return t;
        }
    }
    let mut m = msg;
    loop {
        let t = trim(m);
        if t.first() == Some(&0x1b) {
            // An SGR code is short: look for its `m` in the first 16 bytes only.
            match memchr::memchr(b'm', &t[..t.len().min(16)]) {
                Some(p) => m = &t[p + 1..],
                None => return t,
            }
        } else if let Some(p) = memchr::memrchr(0x1b, &t[t.len().saturating_sub(16)..]) {
            m = &t[..t.len().saturating_sub(16) + p];
        } else {
            return t;
        }
    }
}

fn trim(b: &[u8]) -> &[u8] {
    let s = b.iter().position(|&c| c != b' ').unwrap_or(b.len());
    let e = b.iter().rposition(|&c| c != b' ').map_or(s, |p| p + 1);
    &b[s..e.max(s)]
}

fn after<'a>(m: &'a [u8], prefix: &[u8]) -> Option<&'a [u8]> {
    m.strip_prefix(prefix)
}

/// The length of the identifier (`[A-Za-z0-9_]*`) `m` starts with. A table lookup per byte:
/// API names are checked on every traced call and return.
fn ident_len(m: &[u8]) -> usize {
    m.iter()
        .position(|&c| !IDENT[usize::from(c)])
        .unwrap_or(m.len())
}

/// The bytes of an identifier.
static IDENT: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_';
        c += 1;
    }
    t
};

/// The decimal number at the start of `b` (None without a digit, or past u64).
fn num(b: &[u8]) -> Option<u64> {
    let mut v: u64 = 0;
    let mut n = 0;
    for &d in b {
        let x = d.wrapping_sub(b'0');
        if x > 9 {
            break;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(x))?;
        n += 1;
    }
    (n > 0).then_some(v)
}

/// The packet type digit of an AQL line (`... Header = 0x1502 (type=2, ...`).
fn header_type(m: &[u8]) -> Option<u8> {
    // Fast path: the line's first `(` closes `Header = 0x%x ` (the format of rocvirtual.cpp), so
    // one byte search finds it; any other shape takes the general search below, which gives the
    // same answer on this one.
    if let Some(t) = memchr::memchr(b'(', m) {
        let before = m[..t].strip_suffix(b" ").unwrap_or(&m[..t]);
        let hex = before
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_hexdigit())
            .count();
        if before[..before.len() - hex].ends_with(b"Header = 0x") {
            return m
                .get(t + 1..t + 7)
                .filter(|s| s.starts_with(b"type="))
                .map(|s| s[5]);
        }
    }
    static F: std::sync::OnceLock<memmem::Finder<'static>> = std::sync::OnceLock::new();
    let f = F.get_or_init(|| memmem::Finder::new(b"Header = "));
    let p = f.find(m)?;
    let r = &m[p..];
    let t = memchr::memchr(b'(', r)?;
    r.get(t + 1..t + 7)
        .filter(|s| s.starts_with(b"type="))
        .map(|s| s[5])
}

/// Where `: duration: ` starts in a return's tail (`... : duration: %lu us`): its second colon is
/// the last colon of the line, so one reverse byte search finds it.
fn duration_at(tail: &[u8]) -> Option<usize> {
    const D: &[u8] = b": duration: ";
    let colon = memchr::memrchr(b':', tail)?;
    let start = colon.checked_sub(D.len() - 2)?;
    tail[start..].starts_with(D).then_some(start)
}

/// Classifies a runtime message (level >= 0) or, with `foreign`, a line outside the prefix format.
pub fn classify(msg: &[u8], foreign: bool) -> Event<'_> {
    let m = strip(msg);
    if foreign {
        return if m.starts_with(b"Memory access fault by GPU")
            || m.starts_with(b"HW Exception by GPU")
            || m.starts_with(b"Memory critical error by agent")
        {
            Event::Fatal
        } else {
            Event::Other
        };
    }
    // Hot lines first, by their first byte (the launch sequence of section 1.7 of docs/log.md).
    match m.first() {
        Some(b'S') => {
            if let Some(k) = after(m, b"ShaderName : ") {
                return Event::Kernel(k);
            }
            if m.starts_with(b"SWq=") {
                return match header_type(m) {
                    Some(t) => Event::Packet(t == b'2'),
                    None => Event::Other,
                };
            }
        }
        Some(b'C') => {
            if let Some(r) = after(m, b"Command (") {
                let e = memchr::memchr(b')', r).unwrap_or(r.len());
                return Event::Command(&r[..e]);
            }
        }
        Some(b'A') if m.starts_with(b"Arg") => return Event::Other,
        Some(b'K') if m.starts_with(b"Kernarg") => return Event::Other,
        Some(b'N') if m.starts_with(b"NullStream") => return Event::Other,
        _ => {}
    }
    let n = ident_len(m);
    if n > 0 {
        let (id, rest) = m.split_at(n);
        if let Some(r) = after(rest, b": Returned ") {
            let e = memchr::memchr(b' ', r).unwrap_or(r.len());
            let (result, mut tail) = r.split_at(e);
            tail = tail.strip_prefix(b" :").unwrap_or(tail);
            let mut duration_us = None;
            // `: duration: %lu us` closes the line when present: look only then.
            if tail.ends_with(b" us") {
                if let Some(p) = duration_at(tail) {
                    duration_us = num(&tail[p + 12..]);
                    tail = &tail[..p];
                }
            }
            return Event::ApiReturn {
                api: id,
                result,
                rest: trim(tail),
                duration_us,
            };
        }
        if let Some(r) = after(rest, b" ( ") {
            let args = r.strip_suffix(b" )").unwrap_or(r);
            return Event::ApiCall { api: id, args };
        }
        if rest == b" ()" || rest == b" (  )" {
            return Event::ApiCall { api: id, args: b"" };
        }
    }
    if let Some(k) = after(m, b"ShaderName : ") {
        return Event::Kernel(k);
    }
    if let Some(r) = after(m, b"Command (") {
        let e = memchr::memchr(b')', r).unwrap_or(r.len());
        return Event::Command(&r[..e]);
    }
    if let Some(r) = after(m, b"Created SWq=") {
        let hwq = memmem::find(r, b"HWq=").map_or(&b""[..], |p| {
            let s = &r[p + 4..];
            &s[..s.iter().position(|&c| c == b' ').unwrap_or(s.len())]
        });
        let size = memmem::find(r, b"with size ").and_then(|p| num(&r[p + 10..]));
        return Event::QueueCreated { hwq, size };
    }
    if let Some(p) = memmem::find(m, b"Enumerated GPU agents = ") {
        if let Some(v) = num(&m[p + 24..]) {
            return Event::AgentsEnumerated(v);
        }
    }
    if let Some(r) = after(m, b"Gfx Major/Minor/Stepping: ") {
        let mut it = r.split(|&c| c == b'/').map(num);
        if let (Some(Some(a)), Some(Some(b)), Some(Some(c))) = (it.next(), it.next(), it.next()) {
            return Event::Gfx {
                major: a as u32,
                minor: b as u32,
                stepping: c as u32,
            };
        }
    }
    if m.starts_with(b"HMM support: ") {
        if let Some(p) = memmem::find(m, b"XNACK: ") {
            return Event::Xnack(m.get(p + 7) == Some(&b'1'));
        }
    }
    if let Some(r) = after(m, b"populateOCLDeviceConstants failed for HSA device ") {
        let e = r.iter().position(|&c| c == b' ').unwrap_or(r.len());
        return Event::DeviceFailed(&r[..e]);
    }
    if let Some(r) = after(m, b"HIP Version: ") {
        let e = memchr::memchr(b',', r).unwrap_or(r.len());
        return Event::HipVersion(&r[..e]);
    }
    if let Some(r) = after(m, b"HIP Library Path: ") {
        return Event::HipLibrary(r);
    }
    if let Some(r) = after(m, b"Loaded COMGR library version ") {
        return Event::Comgr(r.strip_suffix(b".").unwrap_or(r));
    }
    if let Some(r) = after(m, b"Cannot find CO in the bundle ") {
        if let Some(p) = memmem::rfind(r, b" for ISA: ") {
            return Event::NoCodeObject {
                bundle: &r[..p],
                isa: &r[p + 10..],
            };
        }
    }
    if let Some(r) = after(m, b"No compatible code objects found for: ") {
        let e = memchr::memchr(b',', r).unwrap_or(r.len());
        return Event::NoCodeObject {
            bundle: b"",
            isa: &r[..e],
        };
    }
    if let Some(r) = after(m, b"[Code Object V") {
        if let Some(p) = memmem::find(r, b"target id:") {
            let t = &r[p + 10..];
            return Event::CodeObjectTarget(t.strip_suffix(b"]").unwrap_or(t));
        }
    }
    if let Some(r) = after(m, b"Using Code Object V") {
        return Event::CodeObjectVersion(r.strip_suffix(b".").unwrap_or(r));
    }
    if m.starts_with(b"Callback: Queue ") {
        return Event::Fatal;
    }
    if m == b"Initializing HSA stack." {
        return Event::InitStart;
    }
    if m.starts_with(b"hsa_init failed") || m == b"Runtime initialization failed" {
        return Event::InitFailed;
    }
    Event::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_entry_with_ansi_and_return_with_duration() {
        assert_eq!(
            classify(
                b"\x1b[32m hipMalloc ( 0x7ffc16ba1708, 4096 ) \x1b[0m",
                false
            ),
            Event::ApiCall {
                api: b"hipMalloc",
                args: b"0x7ffc16ba1708, 4096"
            }
        );
        assert_eq!(
            classify(
                b"hipMemcpyAsync: Returned hipSuccess : : duration: 529 us",
                false
            ),
            Event::ApiReturn {
                api: b"hipMemcpyAsync",
                result: b"hipSuccess",
                rest: b"",
                duration_us: Some(529)
            }
        );
        assert_eq!(
            classify(
                b"hipLaunchKernel: Returned hipErrorInvalidDeviceFunction : ",
                false
            ),
            Event::ApiReturn {
                api: b"hipLaunchKernel",
                result: b"hipErrorInvalidDeviceFunction",
                rest: b"",
                duration_us: None
            }
        );
    }

    #[test]
    fn devices_queues_code_objects() {
        assert_eq!(
            classify(b"Gfx Major/Minor/Stepping: 9/4/2", false),
            Event::Gfx {
                major: 9,
                minor: 4,
                stepping: 2
            }
        );
        assert_eq!(
            classify(
                b"Initalizing runtime stack, Enumerated GPU agents = 3",
                false
            ),
            Event::AgentsEnumerated(3)
        );
        assert_eq!(
            classify(
                b"Created SWq=0x76cc16c6a000 to map on HWq=0x76cc0dd00000 with size 16384 \
                with priority 1, cooperative: 0",
                false
            ),
            Event::QueueCreated {
                hwq: b"0x76cc0dd00000",
                size: Some(16384)
            }
        );
        assert_eq!(
            classify(
                b"Cannot find CO in the bundle /opt/rocm-6.2.1/lib/libMIOpen.so.1.0.60201 \
                for ISA: amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-",
                false
            ),
            Event::NoCodeObject {
                bundle: b"/opt/rocm-6.2.1/lib/libMIOpen.so.1.0.60201",
                isa: b"amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"
            }
        );
        assert_eq!(
            classify(
                b"No compatible code objects found for: gfx1030, value of \
                    HIP_FORCE_SPIRV_CODEOBJECT: 0",
                false
            ),
            Event::NoCodeObject {
                bundle: b"",
                isa: b"gfx1030"
            }
        );
        // HIP 5.2.3's API entry: no blanks inside the colour codes.
        assert_eq!(
            classify(b"\x1b[32mhipSetDevice ( 0 )\x1b[0m", false),
            Event::ApiCall {
                api: b"hipSetDevice",
                args: b"0"
            }
        );
        for (m, e) in [
            (&b"Initializing HSA stack."[..], Event::InitStart),
            (b"hsa_init failed.", Event::InitFailed),
            (b"hsa_init failed with 1008", Event::InitFailed),
            (b"Runtime initialization failed", Event::InitFailed),
        ] {
            assert_eq!(classify(m, false), e);
        }
        assert_eq!(
            classify(
                b"SWq=0x1, HWq=0x2, id=1, Dispatch Header = 0x1502 (type=2, barrier=1, \
                acquire=2, release=2), setup=3",
                false
            ),
            Event::Packet(true)
        );
    }
}
