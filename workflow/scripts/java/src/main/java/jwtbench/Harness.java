package jwtbench;

import java.security.MessageDigest;

/** Suite harness: suite jwt's sign batch, {@link Workload.Sign}, around a {@link Jws} without cryptography. */
final class Harness {
  private static final int BUFFER_BYTES = 32;

  private Harness() {}

  /** A signer of the library's shape around one call; it cannot verify. */
  private interface Call extends Jws {
    @Override
    default Object verify(String token) {
      throw new UnsupportedOperationException("suite harness only signs");
    }

    @Override
    default byte[] verifySignatureOnly(String contractAlg, String token) {
      throw new UnsupportedOperationException("suite harness only signs");
    }
  }

  /** `empty`: nothing done, a constant empty string returned. */
  private record Empty() implements Call {
    @Override
    public String sign(Object claims) {
      return "";
    }
  }

  /** `trivial`: the JDK's constant-time comparison of two buffers made before timing. */
  private record Trivial(byte[] left, byte[] right) implements Call {
    @Override
    public String sign(Object claims) {
      return MessageDigest.isEqual(left, right) ? "1" : "0";
    }
  }

  /** Every cell; a trivial one whose comparison does not tell equal from one byte apart is failed. */
  static void prepare(Spec spec, Cells cells) {
    for (Spec.Cell cell : spec.cells()) {
      cells.add(cell, 0, () -> {
        byte[] buffer = Hashing.counting(BUFFER_BYTES);
        Call call = cell.operation().equals("empty") ? new Empty() : new Trivial(buffer, Hashing.counting(BUFFER_BYTES));
        if (call instanceof Trivial) {
          byte[] different = Hashing.counting(BUFFER_BYTES);
          different[BUFFER_BYTES - 1] ^= 1;
          if (!call.sign(null).equals("1") || !new Trivial(buffer, different).sign(null).equals("0")) {
            throw new Cells.CheckFailed("MessageDigest.isEqual: equal buffers must give 1, buffers one byte apart 0");
          }
        }
        // One claims object (null: the call ignores it), as a sign cell on a claims file has.
        return new Cells.Timed(cell, 0, new Workload.Sign(call, new Object[1], call.sign(null).length()));
      });
    }
  }
}
