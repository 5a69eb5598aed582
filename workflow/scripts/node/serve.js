'use strict';
// `serve --spec FILE`: the worker of the conductor's protocol, jwtbench-worker/1
// (workflow/scripts/README.md, "serve"; schema: workflow/schemas/protocol/worker.schema.yaml).
// The cells are prepared and checked as bench's; then the worker only runs the batches it
// is asked for, reading the clock around each batch (bench.js timeBatch). The conductor
// decides everything else: warm-up, calibration, rounds, when a cell is done.

const fs = require('node:fs');
const readline = require('node:readline');
const { dependencyVersion } = require('./deps');
const hash = require('./hash');
const { InputError } = require('./inputs');
const { library } = require('./library');
const { IMPLEMENTATION, stderr } = require('./output');
const bench = require('./bench');

const PROTOCOL = 'jwtbench-worker/1';

/** The protocol's line to the conductor: the only thing this process writes to stdout. */
function answer(message) {
  fs.writeSync(1, `${JSON.stringify(message)}\n`);
}

/** A cell's entry in the hello line, as its raw rows will name it. */
function entryOf(cell, status, extra) {
  return {
    status,
    implementation: cell.implementation ?? IMPLEMENTATION,
    implementation_version: cell.implementationVersion ?? dependencyVersion(library().name),
    input_bytes: cell.inputBytes ?? 0,
    ...extra,
  };
}

/**
 * Every spec cell checked (bench.js checkEach), in spec order: {entries (the hello's cells),
 * runs ({cell index: {batch, state}})}.
 */
async function prepareServed(spec, specFile) {
  const cells = await bench.nativeKeys(bench.prepareAll(spec, specFile));
  const entries = [];
  const runs = new Map();
  for (const { cell, check } of await bench.checkEach(cells)) {
    if (check.status !== 'ok') {
      entries.push(entryOf(cell, check.status, { reason: check.reason }));
      continue;
    }
    const { batch, state } = bench.timedCall(cell, check);
    runs.set(cell.index, { batch, state });
    entries.push(entryOf(cell, 'ok', {
      output_bytes: state.outputBytes,
      pass_length: cell.records ? cell.records.length : 1,
    }));
  }
  return { entries, runs };
}

async function runServe(specFile) {
  const spec = bench.loadSpec(specFile);
  if (!bench.CONDUCTED.includes(spec.suite)) {
    throw new InputError(`--spec ${specFile}: suite ${spec.suite} is not served (serve times ${bench.CONDUCTED.join(', ')})`);
  }
  // Nothing else may reach the protocol's stdout: a library that logs goes to stderr.
  console.log = console.error;
  console.info = console.error;
  const { entries, runs } = await prepareServed(spec, specFile);
  const reference = hash.referenceCell(spec.suite);
  runs.set('reference', { batch: reference.batch, state: reference.state });
  answer({
    protocol: PROTOCOL,
    cells: entries,
    reference: entryOf(reference, 'ok', { output_bytes: reference.state.outputBytes, pass_length: 1 }),
  });
  return serveRequests(runs);
}

/** Each request's batches in order, one answer as each ends; true at the end request. */
async function serveRequests(runs) {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    const request = JSON.parse(line);
    if (request.end) {
      answer({ sink: bench.sinkValue() });
      lines.close();
      process.stdin.destroy(); // nothing more to read: the process may exit
      return true;
    }
    for (const [key, n] of request.batches) {
      if (!runs.has(key)) throw new Error(`serve: a batch of ${JSON.stringify(key)}, which is no timed cell`);
      const { batch, state } = runs.get(key);
      let elapsedNs;
      try {
        elapsedNs = await bench.timeBatch(batch, n, state);
      } catch (err) {
        answer({ error: `${err.name}: ${String(err.message).split('\n')[0]}` });
        break;
      }
      answer({ elapsed_ns: Number(elapsedNs) });
    }
  }
  stderr('serve: the conductor closed the pipe without an end request');
  return false;
}

module.exports = { runServe };
