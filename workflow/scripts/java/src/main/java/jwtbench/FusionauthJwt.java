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
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.crypto.SecretKey;

/** fusionauth-jwt's calls (the language's own library): Signer and Verifier made once, claims its {@link JWT}. */
final class FusionauthJwt implements JwsLibrary {
  static final String NAME = "fusionauth-jwt";

  private static final JWTEncoder ENCODER = JWT.getEncoder();
  /** The verify policy's decoder (README.md): leeway 0 explicitly; exp and nbf checked when present; no iat check. */
  private static final JWTDecoder DECODER = JWT.getDecoder().withClockSkew(0);

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String version() {
    return Versions.jarVersion(JWT.class, "io.fusionauth", NAME);
  }

  /** The library's algorithm: a header's alg is its {@link Algorithm} constant's name, so a name without one is unsupported. */
  static Algorithm algorithm(String alg) throws UnsupportedAlgorithm {
    if (alg.equals("EdDSA")) {
      // fusionauth-jwt has no "EdDSA": it writes Ed25519 under the fully-specified "Ed25519" (RFC 9864).
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
    throw new UnsupportedAlgorithm("fusionauth-jwt " + JwsLibrary.current().version()
        + " has no JWS algorithm \"" + alg + "\"; the header alg names it signs and verifies are "
        + known);
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

  /** {@link JWT#addClaim} per claim, the library's ordinary API (exp, iat, nbf become ZonedDateTime); nothing added. */
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

  /** JWTUtils.decodePayload: the library's decode without verification (JWTDecoder always verifies). */
  @Override
  public Object decode(String token) {
    return JWTUtils.decodePayload(token);
  }

  /**
   * JWTException, the base of everything fusionauth-jwt throws on purpose; anything else (its
   * NullPointerException on a header without alg or a payload `null`) is its failure.
   */
  @Override
  public boolean isInvalidToken(Throwable thrown) {
    return thrown instanceof JWTException;
  }

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

    /** JWTDecoder.decode with the pinned verifier; the payload must be a JSON object (the library's JWT). */
    @Override
    public JWT verify(String token) {
      return DECODER.decode(token, verifier);
    }

    /**
     * The library's Verifier alone on the signing input. The header is read with Jackson: the
     * library's Header cannot hold RFC 8037's "EdDSA" ({@link #headerNames}).
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

  /** Header alg names that pin a contract algorithm in --signature-only: for EdDSA also this library's "Ed25519". */
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
   * The algorithm pin: the library's verifiers accept their whole family (HMACVerifier any HS*),
   * and JWTDecoder asks canVerify about the header's alg; this one says yes to exactly one.
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
