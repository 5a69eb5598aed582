# frozen_string_literal: true

require "openssl"

# Key files as the contract gives them (workflow/scripts/README.md): the raw HMAC secret for
# HS*, else a PKCS#8 (private) or SPKI (public) PEM.
module Keys
  ED25519_OID = "ED25519"

  module_function

  def hmac?(alg)
    alg.start_with?("HS")
  end

  # OpenSSL's key object (RSA, EC, or Ed25519 as a generic PKey) of a PEM.
  def pkey(pem)
    OpenSSL::PKey.read(pem)
  end

  # The 32 raw bytes of an Ed25519 key in a PEM: the seed of a PKCS#8 private key
  # (RFC 8410: its privateKey OCTET STRING holds a CurvePrivateKey OCTET STRING), or the
  # point of an SPKI public key. Ruby's openssl 3.0 has no raw key export (raw_private_key
  # came in openssl 3.1), so the DER is read with its ASN.1 parser.
  def ed25519_raw(pem, private:)
    key = pkey(pem)
    der = OpenSSL::ASN1.decode(private ? key.private_to_der : key.public_to_der)
    algorithm = der.value[private ? 1 : 0].value[0].value
    raise ArgumentError, "not an Ed25519 key (#{algorithm})" unless algorithm == ED25519_OID

    raw = private ? OpenSSL::ASN1.decode(der.value[2].value).value : der.value[1].value
    raise ArgumentError, "an Ed25519 key of #{raw.bytesize} bytes" unless raw.bytesize == 32

    raw
  end
end
