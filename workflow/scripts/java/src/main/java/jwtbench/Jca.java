package jwtbench;

import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.interfaces.ECKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAKeyGenParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Map;

/**
 * The JDK's own JCA for suites primitive and keygen (implementation `jca`): the contract's
 * algorithm names as JCA names, PEM keys parsed with the JDK's KeyFactory (no library), key
 * pair generators, the messages, and the signature checks. Used by the driver and by
 * {@link KeygenChild}, so nothing here touches fusionauth-jwt.
 */
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

  /**
   * For `versions`: the implementation's version and the JCA provider the JDK hands out for
   * each service suites primitive and keygen use ("SunEC 17 (Signature SHA256withECDSA, ...)").
   */
  static Map<String, Object> versions() {
    Map<String, java.util.Set<String>> byProvider = new java.util.LinkedHashMap<>();
    String[][] services = {
      {"MessageDigest", "SHA-256"}, {"MessageDigest", "SHA-512"}, {"Mac", "HmacSHA256"},
      {"Cipher", "AES/GCM/NoPadding"}, {"Signature", "SHA256withRSA"}, {"Signature", "SHA512withRSA"},
      {"Signature", "SHA256withECDSA"}, {"Signature", "SHA512withECDSA"}, {"Signature", "Ed25519"},
      {"KeyPairGenerator", "RSA"}, {"KeyPairGenerator", "EC"},
    };
    for (String[] service : services) {
      String provider;
      try {
        java.security.Provider p = switch (service[0]) {
          case "MessageDigest" -> java.security.MessageDigest.getInstance(service[1]).getProvider();
          case "Mac" -> javax.crypto.Mac.getInstance(service[1]).getProvider();
          case "Cipher" -> javax.crypto.Cipher.getInstance(service[1]).getProvider();
          case "Signature" -> Signature.getInstance(service[1]).getProvider();
          default -> KeyPairGenerator.getInstance(service[1]).getProvider();
        };
        provider = p.getName() + " " + p.getVersionStr();
      } catch (GeneralSecurityException e) {
        provider = "none";
      }
      byProvider.computeIfAbsent(provider, k -> new java.util.LinkedHashSet<>()).add(service[0] + " " + service[1]);
    }
    Map<String, Object> out = new java.util.LinkedHashMap<>();
    out.put("implementation_version", version());
    out.put("providers", byProvider.entrySet().stream()
        .map(e -> e.getKey() + " (" + String.join(", ", e.getValue()) + ")")
        .collect(java.util.stream.Collectors.joining("; ")));
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
    if (family.equals("RSA")) {
      KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
      rsa.initialize(new RSAKeyGenParameterSpec(bits, RSAKeyGenParameterSpec.F4));
      return rsa;
    }
    KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
    ec.initialize(new ECGenParameterSpec(curve(bits)));
    return ec;
  }

  /** The curve's OID as the JDK names a key's parameters. */
  static String curveOid(ECParameterSpec params) throws GeneralSecurityException {
    AlgorithmParameters p = AlgorithmParameters.getInstance("EC");
    p.init(params);
    return p.getParameterSpec(ECGenParameterSpec.class).getName();
  }

  static String curveOid(String curve) throws GeneralSecurityException {
    AlgorithmParameters p = AlgorithmParameters.getInstance("EC");
    p.init(new ECGenParameterSpec(curve));
    return p.getParameterSpec(ECGenParameterSpec.class).getName();
  }

  /**
   * Null if `key` is the size (and curve) a key of `family` and `bits` must be; else why not.
   * RSA: modulus bit length and exponent 65537; ECDSA: the named curve.
   */
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
    String want = curveOid(curve(bits));
    return got.equals(want) ? null : "curve " + got + ", expected " + curve(bits) + " (" + want + ")";
  }

  /** `n` bytes, byte i = i mod 256 (suite primitive's message_bytes). */
  static byte[] counting(int n) {
    byte[] bytes = new byte[n];
    for (int i = 0; i < n; i++) {
      bytes[i] = (byte) i;
    }
    return bytes;
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
    String end = "-----END " + label + "-----";
    int from = text.indexOf(begin);
    int to = from < 0 ? -1 : text.indexOf(end, from);
    if (to < 0) {
      return null;
    }
    try {
      return Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** A PKCS#8 PEM into a private key of `keyAlgorithm` with the JDK's KeyFactory; InputError if not. */
  static PrivateKey privateKey(byte[] file, String keyAlgorithm, String where) {
    byte[] der = pemBody(file, "PRIVATE KEY");
    if (der == null) {
      throw new InputError(where + " is not a PKCS#8 private key PEM (no BEGIN/END PRIVATE KEY block)");
    }
    try {
      return KeyFactory.getInstance(keyAlgorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
    } catch (GeneralSecurityException e) {
      throw new InputError(where + " is not a PKCS#8 " + keyAlgorithm + " private key (" + e.getClass().getSimpleName() + ")");
    }
  }

  /** An SPKI PEM into a public key of `keyAlgorithm`; InputError if not. */
  static PublicKey publicKey(byte[] file, String keyAlgorithm, String where) {
    byte[] der = pemBody(file, "PUBLIC KEY");
    if (der == null) {
      throw new InputError(where + " is not an SPKI public key PEM (no BEGIN/END PUBLIC KEY block)");
    }
    try {
      return KeyFactory.getInstance(keyAlgorithm).generatePublic(new X509EncodedKeySpec(der));
    } catch (GeneralSecurityException e) {
      throw new InputError(where + " is not an SPKI " + keyAlgorithm + " public key (" + e.getClass().getSimpleName() + ")");
    }
  }

  /** `signature` with the lowest bit of its first byte flipped (a copy). */
  static byte[] flipped(byte[] signature) {
    byte[] copy = signature.clone();
    copy[0] ^= 1;
    return copy;
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
   * The signature checks: `message` signed with `privateKey` verifies with `publicKey`, and
   * the signature with the lowest bit of its first byte flipped does not. Null when they
   * hold, else why not.
   */
  static String signatureProblem(String algorithm, PrivateKey privateKey, PublicKey publicKey, byte[] message)
      throws GeneralSecurityException {
    Signature signer = Signature.getInstance(signatureName(algorithm));
    Signature verifier = Signature.getInstance(signatureName(algorithm));
    byte[] signature = sign(signer, privateKey, message);
    if (!verifies(verifier, publicKey, message, signature)) {
      return algorithm + ": a signature of the message does not verify";
    }
    if (verifies(verifier, publicKey, message, flipped(signature))) {
      return algorithm + ": the signature with its first byte's lowest bit flipped verifies";
    }
    return null;
  }
}
