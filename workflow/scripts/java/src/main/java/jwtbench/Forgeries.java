package jwtbench;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Forged twins of a token for the checks before timing, built with the JDK alone. */
final class Forgeries {
  private static final Base64.Encoder B64URL = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64URL_DECODE = Base64.getUrlDecoder();

  private Forgeries() {}

  private static String[] parts(String token) {
    String[] parts = token.split("\\.", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException("not a compact JWS (" + parts.length + " parts)");
    }
    return parts;
  }

  private static String b64url(String text) {
    return B64URL.encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  /** The token with the lowest bit of its first signature byte flipped, re-encoded. */
  static String flippedSignatureBit(String token) {
    String[] parts = parts(token);
    byte[] signature = B64URL_DECODE.decode(parts[2]);
    signature[0] ^= 1;
    return parts[0] + "." + parts[1] + "." + B64URL.encodeToString(signature);
  }

  /** Same payload, header {"alg":"none","typ":"JWT"}, empty signature. */
  static String unsigned(String token) {
    return b64url("{\"alg\":\"none\",\"typ\":\"JWT\"}") + "." + parts(token)[1] + ".";
  }

  /**
   * A token naming another algorithm, validly MACed: for HS*, the same secret under another HS
   * algorithm (HS384 for HS256, else HS256); for every other algorithm HS256 keyed with the
   * bytes of the public-key PEM (the key-confusion attack). `verifyingKeyBytes` is the secret
   * or the PEM file's bytes.
   */
  static String otherAlgorithm(String token, String alg, byte[] verifyingKeyBytes) {
    String other = alg.equals("HS256") ? "HS384" : "HS256";
    String signingInput = b64url("{\"alg\":\"" + other + "\",\"typ\":\"JWT\"}") + "." + parts(token)[1];
    try {
      String jca = "HmacSHA" + other.substring(2);
      Mac mac = Mac.getInstance(jca);
      mac.init(new SecretKeySpec(verifyingKeyBytes, jca));
      byte[] tag = mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII));
      return signingInput + "." + B64URL.encodeToString(tag);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot HMAC: " + e.getMessage(), e);
    }
  }
}
