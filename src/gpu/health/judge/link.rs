//! The PCIe link of each GPU against its capability (docs/gpu.md §2).

use super::{Problem, Severity};
use crate::gpu::health::read::DeviceHealth;

const FIX_IDLE_SPEED: &str = "Read current_link_speed again while the GPU is busy; only a lower \
     speed under load is a problem.";

fn fix_degraded(port: &str) -> String {
    format!(
        "Reseat the GPU and its riser/cable, and check the slot's BIOS settings (lane \
         bifurcation, PCIe generation); compare LnkSta with LnkCap in `lspci -vv -s {port}`."
    )
}

/// The link to the platform below its capability (§2). Width below max warns; speed below
/// max warns, or is info when `pp_dpm_pcie` shows the speed follows load.
pub(crate) fn link_problems(devs: &[DeviceHealth]) -> Vec<Problem> {
    let mut out = Vec::new();
    for d in devs {
        let Some(l) = &d.link else { continue };
        let narrow = matches!((l.current.width, l.max.width), (Some(c), Some(m)) if c > 0 && c < m);
        let down = l.current.width == Some(0);
        let slow = matches!((&l.current.speed, &l.max.speed),
            (Some(c), Some(m)) if c.tenths_gts < m.tenths_gts);
        if !(narrow || down || slow) {
            continue;
        }
        let at = match &l.limited_by {
            Some(p) => format!("link between {p} and {}", l.package_port),
            None => format!("link of {}", l.package_port),
        };
        let (current, max) = (l.current.label(), l.max.label());
        let mut evidence = vec![format!("{at}: running {current}, capable of {max}")];
        if !l.internal_switch.is_empty() {
            evidence.push(format!(
                "{} reports {} on the switch inside the GPU package ({}), not the slot's link",
                d.pci,
                l.device_reported.label(),
                l.internal_switch.join(", ")
            ));
        }
        let idle = slow && !narrow && !down && d.pcie_dynamic_speed;
        if idle {
            evidence.push(format!(
                "{}/pp_dpm_pcie lists several levels: the link speed follows load",
                d.dir
            ));
        }
        let (severity, fix) = if idle {
            (Severity::Info, FIX_IDLE_SPEED.to_string())
        } else {
            let port = l.limited_by.as_deref().unwrap_or(&l.package_port);
            (Severity::Warn, fix_degraded(port))
        };
        let what = format!("PCIe {at} runs at {current} instead of {max}");
        out.push(
            Problem::new(d.pci.clone(), severity, "link-degraded", what)
                .evidence(evidence)
                .fix(fix),
        );
    }
    out
}
