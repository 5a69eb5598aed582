# frozen_string_literal: true

require "json"
require "openssl"
require_relative "errors"
require_relative "library"

# The checks a JWT cell passes before it is timed (workflow/scripts/README.md, "The checks
# before timing") and the forged tokens they, and suite transfer's server check, use.
module Checks
  module_function

  def b64url(bytes)
    [bytes].pack("m0").tr("+/", "-_").delete("=")
  end

  def b64url_decode(text)
    (text.tr("-_", "+/") + "=" * (-text.size % 4)).unpack1("m0")
  end

  # The token with the lowest bit of its first signature byte flipped.
  def flipped(token)
    header, payload, signature = token.split(".")
    raw = b64url_decode(signature)
    raw.setbyte(0, raw.getbyte(0) ^ 1)
    "#{header}.#{payload}.#{b64url(raw)}"
  end

  # The same payload, unsigned: header {"alg":"none","typ":"JWT"}, empty signature.
  def unsigned(token)
    "#{b64url('{"alg":"none","typ":"JWT"}')}.#{token.split('.')[1]}."
  end

  # The same payload under a header naming HS-alg `alg`, HMAC'd with `secret`.
  def hmac_token(token, alg, secret)
    signing_input = "#{b64url(JSON.generate({ "alg" => alg, "typ" => "JWT" }))}.#{token.split('.')[1]}"
    "#{signing_input}.#{b64url(OpenSSL::HMAC.digest(alg.sub('HS', 'SHA'), secret, signing_input))}"
  end

  # For HS*, the same secret under another HS algorithm; for the others, HS256 keyed with the
  # bytes of the public key's PEM (the key-confusion attack).
  def other_algorithm(token, alg, public_key_file)
    hmac_token(token, alg == "HS256" ? "HS384" : "HS256", File.binread(public_key_file))
  end

  def must_reject(token, case_, what)
    JWS.verify(token, case_.verifying_key, case_.alg)
  rescue *JWS::INVALID
    nil
  else
    raise CheckFailed, "#{case_.alg}: #{what} was accepted"
  end

  # Raises CheckFailed unless the case's first token verifies to its claims, its forgeries are
  # rejected, it decodes to its claims, and every further pooled token verifies to its record.
  def check(case_, public_key_file)
    token, alg = case_.tokens.first, case_.alg
    begin
      claims = JWS.verify(token, case_.verifying_key, alg)
    rescue *JWS::INVALID => e
      raise CheckFailed, "#{alg}: own token rejected: #{one_line(e)}"
    end
    raise CheckFailed, "#{alg}: verify returned other claims than were signed" unless claims == case_.inputs.claims.first

    must_reject(flipped(token), case_, "a token with a flipped signature bit")
    must_reject(unsigned(token), case_, "an alg:none token")
    must_reject(other_algorithm(token, alg, public_key_file), case_, "a token naming another alg")
    raise CheckFailed, "#{alg}: decode returned other claims than were signed" unless JWS.decode(token) == claims

    case_.tokens.each_with_index.drop(1).each do |pooled, index|
      begin
        verified = JWS.verify(pooled, case_.verifying_key, alg)
      rescue *JWS::INVALID => e
        raise CheckFailed, "#{alg}: own token for record #{index + 1} rejected: #{one_line(e)}"
      end
      raise CheckFailed, "#{alg}: verify returned other claims than record #{index + 1}'s" unless verified == case_.inputs.claims[index]
    end
  end
end
