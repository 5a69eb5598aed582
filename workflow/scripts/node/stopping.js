'use strict';
// The stopping rule, precision-targeted (workflow/scripts/README.md, "The stopping rule"
// and "`stopping --series FILE`"; the reference is workflow/scripts/jwtbench/stopping_rule.py).
// A Rounds object holds the rule's state over one run's cells: bench.js's interleaved
// rounds feed it every sample and ask it after each round which cells go on; `replay`
// drives the very same object for the `stopping` subcommand.

const { InputError, readJsonObject, specNumber, NON_NEGATIVE, COUNT } = require('./inputs');

// Why a cell stopped sampling. The first three are the contract's (`stopping` prints them);
// a bench cell stopped by its max_cell_seconds is TIME_CAP (what `replay` calls EXHAUSTED),
// one that is never sampled in rounds (failed, unsupported, not timed here) NOT_SAMPLED.
const PRECISION = 'precision';
const SAMPLE_CAP = 'sample_cap';
const EXHAUSTED = 'exhausted';
const TIME_CAP = 'time_cap';
const NOT_SAMPLED = 'not_sampled';

const MAX_SAMPLES = 1000; // 0.5 ** n stays a normal double up to n = 1022
const DEFAULTS = { min_samples: 20, target_ci_pct: 1.0, confidence: 0.95 };

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// ---------------------------------------------------------------------------------------
// The CI of a median

/**
 * 1-based ranks [l, u] of the order statistics bounding the median's CI over n values, or
 * null when n is too small for any interval (n < 6 at 0.95). l is the largest rank with
 * P(Binomial(n, 1/2) <= l - 1) <= (1 - confidence) / 2, summed upwards in doubles from
 * t(0) = 0.5^n with t(k+1) = t(k) * (n - k) / (k + 1), the same operations in the same
 * order as every other driver; u = n + 1 - l.
 */
function medianCiRanks(n, confidence) {
  const tail = (1 - confidence) / 2;
  let term = 0.5 ** n;
  let cumulative = 0;
  let lower = 0;
  for (let k = 0; k < n; k++) {
    cumulative += term;
    if (cumulative > tail) break;
    lower = k + 1;
    term = term * (n - k) / (k + 1);
  }
  return lower ? [lower, n + 1 - lower] : null;
}

/** {median, low, high} of numbers; low and high are -/+Infinity when there is no CI. */
function medianCi(values, confidence) {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  const mid = n >> 1;
  const median = n % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  const ranks = medianCiRanks(n, confidence);
  if (ranks === null) return { median, low: -Infinity, high: Infinity };
  return { median, low: sorted[ranks[0] - 1], high: sorted[ranks[1] - 1] };
}

/** Half the CI's width in percent of the median; Infinity when there is no CI. */
function halfwidthPct(values, confidence) {
  const { median, low, high } = medianCi(values, confidence);
  if (low === -Infinity || median === 0) return Infinity;
  return (high - low) / 2 / Math.abs(median) * 100;
}

// ---------------------------------------------------------------------------------------
// The rule

/** The timing keys the rule reads (samples is the cap, at most MAX_SAMPLES). */
class Target {
  constructor({
    samples, minSamples = DEFAULTS.min_samples, targetCiPct = DEFAULTS.target_ci_pct,
    confidence = DEFAULTS.confidence,
  }) {
    Object.assign(this, { samples, minSamples, targetCiPct, confidence });
  }

  /**
   * At least minSamples values whose median's CI half-width is within targetCiPct (never
   * with targetCiPct 0: the rule is off, every cell takes `samples`).
   */
  precise(values) {
    return this.targetCiPct > 0 && values.length >= this.minSamples
      && halfwidthPct(values, this.confidence) <= this.targetCiPct;
  }

  /**
   * The batches a calibrated cell must still fit in max_cell_seconds: min_samples
   * while the rule may stop it before the cap (never more than samples), else samples.
   */
  plannedSamples() {
    return this.targetCiPct > 0 ? Math.min(this.minSamples, this.samples) : this.samples;
  }
}

/**
 * The rule's state over cells 0..cellCount-1 (bench: the spec's cells): each cell's ns/op
 * by round, and why it stopped (null while it samples). `pairs` are [i, j] cell indexes
 * whose per-round ratio i / j a verdict rests on.
 */
class Rounds {
  constructor(cellCount, pairs, target) {
    this.target = target;
    this.pairs = pairs;
    this.values = Array.from({ length: cellCount }, () => new Map()); // round -> ns/op
    this.stopped = new Array(cellCount).fill(null);
  }

  sampling(cell) {
    return this.stopped[cell] === null;
  }

  anySampling() {
    return this.stopped.includes(null);
  }

  count(cell) {
    return this.values[cell].size;
  }

  add(cell, round, nsPerOp) {
    this.values[cell].set(round, nsPerOp);
  }

  /** Once stopped, a cell keeps its first reason. */
  stop(cell, reason) {
    if (this.stopped[cell] === null) this.stopped[cell] = reason;
  }

  /** Per-round ratios of cell i over cell j, over the rounds both were sampled in. */
  paired(i, j) {
    const bottom = this.values[j];
    const ratios = [];
    for (const [round, top] of this.values[i]) {
      if (bottom.has(round)) ratios.push(top / bottom.get(round));
    }
    return ratios;
  }

  /**
   * After a round: stops every sampling cell that has `samples` samples (SAMPLE_CAP), or
   * that is precise itself and in every pair whose other cell still samples (PRECISION).
   * All verdicts are taken on the state at the round's end, then applied, so the order of
   * the cells does not matter. Returns the [cell, reason]s it stopped.
   */
  endRound() {
    const { target } = this;
    const done = [];
    this.values.forEach((values, cell) => {
      if (!this.sampling(cell)) return;
      if (values.size >= target.samples) {
        done.push([cell, SAMPLE_CAP]);
      } else if (target.precise([...values.values()]) && this.pairs.every(([i, j]) => (cell !== i && cell !== j)
          || !this.sampling(cell === i ? j : i) || target.precise(this.paired(i, j)))) {
        done.push([cell, PRECISION]);
      }
    });
    for (const [cell, reason] of done) this.stop(cell, reason);
    return done;
  }
}

/**
 * The rule on given values: series[c] is cell c's ns/op, sample by sample. Round r gives
 * every sampling cell its next value, or stops it as EXHAUSTED when it has none left (in
 * bench: its time cap); then the round ends. Returns [{samples, reason}] per cell.
 */
function replay(series, pairs, target) {
  const rounds = new Rounds(series.length, pairs, target);
  for (let round = 1; round <= target.samples && rounds.anySampling(); round++) {
    series.forEach((values, cell) => {
      if (!rounds.sampling(cell)) return;
      const taken = rounds.count(cell);
      if (taken >= values.length) rounds.stop(cell, EXHAUSTED);
      else rounds.add(cell, round, values[taken]);
    });
    rounds.endRound();
  }
  return series.map((_, cell) => ({ samples: rounds.count(cell), reason: rounds.stopped[cell] ?? EXHAUSTED }));
}

// ---------------------------------------------------------------------------------------
// Spec keys and the `stopping --series FILE` input

const SAMPLE_COUNT = {
  ok: (v) => Number.isInteger(v) && v >= 1 && v <= MAX_SAMPLES, what: `an integer from 1 to ${MAX_SAMPLES}`,
};
const CONFIDENCE = { ok: (v) => v > 0 && v < 1, what: 'a number > 0 and < 1' };

/**
 * The rule's keys of a `timing` object, validated (`fail(message)` throws): samples
 * (required unless `required` is false), min_samples, target_ci_pct (0: rule off) and
 * confidence (absent: 20, 1.0, 0.95). A Target, or undefined when samples is absent.
 */
function loadTarget(timing, fail, required = true) {
  const number = (name, rule, needed = false) => specNumber(timing, 'timing', name, { ...rule, required: needed }, fail);
  const samples = number('samples', SAMPLE_COUNT, required);
  const minSamples = number('min_samples', COUNT) ?? DEFAULTS.min_samples;
  const targetCiPct = number('target_ci_pct', NON_NEGATIVE) ?? DEFAULTS.target_ci_pct;
  const confidence = number('confidence', CONFIDENCE) ?? DEFAULTS.confidence;
  return samples === undefined ? undefined : new Target({ samples, minSamples, targetCiPct, confidence });
}

/** A `pairs` value: [[i, j], ...] of 0-based indexes below cellCount; absent means []. */
function loadPairs(pairs, cellCount, fail) {
  if (pairs === undefined) return [];
  if (!Array.isArray(pairs)) fail('"pairs" must be an array of [i, j] cell indexes');
  const index = (v) => Number.isInteger(v) && v >= 0 && v < cellCount;
  return pairs.map((pair, p) => {
    if (!Array.isArray(pair) || pair.length !== 2 || !pair.every(index)) {
      fail(`"pairs[${p}]" must be [i, j], two integers from 0 to ${cellCount - 1} (indexes of the ${cellCount} cells)`);
    }
    return [pair[0], pair[1]];
  });
}

/** Reads and validates `stopping --series FILE`: {target, pairs, series}. */
function readSeries(file) {
  const { value } = readJsonObject(file, '--series');
  const fail = (msg) => { throw new InputError(`--series ${file}: ${msg}`); };
  if (!isObject(value.timing)) fail('"timing" must be an object');
  const target = loadTarget(value.timing, fail);
  const { series } = value;
  if (!Array.isArray(series)) fail('"series" must be an array: per cell, an array of ns/op values');
  series.forEach((values, c) => {
    if (!Array.isArray(values) || !values.every((v) => typeof v === 'number' && Number.isFinite(v) && v > 0)) {
      fail(`"series[${c}]" must be an array of numbers > 0 (ns/op)`);
    }
  });
  return { target, pairs: loadPairs(value.pairs, series.length, fail), series };
}

module.exports = {
  PRECISION, SAMPLE_CAP, EXHAUSTED, TIME_CAP, NOT_SAMPLED, MAX_SAMPLES,
  medianCiRanks, medianCi, halfwidthPct, Target, Rounds, replay, loadTarget, loadPairs, readSeries,
};
