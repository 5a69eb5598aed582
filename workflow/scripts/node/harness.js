'use strict';
// Suite harness (workflow/scripts/README.md, "Suite `harness`"): calls that do no
// cryptography, timed by suite jwt's sign batch as the signer of its one input (serve.js).

const crypto = require('node:crypto');

/** A new Buffer of the 32 bytes 00 01 ... 1f. */
const counting32 = () => Buffer.from(Array.from({ length: 32 }, (_, i) => i));

/** crypto.timingSafeEqual's verdict on two buffers of one length: "1" equal, "0" not. */
const compare = (a, b) => (crypto.timingSafeEqual(a, b) ? '1' : '0');

/** The cell's call, shaped as the library's signer (async or not): '' (empty), or two equal buffers compared (trivial). */
function harnessCall(operation, async) {
  if (operation === 'empty') return async ? async () => '' : () => '';
  const [left, right] = [counting32(), counting32()];
  return async ? async () => compare(left, right) : () => compare(left, right);
}

/** The check: trivial's comparison tells equal from a byte apart. {status: 'ok', call, outputBytes} or {status, reason}. */
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

module.exports = { checkHarnessCell };
