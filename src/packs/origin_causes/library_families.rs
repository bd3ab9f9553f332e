//! The families of the libraries and applications (the famlib6 section of
//! checks/origin-causes.toml): every row against a line its program printed, as a public thread
//! shows it (the thread above each line), and the lines a close format or the part of the line
//! the format leaves open keeps out.

use super::super::origins::{families, table, Family};
use super::test_support::{answers, family_causes};

/// Components of this section.
const COMPONENTS: &[&str] = &[
    "rocblas",
    "hipblaslt",
    "Tensile",
    "miopen",
    "rocFFT",
    "rocSPARSE",
    "rocSOLVER",
    "RCCL",
    "MIGraphX",
    "ollama",
    "llama.cpp",
];

/// Printed lines and the cause their family names.
const LINES: &[(&str, &str)] = &[
    // https://github.com/justxi/rocm/issues/182 (keras on rocBLAS 4.0)
    (
        "rocBLAS warning: No paths matched /usr/lib64/library/*gfx906*co. Make sure that \
         ROCBLAS_TENSILE_LIBPATH is set correctly.",
        "lib-rocblas-data",
    ),
    // https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU/issues/12
    (
        "rocBLAS error: Could not initialize Tensile library",
        "lib-rocblas-data",
    ),
    // https://github.com/ROCm/hipBLASLt/issues/251
    (
        "rocblaslt warning: No paths matched /opt/hipBLASLt/build/release/library/../Tensile/\
         library/*gfx906*co. Make sure that HIPBLASLT_TENSILE_LIBPATH is set correctly.",
        "lib-hipblaslt-data",
    ),
    // https://github.com/lemonade-sdk/llamacpp-rocm/issues/10
    (
        "rocblaslt error: Could not load \"TensileLibrary_lazy_gfx1151.dat\"",
        "lib-hipblaslt-data",
    ),
    // https://github.com/ollama/ollama/issues/8772 (two lines)
    (
        "time=2025-02-02T19:28:37.628+08:00 level=WARN source=amd_linux.go:378 msg=\"amdgpu is \
         not supported (supported types:[gfx1030 gfx1100 gfx1101 gfx1102 gfx900 gfx906 gfx908 \
         gfx90a gfx940 gfx941 gfx942])\" gpu_type=gfx1031 gpu=0 library=/usr/local/lib/ollama",
        "gpu-unsupported-asic",
    ),
    (
        "time=2025-02-02T19:28:37.628+08:00 level=WARN source=amd_linux.go:385 msg=\"See \
         https://github.com/ollama/ollama/blob/main/docs/gpu.md#overrides for \
         HSA_OVERRIDE_GFX_VERSION usage\"",
        "gpu-unsupported-asic",
    ),
    // https://github.com/ollama/ollama/issues/4099
    (
        "time=2024-05-02T12:17:03.657Z level=WARN source=amd_linux.go:116 msg=\"amdgpu [0] \
         gfx1103 is not supported by /tmp/ollama2145067703/rocm [gfx1030 gfx1100 gfx1101 \
         gfx1102 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942]\"",
        "gpu-unsupported-asic",
    ),
    // https://github.com/ollama/ollama/issues/7723
    (
        "level=ERROR source=amd_linux.go:404 msg=\"amdgpu devices detected but permission \
         problems block access: permissions not set up properly.  Either run ollama as root, or \
         add you user account to the render group. open /dev/kfd: permission denied\"",
        "gpu-kfd-permission",
    ),
    // https://github.com/ollama/ollama/issues/6567 (the reporter's paste wraps it after "dll, ")
    (
        "time=2024-08-30T09:43:00.852-05:00 level=DEBUG source=amd_windows.go:33 msg=\"unable \
         to load amdhip64_6.dll, please make sure to upgrade to the latest amd driver: The \
         specified module could not be found.\"",
        "gpu-driver-missing",
    ),
    // https://github.com/NixOS/nixpkgs/issues/308206
    (
        "May 01 11:05:13 viper ollama[283307]: time=2024-05-01T11:05:13.123+03:00 level=WARN \
         source=amd_linux.go:53 msg=\"ollama recommends running the \
         https://www.amd.com/en/support/linux-drivers: amdgpu version file missing: \
         /sys/module/amdgpu/version stat /sys/module/amdgpu/version: no such file or \
         directory\"",
        "benign-other",
    ),
    // https://github.com/ollama/ollama/issues/3390
    (
        "time=2024-06-07T19:30:19.958Z level=WARN source=amd_linux.go:48 msg=\"ollama \
         recommends running the https://www.amd.com/en/support/linux-drivers\" \
         error=\"amdgpu version file missing: /sys/module/amdgpu/version stat \
         /sys/module/amdgpu/version: no such file or directory\"",
        "benign-other",
    ),
    // https://github.com/ROCm/MIOpen/issues/1254
    (
        "MIOpen(HIP): Warning [SQLiteBase] Unable to read system database \
         file:/opt/rocm/miopen/share/miopen/db/gfx900_64.kdb Performance may degrade",
        "benign-miopen-kdb",
    ),
    // https://github.com/ROCm/MIOpen/issues/3096
    (
        "MIOpen(HIP): Warning [FindSolutionImpl] Invalid config loaded from Perf Db: \
         ConvBinWinogradRxSf3x2: 72. Performance may degrade.",
        "benign-miopen-kdb",
    ),
    // https://github.com/ROCm/MIOpen/issues/2017 (the same message at error level)
    (
        "MIOpen(HIP): Error [FindSolutionImpl] Invalid config loaded from Perf Db: \
         ConvMlirIgemmFwd: 256,32,64,16,2,2. Performance may degrade.",
        "benign-miopen-kdb",
    ),
    // https://github.com/ROCm/MIOpen/issues/2981 (PyTorch's micro-benchmark, GetSolutions)
    (
        "MIOpen(HIP): Warning [IsEnoughWorkspace] [GetSolutions] Solver \
         <ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC>, workspace required: 488149760, provided \
         ptr: 0 size: 0",
        "benign-other",
    ),
    // https://github.com/erew123/alltalk_tts/issues/397 (EvaluateInvokers)
    (
        "MIOpen(HIP): Warning [IsEnoughWorkspace] [EvaluateInvokers] Solver <GemmFwdRest>, \
         workspace required: 25657344, provided ptr: 0 size: 0",
        "benign-other",
    ),
    // https://github.com/ROCm/rocm-libraries/issues/4071 (Windows prints the null pointer in full)
    (
        "MIOpen(HIP): Warning [IsEnoughWorkspace] [GetSolutionsFallback WTI] Solver \
         <GemmFwdRest>, workspace required: 12644352, provided ptr: 0000000000000000 size: 0",
        "benign-other",
    ),
    // https://github.com/ROCm/rocm-libraries/pull/4100 (a workspace given, but too small)
    (
        "MIOpen(HIP): Warning [IsEnoughWorkspace] [GetSolutionsFallback WTI] Solver \
         <GemmFwdRest>, workspace required: 21547008, provided ptr: 0x7f0f15e00000 size: \
         15982592",
        "benign-other",
    ),
    // https://github.com/GPUOpen-LibrariesAndSDKs/RadeonProRenderBlenderAddon/issues/172
    // (MIOpen's OpenCL back end under Blender's denoiser, a damaged user find-db)
    (
        "MIOpen(OpenCL): Error [FindRecordUnsafe] Ill-formed record: key not found: \
         C:\\Users\\309\\AppData\\Local/miopen/kernels/GeForce GTX \
         1070_15.OpenCL.2_0_1.ufdb.txt#243",
        "lib-miopen-data",
    ),
    // https://github.com/ROCm/rocm-libraries/issues/3110 (the paste ends each line at `#`)
    (
        "MIOpen(HIP): Error [Prefetch] Ill-formed record: key not found: \
         \"/home/home/.config/miopen/gfx1030_.HIP.3_4_0_.ufdb.txt\"#",
        "lib-miopen-data",
    ),
];

/// The first row of this section.
fn first_row() -> usize {
    families()
        .iter()
        .position(|f| f.component == "rocblas" && f.contains == "No paths matched ")
        .expect("the section's first row")
}

#[test]
fn each_printed_line_gives_its_family_cause() {
    for (line, cause) in LINES {
        assert_eq!(family_causes(line), vec![cause.to_string()], "{line}");
        let d = answers(line);
        let why = d[0].reasoning();
        assert!(why.contains("is printed by"), "{why}");
    }
}

#[test]
fn every_row_of_the_section_is_met_by_a_printed_line() {
    let hit = |f: &Family| {
        LINES.iter().any(|(l, _)| {
            table()
                .attribute(l)
                .iter()
                .any(|a| a.cause().is_some_and(|g| std::ptr::eq(g, f)))
        })
    };
    let rows = &families()[first_row()..];
    let mine: Vec<&Family> = rows
        .iter()
        .filter(|f| COMPONENTS.contains(&f.component.as_str()))
        .collect();
    assert!(mine.len() >= 10, "{} rows", mine.len());
    for f in mine {
        assert!(
            hit(f),
            "no printed line meets {} {:?}",
            f.component,
            f.contains
        );
    }
}

/// A missing /dev/kfd is not a permission problem, a supported GPU is not an unsupported one,
/// and a skipped iGPU names no cause.
#[test]
fn close_formats_and_the_open_part_keep_other_lines_out() {
    // The wrapped error of amd_linux.go's permission check when /dev/kfd does not exist, as
    // ollama 0.4 logs it (discover/amd_linux.go verifyKFDDriverAccess, ErrNotExist branch).
    let no_kfd = "level=ERROR source=amd_linux.go:404 msg=\"amdgpu devices detected but \
                  permission problems block access: kfd driver not loaded.  If running in a \
                  container, remember to include '--device /dev/kfd --device /dev/dri'\"";
    assert!(
        !family_causes(no_kfd)
            .iter()
            .any(|c| c == "gpu-kfd-permission"),
        "{:?}",
        family_causes(no_kfd)
    );
    // https://github.com/ollama/ollama/issues/8828
    let supported = "time=2025-02-04T21:19:03.711Z level=INFO source=amd_linux.go:386 \
                     msg=\"amdgpu is supported\" gpu=GPU-e9de5de535a4a488 gpu_type=gfx1100";
    assert!(
        family_causes(supported).is_empty(),
        "{:?}",
        family_causes(supported)
    );
    // https://github.com/ollama/ollama/issues/4836
    let igpu = "time=2024-06-06T13:15:54.057+02:00 level=INFO source=amd_linux.go:233 \
                msg=\"unsupported Radeon iGPU detected skipping\" id=1 total=\"512.0 MiB\"";
    assert!(family_causes(igpu).is_empty(), "{:?}", family_causes(igpu));
}

/// A harmless row of this section is one whose printing code goes on normally: its reason
/// says so.
#[test]
fn harmless_rows_say_the_code_continues() {
    for f in &families()[first_row()..] {
        let harmless = super::super::causes::get(&f.cause).is_some_and(|c| c.harmless);
        if harmless && COMPONENTS.contains(&f.component.as_str()) {
            let r = f.reason.to_lowercase();
            assert!(
                r.contains("continue") || r.contains("carries on") || r.contains("falls through"),
                "{}",
                f.reason
            );
        }
    }
}

/// Real lines of formats whose printing code decides no cause give no family: RCCL's
/// environment advice (printed on every host that lacks the setting, whether or not the
/// transfers it concerns are used), MIOpen failing to reread the user find-db it is about to
/// rewrite (two processes sharing it, or its permissions: the code tells neither apart), and
/// ollama skipping its ISA check because an override is set.
#[test]
fn advice_and_undecided_lines_give_no_family() {
    for line in [
        // https://github.com/ROCm/rccl/issues/1026 (init.cc ncclInit, RCCL built without
        // hipDeviceMallocUncached: needed for PCIe peer-to-peer only, not over XGMI)
        "g1072:1263988:1263988 [3] /long_pathname_so_that_rpms_can_package_the_debug_info/src/\
         extlibs/rccl/build/src/init.cpp:126 NCCL WARN Missing \"HSA_FORCE_FINE_GRAIN_PCIE=1\" \
         from environment which can lead to low RCCL performance, system instablity or hang!",
        // https://github.com/ROCm/rccl/issues/1026
        "g1072:1263985:1263985 [0] /long_pathname_so_that_rpms_can_package_the_debug_info/src/\
         extlibs/rccl/build/src/init.cpp:122 NCCL WARN Missing \"iommu=pt\" from kernel command \
         line which can lead to system instablity or hang!",
        // https://github.com/ROCm/MIOpen/issues/114 (several MPI ranks sharing ~/.config/miopen)
        "MIOpen(HIP): Error [FlushUnsafe] File is unreadable: \
         /public/home/facepp1/.config/miopen//gfx906_64.HIP.2_0_0.ufdb.txt",
        // https://github.com/ollama/ollama/issues/8743
        "time=2025-01-31T19:32:23.233-05:00 level=INFO source=amd_linux.go:389 msg=\"skipping \
         rocm gfx compatibility check\" HSA_OVERRIDE_GFX_VERSION=10.3.0",
    ] {
        assert!(
            !table().attribute(line).is_empty(),
            "the line is of a harvested format: {line}"
        );
        assert!(
            family_causes(line).is_empty(),
            "{line}: {:?}",
            family_causes(line)
        );
    }
}

/// ollama's Windows driver row is printed where no AMD GPU is too (discover/gpu.go calls
/// AMDGetGPUInfo before it knows the vendor): beside ollama's line for an NVIDIA GPU (its
/// "inference compute" line in the format ollama logs it, with an NVIDIA GPU's name and values
/// of ours) the row stays silent; alone it answers.
#[test]
fn a_row_printed_without_an_amd_gpu_too_is_silent_beside_an_nvidia_one() {
    let line = "time=2024-08-30T09:43:00.852-05:00 level=DEBUG source=amd_windows.go:33 \
                msg=\"unable to load amdhip64_6.dll, please make sure to upgrade to the latest \
                amd driver: The specified module could not be found.\"";
    assert_eq!(family_causes(line), ["gpu-driver-missing"]);
    let nvidia = format!(
        "msg=\"inference compute\" id=GPU-5e1 library=cuda variant=v12 compute=8.6 driver=12.4 \
         name=\"NVIDIA GeForce RTX 3060\" total=\"12.0 GiB\"\n{line}"
    );
    assert!(family_causes(&nvidia).is_empty());
}
