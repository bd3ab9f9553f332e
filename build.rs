//! Build step: the harvested message table (`checks/origins.toml`, 1.4 MB written by
//! `scripts/harvest-origins.py`) is converted to JSON here, once, so that `why` does not parse
//! TOML at every start. The toml parser reads it at about 170 instructions a byte (300 million
//! instructions, measured with callgrind: docs/benchmarks.md "why"); serde_json reads the same
//! document in a small fraction of that. The TOML file stays the one source: this writes a copy
//! into Cargo's OUT_DIR only, and a table that does not parse fails the build with its message.
use std::path::Path;

fn main() {
    let src = Path::new("checks/origins.toml");
    println!("cargo:rerun-if-changed={}", src.display());
    println!("cargo:rerun-if-changed=build.rs");
    let text = std::fs::read_to_string(src)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", src.display()));
    let value: toml::Value =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
    let json = serde_json::to_string(&value).expect("a TOML value serialises as JSON");
    let out =
        Path::new(&std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("origins.json");
    std::fs::write(&out, json).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
