//! Data from `checks/gpu-facts.toml`.
use serde::Deserialize;
use std::sync::OnceLock;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Facts {
    pub apu: Vec<String>,
}

pub(crate) fn facts() -> &'static Facts {
    static F: OnceLock<Facts> = OnceLock::new();
    F.get_or_init(|| {
        crate::data::embedded(
            "checks/gpu-facts.toml",
            include_str!("../../checks/gpu-facts.toml"),
        )
    })
}

/// Whether LLVM lists the processor as an APU.
pub fn is_apu_processor(gfx: &str) -> bool {
    facts().apu.iter().any(|a| a == gfx)
}

#[cfg(test)]
mod tests {
    #[test]
    fn facts_parse_and_name_known_processors() {
        let f = super::facts();
        assert!(f.apu.iter().any(|g| g == "gfx1036"));
        for g in &f.apu {
            assert!(crate::isa::is_processor_syntax(g), "{g}");
        }
    }
}
