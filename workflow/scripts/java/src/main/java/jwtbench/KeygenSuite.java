package jwtbench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Suite keygen (README "Suite keygen"), seed 004's method with the JDK's JCA:
 *
 * <ol>
 *   <li>every PEM key parsed once (KeyFactory); per algorithm and PEM pair, the pair must sign
 *       and verify and reject a flipped signature (in this process);
 *   <li>the per-iteration cells (keygen+sign+verify, keygen) in spec order, each in a child JVM
 *       ({@link KeygenChild}) that this process kills (destroyForcibly, SIGKILL) when the cell's
 *       keygen.max_cell_seconds run out, so a key generation still running then stops using the
 *       CPU at once. Every iteration is timed, the first too; the key pair the first iteration
 *       generated is checked right after it, in the child and within the cell's budget (no key
 *       pair is generated for a check alone);
 *   <li>the sign and verify cells on the PEM keys, interleaved by {@link TimedSuite}.
 * </ol>
 */
final class KeygenSuite {
  private static final String END = "\0end";
  /** How long a child JVM may take to start (print `ready`) before the cell is failed. */
  private static final long START_LIMIT_NS = 60_000_000_000L;

  private KeygenSuite() {}

  private record Prepared(Spec.Cell cell, byte[] message, PrivateKey privateKey, PublicKey publicKey) {}

  static long run(Spec spec, Bench.Run run, String specFile) {
    Primitives.Files files = new Primitives.Files();
    List<Prepared> prepared = new ArrayList<>();
    for (Spec.Cell cell : spec.cells()) {
      String at = " of cells[" + cell.index() + "] in --spec " + specFile + ":";
      String keyAlgorithm = Jca.keyAlgorithm(cell.algorithm());
      PrivateKey privateKey = files.privateKey(cell.privateKey(), keyAlgorithm, "private_key" + at);
      PublicKey publicKey = files.publicKey(cell.publicKey(), keyAlgorithm, "public_key" + at);
      Primitives.checkBits(cell, privateKey, "private_key" + at, cell.privateKey());
      Primitives.checkBits(cell, publicKey, "public_key" + at, cell.publicKey());
      prepared.add(new Prepared(cell, Jca.digits(cell.crypto().messageBytes()), privateKey, publicKey));
    }

    // The PEM pairs' checks, once per algorithm and pair; a cell whose pair fails is failed now.
    Map<String, String> pemProblems = new HashMap<>();
    List<Prepared> live = new ArrayList<>();
    for (Prepared p : prepared) {
      Spec.Cell cell = p.cell();
      String id = cell.algorithm() + "\0" + cell.privateKey() + "\0" + cell.publicKey();
      String problem = pemProblems.computeIfAbsent(id, k -> {
        try {
          String why = Jca.signatureProblem(cell.algorithm(), p.privateKey(), p.publicKey(), Jca.CHECK_MESSAGE);
          return why == null ? "" : "PEM key pair: " + why;
        } catch (GeneralSecurityException | RuntimeException e) {
          return (Primitives.lacksAlgorithm(e) ? "unsupported: " : "PEM key pair: ") + e;
        }
      });
      if (problem.isEmpty()) {
        live.add(p);
      } else {
        String status = problem.startsWith("unsupported: ") ? "unsupported" : "failed";
        run.finish(cell, p.message().length, status, status + " (" + problem + ")", true);
      }
    }

    Spec.Keygen settings = spec.keygen();
    long sink = 0;
    for (Prepared p : live) {
      if (Spec.Crypto.perIteration(p.cell().operation())) {
        sink += perIteration(p, settings, run);
      }
    }

    // sign and verify, on the PEM pairs checked above.
    List<TimedSuite.Entry> entries = new ArrayList<>();
    for (Prepared p : live) {
      Spec.Cell cell = p.cell();
      if (Spec.Crypto.perIteration(cell.operation())) {
        continue;
      }
      try {
        String[] problem = new String[1];
        Primitives.Call work = Primitives.signOrVerify(cell.operation(), cell.algorithm(), p.privateKey(),
            p.publicKey(), p.message(), problem);
        if (work == null) {
          run.finish(cell, p.message().length, "failed", "failed (" + problem[0] + ")", true);
          continue;
        }
        Supplier<Workload> made = () -> work;
        entries.add(new TimedSuite.Entry(cell, p.message().length, made));
      } catch (GeneralSecurityException | RuntimeException e) {
        String status = Primitives.lacksAlgorithm(e) ? "unsupported" : "failed";
        run.finish(cell, p.message().length, status, status + " (" + e + ")", true);
      }
    }
    if (!entries.isEmpty()) {
      sink += TimedSuite.run(entries, run);
    }
    return sink;
  }

  /**
   * One per-iteration cell in a child JVM; its rows written when it ends. A failed check of the
   * first iteration's key pair fails this cell only.
   */
  private static long perIteration(Prepared p, Spec.Keygen settings, Bench.Run run) {
    Spec.Cell cell = p.cell();
    long inputBytes = p.message().length;
    Child.Outcome outcome = Child.run(cell, settings);
    if (outcome.failed != null) { // nothing of the cell is written yet
      run.finish(cell, inputBytes, "failed", "failed (" + outcome.failed + ")", true);
      return 0;
    }
    int timed = outcome.elapsed.size();
    boolean ok = outcome.done || timed >= settings.iterations();
    String status = ok ? "ok" : "timeout";
    if (timed == 0) {
      run.out.untimed(cell, inputBytes, status, outcome.spentNs);
      run.finish(cell, inputBytes, status, "timeout after " + Progress.ms(outcome.spentNs)
          + " (keygen.max_cell_seconds; the child JVM was killed), no iteration timed", false);
      return 0;
    }
    double[] values = new double[timed];
    for (int k = 0; k < timed; k++) {
      long elapsed = outcome.elapsed.get(k);
      run.out.row(cell, cell.operation(), inputBytes, k + 1, 1, elapsed, outcome.output.get(k), status);
      values[k] = elapsed;
    }
    run.finish(cell, inputBytes, status, timed + " iterations, median " + Progress.ms(Math.round(TimedSuite.median(values)))
        + (outcome.done ? "" : String.format(Locale.ROOT, " (keygen.max_cell_seconds ran out after %s; the child JVM was killed%s)",
            Progress.ms(outcome.spentNs), ok ? ", the cell had its iterations" : "")), false);
    return outcome.sink;
  }

  /** A child JVM running {@link KeygenChild}, stopped at its deadline. */
  static final class Child {
    /** What the child reported before it ended or was killed. */
    static final class Outcome {
      /** The first iteration's key pair passed its check (before that iteration is reported). */
      boolean checked;
      boolean done;
      String failed;
      long spentNs;
      long sink;
      final List<Long> elapsed = new ArrayList<>();
      final List<Long> output = new ArrayList<>();
    }

    /** The java binary running this driver, else java.home's. */
    private static String java() {
      return ProcessHandle.current().info().command()
          .orElse(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    }

    /**
     * Runs the per-iteration `cell` (keygen+sign+verify or keygen) in a child JVM. The budget,
     * keygen.max_cell_seconds, counts from the child's `ready` (its JVM started, just before
     * its first iteration); when it runs out the child is killed at once.
     */
    static Outcome run(Spec.Cell cell, Spec.Keygen settings) {
      List<String> command = List.of(java(), "-XX:-UsePerfData", "-cp", System.getProperty("java.class.path"),
          KeygenChild.class.getName(), cell.crypto().family(), Integer.toString(cell.keyBits()), cell.algorithm(),
          cell.operation(), Integer.toString(cell.crypto().messageBytes()),
          Integer.toString(settings.iterations()), Long.toString(settings.targetCellNs()),
          Integer.toString(settings.maxIterations()));
      Outcome outcome = new Outcome();
      Process process;
      try {
        process = new ProcessBuilder(command).redirectInput(new File("/dev/null"))
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
      } catch (IOException e) {
        outcome.failed = "cannot start the child JVM: " + e.getMessage();
        return outcome;
      }
      try {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
          try (BufferedReader in = new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
              lines.add(line);
            }
          } catch (IOException e) {
            // the child was killed: its pipe closed
          } finally {
            lines.add(END);
          }
        }, "keygen-child-reader");
        reader.setDaemon(true);
        reader.start();
        long spawned = System.nanoTime();
        long start = -1;
        long deadline = spawned + START_LIMIT_NS;
        while (true) {
          long left = deadline - System.nanoTime();
          String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
          if (line == null) { // the deadline
            process.destroyForcibly();
            process.waitFor();
            outcome.spentNs = System.nanoTime() - (start < 0 ? spawned : start);
            if (start < 0) {
              outcome.failed = "the child JVM did not start within " + START_LIMIT_NS / 1_000_000_000L + " s";
            }
            return outcome;
          }
          if (line.equals(END)) {
            process.waitFor();
            outcome.spentNs = System.nanoTime() - (start < 0 ? spawned : start);
            if (!outcome.done && outcome.failed == null) {
              outcome.failed = "the child JVM ended without finishing (exit status " + process.exitValue() + ")";
            }
            return outcome;
          }
          String[] words = line.split(" ", 3);
          switch (words[0]) {
            case "ready" -> {
              start = System.nanoTime();
              deadline = start + settings.maxCellNs();
            }
            case "checked" -> outcome.checked = true;
            case "iteration" -> {
              if (!outcome.checked) { // the first iteration counts only once its key pair passed
                outcome.failed = "the child JVM reported an iteration before its key pair's check";
              } else {
                outcome.elapsed.add(Long.parseLong(words[1]));
                outcome.output.add(Long.parseLong(words[2]));
              }
            }
            case "done" -> {
              outcome.done = true;
              outcome.sink = Long.parseLong(words[1]);
            }
            case "failed" -> outcome.failed = line.substring("failed ".length());
            default -> outcome.failed = "unexpected line from the child JVM: " + line;
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the keygen child", e);
      } finally {
        process.destroyForcibly();
      }
    }
  }
}
