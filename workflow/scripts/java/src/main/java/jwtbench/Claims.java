package jwtbench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Map;

/**
 * Claims between Java's objects and the library's claims object ({@link JwsLibrary}).
 *
 * <p>Into the library: {@link JwsLibrary#claims}, its ordinary API for claims (fusionauth-jwt:
 * JWT.addClaim per claim). Out of it: the claims as the library writes them ({@link
 * JwsLibrary#toJson}), which is what `verify` prints and what the checks compare with the
 * input, as JSON trees.
 */
final class Claims {
  private Claims() {}

  /** IllegalArgumentException when the library refuses a claim (say, exp that is not a number). */
  static Object toLibrary(Map<String, Object> claims) {
    return JwsLibrary.current().claims(claims);
  }

  static String toJson(Object claims) {
    return JwsLibrary.current().toJson(claims);
  }

  static JsonNode tree(Object claims) {
    try {
      return Json.MAPPER.readTree(toJson(claims));
    } catch (IOException e) {
      throw new IllegalStateException(JwsLibrary.current().name() + " wrote claims that are not JSON", e);
    }
  }

  /** Whether the library's claims are exactly `expected` (a JSON object, key order aside). */
  static boolean same(Object claims, JsonNode expected) {
    return tree(claims).equals(expected);
  }
}
