package jwtbench;

import java.util.ArrayList;
import java.util.List;

/**
 * Suite tokensize (README "Suite tokensize"): every record signed once, in file order, each
 * call timed on its own; one row per record. No warm-up or calibration: the sizes are the
 * result, elapsed_ns a cold single call. A cell's rows are written when it ends, with status
 * timeout if max_cell_seconds ran out first.
 */
final class TokensizeSuite {
  private TokensizeSuite() {}

  /** sample = line number, elapsed ns, record bytes, token bytes. */
  private record Signed(int line, long elapsedNs, int inputBytes, int outputBytes) {}

  static long run(List<Bench.Ready> ready, Bench.Run run) {
    long limitNs = run.spec.timing().maxCellNs();
    long sink = 0;
    for (Bench.Ready r : ready) {
      Spec.Cell cell = r.cell();
      String head = run.head(cell);
      List<Input.Item> items = r.input().items;
      int total = items.size();
      int step = Math.max(1, total / 10);
      List<Signed> rows = new ArrayList<>(total);
      boolean timedOut = false;
      long tokenBytes = 0;
      try {
        long start = System.nanoTime();
        for (int i = 0; i < total; i++) {
          // Checked before each record, so a cell that signed every record is ok.
          if (i > 0 && System.nanoTime() - start >= limitNs) {
            timedOut = true;
            break;
          }
          Input.Item item = items.get(i);
          long t0 = System.nanoTime();
          String token = r.checks().jws().sign(item.claims());
          long t1 = System.nanoTime();
          rows.add(new Signed(i + 1, t1 - t0, item.bytes(), token.length()));
          tokenBytes += token.length();
          if ((i + 1) % step == 0 || i + 1 == total) {
            Progress.line(head + ": " + (i + 1) + "/" + total + " records (" + (100L * (i + 1) / total) + "%)");
          }
        }
      } catch (RuntimeException e) {
        run.finish(cell, r.input().inputBytes, "failed", "failed while signing (" + e + ")", true);
        continue;
      }
      String status = timedOut ? "timeout" : "ok";
      for (Signed row : rows) {
        run.out.row(cell, "sign", row.inputBytes(), row.line(), 1, row.elapsedNs(), row.outputBytes(), status);
      }
      sink += tokenBytes;
      run.finish(cell, 0, status, rows.size() + "/" + total + " records signed, " + Progress.grouped(tokenBytes)
          + " token bytes" + (timedOut ? " (timeout: max_cell_seconds ran out)" : ""), false);
    }
    return sink;
  }
}
