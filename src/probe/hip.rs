//! Child side of the HIP runtime probe: load `libamdhip64` and ask its version and device count.
//! Symbols (HIP runtime API, `hip_runtime_api.h`): `hipError_t hipRuntimeGetVersion(int*)`,
//! `hipError_t hipGetDeviceCount(int*)`, `const char* hipGetErrorName(hipError_t)`.

use serde_json::{json, Value};
use std::ffi::{c_char, c_int, CStr};
use std::path::Path;

type GetInt = unsafe extern "C" fn(*mut c_int) -> c_int;
type ErrName = unsafe extern "C" fn(c_int) -> *const c_char;

pub(crate) fn probe(path: &Path) -> Result<Value, String> {
    // SAFETY: this runs in the disposable child process; loading runs the library's
    // initialisers, whose failure can only end this child.
    let lib =
        unsafe { libloading::Library::new(path) }.map_err(|e| format!("dlopen failed: {e}"))?;
    let mut out = json!({ "loaded": true, "path": path.to_string_lossy() });
    unsafe {
        let name = |code: c_int| -> String {
            lib.get::<ErrName>(b"hipGetErrorName\0")
                .ok()
                .map(|f| f(code))
                .filter(|p| !p.is_null())
                .map(|p| CStr::from_ptr(p).to_string_lossy().into_owned())
                .unwrap_or_else(|| format!("error {code}"))
        };
        if let Ok(f) = lib.get::<GetInt>(b"hipRuntimeGetVersion\0") {
            let mut v: c_int = 0;
            let rc = f(&mut v);
            out["runtime_version"] = json!(v);
            out["runtime_version_status"] = json!(name(rc));
        } else {
            out["runtime_version_status"] = json!("symbol hipRuntimeGetVersion missing");
        }
        if let Ok(f) = lib.get::<GetInt>(b"hipGetDeviceCount\0") {
            let mut n: c_int = 0;
            let rc = f(&mut n);
            out["device_count"] = json!(n);
            out["device_count_status"] = json!(name(rc));
        }
    }
    Ok(out)
}
