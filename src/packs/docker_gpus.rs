//! Rule over Docker refusing a GPU request (issue 28, item 4: "wrong platform": a container
//! asked for GPUs the way NVIDIA's are asked for). Pure.
//!
//! `docker run --gpus ...` and Compose's `deploy.resources.reservations.devices` send a device
//! request that the daemon hands to a registered device driver: with no driver named, the first
//! whose capabilities match, else the named one (moby `daemon/devices.go`). The drivers are
//! NVIDIA's container toolkit (`nvidia`), AMD's (`amd`: registered only where AMD's Container
//! Toolkit left a CDI specification or `amd-container-runtime` is on the daemon's PATH, moby
//! `daemon/devices_amd_linux.go`, in the Docker releases that have it) and CDI. When none takes
//! the request the daemon answers "could not select device driver "X" with capabilities:
//! [[gpu]]" (moby `daemon/errors.go`, incompatibleDeviceRequest). No driver is called `rocm`.
//! AMD GPUs reach a container without any toolkit through their device nodes, `/dev/kfd` and
//! `/dev/dri` (AMD's "Running ROCm Docker containers").
//!
//! Reasons from what the text states; this machine is not asked.

use super::facts::{line_of, re, rule_symptom, Derived, Facts};
use super::Symptom;
use regex::Regex;
use std::sync::OnceLock;

const FROM: &str = "from the text; this machine was not asked";

fn symptom() -> &'static Symptom {
    static S: OnceLock<Symptom> = OnceLock::new();
    S.get_or_init(|| {
        rule_symptom(
            "docker.no-gpu-driver",
            "Docker has no device driver for the GPU request (--gpus, a Compose device \
             reservation)",
            "gpu-container-devices",
            "The container asks Docker for GPUs through a device request (--gpus, or a Compose \
             deploy.resources.reservations.devices entry); no device driver registered with \
             the Docker daemon takes it. Those drivers are NVIDIA's container toolkit and, in \
             recent Docker releases, AMD's Container Toolkit; a driver named 'rocm' does not \
             exist. The container starts with no GPU device at all.",
            "Give the container the GPU's device nodes instead: docker run --device /dev/kfd \
             --device /dev/dri --group-add video --group-add render (in Compose: devices: \
             [/dev/kfd, /dev/dri] and group_add), and drop --gpus or the device reservation; \
             or install AMD's Container Toolkit and use --runtime=amd or --device \
             amd.com/gpu=all.",
            "rule over the Docker daemon's device requests (src/packs/docker_gpus.rs; moby \
             daemon/devices.go, daemon/errors.go)",
        )
    })
}

/// "Docker has no driver for the GPU request", where the text is AMD's: the driver it names is
/// AMD's intent (`rocm`, `amd`), or the text names AMD's stack or the machine has AMD GPUs, and
/// the text does not show an NVIDIA machine (there the NVIDIA toolkit is what is missing).
pub(super) fn rules(text: &str, f: &Facts) -> Vec<Derived> {
    static LINE: OnceLock<Regex> = OnceLock::new();
    if !text.contains("could not select device driver") {
        return Vec::new();
    }
    let line_re = re(
        &LINE,
        r#"could not select device driver "([^"]*)" with capabilities: (\[\[[^\]]*\]\])"#,
    );
    let Some(c) = line_re.captures(text) else {
        return Vec::new();
    };
    let driver = c[1].to_string();
    let caps = c[2].to_string();
    let amd_driver = matches!(
        driver.to_ascii_lowercase().as_str(),
        "rocm" | "amd" | "amdgpu"
    );
    // A bare "AMD" may be the CPU beside an NVIDIA GPU whose toolkit is missing: the text must
    // show an AMD GPU (stack::amd_gpu), or name AMD's driver.
    if super::stack::nvidia_machine(text)
        || !(amd_driver || !f.isas.is_empty() || super::stack::amd_gpu(text, f))
    {
        return Vec::new();
    }
    let Some(line) = line_of(text, line_re) else {
        return Vec::new();
    };
    let asked = if driver.is_empty() {
        format!("a GPU request with capabilities {caps} and no driver named")
    } else {
        format!("the device driver \"{driver}\" with capabilities {caps}")
    };
    vec![Derived::reasoned(
        symptom(),
        line,
        format!(
            "the Docker daemon has no registered device driver for {asked}: the container was \
             asked for GPUs the device-request way, which needs a vendor's container toolkit \
             ({FROM})"
        ),
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired(text: &str) -> Vec<String> {
        rules(text, &Facts::of(text))
            .into_iter()
            .map(|d| d.captures[0].1.clone())
            .collect()
    }

    #[test]
    fn docker_without_a_driver_for_an_amd_gpu_request() {
        // facefusion/facefusion-docker#31 (RX 7900 XTX; Compose names the driver "rocm").
        let compose = "Error response from daemon: could not select device driver \"rocm\" with capabilities: [[gpu video]]";
        let f = fired(compose);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].contains("the device driver \"rocm\" with capabilities [[gpu video]]"));
        // replicate/cog-stable-diffusion#12: --gpus on a machine the text says is AMD's.
        let cog = "GPU:  AMD ATI 05:00.0 Lucienne\ndocker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].";
        assert!(
            fired(cog)[0].contains("no driver named"),
            "{:?}",
            fired(cog)
        );
    }

    #[test]
    fn not_on_an_nvidia_machine_or_without_amd() {
        // facefusion/facefusion-docker#29: the ROCm Compose file on an NVIDIA machine.
        let nvidia = "| NVIDIA-SMI 550.67                 Driver Version: 550.67         CUDA Version: 12.4     |\nError response from daemon: could not select device driver \"rocm\" with capabilities: [[gpu video]]";
        assert!(fired(nvidia).is_empty());
        // Nothing says AMD: the NVIDIA toolkit may be what is missing.
        let bare = "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].";
        assert!(fired(bare).is_empty());
        // An AMD CPU is not an AMD GPU.
        let ryzen = "CPU: AMD Ryzen 9 7950X\ndocker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].";
        assert!(fired(ryzen).is_empty());
    }
}
