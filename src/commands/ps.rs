//! `rocm-doctor ps`: which processes hold /dev/kfd or an AMD render node (`gpuproc`). Exit 0 (a
//! listing is not a verdict); 2 when the sysroot is unusable.

use super::Outcome;
use crate::cli::RunArgs;
use crate::gpuproc::{explanations, render, scan};
use crate::report::{self, exit};

pub(crate) fn main(args: &RunArgs) -> Outcome {
    // --timeout/--deadline apply here too (validated like every run's).
    let cfg = super::config(args)?;
    let host = super::host(args, &cfg)?;
    let s = scan::scan(&host, host.uid());
    if args.json {
        let doc = serde_json::json!({
            "schema_version": report::json::SCHEMA_VERSION,
            "tool": &report::json::TOOL,
            "command": "ps",
            "exit_code": exit::OK,
            "ps": {
                "processes": s.processes,
                "unseen": s.unseen,
                "kfd_present": s.kfd_present,
                "render_nodes": s.render_nodes,
                "notes": explanations(&s),
            }
        });
        Ok(report::write_stdout(report::Output::Json(&doc), exit::OK))
    } else {
        // Process names and command lines are other users' text.
        Ok(super::print_visible(&render(&s, args.verbose), exit::OK))
    }
}
