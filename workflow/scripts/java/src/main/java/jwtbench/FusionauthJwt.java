package jwtbench;

import com.fasterxml.jackson.databind.JsonNode;
import io.fusionauth.jwt.InvalidJWTException;
import io.fusionauth.jwt.JWTDecoder;
import io.fusionauth.jwt.JWTEncoder;
import io.fusionauth.jwt.JWTException;
import io.fusionauth.jwt.JWTUtils;
import io.fusionauth.jwt.Signer;
import io.fusionauth.jwt.Verifier;
import io.fusionauth.jwt.domain.Algorithm;
import io.fusionauth.jwt.domain.JWT;
import io.fusionauth.jwt.ec.ECSigner;
import io.fusionauth.jwt.ec.ECVerifier;
import io.fusionauth.jwt.ed.EdDSASigner;
import io.fusionauth.jwt.ed.EdDSAVerifier;
import io.fusionauth.jwt.hmac.HMACSigner;
import io.fusionauth.jwt.hmac.HMACVerifier;
import io.fusionauth.jwt.json.Mapper;
import io.fusionauth.jwt.rsa.RSAPSSSigner;
import io.fusionauth.jwt.rsa.RSAPSSVerifier;
import io.fusionauth.jwt.rsa.RSASigner;
import io.fusionauth.jwt.rsa.RSAVerifier;
import io.fusionauth.pem.domain.PEM;
import java.nio.charset.StandardCharsets;
import java.security.Key;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.crypto.SecretKey;

/**
 * fusionauth-jwt's calls, all in one place (the language's own library, the adapter when
 * JWTBENCH_LIBRARY is unset): one algorithm with its keys made into the library's Signer and
 * Verifier once, then sign, verify and decode per call. Claims are its {@link JWT}.
 */
final class FusionauthJwt implements JwsLibrary {
  static final String NAME = "fusionauth-jwt";

  private static final JWTEncoder ENCODER = JWT.getEncoder();
  /**
   * The verify policy's decoder (workflow/scripts/README.md), every item set here or by the
   * library's fixed behaviour: leeway 0 set explicitly (withClockSkew(0), the library's default
   * too); exp (JWTExpiredException) and nbf (JWTUnavailableForProcessingException) are always
   * checked when present and never required. fusionauth-jwt 6.0.0 has no iat check at all
   * (driver.yaml declares it under verify.lacks). The signature and the pinned alg are
   * {@link PinnedVerifier}'s.
   */
  private static final JWTDecoder DECODER = JWT.getDecoder().withClockSkew(0);

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String version() {
    return Versions.jarVersion(JWT.class, "io.fusionauth", NAME);
  }

  /**
   * The library's algorithm for a JWS name. fusionauth-jwt reads and writes a header's "alg" as
   * the name of its {@link Algorithm} constant, so a name with no constant is one the library
   * can neither sign nor verify: unsupported. No list of ours decides that.
   */
  static Algorithm algorithm(String alg) throws UnsupportedAlgorithm {
    if (alg.equals("EdDSA")) {
      // The contract's EdDSA is Ed25519 (RFC 8037); fusionauth-jwt has no constant "EdDSA"
      // and writes Ed25519 signatures under the fully-specified name "Ed25519" (RFC 9864).
      return Algorithm.Ed25519;
    }
    for (Algorithm candidate : Algorithm.values()) {
      if (candidate != Algorithm.none && candidate.name().equals(alg)) {
        return candidate;
      }
    }
    String known = Arrays.stream(Algorithm.values())
        .filter(a -> a != Algorithm.none)
        .map(Algorithm::name)
        .collect(Collectors.joining(", "));
    throw new UnsupportedAlgorithm("fusionauth-jwt " + Versions.implementationVersion()
        + " has no JWS algorithm \"" + alg + "\"; the header alg names it signs and verifies are "
        + known);
  }

  /**
   * The JCA provider of every algorithm fusionauth-jwt uses for the contract's algorithms, as
   * the JDK picks it: its Algorithm's JCA name (RSASSA-PSS for PS*, as RSAPSSSigner asks).
   */
  @Override
  public String cryptoBackend() {
    Map<String, String> services = new LinkedHashMap<>();
    for (String alg : Jws.CONTRACT_ALGORITHMS) {
      try {
        services.put(alg, alg.startsWith("PS") ? "RSASSA-PSS" : algorithm(alg).getName());
      } catch (UnsupportedAlgorithm e) {
        continue;
      }
    }
    return Versions.jcaProviders(services);
  }

  /** fusionauth-jwt's own PEM decoder (which hands back java.security keys from the JDK's KeyFactory). */
  @Override
  public Key pem(byte[] file, Keys.Role role, String alg, String where) {
    String text = new String(file, StandardCharsets.US_ASCII);
    PEM pem;
    try {
      pem = PEM.decode(text);
    } catch (RuntimeException e) {
      throw new InputError(where + " is not " + role.what + " (" + e.getClass().getSimpleName() + ")");
    }
    Key key = role == Keys.Role.SIGNING ? pem.privateKey : pem.publicKey;
    if (key == null) {
      throw new InputError(where + " is not " + role.what);
    }
    return key;
  }

  /**
   * {@link JWT#addClaim}, the library's ordinary API for claims, one call per claim (it maps
   * the registered names iss, sub, aud, exp, iat, nbf, jti onto their fields; exp, iat and nbf
   * become ZonedDateTime, written back as epoch seconds). Nothing is added: fusionauth-jwt puts
   * no claim of its own into a token, so claims without iat are signed without one.
   */
  @Override
  public Object claims(Map<String, Object> claims) {
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

  /** The claims as the library's own mapper writes them ({@link Mapper#serialize}). */
  @Override
  public String toJson(Object claims) {
    return new String(Mapper.serialize(claims), StandardCharsets.UTF_8);
  }

  @Override
  public Object claim(Object claims, String name) {
    return ((JWT) claims).getObject(name);
  }

  @Override
  public int fold(Object claims) {
    return ((JWT) claims).otherClaims.size();
  }

  /**
   * The claims without checking the signature: JWTUtils.decodePayload, the library's decode
   * without verification (JWTDecoder itself always verifies, and reads only alg none unsigned).
   */
  @Override
  public Object decode(String token) {
    return JWTUtils.decodePayload(token);
  }

  /**
   * A JWTException, the base of every exception fusionauth-jwt throws on purpose (malformed
   * token, header or payload its mapper cannot read into its classes, alg none or not the pinned
   * one, bad signature, exp, nbf; JWTVerifierException too: a JCA SignatureException on a
   * signature of the wrong length, wrapped by the library). Anything else (an unchecked
   * exception it does not wrap, such as its NullPointerException on a header without alg or a
   * payload `null`, or an Error) is a failure of the library (exit 4).
   */
  @Override
  public boolean isInvalidToken(Throwable thrown) {
    return thrown instanceof JWTException;
  }

  /**
   * Signer and (pinned) verifier for `alg`; either key may be null. The library's own
   * exceptions (a key of the wrong type, an RSA key under 2048 bits) pass through.
   */
  @Override
  public Jws bind(String alg, Key signingKey, Key verifyingKey) throws UnsupportedAlgorithm {
    Algorithm algorithm = algorithm(alg);
    Signer signer = signingKey == null ? null : signer(algorithm, signingKey);
    Verifier verifier = verifyingKey == null ? null
        : new PinnedVerifier(algorithm, verifier(algorithm, verifyingKey));
    return new Bound(algorithm, signer, verifier);
  }

  /** One algorithm's Signer and Verifier. */
  private record Bound(Algorithm algorithm, Signer signer, Verifier verifier) implements Jws {
    /** The compact JWS of the claims: JWTEncoder.encode, header {"alg": ..., "typ": "JWT"}. */
    @Override
    public String sign(Object claims) {
      return ENCODER.encode((JWT) claims, signer);
    }

    /**
     * JWTDecoder.decode with the pinned verifier ({@link #DECODER}: leeway 0, no claim
     * required). The payload must be a JSON object: the library's mapper reads it into its JWT
     * class.
     */
    @Override
    public JWT verify(String token) {
      return DECODER.decode(token, verifier);
    }

    /**
     * The library's Verifier alone on the signing input (no JWTDecoder, so no claims and no
     * exp). The header is read with Jackson rather than the library's Header, whose Algorithm
     * enum cannot hold RFC 8037's "EdDSA"; {@link #headerNames} says which names pin this
     * algorithm. InvalidJWTException when the token is malformed or names another algorithm
     * (none included); the Verifier's InvalidJWTSignatureException when the signature does not
     * verify.
     */
    @Override
    public byte[] verifySignatureOnly(String contractAlg, String token) {
      String[] parts = token.split("\\.", -1);
      if (parts.length != 3) {
        throw new InvalidJWTException("not a compact JWS (" + parts.length + " segments)");
      }
      Base64.Decoder base64url = Base64.getUrlDecoder();
      JsonNode named;
      try {
        named = Json.MAPPER.readTree(base64url.decode(parts[0])).get("alg");
      } catch (IllegalArgumentException | java.io.IOException e) {
        throw new InvalidJWTException("unreadable header", e);
      }
      if (named == null || !named.isTextual() || !headerNames(contractAlg).contains(named.asText())) {
        throw new InvalidJWTException("header alg " + named + " is not " + contractAlg);
      }
      byte[] signingInput = (parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII);
      byte[] payload;
      byte[] signature;
      try {
        payload = base64url.decode(parts[1]);
        signature = base64url.decode(parts[2]);
      } catch (IllegalArgumentException e) {
        throw new InvalidJWTException("a segment is not base64url", e);
      }
      verifier.verify(algorithm, signingInput, signature);
      return payload;
    }
  }

  /**
   * Header alg names that pin a contract algorithm when only the JWS is checked: its own
   * name, and for EdDSA also "Ed25519", the name this library writes for it (RFC 9864), so
   * both RFC 8037's tokens and the driver's own verify with an Ed25519 key.
   */
  static List<String> headerNames(String contractAlg) {
    return contractAlg.equals("EdDSA") ? List.of("EdDSA", "Ed25519") : List.of(contractAlg);
  }

  private static Signer signer(Algorithm algorithm, Key key) {
    return switch (algorithm) {
      case HS256 -> HMACSigner.newSHA256Signer(secret(key));
      case HS384 -> HMACSigner.newSHA384Signer(secret(key));
      case HS512 -> HMACSigner.newSHA512Signer(secret(key));
      case RS256 -> RSASigner.newSHA256Signer(privateKey(key));
      case RS384 -> RSASigner.newSHA384Signer(privateKey(key));
      case RS512 -> RSASigner.newSHA512Signer(privateKey(key));
      case PS256 -> RSAPSSSigner.newSHA256Signer(privateKey(key));
      case PS384 -> RSAPSSSigner.newSHA384Signer(privateKey(key));
      case PS512 -> RSAPSSSigner.newSHA512Signer(privateKey(key));
      case ES256 -> ECSigner.newSHA256Signer(privateKey(key));
      case ES384 -> ECSigner.newSHA384Signer(privateKey(key));
      case ES512 -> ECSigner.newSHA512Signer(privateKey(key));
      case Ed25519, Ed448 -> EdDSASigner.newSigner(privateKey(key));
      case none -> throw new IllegalArgumentException("alg none has no signer");
    };
  }

  private static Verifier verifier(Algorithm algorithm, Key key) {
    return switch (algorithm) {
      case HS256, HS384, HS512 -> HMACVerifier.newVerifier(secret(key));
      case RS256, RS384, RS512 -> RSAVerifier.newVerifier(publicKey(key));
      case PS256, PS384, PS512 -> RSAPSSVerifier.newVerifier(publicKey(key));
      case ES256, ES384, ES512 -> ECVerifier.newVerifier(publicKey(key));
      case Ed25519, Ed448 -> EdDSAVerifier.newVerifier(publicKey(key));
      case none -> throw new IllegalArgumentException("alg none has no verifier");
    };
  }

  private static byte[] secret(Key key) {
    return ((SecretKey) key).getEncoded();
  }

  private static PrivateKey privateKey(Key key) {
    return (PrivateKey) key;
  }

  private static PublicKey publicKey(Key key) {
    return (PublicKey) key;
  }

  /**
   * The algorithm pin. A fusionauth-jwt verifier accepts its whole family (HMACVerifier any
   * HS*, RSAVerifier any RS*, ECVerifier any ES*), and JWTDecoder picks the verifier by
   * asking canVerify about the header's alg; this one says yes to exactly one alg, so a token
   * naming any other (none included) finds no verifier and is rejected by the library.
   */
  private record PinnedVerifier(Algorithm pinned, Verifier delegate) implements Verifier {
    @Override
    public boolean canVerify(Algorithm algorithm) {
      return algorithm == pinned && delegate.canVerify(algorithm);
    }

    @Override
    public void verify(Algorithm algorithm, byte[] message, byte[] signature) {
      delegate.verify(algorithm, message, signature);
    }
  }
}
