'use strict';
// The JWS library under test: the adapter named by JWTBENCH_LIBRARY (unset or `jsonwebtoken`:
// jwt_ops.js; else `<name>/adapter.js`, started through `<name>/run`). An adapter has:
//   name, suites     its npm package; the JWT suites it runs (hash, primitive, keygen and
//                    harness run for every library)
//   async            whether its signers and verifiers return promises (awaited call by call)
//   cryptoBackend(openssl)  `versions`' crypto_backend, given node's OpenSSL description
//   nativeKey(role, alg, keyObject)  its own key ('private' or 'public') for a KeyObject, made
//                    before any timing (may return a promise; an algorithm it lacks throws
//                    what isUnsupportedAlgorithmError recognises)
//   signer(alg, key, claims)  claims -> compact JWS of exactly `claims` (built per input: a
//                    claim like `iat` decides its options)
//   verifier(alg, key)  compact -> claims under the verify policy; throws on an invalid token
//   decoder          compact -> claims without verifying (synchronous), or null
//   verifySignatureOnly(compact, alg, key)  the payload's bytes if the header names alg and
//                    the signature verifies, else throws InvalidSignature (may return a promise)
//   lacksAlgorithm(alg)  whether it lacks alg, asked when no private key is at hand
//   isUnsupportedAlgorithmError(err), isVerdict(err)  its "unknown algorithm" error; whether
//                    err is one of its documented verdicts on a token

const fs = require('node:fs');
const path = require('node:path');

const DEFAULT_LIBRARY = 'jsonwebtoken';
const LIBRARY = process.env.JWTBENCH_LIBRARY || DEFAULT_LIBRARY;
// The driver's name in messages: `node`, or `node/<library>` for a further library.
const DRIVER = LIBRARY === DEFAULT_LIBRARY ? 'node' : `node/${LIBRARY}`;

class UnknownLibrary extends Error {}

/** The policy's "the payload must be a JSON object", whatever the library returns. */
class InvalidPayload extends Error {}
InvalidPayload.prototype.name = 'InvalidPayload';

/** A JWS that `verify --signature-only` does not accept. */
class InvalidSignature extends Error {}

/** Claims that are a JSON object, or InvalidPayload. */
function objectClaims(claims) {
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) {
    throw new InvalidPayload('the payload is not a JSON object');
  }
  return claims;
}

/** `text` on one line of at most 300 characters (a batch line's `reason`). */
function oneLine(text) {
  return text.replace(/[\r\n]+/g, ' ').slice(0, 300);
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
  return oneLine(`${type}: ${message}`);
}

let adapter;

/** The adapter of JWTBENCH_LIBRARY (loaded once); UnknownLibrary when there is none. */
function library() {
  if (adapter !== undefined) return adapter;
  if (LIBRARY === DEFAULT_LIBRARY) {
    adapter = require('./jwt_ops').adapter;
  } else {
    const file = path.join(__dirname, LIBRARY, 'adapter.js');
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(LIBRARY) || !fs.existsSync(file)) {
      throw new UnknownLibrary(`JWTBENCH_LIBRARY=${LIBRARY}: the node driver has no such library (no ${file})`);
    }
    adapter = require(file);
  }
  if (adapter.name !== LIBRARY) throw new Error(`the adapter of ${LIBRARY} calls itself ${adapter.name}`);
  return adapter;
}

/** What `verify` answers for what a verifier threw: invalid (exit 1) for a verdict or InvalidPayload, else error (4). */
function verdictOf(e) {
  const invalid = e instanceof InvalidPayload || library().isVerdict(e);
  return { exit: invalid ? 1 : 4, outcome: invalid ? 'reject' : 'error', reason: describeError(e) };
}

module.exports = {
  LIBRARY, DRIVER, UnknownLibrary, InvalidPayload, InvalidSignature,
  objectClaims, oneLine, describeError, library, verdictOf,
};
