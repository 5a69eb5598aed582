'use strict';
// `bench --spec FILE --out FILE`: runs the spec's cells and writes the raw-sample CSV
// (workflow/scripts/README.md "bench" and "Timing rules";
// workflow/schemas/raw_samples.schema.yaml for the columns).

const fs = require('node:fs');
const { checkAlgorithm } = require('./checks');
const { dependencyVersion } = require('./deps');
const {
  InputError, JWS_ALGORITHMS, isHmac, readBytes, readJsonObject,
  loadKey,
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
      keyCache.set(id, loadKey(kind, alg, file, origin));
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
 * Warm-up and calibration of one cell (README "Timing rules", steps 3-4). Returns the
 * cell's timer: {batch, state, n, spentNs, limitNs, wanted, timeout, samples: []}, where
 * spentNs (a BigInt) is the cell's own time so far and `timeout` is set when `wanted`
 * batches of n calls cannot fit in what is left of max_cell_seconds (or when warm-up or
 * calibration already used it up, in which case n is what calibration had reached).
 */
function warmUpAndCalibrate(batch, state, timing) {
  const start = process.hrtime.bigint();
  const spent = () => process.hrtime.bigint() - start;
  const limitNs = BigInt(Math.round(timing.max_cell_seconds * 1e9));
  const warmupNs = timing.warmup_seconds * 1e9;
  const targetNs = timing.target_sample_seconds * 1e9;
  const timer = (n, timeout) => ({
    batch, state, n, spentNs: spent(), limitNs, wanted: timing.samples, timeout, samples: [],
  });

  // Warm-up: batches doubling in size, at least one call, for warmup_seconds. A batch is
  // kept within the warm-up left, the cell's budget left and target_sample_seconds.
  let chunk = 1;
  let nsPerOp;
  for (;;) {
    nsPerOp = Math.max(1, Number(timeBatch(batch, chunk, state))) / chunk;
    const elapsed = spent();
    if (elapsed >= limitNs) return timer(chunk, true);
    const remaining = warmupNs - Number(elapsed);
    if (remaining <= 0) break;
    const room = Math.min(remaining, Number(limitNs - elapsed), targetNs);
    chunk = clampBatch(Math.min(chunk * 2, Math.ceil(room / nsPerOp)));
  }

  // Calibrate: the batch size whose run lasts about target_sample_seconds.
  let n = clampBatch(targetNs / nsPerOp);
  for (let round = 0; round < 5; round++) {
    const elapsed = Math.max(1, Number(timeBatch(batch, n, state)));
    if (spent() >= limitNs) return timer(n, true);
    nsPerOp = elapsed / n;
    const ratio = targetNs / elapsed;
    n = clampBatch(n * Math.min(100, ratio));
    if (ratio > 0.8 && ratio < 1.25) break;
  }

  // Can `samples` batches of n still fit in the cell's budget?
  const projectedNs = Number(spent()) + timing.samples * n * nsPerOp;
  return timer(n, projectedNs > Number(limitNs));
}

/** Whether the cell takes a sample in this round (README "Timing rules", steps 5-6). */
function wantsSample(timer) {
  if (timer.samples.length >= timer.wanted) return false;
  return !timer.timeout || timer.spentNs < timer.limitNs;
}

/** Times one batch of the cell's n calls; returns its duration in ns (a BigInt). */
function takeSample(timer) {
  const elapsedNs = timeBatch(timer.batch, timer.n, timer.state);
  timer.samples.push({ iterations: timer.n, elapsedNs });
  timer.spentNs += elapsedNs;
  return elapsedNs;
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
  const { timing } = spec;
  const cells = prepareAll(spec, specFile);
  const version = dependencyVersion('jsonwebtoken');

  let fd;
  try {
    fd = fs.openSync(outFile, 'w');
  } catch (err) {
    throw new InputError(`cannot write --out ${outFile}: ${err.code || err.message}`);
  }
  // Every row goes straight to the file (no buffering in this process), so a crash loses
  // nothing already measured.
  fs.writeSync(fd, `${CSV_COLUMNS.join(',')}\n`);
  const writeRow = (cell, fields) => fs.writeSync(fd, csvRow(cell, version, fields));
  const writeUntimed = (cell, status, elapsedNs = 0n) => writeRow(cell, {
    sample: 0, iterations: 0, elapsedNs, outputBytes: 0, status,
  });
  const head = (cell) => `[${cell.index + 1}/${cells.length}] ${cell.operation} ${label(cell)}`;
  const counts = { ok: 0, unsupported: 0, failed: 0, timeout: 0 };

  // 1. Checks, once per algorithm, key pair and input, before anything is timed.
  const checked = new Map();
  const passed = [];
  for (const cell of cells) {
    const checkId = JSON.stringify([cell.algorithm, cell.private_key, cell.public_key, cell.input_file]);
    if (!checked.has(checkId)) checked.set(checkId, checkAlgorithm({ alg: cell.algorithm, ...cell }));
    const check = checked.get(checkId);
    if (check.status === 'ok') {
      passed.push({ cell, token: check.token });
    } else {
      writeUntimed(cell, check.status);
      counts[check.status] += 1;
      stderr(`${head(cell)}: ${check.status} (${check.reason})`);
    }
  }

  // 2. Warm-up and calibration, cell by cell.
  const timed = [];
  for (const { cell, token } of passed) {
    let timer;
    try {
      const [batch, state] = batchState(cell, token);
      timer = warmUpAndCalibrate(batch, state, timing);
    } catch (err) {
      writeUntimed(cell, 'failed');
      counts.failed += 1;
      stderr(`${head(cell)}: failed while timing (${err.message})`);
      continue;
    }
    timed.push({ cell, timer });
    const note = !timer.timeout ? ''
      : timer.spentNs >= timer.limitNs ? ` (timeout: max_cell_seconds used up by warm-up and calibration)`
        : ` (timeout: ${timing.samples} samples will not fit in max_cell_seconds)`;
    stderr(`${head(cell)}: batch of ${timer.n}${note}`);
  }

  // 3. Sampling in interleaved rounds: round k takes sample k of every cell still wanting one.
  // A cell that stops wanting samples never wants one again, so rounds end early once
  // no cell took one.
  for (let k = 1; k <= timing.samples; k++) {
    let taken = 0;
    for (const entry of timed) {
      const { cell, timer } = entry;
      if (entry.failed || !wantsSample(timer)) continue;
      let elapsedNs;
      try {
        elapsedNs = takeSample(timer);
      } catch (err) {
        if (timer.samples.length > 0) {
          // Its rows so far are written with status ok/timeout; a cell cannot mix statuses.
          throw new Error(`${head(cell)} threw in round ${k}, after ${timer.samples.length} samples: ${err.message}`);
        }
        entry.failed = true; // nothing written for it yet: the cell is failed
        writeUntimed(cell, 'failed');
        counts.failed += 1;
        stderr(`${head(cell)}: failed while timing (${err.message})`);
        continue;
      }
      writeRow(cell, {
        sample: k, iterations: timer.n, elapsedNs, outputBytes: timer.state.outputBytes,
        status: timer.timeout ? 'timeout' : 'ok',
      });
      taken += 1;
    }
    if (taken === 0) {
      stderr(`round ${k}/${timing.samples}: no cell wants another sample, sampling ends`);
      break;
    }
    stderr(`round ${k}/${timing.samples} done`);
  }

  // 4. Summary; a timeout cell without any sample gets one row with the time it spent.
  for (const { cell, timer, failed } of timed) {
    if (failed) continue;
    const status = timer.timeout ? 'timeout' : 'ok';
    counts[status] += 1;
    if (timer.samples.length === 0) {
      writeUntimed(cell, 'timeout', timer.spentNs);
      stderr(`${head(cell)}: timeout after ${grouped(Number(timer.spentNs))} ns, no sample taken`);
    } else {
      stderr(`${head(cell)}: ${grouped(medianNsPerOp(timer.samples))} ns/op ` +
        `(${timer.samples.length} samples x ${timer.n})${timer.timeout ? ' timeout' : ''}`);
    }
  }
  fs.closeSync(fd);
  stderr(`done: ${cells.length} cells (${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')}); sink ${sink}`);
}

module.exports = { runBench, loadSpec };
