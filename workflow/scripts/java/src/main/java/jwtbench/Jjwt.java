package jwtbench;

import io.jsonwebtoken.Claims;
import io.jsonwebtoken.ExpiredJwtException;
import io.jsonwebtoken.JwtException;
import io.jsonwebtoken.JwtParser;
import io.jsonwebtoken.JwtParserBuilder;
import io.jsonwebtoken.Jwts;
import io.jsonwebtoken.PrematureJwtException;
import io.jsonwebtoken.security.SecureDigestAlgorithm;
import java.security.Key;
import java.security.PublicKey;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * JJWT's calls (JWTBENCH_LIBRARY=jjwt, workflow/scripts/java/jjwt/): one algorithm of its
 * Jwts.SIG registry with its keys, and a JwtParser built once per key, then Jwts.builder() ...
 * compact() and parser.parseSignedClaims per call. Claims are its {@link Claims}. Every
 * signature and MAC is the JDK's JCA (EdDSA too: JDK 15+'s Ed25519); JSON is Jackson through
 * jjwt-jackson.
 */
final class Jjwt implements JwsLibrary {
  static final String NAME = "jjwt";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String version() {
    return Versions.jarVersion(Jwts.class, "io.jsonwebtoken", "jjwt-api");
  }

  @Override
  public String cryptoBackend() {
    Map<String, String> services = new LinkedHashMap<>();
    for (String alg : Jws.CONTRACT_ALGORITHMS) {
      String bits = alg.substring(2);
      services.put(alg, switch (alg.substring(0, 2)) {
        case "HS" -> "HmacSHA" + bits;
        case "RS" -> "SHA" + bits + "withRSA";
        case "PS" -> "RSASSA-PSS";
        case "ES" -> "SHA" + bits + "withECDSA";
        default -> "Ed25519";
      });
    }
    return Versions.jcaProviders(services);
  }

  /** The algorithm of JJWT's own registry (Jwts.SIG) with the contract's name; unsupported if none. */
  static SecureDigestAlgorithm<?, ?> algorithm(String alg) throws UnsupportedAlgorithm {
    SecureDigestAlgorithm<?, ?> algorithm = Jwts.SIG.get().get(alg);
    if (algorithm == null) {
      throw new UnsupportedAlgorithm(NAME + " " + Versions.implementationVersion() + " has no JWS algorithm \"" + alg
          + "\"; its Jwts.SIG registry has " + String.join(", ", new TreeSet<>(Jwts.SIG.get().keySet())));
    }
    return algorithm;
  }

  /**
   * The claims as JJWT's own Claims object (Jwts.claims().add(map).build(), once): its builder
   * takes exp, iat and nbf as the numbers given (seconds) and writes them back so. JJWT adds no
   * claim of its own.
   */
  @Override
  public Object claims(Map<String, Object> claims) {
    try {
      return Jwts.claims().add(claims).build();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(e.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  /** The Claims map (JSON-ready values: dates as epoch seconds) written with Jackson, JJWT's JSON library here. */
  @Override
  public String toJson(Object claims) {
    return Json.write(claims);
  }

  @Override
  public Object claim(Object claims, String name) {
    return ((Claims) claims).get(name);
  }

  @Override
  public int fold(Object claims) {
    return ((Claims) claims).size();
  }

  @Override
  public String noDecode() {
    return NAME + " " + Versions.implementationVersion() + " has no API that reads a JWS's claims without verifying"
        + " its signature (by design: its parser verifies every JWS it reads)";
  }

  @Override
  public Object decode(String token) {
    throw new UnsupportedOperationException(noDecode());
  }

  /**
   * JwtException, the base of everything JJWT throws on purpose about a token (MalformedJwtException,
   * UnsupportedJwtException, SignatureException and its SecurityException kin, ExpiredJwtException,
   * PrematureJwtException, its JSON and Base64 errors), and IllegalArgumentException, which its
   * parse documents for an empty or blank token. Anything else is a failure of the library.
   */
  @Override
  public boolean isInvalidToken(Throwable thrown) {
    return thrown instanceof JwtException || thrown instanceof IllegalArgumentException;
  }

  @Override
  public Jws bind(String alg, Key signingKey, Key verifyingKey) throws UnsupportedAlgorithm {
    SecureDigestAlgorithm<?, ?> algorithm = algorithm(alg);
    Key signing = signingKey == null ? null : hmacNamed(alg, signingKey);
    JwtParser parser = verifyingKey == null ? null : parser(algorithm, hmacNamed(alg, verifyingKey));
    return new Bound(algorithm, signing, parser);
  }

  /**
   * An HMAC secret as the SecretKey JJWT expects for alg (its JCA name, HmacSHA256 etc.: JJWT
   * refuses a key named otherwise); other keys as they are.
   */
  private static Key hmacNamed(String alg, Key key) {
    return Jws.isHmac(alg) ? new SecretKeySpec(key.getEncoded(), "HmacSHA" + alg.substring(2)) : key;
  }

  /**
   * The verify policy's parser (workflow/scripts/README.md), built once, every item set here:
   * sig() cleared and given exactly the pinned algorithm (a header naming any other alg is
   * refused; unsecured JWTs are refused as long as unsecured() is not called); verifyWith the
   * key; clockSkewSeconds(0), explicitly. exp and nbf are checked whenever present and no claim
   * is required (no require* call). JJWT has no iat check (driver.yaml: lacks).
   */
  private static JwtParser parser(SecureDigestAlgorithm<?, ?> algorithm, Key key) {
    JwtParserBuilder builder = Jwts.parser().clockSkewSeconds(0);
    builder.sig().clear().add(algorithm).and();
    if (key instanceof SecretKey secret) {
      builder.verifyWith(secret);
    } else {
      builder.verifyWith((PublicKey) key);
    }
    return builder.build();
  }

  /** One algorithm's signing key and parser. */
  private record Bound(SecureDigestAlgorithm<?, ?> algorithm, Key signingKey, JwtParser parser) implements Jws {
    /** Jwts.builder().claims(claims).signWith(key, alg).compact(): header {"alg": ...}. */
    @Override
    @SuppressWarnings("unchecked")
    public String sign(Object claims) {
      return Jwts.builder().claims((Claims) claims)
          .signWith(signingKey, (SecureDigestAlgorithm<Key, ?>) algorithm).compact();
    }

    /** parser.parseSignedClaims(token).getPayload(): pinned alg, signature, exp, nbf. */
    @Override
    public Claims verify(String token) {
      return parser.parseSignedClaims(token).getPayload();
    }

    /**
     * The same parser's parse(token), which verifies the JWS (pinned alg, signature) before it
     * looks at any claim: a token whose signature verifies but whose claims are expired or
     * premature (ExpiredJwtException, PrematureJwtException: thrown only after the signature
     * checked out) passes too, since only the JWS is checked here. The payload's bytes are the
     * token's second segment, base64url-decoded (JJWT hands back claims, not their bytes).
     */
    @Override
    public byte[] verifySignatureOnly(String contractAlg, String token) {
      try {
        parser.parse(token);
      } catch (ExpiredJwtException | PrematureJwtException e) {
        // the signature verified; the claims are not this mode's business
      }
      String[] parts = token.split("\\.", -1);
      return Base64.getUrlDecoder().decode(parts[1]);
    }
  }
}
