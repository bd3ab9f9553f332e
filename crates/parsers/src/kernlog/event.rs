//! amdgpu, KFD and DRM kernel lines recognised as events. Pure: no I/O.
//!
//! Every format string below is the driver's, as read in the kernel sources and listed in the
//! shared reference `amdgpu-health.md` §8 (the section is named at each kind). The prefix of a
//! line (§8.0) is removed first, in every variant: `amdgpu <BDF>: ` with or without `amdgpu: `,
//! the RAS event id `{N}`, `[drm:func [amdgpu]] *ERROR* `, `[drm] `, `kfd kfd: `, a bare
//! `amdgpu: ` (pr_fmt), and the IOMMU driver's `AMD-Vi: `; then the message is matched. The
//! whitespace quirks are kept (§10 item 2): two blanks in `%s %s not supported in kfd` and in
//! `Source:  %d`, leading blanks and a TAB in the page-fault continuation lines (which pastes
//! often turn into blanks, so those are matched after trimming).

use super::parse::KernelLine;
use regex::Regex;
use std::sync::LazyLock;

/// What happened, one variant per kind of event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EventKind {
    /// §8.1: a firmware file could not be loaded (request_firmware, gpu_info, PSP, DMUB).
    FirmwareLoadFailed,
    /// §8.1: an IP block's early/sw/hw init failed, or the device's init as a whole.
    IpInitFailed,
    /// §8.1: the driver core's probe of the PCI device failed (`error` holds the errno).
    ProbeFailed,
    /// §8.2: KFD does not support the ASIC (`%s %s not supported in kfd`).
    AsicUnsupported,
    /// §8.2: old KFD's device table lacks the device id (`DID %04x is missing ...`).
    DeviceIdMissing,
    /// §8.2: KFD skipped the device because PCIe atomics are not available.
    PcieAtomicsRejected,
    /// §8.3: a ring (gfx, compute, sdma, ...) timed out.
    RingTimeout,
    /// §8.8: KFD's hardware scheduler hung (the ROCm compute counterpart of a ring timeout).
    HwsHang,
    /// §8.4: a GPU reset started.
    GpuResetBegin,
    /// §8.4: a GPU reset finished successfully.
    GpuResetSucceeded,
    /// §8.4 and §8.3: a GPU reset or recovery failed, or recovery is disabled.
    GpuResetFailed,
    /// §8.4: VRAM contents were lost in a reset.
    VramLost,
    /// §8.5: a GPU virtual-memory page fault (header, task, address and status lines).
    VmPageFault,
    /// §8.6 and §8.2: an IOMMU fault on the GPU or an IOMMUv2 failure.
    IommuFailure,
    /// §8.7: a RAS (ECC) error count, a fatal RAS interrupt, or poison.
    RasEvent,
    /// §8.8: the SMU (power-management firmware) failed or did not answer.
    SmuFailure,
    /// §8.8: the GPU is throttled.
    Throttling,
    /// §8.3 and §8.5: a `process NAME pid N` line of the report before it. [`super::amdgpu_events`]
    /// folds it into that report and never returns it on its own.
    TaskInfo,
}

impl EventKind {
    /// Every kind, in report order.
    pub const ALL: [EventKind; 18] = [
        EventKind::FirmwareLoadFailed,
        EventKind::IpInitFailed,
        EventKind::ProbeFailed,
        EventKind::AsicUnsupported,
        EventKind::DeviceIdMissing,
        EventKind::PcieAtomicsRejected,
        EventKind::RingTimeout,
        EventKind::HwsHang,
        EventKind::GpuResetBegin,
        EventKind::GpuResetSucceeded,
        EventKind::GpuResetFailed,
        EventKind::VramLost,
        EventKind::VmPageFault,
        EventKind::IommuFailure,
        EventKind::RasEvent,
        EventKind::SmuFailure,
        EventKind::Throttling,
        EventKind::TaskInfo,
    ];

    /// A stable kebab-case name (for JSON and evidence).
    pub fn name(self) -> &'static str {
        match self {
            EventKind::FirmwareLoadFailed => "firmware-load-failed",
            EventKind::IpInitFailed => "ip-init-failed",
            EventKind::ProbeFailed => "probe-failed",
            EventKind::AsicUnsupported => "asic-unsupported",
            EventKind::DeviceIdMissing => "device-id-missing",
            EventKind::PcieAtomicsRejected => "pcie-atomics-rejected",
            EventKind::RingTimeout => "ring-timeout",
            EventKind::HwsHang => "hws-hang",
            EventKind::GpuResetBegin => "gpu-reset-begin",
            EventKind::GpuResetSucceeded => "gpu-reset-succeeded",
            EventKind::GpuResetFailed => "gpu-reset-failed",
            EventKind::VramLost => "vram-lost",
            EventKind::VmPageFault => "vm-page-fault",
            EventKind::IommuFailure => "iommu-failure",
            EventKind::RasEvent => "ras-event",
            EventKind::SmuFailure => "smu-failure",
            EventKind::Throttling => "throttling",
            EventKind::TaskInfo => "task-info",
        }
    }
}

/// The place of a line in a report that spans several lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The line that starts an event.
    Head,
    /// A line that only adds to the event before it (page-fault address and status lines,
    /// `kgd2kfd_probe failed`, `Starting gfx_0.0.0 ring reset`, `GPU mode1 reset`, ...).
    Detail,
}

/// RAS severities (§8.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RasSeverity {
    Correctable,
    Deferred,
    Uncorrectable,
    /// A fatal RAS interrupt (`ERREVENT_ATHUB_INTERRUPT`).
    Fatal,
    /// Poison created or consumed.
    Poison,
}

impl Event {
    /// A RAS event the hardware did not correct: uncorrectable, fatal, poison, or a RAS line
    /// whose severity was not recognised (taken as the worse). Corrected and deferred ones are
    /// counted, not acted on.
    pub fn is_uncorrected_ras(&self) -> bool {
        self.kind == EventKind::RasEvent
            && !matches!(
                self.ras,
                Some(RasSeverity::Correctable) | Some(RasSeverity::Deferred)
            )
    }
}

/// One recognised line (or, after [`super::amdgpu_events`], one report with its detail lines).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub kind: EventKind,
    pub role: Role,
    /// PCI address (`0000:c3:00.0`) from the line's prefix, the message, or kmsg's `DEVICE=`.
    pub device: Option<String>,
    /// (name, pid) of the process named by a page-fault or ring-timeout report.
    pub process: Option<(String, u32)>,
    /// The message after the prefixes, trimmed.
    pub detail: String,
    /// The error number the line gives (`failed with error -2`, `failed -19`).
    pub error: Option<i64>,
    /// What the event is about: the firmware file, IP block, ASIC, ring, hub, RAS block,
    /// reset source, throttling reasons, IOMMU symbol.
    pub subject: Option<String>,
    /// RAS events: the severity.
    pub ras: Option<RasSeverity>,
    /// RAS events: the error count the line gives.
    pub count: Option<u64>,
    /// Detail lines folded in by [`super::amdgpu_events`] (at most [`super::MAX_FOLDED`]).
    pub extra: Vec<String>,
}

impl Event {
    fn new(kind: EventKind, device: Option<String>, detail: &str) -> Self {
        Event {
            kind,
            role: Role::Head,
            device,
            process: None,
            detail: detail.trim().to_string(),
            error: None,
            subject: None,
            ras: None,
            count: None,
            extra: Vec::new(),
        }
    }
    fn detail_line(mut self) -> Self {
        self.role = Role::Detail;
        self
    }
    fn subject(mut self, s: impl Into<String>) -> Self {
        self.subject = Some(s.into());
        self
    }
    fn error(mut self, e: Option<i64>) -> Self {
        self.error = e;
        self
    }
}

/// Who printed the line (§8.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// `amdgpu <BDF>: ` (dev_printk on the GPU).
    Device,
    /// `kfd kfd: `.
    Kfd,
    /// `[drm:func ...] `, `[drm] `.
    Drm,
    /// `amdgpu: ` (pr_fmt), the module itself.
    Module,
    /// No recognised prefix (the bare KFD HWS lines).
    Bare,
}

struct Prefixed<'a> {
    origin: Origin,
    device: Option<&'a str>,
    /// The message with every prefix removed (leading blanks kept).
    body: &'a str,
}

/// `DDDD:BB:DD.F`, hexadecimal.
fn is_bdf(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 12
        && b[4] == b':'
        && b[7] == b':'
        && b[10] == b'.'
        && b.iter()
            .enumerate()
            .all(|(i, c)| matches!(i, 4 | 7 | 10) || c.is_ascii_hexdigit())
}

fn strip_tags(mut s: &str) -> &str {
    loop {
        let before = s.len();
        for tag in ["amdgpu: ", "AMD-Vi: ", "[drm] ", "*ERROR* "] {
            if let Some(r) = s.strip_prefix(tag) {
                s = r;
            }
        }
        // RAS_EVENT_LOG's `{N}` event id (§8.7).
        if let Some(r) = s.strip_prefix('{') {
            if let Some(end) = r.find('}').filter(|&e| e > 0 && e <= 20) {
                if r[..end].bytes().all(|c| c.is_ascii_digit()) {
                    s = &r[end + 1..];
                }
            }
        }
        if s.len() == before {
            return s;
        }
    }
}

fn split_prefix(text: &str) -> Option<Prefixed<'_>> {
    if let Some(r) = text.strip_prefix("amdgpu ") {
        let bdf = r.get(..12).filter(|b| is_bdf(b))?;
        let body = r[12..].strip_prefix(": ")?;
        return Some(Prefixed {
            origin: Origin::Device,
            device: Some(bdf),
            body: strip_tags(body),
        });
    }
    if let Some(r) = text.strip_prefix("kfd kfd: ") {
        return Some(Prefixed {
            origin: Origin::Kfd,
            device: None,
            body: strip_tags(r),
        });
    }
    if let Some(r) = text.strip_prefix("[drm:") {
        // `[drm:func [amdgpu]] ` or `[drm:func] `.
        let end = r.find("] ")?;
        let body = &r[end + 2..];
        return Some(Prefixed {
            origin: Origin::Drm,
            device: None,
            body: strip_tags(body),
        });
    }
    if text.starts_with("[drm] ") {
        return Some(Prefixed {
            origin: Origin::Drm,
            device: None,
            body: strip_tags(text),
        });
    }
    if let Some(r) = text.strip_prefix("amdgpu: ") {
        return Some(Prefixed {
            origin: Origin::Module,
            device: None,
            body: strip_tags(r),
        });
    }
    // §8.8: KFD's HWS hang lines were printed without a prefix in older kernels.
    if text.starts_with("qcm fence wait loop timeout expired")
        || text.starts_with("The cp might be in an unrecoverable state")
    {
        return Some(Prefixed {
            origin: Origin::Bare,
            device: None,
            body: text,
        });
    }
    None
}

/// A cheap test that skips most non-GPU lines before any parsing.
fn may_be_gpu(text: &str) -> bool {
    let b = text.as_bytes();
    match b.first() {
        Some(b'a') => text.starts_with("amdgpu"),
        Some(b'k') => text.starts_with("kfd kfd: "),
        Some(b'[') => text.starts_with("[drm"),
        Some(b'q') => text.starts_with("qcm fence"),
        Some(b'T') => text.starts_with("The cp might"),
        _ => false,
    }
}

/// The leading signed integer of `s`.
fn int_at(s: &str) -> Option<i64> {
    let s = s.trim_start();
    let end = s
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(s.len(), |(i, _)| i);
    s[..end].parse().ok()
}

/// The integer after the last occurrence of `marker`.
fn int_after(s: &str, marker: &str) -> Option<i64> {
    s.rfind(marker).and_then(|i| int_at(&s[i + marker.len()..]))
}

/// The text between the first `"` pair.
fn quoted(s: &str) -> Option<&str> {
    let a = s.find('"')?;
    let b = s[a + 1..].find('"')?;
    Some(&s[a + 1..a + 1 + b])
}

static PAGE_FAULT: LazyLock<Regex> = LazyLock::new(|| {
    // §8.5, gmc_v9_0.c / gmc_v10_0.c ...: `[%s] %s page fault (src_id:%u ring:%u vmid:%u
    // pasid:%u[, for process %s pid %d thread %s pid %d])`.
    Regex::new(
        r"^\[(\w+)\] (?:(retry|no-retry) )?page fault \(src_id:\d+ ring:\d+ vmid:\d+ pasid:\d+(?:, for process (.*) pid (\d+) thread .* pid \d+)?\)",
    )
    .unwrap()
});

static TASK: LazyLock<Regex> = LazyLock::new(|| {
    // §8.3/§8.5 task lines: `Process information: process %s pid %d thread %s pid %d` (≤6.16,
    // ring timeouts), ` for process ... )` (gfx9) and ` in process ...` (gfx10+) (≈6.9-6.16
    // page faults), ` Process %s pid %d thread %s pid %d` (6.17+, both).
    Regex::new(r"^(?:Process information: process|for process|in process|Process) (.*) pid (\d+) thread .* pid \d+\)?$")
        .unwrap()
});

static RAS_COUNT: LazyLock<Regex> = LazyLock::new(|| {
    // §8.7, amdgpu_ras.c: `[socket: %d, die: %d[,] ]%ld [new ](correctable|deferred|uncorrectable)
    // hardware errors detected [in total ]in %s block` and the per-memory
    // `%ld %s hardware errors detected in %s, instance: ...`.
    Regex::new(
        r"^(?:socket: \d+, die: \d+,? )?(\d+) (?:new )?(correctable|deferred|uncorrectable) hardware errors detected (?:in total )?in (\w+)(?: block|,)",
    )
    .unwrap()
});

/// Recognises one amdgpu/KFD/DRM line; `None` for every other line.
pub fn classify(line: &KernelLine) -> Option<Event> {
    if !line.is_kernel() || !may_be_gpu(&line.text) {
        return None;
    }
    let p = split_prefix(&line.text)?;
    let mut ev = match_body(&p)?;
    if ev.device.is_none() {
        ev.device = line.pci_device().map(str::to_string);
    }
    Some(ev)
}

fn match_body(p: &Prefixed<'_>) -> Option<Event> {
    use EventKind::*;
    let dev = p.device.map(str::to_string);
    let raw = p.body.trim_end();
    let body = raw.trim_start();
    let ev = |k: EventKind| Event::new(k, dev.clone(), body);

    // §8.5: page faults (header, task, address, die, status and decode lines).
    if let Some(c) = PAGE_FAULT.captures(body) {
        let mut e = ev(VmPageFault).subject(&c[1]);
        if let (Some(name), Some(pid)) = (c.get(3), c.get(4)) {
            e.process = pid
                .as_str()
                .parse()
                .ok()
                .map(|p| (name.as_str().to_string(), p));
        }
        return Some(e);
    }
    if let Some(c) = TASK.captures(body) {
        let mut e = ev(TaskInfo).detail_line();
        e.process = c[2].parse().ok().map(|p| (c[1].to_string(), p));
        return Some(e);
    }
    const FAULT_DETAIL: [&str; 11] = [
        "in page starting at address ",
        "cookie node_id ",
        "VM_L2_PROTECTION_FAULT_STATUS:",
        "GCVM_L2_PROTECTION_FAULT_STATUS:",
        "MMVM_L2_PROTECTION_FAULT_STATUS:",
        "Faulty UTCL2 client ID:",
        "MORE_FAULTS:",
        "WALKER_ERROR:",
        "PERMISSION_FAULTS:",
        "MAPPING_ERROR:",
        "RW:",
    ];
    if p.origin == Origin::Device && FAULT_DETAIL.iter().any(|d| body.starts_with(d)) {
        return Some(ev(VmPageFault).detail_line());
    }

    // §8.1: firmware.
    if let Some(r) = body.strip_prefix("Direct firmware load for ") {
        let file = r.split(" failed with error").next().unwrap_or(r);
        return Some(
            ev(FirmwareLoadFailed)
                .subject(file)
                .error(int_after(body, "failed with error ")),
        );
    }
    if body.starts_with("Failed to get gpu_info firmware")
        || body.starts_with("Failed to load gpu_info firmware")
        || body.contains("Failed to load firmware \"")
    {
        let mut e = ev(FirmwareLoadFailed);
        e.subject = quoted(body).map(str::to_string);
        return Some(e);
    }
    if let Some(r) = body.strip_prefix("DMUB firmware loading failed:") {
        return Some(ev(FirmwareLoadFailed).subject("DMUB").error(int_at(r)));
    }
    for psp in [
        "PSP load kdb failed!",
        "PSP load sos failed!",
        "PSP create ring failed!",
        "PSP tmr init failed!",
        "PSP firmware loading failed",
        "PSP resume failed",
    ] {
        if body.starts_with(psp) {
            return Some(ev(FirmwareLoadFailed).subject("PSP"));
        }
    }
    if (body.starts_with("psp gfx command ") || body.starts_with("psp command ("))
        && body.contains(") failed and response status is (")
    {
        return Some(ev(FirmwareLoadFailed).subject("PSP"));
    }
    if body.starts_with("failed to load ucode ") {
        return Some(ev(FirmwareLoadFailed).subject("PSP"));
    }

    // §8.1: IP init and probe.
    for stage in ["early_init", "sw_init", "hw_init"] {
        if let Some(r) = body
            .strip_prefix(stage)
            .and_then(|r| r.strip_prefix(" of IP block <"))
        {
            let block = r.split('>').next().unwrap_or("");
            return Some(
                ev(IpInitFailed)
                    .subject(format!("{stage} {block}"))
                    .error(int_after(body, "failed ")),
            );
        }
    }
    if body.starts_with("amdgpu_device_ip_init failed")
        || body.starts_with("Fatal error during GPU init")
    {
        return Some(ev(IpInitFailed));
    }
    // ≥≈6.9: `probe with driver %s failed with error %d`; older `probe of %s failed with error %d`.
    if body.starts_with("probe with driver ") && body.contains(" failed with error ") {
        return Some(ev(ProbeFailed).error(int_after(body, "failed with error ")));
    }
    if let Some(r) = body.strip_prefix("probe of ") {
        let target = r.split(' ').next().unwrap_or("");
        if r.contains(" failed with error ") {
            let mut e = ev(ProbeFailed).error(int_after(body, "failed with error "));
            if is_bdf(target) {
                e.device = Some(target.to_string());
            }
            return Some(e);
        }
    }

    // §8.2: KFD.
    if body.ends_with("not supported in kfd") {
        let asic = body.trim_end_matches("not supported in kfd").trim();
        return Some(ev(AsicUnsupported).subject(asic));
    }
    if let Some(r) = body.strip_prefix("DID ") {
        if r.ends_with("is missing in supported_devices") {
            let did = r.split(' ').next().unwrap_or("");
            return Some(ev(DeviceIdMissing).subject(did));
        }
    }
    if body.starts_with("kgd2kfd_probe failed") {
        return Some(ev(DeviceIdMissing).detail_line());
    }
    if let Some(r) = body.strip_prefix("skipped device ") {
        if r.contains("PCI rejects atomics") {
            let id = r.split(',').next().unwrap_or("");
            return Some(ev(PcieAtomicsRejected).subject(id));
        }
    }
    if body.starts_with("Failed to resume IOMMU for device ")
        || body.starts_with("Error initializing iommuv2")
    {
        return Some(ev(IommuFailure).subject("IOMMUv2"));
    }

    // §8.3: rings.
    if let Some(r) = body.strip_prefix("ring ") {
        if let Some((ring, _)) = r.split_once(" timeout") {
            if !ring.contains(' ') {
                return Some(ev(RingTimeout).subject(ring));
            }
        }
    }
    if let Some(r) = body.strip_prefix("Starting ") {
        if let Some(ring) = r.strip_suffix(" ring reset") {
            return Some(ev(RingTimeout).detail_line().subject(ring));
        }
    }
    if let Some(r) = body.strip_prefix("Ring ") {
        if let Some((ring, _)) = r.split_once(" reset ") {
            return Some(ev(RingTimeout).detail_line().subject(ring));
        }
    }
    if let Some(r) = body.strip_prefix("GPU Recovery Failed:") {
        return Some(ev(GpuResetFailed).error(int_at(r)));
    }

    // §8.8: KFD HWS hang.
    if body.starts_with("qcm fence wait loop timeout expired")
        || body.starts_with("The cp might be in an unrecoverable state")
        || (p.origin != Origin::Bare && body.starts_with("Failed to evict process queues"))
    {
        return Some(ev(HwsHang));
    }

    // §8.4: resets.
    if let Some(r) = body.strip_prefix("GPU ") {
        if r.starts_with("reset begin!") || r.starts_with("jobs stop begin!") {
            let mut e = ev(GpuResetBegin);
            e.subject = r
                .split_once("Source:")
                .and_then(|(_, s)| int_at(s))
                .map(reset_source);
            return Some(e);
        }
        if let Some(n) = r.strip_prefix("reset(") {
            let ok = n.contains(") succeeded!");
            if ok {
                return Some(ev(GpuResetSucceeded));
            }
            if n.contains(") failed") {
                return Some(ev(GpuResetFailed).error(int_after(r, "with error ")));
            }
        }
        if r.starts_with("reset succeeded, trying to resume")
            || r.starts_with("reset end with ret")
            || matches!(r, "mode1 reset" | "smu mode1 reset" | "psp mode1 reset")
        {
            return Some(ev(GpuResetBegin).detail_line());
        }
        if r.starts_with("mode1 reset failed") {
            return Some(ev(GpuResetFailed).subject("mode1"));
        }
        if r.starts_with("recovery disabled") {
            return Some(ev(GpuResetFailed).subject("recovery disabled"));
        }
    }
    if let Some(r) = body.strip_prefix("ASIC reset failed with error,") {
        return Some(ev(GpuResetFailed).error(int_at(r)));
    }
    if body.starts_with("VRAM is lost due to GPU reset") {
        return Some(ev(VramLost));
    }

    // §8.6: IOMMU faults reported on the GPU (`amdgpu <BDF>: AMD-Vi: Event logged [IO_PAGE_FAULT ...]`).
    if body.starts_with("Event logged [IO_PAGE_FAULT") {
        return Some(ev(IommuFailure).subject("IO_PAGE_FAULT"));
    }
    // The module cannot link against the IOMMUv2 module (tests/corpus/gpu.toml
    // gpu-awsdocs-152: `amdgpu: Unknown symbol amd_iommu_bind_pasid (err -2)`).
    if let Some(r) = body.strip_prefix("Unknown symbol amd_iommu_") {
        let sym = r.split(' ').next().unwrap_or("");
        return Some(
            ev(IommuFailure)
                .subject(format!("amd_iommu_{sym}"))
                .error(int_after(body, "(err ")),
        );
    }

    // §8.7: RAS.
    if let Some(c) = RAS_COUNT.captures(body) {
        let mut e = ev(RasEvent).subject(&c[3]);
        e.count = c[1].parse().ok();
        e.ras = Some(match &c[2] {
            "correctable" => RasSeverity::Correctable,
            "deferred" => RasSeverity::Deferred,
            _ => RasSeverity::Uncorrectable,
        });
        return Some(e);
    }
    if body.starts_with("uncorrectable hardware error") && body.ends_with("detected!") {
        let mut e = ev(RasEvent);
        e.ras = Some(RasSeverity::Fatal);
        e.subject = body
            .split_once('(')
            .and_then(|(_, r)| r.split_once(')'))
            .map(|(s, _)| s.to_string());
        return Some(e);
    }
    if body.starts_with("Poison is created")
        || body.starts_with("poison is consumed by client")
        || body.starts_with("RAS poison consumption")
        || body.starts_with("Poison detected in ")
        || (body.starts_with("GPU reset for ") && body.contains("RAS poison consumption is issued"))
    {
        let mut e = ev(RasEvent);
        e.ras = Some(RasSeverity::Poison);
        return Some(e);
    }

    // §8.8: SMU.
    if body.starts_with("SMC is not ready")
        || body.starts_with("SMC engine is not correctly up")
        || body.starts_with("SMU is in hanged state")
        || body.starts_with("failed send message:")
        || body.starts_with("SMU: I'm not done with your previous command")
        || body.starts_with("SMU: response:")
        || body.starts_with("SMU: unknown command")
        || body.starts_with("SMU: valid command, bad prerequisites")
        || body.starts_with("SMU: I'm very busy")
        || body.starts_with("SMU: I'm debugging")
    {
        return Some(ev(SmuFailure));
    }
    for t in [
        "WARN: GPU is throttled, expect performance decrease. ",
        "WARN: GPU thermal throttling temperature reached, expect performance decrease. ",
    ] {
        if let Some(r) = body.strip_prefix(t) {
            return Some(ev(Throttling).subject(r.trim_end_matches('.')));
        }
    }
    None
}

/// `enum AMDGPU_RESET_SRCS` (§8.4, 6.18).
fn reset_source(n: i64) -> String {
    let name = match n {
        0 => "unknown",
        1 => "job",
        2 => "ras",
        3 => "mes",
        4 => "hws",
        5 => "user",
        6 => "userq",
        _ => return format!("source {n}"),
    };
    name.to_string()
}
