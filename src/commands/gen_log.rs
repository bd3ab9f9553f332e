//! `rocm-doctor gen-log` (hidden): a synthetic AMD_LOG_LEVEL log on stdout, for benchmarks.

use super::Outcome;
use crate::report::exit;

pub(crate) fn main(iterations: u64, devices: u64) -> Outcome {
    match crate::logscan::gen::write(std::io::stdout().lock(), iterations, devices) {
        Ok(()) => Ok(exit::OK),
        // A reader that went away (`| head`) is not the doctor failing.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(exit::OK),
        Err(e) => Err(anyhow::anyhow!("{e}")),
    }
}
