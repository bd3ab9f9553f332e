# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_rocm_doctor_global_optspecs
    string join \n json v/verbose color= strict expect-gpus= policy= profile= only= skip= list-checks isa= sysroot= host-root= run-root-programs rocm-path= clang= timeout= deadline= asm-caps assembler= no-batch tensile-compat= npd prometheus baseline= npd-max-len= checks= expect= h/help V/version
end

function __fish_rocm_doctor_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_rocm_doctor_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_rocm_doctor_using_subcommand
    set -l cmd (__fish_rocm_doctor_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l expect-gpus -d 'Fail `gpu.layers` when fewer than N GPUs are usable by ROCr (a node that lost a GPU); without it a GPU lost between layers fails and no GPU at all is a skip' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l policy -d 'The site policy (thresholds, ignore rules, severity and action overrides; docs/fleet.md). Default: /etc/rocm-doctor/policy.toml when it exists. Read only if trusted: as root, root\'s file on a path only root may write' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l profile -d 'Which checks judge what: `build` never fails for missing GPUs, `runtime` requires one' -r -f -a "auto\t''
build\t''
runtime\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l only -d 'Run only these checks (ids or id prefixes such as `toolchain.`; repeatable, comma lists)' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l skip -d 'Do not run these checks (ids or id prefixes; repeatable, comma lists)' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l rocm-path -d 'The ROCm root to judge first (like ROCM_PATH, but wins over it)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l clang -d 'The clang to judge (default: HIP_CLANG_PATH, the ROCm root\'s clang, amdclang++, clang++, the clang hipcc is configured for, then the newest /usr/lib/llvm-N)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l timeout -d 'Time limit for each child process, in seconds' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l deadline -d 'Time limit for the whole run, in seconds: children still running then are killed and their checks end as `error`' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l assembler -d 'With --asm-caps: the assembler to probe (default: as Tensile resolves it)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l tensile-compat -d 'With --asm-caps: the Tensile variant to emulate (`current` or `6.2`)' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l baseline -d 'Compare this node with a known-good report saved with --json (ROCm, HIP runtime and driver versions, GPU count and models, firmware, partitions, key environment, check verdicts): each drift is a `fleet.baseline` warning; an unusable file is an error' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l npd-max-len -d 'With --npd: the message bound in bytes (NPD\'s `max_output_length`, default 80)' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l expect -d 'With --asm-caps: compare with a saved result (the JSON `asm_caps` object) and fail on any difference' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l strict -d 'Exit 1 on warnings too, not only on failures'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l list-checks -d 'List every check with its id, category and title, then exit'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l asm-caps -d 'Probe the assembler like Tensile\'s GetAsmCaps and print the capability matrix'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l no-batch -d 'With --asm-caps: one assembler call per probe, in Tensile\'s order (slow, exact method)'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l npd -d 'node-problem-detector custom plugin mode: one line of at most --npd-max-len bytes on stdout (the worst finding first), exit 0 OK, 1 a check failed (NonOK), 2 the doctor could not decide (Unknown: a check error, a tool past its timeout, a usage error). docs/fleet.md'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -l prometheus -d 'Print the run in Prometheus text format for node_exporter\'s textfile collector: check verdicts (one-hot per status), finding counts, run duration, GPU count, versions, and with --baseline the drift count. Exit codes as for --json (docs/fleet.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -s V -l version -d 'Print version'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -f -a "explain" -d 'Explain a check: what it checks, why it matters, how to fix it'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -f -a "inspect" -d 'List the GPU code that binaries, libraries and directories carry (bundles, CCOB, code objects, Tensile libraries) and whether each GPU (or --isa) would find a code object'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -f -a "merge" -d 'Fold many --json reports (files, directories of *.json, or `-` for stdin, one document per line or per file, with or without `host: ` prefixes) into one fleet summary: nodes by status, failing checks grouped by cause, stack outliers, unusable inputs. docs/fleet.md'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -f -a "log" -d 'Summarise a HIP runtime AMD_LOG_LEVEL log (plain, .gz, .zst; `-` = stdin): processes, devices, queues, API calls and their errors, kernels, code objects, where each thread stopped (docs/log.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -f -a "ps" -d 'List the processes holding /dev/kfd or an AMD render node: user, command line, container, GPUs, VRAM; and what could not be seen, and why (docs/ps.md). Honours --sysroot'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -f -a "why" -d 'Recognise a pasted error message (or a whole build/run log on stdin) and check its likely causes on this machine: the cause, the evidence found now, the fix. Exit 1 when a cause is confirmed here; unrecognised text runs the default checks (docs/check-packs.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -f -a "report" -d 'Write a bug report in Markdown, ready to paste into an issue: the findings of the default run, versions, GPUs, the ROCm/HIP/HSA/GPU environment variables, in collapsible sections. The run flags apply as for the default run; those not listed here go before `report` (`rocm-doctor --profile build report`). User and host names are replaced by <user> and <host> unless --no-redact. Exit 0 when written, 2 when it cannot be (docs/report.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -f -a "checks" -d 'Check packs: `lint FILE...` validates pack files (exit 0 all valid, 1 a file has errors, 2 usage error); errors are `file:line:column: message`'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -f -a "completions" -d 'Print a shell completion script on stdout (install: docs/packaging.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -f -a "man" -d 'Print the man page (roff) on stdout, or write rocm-doctor.1 and one page per subcommand into DIR (docs/man is generated with this)'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -f -a "gen-log" -d 'Internal: write a synthetic AMD_LOG_LEVEL log shaped like seed 003 (benchmarks)'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -f -a "docs-checks" -d 'Print the checks reference in Markdown (docs/checks.md is generated from this)'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -f -a "probe-library" -d 'Internal: load a vendor library in this child process and report on stdout'
complete -c rocm-doctor -n "__fish_rocm_doctor_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand explain" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand explain" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand explain" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand explain" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand explain" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand explain" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand explain" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand explain" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand explain" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand inspect" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand inspect" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand inspect" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand inspect" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand inspect" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand inspect" -l symbols -d 'Also resolve DT_NEEDED like the loader and list undefined symbols (like `ldd -r`)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand inspect" -l kernels -d 'Also list kernel names'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand inspect" -l verify-hash -d 'Check the MD5 hash of every compressed bundle (default: zlib bundles only, where corruption is known; zstd frames fail to decode or miss their size when corrupt)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand inspect" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand inspect" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand inspect" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand inspect" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand merge" -l expect -d 'Host names that must have sent a report (one per line, or space/comma separated); those without one are listed as missing' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand merge" -l baseline -d 'Compare every node\'s report with this known-good report (saved with --json) and list, per drift kind, the nodes that drift' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand merge" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand merge" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand merge" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand merge" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand merge" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand merge" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand merge" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand merge" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand merge" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand log" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand log" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand log" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand log" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand log" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand log" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand log" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand log" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand log" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand ps" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand ps" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand ps" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand ps" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand ps" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand ps" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand ps" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand ps" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand ps" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand why" -l binary -d 'The program or library that failed: its code objects and bundles are judged too (as `inspect` does), against the GPUs or --isa (repeatable)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand why" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand why" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand why" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand why" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand why" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand why" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand why" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand why" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand why" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand report" -l output -d 'Write the report to FILE instead of stdout (the only file the doctor writes outside its temp dir, and only when named here)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand report" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand report" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand report" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand report" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand report" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand report" -l no-redact -d 'Keep user names and host names as they are'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand report" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand report" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand report" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand report" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and not __fish_seen_subcommand_from lint help" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and not __fish_seen_subcommand_from lint help" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and not __fish_seen_subcommand_from lint help" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and not __fish_seen_subcommand_from lint help" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and not __fish_seen_subcommand_from lint help" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and not __fish_seen_subcommand_from lint help" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and not __fish_seen_subcommand_from lint help" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and not __fish_seen_subcommand_from lint help" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and not __fish_seen_subcommand_from lint help" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and not __fish_seen_subcommand_from lint help" -f -a "lint" -d 'Validate pack files: every problem as `file:line:column: message`'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and not __fish_seen_subcommand_from lint help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and __fish_seen_subcommand_from lint" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and __fish_seen_subcommand_from lint" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and __fish_seen_subcommand_from lint" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and __fish_seen_subcommand_from lint" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and __fish_seen_subcommand_from lint" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and __fish_seen_subcommand_from lint" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and __fish_seen_subcommand_from lint" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and __fish_seen_subcommand_from lint" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and __fish_seen_subcommand_from lint" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and __fish_seen_subcommand_from help" -f -a "lint" -d 'Validate pack files: every problem as `file:line:column: message`'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand checks; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand completions" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand completions" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand completions" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand completions" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand completions" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand completions" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand completions" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand completions" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand completions" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand man" -l out-dir -d 'Write every page into this directory instead of printing rocm-doctor.1' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand man" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand man" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand man" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand man" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand man" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand man" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand man" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand man" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand man" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand gen-log" -l iterations -d 'GEMM iterations (seed 003: 127644)' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand gen-log" -l devices -d 'Devices the iterations rotate over' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand gen-log" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand gen-log" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand gen-log" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand gen-log" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand gen-log" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand gen-log" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand gen-log" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand gen-log" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand gen-log" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand docs-checks" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand docs-checks" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand docs-checks" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand docs-checks" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand docs-checks" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand docs-checks" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand docs-checks" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand docs-checks" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand docs-checks" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand probe-library" -l color -d 'When to use colours. `auto` uses them on a terminal unless NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand probe-library" -l isa -d 'Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present. With --asm-caps, `tensile` selects Tensile\'s SupportedISA list' -r
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand probe-library" -l sysroot -d 'Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers\' root filesystems). Tools are still run from the paths found inside DIR' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand probe-library" -l host-root -d 'A host root mounted read-only is the live host, not a fixture (node-problem-detector\'s pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are judged as this process sees them. Not with --sysroot' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand probe-library" -l checks -d 'Also load the check packs in this file or directory of *.toml (repeatable), after the built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d (docs/check-packs.md)' -r -F
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand probe-library" -l json -d 'Print one JSON document on stdout and nothing else (schema: docs/json.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand probe-library" -s v -l verbose -d 'Show the evidence behind every finding (-vv: passing findings\' evidence too)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand probe-library" -l run-root-programs -d 'Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default: never executed, judged from their files. With this flag they are resolved inside DIR, run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR; the report lists them (programs_run). Run only roots you trust (docs/security.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand probe-library" -s h -l help -d 'Print help'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and not __fish_seen_subcommand_from explain inspect merge log ps why report checks completions man gen-log docs-checks probe-library help" -f -a "explain" -d 'Explain a check: what it checks, why it matters, how to fix it'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and not __fish_seen_subcommand_from explain inspect merge log ps why report checks completions man gen-log docs-checks probe-library help" -f -a "inspect" -d 'List the GPU code that binaries, libraries and directories carry (bundles, CCOB, code objects, Tensile libraries) and whether each GPU (or --isa) would find a code object'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and not __fish_seen_subcommand_from explain inspect merge log ps why report checks completions man gen-log docs-checks probe-library help" -f -a "merge" -d 'Fold many --json reports (files, directories of *.json, or `-` for stdin, one document per line or per file, with or without `host: ` prefixes) into one fleet summary: nodes by status, failing checks grouped by cause, stack outliers, unusable inputs. docs/fleet.md'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and not __fish_seen_subcommand_from explain inspect merge log ps why report checks completions man gen-log docs-checks probe-library help" -f -a "log" -d 'Summarise a HIP runtime AMD_LOG_LEVEL log (plain, .gz, .zst; `-` = stdin): processes, devices, queues, API calls and their errors, kernels, code objects, where each thread stopped (docs/log.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and not __fish_seen_subcommand_from explain inspect merge log ps why report checks completions man gen-log docs-checks probe-library help" -f -a "ps" -d 'List the processes holding /dev/kfd or an AMD render node: user, command line, container, GPUs, VRAM; and what could not be seen, and why (docs/ps.md). Honours --sysroot'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and not __fish_seen_subcommand_from explain inspect merge log ps why report checks completions man gen-log docs-checks probe-library help" -f -a "why" -d 'Recognise a pasted error message (or a whole build/run log on stdin) and check its likely causes on this machine: the cause, the evidence found now, the fix. Exit 1 when a cause is confirmed here; unrecognised text runs the default checks (docs/check-packs.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and not __fish_seen_subcommand_from explain inspect merge log ps why report checks completions man gen-log docs-checks probe-library help" -f -a "report" -d 'Write a bug report in Markdown, ready to paste into an issue: the findings of the default run, versions, GPUs, the ROCm/HIP/HSA/GPU environment variables, in collapsible sections. The run flags apply as for the default run; those not listed here go before `report` (`rocm-doctor --profile build report`). User and host names are replaced by <user> and <host> unless --no-redact. Exit 0 when written, 2 when it cannot be (docs/report.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and not __fish_seen_subcommand_from explain inspect merge log ps why report checks completions man gen-log docs-checks probe-library help" -f -a "checks" -d 'Check packs: `lint FILE...` validates pack files (exit 0 all valid, 1 a file has errors, 2 usage error); errors are `file:line:column: message`'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and not __fish_seen_subcommand_from explain inspect merge log ps why report checks completions man gen-log docs-checks probe-library help" -f -a "completions" -d 'Print a shell completion script on stdout (install: docs/packaging.md)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and not __fish_seen_subcommand_from explain inspect merge log ps why report checks completions man gen-log docs-checks probe-library help" -f -a "man" -d 'Print the man page (roff) on stdout, or write rocm-doctor.1 and one page per subcommand into DIR (docs/man is generated with this)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and not __fish_seen_subcommand_from explain inspect merge log ps why report checks completions man gen-log docs-checks probe-library help" -f -a "gen-log" -d 'Internal: write a synthetic AMD_LOG_LEVEL log shaped like seed 003 (benchmarks)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and not __fish_seen_subcommand_from explain inspect merge log ps why report checks completions man gen-log docs-checks probe-library help" -f -a "docs-checks" -d 'Print the checks reference in Markdown (docs/checks.md is generated from this)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and not __fish_seen_subcommand_from explain inspect merge log ps why report checks completions man gen-log docs-checks probe-library help" -f -a "probe-library" -d 'Internal: load a vendor library in this child process and report on stdout'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and not __fish_seen_subcommand_from explain inspect merge log ps why report checks completions man gen-log docs-checks probe-library help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c rocm-doctor -n "__fish_rocm_doctor_using_subcommand help; and __fish_seen_subcommand_from checks" -f -a "lint" -d 'Validate pack files: every problem as `file:line:column: message`'
