package jwtbench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A bench spec (README "bench --spec FILE --out FILE"), checked against the contract; every
 * problem is an {@link InputError} naming the spec file and the field.
 */
record Spec(String suite, Timing timing, Transfer transfer, List<Cell> cells) {
  static final String FORMAT = "jwtbench-spec/1";

  /** suite -> [operations its cells may name, input kinds they may take]. */
  private static final Map<String, List<List<String>>> SUITES = Map.of(
      "jwt", List.of(List.of("sign", "verify", "decode"), List.of("claims", "records")),
      "tokensize", List.of(List.of("sign"), List.of("records")),
      "transfer", List.of(List.of("request-response"), List.of("claims")));

  /** Suite jwt needs every field; tokensize and transfer only maxCellSeconds (NaN/0 when absent). */
  record Timing(double warmupSeconds, int samples, double targetSampleSeconds, double maxCellSeconds) {
    long maxCellNs() {
      return Math.round(maxCellSeconds * 1e9);
    }
  }

  record Transfer(int trials, int warmupTrials, double requestTimeoutSeconds) {}

  record Cell(int index, String suite, String operation, String algorithm, int keyBits,
      String privateKey, String publicKey, String input, String inputFile, String inputKind) {
    boolean records() {
      return inputKind.equals("records");
    }

    /** "RS256-2048" for RSA, else the algorithm, as the variants are named. */
    String variant() {
      return algorithm.startsWith("RS") || algorithm.startsWith("PS") ? algorithm + "-" + keyBits : algorithm;
    }
  }

  private static final class Reader {
    final String where;

    Reader(String file) {
      this.where = "--spec " + file;
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
    Reader r = new Reader(file);
    if (!FORMAT.equals(spec.path("format").asText(null))) {
      throw r.fail("\"format\" must be \"" + FORMAT + "\"");
    }
    if (spec.has("language") && !Driver.LANGUAGE.equals(spec.get("language").asText(null))) {
      throw r.fail("\"language\" is " + spec.get("language") + ", this is the " + Driver.LANGUAGE + " driver");
    }
    String suite = spec.path("suite").asText("");
    if (!SUITES.containsKey(suite)) {
      throw r.fail("\"suite\" must be one of jwt, tokensize, transfer");
    }
    boolean jwt = suite.equals("jwt");
    JsonNode t = r.object(spec, "timing", "");
    Timing timing = new Timing(
        r.number(t, "warmup_seconds", "timing.warmup_seconds", 0, true, jwt),
        r.integer(t, "samples", "timing.samples", 1, jwt, 0),
        r.number(t, "target_sample_seconds", "timing.target_sample_seconds", 0, false, jwt),
        r.number(t, "max_cell_seconds", "timing.max_cell_seconds", 0, false, true));
    Transfer transfer = null;
    if (suite.equals("transfer")) {
      JsonNode x = r.object(spec, "transfer", " (suite transfer needs it)");
      transfer = new Transfer(
          r.integer(x, "trials", "transfer.trials", 1, true, 0),
          r.integer(x, "warmup_trials", "transfer.warmup_trials", 0, true, 0),
          r.number(x, "request_timeout_seconds", "transfer.request_timeout_seconds", 0, false, true));
    }
    JsonNode cells = spec.get("cells");
    if (cells == null || !cells.isArray() || cells.isEmpty()) {
      throw r.fail("\"cells\" must be a non-empty array");
    }
    List<Cell> parsed = new ArrayList<>(cells.size());
    for (int i = 0; i < cells.size(); i++) {
      parsed.add(cell(r, cells.get(i), i, suite));
    }
    return new Spec(suite, timing, transfer, List.copyOf(parsed));
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
        r.text(cell, "input", at + ".input"), r.text(cell, "input_file", at + ".input_file"), kind);
  }
}
