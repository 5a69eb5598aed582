'use strict';
// The library under test, jsonwebtoken, called as its ordinary API is:
//   jwt.sign(claims, keyObject, {algorithm[, noTimestamp]}),
//   jwt.verify(token, keyObject, {algorithms: [alg]}), jwt.decode(token)
// plus how we tell "jsonwebtoken lacks this algorithm" from any other error.

const crypto = require('node:crypto');
const { requireDependency } = require('./deps');

const jwt = requireDependency('jsonwebtoken');

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

function verifyOptions(alg) {
  return { algorithms: [alg] };
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

module.exports = {
  jwt, signOptions, verifyOptions, isUnsupportedAlgorithmError, libraryLacksAlgorithm,
  UNSUPPORTED_ALGORITHM_MESSAGE,
};
