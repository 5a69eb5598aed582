package jwtbench;

import com.fasterxml.jackson.databind.JsonNode;
import io.fusionauth.jwt.domain.JWT;
import io.fusionauth.jwt.json.Mapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Claims between Java's objects and fusionauth-jwt's {@link JWT}.
 *
 * <p>Into the library: {@link JWT#addClaim}, its ordinary API for claims, one call per claim
 * (it maps the registered names iss, sub, aud, exp, iat, nbf, jti onto their fields; exp, iat
 * and nbf become ZonedDateTime, written back as epoch seconds). Nothing is added: fusionauth-jwt
 * puts no claim of its own into a token, so claims without iat are signed without one.
 *
 * <p>Out of it: the claims as the library's own mapper writes them ({@link Mapper#serialize}),
 * which is what `verify` prints and what the checks compare with the input, as JSON trees.
 */
final class Claims {
  private Claims() {}

  /** IllegalArgumentException when the library refuses a claim (say, exp that is not a number). */
  static JWT toJwt(Map<String, Object> claims) {
    JWT jwt = new JWT();
    for (Map.Entry<String, Object> claim : claims.entrySet()) {
      try {
        jwt.addClaim(claim.getKey(), claim.getValue());
      } catch (ClassCastException | IllegalArgumentException e) {
        throw new IllegalArgumentException("claim \"" + claim.getKey() + "\": " + e.getMessage(), e);
      }
    }
    return jwt;
  }

  static String toJson(JWT jwt) {
    return new String(Mapper.serialize(jwt), StandardCharsets.UTF_8);
  }

  static JsonNode tree(JWT jwt) {
    try {
      return Json.MAPPER.readTree(Mapper.serialize(jwt));
    } catch (IOException e) {
      throw new IllegalStateException("fusionauth-jwt wrote claims that are not JSON", e);
    }
  }

  /** Whether the library's claims are exactly `expected` (a JSON object, key order aside). */
  static boolean same(JWT jwt, JsonNode expected) {
    return tree(jwt).equals(expected);
  }
}
