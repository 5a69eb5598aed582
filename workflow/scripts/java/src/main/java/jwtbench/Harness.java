package jwtbench;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

/**
 * Suite harness (README "Suite harness"): what the timing loop itself costs. Each cell is suite
 * jwt's sign batch, {@link Workload.Sign} (the same loop, clock and sink), with the library's
 * signer replaced by a {@link Jws} that does no cryptography: `empty` returns "", `trivial`
 * compares two equal 32-byte buffers with MessageDigest.isEqual and returns "1" when equal.
 */
final class Harness {
  private static final int BUFFER_BYTES = 32;

  private Harness() {}

  /** A signer of the library's shape around one call; it cannot verify. */
  private abstract static class Call implements Jws {
    @Override
    public Object verify(String token) {
      throw new UnsupportedOperationException("suite harness only signs");
    }

    @Override
    public byte[] verifySignatureOnly(String contractAlg, String token) {
      throw new UnsupportedOperationException("suite harness only signs");
    }
  }

  /** `empty`: nothing done, a constant empty string returned. */
  private static final class Empty extends Call {
    @Override
    public String sign(Object claims) {
      return "";
    }
  }

  /** `trivial`: the JDK's constant-time comparison of two buffers made before timing. */
  private static final class Trivial extends Call {
    private final byte[] left;
    private final byte[] right;

    Trivial(byte[] left, byte[] right) {
      this.left = left;
      this.right = right;
    }

    @Override
    public String sign(Object claims) {
      return MessageDigest.isEqual(left, right) ? "1" : "0";
    }
  }

  /**
   * The cells as {@link TimedSuite} entries; a trivial cell whose comparison does not say equal
   * on two equal buffers and not equal when one byte differs gets its `failed` row now.
   */
  static List<TimedSuite.Entry> check(Spec spec, Bench.Run run) {
    List<TimedSuite.Entry> entries = new ArrayList<>();
    for (Spec.Cell cell : spec.cells()) {
      Jws call = cell.operation().equals("empty") ? new Empty()
          : new Trivial(Hashing.counting(BUFFER_BYTES), Hashing.counting(BUFFER_BYTES));
      if (call instanceof Trivial trivial) {
        byte[] different = Hashing.counting(BUFFER_BYTES);
        different[BUFFER_BYTES - 1] ^= 1;
        if (!trivial.sign(null).equals("1") || !new Trivial(trivial.left, different).sign(null).equals("0")) {
          run.notPassed(cell, 0, "failed", "MessageDigest.isEqual: equal buffers must give 1, buffers one byte apart 0");
          continue;
        }
      }
      long outputBytes = call.sign(null).length();
      // One claims object (null: the call ignores it), as a sign cell on a claims file has.
      entries.add(new TimedSuite.Entry(cell, 0, () -> new Workload.Sign(call, new Object[1], outputBytes)));
    }
    return entries;
  }
}
