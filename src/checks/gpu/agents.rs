//! `gpu.agents`: the GPU agents KFD lists, their ISAs, and whether clang and the device
//! libraries know them.

use super::gate;
use crate::checks::{CheckId, Ctx};
use crate::config::Profile;
use crate::gpu::sysfs::pci_slot_of;
use crate::gpu::{Agent, Topology};
use crate::isa::processor;
use crate::packs::gpunames::{self, Product};
use crate::report::{Finding, Fix};
use std::path::PathBuf;

fn gib(b: u64) -> String {
    format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
}

/// What `checks/gpu-names.toml` says of a GPU (PCI device id and revision).
fn product_of(device_id: Option<u64>, revision: Option<u8>) -> Option<Product> {
    device_id.and_then(|d| gpunames::product(d, revision))
}

/// `AMD Radeon RX 6800 XT [1002:73bf rev c1]`: the product (or the chip and its candidates,
/// [`Product::text`]) when the table knows the id, then the PCI id and revision as read.
fn device_words(device_id: Option<u64>, revision: Option<u8>) -> String {
    let id = match device_id {
        Some(d) => format!("1002:{d:04x}"),
        None => "device id unknown".into(),
    };
    let rev = revision
        .map(|r| format!(" rev {r:02x}"))
        .unwrap_or_default();
    let name = product_of(device_id, revision)
        .map(|p| format!("{} ", p.text()))
        .unwrap_or_default();
    format!("{name}[{id}{rev}]")
}

/// A note when KFD's ISA for a node and the table's for its device id differ: KFD's is the one
/// this machine runs; the table's comes from libdrm, pci.ids and the kernel's sources.
fn isa_note(node: u32, kfd_gfx: &str, p: &Product) -> Option<String> {
    (kfd_gfx != p.isa).then(|| {
        format!(
            "note: node {node}: KFD reports {kfd_gfx}, checks/gpu-names.toml gives {} for \
            1002:{:04x} ({}); KFD's ISA is what this machine runs, the table is read from \
            libdrm, pci.ids and the kernel's sources",
            p.isa, p.id, p.isa_from
        )
    })
}

fn agent_line(a: &Agent) -> String {
    format!(
        "node {}: {} ({}) {} at {} {} CUs wave{} VRAM {} renderD{}{}{}{}",
        a.node,
        a.gfx.as_deref().unwrap_or("gfx?"),
        a.target
            .as_ref()
            .map(|t| t.to_string())
            .unwrap_or_else(|| "target unknown".into()),
        device_words(a.device_id, a.pci_revision),
        a.location.as_deref().unwrap_or("?"),
        a.compute_units
            .map(|c| c.to_string())
            .unwrap_or_else(|| "?".into()),
        a.wave_front_size
            .map(|c| c.to_string())
            .unwrap_or_else(|| "?".into()),
        a.vram_bytes.map(gib).unwrap_or_else(|| "unknown".into()),
        a.render_minor
            .map(|m| m.to_string())
            .unwrap_or_else(|| "?".into()),
        a.num_xcc
            .filter(|x| *x != 1)
            .map(|x| format!(" {x} XCCs"))
            .unwrap_or_default(),
        if a.integrated { " integrated" } else { "" },
        match (a.visible, a.hip_index) {
            (true, Some(i)) => format!(" -> HIP device {i}"),
            _ => " (not visible to HIP)".into(),
        }
    )
}

/// Bitcode directories where `oclc_isa_version_*.bc` may live: the one clang really links
/// (toolchain.device-libs), then every other complete directory the inventory found.
fn bitcode_dirs(ctx: &Ctx) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = ctx.inv.hip_driver().bitcode_dir().into_iter().collect();
    for d in &ctx.inv.device_libs().dirs {
        if d.has_ocml && !v.contains(&d.path) {
            v.push(d.path.clone());
        }
    }
    v
}

/// The AMDGPU processors the judged clang accepts (asked once, by the inventory).
fn clang_processors(ctx: &Ctx) -> Option<(String, Vec<String>)> {
    let c = ctx.inv.clang()?;
    let cmd = c
        .commands
        .first()
        .cloned()
        .unwrap_or_else(|| c.path.display().to_string());
    (c.amdgpu_registered && !c.amdgpu_processors.is_empty())
        .then(|| (cmd, c.amdgpu_processors.clone()))
}

pub(super) fn agents(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.gpu();
    if let Some(g) = gate(ctx, t, true) {
        return g;
    }
    let mut out = Vec::new();
    let hidden: Vec<String> = t
        .unreadable_nodes
        .iter()
        .map(|(n, e)| format!("node {n}: {e}"))
        .collect();
    if t.agents.is_empty() {
        let f = Finding::fail(format!(
            "every GPU node is unreadable to this process ({} node(s))",
            hidden.len()
        ))
        .evidence_lines(hidden.clone())
        .evidence(
            "EPERM on a KFD node = the device cgroup denies that GPU \
            (kfd_devcgroup_check_permission); libhsakmt skips it",
        )
        .fix(
            Fix::text(
                "Pass the GPU's render node into the container \
                (`--device=/dev/dri/renderD<minor>` or all of `/dev/dri`) together with \
                `/dev/kfd`.",
            )
            .command("docker run --device=/dev/kfd --device=/dev/dri ..."),
        );
        return vec![f];
    }
    out.push(agent_table(ctx, t, &hidden));
    // Nodes from older kernels: no gfx_target_version.
    out.extend(nodes_without_isa(t));
    // DRM cards without a KFD node.
    out.extend(cards_without_kfd(t));

    // ISA support in the toolchain, per distinct target processor.
    let mut procs: Vec<String> = t
        .agents
        .iter()
        .filter_map(|a| a.target.as_ref().map(|t| t.processor.clone()))
        .collect();
    procs.sort();
    procs.dedup();
    if procs.is_empty() {
        return out;
    }
    let dirs = bitcode_dirs(ctx);
    let clang = clang_processors(ctx);
    for p in procs {
        out.push(toolchain_knows(ctx, t, p, &dirs, clang.as_ref()));
    }
    out
}

/// The agents table: every GPU agent, hidden nodes, what would stop ROCr, sysfs problems.
/// A failure under the runtime profile when none is usable by HIP.
fn agent_table(ctx: &Ctx, t: &Topology, hidden: &[String]) -> Finding {
    let visible = t.agents.iter().filter(|a| a.visible).count();
    let mut table = Finding::pass(format!(
        "{} GPU agent(s) in KFD{}{}, {} visible to HIP",
        t.agents.len(),
        if hidden.is_empty() {
            String::new()
        } else {
            format!(
                ", {} more hidden by the device cgroup (EPERM)",
                hidden.len()
            )
        },
        t.path
            .as_ref()
            .map(|p| format!(" ({})", p.display()))
            .unwrap_or_default(),
        visible
    ))
    .evidence_lines(t.agents.iter().map(agent_line))
    .evidence_lines(product_evidence(t));
    if !hidden.is_empty() {
        table = table.evidence(format!(
            "hidden from this process by the device cgroup (EPERM), \
            skipped like libhsakmt does: {}",
            hidden.join(", ")
        ));
    }
    for b in &t.runtime_blocked {
        table = table.evidence(format!("ROCr would fail to initialise: {b}"));
    }
    if !t.problems.is_empty() {
        table = table.evidence_lines(t.problems.iter().take(8).map(|p| format!("sysfs: {p}")));
    }
    if let Some(e) = &t.fixture_error {
        table = table.evidence(format!("fixture manifest ignored: {e}"));
    }
    if visible == 0 && ctx.cfg.profile == Profile::Runtime {
        table.status = crate::report::Status::Fail;
        table.summary = format!(
            "{} GPU agent(s) in KFD but none usable by HIP",
            t.agents.len()
        );
        table = table.fix_text(format!(
            "See {}, {}, {} and {} for the reason each GPU is unusable.",
            CheckId::GpuKfd,
            CheckId::GpuRender,
            CheckId::GpuOverrides,
            CheckId::GpuVisibility
        ));
    }
    table
}

/// Where each agent's product name came from, KFD and the table disagreeing on an ISA, and the
/// pinned inputs of the names shown.
fn product_evidence(t: &Topology) -> Vec<String> {
    let mut lines = Vec::new();
    let mut from: Vec<&str> = Vec::new();
    for a in &t.agents {
        let Some(p) = product_of(a.device_id, a.pci_revision) else {
            continue;
        };
        lines.push(format!("node {} product name from {}", a.node, p.source()));
        lines.extend(a.gfx.as_deref().and_then(|g| isa_note(a.node, g, &p)));
        for f in &p.from {
            if !from.contains(f) {
                from.push(f);
            }
        }
    }
    lines.extend(
        gpunames::sources_of(&from)
            .into_iter()
            .map(|s| format!("checks/gpu-names.toml input {s}")),
    );
    lines
}

/// KFD nodes without `gfx_target_version` (older kernels).
fn nodes_without_isa(t: &Topology) -> Vec<Finding> {
    let mut out = Vec::new();
    // Nodes from older kernels: no gfx_target_version.
    for a in t.agents.iter().filter(|a| a.gfx_target_version.is_none()) {
        out.push(
            Finding::warn(format!(
                "KFD node {} has no gfx_target_version (older kernel): its ISA \
                is not known from sysfs",
                a.node
            ))
            .subject(format!("node {}", a.node))
            .evidence(format!(
                "device {}; libhsakmt falls back to its built-in device-id table for such \
                    kernels",
                device_words(a.device_id, a.pci_revision)
            ))
            .evidence_lines(product_of(a.device_id, a.pci_revision).map(|p| {
                format!(
                    "checks/gpu-names.toml gives {} for 1002:{:04x} ({}); not KFD's word",
                    p.isa, p.id, p.isa_from
                )
            }))
            .fix_text(
                "Name the ISA explicitly for builds (`--isa gfx…`, AMDGPU_TARGETS); a \
                    kernel from 2019 or later publishes gfx_target_version.",
            ),
        );
    }

    out
}

/// AMD DRM cards with no KFD node (KFD skipped them).
fn cards_without_kfd(t: &Topology) -> Vec<Finding> {
    let mut out = Vec::new();
    let agent_slots: Vec<&str> = t
        .agents
        .iter()
        .filter_map(|a| a.location.as_deref().map(pci_slot_of))
        .collect();
    for c in &t.drm_cards {
        let Some(slot) = &c.pci_slot else { continue };
        if agent_slots.contains(&pci_slot_of(slot)) || !t.unreadable_nodes.is_empty() {
            continue;
        }
        let id = c.device_id.map(u64::from);
        out.push(
            Finding::warn(format!(
                "AMD GPU {} ({} at {slot}) has no KFD node: no compute on it",
                c.card,
                device_words(id, c.revision)
            ))
            .subject(c.card.clone())
            .evidence_lines(product_of(id, c.revision).map(|p| {
                format!(
                    "checks/gpu-names.toml: 1002:{:04x} is {} ({}); product name from {}",
                    p.id,
                    p.isa,
                    p.isa_from,
                    p.source()
                )
            }))
            .evidence(
                "KFD skips a GPU it cannot support: `kfd: skipped device 1002:…, PCI \
                    rejects atomics` (gfx8 needs PCIe atomics), `GC IP … not supported in kfd`, \
                    or amdgpu.kfd disabled",
            )
            .fix(
                Fix::text(
                    "Read why KFD skipped it; for PCIe atomics, use a slot/CPU with \
                    atomics support or a gfx9+ GPU.",
                )
                .command("dmesg | grep -i kfd"),
            ),
        );
    }

    out
}

/// Whether the toolchain can build for processor `p`: the ISA table, device-libs' bitcode,
/// clang's processor list.
fn toolchain_knows(
    ctx: &Ctx,
    t: &Topology,
    p: String,
    dirs: &[PathBuf],
    clang: Option<&(String, Vec<String>)>,
) -> Finding {
    let mut ev = Vec::new();
    let mut missing = Vec::new();
    match processor(&p) {
        Some(info) => ev.push(format!(
            "rocm-doctor's ISA table knows {p} (family {}, KFD {:?})",
            info.family, info.kfd
        )),
        None => missing.push(format!(
            "{p} is not in rocm-doctor's ISA table (checks/isa.toml): \
            ROCr probably does not know it either"
        )),
    }
    let suffix = p.trim_start_matches("gfx");
    if dirs.is_empty() {
        ev.push("device-libs: no bitcode directory found (toolchain checks report that)".into());
    } else {
        let file = format!("oclc_isa_version_{suffix}.bc");
        match dirs
            .iter()
            .map(|d| d.join(&file))
            .find(|f| ctx.host.fs.is_file(f))
        {
            Some(f) => ev.push(format!("device-libs: {} exists", f.display())),
            None => missing.push(format!(
                "device-libs: no {file} in {}",
                dirs.iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    match &clang {
        Some((cmd, list)) if list.contains(&p) => ev.push(format!("clang accepts {p} (`{cmd}`)")),
        Some((cmd, _)) => missing.push(format!("clang does not list {p} (`{cmd}`)")),
        None => ev.push("clang: not found or -print-supported-cpus failed; not judged here".into()),
    }
    ev.push("comgr's ISA list: not probed by this check".into());
    let gpus: Vec<String> = t
        .agents
        .iter()
        .filter(|a| a.target.as_ref().is_some_and(|t| t.processor == p))
        .map(|a| format!("node {}", a.node))
        .collect();
    let f = if missing.is_empty() {
        Finding::pass(format!("the toolchain knows {p} ({})", gpus.join(", ")))
    } else {
        Finding::fail(format!(
            "the installed toolchain cannot build for {p} ({})",
            gpus.join(", ")
        ))
        .fix_text(format!(
            "Install a ROCm / LLVM release that supports {p} (clang and \
                device-libs of the same release), or build for an ISA-compatible target."
        ))
    };
    f.subject(p.clone())
        .evidence_lines(ev)
        .evidence_lines(missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// KFD's ISA and the table's: the same makes no note; another makes one naming both and
    /// how the table got its ISA.
    #[test]
    fn an_isa_note_only_when_kfd_and_the_table_differ() {
        let p = gpunames::product(0x73bf, None).unwrap();
        assert_eq!(isa_note(1, "gfx1030", &p), None);
        let n = isa_note(1, "gfx1031", &p).unwrap();
        assert!(
            n.starts_with("note: node 1: KFD reports gfx1031, checks/gpu-names.toml gives gfx1030 for 1002:73bf (kernel: "),
            "{n}"
        );
    }

    /// The device words: product and PCI id with the revision; the id alone for an id the
    /// table does not have; no panic without an id.
    #[test]
    fn device_words_name_what_the_table_says() {
        assert_eq!(
            device_words(Some(0x73bf), Some(0xc1)),
            "AMD Radeon RX 6800 XT [1002:73bf rev c1]"
        );
        assert_eq!(
            device_words(Some(0x73bf), None),
            "Navi 21: Radeon RX 6800 / 6800 XT / 6900 XT [1002:73bf]"
        );
        assert_eq!(device_words(Some(0x74a2), Some(0)), "[1002:74a2 rev 00]");
        assert_eq!(device_words(None, Some(0xc1)), "[device id unknown rev c1]");
    }
}
