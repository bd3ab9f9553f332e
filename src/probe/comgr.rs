//! Child side of the comgr probe: load `libamd_comgr` and list its version and ISA names.
//! Symbols (`amd_comgr.h`): `amd_comgr_get_version(size_t*, size_t*)`,
//! `amd_comgr_get_isa_count(size_t*)`, `amd_comgr_get_isa_name(size_t, const char**)`;
//! status 0 is `AMD_COMGR_STATUS_SUCCESS`.

use serde_json::{json, Value};
use std::ffi::{c_char, CStr};
use std::path::Path;

type GetVersion = unsafe extern "C" fn(*mut usize, *mut usize);
type GetCount = unsafe extern "C" fn(*mut usize) -> i32;
type GetName = unsafe extern "C" fn(usize, *mut *const c_char) -> i32;

pub(crate) fn probe(path: &Path) -> Result<Value, String> {
    // SAFETY: runs only in the disposable child process.
    let lib =
        unsafe { libloading::Library::new(path) }.map_err(|e| format!("dlopen failed: {e}"))?;
    let mut out = json!({ "loaded": true, "path": path.to_string_lossy() });
    unsafe {
        if let Ok(f) = lib.get::<GetVersion>(b"amd_comgr_get_version\0") {
            let (mut major, mut minor) = (0usize, 0usize);
            f(&mut major, &mut minor);
            out["version"] = json!(format!("{major}.{minor}"));
        }
        let (Ok(count), Ok(name)) = (
            lib.get::<GetCount>(b"amd_comgr_get_isa_count\0"),
            lib.get::<GetName>(b"amd_comgr_get_isa_name\0"),
        ) else {
            out["isa_error"] = json!("amd_comgr_get_isa_count/amd_comgr_get_isa_name missing");
            return Ok(out);
        };
        let mut n = 0usize;
        let rc = count(&mut n);
        if rc != 0 {
            out["isa_error"] = json!(format!("amd_comgr_get_isa_count returned status {rc}"));
            return Ok(out);
        }
        let mut isas = Vec::new();
        for i in 0..n.min(4096) {
            let mut p: *const c_char = std::ptr::null();
            if name(i, &mut p) == 0 && !p.is_null() {
                isas.push(CStr::from_ptr(p).to_string_lossy().into_owned());
            }
        }
        out["isas"] = json!(isas);
    }
    Ok(out)
}
