"""What else the machine did while a benchmark ran: sampled from outside the driver, every
half second, on a CPU the benchmark does not use (issue 42 item 4; docs/methods.md,
"The machine's noise").

Per interval it records, for the benchmark's CPUs:
- steal: time the hypervisor gave the CPU to another guest (/proc/stat), on the benchmark's
  CPUs and over all CPUs;
- busy: the CPUs' non-idle time (/proc/stat), irq and softirq apart;
- the CPU time of the benchmark's own tasks and of every other task (kernel threads
  included) on those CPUs, per thread from /proc/<pid>/task/<tid>/stat (utime + stime, in
  clock ticks, charged to the CPU the thread last ran on: `processor`);
- the other tasks runnable on those CPUs at the sample (state R), and the busiest of them;
- how long the benchmark's own threads waited, runnable, for a CPU
  (/proc/<pid>/task/<tid>/schedstat, its second field), the most direct sign of a
  competitor;
- the machine's CPU pressure (/proc/pressure/cpu, "some"), when the kernel has PSI;
- the CPUs' frequency (cpufreq scaling_cur_freq) and thermal throttle events
  (thermal_throttle/*_count), when the kernel exposes them (empty otherwise);
- the sampler's own CPU time for the sample.

Which tasks are the benchmark's: the job's child process and its descendants (natively,
taskset and the driver); in a container, the container's processes are children of the
engine's shim (podman's conmon, docker's containerd-shim), which is not a descendant of
the `podman run` client: a shim started after the job's child whose processes are pinned
within the benchmark's CPUs (--cpuset-cpus) is the job's, with its descendants. Everything
else is another's, including the Snakemake process that runs this sampler.
"""

import datetime
import os
import subprocess
import threading
import time
from pathlib import Path

from jwtbench import result_tables

PROC = Path("/proc")
CPU_SYSFS = Path("/sys/devices/system/cpu")
TICKS = os.sysconf("SC_CLK_TCK")
INTERVAL_SECONDS = 0.5
# Container engines' per-container monitors (comm is cut to 15 characters).
SHIMS = {"conmon", "containerd-shim"}

# The record's columns: results/noise.csv's (workflow/schemas/noise.schema.yaml) from
# `interval` on; those before it name the benchmark job, which summarize_noise adds.
NOISE_COLUMNS = result_tables.columns("noise.schema.yaml")
COLUMNS = NOISE_COLUMNS[NOISE_COLUMNS.index("interval") :]


def read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except OSError:  # gone meanwhile, or not exposed
        return None


def read_bytes(path):
    """A /proc file's first 4 KiB without a file object: the sampler reads one per thread
    on the machine every sample, and os.read costs about half of open().read() there."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)


def parse_stat(text):
    """(comm, state, ppid, utime + stime, starttime, processor) of a stat line (bytes)."""
    head, _, rest = text.rpartition(b")")
    fields = rest.split()
    return (
        head.partition(b"(")[2].decode(errors="replace"),
        fields[0].decode(),
        int(fields[1]),
        int(fields[11]) + int(fields[12]),
        int(fields[19]),
        int(fields[36]),
    )


def cpu_times():
    """{cpu (None for the total): (steal, busy, irq)} in clock ticks, from /proc/stat."""
    times = {}
    for line in (read(PROC / "stat") or "").splitlines():
        if not line.startswith("cpu"):
            break
        name, *values = line.split()
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in values[:8])
        cpu = None if name == "cpu" else int(name[3:])
        times[cpu] = (steal, user + nice + system + irq + softirq, irq + softirq)
    return times


def pressure_us():
    text = read(PROC / "pressure" / "cpu")
    if not text:
        return None
    some = text.splitlines()[0].split()
    return int(dict(field.split("=") for field in some[1:])["total"])


def frequency_mhz(cpus):
    found = [read(CPU_SYSFS / f"cpu{cpu}" / "cpufreq" / "scaling_cur_freq") for cpu in cpus]
    found = [int(text) / 1000 for text in found if text]
    return sum(found) / len(found) if found else None


def throttle_count(cpus):
    counts = [read(path) for cpu in cpus for path in (CPU_SYSFS / f"cpu{cpu}" / "thermal_throttle").glob("*_count")]
    counts = [int(text) for text in counts if text]
    return sum(counts) if counts else None


def exposed(cpus):
    """What this kernel lets the sampler see (recorded once per job)."""
    some = sorted(cpus)[:1] or [0]
    return {
        "steal": bool(cpu_times()),
        "schedstat": read(PROC / "self" / "schedstat") is not None,
        "pressure": pressure_us() is not None,
        "cpufreq": frequency_mhz(some) is not None,
        "thermal_throttle": throttle_count(some) is not None,
        "sched_debug": (PROC / "sched_debug").exists() or Path("/sys/kernel/debug/sched/debug").exists(),
    }


def tasks():
    """{(tid, starttime): (pid, comm, state, ppid, cpu ticks, processor)} of every thread on
    the machine (a tid may be reused; with its start time it may not)."""
    found = {}
    for entry in os.scandir(PROC):
        if not entry.name.isdigit():
            continue
        try:
            tids = os.listdir(f"/proc/{entry.name}/task")
        except OSError:
            continue
        for tid in tids:
            text = read_bytes(f"/proc/{entry.name}/task/{tid}/stat")
            if text:
                comm, state, ppid, ticks, start, cpu = parse_stat(text)
                found[int(tid), start] = (int(entry.name), comm, state, ppid, ticks, cpu)
    return found


def allowed_cpus(pid):
    for line in (read(f"/proc/{pid}/status") or "").splitlines():
        if line.startswith("Cpus_allowed_list:"):
            text = line.split(":", 1)[1].strip()
            return {
                n
                for part in text.split(",")
                for low, _, high in [part.partition("-")]
                for n in range(int(low), int(high or low) + 1)
            }
    return None


class OwnTree:
    """Which processes are the benchmark's (see the module's docstring). A shim found to be
    the benchmark's stays so; one that is not yet (its container's first process may run
    before the engine has pinned it) is looked at again at the next sample."""

    def __init__(self, root, cpus):
        self.root, self.cpus = root, set(cpus)
        first = read_bytes(f"/proc/{root}/stat")
        self.root_start = parse_stat(first)[4] if first else 0
        self.ours = set()  # (pid, start time) of the shims that are the benchmark's

    def pids(self, found):
        processes = {
            pid: (comm, ppid, start) for (tid, start), (pid, comm, _, ppid, *_rest) in found.items() if tid == pid
        }
        children = {}
        for pid, (_, ppid, _) in processes.items():
            children.setdefault(ppid, []).append(pid)
        shims = [pid for pid, (comm, _, start) in processes.items() if comm in SHIMS and start >= self.root_start]
        roots = [self.root] + [pid for pid in shims if self.shim_is_ours(pid, processes[pid][2], children)]
        return descendants(roots, children)

    def shim_is_ours(self, pid, start, children):
        if (pid, start) not in self.ours:
            below = descendants(children.get(pid, []), children)
            pinned = [allowed_cpus(child) for child in below]
            if below and (not self.cpus or any(cpus and cpus <= self.cpus for cpus in pinned)):
                self.ours.add((pid, start))
        return (pid, start) in self.ours


def descendants(roots, children):
    seen, todo = set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            todo.extend(children.get(pid, []))
    return seen


def wait_ns(found, own):
    """The benchmark's threads' time waiting on a run queue, {(tid, start): ns}; None when
    it has threads but the kernel shows none of their schedstat (no CONFIG_SCHED_INFO)."""
    waits, threads = {}, 0
    for key, (pid, *_rest) in found.items():
        if pid in own:
            threads += 1
            text = read_bytes(f"/proc/{pid}/task/{key[0]}/schedstat")
            if text:
                waits[key] = int(text.split()[1])
    return None if threads and not waits else waits


class Snapshot:
    def __init__(self, cpus, tree):
        self.monotonic = time.monotonic()
        self.utc = datetime.datetime.now(datetime.timezone.utc)
        self.cpu = cpu_times()
        self.tasks = tasks()
        self.own = tree.pids(self.tasks)
        self.waits = wait_ns(self.tasks, self.own)
        self.pressure = pressure_us()
        self.freq = frequency_mhz(cpus)
        self.throttle = throttle_count(cpus)


def interval_row(before, after, cpus, number, started):
    """One interval between two snapshots, as a row of COLUMNS."""
    seconds = after.monotonic - before.monotonic
    capacity = seconds * TICKS * len(cpus)  # the CPUs' ticks in the interval

    def cpu_delta(index, which):
        return sum(after.cpu.get(cpu, (0, 0, 0))[index] - before.cpu.get(cpu, (0, 0, 0))[index] for cpu in which)

    bench = others = runnable = 0
    by_comm = {}
    for key, (pid, comm, state, _ppid, ticks, cpu) in after.tasks.items():
        if cpu not in cpus:
            continue
        ran = ticks - before.tasks[key][4] if key in before.tasks else ticks  # a new thread ran only since
        if pid in after.own:
            bench += ran
            continue
        others += ran
        by_comm[comm] = by_comm.get(comm, 0) + ran
        runnable += state == "R"
    top = max(by_comm.items(), key=lambda item: item[1], default=("", 0))
    waits = None if after.waits is None or before.waits is None else after.waits
    waited = sum(ns - before.waits.get(key, 0) for key, ns in waits.items()) if waits is not None else None
    all_cpus = [cpu for cpu in after.cpu if cpu is not None]

    def pct(ticks, of=capacity):
        return round(100 * ticks / of, 2) if of > 0 else None

    return {
        "interval": number,
        "utc": after.utc.isoformat(timespec="milliseconds"),
        "seconds": round(after.monotonic - started, 3),
        "interval_seconds": round(seconds, 3),
        "steal_pct": pct(cpu_delta(0, cpus)),
        "steal_all_pct": pct(cpu_delta(0, all_cpus), seconds * TICKS * len(all_cpus)),
        "busy_pct": pct(cpu_delta(1, cpus)),
        "irq_pct": pct(cpu_delta(2, cpus)),
        "bench_pct": pct(bench),
        "others_pct": pct(others),
        "others_runnable": runnable,
        "others_top": top[0] if top[1] else "",
        "others_top_pct": pct(top[1]),
        "wait_pct": (
            round(100 * waited / (seconds * 1e9 * len(cpus)), 2) if seconds > 0 and waited is not None else None
        ),
        "pressure_pct": (
            round(100 * (after.pressure - before.pressure) / (seconds * 1e6), 2)
            if after.pressure is not None and before.pressure is not None
            else None
        ),
        "freq_mhz": round(after.freq, 1) if after.freq is not None else None,
        "throttle_events": (
            after.throttle - before.throttle if after.throttle is not None and before.throttle is not None else None
        ),
    }


class Sampler:
    """Samples the machine around a benchmark process (`root`, its pid) pinned to `cpus`
    (empty: the benchmark may run anywhere, so every CPU is its). Use as a context manager;
    afterwards `record()` is what goes into the job's metadata."""

    def __init__(self, root, cpus, interval=INTERVAL_SECONDS, started=None):
        self.all_cpus = os.sched_getaffinity(0)
        self.cpus = sorted(cpus) if cpus else sorted(self.all_cpus)
        self.interval = interval
        self.started = time.monotonic() if started is None else started
        self.tree = OwnTree(root, cpus)
        self.rows, self.failure, self.first_cost_ms = [], None, None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, name="machine-noise", daemon=True)
        self.sampler_cpus = sorted(self.all_cpus - set(self.cpus)) or sorted(self.all_cpus)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        return False

    def run(self):
        try:
            # Linux applies sched_setaffinity(0) to the calling thread only: the sampler
            # moves off the benchmark's CPUs, the rest of this process stays where it was.
            os.sched_setaffinity(0, self.sampler_cpus)
            cost = time.thread_time()
            before = Snapshot(self.cpus, self.tree)
            cost = time.thread_time() - cost
            self.first_cost_ms = round(1000 * cost, 3)
            earlier = None  # the snapshot that opened the last row
            while True:
                stopping = self.stop.wait(self.interval)
                cost = time.thread_time()
                after = Snapshot(self.cpus, self.tree)
                if stopping and earlier and after.monotonic - before.monotonic < self.interval / 2:
                    # The process ended just after a sample: a few ms in 10 ms ticks would read
                    # as 0% or 200%, so the last row stretches to the end instead.
                    self.rows.pop()
                    before = earlier
                row = interval_row(before, after, set(self.cpus), len(self.rows) + 1, self.started)
                row["sampler_ms"] = round(1000 * (time.thread_time() - cost), 3)
                self.rows.append(row)
                earlier, before = before, after
                if stopping:
                    return
        except Exception as error:  # noqa: BLE001 - the noise record must never fail a benchmark
            self.failure = f"{type(error).__name__}: {error}"

    def record(self):
        return {
            "columns": COLUMNS,
            "rows": [[row.get(name) for name in COLUMNS] for row in self.rows],
            "cpus": self.cpus,
            "sampler_cpus": self.sampler_cpus,
            "interval_seconds": self.interval,
            "clock_ticks_per_second": TICKS,
            "first_sample_ms": self.first_cost_ms,
            "exposed": exposed(self.cpus),
            "failure": self.failure,
        }


def run(command, cpus, **options):
    """subprocess.run(command, **options) with a Sampler around the process: (the completed
    process, the noise record). `started` (a time.monotonic()) is the record's zero."""
    started = options.pop("started", None)
    with subprocess.Popen(command, **options) as process:
        try:
            with Sampler(process.pid, cpus, started=started) as sampler:
                stdout, stderr = process.communicate()
        except BaseException:
            process.kill()
            raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr), sampler.record()
