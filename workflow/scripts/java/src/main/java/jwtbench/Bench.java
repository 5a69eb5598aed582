package jwtbench;

import java.security.Key;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * `bench --spec FILE --out FILE`: reads the spec, prepares every cell (files read and keys
 * parsed once), runs the checks once per algorithm, key pair and input, then hands the cells
 * that passed to their suite: {@link TimedSuite} (jwt), {@link TokensizeSuite},
 * {@link TransferSuite} or {@link PercallSuite}. Suite hash has no files or keys: its cells are
 * prepared and checked by {@link Hashing}, then timed by {@link TimedSuite}; suites primitive and
 * keygen (the JDK's JCA, no JWT library) by {@link Primitives} and {@link KeygenSuite}; suite
 * harness's (suite jwt's sign batch around no cryptography) by {@link Harness}, timed by
 * {@link TimedSuite}.
 */
final class Bench {
  private Bench() {}

  /** A cell with its parsed input and keys, before the checks. */
  record Prepared(Spec.Cell cell, Input input, Key signingKey, Key verifyingKey, byte[] verifyingKeyBytes) {}

  /** A cell that passed its checks: the library bound to its keys, its token(s). */
  record Ready(Spec.Cell cell, Input input, Checks.Passed checks) {}

  /** A cell that did not pass its checks: status unsupported or failed, why, its input_bytes. */
  record NotPassed(String status, String reason, long inputBytes) {}

  /**
   * What the suites share: the spec, the CSV, a progress prefix per cell, the count of
   * cells by status and the cells that did not pass their checks.
   */
  static final class Run {
    final Spec spec;
    /** The raw-sample CSV; null for `serve`, whose rows the conductor writes. */
    final RawSamples out;
    private final Map<String, Integer> counts = new LinkedHashMap<>();
    private final Map<Integer, NotPassed> notPassed = new HashMap<>();

    Run(Spec spec, RawSamples out) {
      this.spec = spec;
      this.out = out;
      for (String status : List.of("ok", "unsupported", "failed", "timeout")) {
        counts.put(status, 0);
      }
    }

    String head(Spec.Cell cell) {
      return "[" + (cell.index() + 1) + "/" + spec.cells().size() + "] " + cell.operation() + " " + cell.variant();
    }

    /** Counts the cell's status and logs the note; writes its untimed row(s) if `untimed`. */
    void finish(Spec.Cell cell, long inputBytes, String status, String note, boolean untimed) {
      if (untimed && out != null) {
        out.untimed(cell, inputBytes, status, 0);
      }
      counts.merge(status, 1, Integer::sum);
      Progress.line(head(cell) + ": " + note);
    }

    /**
     * A cell that did not pass its checks (status unsupported or failed, before anything is
     * timed): its untimed row, its note "status (reason)", and kept for {@link #notPassed(int)}.
     */
    void notPassed(Spec.Cell cell, long inputBytes, String status, String reason) {
      notPassed.put(cell.index(), new NotPassed(status, reason, inputBytes));
      finish(cell, inputBytes, status, status + " (" + reason + ")", true);
    }

    /** How the cell of spec index `index` did not pass its checks; null if it passed or is not checked yet. */
    NotPassed notPassed(int index) {
      return notPassed.get(index);
    }

    String summary() {
      StringBuilder text = new StringBuilder();
      counts.forEach((status, n) -> text.append(text.length() == 0 ? "" : ", ").append(status).append(' ').append(n));
      return text.toString();
    }
  }

  static void run(String specFile, String outFile) {
    Spec spec = Spec.load(specFile);
    // Suites hash, primitive, keygen and harness prepare and check their own cells (no keys,
    // no JWT library call).
    boolean own = List.of("hash", "primitive", "keygen", "harness").contains(spec.suite());
    List<Prepared> prepared = own ? List.of() : prepare(spec, specFile);
    long sink;
    try (RawSamples out = new RawSamples(outFile, spec.language())) {
      Run run = new Run(spec, out);
      sink = switch (spec.suite()) {
        case "jwt", "hash", "primitive", "harness" -> TimedSuite.run(timed(spec, specFile, prepared, run), run);
        case "tokensize" -> TokensizeSuite.run(check(prepared, run), run);
        case "transfer" -> TransferSuite.run(check(prepared, run), run);
        case "percall" -> PercallSuite.run(check(prepared, run), run);
        case "keygen" -> KeygenSuite.run(spec, run, specFile);
        default -> throw new IllegalStateException("suite " + spec.suite());
      };
      Progress.line("done: " + spec.cells().size() + " cells (" + run.summary() + "); sink " + sink);
    }
  }

  /**
   * Suites jwt, hash, primitive and harness, every cell of which is timed in calibrated
   * batches: the cells checked (suite jwt's `prepared` by {@link #check(List, Run)}, the others
   * by their suite's own check), those that did not pass given to `run` ({@link Run#notPassed}),
   * those that did as {@link TimedSuite} entries in spec order. Bench's and {@link Serve}'s.
   */
  static List<TimedSuite.Entry> timed(Spec spec, String specFile, List<Prepared> prepared, Run run) {
    return switch (spec.suite()) {
      case "jwt" -> TimedSuite.jwt(check(prepared, run));
      case "hash" -> Hashing.check(spec, run);
      case "primitive" -> Primitives.check(spec, run, specFile);
      case "harness" -> Harness.check(spec, run);
      default -> throw new IllegalStateException("suite " + spec.suite() + " is not jwt, hash, primitive or harness");
    };
  }

  /** Every file read and every key parsed once, before anything is checked or timed. */
  static List<Prepared> prepare(Spec spec, String specFile) {
    return prepare(spec.cells(), specFile);
  }

  /**
   * `cells` (of the spec in `specFile`) prepared: each file read and each key parsed once
   * (crosscheck's fork prepares its one cell so).
   */
  static List<Prepared> prepare(List<Spec.Cell> cells, String specFile) {
    Map<String, Input> inputs = new HashMap<>();
    Map<String, Key> keys = new HashMap<>();
    Map<String, byte[]> bytes = new HashMap<>();
    List<Prepared> prepared = new ArrayList<>();
    for (Spec.Cell cell : cells) {
      String at = " of cells[" + cell.index() + "] in --spec " + specFile + ":";
      Input input = inputs.computeIfAbsent(cell.inputKind() + "\0" + cell.inputFile(), id -> {
        String origin = "input_file" + at;
        if (cell.records()) {
          return Input.records(cell.inputFile(), origin);
        }
        return cell.suite().equals("transfer")
            ? Input.transferBody(cell.inputFile(), origin) : Input.claims(cell.inputFile(), origin);
      });
      boolean hmac = Jws.isHmac(cell.algorithm());
      Key signing = keys.computeIfAbsent((hmac ? "secret" : "private") + "\0" + cell.privateKey(),
          id -> Keys.parse(cell.algorithm(), Keys.Role.SIGNING,
              bytes.computeIfAbsent(cell.privateKey(), f -> Json.readBytes(f, "private_key" + at)),
              cell.privateKey(), "private_key" + at));
      byte[] publicBytes = bytes.computeIfAbsent(cell.publicKey(), f -> Json.readBytes(f, "public_key" + at));
      Key verifying = keys.computeIfAbsent((hmac ? "secret" : "public") + "\0" + cell.publicKey(),
          id -> Keys.parse(cell.algorithm(), Keys.Role.VERIFYING, publicBytes, cell.publicKey(), "public_key" + at));
      checkBits(cell, signing, "private_key" + at, cell.privateKey());
      checkBits(cell, verifying, "public_key" + at, cell.publicKey());
      prepared.add(new Prepared(cell, input, signing, verifying, publicBytes));
    }
    return prepared;
  }

  private static void checkBits(Spec.Cell cell, Key key, String origin, String file) {
    OptionalInt bits = Keys.bits(key);
    if (bits.isPresent() && bits.getAsInt() != cell.keyBits()) {
      throw new InputError(origin + " " + file + " is a " + bits.getAsInt() + "-bit key, the cell says key_bits "
          + cell.keyBits());
    }
  }

  /**
   * The checks, once per algorithm, key pair and input, before anything is timed; a cell that
   * does not pass gets its untimed row now. The cells that passed, in spec order.
   */
  private static List<Ready> check(List<Prepared> prepared, Run run) {
    Map<List<String>, Checks.Outcome> done = new HashMap<>();
    List<Ready> ready = new ArrayList<>();
    for (Prepared p : prepared) {
      Spec.Cell cell = p.cell();
      Checks.Outcome outcome = check(p, done);
      if (outcome instanceof Checks.Passed passed) {
        ready.add(new Ready(cell, p.input(), passed));
      } else if (outcome instanceof Checks.NotPassed not) {
        run.notPassed(cell, p.input().inputBytes, not.status(), not.reason());
      }
    }
    return ready;
  }

  /**
   * One prepared cell's checks, run once per algorithm, key pair and input (`done` keeps the
   * outcomes so far); a decode cell of a library without decode is unsupported.
   */
  static Checks.Outcome check(Prepared p, Map<List<String>, Checks.Outcome> done) {
    Spec.Cell cell = p.cell();
    List<String> id = List.of(cell.algorithm(), cell.privateKey(), cell.publicKey(), cell.inputKind(), cell.inputFile());
    boolean pool = cell.suite().equals("jwt") && cell.records();
    Checks.Outcome outcome = done.computeIfAbsent(id, k -> Checks.run(cell.algorithm(), p.signingKey(),
        p.verifyingKey(), p.verifyingKeyBytes(), p.input(), pool));
    String noDecode = JwsLibrary.current().noDecode();
    if (outcome instanceof Checks.Passed && cell.operation().equals("decode") && noDecode != null) {
      return new Checks.NotPassed("unsupported", noDecode);
    }
    return outcome;
  }
}
