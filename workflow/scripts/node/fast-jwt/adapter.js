'use strict';
// fast-jwt (nearform) as the node driver's library (../library.js; README.md here).
// Synchronous: fast-jwt's factories build a signer, a verifier and a decoder once, each
// parsing its key into a node:crypto KeyObject then; the calls are plain functions.
//   sign:    createSigner({key, algorithm, noTimestamp})(claims)
//   verify:  createVerifier({key, ...VERIFY_OPTIONS(alg)})(token), the verify policy
//   decode:  createDecoder()(token)
//   --signature-only: fast-jwt's signature layer, src/crypto.js verifySignature (what its
//     verifier calls), since its public API parses every payload as a JSON object.

const crypto = require('node:crypto');
const { requireDependency } = require('../deps');
const { InvalidSignature, objectClaims } = require('../library');

const { createSigner, createVerifier, createDecoder, TokenError } = requireDependency('fast-jwt');
const { verifySignature } = requireDependency('fast-jwt/src/crypto.js');

const isHmac = (alg) => alg.startsWith('HS');

/**
 * The key as fast-jwt takes it: the raw secret (HS*) or the PEM (PKCS#8 private, SPKI
 * public) in a Buffer. fast-jwt parses it once, when a signer or verifier is created.
 */
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

/**
 * A signer of exactly `claims`: fast-jwt adds `iat` unless `noTimestamp` is set, and with
 * `noTimestamp` drops an `iat` the claims have, so it is set exactly when they have none.
 * No expiresIn, notBefore or fixed claims; header {"alg", "typ": "JWT"}.
 */
function signer(alg, key, claims) {
  const noTimestamp = !Object.hasOwn(claims, 'iat');
  return memo(signers, key, `${alg} ${noTimestamp}`, () => createSigner({ key, algorithm: alg, noTimestamp }));
}

/**
 * The verify policy (workflow/scripts/README.md), every item set explicitly:
 * - alg: `algorithms: [alg]` (`none` needs a key-less verifier, so it never verifies);
 * - exp, nbf: `ignoreExpiration: false`, `ignoreNotBefore: false`;
 * - leeway: `clockTolerance: 0` (milliseconds);
 * - required claims: `requiredClaims: []`;
 * - iat: `maxAge` left unset: fast-jwt reads iat only for maxAge, which bounds its age and
 *   never checks that it lies in the past (driver.yaml: lacks iat);
 * - `cache: false`: no verified token is remembered, every call verifies (fast-jwt can
 *   cache verdicts by token, which would skip the work a benchmark times);
 * - `clockTimestamp` unset (now), `complete: false`, no `checkTyp`, no allowed* claim
 *   matchers, `allowedCritHeaders: []` (no crit extension is understood).
 * The signature is always checked (a keyed verifier rejects a token without one).
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
 * `verify --signature-only`: the header's alg pinned to `alg`, then fast-jwt's own
 * verifySignature over the signing input with the key parsed as its verifier parses it
 * (createSecretKey / createPublicKey). Segments outside the base64url alphabet are refused
 * as fast-jwt's decoder refuses them. The payload's bytes, JSON or not.
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

/**
 * Asks fast-jwt whether it knows `alg`: createSigner checks the algorithm name before the
 * key, so a throwaway secret reaches that check for every name.
 */
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
  // fast-jwt's verdicts on a token are TokenErrors (malformed, invalid algorithm, invalid
  // signature, expired, inactive, invalid claim type, ...); anything else is an error.
  isVerdict: (e) => e instanceof TokenError,
};
