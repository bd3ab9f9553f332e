//! The second harvest of message origins (issue 28, item 1): real lines printed by the SMI tools,
//! Tensile, MIGraphX, RCCL, llama.cpp's CUDA/HIP backend and a newer kernel are attributed to the
//! component and file that print them, and lines of other programs that share their words are
//! not. Lines are quoted from the tuning part of tests/corpus and from the project's reference
//! notes on message origins; each positive has a negative beside it.

use rocm_doctor::packs::origins::{table, Origin};

fn origin(line: &str) -> Option<&'static Origin> {
    table().origin_of(line)
}

/// The component and the first site's path of the origin of `line` (panics, naming the line,
/// when it has none).
fn printed_by(line: &str) -> (&'static str, &'static str) {
    let o = origin(line).unwrap_or_else(|| panic!("no origin for {line:?}"));
    (o.component.as_str(), o.sites[0].path.as_str())
}

#[test]
fn the_smi_tools_lines_name_the_tool_that_prints_them() {
    // amd-smi's CLI (amdsmi_cli/amdsmi_commands.py) and rocm-smi (python_smi_tools/rocm_smi.py)
    // both log through Python's root logger; the texts differ, and so do the tools named.
    assert_eq!(
        printed_by(
            "ERROR:root:Unable to get devices, driver not initialized (amdgpu not found in modules)"
        ),
        ("amd-smi", "amdsmi_cli/amdsmi_commands.py")
    );
    assert_eq!(
        printed_by("ERROR:root:Driver not initialized (amdgpu not found in modules)"),
        ("rocm-smi", "python_smi_tools/rocm_smi.py")
    );
    assert_eq!(
        printed_by("`ERROR:root:ROCm SMI returned 8 (the expected value is 0)`").0,
        "rocm-smi"
    );
    // the same logger, another program's text
    assert!(origin("ERROR:root:Unable to get the weather, network not initialized").is_none());
}

#[test]
fn tensile_warnings_are_tensiles() {
    let (c, path) = printed_by(
        "[rocBLAS] > UserWarning: Did not detect SupportedISA: [(8, 0, 3), (9, 0, 0), (9, 0, 6)]; \
         cannot benchmark assembly kernels.",
    );
    assert_eq!((c, path), ("Tensile", "Tensile/Common.py"));
    assert_eq!(
        printed_by("Tensile::FATAL: Cached asm caps differ from derived asm caps for (9, 0, 10)").0,
        "Tensile"
    );
    assert!(origin("Did not detect the keyboard; press F1 to continue").is_none());
}

#[test]
fn migraphx_exceptions_are_attributed_at_the_release_that_threw_them() {
    // "No configs to tune" is thrown by ROCm 6.0's compile_ops.cpp; the pinned 2026 commit no
    // longer has it, so the site names the release.
    let o = origin(
        "RuntimeError: /root/AMDMIGraphX/src/targets/gpu/compile_ops.cpp:175: benchmark: No configs to tune",
    )
    .expect("attributed");
    assert_eq!(o.component, "MIGraphX");
    assert_eq!(o.sites[0].at, "rocm-6.0.0");
    assert_eq!(o.sites[0].path, "src/targets/gpu/compile_ops.cpp");
    assert_eq!(
        printed_by(
            "  what():  /src/AMDMIGraphX/src/program.cpp:171: compile: Dangling reference in module \
             main from instruction 348"
        ),
        ("MIGraphX", "src/program.cpp")
    );
    assert!(origin("No configs found in ~/.config, using defaults").is_none());
}

#[test]
fn llama_cpp_lines_carry_their_function_name_and_others_do_not_match() {
    // ggml prints `"%s: found %d ROCm devices:\n"` with `__func__`: the harvest puts the
    // function's name in, per release (ggml_init_cublas in b1500, ggml_cuda_init since).
    assert_eq!(
        printed_by("ggml_cuda_init: found 1 ROCm devices:").0,
        "llama.cpp"
    );
    let old = origin("ggml_init_cublas: found 1 ROCm devices:").expect("attributed");
    assert_eq!(
        (old.component.as_str(), old.sites[0].at.as_str()),
        ("llama.cpp", "b1500")
    );
    assert_eq!(
        printed_by(
            "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2048.00 MiB on device 0: \
             cudaMalloc failed: out of memory"
        ),
        ("llama.cpp", "ggml/src/ggml-cuda/ggml-cuda.cu")
    );
    // PyTorch's HIP error and ggml's allocator (not its CUDA backend) print lines with the same
    // words; before the function names went in, `%s: invalid device %d` claimed the first.
    assert!(origin("RuntimeError: HIP error: invalid device function").is_none());
    assert!(
        origin("alloc_tensor_range: failed to allocate ROCm0 buffer of size 2147483648").is_none()
    );
}

#[test]
fn rccl_and_a_newer_kernel_are_attributed() {
    assert_eq!(
        printed_by(
            "node1:1234:1234 [0] init.cc:120 NCCL WARN Missing \"iommu=pt\" from kernel command line \
             which can lead to system instablity or hang!"
        )
        .0,
        "RCCL"
    );
    // a user's own "Kernel version:" line is not RCCL's `Kernel version: %s` (dropped: a 13-letter
    // matcher)
    assert!(origin("    Kernel version: 6.11.0-14-generic").is_none());
    // RAS_EVENT_LOG's shorter text is 6.12's; 6.1's longer one keeps its own site
    let new = origin(
        "[ 8123.400100] amdgpu 0000:0b:00.0: 1048560 correctable hardware errors detected in umc block",
    )
    .expect("attributed");
    assert_eq!(new.component, "amdgpu");
    assert_eq!(new.sites[0].repo, "linux-source-6.12=6.12.117-1~deb12u1");
    let old = origin(
        "amdgpu 0000:0b:00.0: 12 correctable hardware errors detected in umc block, no user action is needed.",
    )
    .expect("attributed");
    assert_eq!(old.sites[0].repo, "linux-source-6.1=6.1.192-2");
    assert!(origin("12 correctable errors in the spreadsheet").is_none());
}

#[test]
fn every_site_names_a_source_the_table_pins() {
    let t = table();
    for r in [
        "ROCm/amdsmi",
        "ROCm/rocm_smi_lib",
        "ROCm/Tensile",
        "ROCm/AMDMIGraphX",
        "ROCm/rccl",
        "ggerganov/llama.cpp",
    ] {
        let c = t
            .commit_of(r, "")
            .unwrap_or_else(|| panic!("{r} is not pinned"));
        assert_eq!(c.len(), 40, "{r}: {c}");
    }
    for o in &t.origins {
        for s in &o.sites {
            if !s.repo.starts_with("linux-source-") {
                assert!(
                    t.commit_of(&s.repo, &s.at).is_some(),
                    "{}: {}@{} is no [[source]]",
                    o.format,
                    s.repo,
                    s.at
                );
            }
        }
    }
    assert!(t.commit_of("ROCm/AMDMIGraphX", "rocm-6.0.0").is_some());
    assert!(t.commit_of("ROCm/AMDMIGraphX", "rocm-9.9.9").is_none());
}

/// The component, the first site's repository and release (`at`) of the origin of `line`.
fn release_of(line: &str) -> (&'static str, &'static str, &'static str) {
    let o = origin(line).unwrap_or_else(|| panic!("no origin for {line:?}"));
    (
        o.component.as_str(),
        o.sites[0].repo.as_str(),
        o.sites[0].at.as_str(),
    )
}

#[test]
fn older_kernels_name_the_kfd_of_their_time() {
    // Ubuntu 18.04's 4.15 printed these (amdkfd/kfd_device.c, kfd_module.c, amdgpu_amdkfd.c);
    // 6.1 no longer does.
    let (c, repo, _) =
        release_of("[    2.510806] kfd kfd: DID 15d8 is missing in supported_devices");
    assert_eq!((c, repo), ("amdkfd", "linux-source-4.15.0=4.15.0-20.21"));
    assert_eq!(
        printed_by("[    2.510808] kfd kfd: kgd2kfd_probe failed"),
        ("amdkfd", "drivers/gpu/drm/amd/amdkfd/kfd_device.c")
    );
    assert_eq!(
        printed_by("[    9.551047] amdgpu 0000:01:00.0: kfd not supported on this ASIC"),
        ("amdgpu", "drivers/gpu/drm/amd/amdgpu/amdgpu_amdkfd.c")
    );
    assert_eq!(
        printed_by("[    8.839623] amdgpu 0000:01:00.0: GPU pci config reset").0,
        "amdgpu"
    );
    // `added device %x:%x` is too short alone; KFD's own device prefix makes it evidence, and
    // 6.1's dev_fmt ("amdgpu: ", amdgpu.h) is part of what 6.1 prints.
    assert_eq!(
        release_of("[    6.087732] kfd kfd: added device 1002:687f").0,
        "amdkfd"
    );
    assert_eq!(
        release_of("[    3.1] kfd kfd: amdgpu: added device 1002:73bf").1,
        "linux-source-6.1=6.1.192-2"
    );
    assert!(origin("[    6.087732] usb 1-1: added device 1002:687f").is_none());
    // the same prefix on 6.1's page-fault detail line
    assert_eq!(
        printed_by("amdgpu 0000:c4:00.0: amdgpu:      MORE_FAULTS: 0x0").0,
        "amdgpu"
    );
    assert!(origin("amdgpu 0000:c4:00.0:      MORE_FAULTS: 0x0").is_none());
}

#[test]
fn lines_under_the_amdgpu_prefix_from_other_kernel_parts_name_those_parts() {
    assert_eq!(
        printed_by(
            "[    3.353884] amdgpu 0000:19:00.0: Direct firmware load for amdgpu/vega20_ta.bin failed with error -2"
        ),
        ("kernel firmware loader", "drivers/base/firmware_loader/main.c")
    );
    assert_eq!(
        printed_by("[    9.545686] amdgpu 0000:01:00.0: enabling device (0006 -> 0007)"),
        ("kernel PCI core", "drivers/pci/setup-res.c")
    );
    assert!(origin("Direct download for the firmware failed, retrying").is_none());
}

#[test]
fn older_hip_runtimes_are_attributed_at_their_release() {
    // ROCm 3.x-4.x: ROCm/HIP's rocclr/ printed the condition of a one-argument guarantee
    let (c, repo, at) = release_of(
        "/src/external/hip-on-vdi/rocclr/hip_code_object.cpp:120: guarantee(false && \
         \"hipErrorNoBinaryForGpu: Coudn't find binary for current devices!\")",
    );
    assert_eq!((c, repo), ("clr", "ROCm/HIP"));
    assert!(at.starts_with("rocm-"), "{at}");
    // ROCm 5.3-5.5: ROCm/hipamd's hip_fatbin.cpp
    let (c, repo, at) = release_of(
        ":1:hip_fatbin.cpp           :265 : 99442500029 us: 350457: [tid:0x7f02e57efc00] \
         hipErrorNoBinaryForGpu: Couldn't find binary for current devices! - 209",
    );
    assert_eq!((c, repo, at), ("clr", "ROCm/hipamd", "rocm-5.5.1"));
    assert!(origin("guarantee(false && \"the warranty is void\")").is_none());
}

#[test]
fn older_ollama_and_miopen_texts_are_attributed() {
    let (c, _, at) = release_of(
        "time=2024-04-20T10:00:00.000Z level=INFO source=amd_linux.go:88 msg=\"detected amdgpu versions [gfx1030]\"",
    );
    assert_eq!((c, at), ("ollama", "v0.1.32"));
    assert_eq!(
        release_of(
            "level=WARN source=amd_linux.go:116 msg=\"amdgpu [0] gfx1103 is not supported by /tmp/ollama/rocm [gfx1030 gfx1100]\""
        )
        .0,
        "ollama"
    );
    // MIOPEN_LOG(level, ...) and a message kept in a variable (sqlite_db.cpp ErrorMessage)
    let o = origin(
        "MIOpen(HIP): Warning [SQLiteBase] Unable to read system database file:gfx906_60.kdb Performance may degrade",
    )
    .expect("attributed");
    assert_eq!(
        (o.component.as_str(), o.printer.as_str()),
        ("miopen", "MIOPEN_LOG")
    );
    assert_eq!(
        printed_by(
            "MIOpen(HIP): Warning [FindFftSolutions] /root/driver/MLOpen/src/sqlite_db.cpp:212: \
             Internal error while accessing SQLite database: disk I/O error"
        ),
        ("miopen", "src/sqlite_db.cpp")
    );
    assert!(origin("Unable to read the system clock").is_none());
}

#[test]
fn clangs_gpu_diagnostics_are_attributed() {
    let o = origin("clang: error: unknown target CPU 'gfx1036'").expect("attributed");
    assert_eq!(o.component, "clang");
    assert_eq!(o.sites[0].repo, "llvm-toolchain-21=1:21.1.8-14");
    assert_eq!(o.sites[0].function, "err_target_unknown_cpu");
    assert_eq!(
        printed_by("clang: error: cannot find HIP runtime; provide its path via '--rocm-path', or pass '-nogpuinc' to build without HIP runtime").0,
        "clang"
    );
    assert!(origin("error: unknown target host 'example.org'").is_none());
}

// The fourth harvest (issue 28: sources not read before; scripts/harvest-origins.py OLDER_FOURTH,
// KERNEL_NEWEST, DEBIAN_SRC_FOURTH).

#[test]
fn older_tensile_and_miopen_texts_carry_their_printers_prefix() {
    // Tensile's printWarning printed `Tensile::WARNING: %s` at rocm-6.2.0 (Tensile/Common.py);
    // the line is from the tuning part (a NixOS ROCm 6.2 build log).
    let (c, repo, at) =
        release_of("Tensile::WARNING: Architecture (8, 0, 3) not supported by ROCm 6.2.41134-0");
    assert_eq!((c, repo, at), ("Tensile", "ROCm/Tensile", "rocm-6.2.0"));
    // the bare text's 12-letter head stays unattributed, as the second harvest chose
    assert!(origin("Architecture (8, 0, 3) not supported by this build").is_none());
    // MIOpen 1.2 (ROCm 1.7) printed the warning without the file's name (src/db_record.cpp)
    let (c, _, at) = release_of("MIOpen(HIP): Warning [ReadFile] File is unreadable.");
    assert_eq!((c, at), ("miopen", "1.2.1"));
    assert!(origin("note: File is unreadable by the current user").is_none());
}

#[test]
fn a_newer_kernels_page_fault_task_line_is_attributed() {
    // amdgpu_vm_print_task_info in sid's 7.2 (6.12 printed it inside the fault line)
    let o = origin(
        "[   67.058806] amdgpu 0000:c4:00.0: amdgpu:  Process python3 pid 3370 thread python3 pid 3370",
    )
    .expect("attributed");
    assert_eq!(o.component, "amdgpu");
    assert_eq!(o.sites[0].repo, "linux-source-7.2=7.2.13-1");
    assert!(origin("Process python3 pid 3370 exited with status 1").is_none());
}

#[test]
fn llvm_backend_lld_comgr_and_hipcc_lines_are_attributed() {
    let (c, path) =
        printed_by("'gfx1036' is not a recognized processor for this target (ignoring processor)");
    assert_eq!((c, path), ("LLVM", "llvm/lib/MC/MCSubtargetInfo.cpp"));
    assert_eq!(
        printed_by("warning: xnack 'On' was requested for a processor that does not support it!"),
        ("LLVM", "llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp")
    );
    let o = origin("ld.lld: error: unable to find library -lamdhip64").expect("attributed");
    assert_eq!(
        (o.component.as_str(), o.sites[0].repo.as_str()),
        ("lld", "llvm-toolchain-21=1:21.1.8-14")
    );
    assert_eq!(
        printed_by("Failed to load SPIR-V as LLVM Module: Invalid SPIR-V magic number").0,
        "comgr"
    );
    let o = origin(
        "Warning: The --amdgpu-target option has been deprecated and will be removed in the future.  Use --offload-arch instead.",
    )
    .expect("attributed");
    assert_eq!(
        (o.component.as_str(), o.sites[0].repo.as_str()),
        ("hipcc", "rocm-llvm=7.0.2+dfsg-3")
    );
    assert!(origin("'main' is not a recognized branch name").is_none());
    assert!(origin("unable to find library path for the plugin").is_none());
}

#[test]
fn short_lines_are_attributed_where_their_prefix_or_their_file_and_line_says_who_printed_them() {
    // ggml's error report (ggml-cuda.cu ggml_cuda_error; b1500's CUDA_CHECK macro): under the
    // floors alone, specific by the source file and line it names.
    for l in [
        "CUDA error 98 at /source/llama.cpp/ggml-cuda.cu:7788: invalid device function",
        "  current device: 1, in function ggml_cuda_compute_forward at \
         /home/me/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:2932",
    ] {
        assert_eq!(printed_by(l).0, "llama.cpp", "{l}");
    }
    // CLR's HIP_RETURN (a macro in hip_internal.hpp) under the prefix of the file that uses it.
    let l = ":3:hip_platform.cpp         :670 : 99442500035 us: 350457: [tid:0x7f02e57efc00] \
             init: Returned hipErrorNoBinaryForGpu :";
    assert_eq!(printed_by(l), ("clr", "hipamd/src/hip_internal.hpp"));
    // amdgpu's page-fault detail after the kernel's device prefix.
    let l = "[   67.058819] amdgpu 0000:c4:00.0: amdgpu:      RW: 0x0";
    assert_eq!(printed_by(l).0, "amdgpu");
    // The same short texts without what makes them specific are nobody's.
    for l in [
        "current device: 0",
        "CUDA error 98 at line 7788: invalid device function",
        "init: Returned hipErrorNoBinaryForGpu :",
        "RW: 0x0",
        "Device 0: RW: 0x0",
    ] {
        assert!(origin(l).is_none(), "{l}");
    }
}
