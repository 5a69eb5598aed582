'use strict';
// Suite keygen (workflow/scripts/README.md, "Suite `keygen`"): seed 004's loop, RSA
// against ECDSA. Here: the cells' and the `keygen` block's spec fields, the per-key
// checks and the per-iteration cells (`keygen+sign+verify`, `keygen`), each run in a
// child process (keygen_child.js) that is SIGKILLed when the cell's max_cell_seconds runs
// out. The `sign` and `verify` cells are suite primitive's (primitive.js), timed by
// bench.js after every per-iteration cell.

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
 * when the job is handed to the ready child, so it covers the check (when the job asks
 * for it), the untimed iteration and every timed one; when it runs out the child is
 * SIGKILLed wherever it is. Resolves once the child has exited, with {outcome: 'done' |
 * 'timeout' | 'failed', reason, checked, checkProblem, rows: [{ns, outputBytes}], spentNs}.
 */
function runInChild(job, budgetSeconds) {
  return new Promise((resolve) => {
    const child = fork(CHILD, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [] });
    const result = { outcome: undefined, reason: '', checked: false, checkProblem: null, rows: [], spentNs: 0n };
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
          result.checked = true;
          result.checkProblem = m.problem;
          if (m.problem) finish('failed', m.problem);
          break;
        case 'untimed':
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

/** The key a cell belongs to, for the per-key checks. */
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
    run.finish(cell, 'timeout', `timeout after ${(Number(result.spentNs) / 1e9).toFixed(2)} s, no timed iteration` +
      `${result.checked ? '' : ' (key check not finished)'}`, false);
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
 * process) and the generated key's check (in the child of the key's first per-iteration
 * cell, or a child of its own when the key has none; a check cut short by the budget is
 * tried again by the key's next per-iteration cell); every per-iteration cell in spec
 * order. A key whose check fails fails all its cells. Returns the sign and verify cells
 * whose key passed (or whose generated check could not finish within the budget: the PEM
 * pair, which passed, is what they time).
 */
async function runKeygen(cells, block, run) {
  const keys = new Map(); // keyId -> {failed: reason | null, generatedChecked}
  const keyOf = (cell) => {
    const id = keyId(cell);
    if (!keys.has(id)) {
      const { problem } = signatureCheck(SIGNATURES[cell.algorithm].digest, cell.signingKey, cell.verificationKey, digitBytes(10));
      keys.set(id, { failed: problem ? `the PEM key pair: ${problem}` : null, generatedChecked: false, generatedTried: false });
      if (problem) stderr(`${keyLabel(cell)} ${cell.private_key}: check failed: the PEM key pair: ${problem}`);
    }
    return keys.get(id);
  };
  const jobOf = (cell, operation, check) => ({
    operation, family: cell.family, keyBits: cell.key_bits, digest: SIGNATURES[cell.algorithm].digest,
    messageBytes: cell.message_bytes, check,
    iterations: block.iterations, targetCellSeconds: block.target_cell_seconds, maxIterations: block.max_iterations,
  });
  const failKey = (key, cell, problem) => {
    key.failed = `a generated ${keyLabel(cell)} key: ${problem}`;
    stderr(`${keyLabel(cell)}: check failed: ${key.failed}`);
  };

  for (const cell of cells) {
    const key = keyOf(cell);
    if (!PER_ITERATION.includes(cell.operation)) continue;
    if (key.failed) {
      run.finish(cell, 'failed', `failed (${key.failed})`);
      continue;
    }
    const result = await runInChild(jobOf(cell, cell.operation, !key.generatedChecked), block.max_cell_seconds);
    key.generatedTried = true;
    if (result.checked && !result.checkProblem) key.generatedChecked = true;
    if (result.checkProblem) failKey(key, cell, result.checkProblem);
    writeCell(cell, result, block, run);
  }

  const signVerify = [];
  for (const cell of cells) {
    if (PER_ITERATION.includes(cell.operation)) continue;
    const key = keyOf(cell);
    if (!key.failed && !key.generatedTried) {
      // The key has no per-iteration cell: a check-only child.
      const result = await runInChild({ ...jobOf(cell, 'keygen', true), checkOnly: true }, block.max_cell_seconds);
      key.generatedTried = true; // once: the key's other cells do not try again
      if (result.checked && !result.checkProblem) key.generatedChecked = true;
      if (result.checkProblem) failKey(key, cell, result.checkProblem);
    }
    if (key.failed) {
      run.finish(cell, 'failed', `failed (${key.failed})`);
    } else {
      if (!key.generatedChecked) stderr(`${keyLabel(cell)}: no generated key's check finished within max_cell_seconds; ${cell.operation} ${cell.input} times the PEM pair, which passed`);
      signVerify.push(cell);
    }
  }
  return signVerify;
}

module.exports = { OPERATIONS, loadKeygenBlock, loadKeygenCell, runKeygen, digitBytes };
