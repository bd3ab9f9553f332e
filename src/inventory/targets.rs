//! Target ISAs: from `--isa`, the build-system variables (`AMDGPU_TARGETS`, `GPU_TARGETS`,
//! `PYTORCH_ROCM_ARCH`), and the visible GPUs. The first source that names any ISA wins, as a
//! build would use it; later sources are listed for the report.

use super::Inventory;
use crate::isa::TargetId;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct TargetIsa {
    pub isa: TargetId,
    /// `--isa`, `AMDGPU_TARGETS`, `GPU_TARGETS`, `PYTORCH_ROCM_ARCH`, `agent N`.
    pub source: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Rejected {
    pub source: String,
    pub value: String,
    pub reason: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Targets {
    pub isas: Vec<TargetIsa>,
    /// Values that could not be parsed (reported by the targets check).
    pub rejected: Vec<Rejected>,
    /// ISAs named by sources that did not win (e.g. the GPUs when `--isa` was given).
    pub also: Vec<TargetIsa>,
}

pub const ENV_SOURCES: &[&str] = &["AMDGPU_TARGETS", "GPU_TARGETS", "PYTORCH_ROCM_ARCH"];

/// Splits a CMake list or a space/comma list: `gfx90a;gfx1030`, `gfx90a gfx1030`.
pub fn split_list(v: &str) -> impl Iterator<Item = &str> {
    v.split([';', ',', ' ', '\t', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The source label of a processor named in the text given to `why`.
pub const TEXT_SOURCE: &str = "the text given to why";

pub fn collect(inv: &Inventory) -> Targets {
    let mut groups: Vec<Vec<TargetIsa>> = Vec::new();
    let mut t = Targets::default();
    let mut first: Vec<TargetIsa> = inv
        .cfg
        .isas
        .iter()
        .map(|i| TargetIsa {
            isa: i.clone(),
            source: "--isa".into(),
        })
        .collect();
    for raw in &inv.cfg.isas_from_text {
        match TargetId::parse(raw) {
            Ok(id) if !inv.cfg.isas.contains(&id) => first.push(TargetIsa {
                isa: id,
                source: TEXT_SOURCE.into(),
            }),
            Ok(_) => {}
            Err(e) => t.rejected.push(Rejected {
                source: TEXT_SOURCE.into(),
                value: raw.clone(),
                reason: e.to_string(),
            }),
        }
    }
    groups.push(first);
    for var in ENV_SOURCES {
        let mut g = Vec::new();
        if let Some(v) = inv.host.env.get_str(var) {
            for item in split_list(v.trim_matches(['"', '\''])) {
                match TargetId::parse(item) {
                    Ok(id) => g.push(TargetIsa {
                        isa: id,
                        source: (*var).into(),
                    }),
                    Err(e) => t.rejected.push(Rejected {
                        source: (*var).into(),
                        value: item.to_string(),
                        reason: e.to_string(),
                    }),
                }
            }
        } else if inv.host.env.is_set(var) {
            t.rejected.push(Rejected {
                source: (*var).into(),
                value: "(not UTF-8)".into(),
                reason: "the value is not valid UTF-8".into(),
            });
        }
        groups.push(g);
    }
    let agents: Vec<TargetIsa> = inv
        .gpu()
        .agents
        .iter()
        .filter(|a| a.visible)
        .filter_map(|a| {
            a.target.clone().map(|isa| TargetIsa {
                isa,
                source: format!("agent {}", a.node),
            })
        })
        .collect();
    groups.push(agents);
    let mut won = false;
    for g in groups {
        for ti in g {
            let list = if won { &mut t.also } else { &mut t.isas };
            if !list.iter().any(|x| x.isa == ti.isa) {
                list.push(ti);
            }
        }
        won = !t.isas.is_empty();
    }
    t
}
