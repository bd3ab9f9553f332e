//! The kernel log as evidence: amdgpu/KFD/DRM events since boot (issue 19, item 3).
//!
//! - [`parse`] (pure): one line in any captured shape (kmsg record, dmesg, journalctl, kern.log,
//!   a paste) → [`KernelLine`];
//! - [`event`] (pure): [`classify`] one line → [`Event`];
//! - this module (pure): [`amdgpu_events`] folds multi-line reports into one event each,
//!   [`summarize`] counts them per kind;
//! - [`source`] (I/O through the `Host` only): [`read`] the log of this boot from `/dev/kmsg`,
//!   `journalctl -k -b`, or `/var/log/kern.log` (under `--sysroot`, files of the sysroot), or
//!   [`Unavailable`] with how to grant access;
//! - [`history`] (I/O through the `Host` only): the earlier boots the journal or the rotated
//!   `kern.log` files still hold, per GPU and per boot.
//!
//! The formats and their sources: docs/kernlog.md.

pub(crate) mod history;
pub(crate) mod source;

// The pure parsers (lines, events, folding, counts) live in the parsers crate (crates/parsers,
// docs/architecture.md "The parsers crate"); they keep their paths here.
pub use rocm_doctor_parsers::kernlog::{
    amdgpu_events, classify, event, parse, parse_kmsg_record, parse_line, parse_text, summarize,
    Event, EventKind, Format, KernelLine, KindSummary, RasSeverity, Role, MAX_FOLDED,
};
pub use source::{read, Attempt, KernelLog, Origin, Unavailable};
