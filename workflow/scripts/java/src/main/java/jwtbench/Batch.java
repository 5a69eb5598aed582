package jwtbench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.util.RawValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * `verify-batch` and `sign-batch` (workflow/scripts/README.md). Every Throwable of a case is
 * caught (a hostile token may cause a StackOverflowError), so every case gets its line.
 */
final class Batch {
  private static final Map<Integer, String> OUTCOMES = Map.of(
      Driver.EXIT_OK, "accept", Driver.EXIT_INVALID, "reject",
      Driver.EXIT_UNSUPPORTED, "unsupported", Driver.EXIT_ERROR, "error");

  private Batch() {}

  static int verify(String file) {
    cases(file, "token").forEach(c -> Progress.stdout(Json.write(verify(c))));
    return Driver.EXIT_OK;
  }

  static int sign(String file) {
    cases(file, "payload").forEach(c -> Progress.stdout(Json.write(sign(c))));
    return Driver.EXIT_OK;
  }

  /** The cases of a cases file, each with a string id, alg, key and `input`; else an InputError (exit 2). */
  private static List<JsonNode> cases(String file, String input) {
    JsonNode list = Json.parseObject(Json.readBytes(file, "--cases"), "--cases " + file).get("cases");
    if (list == null || !list.isArray()) {
      throw new InputError("--cases " + file + ": no \"cases\" array");
    }
    List<JsonNode> cases = new ArrayList<>();
    for (JsonNode c : list) {
      for (String field : List.of("id", "alg", "key", input)) {
        if (!c.path(field).isTextual()) {
          throw new InputError("--cases " + file + ": case " + cases.size() + " has no string \"" + field + "\"");
        }
      }
      cases.add(c);
    }
    return cases;
  }

  private static String notContract(String alg) {
    return Jws.CONTRACT_ALGORITHMS.contains(alg) ? null
        : "UnsupportedAlgorithm: \"" + alg + "\" is not a JWS algorithm name of the contract";
  }

  /** One sign-batch case: what `sign` does, exit what `sign` would exit with. */
  private static Map<String, Object> sign(JsonNode c) {
    String alg = c.get("alg").asText();
    if (notContract(alg) != null) {
      return signLine(c, Driver.EXIT_UNSUPPORTED, "", notContract(alg));
    }
    Jws jws;
    Object claims;
    try { // in `sign`'s order: the key, the payload, the library bound to the key
      Key key = Keys.load(alg, Keys.Role.SIGNING, c.get("key").asText(), "key");
      claims = Driver.payload(c.get("payload").asText(), "payload");
      jws = Jws.of(alg, key, null);
    } catch (UnsupportedAlgorithm e) {
      return signLine(c, Driver.EXIT_UNSUPPORTED, "", Driver.reason(e));
    } catch (Throwable e) { // InputError names the file and its problem, never its content
      return signLine(c, Driver.EXIT_ERROR, "", "cannot load the case's key or payload: " + Driver.reason(e));
    }
    try {
      return signLine(c, Driver.EXIT_OK, jws.sign(claims), "");
    } catch (Throwable e) {
      return signLine(c, Driver.EXIT_ERROR, "", Driver.reason(e));
    }
  }

  private static Map<String, Object> signLine(JsonNode c, int exit, String token, String reason) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("id", c.get("id").asText());
    line.put("exit", exit);
    line.put("token", token);
    line.put("reason", reason);
    return line;
  }

  /** One verify-batch case; signature_only is judged as `verify --signature-only` (a RuntimeException is invalid). */
  private static Map<String, Object> verify(JsonNode c) {
    String alg = c.get("alg").asText();
    if (notContract(alg) != null) {
      return verifyLine(c, Driver.EXIT_UNSUPPORTED, 0, notContract(alg));
    }
    Jws jws;
    String token;
    try {
      Key key = Keys.load(alg, Keys.Role.VERIFYING, c.get("key").asText(), "key");
      jws = Jws.of(alg, null, key);
      token = Driver.token(c.get("token").asText(), "token");
    } catch (UnsupportedAlgorithm e) {
      return verifyLine(c, Driver.EXIT_UNSUPPORTED, 0, Driver.reason(e));
    } catch (Throwable e) { // InputError names the file and its problem, never its content
      return verifyLine(c, Driver.EXIT_ERROR, 0, "cannot load the case's key or token: " + Driver.reason(e));
    }
    boolean signatureOnly = c.path("signature_only").booleanValue();
    resetPeakRss();
    Throwable thrown = null;
    Object result = null;
    long start = System.nanoTime();
    try {
      result = signatureOnly ? jws.verifySignatureOnly(alg, token) : jws.verify(token);
    } catch (Throwable e) {
      thrown = e;
    }
    long elapsed = System.nanoTime() - start;
    if (thrown != null) {
      boolean invalid = signatureOnly ? thrown instanceof RuntimeException : JwsLibrary.current().isInvalidToken(thrown);
      return verifyLine(c, invalid ? Driver.EXIT_INVALID : Driver.EXIT_ERROR, elapsed, Driver.reason(thrown));
    }
    Map<String, Object> line = verifyLine(c, Driver.EXIT_OK, elapsed, "");
    if (signatureOnly) {
      line.put("payload_b64url", Base64.getUrlEncoder().withoutPadding().encodeToString((byte[]) result));
    } else if (c.path("claims").booleanValue()) {
      try { // the very JSON `verify` prints, embedded unchanged (numbers keep their digits)
        line.put("claims", new RawValue(JwsLibrary.current().toJson(result)));
      } catch (Throwable e) {
        return verifyLine(c, Driver.EXIT_ERROR, elapsed, "cannot write the verified claims: " + Driver.reason(e));
      }
    }
    return line;
  }

  private static Map<String, Object> verifyLine(JsonNode c, int exit, long elapsedNs, String reason) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("id", c.get("id").asText());
    line.put("exit", exit);
    line.put("outcome", OUTCOMES.get(exit));
    line.put("elapsed_ns", elapsedNs);
    line.put("peak_rss_kb", peakRssKb());
    line.put("reason", reason);
    return line;
  }

  /** Resets the process's peak RSS (VmHWM); where /proc/self/clear_refs cannot be written, nothing. */
  private static void resetPeakRss() {
    try {
      Files.writeString(Path.of("/proc/self/clear_refs"), "5");
    } catch (Exception e) { // best effort, as the contract says
    }
  }

  /** VmHWM of /proc/self/status in kB; 0 where it cannot be read. */
  private static long peakRssKb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
        }
      }
    } catch (Exception e) { // unreadable: 0
    }
    return 0;
  }
}
