'use strict';
// `bench --spec FILE --out FILE`: runs the spec's cells and writes the raw-sample CSV
// (workflow/scripts/README.md "bench" and "Timing rules";
// workflow/schemas/raw_samples.schema.yaml for the columns).

const fs = require('node:fs');
const { checkAlgorithm } = require('./checks');
const { dependencyVersion } = require('./deps');
const {
  InputError, JWS_ALGORITHMS, isHmac, readBytes, readJsonObject,
  loadSigningKey, loadVerificationKey,
} = require('./inputs');
const { jwt, signOptions, verifyOptions } = require('./jwt_ops');

const SPEC_FORMAT = 'jwtbench-spec/1';
const LANGUAGE = 'node';
const IMPLEMENTATION = 'jsonwebtoken';
const SUITES = { jwt: ['sign', 'verify', 'decode'] };
const CSV_COLUMNS = [
  'language', 'implementation', 'implementation_version', 'suite', 'operation', 'algorithm',
  'key_bits', 'input', 'input_bytes', 'sample', 'iterations', 'elapsed_ns', 'output_bytes',
  'status',
];
const MAX_BATCH = 1e9;

// ---------------------------------------------------------------------------------------
// Spec

function loadSpec(file) {
  const { value: spec } = readJsonObject(file, '--spec');
  const where = `--spec ${file}`;
  const fail = (msg) => { throw new InputError(`${where}: ${msg}`); };

  if (spec.format !== SPEC_FORMAT) fail(`"format" must be "${SPEC_FORMAT}"`);
  if (spec.language !== undefined && spec.language !== LANGUAGE) {
    fail(`"language" is "${spec.language}", this is the ${LANGUAGE} driver`);
  }
  if (!Object.hasOwn(SUITES, spec.suite)) fail(`"suite" must be one of ${Object.keys(SUITES).join(', ')}`);

  const t = spec.timing;
  if (t === null || typeof t !== 'object' || Array.isArray(t)) fail('"timing" must be an object');
  const number = (name, ok, what) => {
    if (typeof t[name] !== 'number' || !Number.isFinite(t[name]) || !ok(t[name])) {
      fail(`"timing.${name}" must be ${what}`);
    }
    return t[name];
  };
  const timing = {
    warmup_seconds: number('warmup_seconds', (v) => v >= 0, 'a number >= 0'),
    samples: number('samples', (v) => Number.isInteger(v) && v >= 1, 'an integer >= 1'),
    target_sample_seconds: number('target_sample_seconds', (v) => v > 0, 'a number > 0'),
    max_cell_seconds: number('max_cell_seconds', (v) => v > 0, 'a number > 0'),
  };

  if (!Array.isArray(spec.cells)) fail('"cells" must be an array');
  const cells = spec.cells.map((cell, i) => {
    const at = `cells[${i}]`;
    if (cell === null || typeof cell !== 'object' || Array.isArray(cell)) fail(`${at} must be an object`);
    const string = (name) => {
      if (typeof cell[name] !== 'string' || cell[name] === '') fail(`${at}.${name} must be a non-empty string`);
      return cell[name];
    };
    const operation = string('operation');
    if (!SUITES[spec.suite].includes(operation)) {
      fail(`${at}.operation must be one of ${SUITES[spec.suite].join(', ')}`);
    }
    const algorithm = string('algorithm');
    if (!JWS_ALGORITHMS.includes(algorithm)) fail(`${at}.algorithm must be one of ${JWS_ALGORITHMS.join(', ')}`);
    if (!Number.isInteger(cell.key_bits) || cell.key_bits < 1) fail(`${at}.key_bits must be an integer >= 1`);
    return {
      index: i, suite: spec.suite, operation, algorithm, key_bits: cell.key_bits,
      private_key: string('private_key'), public_key: string('public_key'),
      input: string('input'), input_file: string('input_file'),
    };
  });
  return { timing, cells };
}

// ---------------------------------------------------------------------------------------
// Prepare: every file is read and every key parsed once, before anything is timed.

/** Size of a key as the spec's key_bits counts it, or null when we cannot tell. */
function keyBitsOf(key) {
  if (key.type === 'secret') return key.symmetricKeySize * 8;
  const details = key.asymmetricKeyDetails || {};
  if (details.modulusLength) return details.modulusLength;
  const curveBits = { prime256v1: 256, secp384r1: 384, secp521r1: 521 };
  if (details.namedCurve) return curveBits[details.namedCurve] ?? null;
  if (key.asymmetricKeyType === 'ed25519') return 256;
  return null;
}

function prepareAll(spec, specFile) {
  const bytesCache = new Map();
  const keyCache = new Map();
  const inputCache = new Map();
  const bytesOf = (file, origin) => {
    if (!bytesCache.has(file)) bytesCache.set(file, readBytes(file, origin));
    return bytesCache.get(file);
  };
  const keyOf = (kind, alg, file, origin) => {
    const id = `${isHmac(alg) ? 'secret' : kind}\0${file}`;
    if (!keyCache.has(id)) {
      keyCache.set(id, kind === 'private' ? loadSigningKey(alg, file, origin) : loadVerificationKey(alg, file, origin));
    }
    return keyCache.get(id);
  };

  return spec.cells.map((cell) => {
    const origin = (field) => `${field} of cells[${cell.index}] in --spec ${specFile}:`;
    if (!inputCache.has(cell.input_file)) {
      const { bytes, value } = readJsonObject(cell.input_file, origin('input_file'));
      inputCache.set(cell.input_file, { inputBytes: bytes.length, claims: value });
    }
    const signingKey = keyOf('private', cell.algorithm, cell.private_key, origin('private_key'));
    const verificationKey = keyOf('public', cell.algorithm, cell.public_key, origin('public_key'));
    for (const [field, key] of [['private_key', signingKey], ['public_key', verificationKey]]) {
      const bits = keyBitsOf(key);
      if (bits !== null && bits !== cell.key_bits) {
        throw new InputError(`${origin(field)} ${cell[field]} is a ${bits}-bit key, the cell says key_bits ${cell.key_bits}`);
      }
    }
    return {
      ...cell,
      ...inputCache.get(cell.input_file),
      signingKey,
      verificationKey,
      verificationKeyBytes: bytesOf(cell.public_key, origin('public_key')),
    };
  });
}

// ---------------------------------------------------------------------------------------
// Timing. One batch function per operation, each calling jsonwebtoken directly; every
// result is folded into the returned value, which goes into `sink` (printed at the end).

let sink = 0;

function signBatch(n, s) {
  let acc = 0;
  let token = '';
  for (let i = 0; i < n; i++) {
    token = jwt.sign(s.claims, s.key, s.options);
    acc = (acc + token.length) | 0;
  }
  s.outputBytes = Buffer.byteLength(token);
  return acc;
}

function verifyBatch(n, s) {
  let acc = 0;
  for (let i = 0; i < n; i++) {
    const claims = jwt.verify(s.token, s.key, s.options);
    acc = (acc + (typeof claims === 'object' && claims !== null ? 1 : 0)) | 0;
  }
  return acc;
}

function decodeBatch(n, s) {
  let acc = 0;
  for (let i = 0; i < n; i++) {
    const claims = jwt.decode(s.token);
    acc = (acc + (typeof claims === 'object' && claims !== null ? 1 : 0)) | 0;
  }
  return acc;
}

/** Runs one batch of n calls; returns its monotonic-clock duration in ns (a BigInt). */
function timeBatch(batch, n, state) {
  const t0 = process.hrtime.bigint();
  const folded = batch(n, state);
  const t1 = process.hrtime.bigint();
  sink = (sink + folded) | 0;
  return t1 - t0;
}

const clampBatch = (n) => Math.min(MAX_BATCH, Math.max(1, Math.round(n)));

/**
 * Warm-up, calibration and sampling for one cell (README "Timing rules", steps 3-6).
 * Returns {status: 'ok'|'timeout', samples: [{iterations, elapsedNs}], spentNs}.
 */
function measure(batch, state, timing) {
  const start = process.hrtime.bigint();
  const spent = () => process.hrtime.bigint() - start;
  const maxNs = BigInt(Math.round(timing.max_cell_seconds * 1e9));
  const warmupNs = timing.warmup_seconds * 1e9;
  const targetNs = timing.target_sample_seconds * 1e9;
  const timedOut = (samples) => ({ status: 'timeout', samples, spentNs: spent() });

  // Warm-up: batches doubling in size, at least one call, for warmup_seconds. A batch is
  // kept within the warm-up left, the cell's budget left and target_sample_seconds.
  let chunk = 1;
  let nsPerOp;
  for (;;) {
    nsPerOp = Math.max(1, Number(timeBatch(batch, chunk, state))) / chunk;
    const elapsed = spent();
    if (elapsed >= maxNs) return timedOut([]);
    const remaining = warmupNs - Number(elapsed);
    if (remaining <= 0) break;
    const room = Math.min(remaining, Number(maxNs - elapsed), targetNs);
    chunk = clampBatch(Math.min(chunk * 2, Math.ceil(room / nsPerOp)));
  }

  // Calibrate: the batch size whose run lasts about target_sample_seconds.
  let n = clampBatch(targetNs / nsPerOp);
  for (let round = 0; round < 5; round++) {
    const elapsed = Math.max(1, Number(timeBatch(batch, n, state)));
    if (spent() >= maxNs) return timedOut([]);
    const ratio = targetNs / elapsed;
    n = clampBatch(n * Math.min(100, ratio));
    if (ratio > 0.8 && ratio < 1.25) break;
  }

  // Sample.
  const samples = [];
  for (let i = 0; i < timing.samples; i++) {
    samples.push({ iterations: n, elapsedNs: timeBatch(batch, n, state) });
    if (i + 1 < timing.samples && spent() >= maxNs) return timedOut(samples);
  }
  return { status: 'ok', samples, spentNs: spent() };
}

function batchState(cell, token) {
  switch (cell.operation) {
    case 'sign':
      return [signBatch, {
        claims: cell.claims, key: cell.signingKey, options: signOptions(cell.algorithm),
        outputBytes: Buffer.byteLength(token),
      }];
    case 'verify':
      return [verifyBatch, {
        token, key: cell.verificationKey, options: verifyOptions(cell.algorithm),
        outputBytes: Buffer.byteLength(token),
      }];
    case 'decode':
      return [decodeBatch, { token, outputBytes: Buffer.byteLength(token) }];
    default:
      throw new Error(`no batch for operation ${cell.operation}`);
  }
}

// ---------------------------------------------------------------------------------------
// Output

function csvField(value) {
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function csvRow(cell, version, { sample, iterations, elapsedNs, outputBytes, status }) {
  return [
    LANGUAGE, IMPLEMENTATION, version, cell.suite, cell.operation, cell.algorithm,
    cell.key_bits, cell.input, cell.inputBytes, sample, iterations, elapsedNs, outputBytes, status,
  ].map(csvField).join(',') + '\n';
}

function label(cell) {
  return /^(RS|PS)/.test(cell.algorithm) ? `${cell.algorithm}-${cell.key_bits}` : cell.algorithm;
}

const grouped = (n) => Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');

function medianNsPerOp(samples) {
  const perOp = samples.map((s) => Number(s.elapsedNs) / s.iterations).sort((a, b) => a - b);
  const mid = perOp.length >> 1;
  return perOp.length % 2 ? perOp[mid] : (perOp[mid - 1] + perOp[mid]) / 2;
}

function stderr(line) {
  fs.writeSync(2, `${line}\n`);
}

// ---------------------------------------------------------------------------------------

function runBench(specFile, outFile) {
  const spec = loadSpec(specFile);
  const cells = prepareAll(spec, specFile);
  const version = dependencyVersion('jsonwebtoken');

  let fd;
  try {
    fd = fs.openSync(outFile, 'w');
  } catch (err) {
    throw new InputError(`cannot write --out ${outFile}: ${err.code || err.message}`);
  }
  fs.writeSync(fd, `${CSV_COLUMNS.join(',')}\n`);

  const checked = new Map();
  const counts = { ok: 0, unsupported: 0, failed: 0, timeout: 0 };
  cells.forEach((cell, i) => {
    const head = `[${i + 1}/${cells.length}] ${cell.operation} ${label(cell)}`;
    const untimed = (status, elapsedNs = 0n) => csvRow(cell, version, {
      sample: 0, iterations: 0, elapsedNs, outputBytes: 0, status,
    });

    const checkId = JSON.stringify([cell.algorithm, cell.private_key, cell.public_key, cell.input_file]);
    if (!checked.has(checkId)) checked.set(checkId, checkAlgorithm({ alg: cell.algorithm, ...cell }));
    const check = checked.get(checkId);

    let rows;
    let status = check.status;
    if (check.status !== 'ok') {
      rows = untimed(check.status);
      stderr(`${head}: ${check.status} (${check.reason})`);
    } else {
      try {
        const [batch, state] = batchState(cell, check.token);
        const result = measure(batch, state, spec.timing);
        status = result.status;
        if (result.samples.length === 0) {
          rows = untimed('timeout', result.spentNs);
          stderr(`${head}: timeout after ${grouped(Number(result.spentNs))} ns, no sample taken`);
        } else {
          rows = result.samples.map((s, k) => csvRow(cell, version, {
            sample: k + 1, iterations: s.iterations, elapsedNs: s.elapsedNs,
            outputBytes: state.outputBytes, status,
          })).join('');
          const n = result.samples[0].iterations;
          stderr(`${head}: ${grouped(medianNsPerOp(result.samples))} ns/op ` +
            `(${result.samples.length} samples x ${n})${status === 'timeout' ? ' timeout' : ''}`);
        }
      } catch (err) {
        status = 'failed';
        rows = untimed('failed');
        stderr(`${head}: failed while timing (${err.message})`);
      }
    }
    counts[status] += 1;
    fs.writeSync(fd, rows);
  });
  fs.closeSync(fd);
  stderr(`done: ${cells.length} cells (${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')}); sink ${sink}`);
}

module.exports = { runBench, loadSpec };
