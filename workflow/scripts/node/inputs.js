'use strict';
// The driver's input files: keys (node:crypto KeyObjects), JSON payloads, JSON Lines
// records, tokens. Every problem is an InputError (exit status 2) naming the file and where
// it came from (a flag or a spec field), never the file's contents.

const fs = require('node:fs');
const crypto = require('node:crypto');

class InputError extends Error {}

/** The JWS algorithm names of the driver contract (workflow/scripts/README.md). */
const JWS_ALGORITHMS = [
  'HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512',
  'ES256', 'ES384', 'ES512', 'EdDSA',
];

/** HS* keys are raw secret files; every other algorithm uses PEM key files. */
const isHmac = (alg) => alg.startsWith('HS');

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
 * JSON Lines records (workflow/scripts/README.md, "Inputs: claims and records"):
 * [{bytes (the line's size without its \n), claims}].
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

/**
 * A KeyObject of `kind`: 'secret' (the file's bytes), 'private' (a PKCS#8 PEM) or 'public'
 * (an SPKI PEM). Node's parse errors carry an OpenSSL reason or code, never the key bytes.
 */
function parseKey(kind, bytes, file, origin) {
  if (kind === 'secret' && bytes.length === 0) throw new InputError(`${origin} ${file} is empty (a secret is expected)`);
  try {
    if (kind === 'secret') return crypto.createSecretKey(bytes);
    return (kind === 'private' ? crypto.createPrivateKey : crypto.createPublicKey)({ key: bytes, format: 'pem' });
  } catch (err) {
    throw new InputError(`${origin} ${file} is not a ${kind} key PEM (${err.code || String(err.message).split('\n')[0]})`);
  }
}

/** The key of `role` (private or public) for alg: the secret itself for HS*, else the PEM. */
const keyKind = (role, alg) => (isHmac(alg) ? 'secret' : role);
const loadSigningKey = (alg, file, origin) => parseKey(keyKind('private', alg), readBytes(file, origin), file, origin);
const loadVerificationKey = (alg, file, origin) => parseKey(keyKind('public', alg), readBytes(file, origin), file, origin);

/** A spec's files and keys, each file read and each key parsed once: `bytes`, `key` and `once`. */
function fileCache() {
  const made = new Map();
  const once = (id, make) => {
    if (!made.has(id)) made.set(id, make());
    return made.get(id);
  };
  const bytes = (file, origin) => once(`bytes\0${file}`, () => readBytes(file, origin));
  const key = (kind, file, origin) => once(`${kind}\0${file}`, () => parseKey(kind, bytes(file, origin), file, origin));
  return { once, bytes, key };
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

function readToken(file, origin) {
  return readBytes(file, origin).toString('utf8').trim();
}

module.exports = {
  InputError, JWS_ALGORITHMS, isHmac, readJsonObject, readRecords, keyKind,
  loadSigningKey, loadVerificationKey, fileCache, readToken, keyBitsOf,
};
