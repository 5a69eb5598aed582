package jwtbench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.function.UnaryOperator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * `crosscheck`'s JMH benchmark, run in JMH's fork, one fork per cell ({@link Crosscheck} sets
 * the options). Its state rebuilds the cell from the spec with the driver's own code (Spec,
 * {@link Bench#prepare}, {@link Bench#check}, the library adapter, {@link Workload}), warms up
 * and calibrates the driver's batch as bench does ({@link TimedSuite.Timer}) before JMH's warm-up
 * iterations, and runs the driver's block of alternation k in the per-iteration setup of JMH's
 * measurement iteration k when k is odd, in its per-iteration teardown when k is even: driver,
 * JMH, JMH, driver, driver, JMH, ... in one JVM, one thread, on the same objects.
 *
 * <p>JMH's benchmark methods make the driver's batch's call and nothing else: the bound
 * {@link Jws}'s sign of the cell's claims objects, or its verify of the cell's tokens, in order
 * (the same objects the driver's batch takes, from {@link Workload#claims} and
 * {@link Workload#tokens}), or the drift reference's SHA-256 of its 64 bytes (the same message
 * and call object as the driver's); JMH consumes each result. The timing is JMH's own loop,
 * clock and statistic; the driver's blocks are {@link TimedSuite.Timer#block}.
 */
@State(Scope.Thread)
public class CrosscheckBenchmark {
  /** The `cell` of the drift reference's operation: its Cell's index, in no spec. */
  static final int REFERENCE = -1;
  /**
   * After the warm-up and calibration, the driver's batches run on until the JIT has compiled
   * nothing for this long, for at most four times process_warmup_seconds, before JMH's warm-up:
   * with the warm-up and calibration alone, ES256's blocks still shared the CPU with compilations
   * five seconds into the fork, and the driver/JMH ratio of a block ranged from 0.5 to 1.9
   * (2026-11-26). With 1 s this took 4.8-9.6 s per cell that day, and java had 6 and 5 of 6 sign
   * and verify cells in the band in two smoke runs; with 0.5 s (1.7-4.8 s per cell), 3 of 6 in
   * two more.
   */
  static final long JIT_QUIET_NS = 1_000_000_000L;

  // The parent gives all three; JMH wants defaults, and these fail at once (no spec "").
  /** The spec file (absolute). */
  @Param("")
  public String spec;
  /** The cell's index in the spec's cells, or {@link #REFERENCE}. */
  @Param("0")
  public int cell;
  /** The file the driver's blocks go to, one line each as it ends (the parent reads it). */
  @Param("")
  public String blocks;

  // JMH's call: the prepared objects the driver's Workload calls too.
  private Jws jws;
  private Object[] claims;
  private String[] tokens;
  private int next;
  private byte[] message;
  private UnaryOperator<byte[]> sha256;

  // The driver's loop.
  private TimedSuite.Timer timer;
  private long blockNs;
  private double jitQuietSeconds;
  private int perBlock;
  private int alternation;
  private int measured;

  /** The cell rebuilt and checked, then the driver's warm-up and calibration. */
  @Setup(Level.Trial)
  public void prepare() {
    Spec loaded = Spec.load(spec);
    Crosscheck.Settings settings = Crosscheck.Settings.of(loaded, spec);
    blockNs = settings.blockNs();
    perBlock = settings.iterationsPerBlock();
    TimedSuite.Entry entry;
    if (cell == REFERENCE) {
      message = TimedSuite.Reference.message();
      sha256 = TimedSuite.Reference.sha256();
      entry = TimedSuite.Reference.entry(loaded.suite(), message, sha256);
    } else {
      Bench.Prepared prepared = Bench.prepare(List.of(loaded.cells().get(cell)), spec).get(0);
      Checks.Outcome outcome = Bench.check(prepared, new HashMap<>());
      if (!(outcome instanceof Checks.Passed passed)) {
        throw new IllegalStateException("the cell did not pass its checks in the fork: "
            + ((Checks.NotPassed) outcome).reason());
      }
      Bench.Ready ready = new Bench.Ready(prepared.cell(), prepared.input(), passed);
      jws = passed.jws();
      claims = Workload.claims(ready);
      tokens = Workload.tokens(ready);
      entry = TimedSuite.jwt(List.of(ready)).get(0);
    }
    timer = new TimedSuite.Timer(entry, entry.workload().get(), loaded.timing(), Long.MAX_VALUE);
    timer.warmUpAndCalibrate(loaded.timing());
    jitQuietSeconds = timer.untilJitQuiet(JIT_QUIET_NS, Math.round(4 * loaded.timing().processWarmupSeconds() * 1e9));
  }

  @Benchmark
  public String sign() {
    Object item = claims[next];
    if (++next == claims.length) {
      next = 0;
    }
    return jws.sign(item);
  }

  @Benchmark
  public Object verify() {
    String token = tokens[next];
    if (++next == tokens.length) {
      next = 0;
    }
    return jws.verify(token);
  }

  @Benchmark
  public byte[] reference() {
    return sha256.apply(message);
  }

  /**
   * Before measurement iteration i (0-based), whose alternation k is i / iterationsPerBlock + 1:
   * the driver's block, before the first of alternation k's JMH iterations, when k is odd.
   */
  @Setup(Level.Iteration)
  public void beforeIteration(IterationParams iteration) {
    if (iteration.getType() == IterationType.MEASUREMENT) {
      int position = measured++ % perBlock;
      if (position == 0) {
        alternation++;
        if (alternation % 2 == 1) {
          driverBlock();
        }
      }
    }
  }

  /** After the last of alternation k's JMH iterations: the driver's block when k is even. */
  @TearDown(Level.Iteration)
  public void afterIteration(IterationParams iteration) {
    if (iteration.getType() == IterationType.MEASUREMENT && measured % perBlock == 0
        && alternation % 2 == 0) {
      driverBlock();
    }
  }

  /**
   * The last line: the driver's batch size, its sink, the JIT wait and the CPUs this thread
   * could run on (printed by the parent).
   */
  @TearDown(Level.Trial)
  public void finish() {
    append("end " + timer.n + " " + timer.sink + " " + jitQuietSeconds + " " + CrosscheckCpus.ofThisThread());
  }

  private void driverBlock() {
    double[] perOp = timer.block(blockNs, Crosscheck.MIN_BATCHES);
    int batches = perOp.length;
    append("block " + alternation + " " + batches + " " + TimedSuite.median(perOp));
  }

  private void append(String line) {
    try {
      Files.writeString(Path.of(blocks), line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + blocks, e);
    }
  }

  /** One driver block: its batches and the median ns/op of them. */
  record Block(int batches, double nsPerOp) {}

  /**
   * What the fork wrote: the blocks by alternation (1, 2, ... in order), the batch size, the
   * sink, the seconds it waited for the JIT to go quiet, the CPUs its benchmark thread had.
   */
  record Blocks(List<Block> perOp, long batch, long sink, double jitQuietSeconds, String cpus) {
    /** The file as the fork left it (missing: no blocks); blocks out of order end the list. */
    static Blocks read(Path file) {
      List<String> lines;
      try {
        lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      } catch (NoSuchFileException e) {
        lines = List.of();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + file, e);
      }
      List<Block> perOp = new ArrayList<>();
      long batch = 0;
      long sink = 0;
      double quiet = Double.NaN;
      String cpus = "?";
      for (String line : lines) {
        String[] f = line.split(" ");
        if (f[0].equals("block") && Integer.parseInt(f[1]) == perOp.size() + 1) {
          perOp.add(new Block(Integer.parseInt(f[2]), Double.parseDouble(f[3])));
        } else if (f[0].equals("end")) {
          batch = Long.parseLong(f[1]);
          sink = Long.parseLong(f[2]);
          quiet = Double.parseDouble(f[3]);
          cpus = f.length > 4 ? f[4] : cpus;
        }
      }
      return new Blocks(List.copyOf(perOp), batch, sink, quiet, cpus);
    }
  }
}
