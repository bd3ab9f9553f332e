//! `why`'s message matchers: any pasted text against every built-in symptom (the patterns,
//! `needs`/`unless`, the `differ` rule over two releases of one library, the captures), and the
//! paths the text names (compilers, ROCm roots, libraries) that decide what a run examined.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rocm_doctor::packs::{paths, why, PackSet};
use rocm_doctor::registry::sources;
use std::sync::OnceLock;

fn symptoms() -> &'static PackSet {
    static SET: OnceLock<PackSet> = OnceLock::new();
    SET.get_or_init(sources::built_in)
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for hit in why::recognise(symptoms(), &text) {
        let _ = hit.carried_isa();
    }
    for p in paths::named_paths(&text) {
        let _ = paths::normalise(&p.path);
    }
});
