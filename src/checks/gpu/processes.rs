//! The `gpu.processes` check: who holds the GPU, in the default run. Never a warning: a machine
//! with no GPU or no GPU process is normal (skip / pass); what could not be seen is evidence.

use crate::checks::Ctx;
use crate::gpuproc::scan;
use crate::report::Finding;
use std::path::Path;

pub(super) fn processes(ctx: &Ctx) -> Vec<Finding> {
    let fs = &ctx.host.fs;
    // The same gate as the other GPU checks (WSL, no KFD GPU node): a skip, never a failure;
    // device nodes or KFD processes without a GPU in the topology still get scanned.
    if let Some(skip) = super::gate(ctx, ctx.inv.gpu(), false) {
        let has_nodes = fs.exists(Path::new("/dev/kfd"))
            || fs.is_dir(Path::new("/sys/class/kfd/kfd/proc"))
            || fs
                .list_names(Path::new("/dev/dri"))
                .iter()
                .any(|n| n.to_string_lossy().starts_with("renderD"));
        if !has_nodes || !ctx.inv.gpu().environment.wsl.is_empty() {
            return skip;
        }
    }
    let mut s = scan::scan(ctx.host, ctx.host.uid());
    // The doctor's own gpu.kfd check opens /dev/kfd: not a holder worth listing. Under
    // --host-root /proc is the host's: the doctor is there under its host pid.
    if let Some(me) = ctx.host.own_pid_in_proc() {
        s.processes.retain(|p| p.pid != me);
    }
    let notes = crate::gpuproc::explanations(&s);
    let f = if s.processes.is_empty() {
        Finding::pass("no process holds /dev/kfd or a render node")
    } else {
        let list: Vec<String> = s
            .processes
            .iter()
            .take(5)
            .map(|p| format!("{} ({})", p.pid, p.comm.clone().unwrap_or_default()))
            .collect();
        Finding::pass(format!(
            "{} process(es) hold the GPU: {}{}",
            s.processes.len(),
            list.join(", "),
            if s.processes.len() > 5 {
                ", ... (rocm-doctor ps)"
            } else {
                ""
            }
        ))
    };
    vec![f.evidence_lines(notes)]
}
