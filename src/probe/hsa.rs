//! Child side of `rocm-doctor probe-library hsa PATH`: loads `libhsa-runtime64` in this (child)
//! process, calls `hsa_init`, iterates the agents and prints ONE JSON line on stdout:
//!
//! ```json
//! {"kind":"hsa","library":"/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1","loaded":true,
//!  "error":null,"init_status":4104,"status_string":"HSA_STATUS_ERROR_OUT_OF_RESOURCES: ...",
//!  "iterate_status":null,"agents":[{"name":"gfx90a","device_type":"gpu"}]}
//! ```
//!
//! - `loaded` false: `error` says why `dlopen` / a symbol lookup failed; the other fields are null.
//! - `init_status`: the `hsa_status_t` of `hsa_init` (0 = success; names in `hsa.h`).
//! - `status_string`: what `hsa_status_string` says for it (null if that call failed).
//! - `iterate_status` / `agents`: only after a successful init. `device_type` is `cpu`, `gpu`,
//!   `dsp` or the raw number.
//!
//! The exit code is 0 whenever the line was printed; the parent (src/gpu/hsa.rs) reads the line
//! and treats a crash, a signal or a timeout of this process as the finding itself.
//! C API facts from `hsa/hsa.h` (ROCR-Runtime): `hsa_agent_t` is a struct holding one u64 handle,
//! `HSA_AGENT_INFO_NAME` = 0 (64-byte buffer), `HSA_AGENT_INFO_DEVICE` = 17 (u32).

use serde_json::json;
use std::ffi::{c_char, c_void, CStr};
use std::path::Path;

type HsaStatus = u32;
type InitFn = unsafe extern "C" fn() -> HsaStatus;
type StatusStringFn = unsafe extern "C" fn(HsaStatus, *mut *const c_char) -> HsaStatus;
type AgentCb = unsafe extern "C" fn(u64, *mut c_void) -> HsaStatus;
type IterateFn = unsafe extern "C" fn(AgentCb, *mut c_void) -> HsaStatus;
type GetInfoFn = unsafe extern "C" fn(u64, u32, *mut c_void) -> HsaStatus;

const HSA_AGENT_INFO_NAME: u32 = 0;
const HSA_AGENT_INFO_DEVICE: u32 = 17;

unsafe extern "C" fn collect(agent: u64, data: *mut c_void) -> HsaStatus {
    // SAFETY: `data` is the `Vec<u64>` passed by `child_main` for the duration of the call.
    let v = unsafe { &mut *(data as *mut Vec<u64>) };
    v.push(agent);
    0
}

fn emit(v: serde_json::Value) -> i32 {
    println!("{v}");
    0
}

pub(crate) fn child_main(path: &Path) -> i32 {
    let base = |loaded: bool, error: Option<String>| {
        json!({
            "kind": "hsa",
            "library": path.display().to_string(),
            "loaded": loaded,
            "error": error,
            "init_status": null,
            "status_string": null,
            "iterate_status": null,
            "agents": [],
        })
    };
    // SAFETY: loading a vendor library runs its initialisers; that is why this runs in a child.
    let lib = match unsafe { libloading::Library::new(path) } {
        Ok(l) => l,
        Err(e) => return emit(base(false, Some(e.to_string()))),
    };
    macro_rules! sym {
        ($name:literal, $t:ty) => {
            // SAFETY: the symbol types follow hsa.h.
            match unsafe { lib.get::<$t>($name) } {
                Ok(s) => *s,
                Err(e) => return emit(base(false, Some(e.to_string()))),
            }
        };
    }
    let init: InitFn = sym!(b"hsa_init\0", InitFn);
    let status_string: StatusStringFn = sym!(b"hsa_status_string\0", StatusStringFn);
    let iterate: IterateFn = sym!(b"hsa_iterate_agents\0", IterateFn);
    let get_info: GetInfoFn = sym!(b"hsa_agent_get_info\0", GetInfoFn);
    let shut_down: InitFn = sym!(b"hsa_shut_down\0", InitFn);

    // SAFETY: plain C calls with valid arguments.
    let st = unsafe { init() };
    let mut text: *const c_char = std::ptr::null();
    let sst = unsafe { status_string(st, &mut text) };
    let status_text = (sst == 0 && !text.is_null()).then(|| {
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    });
    let mut out = base(true, None);
    out["init_status"] = json!(st);
    out["status_string"] = json!(status_text);
    if st != 0 {
        return emit(out);
    }
    let mut handles: Vec<u64> = Vec::new();
    let ist = unsafe { iterate(collect, &mut handles as *mut Vec<u64> as *mut c_void) };
    out["iterate_status"] = json!(ist);
    let mut agents = Vec::new();
    for h in handles.iter().take(1024) {
        let mut name = [0u8; 64];
        let n_ok = unsafe { get_info(*h, HSA_AGENT_INFO_NAME, name.as_mut_ptr().cast()) } == 0;
        let mut dev: u32 = u32::MAX;
        let d_ok =
            unsafe { get_info(*h, HSA_AGENT_INFO_DEVICE, (&mut dev as *mut u32).cast()) } == 0;
        let name = n_ok.then(|| {
            let end = name.iter().position(|b| *b == 0).unwrap_or(name.len());
            String::from_utf8_lossy(&name[..end]).into_owned()
        });
        let kind = match (d_ok, dev) {
            (false, _) => json!(null),
            (true, 0) => json!("cpu"),
            (true, 1) => json!("gpu"),
            (true, 2) => json!("dsp"),
            (true, n) => json!(n),
        };
        agents.push(json!({"name": name, "device_type": kind}));
    }
    out["agents"] = json!(agents);
    unsafe { shut_down() };
    emit(out)
}
