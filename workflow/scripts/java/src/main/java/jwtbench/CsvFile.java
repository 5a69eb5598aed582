package jwtbench;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A CSV file written row by row (the raw samples, {@link RawSamples}; {@code crosscheck}'s
 * blocks, {@link CrosscheckRows}). The stream is unbuffered: each row goes to the file in one
 * write as soon as it is made, so a crash loses nothing already measured.
 */
final class CsvFile implements AutoCloseable {
  private final OutputStream out;
  /** What the file holds, for the messages of a failed write. */
  private final String what;

  /** Creates `file` (an --out flag's value) and writes the header of `columns`. */
  CsvFile(String file, List<String> columns, String what) {
    this.what = what;
    try {
      this.out = Files.newOutputStream(Path.of(file));
    } catch (IOException | RuntimeException e) {
      throw new InputError("cannot write --out " + file + ": " + e.getMessage());
    }
    write(String.join(",", columns));
  }

  /** One CSV field, quoted when it must be. */
  static String field(Object value) {
    String s = String.valueOf(value);
    boolean quote = s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0;
    return quote ? '"' + s.replace("\"", "\"\"") + '"' : s;
  }

  /** One row of these values, each a field. */
  void row(Object... values) {
    StringBuilder line = new StringBuilder(160);
    for (Object value : values) {
      if (line.length() > 0) {
        line.append(',');
      }
      line.append(field(value));
    }
    write(line.toString());
  }

  private void write(String line) {
    try {
      out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the " + what, e);
    }
  }

  @Override
  public void close() {
    try {
      out.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close the " + what, e);
    }
  }
}
