'use strict';
// Suite harness (workflow/scripts/README.md, "Suite `harness`"): what the timing loop itself
// costs. A cell's call does no cryptography and goes through suite jwt's sign batch
// (bench.js's signBatch, or signBatchAwaited for a library whose calls return promises), as
// the signer of its one input; here: the cells' spec fields, the calls and their check.

const crypto = require('node:crypto');

const OPERATIONS = ['empty', 'trivial'];

/** A harness cell's own fields (bench.js has checked `operation` and `input`). */
function loadHarnessCell(cell, at, fail) {
  if (cell.algorithm !== 'none') fail(`${at}.algorithm must be "none" in suite harness`);
  if (cell.key_bits !== 0) fail(`${at}.key_bits must be 0 in suite harness`);
  return { algorithm: 'none', key_bits: 0, inputBytes: 0 };
}

/** A new Buffer of the 32 bytes 00 01 ... 1f. */
const counting32 = () => Buffer.from(Array.from({ length: 32 }, (_, i) => i));

/** crypto.timingSafeEqual's verdict on two buffers of one length: "1" equal, "0" not. */
const compare = (a, b) => (crypto.timingSafeEqual(a, b) ? '1' : '0');

/**
 * The cell's call, of the shape of the library's signer (claims -> token; a promise of it
 * when the library is async): `empty` returns '' and does nothing else; `trivial` compares
 * two equal 32-byte buffers made here, before any timing.
 */
function harnessCall(operation, async) {
  if (operation === 'empty') return async ? async () => '' : () => '';
  const [left, right] = [counting32(), counting32()];
  return async ? async () => compare(left, right) : () => compare(left, right);
}

/**
 * Check (before warm-up): trivial's comparison says equal on equal buffers and not equal
 * when one byte differs, and the call itself says equal. {status: 'ok', call, outputBytes}
 * (the length the call returns) or {status: 'failed', reason}.
 */
async function checkHarnessCell(cell, async) {
  const call = harnessCall(cell.operation, async);
  if (cell.operation === 'trivial') {
    const left = counting32();
    const differing = counting32();
    differing[31] ^= 1;
    if (compare(left, counting32()) !== '1') return { status: 'failed', reason: 'timingSafeEqual: equal buffers are not equal' };
    if (compare(left, differing) !== '0') return { status: 'failed', reason: 'timingSafeEqual: buffers a byte apart are equal' };
    if ((await call()) !== '1') return { status: 'failed', reason: 'the timed call does not say equal' };
  }
  return { status: 'ok', call, outputBytes: (await call()).length };
}

module.exports = { OPERATIONS, loadHarnessCell, checkHarnessCell };
