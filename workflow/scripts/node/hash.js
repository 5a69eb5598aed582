'use strict';
// Suite hash (workflow/scripts/README.md, "Suite `hash`"): node:crypto's hashes (the
// OpenSSL bundled with node) on messages built in every call (input `cases`) or on bytes
// prepared once (input `lengths`). Here: the cells' spec fields, their preparation, the
// known-answer check and one batch function per operation; the timing is bench.js's
// (warm-up, calibration, warm-up until steady, interleaved rounds), as for suite jwt.
// Also the drift reference every round-sampling suite times (`referenceCell`).

const crypto = require('node:crypto');

/** The implementation column of every hash row: node's own crypto module. */
const IMPLEMENTATION = 'crypto';
const OPERATIONS = ['hex-digest', 'generate', 'digest'];
/** The contract's algorithm names and node:crypto's (OpenSSL's) for them. */
const NODE_NAMES = { MD5: 'md5', 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-512': 'sha512' };
/** A message part's length in UTF-8 bytes (time-ms: 13 digits until the year 2286). */
const PART_BYTES = { 'cached-uuid': 36, 'fresh-uuid': 36, 'time-ms': 13 };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TIME_MS = /^[1-9][0-9]{12}$/;

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// ---------------------------------------------------------------------------------------
// Spec

/**
 * A hash cell's own fields (bench.js has checked `operation` and `input`); `fail` throws
 * the input error. An implementation other than node's crypto is an input error too.
 */
function loadHashCell(cell, at, fail) {
  const { operation } = cell;
  const algorithms = operation === 'generate' ? ['none'] : Object.keys(NODE_NAMES);
  if (!algorithms.includes(cell.algorithm)) {
    fail(`${at}.algorithm must be ${algorithms.join(', ')} for operation ${operation}`);
  }
  if (cell.key_bits !== 0) fail(`${at}.key_bits must be 0 in suite hash`);
  const implementation = cell.implementation ?? IMPLEMENTATION;
  if (implementation !== IMPLEMENTATION) {
    fail(`${at}.implementation ${JSON.stringify(implementation)} is not a hash implementation of this driver (it has "${IMPLEMENTATION}")`);
  }
  const loaded = { algorithm: cell.algorithm, key_bits: 0, implementation };

  if (operation === 'digest') {
    if (!Number.isInteger(cell.message_bytes) || cell.message_bytes < 1) fail(`${at}.message_bytes must be an integer >= 1`);
    loaded.message_bytes = cell.message_bytes;
  } else {
    const parts = cell.message;
    if (!Array.isArray(parts) || parts.length === 0 || !parts.every((p) => Object.hasOwn(PART_BYTES, p))) {
      fail(`${at}.message must be a non-empty array of ${Object.keys(PART_BYTES).join(', ')}`);
    }
    loaded.message = parts;
  }

  if (operation !== 'generate') {
    const known = cell.known_answer;
    if (!isObject(known) || typeof known.message !== 'string' ||
        typeof known.digest_hex !== 'string' || !/^(?:[0-9a-f]{2})+$/.test(known.digest_hex)) {
      fail(`${at}.known_answer must be {"message": STRING, "digest_hex": LOWERCASE HEX}`);
    }
    loaded.known_answer = { message: known.message, digest_hex: known.digest_hex };
  }
  return loaded;
}

// ---------------------------------------------------------------------------------------
// The calls. A call builds its message (cases) and hashes it; the batch functions below
// and the known-answer check go through the same two functions.

/** hex-digest: the message as UTF-8, hashed, the digest in lowercase hex. */
const hexDigest = (nodeName, message) => crypto.createHash(nodeName).update(message, 'utf8').digest('hex');

/** digest: the bytes hashed to the raw digest (a Buffer). */
const rawDigest = (nodeName, bytes) => crypto.createHash(nodeName).update(bytes).digest();

/**
 * The function that builds a case's message in each call: its parts concatenated, a
 * cached UUID as it was made, a fresh one from crypto.randomUUID() (the same wherever it
 * appears in that call's message), time-ms from Date.now(). A message that is just the
 * cached UUID is that string itself (no copy).
 */
function messageMaker(parts, cachedUuid) {
  if (parts.length === 1 && parts[0] === 'cached-uuid') return () => cachedUuid;
  return () => {
    let fresh;
    let message = '';
    for (const part of parts) {
      if (part === 'cached-uuid') message += cachedUuid;
      else if (part === 'fresh-uuid') message += (fresh ??= crypto.randomUUID());
      else message += Date.now();
    }
    return message;
  };
}

// Every result is folded into the returned value (bench.js's sink).

function hexDigestBatch(n, s) {
  const { nodeName, make } = s;
  let acc = 0;
  for (let k = 0; k < n; k++) {
    const hex = hexDigest(nodeName, make());
    acc = (acc + hex.charCodeAt(k & 15)) | 0;
  }
  return acc;
}

// The message encoded into a scratch buffer, as update() encodes it before hashing; no
// Buffer is allocated per call, since the hash's own encoding allocates none either.
const UTF8 = new TextEncoder();

function generateBatch(n, s) {
  const { make, scratch } = s;
  let acc = 0;
  for (let k = 0; k < n; k++) {
    const { written } = UTF8.encodeInto(make(), scratch);
    acc = (acc + written) | 0;
  }
  return acc;
}

function digestBatch(n, s) {
  const { nodeName, bytes } = s;
  let acc = 0;
  for (let k = 0; k < n; k++) {
    const digest = rawDigest(nodeName, bytes);
    acc = (acc + digest[k & 15]) | 0;
  }
  return acc;
}

// ---------------------------------------------------------------------------------------
// Prepare and check (untimed)

/**
 * A hash cell ready to check and time: the rows' implementation columns, node's name for
 * the algorithm, and the message: `bytes` (digest, byte i = i mod 256) or the cached UUID,
 * the per-call `make` and one message built now (`built`), whose size is input_bytes.
 */
function prepareHashCell(cell) {
  const prepared = {
    ...cell, implementationVersion: process.versions.node, nodeName: NODE_NAMES[cell.algorithm],
  };
  if (cell.operation === 'digest') {
    prepared.bytes = Buffer.alloc(cell.message_bytes, 0);
    for (let i = 0; i < prepared.bytes.length; i++) prepared.bytes[i] = i & 0xff;
    prepared.inputBytes = cell.message_bytes;
  } else {
    prepared.cachedUuid = crypto.randomUUID();
    prepared.make = messageMaker(cell.message, prepared.cachedUuid);
    prepared.built = prepared.make();
    prepared.inputBytes = Buffer.byteLength(prepared.built, 'utf8');
  }
  return prepared;
}

/**
 * What is wrong with the messages a case builds, or null: the prepared message must have
 * the parts' length, each part in its form (a lowercase version-4 UUID, 13 decimal
 * digits), the cached UUID in every cached part, one fresh UUID wherever the call has
 * one; a second message must keep the cached UUID and get a new fresh one.
 */
function messageProblem(cell) {
  const expected = cell.message.reduce((sum, part) => sum + PART_BYTES[part], 0);
  if (cell.inputBytes !== expected) return `the built message has ${cell.inputBytes} bytes, not ${expected}`;
  const split = (message) => {
    let at = 0;
    return cell.message.map((part) => message.slice(at, (at += PART_BYTES[part])));
  };
  const first = split(cell.built);
  const second = split(cell.make());
  for (const [i, part] of cell.message.entries()) {
    const piece = first[i];
    if (!(part === 'time-ms' ? TIME_MS : UUID_V4).test(piece)) return `part ${i + 1} (${part}) is "${piece}"`;
    if (part === 'cached-uuid' && (piece !== cell.cachedUuid || second[i] !== piece)) {
      return `part ${i + 1} (cached-uuid) is not the cell's cached UUID in every call`;
    }
    if (part === 'fresh-uuid') {
      if (first.some((p, j) => cell.message[j] === 'fresh-uuid' && p !== piece)) return 'the fresh-uuid parts of one call differ';
      if (second[i] === piece) return 'two calls got the same fresh UUID';
    }
  }
  return null;
}

/**
 * The check before the cell's warm-up: node must have the hash; the cell's call path on
 * the known answer's message must give its digest; a case's messages must be well built.
 * {status: 'ok'} | {status: 'unsupported' | 'failed', reason}.
 */
function checkHashCell(cell) {
  const { operation, nodeName } = cell;
  if (operation !== 'generate' && !crypto.getHashes().includes(nodeName)) {
    return { status: 'unsupported', reason: `node:crypto (OpenSSL ${process.versions.openssl}) has no ${nodeName}` };
  }
  try {
    if (operation !== 'generate') {
      const { message, digest_hex: expected } = cell.known_answer;
      const got = operation === 'digest'
        ? rawDigest(nodeName, Buffer.from(message, 'utf8')).toString('hex')
        : hexDigest(nodeName, message);
      if (got !== expected) {
        return { status: 'failed', reason: `known answer: ${cell.algorithm} of ${JSON.stringify(message)} gave ${got}, expected ${expected}` };
      }
    }
    const problem = operation === 'digest' ? null : messageProblem(cell);
    if (problem) return { status: 'failed', reason: `message check: ${problem}` };
  } catch (err) {
    return { status: 'failed', reason: `the check threw: ${err.message}` };
  }
  return { status: 'ok' };
}

/**
 * A checked cell's batch function and state; state.outputBytes is output_bytes: the hex
 * string's length (hex-digest), the digest's (digest), the message's (generate).
 */
function hashBatch(cell) {
  const { nodeName, make } = cell;
  switch (cell.operation) {
    case 'hex-digest':
      return { batch: hexDigestBatch, state: { nodeName, make, outputBytes: hexDigest(nodeName, cell.built).length } };
    case 'generate':
      // Room for any UTF-16 code unit as UTF-8 (3 bytes); the parts are ASCII anyway.
      return { batch: generateBatch, state: { make, scratch: new Uint8Array(3 * cell.built.length + 64), outputBytes: cell.inputBytes } };
    case 'digest':
      return { batch: digestBatch, state: { nodeName, bytes: cell.bytes, outputBytes: rawDigest(nodeName, cell.bytes).length } };
    default:
      throw new Error(`no batch for operation ${cell.operation}`);
  }
}

// ---------------------------------------------------------------------------------------
// The drift reference

/**
 * The reference, SHA-256 of the 64 bytes 00 01 ... 3f, as a `digest` cell of this suite
 * would hash them (same call, same implementation columns), in the rows of `suite` with
 * operation `reference` and input `reference`: the prepared cell with its batch and
 * state (state.outputBytes 32). bench.js times it at the start of every round.
 */
function referenceCell(suite) {
  const cell = prepareHashCell({
    suite, operation: 'digest', algorithm: 'SHA-256', key_bits: 0, implementation: IMPLEMENTATION,
    input: 'reference', message_bytes: 64,
  });
  return { ...cell, operation: 'reference', ...hashBatch(cell) };
}

module.exports = {
  IMPLEMENTATION, OPERATIONS, loadHashCell, prepareHashCell, checkHashCell, hashBatch, referenceCell, rawDigest,
};
