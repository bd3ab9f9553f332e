//! `inspect` streams its listing: a file met under several names (soname links, hard links) is
//! still listed once, under its first name in walk order, with the others; the JSON document
//! is one valid value whose verdict keys follow the listing.

use crate::common;

use rocm_doctor::codeobj::bundle;

#[test]
fn a_file_with_several_names_is_listed_once_with_all_of_them() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let b = bundle::write(&[("host-x86_64-unknown-linux-gnu-", b"")], 8);
    std::fs::write(d.join("b.bin"), &b).unwrap();
    std::os::unix::fs::symlink("b.bin", d.join("a.bin")).unwrap();
    std::os::unix::fs::symlink(d.join("b.bin"), d.join("c.bin")).unwrap();
    std::fs::hard_link(d.join("b.bin"), d.join("d.bin")).unwrap();
    std::fs::write(d.join("e.bin"), &b).unwrap(); // same bytes, another file
    let out = common::doctor()
        .args(["--json", "inspect"])
        .arg(d)
        .output()
        .unwrap();
    let doc = common::json_of(&out);
    let files = doc["inspect"]["files"].as_array().expect("files");
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    let a = d.join("a.bin").display().to_string();
    let e = d.join("e.bin").display().to_string();
    assert_eq!(paths, [a.as_str(), e.as_str()], "{doc:#}");
    let names: Vec<String> = files[0]["also_named"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let want: Vec<String> = ["b.bin", "c.bin", "d.bin"]
        .iter()
        .map(|n| d.join(n).display().to_string())
        .collect();
    assert_eq!(names, want);
    assert!(files[1].get("also_named").is_none());
    // The verdict keys are there, after the listing.
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "schema_version",
            "tool",
            "command",
            "inspect",
            "exit_code",
            "summary"
        ]
    );
    assert!(doc["inspect"]["findings"].is_array());
    assert_eq!(
        doc["exit_code"].as_i64().map(|c| c as i32),
        out.status.code()
    );
}
