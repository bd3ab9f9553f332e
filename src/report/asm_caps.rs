//! The human view of the capabilities: keys down, ISAs across, ✓ / ✗ / numbers.

use super::runner::IsaResult;
use std::fmt::Write;

/// Renders the matrix; ISA headers drop the common `gfx` prefix to stay narrow.
pub fn render(results: &[IsaResult], title: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{title}");
    let Some(first) = results.first() else {
        let _ = writeln!(s, "  (no ISA probed)");
        return s;
    };
    let keyw = first
        .values
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(8)
        .max(4);
    let heads: Vec<String> = results
        .iter()
        .map(|r| r.isa.strip_prefix("gfx").unwrap_or(&r.isa).to_string())
        .collect();
    let widths: Vec<usize> = heads.iter().map(|h| h.chars().count().max(2)).collect();
    let _ = write!(s, "  {:<keyw$}", "gfx");
    for (h, w) in heads.iter().zip(&widths) {
        let _ = write!(s, " {h:>w$}");
    }
    s.push('\n');
    for (i, (key, _)) in first.values.iter().enumerate() {
        let _ = write!(s, "  {key:<keyw$}");
        for (r, w) in results.iter().zip(&widths) {
            let cell = r
                .values
                .get(i)
                .map(|(_, v)| v.cell())
                .unwrap_or_else(|| "?".into());
            let _ = write!(s, " {cell:>w$}");
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::catalog::{catalog, Compat};
    use crate::asm::runner::Method;

    #[test]
    fn one_row_per_key_one_column_per_isa() {
        let cat = catalog(Compat::Current);
        let mk = |isa: &str| IsaResult {
            isa: isa.into(),
            values: cat.derive(|s| s.is_empty() || s.starts_with("s_waitcnt vmcnt(15)")),
            calls: 1,
            method: Method::Serial,
            supported_failure: None,
            all_failed_sample: None,
            timed_out: false,
            setup_error: None,
        };
        let out = render(&[mk("gfx803"), mk("gfx1030")], "t");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2 + 44);
        assert!(lines[1].contains(" 803") && lines[1].contains(" 1030"));
        let vm = lines
            .iter()
            .find(|l| l.trim_start().starts_with("MaxVmcnt"))
            .unwrap();
        assert_eq!(
            vm.split_whitespace().collect::<Vec<_>>(),
            ["MaxVmcnt", "15", "15"]
        );
        let sup = lines
            .iter()
            .find(|l| l.trim_start().starts_with("SupportedISA"))
            .unwrap();
        assert_eq!(sup.matches('✓').count(), 2);
    }
}
