'use strict';
// Reading the driver's input files: keys (into node:crypto KeyObjects), JSON payloads,
// JSON Lines records, tokens. Every problem is an InputError (exit status 2) whose message
// names the file and where it came from (a flag or a spec field), never the file's contents.

const fs = require('node:fs');
const crypto = require('node:crypto');

class InputError extends Error {}

/** The JWS algorithm names of the driver contract (workflow/scripts/README.md). */
const JWS_ALGORITHMS = [
  'HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512',
  'ES256', 'ES384', 'ES512', 'EdDSA',
];

/** HS* keys are raw secret files; every other algorithm uses PEM key files. */
function isHmac(alg) {
  return alg.startsWith('HS');
}

function readBytes(file, origin) {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new InputError(`cannot read ${origin} ${file}: ${err.code || err.message}`);
  }
}

/** Parses `text` as a JSON object; `where` names it in errors ("file" or "file line 3"). */
function parseJsonObject(text, where) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputError(`${where} is not valid JSON: ${err.message.replace(/[\r\n]+/g, ' ')}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError(`${where} is not a JSON object`);
  }
  return value;
}

function readJsonObject(file, origin) {
  const bytes = readBytes(file, origin);
  return { bytes, value: parseJsonObject(bytes.toString('utf8'), `${origin} ${file}`) };
}

/**
 * JSON Lines records (workflow/scripts/README.md, "Inputs: claims and records"): one JSON
 * object per line, every line ending in \n, no blank lines. Returns [{bytes, claims}],
 * `bytes` being the line's size without its \n.
 */
function readRecords(file, origin) {
  const data = readBytes(file, origin);
  const where = `${origin} ${file}`;
  if (data.length === 0) throw new InputError(`${where} is empty (JSON Lines records expected)`);
  if (data[data.length - 1] !== 0x0a) throw new InputError(`${where} does not end with a newline`);
  const records = [];
  for (let start = 0; start < data.length;) {
    const end = data.indexOf(0x0a, start);
    const line = records.length + 1;
    if (end === start) throw new InputError(`${where} line ${line} is blank`);
    const claims = parseJsonObject(data.toString('utf8', start, end), `${where} line ${line}`);
    records.push({ bytes: end - start, claims });
    start = end + 1;
  }
  return records;
}

// Node's parse errors carry an OpenSSL reason or code, never the key bytes; keep only that.
function parseFailure(err) {
  return err.code || String(err.message).split('\n')[0];
}

// A key's role decides how its PEM is parsed: PKCS#8 private key or SPKI public key.
const PEM_ROLES = {
  private: { parse: crypto.createPrivateKey, what: 'a private key PEM' },
  public: { parse: crypto.createPublicKey, what: 'a public key PEM' },
};

/** A KeyObject for `role` (private or public): the secret itself for HS*, else parsed PEM. */
function loadKey(role, alg, file, origin) {
  const bytes = readBytes(file, origin);
  if (isHmac(alg)) return secretKey(bytes, file, origin);
  const { parse, what } = PEM_ROLES[role];
  try {
    return parse({ key: bytes, format: 'pem' });
  } catch (err) {
    throw new InputError(`${origin} ${file} is not ${what} (${parseFailure(err)})`);
  }
}

const loadSigningKey = (alg, file, origin) => loadKey('private', alg, file, origin);
const loadVerificationKey = (alg, file, origin) => loadKey('public', alg, file, origin);

function secretKey(bytes, file, origin) {
  if (bytes.length === 0) throw new InputError(`${origin} ${file} is empty (an HMAC secret is expected)`);
  return crypto.createSecretKey(bytes);
}

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

/**
 * Validates a number in `obj` (spec section `section`); returns it, or undefined when an
 * optional one is absent.
 */
function specNumber(obj, section, name, { ok, what, required = true }, fail) {
  const v = obj[name];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) fail(`"${section}.${name}" must be ${what}`);
  return v;
}

const NON_NEGATIVE = { ok: (v) => v >= 0, what: 'a number >= 0' };
const POSITIVE = { ok: (v) => v > 0, what: 'a number > 0' };
const COUNT = { ok: (v) => Number.isInteger(v) && v >= 1, what: 'an integer >= 1' };

function readToken(file, origin) {
  return readBytes(file, origin).toString('utf8').trim();
}

module.exports = {
  InputError, JWS_ALGORITHMS, isHmac, readBytes, readJsonObject, readRecords,
  loadKey, loadSigningKey, loadVerificationKey, readToken, keyBitsOf,
  specNumber, NON_NEGATIVE, POSITIVE, COUNT,
};
