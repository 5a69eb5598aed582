package jwtbench;

import com.google.crypto.tink.subtle.Ed25519Sign;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSObject;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.Ed25519Signer;
import com.nimbusds.jose.crypto.Ed25519Verifier;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jca.JCAContext;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerifierFactory;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.proc.SingleKeyJWSKeySelector;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.EdECPrivateKey;
import java.security.interfaces.EdECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.PrivateKey;
import java.text.ParseException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import javax.crypto.SecretKey;

/**
 * Nimbus JOSE+JWT's calls (JWTBENCH_LIBRARY=nimbus-jose-jwt, workflow/scripts/java/nimbus-jose-jwt/):
 * one algorithm with its keys made into the library's JWSSigner and JWSVerifier, its
 * JWSHeader and a JWT processor once, then SignedJWT sign/serialize, DefaultJWTProcessor.process
 * and SignedJWT.parse per call. Claims are its {@link JWTClaimsSet}. Signatures and MACs come
 * from the JDK's JCA providers, Ed25519 from Google Tink (pure Java), which Nimbus requires for it.
 */
final class NimbusJoseJwt implements JwsLibrary {
  static final String NAME = "nimbus-jose-jwt";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String version() {
    return Versions.jarVersion(JWSObject.class, "com.nimbusds", NAME);
  }

  /**
   * Tink's version as loaded (Ed25519): its jar has no pom.properties, so its own constant
   * Version.TINK_VERSION, read reflectively (javac would inline the compile-time value).
   */
  static String tinkVersion() {
    try {
      return (String) Class.forName("com.google.crypto.tink.Version").getField("TINK_VERSION").get(null);
    } catch (ReflectiveOperationException e) {
      return "unknown (" + e.getClass().getSimpleName() + ")";
    }
  }

  @Override
  public Map<String, String> unlistedLibraries() {
    return Map.of("tink", tinkVersion());
  }

  @Override
  public String cryptoBackend() {
    Map<String, String> services = new LinkedHashMap<>();
    for (String alg : Jws.CONTRACT_ALGORITHMS) {
      if (!alg.equals("EdDSA")) {
        services.put(alg, jcaName(alg));
      }
    }
    return Versions.jcaProviders(services) + "; Ed25519: Google Tink " + tinkVersion()
        + " (com.google.crypto.tink.subtle.Ed25519Sign/Ed25519Verify, pure Java)";
  }

  /** The JCA service Nimbus asks for an algorithm (its MACProvider, RSASSA and ECDSA classes). */
  private static String jcaName(String alg) {
    String bits = alg.substring(2);
    return switch (alg.substring(0, 2)) {
      case "HS" -> "HmacSHA" + bits;
      case "RS" -> "SHA" + bits + "withRSA";
      case "PS" -> "RSASSA-PSS";
      default -> "SHA" + bits + "withECDSA";
    };
  }

  /**
   * The library's algorithm for a contract name: JWSAlgorithm.parse, and it must be one Nimbus
   * ships a signer and verifier for (the contract's EdDSA is Nimbus's EdDSA, Ed25519 keys).
   */
  static JWSAlgorithm algorithm(String alg) throws UnsupportedAlgorithm {
    JWSAlgorithm algorithm = JWSAlgorithm.parse(alg);
    boolean known = MACSigner.SUPPORTED_ALGORITHMS.contains(algorithm)
        || RSASSASigner.SUPPORTED_ALGORITHMS.contains(algorithm)
        || ECDSASigner.SUPPORTED_ALGORITHMS.contains(algorithm)
        || Ed25519Signer.SUPPORTED_ALGORITHMS.contains(algorithm);
    if (!known) {
      throw new UnsupportedAlgorithm(NAME + " " + Versions.implementationVersion() + " has no signer for \"" + alg + "\"");
    }
    return algorithm;
  }

  /**
   * A JWTClaimsSet made with its Builder, one claim(name, value) per claim, the library's
   * ordinary API (exp, iat and nbf as the numbers given: Nimbus reads them as seconds and writes
   * them back so). Nothing is added: Nimbus puts no claim of its own into a token.
   */
  @Override
  public Object claims(Map<String, Object> claims) {
    JWTClaimsSet.Builder builder = new JWTClaimsSet.Builder();
    claims.forEach(builder::claim);
    return builder.build();
  }

  /** JWTClaimsSet.toString: the claims as the library's JSON (dates as epoch seconds). */
  @Override
  public String toJson(Object claims) {
    return claims.toString();
  }

  @Override
  public Object claim(Object claims, String name) {
    return ((JWTClaimsSet) claims).getClaim(name);
  }

  @Override
  public int fold(Object claims) {
    return ((JWTClaimsSet) claims).getClaims().size();
  }

  /** SignedJWT.parse(token).getJWTClaimsSet(): the claims of a JWS, its signature not checked. */
  @Override
  public Object decode(String token) {
    try {
      return SignedJWT.parse(token).getJWTClaimsSet();
    } catch (ParseException e) {
      throw new LibraryException(e);
    }
  }

  /**
   * DefaultJWTProcessor.process declares exactly three exceptions, each the library's verdict
   * on the token: ParseException (not a JWT, a header or claims it cannot read),
   * BadJOSEException (BadJWSException: bad signature, or no key for the header's alg, which is
   * how the pin refuses another algorithm and none; BadJWTException: exp, nbf, a non-JSON-object
   * payload) and JOSEException (the verifier could not run on the token). Anything else is a
   * failure of the library.
   */
  @Override
  public boolean isInvalidToken(Throwable thrown) {
    Throwable e = LibraryException.unwrap(thrown);
    return e instanceof ParseException || e instanceof BadJOSEException || e instanceof JOSEException;
  }

  @Override
  public Jws bind(String alg, Key signingKey, Key verifyingKey) throws UnsupportedAlgorithm {
    JWSAlgorithm algorithm = algorithm(alg);
    try {
      JWSSigner signer = signingKey == null ? null : signer(algorithm, signingKey);
      JWSVerifier verifier = verifyingKey == null ? null : verifier(algorithm, verifyingKey);
      return new Bound(algorithm, new JWSHeader.Builder(algorithm).type(JOSEObjectType.JWT).build(), signer,
          verifier, verifier == null ? null : processor(algorithm, verifyingKey, verifier));
    } catch (JOSEException | GeneralSecurityException e) {
      throw new IllegalArgumentException(e.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  /**
   * The verify policy's processor (workflow/scripts/README.md), every item set here:
   * SingleKeyJWSKeySelector pins the algorithm (a header naming any other alg finds no key:
   * BadJOSEException; the processor refuses unsecured JWTs outright); the JWSVerifierFactory
   * hands the processor the one verifier made for this key (the library's documented hook; its
   * default factory would make a new verifier per token); DefaultJWTClaimsVerifier with no
   * exact-match claims and an empty set of required claims checks exp and nbf when present, with
   * setMaxClockSkew(0) (Nimbus's default is 60 s). Nimbus has no iat check (driver.yaml: lacks).
   */
  private static DefaultJWTProcessor<SecurityContext> processor(JWSAlgorithm algorithm, Key key, JWSVerifier verifier) {
    DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
    processor.setJWSKeySelector(new SingleKeyJWSKeySelector<>(algorithm, key));
    processor.setJWSVerifierFactory(new OneVerifier(algorithm, verifier));
    DefaultJWTClaimsVerifier<SecurityContext> claims = new DefaultJWTClaimsVerifier<>(null, Set.of());
    claims.setMaxClockSkew(0);
    processor.setJWTClaimsSetVerifier(claims);
    return processor;
  }

  private static JWSSigner signer(JWSAlgorithm algorithm, Key key) throws JOSEException, GeneralSecurityException {
    if (MACSigner.SUPPORTED_ALGORITHMS.contains(algorithm)) {
      return new MACSigner((SecretKey) key);
    }
    if (RSASSASigner.SUPPORTED_ALGORITHMS.contains(algorithm)) {
      return new RSASSASigner((PrivateKey) key);
    }
    if (ECDSASigner.SUPPORTED_ALGORITHMS.contains(algorithm)) {
      return new ECDSASigner((ECPrivateKey) key);
    }
    return new Ed25519Signer(octetKeyPair((EdECPrivateKey) key));
  }

  private static JWSVerifier verifier(JWSAlgorithm algorithm, Key key) throws JOSEException {
    if (MACSigner.SUPPORTED_ALGORITHMS.contains(algorithm)) {
      return new MACVerifier((SecretKey) key);
    }
    if (RSASSASigner.SUPPORTED_ALGORITHMS.contains(algorithm)) {
      return new RSASSAVerifier((RSAPublicKey) key);
    }
    if (ECDSASigner.SUPPORTED_ALGORITHMS.contains(algorithm)) {
      return new ECDSAVerifier((ECPublicKey) key);
    }
    return new Ed25519Verifier(octetKeyPair((EdECPublicKey) key));
  }

  /**
   * An Ed25519 private key as the OKP JWK Nimbus's Ed25519Signer takes: d is the JDK key's raw
   * 32 bytes, x the public key Tink derives from them (the JDK has no call for that).
   */
  private static OctetKeyPair octetKeyPair(EdECPrivateKey key) throws GeneralSecurityException {
    byte[] d = key.getBytes().orElseThrow(() -> new GeneralSecurityException("the Ed25519 key has no raw bytes"));
    byte[] x = Ed25519Sign.KeyPair.newKeyPairFromSeed(d).getPublicKey();
    return new OctetKeyPair.Builder(Curve.Ed25519, Base64URL.encode(x)).d(Base64URL.encode(d)).build();
  }

  /** An Ed25519 public key as an OKP JWK: x is the last 32 bytes of its SPKI (RFC 8410). */
  private static OctetKeyPair octetKeyPair(EdECPublicKey key) {
    byte[] spki = key.getEncoded();
    byte[] x = Arrays.copyOfRange(spki, spki.length - 32, spki.length);
    return new OctetKeyPair.Builder(Curve.Ed25519, Base64URL.encode(x)).build();
  }

  /** The verifier made once at bind, for the processor (it asks per token). */
  private record OneVerifier(JWSAlgorithm algorithm, JWSVerifier verifier) implements JWSVerifierFactory {
    @Override
    public JWSVerifier createJWSVerifier(JWSHeader header, Key key) throws JOSEException {
      if (!algorithm.equals(header.getAlgorithm())) {
        throw new JOSEException("no verifier for alg " + header.getAlgorithm());
      }
      return verifier;
    }

    @Override
    public Set<JWSAlgorithm> supportedJWSAlgorithms() {
      return Set.of(algorithm);
    }

    @Override
    public JCAContext getJCAContext() {
      return verifier.getJCAContext();
    }
  }

  /** One algorithm's header, signer, verifier and processor. */
  private record Bound(JWSAlgorithm algorithm, JWSHeader header, JWSSigner signer, JWSVerifier verifier,
      DefaultJWTProcessor<SecurityContext> processor) implements Jws {
    /** new SignedJWT(header, claims), sign(signer), serialize(): the compact JWS. */
    @Override
    public String sign(Object claims) {
      SignedJWT jwt = new SignedJWT(header, (JWTClaimsSet) claims);
      try {
        jwt.sign(signer);
      } catch (JOSEException e) {
        throw new LibraryException(e);
      }
      return jwt.serialize();
    }

    /** DefaultJWTProcessor.process(token, null): parse, pin, verify, check the claims. */
    @Override
    public JWTClaimsSet verify(String token) {
      try {
        return processor.process(token, null);
      } catch (ParseException | BadJOSEException | JOSEException e) {
        throw new LibraryException(e);
      }
    }

    /**
     * JWSObject.parse and JWSObject.verify(verifier): the JWS layer alone (no claims, no exp),
     * the header's alg required to be the pinned one; the payload's bytes as signed.
     */
    @Override
    public byte[] verifySignatureOnly(String contractAlg, String token) {
      JWSObject jws;
      try {
        jws = JWSObject.parse(token);
      } catch (ParseException e) {
        throw new LibraryException(e);
      }
      if (!algorithm.equals(jws.getHeader().getAlgorithm())) {
        throw new IllegalArgumentException("header alg " + jws.getHeader().getAlgorithm() + " is not " + contractAlg);
      }
      boolean valid;
      try {
        valid = jws.verify(verifier);
      } catch (JOSEException e) {
        throw new LibraryException(e);
      }
      if (!valid) {
        throw new IllegalArgumentException("the signature does not verify");
      }
      return jws.getPayload().toBytes();
    }
  }
}
