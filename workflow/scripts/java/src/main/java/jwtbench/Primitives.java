package jwtbench;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Supplier;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Suite primitive (README "Suite primitive") with the JDK's JCA, and the batch loops suite
 * keygen's sign and verify cells share: one object per cell made before timing
 * (MessageDigest; Mac initialised with the key; Cipher and its SecretKeySpec; Signature
 * initialised with the parsed key), then per call only the primitive's own work. Timed by
 * {@link TimedSuite}.
 */
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
   * encrypt: Cipher AES/GCM/NoPadding and the SecretKeySpec made once; per call an init with
   * the next nonce (a 12-byte big-endian counter, +1 per call: GCM forbids reusing a key and
   * nonce, and the JDK's Cipher refuses it) and doFinal, no AAD, 16-byte tag.
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

    /** The nonce of the last call. */
    byte[] lastNonce() {
      return used.clone();
    }

    private byte[] call() {
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
    byte[] once() {
      return call();
    }

    @Override
    long run(long n) {
      long acc = 0;
      for (long k = 0; k < n; k++) {
        byte[] out = call();
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

  /**
   * verify: a Signature initialised once with the parsed public key; update(message) and
   * verify(signature) per call, the signature made before timing. An invalid result throws
   * (the cell fails); a valid one folds the signature's length.
   */
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

  /**
   * A sign or verify cell's workload on parsed keys: a signature of the message is made
   * once, then (the checks) it must verify and, with its first byte's lowest bit flipped,
   * must not. Null with `problem[0]` set when a check fails.
   */
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

  /** Thrown by a check that fails: the cell is written as failed with this reason. */
  static final class CheckFailed extends Exception {
    private static final long serialVersionUID = 1L;

    CheckFailed(String reason) {
      super(reason);
    }
  }

  static boolean lacksAlgorithm(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof NoSuchAlgorithmException) {
        return true;
      }
    }
    return false;
  }

  /** Files read once per path (keys, input files); an unreadable one is an input error. */
  static final class Files {
    private final Map<String, byte[]> bytes = new HashMap<>();
    private final Map<String, Object> keys = new HashMap<>();

    byte[] read(String file, String origin) {
      return bytes.computeIfAbsent(file, f -> Json.readBytes(f, origin));
    }

    PrivateKey privateKey(String file, String keyAlgorithm, String origin) {
      return (PrivateKey) keys.computeIfAbsent("private\0" + keyAlgorithm + "\0" + file,
          k -> Jca.privateKey(read(file, origin), keyAlgorithm, origin + " " + file));
    }

    PublicKey publicKey(String file, String keyAlgorithm, String origin) {
      return (PublicKey) keys.computeIfAbsent("public\0" + keyAlgorithm + "\0" + file,
          k -> Jca.publicKey(read(file, origin), keyAlgorithm, origin + " " + file));
    }
  }

  /** The key's size must be the cell's key_bits; an input error if not (as for suite jwt). */
  static void checkBits(Spec.Cell cell, java.security.Key key, String origin, String file) {
    OptionalInt bits = Keys.bits(key);
    if (bits.isPresent() && bits.getAsInt() != cell.keyBits()) {
      throw new InputError(origin + " " + file + " is a " + bits.getAsInt() + "-bit key, the cell says key_bits "
          + cell.keyBits());
    }
  }

  /** A cell prepared: its message and keys read and parsed (untimed, once per file). */
  private record Prepared(Spec.Cell cell, byte[] message, byte[] secret, PrivateKey privateKey, PublicKey publicKey) {}

  /**
   * Suite primitive: every file read and key parsed once (an unreadable or wrong one is an
   * input error, exit 2), then each cell checked before anything is timed; a cell that does
   * not pass gets its untimed row now. The others, in spec order, for {@link TimedSuite}.
   */
  static List<TimedSuite.Entry> check(Spec spec, Bench.Run run, String specFile) {
    Files files = new Files();
    List<Prepared> prepared = new ArrayList<>();
    for (Spec.Cell cell : spec.cells()) {
      String at = " of cells[" + cell.index() + "] in --spec " + specFile + ":";
      Spec.Crypto c = cell.crypto();
      byte[] message = c.messageBytes() >= 0 ? Jca.counting(c.messageBytes())
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
          String keyAlgorithm = Jca.keyAlgorithm(cell.algorithm());
          privateKey = files.privateKey(cell.privateKey(), keyAlgorithm, "private_key" + at);
          publicKey = files.publicKey(cell.publicKey(), keyAlgorithm, "public_key" + at);
          checkBits(cell, privateKey, "private_key" + at, cell.privateKey());
          checkBits(cell, publicKey, "public_key" + at, cell.publicKey());
        }
        default -> { }
      }
      prepared.add(new Prepared(cell, message, secret, privateKey, publicKey));
    }
    List<TimedSuite.Entry> entries = new ArrayList<>();
    for (Prepared p : prepared) {
      Spec.Cell cell = p.cell();
      try {
        Call work = checked(p);
        Supplier<Workload> made = () -> work;
        entries.add(new TimedSuite.Entry(cell, p.message().length, made));
      } catch (CheckFailed e) {
        run.notPassed(cell, p.message().length, "failed", e.getMessage());
      } catch (GeneralSecurityException | RuntimeException e) {
        String status = lacksAlgorithm(e) ? "unsupported" : "failed";
        run.notPassed(cell, p.message().length, status, e.toString());
      }
    }
    return entries;
  }

  private static byte[] hex(Spec.Cell cell, String field) {
    return HEX.parseHex(cell.crypto().knownAnswer().get(field));
  }

  private static void knownAnswer(Spec.Cell cell, Call call) throws CheckFailed {
    String got = HEX.formatHex(call.once());
    String want = cell.crypto().knownAnswer().get("output_hex");
    if (!got.equals(want)) {
      throw new CheckFailed(cell.algorithm() + " of the known answer gave " + got + ", expected " + want);
    }
  }

  /**
   * One cell's checks (README "Suite primitive", Check): the known answer through the cell's
   * own call path, for encrypt also one output of the timed path decrypted back to the
   * message; for sign and verify the signature checks. Its workload.
   */
  private static Call checked(Prepared p) throws CheckFailed, GeneralSecurityException {
    Spec.Cell cell = p.cell();
    byte[] message = p.message();
    switch (cell.operation()) {
      case "digest" -> {
        knownAnswer(cell, new Digest(cell.algorithm(), hex(cell, "message_hex")));
        return new Digest(cell.algorithm(), message);
      }
      case "mac" -> {
        knownAnswer(cell, new Hmac(hex(cell, "key_hex"), hex(cell, "message_hex")));
        return new Hmac(p.secret(), message);
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
        Encrypt work = new Encrypt(p.secret(), first, message);
        byte[] sealed = work.once();
        Cipher decrypt = Cipher.getInstance("AES/GCM/NoPadding");
        decrypt.init(Cipher.DECRYPT_MODE, new SecretKeySpec(p.secret(), "AES"),
            new GCMParameterSpec(GCM_TAG_BITS, work.lastNonce()));
        if (!Arrays.equals(decrypt.doFinal(sealed), message)) {
          throw new CheckFailed("an output of the timed path does not decrypt back to the message");
        }
        return work;
      }
      case "sign", "verify" -> {
        String[] problem = new String[1];
        Call work = signOrVerify(cell.operation(), cell.algorithm(), p.privateKey(), p.publicKey(), message, problem);
        if (work == null) {
          throw new CheckFailed(problem[0]);
        }
        return work;
      }
      default -> throw new IllegalArgumentException("no primitive " + cell.operation());
    }
  }
}
