package jwtbench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A bench spec (README "bench --spec FILE --out FILE"), checked against the contract; every
 * problem is an {@link InputError} naming the spec file and the field.
 */
record Spec(String language, String suite, Timing timing, Transfer transfer, Percall percall, Keygen keygen, List<Cell> cells,
    List<StoppingRule.Pair> pairs) {
  static final String FORMAT = "jwtbench-spec/1";

  /** suite -> [operations its cells may name, input kinds they may take]. */
  private static final Map<String, List<List<String>>> SUITES = Map.of(
      "jwt", List.of(List.of("sign", "verify", "decode"), List.of("claims", "records")),
      "tokensize", List.of(List.of("sign"), List.of("records")),
      "transfer", List.of(List.of("request-response"), List.of("claims")),
      "hash", List.of(List.of("hex-digest", "generate", "digest"), List.of()),
      "percall", List.of(List.of("sign", "verify", "decode"), List.of("claims")),
      "primitive", List.of(List.of("digest", "mac", "encrypt", "sign", "verify"), List.of("bytes")),
      "keygen", List.of(List.of(Crypto.KEYGEN_SIGN_VERIFY, Crypto.KEYGEN, "sign", "verify"), List.of()),
      "harness", List.of(List.of("empty", "trivial"), List.of()));

  /**
   * The suites whose cells are timed in calibrated batches (README "Timing rules", from "The
   * warm-up" on); suite keygen's sign and verify cells are.
   */
  private static final List<String> BATCHED = List.of("jwt", "hash", "primitive", "keygen", "harness");

  /**
   * Suites jwt and hash need warmupSeconds, samples and targetSampleSeconds; the others only
   * maxCellSeconds (NaN/0 when absent). warmupMaxSeconds is 0 (no warm-up until steady) when
   * absent; steadyWindow and steadyTolerance are needed only when it is above 0.
   * processWarmupSeconds (the warm-up of the first cell a process warms up) is 0 when absent.
   * `target` is the stopping rule's samples, min_samples, target_ci_pct and confidence (samples 0
   * when absent).
   */
  record Timing(double warmupSeconds, double targetSampleSeconds, double maxCellSeconds,
      double warmupMaxSeconds, int steadyWindow, double steadyTolerance, double processWarmupSeconds,
      StoppingRule.Target target) {
    int samples() {
      return target.samples();
    }

    long maxCellNs() {
      return Math.round(maxCellSeconds * 1e9);
    }
  }

  record Transfer(int trials, int warmupTrials, double requestTimeoutSeconds) {}

  record Percall(int warmupCalls, int calls) {}

  /** Suite keygen's per-iteration settings (README "Suite keygen"). */
  record Keygen(int iterations, double targetCellSeconds, int maxIterations, double maxCellSeconds) {
    long maxCellNs() {
      return Math.round(maxCellSeconds * 1e9);
    }

    long targetCellNs() {
      return Math.round(targetCellSeconds * 1e9);
    }
  }

  /**
   * A suite primitive or keygen cell's own fields: the implementation (only `jca`), the key
   * family (keygen: RSA or ECDSA; primitive: null), the message's length (`message_bytes`; -1
   * when the message is `input_file`'s raw bytes) and the known answer's hex fields by name
   * (primitive digest, mac and encrypt; empty otherwise).
   */
  record Crypto(String implementation, String family, int messageBytes, Map<String, String> knownAnswer) {
    static final String KEYGEN_SIGN_VERIFY = "keygen+sign+verify";
    static final String KEYGEN = "keygen";
    static final String JCA = "jca";

    /** A keygen cell timed one iteration at a time, in a child JVM. */
    static boolean perIteration(String operation) {
      return operation.equals(KEYGEN_SIGN_VERIFY) || operation.equals(KEYGEN);
    }
  }

  /** suite primitive: operation -> algorithm -> key_bits (0: any; -1: the cell carries no key). */
  static final Map<String, Map<String, Integer>> PRIMITIVE_ALGORITHMS = Map.of(
      "digest", Map.of("SHA-256", -1, "SHA-512", -1),
      "mac", Map.of("HMAC-SHA256", 0),
      "encrypt", Map.of("AES-256-GCM", 256),
      "sign", Map.of("RSA-SHA256", 0, "ECDSA-SHA256", 256, "Ed25519", 256),
      "verify", Map.of("RSA-SHA256", 0, "ECDSA-SHA256", 256, "Ed25519", 256));

  /** suite primitive: the known answer's fields per operation (sign and verify have none). */
  static final Map<String, List<String>> KNOWN_ANSWER_FIELDS = Map.of(
      "digest", List.of("message_hex", "output_hex"),
      "mac", List.of("key_hex", "message_hex", "output_hex"),
      "encrypt", List.of("key_hex", "nonce_hex", "message_hex", "output_hex"),
      "sign", List.of(),
      "verify", List.of());

  /** suite keygen: family -> its algorithms; ECDSA's key sizes (the curves'). */
  static final Map<String, List<String>> KEYGEN_ALGORITHMS = Map.of(
      "RSA", List.of("RSA-SHA256", "RSA-SHA512"),
      "ECDSA", List.of("ECDSA-SHA256", "ECDSA-SHA512"));
  static final List<Integer> CURVE_BITS = List.of(256, 384, 521);

  /**
   * A suite hash cell's own fields (README "Suite hash"): the implementation (the default
   * filled in), the message's parts (hex-digest, generate) or its length (digest), and the
   * known answer (null for generate).
   */
  record HashCell(String implementation, List<String> message, int messageBytes, KnownAnswer knownAnswer) {}

  record KnownAnswer(String message, String digestHex) {}

  /**
   * Suite hash cells have no keys and no input file (null), and `hash` set; suites primitive
   * and keygen have `crypto` set (a digest cell has no keys, a message_bytes cell no input
   * file); others null there.
   */
  record Cell(int index, String suite, String operation, String algorithm, int keyBits,
      String privateKey, String publicKey, String input, String inputFile, String inputKind, HashCell hash,
      Crypto crypto) {
    boolean records() {
      return "records".equals(inputKind);
    }

    /**
     * "RS256-2048" for RSA, else the algorithm, as the variants are named; for suite hash
     * "SHA-256 jca case1-uuid".
     */
    String variant() {
      if (hash != null) {
        return algorithm + " " + hash.implementation() + " " + input;
      }
      if (crypto != null) {
        return algorithm + (keyBits > 0 && !algorithm.endsWith("-" + keyBits) ? "-" + keyBits : "") + " " + input;
      }
      return algorithm.startsWith("RS") || algorithm.startsWith("PS") ? algorithm + "-" + keyBits : algorithm;
    }
  }

  /** Reads a JSON file's fields; `where` ("--spec FILE") starts every error. */
  static final class Reader {
    final String where;

    Reader(String where) {
      this.where = where;
    }

    InputError fail(String message) {
      return new InputError(where + ": " + message);
    }

    JsonNode object(JsonNode parent, String field, String note) {
      JsonNode node = parent.get(field);
      if (node == null || !node.isObject()) {
        throw fail("\"" + field + "\" must be an object" + note);
      }
      return node;
    }

    String text(JsonNode parent, String field, String name) {
      JsonNode node = parent.get(field);
      if (node == null || !node.isTextual() || node.asText().isEmpty()) {
        throw fail(name + " must be a non-empty string");
      }
      return node.asText();
    }

    /** `field` when present, else `fallback`; one of `allowed` either way. */
    String choice(JsonNode parent, String field, String name, List<String> allowed, String fallback) {
      String value = parent.has(field) ? text(parent, field, name) : fallback;
      if (!allowed.contains(value)) {
        throw fail(name + " must be one of " + String.join(", ", allowed) + (parent.has(field) ? "" : " (absent)"));
      }
      return value;
    }

    /** A number >= min (> min when !inclusive); NaN when absent and not required. */
    double number(JsonNode parent, String field, String name, double min, boolean inclusive, boolean required) {
      JsonNode node = parent.get(field);
      if (node == null && !required) {
        return Double.NaN;
      }
      if (node == null || !node.isNumber() || !Double.isFinite(node.asDouble())) {
        throw fail(name + " must be a number");
      }
      double value = node.asDouble();
      if (value < min || (!inclusive && value == min)) {
        throw fail(name + " must be " + (inclusive ? ">= " : "> ") + (long) min);
      }
      return value;
    }

    /** An integer >= min; `fallback` when absent and not required. */
    int integer(JsonNode parent, String field, String name, int min, boolean required, int fallback) {
      JsonNode node = parent.get(field);
      if (node == null && !required) {
        return fallback;
      }
      if (node == null || !node.isIntegralNumber() || !node.canConvertToInt()) {
        throw fail(name + " must be an integer");
      }
      int value = node.asInt();
      if (value < min) {
        throw fail(name + " must be an integer >= " + min);
      }
      return value;
    }
  }

  static Spec load(String file) {
    byte[] bytes = Json.readBytes(file, "--spec");
    JsonNode spec = Json.parseObject(bytes, "--spec " + file);
    Reader r = new Reader("--spec " + file);
    if (!FORMAT.equals(spec.path("format").asText(null))) {
      throw r.fail("\"format\" must be \"" + FORMAT + "\"");
    }
    // The language (the workflow's specs name it), or this driver's own name, java/<library>
    // for a further library; the rows' language column says the same.
    String language = spec.has("language") ? spec.get("language").asText(null) : Driver.LANGUAGE;
    if (!Driver.LANGUAGE.equals(language) && !Driver.NAME.equals(language)) {
      throw r.fail("\"language\" is " + spec.get("language") + ", this is the " + Driver.NAME + " driver");
    }
    String suite = spec.path("suite").asText("");
    if (!SUITES.containsKey(suite)) {
      throw r.fail("\"suite\" must be one of " + String.join(", ", new TreeSet<>(SUITES.keySet())));
    }
    boolean batched = BATCHED.contains(suite);
    JsonNode t = r.object(spec, "timing", "");
    double warmupMax = r.number(t, "warmup_max_seconds", "timing.warmup_max_seconds", 0, true, false);
    boolean steady = batched && warmupMax > 0;
    double processWarmup = r.number(t, "process_warmup_seconds", "timing.process_warmup_seconds", 0, true, false);
    Timing timing = new Timing(
        r.number(t, "warmup_seconds", "timing.warmup_seconds", 0, true, batched),
        r.number(t, "target_sample_seconds", "timing.target_sample_seconds", 0, false, batched),
        r.number(t, "max_cell_seconds", "timing.max_cell_seconds", 0, false, true),
        Double.isNaN(warmupMax) ? 0 : warmupMax,
        r.integer(t, "steady_window", "timing.steady_window", 2, steady, 0),
        r.number(t, "steady_tolerance", "timing.steady_tolerance", 0, false, steady),
        Double.isNaN(processWarmup) ? 0 : processWarmup,
        target(r, t, batched));
    Transfer transfer = null;
    if (suite.equals("transfer")) {
      JsonNode x = r.object(spec, "transfer", " (suite transfer needs it)");
      transfer = new Transfer(
          r.integer(x, "trials", "transfer.trials", 1, true, 0),
          r.integer(x, "warmup_trials", "transfer.warmup_trials", 0, true, 0),
          r.number(x, "request_timeout_seconds", "transfer.request_timeout_seconds", 0, false, true));
    }
    Percall percall = null;
    if (suite.equals("percall")) {
      JsonNode x = r.object(spec, "percall", " (suite percall needs it)");
      percall = new Percall(
          r.integer(x, "warmup_calls", "percall.warmup_calls", 0, true, 0),
          r.integer(x, "calls", "percall.calls", 1, true, 0));
    }
    JsonNode cells = spec.get("cells");
    if (cells == null || !cells.isArray() || cells.isEmpty()) {
      throw r.fail("\"cells\" must be a non-empty array");
    }
    List<Cell> parsed = new ArrayList<>(cells.size());
    for (int i = 0; i < cells.size(); i++) {
      parsed.add(cell(r, cells.get(i), i, suite));
    }
    Keygen keygen = null;
    if (suite.equals("keygen")) {
      JsonNode x = r.object(spec, "keygen", " (suite keygen needs it)");
      int iterations = r.integer(x, "iterations", "keygen.iterations", 1, true, 0);
      keygen = new Keygen(iterations,
          r.number(x, "target_cell_seconds", "keygen.target_cell_seconds", 0, true, true),
          r.integer(x, "max_iterations", "keygen.max_iterations", iterations, true, 0),
          r.number(x, "max_cell_seconds", "keygen.max_cell_seconds", 0, false, true));
    }
    return new Spec(language, suite, timing, transfer, percall, keygen, List.copyOf(parsed), pairs(r, spec, parsed.size(), "cells"));
  }

  /**
   * The stopping rule's timing keys: `samples` (1 to {@link StoppingRule#MAX_SAMPLES}; 0 when
   * absent and not required), `min_samples` (an integer >= 1), `target_ci_pct` (>= 0; 0 turns
   * the rule off), `confidence` (between 0 and 1), each with its default when absent.
   */
  static StoppingRule.Target target(Reader r, JsonNode timing, boolean required) {
    int samples = r.integer(timing, "samples", "timing.samples", 1, required, 0);
    if (samples > StoppingRule.MAX_SAMPLES) {
      throw r.fail("timing.samples must be at most " + StoppingRule.MAX_SAMPLES);
    }
    double targetCiPct = r.number(timing, "target_ci_pct", "timing.target_ci_pct", 0, true, false);
    double confidence = r.number(timing, "confidence", "timing.confidence", 0, false, false);
    if (confidence >= 1) {
      throw r.fail("timing.confidence must be below 1");
    }
    return new StoppingRule.Target(samples,
        r.integer(timing, "min_samples", "timing.min_samples", 1, false, StoppingRule.Target.DEFAULT_MIN_SAMPLES),
        Double.isNaN(targetCiPct) ? StoppingRule.Target.DEFAULT_TARGET_CI_PCT : targetCiPct,
        Double.isNaN(confidence) ? StoppingRule.Target.DEFAULT_CONFIDENCE : confidence);
  }

  /**
   * The top-level "pairs" (the stopping rule's): each [i, j], two different 0-based indexes into
   * the `count` entries of `what` ("cells"); empty when absent.
   */
  static List<StoppingRule.Pair> pairs(Reader r, JsonNode root, int count, String what) {
    JsonNode node = root.get("pairs");
    if (node == null) {
      return List.of();
    }
    if (!node.isArray()) {
      throw r.fail("\"pairs\" must be an array of [i, j] indexes into \"" + what + "\"");
    }
    List<StoppingRule.Pair> pairs = new ArrayList<>(node.size());
    for (int k = 0; k < node.size(); k++) {
      JsonNode pair = node.get(k);
      String bad = "pairs[" + k + "] must be [i, j], two different indexes into \"" + what + "\" (0 to " + (count - 1) + ")";
      if (!pair.isArray() || pair.size() != 2) {
        throw r.fail(bad);
      }
      int[] ij = new int[2];
      for (int e = 0; e < 2; e++) {
        JsonNode index = pair.get(e);
        if (!index.isIntegralNumber() || !index.canConvertToInt() || index.asInt() < 0 || index.asInt() >= count) {
          throw r.fail(bad);
        }
        ij[e] = index.asInt();
      }
      if (ij[0] == ij[1]) {
        throw r.fail(bad);
      }
      pairs.add(new StoppingRule.Pair(ij[0], ij[1]));
    }
    return List.copyOf(pairs);
  }

  private static Cell cell(Reader r, JsonNode cell, int i, String suite) {
    String at = "cells[" + i + "]";
    if (!cell.isObject()) {
      throw r.fail(at + " must be an object");
    }
    List<String> operations = SUITES.get(suite).get(0);
    List<String> kinds = SUITES.get(suite).get(1);
    String operation = r.text(cell, "operation", at + ".operation");
    if (!operations.contains(operation)) {
      throw r.fail(at + ".operation must be one of " + String.join(", ", operations) + " (suite " + suite + ")");
    }
    if (suite.equals("hash")) {
      return hashCell(r, cell, i, operation);
    }
    if (suite.equals("primitive")) {
      return primitiveCell(r, cell, i, operation);
    }
    if (suite.equals("keygen")) {
      return keygenCell(r, cell, i, operation);
    }
    if (suite.equals("harness")) {
      return harnessCell(r, cell, i, operation);
    }
    String algorithm = r.text(cell, "algorithm", at + ".algorithm");
    if (!Jws.CONTRACT_ALGORITHMS.contains(algorithm)) {
      throw r.fail(at + ".algorithm must be one of " + String.join(", ", Jws.CONTRACT_ALGORITHMS));
    }
    int keyBits = r.integer(cell, "key_bits", at + ".key_bits", 1, true, 0);
    String kind = cell.has("input_kind") ? r.text(cell, "input_kind", at + ".input_kind") : "claims";
    if (!kinds.contains(kind)) {
      throw r.fail(at + ".input_kind must be " + String.join(" or ", kinds) + " in suite " + suite);
    }
    return new Cell(i, suite, operation, algorithm, keyBits,
        r.text(cell, "private_key", at + ".private_key"), r.text(cell, "public_key", at + ".public_key"),
        r.text(cell, "input", at + ".input"), r.text(cell, "input_file", at + ".input_file"), kind, null, null);
  }

  /**
   * A suite hash cell: key_bits 0, no keys or input file; an implementation the driver knows
   * (an unknown one is an input error, not unsupported); hex-digest and generate name the
   * message's parts, digest its length; hex-digest and digest carry a known answer.
   */
  private static Cell hashCell(Reader r, JsonNode cell, int i, String operation) {
    String at = "cells[" + i + "]";
    boolean generate = operation.equals("generate");
    String algorithm = r.choice(cell, "algorithm", at + ".algorithm",
        generate ? List.of("none") : Hashing.ALGORITHMS, null);
    if (r.integer(cell, "key_bits", at + ".key_bits", 0, true, 0) != 0) {
      throw r.fail(at + ".key_bits must be 0 in suite hash");
    }
    String implementation = r.choice(cell, "implementation", at + ".implementation",
        Hashing.IMPLEMENTATIONS, Hashing.DEFAULT_IMPLEMENTATION);
    List<String> message = List.of();
    int messageBytes = 0;
    if (operation.equals("digest")) {
      messageBytes = r.integer(cell, "message_bytes", at + ".message_bytes", 0, true, 0);
    } else {
      JsonNode parts = cell.get("message");
      if (parts == null || !parts.isArray() || parts.isEmpty()) {
        throw r.fail(at + ".message must be a non-empty array of " + String.join(", ", Hashing.PARTS));
      }
      List<String> names = new ArrayList<>();
      for (JsonNode part : parts) {
        if (!part.isTextual() || !Hashing.PARTS.contains(part.asText())) {
          throw r.fail(at + ".message's parts must each be one of " + String.join(", ", Hashing.PARTS));
        }
        names.add(part.asText());
      }
      message = List.copyOf(names);
    }
    KnownAnswer known = null;
    if (!generate) {
      JsonNode answer = r.object(cell, "known_answer", " (" + at + ", operation " + operation + ")");
      JsonNode text = answer.get("message");
      if (text == null || !text.isTextual()) {
        throw r.fail(at + ".known_answer.message must be a string");
      }
      String hex = r.text(answer, "digest_hex", at + ".known_answer.digest_hex");
      if (!hex.matches("([0-9a-f]{2})+")) {
        throw r.fail(at + ".known_answer.digest_hex must be lowercase hexadecimal");
      }
      known = new KnownAnswer(text.asText(), hex);
    }
    return new Cell(i, "hash", operation, algorithm, 0, null, null, r.text(cell, "input", at + ".input"),
        null, null, new HashCell(implementation, message, messageBytes, known), null);
  }

  /** A cell's implementation: `jca` when absent; any other name is an input error. */
  private static String cryptoImplementation(Reader r, JsonNode cell, String at) {
    return r.choice(cell, "implementation", at + ".implementation", List.of(Crypto.JCA), Crypto.JCA);
  }

  /**
   * A suite primitive cell: the algorithm its operation allows, key_bits as the algorithm
   * fixes it, keys (none for digest), the message as message_bytes or as input_file with
   * input_kind bytes (exactly one of them), the known answer's hex fields for digest, mac and
   * encrypt.
   */
  private static Cell primitiveCell(Reader r, JsonNode cell, int i, String operation) {
    String at = "cells[" + i + "]";
    Map<String, Integer> algorithms = PRIMITIVE_ALGORITHMS.get(operation);
    String algorithm = r.choice(cell, "algorithm", at + ".algorithm", new ArrayList<>(new TreeSet<>(algorithms.keySet())),
        null);
    int fixed = algorithms.get(algorithm);
    boolean keyed = fixed >= 0;
    int keyBits = r.integer(cell, "key_bits", at + ".key_bits", 0, true, 0);
    if (!keyed && keyBits != 0) {
      throw r.fail(at + ".key_bits must be 0 for " + operation);
    }
    if (fixed > 0 && keyBits != fixed) {
      throw r.fail(at + ".key_bits must be " + fixed + " for " + algorithm);
    }
    if (keyed && keyBits == 0) {
      throw r.fail(at + ".key_bits must be above 0 for " + algorithm);
    }
    String implementation = cryptoImplementation(r, cell, at);
    String privateKey = keyed ? r.text(cell, "private_key", at + ".private_key") : null;
    String publicKey = keyed ? r.text(cell, "public_key", at + ".public_key") : null;
    boolean file = cell.has("input_file");
    if (file == cell.has("message_bytes")) {
      throw r.fail(at + " needs exactly one of message_bytes and input_file (with input_kind bytes)");
    }
    String inputFile = null;
    String kind = null;
    int messageBytes = -1;
    if (file) {
      inputFile = r.text(cell, "input_file", at + ".input_file");
      kind = r.choice(cell, "input_kind", at + ".input_kind", List.of("bytes"), null);
    } else {
      messageBytes = r.integer(cell, "message_bytes", at + ".message_bytes", 0, true, 0);
      if (cell.has("input_kind")) {
        throw r.fail(at + ".input_kind goes with input_file, not message_bytes");
      }
    }
    Map<String, String> known = new java.util.LinkedHashMap<>();
    List<String> fields = KNOWN_ANSWER_FIELDS.get(operation);
    if (!fields.isEmpty()) {
      JsonNode answer = r.object(cell, "known_answer", " (" + at + ", operation " + operation + ")");
      for (String field : fields) {
        JsonNode node = answer.get(field);
        // message_hex may be empty (the empty message); the others may not.
        if (node == null || !node.isTextual() || !node.asText().matches("([0-9a-f]{2})" + (field.equals("message_hex") ? "*" : "+"))) {
          throw r.fail(at + ".known_answer." + field + " must be lowercase hexadecimal (whole bytes)");
        }
        known.put(field, node.asText());
      }
      if (operation.equals("encrypt") && known.get("nonce_hex").length() != 24) {
        throw r.fail(at + ".known_answer.nonce_hex must be 12 bytes");
      }
    }
    return new Cell(i, "primitive", operation, algorithm, keyBits, privateKey, publicKey,
        r.text(cell, "input", at + ".input"), inputFile, kind, null,
        new Crypto(implementation, null, messageBytes, Map.copyOf(known)));
  }

  /**
   * A suite keygen cell: family RSA or ECDSA, an algorithm of that family, key_bits (an RSA
   * modulus of at least 1024 bits; 256, 384 or 521 for the curves), message_bytes (0 for
   * keygen), the PEM key pair of that family and size.
   */
  private static Cell keygenCell(Reader r, JsonNode cell, int i, String operation) {
    String at = "cells[" + i + "]";
    String family = r.choice(cell, "family", at + ".family", List.of("RSA", "ECDSA"), null);
    String algorithm = r.choice(cell, "algorithm", at + ".algorithm", KEYGEN_ALGORITHMS.get(family), null);
    int keyBits = r.integer(cell, "key_bits", at + ".key_bits", 1, true, 0);
    if (family.equals("RSA") && keyBits < 1024) {
      throw r.fail(at + ".key_bits must be at least 1024 for RSA");
    }
    if (family.equals("ECDSA") && !CURVE_BITS.contains(keyBits)) {
      throw r.fail(at + ".key_bits must be one of 256, 384, 521 for ECDSA (P-256, P-384, P-521)");
    }
    int messageBytes = r.integer(cell, "message_bytes", at + ".message_bytes", 0, true, 0);
    if (operation.equals(Crypto.KEYGEN) && messageBytes != 0) {
      throw r.fail(at + ".message_bytes must be 0 for keygen");
    }
    return new Cell(i, "keygen", operation, algorithm, keyBits,
        r.text(cell, "private_key", at + ".private_key"), r.text(cell, "public_key", at + ".public_key"),
        r.text(cell, "input", at + ".input"), null, null, null,
        new Crypto(cryptoImplementation(r, cell, at), family, messageBytes, Map.of()));
  }

  /** A suite harness cell: algorithm none, key_bits 0, input none; no keys, no input file. */
  private static Cell harnessCell(Reader r, JsonNode cell, int i, String operation) {
    String at = "cells[" + i + "]";
    r.choice(cell, "algorithm", at + ".algorithm", List.of("none"), null);
    if (r.integer(cell, "key_bits", at + ".key_bits", 0, true, 0) != 0) {
      throw r.fail(at + ".key_bits must be 0 in suite harness");
    }
    r.choice(cell, "input", at + ".input", List.of("none"), null);
    return new Cell(i, "harness", operation, "none", 0, null, null, "none", null, null, null, null);
  }
}
