//! Fleet input: a report file, a stream of reports, or `host: ` prefixed lines, parsed and
//! folded into the summary `rocm-doctor merge` prints.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rocm_doctor::fleet::{input, summary::Summary};

fuzz_target!(|data: &[u8]| {
    // `fold_bytes` parses an input that starts with `{` with `doc::parse` as `merge` does; a
    // separate `doc::parse(data)` here only parsed the same bytes twice.
    let mut sum = Summary::default();
    input::fold_bytes(&mut sum, data, "fuzz.json", Some("node1"));
    input::fold_lines(&mut sum, data, "fuzz.log");
    let _ = sum.finish();
});
