//! Version numbers and ranges as the known issues and the check packs write them
//! (`>=6.1, <7.0`, `*`): parsed once ([`VersionRange::parse`]), compared component by
//! component, each constraint over as many components as it names (`<6.2` holds for 6.1.9).

/// The numeric components of a version (`6.2.41133-dd7f95766` -> [6, 2, 41133]).
pub(crate) fn components(s: &str) -> Option<Vec<u64>> {
    let nums: Vec<u64> = s
        .trim()
        .split(['.', '-', '+'])
        .map_while(|p| p.parse().ok())
        .collect();
    (!nums.is_empty()).then_some(nums)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Ge,
    Le,
    Gt,
    Lt,
    Eq,
}

/// A conjunction of constraints; empty (or `*`) holds for every version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionRange {
    text: String,
    constraints: Vec<(Op, Vec<u64>)>,
}

impl VersionRange {
    pub(crate) fn parse(range: &str) -> Result<Self, String> {
        let mut constraints = Vec::new();
        for c in range.split(',').map(str::trim).filter(|c| !c.is_empty()) {
            if c == "*" {
                continue;
            }
            let (op, rest) = [
                (">=", Op::Ge),
                ("<=", Op::Le),
                (">", Op::Gt),
                ("<", Op::Lt),
                ("=", Op::Eq),
            ]
            .iter()
            .find_map(|(s, op)| c.strip_prefix(s).map(|r| (*op, r)))
            .ok_or_else(|| format!("version range '{range}' is not like '>=6.0, <6.2'"))?;
            let want = components(rest)
                .ok_or_else(|| format!("version range '{range}' is not like '>=6.0, <6.2'"))?;
            constraints.push((op, want));
        }
        Ok(VersionRange {
            text: range.to_string(),
            constraints,
        })
    }

    /// Whether `version` satisfies every constraint; `None` when it has no numeric component.
    pub(crate) fn contains(&self, version: &str) -> Option<bool> {
        let v = components(version)?;
        for (op, want) in &self.constraints {
            let have: Vec<u64> = (0..want.len())
                .map(|i| v.get(i).copied().unwrap_or(0))
                .collect();
            let ord = have.cmp(want);
            let ok = match op {
                Op::Ge => ord.is_ge(),
                Op::Le => ord.is_le(),
                Op::Gt => ord.is_gt(),
                Op::Lt => ord.is_lt(),
                Op::Eq => ord.is_eq(),
            };
            if !ok {
                return Some(false);
            }
        }
        Some(true)
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }
}

/// Whether `version` is in `range`; `None` when either cannot be read.
pub(crate) fn in_range(version: &str, range: &str) -> Option<bool> {
    VersionRange::parse(range).ok()?.contains(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_compare_as_many_components_as_they_name() {
        assert_eq!(in_range("6.1.9", ">=6.1, <6.2"), Some(true));
        assert_eq!(in_range("6.2.0", ">=6.1, <6.2"), Some(false));
        assert_eq!(in_range("6.2.41133-dd7f95766", "=6.2"), Some(true));
        assert_eq!(in_range("5.7", "*"), Some(true));
        assert_eq!(in_range("x", ">=1"), None);
        assert!(VersionRange::parse("~6").is_err());
        assert!(VersionRange::parse(">=x").is_err());
        let r = VersionRange::parse(">6.0,<=7").unwrap();
        assert_eq!(r.contains("7.0.2"), Some(true));
        assert_eq!(r.contains("6.0"), Some(false));
        assert_eq!(r.as_str(), ">6.0,<=7");
    }
}
