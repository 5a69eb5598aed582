package jwtbench;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The raw-sample CSV (workflow/schemas/raw_samples.schema.yaml). The stream is unbuffered:
 * each row goes to the file in one write as soon as it is made, so a crash loses nothing
 * already measured.
 */
final class RawSamples implements AutoCloseable {
  static final List<String> COLUMNS = List.of(
      "language", "implementation", "implementation_version", "suite", "operation", "algorithm",
      "key_bits", "input", "input_bytes", "sample", "iterations", "elapsed_ns", "output_bytes",
      "status");
  /** The operations of a transfer cell, each with rows of its own, in this order. */
  static final List<String> TRANSFER_OPERATIONS = List.of("request-response", "sign", "verify");

  private final OutputStream out;
  /** The language column: the spec's (java, or a further library's driver name java/<library>). */
  private final String language;

  RawSamples(String file, String language) {
    this.language = language;
    try {
      this.out = Files.newOutputStream(Path.of(file));
    } catch (IOException | RuntimeException e) {
      throw new InputError("cannot write --out " + file + ": " + e.getMessage());
    }
    write(String.join(",", COLUMNS));
  }

  private static String field(Object value) {
    String s = String.valueOf(value);
    boolean quote = s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0;
    return quote ? '"' + s.replace("\"", "\"\"") + '"' : s;
  }

  private void write(String line) {
    try {
      out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the raw-sample CSV", e);
    }
  }

  /** One row; `operation` is the cell's own except for transfer's three. */
  void row(Spec.Cell cell, String operation, long inputBytes, long sample, long iterations,
      long elapsedNs, long outputBytes, String status) {
    StringBuilder line = new StringBuilder(160);
    Versions.Implementation implementation = Versions.implementationOf(cell);
    Object[] values = {
      language, implementation.name(), implementation.version(), cell.suite(), operation, cell.algorithm(),
      cell.keyBits(), cell.input(), inputBytes, sample, iterations, elapsedNs, outputBytes, status,
    };
    for (Object value : values) {
      if (line.length() > 0) {
        line.append(',');
      }
      line.append(field(value));
    }
    write(line.toString());
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
    try {
      out.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close the raw-sample CSV", e);
    }
  }
}
