# frozen_string_literal: true

# ruby-jwt, the ruby driver's own JWS library, behind the adapter interface (library.rb).
#
# ruby-jwt signs and verifies HS*, RS*, PS* and ES* with Ruby's openssl; for EdDSA it takes
# rbnacl's Ed25519 keys (libsodium), and it loads rbnacl by itself whenever rbnacl is
# installed (jwt/signature.rb). With rbnacl loaded ruby-jwt 2.5.0 also computes HS256 and
# HS512 with libsodium's HMAC when the secret has at most 32 bytes (SecurityUtils.rbnacl_fixup):
# this benchmark's HS256 secret (32 bytes); its HS384 and HS512 secrets (48, 64 bytes) go to
# OpenSSL. The driver's README says so.
gem "jwt", "= 2.5.0"
require "jwt"
require "rbnacl"
require_relative "keys"

module RubyJwtAdapter
  NAME = "ruby-jwt"
  VERSION = JWT::VERSION::STRING
  LIBRARIES = {
    "ruby-jwt" => VERSION,
    "rbnacl" => RbNaCl::VERSION,
    "libsodium" => RbNaCl::Sodium::Version::STRING,
  }.freeze
  CRYPTO_BACKEND = "#{OpenSSL::OPENSSL_LIBRARY_VERSION} through Ruby's openssl #{OpenSSL::VERSION}; " \
                   "libsodium #{RbNaCl::Sodium::Version::STRING} through rbnacl #{RbNaCl::VERSION} for EdDSA " \
                   "and for HS256/HS512 secrets of at most 32 bytes (ruby-jwt's rbnacl_fixup)"
  # ruby-jwt's verdicts on a token it refuses all derive from JWT::DecodeError.
  INVALID = [JWT::DecodeError].freeze
  ALGORITHMS = %w[HS256 HS384 HS512 RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 ES512 EdDSA].freeze

  # The verify policy (workflow/scripts/README.md), every item set here rather than left to
  # ruby-jwt's defaults (JWT.configuration.decode): alg pinned by `algorithms`, the signature,
  # exp, nbf, iat (ruby-jwt rejects an iat in the future), leeway 0 and no required claim.
  # iss, aud, sub and jti are not part of the policy and stay off, as ruby-jwt's defaults.
  VERIFY_OPTIONS = {
    verify_expiration: true,
    verify_not_before: true,
    verify_iat: true,
    verify_iss: false,
    verify_aud: false,
    verify_sub: false,
    verify_jti: false,
    leeway: 0,
    required_claims: [],
  }.freeze
  # alg -> the options of a verify pinned to it, made once
  PINNED = ALGORITHMS.to_h { |alg| [alg, VERIFY_OPTIONS.merge(algorithms: [alg]).freeze] }.freeze

  module_function

  # ruby-jwt's own table of algorithms (JWT::Algos) answers whether it implements alg.
  def unsupported(alg)
    implemented, = JWT::Algos.find(alg)
    return nil if ALGORITHMS.include?(alg) && implemented != JWT::Algos::Unsupported

    "ruby-jwt #{VERSION} lacks #{alg}"
  end

  def signing_key(alg, data)
    return data.b if Keys.hmac?(alg)
    return RbNaCl::Signatures::Ed25519::SigningKey.new(Keys.ed25519_raw(data, private: true)) if alg == "EdDSA"

    Keys.pkey(data)
  end

  def verifying_key(alg, data)
    return data.b if Keys.hmac?(alg)
    return RbNaCl::Signatures::Ed25519::VerifyKey.new(Keys.ed25519_raw(data, private: false)) if alg == "EdDSA"

    Keys.pkey(data)
  end

  def sign(claims, key, alg)
    JWT.encode(claims, key, alg)
  end

  # ruby-jwt hands back whatever JSON the payload holds; the policy's "the payload must be a
  # JSON object" is checked here, with ruby-jwt's own error for it.
  def verify(token, key, alg)
    claims = JWT.decode(token, key, true, PINNED.fetch(alg)).first
    raise JWT::InvalidPayload, "the payload is not a JSON object" unless claims.is_a?(Hash)

    claims
  end

  def decode(token)
    JWT.decode(token, nil, false).first
  end

  # ruby-jwt's JWS layer alone: the header's alg must be alg, and JWT::Signature (what
  # JWT.decode verifies the signature with) must verify the signing input. JWT.decode itself
  # would parse the payload as JSON claims, which a JWS need not hold (RFC 8037's).
  def verify_signature(token, key, alg)
    header, payload, signature = token.split(".", -1)
    raise JWT::DecodeError, "Not enough or too many segments" unless signature && token.count(".") == 2

    named = JWT::JSON.parse(JWT::Base64.url_decode(header))
    raise JWT::IncorrectAlgorithm, "Expected a different algorithm" unless named.is_a?(Hash) && named["alg"] == alg
    unless JWT::Signature.verify(alg, key, "#{header}.#{payload}", JWT::Base64.url_decode(signature))
      raise JWT::VerificationError, "Signature verification failed"
    end

    JWT::Base64.url_decode(payload)
  rescue JSON::ParserError
    raise JWT::DecodeError, "Invalid segment encoding"
  end
end
