//! AMDGPU ISA names: processors, target ids with features, `gfx_target_version` decoding.
//!
//! Facts live in `checks/isa.toml` (one row per LLVM processor, with sources); this module
//! parses and validates names and decodes KFD's numeric encoding.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::OnceLock;

// The pure name rules (syntax, major version, KFD's numeric encoding) live in the parsers crate
// (crates/parsers); they keep their paths here.
use rocm_doctor_parsers::gfx::gfx_major;
pub use rocm_doctor_parsers::gfx::{
    decode_gfx_target_version, encode_gfx_target_version, is_processor_syntax,
};

/// One row of `checks/isa.toml`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Processor {
    pub name: String,
    pub family: String,
    /// KFD `gfx_target_version` for this processor, when KFD supports it.
    #[serde(default)]
    pub kfd: Option<u32>,
    #[serde(default)]
    pub xnack: bool,
    #[serde(default)]
    pub sramecc: bool,
    /// The generic processor ROCr maps this one to.
    #[serde(default)]
    pub generic: Option<String>,
    #[serde(default)]
    pub is_generic: bool,
    /// First LLVM major release that knows the name (informative; the doctor asks the
    /// installed clang).
    pub llvm: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    processor: Vec<Processor>,
}

/// All known processors, from `checks/isa.toml` (compiled in).
pub(crate) fn processors() -> &'static [Processor] {
    static TABLE: OnceLock<Vec<Processor>> = OnceLock::new();
    TABLE.get_or_init(|| {
        crate::data::embedded::<Table>("checks/isa.toml", include_str!("../checks/isa.toml"))
            .processor
    })
}

pub fn processor(name: &str) -> Option<&'static Processor> {
    processors().iter().find(|p| p.name == name)
}

/// A target id: `gfx90a`, `gfx90a:xnack+`, `gfx906:sramecc-:xnack+`, `gfx10-3-generic`.
/// Features absent from the id mean "any".
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TargetId {
    pub processor: String,
    pub sramecc: Option<bool>,
    pub xnack: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetIdError {
    #[error("empty target id")]
    Empty,
    #[error(
        "'{0}' is not a gfx processor name: expected 'gfx' followed by 3 or 4 hex digits \
        (gfx90a, gfx1030) or a generic name (gfx10-3-generic)"
    )]
    BadProcessor(String),
    #[error("'{0}' is not a target feature: expected sramecc+, sramecc-, xnack+ or xnack-")]
    BadFeature(String),
    #[error("feature '{0}' is given twice")]
    DuplicateFeature(String),
    #[error("{processor} does not support the {feature} feature")]
    Unsupported {
        processor: String,
        feature: &'static str,
    },
}

impl TargetId {
    pub(crate) fn plain(processor: impl Into<String>) -> Self {
        TargetId {
            processor: processor.into(),
            sramecc: None,
            xnack: None,
        }
    }

    /// Parses and validates a target id. Accepts an optional `amdgcn-amd-amdhsa--` prefix.
    pub fn parse(s: &str) -> Result<Self, TargetIdError> {
        let s = s.trim();
        let s = s.strip_prefix("amdgcn-amd-amdhsa--").unwrap_or(s);
        if s.is_empty() {
            return Err(TargetIdError::Empty);
        }
        let mut parts = s.split(':');
        let proc_name = parts.next().unwrap_or_default();
        if !is_processor_syntax(proc_name) {
            return Err(TargetIdError::BadProcessor(printable(proc_name)));
        }
        let mut id = TargetId::plain(proc_name.to_ascii_lowercase());
        for feat in parts {
            let (name, on) = match feat.as_bytes().last() {
                Some(b'+') => (&feat[..feat.len() - 1], true),
                Some(b'-') => (&feat[..feat.len() - 1], false),
                _ => return Err(TargetIdError::BadFeature(printable(feat))),
            };
            let slot = match name {
                "sramecc" => &mut id.sramecc,
                "xnack" => &mut id.xnack,
                _ => return Err(TargetIdError::BadFeature(printable(feat))),
            };
            if slot.is_some() {
                return Err(TargetIdError::DuplicateFeature(name.to_string()));
            }
            *slot = Some(on);
        }
        if let Some(p) = processor(&id.processor) {
            if id.sramecc.is_some() && !p.sramecc {
                return Err(TargetIdError::Unsupported {
                    processor: id.processor,
                    feature: "sramecc",
                });
            }
            if id.xnack.is_some() && !p.xnack {
                return Err(TargetIdError::Unsupported {
                    processor: id.processor,
                    feature: "xnack",
                });
            }
        }
        Ok(id)
    }

    /// The row of `checks/isa.toml`, if the processor is known to the doctor.
    pub fn info(&self) -> Option<&'static Processor> {
        processor(&self.processor)
    }

    /// Major version from the name (`gfx1030` -> 10, `gfx90a` -> 9, `gfx10-3-generic` -> 10).
    pub fn major(&self) -> Option<u32> {
        gfx_major(&self.processor)
    }
}

impl fmt::Display for TargetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // LLVM's canonical order is alphabetical: sramecc before xnack.
        f.write_str(&self.processor)?;
        if let Some(on) = self.sramecc {
            write!(f, ":sramecc{}", if on { '+' } else { '-' })?;
        }
        if let Some(on) = self.xnack {
            write!(f, ":xnack{}", if on { '+' } else { '-' })?;
        }
        Ok(())
    }
}

impl Serialize for TargetId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

fn printable(s: &str) -> String {
    let t: String = s
        .chars()
        .take(64)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if s.chars().count() > 64 {
        format!("{t}...")
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_names_are_unique() {
        let t = processors();
        assert!(t.len() > 50);
        let mut names: Vec<_> = t.iter().map(|p| &p.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), t.len());
    }

    #[test]
    fn kfd_values_round_trip_through_the_decoder() {
        for p in processors() {
            if let Some(v) = p.kfd {
                assert_eq!(
                    decode_gfx_target_version(v as u64).as_deref(),
                    Some(p.name.as_str()),
                    "{v}"
                );
                assert_eq!(encode_gfx_target_version(&p.name), Some(v));
            }
        }
    }

    #[test]
    fn decodes_hex_minor_and_stepping() {
        assert_eq!(decode_gfx_target_version(90010).unwrap(), "gfx90a");
        assert_eq!(decode_gfx_target_version(90012).unwrap(), "gfx90c");
        assert_eq!(decode_gfx_target_version(90402).unwrap(), "gfx942");
        assert_eq!(decode_gfx_target_version(100300).unwrap(), "gfx1030");
        assert_eq!(decode_gfx_target_version(110501).unwrap(), "gfx1151");
        assert_eq!(decode_gfx_target_version(0), None);
        assert_eq!(decode_gfx_target_version(90016), None);
    }

    #[test]
    fn parses_target_ids() {
        let t = TargetId::parse("gfx90a:sramecc+:xnack-").unwrap();
        assert_eq!((t.sramecc, t.xnack), (Some(true), Some(false)));
        assert_eq!(t.to_string(), "gfx90a:sramecc+:xnack-");
        assert_eq!(
            TargetId::parse("amdgcn-amd-amdhsa--gfx1030")
                .unwrap()
                .to_string(),
            "gfx1030"
        );
        assert_eq!(
            TargetId::parse("gfx10-3-generic").unwrap().major(),
            Some(10)
        );
        assert_eq!(TargetId::parse("gfx1030").unwrap().major(), Some(10));
        assert_eq!(TargetId::parse("gfx90a").unwrap().major(), Some(9));
    }

    #[test]
    fn rejects_hostile_and_malformed_ids() {
        for bad in [
            "",
            "gfx",
            "gfx1030;rm -rf /",
            "gfx12345",
            "sm_80",
            "gfx90a:xnack",
            "gfx90a:foo+",
            "gfx90a:xnack+:xnack-",
            "gfx1030:xnack+",
            "gfx-generic",
            "gfxzzz",
        ] {
            assert!(TargetId::parse(bad).is_err(), "{bad:?} accepted");
        }
    }
}
