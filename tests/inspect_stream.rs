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

/// Per-file findings of a large tree are kept outside memory until printed (an unnamed file in
/// the doctor's temp dir): every one reaches the JSON document and the human counts, and the
/// temp dir is left empty.
#[test]
fn every_finding_of_many_files_is_printed_and_nothing_is_left_behind() {
    let t = tempfile::tempdir().unwrap();
    let tree = t.path().join("tree");
    let tmp = t.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let b = bundle::write(&[("host-x86_64-unknown-linux-gnu-", b"")], 8);
    for i in 0..600 {
        let d = tree.join(format!("d{}", i / 100));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join(format!("f{i:04}.bin")), &b).unwrap();
    }
    let out = common::doctor()
        .env("TMPDIR", &tmp)
        .args(["--json", "--isa", "gfx1030", "inspect"])
        .arg(&tree)
        .output()
        .unwrap();
    let doc = common::json_of(&out);
    let findings = doc["inspect"]["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 600, "{:#}", doc["summary"]);
    assert_eq!(doc["summary"]["skip"], 600);
    // In listing order: the last file's finding comes last.
    assert!(
        findings[599]["subject"]
            .as_str()
            .unwrap()
            .ends_with("d5/f0599.bin"),
        "{:#}",
        findings[599]
    );
    let human = common::doctor()
        .env("TMPDIR", &tmp)
        .args(["--isa", "gfx1030", "inspect"])
        .arg(&tree)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("0 passed, 0 failed, 600 skipped"), "{text}");
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
}
