# shellcheck shell=bash
# Settings shared by scripts/fuzz.sh and scripts/bench-fuzz.sh (sourced, not run).
# Why each one: docs/fuzzing.md ("What makes a target slow"); figures: docs/benchmarks.md.

# Every fuzz target: one file each under fuzz/fuzz_targets (what `cargo fuzz list` prints, without
# starting cargo).
all_targets() {
  find fuzz/fuzz_targets -name '*.rs' -printf '%f\n' | sed 's/\.rs$//' | sort
}

# The dictionary of each target (fuzz/dict/).
dict_for() {
  case "$1" in
    bundle | ccob | hostelf | amdgpu_elf) echo fuzz/dict/codeobj.dict ;;
    msgpack) echo fuzz/dict/msgpack.dict ;;
    *) echo fuzz/dict/text.dict ;;
  esac
}

# Largest input libFuzzer makes (0: libFuzzer's default, the largest seed). That default is 23 KB
# for fleet_report and 12 KB for check_pack and bundle, and the time per run grows with the
# input: 4 KB is room for every structure these parsers read (a report with findings and a
# fingerprint, a pack with several checks, a bundle of two code objects). The ELF targets keep
# the size of their seeds (real binaries of 24-33 KB).
max_len_for() {
  case "$1" in
    hostelf | amdgpu_elf) echo 0 ;;
    *) echo 4096 ;;
  esac
}

# AddressSanitizer keeps freed memory in a quarantine (256 MB by default) to catch
# use-after-free; that memory is resident and counts against -rss_limit_mb, so a target that
# allocates and frees a lot (decompression buffers) died as "out-of-memory" with 26 MB live.
# A 16 MB quarantine keeps the limit about the parsers' real memory (and still holds the last
# few thousand frees of these small inputs).
# malloc_context_size=0: ASan unwinds and stores the stack of every malloc and free so that a
# report can say where the memory came from. detect_stack_use_after_return=0: no "fake stack"
# frame per call (safe Rust cannot return a pointer to its own stack frame). A crash report
# still has the faulting stack; rerun its input with ASAN_OPTIONS= for the allocation stacks.
# shellcheck disable=SC2034 # read by the scripts that source this file
FUZZ_ASAN_OPTIONS=quarantine_size_mb=16:malloc_context_size=0:detect_stack_use_after_return=0
