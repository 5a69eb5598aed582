package jwtbench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.function.IntConsumer;

/**
 * The stopping rule (README "Timing rules", "The stopping rule"), precision-targeted, the same
 * in every driver; its reference is workflow/scripts/jwtbench/stopping_rule.py. A cell's precision is the
 * half-width of the distribution-free confidence interval of its median (order statistics,
 * ranks from Binomial(n, 1/2)), in percent of the median. After each round, a cell still
 * sampling stops at the sample cap, or at precision once it has min_samples samples, its own
 * half-width is within target_ci_pct and so is that of every pair (a per-round ratio i / j) it
 * takes part in whose other cell still samples.
 *
 * <p>{@link Rounds} holds the rule's state and plays the rounds: {@link TimedSuite} feeds it
 * the batches it times, {@link #replay} (the `stopping --series FILE` command) given values.
 */
final class StoppingRule {
  /** The largest `samples` allowed: 0.5^n stays a normal double. */
  static final int MAX_SAMPLES = 1000;

  private StoppingRule() {}

  /** Why a cell stopped sampling. */
  enum Reason {
    PRECISION("precision", "precision"),
    SAMPLE_CAP("sample_cap", "the sample cap"),
    /** Its own time passed max_cell_seconds; for `stopping`, its values ran out ("exhausted"). */
    TIME_CAP("exhausted", "the time cap"),
    /** Not sampled in rounds (unsupported, failed, a per-iteration cell, not in this loop). */
    NOT_SAMPLED("not_sampled", "not sampled");

    /** The name `stopping` prints. */
    final String contractName;
    /** What stderr says: "stopped at " + this. */
    final String text;

    Reason(String contractName, String text) {
      this.contractName = contractName;
      this.text = text;
    }
  }

  /** Cells i and j (0-based spec indexes) whose per-round ratio i / j a verdict rests on. */
  record Pair(int i, int j) {
    boolean has(int cell) {
      return cell == i || cell == j;
    }

    int other(int cell) {
      return cell == i ? j : i;
    }
  }

  /** The timing keys the rule reads (min_samples, target_ci_pct, confidence default 20, 1.0, 0.95). */
  record Target(int samples, int minSamples, double targetCiPct, double confidence) {
    static final int DEFAULT_MIN_SAMPLES = 20;
    static final double DEFAULT_TARGET_CI_PCT = 1.0;
    static final double DEFAULT_CONFIDENCE = 0.95;

    /** target_ci_pct 0 turns the rule off: every cell then takes `samples`. */
    boolean on() {
      return targetCiPct > 0;
    }

    /** At least min_samples values whose median's CI half-width is within target_ci_pct. */
    boolean precise(double[] values) {
      return on() && values.length >= minSamples && halfwidthPct(values, confidence) <= targetCiPct;
    }

    /**
     * The batches a calibrated cell must still fit in max_cell_seconds: min_samples
     * with the rule on (never more than `samples`), else `samples`.
     */
    int projectedSamples() {
      return on() ? Math.min(minSamples, samples) : samples;
    }
  }

  /**
   * The 1-based ranks {l, u} of the order statistics bounding the median's CI among n values,
   * or null when n is too small for any interval at this confidence (n < 6 at 0.95). l is the
   * largest rank with P(Binomial(n, 1/2) <= l - 1) <= (1 - confidence) / 2, u = n + 1 - l;
   * the sum runs upwards from 0.5^n, each next term the last times (n - k), then divided by
   * (k + 1), in doubles: the same operations in every driver, so every driver finds the same ranks.
   */
  static int[] ranks(int n, double confidence) {
    double tail = (1 - confidence) / 2;
    double term = Math.scalb(1.0, -n); // 0.5^n, exactly
    double cumulative = 0;
    int lower = 0;
    for (int k = 0; k < n; k++) {
      cumulative += term;
      if (cumulative > tail) {
        break;
      }
      lower = k + 1;
      term = term * (n - k) / (k + 1);
    }
    return lower == 0 ? null : new int[] {lower, n + 1 - lower};
  }

  /** The CI's half-width in percent of the median; infinite with no CI or a zero median. */
  static double halfwidthPct(double[] values, double confidence) {
    int[] ranks = ranks(values.length, confidence);
    if (ranks == null) {
      return Double.POSITIVE_INFINITY;
    }
    double[] ordered = values.clone();
    double median = TimedSuite.median(ordered); // sorts `ordered`
    if (median == 0) {
      return Double.POSITIVE_INFINITY;
    }
    return (ordered[ranks[1] - 1] - ordered[ranks[0] - 1]) / 2 / Math.abs(median) * 100;
  }

  /** One cell's turn in a round (see {@link Rounds#play}). */
  @FunctionalInterface
  interface Turn {
    /**
     * Takes cell `cell`'s sample of round `round` and gives its ns/op; empty when the cell takes
     * none and stops instead: at its time cap, unless the turn stopped it with another reason.
     */
    OptionalDouble take(int cell, int round);
  }

  /**
   * The rule's state over one spec's cells (indexed as the spec's `cells`): each cell's ns/op
   * by round, and why it stopped (null while it samples).
   */
  static final class Rounds {
    private final Target target;
    private final List<Pair> pairs;
    private final List<TreeMap<Integer, Double>> values = new ArrayList<>();
    private final Reason[] stopped;

    Rounds(int cells, List<Pair> pairs, Target target) {
      this.target = target;
      this.pairs = List.copyOf(pairs);
      this.stopped = new Reason[cells];
      for (int cell = 0; cell < cells; cell++) {
        values.add(new TreeMap<>());
      }
    }

    boolean sampling(int cell) {
      return stopped[cell] == null;
    }

    /** Why the cell stopped; a cell left sampling after the last round ran out (time cap). */
    Reason reason(int cell) {
      return sampling(cell) ? Reason.TIME_CAP : stopped[cell];
    }

    int count(int cell) {
      return values.get(cell).size();
    }

    void add(int cell, int round, double nsPerOp) {
      values.get(cell).put(round, nsPerOp);
    }

    /** Stops the cell unless it has stopped already (the first reason stays). */
    void stop(int cell, Reason reason) {
      if (stopped[cell] == null) {
        stopped[cell] = reason;
      }
    }

    double[] values(int cell) {
      return values.get(cell).values().stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** Per-round ratios of the pair's cell i over its cell j, over the rounds both were sampled in. */
    double[] paired(Pair pair) {
      Map<Integer, Double> b = values.get(pair.j());
      return values.get(pair.i()).entrySet().stream().filter(e -> b.containsKey(e.getKey()))
          .mapToDouble(e -> e.getValue() / b.get(e.getKey())).toArray();
    }

    /**
     * The end of a round: every cell still sampling that has `samples` samples stops at the
     * sample cap; one that is precise, and whose every pair with a still-sampling partner is
     * too, stops at precision. Decided for all cells on the state at the round's end, then
     * applied, so the order of the cells does not matter.
     */
    void endRound() {
      Map<Integer, Reason> done = new LinkedHashMap<>();
      for (int cell = 0; cell < stopped.length; cell++) {
        if (!sampling(cell)) {
          continue;
        }
        if (count(cell) >= target.samples()) {
          done.put(cell, Reason.SAMPLE_CAP);
        } else if (target.precise(values(cell)) && pairsPrecise(cell)) {
          done.put(cell, Reason.PRECISION);
        }
      }
      done.forEach(this::stop);
    }

    private boolean pairsPrecise(int cell) {
      for (Pair pair : pairs) {
        if (pair.has(cell) && sampling(pair.other(cell)) && !target.precise(paired(pair))) {
          return false;
        }
      }
      return true;
    }

    /**
     * Rounds 1..samples until no cell samples: each round, `turn` takes the sample of every
     * cell sampling at the round's start, in cell order (a cell it gives no value stops, at
     * its time cap unless `turn` stopped it otherwise), then the round ends ({@link #endRound})
     * and `afterRound` hears its number. The rounds played.
     */
    int play(Turn turn, IntConsumer afterRound) {
      int played = 0;
      for (int round = 1; round <= target.samples(); round++) {
        List<Integer> active = new ArrayList<>();
        for (int cell = 0; cell < stopped.length; cell++) {
          if (sampling(cell)) {
            active.add(cell);
          }
        }
        if (active.isEmpty()) {
          break;
        }
        for (int cell : active) {
          OptionalDouble nsPerOp = turn.take(cell, round);
          if (nsPerOp.isPresent()) {
            add(cell, round, nsPerOp.getAsDouble());
          } else {
            stop(cell, Reason.TIME_CAP);
          }
        }
        endRound();
        played = round;
        afterRound.accept(round);
      }
      return played;
    }
  }

  /** A cell's outcome: the samples it took and why it stopped. */
  record Outcome(int samples, Reason reason) {}

  /**
   * The rule on given values: series[c] is cell c's ns/op, sample by sample; round r gives every
   * sampling cell its next value, and a cell whose values have run out stops (time cap).
   */
  static List<Outcome> replay(double[][] series, List<Pair> pairs, Target target) {
    Rounds rounds = new Rounds(series.length, pairs, target);
    rounds.play((cell, round) -> {
      int taken = rounds.count(cell);
      return taken < series[cell].length ? OptionalDouble.of(series[cell][taken]) : OptionalDouble.empty();
    }, round -> {});
    List<Outcome> outcomes = new ArrayList<>(series.length);
    for (int cell = 0; cell < series.length; cell++) {
      outcomes.add(new Outcome(rounds.count(cell), rounds.reason(cell)));
    }
    return outcomes;
  }

  /**
   * `stopping --series FILE`: FILE's {"timing", "pairs", "series"} (timing and pairs checked
   * as a spec's are) replayed; {"samples": [...], "reasons": [...]} as JSON.
   */
  static String replayFile(String file) {
    String where = "--series " + file;
    JsonNode root = Json.parseObject(Json.readBytes(file, "--series"), where);
    Spec.Reader r = new Spec.Reader(where);
    JsonNode cells = root.get("series");
    if (cells == null || !cells.isArray()) {
      throw r.fail("\"series\" must be an array of arrays of ns/op values");
    }
    double[][] series = new double[cells.size()][];
    for (int c = 0; c < series.length; c++) {
      JsonNode cell = cells.get(c);
      if (!cell.isArray()) {
        throw r.fail("series[" + c + "] must be an array of ns/op values");
      }
      series[c] = new double[cell.size()];
      for (int k = 0; k < series[c].length; k++) {
        JsonNode value = cell.get(k);
        if (!value.isNumber() || !Double.isFinite(value.asDouble()) || value.asDouble() <= 0) {
          throw r.fail("series[" + c + "][" + k + "] must be a number > 0");
        }
        series[c][k] = value.asDouble();
      }
    }
    Target target = Spec.target(r, r.object(root, "timing", ""), true);
    List<Outcome> outcomes = replay(series, Spec.pairs(r, root, series.length, "series"), target);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("samples", outcomes.stream().map(Outcome::samples).toList());
    out.put("reasons", outcomes.stream().map(o -> o.reason().contractName).toList());
    return Json.write(out);
  }

  /** For stderr: "median CI +/- 1.23%", or that the values are too few for one. */
  static String describe(double[] values, double confidence) {
    double halfwidth = halfwidthPct(values, confidence);
    return Double.isInfinite(halfwidth) ? "no median CI from " + values.length + " values"
        : String.format(Locale.ROOT, "median CI +/- %.2f%%", halfwidth);
  }
}
