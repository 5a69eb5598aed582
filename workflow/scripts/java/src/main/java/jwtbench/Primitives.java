package jwtbench;

import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/** Suite primitive with the JDK's JCA, and the loops of suite keygen's sign and verify cells. */
final class Primitives {
  private static final HexFormat HEX = HexFormat.of();
  private static final int GCM_NONCE_BYTES = 12;
  private static final int GCM_TAG_BITS = 128;

  private Primitives() {}

  /** A primitive's batch loop that can also make one call and hand back its output (the checks). */
  abstract static class Call extends Workload {
    Call(long outputBytes) {
      super(outputBytes);
    }

    /** One call of the timed path; its output. */
    abstract byte[] once();

    static IllegalStateException wrap(GeneralSecurityException e) {
      return new IllegalStateException(e.toString(), e);
    }
  }

  /** digest: MessageDigest.digest(message) on one instance per cell; folds the digest's length and first byte. */
  static final class Digest extends Call {
    private final MessageDigest digest;
    private final byte[] message;

    Digest(String algorithm, byte[] message) throws NoSuchAlgorithmException {
      this(MessageDigest.getInstance(algorithm), message);
    }

    private Digest(MessageDigest digest, byte[] message) {
      super(digest.getDigestLength());
      this.digest = digest;
      this.message = message;
    }

    @Override
    byte[] once() {
      return digest.digest(message);
    }

    @Override
    long run(long n) {
      long acc = 0;
      for (long k = 0; k < n; k++) {
        byte[] out = digest.digest(message);
        acc += out.length + out[0];
      }
      return acc;
    }
  }

  /** mac: Mac HmacSHA256 initialised once with the key, doFinal(message) per call. */
  static final class Hmac extends Call {
    private final Mac mac;
    private final byte[] message;

    Hmac(byte[] key, byte[] message) throws GeneralSecurityException {
      this(Mac.getInstance("HmacSHA256"), key, message);
    }

    private Hmac(Mac mac, byte[] key, byte[] message) throws GeneralSecurityException {
      super(mac.getMacLength());
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      this.mac = mac;
      this.message = message;
    }

    @Override
    byte[] once() {
      return mac.doFinal(message);
    }

    @Override
    long run(long n) {
      long acc = 0;
      for (long k = 0; k < n; k++) {
        byte[] out = mac.doFinal(message);
        acc += out.length + out[0];
      }
      return acc;
    }
  }

  /**
   * encrypt: Cipher AES/GCM/NoPadding made once; per call an init with the next nonce (a counter:
   * GCM forbids reusing a key and nonce, and the JDK's Cipher refuses it) and doFinal.
   */
  static final class Encrypt extends Call {
    private final Cipher cipher;
    private final SecretKeySpec key;
    private final byte[] message;
    private final byte[] nonce;
    private final byte[] used = new byte[GCM_NONCE_BYTES];

    Encrypt(byte[] key, byte[] firstNonce, byte[] message) throws GeneralSecurityException {
      super(message.length + GCM_TAG_BITS / 8L);
      this.cipher = Cipher.getInstance("AES/GCM/NoPadding");
      this.key = new SecretKeySpec(key, "AES");
      this.message = message;
      this.nonce = firstNonce.clone();
    }

    byte[] lastNonce() {
      return used.clone();
    }

    @Override
    byte[] once() {
      System.arraycopy(nonce, 0, used, 0, GCM_NONCE_BYTES);
      for (int i = GCM_NONCE_BYTES - 1; i >= 0 && ++nonce[i] == 0; i--) {
        // carry
      }
      try {
        cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(GCM_TAG_BITS, used));
        return cipher.doFinal(message);
      } catch (GeneralSecurityException e) {
        throw wrap(e);
      }
    }

    @Override
    long run(long n) {
      long acc = 0;
      for (long k = 0; k < n; k++) {
        byte[] out = once();
        acc += out.length + out[0];
      }
      return acc;
    }
  }

  /** sign: a Signature initialised once with the parsed private key; update(message) and sign() per call. */
  static final class Sign extends Call {
    private final Signature signer;
    private final byte[] message;

    Sign(String algorithm, PrivateKey key, byte[] message, long outputBytes) throws GeneralSecurityException {
      super(outputBytes);
      this.signer = Signature.getInstance(Jca.signatureName(algorithm));
      signer.initSign(key);
      this.message = message;
    }

    @Override
    byte[] once() {
      try {
        signer.update(message);
        return signer.sign();
      } catch (GeneralSecurityException e) {
        throw wrap(e);
      }
    }

    @Override
    long run(long n) {
      long acc = 0;
      for (long k = 0; k < n; k++) {
        byte[] out = once();
        acc += out.length + out[0];
      }
      return acc;
    }
  }

  /** verify: a Signature initialised once; update and verify(signature) per call; an invalid result throws. */
  static final class Verify extends Call {
    private final Signature verifier;
    private final byte[] message;
    private final byte[] signature;

    Verify(String algorithm, PublicKey key, byte[] message, byte[] signature) throws GeneralSecurityException {
      super(signature.length);
      this.verifier = Signature.getInstance(Jca.signatureName(algorithm));
      verifier.initVerify(key);
      this.message = message;
      this.signature = signature;
    }

    private boolean call() {
      try {
        verifier.update(message);
        return verifier.verify(signature);
      } catch (GeneralSecurityException e) {
        throw wrap(e);
      }
    }

    @Override
    byte[] once() {
      if (!call()) {
        throw new IllegalStateException("the signature did not verify");
      }
      return signature;
    }

    @Override
    long run(long n) {
      long acc = 0;
      for (long k = 0; k < n; k++) {
        if (!call()) {
          throw new IllegalStateException("the signature did not verify during timing");
        }
        acc += signature.length;
      }
      return acc;
    }
  }

  /** A sign or verify cell's workload once the signature checks pass; null with `problem[0]` set when they do not. */
  static Call signOrVerify(String operation, String algorithm, PrivateKey privateKey, PublicKey publicKey,
      byte[] message, String[] problem) throws GeneralSecurityException {
    String why = Jca.signatureProblem(algorithm, privateKey, publicKey, message);
    if (why != null) {
      problem[0] = why;
      return null;
    }
    Sign sign = new Sign(algorithm, privateKey, message, 0);
    byte[] signature = sign.once();
    return operation.equals("sign") ? new Sign(algorithm, privateKey, message, signature.length)
        : new Verify(algorithm, publicKey, message, signature);
  }

  /** Files read and PEMs parsed once per path (suites primitive, keygen); a bad one, or a key not of key_bits, is an input error. */
  static final class Files {
    private final Map<String, byte[]> bytes = new HashMap<>();
    private final Map<String, Key> keys = new HashMap<>();

    byte[] read(String file, String origin) {
      return bytes.computeIfAbsent(file, f -> Json.readBytes(f, origin));
    }

    PrivateKey privateKey(Spec.Cell cell, String at) {
      return (PrivateKey) key(cell, cell.privateKey(), "private_key" + at, Jca::privateKey);
    }

    PublicKey publicKey(Spec.Cell cell, String at) {
      return (PublicKey) key(cell, cell.publicKey(), "public_key" + at, Jca::publicKey);
    }

    private Key key(Spec.Cell cell, String file, String origin, Jca.PemReader reader) {
      String keyAlgorithm = Jca.keyAlgorithm(cell.algorithm());
      Key key = keys.computeIfAbsent(origin.substring(0, 3) + keyAlgorithm + "\0" + file,
          k -> reader.read(read(file, origin), keyAlgorithm, origin + " " + file));
      Cells.checkBits(cell, key, origin, file);
      return key;
    }
  }

  static void prepare(Spec spec, Cells cells, String specFile) {
    Files files = new Files();
    for (Spec.Cell cell : spec.cells()) {
      String at = " of cells[" + cell.index() + "] in --spec " + specFile + ":";
      Spec.Crypto c = cell.crypto();
      byte[] message = c.messageBytes() >= 0 ? Hashing.counting(c.messageBytes())
          : files.read(cell.inputFile(), "input_file" + at);
      byte[] secret = null;
      PrivateKey privateKey = null;
      PublicKey publicKey = null;
      switch (cell.operation()) {
        case "mac", "encrypt" -> {
          secret = files.read(cell.privateKey(), "private_key" + at);
          if (secret.length * 8 != cell.keyBits()) {
            throw new InputError("private_key" + at + " " + cell.privateKey() + " is a " + secret.length * 8
                + "-bit secret, the cell says key_bits " + cell.keyBits());
          }
        }
        case "sign", "verify" -> {
          privateKey = files.privateKey(cell, at);
          publicKey = files.publicKey(cell, at);
        }
        default -> { }
      }
      byte[] key = secret;
      PrivateKey signing = privateKey;
      PublicKey verifying = publicKey;
      cells.add(cell, message.length, () -> new Cells.Timed(cell, message.length,
          checked(cell, message, key, signing, verifying)));
    }
  }

  private static byte[] hex(Spec.Cell cell, String field) {
    return HEX.parseHex(cell.crypto().knownAnswer().get(field));
  }

  private static void knownAnswer(Spec.Cell cell, Call call) throws Cells.CheckFailed {
    String got = HEX.formatHex(call.once());
    String want = cell.crypto().knownAnswer().get("output_hex");
    if (!got.equals(want)) {
      throw new Cells.CheckFailed(cell.algorithm() + " of the known answer gave " + got + ", expected " + want);
    }
  }

  /** The checks of README "Suite primitive". */
  private static Call checked(Spec.Cell cell, byte[] message, byte[] secret, PrivateKey privateKey,
      PublicKey publicKey) throws Cells.CheckFailed, GeneralSecurityException {
    switch (cell.operation()) {
      case "digest" -> {
        knownAnswer(cell, new Digest(cell.algorithm(), hex(cell, "message_hex")));
        return new Digest(cell.algorithm(), message);
      }
      case "mac" -> {
        knownAnswer(cell, new Hmac(hex(cell, "key_hex"), hex(cell, "message_hex")));
        return new Hmac(secret, message);
      }
      case "encrypt" -> {
        knownAnswer(cell, new Encrypt(hex(cell, "key_hex"), hex(cell, "nonce_hex"), hex(cell, "message_hex")));
        // Each cell's counter starts at its index times 2^64, so no two cells on the same
        // secret ever use the same nonce.
        byte[] first = new byte[GCM_NONCE_BYTES];
        int index = cell.index();
        for (int i = 0; i < 4; i++) {
          first[i] = (byte) (index >>> (24 - 8 * i));
        }
        Encrypt work = new Encrypt(secret, first, message);
        byte[] sealed = work.once();
        Cipher decrypt = Cipher.getInstance("AES/GCM/NoPadding");
        decrypt.init(Cipher.DECRYPT_MODE, new SecretKeySpec(secret, "AES"),
            new GCMParameterSpec(GCM_TAG_BITS, work.lastNonce()));
        if (!Arrays.equals(decrypt.doFinal(sealed), message)) {
          throw new Cells.CheckFailed("an output of the timed path does not decrypt back to the message");
        }
        return work;
      }
      case "sign", "verify" -> {
        String[] problem = new String[1];
        Call work = signOrVerify(cell.operation(), cell.algorithm(), privateKey, publicKey, message, problem);
        if (work == null) {
          throw new Cells.CheckFailed(problem[0]);
        }
        return work;
      }
      default -> throw new IllegalArgumentException("no primitive " + cell.operation());
    }
  }
}
