# frozen_string_literal: true

require "openssl"
require_relative "errors"
require_relative "hashing"
require_relative "timing"

# Suite primitive: the raw primitives under the JWT algorithms, no JWT, all of them OpenSSL
# through Ruby's openssl (implementation "ruby-openssl", as suite hash):
#
# - digest: OpenSSL::Digest::SHA256.digest(message), the one-shot class method (as suite hash);
# - mac: an OpenSSL::HMAC keyed once per cell; one call is `keyed.dup.update(message).digest`
#   (dup copies the keyed state, so the key is not set up again per call);
# - encrypt: an OpenSSL::Cipher "aes-256-gcm" keyed once; one call sets the nonce (a 12-byte
#   big-endian counter, +1 per call), encrypts the message with no AAD, and returns the
#   ciphertext and its 16-byte tag;
# - sign / verify: the PEMs parsed once with OpenSSL::PKey.read; RSA-SHA256 and ECDSA-SHA256
#   are `key.sign("SHA256", message)` (PKCS#1 v1.5; DER), Ed25519 `key.sign(nil, message)`;
#   verify answers false for an invalid signature, which fails the cell; a valid call
#   consumes the signature's length.
module Primitive
  NONCE_BYTES = 12
  DIGESTS = { "SHA-256" => OpenSSL::Digest::SHA256, "SHA-512" => OpenSSL::Digest::SHA512 }.freeze
  # algorithm -> [OpenSSL's digest name or nil (Ed25519 hashes by itself), what the key must be]
  SIGNATURES = {
    "RSA-SHA256" => ["SHA256", "rsaEncryption"],
    "ECDSA-SHA256" => ["SHA256", "prime256v1"],
    "Ed25519" => [nil, "ED25519"],
  }.freeze

  module_function

  def message_of(cell)
    return File.binread(cell["input_file"]) if cell["input_kind"] == "bytes"

    Hashing.sweep_message(cell["message_bytes"])
  end

  def expected_bytes(cell)
    return cell["message_bytes"] unless cell["input_kind"] == "bytes"

    File.size?(cell["input_file"]).to_i
  end

  def known(cell, field)
    [cell["known_answer"][field]].pack("H*")
  end

  def compare(cell, got)
    want = cell["known_answer"]["output_hex"].downcase
    return if got.unpack1("H*") == want

    raise CheckFailed, "#{cell['operation']} #{cell['algorithm']} known answer gave #{got.unpack1('H*')}, not #{want}"
  end

  def secret(cell)
    key = File.binread(cell["private_key"])
    return key if key.bytesize * 8 == cell["key_bits"]

    raise CheckFailed, "secret #{cell['private_key']} has #{key.bytesize * 8} bits, not #{cell['key_bits']}"
  end

  def digest_case(cell, message)
    digest = DIGESTS.fetch(cell["algorithm"])
    compare(cell, digest.digest(known(cell, "message_hex")))
    batch = lambda do |n|
      sink = 0
      i = 0
      while i < n
        sink += digest.digest(message).bytesize
        i += 1
      end
      sink
    end
    [batch, digest.digest(message).bytesize]
  end

  def mac_case(cell, message)
    compare(cell, OpenSSL::HMAC.new(known(cell, "key_hex"), "SHA256").dup.update(known(cell, "message_hex")).digest)
    keyed = OpenSSL::HMAC.new(secret(cell), "SHA256")
    batch = lambda do |n|
      sink = 0
      i = 0
      while i < n
        sink += keyed.dup.update(message).digest.bytesize
        i += 1
      end
      sink
    end
    [batch, keyed.dup.update(message).digest.bytesize]
  end

  def gcm(key, direction)
    OpenSSL::Cipher.new("aes-256-gcm").tap do |cipher|
      cipher.public_send(direction)
      cipher.key = key
    end
  end

  def nonce(number)
    [number >> 64, number & 0xFFFF_FFFF_FFFF_FFFF].pack("NQ>")
  end

  def encrypt_case(cell, message)
    cipher = gcm(known(cell, "key_hex"), :encrypt)
    cipher.iv = known(cell, "nonce_hex")
    compare(cell, cipher.update(known(cell, "message_hex")) + cipher.final + cipher.auth_tag)
    cipher = gcm(secret(cell), :encrypt)
    counter = 0
    encrypt = lambda do
      counter += 1
      cipher.iv = nonce(counter)
      cipher.update(message) + cipher.final + cipher.auth_tag
    end
    # one output of the timed path decrypts back to the message
    output = encrypt.call
    decipher = gcm(secret(cell), :decrypt)
    decipher.iv = nonce(counter)
    decipher.auth_tag = output[-16..]
    raise CheckFailed, "AES-256-GCM output did not decrypt to the message" unless decipher.update(output[0...-16]) + decipher.final == message

    batch = lambda do |n|
      sink = 0
      i = 0
      while i < n
        counter += 1
        cipher.iv = nonce(counter)
        sink += (cipher.update(message) + cipher.final + cipher.auth_tag).bytesize
        i += 1
      end
      sink
    end
    [batch, output.bytesize]
  end

  # What a key is, in the terms SIGNATURES uses: its curve, or its type's name.
  def kind(key)
    key.respond_to?(:group) ? key.group.curve_name : key.oid
  end

  def bits(key)
    case key
    when OpenSSL::PKey::RSA then key.n.num_bits
    when OpenSSL::PKey::EC then key.group.degree
    else 256 # Ed25519
    end
  end

  def signature_case(cell, message)
    digest, wanted = SIGNATURES.fetch(cell["algorithm"])
    private = OpenSSL::PKey.read(File.binread(cell["private_key"]))
    public = OpenSSL::PKey.read(File.binread(cell["public_key"]))
    raise CheckFailed, "#{cell['private_key']} is not a key for #{cell['algorithm']}" unless kind(private) == wanted
    raise CheckFailed, "#{cell['private_key']} has #{bits(private)} bits, not #{cell['key_bits']}" unless bits(private) == cell["key_bits"]

    signature = private.sign(digest, message)
    raise CheckFailed, "a signature of the message did not verify" unless public.verify(digest, signature, message)

    flipped = signature.dup
    flipped.setbyte(0, flipped.getbyte(0) ^ 1)
    rejected = begin
      !public.verify(digest, flipped, message)
    rescue OpenSSL::PKey::PKeyError
      true
    end
    raise CheckFailed, "a signature with its first byte's lowest bit flipped verified" unless rejected

    length = signature.bytesize
    batch = signature_batch(cell["operation"], private, public, digest, message, signature)
    [batch, length]
  end

  CASES = {
    "digest" => :digest_case, "mac" => :mac_case, "encrypt" => :encrypt_case,
    "sign" => :signature_case, "verify" => :signature_case,
  }.freeze

  def prepare(cell)
    message = message_of(cell)
    batch, output_bytes = public_send(CASES.fetch(cell["operation"]), cell, message)
    # (an ECDSA signature is DER, 70-72 bytes for P-256: its length varies call to call)
    if batch.call(1) != output_bytes && !cell["algorithm"].start_with?("ECDSA")
      raise CheckFailed, "a batch of one call consumed #{batch.call(1)} bytes, not #{output_bytes}"
    end

    Prepared.ok(Hashing::IMPLEMENTATION, Hashing::VERSION, message.bytesize, batch, output_bytes)
  end
end
