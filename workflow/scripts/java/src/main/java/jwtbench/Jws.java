package jwtbench;

import java.security.Key;
import java.util.List;

/**
 * One algorithm of the process's JWS library ({@link JwsLibrary#current}) bound to its keys
 * once; either key may be null (the CLI's sign has no verifying key, its verify no signing key).
 */
interface Jws {
  /** The JWS algorithm names of the driver contract (workflow/scripts/README.md). */
  List<String> CONTRACT_ALGORITHMS = List.of(
      "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
      "ES256", "ES384", "ES512", "EdDSA");

  static boolean isHmac(String alg) {
    return alg.startsWith("HS");
  }

  /** The JCA service the JDK's providers compute a contract algorithm with (RSASSA-PSS for PS*). */
  static String jcaName(String alg) {
    String bits = alg.substring(2);
    return switch (alg.substring(0, 2)) {
      case "HS" -> "HmacSHA" + bits;
      case "RS" -> "SHA" + bits + "withRSA";
      case "PS" -> "RSASSA-PSS";
      case "ES" -> "SHA" + bits + "withECDSA";
      default -> "Ed25519";
    };
  }

  /** The current library's signer and (pinned) verifier for `alg`; either key may be null. */
  static Jws of(String alg, Key signingKey, Key verifyingKey) throws UnsupportedAlgorithm {
    return JwsLibrary.current().bind(alg, signingKey, verifyingKey);
  }

  /** The compact JWS of the library's claims object, signed as its ordinary API does. */
  String sign(Object claims);

  /** The one verify of the driver: the claims, else the library throws ({@link JwsLibrary#isInvalidToken} judges it). */
  Object verify(String token);

  /** `verify --signature-only` through the library's JWS layer: the payload bytes, else a RuntimeException. */
  byte[] verifySignatureOnly(String contractAlg, String token);
}
