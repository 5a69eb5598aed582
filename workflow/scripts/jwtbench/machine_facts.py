"""Facts about this machine and this checkout: the provenance's `host` block (CPU, cores,
memory, kernel, OS, governor, turbo), a command's output, and git's answers."""

import os
import platform
import subprocess
from pathlib import Path

FLAGS = ("sha_ni", "avx2", "aes", "avx512f", "bmi2", "adx")


def read(path, default=None):
    try:
        return Path(path).read_text().strip()
    except OSError:
        return default


def cpu_info():
    model, flags = None, set()
    for line in (read("/proc/cpuinfo") or "").splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "model name" and model is None:
            model = value.strip()
        if name.strip() == "flags" and not flags:
            flags = set(value.split())
    return model or platform.processor() or "unknown", {flag: flag in flags for flag in FLAGS}


def memory_bytes():
    for line in (read("/proc/meminfo") or "").splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    return None


def os_name():
    for line in (read("/etc/os-release") or "").splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.split("=", 1)[1].strip('"')
    return platform.system()


def turbo():
    no_turbo = read("/sys/devices/system/cpu/intel_pstate/no_turbo")
    if no_turbo is not None:
        return "off" if no_turbo == "1" else "on"
    boost = read("/sys/devices/system/cpu/cpufreq/boost")
    if boost is not None:
        return "on" if boost == "1" else "off"
    return None


def host():
    model, flags = cpu_info()
    return {
        "cpu_model": model,
        "cores": os.cpu_count(),
        "cpu_flags": flags,
        "kernel": platform.release(),
        "os": os_name(),
        "architecture": platform.machine(),
        "memory_bytes": memory_bytes(),
        "governor": read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        "turbo": turbo(),
    }


def output_of(command):
    """A command's stripped standard output, or None if it cannot run or fails."""
    try:
        result = subprocess.run(command, capture_output=True, text=True)
    except OSError:
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def git_output(source, *args):
    return output_of(["git", "-C", str(source), *args])
