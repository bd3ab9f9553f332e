//! What this machine says about its GPUs, beside what a text says (issue 28, item 3). Pure: the
//! `why` room measures the machine and hands it over as [`Here`]; the rules over facts
//! (facts.rs, gpu_rules.rs) take it and say which one they answered for.

/// What this machine says about its GPUs, as the doctor measured them (the KFD topology of the
/// run's root): the typed input the rules take beside the text. Empty when `why` runs text-only
/// (the corpus) or on a machine without GPUs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Here {
    /// The ISAs of this machine's GPU agents, in node order, each once.
    pub isas: Vec<String>,
    /// The GPUs of this machine's PCI bus by vendor, where the bus could be listed (None: not
    /// asked, or no `/sys/bus/pci/devices` under the run's root).
    pub pci: Option<PciGpus>,
}

/// GPU functions on this machine's PCI bus, by vendor (`gpu::layers::gpu_vendors`).
pub(crate) use crate::gpu::layers::PciGpus;

impl Here {
    /// A machine whose GPUs were not asked (text only).
    pub(crate) fn text_only() -> Here {
        Here::default()
    }

    /// This machine's GPU ISAs (known processors only, each once).
    pub(crate) fn with_isas<I: IntoIterator<Item = String>>(isas: I) -> Here {
        let mut out: Vec<String> = Vec::new();
        for i in isas {
            if crate::isa::processor(&i).is_some() && !out.contains(&i) {
                out.push(i);
            }
        }
        Here {
            isas: out,
            pci: None,
        }
    }

    /// The same, with the GPUs of the PCI bus.
    pub(crate) fn with_pci(self, pci: Option<PciGpus>) -> Here {
        Here { pci, ..self }
    }

    /// Whether this machine shows an AMD GPU: a KFD agent, or an AMD GPU function on the bus
    /// (one whose driver is not loaded too).
    pub(crate) fn has_amd_gpu(&self) -> bool {
        !self.isas.is_empty() || self.pci.is_some_and(|p| p.amd > 0)
    }

    /// Whether this machine shows an NVIDIA GPU on its PCI bus.
    pub(crate) fn has_nvidia_gpu(&self) -> bool {
        self.pci.is_some_and(|p| p.nvidia > 0)
    }
}

/// The GPU a rule answers for, and where that came from.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Gpu {
    pub isa: String,
    /// For the reasoning: "gfx1031 (named in the text; ...)".
    pub named: String,
}

/// The ISA to answer for (`named`: the ISAs a text names, `Facts::isas`): the text's first ISA (the text wins; when this machine has others, the
/// answer says it answers for the text), else this machine's first, measured.
pub(crate) fn gpu_of(named: &[(String, Option<String>)], here: &Here) -> Option<Gpu> {
    if let Some((isa, name)) = named.first() {
        let what = match name {
            Some(n) => format!("{isa} ({n}, named in the text"),
            None => format!("{isa} (named in the text"),
        };
        let tail = if here.isas.is_empty() {
            "; this machine was not asked)".to_string()
        } else if here.isas.iter().any(|h| h == isa) {
            format!("; this machine has it too: {})", here.isas.join(", "))
        } else {
            format!(
                "; this machine has {}: answering for the text)",
                here.isas.join(", ")
            )
        };
        return Some(Gpu {
            isa: isa.clone(),
            named: what + &tail,
        });
    }
    let isa = here.isas.first()?;
    let named = if here.isas.len() > 1 {
        format!(
            "{isa} (measured on this machine, the first of its GPUs {}; the text names no ISA)",
            here.isas.join(", ")
        )
    } else {
        format!("{isa} (measured on this machine; the text names no ISA)")
    };
    Some(Gpu {
        isa: isa.clone(),
        named,
    })
}
