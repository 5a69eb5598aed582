#!/usr/bin/env node
'use strict';
// Independent timing of jsonwebtoken's sign with mitata, to cross-check the driver's own
// harness (bench.js). It shares none of the driver's timing code: only the way keys and the
// payload are loaded is the same (KeyObjects from node:crypto, JSON.parse of the file).
//
// usage: node crosscheck.js --alg ALG --key FILE --payload FILE
// prints one JSON object on stdout:
//   {"language":"node","harness":"mitata","harness_version":...,"operation":"sign",
//    "algorithm":ALG,"ns_per_op":<p50>,"ns_per_op_avg":<avg>,"samples":<n>}
// exit status: 0 ok; 2 usage or input error; 3 jsonwebtoken lacks ALG.
// Dependencies come from NODE_PATH (as ./run sets it) or <repo>/.envs/node/node_modules.

const fs = require('node:fs');
const crypto = require('node:crypto');
const { pathToFileURL } = require('node:url');
const { resolveDependency, requireDependency, dependencyVersion, MissingDependency } = require('./deps');

class UsageError extends Error {}

const USAGE = 'usage: node crosscheck.js --alg ALG --key FILE --payload FILE';
const WARMUP_MS = 500;

function parseArgs(args) {
  const values = {};
  for (let i = 0; i < args.length; i++) {
    const m = /^--(alg|key|payload)(?:=(.*))?$/s.exec(args[i]);
    if (!m) throw new UsageError(`unknown argument "${args[i]}"\n${USAGE}`);
    const value = m[2] !== undefined ? m[2] : args[++i];
    if (value === undefined || value === '') throw new UsageError(`flag --${m[1]} needs a value`);
    values[m[1]] = value;
  }
  for (const name of ['alg', 'key', 'payload']) {
    if (!values[name]) throw new UsageError(`missing flag --${name}\n${USAGE}`);
  }
  return values;
}

function read(file, flag) {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new UsageError(`cannot read ${flag} ${file}: ${err.code || err.message}`);
  }
}

function loadKey(alg, file) {
  const bytes = read(file, '--key');
  if (alg.startsWith('HS')) return crypto.createSecretKey(bytes);
  try {
    return crypto.createPrivateKey({ key: bytes, format: 'pem' });
  } catch (err) {
    throw new UsageError(`--key ${file} is not a private key PEM (${err.code || 'parse error'})`);
  }
}

function loadClaims(file) {
  let claims;
  try {
    claims = JSON.parse(read(file, '--payload').toString('utf8'));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--payload ${file} is not valid JSON: ${err.message}`);
  }
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) {
    throw new UsageError(`--payload ${file} is not a JSON object`);
  }
  return claims;
}

async function main() {
  const { alg, key: keyFile, payload } = parseArgs(process.argv.slice(2));
  const jwt = requireDependency('jsonwebtoken');
  const key = loadKey(alg, keyFile);
  const claims = loadClaims(payload);
  // Sign exactly the claims, as the driver does: without an `iat`, jsonwebtoken must not add one.
  const options = Object.hasOwn(claims, 'iat') ? { algorithm: alg } : { algorithm: alg, noTimestamp: true };

  try {
    jwt.sign(claims, key, options);
  } catch (err) {
    if (err.message === '"algorithm" must be a valid string enum value') {
      process.stderr.write(`crosscheck: jsonwebtoken does not support ${alg}\n`);
      return 3;
    }
    throw new UsageError(`jsonwebtoken refused to sign with --key ${keyFile}: ${err.message}`);
  }

  // mitata is an ES module; import() ignores NODE_PATH, so resolve it the CommonJS way.
  const mitataEntry = resolveDependency('mitata');
  const { measure, do_not_optimize } = await import(pathToFileURL(mitataEntry).href);
  const harnessVersion = dependencyVersion('mitata');

  // Warm the JIT first. mitata only batches calls (4096 per sample, so that a sample is the
  // mean over a batch, GC included, as in the driver) when its first call takes < 0.5 ms;
  // jsonwebtoken's cold first call takes longer, and mitata would then time single calls
  // and report the median of those, which leaves garbage-collection pauses out.
  const warmUntil = performance.now() + WARMUP_MS;
  while (performance.now() < warmUntil) do_not_optimize(jwt.sign(claims, key, options));

  // measure() returns the statistics without printing anything; times are ns per iteration.
  const stats = await measure(() => do_not_optimize(jwt.sign(claims, key, options)));

  process.stdout.write(`${JSON.stringify({
    language: 'node',
    harness: 'mitata',
    harness_version: harnessVersion,
    operation: 'sign',
    algorithm: alg,
    ns_per_op: stats.p50,
    ns_per_op_avg: stats.avg,
    samples: stats.samples.length,
  })}\n`);
  return 0;
}

main().then(
  (status) => { process.exitCode = status; },
  (err) => {
    if (err instanceof UsageError || err instanceof MissingDependency) {
      process.stderr.write(`crosscheck: ${err.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`crosscheck: internal error: ${err && err.stack ? err.stack : err}\n`);
      process.exitCode = 70;
    }
  },
);
