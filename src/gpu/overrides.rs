//! `HSA_OVERRIDE_GFX_VERSION[_<node>]` and `HSA_XNACK` parsing.
//!
//! libhsakmt (`libhsakmt/src/topology.c`, ROCR-Runtime) reads the per-node variable
//! `HSA_OVERRIDE_GFX_VERSION_<user node id>` first, then the global one, and accepts a value only
//! when `sscanf(value, "%u.%u.%u%c")` converts exactly three numbers and nothing follows, with
//! major <= 63, minor <= 255, stepping <= 255; otherwise it logs
//! `HSA_OVERRIDE_GFX_VERSION %s is invalid` and topology initialisation fails. All three parts
//! are decimal, so gfx90a is `9.0.10`, never `9.0.a`. ROCr then loads code for the overridden
//! ISA, which must be one it knows (`isa.cpp`), i.e. minor and stepping must fit one hex digit.

use crate::isa::{decode_gfx_target_version, encode_gfx_target_version};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GfxVersion {
    pub major: u32,
    pub minor: u32,
    pub stepping: u32,
}

impl GfxVersion {
    /// The KFD-style number (`major*10000 + minor*100 + stepping`).
    pub(crate) fn as_kfd(&self) -> u64 {
        self.major as u64 * 10000 + self.minor as u64 * 100 + self.stepping as u64
    }
    /// The LLVM processor name, when minor and stepping fit one hex digit.
    pub(crate) fn gfx(&self) -> Option<String> {
        decode_gfx_target_version(self.as_kfd())
    }
}

impl std::fmt::Display for GfxVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.stepping)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OverrideError {
    #[error("the value is empty")]
    Empty,
    #[error(
        "the value carries literal quote characters ({raw}); the shell or a unit file passed \
        them through: use {unquoted} without quotes"
    )]
    StrayQuotes { raw: String, unquoted: String },
    #[error(
        "'{0}' is not three decimal numbers separated by dots (major.minor.stepping, e.g. 10.3.0)"
    )]
    Shape(String),
    #[error("'{value}' uses a hex digit; every part is decimal: write {suggestion}")]
    HexPart { value: String, suggestion: String },
    #[error("'{0}' is out of range (major <= 63, minor <= 255, stepping <= 255)")]
    Range(String),
}

fn printable(s: &str) -> String {
    s.chars()
        .take(40)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// Parses an override value exactly as libhsakmt accepts it.
pub fn parse_override(raw: &str) -> Result<GfxVersion, OverrideError> {
    if raw.is_empty() {
        return Err(OverrideError::Empty);
    }
    let trimmed = raw.trim();
    let unquoted = trimmed.trim_matches(|c| c == '"' || c == '\'');
    if unquoted.len() != trimmed.len() || raw.contains('"') || raw.contains('\'') {
        return Err(OverrideError::StrayQuotes {
            raw: printable(raw),
            unquoted: printable(unquoted.trim()),
        });
    }
    // sscanf's %u skips leading white space before each number, but nothing may follow.
    let parts: Vec<&str> = raw.split('.').collect();
    if parts.len() != 3 || raw.ends_with(|c: char| c.is_whitespace()) {
        return Err(OverrideError::Shape(printable(raw)));
    }
    let mut nums = [0u32; 3];
    for (i, p) in parts.iter().enumerate() {
        let p = p.trim_start();
        if p.is_empty() {
            return Err(OverrideError::Shape(printable(raw)));
        }
        if !p.bytes().all(|b| b.is_ascii_digit()) {
            if i > 0 && p.len() == 1 && p.bytes().all(|b| b.is_ascii_hexdigit()) {
                let mut fixed = parts
                    .iter()
                    .map(|s| s.trim().to_string())
                    .collect::<Vec<_>>();
                fixed[i] = u32::from_str_radix(p, 16)
                    .map(|v| v.to_string())
                    .unwrap_or_default();
                return Err(OverrideError::HexPart {
                    value: printable(raw),
                    suggestion: fixed.join("."),
                });
            }
            return Err(OverrideError::Shape(printable(raw)));
        }
        nums[i] = p
            .parse()
            .map_err(|_| OverrideError::Range(printable(raw)))?;
    }
    let v = GfxVersion {
        major: nums[0],
        minor: nums[1],
        stepping: nums[2],
    };
    if v.major > 63 || v.minor > 255 || v.stepping > 255 {
        return Err(OverrideError::Range(printable(raw)));
    }
    Ok(v)
}

/// The override value that names `gfx` (`gfx90a` -> `9.0.10`, `gfx1030` -> `10.3.0`).
pub(crate) fn override_value_for(gfx: &str) -> Option<String> {
    let v = encode_gfx_target_version(gfx)?;
    Some(format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100))
}

/// `HSA_XNACK` as ROCr reads it (`flag.h`): "1" on, "0" off, anything else leaves the mode alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XnackRequest {
    Unset,
    On,
    Off,
    /// Set to something ROCr ignores.
    Ignored,
}

pub fn parse_hsa_xnack(v: Option<&str>) -> XnackRequest {
    match v {
        None => XnackRequest::Unset,
        Some("1") => XnackRequest::On,
        Some("0") => XnackRequest::Off,
        Some(_) => XnackRequest::Ignored,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_decimal_triples() {
        let v = parse_override("10.3.0").unwrap();
        assert_eq!(v.gfx().as_deref(), Some("gfx1030"));
        assert_eq!(
            parse_override("9.0.10").unwrap().gfx().as_deref(),
            Some("gfx90a")
        );
        assert_eq!(parse_override("11.0.0").unwrap().to_string(), "11.0.0");
        // %u skips leading blanks before each number.
        assert_eq!(parse_override(" 10. 3.0").unwrap().as_kfd(), 100300);
        // Valid for libhsakmt but no LLVM processor: gfx() is None.
        assert_eq!(parse_override("9.0.99").unwrap().gfx(), None);
    }

    #[test]
    fn rejects_what_libhsakmt_rejects() {
        assert!(matches!(
            parse_override("\"11.0.3\""),
            Err(OverrideError::StrayQuotes { .. })
        ));
        assert!(matches!(
            parse_override("'10.3.0'"),
            Err(OverrideError::StrayQuotes { .. })
        ));
        match parse_override("9.0.a") {
            Err(OverrideError::HexPart { suggestion, .. }) => assert_eq!(suggestion, "9.0.10"),
            other => panic!("{other:?}"),
        }
        for bad in [
            "10.3", "10.3.0.1", "10.3.0 ", "gfx1030", "10..0", "-1.0.0", "1e1.0.0", "10.3.0x",
        ] {
            assert!(parse_override(bad).is_err(), "{bad:?} accepted");
        }
        assert!(matches!(
            parse_override("64.0.0"),
            Err(OverrideError::Range(_))
        ));
        assert!(matches!(
            parse_override("10.256.0"),
            Err(OverrideError::Range(_))
        ));
        assert!(matches!(
            parse_override("99999999999.0.0"),
            Err(OverrideError::Range(_))
        ));
        assert_eq!(parse_override(""), Err(OverrideError::Empty));
    }

    #[test]
    fn suggests_override_values() {
        assert_eq!(override_value_for("gfx90a").as_deref(), Some("9.0.10"));
        assert_eq!(override_value_for("gfx1030").as_deref(), Some("10.3.0"));
        assert_eq!(override_value_for("gfx1100").as_deref(), Some("11.0.0"));
    }

    #[test]
    fn hsa_xnack_values() {
        assert_eq!(parse_hsa_xnack(Some("1")), XnackRequest::On);
        assert_eq!(parse_hsa_xnack(Some("0")), XnackRequest::Off);
        assert_eq!(parse_hsa_xnack(Some("yes")), XnackRequest::Ignored);
        assert_eq!(parse_hsa_xnack(None), XnackRequest::Unset);
    }
}
