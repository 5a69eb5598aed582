package jwtbench;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Lines on stderr (progress, errors) and the bytes of stdout, both UTF-8 whatever the locale. */
final class Progress {
  private static final PrintStream ERR =
      new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
  private static final PrintStream OUT =
      new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);

  private Progress() {}

  static void line(String text) {
    ERR.println(text);
  }

  /** Writes `bytes` to stdout as they are (no newline) and flushes. */
  static void stdoutBytes(byte[] bytes) {
    OUT.write(bytes, 0, bytes.length);
    OUT.flush();
  }

  /** Writes `text` and a newline to stdout and flushes. */
  static void stdout(String text) {
    OUT.print(text);
    OUT.print('\n');
    OUT.flush();
  }

}
