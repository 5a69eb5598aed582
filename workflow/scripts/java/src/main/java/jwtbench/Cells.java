package jwtbench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.DigestException;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.UnaryOperator;

/** A spec's cells prepared and checked: {@link Served} (what one batch runs) or not passed. */
final class Cells {
  final Spec spec;
  final Served[] served;
  final List<Map<String, Object>> entries;

  private Cells(Spec spec) {
    this.spec = spec;
    this.served = new Served[spec.cells().size()];
    this.entries = new ArrayList<>(java.util.Collections.nCopies(served.length, null));
  }

  /** A cell the worker runs: its row facts, its sink, and what one batch of n calls does. */
  abstract static class Served {
    final Spec.Cell cell;
    final long inputBytes;
    long outputBytes;
    int passLength = 1;
    long sink;

    Served(Spec.Cell cell, long inputBytes, long outputBytes) {
      this.cell = cell;
      this.inputBytes = inputBytes;
      this.outputBytes = outputBytes;
    }

    /** Runs n calls; puts elapsed_ns (and whatever else its suite's answer carries) into `answer`. */
    abstract void batch(long n, Map<String, Object> answer) throws Exception;

    /** Stops what the cell started (transfer's server). */
    void close() {}
  }

  /** A cell whose batch is its {@link Workload}'s loop (jwt, percall, hash, primitive, harness, keygen's sign/verify). */
  static class Timed extends Served {
    final Workload work;

    Timed(Spec.Cell cell, long inputBytes, Workload work) {
      super(cell, inputBytes, work.outputBytes);
      this.work = work;
      this.passLength = work.passLength();
    }

    /** One batch of n calls, its result folded into the sink; its ns. */
    final long time(long n) {
      long t0 = System.nanoTime();
      long folded = work.run(n);
      long t1 = System.nanoTime();
      sink += folded;
      return t1 - t0;
    }

    @Override
    void batch(long n, Map<String, Object> answer) {
      answer.put("elapsed_ns", time(n));
    }
  }

  /** Suite tokensize: a call signs the next record; a batch of one also says its record's and token's sizes. */
  static final class Tokensize extends Timed {
    private final List<Input.Item> items;

    Tokensize(Spec.Cell cell, long inputBytes, Workload.Sign work, List<Input.Item> items) {
      super(cell, inputBytes, work);
      this.items = items;
    }

    @Override
    void batch(long n, Map<String, Object> answer) {
      int record = work.position;
      long before = sink;
      answer.put("elapsed_ns", time(n));
      if (n == 1) { // one sign call folds its token's length
        answer.put("input_bytes", items.get(record).bytes());
        answer.put("output_bytes", sink - before);
      }
    }
  }

  /** keygen+sign+verify and keygen: a call is one new key pair; the cell's first is checked outside the clock. */
  static final class KeyPairs extends Served {
    private final KeyPairGenerator generator;
    private final Signature signer;
    private final Signature verifier;
    private final byte[] message;
    private final boolean keygenOnly;
    private boolean checked;

    KeyPairs(Spec.Cell cell, byte[] message, long outputBytes) throws GeneralSecurityException {
      super(cell, message.length, outputBytes);
      this.generator = Jca.generator(cell.crypto().family(), cell.keyBits());
      this.signer = Signature.getInstance(Jca.signatureName(cell.algorithm()));
      this.verifier = Signature.getInstance(Jca.signatureName(cell.algorithm()));
      this.message = message;
      this.keygenOnly = cell.operation().equals(Spec.Crypto.KEYGEN);
    }

    @Override
    void batch(long n, Map<String, Object> answer) throws GeneralSecurityException {
      long elapsed = 0;
      int output = 0;
      for (long k = 0; k < n; k++) {
        long t0 = System.nanoTime();
        KeyPair pair = generator.generateKeyPair();
        byte[] signature = null;
        boolean valid = true;
        if (!keygenOnly) {
          signature = Jca.sign(signer, pair.getPrivate(), message);
          valid = Jca.verifies(verifier, pair.getPublic(), message, signature);
        }
        elapsed += System.nanoTime() - t0;
        if (!valid) {
          throw new IllegalStateException("a signature made with a generated key did not verify");
        }
        if (!checked) {
          String problem = Jca.sizeProblem(cell.crypto().family(), cell.keyBits(), pair.getPublic());
          if (problem == null) {
            problem = Jca.signatureProblem(cell.algorithm(), pair.getPrivate(), pair.getPublic(), Jca.CHECK_MESSAGE);
          }
          if (problem != null) {
            throw new IllegalStateException("generated key: " + problem);
          }
          checked = true;
        }
        output = keygenOnly ? pair.getPublic().getEncoded().length : signature.length;
        sink += output;
      }
      answer.put("elapsed_ns", elapsed);
      answer.put("output_bytes", output);
    }
  }

  /** The drift reference, on one reused MessageDigest and output array (docs/disturbances-java.md). */
  static final class Reference {
    static final int MESSAGE_BYTES = 64;

    private Reference() {}

    static UnaryOperator<byte[]> sha256() {
      MessageDigest md;
      try {
        md = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
      byte[] out = new byte[md.getDigestLength()];
      UnaryOperator<byte[]> call = bytes -> {
        md.update(bytes);
        try {
          md.digest(out, 0, out.length); // resets md for the next call
        } catch (DigestException e) {
          throw new IllegalStateException(e.getMessage(), e);
        }
        return out;
      };
      byte[] message = Hashing.counting(MESSAGE_BYTES);
      if (!Arrays.equals(call.apply(message), Hashing.jcaDigest("SHA-256", message))) { // checked once
        throw new IllegalStateException("the drift reference's SHA-256 differs from MessageDigest.digest");
      }
      return call;
    }

    static Spec.Cell cell(String suite) {
      return new Spec.Cell(-1, suite, "reference", "SHA-256", 0, null, null, "reference", null, null,
          new Spec.HashCell(Hashing.JCA, List.of(), MESSAGE_BYTES, null), null);
    }

    static Timed served(String suite) {
      UnaryOperator<byte[]> sha256 = sha256();
      return new Timed(cell(suite), MESSAGE_BYTES, new Hashing.Digest(Hashing.counting(MESSAGE_BYTES), sha256, 32));
    }
  }

  /** What the runtime did during a batch, read outside its clock: this thread's CPU ns and the JIT's ms (-1: untold). */
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  static long threadCpuNs() {
    return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
  }

  static long jitMillis() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
  }

  /** One batch's answer line: elapsed_ns (at least 1), what its suite adds, and jit_ms and cpu_ns where told. */
  static Map<String, Object> answer(Served served, long n) throws Exception {
    Map<String, Object> answer = new LinkedHashMap<>();
    long jit = jitMillis();
    long cpu = threadCpuNs();
    served.batch(n, answer);
    long cpuAfter = threadCpuNs();
    long jitAfter = jitMillis();
    answer.put("elapsed_ns", Math.max(1, (long) answer.get("elapsed_ns")));
    if (jit >= 0) {
      answer.put("jit_ms", jitAfter - jit);
    }
    if (cpu >= 0) {
      answer.put("cpu_ns", cpuAfter - cpu);
    }
    return answer;
  }

  /** A cell's hello entry as its raw rows name it: status, implementation columns, input_bytes. */
  private static Map<String, Object> entry(Spec.Cell cell, String status, long inputBytes) {
    Versions.Implementation implementation = Versions.implementationOf(cell);
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("status", status);
    entry.put("implementation", implementation.name());
    entry.put("implementation_version", implementation.version());
    entry.put("input_bytes", inputBytes);
    return entry;
  }

  /** A served cell's entry: also output_bytes and pass_length. */
  static Map<String, Object> entry(Served served) {
    Map<String, Object> entry = entry(served.cell, "ok", served.inputBytes);
    entry.put("output_bytes", served.outputBytes);
    entry.put("pass_length", served.passLength);
    return entry;
  }

  /** A cell that did not pass its checks (unsupported or failed): its entry, and a stderr line. */
  void notPassed(Spec.Cell cell, long inputBytes, String status, String reason) {
    Map<String, Object> entry = entry(cell, status, inputBytes);
    entry.put("reason", reason);
    entries.set(cell.index(), entry);
    Progress.line("[" + (cell.index() + 1) + "/" + served.length + "] " + cell.operation() + " " + cell.variant()
        + ": " + status + " (" + reason + ")");
  }

  void add(Served cell) {
    served[cell.cell.index()] = cell;
    entries.set(cell.cell.index(), entry(cell));
  }

  /** A check that fails (the cell is `failed` with this reason), or a failed transfer trial. */
  static final class CheckFailed extends Exception {
    private static final long serialVersionUID = 1L;

    CheckFailed(String reason) {
      super(reason);
    }
  }

  interface Preparation {
    Served prepare() throws Exception;
  }

  /** Adds the cell `checked` makes; a JCA without the algorithm is unsupported, another exception failed. */
  void add(Spec.Cell cell, long inputBytes, Preparation checked) {
    try {
      add(checked.prepare());
    } catch (InputError e) {
      throw e;
    } catch (CheckFailed e) {
      notPassed(cell, inputBytes, "failed", e.getMessage());
    } catch (Exception e) {
      boolean lacks = false;
      for (Throwable t = e; t != null; t = t.getCause()) {
        lacks |= t instanceof NoSuchAlgorithmException;
      }
      notPassed(cell, inputBytes, lacks ? "unsupported" : "failed", e.toString());
    }
  }

  /** Every cell of the spec prepared and checked. */
  static Cells prepare(Spec spec, String specFile) throws Exception {
    Cells cells = new Cells(spec);
    switch (spec.suite()) {
      case "hash" -> Hashing.prepare(spec, cells);
      case "primitive" -> Primitives.prepare(spec, cells, specFile);
      case "harness" -> Harness.prepare(spec, cells);
      case "keygen" -> keygen(spec, cells, specFile);
      default -> jws(spec, cells, specFile);
    }
    return cells;
  }

  /** A cell with its parsed input and keys, before the checks. */
  record Prepared(Spec.Cell cell, Input input, Key signingKey, Key verifyingKey, byte[] verifyingKeyBytes) {}

  /** A cell that passed its checks: the library bound to its keys, its token(s). */
  record Ready(Spec.Cell cell, Input input, Checks.Passed checks) {}

  /** The JWS suites (jwt, percall, tokensize, transfer; a cross-check spec): prepared, checked, served. */
  private static void jws(Spec spec, Cells cells, String specFile) throws Exception {
    Map<List<String>, Checks.Outcome> done = new HashMap<>();
    for (Prepared p : prepare(spec.cells(), specFile)) {
      Spec.Cell cell = p.cell();
      Checks.Outcome outcome = check(p, done);
      if (outcome instanceof Checks.NotPassed not) {
        cells.notPassed(cell, p.input().inputBytes(), not.status(), not.reason());
        continue;
      }
      Ready ready = new Ready(cell, p.input(), (Checks.Passed) outcome);
      switch (spec.suite()) {
        case "tokensize" -> cells.add(new Tokensize(cell, p.input().inputBytes(),
            new Workload.Sign(ready.checks().jws(), Workload.claims(ready), ready.checks().token().length()),
            p.input().items()));
        case "transfer" -> cells.add(cell, p.input().inputBytes(), () -> new Transfer(ready, spec.requestTimeoutSeconds()));
        default -> cells.add(new Timed(cell, p.input().inputBytes(), Workload.of(ready)));
      }
    }
  }

  /** Every file read and every key parsed once, before anything is checked. */
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

  /** The key's size must be the cell's key_bits; an input error if not. */
  static void checkBits(Spec.Cell cell, Key key, String origin, String file) {
    OptionalInt bits = Keys.bits(key);
    if (bits.isPresent() && bits.getAsInt() != cell.keyBits()) {
      throw new InputError(origin + " " + file + " is a " + bits.getAsInt() + "-bit key, the cell says key_bits "
          + cell.keyBits());
    }
  }

  /** One prepared cell's checks, run once per algorithm, key pair and input (`done` keeps them). */
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

  /** Suite keygen: every PEM pair checked once; the per-iteration cells generate their keys call by call. */
  private static void keygen(Spec spec, Cells cells, String specFile) {
    Primitives.Files files = new Primitives.Files();
    Map<String, String> pemProblems = new HashMap<>();
    for (Spec.Cell cell : spec.cells()) {
      String at = " of cells[" + cell.index() + "] in --spec " + specFile + ":";
      PrivateKey privateKey = files.privateKey(cell, at);
      PublicKey publicKey = files.publicKey(cell, at);
      byte[] message = Jca.digits(cell.crypto().messageBytes());
      cells.add(cell, message.length, () -> {
        String pair = cell.algorithm() + "\0" + cell.privateKey() + "\0" + cell.publicKey();
        if (!pemProblems.containsKey(pair)) {
          String why = Jca.signatureProblem(cell.algorithm(), privateKey, publicKey, Jca.CHECK_MESSAGE);
          pemProblems.put(pair, why == null ? null : "PEM key pair: " + why);
        }
        if (pemProblems.get(pair) != null) {
          throw new CheckFailed(pemProblems.get(pair));
        }
        if (Spec.Crypto.perIteration(cell.operation())) {
          long output = cell.operation().equals(Spec.Crypto.KEYGEN) ? publicKey.getEncoded().length
              : Jca.sign(Signature.getInstance(Jca.signatureName(cell.algorithm())), privateKey, message).length;
          return new KeyPairs(cell, message, output);
        }
        String[] why = new String[1];
        Primitives.Call work = Primitives.signOrVerify(cell.operation(), cell.algorithm(), privateKey, publicKey,
            message, why);
        if (work == null) {
          throw new CheckFailed(why[0]);
        }
        return new Timed(cell, message.length, work);
      });
    }
  }
}
