'use strict';
// Suite primitive (workflow/scripts/README.md, "Suite `primitive`"): node:crypto's digest,
// HMAC, AES-256-GCM and signatures; suite keygen's `sign` and `verify` cells are these too.

const crypto = require('node:crypto');
const { InputError, fileCache } = require('./inputs');

/** The implementation columns: node's own crypto module at its OpenSSL's version. */
const IMPLEMENTATION = 'crypto';
const IMPLEMENTATION_VERSION = process.versions.openssl;

/** Digest names: the contract's and node:crypto's (OpenSSL's). */
const DIGESTS = { 'SHA-256': 'sha256', 'SHA-512': 'sha512' };

/** Signature algorithms: node's digest name (null: the scheme hashes itself). */
const SIGNATURES = {
  'RSA-SHA256': 'sha256', 'ECDSA-SHA256': 'sha256', Ed25519: null, 'RSA-SHA512': 'sha512', 'ECDSA-SHA512': 'sha512',
};

const GCM_NONCE_BYTES = 12;
const GCM_TAG_BYTES = 16;

// The calls: the batch functions and the checks go through these same functions.

/** digest: node's one-shot crypto.hash() (node >= 20.12), the raw digest as a Buffer. */
const digestOnce = (nodeName, message) => crypto.hash(nodeName, message, 'buffer');

/** mac: HMAC-SHA256 with a secret KeyObject made once; the tag as a Buffer. */
const macOnce = (key, message) => crypto.createHmac('sha256', key).update(message).digest();

/** encrypt: AES-256-GCM, the given 12-byte nonce, no AAD: [ciphertext, final block (empty), tag]. */
function encryptOnce(key, nonce, message) {
  const cipher = crypto.createCipheriv('aes-256-gcm', key, nonce);
  const body = cipher.update(message);
  const last = cipher.final();
  return [body, last, cipher.getAuthTag()];
}

/** The nonce counter: +1, big-endian, in place (wrapping after 2^96 calls). */
function nextNonce(nonce) {
  for (let i = nonce.length - 1; i >= 0; i--) {
    nonce[i] = (nonce[i] + 1) & 0xff;
    if (nonce[i] !== 0) return;
  }
}

const signOnce = (digest, key, message) => crypto.sign(digest, message, key);
const verifyOnce = (digest, key, message, signature) => crypto.verify(digest, message, key, signature);

// Every result is folded into the returned value (the sink); sign keeps the batch's mean
// signature length (an ECDSA DER's varies) in state.outputBytes.

function digestBatch(n, s) {
  const { nodeName, message } = s;
  let acc = 0;
  for (let k = 0; k < n; k++) {
    const digest = digestOnce(nodeName, message);
    acc = (acc + digest[k & 15]) | 0;
  }
  return acc;
}

function macBatch(n, s) {
  const { key, message } = s;
  let acc = 0;
  for (let k = 0; k < n; k++) {
    const tag = macOnce(key, message);
    acc = (acc + tag[k & 15]) | 0;
  }
  return acc;
}

function encryptBatch(n, s) {
  const { key, nonce, message } = s;
  let acc = 0;
  for (let k = 0; k < n; k++) {
    const [body, last, tag] = encryptOnce(key, nonce, message);
    nextNonce(nonce);
    acc = (acc + body.length + last.length + tag[k & 15]) | 0;
  }
  return acc;
}

function signBatch(n, s) {
  const { digest, key, message } = s;
  let acc = 0;
  let bytes = 0;
  for (let k = 0; k < n; k++) {
    const signature = signOnce(digest, key, message);
    bytes += signature.length;
    acc = (acc + signature[k & 15]) | 0;
  }
  s.outputBytes = Math.floor((2 * bytes + n) / (2 * n));
  return acc;
}

function verifyBatch(n, s) {
  const { digest, key, message, signature } = s;
  let acc = 0;
  for (let k = 0; k < n; k++) {
    if (!verifyOnce(digest, key, message, signature)) throw new Error('a valid signature did not verify');
    acc = (acc + signature.length) | 0;
  }
  return acc;
}

/** The message of `message_bytes` bytes, byte i = i mod 256. */
function countingBytes(n) {
  const bytes = Buffer.alloc(n);
  for (let i = 0; i < n; i++) bytes[i] = i & 0xff;
  return bytes;
}

/** A cell naming another implementation than node's `crypto` is an input error. */
function ownImplementation(cell) {
  if ((cell.implementation ?? IMPLEMENTATION) !== IMPLEMENTATION) {
    throw new InputError(`cells[${cell.index}]: implementation ${cell.implementation} is not this driver's ("${IMPLEMENTATION}")`);
  }
}

/**
 * Prepares primitive cells (and keygen's, with `message` made by `makeMessage`), each file
 * read and key parsed once (secrets for mac/encrypt, PEM otherwise).
 */
function prepareCells(cells, specFile, makeMessage) {
  const files = fileCache();
  return cells.map((cell) => {
    const origin = (field) => `${field} of cells[${cell.index}] in --spec ${specFile}:`;
    ownImplementation(cell);
    const message = cell.input_file !== undefined ? files.bytes(cell.input_file, origin('input_file')) : makeMessage(cell.message_bytes);
    const prepared = {
      ...cell, implementation: IMPLEMENTATION, implementationVersion: IMPLEMENTATION_VERSION, message, inputBytes: message.length,
    };
    if (cell.operation === 'digest') return { ...prepared, nodeName: DIGESTS[cell.algorithm] };
    if (cell.operation === 'mac' || cell.operation === 'encrypt') {
      return { ...prepared, key: files.key('secret', cell.private_key, origin('private_key')) };
    }
    return {
      ...prepared,
      digest: SIGNATURES[cell.algorithm],
      signingKey: files.key('private', cell.private_key, origin('private_key')),
      verificationKey: files.key('public', cell.public_key, origin('public_key')),
    };
  });
}

/**
 * A signature of `message` by the key pair verifies and the same signature with the lowest
 * bit of its first byte flipped does not: {problem} or {signature}.
 */
function signatureCheck(digest, signingKey, verificationKey, message) {
  const signature = signOnce(digest, signingKey, message);
  if (!verifyOnce(digest, verificationKey, message, signature)) return { problem: 'a signature of the message does not verify' };
  const flipped = Buffer.from(signature);
  flipped[0] ^= 1;
  if (verifyOnce(digest, verificationKey, message, flipped)) return { problem: 'a signature with a flipped bit verifies' };
  return { signature };
}

/** What the cell's call path gives on its known answer (its *_hex fields decoded), as one Buffer. */
function knownAnswerOutput(cell) {
  const { message, key, nonce } = Object.fromEntries(
    Object.entries(cell.known_answer).map(([name, hex]) => [name.replace(/_hex$/, ''), Buffer.from(hex, 'hex')]));
  switch (cell.operation) {
    case 'digest': return digestOnce(cell.nodeName, message);
    case 'mac': return macOnce(crypto.createSecretKey(key), message);
    default: return Buffer.concat(encryptOnce(crypto.createSecretKey(key), nonce, message));
  }
}

/**
 * The checks of "Suite primitive": the known answer (digest, mac, encrypt), an encryption
 * decrypted back, a signature that verifies and a flipped one that does not (sign, verify).
 * {status: 'ok'[, signature]} or {status: 'failed', reason}.
 */
function checkPrimitiveCell(cell) {
  try {
    if (['digest', 'mac', 'encrypt'].includes(cell.operation)) {
      const got = knownAnswerOutput(cell).toString('hex');
      const expected = cell.known_answer.output_hex;
      if (got !== expected) return { status: 'failed', reason: `known answer: ${cell.algorithm} gave ${got}, not ${expected}` };
    }
    if (cell.operation === 'encrypt') {
      const nonce = Buffer.alloc(GCM_NONCE_BYTES, 0xa5);
      const [body, last, tag] = encryptOnce(cell.key, nonce, cell.message);
      const decipher = crypto.createDecipheriv('aes-256-gcm', cell.key, nonce);
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([decipher.update(Buffer.concat([body, last])), decipher.final()]);
      if (!plain.equals(cell.message)) return { status: 'failed', reason: 'an encryption did not decrypt back to the message' };
    }
    if (cell.operation === 'sign' || cell.operation === 'verify') {
      const { problem, signature } = signatureCheck(cell.digest, cell.signingKey, cell.verificationKey, cell.message);
      if (problem) return { status: 'failed', reason: `${cell.algorithm}-${cell.key_bits}: ${problem}` };
      return { status: 'ok', signature };
    }
  } catch (err) {
    return { status: 'failed', reason: `the check threw: ${err.message}` };
  }
  return { status: 'ok' };
}

/** A checked cell's batch function and state (state.outputBytes: the output's length). */
function primitiveBatch(cell, check) {
  const { message } = cell;
  switch (cell.operation) {
    case 'digest':
      return { batch: digestBatch, state: { nodeName: cell.nodeName, message, outputBytes: digestOnce(cell.nodeName, message).length } };
    case 'mac':
      return { batch: macBatch, state: { key: cell.key, message, outputBytes: macOnce(cell.key, message).length } };
    case 'encrypt':
      // The counter starts at 0: the first timed (warm-up) call uses nonce 00...00.
      return { batch: encryptBatch, state: { key: cell.key, nonce: Buffer.alloc(GCM_NONCE_BYTES), message, outputBytes: message.length + GCM_TAG_BYTES } };
    case 'sign':
      return { batch: signBatch, state: { digest: cell.digest, key: cell.signingKey, message, outputBytes: check.signature.length } };
    case 'verify':
      return {
        batch: verifyBatch,
        state: { digest: cell.digest, key: cell.verificationKey, message, signature: check.signature, outputBytes: check.signature.length },
      };
    default:
      throw new InputError(`cells[${cell.index}]: no operation ${cell.operation} in suite ${cell.suite}`);
  }
}

module.exports = {
  IMPLEMENTATION, ownImplementation, prepareCells, countingBytes, signatureCheck, checkPrimitiveCell, primitiveBatch,
};
