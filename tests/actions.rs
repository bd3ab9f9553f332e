//! Repair actions and the site policy (issue 26, item 1; docs/fleet.md, "Repair actions" and
//! "Site policy"), end to end through the binary on the degraded health fixture: every warning
//! and failure carries an action, the node's action is the heaviest, and a policy's thresholds,
//! ignore rules and overrides change exactly the findings they name.

use crate::common::{doctor, findings, fixture, pack_dir, run_json};
use std::path::{Path, PathBuf};

const HEALTH_AND_KERNEL: &str = "health.,kernel.";

fn degraded() -> PathBuf {
    fixture("sysroots", "health-mi210-degraded")
}

fn run(policy: Option<&Path>) -> (serde_json::Value, i32) {
    let root = degraded();
    let mut args: Vec<String> = vec![
        "--sysroot".into(),
        root.display().to_string(),
        "--only".into(),
        HEALTH_AND_KERNEL.into(),
    ];
    if let Some(p) = policy {
        args.push("--policy".into());
        args.push(p.display().to_string());
    }
    run_json(args, &[])
}

fn one<'a>(doc: &'a serde_json::Value, id: &str, event: &str) -> &'a serde_json::Value {
    findings(doc, id)
        .into_iter()
        .find(|f| f["event"] == event)
        .unwrap_or_else(|| panic!("no {id} finding with event {event}: {doc:#}"))
}

#[test]
fn every_warning_and_failure_names_an_action_and_nothing_else_does() {
    let (doc, code) = run(None);
    assert_eq!(code, 1);
    let all = doc["findings"].as_array().unwrap();
    let mut problems = 0;
    for f in all {
        let problem = f["status"] == "warn" || f["status"] == "fail";
        assert_eq!(f["action"].is_string(), problem, "{f:#}");
        problems += usize::from(problem);
    }
    assert!(problems >= 5, "{doc:#}");
    // Per event, from the driver's own handling (src/gpu/health/judge.rs).
    assert_eq!(
        one(&doc, "health.ras", "uncorrectable")["action"],
        "drain-and-inspect"
    );
    assert_eq!(
        one(&doc, "health.bad-pages", "threshold-near")["action"],
        "none"
    );
    // The check doc's default where the finding names none.
    assert_eq!(
        one(&doc, "health.firmware", "firmware-differs")["action"],
        "fix-config"
    );
    assert_eq!(doc["action"], "drain-and-inspect");
}

#[test]
fn the_action_reaches_npd_and_prometheus() {
    let root = degraded();
    let out = doctor()
        .args(["--npd", "--sysroot"])
        .arg(&root)
        .args(["--only", HEALTH_AND_KERNEL])
        .output()
        .unwrap();
    let line = String::from_utf8_lossy(&out.stdout);
    assert!(
        line.starts_with("FAIL health.ras action=drain-and-inspect: uncorrectable"),
        "{line}"
    );
    let out = doctor()
        .args(["--prometheus", "--sysroot"])
        .arg(&root)
        .args(["--only", HEALTH_AND_KERNEL])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("rocm_doctor_node_action{action=\"drain-and-inspect\"} 1\n"),
        "{text}"
    );
    assert!(
        text.contains("rocm_doctor_check_action{id=\"health.firmware\",action=\"fix-config\"} 1\n")
    );
}

fn write_policy(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("policy.toml");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_site_policy_changes_exactly_what_it_names() {
    let (before, _) = run(None);
    let d = pack_dir();
    let p = write_policy(
        d.path(),
        r#"
[thresholds]
"health.bad-pages.near-percent" = 95

[[ignore]]
check = "health.firmware"
gpu = "0000:43:00.0"
reason = "IFWI update scheduled (ticket 4711)"

[[override]]
check = "health.pcie-link"
status = "fail"
action = "reboot-node"
reason = "a degraded link fails our jobs"
"#,
    );
    let (doc, code) = run(Some(&p));
    assert_eq!(code, 1);
    // Threshold: 9 of 10 pages is 90%, below the site's 95%: no warning any more.
    assert!(findings(&before, "health.bad-pages")
        .iter()
        .any(|f| f["event"] == "threshold-near"));
    assert!(
        !findings(&doc, "health.bad-pages")
            .iter()
            .any(|f| f["status"] == "warn"),
        "{doc:#}"
    );
    // Ignore: a skip that says by whom and why, with no action.
    let fw = one(&doc, "health.firmware", "firmware-differs");
    assert_eq!(fw["status"], "skip");
    assert!(fw.get("action").is_none());
    let said = fw["evidence"].as_array().unwrap().last().unwrap();
    let said = said.as_str().unwrap();
    assert!(
        said.starts_with(&format!("ignored by {} (was warn): IFWI", p.display())),
        "{said}"
    );
    // Override: severity and action, said.
    let link = one(&doc, "health.pcie-link", "link-degraded");
    assert_eq!(link["status"], "fail");
    assert_eq!(link["action"], "reboot-node");
    assert!(link["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e.as_str().unwrap().contains(
            "(status warn -> fail, action drain-and-inspect -> reboot-node): a degraded link"
        )));
    // What no rule names is as before.
    let (a, b) = (
        one(&doc, "health.ras", "uncorrectable"),
        one(&before, "health.ras", "uncorrectable"),
    );
    for k in ["status", "action", "summary", "evidence", "subject"] {
        assert_eq!(a[k], b[k], "{k}");
    }
}

#[test]
fn a_policy_that_cannot_be_used_stops_the_run_with_its_reason() {
    use std::os::unix::fs::PermissionsExt;
    let d = pack_dir();
    // A typo is named with its line, not silently ignored.
    let bad = write_policy(d.path(), "[thresholds]\n\"health.ras.corectable\" = 5\n");
    let out = doctor()
        .arg("--policy")
        .arg(&bad)
        .args(["--sysroot"])
        .arg(degraded())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not a threshold"), "{err}");
    // A file others may write is refused (the trust rule of docs/security.md, section 1).
    let good = write_policy(d.path(), "[thresholds]\n\"health.ras.correctable\" = 5\n");
    std::fs::set_permissions(&good, std::fs::Permissions::from_mode(0o666)).unwrap();
    let out = doctor()
        .arg("--policy")
        .arg(&good)
        .args(["--sysroot"])
        .arg(degraded())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("site policy") && err.contains("writable"),
        "{err}"
    );
    // Asked for but absent.
    let out = doctor()
        .arg("--policy")
        .arg(d.path().join("none.toml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
}
