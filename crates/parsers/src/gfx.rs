//! AMDGPU processor names as text: their syntax, their major version and KFD's numeric
//! `gfx_target_version` encoding. The table of known processors (`checks/isa.toml`) and target
//! ids checked against it stay in the main crate (`rocm_doctor::isa`).

/// `gfx` + 3 or 4 hex digits, or a generic name `gfxN[-M]-generic`.
pub fn is_processor_syntax(s: &str) -> bool {
    let s = s.to_ascii_lowercase();
    let Some(rest) = s.strip_prefix("gfx") else {
        return false;
    };
    if let Some(g) = rest.strip_suffix("-generic") {
        return !g.is_empty()
            && g.split('-')
                .all(|p| !p.is_empty() && p.len() <= 2 && p.bytes().all(|b| b.is_ascii_digit()));
    }
    (3..=4).contains(&rest.len())
        && rest.bytes().all(|b| b.is_ascii_hexdigit())
        && rest.as_bytes()[0].is_ascii_digit()
}

pub fn gfx_major(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("gfx")?;
    if let Some(g) = rest.strip_suffix("-generic") {
        return g.split('-').next()?.parse().ok();
    }
    // The last two characters are minor and stepping (one hex digit each).
    if rest.len() < 3 {
        return None;
    }
    rest[..rest.len() - 2].parse().ok()
}

/// Decodes KFD's `gfx_target_version` (`major*10000 + minor*100 + stepping`, all decimal) into
/// the LLVM processor name, whose minor and stepping are single hex digits:
/// 90010 -> gfx90a, 90402 -> gfx942, 100300 -> gfx1030. Returns `None` for 0 (a CPU node) or a
/// minor/stepping that does not fit one hex digit.
pub fn decode_gfx_target_version(v: u64) -> Option<String> {
    if v == 0 {
        return None;
    }
    let major = v / 10000;
    let minor = (v / 100) % 100;
    let step = v % 100;
    if major == 0 || minor > 15 || step > 15 {
        return None;
    }
    Some(format!("gfx{major}{minor:x}{step:x}"))
}

/// The inverse of [`decode_gfx_target_version`] for a concrete processor name.
pub fn encode_gfx_target_version(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("gfx")?;
    if rest.len() < 3 || rest.contains('-') {
        return None;
    }
    let (maj, tail) = rest.split_at(rest.len() - 2);
    let major: u32 = maj.parse().ok()?;
    let minor = u32::from_str_radix(&tail[..1], 16).ok()?;
    let step = u32::from_str_radix(&tail[1..], 16).ok()?;
    // A major too large for the kernel's u32 field (fuzz/ found `gfx91091242`, decoded from a
    // KFD `gfx_target_version` of 9109120402) has no encoding: None, not a wrapped number.
    major.checked_mul(10000)?.checked_add(minor * 100 + step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_encodings() {
        assert!(is_processor_syntax("gfx90a") && is_processor_syntax("GFX1030"));
        assert!(is_processor_syntax("gfx10-3-generic"));
        assert!(!is_processor_syntax("gfx") && !is_processor_syntax("gfxa00"));
        assert!(!is_processor_syntax("gfx-generic") && !is_processor_syntax("sm_80"));
        assert_eq!(gfx_major("gfx1151"), Some(11));
        assert_eq!(gfx_major("gfx10-3-generic"), Some(10));
        assert_eq!(gfx_major("gfx9"), None);
        for v in [90010, 90402, 100300, 120001] {
            let name = decode_gfx_target_version(v).unwrap();
            assert_eq!(encode_gfx_target_version(&name), Some(v as u32), "{name}");
        }
        assert_eq!(encode_gfx_target_version("gfx91091242"), None);
        assert_eq!(encode_gfx_target_version("gfx10-3-generic"), None);
    }
}
