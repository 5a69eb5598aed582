package jwtbench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps the JIT's background compilations out of a round's timed batches (docs/disturbances-java.md):
 * {@link #awaitIdle} parks while a compiler thread is runnable (state R in /proc/self/task/TID/stat).
 */
final class JitQueue {
  private static final Path TASKS = Path.of("/proc/self/task");
  /** HotSpot's compiler threads' names as the kernel keeps them (15 bytes): "C2 CompilerThre". */
  private static final String[] NAMES = {"C1 CompilerThre", "C2 CompilerThre", "JVMCI CompilerT"};
  private static final long PARK_NS = 200_000;
  /** A wait never lasts longer (a compiler thread stuck runnable must not stop the run). */
  private static final long CAP_NS = 2_000_000_000L;
  /** Rescan the threads at most this often (the JVM may start or stop compiler threads). */
  private static final long RESCAN_NS = 1_000_000_000L;

  private static List<Path> stats = new ArrayList<>();
  private static long scannedAt;
  private static boolean scanned;
  private static boolean usable = true;

  private JitQueue() {}

  /** Parks until no compiler thread is runnable, at most {@link #CAP_NS}. */
  static void awaitIdle() {
    if (!usable) {
      return;
    }
    long begin = System.nanoTime();
    if (!scanned || begin - scannedAt > RESCAN_NS) {
      scan(begin);
    }
    while (anyRunnable() && System.nanoTime() - begin <= CAP_NS) {
      LockSupport.parkNanos(PARK_NS);
    }
  }

  private static void scan(long now) {
    List<Path> found = new ArrayList<>();
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
      for (Path task : tasks) {
        String comm;
        try {
          comm = Files.readString(task.resolve("comm")).strip();
        } catch (IOException e) {
          continue; // the thread ended meanwhile
        }
        for (String name : NAMES) {
          if (comm.startsWith(name)) {
            found.add(task.resolve("stat"));
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      usable = false;
      return;
    }
    stats = found;
    scannedAt = now;
    scanned = true;
  }

  /** Whether a compiler thread is runnable; a thread that ended forces a rescan next time. */
  private static boolean anyRunnable() {
    for (Path stat : stats) {
      String text;
      try {
        text = Files.readString(stat);
      } catch (IOException e) {
        scanned = false;
        continue;
      }
      // pid (comm) state ...: the state follows the last ')' (comm may hold spaces and parentheses)
      int close = text.lastIndexOf(')');
      if (close >= 0 && close + 2 < text.length() && text.charAt(close + 2) == 'R') {
        return true;
      }
    }
    return false;
  }
}
