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
import java.util.Map;
import java.util.Set;
import javax.crypto.SecretKey;

/** Nimbus JOSE+JWT's calls (java/nimbus-jose-jwt/README.md): signer, verifier, header, processor made once. */
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

  /** Tink's version as loaded: its jar has no pom.properties; read reflectively, as javac would inline the constant. */
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
    return Versions.jcaProviders(Jws.CONTRACT_ALGORITHMS.stream().filter(alg -> !alg.equals("EdDSA")).toList())
        + "; Ed25519: Google Tink " + tinkVersion() + " (com.google.crypto.tink.subtle.Ed25519Sign/Ed25519Verify, pure Java)";
  }

  /** JWSAlgorithm.parse, and one Nimbus ships a signer for. */
  static JWSAlgorithm algorithm(String alg) throws UnsupportedAlgorithm {
    JWSAlgorithm algorithm = JWSAlgorithm.parse(alg);
    boolean known = MACSigner.SUPPORTED_ALGORITHMS.contains(algorithm)
        || RSASSASigner.SUPPORTED_ALGORITHMS.contains(algorithm)
        || ECDSASigner.SUPPORTED_ALGORITHMS.contains(algorithm)
        || Ed25519Signer.SUPPORTED_ALGORITHMS.contains(algorithm);
    if (!known) {
      throw new UnsupportedAlgorithm(NAME + " " + JwsLibrary.current().version() + " has no signer for \"" + alg + "\"");
    }
    return algorithm;
  }

  /** JWTClaimsSet.Builder().claim(name, value) per claim (exp, iat, nbf as seconds); nothing added. */
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

  /** The three exceptions DefaultJWTProcessor.process declares are its verdicts; anything else its failure. */
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
   * The verify policy's processor (README.md): the pinned alg's single key, the one verifier
   * made for it (the default factory would make one per token), no required claims, skew 0
   * (Nimbus's default is 60 s).
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

  /** An Ed25519 private key as the OKP JWK Nimbus takes: d the JDK key's raw bytes, x derived by Tink (the JDK cannot). */
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

    /** JWSObject.parse and verify(verifier), the header's alg required to be the pinned one. */
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
