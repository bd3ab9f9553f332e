#!/bin/bash
# Slurm HealthCheckProgram around rocm-doctor (docs/fleet.md, Slurm).
#
# Slurm runs HealthCheckProgram as root, with no arguments and an environment of only
# SLURMD_NODENAME (no PATH; seen under Slurm 22.05.8), and only logs its exit status, at
# SlurmdDebug=debug2: any action must be taken by the program itself (slurm.conf(5),
# HealthCheckProgram; slurmd.c run_script_health_check). So this script:
#   - drains the node with the failing check ids as the reason when rocm-doctor reports a
#     finding with status "fail",
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

load_settings() {
    local _rd_cfg=${ROCM_DOCTOR_CONFIG:-/etc/default/rocm-doctor} _rd_v
    local -A _rd_env=()
    if [ ! -e "$_rd_cfg" ]; then
        [ -n "${ROCM_DOCTOR_CONFIG:-}" ] && log err "settings file $_rd_cfg (ROCM_DOCTOR_CONFIG) does not exist"
        return 0
    fi
    if [ ! -r "$_rd_cfg" ]; then
        log err "cannot read the settings file $_rd_cfg"
        return 0
    fi
    for _rd_v in ROCM_DOCTOR ROCM_DOCTOR_ARGS ROCM_DOCTOR_TIMEOUT ROCM_DOCTOR_SCONTROL; do
        if [ -n "${!_rd_v+x}" ]; then _rd_env[$_rd_v]=${!_rd_v}; fi
    done
    set -a
    # shellcheck source=/dev/null
    . "$_rd_cfg" || log err "the settings file $_rd_cfg failed (status $?); using what it set"
    set +a
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
    reason="$prefix $fails"
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
