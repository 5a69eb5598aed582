'use strict';
// Suite tokensize (workflow/scripts/README.md): every record of a dataset signed once, in
// file order, each call timed on its own; one row per record. No warm-up or calibration:
// the sizes are the result, elapsed_ns is a cold single call.

const { jwt, signOptions } = require('./jwt_ops');
const { stderr, grouped } = require('./output');

/**
 * Signs the cell's records until done or until max_cell_seconds runs out (checked before
 * each record, so a cell that signed every record is ok). Returns {rows, timedOut, acc}.
 */
function signRecords(cell, limitNs, progress) {
  const { records, signingKey, algorithm } = cell;
  const rows = [];
  let acc = 0;
  const start = process.hrtime.bigint();
  for (const [i, { bytes, claims }] of records.entries()) {
    if (i > 0 && process.hrtime.bigint() - start >= limitNs) return { rows, timedOut: true, acc };
    const options = signOptions(algorithm, claims);
    const t0 = process.hrtime.bigint();
    const token = jwt.sign(claims, signingKey, options);
    const t1 = process.hrtime.bigint();
    acc = (acc + token.length) | 0;
    rows.push({
      sample: i + 1, iterations: 1, elapsedNs: t1 - t0, inputBytes: bytes,
      outputBytes: Buffer.byteLength(token),
    });
    progress(i + 1);
  }
  return { rows, timedOut: false, acc };
}

/** A progress line on stderr at every 10% of `total` (and at the end). */
function progressEvery10(prefix, total) {
  const step = Math.max(1, Math.floor(total / 10));
  return (done) => {
    if (done % step === 0 || done === total) {
      stderr(`${prefix}: ${done}/${total} records (${Math.floor((100 * done) / total)}%)`);
    }
  };
}

/**
 * Runs every checked cell in spec order; a cell's rows are buffered and written when it
 * ends, with status timeout if max_cell_seconds ran out. Returns the folded token lengths.
 */
function runTokensize(passed, run) {
  const limitNs = BigInt(Math.round(run.timing.max_cell_seconds * 1e9));
  let sink = 0;
  for (const { cell } of passed) {
    const head = run.head(cell);
    let result;
    try {
      result = signRecords(cell, limitNs, progressEvery10(head, cell.records.length));
    } catch (err) {
      run.finish(cell, 'failed', `failed while signing (${err.message})`);
      continue;
    }
    const status = result.timedOut ? 'timeout' : 'ok';
    for (const row of result.rows) run.out.writeRow(cell, { ...row, status });
    sink = (sink + result.acc) | 0;
    const total = result.rows.reduce((sum, r) => sum + r.outputBytes, 0);
    run.finish(cell, status, `${result.rows.length}/${cell.records.length} records signed, ` +
      `${grouped(total)} token bytes${result.timedOut ? ' (timeout: max_cell_seconds ran out)' : ''}`, false);
  }
  return sink;
}

module.exports = { runTokensize };
