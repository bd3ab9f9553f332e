#!/bin/bash
# Slurm HealthCheckProgram around rocm-doctor (docs/fleet.md, Slurm).
#
# Slurm runs HealthCheckProgram as root, with no arguments and SLURMD_NODENAME set, and only logs
# its exit status: any action must be taken by the program itself (slurm.conf(5),
# HealthCheckProgram; slurmd.c run_script_health_check). So this script:
#   - drains the node with the failing check ids as the reason when rocm-doctor finds a failure,
#   - resumes it when healthy again, but only if the drain reason is its own ("rocm-doctor:"),
#     never a drain an operator or another tool set (as LBNL NHC does with its "NHC:" prefix),
#   - does nothing when the state is unchanged, and nothing when the doctor could not decide
#     (exit 2, or killed by the timeout): an unknown state must not drain healthy nodes.
# Settings (environment): ROCM_DOCTOR (binary), ROCM_DOCTOR_ARGS (extra arguments, split on
# spaces), ROCM_DOCTOR_TIMEOUT (seconds, default 50: below Slurm's 60 s HealthCheckTimeout).
set -u

doctor=${ROCM_DOCTOR:-rocm-doctor}
limit=${ROCM_DOCTOR_TIMEOUT:-50}
prefix="rocm-doctor:"
node=${SLURMD_NODENAME:-$(hostname -s)}

log() { echo "rocm-doctor-healthcheck: $*" >&2; }

# shellcheck disable=SC2086 # ROCM_DOCTOR_ARGS is a list of words on purpose
report=$(timeout -k 5 "$limit" "$doctor" --profile runtime --json \
    --deadline "$((limit > 10 ? limit - 5 : limit))" ${ROCM_DOCTOR_ARGS:-})
rc=$?

# Ids of failing (fail/error) findings, from the pretty --json document: in "findings", each
# finding's "id" comes before its "status".
failing_ids() {
    awk '
        /^  "findings": \[/ { inf = 1; next }
        inf && /^  \]/ { inf = 0 }
        inf && /^      "id": "/ { id = $2; gsub(/[",]/, "", id) }
        inf && /^      "status": "(fail|error)"/ { if (!(id in seen)) { seen[id] = 1; out = out (out ? "," : "") id } }
        END { print out }
    '
}

state=$(timeout 10 scontrol show node "$node" 2>/dev/null)
cur_state=$(sed -n 's/.*[[:space:]]State=\([^[:space:]]*\).*/\1/p' <<<"$state" | head -n1)
cur_reason=$(sed -n 's/^[[:space:]]*Reason=\(.*\)$/\1/p' <<<"$state" | head -n1 | sed 's/ \[[^]]*\]$//')
drained=no
case "$cur_state" in *DRAIN*) drained=yes ;; esac
ours=no
case "$cur_reason" in "$prefix"*) ours=yes ;; esac

case $rc in
0)
    if [ "$drained" = yes ] && [ "$ours" = yes ]; then
        log "healthy again: resuming $node (was: $cur_reason)"
        timeout 10 scontrol update NodeName="$node" State=RESUME
    fi
    ;;
1)
    ids=$(failing_ids <<<"$report")
    reason="$prefix ${ids:-failure}"
    reason=${reason:0:200}
    if [ "$drained" = yes ] && [ "$ours" = no ]; then
        log "failing ($ids) but drained by someone else ($cur_reason): left alone"
    elif [ "$drained" = yes ] && [ "$cur_reason" = "$reason" ]; then
        : # unchanged
    else
        log "draining $node: $reason"
        timeout 10 scontrol update NodeName="$node" State=DRAIN Reason="$reason"
    fi
    ;;
*)
    log "rocm-doctor could not decide (exit $rc); node state unchanged"
    ;;
esac
exit 0
