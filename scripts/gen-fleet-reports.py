#!/usr/bin/env python3
"""Writes a fleet of rocm-doctor --json reports for `merge` tests and benchmarks.

Usage: gen-fleet-reports.py OUT_DIR COUNT TEMPLATE.json...

Each TEMPLATE is a real report (`rocm-doctor --json --sysroot tests/fixtures/sysroots/<x>`);
node i is a copy of template i % len(templates) with host `node-<i>`. Outliers injected, printed
on stderr: node-00007 another HIP runtime, node-00013 another firmware, node-00021 one GPU less.
"""
import json, sys

out, count, templates = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
docs = [json.load(open(t)) for t in templates]
for d in docs:
    fp = d["fingerprint"]
    fp["hip_runtime"], fp["driver"] = "6.2.41133", "6.8.5"
injected = {7: ("hip_runtime", "6.1.40091"), 13: ("firmware", ["90/9"]), 21: ("gpu_count", None)}
for i in range(count):
    d = docs[i % len(docs)]
    host = f"node-{i:05d}"
    fp = dict(d["fingerprint"])
    if i in injected:
        k, v = injected[i]
        fp[k] = v if v is not None else fp["gpu_count"] - 1
        print(f"{host}: {k} = {fp[k]}", file=sys.stderr)
    d2 = dict(d, host=host, fingerprint=fp)
    with open(f"{out}/{host}.json", "w") as f:
        json.dump(d2, f, indent=2)
