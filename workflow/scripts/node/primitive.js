'use strict';
// Suite primitive (workflow/scripts/README.md, "Suite `primitive`"): node:crypto's raw
// primitives, no JWT: digest, HMAC, AES-256-GCM, signatures. Here: the cells' spec
// fields, their preparation (message, keys parsed once), the checks and one batch
// function per operation; the timing is bench.js's (warm-up, calibration, interleaved rounds),
// as for suite jwt.
// Suite keygen's `sign` and `verify` cells are these cells too (keygen.js).

const crypto = require('node:crypto');
const { InputError, readBytes, keyBitsOf } = require('./inputs');

/** The implementation columns: node's own crypto module at its OpenSSL's version. */
const IMPLEMENTATION = 'crypto';
const IMPLEMENTATION_VERSION = process.versions.openssl;

/** Digest names: the contract's and node:crypto's (OpenSSL's). */
const DIGESTS = { 'SHA-256': 'sha256', 'SHA-512': 'sha512' };

/**
 * Signature algorithms: key type, node's digest name (null: the scheme hashes itself),
 * and for ECDSA the curve the key must be on. Suite primitive uses the first three,
 * suite keygen the RSA and ECDSA ones.
 */
const SIGNATURES = {
  'RSA-SHA256': { keyType: 'rsa', digest: 'sha256' },
  'ECDSA-SHA256': { keyType: 'ec', digest: 'sha256' },
  Ed25519: { keyType: 'ed25519', digest: null },
  'RSA-SHA512': { keyType: 'rsa', digest: 'sha512' },
  'ECDSA-SHA512': { keyType: 'ec', digest: 'sha512' },
};

/** Algorithms per operation of suite primitive. */
const PRIMITIVE_ALGORITHMS = {
  digest: Object.keys(DIGESTS),
  mac: ['HMAC-SHA256'],
  encrypt: ['AES-256-GCM'],
  sign: ['RSA-SHA256', 'ECDSA-SHA256', 'Ed25519'],
  verify: ['RSA-SHA256', 'ECDSA-SHA256', 'Ed25519'],
};
const OPERATIONS = Object.keys(PRIMITIVE_ALGORITHMS);

const GCM_KEY_BYTES = 32;
const GCM_NONCE_BYTES = 12;
const GCM_TAG_BYTES = 16;

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

// ---------------------------------------------------------------------------------------
// Spec

/** `implementation`: absent or this driver's one (anything else is an input error). */
function loadImplementation(cell, at, fail) {
  const implementation = cell.implementation ?? IMPLEMENTATION;
  if (implementation !== IMPLEMENTATION) {
    fail(`${at}.implementation ${JSON.stringify(implementation)} is not one of this driver's (it has "${IMPLEMENTATION}")`);
  }
  return implementation;
}

/**
 * The known answer of a digest, mac or encrypt cell: hex strings message_hex, output_hex
 * and key_hex (mac, encrypt), nonce_hex (encrypt), decoded to Buffers.
 */
function loadKnownAnswer(cell, at, fail) {
  const known = cell.known_answer;
  const fields = { digest: [], mac: ['key_hex'], encrypt: ['key_hex', 'nonce_hex'] }[cell.operation];
  const shape = ['message_hex', 'output_hex', ...fields].map((f) => `"${f}": HEX`).join(', ');
  if (!isObject(known)) fail(`${at}.known_answer must be {${shape}}`);
  const hex = (name) => {
    const v = known[name];
    if (typeof v !== 'string' || !HEX.test(v)) fail(`${at}.known_answer.${name} must be a hex string ({${shape}})`);
    return Buffer.from(v, 'hex');
  };
  const loaded = { message: hex('message_hex'), output: hex('output_hex') };
  for (const f of fields) loaded[f.replace(/_hex$/, '')] = hex(f);
  if (loaded.output.length === 0) fail(`${at}.known_answer.output_hex must not be empty`);
  if (cell.operation === 'mac' && loaded.key.length === 0) fail(`${at}.known_answer.key_hex must not be empty`);
  if (cell.operation === 'encrypt') {
    if (loaded.key.length !== GCM_KEY_BYTES) fail(`${at}.known_answer.key_hex must be ${GCM_KEY_BYTES} bytes`);
    if (loaded.nonce.length !== GCM_NONCE_BYTES) fail(`${at}.known_answer.nonce_hex must be ${GCM_NONCE_BYTES} bytes`);
    if (loaded.output.length !== loaded.message.length + GCM_TAG_BYTES) {
      fail(`${at}.known_answer.output_hex must be the ciphertext and the ${GCM_TAG_BYTES}-byte tag (message + ${GCM_TAG_BYTES} bytes)`);
    }
  }
  return loaded;
}

/**
 * The message: `message_bytes` bytes (byte i = i mod 256), or with `"input_kind":
 * "bytes"` the raw bytes of `input_file`. Returns the fields to keep.
 */
function loadMessage(cell, at, fail, { minBytes = 1 } = {}) {
  if (cell.input_kind !== undefined || cell.input_file !== undefined) {
    if (cell.input_kind !== 'bytes') fail(`${at}.input_kind must be "bytes" when the cell has an input_file`);
    if (typeof cell.input_file !== 'string' || cell.input_file === '') fail(`${at}.input_file must be a non-empty string`);
    if (cell.message_bytes !== undefined) fail(`${at} has both message_bytes and input_file`);
    return { input_kind: 'bytes', input_file: cell.input_file };
  }
  if (!Number.isInteger(cell.message_bytes) || cell.message_bytes < minBytes) {
    fail(`${at}.message_bytes must be an integer >= ${minBytes} (or give input_file with "input_kind": "bytes")`);
  }
  return { message_bytes: cell.message_bytes };
}

/** A primitive cell's own fields (bench.js has checked `operation` and `input`). */
function loadPrimitiveCell(cell, at, fail) {
  const { operation } = cell;
  const algorithms = PRIMITIVE_ALGORITHMS[operation];
  if (!algorithms.includes(cell.algorithm)) fail(`${at}.algorithm must be one of ${algorithms.join(', ')} for operation ${operation}`);
  const loaded = {
    algorithm: cell.algorithm, implementation: loadImplementation(cell, at, fail), ...loadMessage(cell, at, fail),
  };
  if (operation === 'digest') {
    if (cell.key_bits !== 0) fail(`${at}.key_bits must be 0 for operation digest`);
    loaded.key_bits = 0;
  } else {
    if (!Number.isInteger(cell.key_bits) || cell.key_bits < 1) fail(`${at}.key_bits must be an integer >= 1`);
    loaded.key_bits = cell.key_bits;
    for (const name of ['private_key', 'public_key']) {
      if (typeof cell[name] !== 'string' || cell[name] === '') fail(`${at}.${name} must be a non-empty string`);
      loaded[name] = cell[name];
    }
  }
  if (operation === 'encrypt' && cell.key_bits !== 8 * GCM_KEY_BYTES) fail(`${at}.key_bits must be ${8 * GCM_KEY_BYTES} for AES-256-GCM`);
  // sign and verify check themselves on the cell's message; a known_answer there is ignored.
  if (['digest', 'mac', 'encrypt'].includes(operation)) loaded.known_answer = loadKnownAnswer(cell, at, fail);
  return loaded;
}

// ---------------------------------------------------------------------------------------
// The calls: the batch functions and the checks go through these same functions.

/** digest: node's one-shot crypto.hash() (node >= 20.12), the raw digest as a Buffer. */
const digestOnce = (nodeName, message) => crypto.hash(nodeName, message, 'buffer');

/** mac: HMAC-SHA256 with a secret KeyObject made once; the tag as a Buffer. */
const macOnce = (key, message) => crypto.createHmac('sha256', key).update(message).digest();

/**
 * encrypt: AES-256-GCM under a secret KeyObject made once, the given 12-byte nonce, no
 * AAD; returns [ciphertext, final block (empty for GCM), 16-byte tag].
 */
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

// Every result is folded into the returned value (bench.js's sink). Batches whose output
// length may vary (an ECDSA signature's DER) keep the batch's mean in state.outputBytes.

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

// ---------------------------------------------------------------------------------------
// Prepare (untimed): messages made or read and keys parsed once per file, before any check.

/** The message of `message_bytes` bytes, byte i = i mod 256. */
function countingBytes(n) {
  const bytes = Buffer.alloc(n);
  for (let i = 0; i < n; i++) bytes[i] = i & 0xff;
  return bytes;
}

/** Why a parsed key does not fit the signature algorithm and key_bits, or null. */
function keyMismatch(key, algorithm, keyBits) {
  const { keyType } = SIGNATURES[algorithm];
  if (key.asymmetricKeyType !== keyType) return `is a ${key.asymmetricKeyType} key, ${algorithm} needs ${keyType}`;
  const bits = keyBitsOf(key);
  if (bits !== keyBits) return `is a ${bits ?? 'unknown-size'}-bit key, the cell says key_bits ${keyBits}`;
  return null;
}

/**
 * Prepares primitive cells (and keygen's, with `message` made by `makeMessage`): reads
 * files and parses keys once per file (secrets for mac/encrypt, PEM otherwise), checks
 * every key against the cell's algorithm and key_bits (a mismatch is an input error).
 */
function prepareCells(cells, specFile, makeMessage) {
  const files = new Map();
  const keys = new Map();
  const bytesOf = (file, origin) => {
    if (!files.has(file)) files.set(file, readBytes(file, origin));
    return files.get(file);
  };
  const keyOf = (kind, file, origin) => {
    const id = `${kind}\0${file}`;
    if (!keys.has(id)) {
      const bytes = bytesOf(file, origin);
      try {
        keys.set(id, kind === 'secret' ? crypto.createSecretKey(bytes)
          : kind === 'private' ? crypto.createPrivateKey({ key: bytes, format: 'pem' })
            : crypto.createPublicKey({ key: bytes, format: 'pem' }));
      } catch (err) {
        throw new InputError(`${origin} ${file} is not a ${kind === 'secret' ? 'non-empty secret' : `${kind} key PEM`} (${err.code || String(err.message).split('\n')[0]})`);
      }
    }
    return keys.get(id);
  };

  return cells.map((cell) => {
    const origin = (field) => `${field} of cells[${cell.index}] in --spec ${specFile}:`;
    const message = cell.input_file !== undefined ? bytesOf(cell.input_file, origin('input_file')) : makeMessage(cell.message_bytes);
    const prepared = { ...cell, implementationVersion: IMPLEMENTATION_VERSION, message, inputBytes: message.length };
    if (cell.operation === 'digest') return { ...prepared, nodeName: DIGESTS[cell.algorithm] };
    if (cell.operation === 'mac' || cell.operation === 'encrypt') {
      const key = keyOf('secret', cell.private_key, origin('private_key'));
      const bits = key.symmetricKeySize * 8;
      if (bits !== cell.key_bits) throw new InputError(`${origin('private_key')} ${cell.private_key} is a ${bits}-bit secret, the cell says key_bits ${cell.key_bits}`);
      return { ...prepared, key };
    }
    const signingKey = keyOf('private', cell.private_key, origin('private_key'));
    const verificationKey = keyOf('public', cell.public_key, origin('public_key'));
    for (const [field, key] of [['private_key', signingKey], ['public_key', verificationKey]]) {
      const problem = keyMismatch(key, cell.algorithm, cell.key_bits);
      if (problem) throw new InputError(`${origin(field)} ${cell[field]} ${problem}`);
    }
    return { ...prepared, digest: SIGNATURES[cell.algorithm].digest, signingKey, verificationKey };
  });
}

// ---------------------------------------------------------------------------------------
// Checks (untimed, before any warm-up)

/** The signature with the lowest bit of its first byte flipped. */
function flipped(signature) {
  const copy = Buffer.from(signature);
  copy[0] ^= 1;
  return copy;
}

/**
 * A signature of `message` by the key pair verifies and the same signature with one bit
 * flipped does not. Returns {problem} or {signature}.
 */
function signatureCheck(digest, signingKey, verificationKey, message) {
  const signature = signOnce(digest, signingKey, message);
  if (!verifyOnce(digest, verificationKey, message, signature)) return { problem: 'a signature of the message does not verify' };
  if (verifyOnce(digest, verificationKey, message, flipped(signature))) return { problem: 'a signature with a flipped bit verifies' };
  return { signature };
}

const hex = (bytes) => bytes.toString('hex');

/** What the cell's call path gives on its known answer, as one Buffer. */
function knownAnswerOutput(cell) {
  const { message, key, nonce } = cell.known_answer;
  switch (cell.operation) {
    case 'digest': return digestOnce(cell.nodeName, message);
    case 'mac': return macOnce(crypto.createSecretKey(key), message);
    case 'encrypt': return Buffer.concat(encryptOnce(crypto.createSecretKey(key), Buffer.from(nonce), message));
    default: throw new Error(`no known answer for operation ${cell.operation}`);
  }
}

/**
 * The checks of "Suite primitive": the known answer (digest, mac, encrypt), one of the
 * timed path's encryptions decrypted back to the message, a signature of the message
 * that verifies and a flipped one that does not (sign, verify). {status: 'ok'[, signature]}
 * or {status: 'failed', reason}.
 */
function checkPrimitiveCell(cell) {
  try {
    if (cell.known_answer) {
      const got = knownAnswerOutput(cell);
      const expected = cell.known_answer.output;
      if (!got.equals(expected)) {
        return { status: 'failed', reason: `known answer: ${cell.algorithm} gave ${hex(got)}, expected ${hex(expected)}` };
      }
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

/**
 * A checked cell's batch function and state; state.outputBytes is output_bytes: the
 * digest's, the tag's, ciphertext + tag, the signature's (sign: each batch's mean).
 */
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
      throw new Error(`no batch for operation ${cell.operation}`);
  }
}

module.exports = {
  IMPLEMENTATION, IMPLEMENTATION_VERSION, OPERATIONS, SIGNATURES, loadImplementation, loadMessage,
  loadPrimitiveCell, prepareCells, countingBytes, signatureCheck, checkPrimitiveCell, primitiveBatch,
};
