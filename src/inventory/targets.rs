//! Target ISAs: from `--isa`, the build-system variables (`AMDGPU_TARGETS`, `GPU_TARGETS`,
//! `PYTORCH_ROCM_ARCH`), and the visible GPUs. The first source that names any ISA wins, as a
//! build would use it; later sources are listed for the report.

use super::Inventory;
use crate::isa::TargetId;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TargetIsa {
    pub isa: TargetId,
    /// `--isa`, `AMDGPU_TARGETS`, `GPU_TARGETS`, `PYTORCH_ROCM_ARCH`, `agent N`.
    pub source: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Rejected {
    pub source: String,
    pub value: String,
    pub reason: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Targets {
    pub isas: Vec<TargetIsa>,
    /// Values that could not be parsed (reported by the targets check).
    pub rejected: Vec<Rejected>,
    /// ISAs named by sources that did not win (e.g. the GPUs when `--isa` was given).
    pub also: Vec<TargetIsa>,
}

pub(crate) const ENV_SOURCES: &[&str] = &["AMDGPU_TARGETS", "GPU_TARGETS", "PYTORCH_ROCM_ARCH"];

/// Splits a CMake list or a space/comma list: `gfx90a;gfx1030`, `gfx90a gfx1030`.
pub fn split_list(v: &str) -> impl Iterator<Item = &str> {
    v.split([';', ',', ' ', '\t', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The source label of a processor named in the text given to `why`.
pub(crate) const TEXT_SOURCE: &str = "the text given to why";

pub(crate) fn collect(inv: &Inventory) -> Targets {
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
    let picked = pick(groups, |ti| ti.isa.clone(), true);
    t.isas = picked.isas;
    t.also = picked.also;
    t
}

/// What [`pick`] chose: the ISAs to judge, and what the sources that did not win named.
#[derive(Debug, PartialEq)]
pub(crate) struct Picked<T> {
    pub isas: Vec<T>,
    pub also: Vec<T>,
}

/// The one rule for which ISAs to judge, used by the toolchain's targets ([`collect`]),
/// `inspect` and `libs.code-objects` (`inspect::targets`) and the asm probe (`asm::run`): the
/// sources in order of precedence, the first that names any ISA wins, as a build would use it;
/// each ISA (as `key` tells two apart) is kept once, at its first mention. With `keep_also`, the
/// ISAs the later sources name are listed apart (once each), for the report; without it the
/// later sources are not even asked (`groups` is lazy: a fallback such as the GPUs is only
/// discovered when nothing before it named an ISA).
pub(crate) fn pick<T, K: PartialEq>(
    groups: impl IntoIterator<Item = Vec<T>>,
    key: impl Fn(&T) -> K,
    keep_also: bool,
) -> Picked<T> {
    let mut out = Picked {
        isas: Vec::new(),
        also: Vec::new(),
    };
    let mut groups = groups.into_iter();
    loop {
        let won = !out.isas.is_empty();
        // Decided before the next source is asked for.
        if won && !keep_also {
            break;
        }
        let Some(g) = groups.next() else { break };
        let list = if won { &mut out.also } else { &mut out.isas };
        for item in g {
            let k = key(&item);
            if !list.iter().any(|x| key(x) == k) {
                list.push(item);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_first_source_that_names_an_isa_wins_and_the_others_are_listed() {
        let p = pick(
            [
                ids(&[]),
                ids(&["gfx90a", "gfx1030", "gfx90a"]),
                ids(&["gfx1030", "gfx942", "gfx942"]),
            ],
            |s| s.clone(),
            true,
        );
        assert_eq!(p.isas, ids(&["gfx90a", "gfx1030"]));
        // Listed once each, even when the winner has them too.
        assert_eq!(p.also, ids(&["gfx1030", "gfx942"]));
    }

    #[test]
    fn without_also_the_later_sources_are_not_asked() {
        let asked = std::cell::Cell::new(false);
        let later = std::iter::once_with(|| {
            asked.set(true);
            ids(&["gfx942"])
        });
        let p = pick(
            std::iter::once(ids(&["gfx90a"])).chain(later),
            |s| s.clone(),
            false,
        );
        assert_eq!(p.isas, ids(&["gfx90a"]));
        assert!(p.also.is_empty());
        assert!(
            !asked.get(),
            "the fallback was discovered although --isa named one"
        );
        // With nothing named first, the fallback is asked and wins.
        let p = pick([ids(&[]), ids(&["gfx942"])], |s| s.clone(), false);
        assert_eq!(p.isas, ids(&["gfx942"]));
    }

    #[test]
    fn the_key_decides_what_is_the_same_isa() {
        // The asm probe keys by processor: gfx90a:xnack+ and gfx90a are one ISA to probe.
        let p = pick(
            [vec![("gfx90a", "xnack+"), ("gfx90a", ""), ("gfx1030", "")]],
            |(proc, _)| *proc,
            true,
        );
        assert_eq!(p.isas, vec![("gfx90a", "xnack+"), ("gfx1030", "")]);
        // Nothing named anywhere: nothing to judge.
        let p = pick(Vec::<Vec<String>>::new(), |s| s.clone(), true);
        assert!(p.isas.is_empty() && p.also.is_empty());
    }
}
