package jwtbench;

import java.util.List;
import java.util.Locale;

/**
 * `crosscheck`'s CSV (workflow/scripts/README.md, "crosscheck"): one row per block, each
 * written to the file in one unbuffered write as soon as the parent has it.
 */
final class CrosscheckRows implements AutoCloseable {
  static final List<String> COLUMNS = List.of(
      "language", "implementation", "implementation_version", "operation", "algorithm", "key_bits", "input",
      "input_bytes", "alternation", "timer", "harness", "harness_version", "samples", "ns_per_op", "status");
  static final String DRIVER = "driver";
  static final String NATIVE = "native";
  /** The driver's own loop, as the harness column names it (its harness_version is empty). */
  static final String JWTBENCH = "jwtbench";

  private final CsvFile csv;
  /** The language column: the spec's (java, or a further library's driver name java/<library>). */
  private final String language;

  CrosscheckRows(String file, String language) {
    this.language = language;
    this.csv = new CsvFile(file, COLUMNS, "crosscheck CSV");
  }

  /** One block's row: its alternation, whose loop timed it, from how many samples, its ns/op. */
  void block(Spec.Cell cell, long inputBytes, int alternation, String timer, String harness, String harnessVersion,
      long samples, double nsPerOp) {
    row(cell, inputBytes, alternation, timer, harness, harnessVersion, samples,
        String.format(Locale.ROOT, "%.3f", nsPerOp), "ok");
  }

  /** The one row of a cell that was not timed (unsupported, failed): alternation 0, no ns_per_op. */
  void untimed(Spec.Cell cell, long inputBytes, String status) {
    row(cell, inputBytes, 0, DRIVER, JWTBENCH, "", 0, "", status);
  }

  private void row(Spec.Cell cell, long inputBytes, int alternation, String timer, String harness,
      String harnessVersion, long samples, String nsPerOp, String status) {
    Versions.Implementation implementation = Versions.implementationOf(cell);
    csv.row(language, implementation.name(), implementation.version(), cell.operation(), cell.algorithm(),
        cell.keyBits(), cell.input(), inputBytes, alternation, timer, harness, harnessVersion, samples, nsPerOp, status);
  }

  @Override
  public void close() {
    csv.close();
  }
}
