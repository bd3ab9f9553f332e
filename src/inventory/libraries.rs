//! Key runtime libraries resolved as the dynamic loader would.
use super::Inventory;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct LibraryResolution {}

pub fn resolve_all(_inv: &Inventory) -> Vec<LibraryResolution> {
    Vec::new()
}
