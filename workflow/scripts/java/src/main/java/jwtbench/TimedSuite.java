package jwtbench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Suites jwt, hash, primitive and keygen's sign/verify, by the README's "Timing rules" from the
 * warm-up on:
 * cell by cell, warm-up for warmup_seconds (the process's first cell for at least
 * process_warmup_seconds), calibration of the batch size to target_sample_seconds and, when
 * warmup_max_seconds is above 0, windows of calibrated batches until the runtime is steady,
 * then calibration again; then interleaved rounds, round k taking sample k of every cell
 * still sampling, each row written as soon as it is measured.
 * Which cells go on after a round is the stopping rule's {@link StoppingRule.Rounds}; each round
 * opens with a sample of the drift {@link Reference}. Every clock reading is System.nanoTime.
 */
final class TimedSuite {
  /**
   * The largest batch timed: a loop the JIT removed (suite harness's `empty`, README "Suite
   * harness") takes the same time for any n, and a calibration would double n for ever.
   */
  private static final long MAX_BATCH = 1_000_000_000L;
  /** Whether a cell of this process has warmed up (the first one takes the process's warm-up). */
  private static boolean processWarmedUp;

  private TimedSuite() {}

  /** A cell that passed its checks: its input_bytes and how to make its workload. */
  record Entry(Spec.Cell cell, long inputBytes, Supplier<Workload> workload) {}

  /** Suite jwt's cells: the library bound to their keys, the batch loops of {@link Workload}. */
  static List<Entry> jwt(List<Bench.Ready> ready) {
    List<Entry> entries = new ArrayList<>(ready.size());
    for (Bench.Ready r : ready) {
      entries.add(new Entry(r.cell(), r.input().inputBytes, () -> Workload.of(r)));
    }
    return entries;
  }

  private static long clamp(double n) {
    return Math.max(1, Math.min(MAX_BATCH, Math.round(n)));
  }

  /** The median of `values` (sorted in place); NaN when empty. */
  static double median(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    Arrays.sort(values);
    int mid = values.length / 2;
    return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  }

  private static String seconds(long ns) {
    return String.format(Locale.ROOT, "%.2f s", ns / 1e9);
  }

  /** One cell's batch size, the time it has used and its samples so far. */
  static final class Timer {
    final Entry entry;
    final Workload work;
    /** The batches that must fit in max_cell_seconds after calibration. */
    final int projected;
    final long limitNs;
    private final double targetNs;
    private long start;
    private double nsPerOp;
    long n;
    long spentNs;
    boolean timeout;
    long sink;
    /** The until-steady outcome for stderr, or null when that check is off. */
    String steadiness;
    final List<long[]> samples = new ArrayList<>(); // {iterations, elapsed ns}
    boolean failed;

    Timer(Entry entry, Workload work, Spec.Timing timing) {
      this(entry, work, timing, timing.maxCellNs());
    }

    /**
     * With `limitNs` in place of max_cell_seconds (the drift reference and crosscheck's cells
     * have none: Long.MAX_VALUE).
     */
    Timer(Entry entry, Workload work, Spec.Timing timing, long limitNs) {
      this.entry = entry;
      this.work = work;
      this.projected = timing.target().projectedSamples();
      this.limitNs = limitNs;
      this.targetNs = timing.targetSampleSeconds() * 1e9;
    }

    /** Times one batch of `calls`; folds its result into the sink; its duration in ns. */
    long time(long calls) {
      long t0 = System.nanoTime();
      long folded = work.run(calls);
      long t1 = System.nanoTime();
      sink += folded;
      return t1 - t0;
    }

    private long elapsed() {
      return System.nanoTime() - start;
    }

    /**
     * Warm-up (warmup_seconds; the process's first cell: at least
     * process_warmup_seconds), calibration, warm-up until steady (if on) and calibration
     * again. Then: can min_samples batches (`samples` with the stopping rule off) still fit in
     * max_cell_seconds? If not, or if these phases used it up, the cell is a timeout cell.
     */
    void warmUpAndCalibrate(Spec.Timing timing) {
      boolean within = warmUpAndCalibrateOnce(warmupNs(timing));
      if (within && timing.warmupMaxSeconds() > 0) {
        within = untilSteady(timing) && calibrate();
      }
      spentNs = elapsed();
      timeout = !within || spentNs + projected * (double) n * nsPerOp > limitNs;
    }

    /**
     * The warm-up in ns: warmup_seconds, or process_warmup_seconds when that is longer and
     * this is the first cell the process warms up.
     */
    private static double warmupNs(Spec.Timing timing) {
      double warmupSeconds = timing.warmupSeconds();
      if (!processWarmedUp) {
        processWarmedUp = true;
        warmupSeconds = Math.max(warmupSeconds, timing.processWarmupSeconds());
      }
      return warmupSeconds * 1e9;
    }

    /**
     * `crosscheck`'s driver block: batches of the calibrated `n` calls, each timed as a sample of
     * the interleaved rounds is (and folded into the same sink), until the block has lasted
     * `blockNs` and has at least `minBatches` batches. The ns/op of each batch, in order.
     */
    double[] block(long blockNs, int minBatches) {
      List<Double> perOp = new ArrayList<>();
      long begin = System.nanoTime();
      while (perOp.size() < minBatches || System.nanoTime() - begin < blockNs) {
        perOp.add(Math.max(1, time(n)) / (double) n);
      }
      return perOp.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * Warm-up for `warmupNs` and calibration alone, never until steady. False if
     * max_cell_seconds ran out.
     */
    private boolean warmUpAndCalibrateOnce(double warmupNs) {
      start = System.nanoTime();
      return warmUp(warmupNs) && calibrate();
    }

    /**
     * Batches doubling in size (each within the warm-up left, the cell's budget left and
     * target_sample_seconds), at least one call, for `warmupNs`; then `n` is the batch of
     * about target_sample_seconds at the last rate. False if max_cell_seconds ran out.
     */
    private boolean warmUp(double warmupNs) {
      long chunk = 1;
      while (true) {
        nsPerOp = Math.max(1, time(chunk)) / (double) chunk;
        long elapsed = elapsed();
        if (elapsed >= limitNs) {
          n = chunk;
          return false;
        }
        double remaining = warmupNs - elapsed;
        if (remaining <= 0) {
          n = clamp(targetNs / nsPerOp);
          return true;
        }
        double room = Math.min(remaining, Math.min(limitNs - elapsed, targetNs));
        chunk = clamp(Math.min(chunk * 2.0, Math.ceil(room / nsPerOp)));
      }
    }

    /**
     * Batches of `n` rescaled until one lasts about target_sample_seconds (at most 5); a batch
     * of at least one pass through the cell's records is then rounded to the nearest whole
     * number of passes, so every sample times the same mix of records. False if
     * max_cell_seconds ran out.
     */
    private boolean calibrate() {
      for (int round = 0; round < 5; round++) {
        long elapsed = Math.max(1, time(n));
        if (elapsed() >= limitNs) {
          return false;
        }
        nsPerOp = elapsed / (double) n;
        double ratio = targetNs / elapsed;
        n = clamp(n * Math.min(100, ratio));
        if (ratio > 0.8 && ratio < 1.25) {
          break;
        }
      }
      long pass = work.passLength();
      if (n >= pass) {
        n = Math.max(1, Math.round(n / (double) pass)) * pass;
      }
      return true;
    }

    /**
     * Calibration's "until steady": windows of steady_window timed batches of `n` calls (not
     * samples) until a window's median ns/op is within steady_tolerance of the previous
     * window's, or until the warm-up (from its first call) has lasted warmup_max_seconds.
     * Sets {@link #steadiness}; false if max_cell_seconds ran out.
     */
    private boolean untilSteady(Spec.Timing timing) {
      long budgetNs = Math.round(timing.warmupMaxSeconds() * 1e9);
      double[] window = new double[timing.steadyWindow()];
      double previous = Double.NaN;
      double change = Double.NaN;
      while (true) {
        long compiledBefore = jitMillis();
        long cpuBefore = threadCpuNs();
        long wallBefore = System.nanoTime();
        for (int i = 0; i < window.length; i++) {
          long elapsed = elapsed();
          if (elapsed >= limitNs || elapsed >= budgetNs) {
            steadiness = "not steady after " + seconds(elapsed) + (Double.isNaN(change) ? " (no two windows compared)"
                : String.format(Locale.ROOT, " (last change %.1f%%)", 100 * change));
            return elapsed < limitNs;
          }
          window[i] = Math.max(1, time(n)) / (double) n;
        }
        double median = median(window);
        // Two agreeing windows can both sit on a plateau between two tiers of compilation
        // (measured: "steady" at 135 us/op, then sampled at 6 us/op); so the JIT must also
        // have compiled nothing during the window.
        boolean jitIdle = jitMillis() == compiledBefore;
        // A compilation still running when the window ends is not in jitMillis() yet, and
        // it runs on this thread's CPU (a benchmark is pinned to one): two windows at half
        // speed agreed (measured: "steady" at 1,060 us/op, sampled at 447). So this thread
        // must also have had its CPU to itself during the window.
        boolean cpuOurs = cpuShare(cpuBefore, wallBefore) >= CPU_SHARE_STEADY;
        if (!Double.isNaN(previous)) {
          change = Math.abs(median - previous) / previous;
          if (change <= timing.steadyTolerance() && jitIdle && cpuOurs) {
            steadiness = "steady after " + seconds(elapsed()) + String.format(Locale.ROOT,
                " (window median %s ns/op, change %.1f%%)", Progress.grouped(median), 100 * change);
            return elapsed() < limitNs;
          }
        }
        previous = median;
      }
    }

    /**
     * Batches of `n` calls until the JIT has compiled nothing for `quietNs`, or for at most
     * `capNs`; the seconds it took. The cross-check's fork calls it after the warm-up and
     * calibration: a method called once per call of a slow operation reaches C2's thresholds
     * seconds into the run, and its compilation shares this thread's CPU (on 2026-11-26 ES256's
     * driver blocks got 68-83% of the CPU while 27-85 ms of compilation ran in them, five seconds
     * into the fork).
     */
    double untilJitQuiet(long quietNs, long capNs) {
      long begin = System.nanoTime();
      long lastChange = begin;
      long compiled = jitMillis();
      while (System.nanoTime() - lastChange < quietNs && System.nanoTime() - begin < capNs) {
        time(n);
        long now = jitMillis();
        if (now != compiled) {
          compiled = now;
          lastChange = System.nanoTime();
        }
      }
      return (System.nanoTime() - begin) / 1e9;
    }

    /** The share of a window's CPU this thread must have had for the window to count as steady. */
    private static final double CPU_SHARE_STEADY = 0.9;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** This thread's CPU time so far (ns), or -1 when the VM does not measure it. */
    static long threadCpuNs() {
      return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
    }

    /** This thread's CPU time since `cpuBefore` over the wall time since `wallBefore` (1 when unmeasured). */
    private static double cpuShare(long cpuBefore, long wallBefore) {
      long cpu = threadCpuNs();
      long wall = System.nanoTime() - wallBefore;
      return cpuBefore < 0 || cpu < 0 || wall <= 0 ? 1.0 : (cpu - cpuBefore) / (double) wall;
    }

    /** The JIT's total compilation time so far (ms), or -1 when the VM does not say. */
    static long jitMillis() {
      CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
      return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }

    /** The time cap: any cell stops being sampled once its own time passes max_cell_seconds. */
    boolean timeCapped() {
      return spentNs >= limitNs;
    }

    long sample() {
      long elapsed = time(n);
      samples.add(new long[] {n, elapsed});
      spentNs += elapsed;
      return elapsed;
    }

    double medianNsPerOp() {
      return median(samples.stream().mapToDouble(s -> s[1] / (double) s[0]).toArray());
    }
  }

  static long run(List<Entry> entries, Bench.Run run) {
    Spec.Timing timing = run.spec.timing();
    List<Timer> timers = new ArrayList<>();
    for (Entry entry : entries) {
      Spec.Cell cell = entry.cell();
      Timer timer;
      try {
        timer = new Timer(entry, entry.workload().get(), timing);
        timer.warmUpAndCalibrate(timing);
      } catch (RuntimeException e) {
        run.finish(cell, entry.inputBytes(), "failed", "failed while timing (" + e + ")", true);
        continue;
      }
      timers.add(timer);
      if (timer.steadiness != null) {
        Progress.line(run.head(cell) + ": " + timer.steadiness);
      }
      String note = !timer.timeout ? ""
          : timer.spentNs >= timer.limitNs ? " (timeout: max_cell_seconds used up by warm-up and calibration)"
          : " (timeout: " + timer.projected + " samples will not fit in max_cell_seconds)";
      Progress.line(run.head(cell) + ": batch of " + timer.n + note);
    }

    // The drift reference, calibrated once every cell is, when a cell will sample.
    Reference reference = timers.stream().anyMatch(timer -> !timer.timeCapped()) ? Reference.calibrated(run) : null;

    // The stopping rule over the spec's cells, by spec index (the pairs' indexes): a cell not
    // timed here (unsupported, failed, a per-iteration keygen cell) is not sampling from the start.
    StoppingRule.Rounds rounds = new StoppingRule.Rounds(run.spec.cells().size(), run.spec.pairs(), timing.target());
    Timer[] bySpecIndex = new Timer[run.spec.cells().size()];
    for (Timer timer : timers) {
      bySpecIndex[timer.entry.cell().index()] = timer;
    }
    for (int i = 0; i < bySpecIndex.length; i++) {
      if (bySpecIndex[i] == null) {
        rounds.stop(i, StoppingRule.Reason.NOT_SAMPLED);
      }
    }
    int played = rounds.play((index, k) -> sample(bySpecIndex[index], k, rounds, run, reference), k -> {
      int still = 0;
      for (Timer timer : timers) {
        still += rounds.sampling(timer.entry.cell().index()) ? 1 : 0;
      }
      Progress.line("round " + k + "/" + timing.samples() + " done, " + still + " of " + timers.size()
          + " cells still sampling");
    });
    if (played < timing.samples()) {
      Progress.line("sampling ended after round " + played + ": no cell still sampling");
    }
    if (reference != null) {
      Progress.line(JitQueue.summary());
    }

    long sink = 0;
    for (Timer timer : timers) {
      sink += timer.sink;
      if (timer.failed) {
        continue;
      }
      Spec.Cell cell = timer.entry.cell();
      String status = timer.timeout ? "timeout" : "ok";
      if (timer.samples.isEmpty()) {
        run.out.untimed(cell, timer.entry.inputBytes(), "timeout", timer.spentNs);
        run.finish(cell, 0, status, "timeout after " + Progress.grouped(timer.spentNs) + " ns, no sample taken", false);
        continue;
      }
      int index = cell.index();
      run.finish(cell, 0, status, Progress.grouped(timer.medianNsPerOp()) + " ns/op (" + timer.samples.size()
          + " samples x " + timer.n + ", stopped at " + rounds.reason(index).text + "; "
          + StoppingRule.describe(rounds.values(index), timing.target().confidence()) + ")"
          + (timer.timeout ? " timeout" : ""), false);
    }
    return reference == null ? sink : sink + reference.finish();
  }

  /**
   * A cell's turn in round k: nothing once its time passes max_cell_seconds (the time cap);
   * else, after the reference's sample if it is the round's first cell sample, one batch, its
   * row written at once, and its ns/op. A batch that throws fails the cell if it has no sample
   * yet (it then stops, as not sampled).
   */
  private static OptionalDouble sample(Timer timer, int k, StoppingRule.Rounds rounds, Bench.Run run,
      Reference reference) {
    if (timer.timeCapped()) {
      return OptionalDouble.empty();
    }
    reference.open(k); // not null: this cell was not time-capped after calibration
    Spec.Cell cell = timer.entry.cell();
    long elapsed;
    try {
      JitQueue.awaitIdle();
      elapsed = timer.sample();
    } catch (RuntimeException e) {
      if (!timer.samples.isEmpty()) {
        // Its rows so far are written as ok/timeout; a cell's rows cannot mix statuses.
        throw new IllegalStateException(run.head(cell) + " threw in round " + k + ", after "
            + timer.samples.size() + " samples: " + e, e);
      }
      timer.failed = true;
      rounds.stop(cell.index(), StoppingRule.Reason.NOT_SAMPLED);
      run.finish(cell, timer.entry.inputBytes(), "failed", "failed while timing (" + e + ")", true);
      return OptionalDouble.empty();
    }
    run.out.row(cell, cell.operation(), timer.entry.inputBytes(), k, timer.n, elapsed,
        timer.work.outputBytes, timer.timeout ? "timeout" : "ok");
    return OptionalDouble.of(elapsed / (double) timer.n);
  }

  /**
   * The drift reference: SHA-256 of the 64 bytes 00 01 ... 3f by the JDK's JCA
   * MessageDigest ({@link #sha256}: one MessageDigest and one output array, reused, so no
   * allocation per call), each digest folded into its sink by {@link Hashing.Digest}. Warmed up
   * and calibrated as a cell is (until steady too, when the timing asks for it), once every cell
   * is calibrated; then one batch at the start of each round in which a cell samples, before that
   * cell's sample, after waiting for the JIT to be idle as every sample does ({@link JitQueue}),
   * written as the round's `reference` row. It is no cell of the spec: the stopping rule never
   * sees it, it holds no cell back and has no max_cell_seconds, and its time is no cell's.
   */
  static final class Reference {
    static final String OPERATION = "reference";
    static final String ALGORITHM = "SHA-256";
    static final int MESSAGE_BYTES = 64;

    private final Timer timer;
    private final Bench.Run run;
    /** The last round it was sampled in (0: none yet). */
    private int round;

    private Reference(Timer timer, Bench.Run run) {
      this.timer = timer;
      this.run = run;
    }

    /** Its message: the 64 bytes 00 01 ... 3f. */
    static byte[] message() {
      return Hashing.counting(MESSAGE_BYTES);
    }

    /**
     * Its call: SHA-256 by the JDK's JCA provider (implementation `jca`, as suite hash's jca
     * cells), on one MessageDigest kept by the reference, its digest written into one 32-byte
     * array kept too, which the call returns: no allocation per call. Suite hash's jca call
     * (MessageDigest.getInstance and a new digest array per call) allocates 264 bytes a call, 22
     * MB per 10-ms sample, so young collections fell inside the reference's samples: in 10 of 44
     * rounds, which read 1.07-1.11 times its median, the other rounds at most 1.03
     * (docs/disturbances-java.md, 2026-11-28). Not thread-safe: one per thread that times it.
     * Checked once against suite hash's jca digest.
     */
    static UnaryOperator<byte[]> sha256() {
      MessageDigest md;
      try {
        md = MessageDigest.getInstance(ALGORITHM);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
      byte[] out = new byte[md.getDigestLength()];
      UnaryOperator<byte[]> call = bytes -> {
        md.update(bytes);
        try {
          md.digest(out, 0, out.length); // resets md for the next call
        } catch (DigestException e) {
          throw new IllegalStateException(e.getMessage(), e);
        }
        return out;
      };
      byte[] message = message();
      if (!Arrays.equals(call.apply(message), Hashing.jcaDigest(ALGORITHM, message))) {
        throw new IllegalStateException("the drift reference's SHA-256 differs from MessageDigest.digest");
      }
      return call;
    }

    /**
     * Its timer's entry: a Cell (index -1, in no spec) only so that its rows go through the
     * row writers as every cell's do, with the implementation columns suite hash writes for its
     * jca cells, and the batch loop of `sha256` on `message` ({@link #sha256}, {@link #message}).
     */
    static Entry entry(String suite, byte[] message, UnaryOperator<byte[]> sha256) {
      Workload work = new Hashing.Digest(message, sha256, sha256.apply(message).length);
      Spec.Cell cell = new Spec.Cell(-1, suite, OPERATION, ALGORITHM, 0, null, null, OPERATION, null,
          null, new Spec.HashCell(Hashing.JCA, List.of(), MESSAGE_BYTES, null), null);
      return new Entry(cell, MESSAGE_BYTES, () -> work);
    }

    /**
     * Warmed up (warmup_seconds, at least one call), calibrated to target_sample_seconds, and,
     * when warmup_max_seconds is above 0, warmed up until steady (with the JIT idle) and
     * calibrated again, as a cell is. Warm-up and calibration alone left its first
     * rounds in its own JIT warm-up: in suite harness (cells of a few ns, 0.1 s of warm-up) its
     * rounds 1-3 read 16.3, 10.8 and 6.9 times its median on 2026-11-28, which the drift figure
     * then counted as the machine's (docs/disturbances-java.md).
     */
    static Reference calibrated(Bench.Run run) {
      Spec.Timing timing = run.spec.timing();
      Timer timer = timer(run.spec);
      timer.warmUpAndCalibrate(timing);
      Progress.line("drift reference (" + ALGORITHM + " " + Hashing.JCA + " of " + MESSAGE_BYTES + " bytes): "
          + (timer.steadiness == null ? "" : timer.steadiness + "; ") + "batch of " + timer.n);
      return new Reference(timer, run);
    }

    /**
     * Its timer, neither warmed up nor calibrated: the batch loop of {@link #entry}, with no
     * max_cell_seconds (bench's rounds and {@link Serve}'s batches of "reference").
     */
    static Timer timer(Spec spec) {
      Entry entry = entry(spec.suite(), message(), sha256());
      return new Timer(entry, entry.workload().get(), spec.timing(), Long.MAX_VALUE);
    }

    /** Its sample of round k unless it has taken it: one batch, its row written at once. */
    void open(int k) {
      if (round == k) {
        return;
      }
      round = k;
      JitQueue.awaitIdle();
      long elapsed = timer.sample();
      Spec.Cell cell = timer.entry.cell();
      run.out.row(cell, OPERATION, MESSAGE_BYTES, k, timer.n, elapsed, timer.work.outputBytes, "ok");
    }

    /** One stderr line with its median; its sink. */
    long finish() {
      Progress.line("drift reference: " + (timer.samples.isEmpty() ? "no sample taken"
          : Progress.grouped(timer.medianNsPerOp()) + " ns/op (" + timer.samples.size() + " rounds x " + timer.n + ")"));
      return timer.sink;
    }
  }
}
