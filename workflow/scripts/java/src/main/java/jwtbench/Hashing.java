package jwtbench;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.commons.codec.digest.DigestUtils;

/**
 * Suite hash (README "Suite hash"): seed 002's hash calls in two implementations, its
 * messages, the cells' checks and their batch loops (timed by {@link TimedSuite}).
 *
 * <ul>
 *   <li>{@code commons-codec}: Apache Commons Codec's DigestUtils, the seed's library:
 *       {@code md5Hex(String)}, {@code sha1Hex}, {@code sha256Hex}, {@code sha512Hex} for
 *       hex-digest (UTF-8 encoding, a MessageDigest from MessageDigest.getInstance, the digest
 *       and Hex.encodeHexString, all inside the library's call), {@code md5(byte[])} etc. for
 *       digest.
 *   <li>{@code jca}: what a Java user writes with the JDK alone: per call
 *       {@code MessageDigest.getInstance(name).digest(bytes)}, for hex-digest after
 *       {@code getBytes(UTF_8)} and followed by {@code HexFormat.of().formatHex(digest)}.
 * </ul>
 *
 * Both look up a MessageDigest per call, as DigestUtils does; neither keeps one per cell.
 */
final class Hashing {
  static final List<String> ALGORITHMS = List.of("MD5", "SHA-1", "SHA-256", "SHA-512");
  static final String CACHED_UUID = "cached-uuid";
  static final String FRESH_UUID = "fresh-uuid";
  static final String TIME_MS = "time-ms";
  static final List<String> PARTS = List.of(CACHED_UUID, FRESH_UUID, TIME_MS);
  static final String COMMONS_CODEC = "commons-codec";
  static final String JCA = "jca";
  static final List<String> IMPLEMENTATIONS = List.of(COMMONS_CODEC, JCA);
  static final String DEFAULT_IMPLEMENTATION = COMMONS_CODEC;

  private static final int UUID_CHARS = 36;
  private static final int MILLIS_DIGITS = 13; // until the year 2286
  private static final String UUID4 = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";

  private Hashing() {}

  /** One implementation's calls for one algorithm, bound once per cell. */
  record Hasher(Function<String, String> hex, UnaryOperator<byte[]> digest) {}

  static Hasher hasher(String implementation, String algorithm) {
    if (implementation.equals(JCA)) {
      return new Hasher(message -> jcaHex(algorithm, message), bytes -> jcaDigest(algorithm, bytes));
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

  /** digest's message: `length` bytes, byte i being i mod 256 (the drift reference's too). */
  static byte[] counting(int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) i;
    }
    return bytes;
  }

  static String jcaHex(String algorithm, String message) {
    return HexFormat.of().formatHex(jcaDigest(algorithm, message.getBytes(StandardCharsets.UTF_8)));
  }

  /** The implementation's name and version for the rows: commons-codec's jar, or the JDK's. */
  static Versions.Implementation implementation(String name) {
    return name.equals(JCA) ? new Versions.Implementation(JCA, System.getProperty("java.version"))
        : new Versions.Implementation(COMMONS_CODEC, Versions.jarVersion(DigestUtils.class, "commons-codec", "commons-codec"));
  }

  /**
   * For `versions`: per implementation its version, the JCA provider the JDK hands out for each
   * algorithm (both implementations get their MessageDigest from MessageDigest.getInstance)
   * and the calls timed.
   */
  static Map<String, Object> versions() {
    Map<String, Set<String>> byProvider = new LinkedHashMap<>();
    for (String algorithm : ALGORITHMS) {
      String provider;
      try {
        Provider p = MessageDigest.getInstance(algorithm).getProvider();
        provider = p.getName() + " " + p.getVersionStr();
      } catch (NoSuchAlgorithmException e) {
        provider = "none";
      }
      byProvider.computeIfAbsent(provider, k -> new LinkedHashSet<>()).add(algorithm);
    }
    String providers = byProvider.entrySet().stream()
        .map(e -> e.getKey() + " (" + String.join(", ", e.getValue()) + ")")
        .collect(Collectors.joining("; "));
    Map<String, String> calls = Map.of(
        COMMONS_CODEC, "DigestUtils.md5Hex/sha1Hex/sha256Hex/sha512Hex(String); DigestUtils.md5/sha1/sha256/sha512(byte[])",
        JCA, "MessageDigest.getInstance(algorithm).digest(bytes) per call; HexFormat.of().formatHex for hex");
    Map<String, Object> out = new LinkedHashMap<>();
    for (String name : IMPLEMENTATIONS) {
      Map<String, String> info = new LinkedHashMap<>();
      info.put("implementation_version", implementation(name).version());
      info.put("message_digest_providers", providers);
      info.put("calls", calls.get(name));
      out.put(name, info);
    }
    return out;
  }

  /**
   * A message of parts, built per call: cached-uuid made once here; fresh-uuid a new
   * UUID.randomUUID() per call, the same one wherever it appears in that call's message;
   * time-ms System.currentTimeMillis() in decimal. A one-part cached-uuid message is the
   * cached string itself.
   */
  static final class Message {
    private static final byte CACHED = 0;
    private static final byte FRESH = 1;
    private static final byte TIME = 2;

    private final byte[] parts;
    private final String cached;
    private final int length;

    Message(List<String> names) {
      parts = new byte[names.size()];
      int chars = 0;
      for (int i = 0; i < parts.length; i++) {
        parts[i] = (byte) PARTS.indexOf(names.get(i));
        chars += parts[i] == TIME ? MILLIS_DIGITS : UUID_CHARS;
      }
      length = chars;
      cached = UUID.randomUUID().toString();
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

    /** Its length in characters (and UTF-8 bytes) while time-ms has 13 digits. */
    int expectedLength() {
      return length;
    }

    /**
     * What a built message must match: the cached UUID itself, a version-4 UUID in lowercase
     * repeated wherever fresh-uuid is, 13 digits for time-ms.
     */
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

    boolean hasFresh() {
      for (byte part : parts) {
        if (part == FRESH) {
          return true;
        }
      }
      return false;
    }
  }

  // One batch loop per operation, as Workload's for the JWT operations: no per-call dispatch
  // on the operation; the implementation's call is one interface call through the Hasher's
  // Function or UnaryOperator (a few ns, the same for both implementations).

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

  /** Thrown by a check that fails: the cell is written as failed with this reason. */
  private static final class CheckFailed extends Exception {
    private static final long serialVersionUID = 1L;

    CheckFailed(String reason) {
      super(reason);
    }
  }

  private static void require(boolean holds, String reason) throws CheckFailed {
    if (!holds) {
      throw new CheckFailed(reason);
    }
  }

  private static boolean lacksAlgorithm(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof NoSuchAlgorithmException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Every cell prepared and checked before anything is timed: the known answer through the
   * cell's own call path, then (hex-digest, generate) one message built and matched against
   * its parts, a second one made to show that cached parts are cached and fresh ones fresh.
   * A cell that does not pass gets its untimed row now; the others, in spec order.
   */
  static List<TimedSuite.Entry> check(Spec spec, Bench.Run run) {
    List<TimedSuite.Entry> entries = new ArrayList<>();
    for (Spec.Cell cell : spec.cells()) {
      Spec.HashCell h = cell.hash();
      Message message = h.message().isEmpty() ? null : new Message(h.message());
      long expectedBytes = message == null ? h.messageBytes() : message.expectedLength();
      try {
        entries.add(prepare(cell, message));
      } catch (CheckFailed e) {
        run.notPassed(cell, expectedBytes, "failed", e.getMessage());
      } catch (RuntimeException e) {
        String status = lacksAlgorithm(e) ? "unsupported" : "failed";
        run.notPassed(cell, expectedBytes, status, e.toString());
      }
    }
    return entries;
  }

  /** The checks of one cell; its entry (input_bytes: the message as built here). */
  private static TimedSuite.Entry prepare(Spec.Cell cell, Message message) throws CheckFailed {
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
      return entry(cell, bytes.length, new Digest(bytes, hasher.digest(), hasher.digest().apply(bytes).length));
    }
    String built = message.build();
    int bytes = built.getBytes(StandardCharsets.UTF_8).length;
    require(bytes == message.expectedLength(), "a built message is " + bytes + " bytes, expected "
        + message.expectedLength());
    require(message.pattern().matcher(built).matches(), "a built message does not match its parts " + h.message());
    String again = message.build();
    if (message.hasFresh()) {
      require(!again.equals(built), "two messages with a fresh-uuid came out the same");
    } else if (!h.message().contains(TIME_MS)) {
      require(again.equals(built), "two messages of cached parts differ");
    }
    return entry(cell, bytes, hasher == null ? new Generate(message, bytes)
        : new HexDigest(message, hasher.hex(), hasher.hex().apply(built).length()));
  }

  private static TimedSuite.Entry entry(Spec.Cell cell, long inputBytes, Workload work) {
    Supplier<Workload> made = () -> work;
    return new TimedSuite.Entry(cell, inputBytes, made);
  }
}
