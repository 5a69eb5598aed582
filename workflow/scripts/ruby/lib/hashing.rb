# frozen_string_literal: true

require "openssl"
require "securerandom"
require_relative "errors"
require_relative "timing"

# Suite hash with OpenSSL's digests through Ruby's openssl (implementation "ruby-openssl"):
# seed 002's short strings, and a length sweep of raw bytes. One call is the digest class's
# one-shot method (OpenSSL::Digest::SHA256.hexdigest(message), as Commons Codec's
# DigestUtils.sha256Hex makes a digest per call). A cell's call and batch are generated from
# its message's parts, so that a batch for [fresh-uuid, time-ms] and SHA-256 is
#
#     i = 0
#     while i < n
#       fresh = SecureRandom.uuid
#       ms = Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond)
#       sink += digest.hexdigest("#{fresh}#{ms}").bytesize
#       i += 1
#     end
#
# rather than a loop over the parts inside each call (a block call and an Array#join per call
# cost as much as the SHA-256 of a UUID on CRuby 3.1). The source is made only from the fixed
# texts below.
module Hashing
  IMPLEMENTATION = "ruby-openssl"
  VERSION = OpenSSL::VERSION
  DIGESTS = {
    "MD5" => OpenSSL::Digest::MD5,
    "SHA-1" => OpenSSL::Digest::SHA1,
    "SHA-256" => OpenSSL::Digest::SHA256,
    "SHA-512" => OpenSSL::Digest::SHA512,
  }.freeze
  # part -> its expression in the message's string; its length in characters (time-ms: until 2286)
  PART_NAMES = { "cached-uuid" => "cached", "fresh-uuid" => "fresh", "time-ms" => "ms" }.freeze
  PART_CHARS = { "cached-uuid" => 36, "fresh-uuid" => 36, "time-ms" => 13 }.freeze
  # part -> the statement that makes its value once per call (a part may appear twice)
  PER_CALL = {
    "fresh-uuid" => "fresh = SecureRandom.uuid",
    "time-ms" => "ms = Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond)",
  }.freeze
  # operation -> what one call returns, given its message's expression (its size is consumed)
  RESULTS = {
    "hex-digest" => "digest.hexdigest(%s)",
    "generate" => "%s.b",
    "digest" => "digest.digest(%s)",
  }.freeze

  module_function

  def expected_bytes(cell)
    return cell["message_bytes"] if cell["operation"] == "digest"

    cell["message"].sum { |part| PART_CHARS.fetch(part) }
  end

  # The length sweep's message: byte i is i mod 256.
  def sweep_message(length)
    Array.new(length) { |i| i % 256 }.pack("C*")
  end

  # [call, batch] for `operation` on the message `expression`: call.() makes one call and
  # returns its result; batch.(n) makes n calls and returns the sum of their results' sizes.
  # `per_call` statements run first in each call; digest, cached and message are the names
  # the code reads.
  def compiled(operation, expression, per_call, digest: nil, cached: nil, message: nil)
    result = format(RESULTS.fetch(operation), expression)
    source = <<~RUBY
      lambda do |digest, cached, message|
        call = lambda do
          #{per_call.join("\n")}
          #{result}
        end
        batch = lambda do |n|
          sink = 0
          i = 0
          while i < n
            #{per_call.join("\n")}
            sink += #{result}.bytesize
            i += 1
          end
          sink
        end
        [call, batch]
      end
    RUBY
    binding.eval(source, __FILE__, __LINE__).call(digest, cached, message)
  end

  # compiled() for a message built from `parts`, with `cached` as the cached UUID.
  def message_compiled(operation, parts, digest, cached)
    expression = if parts == ["cached-uuid"]
                   "cached" # used as it is, no copy
                 else
                   "\"#{parts.map { |part| "\#{#{PART_NAMES.fetch(part)}}" }.join}\""
                 end
    per_call = PER_CALL.select { |part, _| parts.include?(part) }.values
    compiled(operation, expression, per_call, digest: digest, cached: cached)
  end

  def check_known_answer(cell, digest)
    known = cell["known_answer"]
    got = if cell["operation"] == "digest"
            compiled("digest", "message", [], digest: digest, message: known["message"].b).first.call.unpack1("H*")
          else
            message_compiled(cell["operation"], ["cached-uuid"], digest, known["message"]).first.call
          end
    return if got == known["digest_hex"].downcase

    raise CheckFailed, "#{cell['algorithm']} of #{known['message'].inspect} gave #{got}, not #{known['digest_hex']}"
  end

  # The cell's batch, made and checked before any timing (the known answer; for a built
  # message its length).
  def prepare(cell)
    operation = cell["operation"]
    digest = DIGESTS.fetch(cell["algorithm"]) unless operation == "generate"
    check_known_answer(cell, digest) if digest
    if operation == "digest"
      message = sweep_message(cell["message_bytes"])
      call, batch = compiled("digest", "message", [], digest: digest, message: message)
      input_bytes = message.bytesize
    else
      parts, cached = cell["message"], SecureRandom.uuid
      input_bytes = message_compiled("generate", parts, nil, cached).first.call.bytesize
      if input_bytes != expected_bytes(cell)
        raise CheckFailed, "message #{parts.join(' + ')} has #{input_bytes} bytes, not #{expected_bytes(cell)}"
      end

      call, batch = message_compiled(operation, parts, digest, cached)
    end
    output_bytes = call.call.bytesize
    raise CheckFailed, "a batch of one call consumed #{batch.call(1)} bytes, not #{output_bytes}" if batch.call(1) != output_bytes

    Prepared.ok(IMPLEMENTATION, VERSION, input_bytes, batch, output_bytes)
  end
end
