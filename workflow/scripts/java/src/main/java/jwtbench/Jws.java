package jwtbench;

import java.security.Key;
import java.util.List;

/**
 * One algorithm of the process's JWS library ({@link JwsLibrary#current}) bound to its keys
 * once: {@link #sign}, {@link #verify} and {@link #verifySignatureOnly} per call. Either key may
 * be null (the CLI's sign has no verifying key, its verify no signing key). The static members
 * are what the harness asks of the library without a key.
 */
interface Jws {
  /** The JWS algorithm names of the driver contract (workflow/scripts/README.md). */
  List<String> CONTRACT_ALGORITHMS = List.of(
      "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
      "ES256", "ES384", "ES512", "EdDSA");

  static boolean isHmac(String alg) {
    return alg.startsWith("HS");
  }

  /** The current library's signer and (pinned) verifier for `alg`; either key may be null. */
  static Jws of(String alg, Key signingKey, Key verifyingKey) throws UnsupportedAlgorithm {
    return JwsLibrary.current().bind(alg, signingKey, verifyingKey);
  }

  /** The claims without checking the signature (the library's decode). */
  static Object decode(String token) {
    return JwsLibrary.current().decode(token);
  }

  /** Whether something {@link #verify} threw is the library's verdict on the token (exit 1). */
  static boolean isInvalidToken(Throwable thrown) {
    return JwsLibrary.current().isInvalidToken(thrown);
  }

  /** The compact JWS of the library's claims object, signed as its ordinary API does. */
  String sign(Object claims);

  /**
   * The one verify of the driver (the CLI's verify, every timed verify cell, the checks, suites
   * transfer and percall, verify-batch): the claims of a token whose header names the pinned
   * algorithm, whose signature verifies with the key and whose claims pass the verify policy
   * (workflow/scripts/README.md), as far as the library checks it (driver.yaml's verify).
   * Otherwise the library throws; {@link #isInvalidToken} tells its verdicts from its failures.
   */
  Object verify(String token);

  /**
   * `verify --signature-only`: the payload bytes of a compact JWS whose header names this
   * algorithm (contract name `contractAlg`) and whose signature over the signing input verifies,
   * through the library's own JWS layer: no claims parsed, no exp checked. Throws a
   * RuntimeException when the token is not such a JWS.
   */
  byte[] verifySignatureOnly(String contractAlg, String token);
}
