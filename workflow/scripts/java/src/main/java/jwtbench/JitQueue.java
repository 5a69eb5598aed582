package jwtbench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps the JIT's background compilations out of timed batches (the interleaved rounds' samples
 * and the drift reference's). A benchmark JVM is pinned to one CPU, so a compilation queued by
 * code that ran before a batch (the harness's bookkeeping between rounds: the stopping rule, the
 * CSV rows, the progress lines; or the previous cell's code) runs on that CPU during the next
 * batch and takes up to half of it: on 2026-11-28 the compiler threads had 1.0 s of CPU 1 inside
 * timed batches in one suite-jwt job, and the drift reference, sampled right after the round's
 * bookkeeping, read up to 2.3 times its median (docs/disturbances-java.md).
 *
 * {@link #awaitIdle} is called before a timed batch, outside it: while a compiler thread is
 * runnable (state R in /proc/self/task/TID/stat: compiling, or woken for a queued task) the
 * caller parks, which gives the compiler the CPU; it returns once no compiler thread is
 * runnable. The batch itself is timed as before, and a compilation its own calls trigger still
 * runs in it. Where /proc is unreadable (not Linux) it does nothing.
 */
final class JitQueue {
  private static final Path TASKS = Path.of("/proc/self/task");
  /** HotSpot's compiler threads' names as the kernel keeps them (15 bytes): "C2 CompilerThre". */
  private static final String[] NAMES = {"C1 CompilerThre", "C2 CompilerThre", "JVMCI CompilerT"};
  /** How long to park between two looks (the compiler then has the CPU). */
  private static final long PARK_NS = 200_000;
  /** A wait never lasts longer (a compiler thread stuck runnable must not stop the run). */
  private static final long CAP_NS = 2_000_000_000L;
  /** Rescan the threads at most this often (the JVM may start or stop compiler threads). */
  private static final long RESCAN_NS = 1_000_000_000L;

  private static List<Path> stats = new ArrayList<>();
  private static long scannedAt;
  private static boolean scanned;
  private static boolean usable = true;
  /** The waits so far: how many found the JIT busy, and their total ns. */
  private static long busyWaits;
  private static long waitedNs;

  private JitQueue() {}

  /**
   * Parks until no compiler thread is runnable (at most {@link #CAP_NS}); the ns it waited (0
   * when the JIT was idle).
   */
  static long awaitIdle() {
    if (!usable) {
      return 0;
    }
    long begin = System.nanoTime();
    if (!scanned || begin - scannedAt > RESCAN_NS) {
      scan(begin);
    }
    boolean waited = false;
    while (anyRunnable()) {
      waited = true;
      if (System.nanoTime() - begin > CAP_NS) {
        break;
      }
      LockSupport.parkNanos(PARK_NS);
    }
    if (!waited) {
      return 0;
    }
    long ns = System.nanoTime() - begin;
    busyWaits++;
    waitedNs += ns;
    return ns;
  }

  /** One line for stderr: how often the harness waited for the JIT before a batch, and how long. */
  static String summary() {
    if (!usable) {
      return "JIT queue not watched (" + TASKS + " unreadable)";
    }
    return String.format(Locale.ROOT, "waited for the JIT's compiler threads before %d timed batches, %.1f ms in all",
        busyWaits, waitedNs / 1e6);
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
