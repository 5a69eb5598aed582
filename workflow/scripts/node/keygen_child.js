'use strict';
// Suite keygen's per-iteration cells run here, in a child process forked by keygen.js
// for each cell, so that the parent can SIGKILL it when max_cell_seconds runs out even
// in the middle of one synchronous key generation (workflow/scripts/README.md, "Suite
// `keygen`", Budget). Protocol over the IPC channel:
//   child -> parent  {type: 'ready'}
//   parent -> child  {operation, family, keyBits, digest, messageBytes,
//                     iterations, targetCellSeconds, maxIterations}
//   child -> parent  {type: 'check', problem} after the first iteration (its key pair's
//                    check; a problem ends the cell), then
//                    {type: 'iteration', ns, outputBytes} per iteration, the first too,
//                    {type: 'done'} | {type: 'error', reason}; then the child exits.
// Each message is sent (and its callback awaited) between iterations, outside the timing.

const crypto = require('node:crypto');

/** The contract's curve for key_bits, and OpenSSL's name for it (asymmetricKeyDetails). */
const CURVES = { 256: 'P-256', 384: 'P-384', 521: 'P-521' };
const OPENSSL_CURVES = { 256: 'prime256v1', 384: 'secp384r1', 521: 'secp521r1' };
const RSA_EXPONENT = 65537;

/** The seed's message: `n` bytes of the ASCII digits 0123456789 repeated. */
function digitBytes(n) {
  const bytes = Buffer.alloc(n);
  for (let i = 0; i < n; i++) bytes[i] = 0x30 + (i % 10);
  return bytes;
}

/** One key pair of the family and size, as KeyObjects. */
function generate(family, keyBits) {
  return family === 'RSA'
    ? crypto.generateKeyPairSync('rsa', { modulusLength: keyBits, publicExponent: RSA_EXPONENT })
    : crypto.generateKeyPairSync('ec', { namedCurve: CURVES[keyBits] });
}

/**
 * One iteration, timed alone: `keygen+sign+verify` generates a key pair, signs the
 * message and verifies the signature (a signature that does not verify throws);
 * `keygen` generates a key pair. Returns {ns, outputBytes, keys}: the signature's length,
 * or the public key's DER (SPKI) length, exported after the timing; `keys` the generated
 * pair ({publicKey, privateKey}, for the first iteration's check).
 */
function iteration(job, message) {
  const { family, keyBits, digest } = job;
  if (job.operation === 'keygen') {
    const t0 = process.hrtime.bigint();
    const keys = generate(family, keyBits);
    const t1 = process.hrtime.bigint();
    return { ns: Number(t1 - t0), outputBytes: keys.publicKey.export({ type: 'spki', format: 'der' }).length, keys };
  }
  const t0 = process.hrtime.bigint();
  const keys = generate(family, keyBits);
  const signature = crypto.sign(digest, message, keys.privateKey);
  const valid = crypto.verify(digest, message, keys.publicKey, signature);
  const t1 = process.hrtime.bigint();
  if (!valid) throw new Error('a signature by a freshly generated key did not verify');
  return { ns: Number(t1 - t0), outputBytes: signature.length, keys };
}

/**
 * The check of a generated key pair (the cell's first iteration's): the right size
 * (modulus bits and exponent, or curve), it signs a 10-byte message, the signature
 * verifies, and the same signature with the lowest bit of its first byte flipped does
 * not. The problem, or null.
 */
function checkGenerated({ publicKey, privateKey }, { family, keyBits, digest }) {
  const details = publicKey.asymmetricKeyDetails;
  if (family === 'RSA') {
    if (details.modulusLength !== keyBits) return `a generated key has a ${details.modulusLength}-bit modulus, not ${keyBits}`;
    if (details.publicExponent !== BigInt(RSA_EXPONENT)) return `a generated key has public exponent ${details.publicExponent}`;
  } else if (details.namedCurve !== OPENSSL_CURVES[keyBits]) {
    return `a generated key is on ${details.namedCurve}, not ${CURVES[keyBits]}`;
  }
  const message = digitBytes(10);
  const signature = crypto.sign(digest, message, privateKey);
  if (!crypto.verify(digest, message, publicKey, signature)) return 'a generated key\'s signature does not verify';
  const bad = Buffer.from(signature);
  bad[0] ^= 1;
  if (crypto.verify(digest, message, publicKey, bad)) return 'a generated key verifies a signature with a flipped bit';
  return null;
}

const send = (message) => new Promise((resolve, reject) => {
  process.send(message, (err) => (err ? reject(err) : resolve()));
});

/**
 * Every iteration timed, the first too: at least `iterations`, and more while the time
 * since the first began is under targetCellSeconds, up to maxIterations. Right after the
 * first (outside its timing) its key pair is checked; a problem ends the cell there.
 */
async function run(job) {
  const message = digitBytes(job.messageBytes);
  const start = process.hrtime.bigint();
  const targetNs = BigInt(Math.round(job.targetCellSeconds * 1e9));
  for (let count = 0; count < job.maxIterations; count++) {
    if (count >= job.iterations && process.hrtime.bigint() - start >= targetNs) break;
    const { ns, outputBytes, keys } = iteration(job, message);
    if (count === 0) {
      const problem = checkGenerated(keys, job);
      await send({ type: 'check', problem });
      if (problem) return;
    }
    await send({ type: 'iteration', ns, outputBytes });
  }
  await send({ type: 'done' });
}

if (require.main === module && typeof process.send === 'function') {
  // A parent that died (or closed the channel) ends the child at its next iteration.
  process.once('disconnect', () => process.exit(0));
  process.once('message', (job) => {
    run(job)
      .catch((err) => send({ type: 'error', reason: err && err.message ? err.message : String(err) }))
      .catch(() => {})
      .finally(() => process.disconnect());
  });
  process.send({ type: 'ready' });
}

module.exports = { digitBytes, CURVES, OPENSSL_CURVES };
