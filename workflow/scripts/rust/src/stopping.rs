//! The stopping rule, precision-targeted (workflow/scripts/README.md, "The stopping rule"; the
//! reference is workflow/scripts/jwtbench/stopping_rule.py). A cell's precision is the half-width of
//! the distribution-free CI of its median (order statistics, binomial ranks), in percent of
//! the median. After each round a cell still sampling stops at the sample cap, or at
//! precision once it has `min_samples` samples, its own half-width is within
//! `target_ci_pct` and so is that of every round-paired ratio (the spec's `pairs`) it takes
//! part in whose other cell still samples.
//!
//! `Rounds` is the rule's one implementation: the rounds loop of timing.rs feeds it the
//! samples it measures, and the `stopping --series FILE` command replays given values
//! through it (`replay`).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::failure::{Failure, read_file};

/// The largest `samples` a spec may ask for: 0.5^n stays a normal double.
pub const MAX_SAMPLES: u64 = 1000;

/// Why a cell stopped sampling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Its median's CI (and every pair's with a still-sampling partner) is within the target.
    Precision,
    /// It has `samples` samples.
    SampleCap,
    /// Its own time passed `max_cell_seconds` (in a replay: its values ran out).
    TimeCap,
    /// Its operation failed while it was timed.
    Failed,
}

impl Stop {
    /// The name in `stopping`'s output and in aggregation's `stop_reason`.
    pub fn name(self) -> &'static str {
        match self {
            Stop::Precision => "precision",
            Stop::SampleCap => "sample_cap",
            Stop::TimeCap => "exhausted",
            Stop::Failed => "failed",
        }
    }

    /// The words for a progress line.
    pub fn describe(self) -> &'static str {
        match self {
            Stop::Precision => "precision",
            Stop::SampleCap => "sample cap",
            Stop::TimeCap => "time cap",
            Stop::Failed => "failed",
        }
    }
}

/// 1-based ranks (l, u) of the order statistics bounding the median's CI of `n` values, or
/// None when `n` is too small for any interval at this confidence (n < 6 at 0.95).
///
/// l is the largest rank with P(Binomial(n, 1/2) <= l - 1) <= (1 - confidence) / 2 and
/// u = n + 1 - l. The sum runs upwards from P(B = 0) = 0.5^n, each next term the last one
/// times (n - k), then divided by (k + 1), in f64: the same operations in the same order
/// as every other driver, so every language finds the same ranks.
pub fn median_ci_ranks(n: usize, confidence: f64) -> Option<(usize, usize)> {
    let tail = (1.0 - confidence) / 2.0;
    let mut term = 0.5f64.powi(n as i32);
    let mut cumulative = 0.0;
    let mut lower = 0;
    for k in 0..n {
        cumulative += term;
        if cumulative > tail {
            break;
        }
        lower = k + 1;
        term = term * (n - k) as f64 / (k + 1) as f64;
    }
    (lower > 0).then_some((lower, n + 1 - lower))
}

/// The middle value of sorted values (the mean of the two middle ones for an even count).
fn sorted_median(sorted: &[f64]) -> f64 {
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[middle]
    } else {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    }
}

/// Half the width of the median's CI in percent of the median; infinite when there is no
/// CI (too few values) or the median is 0.
pub fn halfwidth_pct(values: &[f64], confidence: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let Some((low, high)) = median_ci_ranks(sorted.len(), confidence) else {
        return f64::INFINITY;
    };
    let middle = sorted_median(&sorted);
    if middle == 0.0 {
        return f64::INFINITY;
    }
    (sorted[high - 1] - sorted[low - 1]) / 2.0 / middle.abs() * 100.0
}

/// The spec's timing keys the rule reads.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// The sample cap.
    pub samples: u64,
    pub min_samples: u64,
    /// 0 turns the rule off: every cell then takes `samples` samples.
    pub target_ci_pct: f64,
    pub confidence: f64,
}

impl Target {
    /// Reads `samples`, `min_samples`, `target_ci_pct` and `confidence` from a spec's
    /// `timing` object; a missing key takes its default (`samples`: `default_samples`, or
    /// required when None), a bad one is an error naming it.
    pub fn from_timing(timing: &Value, default_samples: Option<u64>) -> Result<Target, String> {
        let whole = |key: &str, default: Option<u64>, max: Option<u64>| -> Result<u64, String> {
            let what = max.map_or("a whole number >= 0".into(), |max| {
                format!("a whole number from 0 to {max}")
            });
            match timing.get(key) {
                None => default.ok_or_else(|| format!("no timing.{key} ({what})")),
                Some(value) => value
                    .as_u64()
                    .or_else(|| {
                        value
                            .as_f64()
                            .filter(|x| x.fract() == 0.0 && *x >= 0.0)
                            .map(|x| x as u64)
                    })
                    .filter(|n| max.is_none_or(|max| *n <= max))
                    .ok_or_else(|| format!("timing.{key} must be {what}, not {value}")),
            }
        };
        let real = |key: &str, default: f64, ok: &dyn Fn(f64) -> bool, what: &str| -> Result<f64, String> {
            match timing.get(key) {
                None => Ok(default),
                Some(value) => value
                    .as_f64()
                    .filter(|x| ok(*x))
                    .ok_or_else(|| format!("timing.{key} must be {what}, not {value}")),
            }
        };
        Ok(Target {
            samples: whole("samples", default_samples, Some(MAX_SAMPLES))?,
            min_samples: whole("min_samples", Some(20), None)?,
            target_ci_pct: real("target_ci_pct", 1.0, &|x| x.is_finite() && x >= 0.0, "a number >= 0")?,
            confidence: real("confidence", 0.95, &|x| x > 0.0 && x < 1.0, "a number between 0 and 1")?,
        })
    }

    /// The rule is on (target_ci_pct > 0).
    pub fn targets_precision(&self) -> bool {
        self.target_ci_pct > 0.0
    }

    /// At least `min_samples` values whose median's CI half-width is within the target
    /// (never when the rule is off).
    pub fn precise(&self, values: &[f64]) -> bool {
        self.targets_precision()
            && values.len() as u64 >= self.min_samples
            && halfwidth_pct(values, self.confidence) <= self.target_ci_pct
    }
}

/// Reads the spec's `"pairs"`: `[i, j]` indexes into a list of `cells` cells (none when
/// absent).
pub fn parse_pairs(pairs: Option<&Value>, cells: usize) -> Result<Vec<(usize, usize)>, String> {
    let Some(pairs) = pairs else {
        return Ok(Vec::new());
    };
    let bad = || format!("\"pairs\" must be a list of [i, j] cell indexes below {cells}, not {pairs}");
    let index = |value: &Value| value.as_u64().filter(|i| *i < cells as u64).map(|i| i as usize);
    pairs
        .as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|pair| match pair.as_array().map(Vec::as_slice) {
            Some([i, j]) => index(i).zip(index(j)).ok_or_else(bad),
            _ => Err(bad()),
        })
        .collect()
}

/// The rule's state over one process's cells (0..cell count): feed each round's samples
/// with `add`, then call `end_round` to stop the cells that are done.
pub struct Rounds {
    target: Target,
    pairs: Vec<(usize, usize)>,
    /// Per cell: round number -> ns/op of its sample in that round.
    values: Vec<BTreeMap<u64, f64>>,
    /// Per cell: None while it samples, else why it stopped.
    stopped: Vec<Option<Stop>>,
}

impl Rounds {
    pub fn new(cell_count: usize, pairs: Vec<(usize, usize)>, target: Target) -> Rounds {
        Rounds {
            target,
            pairs,
            values: vec![BTreeMap::new(); cell_count],
            stopped: vec![None; cell_count],
        }
    }

    pub fn sampling(&self, cell: usize) -> bool {
        self.stopped[cell].is_none()
    }

    /// The cells still sampling, in order.
    pub fn active(&self) -> Vec<usize> {
        (0..self.stopped.len()).filter(|&cell| self.sampling(cell)).collect()
    }

    /// Why the cell stopped (None while it samples).
    pub fn reason(&self, cell: usize) -> Option<Stop> {
        self.stopped[cell]
    }

    /// How many samples the cell has.
    pub fn taken(&self, cell: usize) -> usize {
        self.values[cell].len()
    }

    /// The cell's ns/op values, in round order.
    pub fn values(&self, cell: usize) -> Vec<f64> {
        self.values[cell].values().copied().collect()
    }

    pub fn add(&mut self, cell: usize, round: u64, ns_per_op: f64) {
        self.values[cell].insert(round, ns_per_op);
    }

    /// Stops a cell (a later reason does not replace the first).
    pub fn stop(&mut self, cell: usize, reason: Stop) {
        self.stopped[cell].get_or_insert(reason);
    }

    /// Per-round ratios of cell i over cell j, over the rounds both were sampled in.
    fn paired(&self, i: usize, j: usize) -> Vec<f64> {
        let other = &self.values[j];
        self.values[i]
            .iter()
            .filter_map(|(round, a)| other.get(round).map(|b| a / b))
            .collect()
    }

    /// Whether a sampling cell is precise: its own values, and every pair it is in whose
    /// other cell still samples.
    fn precise(&self, cell: usize) -> bool {
        self.target.precise(&self.values(cell))
            && self
                .pairs
                .iter()
                .filter(|&&(i, j)| cell == i || cell == j)
                .filter(|&&(i, j)| self.sampling(if cell == i { j } else { i }))
                .all(|&(i, j)| self.target.precise(&self.paired(i, j)))
    }

    /// After a round: stops each sampling cell that reached the sample cap or the target.
    /// Decided for every cell on the state at the round's end, then applied, so the order
    /// of the cells does not matter.
    pub fn end_round(&mut self) {
        let done: Vec<(usize, Stop)> = self
            .active()
            .into_iter()
            .filter_map(|cell| {
                if self.taken(cell) as u64 >= self.target.samples {
                    Some((cell, Stop::SampleCap))
                } else if self.precise(cell) {
                    Some((cell, Stop::Precision))
                } else {
                    None
                }
            })
            .collect();
        for (cell, reason) in done {
            self.stop(cell, reason);
        }
    }
}

/// The rule on given values: `series[c]` is cell c's ns/op, sample by sample. Round r gives
/// every sampling cell its next value; a cell whose values have run out stops as at its
/// time cap. Returns each cell's sample count and reason.
pub fn replay(series: &[Vec<f64>], pairs: Vec<(usize, usize)>, target: Target) -> Vec<(usize, Stop)> {
    let mut rounds = Rounds::new(series.len(), pairs, target);
    for round in 1..=target.samples {
        let active = rounds.active();
        if active.is_empty() {
            break;
        }
        for cell in active {
            match series[cell].get(rounds.taken(cell)) {
                Some(&value) => rounds.add(cell, round, value),
                None => rounds.stop(cell, Stop::TimeCap),
            }
        }
        rounds.end_round();
        eprintln!("round {round}: {} cells sampling", rounds.active().len());
    }
    (0..series.len())
        .map(|cell| (rounds.taken(cell), rounds.reason(cell).unwrap_or(Stop::TimeCap)))
        .collect()
}

/// `stopping --series FILE`: replays FILE's `{"timing", "pairs", "series"}` through the
/// rule and prints `{"samples": [...], "reasons": [...]}`.
pub fn command(path: &str) -> Result<(), Failure> {
    let bad = |what: String| Failure::Input(format!("{path}: {what}"));
    let raw: Value = serde_json::from_slice(&read_file(path)?).map_err(|e| bad(format!("not JSON: {e}")))?;
    let timing = raw
        .get("timing")
        .filter(|t| t.is_object())
        .ok_or_else(|| bad("no \"timing\" object".into()))?;
    let target = Target::from_timing(timing, None).map_err(bad)?;
    let series = raw
        .get("series")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no \"series\" list".into()))?
        .iter()
        .enumerate()
        .map(|(c, values)| {
            values
                .as_array()
                .and_then(|values| values.iter().map(Value::as_f64).collect::<Option<Vec<f64>>>())
                .ok_or_else(|| bad(format!("series[{c}] is not a list of numbers")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let pairs = parse_pairs(raw.get("pairs"), series.len()).map_err(bad)?;
    let taken = replay(&series, pairs, target);
    for (cell, (count, reason)) in taken.iter().enumerate() {
        let median = if *count == 0 {
            f64::NAN
        } else {
            let mut sorted = series[cell][..*count].to_vec();
            sorted.sort_by(f64::total_cmp);
            sorted_median(&sorted)
        };
        eprintln!(
            "cell {cell}: median {median:.1} over {count} samples, stopped: {}",
            reason.describe()
        );
    }
    let samples: Vec<usize> = taken.iter().map(|(count, _)| *count).collect();
    let reasons: Vec<&str> = taken.iter().map(|(_, reason)| reason.name()).collect();
    println!("{}", json!({"samples": samples, "reasons": reasons}));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_of_known_answers() {
        assert_eq!(median_ci_ranks(20, 0.95), Some((6, 15)));
        assert_eq!(median_ci_ranks(5, 0.95), None);
        assert_eq!(median_ci_ranks(6, 0.95), Some((1, 6)));
        assert_eq!(median_ci_ranks(0, 0.95), None);
    }

    #[test]
    fn halfwidth_of_constant_values_is_zero() {
        assert_eq!(halfwidth_pct(&[7.0; 20], 0.95), 0.0);
        assert!(halfwidth_pct(&[7.0; 5], 0.95).is_infinite());
    }

    #[test]
    fn replay_stops_at_precision_cap_and_exhaustion() {
        let target = Target {
            samples: 30,
            min_samples: 10,
            target_ci_pct: 1.0,
            confidence: 0.95,
        };
        let noisy: Vec<f64> = (0..40).map(|k| if k % 2 == 0 { 100.0 } else { 200.0 }).collect();
        let taken = replay(&[vec![5.0; 40], noisy, vec![1.0; 4]], vec![], target);
        assert_eq!(
            taken,
            vec![(10, Stop::Precision), (30, Stop::SampleCap), (4, Stop::TimeCap)]
        );
    }

    #[test]
    fn a_noisy_pair_holds_both_cells_back() {
        let target = Target {
            samples: 30,
            min_samples: 10,
            target_ci_pct: 1.0,
            confidence: 0.95,
        };
        let a: Vec<f64> = (0..40).map(|k| if k % 2 == 0 { 100.0 } else { 100.5 }).collect();
        let b: Vec<f64> = (0..40).map(|k| if k % 2 == 0 { 100.5 } else { 100.0 }).collect();
        // Each within 0.25%, their ratio within ~0.5%: precise at 10 with a 1% target...
        let taken = replay(&[a.clone(), b.clone()], vec![(0, 1)], target);
        assert_eq!(taken, vec![(10, Stop::Precision), (10, Stop::Precision)]);
        // ... but not with a 0.3% target, which the cells meet alone and the pair does not.
        let strict = Target {
            target_ci_pct: 0.3,
            ..target
        };
        let taken = replay(&[a, b], vec![(0, 1)], strict);
        assert_eq!(taken, vec![(30, Stop::SampleCap), (30, Stop::SampleCap)]);
    }
}
