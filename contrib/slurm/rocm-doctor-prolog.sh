#!/bin/bash
# Slurm node Prolog checking the GPUs of the starting job with rocm-doctor (docs/fleet.md, Slurm).
#
# A prolog that exits non-zero DRAINS THE NODE with Reason="Prolog error", and NOTHING RESUMES
# IT: not Slurm, not rocm-doctor-healthcheck.sh (it only resumes its own "rocm-doctor:"
# drains). A batch job is requeued and HELD ("launch failed requeued held"); an srun job fails.
# After fixing the node: `scontrol update NodeName=NODE State=RESUME` and `scontrol release
# JOBID`. Seen under Slurm 22.05.8. So this script exits 1 only when the doctor reports a real
# GPU failure (--npd exit 1), and 0 when it could not decide (a check error, exit 2, a usage
# error, a doctor that cannot be run, or one killed by the timeout): the job starts.
#
# Slurm runs the prolog as root without PATH (its environment: SLURM_JOB_ID, SLURM_JOB_UID,
# SLURMD_NODENAME, SLURM_CONF, SLURM_JOB_GPUS with GPU GRES, ...), and logs its output only when it
# fails. Every decision is logged on stderr and through `logger -t rocm-doctor-prolog`
# (syslog / the journal); a failure and a usage error at priority user.err.
# The job's GPUs: ROCR_VISIBLE_DEVICES if set, else SLURM_JOB_GPUS (the GPU indices Slurm
# allocated).
#
# Settings: the file ROCM_DOCTOR_CONFIG (default /etc/default/rocm-doctor), a shell fragment of
# VAR=value lines read with `set -a` (other variables in it are exported to the doctor), then the
# environment, which wins:
#   ROCM_DOCTOR           the binary (default: rocm-doctor on the PATH below)
#   ROCM_DOCTOR_PROLOG_ARGS, else ROCM_DOCTOR_ARGS
#                         extra arguments, split on white space; an option given here
#                         (--npd, --profile, --only, --deadline) replaces the script's own
#   ROCM_DOCTOR_PROLOG_TIMEOUT, else ROCM_DOCTOR_TIMEOUT
#                         seconds the doctor may take (default 20; at least 3); the doctor's
#                         --deadline is set a margin below it
set -u

PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/rocm-doctor/bin${PATH:+:$PATH}
export PATH

tag=rocm-doctor-prolog

# log PRIORITY MESSAGE: stderr, and syslog when logger exists.
log() {
    local pri=$1
    shift
    echo "$tag: $*" >&2
    if command -v logger >/dev/null 2>&1; then
        logger -t "$tag" -p "user.$pri" -- "$*" 2>/dev/null || true
    fi
}

# settings_refusal FD: why the settings file open on descriptor FD must not be sourced, or
# nothing. The scripts run as root, so the file decides what root runs: the rule of OpenSSH's
# StrictModes and of sudo's sudoers.d (docs/security.md, section 1), judged through the open
# descriptor (`stat -L /dev/fd/FD` is fstat(2) of the opened file, proc(5)), so the file checked
# is the file sourced: a regular file owned by root (or by the user running the script), that
# neither its group nor others may write, in a directory with the same owners and that neither
# its group nor others may write (a sticky /tmp is refused too).
settings_refusal() {
    local fd=$1 me st uid mode type real dir
    me=$(id -u)
    st=$(stat -L -c '%u %a %F' "/dev/fd/$fd" 2>/dev/null) || {
        echo "cannot stat it"
        return
    }
    read -r uid mode type <<<"$st"
    case $type in
    'regular file' | 'regular empty file') ;;
    *)
        echo "it is not a regular file but a $type"
        return
        ;;
    esac
    if [ "$uid" != 0 ] && [ "$uid" != "$me" ]; then
        echo "it is owned by uid $uid, not by root"
        return
    fi
    if ((8#$mode & 8#022)); then
        echo "its group or others may write it (mode $mode)"
        return
    fi
    # The directory the opened file is in (its path as the kernel knows it, proc(5)).
    real=$(readlink "/proc/self/fd/$fd" 2>/dev/null) || real=
    case $real in
    /*) ;;
    *)
        echo "cannot tell which directory it is in"
        return
        ;;
    esac
    dir=${real%/*}
    dir=${dir:-/}
    st=$(stat -c '%u %a' -- "$dir" 2>/dev/null) || {
        echo "cannot stat its directory $dir"
        return
    }
    read -r uid mode <<<"$st"
    if [ "$uid" != 0 ] && [ "$uid" != "$me" ]; then
        echo "its directory $dir is owned by uid $uid, not by root"
    elif ((8#$mode & 8#022)); then
        echo "its directory $dir may be written by its group or others (mode $mode)"
    fi
}

load_settings() {
    local _rd_cfg=${ROCM_DOCTOR_CONFIG:-/etc/default/rocm-doctor} _rd_v _rd_fd _rd_why
    local -A _rd_env=()
    if [ ! -e "$_rd_cfg" ]; then
        [ -n "${ROCM_DOCTOR_CONFIG:-}" ] && log err "settings file $_rd_cfg (ROCM_DOCTOR_CONFIG) does not exist"
        return 0
    fi
    # Not a regular file (a FIFO would block the open below): refused by path before opening;
    # the descriptor is judged again after.
    if [ ! -f "$_rd_cfg" ]; then
        log err "refused the settings file $_rd_cfg: it is not a regular file; using the defaults"
        return 0
    fi
    if ! { exec {_rd_fd}<"$_rd_cfg"; } 2>/dev/null; then
        log err "cannot read the settings file $_rd_cfg"
        return 0
    fi
    _rd_why=$(settings_refusal "$_rd_fd")
    if [ -n "$_rd_why" ]; then
        exec {_rd_fd}<&-
        log err "refused the settings file $_rd_cfg: $_rd_why; using the defaults. Fix: chown root:root $_rd_cfg; chmod go-w $_rd_cfg and its directory"
        return 0
    fi
    for _rd_v in ROCM_DOCTOR ROCM_DOCTOR_ARGS ROCM_DOCTOR_TIMEOUT ROCM_DOCTOR_PROLOG_ARGS ROCM_DOCTOR_PROLOG_TIMEOUT; do
        if [ -n "${!_rd_v+x}" ]; then _rd_env[$_rd_v]=${!_rd_v}; fi
    done
    set -a
    # shellcheck source=/dev/null
    . "/dev/fd/$_rd_fd" || log err "the settings file $_rd_cfg failed (status $?); using what it set"
    set +a
    exec {_rd_fd}<&-
    for _rd_v in "${!_rd_env[@]}"; do printf -v "$_rd_v" '%s' "${_rd_env[$_rd_v]}"; done
}
load_settings

doctor=${ROCM_DOCTOR:-rocm-doctor}
job="job ${SLURM_JOB_ID:-?}"
gpus=${ROCR_VISIBLE_DEVICES:-${SLURM_JOB_GPUS:-}}
if [ -n "$gpus" ]; then
    export ROCR_VISIBLE_DEVICES="$gpus"
fi

limit=${ROCM_DOCTOR_PROLOG_TIMEOUT:-${ROCM_DOCTOR_TIMEOUT:-20}}
case $limit in
'' | *[!0-9]*)
    log err "prolog timeout $limit is not a whole number of seconds: using 20"
    limit=20
    ;;
esac
limit=$((10#$limit))
if [ "$limit" -lt 3 ]; then
    log warning "prolog timeout $limit s is too short: using 3"
    limit=3
fi
# The doctor's deadline: a tenth of the limit below it, at least 2 s, at most 5 s.
margin=$((limit / 10))
[ "$margin" -lt 2 ] && margin=2
[ "$margin" -gt 5 ] && margin=5
deadline=$((limit - margin))

# The user's arguments, and the script's own options unless the user gave them (a repeated
# option is a usage error of the doctor: no check at all).
user_args=()
read -r -d '' -a user_args <<<"${ROCM_DOCTOR_PROLOG_ARGS-${ROCM_DOCTOR_ARGS:-}}" || true
has_opt() {
    local a
    for a in "${user_args[@]}"; do
        case $a in "$1" | "$1"=*) return 0 ;; esac
    done
    return 1
}
args=()
has_opt --npd || args+=(--npd)
has_opt --profile || args+=(--profile runtime)
has_opt --only || args+=(--only gpu.)
if has_opt --deadline; then
    log info "the arguments set --deadline: keep it below the prolog timeout ($limit s)"
else
    args+=(--deadline "$deadline")
fi
args+=("${user_args[@]}")

errf=$(mktemp "${TMPDIR:-/tmp}/rocm-doctor-prolog.XXXXXX" 2>/dev/null) || errf=
trap '[ -n "$errf" ] && rm -f "$errf"' EXIT
trap 'exit 143' TERM INT HUP # the EXIT trap still removes the file
line=$(timeout -k 2 "$limit" "$doctor" "${args[@]}" 2>"${errf:-/dev/null}")
rc=$?
errors() { [ -n "$errf" ] && tr '\n' ' ' <"$errf" | cut -c1-400; }

case $rc in
0)
    log info "$job GPUs ${gpus:-all}: $line"
    exit 0
    ;;
1)
    log err "$job GPUs ${gpus:-all}: $line; exit 1: Slurm drains the node (Prolog error) and requeues the job held"
    exit 1
    ;;
2)
    # --npd prints a usage error as its own UNKNOWN line (older doctors printed nothing).
    case $line in
    "UNKNOWN usage:"* | "")
        log err "usage error (exit 2), NO CHECK RAN, $job starts: $doctor ${args[*]}: ${line:-$(errors)}"
        ;;
    *)
        log warning "could not decide, $job starts: $line"
        ;;
    esac
    ;;
124 | 137)
    log warning "could not decide, $job starts: $doctor killed after $limit s (the prolog timeout)"
    ;;
126 | 127)
    log err "cannot run $doctor (exit $rc), NO CHECK RAN, $job starts (PATH=$PATH): $(errors)"
    ;;
*)
    log err "could not decide, $job starts: $doctor exited $rc: $(errors)"
    ;;
esac
exit 0
