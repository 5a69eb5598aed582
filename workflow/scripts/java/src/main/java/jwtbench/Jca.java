package jwtbench;

import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.interfaces.ECKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAKeyGenParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The JDK's own JCA for suites primitive and keygen (implementation `jca`). */
final class Jca {
  static final String NAME = "jca";
  /** The 10-byte message of the keygen checks (the seed's b'0123456789'). */
  static final byte[] CHECK_MESSAGE = "0123456789".getBytes(StandardCharsets.US_ASCII);

  private static final Map<String, String> SIGNATURES = Map.of(
      "RSA-SHA256", "SHA256withRSA",
      "RSA-SHA512", "SHA512withRSA",
      "ECDSA-SHA256", "SHA256withECDSA",
      "ECDSA-SHA512", "SHA512withECDSA",
      "Ed25519", "Ed25519");
  private static final Map<Integer, String> CURVES = Map.of(256, "secp256r1", 384, "secp384r1", 521, "secp521r1");

  private Jca() {}

  /** A PEM file's key of a KeyFactory algorithm; an InputError naming `where` if it is not one. */
  interface PemReader {
    Key read(byte[] file, String keyAlgorithm, String where);
  }

  /** For `versions`: the implementation's version and the provider of each service suites primitive and keygen use. */
  static Map<String, Object> versions() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("implementation_version", version());
    out.put("providers", Versions.providers(List.of("MessageDigest SHA-256", "MessageDigest SHA-512", "Mac HmacSHA256",
            "Cipher AES/GCM/NoPadding", "Signature SHA256withRSA", "Signature SHA512withRSA",
            "Signature SHA256withECDSA", "Signature SHA512withECDSA", "Signature Ed25519",
            "KeyPairGenerator RSA", "KeyPairGenerator EC")));
    out.put("suites", "primitive, keygen");
    return out;
  }

  /** The implementation's version in the rows: the JDK's. */
  static String version() {
    return System.getProperty("java.version");
  }

  /** "RSA-SHA256" -> "SHA256withRSA" (PKCS#1 v1.5), "ECDSA-SHA512" -> "SHA512withECDSA" (DER), "Ed25519". */
  static String signatureName(String algorithm) {
    String name = SIGNATURES.get(algorithm);
    if (name == null) {
      throw new IllegalArgumentException("no signature algorithm " + algorithm);
    }
    return name;
  }

  /** The KeyFactory / KeyPairGenerator algorithm of a signature algorithm: RSA, EC or Ed25519. */
  static String keyAlgorithm(String algorithm) {
    return algorithm.startsWith("RSA-") ? "RSA" : algorithm.startsWith("ECDSA-") ? "EC" : "Ed25519";
  }

  static String curve(int bits) {
    String name = CURVES.get(bits);
    if (name == null) {
      throw new IllegalArgumentException("no curve of " + bits + " bits");
    }
    return name;
  }

  /** A generator of `family` (RSA: modulus `bits`, exponent 65537; ECDSA: the NIST curve of `bits`). */
  static KeyPairGenerator generator(String family, int bits) throws GeneralSecurityException {
    boolean rsa = family.equals("RSA");
    KeyPairGenerator generator = KeyPairGenerator.getInstance(rsa ? "RSA" : "EC");
    generator.initialize(rsa ? new RSAKeyGenParameterSpec(bits, RSAKeyGenParameterSpec.F4) : new ECGenParameterSpec(curve(bits)));
    return generator;
  }

  /** The curve's OID as the JDK names a key's parameters. */
  private static String curveOid(AlgorithmParameterSpec params) throws GeneralSecurityException {
    AlgorithmParameters p = AlgorithmParameters.getInstance("EC");
    p.init(params);
    return p.getParameterSpec(ECGenParameterSpec.class).getName();
  }

  /** Null if `key` is the size a key of `family` and `bits` must be (RSA: modulus and exponent 65537; ECDSA: the curve); else why not. */
  static String sizeProblem(String family, int bits, PublicKey key) throws GeneralSecurityException {
    if (family.equals("RSA")) {
      if (!(key instanceof RSAPublicKey rsa)) {
        return "not an RSA key: " + key.getAlgorithm();
      }
      if (rsa.getModulus().bitLength() != bits) {
        return "a " + rsa.getModulus().bitLength() + "-bit modulus, expected " + bits;
      }
      return rsa.getPublicExponent().intValue() == 65537 ? null : "public exponent " + rsa.getPublicExponent();
    }
    if (!(key instanceof ECKey ec)) {
      return "not an EC key: " + key.getAlgorithm();
    }
    String got = curveOid(ec.getParams());
    String want = curveOid(new ECGenParameterSpec(curve(bits)));
    return got.equals(want) ? null : "curve " + got + ", expected " + curve(bits) + " (" + want + ")";
  }

  /** `n` bytes of the ASCII digits 0123456789 repeated (suite keygen's message). */
  static byte[] digits(int n) {
    byte[] bytes = new byte[n];
    for (int i = 0; i < n; i++) {
      bytes[i] = (byte) ('0' + i % 10);
    }
    return bytes;
  }

  /** The DER inside a PEM's BEGIN/END `label` lines; null if there is none. */
  private static byte[] pemBody(byte[] file, String label) {
    String text = new String(file, StandardCharsets.US_ASCII);
    String begin = "-----BEGIN " + label + "-----";
    int from = text.indexOf(begin);
    int to = from < 0 ? -1 : text.indexOf("-----END " + label + "-----", from);
    try {
      return to < 0 ? null : Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** A PKCS#8 PEM into a private key of `keyAlgorithm`; InputError if not. */
  static PrivateKey privateKey(byte[] file, String keyAlgorithm, String where) {
    byte[] der = pemBody(file, "PRIVATE KEY");
    try {
      if (der != null) {
        return KeyFactory.getInstance(keyAlgorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      }
    } catch (GeneralSecurityException e) {
      throw new InputError(where + " is not a PKCS#8 " + keyAlgorithm + " private key (" + e.getClass().getSimpleName() + ")");
    }
    throw new InputError(where + " is not a PKCS#8 private key PEM (no BEGIN/END PRIVATE KEY block)");
  }

  /** An SPKI PEM into a public key of `keyAlgorithm`; InputError if not. */
  static PublicKey publicKey(byte[] file, String keyAlgorithm, String where) {
    byte[] der = pemBody(file, "PUBLIC KEY");
    try {
      if (der != null) {
        return KeyFactory.getInstance(keyAlgorithm).generatePublic(new X509EncodedKeySpec(der));
      }
    } catch (GeneralSecurityException e) {
      throw new InputError(where + " is not an SPKI " + keyAlgorithm + " public key (" + e.getClass().getSimpleName() + ")");
    }
    throw new InputError(where + " is not an SPKI public key PEM (no BEGIN/END PUBLIC KEY block)");
  }

  static byte[] sign(Signature signer, PrivateKey key, byte[] message) throws GeneralSecurityException {
    signer.initSign(key);
    signer.update(message);
    return signer.sign();
  }

  /** Whether `signature` verifies; a signature the provider cannot even parse does not. */
  static boolean verifies(Signature verifier, PublicKey key, byte[] message, byte[] signature)
      throws GeneralSecurityException {
    verifier.initVerify(key);
    verifier.update(message);
    try {
      return verifier.verify(signature);
    } catch (SignatureException e) {
      return false;
    }
  }

  /**
   * The signature checks: `message` signed with `privateKey` verifies with `publicKey`, and not
   * with its first byte's lowest bit flipped. Null when they hold, else why not.
   */
  static String signatureProblem(String algorithm, PrivateKey privateKey, PublicKey publicKey, byte[] message)
      throws GeneralSecurityException {
    Signature signer = Signature.getInstance(signatureName(algorithm));
    Signature verifier = Signature.getInstance(signatureName(algorithm));
    byte[] signature = sign(signer, privateKey, message);
    if (!verifies(verifier, publicKey, message, signature)) {
      return algorithm + ": a signature of the message does not verify";
    }
    signature[0] ^= 1;
    if (verifies(verifier, publicKey, message, signature)) {
      return algorithm + ": the signature with its first byte's lowest bit flipped verifies";
    }
    return null;
  }
}
