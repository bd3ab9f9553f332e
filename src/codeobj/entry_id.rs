//! Bundle entry ids: `<kind>-<arch>-<vendor>-<os>-<env>[-<target-id>]`.
//!
//! Grammar from llvm-project `OffloadBundler.cpp` (`OffloadTargetInfo`): the id is split on `-`
//! at most 5 times, so the target id (which may contain `-` in generic names such as
//! `gfx10-3-generic`) is the verbatim remainder. clang 15 wrote the host entry with a
//! three-field triple (`host-x86_64-unknown-linux`); legacy `hip` ids put the processor in the
//! env field (`hip-amdgcn-amd-amdhsa-gfx906`).

use crate::isa::TargetId;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Host,
    /// HIP, code object v4 or later.
    Hipv4,
    /// HIP, code object v2/v3 or bitcode.
    Hip,
    Hcc,
    Openmp,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntryId {
    pub kind: Kind,
    /// `amdgcn-amd-amdhsa-` (the env field is empty for HIP), `x86_64-unknown-linux-gnu`.
    pub triple: String,
    /// The target id text after the triple, verbatim (`gfx90a:sramecc+:xnack-`).
    pub target: Option<String>,
    /// The target id validated, when it is one.
    #[serde(skip)]
    pub target_id: Option<TargetId>,
    /// SPIR-V: compiled at run time, no native ISA.
    pub spirv: bool,
}

impl EntryId {
    /// Device code the HIP runtime would consider (not the host entry).
    pub fn is_device(&self) -> bool {
        !matches!(self.kind, Kind::Host)
    }
}

pub fn parse(id: &str) -> EntryId {
    let mut parts = id.splitn(6, '-');
    let kind_s = parts.next().unwrap_or_default();
    let kind = match kind_s {
        "host" => Kind::Host,
        "hipv4" => Kind::Hipv4,
        "hip" => Kind::Hip,
        "hcc" => Kind::Hcc,
        "openmp" => Kind::Openmp,
        _ => Kind::Other,
    };
    let fields: Vec<&str> = parts.collect();
    let (triple_fields, mut target): (&[&str], Option<String>) = match fields.len() {
        5 => (&fields[..4], Some(fields[4].to_string())),
        n => (&fields[..n.min(4)], None),
    };
    // Legacy `hip-amdgcn-amd-amdhsa-gfx906`: the processor sits in the env field.
    let mut triple_fields = triple_fields.to_vec();
    if target.is_none() && triple_fields.len() == 4 && triple_fields[3].starts_with("gfx") {
        target = Some(triple_fields[3].to_string());
        triple_fields[3] = "";
    }
    let target = target.filter(|t| !t.is_empty());
    let triple = triple_fields.join("-");
    let spirv = triple.starts_with("spirv")
        || target
            .as_deref()
            .is_some_and(|t| t.starts_with("amdgcnspirv"));
    let target_id = target.as_deref().and_then(|t| TargetId::parse(t).ok());
    EntryId {
        kind,
        triple,
        target,
        target_id,
        spirv,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_real_forms() {
        let e = parse("hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
        assert_eq!(e.kind, Kind::Hipv4);
        assert_eq!(e.triple, "amdgcn-amd-amdhsa-");
        assert_eq!(e.target.as_deref(), Some("gfx90a:sramecc+:xnack-"));
        assert_eq!(e.target_id.unwrap().xnack, Some(false));
        let g = parse("hipv4-amdgcn-amd-amdhsa--gfx10-3-generic");
        assert_eq!(g.target.as_deref(), Some("gfx10-3-generic"));
        assert!(g.target_id.is_some());
        let h = parse("host-x86_64-unknown-linux");
        assert_eq!((h.kind, h.target.clone()), (Kind::Host, None));
        assert_eq!(parse("host-x86_64-unknown-linux-gnu-").target, None);
        let l = parse("hip-amdgcn-amd-amdhsa-gfx906");
        assert_eq!(l.target.as_deref(), Some("gfx906"));
        assert!(parse("hipv4-spirv64-amd-amdhsa--amdgcnspirv").spirv);
        let t = parse("hipv4-amdgcn-amd-amdhsa-unknown-gfx1030");
        assert_eq!(t.target.as_deref(), Some("gfx1030"));
        assert_eq!(parse("").kind, Kind::Other);
    }
}
