package jwtbench;

import java.util.List;

/**
 * The raw-sample CSV (workflow/schemas/raw_samples.schema.yaml), each row written as soon as
 * it is made ({@link CsvFile}).
 */
final class RawSamples implements AutoCloseable {
  static final List<String> COLUMNS = List.of(
      "language", "implementation", "implementation_version", "suite", "operation", "algorithm",
      "key_bits", "input", "input_bytes", "sample", "iterations", "elapsed_ns", "output_bytes",
      "status");
  /** The operations of a transfer cell, each with rows of its own, in this order. */
  static final List<String> TRANSFER_OPERATIONS = List.of("request-response", "sign", "verify");

  private final CsvFile csv;
  /** The language column: the spec's (java, or a further library's driver name java/<library>). */
  private final String language;

  RawSamples(String file, String language) {
    this.language = language;
    this.csv = new CsvFile(file, COLUMNS, "raw-sample CSV");
  }

  /** One row; `operation` is the cell's own except for transfer's three. */
  void row(Spec.Cell cell, String operation, long inputBytes, long sample, long iterations,
      long elapsedNs, long outputBytes, String status) {
    Versions.Implementation implementation = Versions.implementationOf(cell);
    csv.row(language, implementation.name(), implementation.version(), cell.suite(), operation, cell.algorithm(),
        cell.keyBits(), cell.input(), inputBytes, sample, iterations, elapsedNs, outputBytes, status);
  }

  /**
   * The row of a cell that was not timed (one per operation: three for transfer): sample 0,
   * iterations 0, elapsed_ns 0 (or, for a timeout, the time it spent), output_bytes 0.
   */
  void untimed(Spec.Cell cell, long inputBytes, String status, long elapsedNs) {
    List<String> operations = cell.suite().equals("transfer") ? TRANSFER_OPERATIONS : List.of(cell.operation());
    for (String operation : operations) {
      row(cell, operation, inputBytes, 0, 0, elapsedNs, 0, status);
    }
  }

  @Override
  public void close() {
    csv.close();
  }
}
