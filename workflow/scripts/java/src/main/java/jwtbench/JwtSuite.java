package jwtbench;

import java.util.ArrayList;
import java.util.List;

/**
 * Suite jwt (README "Timing rules", steps 3-6): cell by cell, warm-up for warmup_seconds and
 * calibration of the batch size to target_sample_seconds; then interleaved rounds, round k
 * taking sample k of every cell still wanting one, each row written as soon as it is measured.
 * Every clock reading is System.nanoTime.
 */
final class JwtSuite {
  private static final long MAX_BATCH = 1_000_000_000L;

  private JwtSuite() {}

  private static long clamp(double n) {
    return Math.max(1, Math.min(MAX_BATCH, Math.round(n)));
  }

  /** One cell's batch size, the time it has used and its samples so far. */
  static final class Timer {
    final Bench.Ready ready;
    final Workload work;
    final int wanted;
    final long limitNs;
    long n;
    long spentNs;
    boolean timeout;
    long sink;
    final List<long[]> samples = new ArrayList<>(); // {iterations, elapsed ns}
    boolean failed;

    Timer(Bench.Ready ready, Workload work, Spec.Timing timing) {
      this.ready = ready;
      this.work = work;
      this.wanted = timing.samples();
      this.limitNs = timing.maxCellNs();
    }

    /** Times one batch of `calls`; folds its result into the sink; its duration in ns. */
    long time(long calls) {
      long t0 = System.nanoTime();
      long folded = work.run(calls);
      long t1 = System.nanoTime();
      sink += folded;
      return t1 - t0;
    }

    /**
     * Warm-up: batches doubling in size (each within the warm-up left, the cell's budget left
     * and target_sample_seconds), at least one call, for warmup_seconds. Calibration: batches
     * rescaled until one lasts about target_sample_seconds (at most 5). Then: can `samples`
     * batches still fit in max_cell_seconds? If not, or if warm-up and calibration used it up,
     * the cell is a timeout cell.
     */
    void warmUpAndCalibrate(Spec.Timing timing) {
      long start = System.nanoTime();
      double warmupNs = timing.warmupSeconds() * 1e9;
      double targetNs = timing.targetSampleSeconds() * 1e9;
      long chunk = 1;
      double nsPerOp;
      while (true) {
        nsPerOp = Math.max(1, time(chunk)) / (double) chunk;
        long elapsed = System.nanoTime() - start;
        if (elapsed >= limitNs) {
          settle(chunk, start, true);
          return;
        }
        double remaining = warmupNs - elapsed;
        if (remaining <= 0) {
          break;
        }
        double room = Math.min(remaining, Math.min(limitNs - elapsed, targetNs));
        chunk = clamp(Math.min(chunk * 2.0, Math.ceil(room / nsPerOp)));
      }
      long calls = clamp(targetNs / nsPerOp);
      for (int round = 0; round < 5; round++) {
        long elapsed = Math.max(1, time(calls));
        if (System.nanoTime() - start >= limitNs) {
          settle(calls, start, true);
          return;
        }
        nsPerOp = elapsed / (double) calls;
        double ratio = targetNs / elapsed;
        calls = clamp(calls * Math.min(100, ratio));
        if (ratio > 0.8 && ratio < 1.25) {
          break;
        }
      }
      long spent = System.nanoTime() - start;
      settle(calls, start, spent + wanted * (double) calls * nsPerOp > limitNs);
    }

    private void settle(long calls, long start, boolean timedOut) {
      n = calls;
      spentNs = System.nanoTime() - start;
      timeout = timedOut;
    }

    /** A timeout cell stops once its own time passes max_cell_seconds. */
    boolean wantsSample() {
      if (failed || samples.size() >= wanted) {
        return false;
      }
      return !timeout || spentNs < limitNs;
    }

    long sample() {
      long elapsed = time(n);
      samples.add(new long[] {n, elapsed});
      spentNs += elapsed;
      return elapsed;
    }

    double medianNsPerOp() {
      double[] perOp = samples.stream().mapToDouble(s -> s[1] / (double) s[0]).sorted().toArray();
      int mid = perOp.length / 2;
      return perOp.length % 2 == 1 ? perOp[mid] : (perOp[mid - 1] + perOp[mid]) / 2;
    }
  }

  static long run(List<Bench.Ready> ready, Bench.Run run) {
    Spec.Timing timing = run.spec.timing();
    List<Timer> timers = new ArrayList<>();
    for (Bench.Ready r : ready) {
      Spec.Cell cell = r.cell();
      Timer timer;
      try {
        timer = new Timer(r, Workload.of(r), timing);
        timer.warmUpAndCalibrate(timing);
      } catch (RuntimeException e) {
        run.finish(cell, r.input().inputBytes, "failed", "failed while timing (" + e + ")", true);
        continue;
      }
      timers.add(timer);
      String note = !timer.timeout ? ""
          : timer.spentNs >= timer.limitNs ? " (timeout: max_cell_seconds used up by warm-up and calibration)"
          : " (timeout: " + timing.samples() + " samples will not fit in max_cell_seconds)";
      Progress.line(run.head(cell) + ": batch of " + timer.n + note);
    }

    for (int k = 1; k <= timing.samples(); k++) {
      int taken = 0;
      for (Timer timer : timers) {
        if (!timer.wantsSample()) {
          continue;
        }
        Spec.Cell cell = timer.ready.cell();
        long elapsed;
        try {
          elapsed = timer.sample();
        } catch (RuntimeException e) {
          if (!timer.samples.isEmpty()) {
            // Its rows so far are written as ok/timeout; a cell's rows cannot mix statuses.
            throw new IllegalStateException(run.head(cell) + " threw in round " + k + ", after "
                + timer.samples.size() + " samples: " + e, e);
          }
          timer.failed = true;
          run.finish(cell, timer.ready.input().inputBytes, "failed", "failed while timing (" + e + ")", true);
          continue;
        }
        run.out.row(cell, cell.operation(), timer.ready.input().inputBytes, k, timer.n, elapsed,
            timer.work.outputBytes, timer.timeout ? "timeout" : "ok");
        taken++;
      }
      if (taken == 0) {
        Progress.line("round " + k + "/" + timing.samples() + ": no cell wants another sample, sampling ends");
        break;
      }
      Progress.line("round " + k + "/" + timing.samples() + " done");
    }

    long sink = 0;
    for (Timer timer : timers) {
      sink += timer.sink;
      if (timer.failed) {
        continue;
      }
      Spec.Cell cell = timer.ready.cell();
      String status = timer.timeout ? "timeout" : "ok";
      if (timer.samples.isEmpty()) {
        run.out.untimed(cell, timer.ready.input().inputBytes, "timeout", timer.spentNs);
        run.finish(cell, 0, status, "timeout after " + Progress.grouped(timer.spentNs) + " ns, no sample taken", false);
      } else {
        run.finish(cell, 0, status, Progress.grouped(timer.medianNsPerOp()) + " ns/op (" + timer.samples.size()
            + " samples x " + timer.n + ")" + (timer.timeout ? " timeout" : ""), false);
      }
    }
    return sink;
  }
}
