'use strict';
// The driver's command line: versions, sign, sign-batch, verify, verify-batch, serve, coldstart
// (workflow/scripts/README.md).
// Exit status: 0 ok; 1 invalid token (verify); 2 usage or input error; 3 algorithm unsupported;
// 4 verify failed with an error that is not the library's verdict on the token.

const fs = require('node:fs');
const { parseArgs } = require('node:util');
const { MissingDependency } = require('./deps');
const { UnknownLibrary, describeError, library, oneLine, verdictOf } = require('./library');
const { InputError, JWS_ALGORITHMS, readJsonObject, readToken, loadSigningKey, loadVerificationKey } =
  require('./inputs');

const EXIT = { ok: 0, invalid: 1, usage: 2, unsupported: 3, error: 4 };

const USAGE = `usage: run versions
       run sign   --alg ALG --key FILE --payload FILE
       run sign-batch --cases FILE
       run verify --alg ALG --key FILE --token FILE [--signature-only]
       run verify-batch --cases FILE
       run serve  --spec FILE
       run coldstart --hmac FILE --rsa FILE --payload FILE`;

// `flags` take a value and are required; `switches` take none and are optional.
const COMMANDS = {
  versions: { flags: [], run: versions },
  sign: { flags: ['alg', 'key', 'payload'], run: sign },
  'sign-batch': { flags: ['cases'], run: signBatch },
  verify: { flags: ['alg', 'key', 'token'], switches: ['signature-only'], run: verify },
  'verify-batch': { flags: ['cases'], run: verifyBatch },
  serve: { flags: ['spec'], run: serve },
  coldstart: { flags: ['hmac', 'rsa', 'payload'], run: coldstart },
};

/** `--name value` / `--name=value` (node's util.parseArgs); every flag is required and non-empty. */
function parseFlags(command, args) {
  const { flags, switches = [] } = COMMANDS[command];
  const options = Object.fromEntries([
    ...flags.map((name) => [name, { type: 'string' }]), ...switches.map((name) => [name, { type: 'boolean' }]),
  ]);
  let values;
  try {
    ({ values } = parseArgs({ args, options, strict: true, allowPositionals: false }));
  } catch (e) {
    throw new InputError(`${command}: ${e.message}\n${USAGE}`);
  }
  for (const name of flags) {
    if (!values[name]) throw new InputError(`${command}: missing flag --${name} (a non-empty value)\n${USAGE}`);
  }
  if (values.alg !== undefined && !JWS_ALGORITHMS.includes(values.alg)) {
    throw new InputError(`${command}: --alg ${values.alg} is not a JWS algorithm name (${JWS_ALGORITHMS.join(', ')})`);
  }
  return values;
}

const out = (text) => fs.writeSync(1, text);
const err = (text) => fs.writeSync(2, text.endsWith('\n') ? text : `${text}\n`);

function versions() {
  const { dependencyVersion, loadedPackages } = require('./deps');
  const lib = library(); // loads the library exactly as sign/verify/serve do
  if (lib.suites.includes('transfer')) require('./transfer'); // express, for suite transfer
  const loaded = loadedPackages();
  const version = dependencyVersion(lib.name);
  const shared = process.config.variables.node_shared_openssl;
  const libraries = { [lib.name]: version };
  for (const [name, v] of Object.entries(loaded)) if (name !== lib.name) libraries[name] = v;
  out(`${JSON.stringify({
    language: 'node',
    runtime: 'node',
    runtime_version: process.versions.node,
    implementation: lib.name,
    implementation_version: version,
    crypto_backend: lib.cryptoBackend(`OpenSSL ${process.versions.openssl} (${shared ? 'shared system library' : 'bundled with node'})`),
    libraries,
  })}\n`);
  return EXIT.ok;
}

async function sign({ alg, key, payload }) {
  const lib = library();
  const privateKey = loadSigningKey(alg, key, '--key');
  const { value: claims } = readJsonObject(payload, '--payload');
  let signed;
  try {
    signed = await signClaims(lib, alg, privateKey, claims);
  } catch (e) {
    throw new InputError(`sign: ${lib.name} refused --key ${key} / --payload ${payload}: ${e.message}`);
  }
  if (signed.unsupported) {
    err(`sign: ${signed.unsupported}`);
    return EXIT.unsupported;
  }
  out(`${signed.token}\n`);
  return EXIT.ok;
}

/** The signing of `sign` and of each `sign-batch` case: {token}, or {unsupported} when the library lacks alg. */
async function signClaims(lib, alg, privateKey, claims) {
  try {
    return { token: await lib.signer(alg, await lib.nativeKey('private', alg, privateKey), claims)(claims) };
  } catch (e) {
    if (lib.isUnsupportedAlgorithmError(e)) return { unsupported: `${lib.name} does not support ${alg} (${e.message})` };
    throw e;
  }
}

/** `sign-batch --cases FILE` (workflow/scripts/README.md): `sign` on each case, one JSON line each. */
async function signBatch({ cases: file }) {
  const lib = library();
  const cases = readCases(file, 'payload');
  for (const c of cases) {
    const line = { id: c.id, exit: EXIT.ok, token: '', reason: '' };
    try {
      const privateKey = loadSigningKey(c.alg, c.key, `case ${c.id} key`);
      const { value: claims } = readJsonObject(c.payload, `case ${c.id} payload`);
      const signed = await signClaims(lib, c.alg, privateKey, claims);
      if (signed.unsupported) {
        Object.assign(line, { exit: EXIT.unsupported, reason: oneLine(`UnsupportedAlgorithm: ${signed.unsupported}`) });
      } else {
        line.token = signed.token;
      }
    } catch (e) {
      Object.assign(line, { exit: EXIT.error, reason: describeError(e) });
    }
    out(`${JSON.stringify(line)}\n`);
  }
  return EXIT.ok;
}

// Whether the library lacks an algorithm, asked once per algorithm.
const lacking = new Map();

/** The library's own key for `verify` and `verify-batch`: {key}, or {unsupported} when it lacks alg. */
async function verificationKey(lib, alg, publicKey) {
  if (!lacking.has(alg)) lacking.set(alg, await lib.lacksAlgorithm(alg));
  if (lacking.get(alg)) return { unsupported: `${lib.name} does not support ${alg}` };
  try {
    return { key: await lib.nativeKey('public', alg, publicKey) };
  } catch (e) {
    if (lib.isUnsupportedAlgorithmError(e)) return { unsupported: `${lib.name} does not support ${alg} (${e.message})` };
    throw e;
  }
}

async function verify({ alg, key, token, 'signature-only': signatureOnly }) {
  const lib = library();
  const publicKey = loadVerificationKey(alg, key, '--key');
  const compact = readToken(token, '--token');
  let native;
  let verifyClaims;
  try {
    native = await verificationKey(lib, alg, publicKey);
    if (!native.unsupported && !signatureOnly) verifyClaims = lib.verifier(alg, native.key);
  } catch (e) {
    throw new InputError(`verify: ${lib.name} refused --key ${key}: ${e.message}`);
  }
  if (native.unsupported) {
    err(`verify: ${native.unsupported}`);
    return EXIT.unsupported;
  }
  if (signatureOnly) {
    let payload;
    try {
      payload = await lib.verifySignatureOnly(compact, alg, native.key);
    } catch (e) {
      err(`verify: invalid JWS ${token}: ${e.message}`);
      return EXIT.invalid;
    }
    fs.writeSync(1, payload); // the payload exactly as signed, nothing added
    return EXIT.ok;
  }
  let claims;
  try {
    claims = await verifyClaims(compact);
  } catch (e) {
    const { exit, reason } = verdictOf(e);
    err(exit === EXIT.invalid ? `invalid token: ${reason}` : `error: verify threw ${reason}`);
    return exit;
  }
  out(`${claimsJson(claims, compact)}\n`);
  return EXIT.ok;
}

/** The verified claims as JSON text, as `verify` prints them (and `verify-batch` with "claims"). */
function claimsJson(claims, compact) {
  try {
    return JSON.stringify(claims);
  } catch (_) { // claims nested too deep for JSON.stringify's recursion (RangeError): the
    // payload segment's JSON text, which jsonwebtoken parsed into them, is the same claims
    return Buffer.from(compact.split('.')[1], 'base64').toString('utf8');
  }
}

/**
 * `verify-batch --cases FILE` (workflow/scripts/README.md): per case, untimed loading, the peak
 * RSS reset, one timed call of what `verify` (or `verify --signature-only`) calls, one JSON line.
 */
async function verifyBatch({ cases: file }) {
  const lib = library();
  const cases = readCases(file, 'token');
  for (const c of cases) {
    const line = { id: c.id, exit: EXIT.ok, outcome: 'accept', elapsed_ns: 0, peak_rss_kb: 0, reason: '' };
    let verify;
    let compact;
    let result;
    try {
      const publicKey = loadVerificationKey(c.alg, c.key, `case ${c.id} key`);
      compact = readToken(c.token, `case ${c.id} token`);
      const native = await verificationKey(lib, c.alg, publicKey);
      if (native.unsupported) {
        Object.assign(line, { exit: EXIT.unsupported, outcome: 'unsupported', reason: `UnsupportedAlgorithm: ${native.unsupported}` });
      } else if (c.signatureOnly) {
        verify = (token) => lib.verifySignatureOnly(token, c.alg, native.key);
      } else {
        verify = lib.verifier(c.alg, native.key);
      }
    } catch (e) {
      Object.assign(line, { exit: EXIT.error, outcome: 'error', reason: describeError(e) });
    }
    if (line.exit === EXIT.ok) {
      // verifySignatureOnly may return a promise whatever lib.async says (`verify` awaits it)
      const awaited = lib.async || c.signatureOnly;
      resetPeakRss();
      let thrown = null;
      const t0 = process.hrtime.bigint();
      try {
        result = awaited ? await verify(compact) : verify(compact);
      } catch (e) {
        thrown = e;
      }
      line.elapsed_ns = Number(process.hrtime.bigint() - t0);
      if (thrown !== null) {
        const verdict = verdictOf(thrown);
        // `verify --signature-only` answers invalid (exit 1) for whatever the check threw
        Object.assign(line, c.signatureOnly ? { ...verdict, exit: EXIT.invalid, outcome: 'reject' } : verdict);
      }
    }
    line.peak_rss_kb = peakRssKb();
    if (c.signatureOnly) {
      // the payload's bytes exactly as `verify --signature-only` prints them
      if (line.exit === EXIT.ok) line.payload_b64url = Buffer.from(result).toString('base64url');
      out(`${JSON.stringify(line)}\n`);
      continue;
    }
    const text = JSON.stringify(line);
    // "claims" spliced in as verify's JSON text (which survives claims too deep to stringify)
    out(c.claims && line.exit === EXIT.ok ? `${text.slice(0, -1)},"claims":${claimsJson(result, compact)}}\n` : `${text}\n`);
  }
  return EXIT.ok;
}

/** The cases of a batch FILE (`input`: their `token` or `payload` file), or an InputError naming the case. */
function readCases(file, input) {
  const { value } = readJsonObject(file, '--cases');
  const where = `--cases ${file}`;
  if (!Array.isArray(value.cases)) throw new InputError(`${where}: "cases" must be a list`);
  return value.cases.map((c, i) => {
    if (c === null || typeof c !== 'object' || Array.isArray(c)) throw new InputError(`${where}: case ${i} is not an object`);
    for (const field of ['id', 'alg', 'key', input]) {
      if (typeof c[field] !== 'string' || c[field] === '') {
        throw new InputError(`${where}: case ${i} needs a non-empty string "${field}"`);
      }
    }
    if (!JWS_ALGORITHMS.includes(c.alg)) throw new InputError(`${where}: case ${i}: ${c.alg} is not a JWS algorithm name`);
    const { id, alg, key, [input]: file } = c;
    return { id, alg, key, [input]: file, claims: c.claims === true, signatureOnly: c.signature_only === true };
  });
}

/** Resets the process's peak RSS (VmHWM) to its current RSS; a failure is ignored. */
function resetPeakRss() {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
  } catch (_) { /* not Linux, or not allowed: the peak then covers the process's life */ }
}

/** VmHWM from /proc/self/status in kB, 0 when unreadable. */
function peakRssKb() {
  try {
    const m = /^VmHWM:\s*(\d+)\s*kB/m.exec(fs.readFileSync('/proc/self/status', 'latin1'));
    return m ? Number(m[1]) : 0;
  } catch (_) {
    return 0;
  }
}

/** The conductor's worker (serve.js): exit 0 after the end request, 4 if the pipe closed first. */
async function serve({ spec }) {
  return (await require('./serve').runServe(spec)) ? EXIT.ok : EXIT.error;
}

/** The coldstart suite's process: an HS256 and an RS256 token, each on its own line. */
async function coldstart({ hmac, rsa, payload }) {
  const lib = library();
  const { value: claims } = readJsonObject(payload, '--payload');
  const tokens = [];
  for (const [alg, file] of [['HS256', hmac], ['RS256', rsa]]) {
    const key = await lib.nativeKey('private', alg, loadSigningKey(alg, file, `--${alg === 'HS256' ? 'hmac' : 'rsa'}`));
    tokens.push(await lib.signer(alg, key, claims)(claims));
  }
  out(`${tokens.join('\n')}\n`);
  return EXIT.ok;
}

/** Resolves to the exit status. */
async function main(argv) {
  const [command, ...args] = argv;
  try {
    if (command === undefined) throw new InputError(`missing subcommand\n${USAGE}`);
    if (!Object.hasOwn(COMMANDS, command)) throw new InputError(`unknown subcommand "${command}"\n${USAGE}`);
    return await COMMANDS[command].run(parseFlags(command, args));
  } catch (e) {
    if (e instanceof InputError || e instanceof MissingDependency || e instanceof UnknownLibrary) {
      err(`error: ${e.message}`);
      return EXIT.usage;
    }
    throw e;
  }
}

module.exports = { main };
