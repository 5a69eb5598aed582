'use strict';
// `serve --spec FILE`: the conductor's worker for every suite and the cross-check
// (workflow/scripts/README.md, "serve"; workflow/schemas/protocol/worker.schema.yaml). Cells
// are prepared and checked before the hello; then it runs what it is asked, the clock read
// around each batch.

const fs = require('node:fs');
const readline = require('node:readline');
const { loadMitata, native } = require('./crosscheck');
const { dependencyVersion } = require('./deps');
const hash = require('./hash');
const { checkHarnessCell } = require('./harness');
const { InputError, readJsonObject } = require('./inputs');
const { prepareJwtCells, jwtBatch, singleCall, signBatch, signBatchAwaited } = require('./jwt_cells');
const keygen = require('./keygen');
const { LIBRARY, DRIVER, library } = require('./library');
const primitive = require('./primitive');

const PROTOCOL = 'jwtbench-worker/1';
// Suites of node:crypto and of the timing loop, which every library runs.
const EVERY_LIBRARY = ['hash', 'primitive', 'keygen', 'harness'];
// Suites with the drift reference (keygen: for its sign/verify cells).
const WITH_REFERENCE = ['jwt', 'hash', 'primitive', 'harness', 'keygen'];
const now = () => process.hrtime.bigint();

/** The protocol's line to the conductor: the only thing this process writes to stdout. */
function answer(message) {
  fs.writeSync(1, `${JSON.stringify(message)}\n`);
}

// Every batch's folded results, answered at the end, so no call's work is dead.
let sink = 0;

/** A batch function's run: n calls between two clock reads (an async batch awaited), folded into the sink. */
function batchRun(batch, state) {
  const awaits = batch[Symbol.toStringTag] === 'AsyncFunction';
  return async (n) => {
    const t0 = now();
    const folded = awaits ? await batch(n, state) : batch(n, state);
    const t1 = now();
    sink = (sink + folded) | 0;
    return { elapsed_ns: Number(t1 - t0) };
  };
}

/** tokensize's run: suite jwt's sign batch over the records; a batch of one also says the record's and token's sizes. */
function tokensizeRun(cell, { batch, state }) {
  const timed = batchRun(batch, state);
  const awaited = library().async;
  return async (n) => {
    if (n !== 1) return timed(n);
    const i = state.position;
    const t0 = now();
    const token = awaited ? await state.signers[i](state.claims[i]) : state.signers[i](state.claims[i]);
    const t1 = now();
    state.position = (i + 1) % state.claims.length;
    sink = (sink + token.length) | 0;
    return { elapsed_ns: Number(t1 - t0), input_bytes: cell.records[i].bytes, output_bytes: Buffer.byteLength(token) };
  };
}

/** The timing of a cell timed by a batch function ({batch, state}, state.outputBytes). */
const batched = ({ batch, state }) => ({ run: batchRun(batch, state), outputBytes: state.outputBytes });

/** The spec's cells read, prepared and checked, in spec order: [{cell, check}]. */
async function checkedCells(spec, specFile) {
  const cells = spec.cells.map((cell, index) => ({ ...cell, index, suite: spec.suite }));
  const checkedBy = (prepared, check) => Promise.all(prepared.map(async (cell) => ({ cell, check: await check(cell) })));
  const { prepareCells } = primitive;
  switch (spec.suite) {
    case 'hash': return checkedBy(cells.map(hash.prepareHashCell), hash.checkHashCell);
    case 'primitive': return checkedBy(prepareCells(cells, specFile, primitive.countingBytes), primitive.checkPrimitiveCell);
    case 'keygen': return checkedBy(prepareCells(cells, specFile, keygen.digitBytes), keygen.checkKeygenCell);
    case 'harness': return checkedBy(cells, (cell) => checkHarnessCell(cell, library().async));
    default: return prepareJwtCells(cells, specFile);
  }
}

/**
 * A checked cell's timing: {run (n -> the batch's answer), outputBytes[, passLength, call (one
 * call, for the native harness), close]}, or {failed: reason}.
 */
async function timing(cell, check, spec) {
  const tokenBytes = check.token && Buffer.byteLength(check.token);
  switch (cell.suite) {
    case 'jwt':
    case 'percall': {
      const timed = jwtBatch(cell, check);
      return { ...batched(timed), passLength: cell.records ? cell.records.length : 1, call: singleCall(cell, timed) };
    }
    case 'tokensize':
      return { run: tokensizeRun(cell, jwtBatch(cell, check)), outputBytes: tokenBytes, passLength: cell.records.length };
    case 'transfer':
      try {
        return { ...await require('./transfer').transferRun(cell, spec.transfer, check.token), outputBytes: tokenBytes };
      } catch (err) {
        return { failed: err.message }; // the server failed its check
      }
    case 'hash': return batched(hash.hashBatch(cell));
    case 'primitive': return batched(primitive.primitiveBatch(cell, check));
    case 'keygen':
      if (keygen.PER_ITERATION.includes(cell.operation)) return keygen.iterationRun(cell);
      return batched(primitive.primitiveBatch(cell, check));
    default: // harness: suite jwt's sign batch on one input, its signer the harness's call
      return batched({
        batch: library().async ? signBatchAwaited : signBatch,
        state: { claims: [null], signers: [check.call], position: 0, outputBytes: check.outputBytes },
      });
  }
}

/** A cell's entry in the hello (as its raw rows name it): its status, then `more`. */
function helloOf(cell, status, more) {
  return {
    status,
    implementation: cell.implementation ?? LIBRARY,
    implementation_version: cell.implementationVersion ?? dependencyVersion(library().name),
    input_bytes: cell.inputBytes ?? 0,
    ...more,
  };
}

/** A timed cell's entry: its timing and its hello entry. */
const timedEntry = (cell, timed) =>
  ({ ...timed, hello: helloOf(cell, 'ok', { output_bytes: timed.outputBytes, pass_length: timed.passLength ?? 1 }) });

/** Every spec cell prepared and checked, in spec order: its entry, {hello} alone when not ok. */
async function prepare(spec, specFile) {
  const entries = [];
  for (const { cell, check } of await checkedCells(spec, specFile)) {
    const timed = check.status === 'ok' ? await timing(cell, check, spec) : {};
    const { status, reason } = timed.failed ? { status: 'failed', reason: timed.failed } : check;
    entries.push(status === 'ok' ? timedEntry(cell, timed) : { hello: helloOf(cell, status, { reason }) });
  }
  return entries;
}

/** The drift reference's entry (SHA-256 of the 64 bytes 00..3f, hash.js), in the rows of `suite`. */
function referenceEntry(suite) {
  const cell = hash.referenceCell(suite);
  return timedEntry(cell, { ...batched(cell), call: () => hash.rawDigest(cell.state.nodeName, cell.state.bytes) });
}

/** The spec, as far as the worker needs it (the conductor's Python validates specs). */
function loadSpec(file) {
  const { value: spec } = readJsonObject(file, '--spec');
  const { name, suites } = library();
  if (!Array.isArray(spec.cells)) throw new InputError(`--spec ${file}: "cells" must be an array`);
  if (!EVERY_LIBRARY.includes(spec.suite) && !suites.includes(spec.suite)) {
    throw new InputError(`--spec ${file}: suite ${spec.suite} is not run with ${name} by the ${DRIVER} driver ` +
      `(its suites: ${[...suites, ...EVERY_LIBRARY].join(', ')})`);
  }
  return spec;
}

/** The worker: the hello once every cell is ready, then requests until {"end": true}; false if the pipe closed first. */
async function runServe(specFile) {
  const spec = loadSpec(specFile);
  // Nothing else may reach the protocol's stdout: a library that logs goes to stderr.
  console.log = console.error;
  console.info = console.error;
  const entries = await prepare(spec, specFile);
  const hello = { protocol: PROTOCOL, cells: entries.map((e) => e.hello), reference: null };
  const runs = new Map(entries.map((e, i) => [i, e]));
  if (WITH_REFERENCE.includes(spec.suite)) {
    const reference = referenceEntry(spec.suite);
    runs.set('reference', reference);
    hello.reference = reference.hello;
  }
  let mitata;
  if (spec.crosscheck !== undefined) ({ mitata, harness: hello.harness } = await loadMitata());
  answer(hello);
  try {
    return await serveRequests(runs, mitata);
  } finally {
    for (const e of entries) if (e.close) await e.close();
  }
}

const describe = (err) => `${err.name}: ${String(err.message).split('\n')[0]}`;

/** Each request answered in order, one line per batch as it ends; true at the end request. */
async function serveRequests(runs, mitata) {
  const lastN = new Map(); // the last batch size asked of each cell (the native harness's batch)
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      const request = JSON.parse(line);
      if (request.end) {
        answer({ sink });
        return true;
      }
      if (request.native) {
        const [key, seconds] = request.native;
        const target = runs.get(key);
        if (!mitata || !target?.call) throw new Error(`serve: a native request of ${JSON.stringify(key)}, which has no native call`);
        try {
          answer(await native(mitata, target.call, seconds, lastN.get(key)));
        } catch (err) {
          answer({ error: describe(err) });
        }
        continue;
      }
      for (const [key, n] of request.batches) {
        if (!runs.get(key)?.run) throw new Error(`serve: a batch of ${JSON.stringify(key)}, which is no timed cell`);
        lastN.set(key, n);
        try {
          answer(await runs.get(key).run(n));
        } catch (err) {
          answer({ error: describe(err) });
          break;
        }
      }
    }
  } finally {
    lines.close();
    process.stdin.destroy(); // nothing more to read: the process may exit
  }
  process.stderr.write('serve: the conductor closed the pipe without an end request\n');
  return false;
}

module.exports = { runServe };
