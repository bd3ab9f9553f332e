//! The asm-caps probe's answers as part of the report model: one typed value ([`AsmCaps`]) from
//! which both views are rendered, the `asm_caps` object of `--json` ([`AsmCaps::to_json`]:
//! `{"<gfx>": {"<TensileKey>": value}}`, Tensile's names and types) and the human matrix
//! ([`AsmCaps::human`]: keys down, ISAs across, ✓ / ✗ / numbers).

use serde_json::{Map, Value};
use std::fmt::Write;

/// A value of one capability, typed as Tensile has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    Bool(bool),
    Int(i64),
}

impl Cap {
    pub fn to_json(self) -> Value {
        match self {
            Cap::Bool(b) => Value::Bool(b),
            Cap::Int(i) => Value::from(i),
        }
    }
    /// Compact cell for the matrix: ✓ / ✗ / the number.
    pub(crate) fn cell(self) -> String {
        match self {
            Cap::Bool(true) => "✓".into(),
            Cap::Bool(false) => "✗".into(),
            Cap::Int(i) => i.to_string(),
        }
    }
}

/// One probed ISA: every key in Tensile's order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IsaCaps {
    pub isa: String,
    pub values: Vec<(String, Cap)>,
}

/// What one probe run answered.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct AsmCaps {
    /// The matrix's title (compat, assembler, ISAs, calls, time); empty when the probe was not
    /// run at all (another root's programs), and then the human view says nothing.
    pub title: String,
    /// Whether ISAs were probed (the probe stopped before with no assembler or no ISA: the
    /// human view is the title alone).
    pub probed: bool,
    /// The probed ISAs, in probe order.
    pub isas: Vec<IsaCaps>,
}

impl AsmCaps {
    /// A run that stopped before probing: its title, if any.
    pub(crate) fn not_probed(title: String) -> AsmCaps {
        AsmCaps {
            title,
            probed: false,
            isas: Vec::new(),
        }
    }

    /// `{"<gfx>": {"<TensileKey>": value}}` in probe order and Tensile's key order (empty when
    /// nothing was probed).
    pub(crate) fn to_json(&self) -> Value {
        let mut m = Map::new();
        for r in &self.isas {
            let mut caps = Map::new();
            for (k, v) in &r.values {
                caps.insert(k.clone(), v.to_json());
            }
            m.insert(r.isa.clone(), Value::Object(caps));
        }
        Value::Object(m)
    }

    /// The text the human view prints before the findings: the matrix and a blank line, the
    /// title alone when nothing was probed, nothing when the probe did not run.
    pub(crate) fn human(&self) -> String {
        if self.title.is_empty() {
            return String::new();
        }
        if !self.probed {
            return format!("{}\n", self.title);
        }
        render(&self.isas, &self.title) + "\n"
    }
}

/// Renders the matrix; ISA headers drop the common `gfx` prefix to stay narrow.
fn render(results: &[IsaCaps], title: &str) -> String {
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

    fn isa(name: &str, vmcnt: i64) -> IsaCaps {
        IsaCaps {
            isa: name.into(),
            values: vec![
                ("SupportedISA".into(), Cap::Bool(true)),
                ("HasMFMA".into(), Cap::Bool(false)),
                ("MaxVmcnt".into(), Cap::Int(vmcnt)),
            ],
        }
    }

    fn probed() -> AsmCaps {
        AsmCaps {
            title: "t".into(),
            probed: true,
            isas: vec![isa("gfx803", 15), isa("gfx1030", 63)],
        }
    }

    #[test]
    fn the_human_view_is_one_row_per_key_one_column_per_isa() {
        assert_eq!(
            probed().human(),
            "t\n  gfx          803 1030\n  SupportedISA   ✓    ✓\n  HasMFMA        ✗    ✗\n  \
                MaxVmcnt      15   63\n\n"
        );
    }

    #[test]
    fn the_json_view_is_the_same_value_keyed_by_isa_in_probe_order() {
        let j = probed().to_json();
        assert_eq!(
            serde_json::to_string(&j).unwrap(),
            r#"{"gfx803":{"SupportedISA":true,"HasMFMA":false,"MaxVmcnt":15},"gfx1030":{"SupportedISA":true,"HasMFMA":false,"MaxVmcnt":63}}"#
        );
    }

    #[test]
    fn a_probe_that_stopped_says_its_title_or_nothing() {
        let stopped = AsmCaps::not_probed("Tensile asm caps ..., assembler (none): 0 ISAs".into());
        assert_eq!(
            stopped.human(),
            "Tensile asm caps ..., assembler (none): 0 ISAs\n"
        );
        assert_eq!(stopped.to_json(), Value::Object(Map::new()));
        assert_eq!(AsmCaps::not_probed(String::new()).human(), "");
        // Probed but no ISA answered (not reached by the probe, kept well-defined).
        let empty = AsmCaps {
            probed: true,
            ..AsmCaps::not_probed("t".into())
        };
        assert_eq!(empty.human(), "t\n  (no ISA probed)\n\n");
    }
}
