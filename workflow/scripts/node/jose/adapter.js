'use strict';
// jose (panva) as the node driver's library (../library.js; README.md here). Its API is
// asynchronous: sign and verify return promises, which the harness awaits call by call.
//   sign:    new SignJWT(claims).setProtectedHeader({alg}).sign(key)
//   verify:  jwtVerify(token, key, VERIFY_OPTIONS(alg)), the verify policy
//   decode:  decodeJwt(token)
//   --signature-only: compactVerify(token, key, {algorithms: [alg]}), jose's JWS layer
// Keys are Web Crypto CryptoKeys, jose's own key objects, made once: importPKCS8 /
// importSPKI for the PEM keys, crypto.subtle.importKey('raw', ...) for an HMAC secret.

const { webcrypto } = require('node:crypto');
const { requireDependency } = require('../deps');
const { InvalidSignature, objectClaims } = require('../library');

const jose = requireDependency('jose');
const { SignJWT, jwtVerify, decodeJwt, compactVerify, importPKCS8, importSPKI, errors } = jose;

const isHmac = (alg) => alg.startsWith('HS');

/**
 * The library's key for `role` ('private': signing, 'public': verification): an HMAC
 * CryptoKey for the raw secret (hash SHA-<bits of alg>, usable for that one operation, not
 * extractable), else jose's import of the PKCS#8 / SPKI PEM for alg. jose refuses an
 * algorithm it does not implement with JOSENotSupported.
 */
async function nativeKey(role, alg, keyObject) {
  if (isHmac(alg)) {
    return webcrypto.subtle.importKey('raw', keyObject.export(), { name: 'HMAC', hash: `SHA-${alg.slice(2)}` },
      false, [role === 'private' ? 'sign' : 'verify']);
  }
  if (role === 'private') return importPKCS8(keyObject.export({ type: 'pkcs8', format: 'pem' }), alg);
  return importSPKI(keyObject.export({ type: 'spki', format: 'pem' }), alg);
}

/**
 * jose signs exactly the claims it is given (it adds a claim only when told to, e.g.
 * setIssuedAt), so one signer serves every input; the header is {alg} as jose's examples
 * set it. A SignJWT is made per token: it takes its claims when constructed.
 */
function signer(alg, key) {
  const header = { alg };
  return (claims) => new SignJWT(claims).setProtectedHeader(header).sign(key);
}

/**
 * The verify policy (workflow/scripts/README.md), every item set explicitly:
 * - alg: `algorithms: [alg]` (jose never accepts `none`; any other name: JOSEAlgNotAllowed);
 * - exp, nbf: always checked by jwtVerify when present (no option turns them off);
 * - leeway: `clockTolerance: 0`;
 * - required claims: `requiredClaims: []`;
 * - iat: `maxTokenAge` is left unset: jose checks that iat is not in the future only with a
 *   maxTokenAge, which also requires iat and bounds its age (driver.yaml: lacks iat);
 * - `currentDate` unset (now), no `typ`, `issuer`, `audience` or `subject` check, `crit`
 *   unset (no extension is recognised beyond b64, so a token naming another in crit fails).
 * The signature is always checked. One frozen object per algorithm.
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
  // jose's errors all derive from JOSEError (JWSSignatureVerificationFailed, JWSInvalid,
  // JWTInvalid, JWTExpired, JWTClaimValidationFailed, JOSEAlgNotAllowed, JOSENotSupported for
  // an unrecognised crit extension); anything else (a TypeError) is an error.
  isVerdict: (e) => e instanceof errors.JOSEError,
};
