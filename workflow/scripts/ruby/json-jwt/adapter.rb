# frozen_string_literal: true

# json-jwt (nov's JSON::JWT) behind the ruby driver's adapter interface (../lib/library.rb).
#
# json-jwt signs and verifies HS*, RS*, PS* and ES* through Ruby's openssl, with keys as
# OpenSSL's own objects and an HMAC secret as a String. It has no EdDSA, and it checks no
# claim: JSON::JWT.decode verifies the JWS (alg pinned by its `algorithms` argument) and hands
# back the claims, nothing else (driver.yaml: verify.lacks).
gem "json-jwt", "= 1.14.0"
require "json/jwt"
require_relative "../lib/keys"

module Adapter
  NAME = "json-jwt"
  VERSION = Gem.loaded_specs.fetch("json-jwt").version.to_s
  LIBRARIES = {
    "json-jwt" => VERSION,
    "activesupport" => ActiveSupport.version.to_s,
    "bindata" => BinData::VERSION,
    "aes_key_wrap" => Gem.loaded_specs.fetch("aes_key_wrap").version.to_s,
  }.freeze
  CRYPTO_BACKEND = "#{OpenSSL::OPENSSL_LIBRARY_VERSION} through Ruby's openssl #{OpenSSL::VERSION}"
  # json-jwt's verdicts on a token it refuses: JSON::JWT::Exception and its subclasses
  # (InvalidFormat, VerificationFailed, UnexpectedAlgorithm; JSON::JWS's derive from them).
  INVALID = [JSON::JWT::Exception].freeze
  # What JSON::JWS signs and verifies (jws.rb: hmac?, rsa?, rsa_pss?, ecdsa?).
  ALGORITHMS = %w[HS256 HS384 HS512 RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 ES512].freeze
  # alg -> the `algorithms` argument of a verify pinned to it (json-jwt compares Symbols)
  PINNED = ALGORITHMS.to_h { |alg| [alg, [alg.to_sym].freeze] }.freeze

  module_function

  def unsupported(alg)
    return nil if ALGORITHMS.include?(alg)

    "json-jwt #{VERSION} lacks #{alg}: JSON::JWS signs and verifies only HS*, RS*, PS* and ES*"
  end

  def signing_key(alg, data)
    Keys.hmac?(alg) ? data.b : Keys.pkey(data)
  end

  def verifying_key(alg, data)
    Keys.hmac?(alg) ? data.b : Keys.pkey(data)
  end

  def sign(claims, key, alg)
    JSON::JWT.new(claims).sign(key, alg.to_sym).to_s
  end

  # The verify policy as far as json-jwt goes: the signature and the pinned alg; no claim is
  # required. It has no check of exp, nbf or iat, so none has a leeway (driver.yaml).
  def verify(token, key, alg)
    JSON::JWT.decode(token, key, PINNED.fetch(alg)).to_hash
  end

  def decode(token)
    JSON::JWT.decode(token, :skip_verification).to_hash
  end

  # json-jwt's JWS layer alone: a JSON::JWS with the token's header, signing input and
  # signature, and its verify! (alg pinned, signature), as JSON::JWS.decode_compact_serialized
  # does it without parsing the payload as JSON claims (a JWS need not hold any: RFC 7515
  # A.4's is "Payload"). Answers the payload's bytes as signed.
  def verify_signature(token, key, alg)
    segments = token.split(".", -1)
    raise JSON::JWS::InvalidFormat, "Invalid JWS Format. JWS should include 3 segments." unless segments.size == 3

    header, payload, signature = segments.map { |segment| Base64.urlsafe_decode64(segment) }
    jws = JSON::JWS.new(JSON::JWT.new(nil))
    header = JSON.parse(header)
    raise JSON::JWS::InvalidFormat, "Invalid JWS Format: its header is no JSON object" unless header.is_a?(Hash)

    jws.header = header.with_indifferent_access
    jws.signature = signature
    jws.signature_base_string = segments.first(2).join(".")
    jws.verify!(key, PINNED.fetch(alg))
    payload
  rescue JSON::ParserError, ArgumentError
    raise JSON::JWT::InvalidFormat, "Invalid JSON Format"
  end
end
