//! `gpu.layers`: every AMD GPU counted at each layer (PCI bus, amdgpu, DRM, KFD, ROCr, HIP) and
//! the layer where one was lost named with its cause (issue 26, item 4); `--expect-gpus N` fails
//! a node that shows fewer usable GPUs. The counting is `src/gpu/layers.rs`, read once per run
//! (`Inventory::gpu_layers`); the kernel log is consulted only for a GPU that was lost.

use crate::checks::{CheckId, Ctx};
use crate::gpu::layers::{Cause, GpuPath, Layer, Layers, Loss};
use crate::kernlog::{Event, EventKind};
use crate::report::{Action, Finding, Fix};

/// What the kernel log says about one lost GPU.
struct KernelWord {
    /// The lines (event details) that name the GPU.
    lines: Vec<String>,
    /// The errno of a failed probe (`probe of ... failed with error -12`).
    probe_error: Option<i64>,
    firmware: bool,
    probe_failed: bool,
    /// KFD skipped it: atomics, an unsupported ASIC or device id.
    kfd_refused: Option<EventKind>,
    /// The log could not be read.
    unreadable: bool,
}

fn kernel_word(ctx: &Ctx, g: &GpuPath) -> KernelWord {
    let mut w = KernelWord {
        lines: Vec::new(),
        probe_error: None,
        firmware: false,
        probe_failed: false,
        kfd_refused: None,
        unreadable: ctx.inv.kernel_log().is_err(),
    };
    let did =
        g.id.as_deref()
            .and_then(|i| i.strip_prefix("1002:"))
            .unwrap_or("");
    let about = |e: &Event| -> bool {
        if e.device.as_deref() == Some(g.pci.as_str()) {
            return true;
        }
        let subject = e.subject.as_deref().unwrap_or("").to_ascii_lowercase();
        match e.kind {
            // `skipped device 1002:67df, PCI rejects atomics` names the PCI id.
            EventKind::PcieAtomicsRejected => g.id.as_deref() == Some(subject.as_str()),
            // `DID 15d8 is missing in supported_devices` names the device id.
            EventKind::DeviceIdMissing => !did.is_empty() && subject == did,
            // `PITCAIRN not supported in kfd` names neither; it is about some GPU without a
            // KFD node.
            EventKind::AsicUnsupported => e.device.is_none(),
            _ => false,
        }
    };
    for (_, e) in ctx.inv.kernel_events().iter().filter(|(_, e)| about(e)) {
        match e.kind {
            EventKind::ProbeFailed => {
                w.probe_failed = true;
                w.probe_error = w.probe_error.or(e.error);
            }
            EventKind::IpInitFailed => w.probe_failed = true,
            EventKind::FirmwareLoadFailed => w.firmware = true,
            k @ (EventKind::PcieAtomicsRejected
            | EventKind::DeviceIdMissing
            | EventKind::AsicUnsupported) => w.kfd_refused = Some(k),
            _ => continue,
        }
        if w.lines.len() < 8 {
            w.lines.push(format!("kernel log: {}", e.detail));
        }
    }
    w
}

/// A lost GPU's repair: the action, the event name, the fix and what the kernel log said.
type Remedy = (Action, String, Fix, String);

/// The action a loss calls for, the event name, the fix, and what the kernel log adds to the
/// summary.
///
/// - No driver after a failed probe: the driver core does not retry a probe
///   (`drivers/base/dd.c`, `really_probe`: on error the device is left without a driver until
///   it is bound again by hand or the system reboots). A missing firmware file (-2, ENOENT, or
///   a `Direct firmware load ... failed` line) and -12 (ENOMEM: no address space for the BARs;
///   fixed in the host firmware setup, ROCm/rocm-install-on-linux#615) are configuration; any
///   other failure gets a reboot to re-run the probe (a GPU that fails again across boots is
///   for issue 26 item 2 to escalate).
/// - No driver and nothing in the log: amdgpu is not loaded, blacklisted or does not know the
///   device id: configuration.
/// - vfio-pci or another driver: a configuration choice (vfio-pci.ids=, driverctl, radeon's
///   si_support/cik_support).
/// - amdgpu bound without a DRM card or render node: the probe did not finish registering;
///   only a new probe (reboot) recreates them.
/// - No KFD node: `kgd2kfd_probe` refused the GPU (PCIe atomics, an ASIC or device id this KFD
///   does not know: configuration, `amdkfd/kfd_device.c`), else KFD's init failed: reboot.
/// - ROCr cannot use it: device files or permissions (`gpu.kfd`, `gpu.render`): configuration.
fn remedy(l: &Loss, g: &GpuPath, k: &KernelWord) -> Remedy {
    let pci = &g.pci;
    let said = if k.lines.is_empty() {
        if k.unreadable {
            " (the kernel log cannot be read here: `dmesg` says why)".to_string()
        } else {
            " (the kernel log of this boot says nothing about it)".to_string()
        }
    } else {
        String::new()
    };
    match l.cause {
        Cause::NoDriver => no_driver(k, pci, said),
        Cause::Vfio => (
            Action::FixConfig,
            "vfio".into(),
            Fix::text(format!(
                "{pci} is reserved for a \
            virtual machine (vfio-pci.ids= on the kernel command line, a modprobe.d `options \
            vfio-pci ids=`, or a driverctl override). If this host should use it, remove that \
            setting and reboot, or unbind it from vfio-pci and re-probe."
            ))
            .command(format!(
                "echo {pci} | sudo tee /sys/bus/pci/drivers/vfio-pci/unbind"
            )),
            String::new(),
        ),
        Cause::OtherDriver => other_driver(g),
        Cause::NoDrmCard | Cause::NoRenderNode => (
            Action::RebootNode,
            l.cause.as_str().into(),
            Fix::text(
                "amdgpu is bound but its probe \
            did not register the DRM device (card and render node); only a new probe recreates \
            them: reboot, and read `dmesg | grep -i -e amdgpu -e drm` if it happens again.",
            )
            .command("dmesg | grep -i -e amdgpu -e drm"),
            said,
        ),
        Cause::NoKfdNode => no_kfd_node(k, said),
        Cause::NotUsable | Cause::HiddenFromProcess => (
            Action::FixConfig,
            "not-usable".into(),
            Fix::text(format!(
                "ROCr cannot open this GPU's \
            device files: {} and {} say which and how to grant access.",
                CheckId::GpuKfd,
                CheckId::GpuRender
            )),
            String::new(),
        ),
        Cause::HiddenByVariable => (
            Action::None,
            "hidden-by-variable".into(),
            Fix::text(format!(
                "{} explains the visibility variables.",
                CheckId::GpuVisibility
            )),
            String::new(),
        ),
    }
}

/// No driver bound: firmware missing, a failed probe (-12: BAR space), or amdgpu not loaded.
fn no_driver(k: &KernelWord, pci: &str, said: String) -> Remedy {
    if k.firmware || k.probe_error == Some(-2) {
        (
            Action::FixConfig,
            "firmware-missing".into(),
            Fix::text(
                "amdgpu could not load this \
            GPU's firmware: install it (the distribution's \
            `linux-firmware`/`firmware-amd-graphics` package, or the ROCm DKMS driver with \
            its firmware), rebuild the initramfs and reboot.",
            )
            .command("dmesg | grep -i -e firmware -e amdgpu"),
            " (the kernel log shows its firmware did not load and the probe failed)".into(),
        )
    } else if k.probe_error == Some(-12) {
        (
            Action::FixConfig,
            "probe-failed".into(),
            Fix::text(
                "The probe failed with -12 \
            (ENOMEM): the host firmware did not give the GPU's BARs enough address space. \
            Enable Above 4G decoding and Resizable BAR (and disable CSM) in the firmware \
            setup, then reboot.",
            ),
            " (the kernel log shows the probe failed with error -12)".into(),
        )
    } else if k.probe_failed {
        let e = k
            .probe_error
            .map(|e| format!(" with error {e}"))
            .unwrap_or_default();
        (
            Action::RebootNode,
            "probe-failed".into(),
            Fix::text(format!(
                "The driver core does not \
            retry a failed probe: reboot the node to run it again. If it fails again, \
            drain the node and have the GPU at {pci} inspected (`dmesg | grep -i amdgpu` \
            shows where initialisation stopped)."
            ))
            .command("dmesg | grep -i amdgpu"),
            format!(" (the kernel log shows the probe failed{e})"),
        )
    } else {
        (
            Action::FixConfig,
            "no-driver".into(),
            Fix::text(format!(
                "Load amdgpu (`sudo modprobe \
            amdgpu`; {} says whether it is loaded or blacklisted). A driver that does not \
            know this device id needs a newer kernel or the ROCm DKMS driver.",
                CheckId::GpuDriver
            ))
            .command("sudo modprobe amdgpu"),
            said,
        )
    }
}

/// Another driver (radeon, or any other) holds the GPU.
fn other_driver(g: &GpuPath) -> Remedy {
    let pci = &g.pci;
    let d = match &g.driver {
        Some(crate::gpu::layers::Binding::Other(d)) => d.clone(),
        _ => "another driver".into(),
    };
    let text = if d == "radeon" {
        "radeon drives this GCN GPU: boot with `radeon.si_support=0 amdgpu.si_support=1` \
            (Southern Islands) or `radeon.cik_support=0 amdgpu.cik_support=1` (Sea \
            Islands) so amdgpu takes it."
            .to_string()
    } else {
        format!(
            "Unbind {pci} from {d} and let amdgpu probe it, or remove the setting \
            that gives it to {d}."
        )
    };
    (
        Action::FixConfig,
        "other-driver".into(),
        Fix::text(text),
        String::new(),
    )
}

/// No KFD node: KFD refused the GPU (atomics, unsupported), else its init failed.
fn no_kfd_node(k: &KernelWord, said: String) -> Remedy {
    match k.kfd_refused {
        Some(EventKind::PcieAtomicsRejected) => (
            Action::FixConfig,
            "pcie-atomics-rejected".into(),
            Fix::text(
                "KFD needs PCIe atomics for \
            this GPU and the path to the CPU does not carry them: move it to a slot attached \
            to the CPU (not behind a chipset or switch without AtomicOps routing), or enable \
            atomics in the firmware setup.",
            ),
            " (the kernel log says KFD skipped it: PCI rejects atomics)".into(),
        ),
        Some(_) => (
            Action::FixConfig,
            "kfd-unsupported".into(),
            Fix::text(
                "This kernel's KFD does not \
            support the GPU: use a kernel or ROCm DKMS driver that lists it (ROCm's GPU \
            support matrix).",
            ),
            " (the kernel log says KFD does not support it)".into(),
        ),
        None => (
            Action::RebootNode,
            "no-kfd-node".into(),
            Fix::text(
                "amdgpu initialised the GPU \
            but KFD did not add it; `dmesg | grep -i kfd` says why (IOMMU, atomics, an \
            unsupported ASIC). A reboot runs KFD's probe again.",
            )
            .command("dmesg | grep -i kfd"),
            said,
        ),
    }
}

fn gpu_line(g: &GpuPath) -> String {
    let layers: Vec<String> = g
        .present
        .iter()
        .map(|l| match l {
            Layer::Kfd => format!("kfd (node {})", join(&g.kfd_nodes)),
            Layer::Rocr if g.rocr_nodes != 1 => format!("rocr ({})", g.rocr_nodes),
            Layer::Hip if g.hip_nodes != 1 => format!("hip ({})", g.hip_nodes),
            l => l.as_str().to_string(),
        })
        .collect();
    let lost = g
        .lost
        .as_ref()
        .map(|l| format!("; lost at {}: {}", l.layer.as_str(), l.detail))
        .unwrap_or_default();
    format!(
        "{} {}: {}{lost}",
        g.pci,
        g.id.as_deref().unwrap_or("?"),
        if layers.is_empty() {
            "no layer".to_string()
        } else {
            layers.join(", ")
        }
    )
}

fn join(v: &[u32]) -> String {
    if v.len() > 4 {
        return format!("{}..{}, {} nodes", v[0], v[v.len() - 1], v.len());
    }
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

fn common_evidence(l: &Layers) -> Vec<String> {
    let mut ev = vec![format!("layers: {}", l.line())];
    if let Some(why) = &l.pci.unobserved {
        ev.push(format!(
            "{}: {why} (the PCI and driver layers are not observed here)",
            crate::gpu::layers::PCI_DEVICES
        ));
    }
    for (n, e) in &l.hidden_kfd_nodes {
        ev.push(format!("KFD node {n}: {e} (hidden from this process)"));
    }
    ev.extend(
        l.pci
            .unreadable
            .iter()
            .map(|u| format!("could not read: {u}")),
    );
    ev.extend(
        l.pci
            .unsupported
            .iter()
            .map(|u| format!("not supported here: {u}")),
    );
    ev
}

pub(super) fn layers(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.gpu();
    if !t.environment.wsl.is_empty() {
        return super::gate(ctx, t, true).unwrap_or_default();
    }
    let l = ctx.inv.gpu_layers();
    // `--expect-gpus` wins over the site policy's `gpu.layers.expect-gpus` (0: none).
    let expect = ctx.cfg.expect_gpus.or_else(|| {
        Some(ctx.cfg.policy.threshold(CheckId::GpuLayers, "expect-gpus"))
            .filter(|n| *n > 0)
            .map(|n| n as u32)
    });
    let usable = l.usable();
    let ev = common_evidence(l);
    if l.gpus.is_empty() && l.hidden_kfd_nodes.is_empty() {
        return vec![no_gpu(l, t.path.is_some(), expect, ev)];
    }
    let mut out = Vec::new();
    let mut deliberate = Vec::new();
    let mut actions: Vec<Action> = Vec::new();
    for g in &l.gpus {
        let Some(loss) = &g.lost else { continue };
        if loss.deliberate {
            deliberate.push(gpu_line(g));
            continue;
        }
        let k = kernel_word(ctx, g);
        let (action, event, fix, said) = remedy(loss, g, &k);
        actions.push(action);
        let f = Finding::fail(format!("{}: {}{said}", g.pci, loss.detail))
            .subject(g.pci.clone())
            .evidence(gpu_line(g))
            .evidence_lines(k.lines)
            .evidence_lines(ev.iter().cloned())
            .fix(fix)
            .action(action)
            .event(event);
        out.push(f);
    }
    let hidden = hidden_note(l, deliberate.len());
    match expect {
        Some(n) if usable < n as usize => {
            let evidence = ev.iter().chain(&deliberate).cloned().collect();
            out.push(fewer_than_expected(
                l, n, usable, &hidden, evidence, &actions,
            ));
        }
        Some(n) => out.push(
            Finding::pass(format!(
                "{usable} GPU(s) usable by ROCr, {n} expected (--expect-gpus){hidden}"
            ))
            .evidence_lines(ev.iter().cloned())
            .evidence_lines(deliberate.iter().cloned()),
        ),
        None if out.is_empty() => out.push(all_usable(l, &hidden, &ev, deliberate)),
        None => {}
    }
    out
}

/// Fewer GPUs usable than `--expect-gpus` (`n`): the heaviest action among the losses, or
/// drain and inspect when the PCI bus itself shows fewer.
fn fewer_than_expected(
    l: &Layers,
    n: u32,
    usable: usize,
    hidden: &str,
    evidence: Vec<String>,
    actions: &[Action],
) -> Finding {
    // The heaviest action among the losses; GPUs missing from the bus altogether
    // (fewer on the PCI bus than expected) are hardware: drain and inspect, as gpud's
    // "GPU lost" and DCGM's GPU-count checks do.
    let on_bus = l.count(Layer::Pci).filter(|c| c.observed).map(|c| c.gpus);
    let missing_from_bus = on_bus.is_some_and(|b| b < n as usize);
    let action = if missing_from_bus {
        Action::DrainAndInspect
    } else {
        actions.iter().copied().max().unwrap_or(Action::FixConfig)
    };
    Finding::fail(format!(
        "{usable} GPU(s) usable by ROCr, {n} expected (--expect-gpus){hidden}"
    ))
    .evidence_lines(evidence)
    .fix(
        Fix::text(if missing_from_bus {
            "Fewer GPUs are enumerated on the PCI bus than expected: drain the node and \
                inspect the hardware (seating, risers, power); `lspci -nn -d 1002:` lists \
                what the bus shows. The findings above name GPUs lost at a later layer."
        } else {
            "The findings above name each lost GPU, its layer and its fix."
        })
        .command("lspci -nn -d 1002:"),
    )
    .action(action)
    .event("fewer-gpus")
}

/// No AMD GPU at any layer: a failure when some were expected, else a skip. `kfd_topology`:
/// KFD's topology directory exists.
fn no_gpu(l: &Layers, kfd_topology: bool, expect: Option<u32>, ev: Vec<String>) -> Finding {
    match expect {
        Some(n) if n > 0 && l.pci.observed => Finding::fail(format!(
            "no AMD GPU usable by \
                ROCr, {n} expected (--expect-gpus)"
        ))
        .evidence_lines(ev)
        .fix(
            Fix::text(
                "No GPU is enumerated on the PCI bus: drain the node and inspect the hardware \
                (seating, risers, power, the slot's firmware setting); `lspci -nn -d 1002:` lists \
                what the bus shows.",
            )
            .command("lspci -nn -d 1002:"),
        )
        .action(Action::DrainAndInspect)
        .event("fewer-gpus"),
        Some(n) if n > 0 => Finding::fail(format!(
            "no AMD GPU usable by ROCr, {n} expected \
                (--expect-gpus)"
        ))
        .evidence_lines(ev)
        .fix(Fix::text(
            "This root shows no GPU at any layer and not the PCI bus: run on \
                    the host, or give the container its GPUs (`--device=/dev/kfd \
                    --device=/dev/dri`) and `/sys`.",
        ))
        .action(Action::FixConfig)
        .event("fewer-gpus"),
        _ => Finding::skip(format!(
            "no AMD GPU at any layer ({} PCI function(s), none an AMD display or accelerator; \
                    {})",
            l.pci.functions,
            if kfd_topology {
                "KFD lists no GPU node"
            } else {
                "no KFD topology"
            }
        ))
        .evidence_lines(ev),
    }
}

/// The summary's tail on GPUs hidden on purpose and KFD nodes hidden from this process.
fn hidden_note(l: &Layers, deliberate: usize) -> String {
    let placed = l
        .gpus
        .iter()
        .filter(|g| g.lost.as_ref().is_some_and(|x| x.layer == Layer::Kfd))
        .filter(|g| {
            g.lost
                .as_ref()
                .is_some_and(|x| x.cause == Cause::HiddenFromProcess)
        })
        .count();
    let unplaced = l.hidden_kfd_nodes.len().saturating_sub(placed);
    let mut hidden = String::new();
    if deliberate > 0 {
        hidden =
            format!("; {deliberate} hidden on purpose (device cgroup or visibility variables)");
    }
    if unplaced > 0 {
        hidden.push_str(&format!(
            "; {unplaced} KFD node(s) hidden from this process"
        ));
    }
    hidden
}

/// No GPU lost and none expected: the pass that sums the layers up.
fn all_usable(l: &Layers, hidden: &str, ev: &[String], deliberate: Vec<String>) -> Finding {
    let usable = l.usable();
    // A GPU absent from an earlier layer but present later (its files could not be
    // read) is not lost; the summary then does not claim every layer.
    let partial: Vec<String> = l
        .gpus
        .iter()
        .filter(|g| g.lost.is_none())
        .filter(|g| l.counts.iter().any(|c| c.observed && !g.at(c.layer)))
        .map(gpu_line)
        .collect();
    let head = if partial.is_empty() {
        format!("{usable} GPU(s) on every layer{hidden}")
    } else {
        format!("{usable} GPU(s) usable by ROCr{hidden}")
    };
    Finding::pass(format!("{head}: {}", l.line()))
        .evidence_lines(ev.iter().skip(1).cloned())
        .evidence_lines(partial)
        .evidence_lines(deliberate)
}
