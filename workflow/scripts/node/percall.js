'use strict';
// Suite percall (workflow/scripts/README.md, "Suite `percall`"): seed 001's own method.
// Cell by cell, in spec order and one after another: warmup_calls untimed calls, then
// `calls` calls each timed on its own, one row each. No warm-up by time, no calibration,
// no interleaving. A call is one call of suite jwt's batch functions (bench.js), so the
// library calls and their arguments are exactly suite jwt's.

const { grouped, median } = require('./output');

const now = () => process.hrtime.bigint();

/**
 * The cell's calls, one at a time, until done or until max_cell_seconds (counted from
 * the first warm-up call) has passed, which is checked before each call with the clock
 * already read, so the check adds no clock read. Returns {rows, timedOut, spentNs, acc}.
 */
function callOneByOne({ batch, state }, { warmup_calls: warmups, calls }, limitNs) {
  const rows = [];
  let acc = 0;
  const start = now();
  let end = start;
  for (let i = 0; i < warmups + calls; i++) {
    if (i > 0 && end - start >= limitNs) return { rows, timedOut: true, spentNs: end - start, acc };
    const t0 = now();
    const folded = batch(1, state);
    end = now();
    acc = (acc + folded) | 0;
    if (i >= warmups) rows.push({ sample: i - warmups + 1, iterations: 1, elapsedNs: end - t0 });
  }
  return { rows, timedOut: false, spentNs: end - start, acc };
}

/**
 * Runs every checked cell ({cell, batch, state}) in spec order; a cell's rows are written
 * when it ends (their status is known then): ok, or timeout for the rows so far. Returns
 * the folded results.
 */
function runPercall(cells, settings, run) {
  const limitNs = BigInt(Math.round(run.timing.max_cell_seconds * 1e9));
  let sink = 0;
  for (const entry of cells) {
    const { cell } = entry;
    let result;
    try {
      result = callOneByOne(entry, settings, limitNs);
    } catch (err) {
      run.finish(cell, 'failed', `failed while calling (${err.message})`);
      continue;
    }
    sink = (sink + result.acc) | 0;
    const status = result.timedOut ? 'timeout' : 'ok';
    const timedOut = result.timedOut ? ' (timeout: max_cell_seconds ran out)' : '';
    if (result.rows.length === 0) {
      run.out.writeUntimed(cell, status, result.spentNs);
      run.finish(cell, status, `no timed call in ${grouped(Number(result.spentNs))} ns${timedOut}`, false);
      continue;
    }
    const { outputBytes } = entry.state;
    for (const row of result.rows) run.out.writeRow(cell, { ...row, outputBytes, status });
    const perCall = median(result.rows.map((r) => Number(r.elapsedNs)));
    run.finish(cell, status, `${result.rows.length}/${settings.calls} calls after ` +
      `${settings.warmup_calls} untimed, median ${grouped(perCall)} ns${timedOut}`, false);
  }
  return sink;
}

module.exports = { runPercall };
