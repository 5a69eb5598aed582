package jwtbench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * `crosscheck.cpus` of a crosscheck spec, `{"benchmark": [1], "conductor": [0]}`: which of the
 * CPUs the process was given are the benchmark's and which the conductor's. With it, the JMH
 * parent JVM moves itself (every thread) to the conductor's CPUs before it prepares anything,
 * and JMH starts each fork under `taskset --cpu-list <benchmark>` (an {@link ExternalProfiler}'s
 * invoke prefix, {@link CrosscheckFork}), so the fork runs on the benchmark's CPUs exactly as a process
 * pinned there would (the same JVM flags, one CPU visible, the same ergonomics), and the parent's
 * reading and printing of each iteration's result, and its JIT compiling them, run beside it, not
 * on its CPU. Without it (a spec written by hand, a one-CPU machine), everything runs where the
 * process was started, as before. Measured: docs/disturbances-java.md.
 */
final class CrosscheckCpus {
  private CrosscheckCpus() {}

  /** The benchmark's and the conductor's CPUs, disjoint and non-empty. */
  record Split(List<Integer> benchmark, List<Integer> conductor) {
    static String list(List<Integer> cpus) {
      return cpus.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** The spec's `crosscheck.cpus`, or null when absent; an InputError naming the field when malformed. */
    static Split of(JsonNode crosscheck, Spec.Reader r) {
      if (!crosscheck.has("cpus")) {
        return null;
      }
      JsonNode cpus = r.object(crosscheck, "cpus", " (crosscheck.cpus: {\"benchmark\": [...], \"conductor\": [...]})");
      List<Integer> benchmark = cpuList(cpus, "benchmark", r);
      List<Integer> conductor = cpuList(cpus, "conductor", r);
      if (benchmark.stream().anyMatch(conductor::contains)) {
        throw r.fail("crosscheck.cpus.benchmark and crosscheck.cpus.conductor must not share a CPU");
      }
      return new Split(benchmark, conductor);
    }

    private static List<Integer> cpuList(JsonNode cpus, String field, Spec.Reader r) {
      JsonNode node = cpus.get(field);
      String name = "crosscheck.cpus." + field;
      if (node == null || !node.isArray() || node.isEmpty()) {
        throw r.fail(name + " must be a non-empty array of CPU numbers");
      }
      TreeSet<Integer> set = new TreeSet<>();
      for (JsonNode cpu : node) {
        if (!cpu.isIntegralNumber() || !cpu.canConvertToInt() || cpu.asInt() < 0) {
          throw r.fail(name + " must hold CPU numbers (integers >= 0)");
        }
        set.add(cpu.asInt());
      }
      return List.copyOf(set);
    }
  }

  /** taskset (util-linux) on PATH, absolute; an InputError when there is none. */
  static String taskset() {
    String path = System.getenv("PATH");
    for (String dir : (path == null ? "/usr/bin:/bin" : path).split(File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, "taskset");
      if (Files.isExecutable(candidate)) {
        return candidate.toAbsolutePath().toString();
      }
    }
    throw new InputError("crosscheck.cpus needs taskset (util-linux) on PATH to pin JMH's parent and fork");
  }

  /**
   * Moves every thread of this JVM to `cpus` (`taskset --all-tasks --pid`); threads started
   * later inherit it. Checked on every thread's Cpus_allowed_list afterwards (a thread started
   * while taskset ran may have been missed: then again, at most three times).
   */
  static void pinSelf(List<Integer> cpus) {
    String list = Split.list(cpus);
    String pid = String.valueOf(ProcessHandle.current().pid());
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        Process p = new ProcessBuilder(taskset(), "--all-tasks", "--cpu-list", "--pid", list, pid)
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (p.waitFor() != 0) {
          throw new InputError("taskset could not move the crosscheck's parent to CPUs " + list
              + " (exit " + p.exitValue() + "): are they in this process's cpuset?");
        }
      } catch (IOException e) {
        throw new InputError("cannot run taskset: " + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while pinning the parent", e);
      }
      if (threadsOn(list)) {
        return;
      }
    }
    throw new IllegalStateException("the crosscheck's parent has threads off CPUs " + list + " after taskset");
  }

  /** Whether every thread of this process may run on exactly `list` (Linux's /proc; true elsewhere). */
  private static boolean threadsOn(String list) {
    Path tasks = Path.of("/proc/self/task");
    if (!Files.isDirectory(tasks)) {
      return true;
    }
    String wanted = compact(list);
    try (Stream<Path> each = Files.list(tasks)) {
      for (Path task : each.toList()) {
        String allowed = allowedList(task.resolve("status"));
        if (allowed != null && !allowed.equals(wanted)) {
          return false;
        }
      }
    } catch (IOException e) {
      return true; // a thread that ended while listed; taskset's exit status stands
    }
    return true;
  }

  /** The CPUs this thread may run on, as the kernel lists them ("1", "0-1"), or "?" off Linux. */
  static String ofThisThread() {
    String allowed = allowedList(Path.of("/proc/thread-self/status"));
    return allowed == null ? "?" : allowed;
  }

  /** Cpus_allowed_list of a /proc status file, or null when it is gone or silent. */
  private static String allowedList(Path status) {
    try {
      for (String line : Files.readAllLines(status)) {
        if (line.startsWith("Cpus_allowed_list:")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException e) {
      return null;
    }
    return null;
  }

  /** "0,1,2,5" as the kernel prints it: "0-2,5". */
  static String compact(String list) {
    List<Integer> cpus = new ArrayList<>(new TreeSet<>(
        Stream.of(list.split(",")).map(String::trim).map(Integer::valueOf).toList()));
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < cpus.size(); i++) {
      int low = cpus.get(i);
      int high = low;
      while (i + 1 < cpus.size() && cpus.get(i + 1) == high + 1) {
        high = cpus.get(++i);
      }
      out.append(out.length() == 0 ? "" : ",").append(low).append(low == high ? "" : "-" + high);
    }
    return out.toString();
  }
}
