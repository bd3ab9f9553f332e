#!/bin/bash
# Slurm HealthCheckProgram around rocm-doctor (docs/fleet.md, Slurm).
#
# Slurm runs HealthCheckProgram as root, with no arguments and an environment of only
# SLURMD_NODENAME (no PATH; seen under Slurm 22.05.8), and only logs its exit status, at
# SlurmdDebug=debug2: any action must be taken by the program itself (slurm.conf(5),
# HealthCheckProgram; slurmd.c run_script_health_check). So this script:
#   - drains the node when rocm-doctor reports a finding with status "fail", with the heaviest
#     repair action of the failures and their check ids as the reason
#     ("rocm-doctor: drain-and-inspect: health.ras,kernel.hangs"),
#   - resumes it when healthy again, but only if the drain reason is its own ("rocm-doctor:"),
#     never a drain an operator or another tool set (as LBNL NHC does with its "NHC:" prefix),
#   - changes nothing when the doctor could not decide: a report whose problems are only
#     "error" findings (a probe that timed out, a hung hsa_init), a usage error (exit 2), a
#     doctor that cannot be run, or one killed by the timeout. An unknown state must not drain
#     healthy nodes.
# Every decision is logged on stderr (slurmd's log, at debug2) and through
# `logger -t rocm-doctor-healthcheck` (syslog / the journal); errors at priority user.err.
#
# Settings: the file ROCM_DOCTOR_CONFIG (default /etc/default/rocm-doctor), a shell fragment of
# VAR=value lines read with `set -a` (so any other variable in it, SLURM_CONF or ROCM_PATH, is
# exported to the doctor and scontrol), then the environment, which wins:
#   ROCM_DOCTOR           the binary (default: rocm-doctor on the PATH below)
#   ROCM_DOCTOR_ARGS      extra arguments, split on white space; an option given here
#                         (--profile, --deadline, --json) replaces the script's own
#   ROCM_DOCTOR_TIMEOUT   seconds the doctor may take (default 40; at least 3). The doctor's own
#                         --deadline is set a margin below it, so it reports before `timeout`
#                         kills it; the whole script stays below Slurm's 60 s limit
#   ROCM_DOCTOR_SCONTROL  the scontrol command (default: scontrol on the PATH below)
set -u

PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/rocm-doctor/bin${PATH:+:$PATH}
export PATH

tag=rocm-doctor-healthcheck

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
    for _rd_v in ROCM_DOCTOR ROCM_DOCTOR_ARGS ROCM_DOCTOR_TIMEOUT ROCM_DOCTOR_SCONTROL; do
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
scontrol=${ROCM_DOCTOR_SCONTROL:-scontrol}
prefix="rocm-doctor:"
node=${SLURMD_NODENAME:-$(hostname -s)}

limit=${ROCM_DOCTOR_TIMEOUT:-40}
case $limit in
'' | *[!0-9]*)
    log err "ROCM_DOCTOR_TIMEOUT=$limit is not a whole number of seconds: using 40"
    limit=40
    ;;
esac
limit=$((10#$limit))
if [ "$limit" -lt 3 ]; then
    log warning "ROCM_DOCTOR_TIMEOUT=$limit is too short: using 3"
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
read -r -d '' -a user_args <<<"${ROCM_DOCTOR_ARGS:-}" || true
has_opt() {
    local a
    for a in "${user_args[@]}"; do
        case $a in "$1" | "$1"=*) return 0 ;; esac
    done
    return 1
}
args=()
has_opt --json || args+=(--json)
has_opt --profile || args+=(--profile runtime)
if has_opt --deadline; then
    log info "ROCM_DOCTOR_ARGS sets --deadline: keep it below ROCM_DOCTOR_TIMEOUT ($limit s)"
else
    args+=(--deadline "$deadline")
fi
args+=("${user_args[@]}")

errf=$(mktemp "${TMPDIR:-/tmp}/rocm-doctor-healthcheck.XXXXXX" 2>/dev/null) || errf=
trap '[ -n "$errf" ] && rm -f "$errf"' EXIT
trap 'exit 143' TERM INT HUP # the EXIT trap still removes the file
report=$(timeout -k 2 "$limit" "$doctor" "${args[@]}" 2>"${errf:-/dev/null}")
rc=$?
errors() { [ -n "$errf" ] && tr '\n' ' ' <"$errf" | cut -c1-400; }

# Ids of the findings with status $1, from the pretty --json document: in "findings", each
# finding's "id" comes before its "status".
ids_with_status() {
    awk -v want="$1" '
        /^  "findings": \[/ { inf = 1; next }
        inf && /^  \]/ { inf = 0 }
        inf && /^      "id": "/ { id = $2; gsub(/[",]/, "", id) }
        inf && $0 ~ "^      \"status\": \"" want "\"" { if (!(id in seen)) { seen[id] = 1; out = out (out ? "," : "") id } }
        END { print out }
    ' <<<"$report"
}

# The heaviest repair action of the failures (docs/json.md: none < fix-config < restart-process
# < reset-gpu < reboot-node < drain-and-inspect): each finding's "action" comes after its
# "status".
fail_action() {
    awk '
        BEGIN { n = split("none fix-config restart-process reset-gpu reboot-node drain-and-inspect", names, " "); for (i = 1; i <= n; i++) rank[names[i]] = i }
        /^  "findings": \[/ { inf = 1; next }
        inf && /^  \]/ { inf = 0 }
        inf && /^      "status": "/ { st = $2; gsub(/[",]/, "", st) }
        inf && /^      "action": "/ { a = $2; gsub(/[",]/, "", a); if (st == "fail" && rank[a] > best) { best = rank[a]; out = a } }
        END { print out }
    ' <<<"$report"
}

# The node's state and reason (cur_state, cur_reason, drained, ours).
read_node() {
    local state
    if ! state=$(timeout 8 "$scontrol" show node "$node" 2>&1); then
        log err "cannot read the state of $node: $scontrol show node: ${state:0:300}"
        return 1
    fi
    cur_state=$(sed -n 's/.*[[:space:]]State=\([^[:space:]]*\).*/\1/p' <<<"$state" | head -n1)
    cur_reason=$(sed -n 's/^[[:space:]]*Reason=\(.*\)$/\1/p' <<<"$state" | head -n1 | sed 's/ \[[^]]*\]$//')
    drained=no
    case "$cur_state" in *DRAIN*) drained=yes ;; esac
    ours=no
    case "$cur_reason" in "$prefix"*) ours=yes ;; esac
}

update_node() {
    local out
    if ! out=$(timeout 8 "$scontrol" update NodeName="$node" "$@" 2>&1); then
        log err "$scontrol update NodeName=$node $* failed: ${out:0:300}"
    fi
}

case $rc in
0)
    read_node || exit 0
    if [ "$drained" = yes ] && [ "$ours" = yes ]; then
        log notice "healthy again: resuming $node (was: $cur_reason)"
        update_node State=RESUME
    elif [ "$drained" = yes ]; then
        log info "healthy; $node is drained by someone else ($cur_reason): left alone"
    else
        log info "healthy; $node ${cur_state:-?}: nothing to do"
    fi
    ;;
1)
    fails=$(ids_with_status fail)
    errs=$(ids_with_status error)
    if [ -z "$fails" ]; then
        log warning "could not decide: no failure, only errors (${errs:-none found in the report}); $node left as it is"
        exit 0
    fi
    read_node || exit 0
    action=$(fail_action)
    reason="$prefix ${action:+$action: }$fails"
    reason=${reason:0:200}
    if [ -n "$cur_reason" ] && [ "$ours" = no ]; then
        log warning "failing ($fails) but $node is ${cur_state:-?} with another reason ($cur_reason): left alone"
    elif [ "$drained" = yes ] && [ "$cur_reason" = "$reason" ]; then
        log info "still failing ($fails); $node already drained for it"
    else
        log warning "draining $node: $reason${errs:+ (undecided: $errs)}"
        update_node State=DRAIN Reason="$reason"
    fi
    ;;
2)
    log err "usage error (exit 2), NO CHECK RAN: $doctor ${args[*]}: $(errors)"
    ;;
124 | 137)
    log warning "could not decide: $doctor killed after ${limit} s (ROCM_DOCTOR_TIMEOUT); $node left as it is"
    ;;
126 | 127)
    log err "cannot run $doctor (exit $rc), NO CHECK RAN (PATH=$PATH): $(errors)"
    ;;
*)
    log err "could not decide: $doctor exited $rc: $(errors); $node left as it is"
    ;;
esac
exit 0
