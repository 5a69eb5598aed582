# frozen_string_literal: true

# The JWS library the driver times: an adapter chosen by JWTBENCH_LIBRARY.
#
# Unset (or "ruby-jwt"): ruby-jwt, the driver's own library (ruby_jwt_adapter.rb). Any other
# name L: the adapter of the further library's folder beside this driver, L/adapter.rb
# (workflow/scripts/README.md, "A further library of a language"), whose shim L/run sets
# JWTBENCH_LIBRARY=L. Everything else (the CLI, the worker, the checks, verify-batch) is the
# same for every library.
#
# An adapter is a module with:
#   NAME, VERSION     the library's name (its driver folder's) and version, as loaded
#   LIBRARIES         {name => version} of what it loads, for `versions`
#   CRYPTO_BACKEND    what does its cryptography, for `versions`
#   INVALID           the exception classes the library documents for a token it refuses
#   unsupported(alg)  why the library cannot do alg, or nil
#   signing_key(alg, bytes), verifying_key(alg, bytes)
#                     a key file's bytes parsed once into the library's own key object
#   sign(claims, key, alg)   -> a compact JWS (String)
#   verify(token, key, alg)  -> the claims (a Hash) under the verify policy, else raises
#   verify_signature(token, key, alg) -> the payload's bytes: the library's JWS layer alone
#   decode(token)            -> the claims without verifying
module Library
  DEFAULT = "ruby-jwt"

  def self.load(name)
    if name == DEFAULT
      require_relative "ruby_jwt_adapter"
      return RubyJwtAdapter
    end
    path = File.expand_path("../#{name}/adapter.rb", __dir__)
    unless name.match?(/\A[a-z0-9][a-z0-9._-]*\z/) && File.file?(path)
      warn "error: JWTBENCH_LIBRARY=#{name.inspect} names no library of this driver (no #{path})"
      exit 2
    end
    require path
    Object.const_get(:Adapter)
  end
end

JWS = Library.load(ENV.fetch("JWTBENCH_LIBRARY", "").then { |name| name.empty? ? Library::DEFAULT : name })
