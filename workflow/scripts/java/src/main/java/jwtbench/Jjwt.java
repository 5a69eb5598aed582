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
import java.util.Map;
import java.util.TreeSet;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/** JJWT's calls (java/jjwt/README.md): an algorithm of its Jwts.SIG registry, a JwtParser per key; claims its {@link Claims}. */
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

  /** The algorithm of JJWT's own registry (Jwts.SIG) with the contract's name; unsupported if none. */
  static SecureDigestAlgorithm<?, ?> algorithm(String alg) throws UnsupportedAlgorithm {
    SecureDigestAlgorithm<?, ?> algorithm = Jwts.SIG.get().get(alg);
    if (algorithm == null) {
      throw new UnsupportedAlgorithm(NAME + " " + JwsLibrary.current().version() + " has no JWS algorithm \"" + alg
          + "\"; its Jwts.SIG registry has " + String.join(", ", new TreeSet<>(Jwts.SIG.get().keySet())));
    }
    return algorithm;
  }

  /** Jwts.claims().add(map).build(): exp, iat, nbf as the seconds given; JJWT adds no claim. */
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
    return NAME + " " + JwsLibrary.current().version() + " has no API that reads a JWS's claims without verifying"
        + " its signature (by design: its parser verifies every JWS it reads)";
  }

  @Override
  public Object decode(String token) {
    throw new UnsupportedOperationException(noDecode());
  }

  /** JwtException, the base of what JJWT throws on purpose, and IllegalArgumentException (an empty token). */
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

  /** An HMAC secret named HmacSHA256 etc., as JJWT requires; other keys as they are. */
  private static Key hmacNamed(String alg, Key key) {
    return Jws.isHmac(alg) ? new SecretKeySpec(key.getEncoded(), "HmacSHA" + alg.substring(2)) : key;
  }

  /** The verify policy's parser (README.md): sig() holds the pinned algorithm alone, verifyWith, clockSkewSeconds(0). */
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
     * The parser's parse(token), which checks alg and signature before any claim: expired or
     * premature claims (thrown after the signature checked out) pass. The payload is the second segment.
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
