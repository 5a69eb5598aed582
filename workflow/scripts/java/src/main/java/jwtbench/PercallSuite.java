package jwtbench;

import java.util.List;

/**
 * Suite percall (README "Suite percall"), seed 001's own method: cell by cell, in spec order
 * and one after another (no interleaving, no warm-up by time, no calibration), warmup_calls
 * untimed calls, then `calls` calls each timed on its own with System.nanoTime; the calls are
 * suite jwt's batch loops of {@link Workload} run one call at a time. max_cell_seconds, counted
 * from the first warm-up call, is checked before each call, so a cell that made every call is
 * ok; one that ran out stops, and its rows get status timeout. A cell's rows are written when
 * it ends (their status is known only then).
 */
final class PercallSuite {
  private PercallSuite() {}

  static long run(List<Bench.Ready> ready, Bench.Run run) {
    Spec.Percall settings = run.spec.percall();
    long limitNs = run.spec.timing().maxCellNs();
    long sink = 0;
    for (Bench.Ready r : ready) {
      Spec.Cell cell = r.cell();
      long inputBytes = r.input().inputBytes;
      long[] elapsed = new long[settings.calls()];
      int timed = 0;
      boolean timedOut = false;
      long spent;
      Workload work;
      try {
        work = Workload.of(r);
        int warmup = settings.warmupCalls();
        long start = System.nanoTime();
        for (int call = 0; call < warmup + elapsed.length; call++) {
          long t0 = System.nanoTime();
          if (call > 0 && t0 - start >= limitNs) {
            timedOut = true;
            break;
          }
          long folded = work.run(1);
          if (call >= warmup) {
            elapsed[timed++] = System.nanoTime() - t0;
          }
          sink += folded;
        }
        spent = System.nanoTime() - start;
      } catch (RuntimeException e) {
        run.finish(cell, inputBytes, "failed", "failed while timing (" + e + ")", true);
        continue;
      }
      String status = timedOut ? "timeout" : "ok";
      if (timed == 0) {
        run.out.untimed(cell, inputBytes, status, spent);
        run.finish(cell, inputBytes, status, "timeout after " + Progress.ms(spent) + " of warm-up calls, no call timed",
            false);
        continue;
      }
      double[] perCall = new double[timed];
      for (int k = 0; k < timed; k++) {
        run.out.row(cell, cell.operation(), inputBytes, k + 1, 1, elapsed[k], work.outputBytes, status);
        perCall[k] = elapsed[k];
      }
      run.finish(cell, inputBytes, status, "median " + Progress.grouped(TimedSuite.median(perCall)) + " ns over "
          + timed + "/" + elapsed.length + " calls after " + settings.warmupCalls() + " warm-up calls"
          + (timedOut ? " (timeout: max_cell_seconds ran out)" : ""), false);
    }
    return sink;
  }
}
