'use strict';
// fast-jwt (nearform) as the node driver's library (../library.js; its calls: README.md
// here). Synchronous: its factories build a signer, verifier and decoder once, parsing the key.

const crypto = require('node:crypto');
const { requireDependency } = require('../deps');
const { isHmac } = require('../inputs');
const { InvalidSignature, objectClaims } = require('../library');

const { createSigner, createVerifier, createDecoder, TokenError } = requireDependency('fast-jwt');
const { verifySignature } = requireDependency('fast-jwt/src/crypto.js');

/** The key as fast-jwt takes it: the raw secret (HS*) or the PEM (PKCS#8, SPKI) in a Buffer. */
function nativeKey(role, alg, keyObject) {
  if (isHmac(alg)) return keyObject.export();
  return Buffer.from(keyObject.export(role === 'private' ? { type: 'pkcs8', format: 'pem' } : { type: 'spki', format: 'pem' }));
}

// Signers, verifiers per key Buffer (and algorithm, and noTimestamp), each created once.
const signers = new WeakMap();
const verifiers = new WeakMap();

function memo(cache, key, id, make) {
  if (!cache.has(key)) cache.set(key, new Map());
  const made = cache.get(key);
  if (!made.has(id)) made.set(id, make());
  return made.get(id);
}

/** A signer of exactly `claims`: fast-jwt adds `iat` unless noTimestamp, which drops one the claims have. */
function signer(alg, key, claims) {
  const noTimestamp = !Object.hasOwn(claims, 'iat');
  return memo(signers, key, `${alg} ${noTimestamp}`, () => createSigner({ key, algorithm: alg, noTimestamp }));
}

/**
 * The verify policy (README.md here), every item explicit: `cache: false`, since a cached
 * verdict would skip the work timed; `maxAge` unset (iat: lacks); no claim matchers.
 */
function verifyOptions(alg) {
  return {
    algorithms: [alg], clockTolerance: 0, ignoreExpiration: false, ignoreNotBefore: false,
    requiredClaims: [], cache: false, complete: false, allowedCritHeaders: [],
  };
}

function verifier(alg, key) {
  const verify = memo(verifiers, key, alg, () => createVerifier({ key, ...verifyOptions(alg) }));
  return (compact) => objectClaims(verify(compact));
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * `verify --signature-only`: the header's alg pinned, then fast-jwt's verifySignature with the
 * key parsed as its verifier parses it (its decoder's base64url check first). The payload's bytes.
 */
function verifySignatureOnly(compact, alg, key) {
  const segments = compact.split('.');
  if (segments.length !== 3 || !segments.every((s) => BASE64URL.test(s))) throw new InvalidSignature('not a compact JWS');
  const [header, payload, signature] = segments;
  let named;
  try {
    named = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')).alg;
  } catch (e) {
    throw new InvalidSignature(`the header is not JSON: ${e.message}`);
  }
  if (named !== alg) throw new InvalidSignature(`header alg ${JSON.stringify(named)} is not ${alg}`);
  const keyObject = isHmac(alg) ? crypto.createSecretKey(key) : crypto.createPublicKey(key);
  let valid;
  try {
    valid = signature !== '' && verifySignature(alg, keyObject, `${header}.${payload}`, signature);
  } catch (e) {
    throw new InvalidSignature(`verifySignature: ${e.message}`);
  }
  if (!valid) throw new InvalidSignature('signature verification failed');
  return Buffer.from(payload, 'base64url');
}

/** fast-jwt's refusal of an algorithm name it does not know (createSigner's options check). */
function isUnsupportedAlgorithmError(e) {
  return e instanceof TokenError && e.code === TokenError.codes.invalidOption &&
    String(e.message).startsWith('The algorithm option must be one of');
}

/** Whether fast-jwt lacks `alg`: createSigner checks the name before the key, so any key will do. */
function lacksAlgorithm(alg) {
  try {
    createSigner({ key: 'jwtbench-probe', algorithm: alg });
  } catch (e) {
    return isUnsupportedAlgorithmError(e);
  }
  return false;
}

module.exports = {
  name: 'fast-jwt',
  suites: ['jwt'],
  async: false,
  cryptoBackend: (openssl) => openssl,
  nativeKey,
  signer,
  verifier,
  decoder: createDecoder(),
  verifySignatureOnly,
  lacksAlgorithm,
  isUnsupportedAlgorithmError,
  // its verdicts on a token are TokenErrors; anything else is an error
  isVerdict: (e) => e instanceof TokenError,
};
