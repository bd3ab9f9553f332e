#!/usr/bin/env python3
"""Harvests the user-visible error and warning format strings of the ROCm stack from its sources.

Writes checks/origins.toml: one row per (component, format), with every call site that prints it
(repository, file, line, function, and the condition in front of the call where the source shows
it), the printer, the level and what gates the print. `rocm-doctor why` and `log` turn each
format into a matcher (src/packs/origins.rs) and attribute the lines of a paste to their origin.

The sources are read from git directories, only through `git cat-file` at the pinned commit of
each repository (PINS below), so the table depends only on those commits, never on a work tree
or on the newest snapshot. A git directory is found as `--mirror DIR/<owner>+<name>/repo` (the
layout of the snapshots this project's tools fetch) or given per repository as
`--git owner/name=PATH`.

The amdgpu and amdkfd drivers are read from Debian's linux-source .debs (KERNEL and KERNEL_NEW
below: package, version and the .deb's SHA-256), given with --kernel-deb and --kernel-deb-new.

Getting the sources: each repository of PINS as a git directory holding the pinned commit (and
the OLDER tags' commits) under DIR/<owner>+<name>/repo. The project's snapshots were fetched
with the session's `fetch` tool (`fetch github:ROCm/amdsmi`, and so on for every repository in
PINS: ROCm/clr, ROCm/ROCR-Runtime, ROCm/rocBLAS, ROCm/hipBLASLt, ROCm/MIOpen, ROCm/rocminfo,
ollama/ollama, ROCm/amdsmi, ROCm/rocm_smi_lib, ROCm/Tensile, ROCm/rocFFT, ROCm/rocSPARSE,
ROCm/rocSOLVER, ROCm/rccl, ROCm/AMDMIGraphX, ggerganov/llama.cpp); a clone works as well:
  git clone --mirror https://github.com/ROCm/amdsmi DIR/ROCm+amdsmi/repo   # one per repository
The kernels: `apt-get download linux-source-6.1=6.1.192-2 linux-source-6.12=6.12.117-1~deb12u1`
(Debian bookworm-security). Needs Python 3.9+ (its `ast` reads the Python sources), git and
dpkg-deb.

The third harvest (issue 28: releases users still run, and sources not read before) also needs:
  fetch github:ROCm/HIP, fetch github:ROCm/hipamd       # or git clone --mirror, as above
  curl -O http://deb.debian.org/debian/pool/main/l/linux/linux-source-5.10_5.10.223-1_all.deb
  curl -O http://archive.ubuntu.com/ubuntu/pool/main/l/linux/linux-source-4.15.0_4.15.0-20.21_all.deb
  curl -O http://deb.debian.org/debian/pool/main/l/llvm-toolchain-21/llvm-toolchain-21_21.1.8.orig.tar.xz
(each checked against the SHA-256 pinned below: KERNEL_OLD, KERNEL_OLDEST, DEBIAN_SRC; their
Packages.xz / Sources.xz entries give the same paths and sums). It reads everything again with
the followers the first two did not have, then the older releases of OLDER_THIRD, the older
kernels and the Debian sources, and adds only formats the table does not have yet, each under
the second harvest's floors: no earlier row changes.

The fourth harvest (issue 28: sources not read before) also needs:
  curl -O http://deb.debian.org/debian/pool/main/l/linux/linux-source-7.2_7.2.13-1_all.deb
    # SHA-256 30a8c5fc63f9028a62e6d7b3f7f43bee67425dbce2a05fceba83f9b87c92083d (KERNEL_NEWEST)
  curl -O http://deb.debian.org/debian/pool/main/r/rocm-llvm/rocm-llvm_7.0.2+dfsg.orig.tar.xz
    # SHA-256 c0abd0b9d526c6f486a0065edf0e2ab749519f4ad3c8dccfcaea3a545651e5f9 (DEBIAN_SRC_FOURTH)
(sid's Packages.xz and Sources.xz give the same paths and sums; Tensile and MIOpen come from the
snapshots above, at the commits of OLDER_FOURTH). It reads Tensile and MIOpen at the older releases of OLDER_FOURTH, sid's
kernel, comgr and hipcc from the rocm-llvm tarball, and LLVM's AMDGPU backend, MCSubtargetInfo and
lld's ELF linker from the llvm-toolchain-21 tarball above, and adds only formats the table does
not have yet, under the second harvest's floors.

The fifth harvest needs nothing more: it reads MIOpen again at the commits above for the
formats a stringizing macro writes and the compiler log a failed build passes on (FIFTH).

Usage (K = the kernel .debs, L = the LLVM tarball, R = the rocm-llvm tarball):
  scripts/harvest-origins.py --mirror DIR --kernel-deb K61 --kernel-deb-new K612 \
      --kernel-deb-old K510 --kernel-deb-oldest K415 --debian-src llvm-toolchain-21=L \
      --kernel-deb-newest K72 --debian-src rocm-llvm=R [--check]
(--check compares with checks/origins.toml instead of writing it.)

Not harvested: PyTorch's HIP error paths (Debian's pytorch orig tarball, which sid's Sources.xz
lists, is not served by the mirror at hand, and a snapshot of pytorch/pytorch is too large to
fetch); CLR newer than the pin (its monorepo home, ROCm/rocm-systems, holds no projects/clr in its
snapshot), so CLR's kpack and HIP_FORCE_SPIRV_CODEOBJECT messages are not in the table; amd-smi
newer than its pin (the CPU-device line that names hsmp_acpi). Lines no source read prints as
pasted: rocminfo's `hsa api call failure at <file>` without the colon every release prints;
`hipBLASLt error: Heuristic Fetch Failed` without the `!` of rocBLAS's text. Lines too short to attribute alone under the
floors: ggml's `CUDA error: %s` / `%s error: %s` (9 letters), amdgpu's `GTT: %lluM ...`, CLR's
`     %s` (a list of ISAs after `Missing CO for these ISAs - `). A line under the floors that names
a source file and line is kept (MIN_LETTERS_FILE_LINE: ggml's `CUDA error %d at %s:%d: %s` and
`  current device: %d, in function %s at %s:%d`); src/packs/origins.rs attributes the short lines
of a prefix that says who prints them: CLR's file name (any file for a macro in a header, such as
`%s: Returned %s : %s`), and the amdgpu device of `dev_*` (the page-fault detail `\t RW: 0x%x`).

How printers, prefixes and gates work per component: the project's reference notes on message
origins (printer macros of each repository as read at these commits), summarised in docs/check-packs.md.
"""

import argparse
import ast
import os
import re
import subprocess
import sys

# The repositories read, each at one commit (the state of its default development branch in
# Oct 2024, before ROCm's monorepo move; ollama at its Aug 2026 `main`).
PINS = {
    "ROCm/clr": "f9f995c6d0aecec28debd3db0f41df0c15ec003d",
    "ROCm/ROCR-Runtime": "c7785a6da1c10c25bc8d527c00b1fe79bfbd84c9",
    "ROCm/rocBLAS": "b520bc83fa67045bed4544f33ba83ce3a7c39c44",
    "ROCm/hipBLASLt": "7d9fb683db25941d38c5f89749a2c26acc493992",
    "ROCm/MIOpen": "2d1fd997a6fcf801ac4ca7a63e0656ef1cb9f488",
    "ROCm/rocminfo": "c6f7a17c85e0cdd75bf062e7a3490e831c87eb94",
    "ollama/ollama": "fb30760996871fa9460115c753afd2c60d4ab0f7",
    # Added for issue 28's second harvest (each the default branch's state in its snapshot).
    "ROCm/amdsmi": "0ceca28f4139dced5e9b5739a3f393780d7add48",
    "ROCm/rocm_smi_lib": "a1295714f2f6eefa5c55bf5779d17d163ed0e3d0",
    "ROCm/Tensile": "a164ed70df55ceb076f4a1f2fa2ea11f0f1384cc",
    "ROCm/rocFFT": "89e4dcaf18fdf476a21bf8540c0805657741ee41",
    "ROCm/rocSPARSE": "1c69e401f12351efb3f16700a8a557f3b772ab4e",
    "ROCm/rocSOLVER": "f7e1b6add9961fbcf14d5a47fa2c807540d32c70",
    "ROCm/rccl": "0cbce2a7571c907554199fad7e905f16ec0a565c",
    "ROCm/AMDMIGraphX": "f729a52fafa209a094eb8c6df3433e94423577fe",
    "ggerganov/llama.cpp": "c392e5094deaf2d1a7c18683214f007fad3fe42b",
}

# Older releases users still run, read after the pins above: they add only the formats whose
# text the newer commit no longer prints (each such site names its release with `at`).
# (repository, release tag, the tag's commit)
OLDER = [
    ("ROCm/clr", "rocm-5.7.0", "d1770ee1baf5ede2e723490024d5038e95df85b6"),
    ("ollama/ollama", "v0.5.7", "a420a453b4783841e3e79c248ef0fe9548df6914"),
    ("ggerganov/llama.cpp", "b3400", "97bdd26eee11fe109dec00de75690ceef61c03f2"),
    ("ggerganov/llama.cpp", "b2700", "aed82f6837a3ea515f4d50201cfc77effc7d41b4"),
    ("ggerganov/llama.cpp", "b1500", "57ad015dc3011b046ed5a23186c86ea55f987c54"),
    ("ROCm/AMDMIGraphX", "rocm-6.0.0", "7f8f0fd0fa3be948bd9e86223f2dee8f9d5103ad"),
]

# The third harvest (issue 28: the releases users still run). Read after everything above, it adds
# only formats the table does not have yet, each under the second harvest's floors (MIN_LETTERS_SECOND,
# MIN_HEAD_SECOND), so no earlier row changes. (component, repository, release tag, the tag's
# commit, path prefixes; None: the component's own prefixes.) HIP's runtime lived in ROCm/HIP's
# `rocclr/` directory (ROCm 3.5-4.3, "hip-on-vdi": the `/src/external/hip-on-vdi/rocclr/...` paths
# of ROCm's own builds) and in ROCm/hipamd's `src/` (ROCm 4.5-5.6) before ROCm/clr.
OLDER_THIRD = [
    ("clr", "ROCm/hipamd", "rocm-5.5.1", "eaf00c0b70cdf41388ab919771757d009bc62996", ["src/"]),
    ("clr", "ROCm/hipamd", "rocm-5.2.3", "02187ecfc8a1a6ed2bbca29000a83dec5a61cb7f", ["src/"]),
    ("clr", "ROCm/HIP", "rocm-4.2.0", "37cb3a34938af39303b73aceb2d7803f5c7ca7ca", ["rocclr/"]),
    ("clr", "ROCm/HIP", "rocm-3.9.0", "6d111f85ce652cf52ba432a2b33b36d48c10f4c3", ["rocclr/"]),
    ("miopen", "ROCm/MIOpen", "rocm-5.5.1", "bbedde37d9452809c975896de21d599b05213916", None),
    ("miopen", "ROCm/MIOpen", "rocm-4.2.0", "a7131eb8570891d40580b7fe14f5a2ee89d24e3b", None),
    # ollama's AMD discovery before `discover/` (gpu/amd_*.go), by the generations of its texts
    ("ollama", "ollama/ollama", "v0.3.14", "f2890a4494f9fb3722ee7a4c506252362d1eab65", ["discover/", "gpu/"]),
    ("ollama", "ollama/ollama", "v0.1.45", "e01e535cbbb92e0d9645bd726e259e7d8a6c7598", ["gpu/"]),
    ("ollama", "ollama/ollama", "v0.1.32", "fb9580df85c562295d919b6c2632117d3d8cea89", ["gpu/"]),
]

C_EXT = (".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".hh", ".hxx")

# Printers: name -> (kind, level, gate). kind: `printf` (the first argument that is a string
# literal, or a concatenation of them, is the format), `stream` (a `<<` chain after the name
# up to `;`), `macro-stream` (the call's argument is a `<<` chain), `clprint` (level in the
# first argument), `go-slog` (constant message), `go-fmt` (Go printf).
CLR = {
    "ClPrint": ("clprint", None, None),
    "LogPrintfError": ("printf", "error", "always (AMD_LOG_LEVEL >= 1)"),
    "LogPrintfWarning": ("printf", "warning", "AMD_LOG_LEVEL >= 2"),
    "LogPrintfInfo": ("printf", "info", "AMD_LOG_LEVEL >= 3"),
    "LogError": ("printf", "error", "always (AMD_LOG_LEVEL >= 1)"),
    "LogWarning": ("printf", "warning", "AMD_LOG_LEVEL >= 2"),
    "LogInfo": ("printf", "info", "AMD_LOG_LEVEL >= 3"),
    "guarantee": ("printf", "fatal", "always (then abort)"),
    "fprintf": ("printf", "error", "always"),
}
ROCR = {
    "fprintf": ("printf", "error", "always"),
    "pr_err": ("printf", "error", "HSAKMT_DEBUG_LEVEL >= 3"),
    "pr_err_once": ("printf", "error", "HSAKMT_DEBUG_LEVEL >= 3, once"),
    "pr_warn": ("printf", "warning", "HSAKMT_DEBUG_LEVEL >= 4"),
    "pr_warn_once": ("printf", "warning", "HSAKMT_DEBUG_LEVEL >= 4, once"),
    "pr_info": ("printf", "info", "HSAKMT_DEBUG_LEVEL >= 6"),
    "debug_print": ("printf", "error", "debug builds only"),
}
ROCBLAS = {
    "rocblas_cerr": ("stream", "error", "always"),
    "print_once": ("stream-args", "warning", "always, once per process"),
    "std::cerr": ("stream", "error", "always"),
    "fprintf": ("printf", "error", "always"),
}
HIPBLASLT = {
    "log_error": ("printf-or-stream", "error", "HIPBLASLT_LOG_LEVEL >= 1 or HIPBLASLT_LOG_MASK"),
    "rocblaslt_log_error": ("printf-or-stream", "error", "HIPBLASLT_LOG_LEVEL >= 1 or HIPBLASLT_LOG_MASK"),
    "log_info": ("printf-or-stream", "info", "HIPBLASLT_LOG_LEVEL >= 4"),
    "hipblaslt_cerr": ("stream", "error", "always"),
    "rocblaslt_cerr": ("stream", "error", "always"),
    "std::cerr": ("stream", "error", "always"),
    "print_once": ("stream-args", "warning", "always, once per process"),
    "fprintf": ("printf", "error", "always"),
}
MIOPEN = {
    "MIOPEN_LOG_E": ("macro-stream", "error", "MIOPEN_LOG_LEVEL >= 3 (on by default)"),
    "MIOPEN_LOG_W": ("macro-stream", "warning", "MIOPEN_LOG_LEVEL >= 4 (on by default)"),
    "MIOPEN_LOG_WE": ("macro-stream", "warning", "MIOPEN_LOG_LEVEL >= 4 (on by default)"),
    "MIOPEN_LOG_I": ("macro-stream", "info", "MIOPEN_LOG_LEVEL >= 5"),
    "MIOPEN_THROW": ("throw", "error", "thrown; printed by the caller"),
    "MIOPEN_THROW_IF": ("throw-if", "error", "thrown; printed by the caller"),
}
# Printers the third harvest follows too (new rows only): MIOpen's MIOPEN_LOG(level, chain), whose
# level is the caller's variable (src/include/miopen/logger.hpp; db.cpp and sqlite_db.hpp pass a
# warning or an info level), the form that prints the database warnings users meet.
MIOPEN_THIRD = {
    "MIOPEN_LOG": ("macro-stream-level", "warning", "MIOPEN_LOG_LEVEL >= the level the caller passes (a warning or info)"),
}
ROCMINFO = {
    "printf": ("printf", "error", "always (stdout)"),
    "fprintf": ("printf", "error", "always"),
    "std::cerr": ("stream", "error", "always"),
}
OLLAMA = {
    "slog.Error": ("go-slog", "error", "always"),
    "slog.Warn": ("go-slog", "warning", "always"),
    "slog.Info": ("go-slog", "info", "always"),
    "fmt.Errorf": ("go-fmt", "error", "returned; logged by the caller"),
    "fmt.Sprintf": ("go-fmt", "warning", "formatted, then logged by the caller"),
}

# Printers of the components added by issue 28's second harvest (each read at its pin).
RCCL = {
    # src/include/debug.h: WARN prints `<host>:<pid>:<tid> [<dev>] NCCL WARN <text>`, INFO
    # `... NCCL INFO <text>` (the first argument is a subsystem mask, the format follows it).
    "WARN": ("printf", "warning", "NCCL_DEBUG=WARN or more verbose (WARN is the default for errors)"),
    "INFO": ("printf", "info", "NCCL_DEBUG=INFO and the NCCL_DEBUG_SUBSYS mask"),
}
MATHLIB = {
    "std::cerr": ("stream", "error", "always"),
    "rocfft_cerr": ("stream", "error", "always"),
    "fprintf": ("printf", "error", "always"),
    "fmt::print": ("fmt", "error", "always"),
    "std::runtime_error": ("concat", "error", "thrown; printed by the caller"),
    "std::invalid_argument": ("concat", "error", "thrown; printed by the caller"),
}
MIGRAPHX = {
    # MIGRAPHX_THROW prefixes `<file>:<line>: <function>: ` (src/include/migraphx/errors.hpp)
    "MIGRAPHX_THROW": ("concat", "error", "thrown; printed by the caller"),
    "std::cerr": ("stream", "error", "always"),
    "log::error()": ("stream", "error", "always"),
    "log::warn()": ("stream", "warning", "always"),
}
LLAMA = {
    # ggml's logger (ggml/src/ggml.c ggml_log_internal) prints to stderr; ggml_abort prefixes
    # `<file>:<line>: `.
    "GGML_LOG_ERROR": ("printf", "error", "always"),
    "GGML_LOG_WARN": ("printf", "warning", "always"),
    "GGML_LOG_INFO": ("printf", "info", "always"),
    "GGML_CUDA_LOG_ERROR": ("printf", "error", "always"),
    "GGML_CUDA_LOG_WARN": ("printf", "warning", "always"),
    "GGML_CUDA_LOG_INFO": ("printf", "info", "always"),
    "GGML_ABORT": ("printf", "fatal", "always (then abort)"),
    "ggml_abort": ("printf", "fatal", "always (then abort)"),
    "fprintf": ("printf", "error", "always"),
}
# Python printers: name -> (level, gate). `raise X` is an exception whose text the caller or
# the interpreter prints.
AMDSMI_PY = {
    "logging.error": ("error", "always (Python logging, `ERROR:root:`)"),
    "logging.warning": ("warning", "always (Python logging, `WARNING:root:`)"),
    "logging.info": ("info", "amd-smi --loglevel INFO"),
    "raise ValueError": ("error", "raised; printed by the caller"),
    "raise PermissionError": ("error", "raised; printed by the caller"),
    "raise FileNotFoundError": ("error", "raised; printed by the caller"),
}
ROCMSMI_PY = {
    # rocm_smi.py printErrLog: `GPU[<dev>]\t: <text>` through logging.error (or .warning)
    "printErrLog": ("error", "always (`ERROR: GPU[N]\t: ` through Python logging)"),
    "logging.error": ("error", "always (Python logging)"),
    "logging.warning": ("warning", "always (Python logging)"),
}
TENSILE_PY = {
    # Tensile/Common.py: printWarning is warnings.warn (UserWarning), printExit prints, exits -1
    "printWarning": ("warning", "always (a Python UserWarning)"),
    "printExit": ("fatal", "always (then exit -1)"),
    "warnings.warn": ("warning", "always (a Python warning)"),
    "raise RuntimeError": ("error", "raised; printed by the caller"),
    "raise ValueError": ("error", "raised; printed by the caller"),
    "raise Exception": ("error", "raised; printed by the caller"),
}

_KV = ("printf", "error", "always (kernel log)")
KERNEL_PRINTERS = {}
for _p, _lv in (("dev_err", "error"), ("dev_warn", "warning"), ("dev_info", "info"),
                ("dev_notice", "info"), ("drm_err", "error"), ("drm_warn", "warning"),
                ("drm_info", "info"), ("pr_err", "error"), ("pr_warn", "warning"),
                ("pr_info", "info"), ("pr_notice", "info")):
    KERNEL_PRINTERS[_p] = ("printf", _lv, "always (kernel log)")
    KERNEL_PRINTERS[_p + "_once"] = ("printf", _lv, "once per boot (kernel log)")
    KERNEL_PRINTERS[_p + "_ratelimited"] = ("printf", _lv, "rate-limited (kernel log)")
for _p, _lv in (("DRM_ERROR", "error"), ("DRM_WARN", "warning"), ("DRM_INFO", "info"),
                ("DRM_NOTE", "info"), ("DRM_ERROR_RATELIMITED", "error"), ("DRM_WARN_ONCE", "warning"),
                ("DRM_INFO_ONCE", "info")):
    KERNEL_PRINTERS[_p] = ("printf", _lv, "always (kernel log)")

# The kernel driver: Debian's source package (its version and the .deb's SHA-256 pin it), read
# from the .deb given with --kernel-deb (`apt-get download linux-source-6.1=VERSION`).
KERNEL = {
    "package": "linux-source-6.1",
    "version": "6.1.192-2",
    "sha256": "ae95fe63d4c553f8d0e6c86cb1ab566f3894a43743eb19ab585cd97d82f26514",
    "dirs": {"amdgpu": "drivers/gpu/drm/amd/amdgpu/", "amdkfd": "drivers/gpu/drm/amd/amdkfd/"},
}
# A newer kernel, read after the one above: it adds only the formats 6.1 does not print (page
# fault details, new IP blocks), each site naming this package (`apt-get download
# linux-source-6.12=VERSION`, given with --kernel-deb-new).
KERNEL_NEW = {
    "package": "linux-source-6.12",
    "version": "6.12.117-1~deb12u1",
    "sha256": "e849faf31ca3555757f3a8877cb01af92122f744f75d1f3102734651c4e14703",
    "dirs": KERNEL["dirs"],
}

# Older kernels users still run, read after the two above (third harvest: new formats only, under
# the second harvest's floors). Debian bullseye's 5.10 (`apt-get download linux-source-5.10=VERSION`
# with bullseye in the sources, or http://deb.debian.org/debian/pool/main/l/linux/<file>) also gives
# the kernel components that print beside amdgpu under its device prefix: the firmware loader
# (`Direct firmware load for ... failed`) and the PCI core's own files (`enabling device`).
KERNEL_OLD = {
    "package": "linux-source-5.10",
    "version": "5.10.223-1",
    "sha256": "f733d27d239d65598d96d7a72f71ac50f49f2380192a1b3b4ca2f5ad5144dd63",
    "dirs": dict(KERNEL["dirs"], **{"kernel firmware loader": "drivers/base/firmware_loader/",
                                    "kernel PCI core": "drivers/pci/"}),
}
# Ubuntu 18.04's 4.15 (ROCm 1.x-3.x's platform; Debian's 4.19 is on archive.debian.org only): the
# KFD of its time printed `kfd kfd: added device`, `DID ... is missing in supported_devices`,
# `kfd not supported on this ASIC`. http://archive.ubuntu.com/ubuntu/pool/main/l/linux/<file>
# (bionic's release pocket: dists/bionic/main/binary-amd64/Packages.xz gives path and SHA-256).
KERNEL_OLDEST = {
    "package": "linux-source-4.15.0",
    "version": "4.15.0-20.21",
    "sha256": "c3596705548e548b6d701f37a45fcb2afaf67dc9f91dcadd5c70853e56a93253",
    "dirs": KERNEL["dirs"],
}
# Only the PCI core's own files (drivers/pci/*.c), not its host controllers and hotplug drivers.
FLAT_DIRS = {"kernel PCI core"}
# The PCI core prints through pci_err/pci_warn/pci_info (include/linux/pci.h: dev_* on the
# device), so its lines carry the driver's prefix (`amdgpu 0000:03:00.0: enabling device ...`).
KERNEL_PRINTERS_THIRD = dict(KERNEL_PRINTERS)
for _p, _lv in (("pci_err", "error"), ("pci_warn", "warning"), ("pci_info", "info"), ("pci_notice", "info")):
    KERNEL_PRINTERS_THIRD[_p] = ("printf", _lv, "always (kernel log)")
# The device prefix dev_printk prints before a kernel format (drivers/base/core.c: the driver's
# or the class's name, then the device's): KFD's own device is `kfd` of class `kfd`
# (amdkfd/kfd_chardev.c: kfd_dev_name "kfd", class_create and device_create with that name). A
# format too short to attribute alone is kept with the prefix it is printed under.
DEVICE_PREFIX = {"kfd_device": "kfd kfd: "}

# Debian source packages (third harvest), each pinned by its orig tarball's SHA-256 and given with
# `--debian-src NAME=PATH`. Sid's Sources.xz (http://deb.debian.org/debian/dists/sid/main/source/
# Sources.xz) gives each file's Directory and SHA-256; the file is
# http://deb.debian.org/debian/<Directory>/<file>. LLVM: clang's diagnostics (TableGen
# `def err_... : Error<"...">` in clang/include/clang/Basic/Diagnostic*Kinds.td), only those a
# ROCm user meets (their text or name speaks of HIP, AMDGPU, gfx targets, xnack/sramecc, target
# IDs and CPUs, offloading, GPUs, code objects or bundles: TD_KEEP).
DEBIAN_SRC = {
    "llvm-toolchain-21": {
        "version": "1:21.1.8-14",
        "file": "llvm-toolchain-21_21.1.8.orig.tar.xz",
        "sha256": "d983d6b6ffce1d413a1910a9fd00f794bb99a5ae4c4e7d23d18a99254640f4eb",
        "component": "clang",
        "paths": r"^clang/include/clang/Basic/Diagnostic\w*Kinds\.td$",
    },
}
TD_DEF = re.compile(r'\bdef\s+(\w+)\s*:\s*(Error|Warning|ExtWarn|Remark)\s*<\s*((?:"(?:\\.|[^"\\])*"\s*)+)')
TD_KEEP = re.compile(r"(?i)\bhip|amdgpu|amdgcn|gfx|xnack|sramecc|offload|\bgpu\b|rocm|device[- ]lib|"
                     r"target (cpu|id|triple|feature)|code object|\bcuda\b|bundle")
TD_LEVEL = {
    "Error": ("error", "always (`clang: error: ...` from the driver, `<file>:<line>:<col>: error: ...` from the compiler)"),
    "Warning": ("warning", "on unless its group is disabled (-Wno-<group>)"),
    "ExtWarn": ("warning", "on unless its group is disabled (-Wno-<group>); an error with -pedantic-errors"),
    "Remark": ("info", "with -R<group>"),
}

# The fourth harvest (issue 28: sources not read before). Read after everything above, it adds only
# formats the table does not have yet, each under the second harvest's floors, so no earlier row
# changes. Older releases whose texts the pins no longer print: Tensile before its printWarning
# became a Python warning (rocm-6.2.0's Tensile/Common.py: `print("Tensile::WARNING: %s" %
# message)`, and printExit's `Tensile::FATAL: `; the prefix is read from the printer's definition
# at that commit, PY_PREFIXED), and MIOpen 1.2 (ROCm 1.7), whose db_record.cpp printed `File is
# unreadable.` without the file's name. (component, repository, release tag, commit, prefixes.)
OLDER_FOURTH = [
    ("Tensile", "ROCm/Tensile", "rocm-6.2.0", "dbc2062dced66e4cbee8e0591d76e0a1588a4c70", None),
    ("miopen", "ROCm/MIOpen", "1.2.1", "cf3d0519c64e63da4146f2251e8a3f9c66048f5e", None),
]
# A Python printer defined as `def NAME(message): print("<prefix>%s" % message)` prints its prefix
# before every message; the fourth harvest puts it in front of the formats of these printers.
PY_PREFIXED = ("printWarning", "printExit")
PY_PREFIX_DEF = re.compile(r'^def (\w+)\(message\):\n[ \t]+print\("((?:\\.|[^"\\%])*)%s" % message\)', re.M)

# A kernel newer than 6.12: its page-fault report names the task on its own line (amdgpu_vm.c
# amdgpu_vm_print_task_info: ` Process %s pid %d thread %s pid %d`), which 6.12 printed inside
# the fault line. Debian sid's linux-source (Packages.xz gives path and SHA-256;
# http://deb.debian.org/debian/pool/main/l/linux/<file>), given with --kernel-deb-newest.
KERNEL_NEWEST = {
    "package": "linux-source-7.2",
    "version": "7.2.13-1",
    "sha256": "30a8c5fc63f9028a62e6d7b3f7f43bee67425dbce2a05fceba83f9b87c92083d",
    "dirs": KERNEL["dirs"],
}

# comgr (amd_comgr: its action log, the log CLR prints when a build or a link fails; stderr for its
# own tools) and hipcc (its C++ driver, amd/hipcc/src), from Debian's rocm-llvm source package
# (its orig tarball holds the amd/ directory of llvm-project at rocm-7.0.2).
COMGR = {
    "LogS": ("stream", "error", "in the action's log (returned to the caller, which prints it when the "
                                "action fails; AMD_COMGR_EMIT_VERBOSE_LOGS=1 and AMD_COMGR_REDIRECT_LOGS=stderr show it)"),
    "errs()": ("stream", "error", "always (stderr)"),
    "llvm::errs()": ("stream", "error", "always (stderr)"),
    "createStringError": ("macro-stream", "error", "returned as an error; logged by the caller"),
}
HIPCC = {
    "std::cerr": ("stream", "error", "always (stderr)"),
}
# LLVM's AMDGPU backend and the subtarget checks every backend shares (MCSubtargetInfo.cpp: an
# unknown -mcpu or feature), and lld's ELF linker (`ld.lld: error: <text>`), from the LLVM tarball
# the third harvest reads for clang's diagnostics.
LLVM_BACKEND = {
    "errs()": ("stream", "error", "always (stderr)"),
    "report_fatal_error": ("macro-stream", "fatal", "always (`LLVM ERROR: <text>`, then abort)"),
    "reportFatalUsageError": ("macro-stream", "fatal", "always (`LLVM ERROR: <text>`, then exit)"),
    "DiagnosticInfoUnsupported": ("macro-stream", "error", "always (`error: <location>: in function <f>: <text>`)"),
    "emitError": ("macro-stream", "error", "always (`error: <text>`)"),
    "reportError": ("macro-stream", "error", "always (`error: <text>`)"),
    "reportWarning": ("macro-stream", "warning", "always (`warning: <text>`)"),
}
LLD = {
    "ErrAlways(ctx)": ("stream", "error", "always (`ld.lld: error: <text>`)"),
    "Err(ctx)": ("stream", "error", "always (`ld.lld: error: <text>`; a warning with --noinhibit-exec)"),
    "Warn(ctx)": ("stream", "warning", "always (`ld.lld: warning: <text>`)"),
    "Fatal(ctx)": ("stream", "fatal", "always (`ld.lld: error: <text>`, then exit)"),
    "ctx.e.error": ("macro-stream", "error", "always (`ld.lld: error: <text>`)"),
}
# Debian source packages of the fourth harvest: (component, path pattern, printers) per part.
DEBIAN_SRC_FOURTH = {
    "rocm-llvm": {
        "version": "7.0.2+dfsg-3",
        "file": "rocm-llvm_7.0.2+dfsg.orig.tar.xz",
        "sha256": "c0abd0b9d526c6f486a0065edf0e2ab749519f4ad3c8dccfcaea3a545651e5f9",
        "parts": [("comgr", r"^amd/comgr/src/[\w.-]+\.(cpp|h)$", COMGR),
                  ("hipcc", r"^amd/hipcc/src/[\w.-]+\.(cpp|h)$", HIPCC)],
    },
    "llvm-toolchain-21": {
        "parts": [("LLVM", r"^llvm/lib/MC/MCSubtargetInfo\.cpp$|^llvm/lib/Target/AMDGPU/[\w/.-]+\.(cpp|h)$",
                   LLVM_BACKEND),
                  ("lld", r"^lld/ELF/[\w/.-]+\.(cpp|h)$", LLD)],
    },
}

# (component, repository, path prefixes, printers). The second harvest's components are named
# as users know them (`component_name` in src/packs/origins.rs shows other names as they are).
SPECS = [
    ("clr", "ROCm/clr", ["hipamd/src/", "rocclr/device/rocm/", "rocclr/device/", "rocclr/platform/", "rocclr/os/", "rocclr/utils/"], CLR),
    ("rocr", "ROCm/ROCR-Runtime", ["src/core/", "src/loader/", "src/image/", "runtime/hsa-runtime/core/", "runtime/hsa-runtime/loader/", "runtime/hsa-runtime/image/", "libhsakmt/src/"], ROCR),
    ("rocblas", "ROCm/rocBLAS", ["library/src/"], ROCBLAS),
    ("hipblaslt", "ROCm/hipBLASLt", ["library/src/"], HIPBLASLT),
    ("miopen", "ROCm/MIOpen", ["src/"], MIOPEN),
    ("rocminfo", "ROCm/rocminfo", ["rocminfo.cc"], ROCMINFO),
    ("ollama", "ollama/ollama", ["discover/"], OLLAMA),
    ("amd-smi", "ROCm/amdsmi", ["amdsmi_cli/", "py-interface/"], AMDSMI_PY),
    ("rocm-smi", "ROCm/rocm_smi_lib", ["python_smi_tools/rocm_smi.py"], ROCMSMI_PY),
    ("Tensile", "ROCm/Tensile", ["Tensile/"], TENSILE_PY),
    ("rocFFT", "ROCm/rocFFT", ["library/src/"], MATHLIB),
    ("rocSPARSE", "ROCm/rocSPARSE", ["library/src/"], MATHLIB),
    ("rocSOLVER", "ROCm/rocSOLVER", ["library/src/"], MATHLIB),
    ("RCCL", "ROCm/rccl", ["src/"], RCCL),
    ("MIGraphX", "ROCm/AMDMIGraphX", ["src/"], MIGRAPHX),
    ("llama.cpp", "ggerganov/llama.cpp", ["ggml/src/ggml-cuda/", "ggml/src/ggml-hip/", "ggml/include/ggml.h"], LLAMA),
]

# The repositories of the second harvest (their tests and samples are not read).
SECOND = {r for _, r, _, _ in SPECS[7:]}

# Extra prefixes read at an older release (files that moved since): llama.cpp's CUDA/HIP backend
# was one file at the top before the ggml/ split.
OLDER_PREFIXES = {"ggerganov/llama.cpp": ["ggml-cuda.cu", "ggml-cuda/", "ggml-cuda.h", "ggml.h", "ggml/src/ggml-cuda.cu"]}
# Extensions read beyond C_EXT: the CUDA/HIP sources of llama.cpp.
EXTRA_EXT = {"llama.cpp": (".cu", ".cuh")}
# Paths never read: tests, archived scripts and client samples.
SKIP = re.compile(r"(^|/)(tests?|Tests|archive|samples?|example[s]?|clients)/")

# A format must carry this many letters of literal text to be kept. The matchers need 12 to
# attribute a line on its text alone; shorter formats are kept for the lines whose prefix names
# their source file (CLR's `:1:hip_code_object.cpp :509 :` before `    %s - [%s]`).
MIN_LETTERS = 3
# The sources of the second harvest (and the newer kernel) keep only formats that can attribute a
# line alone: the matchers' own floor (MIN_LETTERS in src/packs/origins.rs), which keeps the
# table's size and its parse time in check.
MIN_LETTERS_SECOND = 12
# ... and only formats none of whose matchers keys on fewer letters than this: a 12-letter head
# such as "%s: invalid device " or "Kernel version: " also matches other programs' lines
# (PyTorch's "HIP error: invalid device function", a user's "Kernel version: 6.11").
MIN_HEAD_SECOND = 14

CLR_LEVELS = {"LOG_NONE": 0, "LOG_ERROR": 1, "LOG_WARNING": 2, "LOG_INFO": 3, "LOG_DEBUG": 4, "LOG_EXTRA_DEBUG": 5}
LEVEL_NAMES = {0: "fatal", 1: "error", 2: "warning", 3: "info"}


class Git:
    def __init__(self, gitdir):
        self.gitdir = gitdir

    def run(self, *args):
        return subprocess.run(["git", "--git-dir", self.gitdir, *args], check=True,
                              capture_output=True, timeout=600).stdout

    def files(self, commit, prefixes):
        out = self.run("ls-tree", "-r", "--name-only", "-z", commit).decode()
        names = [n for n in out.split("\0") if n]
        return sorted(n for n in names if any(n == p or n.startswith(p) for p in prefixes))

    def blobs(self, commit, paths):
        """The text of each path at commit, through one `git cat-file --batch`."""
        inp = "".join(f"{commit}:{p}\n" for p in paths).encode()
        out = subprocess.run(["git", "--git-dir", self.gitdir, "cat-file", "--batch"], input=inp,
                             check=True, capture_output=True, timeout=600).stdout
        res, i = {}, 0
        for p in paths:
            nl = out.index(b"\n", i)
            head = out[i:nl].split()
            if len(head) < 3 or head[1] != b"blob":  # missing (a large file not in the snapshot)
                i = nl + 1
                continue
            size = int(head[2])
            res[p] = out[nl + 1:nl + 1 + size].decode("utf-8", "replace")
            i = nl + 1 + size + 1
        return res


# --- C/C++ lexing -------------------------------------------------------------------------------

ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "r": "", "0": "", "a": "", "e": "\x1b"}


def read_c_string(s, i):
    """s[i] == '"': returns (text, index after the closing quote)."""
    out, i = [], i + 1
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n == "x":
                m = re.match(r"[0-9a-fA-F]{1,2}", s[i + 2:])
                out.append(chr(int(m.group(0), 16)) if m else "")
                i += 2 + (len(m.group(0)) if m else 0)
                continue
            if n == "\n":
                i += 2
                continue
            out.append(ESCAPES.get(n, n))
            i += 2
            continue
        if c == '"':
            return "".join(out), i + 1
        out.append(c)
        i += 1
    return "".join(out), i


def strip_comments(src):
    """Blanks C/C++ comments (keeping newlines, so line numbers stay) and leaves strings intact."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c == '"':
            _, j = read_c_string(src, i)
            out.append(src[i:j])
            i = j
        elif c == "'":
            m = re.match(r"'(\\.|[^'\\])*'", src[i:])
            j = i + (len(m.group(0)) if m else 1)
            out.append(src[i:j])
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_top(s, sep):
    """Splits s at top-level occurrences of sep (outside brackets, strings and chars)."""
    parts, depth, i, start = [], 0, 0, 0
    while i < len(s):
        c = s[i]
        if c == '"':
            _, i = read_c_string(s, i)
            continue
        if c == "'":
            m = re.match(r"'(\\.|[^'\\])*'", s[i:])
            i += len(m.group(0)) if m else 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and s.startswith(sep, i):
            parts.append(s[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    parts.append(s[start:])
    return parts


def call_args(src, open_paren):
    """The text between src[open_paren] == '(' and its matching ')' (None when unbalanced)."""
    depth, i = 0, open_paren
    while i < len(src):
        c = src[i]
        if c == '"':
            _, i = read_c_string(src, i)
            continue
        if c == "'":
            m = re.match(r"'(\\.|[^'\\])*'", src[i:])
            i += len(m.group(0)) if m else 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return src[open_paren + 1:i]
        elif c == ";" and depth <= 1 and src[open_paren - 1:open_paren] != "r":
            pass
        i += 1
    return None


# Macros that expand to a string literal in the build users run: llama.cpp's HIP build defines
# GGML_CUDA_NAME "ROCm" (ggml/include/ggml-cuda.h, `#if defined(GGML_USE_HIP)`) and CUBLAS_NAME
# "hipBLAS" beside it.
LITERAL_MACROS = {"GGML_CUDA_NAME": "ROCm", "CUBLAS_NAME": "hipBLAS"}

PRI = re.compile(r"^PRI([diouxX])(8|16|32|64|PTR|MAX)$")


def literal_concat(arg):
    """The string of an argument made of adjacent literals (and PRIx64-style macros), else None."""
    s, i, out, seen = arg.strip(), 0, [], False
    while i < len(s):
        c = s[i]
        if c.isspace():
            i += 1
        elif c == '"':
            t, i = read_c_string(s, i)
            out.append(t)
            seen = True
        elif re.match(r"(u8|L|u|U)\"", s[i:i + 3]):
            i = s.index('"', i)
        else:
            m = re.match(r"[A-Za-z_]\w*", s[i:])
            if not m:
                return None
            name = m.group(0)
            p = PRI.match(name)
            if p:
                out.append(p.group(1))
            elif name in ("KRED", "KGRN", "KNRM", "COL_RED", "COL_RESET", "COL_BLU", "COL_GRN"):
                pass
            elif name in LITERAL_MACROS:
                out.append(LITERAL_MACROS[name])
            else:
                return None
            i += len(name)
    return "".join(out) if seen else None


def fill_literal_args(fmt, args):
    """`("%s", "text")`: a `%s` whose argument is a literal prints that literal (CLR's
    `LogPrintfError("%s", "hipErrorNoBinaryForGpu: ...")`). Only for formats whose every
    conversion is `%s`, so arguments line up with conversions."""
    convs = re.findall(r"%.", fmt.replace("%%", ""))
    if not convs or any(c != "%s" for c in convs) or len(args) < len(convs):
        return fmt
    out, k = [], 0
    for piece in re.split(r"(%%|%s)", fmt):
        if piece == "%s":
            lit = literal_concat(args[k])
            out.append(lit.replace("%", "%%") if lit is not None else "%s")
            k += 1
        else:
            out.append(piece)
    return "".join(out)


def stream_format(chain, sep="<<"):
    """A `<<` chain (or a `+` concatenation, sep "+") as a template: literal pieces exact,
    every other operand a `{}` capture."""
    out, any_lit = [], False
    for piece in split_top(chain, sep):
        p = piece.strip()
        if not p:
            continue
        lit = literal_concat(p)
        if lit is not None:
            out.append(lit.replace("{", "{{").replace("}", "}}"))
            any_lit = True
        elif p in ("std::endl", "endl", "'\\n'", "std::flush"):
            out.append("\n" if "endl" in p or "n" in p else "")
        elif re.fullmatch(r"'(\\.|[^'\\])'", p):
            ch = p[1:-1]
            ch = ESCAPES.get(ch[1], ch[1]) if ch.startswith("\\") else ch
            out.append(ch.replace("{", "{{").replace("}", "}}"))
        else:
            out.append("{}")
    return "".join(out) if any_lit else None


# --- where a call sits: its function and the condition that guards it ---------------------------

KEYWORDS = {"if", "for", "while", "switch", "return", "catch", "sizeof", "else", "do", "case", "defined", "decltype", "static_assert"}
FUNC_RE = re.compile(r"^[A-Za-z_][\w:<>,\*&\s~]*?\b([A-Za-z_~][\w:~]*)\s*\(")


def enclosing_function(lines, idx):
    for j in range(idx, max(-1, idx - 400), -1):
        ln = lines[j]
        if not ln or ln[0].isspace() or ln.startswith(("#", "}", "{", "//")):
            continue
        m = FUNC_RE.match(ln)
        if m and m.group(1).split("::")[-1] not in KEYWORDS and not ln.rstrip().endswith(";"):
            return m.group(1)
    return ""


def guarding_condition(lines, idx):
    """The condition of the nearest `if (...)` on the call's line or the two lines above it."""
    for j in range(idx, max(-1, idx - 3), -1):
        text = lines[j]
        m = None
        for m in re.finditer(r"\bif\s*\(", text):
            pass
        if m is None:
            if j < idx and text.strip().endswith(";"):
                return ""
            continue
        rest = "\n".join(lines[j:j + 4])
        k = m.end() - 1
        inner = call_args(rest, k)
        if inner is None:
            return ""
        cond = " ".join(inner.split())
        return cond if len(cond) <= 160 else cond[:157] + "..."
    return ""


# --- extraction per file ------------------------------------------------------------------------


CONV = re.compile(r"%%|%[-+ #0]*(\*|\d+)?(\.(\*|\d+))?(hh|h|ll|l|z|j|t|L|q)?[diouxXeEfgGcspn]")


def fill_func_name(fmt, args, func):
    """A `%s` whose argument is `__func__` prints the enclosing function's name (ggml's
    `"%s: found %d ROCm devices"`): put the name in, so the format says what the line shows."""
    convs = [m.group(0) for m in CONV.finditer(fmt) if m.group(0) != "%%"]
    if not func or "*" in "".join(convs) or len(args) < len(convs):
        return fmt
    out, k, last = [], 0, 0
    for m in CONV.finditer(fmt):
        if m.group(0) == "%%":
            continue
        if m.group(0) == "%s" and args[k].strip() in ("__func__", "__FUNCTION__"):
            out.append(fmt[last:m.start()])
            out.append(func.split("::")[-1].replace("%", "%%"))
            last = m.end()
        k += 1
    out.append(fmt[last:])
    return "".join(out)


def stringified(arg):
    """The text `#arg` gives (the C preprocessor's stringizing): the argument's source spelling,
    blanks between tokens made one space, string literals as they are written."""
    out, i, s = [], 0, arg.strip()
    while i < len(s):
        c = s[i]
        if c == '"':
            _, j = read_c_string(s, i)
            out.append(s[i:j])
            i = j
        elif c.isspace():
            while i < len(s) and s[i].isspace():
                i += 1
            out.append(" ")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def c_sites(path, text, printers, func_names=False, third=False):
    """The message calls of one C/C++ file. `third`: also what the third harvest follows (new
    rows only): ROCclr's one-argument `guarantee(cond)`, which prints `guarantee(<cond as
    written>)` (rocclr/utils/debug.hpp before ROCm 5.0: `"guarantee(" XSTR(cond) ")"` to
    report_fatal), messages built with `+` inside a throwing or logging macro, and
    `MIOPEN_LOG(level, chain)`; each site also names the call's first argument (`device`)."""
    src = strip_comments(text)
    lines = src.split("\n")
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln) + 1)
    names = sorted(printers, key=len, reverse=True)
    pat = re.compile(r"(?<![\w.>:])(" + "|".join(re.escape(n) for n in names) + r")\s*(\(|<<)")
    for m in pat.finditer(src):
        name, tok = m.group(1), m.group(2)
        kind, level, gate = printers[name]
        fmt, syntax = None, "printf"
        if tok == "<<":
            if kind not in ("stream",):
                continue
            end = src.find(";", m.end())
            chain = src[m.end():end if end > 0 else len(src)]
            # a `;` inside a literal ends the statement early; good enough for messages
            fmt, syntax = stream_format(chain), "stream"
        else:
            if kind == "stream":
                continue
            args = call_args(src, m.end() - 1)
            if args is None:
                continue
            parts = split_top(args, ",")
            if kind == "clprint":
                lv = re.search(r"LOG_\w+", parts[0]) if parts else None
                n = CLR_LEVELS.get(lv.group(0)) if lv else None
                if n is None or n > 3 or len(parts) < 3:
                    continue
                level = LEVEL_NAMES[n]
                gate = "always" if n == 0 else f"AMD_LOG_LEVEL >= {n} and the AMD_LOG_MASK bit"
                fmt = literal_concat(parts[2])
            elif kind == "printf":
                if name == "fprintf" and not (parts and parts[0].strip() in ("stderr", "stdout")):
                    continue
                for k, p in enumerate(parts):
                    fmt = literal_concat(p)
                    if fmt is not None:
                        fmt = fill_literal_args(fmt, parts[k + 1:])
                        if func_names:
                            at = src.count("\n", 0, m.start())
                            fmt = fill_func_name(fmt, parts[k + 1:], enclosing_function(lines, at))
                        break
                if third and fmt is None and name == "guarantee" and len(parts) == 1 and '"' in parts[0]:
                    fmt = "guarantee(" + stringified(parts[0]).replace("%", "%%") + ")"
            elif kind == "concat":
                fmt, syntax = (stream_format(parts[0], "+"), "stream") if parts else (None, syntax)
            elif kind == "fmt":
                for p in parts:
                    lit = literal_concat(p)
                    if lit is not None:
                        fmt = re.sub(r"\{\{|\}\}|\{[^{}]*\}", lambda x: x.group(0) if x.group(0) in ("{{", "}}") else "{}", lit)
                        syntax = "stream"
                        break
            elif kind in ("macro-stream", "throw", "throw-if", "printf-or-stream", "stream-args", "macro-stream-level"):
                cand = parts
                if kind in ("throw-if", "macro-stream-level"):
                    cand = parts[1:]
                for p in cand:
                    if "<<" in p:
                        fmt, syntax = stream_format(p), "stream"
                    else:
                        fmt = literal_concat(p)
                        if third and fmt is None and "+" in p and '"' in p and kind != "stream-args":
                            fmt, syntax = stream_format(p, "+"), "stream"
                    if fmt is not None:
                        break
                if kind == "stream-args" and fmt is None:
                    fmt = stream_format(" << ".join(parts))
                    syntax = "stream"
                if kind == "stream-args" or (kind == "printf-or-stream" and "%" not in (fmt or "")):
                    syntax = "stream" if kind == "stream-args" else syntax
        if not fmt:
            continue
        line = src.count("\n", 0, m.start())
        site = {
            "format": fmt, "syntax": syntax, "level": level, "printer": name, "gate": gate,
            "path": path, "line": line + 1, "function": enclosing_function(lines, line),
            "condition": guarding_condition(lines, line),
        }
        if third:
            site["device"] = parts[0].strip() if tok == "(" and parts else ""
        yield site
    if third:
        yield from message_variables(path, src, lines)


def message_variables(path, src, lines):
    """A message kept in a variable and returned with its detail appended (MIOpen's
    `std::string errMsg = "Internal error while accessing SQLite database: "; return errMsg +
    sqlite3_errmsg(...)`, which its callers throw): the literal, then the appended part."""
    for m in re.finditer(r'\bstd::string\s+(\w+)\s*=\s*("(?:\\.|[^"\\])*")\s*;', src):
        name = m.group(1)
        line = src.count("\n", 0, m.start())
        after = "\n".join(lines[line + 1:line + 4])
        if not re.search(r"\breturn\s+" + name + r"\s*\+", after):
            continue
        lit, _ = read_c_string(m.group(2), 0)
        yield {
            "format": lit.replace("{", "{{").replace("}", "}}") + "{}", "syntax": "stream", "level": "error",
            "printer": "return", "gate": "returned as an error text; thrown or printed by the caller",
            "path": path, "line": line + 1, "function": enclosing_function(lines, line), "condition": "",
            "device": "",
        }


GO_STR = r'"((?:\\.|[^"\\])*)"'


def go_sites(path, text, printers):
    lines = text.split("\n")
    names = "|".join(re.escape(n) for n in printers)
    for m in re.finditer(r"\b(" + names + r")\(\s*" + GO_STR, text):
        name = m.group(1)
        kind, level, gate = printers[name]
        raw = m.group(2)
        fmt = re.sub(r"\\(.)", lambda x: ESCAPES.get(x.group(1), x.group(1)), raw)
        if name == "fmt.Sprintf" and " " not in fmt.strip():
            continue  # a path or a number, not a message
        line = text.count("\n", 0, m.start())
        func = ""
        for j in range(line, -1, -1):
            f = re.match(r"^func (?:\([^)]*\) )?(\w+)", lines[j])
            if f:
                func = f.group(1)
                break
        cond = ""
        for j in range(line, max(-1, line - 3), -1):
            c = re.search(r"\bif (.*?)\s*\{\s*$", lines[j])
            if c:
                cond = c.group(1)
                break
        yield {
            "format": fmt, "syntax": "go-slog" if kind == "go-slog" else "printf", "level": level,
            "printer": name, "gate": gate, "path": path, "line": line + 1, "function": func,
            "condition": cond[:160],
        }


def py_string(node):
    """A Python message expression as (format, syntax), else None: a literal, an f-string, a
    `%` or `.format` template, or a `+` concatenation (non-literal parts become captures)."""
    def lit(t):
        return t.replace("{", "{{").replace("}", "}}")

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return lit(node.value), "stream"
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                out.append(lit(v.value))
            else:
                out.append("{}")
        return "".join(out), "stream"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
            and isinstance(node.left.value, str):
        return re.sub(r"%\([^)]*\)", "%", node.left.value), "printf"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        t = node.func.value.value
        return re.sub(r"\{\{|\}\}|\{[^{}]*\}", lambda x: x.group(0) if x.group(0) in ("{{", "}}") else "{}", t), "stream"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = py_string(node.left), py_string(node.right)
        if a is None and b is None:
            return None
        conv = lambda x: "{}" if x is None else (x[0] if x[1] == "stream" else lit(x[0]))
        return conv(a) + conv(b), "stream"
    return None


def dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        d = dotted(node.value)
        return d + "." + node.attr if d else None
    return None


def py_sites(path, text, printers):
    """The message calls of one Python file (read with the standard library's `ast`)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    found = []

    def visit(node, func, ifs):
        call, name = None, None
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            d = dotted(node.exc.func)
            if d and "raise " + d.split(".")[-1] in printers:
                call, name = node.exc, "raise " + d.split(".")[-1]
        elif isinstance(node, ast.Call):
            d = dotted(node.func)
            if d in printers:
                call, name = node, d
        if call is not None:
            # printErrLog(device, err): the message is the second argument
            args = call.args[1:] if name == "printErrLog" else call.args
            got = py_string(args[0]) if args else None
            if got is not None:
                fmt, syntax = got
                if syntax == "stream" and name.startswith("logging.") and len(args) > 1:
                    fmt, syntax = fmt.replace("{{", "{").replace("}}", "}"), "printf"
                level, gate = printers[name]
                cond = ""
                if ifs and node.lineno - ifs[-1].lineno <= 2:
                    cond = " ".join(ast.unparse(ifs[-1].test).split())
                    cond = cond if len(cond) <= 160 else cond[:157] + "..."
                found.append({
                    "format": fmt, "syntax": syntax, "level": level, "printer": name, "gate": gate,
                    "path": path, "line": node.lineno, "function": func, "condition": cond,
                })
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, child.name, [])
            elif isinstance(node, ast.If) and child is not node.test and child in node.body:
                visit(child, func, ifs + [node])
            else:
                visit(child, func, ifs)

    visit(tree, "", [])
    yield from sorted(found, key=lambda x: x["line"])


def kernel_texts(deb, meta=None):
    """{component: {path: text}} of the driver's C files in Debian's linux-source .deb."""
    KERNEL = meta or globals()["KERNEL"]
    import hashlib
    import io
    import tarfile
    h = hashlib.sha256()
    with open(deb, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    if h.hexdigest() != KERNEL["sha256"]:
        sys.exit(f"harvest-origins: {deb} is not {KERNEL['package']} {KERNEL['version']} (SHA-256 differs)")
    outer = subprocess.run(["dpkg-deb", "--fsys-tarfile", deb], check=True, capture_output=True, timeout=600).stdout
    with tarfile.open(fileobj=io.BytesIO(outer)) as t:
        # Debian ships the tree as .tar.xz, Ubuntu as .tar.bz2 (beside a symlink to it)
        m = next(x for x in t.getmembers() if x.isfile() and x.name.endswith((".tar.xz", ".tar.bz2"))
                 and "/usr/src/" in "/" + x.name.lstrip("./"))
        inner = t.extractfile(m).read()
    res = {c: {} for c in KERNEL["dirs"]}
    with tarfile.open(fileobj=io.BytesIO(inner), mode="r:*") as t:
        for x in t:
            if not x.isfile() or not x.name.endswith((".c", ".h")):
                continue
            rel = x.name.split("/", 1)[1] if "/" in x.name else x.name
            for c, d in KERNEL["dirs"].items():
                if rel.startswith(d) and not (c in FLAT_DIRS and "/" in rel[len(d):]):
                    res[c][rel] = t.extractfile(x).read().decode("utf-8", "replace")
    return res


def dev_fmt_prefixes(texts):
    """{path: the dev_fmt prefix its dev_* calls print} for the files of one kernel: a header
    that defines `dev_fmt(fmt) "<prefix>" fmt` (amdgpu.h since 5.x: "amdgpu: ") gives it to
    every file that includes it, directly or through the driver's other headers (`#include
    "x.h"`, resolved by name within the driver's directories)."""
    files = {p: t for comp in texts.values() for p, t in comp.items()}
    by_name = {}
    for p in sorted(files):
        by_name.setdefault(p.rsplit("/", 1)[-1], []).append(p)
    defines, includes = {}, {}
    for p, t in files.items():
        m = re.search(r'#\s*define\s+dev_fmt\(fmt\)\s+"([^"]*)"\s*fmt', t)
        if m:
            defines[p] = m.group(1)
        inc = []
        for name in re.findall(r'#\s*include\s+"([^"]+)"', t):
            base = name.rsplit("/", 1)[-1]
            cands = by_name.get(base, [])
            same = [c for c in cands if c.rsplit("/", 1)[0] == p.rsplit("/", 1)[0]]
            inc += same[:1] or cands[:1]
        includes[p] = inc
    out = {}
    for p in files:
        seen, stack, got = set(), [p], ""
        while stack and not got:
            q = stack.pop()
            if q in seen:
                continue
            seen.add(q)
            got = defines.get(q, "")
            stack.extend(includes.get(q, []))
        out[p] = got
    return out


def pieces(line, syntax):
    """A format line as [(is_literal, text)], the way src/packs/origins.rs cuts it."""
    if syntax == "printf":
        cut = re.compile(r"%%|%[-+ #0]*(\*|\d+)?(\.(\*|\d+))?(hh|h|ll|l|z|j|t|L|q)?[diouxXeEfgGcspnvwq]")
    else:
        cut = re.compile(r"\{\{|\}\}|\{\}")
    out, last = [], 0
    for m in cut.finditer(line):
        lit = m.group(0) in ("%%", "{{", "}}")
        out.append((True, line[last:m.start()]))
        out.append((True, m.group(0)[0]) if lit else (False, ""))
        last = m.end()
    out.append((True, line[last:]))
    return [x for x in out if not x[0] or x[1]]


def weakest_line(fmt, syntax):
    """The fewest letters a matcher of this format would key on: each line's letters, or, where
    src/packs/origins.rs also matches a line by its head (the shortest run of pieces from its
    start with 12 letters), the head's. Lines under 12 letters make no matcher and are skipped."""
    weakest = None
    for line in fmt.split("\n"):
        ps = pieces(line, syntax)
        count = [sum(ch.isalpha() for ch in t) if is_lit else 0 for is_lit, t in ps]
        total = sum(count)
        if total < 12:
            continue
        head, run = total, 0
        for k in range(1, len(ps)):
            run += count[k - 1]
            if run >= 12:
                head = run
                break
        weakest = head if weakest is None else min(weakest, head)
    return weakest if weakest is not None else 0


# A line under the floors above is still specific when it names a source file and line (ggml's
# `  current device: %d, in function %s at %s:%d`, whose 13-letter head is under MIN_HEAD_SECOND,
# and `CUDA error %d at %s:%d: %s` of 11 letters): src/packs/origins.rs then reads its `%s:%d` as
# `<file>.<ext>:<n>` and matches the line whole, never by its head. It needs this many letters.
MIN_LETTERS_FILE_LINE = 8
FILE_LINE = re.compile(r"%s:%[diu]")


def file_line_line(line, syntax):
    """Whether one line of a format is specific by its `%s:%d` pair (origins.rs
    `specific_by_file_line`): printf, the pair present, at least MIN_LETTERS_FILE_LINE letters."""
    return (syntax == "printf" and FILE_LINE.search(line) is not None
            and letters(line, syntax) >= MIN_LETTERS_FILE_LINE)


def passes_second_floors(fmt, syntax):
    """The second harvest's floors, or every line that would make a matcher specific: each line
    either makes no matcher (under 12 letters, no file:line pair), or is specific by its file and
    line, or has 12 letters and a head of MIN_HEAD_SECOND."""
    if letters(fmt, syntax) >= MIN_LETTERS_SECOND and weakest_line(fmt, syntax) >= MIN_HEAD_SECOND:
        return True
    lines = [ln for ln in fmt.split("\n") if file_line_line(ln, syntax)]
    if not lines:
        return False
    rest = "\n".join(ln for ln in fmt.split("\n") if not file_line_line(ln, syntax))
    weakest = weakest_line(rest, syntax)
    return weakest == 0 or weakest >= MIN_HEAD_SECOND


def letters(fmt, syntax):
    if syntax == "stream" or syntax == "go-slog":
        lit = fmt.replace("{}", "")
    else:
        lit = re.sub(r"%[-+ #0-9.*]*(hh|h|ll|l|z|j|t|L|q)?[diouxXeEfgGcspn%v]", "", fmt)
    return sum(ch.isalpha() for ch in lit)


# --- output ------------------------------------------------------------------------------------


def q(s):
    """A TOML basic string."""
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\u%04X" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def td_format(msg):
    """A clang diagnostic's text as a stream template: each argument (`%0`) and each
    argument-driven piece (`%select{a|b}0`, `%plural{...}1`, `%s0`, `%q0`, ...) one `{}`;
    `%%` and other text literal (clang/docs/InternalsManual.rst, "Formatting a Diagnostic
    Argument")."""
    out, i = [], 0
    while i < len(msg):
        c = msg[i]
        if c == "%":
            m = re.match(r"%([a-z]*)(\{)?", msg[i:])
            j = i + len(m.group(0))
            if m.group(2):
                depth = 1
                while j < len(msg) and depth:
                    depth += {"{": 1, "}": -1}.get(msg[j], 0)
                    j += 1
            while j < len(msg) and msg[j].isdigit():
                j += 1
            if j == i + 1 or msg[i:i + 2] == "%%":
                out.append("%")
                i += 2 if msg[i:i + 2] == "%%" else 1
                continue
            out.append("{}")
            i = j
            continue
        out.append({"{": "{{", "}": "}}"}.get(c, c))
        i += 1
    return "".join(out)


def debian_src_texts(name, path):
    """{relative path: text} of the pinned files of one Debian source package's orig tarball: those
    of the third harvest (DEBIAN_SRC's `paths`) and of the fourth (DEBIAN_SRC_FOURTH's parts)."""
    import hashlib
    import tarfile
    meta = DEBIAN_SRC.get(name) or DEBIAN_SRC_FOURTH[name]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    if h.hexdigest() != meta["sha256"]:
        sys.exit(f"harvest-origins: {path} is not {meta['file']} of {name} {meta['version']} (SHA-256 differs)")
    pats = ([meta["paths"]] if "paths" in meta else []) + [x[1] for x in DEBIAN_SRC_FOURTH.get(name, {}).get("parts", [])]
    want = re.compile("|".join(f"(?:{x})" for x in pats))
    res = {}
    with tarfile.open(path, mode="r:*") as t:
        for x in t:
            rel = x.name.split("/", 1)[1] if "/" in x.name else x.name
            if x.isfile() and want.search(rel):
                res[rel] = t.extractfile(x).read().decode("utf-8", "replace")
    return res


def third_debian(rows, counted, name, texts):
    meta = DEBIAN_SRC[name]
    component, repo = meta["component"], f"{name}={meta['version']}"
    before = set(rows)
    n = 0
    want = re.compile(meta["paths"])
    for p in sorted(p for p in texts if want.search(p)):
        for m in TD_DEF.finditer(texts[p]):
            msg = "".join(read_c_string(x, 0)[0] for x in re.findall(r'"(?:\\.|[^"\\])*"', m.group(3)))
            if not (TD_KEEP.search(msg) or TD_KEEP.search(m.group(1))):
                continue
            fmt = td_format(msg)
            key = (component, "stream", fmt)
            if key in before or not passes_floors(fmt, "stream"):
                continue
            level, gate = TD_LEVEL[m.group(2)]
            s = {"level": level, "printer": m.group(2), "gate": gate, "path": p,
                 "line": texts[p].count("\n", 0, m.start()) + 1, "function": m.group(1), "condition": ""}
            n += 1
            add_site(rows, key, s, repo, "")
    counted[component] = counted.get(component, 0) + n


def passes_floors(fmt, syntax):
    return letters(fmt, syntax) >= MIN_LETTERS_SECOND and weakest_line(fmt, syntax) >= MIN_HEAD_SECOND


def add_site(rows, key, s, repo, tag):
    row = rows.setdefault(key, {"level": s["level"], "printer": s["printer"], "gate": s["gate"], "sites": []})
    order = ["fatal", "error", "warning", "info"]
    if order.index(s["level"]) < order.index(row["level"]):
        row.update(level=s["level"], printer=s["printer"], gate=s["gate"])
    row["sites"].append((repo, tag, s["path"], s["line"], s["function"], s["condition"]))


def third_kernel(rows, counted, meta, texts):
    """One kernel's new formats: each format that passes the floors, or else the same format
    with the prefix its printer puts before it (DEVICE_PREFIX, then the file's dev_fmt), when
    that passes them."""
    repo = f"{meta['package']}={meta['version']}"
    before = set(rows)
    fmts = dev_fmt_prefixes(texts)
    for component in sorted(texts):
        n = 0
        for p in sorted(texts[component]):
            for s in c_sites(p, texts[component][p], KERNEL_PRINTERS_THIRD, third=True):
                fmt = s["format"]
                if not passes_floors(fmt, s["syntax"]):
                    if not s["printer"].startswith(("dev_", "pci_")):
                        continue
                    dev = DEVICE_PREFIX.get(s["device"], "")
                    fmt = dev + fmts.get(p, "") + fmt
                    if fmt == s["format"] or not passes_floors(fmt, s["syntax"]):
                        continue
                key = (component, s["syntax"], fmt)
                if key in before:
                    continue
                n += 1
                add_site(rows, key, s, repo, "")
        counted[component] = counted.get(component, 0) + n


def third_repo(rows, counted, git, component, repo, prefixes, printers, commit, tag, prefixed=False):
    """One repository's new formats at one commit (the third harvest's followers on). `prefixed`
    (fourth harvest): the prefix a Python printer of PY_PREFIXED prints is put before its formats."""
    before = set(rows)
    go = any(k.startswith(("slog.", "fmt.")) for k in printers)
    py = all(len(v) == 2 for v in printers.values())
    ext = (".go",) if go else (".py",) if py else C_EXT + EXTRA_EXT.get(component, ())
    paths = [p for p in git.files(commit, prefixes) if p.endswith(ext) and not p.endswith("_test.go")
             and not SKIP.search(p)]
    texts = git.blobs(commit, paths)
    pre = py_prefixes(texts) if prefixed and py else {}
    n = 0
    for p in paths:
        if p not in texts:
            continue
        sites = (go_sites(p, texts[p], printers) if go else py_sites(p, texts[p], printers) if py
                 else c_sites(p, texts[p], printers, func_names=repo in SECOND, third=True))
        for s in sites:
            if s["printer"] in pre:
                s["format"] = with_prefix(pre[s["printer"]], s["format"], s["syntax"])
                s["gate"] = f"always (print: `{pre[s['printer']]}<text>` on stdout" + (
                    ", then exit -1)" if s["level"] == "fatal" else ")")
            key = (component, s["syntax"], s["format"])
            if key in before or not passes_floors(s["format"], s["syntax"]):
                continue
            n += 1
            add_site(rows, key, s, repo, tag)
    counted[component] = counted.get(component, 0) + n


def harvest_third(rows, counted, gits, kernels, debian=None):
    """Issue 28's third harvest, after the first two: the same sources read again with the
    followers above, then the older releases of OLDER_THIRD and the older kernels. Each step
    adds only formats no earlier step has, so no earlier row changes."""
    for meta, texts in kernels[:2]:
        third_kernel(rows, counted, meta, texts)
    third_printers = {"miopen": MIOPEN_THIRD}
    runs = [(c, r, p, pr, PINS[r], "") for c, r, p, pr in SPECS]
    runs += [(c, r, p + ["gpu/"] + OLDER_PREFIXES.get(r, []), pr, commit, tag)
             for c, r, p, pr in SPECS for (rr, tag, commit) in OLDER if rr == r]
    spec = {c: (p, pr) for c, r, p, pr in SPECS}
    runs += [(c, r, pre or spec[c][0], spec[c][1], commit, tag) for c, r, tag, commit, pre in OLDER_THIRD]
    for component, repo, prefixes, printers, commit, tag in runs:
        printers = dict(printers, **third_printers.get(component, {}))
        third_repo(rows, counted, gits[repo], component, repo, prefixes, printers, commit, tag)
    for meta, texts in kernels[2:]:
        third_kernel(rows, counted, meta, texts)
    for name in sorted(n for n in debian or {} if n in DEBIAN_SRC):
        third_debian(rows, counted, name, debian[name])


def py_prefixes(texts):
    """{printer: the prefix it prints} for the Python printers of PY_PREFIXED that these files
    define as `def NAME(message): print("<prefix>%s" % message)`."""
    out = {}
    for p in sorted(texts):
        if p.endswith(".py"):
            for m in PY_PREFIX_DEF.finditer(texts[p]):
                if m.group(1) in PY_PREFIXED:
                    out[m.group(1)] = read_c_string('"' + m.group(2) + '"', 0)[0]
    return out


def with_prefix(prefix, fmt, syntax):
    """The format with a literal prefix in front, escaped for its syntax."""
    if syntax == "stream":
        return prefix.replace("{", "{{").replace("}", "}}") + fmt
    return prefix.replace("%", "%%") + fmt


def fourth_debian(rows, counted, name, texts):
    """One Debian source package's new formats, per part of DEBIAN_SRC_FOURTH (the third
    harvest's followers on)."""
    meta = DEBIAN_SRC_FOURTH[name]
    repo = f"{name}={meta.get('version') or DEBIAN_SRC[name]['version']}"
    before = set(rows)
    for component, pattern, printers in meta["parts"]:
        want, n = re.compile(pattern), 0
        for p in sorted(t for t in texts if want.search(t)):
            for s in c_sites(p, texts[p], printers, third=True):
                key = (component, s["syntax"], s["format"])
                if key in before or not passes_floors(s["format"], s["syntax"]):
                    continue
                n += 1
                add_site(rows, key, s, repo, "")
        counted[component] = counted.get(component, 0) + n


def harvest_fourth(rows, counted, gits, kernel_newest, debian):
    """Issue 28's fourth harvest, after the first three: the older releases of OLDER_FOURTH (with
    their printers' prefixes), the newest kernel, and the Debian sources of DEBIAN_SRC_FOURTH
    (comgr, hipcc, LLVM's AMDGPU backend, lld). Each step adds only formats no earlier step has."""
    spec = {c: (p, pr) for c, r, p, pr in SPECS}
    for component, repo, tag, commit, pre in OLDER_FOURTH:
        printers = dict(spec[component][1], **({"miopen": MIOPEN_THIRD}.get(component, {})))
        third_repo(rows, counted, gits[repo], component, repo, pre or spec[component][0], printers, commit, tag,
                   prefixed=True)
    third_kernel(rows, counted, KERNEL_NEWEST, kernel_newest)
    for name in sorted(DEBIAN_SRC_FOURTH):
        fourth_debian(rows, counted, name, debian[name])


# The fifth harvest (issue 28, round 13): messages whose words a macro's stringizing writes, and
# the compiler's log a library passes on. MIOpen's comgr.cpp logs each failing comgr and hipRTC
# call through a macro that prints the call as written (EC_BASE and HIPRTC_CALL_BASE:
# `MIOPEN_LOG_E("\'" #call "\' " << to_string(info) << ": " << GetStatusText(status))`), so no
# string literal holds the words users see (`'hiprtcCompileProgram(prog.get(), c_options.size(),
# c_options.data())' naive_conv.cpp: HIPRTC_ERROR_COMPILATION (6)`): each use of the macro (or of a
# macro that passes its argument on, HIPRTC_CALL_INFO_THROW) is a format of its own, the macro's
# chain with that use's argument stringized. And where a build fails, MIOpen prints the compiler's
# log as one warning of the building function (`MIOPEN_LOG_W(ex.text)` in BuildHip, BuildOcl,
# BuildAsm): a format that is one variable, kept here (`{}`) because MIOpen's logger names the
# function in front of it (`MIOpen(HIP): Warning [BuildHip] `, logger.hpp's `__func__`), which
# src/packs/origins.rs matches. Read in MIOpen at the pin and at every older release read above.
FIFTH = [("miopen", "ROCm/MIOpen", MIOPEN)]
DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)[ \t]*((?:[^\n]*\\\n)*[^\n]*)", re.M)


def stringizing_macros(src, printers):
    """The function-like macros of one file whose printer call stringizes a parameter:
    name -> (the stringized parameter's position, [(printer, its argument text, the body's
    condition in front of the call)]); and the macros that pass a parameter on to one of them
    (`#define W(call, info) BASE(call, info, ...)`), resolved to the same form."""
    defs = {}
    for m in DEFINE.finditer(src):
        params = [x.strip() for x in m.group(2).split(",")]
        defs[m.group(1)] = (params, m.group(3).replace("\\\n", " "))
    names = sorted(printers, key=len, reverse=True)
    call = re.compile(r"(?<![\w.>:])(" + "|".join(re.escape(n) for n in names) + r")\s*\(")
    base = {}
    for name, (params, body) in defs.items():
        for k, prm in enumerate(params):
            if not re.search(r"(?<!#)#\s*" + re.escape(prm) + r"\b", body):
                continue
            prints = []
            for c in call.finditer(body):
                args = call_args(body, c.end() - 1)
                if args is None or not re.search(r"(?<!#)#\s*" + re.escape(prm) + r"\b", args):
                    continue
                conds = [call_args(body, x.end() - 1) for x in re.finditer(r"\bif\s*\(", body[:c.start()])]
                cond = " ".join((conds[-1] or "").split()) if conds else ""
                prints.append((c.group(1), args, cond))
            if prints:
                base[name] = (k, prm, prints)
    changed = True
    while changed:
        changed = False
        for name, (params, body) in defs.items():
            if name in base:
                continue
            m = re.match(r"\s*(\w+)\s*\(", body)
            if not m or m.group(1) not in base:
                continue
            args = call_args(body, m.end() - 1)
            k, prm, prints = base[m.group(1)]
            parts = [x.strip() for x in split_top(args or "", ",")]
            if k < len(parts) and parts[k] in params:
                base[name] = (params.index(parts[k]), prm, prints)
                changed = True
    return base


def enclosing_method(lines, idx, col=0):
    """The function around column col of line idx, a method defined inside its class's body too
    (indented): a definition that opens on the line itself before col (`Data(kind) { EC(...); }`),
    else the nearest line above, less indented than idx's, that starts one (`__func__`, the name
    MIOpen's logger prints, is its last `::` part)."""
    head = lines[idx][:col]
    if "{" in head:
        m = re.match(r"\s*(?:[A-Za-z_][\w:<>,\*&\s]*?\s)?([A-Za-z_~][\w:~]*)\s*\(", head)
        if m and m.group(1).split("::")[-1] not in KEYWORDS:
            return m.group(1)
    own = len(lines[idx]) - len(lines[idx].lstrip())
    for j in range(idx - 1, max(-1, idx - 400), -1):
        ln = lines[j]
        ind = len(ln) - len(ln.lstrip())
        if not ln.strip() or ind >= own or ln.lstrip().startswith(("#", "}", "{", "//")):
            continue
        m = FUNC_RE.match(ln.lstrip())
        if m and m.group(1).split("::")[-1] not in KEYWORDS and not ln.rstrip().endswith(";"):
            return m.group(1)
    return ""


def stringized_sites(path, text, printers):
    """The sites of one file's uses of its stringizing macros, each with its format: the macro's
    printer chain with the use's argument in place of `#param`."""
    src = strip_comments(text)
    macros = stringizing_macros(src, printers)
    if not macros:
        return
    lines = src.split("\n")
    use = re.compile(r"(?<![\w.>:#])(" + "|".join(re.escape(n) for n in sorted(macros, key=len, reverse=True)) + r")\s*\(")
    for m in use.finditer(src):
        line = src.count("\n", 0, m.start())
        col = m.start() - (src.rfind("\n", 0, m.start()) + 1)
        if re.match(r"\s*#\s*define\b", lines[line]) or lines[line - 1 if line else 0].rstrip().endswith("\\"):
            continue
        args = call_args(src, m.end() - 1)
        if args is None:
            continue
        k, prm, prints = macros[m.group(1)]
        parts = split_top(args, ",")
        if k >= len(parts):
            continue
        words = stringified(parts[k])
        lit = '"' + words.replace("\\", "\\\\").replace('"', '\\"') + '"'
        for printer, chain, cond in prints:
            kind, level, gate = printers[printer]
            filled = re.sub(r"(?<!#)#\s*" + re.escape(prm) + r"\b", lambda _: lit, chain)
            fmt = stream_format(filled) if kind == "macro-stream" else None
            if not fmt:
                continue
            yield {"format": fmt, "syntax": "stream", "level": level, "printer": printer, "gate": gate,
                   "path": path, "line": line + 1, "function": enclosing_method(lines, line, col),
                   "condition": cond}


def passed_on_logs(path, text, printers):
    """MIOpen's warnings whose whole text is one variable (the compiler's log a failed build
    returns: `MIOPEN_LOG_W(ex.text)`), each with its function."""
    src = strip_comments(text)
    lines = src.split("\n")
    names = [n for n, (kind, level, _) in printers.items() if kind == "macro-stream" and level == "warning"]
    pat = re.compile(r"(?<![\w.>:])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")\s*\(")
    for m in pat.finditer(src):
        args = call_args(src, m.end() - 1)
        if args is None or not re.fullmatch(r"\s*[A-Za-z_][\w.]*(?:->\w+)*\s*", args):
            continue
        line = src.count("\n", 0, m.start())
        if re.match(r"\s*#\s*define\b", lines[line]) or (line and lines[line - 1].rstrip().endswith("\\")):
            continue
        _, level, gate = printers[m.group(1)]
        yield {"format": "{}", "syntax": "stream", "level": level, "printer": m.group(1), "gate": gate,
               "path": path, "line": line + 1, "function": enclosing_method(lines, line, m.start() - (src.rfind("\n", 0, m.start()) + 1)),
               "condition": guarding_condition(lines, line)}


def harvest_fifth(rows, counted, gits):
    """Issue 28's fifth harvest, after the first four: new formats only."""
    before = set(rows)
    for component, repo, printers in FIFTH:
        commits = [(PINS[repo], "")] + [(c, t) for comp, r, t, c, _ in OLDER_THIRD + OLDER_FOURTH
                                        if r == repo and comp == component]
        n = 0
        for commit, tag in commits:
            git = gits[repo]
            paths = [p for p in git.files(commit, ["src/"]) if p.endswith(C_EXT) and not SKIP.search(p)]
            texts = git.blobs(commit, paths)
            for p in paths:
                if p not in texts:
                    continue
                found = list(stringized_sites(p, texts[p], printers))
                found = [s for s in found if passes_floors(s["format"], s["syntax"])]
                found += list(passed_on_logs(p, texts[p], printers))
                for s in found:
                    key = (component, s["syntax"], s["format"])
                    if key in before:
                        continue
                    n += 1
                    add_site(rows, key, s, repo, tag)
        counted[component] = counted.get(component, 0) + n


def harvest(gits, kernel=None, kernel_new=None, third=None, debian=None, fourth=None):
    """The table's rows. `third`: the kernels of the third harvest, [(meta, texts)] for 6.1,
    6.12, 5.10 and 4.15 in that order (None: the first two harvests only)."""
    rows = {}
    counted = {}
    for meta, texts in ((KERNEL, kernel), (KERNEL_NEW, kernel_new)):
        if not texts:
            continue
        repo = f"{meta['package']}={meta['version']}"
        older = set(rows)
        for component in sorted(texts):
            n = 0
            for p in sorted(texts[component]):
                for s in c_sites(p, texts[component][p], KERNEL_PRINTERS):
                    floor = MIN_LETTERS_SECOND if meta is KERNEL_NEW else MIN_LETTERS
                    if letters(s["format"], s["syntax"]) < floor:
                        continue
                    if meta is KERNEL_NEW and weakest_line(s["format"], s["syntax"]) < MIN_HEAD_SECOND:
                        continue
                    if meta is KERNEL_NEW and (component, s["syntax"], s["format"]) in older:
                        continue
                    n += 1
                    key = (component, s["syntax"], s["format"])
                    row = rows.setdefault(key, {"level": s["level"], "printer": s["printer"], "gate": s["gate"], "sites": []})
                    row["sites"].append((repo, "", s["path"], s["line"], s["function"], s["condition"]))
            counted[component] = counted.get(component, 0) + n
    runs = [(c, r, p, pr, PINS[r], "") for c, r, p, pr in SPECS]
    runs += [(c, r, p + ["gpu/"] + OLDER_PREFIXES.get(r, []), pr, commit, tag)
             for c, r, p, pr in SPECS for (rr, tag, commit) in OLDER if rr == r]
    for component, repo, prefixes, printers, commit, tag in runs:
        git = gits[repo]
        newest = set(k for k in rows if k[0] == component)
        go = any(k.startswith(("slog.", "fmt.")) for k in printers)
        py = all(len(v) == 2 for v in printers.values())
        ext = (".go",) if go else (".py",) if py else C_EXT + EXTRA_EXT.get(component, ())
        paths = [p for p in git.files(commit, prefixes) if p.endswith(ext) and not p.endswith("_test.go")]
        if repo in SECOND:
            paths = [p for p in paths if not SKIP.search(p)]
        texts = git.blobs(commit, paths)
        n = 0
        for p in paths:
            if p not in texts:
                continue
            sites = (go_sites(p, texts[p], printers) if go else py_sites(p, texts[p], printers) if py
                     else c_sites(p, texts[p], printers, func_names=repo in SECOND))
            for s in sites:
                if repo in SECOND and not passes_second_floors(s["format"], s["syntax"]):
                    continue
                if letters(s["format"], s["syntax"]) < MIN_LETTERS and not (
                        component == "clr" and re.search(r"[^\s%sdxu{}]", s["format"])):
                    continue
                key = (component, s["syntax"], s["format"])
                if tag and key in newest:
                    continue
                n += 1
                row = rows.setdefault(key, {"level": s["level"], "printer": s["printer"], "gate": s["gate"], "sites": []})
                # the most severe level and its printer name the row; every site is kept
                order = ["fatal", "error", "warning", "info"]
                if order.index(s["level"]) < order.index(row["level"]):
                    row.update(level=s["level"], printer=s["printer"], gate=s["gate"])
                row["sites"].append((repo, tag, s["path"], s["line"], s["function"], s["condition"]))
        counted[component] = counted.get(component, 0) + n
    if third is not None:
        harvest_third(rows, counted, gits, third, debian)
    if fourth is not None:
        harvest_fourth(rows, counted, gits, *fourth)
        harvest_fifth(rows, counted, gits)
    return rows, counted


def fourth_sources():
    """The [[source]] lines of the fourth harvest's inputs (llvm-toolchain-21 is the third's)."""
    out = []
    for _, repo, tag, commit, _ in OLDER_FOURTH:
        out += ["[[source]]", f"repo = {q(repo)}", f"at = {q(tag)}", f"commit = {q(commit)}", ""]
    meta = KERNEL_NEWEST
    out += ["[[source]]", f"repo = {q(meta['package'] + '=' + meta['version'])}",
            f"commit = {q('sha256:' + meta['sha256'])}", ""]
    for name in sorted(n for n in DEBIAN_SRC_FOURTH if n not in DEBIAN_SRC):
        meta = DEBIAN_SRC_FOURTH[name]
        out += ["[[source]]", f"repo = {q(name + '=' + meta['version'])}", f"commit = {q('sha256:' + meta['sha256'])}", ""]
    return out


def render(rows, counted, kernel=False, kernel_new=False, third=False, fourth=False):
    out = [
        "# GENERATED by scripts/harvest-origins.py; do not edit. Re-run it to refresh, and",
        "# `scripts/harvest-origins.py --mirror DIR --check` to verify this file (docs/check-packs.md).",
        "# One [[origin]] per (component, format): every user-visible error, warning and info",
        "# format string the sources below print, with each call site (file and line at the pinned",
        "# commit, enclosing function, the `if` condition in front of the call when the source",
        "# shows one). `syntax`: printf (C or Go verbs), stream (`<<` operands, `{}` a non-literal",
        "# operand, `{{`/`}}` literal braces), go-slog (a constant message; attributes follow it).",
        "",
    ]
    for repo in sorted(PINS):
        out.append("[[source]]")
        out.append(f"repo = {q(repo)}")
        out.append(f"commit = {q(PINS[repo])}")
        out.append("")
    for repo, tag, commit in OLDER:
        out.append("[[source]]")
        out.append(f"repo = {q(repo)}")
        out.append(f"at = {q(tag)}")
        out.append(f"commit = {q(commit)}")
        out.append("")
    if kernel:
        out.append("[[source]]")
        out.append(f"repo = {q(KERNEL['package'] + '=' + KERNEL['version'])}")
        out.append(f"commit = {q('sha256:' + KERNEL['sha256'])}")
        out.append("")
    if kernel_new:
        out.append("[[source]]")
        out.append(f"repo = {q(KERNEL_NEW['package'] + '=' + KERNEL_NEW['version'])}")
        out.append(f"commit = {q('sha256:' + KERNEL_NEW['sha256'])}")
        out.append("")
    if third:
        for _, repo, tag, commit, _ in OLDER_THIRD:
            out.append("[[source]]")
            out.append(f"repo = {q(repo)}")
            out.append(f"at = {q(tag)}")
            out.append(f"commit = {q(commit)}")
            out.append("")
        for meta in (KERNEL_OLD, KERNEL_OLDEST):
            out.append("[[source]]")
            out.append(f"repo = {q(meta['package'] + '=' + meta['version'])}")
            out.append(f"commit = {q('sha256:' + meta['sha256'])}")
            out.append("")
        for name in sorted(DEBIAN_SRC):
            out.append("[[source]]")
            out.append(f"repo = {q(name + '=' + DEBIAN_SRC[name]['version'])}")
            out.append(f"commit = {q('sha256:' + DEBIAN_SRC[name]['sha256'])}")
            out.append("")
    if fourth:
        out += fourth_sources()
    total = 0
    for key in sorted(rows):
        component, syntax, fmt = key
        row = rows[key]
        total += 1
        out.append("[[origin]]")
        out.append(f"component = {q(component)}")
        out.append(f"syntax = {q(syntax)}")
        out.append(f"format = {q(fmt)}")
        out.append(f"level = {q(row['level'])}")
        out.append(f"printer = {q(row['printer'])}")
        out.append(f"gate = {q(row['gate'])}")
        out.append("sites = [")
        for repo, tag, path, line, func, cond in sorted(set(row["sites"])):
            parts = [f"repo = {q(repo)}"]
            if tag:
                parts.append(f"at = {q(tag)}")
            parts += [f"path = {q(path)}", f"line = {line}"]
            if func:
                parts.append(f"function = {q(func)}")
            if cond:
                parts.append(f"condition = {q(cond)}")
            out.append("  { " + ", ".join(parts) + " },")
        out.append("]")
        out.append("")
    summary = ", ".join(f"{c} {counted[c]}" for c in sorted(counted))
    out.insert(7, f"# {total} formats from {sum(counted.values())} call sites ({summary}).")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirror", help="directory holding <owner>+<name>/repo git directories")
    ap.add_argument("--git", action="append", default=[], help="owner/name=GITDIR (repeatable)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "checks", "origins.toml"))
    ap.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    ap.add_argument("--kernel-deb", help=f"Debian's {KERNEL['package']}_{KERNEL['version']}_all.deb (the amdgpu/amdkfd driver)")
    ap.add_argument("--kernel-deb-new", help=f"Debian's {KERNEL_NEW['package']}_{KERNEL_NEW['version']}_all.deb")
    ap.add_argument("--kernel-deb-old", help=f"Debian's {KERNEL_OLD['package']}_{KERNEL_OLD['version']}_all.deb")
    ap.add_argument("--debian-src", action="append", default=[],
                    help="NAME=PATH: the orig tarball of a Debian source package of DEBIAN_SRC (repeatable)")
    ap.add_argument("--kernel-deb-oldest", help=f"Ubuntu's {KERNEL_OLDEST['package']}_{KERNEL_OLDEST['version']}_all.deb")
    ap.add_argument("--kernel-deb-newest", help=f"Debian's {KERNEL_NEWEST['package']}_{KERNEL_NEWEST['version']}_all.deb")
    a = ap.parse_args()
    given = dict(g.split("=", 1) for g in a.git)
    gits = {}
    for repo in list(PINS) + sorted({r for _, r, _, _, _ in OLDER_THIRD} - set(PINS)):
        d = given.get(repo) or (a.mirror and os.path.join(a.mirror, repo.replace("/", "+"), "repo"))
        if not d or not os.path.isdir(d):
            sys.exit(f"harvest-origins: no git directory for {repo} (fetch it, then pass --mirror or --git {repo}=DIR)")
        gits[repo] = Git(d)
        for c in ([PINS[repo]] if repo in PINS else []) + [c for r, _, c in OLDER if r == repo] + [
                c for _, r, _, c, _ in OLDER_THIRD + OLDER_FOURTH if r == repo]:
            try:
                gits[repo].run("cat-file", "-e", c + "^{commit}")
            except subprocess.CalledProcessError:
                sys.exit(f"harvest-origins: {d} does not hold {repo}@{c}")
    if not a.kernel_deb:
        sys.exit(f"harvest-origins: give --kernel-deb (apt-get download {KERNEL['package']}={KERNEL['version']})")
    if not a.kernel_deb_new:
        sys.exit(f"harvest-origins: give --kernel-deb-new (apt-get download {KERNEL_NEW['package']}={KERNEL_NEW['version']})")
    if not a.kernel_deb_old:
        sys.exit(f"harvest-origins: give --kernel-deb-old ({KERNEL_OLD['package']}={KERNEL_OLD['version']}, Debian bullseye)")
    if not a.kernel_deb_oldest:
        sys.exit(f"harvest-origins: give --kernel-deb-oldest ({KERNEL_OLDEST['package']}={KERNEL_OLDEST['version']}, Ubuntu bionic)")
    if not a.kernel_deb_newest:
        sys.exit(f"harvest-origins: give --kernel-deb-newest ({KERNEL_NEWEST['package']}={KERNEL_NEWEST['version']}, Debian sid)")
    srcs = dict(d.split("=", 1) for d in a.debian_src)
    names = sorted(set(DEBIAN_SRC) | set(DEBIAN_SRC_FOURTH))
    for name in names:
        if name not in srcs:
            sys.exit(f"harvest-origins: give --debian-src {name}=PATH "
                     f"({(DEBIAN_SRC.get(name) or DEBIAN_SRC_FOURTH[name])['file']})")
    debian = {name: debian_src_texts(name, srcs[name]) for name in names}
    kernel = kernel_texts(a.kernel_deb)
    kernel_new = kernel_texts(a.kernel_deb_new, KERNEL_NEW)
    third = [(KERNEL, kernel), (KERNEL_NEW, kernel_new), (KERNEL_OLD, kernel_texts(a.kernel_deb_old, KERNEL_OLD)),
             (KERNEL_OLDEST, kernel_texts(a.kernel_deb_oldest, KERNEL_OLDEST))]
    fourth = (kernel_texts(a.kernel_deb_newest, KERNEL_NEWEST), debian)
    text = render(*harvest(gits, kernel, kernel_new, third, debian, fourth), kernel=bool(kernel),
                  kernel_new=bool(kernel_new), third=True, fourth=True) + "\n"
    if a.check:
        try:
            with open(a.out, encoding="utf-8") as f:
                old = f.read()
        except OSError as e:
            sys.exit(f"harvest-origins: {e}")
        if old != text:
            sys.exit(f"harvest-origins: {a.out} differs from what the pinned sources give; re-run without --check")
        print(f"harvest-origins: {a.out} is reproduced byte for byte")
        return
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"harvest-origins: wrote {a.out}")


if __name__ == "__main__":
    main()
