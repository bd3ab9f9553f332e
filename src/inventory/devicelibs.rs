//! Device-library bitcode (`ocml.bc`, `ockl.bc`, `oclc_*.bc`): where it is and what it holds.
use super::Inventory;
use serde::Serialize;

#[derive(Debug, Clone, Default, Serialize)]
pub struct DeviceLibs {}

pub fn discover(_inv: &Inventory) -> DeviceLibs {
    DeviceLibs::default()
}
