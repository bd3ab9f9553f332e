//! The GPUs a text shows, by vendor (NVIDIA, Intel, AMD). Pure.
//!
//! A vendor is shown only by a tool's printed output (`checks/gpu-vendors.toml`: nvidia-smi's
//! table and list, lspci's display devices, a device name after clinfo's or vulkaninfo's label,
//! a name alone on its line as Python prints what `torch.cuda.get_device_name` returns, PCI vendor
//! ids), each form with the program that prints it. Words about a GPU ("I used to have an NVIDIA
//! card"), `CUDA_VISIBLE_DEVICES`, hipify's "CUDA" wording and PyTorch's `torch.cuda` names
//! (kept by its ROCm builds) show none. An AMD GPU is also shown by what [`super::facts`] already
//! reads: an ISA, a product name or a PCI id of `checks/gpu-names.toml`.

use regex::bytes::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use serde::Deserialize;
use std::sync::OnceLock;

/// A GPU vendor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Vendor {
    Nvidia,
    Intel,
    Amd,
}

impl Vendor {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Vendor::Nvidia => "NVIDIA",
            Vendor::Intel => "Intel",
            Vendor::Amd => "AMD",
        }
    }
}

/// A vendor's GPU shown by a text: what the tool printed (the device's name where the form has
/// one), which tool prints that form, and the line it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shown {
    pub vendor: Vendor,
    pub said: String,
    pub tool: &'static str,
    pub line: String,
}

/// `checks/gpu-vendors.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Table {
    pub form: Vec<Form>,
}

/// One printed form of a GPU of one vendor.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Form {
    pub vendor: Vendor,
    pub tool: String,
    #[allow(dead_code)]
    pub what: String,
    pub pattern: String,
    #[allow(dead_code)]
    pub source: String,
}

pub(crate) fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        crate::data::embedded(
            "checks/gpu-vendors.toml",
            include_str!("../../checks/gpu-vendors.toml"),
        )
    })
}

fn builder(p: &str) -> RegexBuilder {
    let mut b = RegexBuilder::new(p);
    b.unicode(false).multi_line(true);
    b
}

/// The forms compiled once: ASCII-only over bytes, so a paste's first non-ASCII byte does not
/// send the whole text to the slowest engine (see `facts::ascii`), and one set that tells which
/// forms occur at all before any of them is searched for its match.
fn compiled() -> &'static (RegexSet, Vec<Regex>) {
    static C: OnceLock<(RegexSet, Vec<Regex>)> = OnceLock::new();
    C.get_or_init(|| {
        let pats: Vec<&str> = table().form.iter().map(|f| f.pattern.as_str()).collect();
        let one: Vec<Regex> = pats
            .iter()
            .map(|p| {
                builder(p)
                    .build()
                    .unwrap_or_else(|e| panic!("checks/gpu-vendors.toml: {p}: {e}"))
            })
            .collect();
        let set = RegexSetBuilder::new(&pats)
            .unicode(false)
            .multi_line(true)
            .build()
            .unwrap_or_else(|e| panic!("checks/gpu-vendors.toml: {e}"));
        (set, one)
    })
}

/// The line of `text` around byte `at` (a match's start), trimmed, at most 300 characters. The
/// one copy: the rules over texts use it through `facts::line_at`.
pub(super) fn line_at(text: &str, at: usize) -> String {
    let b = text.as_bytes();
    let at = at.min(b.len());
    let start = b[..at]
        .iter()
        .rposition(|c| *c == b'\n')
        .map_or(0, |i| i + 1);
    let end = b[at..]
        .iter()
        .position(|c| *c == b'\n')
        .map_or(b.len(), |i| at + i);
    String::from_utf8_lossy(&b[start..end])
        .trim()
        .chars()
        .take(300)
        .collect()
}

/// The GPUs `text` shows, at most one entry per vendor, in order of where each is shown: per
/// vendor, the first form that names the device (nvidia-smi's row, lspci's device), else the
/// first form at all (nvidia-smi's header, a vendor id).
pub(crate) fn shown(text: &str) -> Vec<Shown> {
    let (set, one) = compiled();
    let forms = &table().form;
    // (unnamed, position): the smaller wins.
    let mut found: Vec<((bool, usize), Shown)> = Vec::new();
    for i in set.matches(text.as_bytes()).iter() {
        let f = &forms[i];
        let Some(c) = one[i].captures(text.as_bytes()) else {
            continue;
        };
        let Some(whole) = c.get(0) else { continue };
        let named = c.name("name");
        let said = named.unwrap_or(whole);
        let key = (named.is_none(), said.start());
        let s = Shown {
            vendor: f.vendor,
            said: String::from_utf8_lossy(said.as_bytes()).trim().to_string(),
            tool: f.tool.as_str(),
            line: line_at(text, said.start()),
        };
        match found.iter_mut().find(|(_, x)| x.vendor == f.vendor) {
            Some((k, x)) if key < *k => {
                *k = key;
                *x = s;
            }
            Some(_) => {}
            None => found.push((key, s)),
        }
    }
    found.sort_by_key(|((_, at), _)| *at);
    found.into_iter().map(|(_, s)| s).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vendors(text: &str) -> Vec<Vendor> {
        shown(text).into_iter().map(|s| s.vendor).collect()
    }

    fn said(text: &str, v: Vendor) -> String {
        shown(text)
            .into_iter()
            .find(|s| s.vendor == v)
            .map(|s| s.said)
            .unwrap_or_default()
    }

    /// nvidia-smi's table as https://github.com/canonical/microk8s/issues/448 pastes it (lines).
    const SMI_TABLE: &str = "Thu Apr  4 02:27:54 2024       \n\
        +-----------------------------------------------------------------------------+\n\
        | NVIDIA-SMI 510.73.08    Driver Version: 510.73.08    CUDA Version: 11.6     |\n\
        |-------------------------------+----------------------+----------------------+\n\
        | GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n\
        |===============================+======================+======================|\n\
        |   0  Tesla T4            On   | 00000001:00:00.0 Off |                  Off |\n\
        | N/A   34C    P8    14W /  70W |      0MiB / 16384MiB |      0%      Default |\n";

    #[test]
    fn nvidia_smi_shows_an_nvidia_gpu() {
        let s = shown(SMI_TABLE);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].vendor, Vendor::Nvidia);
        assert_eq!(s[0].said, "Tesla T4");
        assert!(s[0].line.starts_with("|   0  Tesla T4"), "{s:?}");
        // The header alone shows the vendor.
        let header = SMI_TABLE.lines().take(3).collect::<Vec<_>>().join("\n");
        assert!(shown(&header)[0].line.contains("NVIDIA-SMI 510.73.08"));
        // The row alone names the GPU.
        let row =
            "|   0  Tesla T4            On   | 00000001:00:00.0 Off |                  Off |\n";
        assert_eq!(said(row, Vendor::Nvidia), "Tesla T4");
        // A newer driver's row (https://github.com/clayfreeman/gpu-passthrough/issues/4 shape).
        let row = "|   0  NVIDIA GeForce RTX 3090        On  | 00000000:01:00.0  On |      N/A |\n";
        assert_eq!(said(row, Vendor::Nvidia), "NVIDIA GeForce RTX 3090");
        // nvidia-smi -L, and collect_env's list (UUIDs stripped).
        let l = "GPU 0: Tesla T4 (UUID: GPU-84b0bf9a-67bf-493c-9214-4fad8b125a6d)\n";
        assert_eq!(said(l, Vendor::Nvidia), "Tesla T4");
        let env = "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3090\n\
                   Nvidia driver version: 535.104.05\n";
        assert_eq!(said(env, Vendor::Nvidia), "NVIDIA GeForce RTX 3090");
        // nvidia-smi -q (https://github.com/NVIDIA/k8s-device-plugin/issues/390, lines).
        let q =
            "==============NVSMI LOG==============\n\nDriver Version                            : \
                 525.89.02\nCUDA Version                              : 12.0\n";
        assert_eq!(vendors(q), [Vendor::Nvidia]);
    }

    #[test]
    fn lspci_and_ids_show_each_vendor() {
        // lspci (pciutils), the shapes of https://github.com/ROCm/legacy-rocm-build/issues/493.
        let t = "00:02.0 VGA compatible controller: Intel Corporation UHD Graphics 620 (rev 07)\n\
                 00:14.0 USB controller: Intel Corporation Sunrise Point-LP USB 3.0 xHCI \
                 Controller (rev 21)\n\
                 01:00.0 3D controller: NVIDIA Corporation TU104GL [Tesla T4] (rev a1)\n";
        assert_eq!(vendors(t), [Vendor::Intel, Vendor::Nvidia]);
        assert_eq!(
            said(t, Vendor::Nvidia),
            "NVIDIA Corporation TU104GL [Tesla T4] (rev a1)"
        );
        // Intel's other devices are not GPUs.
        let usb = "00:14.0 USB controller: Intel Corporation Sunrise Point-LP USB 3.0 xHCI\n";
        assert!(shown(usb).is_empty());
        let nn = "01:00.0 0300: 10de:2204 (rev a1)\n00:02.0 0300: 8086:3e92\n";
        assert_eq!(vendors(nn), [Vendor::Nvidia, Vendor::Intel]);
        let amd = "03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. \
                   [AMD/ATI] Navi 31 [Radeon RX 7900 XT/7900 XTX] [1002:744c] (rev c8)\n";
        assert_eq!(vendors(amd), [Vendor::Amd]);
        // AMD's CPUs and chipsets are vendor 1022, `[AMD]`: no GPU.
        let chipset =
            "00:00.0 Host bridge: Advanced Micro Devices, Inc. [AMD] Starship/Matisse Root Complex\n";
        assert!(shown(chipset).is_empty());
        let vk = "GPU0:\n\tvendorID           = 0x10de\n\tdeviceName         = NVIDIA GeForce RTX \
                  3090\n";
        assert_eq!(vendors(vk), [Vendor::Nvidia]);
        // A form naming the device is quoted before one that only shows the vendor.
        assert_eq!(said(vk, Vendor::Nvidia), "NVIDIA GeForce RTX 3090");
        let id_only = "GPU0:\n\tvendorID           = 0x10de\n";
        assert_eq!(said(id_only, Vendor::Nvidia), "vendorID           = 0x10de");
    }

    #[test]
    fn device_names_where_tools_print_them() {
        // clinfo's label, torch.cuda.get_device_name's returned string, llama.cpp's CUDA device.
        let clinfo = "  Device Name                                     NVIDIA GeForce RTX 3090\n";
        assert_eq!(said(clinfo, Vendor::Nvidia), "NVIDIA GeForce RTX 3090");
        let repl = ">>> torch.cuda.get_device_name(0)\n'NVIDIA A100-SXM4-40GB'\n";
        assert_eq!(said(repl, Vendor::Nvidia), "NVIDIA A100-SXM4-40GB");
        let ggml = "  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes\n";
        assert_eq!(said(ggml, Vendor::Nvidia), "NVIDIA GeForce RTX 4090");
        // On a ROCm build the same call returns the AMD GPU's name.
        let rocm = ">>> torch.cuda.get_device_name(0)\n'AMD Radeon RX 7900 XTX'\n";
        assert_eq!(vendors(rocm), [Vendor::Amd]);
        let intel = "deviceName        = Intel(R) UHD Graphics 630 (CFL GT2)\n";
        assert_eq!(vendors(intel), [Vendor::Intel]);
        assert_eq!(said(intel, Vendor::Intel), "Intel(R) UHD Graphics 630");
        // ollama's issue form.
        let form = "### OS\n\nLinux\n\n### GPU\n\nNvidia\n\n### CPU\n\nIntel\n";
        assert_eq!(vendors(form), [Vendor::Nvidia]);
    }

    /// Lines close to the forms that show no GPU.
    #[test]
    fn words_and_api_names_show_no_gpu() {
        for t in [
            "I used to have an NVIDIA card, now I have this one\n",
            "I used to have an NVIDIA GeForce RTX 3090 before switching\n",
            "export CUDA_VISIBLE_DEVICES=0\n",
            // hipify-perl's statistics line.
            "  info: converted 14 CUDA->HIP refs ( error:0 init:0 version:0 device:3 )\n",
            "torch.cuda.is_available() returns False; torch.cuda.device_count() == 0\n",
            "RuntimeError: No CUDA GPUs are available\n",
            "nvidia-smi: command not found\n",
            // rocminfo's CPU agent on an Intel CPU.
            "  Name:                    Intel(R) Core(TM) i7-3770K CPU @ 3.50GHz\n",
            "CUDA Version: 12.1\n",
        ] {
            assert!(shown(t).is_empty(), "{t}: {:?}", shown(t));
        }
    }

    #[test]
    fn every_form_compiles_and_cites_its_source() {
        let (_, one) = compiled();
        assert_eq!(one.len(), table().form.len());
        for f in &table().form {
            assert!(f.source.len() > 20 && !f.tool.is_empty(), "{}", f.pattern);
        }
        for v in [Vendor::Nvidia, Vendor::Intel, Vendor::Amd] {
            assert!(table().form.iter().any(|f| f.vendor == v), "{}", v.name());
        }
    }

    #[test]
    fn bad_input_does_not_panic() {
        for t in [
            "",
            "\n",
            "\u{0}\u{ffff}",
            "| NVIDIA-SMI",
            "GPU 0: (UUID: GPU-",
            "ä\n### GPU\n",
        ] {
            let _ = shown(t);
        }
        let long =
            "x".repeat(100_000) + "\n00:02.0 VGA compatible controller: Intel Corporation HD";
        assert_eq!(vendors(&long), [Vendor::Intel]);
    }
}
