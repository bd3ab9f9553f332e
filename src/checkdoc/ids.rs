//! The ids of the Rust checks, declared once. Each line is a variant and its id; the `CHECKS`
//! tables, the messages that name another check and every other use in Rust name the variant,
//! so a misspelt id does not compile, and the doc files (`checks/<family>.toml`) are refused at
//! load when one of their ids has no variant here or a variant has no doc (`checks::docs`).
//! `scripts/new-check.sh` adds a line here for a new Rust check.

/// Declares `CheckId` from `Variant = "family.name"` lines.
macro_rules! check_ids {
    ($($variant:ident = $id:literal,)+) => {
        /// A Rust check's id (`family.name`). Pack checks have string ids of their own.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum CheckId {
            $($variant,)+
        }

        impl CheckId {
            /// Every Rust check, in declaration order.
            pub const ALL: &'static [CheckId] = &[$(CheckId::$variant,)+];

            /// The id as written in docs, findings and on the command line.
            pub(crate) const fn as_str(self) -> &'static str {
                match self {
                    $(CheckId::$variant => $id,)+
                }
            }
        }
    };
}

check_ids! {
    TargetsIsa = "targets.isa",
    ToolchainRocmRoot = "toolchain.rocm-root",
    ToolchainEnv = "toolchain.env",
    ToolchainVersions = "toolchain.versions",
    ToolchainClang = "toolchain.clang",
    ToolchainResourceDir = "toolchain.resource-dir",
    ToolchainDeviceLibs = "toolchain.device-libs",
    ToolchainLld = "toolchain.lld",
    ToolchainLink = "toolchain.link",
    ToolchainHipCompile = "toolchain.hip-compile",
    RuntimeLibraries = "runtime.libraries",
    RuntimeLoad = "runtime.load",
    GpuDriver = "gpu.driver",
    GpuKfd = "gpu.kfd",
    GpuRender = "gpu.render",
    GpuAgents = "gpu.agents",
    GpuVisibility = "gpu.visibility",
    GpuOverrides = "gpu.overrides",
    GpuXnack = "gpu.xnack",
    GpuRuntimeInit = "gpu.runtime-init",
    GpuProcesses = "gpu.processes",
    GpuLayers = "gpu.layers",
    HealthRas = "health.ras",
    HealthBadPages = "health.bad-pages",
    HealthPcieLink = "health.pcie-link",
    HealthXgmi = "health.xgmi",
    HealthFirmware = "health.firmware",
    HealthPartitions = "health.partitions",
    HealthThermal = "health.thermal",
    HealthPcieErrors = "health.pcie-errors",
    HealthXgmiLinks = "health.xgmi-links",
    HealthCper = "health.cper",
    KernelLog = "kernel.log",
    KernelDriverInit = "kernel.driver-init",
    KernelHangs = "kernel.hangs",
    KernelPageFaults = "kernel.page-faults",
    KernelRas = "kernel.ras",
    KernelSmu = "kernel.smu",
    KernelHistory = "kernel.history",
    LibsCodeObjects = "libs.code-objects",
    LibsPythonEnvs = "libs.python-envs",
    AsmAssembler = "asm.assembler",
    AsmCaps = "asm.caps",
    AsmExpect = "asm.expect",
}

impl CheckId {
    /// The family: the id's first word (`gpu` for `gpu.kfd`).
    pub fn family(self) -> &'static str {
        let s = self.as_str();
        s.split_once('.').map_or(s, |(f, _)| f)
    }

    /// `see <id>`, the way a message sends the reader to another check.
    pub(crate) fn see(self) -> String {
        format!("see {self}")
    }
}

impl std::fmt::Display for CheckId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for CheckId {
    type Err = String;

    /// The variant of `s`, or why there is none (with the ids of the same family).
    fn from_str(s: &str) -> Result<Self, String> {
        if let Some(id) = CheckId::ALL.iter().find(|c| c.as_str() == s) {
            return Ok(*id);
        }
        let family = s.split_once('.').map_or(s, |(f, _)| f);
        let same: Vec<&str> = CheckId::ALL
            .iter()
            .filter(|c| c.family() == family)
            .map(|c| c.as_str())
            .collect();
        let known = if same.is_empty() {
            String::new()
        } else {
            format!(" (the {family} checks: {})", same.join(", "))
        };
        Err(format!(
            "no Rust check has the id {s:?}; every one is declared in src/checkdoc/ids.rs{known}"
        ))
    }
}

impl From<CheckId> for String {
    fn from(id: CheckId) -> String {
        id.as_str().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkdoc::Category;

    #[test]
    fn every_id_is_well_formed_unique_and_round_trips() {
        for (i, id) in CheckId::ALL.iter().enumerate() {
            let c = Category::of_id(id.as_str()).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(c.as_str(), id.family());
            assert_eq!(id.as_str().parse::<CheckId>(), Ok(*id));
            assert_eq!(id.to_string(), id.as_str());
            assert!(
                CheckId::ALL[..i].iter().all(|o| o.as_str() != id.as_str()),
                "{id} twice"
            );
        }
        // Every family has at least one check.
        for c in Category::ALL {
            assert!(
                CheckId::ALL.iter().any(|id| id.family() == c.as_str()),
                "{}",
                c.as_str()
            );
        }
    }

    #[test]
    fn a_misspelt_id_is_refused_naming_the_family_checks() {
        let e = "toolchain.clnag".parse::<CheckId>().unwrap_err();
        assert!(e.contains("\"toolchain.clnag\""), "{e}");
        assert!(
            e.contains("the toolchain checks: toolchain.rocm-root,"),
            "{e}"
        );
        let e = "nope.x".parse::<CheckId>().unwrap_err();
        assert!(!e.contains("checks:"), "{e}");
        assert_eq!(CheckId::GpuKfd.see(), "see gpu.kfd");
    }
}
