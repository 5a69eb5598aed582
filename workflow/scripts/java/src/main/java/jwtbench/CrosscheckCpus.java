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
 * `crosscheck.cpus`: the JMH parent (the worker) moves itself to the conductor's CPUs and each fork
 * starts under taskset on the benchmark's ({@link CrosscheckFork}), docs/disturbances-java.md.
 */
final class CrosscheckCpus {
  private CrosscheckCpus() {}

  /** The benchmark's and the conductor's CPUs. */
  record Split(List<Integer> benchmark, List<Integer> conductor) {
    static String list(List<Integer> cpus) {
      return cpus.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** The spec's `crosscheck.cpus`, or null when absent. */
    static Split of(JsonNode crosscheck, Spec.Reader r) {
      if (!crosscheck.has("cpus")) {
        return null;
      }
      JsonNode cpus = r.object(crosscheck, "cpus");
      List<Integer> benchmark = cpuList(cpus, "benchmark", r);
      List<Integer> conductor = cpuList(cpus, "conductor", r);
      if (benchmark.stream().anyMatch(conductor::contains)) { // the parent would share the fork's CPU
        throw r.fail("crosscheck.cpus.benchmark and crosscheck.cpus.conductor must not share a CPU");
      }
      return new Split(benchmark, conductor);
    }

    private static List<Integer> cpuList(JsonNode cpus, String field, Spec.Reader r) {
      JsonNode node = cpus.get(field);
      if (node == null || !node.isArray() || node.isEmpty()) {
        throw r.fail("crosscheck.cpus." + field + " must be a non-empty array of CPU numbers");
      }
      TreeSet<Integer> set = new TreeSet<>();
      node.forEach(cpu -> set.add(cpu.asInt()));
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
   * Moves every thread of this JVM to `cpus` (`taskset --all-tasks --pid`; later threads inherit
   * it), checked on each thread's Cpus_allowed_list: one started while taskset ran may be missed.
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

  /** Cpus_allowed_list of a /proc status file, or null when it is gone or silent. */
  static String allowedList(Path status) {
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
