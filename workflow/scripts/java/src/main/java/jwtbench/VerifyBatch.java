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
 * `verify-batch --cases FILE`, the conformance suite's entry (workflow/scripts/README.md): for
 * each case, in order, the key and token are loaded (untimed), the peak RSS is reset, one call
 * of {@link Jws#verify} (the very function `verify` uses) is timed with System.nanoTime, and
 * one JSON line goes to stdout, flushed. Every Throwable of a case is caught (a hostile token
 * may cause a StackOverflowError or an OutOfMemoryError), so every case gets its line. A case
 * with {@code "claims": true} has, when accepted, the verified claims on its line as `verify`
 * prints them ({@link Claims#toJson}, written after the timed call). A case with {@code
 * "signature_only": true} times instead the function `verify --signature-only` uses ({@link
 * Jws#verifySignatureOnly}) and has, when accepted, {@code "payload_b64url"}: the payload bytes
 * that command prints, base64url without padding ({@code "claims"} is ignored on it).
 */
final class VerifyBatch {
  private static final List<String> FIELDS = List.of("id", "alg", "key", "token");
  private static final Map<Integer, String> OUTCOMES = Map.of(
      Driver.EXIT_OK, "accept", Driver.EXIT_INVALID, "reject",
      Driver.EXIT_UNSUPPORTED, "unsupported", Driver.EXIT_ERROR, "error");

  private VerifyBatch() {}

  record Case(String id, String alg, String key, String token, boolean claims, boolean signatureOnly) {}

  static int run(String file) {
    for (Case c : cases(file)) {
      Progress.stdout(Json.write(answer(c)));
    }
    return Driver.EXIT_OK;
  }

  /** The cases of FILE; an InputError (exit 2) naming the file when it is not a cases file. */
  static List<Case> cases(String file) {
    List<Case> cases = new ArrayList<>();
    for (JsonNode c : caseObjects(file, FIELDS)) {
      cases.add(new Case(c.get("id").asText(), c.get("alg").asText(), c.get("key").asText(), c.get("token").asText(),
          c.path("claims").booleanValue(), c.path("signature_only").booleanValue()));
    }
    return cases;
  }

  /**
   * The case objects of a batch's cases file (verify-batch, sign-batch): {"cases": [...]}, each
   * case with a string for every one of `fields`; an InputError (exit 2) naming the file, and
   * the case's index, when it is not such a file.
   */
  static List<JsonNode> caseObjects(String file, List<String> fields) {
    JsonNode root = Json.parseObject(Json.readBytes(file, "--cases"), "--cases " + file);
    JsonNode list = root.get("cases");
    if (list == null || !list.isArray()) {
      throw new InputError("--cases " + file + ": no \"cases\" array");
    }
    List<JsonNode> cases = new ArrayList<>();
    for (JsonNode c : list) {
      for (String field : fields) {
        if (!c.path(field).isTextual()) {
          throw new InputError("--cases " + file + ": case " + cases.size() + " has no string \"" + field + "\"");
        }
      }
      cases.add(c);
    }
    return cases;
  }

  /** One case's line: its exit status and outcome, the timed call's ns, the peak RSS, why. */
  static Map<String, Object> answer(Case c) {
    if (!Jws.CONTRACT_ALGORITHMS.contains(c.alg())) {
      return line(c, Driver.EXIT_UNSUPPORTED, 0, "UnsupportedAlgorithm: \"" + c.alg() + "\" is not a JWS algorithm name of the contract");
    }
    Jws jws;
    String token;
    try {
      Key key = Keys.load(c.alg(), Keys.Role.VERIFYING, c.key(), "key");
      jws = Jws.of(c.alg(), null, key);
      token = Driver.token(c.token(), "token");
    } catch (UnsupportedAlgorithm e) {
      return line(c, Driver.EXIT_UNSUPPORTED, 0, Driver.reason(e));
    } catch (Throwable e) { // InputError names the file and its problem, never its content
      return line(c, Driver.EXIT_ERROR, 0, "cannot load the case's key or token: " + Driver.reason(e));
    }
    if (c.signatureOnly()) {
      return signatureOnly(c, jws, token);
    }
    resetPeakRss();
    Throwable thrown = null;
    Object claims = null;
    long start = System.nanoTime();
    try {
      claims = jws.verify(token);
    } catch (Throwable e) {
      thrown = e;
    }
    long elapsed = System.nanoTime() - start;
    if (thrown == null) {
      Map<String, Object> line = line(c, Driver.EXIT_OK, elapsed, "");
      if (c.claims()) {
        try { // the very JSON `verify` prints, embedded unchanged (numbers keep their digits)
          line.put("claims", new RawValue(Claims.toJson(claims)));
        } catch (Throwable e) {
          return line(c, Driver.EXIT_ERROR, elapsed, "cannot write the verified claims: " + Driver.reason(e));
        }
      }
      return line;
    }
    return line(c, Jws.isInvalidToken(thrown) ? Driver.EXIT_INVALID : Driver.EXIT_ERROR, elapsed, Driver.reason(thrown));
  }

  /**
   * A signature_only case: one timed {@link Jws#verifySignatureOnly}, judged as `verify
   * --signature-only` judges it (a RuntimeException is the verdict invalid; any other Throwable
   * an error); accepted, the payload bytes it returned, base64url without padding.
   */
  private static Map<String, Object> signatureOnly(Case c, Jws jws, String token) {
    resetPeakRss();
    Throwable thrown = null;
    byte[] payload = null;
    long start = System.nanoTime();
    try {
      payload = jws.verifySignatureOnly(c.alg(), token);
    } catch (Throwable e) {
      thrown = e;
    }
    long elapsed = System.nanoTime() - start;
    if (thrown == null) {
      Map<String, Object> line = line(c, Driver.EXIT_OK, elapsed, "");
      line.put("payload_b64url", Base64.getUrlEncoder().withoutPadding().encodeToString(payload));
      return line;
    }
    return line(c, thrown instanceof RuntimeException ? Driver.EXIT_INVALID : Driver.EXIT_ERROR, elapsed,
        Driver.reason(thrown));
  }

  private static Map<String, Object> line(Case c, int exit, long elapsedNs, String reason) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("id", c.id());
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
