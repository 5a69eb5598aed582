# frozen_string_literal: true

require "openssl"
require_relative "errors"
require_relative "library"
require_relative "timing"

# Suite harness: what the timing loop costs around a call that does no cryptography
# (workflow/scripts/README.md, "Suite harness"). A cell's call is a zero-argument lambda
# around a function of the adapter's sign(claims, key, alg) shape, as suite jwt's sign calls
# are (JwtCase#calls), and its batch is suite jwt's, Calls#batch: `empty` returns "" and does
# nothing else; `trivial` is OpenSSL.fixed_length_secure_compare (Ruby's constant-time
# comparison) of two equal 32-byte strings made before timing, "1" when they are equal.
module Harness
  module_function

  # The adapter's sign shape, doing nothing.
  def empty(_claims, _key, _alg)
    ""
  end

  def equal(left, right)
    OpenSSL.fixed_length_secure_compare(left, right) ? "1" : "0"
  end

  def expected_bytes(_cell)
    0
  end

  # trivial's call on two equal 32-byte strings, after checking that the comparison tells
  # them equal, and tells them from two that differ in one byte.
  def trivial_call
    left, right = Array(0...32).pack("C*"), Array(0...32).pack("C*") # equal, two objects
    differing = right.dup
    differing.setbyte(31, differing.getbyte(31) ^ 1)
    unless equal(left, right) == "1" && equal(left, differing) == "0"
      raise CheckFailed, "OpenSSL.fixed_length_secure_compare does not tell equal from unequal 32-byte strings"
    end

    -> { Harness.equal(left, right) }
  end

  def prepare(cell)
    call = if cell["operation"] == "empty"
             claims, key, alg = {}, "", cell["algorithm"]
             -> { Harness.empty(claims, key, alg) }
           else
             trivial_call
           end
    output_bytes = call.call.size
    calls = Calls.new([call])
    raise CheckFailed, "a batch of one call consumed #{calls.batch(1)} bytes, not #{output_bytes}" if calls.batch(1) != output_bytes

    Prepared.ok(JWS::NAME, JWS::VERSION, 0, calls.method(:batch), output_bytes)
  end
end
