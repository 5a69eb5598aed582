package jwtbench;

import com.fasterxml.jackson.databind.JsonNode;
import java.security.Key;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * `sign-batch --cases FILE`, the verification gate's signing (workflow/scripts/README.md): for
 * each case, in order, in one process, exactly what `sign --alg ALG --key KEY --payload PAYLOAD`
 * does (the same key loading, payload parsing and library call, {@link Driver#payload}, {@link
 * Keys#load}, {@link Jws#sign}), and one JSON line to stdout, flushed: {@code {"id", "exit",
 * "token", "reason"}}. `exit` is what `sign` would exit with: 0 signed, 3 the library lacks the
 * algorithm, 4 anything else that went wrong for this case (a key or payload file that cannot
 * be read or used, the library throwing). Every Throwable of a case is caught, as in {@link
 * VerifyBatch}, so every case gets its line; the cases file itself is read as verify-batch's.
 */
final class SignBatch {
  private static final List<String> FIELDS = List.of("id", "alg", "key", "payload");

  private SignBatch() {}

  record Case(String id, String alg, String key, String payload) {}

  static int run(String file) {
    for (Case c : cases(file)) {
      Progress.stdout(Json.write(answer(c)));
    }
    return Driver.EXIT_OK;
  }

  /** The cases of FILE; an InputError (exit 2) naming the file when it is not a cases file. */
  static List<Case> cases(String file) {
    List<Case> cases = new ArrayList<>();
    for (JsonNode c : VerifyBatch.caseObjects(file, FIELDS)) {
      cases.add(new Case(c.get("id").asText(), c.get("alg").asText(), c.get("key").asText(), c.get("payload").asText()));
    }
    return cases;
  }

  /** One case's line: `sign`'s exit status, the compact JWS when signed, else why not. */
  static Map<String, Object> answer(Case c) {
    if (!Jws.CONTRACT_ALGORITHMS.contains(c.alg())) {
      return line(c, Driver.EXIT_UNSUPPORTED, "", "UnsupportedAlgorithm: \"" + c.alg() + "\" is not a JWS algorithm name of the contract");
    }
    Jws jws;
    Object claims;
    try { // in `sign`'s order: the key, the payload, the library bound to the key
      Key key = Keys.load(c.alg(), Keys.Role.SIGNING, c.key(), "key");
      claims = Driver.payload(c.payload(), "payload");
      jws = Jws.of(c.alg(), key, null);
    } catch (UnsupportedAlgorithm e) {
      return line(c, Driver.EXIT_UNSUPPORTED, "", Driver.reason(e));
    } catch (Throwable e) { // InputError names the file and its problem, never its content
      return line(c, Driver.EXIT_ERROR, "", "cannot load the case's key or payload: " + Driver.reason(e));
    }
    try {
      return line(c, Driver.EXIT_OK, jws.sign(claims), "");
    } catch (Throwable e) { // the library failed: `sign` would end with one line on stderr
      return line(c, Driver.EXIT_ERROR, "", Driver.reason(e));
    }
  }

  private static Map<String, Object> line(Case c, int exit, String token, String reason) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("id", c.id());
    line.put("exit", exit);
    line.put("token", token);
    line.put("reason", reason);
    return line;
  }
}
