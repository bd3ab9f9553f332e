//! `rocm-doctor report`: what a maintainer asks for in a bug report (the doctor's findings,
//! versions, GPUs, the ROCm/GPU environment, kernel lines), as Markdown ready to paste into an
//! issue, with user and host names redacted unless `--no-redact` (docs/report.md).
//!
//! `gather_with_log` collects plain data from one default run (the caller's
//! `commands::run::diagnose`, so `--sysroot`, `--profile`, `--isa`, `--only`/`--skip` apply as
//! for the default run) and reads the rest through the `Host`; `redact.rs` and `render.rs` are
//! pure.

pub(crate) mod bundle;
pub(crate) mod redact;
pub(crate) mod render;

use crate::host::Host;
use redact::Redactor;
use render::{GpuRow, Gpus, Report};
use serde_json::Value;
use std::path::Path;

/// What reading this boot's kernel log gave.
pub(crate) type KernelLogRead = Result<crate::kernlog::KernelLog, crate::kernlog::Unavailable>;

/// The same, with the kernel log already read (`report --bundle` also puts that read in the
/// bundle).
pub(crate) fn gather_with_log(
    host: &Host,
    findings: Vec<crate::report::Finding>,
    sections: &[(&'static str, Value)],
    argv: &[String],
    log: &KernelLogRead,
) -> Report {
    let section = |k: &str| sections.iter().find(|(n, _)| *n == k).map(|(_, v)| v);
    Report {
        findings,
        versions: versions(host, section("inventory")),
        gpus: section("agents").map_or(Gpus::NotExamined, gpus),
        env: relevant_env(host),
        kernel_lines: log.as_ref().map(kernel_lines_of).unwrap_or_default(),
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        command_line: shell_join(argv),
        redacted: false,
    }
}

/// The amdgpu/KFD lines of this boot's kernel log (read by `kernlog` through the `Host`, so
/// `--sysroot` fixtures work), for the "Kernel log" section.
pub(crate) fn kernel_lines_of(log: &crate::kernlog::KernelLog) -> Vec<String> {
    let mut out = Vec::new();
    for (i, e) in crate::kernlog::amdgpu_events(&log.lines) {
        out.push(log.lines[i].text.clone());
        out.extend(e.extra.iter().cloned());
    }
    out
}

/// Scrubs secrets from every string the report shows (always, `redact::scrub_secrets`), then
/// replaces user and host names unless the redactor is off (`--no-redact`).
pub(crate) fn redact_report(r: &mut Report, red: &Redactor) {
    r.redacted = red.is_on();
    each_string(r, &mut |s| *s = redact::scrub_secrets(s));
    if red.is_on() {
        each_string(r, &mut |s| red.in_place(s));
    }
}

/// Calls `f` on every string of the report.
fn each_string(r: &mut Report, f: &mut dyn FnMut(&mut String)) {
    for x in &mut r.findings {
        f(&mut x.summary);
        if let Some(s) = &mut x.subject {
            f(s);
        }
        x.evidence.iter_mut().for_each(&mut *f);
        if let Some(fix) = &mut x.fix {
            f(&mut fix.text);
            fix.commands.iter_mut().for_each(&mut *f);
            fix.env.values_mut().for_each(&mut *f);
        }
    }
    for (k, v) in &mut r.versions {
        f(k);
        f(v);
    }
    if let Gpus::Agents(rows) = &mut r.gpus {
        for g in rows {
            for c in [
                &mut g.node,
                &mut g.isa,
                &mut g.target,
                &mut g.name,
                &mut g.product,
                &mut g.device_id,
                &mut g.location,
                &mut g.compute_units,
                &mut g.vram,
                &mut g.visible,
            ] {
                f(c);
            }
        }
    }
    for (_, v) in &mut r.env {
        f(v);
    }
    r.kernel_lines.iter_mut().for_each(&mut *f);
    f(&mut r.command_line);
}

/// The redactor for this machine: user names from the environment snapshot (`USER`,
/// `LOGNAME`, and sudo's `SUDO_USER`), and the names of the doctor's uid, of `SUDO_UID` and of
/// the login uid (`/proc/self/loginuid`, the user who logged in, kept across sudo and su) in
/// the diagnosed root's `/etc/passwd` and this machine's; their home directories from the same
/// entries; host names from `/proc/sys/kernel/hostname`, `/etc/hostname`, `HOSTNAME` and
/// `ROCM_DOCTOR_HOST`.
pub(crate) fn redactor(host: &Host) -> Redactor {
    let mut users: Vec<String> = ["USER", "LOGNAME", "SUDO_USER"]
        .iter()
        .filter_map(|k| host.env.get_nonempty(k))
        .collect();
    // sudo(8) sets SUDO_USER and SUDO_UID to the invoking user. The login uid is the audit
    // uid set at login by pam_loginuid(8); 4294967295 ((uid_t)-1) means none.
    let own = crate::host::RootedFs::new(std::path::PathBuf::from("/"));
    let mut uids = vec![host.uid()];
    uids.extend(
        host.env
            .get_nonempty("SUDO_UID")
            .and_then(|u| u.trim().parse::<u32>().ok()),
    );
    uids.extend(
        own.read_text(Path::new("/proc/self/loginuid"))
            .ok()
            .and_then(|t| t.trim().parse::<u32>().ok())
            .filter(|u| *u != u32::MAX),
    );
    let passwds: Vec<String> = [&host.fs, &own]
        .iter()
        .filter_map(|fs| fs.read_text(Path::new("/etc/passwd")).ok())
        .collect();
    for passwd in &passwds {
        for uid in &uids {
            users.extend(crate::gpuproc::fdinfo::user_name(passwd, *uid));
        }
    }
    users.sort();
    users.dedup();
    // passwd(5): name:password:UID:GID:GECOS:directory:shell. Root's home identifies no one.
    let homes: Vec<String> = passwds
        .iter()
        .flat_map(|p| p.lines())
        .filter_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            let named = f.len() >= 6 && users.iter().any(|u| u == f[0]);
            (named && f[2] != "0").then(|| f[5].to_string())
        })
        .collect();
    let mut hosts: Vec<String> = Vec::new();
    for p in ["/proc/sys/kernel/hostname", "/etc/hostname"] {
        if let Ok(t) = host.fs.read_text(Path::new(p)) {
            // hostname(5): the first line; `#` starts a comment.
            if let Some(h) = t
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with('#'))
            {
                hosts.push(h.to_string());
            }
        }
    }
    hosts.extend(
        ["HOSTNAME", "ROCM_DOCTOR_HOST"]
            .iter()
            .filter_map(|k| host.env.get_nonempty(k)),
    );
    Redactor::new(users, hosts).with_homes(homes)
}

/// Whether an environment variable belongs in the report: ROCm, HIP, HSA and GPU settings,
/// the library and program search paths, and the build flags that reach hipcc/clang. Nothing
/// else is shown; a relevant name that names a secret (`redact::is_secret_name`: `*TOKEN*`,
/// `*SECRET*`, `*PASSWORD*`, `*KEY*`, `*AUTH*`, `*_PASS`, ...) is shown with its value
/// replaced by `<redacted>` (see [`relevant_env`]).
pub(crate) fn is_relevant_env(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "ROCM_PATH",
        "ROCM_HOME",
        "ROCM_ROOT",
        "HIP_PATH",
        "PATH",
        "LD_LIBRARY_PATH",
        "LD_PRELOAD",
        "PYTORCH_ROCM_ARCH",
        "AMDGPU_TARGETS",
        "GPU_TARGETS",
        "HCC_AMDGPU_TARGET",
        "CUDA_VISIBLE_DEVICES",
        "DEVICE_LIB_PATH",
        "LLVM_PATH",
        "CMAKE_PREFIX_PATH",
        "CC",
        "CXX",
        "CFLAGS",
        "CXXFLAGS",
        "LDFLAGS",
        "HIPFLAGS",
        "HIPCXX",
        "TENSILE_ROCM_ASSEMBLER_PATH",
        "ROCM_DOCTOR_CONFIG",
    ];
    const PREFIXES: &[&str] = &[
        "HIP_",
        "HIPCC_",
        "HSA_",
        "ROCR_",
        "ROCM_",
        "AMD_",
        "GPU_",
        "HCC_",
        "MIOPEN_",
        "ROCBLAS_",
        "HIPBLASLT_",
        "TENSILE_",
        "PYTORCH_HIP_",
        "OMPI_MCA_",
        "NCCL_",
        "RCCL_",
    ];
    EXACT.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}

fn relevant_env(host: &Host) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = host
        .env
        .iter()
        .filter_map(|(k, val)| {
            let k = k.to_str()?;
            let v = if redact::is_secret_name(k) {
                redact::SECRET.to_string()
            } else {
                val.to_string_lossy().into_owned()
            };
            is_relevant_env(k).then(|| (k.to_string(), v))
        })
        .collect();
    v.sort();
    v
}

fn s(v: &Value) -> Option<&str> {
    v.as_str().filter(|s| !s.is_empty())
}

/// The Versions rows: ROCm roots (layout, ROCm and HIP header versions), key runtime
/// libraries (HIP runtime, HSA runtime, comgr), clang, the amdgpu module, the kernel and the
/// distribution.
fn versions(host: &Host, inventory: Option<&Value>) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |k: &str, v: String| rows.push((k.to_string(), v));
    let root = host.fs.root();
    if root != Path::new("/") {
        row("diagnosed root (--sysroot)", root.display().to_string());
    }
    let inv = inventory.cloned().unwrap_or(Value::Null);
    root_rows(&inv, &mut row);
    library_rows(&inv, &mut row);
    clang_rows(&inv, &mut row);
    let d = crate::gpu::platform::driver(host);
    let amdgpu = match (&d.initstate, &d.version, d.module_dir) {
        (_, _, false) if d.builtin_listed == Some(true) => "built into the kernel".to_string(),
        (_, _, false) => "not loaded (no /sys/module/amdgpu)".to_string(),
        (init, ver, true) => format!(
            "initstate {}, version {}",
            init.as_deref().unwrap_or("absent (built in?)"),
            ver.as_deref().unwrap_or("absent (in-tree driver)")
        ),
    };
    row("amdgpu module", amdgpu);
    row(
        "kernel",
        d.kernel_release
            .clone()
            .unwrap_or_else(|| "unknown (no /proc/sys/kernel/osrelease)".into()),
    );
    row("distribution", distribution(host));
    rows
}

/// The rows of the ROCm roots: path and layout, ROCm and HIP header versions.
fn root_rows(inv: &Value, row: &mut dyn FnMut(&str, String)) {
    match inv["rocm_roots"].as_array() {
        Some(roots) if roots.is_empty() => row("ROCm root", "none found".into()),
        Some(roots) => {
            for (i, r) in roots.iter().enumerate() {
                let label = if i == 0 {
                    "ROCm root (judged)"
                } else {
                    "ROCm root (also found)"
                };
                let mut v = format!(
                    "{} ({})",
                    s(&r["path"]).unwrap_or("?"),
                    layout_text(&r["layout"])
                );
                if let Some(c) = s(&r["canonical"]).filter(|c| Some(*c) != s(&r["path"])) {
                    v.push_str(&format!(" -> {c}"));
                }
                row(label, v);
                if let Some(ver) = s(&r["versions"]["rocm"]["version"]) {
                    row(
                        "ROCm version",
                        format!(
                            "{ver} ({})",
                            s(&r["versions"]["rocm"]["source"]).unwrap_or("?")
                        ),
                    );
                }
                if let Some(ver) = s(&r["versions"]["hip"]["version"]) {
                    row(
                        "HIP headers",
                        format!(
                            "{ver} ({})",
                            s(&r["versions"]["hip"]["source"]).unwrap_or("?")
                        ),
                    );
                }
            }
        }
        None => {}
    }
}

/// The rows of the key runtime libraries as the loader finds them.
fn library_rows(inv: &Value, row: &mut dyn FnMut(&str, String)) {
    if let Some(libs) = inv["libraries"].as_array() {
        for l in libs {
            let label = match s(&l["name"]) {
                Some("amdhip64") => "HIP runtime (libamdhip64)".to_string(),
                Some("hsa-runtime64") => "HSA runtime (libhsa-runtime64)".to_string(),
                Some("amd_comgr") => "comgr (libamd_comgr)".to_string(),
                Some(n) => format!("lib{n}"),
                None => continue,
            };
            let v = match s(&l["path"]) {
                Some(p) => format!(
                    "{} at {} (found by {})",
                    s(&l["version"]).unwrap_or("version unknown"),
                    s(&l["realpath"]).unwrap_or(p),
                    s(&l["how"]).unwrap_or("?")
                ),
                None => "not found by the loader".to_string(),
            };
            row(&label, v);
        }
    }
}

/// The rows of the judged clang and the others found.
fn clang_rows(inv: &Value, row: &mut dyn FnMut(&str, String)) {
    match &inv["clang"] {
        Value::Null if inv.get("clang").is_some() => row("clang", "none found".into()),
        Value::Object(_) => {
            let c = &inv["clang"];
            row(
                "clang (judged)",
                format!(
                    "{} at {} (from {})",
                    s(&c["version"]).unwrap_or("version unknown"),
                    s(&c["path"]).unwrap_or("?"),
                    s(&c["source"]).unwrap_or("?")
                ),
            );
            for o in c["others"].as_array().into_iter().flatten() {
                if let (Some(p), Some(src)) = (s(&o[0]), s(&o[1])) {
                    row("clang (also found)", format!("{p} ({src})"));
                }
            }
        }
        _ => {}
    }
}

/// The words of the human view for a root's layout (`fhs` -> "distribution FHS layout").
fn layout_text(v: &Value) -> String {
    use crate::inventory::roots::Layout;
    [
        Layout::OptRocm,
        Layout::Fhs,
        Layout::TheRock,
        Layout::NixSplit,
        Layout::NixJoined,
        Layout::Custom,
    ]
    .into_iter()
    .find(|l| serde_json::to_value(l).ok().as_ref() == Some(v))
    .map(|l| l.describe().to_string())
    .unwrap_or_else(|| format!("layout {}", s(v).unwrap_or("?")))
}

/// `PRETTY_NAME` of os-release (os-release(5): `/etc/os-release`, else
/// `/usr/lib/os-release`), else `NAME VERSION_ID`.
fn distribution(host: &Host) -> String {
    for p in ["/etc/os-release", "/usr/lib/os-release"] {
        if let Ok(t) = host.fs.read_text(Path::new(p)) {
            if let Some(d) = parse_os_release(&t) {
                return d;
            }
        }
    }
    "unknown (no os-release)".into()
}

/// The distribution named by os-release text: `PRETTY_NAME`, else `NAME VERSION_ID`.
pub(crate) fn parse_os_release(text: &str) -> Option<String> {
    let mut kv = std::collections::BTreeMap::new();
    for l in text.lines() {
        let Some((k, v)) = l.trim().split_once('=') else {
            continue;
        };
        let v = v.trim();
        // Values may be quoted with " or ' (os-release(5), shell-compatible assignments).
        let v = v
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(v);
        kv.insert(k.trim().to_string(), v.replace("\\\"", "\""));
    }
    if let Some(p) = kv.get("PRETTY_NAME").filter(|p| !p.is_empty()) {
        return Some(p.clone());
    }
    let name = kv.get("NAME")?;
    Some(match kv.get("VERSION_ID") {
        Some(v) => format!("{name} {v}"),
        None => name.clone(),
    })
}

fn gpus(agents: &Value) -> Gpus {
    let Some(a) = agents.as_array() else {
        return Gpus::NotExamined;
    };
    let opt = |v: &Value| -> String {
        match v {
            Value::Null => "?".into(),
            Value::String(s) => s.clone(),
            v => v.to_string(),
        }
    };
    Gpus::Agents(
        a.iter()
            .map(|g| GpuRow {
                node: opt(&g["node"]),
                isa: opt(&g["gfx"]),
                target: opt(&g["target"]),
                name: opt(&g["name"]),
                product: s(&g["product"]).unwrap_or_default().to_string(),
                device_id: device_cell(g),
                location: opt(&g["location"]),
                compute_units: opt(&g["compute_units"]),
                vram: g["vram_bytes"]
                    .as_u64()
                    .map(|b| format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64))
                    .unwrap_or_else(|| "?".into()),
                visible: if g["visible"].as_bool() == Some(true) {
                    "yes".into()
                } else {
                    "no".into()
                },
            })
            .collect(),
    )
}

/// The device cell: PCI `vendor:device` and, when the agent carries its card's
/// `pci_revision`, the revision as the `gpu.agents` line writes it (`1002:73bf rev c1`). A
/// doctor older than the revision, or a value that is no byte, gives the id alone.
fn device_cell(g: &Value) -> String {
    let id = match (g["vendor_id"].as_u64(), g["device_id"].as_u64()) {
        (Some(v), Some(d)) => format!("{v:04x}:{d:04x}"),
        (None, Some(d)) => format!("{d:04x}"),
        _ => return "?".into(),
    };
    match g["pci_revision"]
        .as_u64()
        .and_then(|r| u8::try_from(r).ok())
    {
        Some(r) => format!("{id} rev {r:02x}"),
        None => id,
    }
}

/// The command line as a shell would take it back: words with anything but
/// `[A-Za-z0-9_./=:,+@%-]` single-quoted.
pub(crate) fn shell_join(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_./=:,+@%-".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_filter() {
        for k in [
            "ROCM_PATH",
            "HIP_VISIBLE_DEVICES",
            "HSA_OVERRIDE_GFX_VERSION",
            "ROCR_VISIBLE_DEVICES",
            "AMD_LOG_LEVEL",
            "GPU_MAX_HW_QUEUES",
            "PYTORCH_ROCM_ARCH",
            "AMDGPU_TARGETS",
            "LD_LIBRARY_PATH",
            "PATH",
            "CUDA_VISIBLE_DEVICES",
        ] {
            assert!(is_relevant_env(k), "{k}");
        }
        for k in [
            "HOME",
            "USER",
            "HOSTNAME",
            "SSH_CONNECTION",
            "http_proxy",
            "AWS_SECRET_ACCESS_KEY",
            "GITHUB_TOKEN",
            "DISPLAY",
            "rocm_path",
        ] {
            assert!(!is_relevant_env(k), "{k}");
        }
    }

    #[test]
    fn os_release() {
        let t = "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nPRETTY_NAME=\"Debian GNU/Linux 12 \
            (bookworm)\"\n";
        assert_eq!(
            parse_os_release(t).as_deref(),
            Some("Debian GNU/Linux 12 (bookworm)")
        );
        assert_eq!(
            parse_os_release("NAME=NixOS\nVERSION_ID='24.05'\n").as_deref(),
            Some("NixOS 24.05")
        );
        assert_eq!(parse_os_release("# nothing\n"), None);
    }

    #[test]
    fn shell_quoting() {
        let argv: Vec<String> = [
            "rocm-doctor",
            "--isa",
            "gfx90a:xnack+",
            "report",
            "it's here",
            "",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            shell_join(&argv),
            "rocm-doctor --isa gfx90a:xnack+ report 'it'\\''s here' ''"
        );
    }

    #[test]
    fn secrets_scrubbed_in_every_field_even_without_name_redaction() {
        let secret = "https://u:hunter2@h/x -DDB_PASS=hunter2 Bearer hunter2";
        let mut f = crate::report::Finding::fail(secret)
            .subject(secret)
            .evidence(secret)
            .fix(
                crate::report::Fix::text(secret)
                    .command(secret)
                    .set_env("HIP_PATH", secret),
            );
        f.id = "gpu.kfd".into();
        let mut r = Report {
            findings: vec![f],
            versions: vec![("ROCm root".into(), secret.into())],
            gpus: Gpus::Agents(vec![GpuRow {
                name: secret.into(),
                product: secret.into(),
                ..Default::default()
            }]),
            env: vec![("HIP_PATH".into(), secret.into())],
            kernel_lines: vec![secret.into()],
            command_line: format!("rocm-doctor --checks {secret} report"),
            ..Default::default()
        };
        redact_report(&mut r, &Redactor::off());
        assert!(!r.redacted);
        let md = render::render(&r);
        assert!(!md.contains("hunter2"), "{md}");
        assert!(md.contains("https://<redacted>@h/x -DDB_PASS=<redacted> Bearer <redacted>"));
    }

    #[test]
    fn redaction_reaches_every_field() {
        let mut f = crate::report::Finding::fail("alice cannot open /home/alice/x")
            .subject("alice")
            .evidence("uid alice")
            .fix(
                crate::report::Fix::text("ask alice")
                    .command("sudo usermod -aG render alice")
                    .set_env("HIP_PATH", "/home/alice/hip"),
            );
        f.id = "gpu.kfd".into();
        let mut r = Report {
            findings: vec![f],
            versions: vec![("ROCm root".into(), "/home/alice/rocm on ws-alice".into())],
            gpus: Gpus::Agents(vec![GpuRow {
                name: "ws-alice".into(),
                product: "ws-alice".into(),
                ..Default::default()
            }]),
            env: vec![("PATH".into(), "/home/alice/bin:/usr/bin".into())],
            kernel_lines: vec!["ws-alice kernel: amdgpu".into()],
            command_line: "rocm-doctor --sysroot /home/alice/root report".into(),
            ..Default::default()
        };
        redact_report(&mut r, &Redactor::new(["alice"], ["ws-alice"]));
        assert!(r.redacted);
        let md = render::render(&r);
        assert!(!md.contains("alice"), "{md}");
        assert!(md.contains("PATH=/home/<user>/bin:/usr/bin"));
        assert!(md.contains("`rocm-doctor --sysroot /home/<user>/root report`"));
    }

    use crate::packs::gpunames::{product, Named, Product};

    /// One agent of the doctor's `agents` JSON; `named` adds what this doctor writes for it
    /// (commands/run.rs `agents_json`): `pci_revision` and, when the table has the id,
    /// `product`, `product_from` and (several products) `product_candidates`. Without it, the
    /// agent of a doctor older than those fields.
    fn agent_json(id: u64, rev: Option<u8>, named: bool) -> Value {
        let mut v = serde_json::json!({
            "node": 1, "gfx": "gfx1030", "target": "gfx1030", "name": "ip discovery",
            "vendor_id": 0x1002, "device_id": id, "location": "0000:03:00.0",
            "compute_units": 72, "vram_bytes": 17_163_091_968u64, "visible": true,
        });
        if named {
            v["pci_revision"] = serde_json::json!(rev);
            if let Some(p) = product(id, rev) {
                v["product"] = p.text().into();
                v["product_from"] = p.source().into();
                if p.named == Named::Candidates {
                    v["product_candidates"] = serde_json::json!(p.names);
                }
            }
        }
        v
    }

    fn rows(agents: Value) -> Vec<GpuRow> {
        match gpus(&agents) {
            Gpus::Agents(r) => r,
            Gpus::NotExamined => panic!("an array of agents is examined"),
        }
    }

    fn table(rows: Vec<GpuRow>) -> String {
        render::render(&Report {
            gpus: Gpus::Agents(rows),
            ..Default::default()
        })
    }

    /// The product the table names for an id (a test of this module, not of the table).
    fn named(id: u64, rev: Option<u8>) -> Product {
        product(id, rev).expect("checks/gpu-names.toml has the id")
    }

    /// An id and revision of one `amdgpu.ids` row: its product in the product column, the
    /// revision beside the PCI id as the `gpu.agents` line writes both.
    #[test]
    fn a_named_product_shows_with_its_revision() {
        let p = named(0x73bf, Some(0xc1));
        assert_eq!(p.named, Named::Revision);
        let r = rows(serde_json::json!([agent_json(0x73bf, Some(0xc1), true)]));
        assert_eq!(r[0].product, p.text());
        assert_eq!(r[0].device_id, "1002:73bf rev c1");
        let md = table(r);
        assert!(
            md.contains(
                "| node | ISA | target | name | product | device | PCI | CUs | VRAM | visible |\n\
                 |---|---|---|---|---|---|---|---|---|---|\n"
            ),
            "{md}"
        );
        assert!(
            md.contains(&format!(
                "| 1 | gfx1030 | gfx1030 | ip discovery | {} | 1002:73bf rev c1 | 0000:03:00.0 |",
                p.text()
            )),
            "{md}"
        );
    }

    /// An id of several products without a revision: the chip and the candidates, whole, as
    /// `Product::text` writes them; an agent the table does not name gets an empty cell.
    #[test]
    fn candidates_show_as_the_agent_line_writes_them() {
        let p = named(0x73bf, None);
        assert_eq!(p.named, Named::Candidates);
        assert!(p.names.len() > 1 && !p.chip.is_empty());
        let unknown = 0x74a2;
        assert!(product(unknown, Some(0)).is_none(), "an id the table lacks");
        let r = rows(serde_json::json!([
            agent_json(0x73bf, None, true),
            agent_json(unknown, Some(0), true),
        ]));
        assert_eq!(r[0].product, p.text());
        assert!(r[0].product.starts_with(&format!("{}: ", p.chip)));
        assert_eq!(r[0].device_id, "1002:73bf", "no revision read");
        assert_eq!(r[1].product, "");
        assert_eq!(r[1].device_id, "1002:74a2 rev 00");
        let md = table(r);
        let text = render::md_text(&p.text());
        assert!(
            md.contains(&format!("| ip discovery | {text} | 1002:73bf |")),
            "{md}"
        );
        assert!(
            md.contains("| ip discovery |  | 1002:74a2 rev 00 |"),
            "{md}"
        );
    }

    /// An older doctor's JSON (no `pci_revision`, no `product`): the table as it was, no error;
    /// product fields of the wrong type are shown as nothing.
    #[test]
    fn an_older_doctors_agents_show_as_before() {
        let r = rows(serde_json::json!([agent_json(0x73bf, Some(0xc1), false)]));
        assert_eq!(
            (r[0].product.as_str(), r[0].device_id.as_str()),
            ("", "1002:73bf")
        );
        let md = table(r);
        assert!(
            md.contains(
                "| node | ISA | target | name | device | PCI | CUs | VRAM | visible |\n\
                 |---|---|---|---|---|---|---|---|---|\n\
                 | 1 | gfx1030 | gfx1030 | ip discovery | 1002:73bf | 0000:03:00.0 | 72 | 16.0 GiB | yes |\n"
            ),
            "{md}"
        );
        assert!(!md.contains("product"), "{md}");
        let mut odd = agent_json(0x73bf, None, false);
        odd["product"] = serde_json::json!(["AMD Radeon RX 6800 XT"]);
        odd["pci_revision"] = serde_json::json!(300);
        let mut empty = agent_json(0x73bf, None, false);
        empty["product"] = "".into();
        empty["pci_revision"] = "c1".into();
        for g in rows(serde_json::json!([odd, empty, {}])) {
            assert_eq!(g.product, "");
            assert!(!g.device_id.contains("rev"), "{}", g.device_id);
        }
    }

    /// Product names are no secret and name no one: redaction leaves them, and every other
    /// cell, as it does without them.
    #[test]
    fn redaction_leaves_product_names() {
        let agents = serde_json::json!([
            agent_json(0x73bf, Some(0xc1), true),
            agent_json(0x73bf, None, true),
        ]);
        let report = |rows: Vec<GpuRow>| Report {
            gpus: Gpus::Agents(rows),
            command_line: "rocm-doctor report".into(),
            ..Default::default()
        };
        let before = rows(agents.clone());
        let mut r = report(before.clone());
        redact_report(&mut r, &Redactor::new(["alice"], ["ws-alice"]));
        assert_eq!(r.gpus, Gpus::Agents(before.clone()));
        // Without the product fields, redaction changes the same nothing.
        let bare: Vec<GpuRow> = before
            .iter()
            .map(|g| GpuRow {
                product: String::new(),
                ..g.clone()
            })
            .collect();
        let mut r2 = report(bare.clone());
        redact_report(&mut r2, &Redactor::new(["alice"], ["ws-alice"]));
        assert_eq!(r2.gpus, Gpus::Agents(bare));
    }
}
