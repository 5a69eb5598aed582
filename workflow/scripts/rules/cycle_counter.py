"""Is the host's cycle counter usable, and how many of its ticks make a nanosecond?

eBACS reports cycles per byte, read from the CPU's time-stamp counter (TSC) on amd64. The
drivers time with each language's monotonic nanosecond clock; where the TSC is invariant
(CPU flags constant_tsc and nonstop_tsc: it ticks at one fixed rate whatever the core's
frequency or sleep state), ns convert to TSC cycles exactly, so the report can give the
length sweep in cycles/byte too. The rate is measured here, not taken from the CPU's name:
RDTSC (a 4-instruction function mapped executable through ctypes) against
time.perf_counter_ns over a busy interval, several times, median.

Writes results/cycle_counter.json: {"usable": bool, "reason": str, "ticks_per_ns": float
or null, "source": ...}. Not usable (with the reason) off x86-64, without the invariant
flags, or where executable memory is refused; the report then leaves cycles/byte out.
"""

import ctypes
import json
import mmap
import platform
import statistics
import time
from pathlib import Path

# rdtsc; shl rdx, 32; or rax, rdx; ret
RDTSC_CODE = bytes([0x0F, 0x31, 0x48, 0xC1, 0xE2, 0x20, 0x48, 0x09, 0xD0, 0xC3])
INVARIANT_FLAGS = ("constant_tsc", "nonstop_tsc")
INTERVAL_NS = 100_000_000
ROUNDS = 7


def cpu_flags(cpuinfo=Path("/proc/cpuinfo")):
    try:
        for line in cpuinfo.read_text().splitlines():
            name, _, value = line.partition(":")
            if name.strip() == "flags":
                return set(value.split())
    except OSError:
        pass
    return set()


def rdtsc_function():
    """A callable returning the TSC, kept alive with its executable page."""
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(RDTSC_CODE)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    function = ctypes.CFUNCTYPE(ctypes.c_uint64)(address)
    function.page = page
    return function


def ticks_per_ns(rdtsc):
    rates = []
    for _ in range(ROUNDS):
        start_ns, start_ticks = time.perf_counter_ns(), rdtsc()
        while (now := time.perf_counter_ns()) - start_ns < INTERVAL_NS:
            pass
        ticks = rdtsc() - start_ticks
        rates.append(ticks / (now - start_ns))
    return statistics.median(rates), (max(rates) - min(rates)) / statistics.median(rates)


def measure():
    found = {"usable": False, "ticks_per_ns": None, "source": "rdtsc vs time.perf_counter_ns"}
    if platform.machine() not in ("x86_64", "AMD64"):
        return {**found, "reason": f"no TSC reader for {platform.machine()}"}
    missing = [flag for flag in INVARIANT_FLAGS if flag not in cpu_flags()]
    if missing:
        return {**found, "reason": f"the TSC is not invariant here (CPU flags lack {', '.join(missing)})"}
    try:
        rdtsc = rdtsc_function()
    except (OSError, ValueError, PermissionError) as error:
        return {**found, "reason": f"cannot map executable memory for RDTSC: {error}"}
    rate, spread = ticks_per_ns(rdtsc)
    if spread > 0.01:
        return {**found, "ticks_per_ns": rate, "reason": f"TSC rate varied by {spread:.1%} between rounds"}
    return {
        **found,
        "usable": True,
        "ticks_per_ns": rate,
        "spread": spread,
        "reason": f"invariant TSC at {rate:.4f} ticks/ns"
        f" ({ROUNDS} rounds of {INTERVAL_NS / 1e6:g} ms, spread {spread:.2%})",
    }


def run_job(job):
    found = measure()
    Path(job.output[0]).write_text(json.dumps(found, indent=2) + "\n")
    with open(job.log[0], "w") as log:
        print(found["reason"], file=log)


if __name__ == "__main__":
    print(json.dumps(measure(), indent=2))
