//! Component versions, from files first (`.info/version`, `rocm_version.h`, `hip_version.h`).
