'use strict';
// Suite hash (workflow/scripts/README.md, "Suite `hash`"): node:crypto's hashes on messages
// built in every call or on bytes prepared once; also the drift reference (`referenceCell`).

const crypto = require('node:crypto');
const { InputError } = require('./inputs');
const { IMPLEMENTATION, countingBytes, ownImplementation } = require('./primitive');

/** The contract's algorithm names and node:crypto's (OpenSSL's) for them. */
const NODE_NAMES = { MD5: 'md5', 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-512': 'sha512' };
/** A message part's length in UTF-8 bytes (time-ms: 13 digits until the year 2286). */
const PART_BYTES = { 'cached-uuid': 36, 'fresh-uuid': 36, 'time-ms': 13 };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TIME_MS = /^[1-9][0-9]{12}$/;

// The calls: the batch functions and the known-answer check go through these same functions.

/** hex-digest: the message as UTF-8, hashed, the digest in lowercase hex. */
const hexDigest = (nodeName, message) => crypto.createHash(nodeName).update(message, 'utf8').digest('hex');

/** digest: the bytes hashed to the raw digest (a Buffer). */
const rawDigest = (nodeName, bytes) => crypto.createHash(nodeName).update(bytes).digest();

/**
 * The function that builds a case's message in each call: its parts concatenated (a fresh
 * UUID the same wherever it appears in one message); just the cached UUID is that string itself.
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

// Every result is folded into the returned value (the worker's sink).

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

/**
 * A hash cell ready to check and time: node's name for the algorithm and the message:
 * `bytes` (digest) or the cached UUID, the per-call `make` and one message `built` now.
 */
function prepareHashCell(cell) {
  ownImplementation(cell);
  const prepared = {
    ...cell, implementation: IMPLEMENTATION, implementationVersion: process.versions.node, nodeName: NODE_NAMES[cell.algorithm],
  };
  if (cell.operation === 'digest') {
    prepared.bytes = countingBytes(cell.message_bytes);
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
 * What is wrong with the messages a case builds, or null: the parts' lengths and forms, the
 * cached UUID in every cached part, one fresh UUID per call, a new one in the next call.
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

/** The checks: node has the hash, the known answer, a case's messages well built. {status[, reason]}. */
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

/** A checked cell's batch function and state (state.outputBytes: the output's length). */
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
      throw new InputError(`cells[${cell.index}]: no operation ${cell.operation} in suite hash`);
  }
}

/** The drift reference: SHA-256 of the 64 bytes 00..3f as a `digest` cell hashes them, with its batch and state. */
function referenceCell(suite) {
  const cell = prepareHashCell({
    suite, operation: 'digest', algorithm: 'SHA-256', key_bits: 0, implementation: IMPLEMENTATION,
    input: 'reference', message_bytes: 64,
  });
  return { ...cell, operation: 'reference', ...hashBatch(cell) };
}

module.exports = {
  prepareHashCell, checkHashCell, hashBatch, referenceCell, rawDigest,
};
