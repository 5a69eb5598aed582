'use strict';
// The library under test, jsonwebtoken, called as its ordinary API is:
//   jwt.sign(claims, keyObject, {algorithm[, noTimestamp]}),
//   jwt.verify(token, keyObject, verifyOptions(alg)) (the verify policy), jwt.decode(token)
// plus how we tell "jsonwebtoken lacks this algorithm" from any other error, and how a
// verify failure maps to the contract's exit statuses.

const crypto = require('node:crypto');
const path = require('node:path');
const { requireDependency, resolveDependency } = require('./deps');

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

/** The policy's "the payload must be a JSON object": jsonwebtoken returns any JSON value. */
class InvalidPayload extends Error {}
InvalidPayload.prototype.name = 'InvalidPayload';

/**
 * The one verify of the driver (CLI `verify`, `verify-batch`, the timed verify cells, the
 * checks, suite transfer): jwt.verify under the policy, then the payload must be an object.
 * Throws what jwt.verify throws, or InvalidPayload.
 */
function verifyToken(compact, alg, key) {
  const claims = jwt.verify(compact, key, verifyOptions(alg));
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) {
    throw new InvalidPayload('the payload is not a JSON object');
  }
  return claims;
}

/** "Type: message" of anything thrown, on one line of at most 300 characters. */
function describeError(e) {
  const type = e instanceof Error ? (e.constructor?.name || e.name || 'Error') : typeof e;
  let message;
  try {
    message = e instanceof Error ? String(e.message) : String(e);
  } catch (_) {
    message = '(no message)';
  }
  return `${type}: ${message}`.replace(/[\r\n]+/g, ' ').slice(0, 300);
}

/**
 * What `verify` answers for what verifyToken threw: jsonwebtoken's documented verify errors
 * (JsonWebTokenError and its subclasses TokenExpiredError and NotBeforeError) and the
 * policy's InvalidPayload are the verdict "invalid" (exit 1); anything else (a TypeError
 * from jwa, a SyntaxError from JSON.parse, a RangeError from a stack overflow) is an
 * error (exit 4).
 */
function verdictOf(e) {
  const invalid = e instanceof jwt.JsonWebTokenError || e instanceof InvalidPayload;
  return { exit: invalid ? 1 : 4, outcome: invalid ? 'reject' : 'error', reason: describeError(e) };
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

class InvalidSignature extends Error {}

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

module.exports = {
  jwt, jws, signOptions, verifyOptions, verifyToken, verdictOf, describeError, InvalidPayload,
  isUnsupportedAlgorithmError, libraryLacksAlgorithm, verifySignatureOnly, InvalidSignature,
  UNSUPPORTED_ALGORITHM_MESSAGE,
};
