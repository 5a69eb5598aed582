'use strict';
// `crosscheck --spec FILE --out FILE` (workflow/scripts/README.md): the driver's own timing
// loop (bench.js: warm-up, calibration, batches on process.hrtime) and mitata, the harness
// node's community trusts, time the very same call in alternating blocks, cell by cell.
// mitata shares no timing code with bench.js: its own loop, clock, batching and statistic.

const fs = require('node:fs');
const { pathToFileURL } = require('node:url');
const bench = require('./bench');
const { resolveDependency, dependencyVersion } = require('./deps');
const hash = require('./hash');
const { InputError, specNumber, POSITIVE, COUNT } = require('./inputs');
const { library } = require('./library');
const { stderr, label, median, grouped } = require('./output');

const COLUMNS = [
  'language', 'implementation', 'implementation_version', 'operation', 'algorithm', 'key_bits',
  'input', 'input_bytes', 'alternation', 'timer', 'harness', 'harness_version', 'samples',
  'ns_per_op', 'status',
];
// A driver block has at least this many batches, however short block_seconds is.
const MIN_BLOCK_BATCHES = 3;
// mitata unrolls its batch loop by this many calls (its default); a batch is a multiple of it.
const MITATA_UNROLL = 4;

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The spec's "crosscheck" object: {alternations, block_seconds}. */
function loadBlocks(file) {
  const { value: spec } = require('./inputs').readJsonObject(file, '--spec');
  const fail = (msg) => { throw new InputError(`--spec ${file}: ${msg}`); };
  if (spec.suite !== 'jwt') fail('"suite" must be "jwt" for crosscheck');
  if (!isObject(spec.crosscheck)) fail('"crosscheck" must be an object ({"alternations": N, "block_seconds": S})');
  return {
    alternations: specNumber(spec.crosscheck, 'crosscheck', 'alternations', COUNT, fail),
    block_seconds: specNumber(spec.crosscheck, 'crosscheck', 'block_seconds', POSITIVE, fail),
  };
}

/**
 * One call of what a checked cell's batch calls once per iteration, with the same inputs in
 * the same order (a crosscheck cell has one input, so always the first).
 */
function singleCall(cell, { state }) {
  switch (cell.operation) {
    case 'sign': return () => state.signers[0](state.claims[0]);
    case 'verify': return () => state.verify(state.tokens[0]);
    case 'reference': return () => hash.rawDigest(state.nodeName, state.bytes);
    default: throw new InputError(`crosscheck times sign and verify only, not ${cell.operation}`);
  }
}

function openOut(outFile) {
  let fd;
  try {
    fd = fs.openSync(outFile, 'w');
  } catch (err) {
    throw new InputError(`cannot write --out ${outFile}: ${err.code || err.message}`);
  }
  fs.writeSync(fd, `${COLUMNS.join(',')}\n`);
  const version = dependencyVersion(library().name);
  return {
    write(cell, fields) {
      const row = {
        language: 'node', implementation: cell.implementation ?? library().name,
        implementation_version: cell.implementationVersion ?? version, operation: cell.operation,
        algorithm: cell.algorithm, key_bits: cell.key_bits, input: cell.input, input_bytes: cell.inputBytes,
        ...fields,
      };
      fs.writeSync(fd, `${COLUMNS.map((c) => String(row[c] ?? '')).join(',')}\n`);
    },
    close: () => fs.closeSync(fd),
  };
}

/** A driver block: batches of the calibrated n until block_seconds and MIN_BLOCK_BATCHES. */
async function driverBlock(timed, blockNs) {
  const perOp = [];
  let spent = 0;
  while (spent < blockNs || perOp.length < MIN_BLOCK_BATCHES) {
    const elapsed = Number(await bench.timeBatch(timed.batch, timed.n, timed.state));
    spent += elapsed;
    perOp.push(elapsed / timed.n);
  }
  return { samples: perOp.length, nsPerOp: median(perOp) };
}

/**
 * mitata's options for a block of about `cpuNs` of its loop: every sample a batch of the
 * driver's calibrated n calls (rounded to mitata's unroll), timed by mitata's own loop and
 * clock, so that its p50 and the driver's median are the same statistic over windows of the
 * same length (target_sample_seconds). Left to its defaults, mitata batches 4,096 calls of an
 * operation under 65 us and times a slower one call by call; its median then left out the
 * young-generation collections every 10 ms batch of the driver pays: on 2026-11-26 the driver
 * read 4-8% slower on RS256-2048 sign (one call per sample), ES256 verify (one) and the
 * drift reference (batches of 4 ms), and within 2% on the others.
 */
function mitataOptions(cpuNs, n) {
  return {
    min_cpu_time: cpuNs, min_samples: MIN_BLOCK_BATCHES, batch_unroll: MITATA_UNROLL,
    batch_samples: Math.max(MITATA_UNROLL, Math.round(n / MITATA_UNROLL) * MITATA_UNROLL),
    batch_threshold: Infinity, warmup_threshold: Infinity,
  };
}

/** A native block: mitata's measure() for about block_seconds of cpu time, its p50 per call. */
async function nativeBlock(mitata, call, blockNs, n) {
  const stats = await mitata.measure(call, mitataOptions(blockNs, n));
  return { samples: stats.samples.length, nsPerOp: stats.p50 };
}

async function crosscheckCell(cell, batchAndState, ctx) {
  const { timing, blocks, mitata, out, harnessVersion } = ctx;
  const blockNs = blocks.block_seconds * 1e9;
  // Handed to mitata as it is: every call ends in node:crypto, which no compiler can drop,
  // so mitata's do_not_optimize (two more calls per iteration, 3-6% of a SHA-256 of 64
  // bytes on 2026-11-26) would time a wrapper the driver's loop does not have. A promise
  // (a library whose calls are async) is awaited by mitata.
  const call = singleCall(cell, batchAndState);
  // The warm-up and calibration as in bench, warm-up until steady included.
  const timed = await bench.warmUpAndCalibrate(batchAndState, timing);
  // mitata's own warm-up (it runs the function before it samples) is short; give the call
  // warmup_seconds of mitata's loop first, as bench.js gives the driver's batch.
  await mitata.measure(call, mitataOptions(timing.warmup_seconds * 1e9, timed.n));
  const ratios = [];
  for (let k = 1; k <= blocks.alternations; k++) {
    const order = k % 2 === 1 ? ['driver', 'native'] : ['native', 'driver'];
    const figures = {};
    for (const timer of order) {
      const block = timer === 'driver' ? await driverBlock(timed, blockNs) : await nativeBlock(mitata, call, blockNs, timed.n);
      figures[timer] = block.nsPerOp;
      out.write(cell, {
        alternation: k, timer, harness: timer === 'driver' ? 'jwtbench' : 'mitata',
        harness_version: timer === 'driver' ? '' : harnessVersion, samples: block.samples,
        ns_per_op: block.nsPerOp.toFixed(3), status: 'ok',
      });
    }
    ratios.push(figures.driver / figures.native);
  }
  return median(ratios);
}

async function runCrosscheck(specFile, outFile) {
  const blocks = loadBlocks(specFile);
  const spec = bench.loadSpec(specFile);
  for (const cell of spec.cells) {
    if (!['sign', 'verify'].includes(cell.operation) || cell.input_kind !== 'claims') {
      throw new InputError(`--spec ${specFile}: cells[${cell.index}]: crosscheck times sign and verify on claims only`);
    }
  }
  const cells = await bench.nativeKeys(bench.prepareAll(spec, specFile));
  const out = openOut(outFile);
  const mitataEntry = resolveDependency('mitata');
  // mitata is an ES module; import() ignores NODE_PATH, so it is resolved the CommonJS way.
  const mitata = await import(pathToFileURL(mitataEntry).href);
  const ctx = { timing: spec.timing, blocks, mitata, out, harnessVersion: dependencyVersion('mitata') };
  const run = {
    finish(cell, status, note) {
      out.write(cell, { alternation: 0, timer: 'driver', harness: 'jwtbench', samples: 0, status });
      stderr(`${cell.operation} ${label(cell)}: ${note}`);
    },
  };
  const passed = await bench.checkCells(cells, run);
  const reference = hash.referenceCell('jwt');
  passed.push({ cell: reference, check: reference });
  for (const { cell, check } of passed) {
    const batchAndState = cell.operation === 'reference' ? { ...check, fit: (n) => n } : bench.timedCall(cell, check);
    const ratio = await crosscheckCell(cell, batchAndState, ctx);
    stderr(`${cell.operation} ${label(cell)}: jwtbench / mitata ${ratio.toFixed(3)} (median of ${blocks.alternations} alternations)`);
  }
  out.close();
  stderr(`done: ${passed.length} cells; sink ${grouped(bench.sinkValue())}`);
}

module.exports = { runCrosscheck };
