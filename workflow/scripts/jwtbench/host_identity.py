"""Which machine a run's results come from: a host-id made from the hardware and the OS
(CPU model, logical cores, memory, kernel, OS, architecture), never from the hostname.

    <cpu-model slug, max 24 chars>-<logical cores>c-<MemTotal rounded to GiB>g-<first 10 hex
    of the sha256 of the canonical JSON of the facts>

Two runs on the same machine (same kernel) get the same id; a machine with another CPU,
core count, memory size, kernel or OS gets another. The facts are read the way
machine_facts.py reads them for the provenance's `host` block.
"""

import hashlib
import json
import re

from jwtbench import machine_facts

FACTS = ("cpu_model", "cores", "memory_gib", "kernel_release", "os", "architecture")
GIB = 1024**3


def facts_of(host):
    """The id's facts from a provenance `host` block (machine_facts.host())."""
    memory = host.get("memory_bytes")
    return {
        "cpu_model": host["cpu_model"],
        "cores": host["cores"],
        "memory_gib": round(memory / GIB) if memory else 0,
        "kernel_release": host["kernel"],
        "os": host["os"],
        "architecture": host["architecture"],
    }


def host_facts():
    """This machine's facts. Cores are os.cpu_count(): every logical CPU, whatever this
    process's affinity (benchmarks run pinned, the id must not depend on it)."""
    return facts_of(machine_facts.host())


def slug(text, limit=24):
    words = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return words[:limit].rstrip("-") or "cpu"


def canonical_json(facts):
    return json.dumps({name: facts[name] for name in FACTS}, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def host_id(facts):
    digest = hashlib.sha256(canonical_json(facts).encode()).hexdigest()[:10]
    return f"{slug(facts['cpu_model'])}-{facts['cores']}c-{facts['memory_gib']}g-{digest}"


def describe():
    """host.json's content: the facts and the id made from them."""
    facts = host_facts()
    return {**facts, "host_id": host_id(facts)}


if __name__ == "__main__":
    print(json.dumps(describe(), indent=2))
