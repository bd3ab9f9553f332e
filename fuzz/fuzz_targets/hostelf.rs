//! A host ELF (executable, shared library or relocatable object): `.hip_fatbin`, the
//! `.hipFatBinSegment` wrappers and their RELATIVE relocations, `__CLANG_OFFLOAD_BUNDLE__`
//! sections; then every bundle found is inspected as `inspect` does.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rocm_doctor::codeobj::{blob, hostelf};

const CAP: u64 = 4 << 20;

fuzz_target!(|data: &[u8]| {
    let opts = blob::Options {
        cap: CAP,
        kernel_names: false,
        verify_hash: true,
        targets_only: false,
    };
    let _ = hostelf::locate_with(data, false);
    if let Ok(l) = hostelf::locate(data) {
        let _ = serde_json::to_string(&l);
        if let Some(f) = &l.fatbin {
            let start = usize::try_from(f.offset).unwrap_or(usize::MAX);
            let end = start.saturating_add(usize::try_from(f.size).unwrap_or(usize::MAX));
            if let Some(sec) = data.get(start..end.min(data.len())) {
                let _ = hostelf::walk_fatbin(sec);
            }
        }
        for off in l.bundles.iter().take(16) {
            if let Some(rest) = usize::try_from(*off).ok().and_then(|o| data.get(o..)) {
                let _ = blob::inspect(rest, *off, &opts);
            }
        }
    }
});
