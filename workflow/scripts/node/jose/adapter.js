'use strict';
// jose (panva) as the node driver's library (../library.js; its calls: README.md here).

const { webcrypto } = require('node:crypto');
const { requireDependency } = require('../deps');
const { isHmac } = require('../inputs');
const { InvalidSignature, objectClaims } = require('../library');

const jose = requireDependency('jose');
const { SignJWT, jwtVerify, decodeJwt, compactVerify, importPKCS8, importSPKI, errors } = jose;

/**
 * jose's key: an HMAC CryptoKey of the raw secret (jose would import a Uint8Array on every
 * call), else its import of the PEM for alg (JOSENotSupported for an algorithm it lacks).
 */
async function nativeKey(role, alg, keyObject) {
  if (isHmac(alg)) {
    return webcrypto.subtle.importKey('raw', keyObject.export(), { name: 'HMAC', hash: `SHA-${alg.slice(2)}` },
      false, [role === 'private' ? 'sign' : 'verify']);
  }
  if (role === 'private') return importPKCS8(keyObject.export({ type: 'pkcs8', format: 'pem' }), alg);
  return importSPKI(keyObject.export({ type: 'spki', format: 'pem' }), alg);
}

/** jose signs exactly the claims given, so one signer serves every input; a SignJWT takes its claims when made. */
function signer(alg, key) {
  const header = { alg };
  return (claims) => new SignJWT(claims).setProtectedHeader(header).sign(key);
}

/**
 * The verify policy (README.md here), every item explicit; exp and nbf are always checked,
 * `maxTokenAge` unset (iat: lacks), no typ/issuer/audience/subject check. One per algorithm.
 */
const VERIFY_OPTIONS = new Map();

function verifyOptions(alg) {
  let options = VERIFY_OPTIONS.get(alg);
  if (options === undefined) {
    options = Object.freeze({ algorithms: Object.freeze([alg]), clockTolerance: 0, requiredClaims: Object.freeze([]) });
    VERIFY_OPTIONS.set(alg, options);
  }
  return options;
}

function verifier(alg, key) {
  const options = verifyOptions(alg);
  return async (compact) => objectClaims((await jwtVerify(compact, key, options)).payload);
}

/** compactVerify (jose's JWS layer, no claims): the header's alg pinned, the payload's bytes. */
async function verifySignatureOnly(compact, alg, key) {
  try {
    const { payload } = await compactVerify(compact, key, { algorithms: [alg] });
    return Buffer.from(payload);
  } catch (e) {
    throw new InvalidSignature(`${e.constructor?.name || 'Error'}: ${e.message}`);
  }
}

module.exports = {
  name: 'jose',
  suites: ['jwt'],
  async: true,
  cryptoBackend: (openssl) => `${openssl}, through node's Web Crypto API`,
  nativeKey,
  signer,
  verifier,
  decoder: decodeJwt,
  verifySignatureOnly,
  // No probe: jose refuses an algorithm it lacks when the key is imported for it (nativeKey).
  lacksAlgorithm: () => false,
  isUnsupportedAlgorithmError: (e) => e instanceof errors.JOSENotSupported,
  // every jose error derives from JOSEError; anything else (a TypeError) is an error
  isVerdict: (e) => e instanceof errors.JOSEError,
};
