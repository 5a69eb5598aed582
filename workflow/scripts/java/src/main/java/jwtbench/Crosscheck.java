package jwtbench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * `crosscheck --spec FILE --out FILE` (workflow/scripts/README.md, "crosscheck"): the driver's
 * own loop and JMH on the very same call, in alternating blocks. This is the parent: it reads
 * the spec, prepares and checks every cell as `bench` does (an unsupported or failed cell gets
 * its one row), then runs one JMH fork per cell (and one for the drift reference's SHA-256) via
 * JMH's Java API, and writes the fork's blocks as CSV rows in the order they ran.
 *
 * <p>The alternation runs inside the fork ({@link CrosscheckBenchmark}): JMH forks so that
 * each benchmark runs in a JVM of its own (no other benchmark's type profiles or compiled
 * code), and the driver's blocks must share that JVM's JIT state and heap with the JMH
 * iterations they alternate with; a driver block in this parent JVM would time other code.
 */
final class Crosscheck {
  static final String HARNESS = "jmh";
  /** A driver block has at least this many batches. */
  static final int MIN_BATCHES = 3;
  /** The benchmark method of the drift reference's operation (the others are the cell's operation). */
  static final String REFERENCE_METHOD = "reference";

  private Crosscheck() {}

  /**
   * The spec's "crosscheck" object, and the JMH iterations of a native block: each as long as
   * the driver's batch (timing.target_sample_seconds), as many as fill block_seconds (at least
   * MIN_BATCHES). The block's figure is the median of their scores, the driver's the median of
   * its batches: the same statistic over windows of the same length. With one iteration per
   * block (the mean over 0.1 s) every pause counted: on 2026-11-26 the same cell read 720 us in
   * most blocks and 1,014-1,119 us in three (RS256-2048 sign), where the driver's figure did not
   * move. Five iterations of 20 ms against batches of 10 ms were still two statistics.
   * `cpus`: crosscheck.cpus, the benchmark's and the conductor's CPUs (null when absent).
   */
  record Settings(int alternations, double blockSeconds, double iterationSeconds, CrosscheckCpus.Split cpus) {
    long blockNs() {
      return Math.round(blockSeconds * 1e9);
    }

    int iterationsPerBlock() {
      return Math.max(MIN_BATCHES, (int) Math.round(blockSeconds / iterationSeconds));
    }

    /**
     * The "crosscheck" object of a spec already loaded; the spec must be of suite jwt with
     * sign and verify cells only (an InputError naming the field otherwise).
     */
    static Settings of(Spec spec, String specFile) {
      Spec.Reader r = new Spec.Reader("--spec " + specFile);
      if (!spec.suite().equals("jwt")) {
        throw r.fail("crosscheck needs a spec of suite jwt, not " + spec.suite());
      }
      for (Spec.Cell cell : spec.cells()) {
        if (!List.of("sign", "verify").contains(cell.operation())) {
          throw r.fail("cells[" + cell.index() + "].operation must be sign or verify for crosscheck");
        }
      }
      JsonNode root = Json.parseObject(Json.readBytes(specFile, "--spec"), "--spec " + specFile);
      JsonNode x = r.object(root, "crosscheck", " (crosscheck needs it)");
      return new Settings(r.integer(x, "alternations", "crosscheck.alternations", 1, true, 0),
          r.number(x, "block_seconds", "crosscheck.block_seconds", 0, false, true),
          spec.timing().targetSampleSeconds(), CrosscheckCpus.Split.of(x, r));
    }
  }

  static void run(String specFile, String outFile) {
    Spec spec = Spec.load(specFile);
    Settings settings = Settings.of(spec, specFile);
    if (settings.cpus() != null) {
      // JMH's parent reads and prints each iteration's result while the fork measures, and its
      // JIT compiles that code then: on the conductor's CPUs, not the fork's (CrosscheckCpus).
      CrosscheckCpus.pinSelf(settings.cpus().conductor());
      Progress.line("JMH's parent on CPUs " + CrosscheckCpus.Split.list(settings.cpus().conductor())
          + ", its forks on CPUs " + CrosscheckCpus.Split.list(settings.cpus().benchmark()));
    }
    String absoluteSpec = Path.of(specFile).toAbsolutePath().toString();
    List<Bench.Prepared> prepared = Bench.prepare(spec.cells(), specFile);
    int total = spec.cells().size() + 1;
    Map<String, Integer> counts = new LinkedHashMap<>(Map.of("ok", 0));
    try (CrosscheckRows out = new CrosscheckRows(outFile, spec.language()); Scratch scratch = new Scratch(outFile)) {
      Map<List<String>, Checks.Outcome> done = new HashMap<>();
      for (Bench.Prepared p : prepared) {
        Spec.Cell cell = p.cell();
        String head = "[" + (cell.index() + 1) + "/" + total + "] " + cell.operation() + " " + cell.variant();
        if (Bench.check(p, done) instanceof Checks.NotPassed not) {
          out.untimed(cell, p.input().inputBytes, not.status());
          Progress.line(head + ": " + not.status() + " (" + not.reason() + ")");
          counts.merge(not.status(), 1, Integer::sum);
          continue;
        }
        counts.merge(measure(absoluteSpec, settings, spec.timing(), cell, p.input().inputBytes, cell.operation(), out,
            scratch, head), 1, Integer::sum);
      }
      Spec.Cell reference = TimedSuite.Reference.entry(spec.suite(), TimedSuite.Reference.message(),
          TimedSuite.Reference.sha256()).cell();
      String head = "[" + total + "/" + total + "] drift reference (" + TimedSuite.Reference.ALGORITHM + " "
          + Hashing.JCA + " of " + TimedSuite.Reference.MESSAGE_BYTES + " bytes)";
      counts.merge(measure(absoluteSpec, settings, spec.timing(), reference, TimedSuite.Reference.MESSAGE_BYTES,
          REFERENCE_METHOD, out, scratch, head), 1, Integer::sum);
    }
    StringBuilder summary = new StringBuilder();
    counts.forEach((status, n) -> summary.append(summary.length() == 0 ? "" : ", ").append(status).append(' ').append(n));
    Progress.line("done: " + total + " cells with the reference (" + summary + ")");
  }

  /**
   * One cell's JMH fork: its blocks' rows written in the order they ran; "ok", or "failed"
   * (one untimed row) when the fork did not deliver every block.
   */
  private static String measure(String specFile, Settings settings, Spec.Timing timing, Spec.Cell cell,
      long inputBytes, String method, CrosscheckRows out, Scratch scratch, String head) {
    // The reference's Cell has index -1 (CrosscheckBenchmark.REFERENCE), in no spec.
    Path blocksFile = scratch.dir.resolve("blocks-" + cell.index() + ".txt");
    Options options = options(specFile, cell.index(), blocksFile, method, settings, timing, scratch.dir);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    String failure = null;
    List<IterationResult> iterations = List.of();
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    // JMH prints its own progress (and forwards whatever the fork prints): kept in memory, and
    // only a failure's reason goes to stderr, in one line (no stack trace).
    try (PrintStream capture = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      System.setErr(capture);
      Collection<RunResult> results = new Runner(options, OutputFormatFactory.createFormatInstance(capture,
          VerboseMode.NORMAL)).run();
      iterations = results.stream().flatMap(r -> r.getBenchmarkResults().stream())
          .map(BenchmarkResult::getIterationResults).flatMap(Collection::stream).toList();
    } catch (RunnerException | RuntimeException e) {
      failure = reason(e, log.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
    CrosscheckBenchmark.Blocks blocks = failure == null ? CrosscheckBenchmark.Blocks.read(blocksFile) : null;
    int perBlock = settings.iterationsPerBlock();
    if (failure == null && (iterations.size() != perBlock * settings.alternations()
        || blocks.perOp().size() != settings.alternations())) {
      failure = "the fork gave " + iterations.size() + " JMH iterations and " + blocks.perOp().size()
          + " driver blocks for " + settings.alternations() + " alternations";
    }
    if (failure != null) {
      out.untimed(cell, inputBytes, "failed");
      Progress.line(head + ": failed (" + failure + ")");
      return "failed";
    }
    String jmhVersion = Versions.jarVersion(Runner.class, "org.openjdk.jmh", "jmh-core");
    double[] driver = new double[settings.alternations()];
    double[] jmh = new double[settings.alternations()];
    double[] ratios = new double[settings.alternations()];
    for (int k = 1; k <= settings.alternations(); k++) {
      CrosscheckBenchmark.Block block = blocks.perOp().get(k - 1);
      double[] scores = new double[perBlock];
      for (int i = 0; i < perBlock; i++) {
        Result<?> score = iterations.get((k - 1) * perBlock + i).getPrimaryResult();
        if (!score.getScoreUnit().equals("ns/op")) {
          throw new IllegalStateException("JMH scored in " + score.getScoreUnit() + ", not ns/op");
        }
        scores[i] = score.getScore();
      }
      double jmhScore = TimedSuite.median(scores);
      boolean driverFirst = k % 2 == 1;
      for (int turn = 0; turn < 2; turn++) {
        if ((turn == 0) == driverFirst) {
          out.block(cell, inputBytes, k, CrosscheckRows.DRIVER, CrosscheckRows.JWTBENCH, "", block.batches(),
              block.nsPerOp());
        } else {
          out.block(cell, inputBytes, k, CrosscheckRows.NATIVE, HARNESS, jmhVersion, perBlock, jmhScore);
        }
      }
      driver[k - 1] = block.nsPerOp();
      jmh[k - 1] = jmhScore;
      ratios[k - 1] = block.nsPerOp() / jmhScore;
    }
    Progress.line(head + String.format(Locale.ROOT, ": driver %s ns/op (batch of %d), jmh %s ns/op, driver/jmh %.3f"
        + " (medians of %d alternations; %.1f s waiting for a quiet JIT; the fork on CPUs %s); sink %d",
        Progress.grouped(TimedSuite.median(driver)), blocks.batch(), Progress.grouped(TimedSuite.median(jmh)),
        TimedSuite.median(ratios), settings.alternations(), blocks.jitQuietSeconds(), blocks.cpus(), blocks.sink()));
    return "ok";
  }

  /**
   * JMH's options for one cell: its benchmark method, one fork (forks 1, no warm-up fork, one
   * thread) given the driver's own JVM flags, Mode.AverageTime in ns, per alternation
   * iterationsPerBlock measurement iterations of the driver's batch length, no forced GC between
   * iterations. Warm-up: as many iterations of that length as the measurement has (at least
   * warmup_seconds of them), so that JMH's own per-iteration code has run as often before the
   * measurement as during it, and the JIT's work on it is done before (each iteration's result
   * goes to the parent serialised: a 140 ms C2 compile of ObjectOutputStream.writeObject0 ran in
   * the warm-up of a verify fork, on the benchmark's CPU). With one warm-up iteration of
   * block_seconds, java's cells read 0.94-0.98 natively and 0.85-0.95 in a noisy hour; with
   * these, 0.96-1.00 (README, crosscheck).
   * The fork's temporary files go to `tmp`. With crosscheck.cpus, the fork starts under
   * taskset on the benchmark's CPUs ({@link CrosscheckFork}), its flags unchanged.
   */
  private static Options options(String specFile, int index, Path blocksFile, String method, Settings settings,
      Spec.Timing timing, Path tmp) {
    TimeValue iteration = TimeValue.nanoseconds(Math.round(settings.iterationSeconds() * 1e9));
    int measurements = settings.iterationsPerBlock() * settings.alternations();
    int warmups = Math.max(measurements, (int) Math.ceil(timing.warmupSeconds() / settings.iterationSeconds() - 1e-9));
    List<String> jvmFlags = ManagementFactory.getRuntimeMXBean().getInputArguments();
    OptionsBuilder builder = new OptionsBuilder();
    if (settings.cpus() != null) {
      builder.addProfiler(CrosscheckFork.class, CrosscheckCpus.Split.list(settings.cpus().benchmark()));
    }
    return builder
        .include("^" + Pattern.quote(CrosscheckBenchmark.class.getName() + "." + method) + "$")
        .param("spec", specFile)
        .param("cell", String.valueOf(index))
        .param("blocks", blocksFile.toString())
        .mode(Mode.AverageTime)
        .timeUnit(TimeUnit.NANOSECONDS)
        .forks(1)
        .warmupForks(0)
        .threads(1)
        .warmupIterations(warmups)
        .warmupTime(iteration)
        .measurementIterations(measurements)
        .measurementTime(iteration)
        .shouldDoGC(false)
        .shouldFailOnError(true)
        .jvmArgs(jvmFlags.toArray(new String[0]))
        .jvmArgsAppend("-Djava.io.tmpdir=" + tmp)
        .build();
  }

  /**
   * One line on what went wrong: the innermost error the fork (or JMH) reported; for a fork
   * that died without one, the first line of its stderr that JMH kept (never a stack frame).
   */
  private static String reason(Exception e, String log) {
    Throwable t = e;
    while (true) {
      if (t.getSuppressed().length > 0) {
        t = t.getSuppressed()[0];
      } else if (t.getCause() != null && t.getCause() != t) {
        t = t.getCause();
      } else {
        break;
      }
    }
    String reason = Driver.reason(t);
    int stderr = log.indexOf("<stderr");
    if (stderr >= 0 && reason.contains("Forked VM failed")) {
      for (String line : log.substring(log.indexOf('\n', stderr) + 1).split("\n")) {
        if (line.startsWith("</stderr>")) {
          break;
        }
        if (!line.isBlank() && !Character.isWhitespace(line.charAt(0))) {
          return reason + "; its stderr: " + line.substring(0, Math.min(line.length(), 200));
        }
      }
    }
    return reason;
  }

  /**
   * A directory beside --out for JMH's files (its lock, the fork's captured output, its
   * compiler hints; java.io.tmpdir points here, in the fork too) and the forks' block files;
   * removed at the end. The driver writes only where --out points, and a container's /tmp is
   * read-only.
   */
  static final class Scratch implements AutoCloseable {
    final Path dir;

    Scratch(String outFile) {
      Path parent = Path.of(outFile).toAbsolutePath().getParent();
      try {
        dir = Files.createTempDirectory(parent, ".crosscheck-");
      } catch (IOException | RuntimeException e) {
        throw new InputError("cannot write beside --out " + outFile + ": " + e.getMessage());
      }
      // Before JMH's classes read it (Runner's lock file, its temporary files).
      System.setProperty("java.io.tmpdir", dir.toString());
    }

    @Override
    public void close() {
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(path);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot remove " + dir, e);
      }
    }
  }
}
