package jwtbench;

import java.util.List;

/**
 * One cell's operation as a batch of calls on objects prepared before timing, going through the
 * cell's claims or tokens in order, the position carried from batch to batch.
 */
abstract class Workload {
  /** The output_bytes of the cell's rows: its token's size, or the pool's rounded mean. */
  final long outputBytes;
  protected int position;

  Workload(long outputBytes) {
    this.outputBytes = outputBytes;
  }

  abstract long run(long n);

  /** The calls of one pass through the cell's claims or tokens (the hello's pass_length). */
  int passLength() {
    return 1;
  }

  static Workload of(Cells.Ready ready) {
    Checks.Passed checks = ready.checks();
    List<String> pool = checks.pool();
    long sum = 0;
    for (String token : pool) {
      sum += token.length(); // a compact JWS is ASCII: its length is its size in bytes
    }
    long outputBytes = Json.roundedMean(sum, pool.size());
    return switch (ready.cell().operation()) {
      case "sign" -> new Sign(checks.jws(), claims(ready), outputBytes);
      case "verify" -> new Verify(checks.jws(), tokens(ready), outputBytes);
      case "decode" -> new Decode(tokens(ready), outputBytes);
      default -> throw new IllegalArgumentException("no workload for " + ready.cell().operation());
    };
  }

  /** What a sign cell's calls take, in order: the library's claims object of each input item. */
  static Object[] claims(Cells.Ready ready) {
    return ready.input().items().stream().map(Input.Item::claims).toArray();
  }

  /** What a verify or decode cell's calls take, in order: the token of each input item. */
  static String[] tokens(Cells.Ready ready) {
    return ready.checks().pool().toArray(new String[0]);
  }

  /** The library's sign of claims i with the cell's key. */
  static final class Sign extends Workload {
    private final Jws jws;
    private final Object[] claims;

    Sign(Jws jws, Object[] claims, long outputBytes) {
      super(outputBytes);
      this.jws = jws;
      this.claims = claims;
    }

    @Override
    int passLength() {
      return claims.length;
    }

    @Override
    long run(long n) {
      long acc = 0;
      int i = position;
      for (long k = 0; k < n; k++) {
        acc += jws.sign(claims[i]).length();
        if (++i == claims.length) {
          i = 0;
        }
      }
      position = i;
      return acc;
    }
  }

  /** The library's verify of token i under the verify policy. */
  static final class Verify extends Workload {
    private final JwsLibrary library = JwsLibrary.current();
    private final Jws jws;
    private final String[] tokens;

    Verify(Jws jws, String[] tokens, long outputBytes) {
      super(outputBytes);
      this.jws = jws;
      this.tokens = tokens;
    }

    @Override
    int passLength() {
      return tokens.length;
    }

    @Override
    long run(long n) {
      long acc = 0;
      int i = position;
      for (long k = 0; k < n; k++) {
        acc += library.fold(jws.verify(tokens[i]));
        if (++i == tokens.length) {
          i = 0;
        }
      }
      position = i;
      return acc;
    }
  }

  /** The library's decode of token i, signature not checked. */
  static final class Decode extends Workload {
    private final JwsLibrary library = JwsLibrary.current();
    private final String[] tokens;

    Decode(String[] tokens, long outputBytes) {
      super(outputBytes);
      this.tokens = tokens;
    }

    @Override
    int passLength() {
      return tokens.length;
    }

    @Override
    long run(long n) {
      long acc = 0;
      int i = position;
      for (long k = 0; k < n; k++) {
        acc += library.fold(library.decode(tokens[i]));
        if (++i == tokens.length) {
          i = 0;
        }
      }
      position = i;
      return acc;
    }
  }
}
