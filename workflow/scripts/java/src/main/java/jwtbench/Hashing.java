package jwtbench;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.apache.commons.codec.digest.DigestUtils;

/** Suite hash: commons-codec's DigestUtils and the JDK's MessageDigest (looked up per call, as DigestUtils does). */
final class Hashing {
  static final List<String> ALGORITHMS = List.of("MD5", "SHA-1", "SHA-256", "SHA-512");
  static final String CACHED_UUID = "cached-uuid";
  static final String FRESH_UUID = "fresh-uuid";
  static final String TIME_MS = "time-ms";
  static final List<String> PARTS = List.of(CACHED_UUID, FRESH_UUID, TIME_MS);
  static final String COMMONS_CODEC = "commons-codec";
  static final String JCA = "jca";
  static final List<String> IMPLEMENTATIONS = List.of(COMMONS_CODEC, JCA);

  private static final int UUID_CHARS = 36;
  private static final int MILLIS_DIGITS = 13; // until the year 2286
  private static final String UUID4 = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";

  private Hashing() {}

  /** One implementation's calls for one algorithm, bound once per cell. */
  record Hasher(Function<String, String> hex, UnaryOperator<byte[]> digest) {}

  static Hasher hasher(String implementation, String algorithm) {
    if (implementation.equals(JCA)) {
      return new Hasher(message -> HexFormat.of().formatHex(jcaDigest(algorithm, message.getBytes(StandardCharsets.UTF_8))),
          bytes -> jcaDigest(algorithm, bytes));
    }
    return switch (algorithm) {
      case "MD5" -> new Hasher(DigestUtils::md5Hex, DigestUtils::md5);
      case "SHA-1" -> new Hasher(DigestUtils::sha1Hex, DigestUtils::sha1);
      case "SHA-256" -> new Hasher(DigestUtils::sha256Hex, DigestUtils::sha256);
      case "SHA-512" -> new Hasher(DigestUtils::sha512Hex, DigestUtils::sha512);
      default -> throw new IllegalArgumentException("no hash algorithm " + algorithm);
    };
  }

  static byte[] jcaDigest(String algorithm, byte[] message) {
    try {
      return MessageDigest.getInstance(algorithm).digest(message);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** `length` bytes, byte i being i mod 256 (digest's message, primitive's, the drift reference's). */
  static byte[] counting(int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) i;
    }
    return bytes;
  }

  /** The implementation's name and version for the rows: commons-codec's jar, or the JDK's. */
  static Versions.Implementation implementation(String name) {
    return name.equals(JCA) ? new Versions.Implementation(JCA, System.getProperty("java.version"))
        : new Versions.Implementation(COMMONS_CODEC, Versions.jarVersion(DigestUtils.class, "commons-codec", "commons-codec"));
  }

  /** For `versions`: each implementation's version and the provider of its MessageDigests. */
  static Map<String, Object> versions() {
    String providers = Versions.providers(ALGORITHMS.stream().map(a -> "MessageDigest " + a).toList());
    Map<String, Object> out = new LinkedHashMap<>();
    for (String name : IMPLEMENTATIONS) {
      Map<String, String> info = new LinkedHashMap<>();
      info.put("implementation_version", implementation(name).version());
      info.put("message_digest_providers", providers);
      out.put(name, info);
    }
    return out;
  }

  /**
   * A message of parts, built per call: cached-uuid made once; fresh-uuid a new UUID per call
   * (the same one wherever it appears in that message); time-ms currentTimeMillis in decimal. A
   * one-part cached-uuid message is the cached string itself (seed 002's `return UUID_STRING`).
   */
  static final class Message {
    private static final byte CACHED = 0;
    private static final byte FRESH = 1;
    private static final byte TIME = 2;

    private final byte[] parts;
    private final String cached = UUID.randomUUID().toString();
    private final int length;

    Message(List<String> names) {
      parts = new byte[names.size()];
      int chars = 0;
      for (int i = 0; i < parts.length; i++) {
        parts[i] = (byte) PARTS.indexOf(names.get(i));
        chars += parts[i] == TIME ? MILLIS_DIGITS : UUID_CHARS;
      }
      length = chars;
    }

    String build() {
      if (parts.length == 1 && parts[0] == CACHED) {
        return cached;
      }
      StringBuilder message = new StringBuilder(length);
      String fresh = null;
      for (byte part : parts) {
        if (part == CACHED) {
          message.append(cached);
        } else if (part == FRESH) {
          if (fresh == null) {
            fresh = UUID.randomUUID().toString();
          }
          message.append(fresh);
        } else {
          message.append(System.currentTimeMillis());
        }
      }
      return message.toString();
    }

    /** What a built message must match: the cached UUID, one lowercase version-4 UUID for fresh-uuid, 13 digits. */
    Pattern pattern() {
      StringBuilder regex = new StringBuilder();
      boolean freshSeen = false;
      for (byte part : parts) {
        if (part == CACHED) {
          regex.append(Pattern.quote(cached));
        } else if (part == FRESH) {
          regex.append(freshSeen ? "\\1" : "(" + UUID4 + ")");
          freshSeen = true;
        } else {
          regex.append("[0-9]{").append(MILLIS_DIGITS).append('}');
        }
      }
      return Pattern.compile(regex.toString());
    }
  }

  /** hex-digest: build the message, hash its UTF-8 bytes, hex; folds the hex's length and first char. */
  static final class HexDigest extends Workload {
    private final Message message;
    private final Function<String, String> hex;

    HexDigest(Message message, Function<String, String> hex, long outputBytes) {
      super(outputBytes);
      this.message = message;
      this.hex = hex;
    }

    @Override
    long run(long n) {
      long acc = 0;
      for (long k = 0; k < n; k++) {
        String digest = hex.apply(message.build());
        acc += digest.length() + digest.charAt(0);
      }
      return acc;
    }
  }

  /** generate: build the message and encode it as UTF-8; folds its length and last byte. */
  static final class Generate extends Workload {
    private final Message message;

    Generate(Message message, long outputBytes) {
      super(outputBytes);
      this.message = message;
    }

    @Override
    long run(long n) {
      long acc = 0;
      for (long k = 0; k < n; k++) {
        byte[] bytes = message.build().getBytes(StandardCharsets.UTF_8);
        acc += bytes.length + bytes[bytes.length - 1];
      }
      return acc;
    }
  }

  /** digest: hash the prepared bytes to the raw digest; folds its length and first byte. */
  static final class Digest extends Workload {
    private final byte[] bytes;
    private final UnaryOperator<byte[]> digest;

    Digest(byte[] bytes, UnaryOperator<byte[]> digest, long outputBytes) {
      super(outputBytes);
      this.bytes = bytes;
      this.digest = digest;
    }

    @Override
    long run(long n) {
      long acc = 0;
      for (long k = 0; k < n; k++) {
        byte[] raw = digest.apply(bytes);
        acc += raw.length + raw[0];
      }
      return acc;
    }
  }

  private static void require(boolean holds, String reason) throws Cells.CheckFailed {
    if (!holds) {
      throw new Cells.CheckFailed(reason);
    }
  }

  static void prepare(Spec spec, Cells cells) {
    for (Spec.Cell cell : spec.cells()) {
      Spec.HashCell h = cell.hash();
      Message message = h.message().isEmpty() ? null : new Message(h.message());
      cells.add(cell, message == null ? h.messageBytes() : message.length, () -> checked(cell, message));
    }
  }

  /** README "Suite hash", Check. */
  private static Cells.Served checked(Spec.Cell cell, Message message) throws Cells.CheckFailed {
    Spec.HashCell h = cell.hash();
    Hasher hasher = cell.operation().equals("generate") ? null : hasher(h.implementation(), cell.algorithm());
    if (hasher != null) {
      Spec.KnownAnswer known = h.knownAnswer();
      String got = cell.operation().equals("digest")
          ? HexFormat.of().formatHex(hasher.digest().apply(known.message().getBytes(StandardCharsets.UTF_8)))
          : hasher.hex().apply(known.message());
      require(got.equals(known.digestHex()), cell.algorithm() + " of the known answer's message gave " + got
          + ", expected " + known.digestHex());
    }
    if (message == null) {
      byte[] bytes = counting(h.messageBytes());
      return new Cells.Timed(cell, bytes.length, new Digest(bytes, hasher.digest(), hasher.digest().apply(bytes).length));
    }
    String built = message.build();
    int bytes = built.getBytes(StandardCharsets.UTF_8).length;
    require(bytes == message.length, "a built message is " + bytes + " bytes, expected " + message.length);
    require(message.pattern().matcher(built).matches(), "a built message does not match its parts " + h.message());
    String again = message.build();
    if (h.message().contains(FRESH_UUID)) {
      require(!again.equals(built), "two messages with a fresh-uuid came out the same");
    } else if (!h.message().contains(TIME_MS)) {
      require(again.equals(built), "two messages of cached parts differ");
    }
    return new Cells.Timed(cell, bytes, hasher == null ? new Generate(message, bytes)
        : new HexDigest(message, hasher.hex(), hasher.hex().apply(built).length()));
  }
}
