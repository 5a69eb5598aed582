package jwtbench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * A cross-check spec's JMH (README.md, "The cross-check: JMH"): this worker is JMH's parent, each
 * cell runs in a JMH fork of its own ({@link CrosscheckBenchmark}) that asks this process over a
 * loopback socket before each JMH iteration for a driver batch or k JMH iterations.
 */
final class Native implements AutoCloseable {
  static final String HARNESS = "jmh";
  /** A native block has at least this many JMH iterations. */
  static final int MIN_ITERATIONS = 3;
  /** How long a fork may take to start, prepare its cell and call back. */
  private static final long START_MS = 120_000;

  private final String specFile;
  private final Spec spec;
  private final Path scratch;
  private final ServerSocket listener;
  private Fork fork;
  private long sink;

  Native(Spec spec, String specFile) throws IOException {
    this.spec = spec;
    this.specFile = Path.of(specFile).toAbsolutePath().toString();
    if (spec.cpus() != null) {
      CrosscheckCpus.pinSelf(spec.cpus().conductor());
      Progress.line("JMH's parent on CPUs " + CrosscheckCpus.Split.list(spec.cpus().conductor())
          + ", its forks on CPUs " + CrosscheckCpus.Split.list(spec.cpus().benchmark()));
    }
    String parent = spec.scratch() != null ? spec.scratch() : System.getProperty("java.io.tmpdir");
    this.scratch = Files.createTempDirectory(Path.of(parent), "jwtbench-jmh-");
    System.setProperty("java.io.tmpdir", scratch.toString()); // before JMH's classes read it
    this.listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
  }

  /** The hello's "harness". */
  static Map<String, Object> harness() {
    return Map.of("name", HARNESS, "version", Versions.jarVersion(Runner.class, "org.openjdk.jmh", "jmh-core"));
  }

  /** A driver batch of the cell (a spec index or "reference"), run in its fork: the fork's answer line. */
  String batch(Object cell, long n) {
    return fork(cell).ask("batch " + n);
  }

  /** JMH on the cell's call for about `seconds`: {"ns_per_op", "samples"} or {"error"}. */
  Map<String, Object> measure(Object cell, double seconds) throws InterruptedException {
    Fork f = fork(cell);
    int k = Math.max(MIN_ITERATIONS, (int) Math.round(seconds / spec.targetSampleSeconds()));
    f.scores.clear();
    String said = f.ask("jmh " + k);
    if (!said.equals("ok")) {
      return Map.of("error", said);
    }
    double[] scores = new double[k];
    for (int i = 0; i < k; i++) {
      Object score = f.scores.poll(Math.round(60_000 + 20_000 * seconds), TimeUnit.MILLISECONDS);
      if (!(score instanceof Double value)) {
        fork = null;
        f.close();
        return Map.of("error", score == null ? "JMH gave no iteration result in time" : String.valueOf(score));
      }
      scores[i] = value;
    }
    Arrays.sort(scores);
    double median = k % 2 == 1 ? scores[k / 2] : (scores[k / 2 - 1] + scores[k / 2]) / 2;
    return Map.of("ns_per_op", median, "samples", k);
  }

  long sink() {
    return sink;
  }

  private Fork fork(Object cell) {
    if (fork == null || !fork.cell.equals(cell)) {
      if (fork != null) {
        fork.close();
      }
      fork = new Fork(cell);
    }
    return fork;
  }

  @Override
  public void close() throws IOException {
    if (fork != null) {
      fork.close();
    }
    listener.close();
    try (Stream<Path> paths = Files.walk(scratch)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  /** One cell's JMH run: the thread running it here, the fork's socket, the iteration scores as they arrive. */
  private final class Fork {
    final Object cell;
    final BlockingQueue<Object> scores = new LinkedBlockingQueue<>();
    private final StringBuilder log = new StringBuilder();
    private final Thread runner;
    private final Socket socket;
    private final BufferedReader in;
    private final PrintWriter out;

    Fork(Object cell) {
      this.cell = cell;
      int index = cell instanceof Integer i ? i : CrosscheckBenchmark.REFERENCE;
      String method = cell instanceof Integer i ? spec.cells().get(i).operation() : "reference";
      TimeValue iteration = TimeValue.nanoseconds(Math.round(spec.targetSampleSeconds() * 1e9));
      OptionsBuilder options = new OptionsBuilder();
      if (spec.cpus() != null) {
        options.addProfiler(CrosscheckFork.class, CrosscheckCpus.Split.list(spec.cpus().benchmark()));
      }
      options.include("^" + Pattern.quote(CrosscheckBenchmark.class.getName() + "." + method) + "$")
          .param("spec", specFile).param("cell", String.valueOf(index))
          .param("port", String.valueOf(listener.getLocalPort()))
          .mode(Mode.AverageTime).timeUnit(TimeUnit.NANOSECONDS)
          .forks(1).warmupForks(0).threads(1)
          .warmupIterations(0).measurementIterations(Integer.MAX_VALUE / 2).measurementTime(iteration)
          .timeout(TimeValue.days(30)) // JMH counts it from an iteration's start, which waits for the conductor
          .shouldDoGC(false).shouldFailOnError(false)
          .jvmArgs(ManagementFactory.getRuntimeMXBean().getInputArguments().toArray(new String[0]))
          .jvmArgsAppend("-Djava.io.tmpdir=" + scratch);
      OutputFormat format = (OutputFormat) Proxy.newProxyInstance(OutputFormat.class.getClassLoader(),
          new Class<?>[] {OutputFormat.class}, (proxy, called, args) -> {
            if (called.getName().equals("iterationResult")) {
              scores.add(((IterationResult) args[3]).getPrimaryResult().getScore());
            } else if (called.getName().startsWith("print") && log.length() < 100_000) {
              log.append(args[0]);
            }
            return null;
          });
      runner = new Thread(() -> {
        try {
          new Runner(options.build(), format).run();
        } catch (Exception | Error e) {
          log.append(Driver.reason(e));
        }
        scores.add("JMH's run ended: " + failure());
      }, "jmh-runner");
      runner.setDaemon(true);
      runner.start();
      try {
        listener.setSoTimeout(1000);
        long deadline = System.currentTimeMillis() + START_MS;
        Socket accepted = null;
        while (accepted == null) {
          try {
            accepted = listener.accept();
          } catch (SocketTimeoutException e) {
            if (!runner.isAlive() || System.currentTimeMillis() > deadline) {
              throw new IllegalStateException("the JMH fork for cell " + cell + " did not call back: " + failure());
            }
          }
        }
        socket = accepted;
        in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        out = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** The first line of the fork's error output that JMH kept, or of what it printed (never a stack frame). */
    private String failure() {
      for (String line : log.toString().split("\n")) {
        if (line.contains("Exception") || line.contains("Error") || line.contains("failed")) {
          return line.strip().substring(0, Math.min(line.strip().length(), 300));
        }
      }
      return "no reason given";
    }

    /** One line to the fork, its one-line answer. */
    String ask(String line) {
      out.println(line);
      try {
        String answer = in.readLine();
        if (answer == null) {
          throw new IllegalStateException("the JMH fork for cell " + cell + " ended: " + failure());
        }
        return answer;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Ends the fork (its JMH run then ends) and waits for JMH's parent side to finish. */
    void close() {
      try {
        String[] last = ask("end").split(" ", 2); // the fork's sink and the CPUs it was allowed
        sink += Long.parseLong(last[0]);
        Progress.line("cell " + cell + ": JMH's fork ended (the fork on CPUs " + last[1] + ")");
        runner.join(60_000);
        socket.close();
      } catch (IOException | RuntimeException e) {
        Progress.line("the JMH fork for cell " + cell + " did not end cleanly: " + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
