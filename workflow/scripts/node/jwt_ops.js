'use strict';
// The library under test, jsonwebtoken, called as its ordinary API is:
//   jwt.sign(claims, keyObject, {algorithm[, noTimestamp]}),
//   jwt.verify(token, keyObject, verifyOptions(alg)) (the verify policy), jwt.decode(token)
// plus how we tell "jsonwebtoken lacks this algorithm" from any other error, and which of
// its errors are verdicts on a token; `adapter` hands all this to the harness (library.js),
// as the driver's own library (JWTBENCH_LIBRARY unset or jsonwebtoken).

const crypto = require('node:crypto');
const path = require('node:path');
const { requireDependency, resolveDependency } = require('./deps');
const { InvalidPayload, InvalidSignature, objectClaims } = require('./library');

const jwt = requireDependency('jsonwebtoken');
// jsonwebtoken's own JWS layer (its `jws` dependency, resolved from jsonwebtoken's folder so
// it is the copy jsonwebtoken loads): for `verify --signature-only`, which reads no claims.
const jws = require(require.resolve('jws', { paths: [path.dirname(resolveDependency('jsonwebtoken'))] }));

// jsonwebtoken validates sign()'s options against its list of algorithms and throws this
// exact message for a name it does not know (sign.js, sign_options_schema.algorithm).
const UNSUPPORTED_ALGORITHM_MESSAGE = '"algorithm" must be a valid string enum value';

function isUnsupportedAlgorithmError(err) {
  return err instanceof Error && err.message === UNSUPPORTED_ALGORITHM_MESSAGE;
}

/**
 * Options that make jwt.sign sign exactly `claims`: jsonwebtoken adds an `iat` unless told
 * not to, so noTimestamp is set when the claims have none. With an `iat` it is left out,
 * since noTimestamp would delete that claim.
 */
function signOptions(alg, claims) {
  return Object.hasOwn(claims, 'iat') ? { algorithm: alg } : { algorithm: alg, noTimestamp: true };
}

/**
 * The verify policy (workflow/scripts/README.md, "The verify policy"), every item set
 * explicitly rather than left to jsonwebtoken's defaults (verify.js of jsonwebtoken 9):
 * - alg: `algorithms: [alg]` pins it (`none` and every other name: "invalid algorithm");
 * - exp, nbf: `ignoreExpiration` / `ignoreNotBefore` false (checked when present);
 * - leeway: `clockTolerance: 0`;
 * - iat: jsonwebtoken has no check of a future `iat` (driver.yaml declares it under lacks);
 *   `maxAge` is left out: it checks only that iat is not too old, and requires iat;
 * - required claims: none; jsonwebtoken requires a claim only for an `audience`, `issuer`,
 *   `subject`, `jwtid`, `nonce` or `maxAge` option, and none is given.
 * The signature is always checked. One frozen object per algorithm (verify copies it).
 */
const VERIFY_OPTIONS = new Map();

function verifyOptions(alg) {
  let options = VERIFY_OPTIONS.get(alg);
  if (options === undefined) {
    options = Object.freeze({
      algorithms: Object.freeze([alg]), clockTolerance: 0, ignoreExpiration: false, ignoreNotBefore: false,
    });
    VERIFY_OPTIONS.set(alg, options);
  }
  return options;
}

/**
 * The one verify of the driver (CLI `verify`, `verify-batch`, the timed verify cells, the
 * checks, suite transfer): jwt.verify under the policy, then the payload must be an object.
 * Throws what jwt.verify throws, or InvalidPayload.
 */
function verifyToken(compact, alg, key) {
  // The policy's "the payload must be a JSON object": jsonwebtoken returns any JSON value.
  return objectClaims(jwt.verify(compact, key, verifyOptions(alg)));
}

/**
 * Asks jsonwebtoken whether it knows `alg`, when no signing key is at hand (CLI verify).
 * sign() checks the key's type against the algorithm's family before it validates the
 * algorithm name, so one probe key might stop it early; with a throwaway secret and a
 * throwaway private key, at least one probe reaches the name validation. The algorithm
 * is unsupported only if that validation rejects it; any other outcome means it is known.
 */
function libraryLacksAlgorithm(alg) {
  const probes = [
    crypto.createSecretKey(crypto.randomBytes(32)),
    crypto.generateKeyPairSync('ed25519').privateKey,
  ];
  for (const key of probes) {
    try {
      jwt.sign({}, key, signOptions(alg, {}));
    } catch (err) {
      if (isUnsupportedAlgorithmError(err)) return true;
    }
  }
  return false;
}

/**
 * The payload bytes of a compact JWS whose header names exactly `alg` and whose signature
 * verifies with `key` through jws.verify; no claim is parsed, so no `exp` is checked.
 * jws.verify checks the signature under the algorithm it is given, not the header's, so
 * the pin on the header is ours (jsonwebtoken's verify does the same with `algorithms`).
 * Throws InvalidSignature otherwise.
 */
function verifySignatureOnly(compact, alg, key) {
  if (!jws.isValid(compact)) throw new InvalidSignature('not a compact JWS');
  const [header, payload] = compact.split('.');
  const named = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')).alg;
  if (named !== alg) throw new InvalidSignature(`header alg ${JSON.stringify(named)} is not ${alg}`);
  let valid;
  try {
    valid = jws.verify(compact, alg, key);
  } catch (e) {
    throw new InvalidSignature(`jws.verify: ${e.message}`);
  }
  if (!valid) throw new InvalidSignature('signature verification failed');
  return Buffer.from(payload, 'base64url');
}

/** A signer of exactly `claims` (the sign options decided once, outside any timed call). */
function signer(alg, key, claims) {
  const options = signOptions(alg, claims);
  return (c) => jwt.sign(c, key, options);
}

/**
 * jsonwebtoken as the harness's adapter (library.js): synchronous; the key is the
 * node:crypto KeyObject itself; its documented verify errors (JsonWebTokenError and its
 * subclasses TokenExpiredError and NotBeforeError) are its verdicts on a token, anything
 * else it throws (a TypeError from jwa, a SyntaxError from JSON.parse, a RangeError from a
 * stack overflow) an error.
 */
const adapter = {
  name: 'jsonwebtoken',
  suites: ['jwt', 'tokensize', 'transfer', 'percall'],
  async: false,
  cryptoBackend: (openssl) => openssl,
  nativeKey: (role, alg, keyObject) => keyObject,
  signer,
  verifier: (alg, key) => (compact) => verifyToken(compact, alg, key),
  decoder: jwt.decode,
  verifySignatureOnly,
  lacksAlgorithm: libraryLacksAlgorithm,
  isUnsupportedAlgorithmError,
  isVerdict: (e) => e instanceof jwt.JsonWebTokenError,
};

module.exports = {
  jwt, jws, signOptions, verifyOptions, verifyToken, InvalidPayload,
  isUnsupportedAlgorithmError, libraryLacksAlgorithm, verifySignatureOnly, InvalidSignature,
  UNSUPPORTED_ALGORITHM_MESSAGE, adapter,
};
