'use strict';
// Reads a raw-sample CSV of `bench` and the file schedtap.js wrote beside it; prints, per
// cell and for the drift reference, the median ns/op, the 5th-95th percentile of ns/op over
// that median and the CV, over every round and over the rounds in which no other process
// took CPU time from the driver's main thread. A round counts as disturbed when the main
// thread's run-queue wait during its rows, less the CPU time of the process's own other
// threads meanwhile (V8's GC workers wait on the same CPU), is over 1% of the round's timed
// time, or when the hypervisor stole any tick of the CPU meanwhile. With a window W, it also prints the reference and the first cell by W rounds, over
// the undisturbed rounds (over their median), with the new space's size and the old space's use.
// Usage: node rounds.js RAW.csv TAP [W]
const fs = require('fs');

const [csvFile, tapFile, windowArg] = process.argv.slice(2);
const lines = fs.readFileSync(csvFile, 'utf8').trim().split('\n');
const header = lines[0].split(',');
const rows = lines.slice(1).map((line) => Object.fromEntries(line.split(',').map((v, i) => [header[i], v])));
const tap = fs.readFileSync(tapFile, 'utf8').trim().split('\n').map((line) => line.split(',').map(Number));
if (tap.length !== rows.length + 1) throw new Error(`${tapFile}: ${tap.length} lines for ${rows.length} rows`);

const wait = new Map();
const timed = new Map();
const newSpace = new Map();
const oldUsed = new Map();
const steal = new Map();
rows.forEach((row, i) => {
  const round = Number(row.sample);
  const [before, after] = [tap[i], tap[i + 1]];
  const foreign = (after[1] - before[1]) - (after[2] - before[2]);
  wait.set(round, (wait.get(round) || 0) + foreign);
  timed.set(round, (timed.get(round) || 0) + Number(row.elapsed_ns));
  newSpace.set(round, Math.max(newSpace.get(round) || 0, after[3]));
  oldUsed.set(round, after[4]);
  steal.set(round, (steal.get(round) || 0) + (after[5] - before[5]));
});
const disturbed = new Set([...wait.keys()].filter((round) => wait.get(round) > 0.01 * timed.get(round) || steal.get(round) > 0));
const stolen = [...steal.values()].filter((ticks) => ticks > 0).length;

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const percentile = (values, p) => {
  const s = [...values].sort((a, b) => a - b);
  const k = (s.length - 1) * p;
  const f = Math.floor(k);
  const c = Math.min(f + 1, s.length - 1);
  return s[f] + (s[c] - s[f]) * (k - f);
};
const cv = (values) => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length) / mean;
};
const describe = (values) => {
  if (values.length < 2) return 'too few rounds';
  const m = median(values);
  return `median ${m.toFixed(0).padStart(7)} ns, p5-p95 ${(percentile(values, 0.05) / m).toFixed(3)}-` +
    `${(percentile(values, 0.95) / m).toFixed(3)}, CV ${(100 * cv(values)).toFixed(1).padStart(4)}%`;
};

const cells = new Map();
for (const row of rows) {
  if (row.status !== 'ok') continue;
  const key = `${row.operation} ${row.algorithm}`;
  if (!cells.has(key)) cells.set(key, new Map());
  cells.get(key).set(Number(row.sample), Number(row.elapsed_ns) / Number(row.iterations));
}
const waits = [...disturbed].map((round) => wait.get(round) / timed.get(round));
console.log(`${wait.size} rounds; ${disturbed.size} disturbed by other processes` +
  (waits.length ? ` (median wait ${(100 * median(waits)).toFixed(0)}% of the round)` : '') +
  `; ${stolen} with steal time`);
for (const [key, series] of cells) {
  const clean = [...series].filter(([round]) => !disturbed.has(round)).map(([, v]) => v);
  console.log(`  ${key.padEnd(22)} all: ${describe([...series.values()])} | undisturbed: ${describe(clean)}`);
}

// The undisturbed rounds whose reference is over 1.2x its undisturbed median: each cell's
// median there over its own undisturbed median (all cells alike: the machine's speed).
const referenceSeries = cells.get('reference SHA-256');
if (referenceSeries) {
  const calm = (series) => [...series].filter(([round]) => !disturbed.has(round));
  const referenceMedian = median(calm(referenceSeries).map(([, v]) => v));
  const slow = calm(referenceSeries).filter(([, v]) => v > 1.2 * referenceMedian).map(([round]) => round);
  if (slow.length) {
    const ratios = [...cells].map(([key, series]) => {
      const own = median(calm(series).map(([, v]) => v));
      const there = slow.filter((round) => series.has(round)).map((round) => series.get(round));
      return `${key} ${there.length ? (median(there) / own).toFixed(2) : '-'}`;
    });
    console.log(`  ${slow.length} undisturbed rounds with the reference over 1.2x: ${ratios.join(', ')}`);
  }
}

const width = Number(windowArg || 0);
if (width > 0) {
  const keys = [...cells.keys()];
  const [reference, first] = [cells.get('reference SHA-256'), cells.get(keys.find((k) => !k.startsWith('reference')))];
  const undisturbed = (series) => [...series].filter(([round]) => !disturbed.has(round)).map(([, v]) => v);
  const [mr, mf] = [median(undisturbed(reference)), median(undisturbed(first))];
  for (let start = 1; start <= wait.size; start += width) {
    const clean = [];
    for (let round = start; round < start + width; round += 1) if (reference.has(round) && !disturbed.has(round)) clean.push(round);
    const all = [];
    for (let round = start; round < start + width; round += 1) if (reference.has(round)) all.push(round);
    const share = all.reduce((a, r) => a + wait.get(r), 0) / all.reduce((a, r) => a + timed.get(r), 0);
    const label = `rounds ${String(start).padStart(4)}-${String(start + width - 1).padStart(4)}: all rounds: ` +
      `reference ${(median(all.map((r) => reference.get(r))) / mr).toFixed(2)}, others' share ${(100 * Math.max(0, share)).toFixed(0).padStart(2)}% | undisturbed`;
    if (!clean.length) { console.log(`  ${label}: none`); continue; }
    const last = clean[clean.length - 1];
    console.log(`  ${label}: reference ${(median(clean.map((r) => reference.get(r))) / mr).toFixed(2)}, ` +
      `${keys.find((k) => !k.startsWith('reference'))} ${(median(clean.filter((r) => first.has(r)).map((r) => first.get(r))) / mf).toFixed(2)}, ` +
      `new space ${Math.max(...clean.map((r) => newSpace.get(r))) >> 10} KB, old space used ${oldUsed.get(last) >> 10} KB ` +
      `(${clean.length} undisturbed)`);
  }
}
