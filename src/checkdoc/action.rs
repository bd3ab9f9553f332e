//! What an operator (or the automation acting for one) should do about a finding: a small,
//! closed set of repair actions, ordered from nothing to sending the GPU back.
//!
//! The set follows what fleet tools already hand to their remediation: leptonai/gpud gives each
//! event one of `REBOOT_SYSTEM`, `HARDWARE_INSPECTION`, `CHECK_USER_APP_AND_GPU` or none
//! (gpud `api/v1` `RepairActionType`); NVIDIA's XID catalogue gives each error an immediate
//! resolution (restart the application, reset the GPU, reboot, contact support); AMD's GPU
//! Operator drains and reboots a node whose GPU condition is unhealthy (Auto Node Remediation,
//! gpu-operator v1.5.0). Each check's doc (`checks/*.toml`, `action = ...`) names its default;
//! a check may name a heavier or lighter one per event. docs/json.md lists the values.

use serde::{Deserialize, Serialize};

/// One repair action. Order matters: later is heavier (the node's action is the heaviest of its
/// findings').
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Nothing to do now: worth knowing (a counter to watch, a harmless line).
    #[default]
    None,
    /// Change the installation or the configuration (a package, a variable, a permission, a
    /// module parameter); the hardware is fine.
    FixConfig,
    /// Restart the program that met the error (its GPU context is lost; the GPU recovered).
    RestartProcess,
    /// Reset the GPU (`amd-smi reset --gpureset`, or the driver's own recovery) once its
    /// processes are stopped.
    ResetGpu,
    /// Reboot the node: the GPU or the driver is in a state only a fresh start clears.
    RebootNode,
    /// Take the node out of service and have the hardware inspected or replaced.
    DrainAndInspect,
}

impl Action {
    pub(crate) const ALL: &'static [Action] = &[
        Action::None,
        Action::FixConfig,
        Action::RestartProcess,
        Action::ResetGpu,
        Action::RebootNode,
        Action::DrainAndInspect,
    ];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Action::None => "none",
            Action::FixConfig => "fix-config",
            Action::RestartProcess => "restart-process",
            Action::ResetGpu => "reset-gpu",
            Action::RebootNode => "reboot-node",
            Action::DrainAndInspect => "drain-and-inspect",
        }
    }

    /// One line for docs and `explain`.
    pub(crate) fn meaning(self) -> &'static str {
        match self {
            Action::None => "nothing to do now; worth knowing",
            Action::FixConfig => "change the installation or configuration; the hardware is fine",
            Action::RestartProcess => "restart the program that met the error",
            Action::ResetGpu => "reset the GPU once its processes are stopped",
            Action::RebootNode => "reboot the node",
            Action::DrainAndInspect => {
                "take the node out of service and have the hardware inspected or replaced"
            }
        }
    }

    #[cfg(test)]
    pub(crate) fn parse(s: &str) -> Result<Action, String> {
        Action::ALL
            .iter()
            .copied()
            .find(|a| a.as_str() == s.trim())
            .ok_or_else(|| {
                let known: Vec<&str> = Action::ALL.iter().map(|a| a.as_str()).collect();
                format!("unknown action {s:?} (known: {})", known.join(", "))
            })
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde_and_parse() {
        for a in Action::ALL {
            let j = serde_json::to_string(a).unwrap();
            assert_eq!(j, format!("\"{}\"", a.as_str()));
            assert_eq!(serde_json::from_str::<Action>(&j).unwrap(), *a);
            assert_eq!(Action::parse(a.as_str()).unwrap(), *a);
        }
        assert!(Action::parse("reboot").unwrap_err().contains("reboot-node"));
    }

    #[test]
    fn heavier_is_later() {
        assert!(Action::None < Action::FixConfig);
        assert!(Action::ResetGpu < Action::RebootNode);
        assert!(Action::RebootNode < Action::DrainAndInspect);
    }
}
