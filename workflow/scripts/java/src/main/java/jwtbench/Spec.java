package jwtbench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A spec (workflow/scripts/README.md), read as far as the worker needs it: the conductor's Python
 * validates it. A missing or mistyped field the worker reads is an {@link InputError} naming it.
 */
record Spec(String suite, double targetSampleSeconds, double requestTimeoutSeconds,
    CrosscheckCpus.Split cpus, boolean crosscheck, String scratch, List<Cell> cells) {
  static final String FORMAT = "jwtbench-spec/1";
  private static final List<String> SUITES =
      List.of("jwt", "tokensize", "transfer", "hash", "percall", "primitive", "keygen", "harness");

  /** Suites primitive and keygen: the key family (keygen), the message's length (-1: input_file's bytes), the known answer's hex fields. */
  record Crypto(String family, int messageBytes, Map<String, String> knownAnswer) {
    static final String KEYGEN_SIGN_VERIFY = "keygen+sign+verify";
    static final String KEYGEN = "keygen";

    /** A keygen cell timed one iteration (one new key pair) per call. */
    static boolean perIteration(String operation) {
      return operation.equals(KEYGEN_SIGN_VERIFY) || operation.equals(KEYGEN);
    }
  }

  /** Suite hash: the implementation, the message's parts or its length, the known answer (null for generate). */
  record HashCell(String implementation, List<String> message, int messageBytes, KnownAnswer knownAnswer) {}

  record KnownAnswer(String message, String digestHex) {}

  /** One cell; `hash` is set in suite hash, `crypto` in suites primitive and keygen. */
  record Cell(int index, String suite, String operation, String algorithm, int keyBits,
      String privateKey, String publicKey, String input, String inputFile, String inputKind, HashCell hash,
      Crypto crypto) {
    boolean records() {
      return "records".equals(inputKind);
    }

    /** "RS256-2048", "SHA-256 jca case1-uuid", "ECDSA-SHA256-256 msg-10": for stderr. */
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
  record Reader(String where) {
    InputError fail(String message) {
      return new InputError(where + ": " + message);
    }

    JsonNode object(JsonNode parent, String field) {
      JsonNode node = parent.get(field);
      if (node == null || !node.isObject()) {
        throw fail("\"" + field + "\" must be an object");
      }
      return node;
    }

    /** A non-empty string; `fallback` when absent, unless that is null. */
    String text(JsonNode parent, String field, String name, String fallback) {
      JsonNode node = parent.get(field);
      if (node == null && fallback != null) {
        return fallback;
      }
      if (node == null || !node.isTextual() || node.asText().isEmpty()) {
        throw fail(name + " must be a non-empty string");
      }
      return node.asText();
    }

    String text(JsonNode parent, String field, String name) {
      return text(parent, field, name, null);
    }

    /** One of `allowed`, else an input error (the worker would do something else with it). */
    String choice(JsonNode parent, String field, String name, List<String> allowed, String fallback) {
      String value = text(parent, field, name, fallback);
      if (!allowed.contains(value)) {
        throw fail(name + " must be one of " + String.join(", ", allowed));
      }
      return value;
    }

    double number(JsonNode parent, String field, String name) {
      JsonNode node = parent.get(field);
      if (node == null || !node.isNumber() || !(node.asDouble() > 0)) {
        throw fail(name + " must be a number above 0");
      }
      return node.asDouble();
    }

    /** An integer >= 0; `fallback` when absent. */
    int integer(JsonNode parent, String field, String name, int fallback) {
      JsonNode node = parent.get(field);
      if (node == null) {
        return fallback;
      }
      if (!node.isIntegralNumber() || !node.canConvertToInt() || node.asInt() < 0) {
        throw fail(name + " must be an integer >= 0");
      }
      return node.asInt();
    }
  }

  static Spec load(String file) {
    JsonNode spec = Json.parseObject(Json.readBytes(file, "--spec"), "--spec " + file);
    Reader r = new Reader("--spec " + file);
    if (!FORMAT.equals(spec.path("format").asText(null))) {
      throw r.fail("\"format\" must be \"" + FORMAT + "\"");
    }
    String suite = r.choice(spec, "suite", "\"suite\"", SUITES, null);
    JsonNode crosscheck = spec.get("crosscheck");
    JsonNode cells = spec.get("cells");
    if (cells == null || !cells.isArray() || cells.isEmpty()) {
      throw r.fail("\"cells\" must be a non-empty array");
    }
    List<Cell> parsed = new ArrayList<>(cells.size());
    for (int i = 0; i < cells.size(); i++) {
      parsed.add(cell(r, cells.get(i), i, suite));
    }
    return new Spec(suite,
        crosscheck != null ? r.number(r.object(spec, "timing"), "target_sample_seconds", "timing.target_sample_seconds") : 0,
        suite.equals("transfer") ? r.number(r.object(spec, "transfer"), "request_timeout_seconds",
            "transfer.request_timeout_seconds") : 0,
        crosscheck != null ? CrosscheckCpus.Split.of(r.object(spec, "crosscheck"), r) : null, crosscheck != null,
        // The directory a cross-check's worker may write (JMH's files), where its /tmp is read-only.
        crosscheck != null && crosscheck.has("scratch") ? r.text(crosscheck, "scratch", "crosscheck.scratch") : null,
        List.copyOf(parsed));
  }

  private static Cell cell(Reader r, JsonNode cell, int i, String suite) {
    String at = "cells[" + i + "]";
    if (!cell.isObject()) {
      throw r.fail(at + " must be an object");
    }
    String operation = r.text(cell, "operation", at + ".operation");
    String algorithm = r.text(cell, "algorithm", at + ".algorithm");
    int keyBits = r.integer(cell, "key_bits", at + ".key_bits", 0);
    String input = r.text(cell, "input", at + ".input");
    String kind = cell.has("input_kind") ? r.text(cell, "input_kind", at + ".input_kind") : null;
    String inputFile = cell.has("input_file") ? r.text(cell, "input_file", at + ".input_file") : null;
    boolean keyed = cell.has("private_key") || !List.of("hash", "harness", "primitive").contains(suite);
    String privateKey = keyed ? r.text(cell, "private_key", at + ".private_key") : null;
    String publicKey = keyed ? r.text(cell, "public_key", at + ".public_key") : null;
    switch (suite) {
      case "hash" -> {
        return new Cell(i, suite, operation, algorithm, 0, null, null, input, null, null, hashCell(r, cell, at), null);
      }
      case "primitive", "keygen" -> {
        Map<String, String> known = new LinkedHashMap<>();
        cell.path("known_answer").fields().forEachRemaining(e -> known.put(e.getKey(), e.getValue().asText()));
        return new Cell(i, suite, operation, algorithm, keyBits, privateKey, publicKey, input, inputFile, kind, null,
            new Crypto(suite.equals("keygen") ? r.choice(cell, "family", at + ".family", List.of("RSA", "ECDSA"), null)
                : null, r.integer(cell, "message_bytes", at + ".message_bytes", -1), Map.copyOf(known)));
      }
      case "harness" -> {
        return new Cell(i, suite, operation, "none", 0, null, null, "none", null, null, null, null);
      }
      default -> {
        return new Cell(i, suite, operation, algorithm, keyBits, privateKey, publicKey, input,
            r.text(cell, "input_file", at + ".input_file"), kind == null ? "claims" : kind, null, null);
      }
    }
  }

  /** A suite hash cell: its implementation, parts or length, known answer. */
  private static HashCell hashCell(Reader r, JsonNode cell, String at) {
    String implementation = r.choice(cell, "implementation", at + ".implementation",
        Hashing.IMPLEMENTATIONS, Hashing.COMMONS_CODEC);
    List<String> parts = new ArrayList<>();
    for (JsonNode part : cell.path("message")) {
      if (!Hashing.PARTS.contains(part.asText())) {
        throw r.fail(at + ".message's parts must each be one of " + String.join(", ", Hashing.PARTS));
      }
      parts.add(part.asText());
    }
    JsonNode known = cell.get("known_answer");
    return new HashCell(implementation, List.copyOf(parts), r.integer(cell, "message_bytes", at + ".message_bytes", 0),
        known == null ? null : new KnownAnswer(known.path("message").asText(),
            r.text(known, "digest_hex", at + ".known_answer.digest_hex")));
  }
}
