//! AMD_LOG_LEVEL logs: one line through the line parser and the message recogniser, then the
//! whole input through the bounded summary as `rocm-doctor log` reads a stream.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rocm_doctor_parsers::logscan::{feed, line, msg, summary};

fuzz_target!(|data: &[u8]| {
    let l = line::parse(data);
    let foreign = l.kind == line::Kind::Foreign;
    let m = msg::strip(l.msg);
    let _ = msg::classify(m, foreign);
    let mut s = summary::Summary::default();
    let _ = feed::scan_reader(data, &mut s);
    let _ = serde_json::to_string(&s);
});
