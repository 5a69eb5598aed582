'use strict';
// The JWT suites' cells (jwt, percall, tokensize, transfer, the cross-check's): inputs and
// keys read once, the library's own key objects made, the checks run, and the batch functions.

const { checkAlgorithm, signAndCheckPool } = require('./checks');
const { InputError, fileCache, keyBitsOf, keyKind, readJsonObject, readRecords } = require('./inputs');
const { library } = require('./library');

/** The mean of non-negative integers rounded to the nearest integer, halves up (exact). */
function roundedMean(values) {
  const sum = values.reduce((total, v) => total + v, 0);
  return Math.floor((2 * sum + values.length) / (2 * values.length));
}

/**
 * The spec's cells with their inputs ({inputBytes, claims}; records: also `records`, `claims`
 * the first record's, inputBytes their mean size) and keys (KeyObjects; a key whose size is
 * not the cell's key_bits is an input error).
 */
function readCells(cells, specFile) {
  const files = fileCache();
  return cells.map((cell) => {
    const origin = (field) => `${field} of cells[${cell.index}] in --spec ${specFile}:`;
    const input = files.once(`input\0${cell.input_kind}\0${cell.input_file}`, () => {
      if (cell.input_kind !== 'records') {
        const { bytes, value } = readJsonObject(cell.input_file, origin('input_file'));
        return { inputBytes: bytes.length, claims: value };
      }
      const records = readRecords(cell.input_file, origin('input_file'));
      return { records, claims: records[0].claims, inputBytes: roundedMean(records.map((r) => r.bytes)) };
    });
    const key = (role, field) => {
      const loaded = files.key(keyKind(role, cell.algorithm), cell[field], origin(field));
      const bits = keyBitsOf(loaded);
      if (bits !== null && bits !== cell.key_bits) {
        throw new InputError(`${origin(field)} ${cell[field]} is a ${bits}-bit key, the cell says key_bits ${cell.key_bits}`);
      }
      return loaded;
    };
    return {
      ...cell,
      ...input,
      signingKey: key('private', 'private_key'),
      verificationKey: key('public', 'public_key'),
      verificationKeyBytes: files.bytes(cell.public_key, origin('public_key')),
    };
  });
}

/** The checks on the cell's claims (the first record's); suite jwt on records: the token pool too. */
async function checkCell(cell) {
  const check = await checkAlgorithm({ alg: cell.algorithm, ...cell });
  if (check.status !== 'ok' || cell.suite !== 'jwt' || !cell.records) return check;
  const pool = await signAndCheckPool({ alg: cell.algorithm, ...cell });
  return pool.status === 'ok' ? { ...check, tokens: pool.tokens } : pool;
}

/**
 * The spec's JWT cells with the library's own keys (`nativeKey`, once per role, algorithm and
 * file; a key it refuses makes the cell unsupported or failed), checked once per algorithm,
 * key pair and input: [{cell, check}].
 */
async function prepareJwtCells(cells, specFile) {
  const lib = library();
  const made = new Map();
  const native = async (role, alg, keyObject, file) => {
    const id = `${role}\0${alg}\0${file}`;
    if (!made.has(id)) {
      try {
        made.set(id, { key: await lib.nativeKey(role, alg, keyObject) });
      } catch (err) {
        made.set(id, lib.isUnsupportedAlgorithmError(err)
          ? { status: 'unsupported', reason: `${lib.name} rejects algorithm ${alg}: ${err.message}` }
          : { status: 'failed', reason: `${lib.name} refused the ${role} key ${file} for ${alg}: ${err.message}` });
      }
    }
    return made.get(id);
  };
  const checked = new Map();
  const found = [];
  for (const read of readCells(cells, specFile)) {
    const signing = await native('private', read.algorithm, read.signingKey, read.private_key);
    const verification = await native('public', read.algorithm, read.verificationKey, read.public_key);
    const cell = { ...read, signingKey: signing.key, verificationKey: verification.key };
    const id = JSON.stringify([cell.algorithm, cell.private_key, cell.public_key, cell.input_file]);
    if (!checked.has(id)) checked.set(id, [signing, verification].find((key) => key.status) ?? await checkCell(cell));
    let check = checked.get(id);
    if (check.status === 'ok' && cell.operation === 'decode' && lib.decoder === null) {
      check = { status: 'unsupported', reason: `${lib.name} has no API that decodes a token without verifying it` };
    }
    found.push({ cell, check });
  }
  return found;
}

// ---------------------------------------------------------------------------------------
// The batches: the adapter's signer, verifier or decoder, every result folded into the value
// returned (the sink); an async library's calls awaited one by one. Call i takes input i
// (claims, or pooled token), the position wrapping and kept from batch to batch.

function signBatch(n, s) {
  const { claims, signers } = s;
  let i = s.position;
  let acc = 0;
  for (let k = 0; k < n; k++) {
    const token = signers[i](claims[i]);
    acc = (acc + token.length) | 0;
    if (++i === claims.length) i = 0;
  }
  s.position = i;
  return acc;
}

async function signBatchAwaited(n, s) {
  const { claims, signers } = s;
  let i = s.position;
  let acc = 0;
  for (let k = 0; k < n; k++) {
    const token = await signers[i](claims[i]);
    acc = (acc + token.length) | 0;
    if (++i === claims.length) i = 0;
  }
  s.position = i;
  return acc;
}

function verifyBatch(n, s) {
  const { tokens, verify } = s;
  let i = s.position;
  let acc = 0;
  for (let k = 0; k < n; k++) {
    const claims = verify(tokens[i]);
    acc = (acc + (typeof claims === 'object' && claims !== null ? 1 : 0)) | 0;
    if (++i === tokens.length) i = 0;
  }
  s.position = i;
  return acc;
}

async function verifyBatchAwaited(n, s) {
  const { tokens, verify } = s;
  let i = s.position;
  let acc = 0;
  for (let k = 0; k < n; k++) {
    const claims = await verify(tokens[i]);
    acc = (acc + (typeof claims === 'object' && claims !== null ? 1 : 0)) | 0;
    if (++i === tokens.length) i = 0;
  }
  s.position = i;
  return acc;
}

function decodeBatch(n, s) {
  const { tokens, decode } = s;
  let i = s.position;
  let acc = 0;
  for (let k = 0; k < n; k++) {
    const claims = decode(tokens[i]);
    acc = (acc + (typeof claims === 'object' && claims !== null ? 1 : 0)) | 0;
    if (++i === tokens.length) i = 0;
  }
  s.position = i;
  return acc;
}

/** A checked cell's batch and state; state.outputBytes: the mean size of its tokens. */
function jwtBatch(cell, check) {
  const lib = library();
  const tokens = check.tokens ?? [check.token];
  const outputBytes = roundedMean(tokens.map((t) => Buffer.byteLength(t)));
  const position = 0;
  switch (cell.operation) {
    case 'sign': {
      // One signer per input (the library's signer built once, with the options its claims need).
      const claims = cell.records ? cell.records.map((r) => r.claims) : [cell.claims];
      const signers = claims.map((c) => lib.signer(cell.algorithm, cell.signingKey, c));
      return { batch: lib.async ? signBatchAwaited : signBatch, state: { claims, signers, position, outputBytes } };
    }
    case 'verify': {
      const verify = lib.verifier(cell.algorithm, cell.verificationKey);
      return { batch: lib.async ? verifyBatchAwaited : verifyBatch, state: { tokens, verify, position, outputBytes } };
    }
    case 'decode':
      return { batch: decodeBatch, state: { tokens, decode: lib.decoder, position, outputBytes } };
    default:
      throw new InputError(`cells[${cell.index}]: no operation ${cell.operation} in suite ${cell.suite}`);
  }
}

/** One call of what the batch calls, on its first input (the cross-check's native harness; claims cells). */
function singleCall(cell, { state }) {
  switch (cell.operation) {
    case 'sign': return () => state.signers[0](state.claims[0]);
    case 'verify': return () => state.verify(state.tokens[0]);
    default: return () => state.decode(state.tokens[0]);
  }
}

module.exports = { prepareJwtCells, jwtBatch, singleCall, signBatch, signBatchAwaited };
