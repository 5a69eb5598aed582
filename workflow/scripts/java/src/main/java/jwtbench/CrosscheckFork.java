package jwtbench;

import java.io.File;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.ExternalProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.Result;

/**
 * JMH's hook for a command in front of the fork's `java` (as its perf profilers use):
 * `taskset --cpu-list <benchmark CPUs>`, the init line. JMH makes it by class name (a top-level
 * class: it finds no nested one); the fork makes one too and ignores it.
 */
public final class CrosscheckFork implements ExternalProfiler {
  private final String cpus;

  public CrosscheckFork(String initLine) {
    this.cpus = initLine.trim();
  }

  @Override
  public Collection<String> addJVMInvokeOptions(BenchmarkParams params) {
    return List.of(CrosscheckCpus.taskset(), "--cpu-list", cpus);
  }

  @Override
  public Collection<String> addJVMOptions(BenchmarkParams params) {
    return List.of();
  }

  @Override
  public void beforeTrial(BenchmarkParams params) {}

  @Override
  @SuppressWarnings("rawtypes") // JMH's interface has the raw Result
  public Collection<? extends Result> afterTrial(BenchmarkResult result, long pid, File stdout, File stderr) {
    return List.of();
  }

  @Override
  public boolean allowPrintOut() {
    return true;
  }

  @Override
  public boolean allowPrintErr() {
    return true;
  }

  @Override
  public String getDescription() {
    return "starts the fork under taskset --cpu-list " + cpus + " (jwtbench crosscheck)";
  }
}
