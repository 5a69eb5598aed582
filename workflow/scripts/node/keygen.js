'use strict';
// Suite keygen (workflow/scripts/README.md, "Suite `keygen`"): seed 004's loop, RSA
// against ECDSA. Here: the cells' and the `keygen` block's spec fields, the PEM pairs'
// checks and the per-iteration cells (`keygen+sign+verify`, `keygen`), each run in a
// child process (keygen_child.js, which also checks its first iteration's key pair) that
// is SIGKILLed when the cell's max_cell_seconds runs out. The `sign` and `verify` cells
// are suite primitive's (primitive.js), timed by bench.js after every per-iteration cell.

const path = require('node:path');
const { fork } = require('node:child_process');
const { loadImplementation, signatureCheck, SIGNATURES } = require('./primitive');
const { digitBytes, CURVES } = require('./keygen_child');
const { grouped, median, stderr } = require('./output');

const OPERATIONS = ['keygen+sign+verify', 'keygen', 'sign', 'verify'];
const PER_ITERATION = ['keygen+sign+verify', 'keygen'];
const ALGORITHMS = { RSA: ['RSA-SHA256', 'RSA-SHA512'], ECDSA: ['ECDSA-SHA256', 'ECDSA-SHA512'] };
const MIN_RSA_BITS = 1024;
const CHILD = path.join(__dirname, 'keygen_child.js');
/** How long a forked child may take to start (not part of any cell's budget). */
const CHILD_START_SECONDS = 60;

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const now = () => process.hrtime.bigint();

// ---------------------------------------------------------------------------------------
// Spec

/** The spec's `keygen` block: iterations, target_cell_seconds, max_iterations, max_cell_seconds. */
function loadKeygenBlock(spec, fail) {
  const k = spec.keygen;
  if (!isObject(k)) fail('"keygen" must be an object (suite keygen needs it)');
  const field = (name, ok, what) => {
    const v = k[name];
    if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) fail(`"keygen.${name}" must be ${what}`);
    return v;
  };
  const count = (v) => Number.isInteger(v) && v >= 1;
  const block = {
    iterations: field('iterations', count, 'an integer >= 1'),
    target_cell_seconds: field('target_cell_seconds', (v) => v >= 0, 'a number >= 0'),
    max_iterations: field('max_iterations', count, 'an integer >= 1'),
    max_cell_seconds: field('max_cell_seconds', (v) => v > 0, 'a number > 0'),
  };
  if (block.max_iterations < block.iterations) fail('"keygen.max_iterations" must be >= "keygen.iterations"');
  return block;
}

/**
 * A keygen cell's own fields (bench.js has checked `operation` and `input`): family,
 * algorithm of that family, key_bits (RSA modulus >= 1024; 256/384/521 for the curves),
 * message_bytes (0 for `keygen`, else >= 1), the PEM key pair, implementation.
 */
function loadKeygenCell(cell, at, fail) {
  const { family, operation } = cell;
  if (!Object.hasOwn(ALGORITHMS, family)) fail(`${at}.family must be one of ${Object.keys(ALGORITHMS).join(', ')}`);
  if (!ALGORITHMS[family].includes(cell.algorithm)) fail(`${at}.algorithm must be one of ${ALGORITHMS[family].join(', ')} for family ${family}`);
  const bits = cell.key_bits;
  if (family === 'RSA' ? !(Number.isInteger(bits) && bits >= MIN_RSA_BITS) : !Object.hasOwn(CURVES, bits)) {
    fail(`${at}.key_bits must be ${family === 'RSA' ? `an integer >= ${MIN_RSA_BITS}` : Object.keys(CURVES).join(', ')} for family ${family}`);
  }
  const minBytes = operation === 'keygen' ? 0 : 1;
  if (!Number.isInteger(cell.message_bytes) || cell.message_bytes < minBytes || (operation === 'keygen' && cell.message_bytes !== 0)) {
    fail(`${at}.message_bytes must be ${operation === 'keygen' ? '0 for operation keygen' : 'an integer >= 1'}`);
  }
  if (cell.input_file !== undefined || cell.input_kind !== undefined) fail(`${at}: keygen cells have message_bytes, no input_file or input_kind`);
  const loaded = {
    family, algorithm: cell.algorithm, key_bits: bits, message_bytes: cell.message_bytes,
    implementation: loadImplementation(cell, at, fail),
  };
  for (const name of ['private_key', 'public_key']) {
    if (typeof cell[name] !== 'string' || cell[name] === '') fail(`${at}.${name} must be a non-empty string`);
    loaded[name] = cell[name];
  }
  return loaded;
}

// ---------------------------------------------------------------------------------------
// Per-iteration cells

/**
 * Runs one per-iteration cell in a forked child. The budget (max_cell_seconds) starts
 * when the job is handed to the ready child, just before its first iteration, so it
 * covers every iteration and the check of the first one's key pair; when it runs out the
 * child is SIGKILLed wherever it is. Resolves once the child has exited, with {outcome:
 * 'done' | 'timeout' | 'failed', reason, rows: [{ns, outputBytes}], spentNs}; a generated
 * key pair that fails its check makes the outcome 'failed'.
 */
function runInChild(job, budgetSeconds) {
  return new Promise((resolve) => {
    const child = fork(CHILD, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [] });
    const result = { outcome: undefined, reason: '', rows: [], spentNs: 0n };
    let start;
    let timer;
    let exited = false;
    const finish = (outcome, reason = '') => {
      if (result.outcome !== undefined) return;
      result.outcome = outcome;
      result.reason = reason;
      result.spentNs = start === undefined ? 0n : now() - start;
      clearTimeout(timer);
      if (!exited) child.kill('SIGKILL');
    };
    // A timer may fire a little early by the monotonic clock (libuv's cached loop time):
    // until the budget has really passed, it is armed again for what is left.
    const limitNs = BigInt(Math.round(budgetSeconds * 1e9));
    const armBudget = () => {
      const leftNs = limitNs - (now() - start);
      if (leftNs <= 0n) finish('timeout');
      else timer = setTimeout(armBudget, Math.ceil(Number(leftNs) / 1e6));
    };
    timer = setTimeout(() => finish('failed', `the child did not start within ${CHILD_START_SECONDS} s`), CHILD_START_SECONDS * 1000);
    child.on('message', (m) => {
      if (result.outcome !== undefined) return; // after the budget ended: ignored
      switch (m.type) {
        case 'ready':
          clearTimeout(timer);
          start = now();
          armBudget();
          child.send(job);
          break;
        case 'check':
          if (m.problem) finish('failed', `the first iteration's key pair: ${m.problem}`);
          break;
        case 'iteration':
          result.rows.push({ ns: m.ns, outputBytes: m.outputBytes });
          break;
        case 'done':
          finish('done');
          break;
        case 'error':
          finish('failed', m.reason);
          break;
        default:
          finish('failed', `unexpected message from the child: ${JSON.stringify(m)}`);
      }
    });
    // Done once the child has exited and its channel is closed (every message read); the
    // channel of a dead child closes at once, the fallback timer is only a safety net.
    let exit;
    const settle = () => {
      if (!exit || (child.connected && !exit.late)) return;
      finish('failed', `the child exited early (${exit.signal ?? `status ${exit.code}`})`);
      resolve(result);
    };
    child.on('error', (err) => finish('failed', `child process: ${err.message}`));
    child.on('disconnect', settle);
    child.on('exit', (code, signal) => {
      exited = true;
      exit = { code, signal, late: false };
      settle();
      if (child.connected) setTimeout(() => { exit.late = true; settle(); }, 2000).unref();
    });
  });
}

/** The key a cell belongs to, for the PEM pair's check. */
const keyId = (cell) => JSON.stringify([cell.family, cell.key_bits, cell.implementation, cell.private_key, cell.public_key]);

const keyLabel = (cell) => `${cell.family}-${cell.key_bits}`;

/**
 * Writes a finished per-iteration cell's rows: ok when it has `iterations` timed ones,
 * else timeout (none: one untimed row with the time spent); failed: one untimed row.
 */
function writeCell(cell, result, block, run) {
  const { rows } = result;
  if (result.outcome === 'failed') {
    run.finish(cell, 'failed', `failed (${result.reason})`);
    return;
  }
  const status = result.outcome === 'done' || rows.length >= block.iterations ? 'ok' : 'timeout';
  if (rows.length === 0) {
    run.out.writeUntimed(cell, 'timeout', result.spentNs);
    run.finish(cell, 'timeout', `timeout after ${(Number(result.spentNs) / 1e9).toFixed(2)} s, ` +
      'no iteration (the first with its key check) finished', false);
    return;
  }
  rows.forEach((row, i) => run.out.writeRow(cell, {
    sample: i + 1, iterations: 1, elapsedNs: row.ns, outputBytes: row.outputBytes, status,
  }));
  const mid = median(rows.map((r) => r.ns));
  run.finish(cell, status, `${rows.length} iterations, median ${(mid / 1e6).toFixed(3)} ms` +
    `${result.outcome === 'timeout' ? ` (max_cell_seconds ended it after ${(Number(result.spentNs) / 1e9).toFixed(2)} s)` : ''}`, false);
}

/**
 * Suite keygen up to the sign and verify cells: per key, the PEM pair's check (in this
 * process, before the key's first cell); every per-iteration cell in spec order, each in
 * a child that also checks the key pair of its first iteration (a mismatch fails that
 * cell). A PEM pair that fails its check fails all the key's cells. Returns the sign and
 * verify cells whose PEM pair passed.
 */
async function runKeygen(cells, block, run) {
  const keys = new Map(); // keyId -> the reason its cells fail, or null
  const pemProblem = (cell) => {
    const id = keyId(cell);
    if (!keys.has(id)) {
      const { problem } = signatureCheck(SIGNATURES[cell.algorithm].digest, cell.signingKey, cell.verificationKey, digitBytes(10));
      keys.set(id, problem ? `the PEM key pair: ${problem}` : null);
      if (problem) stderr(`${keyLabel(cell)} ${cell.private_key}: check failed: the PEM key pair: ${problem}`);
    }
    return keys.get(id);
  };
  const jobOf = (cell) => ({
    operation: cell.operation, family: cell.family, keyBits: cell.key_bits, digest: SIGNATURES[cell.algorithm].digest,
    messageBytes: cell.message_bytes,
    iterations: block.iterations, targetCellSeconds: block.target_cell_seconds, maxIterations: block.max_iterations,
  });

  for (const cell of cells) {
    const problem = pemProblem(cell);
    if (!PER_ITERATION.includes(cell.operation)) continue;
    if (problem) {
      run.finish(cell, 'failed', `failed (${problem})`);
      continue;
    }
    writeCell(cell, await runInChild(jobOf(cell), block.max_cell_seconds), block, run);
  }

  const signVerify = [];
  for (const cell of cells) {
    if (PER_ITERATION.includes(cell.operation)) continue;
    const problem = pemProblem(cell);
    if (problem) run.finish(cell, 'failed', `failed (${problem})`);
    else signVerify.push(cell);
  }
  return signVerify;
}

module.exports = { OPERATIONS, loadKeygenBlock, loadKeygenCell, runKeygen, digitBytes };
