//! The repair action of a whole run (the enum itself is the checks' vocabulary:
//! [`crate::checkdoc::Action`]).

pub use crate::checkdoc::Action;

/// The action a run asks of its node: the heaviest of its warn and fail findings' actions
/// (`None` when there is none).
pub(crate) fn of_node(findings: &[super::Finding]) -> Action {
    findings
        .iter()
        .filter(|f| matches!(f.status, super::Status::Warn | super::Status::Fail))
        .filter_map(|f| f.action)
        .max()
        .unwrap_or(Action::None)
}
