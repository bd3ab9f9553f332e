//! Check packs (`--checks`, checks.d): any text through the pack compiler, which must answer
//! with a pack or `data::DataError`s (`file:line:column: message`, or `file: message` for the
//! whole file), within its size and nesting limits.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rocm_doctor::packs::compile;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(errors) = compile::compile("fuzz.toml", text) {
            for e in errors {
                let _ = format!("{e:?}");
            }
        }
    }
});
