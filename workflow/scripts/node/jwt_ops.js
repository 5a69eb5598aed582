'use strict';
// jsonwebtoken, the driver's own library, as its adapter (library.js): jwt.sign(claims,
// keyObject, {algorithm[, noTimestamp]}), jwt.verify under the verify policy, jwt.decode.

const crypto = require('node:crypto');
const path = require('node:path');
const { requireDependency, resolveDependency } = require('./deps');
const { InvalidSignature, objectClaims } = require('./library');

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

/** Options that make jwt.sign sign exactly `claims`: it adds an `iat` unless noTimestamp (which would delete one). */
function signOptions(alg, claims) {
  return Object.hasOwn(claims, 'iat') ? { algorithm: alg } : { algorithm: alg, noTimestamp: true };
}

/**
 * The verify policy (README.md here: every item explicit): `algorithms: [alg]`, exp and nbf
 * checked, `clockTolerance: 0`; no `maxAge` (iat: lacks) and no option that requires a claim.
 * One frozen object per algorithm (verify copies it).
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

/** The driver's one verify: jwt.verify under the policy, the payload a JSON object (else InvalidPayload). */
function verifyToken(compact, alg, key) {
  return objectClaims(jwt.verify(compact, key, verifyOptions(alg)));
}

/**
 * Whether jsonwebtoken lacks `alg` (CLI verify, no signing key at hand): sign() checks the
 * key's type before the algorithm's name, so of a throwaway secret and a throwaway private
 * key at least one reaches the name; only its rejection means unsupported.
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
 * The payload bytes of a JWS whose header names `alg` and whose signature verifies through
 * jws.verify (no claim parsed). jws.verify uses the algorithm it is given, not the header's,
 * so the header's pin is ours. Throws InvalidSignature otherwise.
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
 * The adapter: synchronous, the KeyObject itself as its key; JsonWebTokenError (and its
 * subclasses) are verdicts, anything else (a jwa TypeError, a SyntaxError, a RangeError) an error.
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

module.exports = { jwt, signOptions, verifyToken, adapter };
