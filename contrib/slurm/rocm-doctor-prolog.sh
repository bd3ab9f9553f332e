#!/bin/bash
# Slurm node Prolog checking the GPUs of the starting job with
# rocm-doctor (docs/fleet.md, Slurm). Slurm drains the node and requeues the job when a prolog
# exits non-zero (slurm.conf(5), Prolog), so exit 1 is kept for a real GPU failure; when the
# doctor cannot decide (exit 2, timeout) the job starts and the reason is logged.
# The job's GPUs: ROCR_VISIBLE_DEVICES if set, else SLURM_JOB_GPUS (the GPU indices Slurm
# allocated, set in the prolog environment).
set -u

doctor=${ROCM_DOCTOR:-rocm-doctor}
limit=${ROCM_DOCTOR_TIMEOUT:-20}
gpus=${ROCR_VISIBLE_DEVICES:-${SLURM_JOB_GPUS:-}}

if [ -n "$gpus" ]; then
    export ROCR_VISIBLE_DEVICES="$gpus"
fi
# shellcheck disable=SC2086 # ROCM_DOCTOR_ARGS is a list of words on purpose
line=$(timeout -k 5 "$limit" "$doctor" --npd --profile runtime --only gpu. \
    --deadline "$((limit > 6 ? limit - 5 : limit))" ${ROCM_DOCTOR_ARGS:-})
rc=$?
case $rc in
0) exit 0 ;;
1)
    echo "rocm-doctor prolog: job ${SLURM_JOB_ID:-?} GPUs ${gpus:-all}: $line" >&2
    exit 1
    ;;
*)
    echo "rocm-doctor prolog: could not decide (exit $rc): $line" >&2
    exit 0
    ;;
esac
