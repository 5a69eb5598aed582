'use strict';
// `bench --spec FILE --out FILE`: validates the spec, prepares and checks every cell, then
// runs its suite: jwt and hash here (warm-up, calibration, warm-up until steady,
// interleaved sampling until the stopping rule of stopping.js stops each cell, each round
// opened by a sample of the drift reference; hash's cells, calls and reference in hash.js),
// tokensize in tokensize.js, transfer in transfer.js, percall in percall.js; harness's calls
// (harness.js) go through suite jwt's sign batch
// (workflow/scripts/README.md "bench", the suites and "Timing rules";
// workflow/schemas/raw_samples.schema.yaml for the columns).

const { checkAlgorithm, signAndCheckPool } = require('./checks');
const { dependencyVersion } = require('./deps');
const hash = require('./hash');
const harness = require('./harness');
const keygen = require('./keygen');
const primitive = require('./primitive');
const {
  InputError, JWS_ALGORITHMS, isHmac, readBytes, readJsonObject, readRecords,
  loadKey, keyBitsOf, specNumber, NON_NEGATIVE, POSITIVE, COUNT,
} = require('./inputs');
const { DRIVER, library } = require('./library');
const stopping = require('./stopping');
const {
  openCsv, stderr, label, grouped, median,
} = require('./output');

const SPEC_FORMAT = 'jwtbench-spec/1';
const INPUT_KINDS = ['claims', 'records'];
// `rounds`: the suite is timed by warm-up, calibration and interleaved rounds, so it needs
// every timing field. Hash cells have no keys or input file (hash.js).
const SUITES = {
  jwt: { operations: ['sign', 'verify', 'decode'], inputKinds: INPUT_KINDS, rounds: true },
  tokensize: { operations: ['sign'], inputKinds: ['records'] },
  transfer: { operations: ['request-response'], inputKinds: ['claims'] },
  hash: { operations: hash.OPERATIONS, rounds: true },
  percall: { operations: ['sign', 'verify', 'decode'], inputKinds: ['claims'] },
  primitive: { operations: primitive.OPERATIONS, rounds: true },
  keygen: { operations: keygen.OPERATIONS, rounds: true },
  harness: { operations: harness.OPERATIONS, rounds: true },
};
// The suites the pipeline's conductor times through `serve` (serve.js; driver.yaml
// `conducted`): the ones timed in rounds, but keygen, whose per-key cells run in children.
const CONDUCTED = ['jwt', 'hash', 'primitive', 'harness'];
const MAX_BATCH = 1e9;
// Suites that time node:crypto itself, not the JWT library (every library runs them).
const CRYPTO_SUITES = ['hash', 'primitive', 'keygen'];
// Suites every library runs, whatever its adapter's `suites`; none has JWT keys or claims.
const EVERY_LIBRARY = [...CRYPTO_SUITES, 'harness'];

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// ---------------------------------------------------------------------------------------
// Spec

/**
 * Suites jwt and hash use every timing field (warmup_max_seconds: absent means 0, no
 * warm-up until steady; steady_window and steady_tolerance are needed when it is > 0;
 * process_warmup_seconds: absent means 0; min_samples, target_ci_pct and confidence
 * default to 20, 1.0 and 0.95, stopping.js);
 * tokensize, transfer and percall only max_cell_seconds (the others are checked when
 * present). `target` is the stopping rule's Target (undefined without `samples`).
 */
function loadTiming(spec, fail) {
  const t = spec.timing;
  if (!isObject(t)) fail('"timing" must be an object');
  const { rounds = false } = SUITES[spec.suite];
  const number = (name, rule, required = rounds) => specNumber(t, 'timing', name, { ...rule, required }, fail);
  const target = stopping.loadTarget(t, fail, rounds);
  const timing = {
    warmup_seconds: number('warmup_seconds', NON_NEGATIVE),
    samples: target?.samples,
    target,
    target_sample_seconds: number('target_sample_seconds', POSITIVE),
    max_cell_seconds: specNumber(t, 'timing', 'max_cell_seconds', POSITIVE, fail),
    warmup_max_seconds: number('warmup_max_seconds', NON_NEGATIVE, false) ?? 0,
    process_warmup_seconds: number('process_warmup_seconds', NON_NEGATIVE, false) ?? 0,
  };
  const steady = rounds && timing.warmup_max_seconds > 0;
  timing.steady_window = number('steady_window', COUNT, steady);
  timing.steady_tolerance = number('steady_tolerance', POSITIVE, steady);
  return timing;
}

function loadTransfer(spec, fail) {
  const t = spec.transfer;
  if (!isObject(t)) fail('"transfer" must be an object (suite transfer needs it)');
  return {
    trials: specNumber(t, 'transfer', 'trials', COUNT, fail),
    warmup_trials: specNumber(t, 'transfer', 'warmup_trials',
      { ok: (v) => Number.isInteger(v) && v >= 0, what: 'an integer >= 0' }, fail),
    request_timeout_seconds: specNumber(t, 'transfer', 'request_timeout_seconds', POSITIVE, fail),
  };
}

function loadPercall(spec, fail) {
  const p = spec.percall;
  if (!isObject(p)) fail('"percall" must be an object (suite percall needs it)');
  return {
    warmup_calls: specNumber(p, 'percall', 'warmup_calls',
      { ok: (v) => Number.isInteger(v) && v >= 0, what: 'an integer >= 0' }, fail),
    calls: specNumber(p, 'percall', 'calls', COUNT, fail),
  };
}

function loadCell(cell, i, suite, fail) {
  const at = `cells[${i}]`;
  if (!isObject(cell)) fail(`${at} must be an object`);
  const string = (name) => {
    if (typeof cell[name] !== 'string' || cell[name] === '') fail(`${at}.${name} must be a non-empty string`);
    return cell[name];
  };
  const { operations, inputKinds } = SUITES[suite];
  const operation = string('operation');
  if (!operations.includes(operation)) fail(`${at}.operation must be one of ${operations.join(', ')} (suite ${suite})`);
  if (suite === 'hash') return { index: i, suite, operation, input: string('input'), ...hash.loadHashCell(cell, at, fail) };
  if (suite === 'primitive') return { index: i, suite, operation, input: string('input'), ...primitive.loadPrimitiveCell(cell, at, fail) };
  if (suite === 'keygen') return { index: i, suite, operation, input: string('input'), ...keygen.loadKeygenCell(cell, at, fail) };
  if (suite === 'harness') return { index: i, suite, operation, input: string('input'), ...harness.loadHarnessCell(cell, at, fail) };
  const algorithm = string('algorithm');
  if (!JWS_ALGORITHMS.includes(algorithm)) fail(`${at}.algorithm must be one of ${JWS_ALGORITHMS.join(', ')}`);
  if (!Number.isInteger(cell.key_bits) || cell.key_bits < 1) fail(`${at}.key_bits must be an integer >= 1`);
  const inputKind = cell.input_kind ?? 'claims';
  if (!INPUT_KINDS.includes(inputKind)) fail(`${at}.input_kind must be "claims" or "records"`);
  if (!inputKinds.includes(inputKind)) fail(`${at}.input_kind must be "${inputKinds.join('" or "')}" in suite ${suite}`);
  return {
    index: i, suite, operation, algorithm, key_bits: cell.key_bits,
    private_key: string('private_key'), public_key: string('public_key'),
    input: string('input'), input_file: string('input_file'), input_kind: inputKind,
  };
}

function loadSpec(file) {
  const { value: spec } = readJsonObject(file, '--spec');
  const fail = (msg) => { throw new InputError(`--spec ${file}: ${msg}`); };

  if (spec.format !== SPEC_FORMAT) fail(`"format" must be "${SPEC_FORMAT}"`);
  if (spec.language !== undefined && spec.language !== 'node') {
    fail(`"language" is "${spec.language}", this is the ${DRIVER} driver (language node)`);
  }
  if (typeof spec.suite !== 'string' || !Object.hasOwn(SUITES, spec.suite)) {
    fail(`"suite" must be one of ${Object.keys(SUITES).join(', ')}`);
  }
  // Suites hash, primitive and keygen time node:crypto (their cells name it), and harness the
  // timing loop, whatever the library; the JWT suites only those the library's adapter runs.
  const { name, suites } = library();
  if (!EVERY_LIBRARY.includes(spec.suite) && !suites.includes(spec.suite)) {
    fail(`suite ${spec.suite} is not run with ${name} (its suites: ${[...suites, ...EVERY_LIBRARY].join(', ')})`);
  }
  const timing = loadTiming(spec, fail);
  const transfer = spec.suite === 'transfer' ? loadTransfer(spec, fail) : undefined;
  const percall = spec.suite === 'percall' ? loadPercall(spec, fail) : undefined;
  const keygenBlock = spec.suite === 'keygen' ? keygen.loadKeygenBlock(spec, fail) : undefined;
  if (!Array.isArray(spec.cells)) fail('"cells" must be an array');
  const cells = spec.cells.map((cell, i) => loadCell(cell, i, spec.suite, fail));
  const pairs = stopping.loadPairs(spec.pairs, cells.length, fail);
  return { suite: spec.suite, timing, transfer, percall, keygen: keygenBlock, cells, pairs };
}

// ---------------------------------------------------------------------------------------
// Prepare: every file is read and every key parsed once, before anything is timed.

/** The mean of non-negative integers rounded to the nearest integer, halves up (exact). */
function roundedMean(values) {
  const sum = values.reduce((total, v) => total + v, 0);
  return Math.floor((2 * sum + values.length) / (2 * values.length));
}

/**
 * A cell's input, parsed: {inputBytes, claims} for claims; for records also `records`
 * ([{bytes, claims}]), with `claims` the first record's (for the checks) and inputBytes
 * the records' mean size.
 */
function readInput(cell, origin) {
  if (cell.input_kind === 'records') {
    const records = readRecords(cell.input_file, origin);
    return {
      records, claims: records[0].claims, inputBytes: roundedMean(records.map((r) => r.bytes)),
    };
  }
  const { bytes, value } = readJsonObject(cell.input_file, origin);
  if (cell.suite === 'transfer' && (typeof value.dataset !== 'string' || !Array.isArray(value.records))) {
    throw new InputError(`${origin} ${cell.input_file} is not a transfer body ({"dataset": NAME, "records": [...]})`);
  }
  return { inputBytes: bytes.length, claims: value };
}

function prepareAll(spec, specFile) {
  if (spec.suite === 'hash') return spec.cells.map(hash.prepareHashCell);
  if (spec.suite === 'primitive') return primitive.prepareCells(spec.cells, specFile, primitive.countingBytes);
  if (spec.suite === 'keygen') return primitive.prepareCells(spec.cells, specFile, keygen.digitBytes);
  if (spec.suite === 'harness') return spec.cells;
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
    const inputId = `${cell.input_kind}\0${cell.input_file}`;
    if (!inputCache.has(inputId)) inputCache.set(inputId, readInput(cell, origin('input_file')));
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
      ...inputCache.get(inputId),
      signingKey,
      verificationKey,
      verificationKeyBytes: bytesOf(cell.public_key, origin('public_key')),
    };
  });
}

/**
 * The JWT cells' keys as the library's own key objects (library.js `nativeKey`), made once
 * per role, algorithm and key file before anything is timed; a cell whose algorithm the
 * library's key import refuses gets `unsupported` (its reason), one whose key it refuses
 * otherwise `failed` (the checks then write its row). Hash, primitive and keygen cells keep
 * their node:crypto keys.
 */
async function nativeKeys(cells) {
  const lib = library();
  const made = new Map();
  const native = async (role, alg, keyObject, file) => {
    const id = `${role}\0${alg}\0${file}`;
    if (!made.has(id)) {
      try {
        made.set(id, { key: await lib.nativeKey(role, alg, keyObject) });
      } catch (err) {
        made.set(id, lib.isUnsupportedAlgorithmError(err)
          ? { unsupported: `${lib.name} rejects algorithm ${alg}: ${err.message}` }
          : { failed: `${lib.name} refused the ${role} key ${file} for ${alg}: ${err.message}` });
      }
    }
    return made.get(id);
  };
  const prepared = [];
  for (const cell of cells) {
    if (EVERY_LIBRARY.includes(cell.suite)) {
      prepared.push(cell);
      continue;
    }
    const signing = await native('private', cell.algorithm, cell.signingKey, cell.private_key);
    const verification = await native('public', cell.algorithm, cell.verificationKey, cell.public_key);
    const unsupported = signing.unsupported ?? verification.unsupported;
    const failed = signing.failed ?? verification.failed;
    prepared.push({ ...cell, signingKey: signing.key, verificationKey: verification.key, unsupported, failed });
  }
  return prepared;
}

// ---------------------------------------------------------------------------------------
// Timing. One batch function per operation, each calling the library (its adapter's signer,
// verifier or decoder, built before anything is timed); every result is folded into the
// returned value, which goes into `sink` (printed at the end). A library whose calls return
// promises (library().async) has its own sign and verify batches, which await each call in
// turn: a batch times what a caller of the library pays, promise resolution included.

let sink = 0;

// Call i takes input i (its claims, or its pooled token) and the position wraps around;
// it is kept in the state, so it carries over from batch to batch. A claims cell is one
// input; a records cell one per record.

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

/**
 * Runs one batch of n calls; returns its monotonic-clock duration in ns (a BigInt). A
 * batch that awaits its calls (AWAITED) is awaited between the two clock reads.
 */
function timeBatch(batch, n, state) {
  if (AWAITED.has(batch)) return timeAwaitedBatch(batch, n, state);
  const t0 = process.hrtime.bigint();
  const folded = batch(n, state);
  const t1 = process.hrtime.bigint();
  sink = (sink + folded) | 0;
  return t1 - t0;
}

const AWAITED = new Set([signBatchAwaited, verifyBatchAwaited]);

async function timeAwaitedBatch(batch, n, state) {
  const t0 = process.hrtime.bigint();
  const folded = await batch(n, state);
  const t1 = process.hrtime.bigint();
  sink = (sink + folded) | 0;
  return t1 - t0;
}

const clampBatch = (n) => Math.min(MAX_BATCH, Math.max(1, Math.round(n)));

/** The untimed batch before each sample of the drift reference: a quarter of its own. */
const settlingBatch = (n) => Math.max(1, Math.ceil(n / 4));

/**
 * A clock from now: `spent()` (a BigInt), `left(spentNs)`, the ns of limitNs (a BigInt) left
 * after spentNs (a Number), and whether limitNs is used up. Without limitNs (the drift
 * reference) there is no budget: left is Infinity, never used up.
 */
function budgetClock(limitNs) {
  const start = process.hrtime.bigint();
  const spent = () => process.hrtime.bigint() - start;
  const left = (spentNs) => (limitNs === undefined ? Infinity : Number(limitNs - spentNs));
  return { limitNs, spent, left, usedUp: () => left(spent()) <= 0 };
}

/** The clock of one cell's own time, from its first warm-up batch, against max_cell_seconds. */
const cellClock = (timing) => budgetClock(BigInt(Math.round(timing.max_cell_seconds * 1e9)));

/** The warm-up: whether a cell of this process has warmed up yet. */
let processWarmedUp = false;

/**
 * Warm-up: batches doubling in size, at least one call, for warmup_seconds (the
 * process's first warm-up: for process_warmup_seconds when that is longer; the drift
 * reference's comes after every cell's, so never). A batch is kept within the warm-up
 * left, the clock's budget left and target_sample_seconds. Returns {n, nsPerOp, usedUp}
 * of the last batch, usedUp when it ended with the clock's budget used up.
 */
async function warmUp(cell, timing, clock) {
  const { batch, state } = cell;
  const warmupSeconds = processWarmedUp ? timing.warmup_seconds
    : Math.max(timing.warmup_seconds, timing.process_warmup_seconds);
  processWarmedUp = true;
  const warmupNs = warmupSeconds * 1e9;
  const targetNs = timing.target_sample_seconds * 1e9;
  let chunk = 1;
  for (;;) {
    const nsPerOp = Math.max(1, Number(await timeBatch(batch, chunk, state))) / chunk;
    const elapsed = clock.spent();
    const left = clock.left(elapsed);
    if (left <= 0) return { n: chunk, nsPerOp, usedUp: true };
    const remaining = warmupNs - Number(elapsed);
    if (remaining <= 0) return { n: chunk, nsPerOp, usedUp: false };
    const room = Math.min(remaining, left, targetNs);
    chunk = clampBatch(Math.min(chunk * 2, Math.ceil(room / nsPerOp)));
  }
}

/**
 * Calibration: from batch size n, up to five batches towards one that lasts
 * target_sample_seconds. Returns {n, nsPerOp, usedUp}; when max_cell_seconds ran out, n is
 * the batch just timed, else the batch size it leads to (through `fit`).
 */
async function calibrate(cell, n, timing, clock) {
  const targetNs = timing.target_sample_seconds * 1e9;
  let nsPerOp;
  for (let round = 0; round < 5; round++) {
    const elapsed = Math.max(1, Number(await timeBatch(cell.batch, n, cell.state)));
    if (clock.usedUp()) return { n, nsPerOp: elapsed / n, usedUp: true };
    nsPerOp = elapsed / n;
    const ratio = targetNs / elapsed;
    n = clampBatch(n * Math.min(100, ratio));
    if (ratio > 0.8 && ratio < 1.25) break;
  }
  return { n: cell.fit(n), nsPerOp, usedUp: false };
}

/**
 * Warm-up until steady (part of calibration, when warmup_max_seconds > 0): untimed windows
 * of steady_window batches of n calls, each batch timed, until a window's median ns/op is
 * within steady_tolerance (relative) of the previous window's, or until the cell's time
 * (from its warm-up on) reaches warmup_max_seconds; a window cut short by that is not
 * compared. Returns {steady, seconds, change (of the last two windows, or undefined), usedUp}.
 */
async function warmUntilSteady(cell, n, timing, clock) {
  const budgetNs = BigInt(Math.round(timing.warmup_max_seconds * 1e9));
  const result = (steady, change, usedUp = false) => ({ steady, seconds: Number(clock.spent()) / 1e9, change, usedUp });
  let previous;
  let change;
  for (;;) {
    const window = [];
    while (window.length < timing.steady_window) {
      if (clock.spent() >= budgetNs) return result(false, change);
      window.push(Number(await timeBatch(cell.batch, n, cell.state)) / n);
      if (clock.usedUp()) return result(false, change, true);
    }
    const current = median(window);
    if (previous !== undefined) {
      change = Math.abs(current - previous) / previous;
      if (change <= timing.steady_tolerance) return result(true, change);
    }
    previous = current;
  }
}

/** The stderr note on a cell's warm-up until steady. */
function steadinessNote({ steady, seconds, change, usedUp }) {
  const after = `${steady ? '' : 'not '}steady after ${seconds.toFixed(2)} s`;
  if (steady) return after;
  const last = change === undefined ? 'fewer than two windows' : `last change ${(100 * change).toFixed(1)}%`;
  return `${after} (${last}${usedUp ? ', max_cell_seconds used up' : ''})`;
}

/**
 * Warm-up, calibration and, when warmup_max_seconds > 0, warm-up until steady and a new
 * calibration, of one cell (README "Timing rules", "The warm-up" and "Calibration"). `cell`
 * is {batch, state, fit}, fit(n) adjusting a calibrated batch size (records: whole passes).
 * Returns the cell's timer: {batch, state, n, spentNs, limitNs, wanted, timeout,
 * steadiness, samples: []}, where spentNs (a BigInt) is the cell's own time so far,
 * `steadiness` what warmUntilSteady found (undefined when it did not run), `wanted` the
 * samples the cell must have room for (Target.plannedSamples: min_samples while the
 * stopping rule is on, at most samples) and `timeout` is set when `wanted` batches of n
 * calls cannot fit in what is left of max_cell_seconds (or when the phases before already
 * used it up, in which case n is what they had reached).
 */
async function warmUpAndCalibrate(cell, timing) {
  const { batch, state, fit } = cell;
  const clock = cellClock(timing);
  const { limitNs, spent } = clock;
  const targetNs = timing.target_sample_seconds * 1e9;
  let steadiness;
  const wanted = timing.target.plannedSamples();
  const timer = (n, timeout) => ({
    batch, state, n: fit(n), spentNs: spent(), limitNs, wanted, timeout, steadiness, samples: [],
  });

  const warm = await warmUp(cell, timing, clock);
  if (warm.usedUp) return timer(warm.n, true);

  // Calibrate: the batch size whose run lasts about target_sample_seconds; after warm-up
  // until steady, again, since the steady code may be faster.
  let calibrated = await calibrate(cell, clampBatch(targetNs / warm.nsPerOp), timing, clock);
  if (!calibrated.usedUp && timing.warmup_max_seconds > 0) {
    steadiness = await warmUntilSteady(cell, calibrated.n, timing, clock);
    if (steadiness.usedUp) return timer(calibrated.n, true);
    calibrated = await calibrate(cell, calibrated.n, timing, clock);
  }
  if (calibrated.usedUp) return timer(calibrated.n, true);

  // Can `wanted` batches of n still fit in the cell's budget?
  const projectedNs = Number(spent()) + wanted * calibrated.n * calibrated.nsPerOp;
  return timer(calibrated.n, projectedNs > Number(limitNs));
}

/** The time cap (README, "Timeouts and the time cap"): the cell's own time reached max_cell_seconds. */
const timeCapped = (timer) => timer.spentNs >= timer.limitNs;

/** Times one batch of the cell's n calls; returns its duration in ns (a BigInt). */
async function takeSample(timer) {
  const elapsedNs = await timeBatch(timer.batch, timer.n, timer.state);
  timer.samples.push({ iterations: timer.n, elapsedNs });
  timer.spentNs += elapsedNs;
  return elapsedNs;
}

/**
 * A records cell's batch, once it holds at least one pass through the records, rounded to
 * the nearest whole number of passes: every sample then times the same mix of records.
 */
function wholePasses(n, count) {
  return n < count ? n : Math.max(1, Math.round(n / count)) * count;
}

/**
 * Batch and state of a JWT cell (suites jwt and percall), from its checked tokens (one for
 * claims, the pool for records); outputBytes is their mean size.
 */
function batchState(cell, tokens) {
  const lib = library();
  const outputBytes = roundedMean(tokens.map((t) => Buffer.byteLength(t)));
  const position = 0;
  switch (cell.operation) {
    case 'sign': {
      // One signer per input (the library's signer built once, with the options its claims need).
      const claims = cell.records ? cell.records.map((r) => r.claims) : [cell.claims];
      const signers = claims.map((c) => lib.signer(cell.algorithm, cell.signingKey, c));
      return { batch: lib.async ? signBatchAwaited : signBatch, state: { claims, signers, position, outputBytes } };
    }
    case 'verify':
      return {
        batch: lib.async ? verifyBatchAwaited : verifyBatch,
        state: { tokens, verify: lib.verifier(cell.algorithm, cell.verificationKey), position, outputBytes },
      };
    case 'decode':
      return { batch: decodeBatch, state: { tokens, decode: lib.decoder, position, outputBytes } };
    default:
      throw new Error(`no batch for operation ${cell.operation}`);
  }
}

/**
 * What the timing loops run for a checked cell: {batch, state, fit}, fit(n) adjusting a
 * calibrated batch size (records: whole passes through them).
 */
function timedCall(cell, check) {
  if (cell.suite === 'hash') return { ...hash.hashBatch(cell), fit: (n) => n };
  if (cell.suite === 'harness') {
    // Suite jwt's sign batch on one input, its signer the harness's call.
    const state = { claims: [null], signers: [check.call], position: 0, outputBytes: check.outputBytes };
    return { batch: library().async ? signBatchAwaited : signBatch, state, fit: (n) => n };
  }
  if (cell.suite === 'primitive' || cell.suite === 'keygen') return { ...primitive.primitiveBatch(cell, check), fit: (n) => n };
  const fit = cell.records ? (n) => wholePasses(n, cell.records.length) : (n) => n;
  return { ...batchState(cell, cell.records ? check.tokens : [check.token]), fit };
}

const medianNsPerOp = (samples) => median(samples.map((s) => Number(s.elapsedNs) / s.iterations));

// ---------------------------------------------------------------------------------------
// Checks, shared by every suite

/**
 * The checks before timing on the cell's claims (the first record for records); for jwt on
 * records, the token pool too; hash.js's for a hash cell, harness.js's for a harness
 * cell. {status, reason} or {status: 'ok'[, token[, tokens]]}.
 */
async function checkCell(cell) {
  if (cell.suite === 'hash') return hash.checkHashCell(cell);
  if (cell.suite === 'primitive' || cell.suite === 'keygen') return primitive.checkPrimitiveCell(cell);
  if (cell.suite === 'harness') return harness.checkHarnessCell(cell, library().async);
  if (cell.unsupported) return { status: 'unsupported', reason: cell.unsupported };
  if (cell.failed) return { status: 'failed', reason: cell.failed };
  const check = await checkAlgorithm({ alg: cell.algorithm, ...cell });
  // A transfer body's token can be tens of MB: the cell signs its own when it runs.
  if (check.status === 'ok' && cell.suite === 'transfer') return { status: 'ok' };
  if (check.status !== 'ok' || cell.suite !== 'jwt' || !cell.records) return check;
  const pool = await signAndCheckPool({ alg: cell.algorithm, ...cell });
  return pool.status === 'ok' ? { ...check, tokens: pool.tokens } : pool;
}

/**
 * Checks once per algorithm, key pair and input (a hash cell: once per cell, each has its
 * own message), before anything is timed. Returns [{cell, check}] of every cell, in order.
 */
async function checkEach(cells) {
  const checked = new Map();
  const found = [];
  for (const cell of cells) {
    const checkId = EVERY_LIBRARY.includes(cell.suite) ? cell.index
      : JSON.stringify([cell.algorithm, cell.private_key, cell.public_key, cell.input_file]);
    if (!checked.has(checkId)) checked.set(checkId, await checkCell(cell));
    let check = checked.get(checkId);
    if (check.status === 'ok' && cell.operation === 'decode' && library().decoder === null) {
      check = { status: 'unsupported', reason: `${library().name} has no API that decodes a token without verifying it` };
    }
    found.push({ cell, check });
  }
  return found;
}

/**
 * checkEach's cells that passed; a cell that did not gets its untimed row now.
 */
async function checkCells(cells, run) {
  const passed = [];
  for (const { cell, check } of await checkEach(cells)) {
    if (check.status === 'ok') {
      passed.push({ cell, check });
    } else {
      run.finish(cell, check.status, `${check.status} (${check.reason})`);
    }
  }
  return passed;
}

// ---------------------------------------------------------------------------------------
// Suites jwt, hash, primitive, harness and keygen's sign/verify: warm-up, calibration,
// interleaved rounds until the stopping rule (stopping.js) or the time cap stops each cell;
// each round opens with a sample of the drift reference

/** How the end-of-run progress line says why a cell stopped sampling. */
const STOPPED_BY = {
  [stopping.PRECISION]: 'precision', [stopping.SAMPLE_CAP]: 'sample cap', [stopping.TIME_CAP]: 'time cap',
};

/**
 * The drift reference (hash.js's referenceCell, in the rows of the spec's suite),
 * warmed up for warmup_seconds and calibrated to target_sample_seconds by the cells' own
 * code (no warm-up until steady), on a clock of its own with no budget: it is no cell and
 * counts against no cell's max_cell_seconds. Returns the cell with its batch size `n`.
 */
async function calibrateReference(run) {
  const { timing } = run;
  const reference = { ...hash.referenceCell(run.suite), fit: (n) => n };
  const clock = budgetClock();
  const warm = await warmUp(reference, timing, clock);
  const { n } = await calibrate(reference, clampBatch(timing.target_sample_seconds * 1e9 / warm.nsPerOp), timing, clock);
  stderr(`drift reference: ${reference.algorithm} of ${reference.inputBytes} bytes (${reference.implementation}), batch of ${n}`);
  return { ...reference, n };
}

/**
 * One sample of the reference, written at once as its row `sample` = round, after an
 * untimed quarter batch that settles it (whatever cell ended the last round).
 */
async function sampleReference(reference, round, out) {
  await timeBatch(reference.batch, settlingBatch(reference.n), reference.state);
  const elapsedNs = await timeBatch(reference.batch, reference.n, reference.state);
  out.writeRow(reference, {
    sample: round, iterations: reference.n, elapsedNs, outputBytes: reference.state.outputBytes, status: 'ok',
  });
}

async function timeInRounds(passed, run) {
  const { timing, out } = run;

  // Warm-up and calibration (and warm-up until steady), cell by cell.
  const timed = [];
  for (const { cell, check } of passed) {
    let timer;
    try {
      timer = await warmUpAndCalibrate(timedCall(cell, check), timing);
    } catch (err) {
      run.finish(cell, 'failed', `failed while timing (${err.message})`);
      continue;
    }
    timed.push({ cell, timer });
    if (timer.steadiness) stderr(`${run.head(cell)}: ${steadinessNote(timer.steadiness)}`);
    const note = !timer.timeout ? ''
      : timer.spentNs >= timer.limitNs ? ` (timeout: max_cell_seconds used up by warm-up and calibration)`
        : ` (timeout: ${timer.wanted} samples will not fit in max_cell_seconds)`;
    stderr(`${run.head(cell)}: batch of ${timer.n}${note}`);
  }

  // The stopping rule's state over all the spec's cells, since `pairs` index them
  // (cell.index); the ones not timed here (failed, unsupported, keygen's per-iteration
  // cells) never sample.
  const rounds = new stopping.Rounds(run.cellCount, run.pairs, timing.target);
  const inRounds = new Set(timed.map(({ cell }) => cell.index));
  for (let index = 0; index < run.cellCount; index++) {
    if (!inRounds.has(index)) rounds.stop(index, stopping.NOT_SAMPLED);
  }

  // The drift reference, warmed up and calibrated after every cell, if any cell
  // is timed in rounds.
  const reference = timed.length > 0 ? await calibrateReference(run) : undefined;

  // Sampling in interleaved rounds: round k first stops the cells whose own time is used
  // up (time cap; a cell's time grows only by its own samples, so this is what it would be
  // at its turn), then, if any cell is left, times one batch of the reference and sample k
  // of every cell still sampling, in spec order. After the round, the stopping rule stops the
  // cells at their sample cap or precise enough, all decided on the round's end state; the
  // rounds end once no cell samples.
  for (let k = 1; k <= timing.samples && rounds.anySampling(); k++) {
    for (const { cell, timer } of timed) {
      if (rounds.sampling(cell.index) && timeCapped(timer)) rounds.stop(cell.index, stopping.TIME_CAP);
    }
    if (rounds.anySampling()) await sampleReference(reference, k, out);
    for (const entry of timed) {
      const { cell, timer } = entry;
      if (!rounds.sampling(cell.index)) continue;
      let elapsedNs;
      try {
        elapsedNs = await takeSample(timer);
      } catch (err) {
        if (timer.samples.length > 0) {
          // Its rows so far are written with status ok/timeout; a cell cannot mix statuses.
          throw new Error(`${run.head(cell)} threw in round ${k}, after ${timer.samples.length} samples: ${err.message}`);
        }
        entry.failed = true; // nothing written for it yet: the cell is failed
        rounds.stop(cell.index, stopping.NOT_SAMPLED);
        run.finish(cell, 'failed', `failed while timing (${err.message})`);
        continue;
      }
      out.writeRow(cell, {
        sample: k, iterations: timer.n, elapsedNs, outputBytes: timer.state.outputBytes,
        status: timer.timeout ? 'timeout' : 'ok',
      });
      rounds.add(cell.index, k, Number(elapsedNs) / timer.n);
    }
    rounds.endRound();
    const left = timed.filter(({ cell }) => rounds.sampling(cell.index)).length;
    stderr(`round ${k}/${timing.samples} done, ${left} of ${timed.length} cells still sampling`);
  }

  // Summary; a timeout cell without any sample gets one row with the time it spent.
  for (const { cell, timer, failed } of timed) {
    if (failed) continue;
    const status = timer.timeout ? 'timeout' : 'ok';
    if (timer.samples.length === 0) {
      out.writeUntimed(cell, 'timeout', timer.spentNs);
      run.finish(cell, status, `timeout after ${grouped(Number(timer.spentNs))} ns, no sample taken`, false);
    } else {
      const why = STOPPED_BY[rounds.stopped[cell.index]] ?? rounds.stopped[cell.index];
      run.finish(cell, status, `${grouped(medianNsPerOp(timer.samples))} ns/op ` +
        `(${timer.samples.length} samples x ${timer.n}, stopped at ${why})${timer.timeout ? ' timeout' : ''}`, false);
    }
  }
}

// ---------------------------------------------------------------------------------------

/**
 * The run's shared context for the suites: the spec's suite and timing, its cell count and `pairs`
 * (the stopping rule's), the CSV (`out`), a progress prefix per cell (`head`), and `finish(cell, status, note, untimed = true)`,
 * which counts the cell's status, logs the note and, if `untimed`, writes its untimed row.
 */
function startRun(spec, cells, outFile) {
  const out = openCsv(outFile, dependencyVersion(library().name));
  const counts = { ok: 0, unsupported: 0, failed: 0, timeout: 0 };
  const head = (cell) => `[${cell.index + 1}/${cells.length}] ${cell.operation} ${label(cell)}`;
  return {
    suite: spec.suite,
    timing: spec.timing,
    cellCount: cells.length,
    pairs: spec.pairs,
    out,
    head,
    counts,
    finish(cell, status, note, untimed = true) {
      if (untimed) out.writeUntimed(cell, status);
      counts[status] += 1;
      stderr(`${head(cell)}: ${note}`);
    },
  };
}

async function runBench(specFile, outFile) {
  const spec = loadSpec(specFile);
  const cells = await nativeKeys(prepareAll(spec, specFile));
  const run = startRun(spec, cells, outFile);
  if (spec.suite === 'keygen') {
    // Per-key checks and the per-iteration cells (in child processes) first; then the
    // sign and verify cells of the keys that passed, timed as suite primitive's.
    const signVerify = await keygen.runKeygen(cells, spec.keygen, run);
    await timeInRounds(await checkCells(signVerify, run), run);
  } else if (SUITES[spec.suite].rounds) {
    await timeInRounds(await checkCells(cells, run), run);
  } else if (spec.suite === 'percall') {
    const passed = await checkCells(cells, run);
    const cellsToCall = passed.map(({ cell, check }) => ({ cell, ...timedCall(cell, check) }));
    sink = (sink + require('./percall').runPercall(cellsToCall, spec.percall, run)) | 0;
  } else if (spec.suite === 'tokensize') {
    sink = (sink + require('./tokensize').runTokensize(await checkCells(cells, run), run)) | 0;
  } else {
    await require('./transfer').runTransfer(await checkCells(cells, run), spec.transfer, run);
  }
  run.out.close();
  const counts = Object.entries(run.counts).map(([k, v]) => `${k} ${v}`).join(', ');
  stderr(`done: ${cells.length} cells (${counts}); sink ${sink}`);
}

/** What the sink holds so far (printed at the end of a run, so no call can be dropped). */
const sinkValue = () => sink;

module.exports = {
  runBench, loadSpec, CONDUCTED,
  // crosscheck.js times its driver blocks with these, exactly as bench's rounds do.
  prepareAll, nativeKeys, checkCells, checkEach, timedCall, warmUpAndCalibrate, timeBatch, sinkValue,
};
