# frozen_string_literal: true

require "openssl"
require_relative "errors"
require_relative "hashing"
require_relative "timing"

# Suite keygen: seed 004's loop (generate a key pair, sign, verify) with OpenSSL through Ruby's
# openssl (implementation "ruby-openssl"): OpenSSL::PKey::RSA.generate(bits, 65537) with
# PKCS#1 v1.5, OpenSSL::PKey::EC.generate(curve) with ECDSA (DER signature); the digest named
# per call ("SHA256", "SHA512"). The generated key object verifies its own signature (an
# OpenSSL key pair verifies with its public half; Ruby has no cheaper public-only copy than a
# DER round trip).
#
# A per-iteration cell's call (keygen+sign+verify, keygen) is one iteration in the worker's own
# thread; the conductor enforces the cell's budget by stopping the worker.
module Keygen
  PER_ITERATION = %w[keygen+sign+verify keygen].freeze
  CHECK_MESSAGE = "0123456789"
  PUBLIC_EXPONENT = 65_537
  CURVES = { 256 => "prime256v1", 384 => "secp384r1", 521 => "secp521r1" }.freeze

  # One family, size and hash.
  Scheme = Struct.new(:family, :bits, :digest) do
    def self.of(cell)
      new(cell["family"], cell["key_bits"], cell["algorithm"].end_with?("SHA512") ? "SHA512" : "SHA256")
    end

    def generate
      family == "RSA" ? OpenSSL::PKey::RSA.generate(bits, PUBLIC_EXPONENT) : OpenSSL::PKey::EC.generate(CURVES.fetch(bits))
    end

    # [family, bits, public exponent or curve] of a key
    def describe(key)
      case key
      when OpenSSL::PKey::RSA then ["RSA", key.n.num_bits, key.e.to_i]
      when OpenSSL::PKey::EC then ["ECDSA", key.group.degree, key.group.curve_name]
      else [key.class.name, 0, nil]
      end
    end

    def expected
      [family, bits, family == "RSA" ? PUBLIC_EXPONENT : CURVES.fetch(bits)]
    end
  end

  module_function

  # `length` bytes of the ASCII digits 0123456789 repeated (the seed's b'0123456789' * k).
  def message_of(length)
    ("0123456789" * (length / 10 + 1))[0, length]
  end

  # A key pair signs CHECK_MESSAGE, verifies it, rejects the signature with the lowest bit of
  # its first byte flipped, and has the cell's family, size and exponent or curve. Returns the
  # signature's length.
  def check_pair(scheme, private, public, what)
    got = scheme.describe(private)
    raise CheckFailed, "#{what} is #{got}, not #{scheme.expected}" unless got == scheme.expected

    signature = private.sign(scheme.digest, CHECK_MESSAGE)
    raise CheckFailed, "#{what}: its own signature did not verify" unless public.verify(scheme.digest, signature, CHECK_MESSAGE)

    flipped = signature.dup
    flipped.setbyte(0, flipped.getbyte(0) ^ 1)
    accepted = begin
      public.verify(scheme.digest, flipped, CHECK_MESSAGE)
    rescue OpenSSL::PKey::PKeyError
      false
    end
    raise CheckFailed, "#{what}: a signature with its first byte's lowest bit flipped verified" if accepted

    signature.bytesize
  end

  # A per-iteration cell: each call generates a NEW key pair (keygen+sign+verify then signs the
  # message and verifies the signature, the seed's loop body). The first generated pair is
  # checked after its call, outside the timed region, by answer.
  class Iterations
    def initialize(scheme, operation, message)
      @scheme, @operation, @message = scheme, operation, message
      @checked = false
    end

    def batch(n)
      scheme, message, digest, sink = @scheme, @message, @scheme.digest, 0
      n.times do
        @key = key = scheme.generate
        next if @operation == "keygen"

        signature = key.sign(digest, message)
        raise CheckFailed, "a generated key's signature did not verify" unless key.verify(digest, signature, message)

        sink += signature.bytesize
      end
      sink
    end

    def answer(n, sink)
      unless @checked
        Keygen.check_pair(@scheme, @key, @key, "a generated key")
        @checked = true
      end
      return { "output_bytes" => @key.public_to_der.bytesize } if @operation == "keygen"

      { "output_bytes" => (sink.to_f / n).round }
    end
  end

  def signature_cell(cell, scheme, private, public)
    message, digest = message_of(cell["message_bytes"]), scheme.digest
    signature = private.sign(digest, message)
    raise CheckFailed, "a signature of the message did not verify" unless public.verify(digest, signature, message)

    length = signature.bytesize
    batch = signature_batch(cell["operation"], private, public, digest, message, signature)
    Prepared.ok(Hashing::IMPLEMENTATION, Hashing::VERSION, message.bytesize, batch, length)
  end

  def expected_bytes(cell)
    cell["message_bytes"]
  end

  PEMS = {} # each key's checked PEM pair: [private, public, signature length]

  # The cell's batch (a per-iteration cell's answer too), its PEM pair checked once per key;
  # no key pair is generated here.
  def prepare(cell)
    scheme = Scheme.of(cell)
    pem = PEMS[[scheme, cell["private_key"], cell["public_key"]]] ||= begin
      private = OpenSSL::PKey.read(File.binread(cell["private_key"]))
      public = OpenSSL::PKey.read(File.binread(cell["public_key"]))
      [private, public, check_pair(scheme, private, public, "the key pair #{cell['private_key']}")]
    end
    return signature_cell(cell, scheme, pem[0], pem[1]) unless PER_ITERATION.include?(cell["operation"])

    iterations = Iterations.new(scheme, cell["operation"], message_of(cell["message_bytes"]))
    output_bytes = cell["operation"] == "keygen" ? pem[1].public_to_der.bytesize : pem[2]
    Prepared.ok(Hashing::IMPLEMENTATION, Hashing::VERSION, cell["message_bytes"], iterations.method(:batch),
                output_bytes, answer: iterations.method(:answer))
  end
end
