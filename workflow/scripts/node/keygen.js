'use strict';
// Suite keygen (workflow/scripts/README.md, "Suite `keygen`"): its `sign` and `verify` cells
// are suite primitive's (primitive.js); a call of a per-iteration cell generates a new key
// pair in this process (the conductor enforces max_cell_seconds by killing the worker).

const crypto = require('node:crypto');
const { checkPrimitiveCell, signatureCheck } = require('./primitive');

const PER_ITERATION = ['keygen+sign+verify', 'keygen'];
/** The contract's curve for key_bits, and OpenSSL's name for it (asymmetricKeyDetails). */
const CURVES = { 256: 'P-256', 384: 'P-384', 521: 'P-521' };
const OPENSSL_CURVES = { 256: 'prime256v1', 384: 'secp384r1', 521: 'secp521r1' };
const RSA_EXPONENT = 65537;
const now = () => process.hrtime.bigint();

/** The seed's message: `n` bytes of the ASCII digits 0123456789 repeated. */
function digitBytes(n) {
  const bytes = Buffer.alloc(n);
  for (let i = 0; i < n; i++) bytes[i] = 0x30 + (i % 10);
  return bytes;
}

const pemChecked = new Map();

/**
 * The check of a keygen cell: its PEM pair (a 10-byte message signed, verified, a flipped
 * signature rejected; once per key pair), then a sign/verify cell's as suite primitive's.
 */
function checkKeygenCell(cell) {
  const id = JSON.stringify([cell.algorithm, cell.private_key, cell.public_key]);
  if (!pemChecked.has(id)) {
    pemChecked.set(id, signatureCheck(cell.digest, cell.signingKey, cell.verificationKey, digitBytes(10)).problem);
  }
  const problem = pemChecked.get(id);
  if (problem) return { status: 'failed', reason: `the PEM key pair: ${problem}` };
  return PER_ITERATION.includes(cell.operation) ? { status: 'ok' } : checkPrimitiveCell(cell);
}

/** One key pair of the family and size, as KeyObjects. */
function generate(family, keyBits) {
  return family === 'RSA'
    ? crypto.generateKeyPairSync('rsa', { modulusLength: keyBits, publicExponent: RSA_EXPONENT })
    : crypto.generateKeyPairSync('ec', { namedCurve: CURVES[keyBits] });
}

/** The check of a generated key pair: its size (modulus and exponent, or curve), then as the PEM pair's. */
function generatedProblem({ publicKey, privateKey }, { family, key_bits: keyBits, digest }) {
  const details = publicKey.asymmetricKeyDetails;
  if (family === 'RSA') {
    if (details.modulusLength !== keyBits) return `a generated key has a ${details.modulusLength}-bit modulus, not ${keyBits}`;
    if (details.publicExponent !== BigInt(RSA_EXPONENT)) return `a generated key has public exponent ${details.publicExponent}`;
  } else if (details.namedCurve !== OPENSSL_CURVES[keyBits]) {
    return `a generated key is on ${details.namedCurve}, not ${CURVES[keyBits]}`;
  }
  const { problem } = signatureCheck(digest, privateKey, publicKey, digitBytes(10));
  return problem ? `a generated key pair: ${problem}` : null;
}

/** What a per-iteration call consumes: the public key's DER length (keygen), the signature's. */
const spkiBytes = (publicKey) => publicKey.export({ type: 'spki', format: 'der' }).length;

/**
 * A per-iteration cell's run: n iterations, each timed alone (a key pair generated; for
 * keygen+sign+verify the message signed and verified), the first one's pair checked untimed.
 * Throws on a failed check. `outputBytes`: the hello's, from the PEM pair.
 */
function iterationRun(cell) {
  const { family, key_bits: keyBits, digest, message } = cell;
  const signs = cell.operation !== 'keygen';
  let checked = false;
  const run = (n) => {
    let elapsed = 0n;
    let outputBytes = 0;
    for (let k = 0; k < n; k++) {
      const t0 = now();
      const keys = generate(family, keyBits);
      const signature = signs ? crypto.sign(digest, message, keys.privateKey) : null;
      const valid = !signs || crypto.verify(digest, message, keys.publicKey, signature);
      const t1 = now();
      elapsed += t1 - t0;
      if (!valid) throw new Error('a signature by a freshly generated key did not verify');
      outputBytes = signs ? signature.length : spkiBytes(keys.publicKey);
      if (!checked) {
        const problem = generatedProblem(keys, cell);
        if (problem) throw new Error(`the first iteration's key pair: ${problem}`);
        checked = true;
      }
    }
    return { elapsed_ns: Number(elapsed), output_bytes: outputBytes };
  };
  const outputBytes = signs ? crypto.sign(digest, message, cell.signingKey).length : spkiBytes(cell.verificationKey);
  return { run, outputBytes };
}

module.exports = { PER_ITERATION, digitBytes, checkKeygenCell, iterationRun };
