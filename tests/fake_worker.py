"""A scripted worker of the conductor's protocol (jwtbench-worker/1), for tests/test_conductor.py.

It times nothing: each batch's elapsed ns comes from the cell's script on a virtual clock,
so the conductor's decisions can be checked against known noise. A cell's `fake` entry:
  ns           its ns per call (default 1000)
  noise        relative spread of each batch, uniform in +-noise (default 0)
  slow_calls   its calls start `slow_factor` times as slow and reach `ns` after this many
               (a JIT warming up)
  slow_factor  (default 3)
  status       "unsupported" or "failed": reported as such, never run
  throws_at    its batch number this (1-based, warm-up included) throws
  dies_at      at its batch number this the worker exits 3 without a word
  hangs_at     at its batch number this the worker stops answering
  throws_in_round, dies_in_round: the same at its batch in that round (a request that
               opens with the reference)
  worker_status {worker number: "failed"}: reported so by that worker only
  constant_ns  every batch takes this long whatever its n (a loop a JIT removed)
  compiling    its first this many batches answer jit_ms 5 and cpu_ns of half their time
               (a JIT compiling on the benchmark's CPU)
  sizes        each batch answers input_bytes 10 + its number and output_bytes 100 + its
               number (tokensize's records)
  parts        each batch answers parts sign (a third of it) and verify (a quarter; transfer)
  native_factor the native harness's figure over the calls' ns (default 1; a cross-check spec)
The spec's `fake_drift` makes the machine slower by this fraction per virtual second;
`fake_no_reference` leaves the reference out of the first line; `fake_worker_speeds`
[factor of worker 1, of worker 2, ...] makes each worker process's calls that much slower
(a worker's number is the order in which the processes came to claim one, which need not
be the conductor's numbering).

Usage: python tests/fake_worker.py SPEC
"""

import json
import os
import random
import sys
import time


def worker_number(spec_path):
    """1 for the first worker started on this spec, 2 for the next, ... (a file each)."""
    number = 1
    while True:
        try:
            os.close(os.open(f"{spec_path}.worker{number}", os.O_CREAT | os.O_EXCL))
            return number
        except FileExistsError:
            number += 1


def main(spec_path):
    spec = json.load(open(spec_path))
    scripts = [cell.get("fake", {}) for cell in spec["cells"]]
    scripts_by_key = dict(enumerate(scripts))
    scripts_by_key["reference"] = {"ns": 500}
    drift = spec.get("fake_drift", 0.0)
    number = worker_number(spec_path)
    speed = spec.get("fake_worker_speeds", [1.0] * number)[number - 1]
    rng = random.Random(42)
    clock_ns = 0
    calls = {key: 0 for key in scripts_by_key}
    batches = {key: 0 for key in scripts_by_key}
    rounds = 0

    def entry(script):
        facts = {"implementation": "fake", "implementation_version": "1.0", "input_bytes": 10}
        status = script.get("status") or script.get("worker_status", {}).get(str(number))
        if status:
            return {**facts, "status": status, "reason": f"scripted {status}"}
        return {**facts, "status": "ok", "output_bytes": 32, "pass_length": script.get("pass_length", 1)}

    hello = {
        "protocol": "jwtbench-worker/1",
        "cells": [entry(script) for script in scripts],
        "reference": None if spec.get("fake_no_reference") else entry({}),
    }
    if "crosscheck" in spec:
        hello["harness"] = {"name": "fakebench", "version": "0.1"}
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("end"):
            print(json.dumps({"sink": 0}), flush=True)
            return 0
        if "native" in request:
            key, seconds = request["native"]
            script = scripts_by_key[key]
            clock_ns += int(seconds * 1e9)
            figure = speed * script.get("ns", 1000) * script.get("native_factor", 1.0)
            print(json.dumps({"ns_per_op": figure, "samples": 7}), flush=True)
            continue
        is_round = request["batches"][0][0] == "reference" and len(request["batches"]) > 1
        rounds += is_round
        for key, n in request["batches"]:
            script = scripts_by_key[key]
            batches[key] += 1
            in_round = rounds if is_round and key != "reference" else None
            if script.get("dies_at") == batches[key] or script.get("dies_in_round", 0) == in_round:
                sys.exit(3)
            if batches[key] == script.get("hangs_at"):
                time.sleep(3600)  # a worker that hangs: the conductor's deadline must end it
            if script.get("throws_at") == batches[key] or script.get("throws_in_round", 0) == in_round:
                print(json.dumps({"error": "scripted failure"}), flush=True)
                break
            # warming: each call slower by (slow_factor - 1) x what is left of slow_calls
            warming = max(0.0, 1 - (calls[key] + n / 2) / script["slow_calls"]) if "slow_calls" in script else 0
            base = script.get("ns", 1000) * n * (1 + (script.get("slow_factor", 3) - 1) * warming)
            noise = script.get("noise", 0.0)
            elapsed = speed * base * (1 + drift * clock_ns / 1e9) * (1 + rng.uniform(-noise, noise))
            if "constant_ns" in script:
                elapsed = script["constant_ns"]
            calls[key] += n
            clock_ns += int(elapsed)
            answer = {"elapsed_ns": max(1, int(elapsed))}
            if script.get("sizes"):
                answer.update(input_bytes=10 + batches[key], output_bytes=100 + batches[key])
            if script.get("parts"):
                answer["parts"] = {"sign": answer["elapsed_ns"] // 3, "verify": answer["elapsed_ns"] // 4}
            if batches[key] <= script.get("compiling", 0):
                answer.update(jit_ms=5, cpu_ns=int(elapsed) // 2)
            elif "compiling" in script:
                answer.update(jit_ms=0, cpu_ns=int(elapsed))
            print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
