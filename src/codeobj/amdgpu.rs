//! AMDGPU code objects: the ELF header's `e_flags` and ABI version, and the
//! `NT_AMDGPU_METADATA` note.
//!
//! Sources: llvm-project `llvm/include/llvm/BinaryFormat/ELF.h` (`EF_AMDGPU_*`,
//! `ELFABIVERSION_AMDGPU_HSA_V2..V6`, `NT_AMDGPU_METADATA = 32`) and `llvm/docs/AMDGPUUsage.rst`
//! ("ELF Header", "Code Object Metadata"); CLR `hip_code_object.cpp` for the v3 feature
//! reading (a clear bit means "off" only when the processor supports the feature).

use super::elf::{self, EM_AMDGPU, PT_NOTE, SHT_NOTE};
use super::{msgpack, Error, Result};
use crate::isa::TargetId;
use serde::Serialize;

pub(crate) const ELFOSABI_AMDGPU_HSA: u8 = 64;
pub(crate) const NT_AMDGPU_METADATA: u32 = 32;
const EF_AMDGPU_MACH: u32 = 0xff;
const XNACK_V2: u32 = 0x01;
const XNACK_V3: u32 = 0x100;
const SRAMECC_V3: u32 = 0x200;
const XNACK_V4: u32 = 0x300;
const SRAMECC_V4: u32 = 0xc00;

/// A target feature's setting in a code object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FeatureState {
    /// The processor has no such feature.
    Unsupported,
    /// Built to run with the feature on or off.
    Any,
    Off,
    On,
}

impl FeatureState {
    /// As a target-id feature: `None` for any/unsupported.
    pub(crate) fn as_option(self) -> Option<bool> {
        match self {
            FeatureState::On => Some(true),
            FeatureState::Off => Some(false),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Metadata {
    /// `amdhsa.target` (`amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`).
    pub target: Option<String>,
    /// `amdhsa.version` `[major, minor]`.
    pub version: Option<(u64, u64)>,
    pub kernel_count: usize,
    /// Kernel names (`.name`), when asked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kernels: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeObject {
    pub e_flags: u32,
    pub mach: u32,
    /// `gfx90a`, or `unknown(0xNN)`.
    pub processor: String,
    pub xnack: FeatureState,
    pub sramecc: FeatureState,
    /// `EI_ABIVERSION` (0 = v2 ... 4 = v6).
    pub abi_version: u8,
    /// Code object version, when the OS ABI is HSA.
    pub version: Option<u32>,
    /// Generic version (`e_flags >> 24`), v6 only.
    pub generic_version: Option<u32>,
    /// `dyn` (loadable) or `rel` (relocatable); others by number.
    pub elf_type: String,
    pub osabi: u8,
    pub metadata: Option<Metadata>,
    /// Why the metadata could not be read (its absence alone is not an error for v2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_error: Option<String>,
}

impl CodeObject {
    /// The target id the header encodes (`gfx90a:sramecc+:xnack-`).
    pub fn target_id(&self) -> String {
        self.target()
            .map(|t| t.to_string())
            .unwrap_or_else(|| self.processor.clone())
    }

    pub fn target(&self) -> Option<TargetId> {
        if self.processor.starts_with("unknown") {
            return None;
        }
        Some(TargetId {
            processor: self.processor.clone(),
            sramecc: self.sramecc.as_option(),
            xnack: self.xnack.as_option(),
        })
    }

    /// Whether `amdhsa.target` agrees with `e_flags` (None when there is no metadata target).
    pub fn metadata_agrees(&self) -> Option<bool> {
        let t = self.metadata.as_ref()?.target.as_ref()?;
        let meta = TargetId::parse(t).ok()?;
        Some(Some(meta) == self.target())
    }
}

/// Parses an AMDGPU code object. `kernel_names`: also collect the kernel names.
pub fn parse(b: &[u8], kernel_names: bool) -> Result<CodeObject> {
    let h = elf::parse_header(b)?;
    if h.e_machine != EM_AMDGPU {
        return Err(Error::Invalid {
            what: "AMDGPU code object",
            detail: format!("e_machine is {} (AMDGPU is {EM_AMDGPU})", h.e_machine),
        });
    }
    let mach = h.e_flags & EF_AMDGPU_MACH;
    let known = super::mach::processor(mach);
    let processor = known
        .map(str::to_string)
        .unwrap_or_else(|| format!("unknown(0x{mach:02x})"));
    let hsa = h.osabi == ELFOSABI_AMDGPU_HSA;
    let version = hsa.then_some(h.abi_version as u32 + 2);
    let info = known.and_then(crate::isa::processor);
    let (xs, ss) = (
        info.is_some_and(|p| p.xnack),
        info.is_some_and(|p| p.sramecc),
    );
    let (xnack, sramecc) = match (hsa, h.abi_version) {
        (true, 0) => (
            if h.e_flags & XNACK_V2 != 0 {
                FeatureState::On
            } else {
                FeatureState::Any
            },
            FeatureState::Unsupported,
        ),
        (true, 1) => (
            v3(h.e_flags & XNACK_V3 != 0, xs),
            v3(h.e_flags & SRAMECC_V3 != 0, ss),
        ),
        // v4 and later, and non-HSA ABIs (PAL/Mesa use the v4 layout too).
        _ => (
            v4((h.e_flags & XNACK_V4) >> 8),
            v4((h.e_flags & SRAMECC_V4) >> 10),
        ),
    };
    let generic_version = (hsa && h.abi_version >= 4)
        .then_some(h.e_flags >> 24)
        .filter(|v| *v != 0);
    let elf_type = match h.e_type {
        1 => "rel".to_string(),
        3 => "dyn".to_string(),
        t => t.to_string(),
    };
    let (metadata, metadata_error) = match read_metadata(b, &h, kernel_names) {
        Ok(m) => (m, None),
        Err(e) => (None, Some(e.to_string())),
    };
    Ok(CodeObject {
        e_flags: h.e_flags,
        mach,
        processor,
        xnack,
        sramecc,
        abi_version: h.abi_version,
        version,
        generic_version,
        elf_type,
        osabi: h.osabi,
        metadata,
        metadata_error,
    })
}

fn v3(set: bool, supported: bool) -> FeatureState {
    match (supported, set) {
        (false, _) => FeatureState::Unsupported,
        (true, true) => FeatureState::On,
        (true, false) => FeatureState::Off,
    }
}

fn v4(bits: u32) -> FeatureState {
    match bits {
        0 => FeatureState::Unsupported,
        1 => FeatureState::Any,
        2 => FeatureState::Off,
        _ => FeatureState::On,
    }
}

fn read_metadata(b: &[u8], h: &elf::Header, kernel_names: bool) -> Result<Option<Metadata>> {
    let mut areas: Vec<&[u8]> = Vec::new();
    for s in elf::sections(b, h)? {
        if s.sh_type == SHT_NOTE {
            areas.push(elf::section_data(b, &s)?);
        }
    }
    if areas.is_empty() {
        for p in elf::segments(b, h)? {
            if p.p_type == PT_NOTE {
                areas.push(super::slice(b, p.offset, p.filesz, "PT_NOTE segment")?);
            }
        }
    }
    for area in areas {
        for n in elf::notes(area)? {
            if n.name == b"AMDGPU" && n.n_type == NT_AMDGPU_METADATA {
                return metadata_from_msgpack(n.desc, kernel_names).map(Some);
            }
        }
    }
    Ok(None)
}

/// Reads the metadata map (`amdhsa.target`, `amdhsa.version`, `amdhsa.kernels[].name`).
pub fn metadata_from_msgpack(desc: &[u8], kernel_names: bool) -> Result<Metadata> {
    let (v, _) = msgpack::decode(desc)?;
    if !matches!(v, msgpack::Value::Map(_)) {
        return Err(super::invalid(
            "AMDGPU metadata",
            "the note is not a msgpack map",
        ));
    }
    let target = v
        .get("amdhsa.target")
        .and_then(|t| t.as_str())
        .map(str::to_string);
    let version = v
        .get("amdhsa.version")
        .and_then(|a| a.as_array())
        .and_then(|a| Some((a.first()?.as_u64()?, a.get(1)?.as_u64()?)));
    let kernels_v = v
        .get("amdhsa.kernels")
        .and_then(|k| k.as_array())
        .unwrap_or(&[]);
    let kernels = if kernel_names {
        kernels_v
            .iter()
            .map(|k| {
                k.get(".name")
                    .and_then(|n| n.as_str())
                    .unwrap_or("?")
                    .to_string()
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(Metadata {
        target,
        version,
        kernel_count: kernels_v.len(),
        kernels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_measured_e_flags() {
        // Minimal headers: only the fields `parse` reads.
        let mk = |abi: u8, flags: u32| {
            let mut b = vec![0u8; 64];
            b[..4].copy_from_slice(b"\x7fELF");
            b[4] = 2;
            b[5] = 1;
            b[7] = ELFOSABI_AMDGPU_HSA;
            b[8] = abi;
            b[16] = 3;
            b[18..20].copy_from_slice(&EM_AMDGPU.to_le_bytes());
            b[48..52].copy_from_slice(&flags.to_le_bytes());
            b
        };
        let c = parse(&mk(2, 0xe3f), false).unwrap();
        assert_eq!(c.target_id(), "gfx90a:sramecc+:xnack-");
        assert_eq!(c.version, Some(4));
        let c = parse(&mk(2, 0x53f), false).unwrap();
        assert_eq!(c.target_id(), "gfx90a");
        assert_eq!((c.xnack, c.sramecc), (FeatureState::Any, FeatureState::Any));
        assert_eq!(parse(&mk(2, 0x36), false).unwrap().target_id(), "gfx1030");
        // v3: a clear xnack bit on gfx90a means xnack-, on gfx1030 nothing.
        assert_eq!(
            parse(&mk(1, 0x3f | 0x200), false).unwrap().target_id(),
            "gfx90a:sramecc+:xnack-"
        );
        assert_eq!(parse(&mk(1, 0x36), false).unwrap().target_id(), "gfx1030");
        // v6 generic with generic version 1.
        let g = parse(&mk(4, 0x53 | (1 << 24)), false).unwrap();
        assert_eq!(
            (g.processor.as_str(), g.generic_version, g.version),
            ("gfx10-3-generic", Some(1), Some(6))
        );
        assert_eq!(
            parse(&mk(2, 0xee), false).unwrap().processor,
            "unknown(0xee)"
        );
    }
}
